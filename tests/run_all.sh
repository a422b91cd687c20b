#!/usr/bin/env bash
# Runs every Check suite given on the command line, then every tests/cli_*.sh,
# and prints one closing line "N passed, N failed" (suites, not cases).
set -u
cd "$(dirname "$0")/.."
# The suites check results, not speed. Passive waiting keeps OpenMP barriers
# cheap when a test asks for more threads than the machine has cores.
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-PASSIVE}
passed=0; failed=0; failed_names=""
run() {
  local name=$1; shift
  local t0=$SECONDS
  if "$@"; then passed=$((passed + 1)); echo "== $name: ok ($((SECONDS - t0)) s)"
  else failed=$((failed + 1)); failed_names="$failed_names $name"; echo "== $name: FAILED ($((SECONDS - t0)) s)"; fi
}
for bin in "$@"; do run "$(basename "$bin")" "$bin"; done
for sh in tests/cli_*.sh; do [ -e "$sh" ] && run "$(basename "$sh")" bash "$sh"; done
[ -n "$failed_names" ] && echo "failed:$failed_names"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
