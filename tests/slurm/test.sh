#!/usr/bin/env bash
# `make test-slurm`: ndemd --executor slurm against a real single-node Slurm
# (tests/slurm/start.sh: munged, slurmctld, slurmd on loopback), sbatch mode.
#   1. two small jobs run through Slurm; their frames (binary, through the
#      API) and series (without the wall-time columns) equal those of
#      `ndem run` of the same document;
#   2. a compute node's ndem is killed (SIGKILL) mid-run: the Slurm job ends
#      FAILED, ndemd submits it again, the new run resumes from the last
#      checkpoint (step > 0) and the job ends with exactly the frames and
#      series of an uninterrupted run (the final frame's SHA-256 printed);
#   3. the same after `scontrol requeue` (Slurm's own requeue: same Slurm
#      job, a new run);
#   4. reports with a wrong or no secret get 401;
#   5. a running job is cancelled: status cancelled, scancel seen by Slurm
#      (JobState=CANCELLED).
# Uses NDEM_BIN and NDEMD_BIN (the Makefile passes the sanitizer builds).
# Every wait is bounded; on failure the daemon's and Slurm's logs are copied
# to build/test-logs/slurm/.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
ndem=$(realpath "${NDEM_BIN:-build/release/ndem}")
ndemd=$(realpath "${NDEMD_BIN:-build/release/ndemd}")
work=$(mktemp -d "${TMPDIR:-/tmp}/ndem-test-slurm.XXXXXX")
daemon=""
status=1
cleanup() {
  [ -n "$daemon" ] && kill "$daemon" 2>/dev/null && wait "$daemon" 2>/dev/null
  if [ "$status" != 0 ]; then
    mkdir -p "$root/build/test-logs/slurm"
    cp -r "$work/ndemd.log" "$work/logs" "$work/slurm/log" "$root/build/test-logs/slurm/" 2>/dev/null || true
    echo "test-slurm: FAILED; logs in build/test-logs/slurm/"
  fi
  bash "$root/tests/slurm/stop.sh" "$work/slurm"
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "test-slurm: FAIL: $*"; exit 1; }
ok() { echo "test-slurm: ok: $*"; }

eval "$(bash tests/slurm/start.sh "$work/slurm")"
port=$(python3 -c '
import socket
for _ in range(100):
    a = socket.socket(); a.bind(("127.0.0.1", 0)); p = a.getsockname()[1]
    b = socket.socket()
    try:
        b.bind(("127.0.0.1", p + 1)); print(p); break
    except OSError: pass
    finally: a.close(); b.close()')
base=http://127.0.0.1:$port
mkdir -p "$work/logs"
"$ndemd" --listen "127.0.0.1:$port" --data "$work/data" --web "$root/web" --executor slurm \
  --slurm-ndem "$ndem" --slurm-log "$work/logs" --slurm-poll 0.5 --workers 3 \
  --checkpoint-interval 0.5 > "$work/ndemd.log" 2>&1 &
daemon=$!
for _ in $(seq 100); do curl -sf "$base/health" > /dev/null && break; sleep 0.2; done
curl -sf "$base/health" > /dev/null || fail "ndemd did not start"

small='{"name": "%s", "scene": {"materials": [{"name": "ore", "density": 2500, "young_modulus": 1e7}], "geometry": [{"type": "plane", "point": [0, 0, 0], "normal": [0, 0, 1]}], "particles": [{"type": "list", "spheres": [[0, 0, 0.0099, 0.01], [0.03, 0, 0.0099, 0.01], [0, 0.03, 0.08, 0.01]]}], "emitters": [{"min": [0.1, 0.1, 0.1], "max": [0.12, 0.12, 0.12], "rate": 20, "max_count": 2, "radius": 0.008, "seed": 2}]}, "solver": {"time_step": 0.005, "duration": %s}, "output": {"frame_interval": 0.1}}'
long='{"name": "%s", "scene": {"materials": [{"name": "ore", "density": 2500, "young_modulus": 1e7}], "geometry": [{"type": "box", "min": [0, 0, 0], "max": [0.2, 0.2, 0.4], "inside": true}], "particles": [{"type": "lattice", "min": [0.01, 0.01, 0.0079], "max": [0.19, 0.19, 0.3], "spacing": 0.02, "count": 600, "radius": 0.008}], "emitters": [{"min": [0.05, 0.05, 0.35], "max": [0.15, 0.15, 0.38], "rate": 20, "max_count": 4, "radius": 0.008, "seed": 2}]}, "solver": {"time_step": 0.002, "duration": %s, "iterations": 10, "threads": 1}, "output": {"frame_interval": 0.1}}'

field() { python3 -c 'import json,sys; d=json.load(sys.stdin); print(eval("d"+sys.argv[1]))' "$1"; }
submit() { # FORMAT NAME DURATION -> job id
  # shellcheck disable=SC2059
  printf "$1" "$2" "$3" > "$work/$2.json"
  curl -sf -X POST -H 'Content-Type: application/json' --data-binary "@$work/$2.json" \
    "$base/api/v1/jobs" | field '["id"]'
}
job() { curl -sf "$base/api/v1/jobs/$1"; }
wait_status() { # ID STATUS SECONDS
  local s=""
  for _ in $(seq $(($3 * 5))); do
    s=$(job "$1" | field '["status"]')
    [ "$s" = "$2" ] && return 0
    case "$s" in succeeded|failed|cancelled) break ;; esac
    sleep 0.2
  done
  fail "job $1 is '$s', not '$2' (error: $(job "$1" | field '["error"]'))"
}
wait_checkpoint() { # ID SECONDS: running, past step 0, with a checkpoint on disk
  for _ in $(seq $(($2 * 5))); do
    [ -f "$work/data/jobs/$1/checkpoint.ndck" ] && [ "$(job "$1" | field '["progress"]["step"]')" -gt 0 ] && return 0
    sleep 0.2
  done
  fail "job $1 has no checkpoint after $2 s"
}
slurm_id() { squeue -h --name="ndem-$1" -o %i | head -1; }
slurm_state() { scontrol --oneliner show job "$1" | tr ' ' '\n' | sed -n 's/^JobState=//p'; }
# The job's frames (binary, through the API) and series (CSV through the
# API, wall-time columns and CRC cut) equal those of `ndem run` in REF;
# sets summary (not called in a subshell, so that fail ends the test).
same_as_reference() { # ID REFDIR
  local n count
  count=$(ls "$2/frames" | grep -c '\.ndf$')
  n=$(curl -sf "$base/api/v1/jobs/$1/frames" | field '["count"]')
  [ "$n" = "$count" ] || fail "job $1 has $n frames, ndem run wrote $count"
  for i in $(seq 0 $((count - 1))); do
    curl -sf -H 'Accept: application/octet-stream' "$base/api/v1/jobs/$1/frames/$i" -o "$work/frame.ndf"
    cmp -s "$work/frame.ndf" "$2/frames/$(printf %06d "$i").ndf" || fail "job $1: frame $i differs from ndem run's"
  done
  curl -sf -H 'Accept: text/csv' "$base/api/v1/jobs/$1/series" | cut -d, -f1-16 > "$work/series.job"
  cut -d, -f1-16 "$2/series.csv" > "$work/series.ref"
  cmp -s "$work/series.job" "$work/series.ref" || fail "job $1: series differs from ndem run's"
  summary="frames $count, series rows $(($(wc -l < "$work/series.ref") - 1)), final frame sha256 $(sha256sum < "$work/frame.ndf" | cut -c1-16)"
}

# ---- 1. two small jobs ----
a=$(submit "$small" small-a 0.5)
b=$(submit "$small" small-b 0.7)
wait_status "$a" succeeded 120
wait_status "$b" succeeded 120
"$ndem" run "$work/small-a.json" --out "$work/ref-a" --quiet --no-vtk > /dev/null
"$ndem" run "$work/small-b.json" --out "$work/ref-b" --quiet --no-vtk > /dev/null
same_as_reference "$a" "$work/ref-a"
sa=$summary
same_as_reference "$b" "$work/ref-b"
ok "two jobs through Slurm, as ndem run: $sa; $summary"

# ---- the reference of the long job, uninterrupted ----
printf "$long" long 6 > "$work/long.json"
"$ndem" run "$work/long.json" --out "$work/ref-long" --quiet --no-vtk > /dev/null

# ---- 2. the compute node's process killed mid-run ----
k=$(submit "$long" long 6)
wait_checkpoint "$k" 180
first=$(slurm_id "$k")
pid=$(pgrep -f "jobs/$k/report" | head -1)
[ -n "$pid" ] || fail "no ndem process of job $k found"
kill -9 "$pid"
wait_status "$k" succeeded 600
[ "$(slurm_state "$first")" = FAILED ] || fail "Slurm job $first is $(slurm_state "$first"), not FAILED"
grep -q "job $k: Slurm job $first: FAILED" "$work/ndemd.log" || fail "ndemd did not see Slurm job $first fail"
step=$(sed -n "s/.*job $k: run 2 resumes from its checkpoint at step \([0-9]*\).*/\1/p" "$work/ndemd.log")
[ -n "$step" ] && [ "$step" -gt 0 ] || fail "job $k did not resume from a checkpoint"
same_as_reference "$k" "$work/ref-long"
ok "killed mid-run (Slurm job $first FAILED), resumed at step $step, as uninterrupted: $summary"

# ---- 3. Slurm's own requeue ----
r=$(submit "$long" long 6)
wait_checkpoint "$r" 180
sid=$(slurm_id "$r")
scontrol requeue "$sid"
wait_status "$r" succeeded 600
step=$(sed -n "s/.*job $r: run 2 resumes from its checkpoint at step \([0-9]*\).*/\1/p" "$work/ndemd.log")
[ -n "$step" ] && [ "$step" -gt 0 ] || fail "job $r did not resume from a checkpoint after scontrol requeue"
same_as_reference "$r" "$work/ref-long"
ok "scontrol requeue of Slurm job $sid, resumed at step $step, as uninterrupted: $summary"

# ---- 4 and 5. a wrong secret, then cancel ----
c=$(submit "$long" long-cancel 60)
wait_checkpoint "$c" 180
sid=$(slurm_id "$c")
for secret in "" "$(printf '%064d' 0)"; do
  code=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
    -H "X-Ndem-Job-Secret: $secret" --data '{"type":"progress","run":1}' \
    "$base/internal/v1/jobs/$c/report")
  [ "$code" = 401 ] || fail "a report with secret '$secret' got $code, not 401"
done
ok "reports without the job's secret: 401"
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/json' "$base/api/v1/jobs/$c/cancel")
[ "$code" = 202 ] || fail "cancel of running job $c got $code, not 202"
wait_status "$c" cancelled 120
for _ in $(seq 100); do [ "$(slurm_state "$sid")" = CANCELLED ] && break; sleep 0.2; done
[ "$(slurm_state "$sid")" = CANCELLED ] || fail "Slurm job $sid is $(slurm_state "$sid"), not CANCELLED"
ok "cancel: job cancelled at step $(job "$c" | field '["progress"]["step"]'), Slurm job $sid CANCELLED"

kill "$daemon"
wait "$daemon" || fail "ndemd exited with status $?"
daemon=""
if grep -q "ERROR: AddressSanitizer\|runtime error:" "$work/ndemd.log" "$work"/logs/*.out; then
  fail "a sanitizer report in the logs"
fi
status=0
echo "test-slurm: all passed"
