#!/usr/bin/env bash
# bench/large.sh - make bench-large: bed-100k scaled to 10^3 .. 10^6
# particles (bench/make_scenes.py --bed: the same density, the side times
# sqrt(N / 10^5); the 10^6 bed is 3.18 m x 3.18 m), each run from frame 0 for
# a short time, one table: the scaling curve of docs/performance.md.
#
# usage: bash bench/large.sh [--duration S] [--window S] [--threads N] [--keep]
#                            [--counts "1000 10000 ..."] [NDEM_BIN]
#   --duration S  simulated time of each run (default 0.5 s, as --quick:
#                 the fall, the first impacts and most of the settling)
#   --window S    the measured window: the last S seconds of the run
#                 (default 0.1 s = 40 steps, the bed mostly at rest)
#   --counts      particle counts (default "1000 10000 100000 1000000")
#   --keep        keep the jobs and outputs (printed)
# Columns: ms/step over the window, contacts (touching) and rows (all
# solver rows, gaps included) at the end, iterations, ns per row-iteration
# (the window's wall time per step over rows x iterations: the whole step,
# and the solve stage alone), peak RSS and bytes per particle. The 10^6 run
# needs about 1 GB and, on 2 cores, about a second a step. Scenes are
# generated into build/bench-large (not committed). Needs python3, awk, sed.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
bin="$root/build/release/ndem"
duration=0.5 window=0.1 threads="" keep=0
counts="1000 10000 100000 1000000"
while [ $# -gt 0 ]; do
    case "$1" in
        --duration) duration="$2"; shift ;;
        --window) window="$2"; shift ;;
        --threads) threads="$2"; shift ;;
        --counts) counts="$2"; shift ;;
        --keep) keep=1 ;;
        -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
        *) bin="$1" ;;
    esac
    shift
done
[ -x "$bin" ] || { echo "bench-large: no ndem binary at $bin (run make first)" >&2; exit 2; }
work="$root/build/bench-large"
mkdir -p "$work"

echo "ndem bench-large: $(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -n), $(nproc) cores, load:$(uptime | sed 's/.*load average://')"
echo "binary: $bin; ${duration} s from frame 0, measured over the last ${window} s$([ -n "$threads" ] && echo ", $threads threads")"
printf '%9s %7s %9s %9s %9s %5s %9s %9s %8s %7s %7s\n' particles side_m "ms/step" contacts rows iter \
    "ns/rowit" "solve ns" "peak MB" "B/part" "wall s"

for n in $counts; do
    python3 "$here/make_scenes.py" --bed "$n" --duration "$duration" --out "$work"
    job="$work/bed-$n.json"
    out="$work/bed-$n"
    rm -rf "$out"
    side=$(sed -nE '/"random"/,/"count"/s/.*"max": \[([0-9.]+),.*/\1/p' "$job" | head -1)
    args=(run "$job" --out "$out" --quiet --no-vtk)
    [ -z "$threads" ] || args+=(--threads "$threads")
    t0=$(date +%s.%N)
    if ! "$bin" "${args[@]}" > "$work/bed-$n.log" 2>&1; then
        echo "bench-large: bed-$n failed:" >&2
        tail -5 "$work/bed-$n.log" >&2
        continue
    fi
    t1=$(date +%s.%N)
    peak=$(sed -nE 's/.*"peak_memory_bytes"[[:space:]]*:[[:space:]]*([0-9.eE+]+).*/\1/p' "$out/summary.json" | head -1)
    awk -F, -v peak="${peak:-0}" -v win="$window" -v side="$side" -v t0="$t0" -v t1="$t1" '
        NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        { n++; t[n] = $col["time"]; w[n] = $col["wall_seconds"]; s[n] = $col["wall_solve"]
          p = $col["particles"]; c = $col["contacts"]; r[n] = $col["rows"]; it[n] = $col["iterations"] }
        END {
            if (n == 0) { print "no steps"; exit }
            m = 0; wl = sl = ri = 0
            for (k = 1; k <= n; k++)
                if (t[k] > t[n] - win + 1e-9) { m++; wl += w[k]; sl += s[k]; ri += r[k] * it[k] }
            printf "%9d %7.3f %9.2f %9d %9d %5d %9.2f %9.2f %8.1f %7.0f %7.0f\n", p, side,
                1000 * wl / m, c, r[n], it[n], 1e9 * wl / ri, 1e9 * sl / ri, peak / 1048576,
                (p > 0 ? peak / p : 0), t1 - t0
        }' "$out/series.csv"
    [ "$keep" = 1 ] || rm -rf "$out" "$job" "$work/bed-$n.log"
done
[ "$keep" = 0 ] || echo "jobs and outputs kept in $work"
