#!/usr/bin/env bash
# `make test-slurm`: ndemd --executor slurm against a real single-node Slurm
# (tests/slurm/start.sh: munged, slurmctld, slurmd, slurmrestd on loopback),
# first in sbatch mode, then through slurmrestd (--slurm-rest, 9.):
#   1. two small jobs run through Slurm; their frames (binary, through the
#      API) and series (without the wall-time columns) equal those of
#      `ndem run` of the same document;
#   2. a compute node's ndem is killed (SIGKILL) mid-run: the Slurm job ends
#      FAILED, ndemd submits it again, the new run resumes from the last
#      checkpoint (step > 0) and the job ends with exactly the frames and
#      series of an uninterrupted run (the final frame's SHA-256 printed);
#   3. the same after `scontrol requeue` (Slurm's own requeue: same Slurm
#      job, a new run; its start is brought forward with StartTime=now);
#   4. reports with a wrong or no secret get 401;
#   5. a running job is cancelled: status cancelled, scancel seen by Slurm
#      (JobState=CANCELLED, and executor.state CANCELLED);
#   6. a job Slurm holds PENDING (its partition down) reads `queued` with
#      executor.state PENDING and reason PartitionDown (another one's cancel
#      is 200 cancelled, its Slurm job CANCELLED), in the list's
#      ?status= and /health's counts too, then runs (executor.state
#      COMPLETED after its end);
#   7. a 3-job sweep runs as one job array (scontrol shows ArrayJobId), each
#      job equal to `ndem run` of its document;
#   8. ndemd stopped and started again mid-job: the Slurm job goes on, the
#      new ndemd follows it (no new submission), the job ends once with the
#      output of an uninterrupted run;
#   9. 1, 2 and 4 to 8 again with --slurm-rest (slurmrestd, JWT auth), with
#      no Slurm command at ndemd's reach.
# Uses NDEM_BIN and NDEMD_BIN (the Makefile passes the sanitizer builds).
# On failure the logs are kept in build/test-logs/test-slurm/.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
NAME=test-slurm
ndem=$(realpath "${NDEM_BIN:-build/release/ndem}")
ndemd=$(realpath "${NDEMD_BIN:-build/release/ndemd}")
work=$(mktemp -d "${TMPDIR:-/tmp}/ndem-test-slurm.XXXXXX")
chmod 0711 "$work" # slurmrestd reads work/slurm/slurm.conf as nobody
# shellcheck source=tests/slurm/lib.sh
. tests/slurm/lib.sh
cleanup() {
  lib_cleanup
  if [ "$status" != 0 ]; then cp -r "$work/slurm/log" "$root/build/test-logs/$NAME/slurm" 2>/dev/null || true; fi
  bash "$root/tests/slurm/stop.sh" "$work/slurm"
  rm -rf "$work"
}
trap cleanup EXIT
# a watchdog's SIGTERM (run_all.sh) or Ctrl-C cleans up too (the Slurm
# daemons left their process group when they daemonized)
trap 'exit 143' INT TERM
slurm_state() { scontrol --oneliner show job "$1" | tr ' ' '\n' | sed -n 's/^JobState=//p'; }

eval "$(bash tests/slurm/start.sh "$work/slurm")"

# ---- 2. the compute node's process killed mid-run ----
killed_mid_run() {
  k=$(submit "$long" long 6)
  signal_run "$k" KILL 180
  first=$(slurm_id "$k")
  wait_status "$k" succeeded 600
  [ "$(slurm_state "$first")" = FAILED ] || fail "Slurm job $first is $(slurm_state "$first"), not FAILED"
  grep -q "job $k: Slurm job $first: FAILED" "$work/ndemd.log" || fail "ndemd did not see Slurm job $first fail"
  step=$(resumed_at "$k")
  [ -n "$step" ] && [ "$step" -gt 0 ] || fail "job $k did not resume from a checkpoint"
  same_as_reference "$k" "$work/ref-long"
  ok "$mode: killed mid-run (Slurm job $first FAILED), resumed at step $step, as uninterrupted: $summary"
}

# ---- 3. Slurm's own requeue ----
requeued() {
  r=$(submit "$long" long 6)
  wait_checkpoint "$r" 180
  sid=$(slurm_id "$r")
  scontrol requeue "$sid"
  # Slurm holds a requeued job back for about two minutes (Reason=BeginTime);
  # the test lets it start at once, as an administrator may
  for _ in $(seq 100); do [ "$(slurm_state "$sid")" = PENDING ] && break; sleep 0.2; done
  scontrol update JobId="$sid" StartTime=now
  wait_status "$r" succeeded 600
  step=$(resumed_at "$r")
  [ -n "$step" ] && [ "$step" -gt 0 ] || fail "job $r did not resume from a checkpoint after scontrol requeue"
  same_as_reference "$r" "$work/ref-long"
  ok "scontrol requeue of Slurm job $sid, resumed at step $step, as uninterrupted: $summary"
}

# ---- 4 and 5. no secret, then cancel ----
secret_and_cancel() {
  c=$(submit "$long" long-cancel 60)
  wait_checkpoint "$c" 180
  sid=$(slurm_id "$c")
  check_secret "$c"
  ok "$mode: reports without the job's secret: 401"
  code=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/json' "$base/api/v1/jobs/$c/cancel")
  [ "$code" = 202 ] || fail "cancel of running job $c got $code, not 202"
  wait_status "$c" cancelled 120
  for _ in $(seq 100); do [ "$(slurm_state "$sid")" = CANCELLED ] && break; sleep 0.2; done
  [ "$(slurm_state "$sid")" = CANCELLED ] || fail "Slurm job $sid is $(slurm_state "$sid"), not CANCELLED"
  [ "$(job "$c" | field '["executor"]["state"]')" = CANCELLED ] || fail "job $c: executor $(job "$c" | field '["executor"]')"
  ok "$mode: cancel: job cancelled at step $(job "$c" | field '["progress"]["step"]'), Slurm job $sid CANCELLED"
}

# ---- 6. pending in Slurm: the job reads queued, with Slurm's reason ----
pending() {
  scontrol update PartitionName=debug State=DOWN
  p=$(submit "$medium" pending 2)
  q=$(submit "$medium" pending-cancel 2)
  seen="" seen_q=""
  for _ in $(seq 150); do
    seen=$(job "$p" | field '["status"], d["executor"] and d["executor"]["state"], d["executor"] and d["executor"]["reason"]')
    seen_q=$(job "$q" | field '["status"], d["executor"] and d["executor"]["state"]')
    [ "$seen" = "('queued', 'PENDING', 'PartitionDown')" ] && [ "$seen_q" = "('queued', 'PENDING')" ] && break
    sleep 0.2
  done
  # a held job's cancel is a queued job's: 200, cancelled, Slurm's job scancelled
  local sq answer
  sq=$(slurm_id "$q")
  answer=$(curl -s -w ' %{http_code}' -X POST -H 'Content-Type: application/json' "$base/api/v1/jobs/$q/cancel" |
    python3 -c 'import json,sys; b, c = sys.stdin.read().rsplit(" ", 1); print(c, json.loads(b)["status"])')
  [ "$seen_q" = "('queued', 'PENDING')" ] || fail "job $q held by Slurm reads $seen_q"
  [ "$answer" = "200 cancelled" ] || fail "cancel of job $q held by Slurm: $answer, not 200 cancelled"
  [ "$(slurm_state "$sq")" = CANCELLED ] || fail "Slurm job $sq is $(slurm_state "$sq"), not CANCELLED"
  [ "$(job "$q" | field '["executor"]["state"]')" = CANCELLED ] || fail "job $q: executor $(job "$q" | field '["executor"]')"
  # one status: the list's filter and /health count it queued too
  local running queued health
  running=$(curl -sf "$base/api/v1/jobs?status=running" | field ' and [j["id"] for j in d["jobs"]]')
  queued=$(curl -sf "$base/api/v1/jobs?status=queued" | field ' and [j["id"] for j in d["jobs"]]')
  health=$(curl -s "$base/health" | field '["queue_depth"], d["running"]')
  scontrol update PartitionName=debug State=UP
  [ "$seen" = "('queued', 'PENDING', 'PartitionDown')" ] || fail "job $p held by Slurm reads $seen"
  case "$running" in *"$p"*) fail "job $p held by Slurm is listed by ?status=running" ;; esac
  case "$queued" in *"$p"*) ;; *) fail "job $p held by Slurm is not listed by ?status=queued: $queued" ;; esac
  [ "$health" = "(1, 0)" ] || fail "/health with a job held by Slurm: (queue_depth, running) = $health"
  wait_status "$p" succeeded 300
  grep -q "job $p: Slurm job [0-9]* is RUNNING" "$work/ndemd.log" || fail "job $p: never seen RUNNING in Slurm"
  [ "$(job "$p" | field '["executor"]["state"]')" = COMPLETED ] || fail "job $p: executor $(job "$p" | field '["executor"]')"
  ok "$mode: pending in Slurm (partition down): status queued (resource, ?status=, /health), executor PENDING/PartitionDown; a held job's cancel 200 cancelled, Slurm job $sq CANCELLED; the other then ran and succeeded, executor COMPLETED"
}

# ---- 7. a sweep as one job array ----
sweep_array() {
  sweep_as_array "$mode: a sweep of 3 jobs"
  scontrol --oneliner show job "${array}_2" | grep -q "ArrayJobId=$array ArrayTaskId=2 " ||
    fail "scontrol does not show task 2 of array $array: $(scontrol --oneliner show job "${array}_2")"
  ok "$mode: scontrol shows ArrayJobId=$array for the sweep's tasks"
}

# ---- every check in one mode of ndemd's (its extra options "$@" for the
# restart); $mode names it in the messages ----
checks() {
  two_jobs_as_ndem_run "$mode: two jobs through Slurm, as ndem run"
  killed_mid_run
  [ "$mode" = rest ] || requeued # Slurm's own doing: the same in both modes
  secret_and_cancel
  pending
  sweep_array
  # ---- 8. ndemd restarted mid-job ----
  restart_mid_job "$long" 6 "$work/ref-long" "$mode: restart" "$@"
  stop_ndemd
}

# ---- the reference of the long job, uninterrupted ----
printf "$long" long 6 > "$work/long.json"
"$ndem" run "$work/long.json" --out "$work/ref-long" --quiet --no-vtk > /dev/null

mode=sbatch
start_ndemd
checks

# ---- 9. all again through slurmrestd (root's JWT, read from a file); no
# Slurm command can run for ndemd (--slurm-bin names an empty directory) ----
mode=rest
scontrol token username=root lifespan=7200 > "$work/jwt"
chmod 0600 "$work/jwt"
mkdir -p "$work/no-commands"
rest=(--slurm-rest "$NDEM_SLURMRESTD" --slurm-token-file "$work/jwt" --slurm-bin "$work/no-commands")
rm -rf "$work/data"
start_ndemd "${rest[@]}"
checks "${rest[@]}"
status=0
echo "$NAME: all passed"
