#!/usr/bin/env bash
# The whole-job archive of ndemd (GET /api/v1/jobs/{id}/archive, docs/api.md):
# the job of tests/cli_paraview.sh (a keyframed mesh, a turning cylinder,
# particles of two materials) run by $NDEMD_BIN (the sanitizer build under
# `make test`, else build/release/ndemd); the archive is unpacked with
# Python's tarfile and tests/paraview_check.py checks paraview/ and frames/
# against the document, as for `ndem run`, VTK's vtkXMLPolyDataReader (Debian's
# python3-vtk9, scripts/deps.sh) reading every piece of its .pvd and every frame
# as GET .../frames/{n}?format=vtp exports it; its frames/ equal the stored
# records (GET .../frames/{n}?format=ndf) byte for byte, series.csv the
# stored rows, job.json the document, summary.json the job resource. A
# running job's archive has the frames so far; a queued job's is 409, an
# unknown job's 404. The daemon must exit 0 on SIGTERM with no sanitizer
# report in its log.
set -u
cd "$(dirname "$0")/.."
ndemd=${NDEMD_BIN:-build/release/ndemd}
[ -x "$ndemd" ] || { echo "cli_archive: no ndemd at $ndemd (make)"; exit 1; }
tmp=$(mktemp -d)
pid=""
cleanup() {
  [ -n "$pid" ] && kill -KILL "$pid" 2> /dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
fails=0
check() { # check NAME CONDITION...
  local name=$1; shift
  if "$@"; then echo "ok   $name"; else echo "FAIL $name"; fails=$((fails + 1)); fi
}
port=$(python3 - <<'PY'
import random, socket
for _ in range(100):
    p = random.randint(20000, 60000)
    try:
        for q in (p, p + 1):
            s = socket.socket(); s.bind(("127.0.0.1", q)); s.close()
        print(p); break
    except OSError:
        pass
PY
)
log=$tmp/ndemd.log
OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-PASSIVE} "$ndemd" --listen "127.0.0.1:$port" \
  --ws-listen "127.0.0.1:$((port + 1))" --data "$tmp/data" --web "$tmp/no-web" \
  --workers 1 --threads 1 > "$log" 2>&1 &
pid=$!
url=http://127.0.0.1:$port
for _ in $(seq 300); do curl -sf "$url/health" > /dev/null && break; sleep 0.1; done
# the document of cli_paraview.sh, submitted to the daemon
sed -n "/^cat > \"\$tmp\/job.json\" <<'JSON'$/,/^JSON$/p" tests/cli_paraview.sh | sed '1d;$d' > "$tmp/job.json"
/usr/bin/python3 tests/archive_check.py "$url" "$tmp/job.json" 1,1,0,0,0,0 "$tmp" || fails=$((fails + 1))
kill -TERM "$pid"
st=0
for _ in $(seq 300); do kill -0 "$pid" 2> /dev/null || break; sleep 0.1; done
if kill -0 "$pid" 2> /dev/null; then st=timeout; else wait "$pid" || st=$?; fi
pid=""
report=$(grep -m1 -E 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$log" || true)
check "ndemd exits 0 on SIGTERM, no sanitizer report" test "$st" = 0 -a -z "$report"
[ "$st" = 0 ] && [ -z "$report" ] || tail -50 "$log"
[ "$fails" -eq 0 ] && echo "cli_archive: all ok" || echo "cli_archive: $fails failed"
[ "$fails" -eq 0 ]
