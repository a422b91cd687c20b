#!/usr/bin/env bash
# bench/shapes.sh - shaped particles' cost (make bench-shapes,
# docs/performance.md "Shaped particles"): ms per step of beds of cubes
# beside the same beds of spheres (bench/make_scenes.py: cubes-*, spheres-*),
# NDEM and smooth DEM (hertz), on 2 threads by default.
#
# usage: bash bench/shapes.sh [--threads N] [--steps N] [--settle] [NDEM_BIN] [SCENE ...]
#   packed beds (cubes face to face, spheres touching, 10^4 and 10^5): N
#   steps (default 5) under NDEM (the bed's step) and smooth DEM (hertz, the
#   stable step "auto"). Per step: wall ms (series.csv, steps 2..N), and CPU
#   ms of the process ((CPU of N steps - CPU of 1 step) / (N - 1): the
#   set-up and the first list build drop out, and a loaded machine shows
#   less in it than in wall time); touching particle pairs at the end (those
#   overlapping: the packed cubes touch at zero depth and count none).
#   SCENE: a subset by name (default: all four).
#   --settle: also the poured 10^4 beds through bench/run.sh (2 s, NDEM).
# Needs only bash, awk and sed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
bin="$root/build/release/ndem"
threads=2 settle=0 steps=5 scenes=()
while [ $# -gt 0 ]; do
    case "$1" in
        --threads) threads="$2"; shift ;;
        --steps) steps="$2"; shift ;;
        --settle) settle=1 ;;
        -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
        cubes-*|spheres-*) scenes+=("$1") ;;
        *) bin="$1" ;;
    esac
    shift
done
[ -x "$bin" ] || { echo "bench: no ndem binary at $bin (run make first)" >&2; exit 2; }
[ "$steps" -ge 2 ] || { echo "bench: --steps must be at least 2" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/ndem-shapes.XXXXXX")
trap 'rm -rf "$work"' EXIT

# job with duration k steps of h: k - 0.5 steps (ceil(duration / h) = k)
with_steps() { sed -E "s/\"duration\"[[:space:]]*:[[:space:]]*[0-9.eE+-]+/\"duration\": $(awk -v h="$2" -v k="$3" 'BEGIN { printf "%.9g", (k - 0.5) * h }')/" "$1"; }
step_of() { sed -nE 's/.*"time_step"[[:space:]]*:[[:space:]]*([0-9.eE+-]+).*/\1/p' "$1" | head -1; }
# CPU seconds (user + system) of one run; the run's outputs in $2
cpu_run() {
    /usr/bin/time -f "%U %S" -o "$2.time" "$bin" run "$1" --out "$2" --quiet --no-vtk \
        --threads "$threads" > "$2.log" 2>&1 || { echo "bench: $1 failed:" >&2; tail -3 "$2.log" >&2; return 1; }
    awk '{ print $1 + $2 }' "$2.time"
}

echo "ndem bench-shapes: $(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -n), load:$(uptime | sed 's/.*load average://')"
echo "binary: $bin, $threads threads, $steps steps"
printf '%-20s %-6s %9s %9s %9s %8s %10s %8s %8s\n' scene method "step s" "wall ms" "CPU ms" pairs "CPU us/pair" narrow solve
[ ${#scenes[@]} -gt 0 ] || scenes=(cubes-10k-lattice spheres-10k-lattice cubes-100k spheres-100k)
for scene in "${scenes[@]}"; do
    for method in ndem dem; do
        base="$work/$scene-$method.json"
        if [ "$method" = dem ]; then
            sed -E -e 's/"method"[[:space:]]*:[[:space:]]*"ndem"/"method": "dem", "contact_model": "hertz"/' \
                -e 's/"time_step"[[:space:]]*:[[:space:]]*[0-9.eE+-]+/"time_step": "auto"/' \
                "$here/$scene.json" > "$base"
        else
            cp "$here/$scene.json" "$base"
        fi
        # one step: the set-up's CPU, and the stable step "auto" resolves to
        with_steps "$base" 1e-9 1 > "$work/one.json"
        c1=$(cpu_run "$work/one.json" "$work/one-$scene-$method") || continue
        h=$(step_of "$work/one-$scene-$method/job.json")
        with_steps "$base" "$h" "$steps" > "$work/n.json"
        out="$work/$scene-$method"
        cn=$(cpu_run "$work/n.json" "$out") || continue
        awk -F, -v name="$scene" -v m="$method" -v h="$h" -v c1="$c1" -v cn="$cn" -v k="$steps" '
            NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
            NR > 2 { n++; w += $col["wall_seconds"]; na += $col["wall_narrowphase"]; s += $col["wall_solve"] }
            { c = $col["contacts"] - $col["geometry_contacts"] }
            END { cpu = 1000 * (cn - c1) / (k - 1)
                  printf "%-20s %-6s %9.3g %9.1f %9.1f %8d %10.2f %8.1f %8.1f\n", name, m, h, 1000 * w / n,
                         cpu, c, (c > 0 ? 1000 * cpu / c : 0), 1000 * na / n, 1000 * s / n }
        ' "$out/series.csv"
    done
done
if [ "$settle" = 1 ]; then
    echo
    bash "$here/run.sh" --threads "$threads" "$bin" "$here/cubes-10k.json" "$here/spheres-10k.json"
fi
