#!/usr/bin/env bash
# Stops what tests/slurm/start.sh DIR started (by the pid files it wrote),
# then removes DIR.
#   tests/slurm/stop.sh DIR
set -u
dir=${1:?usage: tests/slurm/stop.sh DIR}
[ -d "$dir" ] || exit 0
export SLURM_CONF="$dir/slurm.conf"
scancel --quiet --user="$(id -un)" 2>/dev/null || true
for pidfile in "$dir/run/slurmrestd.pid" "$dir/run/slurmd.pid" "$dir/run/slurmctld.pid" "$dir/munge/munged.pid"; do
  [ -s "$pidfile" ] || continue
  pid=$(cat "$pidfile")
  kill "$pid" 2>/dev/null || continue
  for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null || true
done
rm -rf "$dir"
