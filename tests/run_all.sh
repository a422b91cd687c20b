#!/usr/bin/env bash
# Runs every Check suite given on the command line, then every tests/cli_*.sh,
# and prints one closing line "N passed, N failed" (suites, not cases).
# Every suite runs under a watchdog: past its time limit it is sent SIGTERM
# (SIGKILL 30 s later), with the daemons it started (timeout signals its
# whole process group), and the line says which suite hung. Check's own
# tcase_set_timeout works only in fork mode, which the daemon suites cannot
# use (their shared daemon lives in the parent process), so this is the
# bound. A suite name in NDEM_SUITE_LIMITS ("test_api=120 cli_web.sh=60")
# overrides its limit.
set -u
cd "$(dirname "$0")/.."
# The suites check results, not speed. Passive waiting keeps OpenMP barriers
# cheap when a test asks for more threads than the machine has cores.
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-PASSIVE}
# logs of daemons that exited badly are kept here (tests/daemon.h)
export NDEM_TEST_LOGS=${NDEM_TEST_LOGS:-$PWD/build/test-logs}
# Seconds per suite: about four times what each takes under the sanitizers
# on 2 loaded cores; the rest get the default.
declare -A limit=([test_api]=400 [test_restart]=400 [test_determinism]=400 [test_physics]=400 [test_dem]=600 [test_solver]=400
                  [test_walls]=300 [test_triaxial]=600 [test_shape_pile]=400 [test_mesh_contact]=360 [test_rigid]=360
                  [cli_web.sh]=240 [cli_slurm.sh]=300 [cli_mpi.sh]=600)
default_limit=180
for kv in ${NDEM_SUITE_LIMITS:-}; do limit[${kv%%=*}]=${kv#*=}; done
passed=0; failed=0; failed_names=""
run() {
  local name=$1; shift
  local t0=$SECONDS lim=${limit[$name]:-${limit[${name%-release}]:-$default_limit}} rc=0
  timeout --signal=TERM --kill-after=30 "$lim" "$@" || rc=$?
  if [ "$rc" -eq 0 ]; then passed=$((passed + 1)); echo "== $name: ok ($((SECONDS - t0)) s)"; return; fi
  failed=$((failed + 1)); failed_names="$failed_names $name"
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    echo "== $name: HUNG, stopped by the watchdog after its limit of $lim s"
  else echo "== $name: FAILED ($((SECONDS - t0)) s)"; fi
}
for bin in "$@"; do
  # build/release/tests/X runs as X-release
  name=$(basename "$bin"); case $bin in */release*/tests/*) name=$name-release ;; esac
  run "$name" "$bin"
done
for sh in tests/cli_*.sh; do [ -e "$sh" ] && run "$(basename "$sh")" bash "$sh"; done
[ -n "$failed_names" ] && echo "failed:$failed_names"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
