#!/usr/bin/env bash
# bench/run.sh - the benchmark protocol of bench/README.md: run the
# standard beds for their 2 s and print wall time per step (whole run and
# last 0.5 s), contacts, rows, iterations, time per phase and peak memory.
#
# usage: bash bench/run.sh [--quick] [--threads N] [--keep] [NDEM_BIN] [SCENE.json ...]
# Without scenes it runs both beds and then NDEM against smooth Hertz DEM on
# the first 0.25 s of bed-10k (wall seconds per simulated second).
#   --quick      0.5 s of simulated time instead of 2 s (a fast look; the
#                "last 0.5 s" columns then cover the whole run)
#   --threads N  passed to ndem (default: the job's setting / all cores)
#   --keep       keep the output folders (printed) instead of removing them
# Needs only bash, awk and sed (no python).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
bin="$root/build/release/ndem"
quick=0 keep=0 threads=""
scenes=()
while [ $# -gt 0 ]; do
    case "$1" in
        --quick) quick=1 ;;
        --keep) keep=1 ;;
        --threads) threads="$2"; shift ;;
        -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
        *.json) scenes+=("$1") ;;
        *) bin="$1" ;;
    esac
    shift
done
compare=0
if [ ${#scenes[@]} -eq 0 ]; then
    scenes=("$here/bed-10k.json" "$here/bed-100k.json")
    compare=1 # the standard run also compares NDEM with smooth DEM
fi
[ -x "$bin" ] || { echo "bench: no ndem binary at $bin (run make first)" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/ndem-bench.XXXXXX")
[ "$keep" = 1 ] || trap 'rm -rf "$work"' EXIT

echo "ndem bench: $(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -n), load:$(uptime | sed 's/.*load average://')"
echo "binary: $bin$([ "$quick" = 1 ] && echo ' (--quick: 0.5 s)')$([ -n "$threads" ] && echo ", $threads threads")"
printf '%-10s %8s %9s %9s %8s %8s %5s %7s %7s %7s %7s %8s %7s\n' \
    scene particles "ms/step" "last0.5s" contacts rows iter broad narrow solve integr "peak MB" "B/part"

for scene in "${scenes[@]}"; do
    [ -f "$scene" ] || { echo "bench: missing scene $scene" >&2; continue; }
    name=$(basename "$scene" .json)
    job="$work/$name.json"
    if [ "$quick" = 1 ]; then
        sed -E 's/"duration"[[:space:]]*:[[:space:]]*[0-9.eE+-]+/"duration": 0.5/' "$scene" > "$job"
    else
        cp "$scene" "$job"
    fi
    out="$work/$name"
    args=(run "$job" --out "$out" --quiet --no-vtk)
    [ -z "$threads" ] || args+=(--threads "$threads")
    if ! "$bin" "${args[@]}" > "$work/$name.log" 2>&1; then
        echo "bench: $name failed:" >&2
        tail -5 "$work/$name.log" >&2
        continue
    fi
    peak=$(sed -nE 's/.*"peak_memory_bytes"[[:space:]]*:[[:space:]]*([0-9.eE+]+).*/\1/p' "$out/summary.json" | head -1)
    awk -F, -v name="$name" -v peak="${peak:-0}" '
        NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        { n++; t[n] = $col["time"]; w[n] = $col["wall_seconds"]; b[n] = $col["wall_broadphase"]
          na[n] = $col["wall_narrowphase"]; s[n] = $col["wall_solve"]; ig[n] = $col["wall_integrate"]
          p = $col["particles"]; c = $col["contacts"]; r = $col["rows"]; it = $col["iterations"] }
        END {
            if (n == 0) { printf "%-10s no steps\n", name; exit }
            tend = t[n]; m = 0; wl = bl = nl = sl = il = 0; all = 0
            for (k = 1; k <= n; k++) {
                all += w[k]
                if (t[k] > tend - 0.5 + 1e-9) { m++; wl += w[k]; bl += b[k]; nl += na[k]; sl += s[k]; il += ig[k] }
            }
            printf "%-10s %8d %9.2f %9.2f %8d %8d %5d %7.2f %7.2f %7.2f %7.2f %8.1f %7.0f\n",
                name, p, 1000 * all / n, 1000 * wl / m, c, r, it, 1000 * bl / m, 1000 * nl / m,
                1000 * sl / m, 1000 * il / m, peak / 1048576, (p > 0 ? peak / p : 0)
        }' "$out/series.csv"
done

# NDEM against smooth DEM (issue 5): the same 10 000-particle bed, the first
# 0.25 s (0.1 s with --quick), Hertz DEM at 0.1 of its stable step ("auto").
# The figure that matters to a user: wall seconds per simulated second.
bed="$here/bed-10k.json"
if [ "$compare" = 1 ] && [ -f "$bed" ]; then
    span=0.25
    [ "$quick" = 1 ] && span=0.1
    echo
    printf '%-22s %10s %8s %12s
' "bed-10k, first ${span} s" "time step" steps "wall s / s"
    for method in ndem dem; do
        job="$work/cmp-$method.json"
        if [ "$method" = dem ]; then
            sed -E -e 's/"method"[[:space:]]*:[[:space:]]*"ndem"/"method": "dem", "contact_model": "hertz"/' \
                -e 's/"time_step"[[:space:]]*:[[:space:]]*[0-9.eE+-]+/"time_step": "auto"/' \
                -e "s/\"duration\"[[:space:]]*:[[:space:]]*[0-9.eE+-]+/\"duration\": $span/" "$bed" > "$job"
        else
            sed -E "s/\"duration\"[[:space:]]*:[[:space:]]*[0-9.eE+-]+/\"duration\": $span/" "$bed" > "$job"
        fi
        args=(run "$job" --out "$work/cmp-$method" --quiet --no-vtk)
        [ -z "$threads" ] || args+=(--threads "$threads")
        if ! "$bin" "${args[@]}" > "$work/cmp-$method.log" 2>&1; then
            echo "bench: $method comparison failed:" >&2; tail -3 "$work/cmp-$method.log" >&2; continue
        fi
        h=$(sed -nE 's/.*"time_step"[[:space:]]*:[[:space:]]*([0-9.eE+-]+).*/\1/p' "$work/cmp-$method/job.json" | head -1)
        awk -F, -v m="$method" -v h="$h" -v span="$span" '
            NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
            { n++; w += $col["wall_seconds"] }
            END { printf "%-22s %10.3g %8d %12.1f\n", (m == "dem" ? "smooth DEM (hertz)" : "NDEM"), h, n, w / span }
        ' "$work/cmp-$method/series.csv"
    done
fi
[ "$keep" = 0 ] || echo "outputs kept in $work"
