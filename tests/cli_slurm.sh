#!/usr/bin/env bash
# ndemd --executor slurm in every `make test`, without Slurm: stand-ins for
# sbatch, scontrol and scancel (tests/slurm/fake/, given by --slurm-bin) run
# each job's `ndem run --report` at once on this machine. The same checks as
# `make test-slurm` (tests/slurm/test.sh, a real Slurm) but Slurm's requeue:
#   1. two small jobs equal `ndem run` of the same documents (frames
#      through the API byte for byte, series without the wall-time columns);
#   2. a run killed (SIGKILL) mid-run is seen FAILED, submitted again,
#      resumes from its checkpoint (step > 0) and ends with exactly the
#      output of an uninterrupted run; the same for a run stopped by a
#      SIGTERM ndemd did not send (Slurm's time limit), which reports
#      "stopped" with a last checkpoint before it exits;
#   3. reports without the job's secret get 401, and with --executor local
#      the route is 404;
#   4. cancel: scancel sent, the job ends cancelled (executor.state
#      CANCELLED); a job and a sweep the stand-in holds PENDING read `queued`
#      with Slurm's state and reason, in the list's ?status=, the sweep's
#      counts and /health too; the held job's cancel answers as a queued
#      job's (200, cancelled, scancel sent, it never runs), the sweep then
#      runs (executor.state COMPLETED);
#   5. a 3-job sweep runs as one job array (task i runs job i), each job as
#      `ndem run` of its document; a cancelled sweep scancels its array;
#   6. ndemd stopped and started again mid-job: the Slurm job goes on, the
#      new ndemd follows it (no new submission), the job ends once with the
#      output of an uninterrupted run;
#   7. --slurm-rest against a stand-in slurmrestd (tests/slurm/fake/
#      slurmrestd.py, driving the same stand-ins): two jobs, a sweep as an
#      array, cancel; ndemd's SLURM_JWT stays out of the jobs' environment,
#      a wrong JWT fails the job with Slurm's words.
#   and first (0): `ndem` does not link libcurl (--report loads it with dlopen).
# NDEM_BIN and NDEMD_BIN are the binaries under test.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
NAME=cli_slurm
ndem=$(realpath "${NDEM_BIN:?NDEM_BIN must point at the ndem binary}")
ndemd=$(realpath "${NDEMD_BIN:?NDEMD_BIN must point at the ndemd binary}")
work=$(mktemp -d "${TMPDIR:-/tmp}/ndem-cli-slurm.XXXXXX")
# shellcheck source=tests/slurm/lib.sh
. tests/slurm/lib.sh
export FAKE_SLURM_DIR=$work/fake
mkdir -p "$FAKE_SLURM_DIR"
rest_pid=""
cleanup() {
  lib_cleanup
  if [ -n "$rest_pid" ]; then kill "$rest_pid" 2>/dev/null || true; fi
  # runs the fake sbatch started and that are still alive
  for f in "$FAKE_SLURM_DIR"/*.pid; do
    if [ -e "$f" ]; then kill -9 "$(cat "$f")" 2>/dev/null || true; fi
  done
  rm -rf "$work"
}
trap cleanup EXIT
# a watchdog's SIGTERM (run_all.sh) or Ctrl-C cleans up too (the Slurm
# daemons left their process group when they daemonized)
trap 'exit 143' INT TERM
fake=$root/tests/slurm/fake
start_ndemd --slurm-bin "$fake"

# ---- 0. libcurl is loaded by --report only (cli/curl_dl.c), not linked ----
if ldd "$ndem" | grep -q libcurl; then fail "ndem links libcurl: $(ldd "$ndem" | grep libcurl)"; fi
ok "ndem does not link libcurl (the reports below load it)"

# ---- 1. two small jobs ----
two_jobs_as_ndem_run "two jobs, as ndem run"

# ---- 1b. held in Slurm's queue: the job reads queued, with Slurm's reason;
# so do the list's ?status=, a sweep's counts and /health (one status) ----
touch "$FAKE_SLURM_DIR/hold"
p=$(submit "$small" pending 0.5)
hs=$(submit_sweep "$small" held-sweep 0.3 0.4)
held="$p $(sweep_jobs "$hs")"
seen=""
for _ in $(seq 150); do
  seen=$(job "$p" | field '["status"], d["executor"] and d["executor"]["state"], d["executor"] and d["executor"]["reason"]')
  states=$(for id in $held; do job "$id" | field '["executor"] and d["executor"]["state"]'; done | sort -u | tr '\n' ' ')
  [ "$seen" = "('queued', 'PENDING', 'PartitionDown')" ] && [ "$states" = "PENDING " ] && break
  sleep 0.2
done
[ "$seen" = "('queued', 'PENDING', 'PartitionDown')" ] || fail "job $p held by Slurm reads $seen"
[ "$states" = "PENDING " ] || fail "jobs $held held by Slurm: executor states $states"
# the three are claimed by the three workers (running in ndemd's table) but wait in Slurm
running=$(curl -sf "$base/api/v1/jobs?status=running" | field ' and [j["id"] for j in d["jobs"]]')
queued=$(curl -sf "$base/api/v1/jobs?status=queued" | field ' and [j["id"] for j in d["jobs"]]')
for id in $held; do
  case "$running" in *"$id"*) fail "job $id held by Slurm is listed by ?status=running: $running" ;; esac
  case "$queued" in *"$id"*) ;; *) fail "job $id held by Slurm is not listed by ?status=queued: $queued" ;; esac
done
counts=$(curl -sf "$base/api/v1/sweeps/$hs" | field '["status"], d["counts"]["queued"], d["counts"]["running"], [j["status"] for j in d["jobs"]]')
[ "$counts" = "('queued', 2, 0, ['queued', 'queued'])" ] || fail "sweep $hs held by Slurm: $counts"
health=$(curl -s "$base/health" | field '["queue_depth"], d["running"]')
[ "$health" = "(3, 0)" ] || fail "/health with 3 jobs held by Slurm: (queue_depth, running) = $health"
# cancel of the held job: as a queued job's (200, now cancelled), with the scancel done;
# its batch script never runs
sid=$(slurm_id "$p")
curl -s -o "$work/cancel.json" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
  "$base/api/v1/jobs/$p/cancel" > "$work/cancel.code"
answer="$(cat "$work/cancel.code") $(field '["status"]' < "$work/cancel.json")"
[ "$answer" = "200 cancelled" ] || fail "cancel of job $p held by Slurm: $answer, not 200 cancelled"
[ -e "$FAKE_SLURM_DIR/$sid.cancelled" ] || fail "cancel of job $p held by Slurm: no scancel of $sid"
[ "$(job "$p" | field '["executor"]["state"]')" = CANCELLED ] || fail "job $p: executor $(job "$p" | field '["executor"]')"
rm "$FAKE_SLURM_DIR/hold"
for id in $(sweep_jobs "$hs"); do wait_status "$id" succeeded 120; done
# Slurm's word after the end, not the RUNNING of the last poll
for id in $(sweep_jobs "$hs"); do
  [ "$(job "$id" | field '["executor"]["state"]')" = COMPLETED ] || fail "job $id: executor $(job "$id" | field '["executor"]')"
done
[ ! -e "$FAKE_SLURM_DIR/$sid.pid" ] || fail "job $p was cancelled while held, yet its Slurm job $sid ran"
ok "held in Slurm's queue: job and sweep queued everywhere (resource PENDING/PartitionDown, ?status=, sweep counts, /health 3 queued 0 running); cancel of the held job 200 cancelled, scancel $sid, executor CANCELLED; the sweep then ran, executor COMPLETED"

# ---- 2. killed mid-run ----
printf "$medium" medium 5 > "$work/medium.json"
"$ndem" run "$work/medium.json" --out "$work/ref-medium" --quiet --no-vtk > /dev/null
k=$(submit "$medium" medium 5)
signal_run "$k" KILL 120
first=$(slurm_id "$k")
wait_status "$k" succeeded 300
grep -q "job $k: Slurm job $first: FAILED" "$work/ndemd.log" || fail "ndemd did not see Slurm job $first fail"
step=$(resumed_at "$k")
[ -n "$step" ] && [ "$step" -gt 0 ] || fail "job $k did not resume from a checkpoint"
same_as_reference "$k" "$work/ref-medium"
ok "killed mid-run (job $first FAILED), resumed at step $step, as uninterrupted: $summary"

# ---- 2b. stopped by a SIGTERM ndemd did not send (as Slurm's time limit does) ----
t=$(submit "$medium" medium-term 5)
signal_run "$t" TERM 120
first=$(slurm_id "$t")
wait_status "$t" succeeded 300
grep -q "job $t: Slurm job $first: FAILED" "$work/ndemd.log" || fail "ndemd did not see Slurm job $first fail"
step=$(resumed_at "$t")
[ -n "$step" ] && [ "$step" -gt 0 ] || fail "job $t did not resume from a checkpoint"
same_as_reference "$t" "$work/ref-medium"
ok "SIGTERM mid-run (job $first FAILED after the run reported 'stopped'), resumed at step $step, as uninterrupted: $summary"

# ---- 3 and 4. no secret, then cancel ----
c=$(submit "$medium" medium-cancel 60)
wait_checkpoint "$c" 120
sid=$(slurm_id "$c")
check_secret "$c"
ok "reports without the job's secret: 401"
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/json' "$base/api/v1/jobs/$c/cancel")
[ "$code" = 202 ] || fail "cancel of running job $c got $code, not 202"
wait_status "$c" cancelled 120
[ -e "$FAKE_SLURM_DIR/$sid.cancelled" ] || fail "no scancel of job $sid"
[ "$(job "$c" | field '["executor"]["state"]')" = CANCELLED ] || fail "job $c: executor $(job "$c" | field '["executor"]')"
ok "cancel: scancel $sid, job cancelled at step $(job "$c" | field '["progress"]["step"]'), executor CANCELLED"

# ---- 5. a sweep as one job array ----
sweep_as_array "a sweep of 3 jobs"

# ---- 6. a sweep cancelled: scancel of its array ----
sw=$(submit_sweep "$medium" sweep-cancel 60 60)
ids=$(sweep_jobs "$sw")
first=${ids%% *}
wait_checkpoint "$first" 120
arr=$(job "$first" | field '["executor"]["array_job_id"]')
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/json' "$base/api/v1/sweeps/$sw/cancel")
[ "$code" = 202 ] || fail "cancel of sweep $sw got $code, not 202"
for id in $ids; do wait_status "$id" cancelled 120; done
grep -q "job array $arr: scancel" "$work/ndemd.log" || fail "no scancel of array $arr"
for i in 0 1; do [ -e "$FAKE_SLURM_DIR/${arr}_$i.cancelled" ] || fail "task $i of array $arr not cancelled"; done
ok "sweep cancelled: scancel of array $arr, both jobs cancelled"

# ---- 7. ndemd restarted mid-job ----
restart_mid_job "$medium" 5 "$work/ref-medium" "restart" --slurm-bin "$fake"
stop_ndemd

# ---- 8. through a stand-in slurmrestd (--slurm-rest, a JWT from a file) ----
rport=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
FAKE_SLURM_JWT=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
export FAKE_SLURM_JWT
printf 'SLURM_JWT=%s\n' "$FAKE_SLURM_JWT" > "$work/jwt"
python3 "$fake/slurmrestd.py" "$rport" > "$work/slurmrestd.log" 2>&1 &
rest_pid=$!
for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$rport/" && break; sleep 0.1; done
mkdir -p "$work/no-commands" # no Slurm command can stand in for the REST API
SLURM_JWT=must-not-reach-a-job start_ndemd --slurm-rest "http://127.0.0.1:$rport" \
  --slurm-token-file "$work/jwt" --slurm-bin "$work/no-commands" --slurm-partition debug \
  --slurm-time 1-02:03:04
two_jobs_as_ndem_run "rest: two jobs, as ndem run"
sweep_as_array "rest: a sweep of 3 jobs"
c=$(submit "$medium" rest-cancel 60)
wait_checkpoint "$c" 120
sid=$(slurm_id "$c")
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/json' "$base/api/v1/jobs/$c/cancel")
[ "$code" = 202 ] || fail "rest: cancel of running job $c got $code, not 202"
wait_status "$c" cancelled 120
[ -e "$FAKE_SLURM_DIR/$sid.cancelled" ] || fail "rest: no DELETE of job $sid"
ok "rest: cancel: DELETE job/$sid, job cancelled"
grep -l "must-not-reach-a-job" "$FAKE_SLURM_DIR"/submit-*.json && fail "rest: ndemd's SLURM_JWT went into a job"
python3 - "$FAKE_SLURM_DIR" <<'PY' || fail "rest: a submission's environment is wrong"
import glob, json, sys
for f in glob.glob(sys.argv[1] + "/submit-*.json"):
    job = json.load(open(f))["job"]
    env = job["environment"]
    secrets = [k for k in env if k.startswith("NDEM_ARRAY_SECRET_")]
    assert "PATH" in env and job["requeue"] is True, f
    assert ("NDEM_REPORT_SECRET" in env) != bool(secrets), f  # one job, or an array's tasks
    assert len(secrets) == (3 if "array" in job else 0), f
    # sbatch --time 1-02:03:04 in whole minutes, rounded up
    assert job["partition"] == "debug" and job["time_limit"] == (24 + 2) * 60 + 3 + 1, f
PY
echo "not-the-token" > "$work/jwt" # read at each request: a wrong one is refused
x=$(submit "$small" rest-denied 0.5)
wait_status "$x" failed 60
job "$x" | field '["error"]' | grep -q "Authentication failure" || fail "rest: a wrong token: $(job "$x" | field '["error"]')"
ok "rest: ndemd's own SLURM_JWT kept from the jobs, --slurm-time in minutes; a wrong JWT refused (job failed, Slurm's words)"
stop_ndemd
kill "$rest_pid"
wait "$rest_pid" 2> /dev/null || true
rest_pid=""

# ---- the route with the local executor ----
"$ndemd" --listen 127.0.0.1:0 --data "$work/local" --executor bogus > "$work/bogus.log" 2>&1 && fail "--executor bogus started"
grep -q "executor wants local or slurm, not 'bogus'" "$work/bogus.log" || fail "--executor bogus: $(cat "$work/bogus.log")"
start_ndemd --executor local
code=$(curl -s -o "$work/answer" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
  -H "X-Ndem-Job-Secret: $(printf '%064d' 0)" --data '{"type":"start"}' "$base/internal/v1/jobs/$a/report")
[ "$code" = 404 ] && grep -q "executor local" "$work/answer" || fail "the report route with --executor local: $code $(cat "$work/answer")"
stop_ndemd
ok "--executor bogus refused; the report route is 404 with --executor local"
status=0
echo "$NAME: all passed"
