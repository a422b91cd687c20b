#!/usr/bin/env bash
# bench/peers.sh - LIGGGHTS beside ndem on the same bed (issue 15): the bed
# settles in LIGGGHTS (Hertz, MPI ranks), in ndem's NDEM (the bench scene as
# it is) and in ndem's smooth Hertz DEM at LIGGGHTS' step, each for the same
# simulated time, from the same particles (ndem's frame 0). Prints simulated
# seconds per wall second, the ratios, and the final mean centre height of
# each (the same bed should settle to about the same height).
#
# usage: bash bench/peers.sh [--large] [--duration S] [--np N] [--threads N]
#                            [--keep] [NDEM_BIN]
#   --large       bed-100k instead of bed-10k (BENCH_PEERS_LARGE=1 does the same)
#   --duration S  simulated seconds (default 1; the bench protocol's is 2)
#   --np N        LIGGGHTS MPI ranks (default 2)
#   --threads N   ndem OpenMP threads (default 2)
#   --keep        keep the work folder (printed)
# Needs liggghts and mpirun (scripts/deps.sh peers), python3, awk, sed.
# ndem runs with OMP_WAIT_POLICY=PASSIVE unless it is set: on a shared
# 2-core machine spinning OpenMP barriers slow a run many times over.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
bin="$root/build/release/ndem"
duration=1 np=2 threads=2 keep=0
scene="$here/bed-10k.json"
[ "${BENCH_PEERS_LARGE:-0}" = 1 ] && scene="$here/bed-100k.json"
while [ $# -gt 0 ]; do
    case "$1" in
        --large) scene="$here/bed-100k.json" ;;
        --duration) duration="$2"; shift ;;
        --np) np="$2"; shift ;;
        --threads) threads="$2"; shift ;;
        --keep) keep=1 ;;
        -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
        *) bin="$1" ;;
    esac
    shift
done
[ -x "$bin" ] || { echo "peers: no ndem binary at $bin (run make first)" >&2; exit 2; }
for c in liggghts mpirun python3; do
    command -v "$c" >/dev/null || { echo "peers: $c not found (bash scripts/deps.sh peers)" >&2; exit 2; }
done
export OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-PASSIVE}"
# Open MPI refuses root unless told (containers, CI)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

work=$(mktemp -d "${TMPDIR:-/tmp}/ndem-peers.XXXXXX")
[ "$keep" = 1 ] || trap 'rm -rf "$work"' EXIT
name=$(basename "$scene" .json)

# job SRC DST SED-EXPR...: the scene with its solver fields rewritten
job() {
    local src="$1" dst="$2"
    shift 2
    sed -E -e "s/\"duration\"[[:space:]]*:[[:space:]]*[0-9.eE+-]+/\"duration\": $duration/" \
        -e "s/\"frame_interval\"[[:space:]]*:[[:space:]]*[0-9.eE+-]+/\"frame_interval\": $duration/" \
        "$@" "$src" > "$dst"
}
# run_ndem TAG: runs $work/TAG.json, prints "wall_seconds simulated_time steps mean_z"
run_ndem() {
    local tag="$1"
    if ! "$bin" run "$work/$tag.json" --out "$work/$tag" --quiet --no-vtk --threads "$threads" \
        > "$work/$tag.log" 2>&1; then
        echo "peers: ndem $tag failed:" >&2; tail -5 "$work/$tag.log" >&2; exit 1
    fi
    python3 - "$work/$tag" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1] + "/summary.json"))
f = json.load(open(sys.argv[1] + "/final.json"))
z = f["positions"][2::3]
print(s["wall_seconds"], s["time"], s["steps"], sum(z) / len(z))
EOF
}

echo "ndem peers: $(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -n), $(nproc) cores, load:$(uptime | sed 's/.*load average://')"
echo "scene: $name, $duration s simulated; LIGGGHTS $np MPI ranks, ndem $threads threads (OMP_WAIT_POLICY=$OMP_WAIT_POLICY)"

# frame 0: the particles ndem places (one NDEM step is the shortest run)
h_ndem=$(sed -nE 's/.*"time_step"[[:space:]]*:[[:space:]]*([0-9.eE+-]+).*/\1/p' "$scene" | head -1)
sed -E "s/\"duration\"[[:space:]]*:[[:space:]]*[0-9.eE+-]+/\"duration\": $h_ndem/" "$scene" > "$work/frame0.json"
"$bin" run "$work/frame0.json" --out "$work/frame0" --quiet --no-vtk --threads "$threads" \
    > "$work/frame0.log" 2>&1 || { echo "peers: ndem failed on $name:" >&2; tail -5 "$work/frame0.log" >&2; exit 1; }
# (an assignment, not `read < <(...)`, so that set -e stops on a failure)
gen=$(python3 "$here/peers/liggghts_input.py" "$scene" "$work/frame0/frames/000000.ndf" \
    "$work/liggghts" --duration "$duration")
read -r h_lig steps_lig <<< "$gen"

# LIGGGHTS
(cd "$work/liggghts" && mpirun -np "$np" liggghts -in in.bed -log log.liggghts > out.txt 2>&1) || {
    echo "peers: LIGGGHTS failed:" >&2; tail -15 "$work/liggghts/out.txt" >&2; exit 1; }
lig=$(awk '
    /^Loop time of/ { wall = $4 }
    $1 ~ /^[0-9]+$/ && NF == 5 { t = $2; atoms = $3; z = $5 }
    END { print wall, t, atoms, z }' "$work/liggghts/out.txt")
read -r w_lig t_lig atoms_lig z_lig <<< "$lig"

# ndem NDEM: the bench scene as it is; smooth Hertz DEM at LIGGGHTS' step
job "$scene" "$work/ndem.json"
res=$(run_ndem ndem)
read -r w_ndem t_ndem steps_ndem z_ndem <<< "$res"
job "$scene" "$work/dem.json" \
    -e 's/"method"[[:space:]]*:[[:space:]]*"ndem"/"method": "dem", "contact_model": "hertz"/' \
    -e "s/\"time_step\"[[:space:]]*:[[:space:]]*[0-9.eE+-]+/\"time_step\": $h_lig/"
res=$(run_ndem dem)
read -r w_dem t_dem steps_dem z_dem <<< "$res"

echo
printf '%-26s %10s %8s %9s %10s %12s %14s\n' code "time step" steps "wall s" "sim s/s" "vs LIGGGHTS" "mean z (mm)"
row() { # label h steps wall simulated z
    awk -v l="$1" -v h="$2" -v n="$3" -v w="$4" -v t="$5" -v z="$6" -v ref="$t_lig/$w_lig" 'BEGIN {
        split(ref, r, "/"); rate = t / w; rl = r[1] / r[2]
        printf "%-26s %10.3g %8d %9.2f %10.4f %11.2fx %14.2f\n", l, h, n, w, rate, rate / rl, 1000 * z }'
}
row "LIGGGHTS hertz ($np ranks)" "$h_lig" "$steps_lig" "$w_lig" "$t_lig" "$z_lig"
row "ndem NDEM" "$h_ndem" "$steps_ndem" "$w_ndem" "$t_ndem" "$z_ndem"
row "ndem smooth DEM hertz" "$h_lig" "$steps_dem" "$w_dem" "$t_dem" "$z_dem"
[ "$atoms_lig" = "$(sed -nE 's/.*"particles"[[:space:]]*:[[:space:]]*([0-9]+).*/\1/p' "$work/ndem/summary.json" | head -1)" ] ||
    echo "peers: LIGGGHTS ended with $atoms_lig atoms (lost some)" >&2
echo "sim s/s: simulated seconds per wall second (LIGGGHTS' loop time, ndem's wall_seconds);"
echo "vs LIGGGHTS: that rate over LIGGGHTS' (above 1: faster); mean z: mean centre height at the end"
[ "$keep" = 0 ] || echo "outputs kept in $work"
