# Helpers of the Slurm executor's tests (tests/slurm/test.sh against a real
# Slurm, tests/cli_slurm.sh against stand-ins), sourced by both. The caller
# sets root (the repository), work (a temporary directory), ndem and ndemd
# (absolute paths) and NAME (the test's name, for messages and kept logs).
# Every wait is bounded.

daemon=""
status=1
fail() { echo "$NAME: FAIL: $*"; exit 1; }
ok() { echo "$NAME: ok ($SECONDS s): $*"; }

# Stops ndemd; on failure keeps its log and the Slurm jobs' output in
# build/test-logs/NAME/.
# (It runs in the EXIT trap under set -e: no command in it may fail.)
lib_cleanup() {
  if [ -n "$daemon" ]; then kill "$daemon" 2>/dev/null || true; wait "$daemon" 2>/dev/null || true; fi
  if [ "$status" != 0 ]; then
    mkdir -p "$root/build/test-logs/$NAME"
    cp -r "$work/ndemd.log" "$work/logs" "$root/build/test-logs/$NAME/" 2>/dev/null || true
    echo "$NAME: FAILED; logs in build/test-logs/$NAME/"
  fi
}

# Starts ndemd --executor slurm with extra options "$@" on free loopback
# ports (or on port $keep_port, when set); sets base.
start_ndemd() {
  local port=${keep_port:-}
  [ -n "$port" ] || port=$(python3 -c '
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
    --checkpoint-interval 0.3 "$@" > "$work/ndemd.log" 2>&1 &
  daemon=$!
  for _ in $(seq 150); do curl -sf "$base/health" > /dev/null && return 0; sleep 0.2; done
  fail "ndemd did not start"
}

# Stops ndemd, which must exit 0 with no sanitizer report in any log.
stop_ndemd() {
  kill "$daemon"
  wait "$daemon" || fail "ndemd exited with status $?"
  daemon=""
  if grep -l "ERROR: AddressSanitizer\|ERROR: LeakSanitizer\|runtime error:" "$work/ndemd.log" "$work"/logs/*.out; then
    fail "a sanitizer report in the logs above"
  fi
}

small='{"name": "%s", "scene": {"materials": [{"name": "ore", "density": 2500, "young_modulus": 1e7}], "geometry": [{"type": "plane", "point": [0, 0, 0], "normal": [0, 0, 1]}], "particles": [{"type": "list", "spheres": [[0, 0, 0.0099, 0.01], [0.03, 0, 0.0099, 0.01], [0, 0.03, 0.08, 0.01]]}], "emitters": [{"min": [0.1, 0.1, 0.1], "max": [0.12, 0.12, 0.12], "rate": 20, "max_count": 2, "radius": 0.008, "seed": 2}]}, "solver": {"time_step": 0.005, "duration": %s}, "output": {"frame_interval": 0.1}}'
# a few hundred particles in a box: seconds of computing, one thread
long='{"name": "%s", "scene": {"materials": [{"name": "ore", "density": 2500, "young_modulus": 1e7}], "geometry": [{"type": "box", "min": [0, 0, 0], "max": [0.2, 0.2, 0.4], "inside": true}], "particles": [{"type": "lattice", "min": [0.01, 0.01, 0.0079], "max": [0.19, 0.19, 0.3], "spacing": 0.02, "count": 600, "radius": 0.008}], "emitters": [{"min": [0.05, 0.05, 0.35], "max": [0.15, 0.15, 0.38], "rate": 20, "max_count": 4, "radius": 0.008, "seed": 2}]}, "solver": {"time_step": 0.002, "duration": %s, "iterations": 10, "threads": 1}, "output": {"frame_interval": 0.1}}'

# the same with 200 particles: about 3 times faster
medium=${long/\"count\": 600/\"count\": 200}

field() { python3 -c 'import json,sys; d=json.load(sys.stdin); print(eval("d"+sys.argv[1]))' "$1"; }
# FORMAT NAME DURATION: writes work/NAME.json, submits it, prints the id
submit() {
  # shellcheck disable=SC2059
  printf "$1" "$2" "$3" > "$work/$2.json"
  curl -sf -X POST -H 'Content-Type: application/json' --data-binary "@$work/$2.json" \
    "$base/api/v1/jobs" | field '["id"]'
}
job() { curl -sf "$base/api/v1/jobs/$1"; }
# ID STATUS SECONDS
wait_status() {
  local s=""
  for _ in $(seq $(($3 * 5))); do
    s=$(job "$1" | field '["status"]')
    [ "$s" = "$2" ] && return 0
    case "$s" in succeeded|failed|cancelled) break ;; esac
    sleep 0.2
  done
  fail "job $1 is '$s', not '$2' (error: $(job "$1" | field '["error"]'))"
}
# ID SECONDS: running, past step 0, with a checkpoint on disk
wait_checkpoint() {
  for _ in $(seq $(($2 * 5))); do
    [ -f "$work/data/jobs/$1/checkpoint.ndck" ] &&
      [ "$(job "$1" | field '["progress"]["step"]')" -gt 0 ] && return 0
    sleep 0.2
  done
  fail "job $1 has no checkpoint after $2 s"
}
# The Slurm job id ndemd last submitted for job ID (its log says).
slurm_id() { sed -n "s/.*job $1: submitted to Slurm \(again \)\{0,1\}as job \([0-9]*\).*/\2/p" "$work/ndemd.log" | tail -1; }
# ID: the step at which the job's second run resumed from a checkpoint ("" if none)
resumed_at() { sed -n "s/.*job $1: run 2 resumes from its checkpoint at step \([0-9]*\).*/\1/p" "$work/ndemd.log"; }
# ID REFDIR: the job's frames (binary, through the API) and series (CSV
# through the API, wall-time columns and CRC cut) equal those of `ndem run`
# in REFDIR; sets summary (not called in a subshell, so that fail ends the
# test).
same_as_reference() {
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
# ID SIGNAL SECONDS: waits until the job has a checkpoint on disk, then
# stops its ndem process at once (the program itself, not a shell or the
# fake sbatch whose command line names the same URL), so that it cannot end
# before the signal, and sends it SIGNAL. Polls tightly: a release build
# runs these jobs in a second or two.
signal_run() {
  local pid=""
  for _ in $(seq $(($3 * 50))); do
    if [ -f "$work/data/jobs/$1/checkpoint.ndck" ]; then
      pid=$(pgrep -f "^[^ ]*/ndem run .*jobs/$1/report" | head -1 || true)
      [ -n "$pid" ] && kill -STOP "$pid" 2>/dev/null && break
      pid=""
    fi
    sleep 0.02
  done
  [ -n "$pid" ] || fail "job $1: no running ndem with a checkpoint within $3 s (ended already?)"
  kill -"$2" "$pid"
  kill -CONT "$pid" 2>/dev/null || true
}
# ID: reports without the job's secret, or with a wrong one, get 401
check_secret() {
  local code secret
  for secret in "" "$(printf '%064d' 0)"; do
    code=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
      -H "X-Ndem-Job-Secret: $secret" --data '{"type":"progress","run":1}' \
      "$base/internal/v1/jobs/$1/report")
    [ "$code" = 401 ] || fail "a report with secret '$secret' got $code, not 401"
  done
}

# Two small jobs (the scene $small at two densities) through Slurm, each
# the same as `ndem run` of its document; ok with $1 and what they gave.
two_jobs_as_ndem_run() {
  local sa # a and b stay set: later checks use the finished jobs
  a=$(submit "$small" small-a 0.5)
  b=$(submit "$small" small-b 0.7)
  wait_status "$a" succeeded 120
  wait_status "$b" succeeded 120
  "$ndem" run "$work/small-a.json" --out "$work/ref-a" --quiet --no-vtk > /dev/null
  "$ndem" run "$work/small-b.json" --out "$work/ref-b" --quiet --no-vtk > /dev/null
  same_as_reference "$a" "$work/ref-a"
  sa=$summary
  same_as_reference "$b" "$work/ref-b"
  ok "$1: $sa; $summary"
}

# FORMAT NAME DURATIONS...: a sweep of the document (written to
# work/NAME.json) over /solver/duration; prints the sweep's id.
submit_sweep() {
  local fmt=$1 name=$2 values
  shift 2
  # shellcheck disable=SC2059
  printf "$fmt" "$name" 1 > "$work/$name.json"
  values=$(IFS=,; echo "$*")
  python3 -c 'import json,sys; print(json.dumps({"base": json.load(open(sys.argv[1])),
      "parameters": [{"pointer": "/solver/duration", "values": json.loads("[" + sys.argv[2] + "]")}]}))' \
    "$work/$name.json" "$values" > "$work/$name.sweep.json"
  curl -sf -X POST -H 'Content-Type: application/json' --data-binary "@$work/$name.sweep.json" \
    "$base/api/v1/sweeps" | field '["id"]'
}
# SWEEP: the ids of its jobs, in order
sweep_jobs() { curl -sf "$base/api/v1/sweeps/$1" | python3 -c 'import json,sys; print(" ".join(j["id"] for j in json.load(sys.stdin)["jobs"]))'; }

# A 3-job sweep runs as one Slurm job array (task i runs job i, each job's
# resource names the array and its task) and each job equals `ndem run` of
# its own document; ok with $1 and what they gave. Sets array.
sweep_as_array() {
  local sw ids t=0 id ex
  sw=$(submit_sweep "$small" sweep 0.3 0.4 0.5)
  ids=$(sweep_jobs "$sw")
  for id in $ids; do wait_status "$id" succeeded 180; done
  array=$(sed -n "s/.*sweep $sw: submitted to Slurm as job array \([0-9]*\) (3 task(s).*/\1/p" "$work/ndemd.log")
  [ -n "$array" ] || fail "sweep $sw was not submitted as one job array of 3 tasks"
  [ "$(grep -c "sweep $sw: submitted to Slurm as job array" "$work/ndemd.log")" = 1 ] || fail "sweep $sw: more than one array"
  for id in $ids; do
    ex=$(job "$id" | field '["executor"]["array_job_id"], d["executor"]["array_task_id"], d["executor"]["job_id"]')
    [ "$ex" = "('$array', $t, '${array}_$t')" ] || fail "job $id (index $t): executor $ex, not task $t of array $array"
    grep -q "job $id: submitted to Slurm" "$work/ndemd.log" && fail "job $id was submitted alone"
    job "$id" | python3 -c 'import json,sys; json.dump(json.load(sys.stdin)["job"], sys.stdout)' > "$work/sweep-$t.json"
    "$ndem" run "$work/sweep-$t.json" --out "$work/ref-sweep-$t" --quiet --no-vtk > /dev/null
    same_as_reference "$id" "$work/ref-sweep-$t"
    t=$((t + 1))
  done
  ok "$1: sweep $sw as job array $array, tasks 0..2 as ndem run; the last: $summary"
}

# A job whose ndemd stops mid-run and starts again: the Slurm job goes on,
# the new ndemd follows it (no second submission), the job ends once with
# the output of an uninterrupted run. FORMAT DURATION REFDIR MESSAGE
# [NDEMD OPTIONS...] (those of the restarted ndemd).
restart_mid_job() {
  local r sid
  r=$(submit "$1" restart "$2")
  wait_checkpoint "$r" 180
  sid=$(slurm_id "$r")
  stop_ndemd
  grep -q "job $r: Slurm job $sid left running" "$work/ndemd.log" || fail "job $r: not left running at shutdown"
  mv "$work/ndemd.log" "$work/ndemd-1.log"
  [ "$(job_file_status "$r")" = queued ] || fail "job $r is not queued after shutdown"
  # the same address: the running job reports to it
  keep_port=${base##*:} start_ndemd "${@:5}"
  wait_status "$r" succeeded 300
  grep -q "job $r: follows Slurm job $sid again" "$work/ndemd.log" || fail "job $r: the new ndemd did not follow Slurm job $sid"
  grep -q "job $r: submitted to Slurm" "$work/ndemd.log" && fail "job $r was submitted again"
  [ "$(job "$r" | field '["executor"]["job_id"]')" = "$sid" ] || fail "job $r: executor is not Slurm job $sid"
  same_as_reference "$r" "$3"
  ok "$4: ndemd restarted mid-job; Slurm job $sid followed again, ended once: $summary"
}
job_file_status() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["status"])' "$work/data/jobs/$1/status.json"; }
