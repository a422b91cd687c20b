#!/usr/bin/env bash
# tools/validate/pile_ref.sh - the paper's pile reference (the convergence study, section
# 4: h = 0.2 ms, 500 warm iterations, 3363 spheres; 260 000 steps, about 4 to
# 5 hours on one core here), run in pieces that outlive a machine: each piece
# resumes from the checkpoint carried in docs/data/validation/pile-ref-h0.2/
# and leaves its newest checkpoint there to be committed.
#
# usage: bash tools/validate/pile_ref.sh [--minutes M] [--threads N] [NDEM_BIN]
#   --minutes M  stop after M minutes of wall time (default: run to the end);
#                the piece keeps what its last checkpoint (every 5000 steps,
#                about 4 minutes) holds
# The run lives in build/validate/pile-ref-h0.2/. A checkpoint restores the
# state bit for bit (the solve has no other memory), so the pieces give the
# run of one go; series.csv before a resume is not carried (zeros: only the
# final heights are read). When the run ends, result.json (the pile's height,
# the commits that ran each piece) is written beside the checkpoint; the pile
# study (validate.py) reads it as its reference.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
carry="$root/docs/data/validation/pile-ref-h0.2"
work="$root/build/validate/pile-ref-h0.2"
bin="$root/build/release/ndem" minutes="" threads=1
while [ $# -gt 0 ]; do
    case "$1" in
        --minutes) minutes="$2"; shift ;;
        --threads) threads="$2"; shift ;;
        -*) echo "pile_ref.sh: unknown option $1" >&2; exit 2 ;;
        *) bin="$1" ;;
    esac
    shift
done
[ -x "$bin" ] || { echo "pile_ref.sh: no $bin (run make first)" >&2; exit 2; }
if [ -f "$carry/result.json" ]; then
    echo "pile_ref.sh: done already: $carry/result.json"
    exit 0
fi
mkdir -p "$work/out/frames"
cp "$carry/job.json" "$work/job.json"
resume=()
if [ -f "$carry/checkpoint.ndck" ]; then
    # the carried state, and outputs of the size its mark expects
    cp "$carry/checkpoint.ndck" "$carry/checkpoint.json" "$work/out/"
    mark() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" \
        "$work/out/checkpoint.json" "$1"; }
    rm -f "$work/out/series.csv" "$work/out/frames/index.csv"
    truncate -s "$(mark series_bytes)" "$work/out/series.csv"
    truncate -s "$(mark index_bytes)" "$work/out/frames/index.csv"
    resume=(--resume)
    echo "pile_ref.sh: resuming at step $(mark step)"
fi
commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
limit=()
[ -n "$minutes" ] && limit=(timeout --signal=TERM "$((minutes * 60))")
set +e
(cd "$work" && "${limit[@]}" "$bin" run job.json --out out --quiet --no-vtk --threads "$threads" \
    --checkpoint-steps 5000 "${resume[@]}")
rc=$?
set -e
if [ -f "$work/out/checkpoint.ndck" ]; then
    cp "$work/out/checkpoint.ndck" "$work/out/checkpoint.json" "$carry/"
fi
echo "$commit $(date -u +%Y-%m-%dT%H:%MZ) rc=$rc" >> "$carry/pieces.txt"
if [ "$rc" = 0 ]; then
    python3 - "$work/out/final.json" "$carry" <<'EOF'
import json, os, sys
fin = json.load(open(sys.argv[1]))
solver = json.load(open(os.path.join(sys.argv[2], "job.json")))["solver"]
p, r = fin["positions"], fin["radii"]
top = max(p[3 * i + 2] + r[i] for i in range(len(r)))
pieces = open(os.path.join(sys.argv[2], "pieces.txt")).read().split("\n")
json.dump({"height": top, "particles": fin["particles"], "time_step": solver["time_step"],
           "iterations": solver["iterations"],
           "pieces": [x for x in pieces if x]},
          open(os.path.join(sys.argv[2], "result.json"), "w"), indent=1)
print("pile_ref.sh: the reference pile stands %.4f m" % top)
EOF
    rm -f "$carry/checkpoint.ndck" "$carry/checkpoint.json"
elif [ "$rc" = 124 ] || [ "$rc" = 143 ]; then
    echo "pile_ref.sh: stopped after $minutes minutes; commit $carry to carry it"
else
    echo "pile_ref.sh: ndem run failed (exit $rc), see $work/out" >&2
    exit 1
fi
