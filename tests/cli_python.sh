#!/usr/bin/env bash
# The Python client (clients/python) installed the way a user installs it,
# offline, into a virtual environment, and driven against a real ndemd:
# build/python-venv is made with Debian's python3 (`python3 -m venv
# --system-site-packages`, so setuptools and wheel come from Debian:
# scripts/deps.sh installs them), the package is installed with
# `pip install --no-build-isolation --no-index`, then its unit tests
# (clients/python/tests/test_units.py) and its tests against $NDEMD_BIN (the
# sanitizer build under `make test`, else build/release/ndemd) on free
# loopback ports with a temporary --data directory
# (clients/python/tests/test_client.py), then against a second ndemd on
# 0.0.0.0 (authentication on by default) with tokens of `ndemd token
# create` (clients/python/tests/test_auth.py: Client(url, token=...)). Each
# daemon must exit 0 on SIGTERM with no sanitizer report in its log, which
# is printed when it does not.
set -eu
cd "$(dirname "$0")/.."
root=$PWD
ndemd=${NDEMD_BIN:-build/release/ndemd}
[ -x "$ndemd" ] || { echo "cli_python: no ndemd at $ndemd (make)"; exit 1; }
# Debian's interpreter, where python3-venv and python3-setuptools are
# installed (a python3 earlier on PATH, pyenv's say, may lack them)
py=${NDEM_PYTHON:-/usr/bin/python3}
[ -x "$py" ] || py=python3
venv=build/python-venv
tmp=$(mktemp -d)
pid=""
cleanup() {
  [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT

# made once and reused; made again when it no longer runs (its python3 was upgraded)
if ! "$venv/bin/python" -c '' 2>/dev/null || ! [ -x "$venv/bin/pip" ]; then
  rm -rf "$venv"
  "$py" -m venv --system-site-packages "$venv" ||
    { echo "cli_python: '$py -m venv' failed (scripts/deps.sh installs python3-venv)"; exit 1; }
fi
# install from a copy: pip builds in the source tree, which must stay clean
mkdir "$tmp/pkg"
tar -C clients/python --exclude=build --exclude='*.egg-info' --exclude=__pycache__ -cf - . |
  tar -C "$tmp/pkg" -xf -
"$venv/bin/pip" install --quiet --no-build-isolation --no-index --force-reinstall --no-deps \
  --disable-pip-version-check "$tmp/pkg" > "$tmp/pip.log" 2>&1 ||
  { cat "$tmp/pip.log"; echo "cli_python: pip install failed (scripts/deps.sh installs python3-pip, python3-setuptools, python3-wheel)"; exit 1; }
vpy=$root/$venv/bin/python
# the tests must import the installed package, not the source tree
where=$(cd "$tmp" && "$vpy" -c 'import ndem_client; print(ndem_client.__file__)')
case $where in "$root/$venv"/*) ;; *) echo "cli_python: ndem_client imported from $where"; exit 1 ;; esac

(cd "$tmp" && timeout 60 "$vpy" "$root/clients/python/tests/test_units.py" 2>&1) |
  tail -n 20
[ "${PIPESTATUS[0]}" -eq 0 ] || { echo "cli_python: unit tests failed"; exit 1; }

# two consecutive free loopback ports: HTTP and the stream
port=$("$vpy" - <<'EOF'
import random, socket
for _ in range(100):
    p = random.randint(20000, 60000)
    try:
        for q in (p, p + 1):
            s = socket.socket(); s.bind(("127.0.0.1", q)); s.close()
        print(p); break
    except OSError:
        pass
EOF
)
[ -n "$port" ] || { echo "cli_python: no free ports"; exit 1; }
# start_daemon NAME HOST OPTIONS...: ndemd on HOST:$port (streams on port + 1)
# with its data in $tmp/NAME; sets pid, log and url
start_daemon() {
  local name=$1 host=$2; shift 2
  log=$tmp/$name.log
  OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-PASSIVE} "$ndemd" --listen "$host:$port" \
    --ws-listen "$host:$((port + 1))" --data "$tmp/$name" --web "$tmp/no-web" \
    --workers 1 --threads 1 --progress-interval 0.05 "$@" > "$log" 2>&1 &
  pid=$!
  url=http://127.0.0.1:$port
  local up=0
  for _ in $(seq 300); do
    kill -0 "$pid" 2>/dev/null || break
    if "$vpy" -c "import urllib.request, sys; urllib.request.urlopen(sys.argv[1], timeout=2)" \
         "$url/health" 2>/dev/null; then up=1; break; fi
    sleep 0.1
  done
  [ "$up" = 1 ] || { cat "$log"; echo "cli_python: ndemd did not answer /health"; exit 1; }
}

# stop_daemon: SIGTERM; it must exit 0 without a sanitizer report
stop_daemon() {
  kill -TERM "$pid"
  local st=0
  for _ in $(seq 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$pid" 2>/dev/null; then st=timeout; else wait "$pid" || st=$?; fi
  pid=""
  local report
  report=$(grep -m1 -E 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$log" || true)
  if [ "$st" != 0 ] || [ -n "$report" ]; then
    cat "$log"
    echo "cli_python: ndemd did not exit cleanly (status $st${report:+, $report})"
    exit 1
  fi
}

start_daemon data 127.0.0.1
rc=0
(cd "$tmp" && NDEM_URL=$url timeout 120 "$vpy" "$root/clients/python/tests/test_client.py") || rc=$?
stop_daemon
[ "$rc" -eq 0 ] || { echo "cli_python: client tests failed"; exit 1; }

# authentication: on by default beyond loopback (0.0.0.0); tokens made
# before the start with `ndemd token create` on the same data directory
alice=$("$ndemd" token create alice --data "$tmp/auth" 2>/dev/null)
bob=$("$ndemd" token create bob --data "$tmp/auth" 2>/dev/null)
start_daemon auth 0.0.0.0
(cd "$tmp" && NDEM_AUTH_URL=$url NDEM_TOKEN_ALICE=$alice NDEM_TOKEN_BOB=$bob timeout 120 \
  "$vpy" "$root/clients/python/tests/test_auth.py") || rc=$?
stop_daemon
[ "$rc" -eq 0 ] || { echo "cli_python: client tests with tokens failed"; exit 1; }
echo "cli_python: ok"
