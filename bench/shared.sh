#!/usr/bin/env bash
# bench/shared.sh - ndemd on shared cores (issue 15, docs/performance.md
# "Session 10: shared cores"): a real ndemd, real HTTP, real jobs (the
# packed bed bench/spheres-10k-lattice.json, NDEM, N steps: every step is
# a settled bed's, about 18,500 contacts). For each OpenMP wait policy and threads per
# job it measures one job alone, two jobs at once (--workers 2), and one job
# beside an unrelated busy process (`yes > /dev/null`), each with the thread
# budget on (--cores: the CPUs ndemd may use) and off (--cores 1024: every
# job gets its --threads), and with the outside load read (--adapt-load, the
# default: `on`) or not (--adapt-load 0: `off`). A job's ms per step is the mean of its series'
# wall_seconds over steps 2..N (the first step builds the lists); steps per
# second of two jobs at once is the sum of both. Configurations alternate
# within each repeat, so a change of load spreads over all of them.
#
# usage: bash bench/shared.sh [--steps N] [--repeat R] [--threads "1 2"]
#                             [--policies "..."] [--cases "..."] [--adapt "on off"]
#                             [NDEMD_BIN]
#   --steps N      steps per job (default 40)
#   --limit S      wall seconds a job may take; then it is cancelled and
#                  measured on the steps it made (default 60)
#   --scene FILE   another job document (default bench/spheres-10k-lattice.json)
#   --repeat R     rounds (default 3); the table shows the median and range
#   --threads L    threads per job to try (default "1 2")
#   --policies L   of: passive active default spin1e3 spin1e4 spin1e5 ...
#                  (spinN: GOMP_SPINCOUNT=N through --omp-spin; default: the
#                  runtime's own; default "passive active default spin1e3
#                  spin1e4 spin1e5")
#   --cases L      of: alone two busy two-nobudget busy-nobudget (default all
#                  but busy-nobudget, which equals busy with one job)
#   --adapt L      of: on off (--adapt-load default, or 0; default "on")
#   --quiet S      before each configuration, wait up to S seconds for a
#                  second in which the CPUs were at most 25% busy (on a
#                  shared machine; default 0: no wait)
# Prints one row per configuration: ms per step of each job (median of the
# rounds), steps per second in all, and that against the best row of the
# same case; `threads` is what the jobs ran on, in order (from ndemd's log:
# 2>1 dropped to one thread, the last round's) and `others` the cores' worth
# of CPU that processes other than ndemd and `yes` took while the jobs ran
# (from /proc/stat; the median of the rounds). Needs curl, python3 and the
# release ndemd (make). Issue 15's check, quietly (about 5 minutes):
#   bash bench/shared.sh --threads 2 --policies "passive spin1e3" \
#       --adapt "on off" --cases "alone busy two"
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
bin="$root/build/release/ndemd"
steps=40 repeat=3 limit=60 scene="$here/spheres-10k-lattice.json" threads_list="1 2"
policies="passive active default spin1e3 spin1e4 spin1e5"
cases="alone two busy two-nobudget" adapt_list="on" quiet=0
while [ $# -gt 0 ]; do
    case "$1" in
        --steps) steps="$2"; shift ;;
        --repeat) repeat="$2"; shift ;;
        --limit) limit="$2"; shift ;;
        --scene) scene="$2"; shift ;;
        --threads) threads_list="$2"; shift ;;
        --policies) policies="$2"; shift ;;
        --cases) cases="$2"; shift ;;
        --adapt) adapt_list="$2"; shift ;;
        --quiet) quiet="$2"; shift ;;
        -h|--help) sed -n '2,44p' "$0"; exit 0 ;;
        *) bin="$1" ;;
    esac
    shift
done
[ -x "$bin" ] || { echo "shared: no ndemd at $bin (run make first)" >&2; exit 2; }
for c in curl python3; do
    command -v "$c" >/dev/null || { echo "shared: $c not found" >&2; exit 2; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/ndem-shared.XXXXXX")
daemon= busy=
cleanup() {
    [ -n "$busy" ] && kill "$busy" 2>/dev/null || true
    [ -n "$daemon" ] && kill "$daemon" 2>/dev/null && wait "$daemon" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

# the job: the scene for $steps steps, frames only at the start and the end
h=$(sed -nE 's/.*"time_step"[[:space:]]*:[[:space:]]*([0-9.eE+-]+).*/\1/p' "$scene" | head -1)
duration=$(awk -v h="$h" -v k="$steps" 'BEGIN { printf "%.9g", (k - 0.5) * h }')
sed -E -e "s/\"duration\"[[:space:]]*:[[:space:]]*[0-9.eE+-]+/\"duration\": $duration/" \
    -e "s/\"frame_interval\"[[:space:]]*:[[:space:]]*[0-9.eE+-]+/\"frame_interval\": 1000/" \
    "$scene" > "$work/job.json"

# start_daemon WORKERS THREADS POLICY BUDGET ADAPT: ndemd on a free port; sets $daemon and $api
start_daemon() {
    local workers="$1" threads="$2" policy="$3" budget="$4" adapt="$5" data="$work/data.$RANDOM"
    local -a env=(env -u OMP_WAIT_POLICY -u GOMP_SPINCOUNT -u NDEM_CORES -u NDEM_OMP_SPIN
                  -u NDEM_ADAPT_LOAD)
    local -a args=(--listen 127.0.0.1:0 --ws-listen 127.0.0.1:0 --data "$data" --auth off
                   --workers "$workers" --threads "$threads" --progress-interval 1)
    case "$policy" in
        passive) env+=(OMP_WAIT_POLICY=PASSIVE) ;;
        active) env+=(OMP_WAIT_POLICY=ACTIVE) ;;
        default) args+=(--omp-spin -1) ;;
        spin*) args+=(--omp-spin "$(awk -v s="${policy#spin}" 'BEGIN { printf "%d", s }')") ;;
        *) echo "shared: unknown policy $policy" >&2; exit 2 ;;
    esac
    [ "$budget" = on ] || args+=(--cores 1024)
    case "$adapt" in
        on) ;;
        off) args+=(--adapt-load 0) ;;
        *) echo "shared: unknown --adapt $adapt" >&2; exit 2 ;;
    esac
    "${env[@]}" "$bin" "${args[@]}" > "$work/ndemd.log" 2>&1 &
    daemon=$!
    api=
    for _ in $(seq 1 300); do
        api=$(sed -nE 's/.*listening on (http:\/\/[0-9.]+:[0-9]+).*/\1/p' "$work/ndemd.log" | head -1)
        [ -n "$api" ] && return 0
        kill -0 "$daemon" 2>/dev/null || break
        sleep 0.1
    done
    echo "shared: ndemd did not start:" >&2; tail -5 "$work/ndemd.log" >&2; exit 1
}
stop_daemon() { kill "$daemon"; wait "$daemon" 2>/dev/null || true; daemon=; }

# run_jobs N: submits N jobs at once, waits for them, prints each one's ms per step
run_jobs() {
    local n="$1" ids=() id
    for _ in $(seq 1 "$n"); do
        id=$(curl -sf -X POST -H 'Content-Type: application/json' --data-binary @"$work/job.json" \
            "$api/api/v1/jobs" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
        ids+=("$id")
    done
    python3 - "$api" "$limit" "${ids[@]}" <<'EOF'
import json, sys, time, urllib.error, urllib.request
api, limit, ids = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
def get(path, data=None):
    req = urllib.request.Request(api + path, data, {"Content-Type": "application/json"})
    with urllib.request.urlopen(req) as r:
        return json.load(r)
until = time.time() + limit
while True:
    left = [i for i in ids if get("/api/v1/jobs/" + i)["status"] in ("queued", "running")]
    if not left:
        break
    if time.time() > until:  # too slow: stop them, measure the steps they made
        for i in left:
            try:
                get("/api/v1/jobs/%s/cancel" % i, b"{}")
            except urllib.error.HTTPError:  # 409: it ended meanwhile
                pass
        until = float("inf")
    time.sleep(0.2)
for i in ids:
    job = get("/api/v1/jobs/" + i)
    if job["status"] not in ("succeeded", "cancelled") or job["progress"]["step"] < 3:
        sys.exit("shared: job %s %s: %s" % (i, job["status"], job["error"]))
out = []
for i in ids:
    wall = get("/api/v1/jobs/%s/series" % i)["series"]["wall_seconds"][1:]
    out.append("%.3f" % (1000 * sum(wall) / len(wall)))
print(" ".join(out))
EOF
}

# busy jiffies of every CPU, and CPU jiffies of process $1 (0 when gone)
cpu_busy() { awk '/^cpu /{ print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat; }
proc_cpu() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }
# wait_quiet S: up to S seconds, until a second with the CPUs at most 25% busy
wait_quiet() {
    local until=$((SECONDS + $1)) b0 b1
    while [ "$SECONDS" -lt "$until" ]; do
        b0=$(cpu_busy); sleep 1; b1=$(cpu_busy)
        awk -v d=$((b1 - b0)) -v hz="$(getconf CLK_TCK)" -v n="$(nproc)" \
            'BEGIN { exit !(d / hz <= 0.25 * n) }' && return 0
    done
    return 0
}

# one CASE THREADS POLICY ADAPT: prints the threads the jobs ran on, the
# others' load in cores, then the jobs' ms per step
one() {
    local case="$1" threads="$2" policy="$3" adapt="$4" budget=on workers=1 jobs=1 r seen
    local b0 b1 d0 d1 y0 y1=0 t0 t1 others
    case "$case" in
        alone) ;;
        two) workers=2 jobs=2 ;;
        two-nobudget) workers=2 jobs=2 budget=off ;;
        busy) ;;
        busy-nobudget) budget=off ;;
        *) echo "shared: unknown case $case" >&2; exit 2 ;;
    esac
    [ "$quiet" = 0 ] || wait_quiet "$quiet"
    start_daemon "$workers" "$threads" "$policy" "$budget" "$adapt"
    # `yes` first, so that the job starts beside it (one busy core)
    case "$case" in busy*) yes > /dev/null & busy=$!; sleep 1 ;; esac
    b0=$(cpu_busy) d0=$(proc_cpu "$daemon") y0=$(proc_cpu "${busy:-0}") t0=$(date +%s.%N)
    if ! r=$(run_jobs "$jobs"); then  # a failed run: no numbers, counted as failed
        r=
        { echo "shared: $case $threads $policy failed; ndemd's log ends:"; tail -5 "$work/ndemd.log"; } >&2
    fi
    b1=$(cpu_busy) d1=$(proc_cpu "$daemon") t1=$(date +%s.%N)
    [ -n "$busy" ] && y1=$(proc_cpu "$busy")
    [ -n "$busy" ] && { kill "$busy"; wait "$busy" 2>/dev/null || true; busy=; }
    stop_daemon
    others=$(awk -v b=$((b1 - b0)) -v d=$((d1 - d0)) -v y=$((y1 - y0)) -v t="$t0" -v u="$t1" \
        -v hz="$(getconf CLK_TCK)" 'BEGIN { o = (b - d - y) / hz / (u - t); printf "%.2f", o < 0 ? 0 : o }')
    seen=$(sed -nE 's/.* ([0-9]+) thread\(s\) per step.*/\1/p' "$work/ndemd.log" | paste -sd'>' -)
    echo "${seen:--} $others $r"
}

echo "ndem bench-shared: $(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -n), $(nproc) cores, load:$(uptime | sed 's/.*load average://')"
echo "binary: $bin; $(basename "$scene" .json), $steps steps per job (at most $limit s), $repeat rounds; ms per step: mean of steps 2..$steps"
: > "$work/results"
for round in $(seq 1 "$repeat"); do
    for case in $cases; do
        for threads in $threads_list; do
            for policy in $policies; do
                for adapt in $adapt_list; do
                    echo "$case $threads $policy $adapt $(one "$case" "$threads" "$policy" "$adapt")" \
                        >> "$work/results"
                done
            done
        done
    done
    echo "round $round done, load:$(uptime | sed 's/.*load average://')" >&2
done
echo "end: $(date -u '+%H:%M UTC'), load:$(uptime | sed 's/.*load average://')"
python3 - "$work/results" <<'EOF'
import statistics, sys
rows, seen, others = {}, {}, {}
for line in open(sys.argv[1]):
    f = line.split()
    runs = rows.setdefault((f[0], int(f[1]), f[2], f[3]), [])
    seen[(f[0], int(f[1]), f[2], f[3])] = f[4]
    others.setdefault((f[0], int(f[1]), f[2], f[3]), []).append(float(f[5]))
    if len(f) > 6:
        runs.append([float(x) for x in f[6:]])
failed = {k: v for k, v in rows.items() if not v}
rows = {k: v for k, v in rows.items() if v}
def summary(runs):
    # per job: the median of the rounds; steps per second: the jobs' sum
    per_job = [statistics.median(r[j] for r in runs) for j in range(len(runs[0]))]
    rates = [sum(1000 / x for x in r) for r in runs]
    return per_job, statistics.median(rates), min(rates), max(rates)
table = {k: summary(v) for k, v in rows.items()}
best = {}
for (case, t, p, a), s in table.items():
    best[case] = max(best.get(case, 0), s[1])
print("%-14s %7s %-9s %-5s %-17s %8s %15s %8s %7s  %s" % (
    "case", "threads", "policy", "adapt", "ms/step (jobs)", "steps/s", "range", "vs best",
    "others", "threads"))
for (case, t, p, a), (per_job, rate, lo, hi) in sorted(table.items()):
    k = (case, t, p, a)
    print("%-14s %7d %-9s %-5s %-17s %8.1f %15s %7.0f%% %7.2f  %s" % (
        case, t, p, a, " ".join("%.1f" % x for x in per_job), rate, "%.1f..%.1f" % (lo, hi),
        100 * rate / best[case], statistics.median(others[k]), seen[k]))
for k in failed:
    print("failed in every round: %s %d %s %s" % k)
EOF
