#!/usr/bin/env bash
# Starts a single-node Slurm on loopback for `make test-slurm`: munged,
# slurmctld and slurmd from Debian's packages (scripts/deps.sh slurm), each
# with its own files under DIR (default: a new temporary directory), no
# systemd, no cgroups (proctrack/linuxproc, task/none), no accounting
# daemon, and slurmrestd on loopback with JWT authentication (a key of its
# own). Prints the lines to source (SLURM_CONF, NDEM_SLURM_DIR, NDEM_SLURMRESTD) on
# stdout; tests/slurm/stop.sh DIR stops it all again.
#   tests/slurm/start.sh [DIR]
set -euo pipefail
dir=${1:-$(mktemp -d "${TMPDIR:-/tmp}/ndem-slurm.XXXXXX")}
mkdir -p "$dir"/{munge,spool/ctld,spool/d,log,run}
dir=$(cd "$dir" && pwd)
host=$(hostname -s)
cpus=$(nproc)
mem=$(awk '/MemTotal/ {print int($2 / 1024 / 2)}' /proc/meminfo)
# munge: a fresh key for this cluster only, its own socket
dd if=/dev/urandom bs=1 count=1024 of="$dir/munge/munge.key" status=none
chmod 0400 "$dir/munge/munge.key"
chmod 0711 "$dir/munge"
munged --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" \
  --pid-file="$dir/munge/munged.pid" --log-file="$dir/log/munged.log" \
  --seed-file="$dir/munge/munge.seed"
# a JWT key, for slurmrestd's clients (AuthAltTypes below): root's only
dd if=/dev/urandom bs=32 count=1 of="$dir/jwt.key" status=none
chmod 0600 "$dir/jwt.key"
ports=$((20000 + RANDOM % 20000))
cat > "$dir/slurm.conf" <<CONF
ClusterName=ndemtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ports
SlurmdPort=$((ports + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
AuthAltTypes=auth/jwt
AuthAltParameters=jwt_key=$dir/jwt.key
CredType=cred/munge
StateSaveLocation=$dir/spool/ctld
SlurmdSpoolDir=$dir/spool/d
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MinJobAge=3600
KillWait=5
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
MpiDefault=none
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:8
CONF
# slurmd 22.05 loads a cgroup plugin even when nothing uses it; v1 loads in
# a container without systemd (nothing is mounted or created by it here).
# On a host with only cgroup v2 the v2 plugin is the one that can load
# (not tried here: the development machine has v1 hierarchies).
plugin=cgroup/v1
[ "$(stat -fc %T /sys/fs/cgroup 2>/dev/null)" = cgroup2fs ] && plugin=cgroup/v2
printf 'CgroupPlugin=%s\nCgroupAutomount=no\nIgnoreSystemd=yes\n' "$plugin" > "$dir/cgroup.conf"
export SLURM_CONF="$dir/slurm.conf"
slurmctld -i -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"
for _ in $(seq 60); do
  state=$(sinfo -h -N -o '%T' 2>/dev/null | head -1 || true)
  [ "$state" = idle ] && break
  sleep 1
done
if [ "$state" != idle ]; then
  echo "slurm: the node is '${state:-not listed}' after 60 s; logs in $dir/log" >&2
  tail -20 "$dir/log/slurmctld.log" "$dir/log/slurmd.log" >&2 || true
  exit 1
fi
# slurmrestd (Slurm's REST API) on a loopback port, accepting JWTs: it
# refuses to run as root, so it drops to nobody once its socket is open and
# reads slurm.conf as nobody (DIR and its parents must let nobody through;
# slurm.conf holds no secret); SLURM_JWT=daemon makes it speak to slurmctld
# with its clients' tokens
chmod 0755 "$dir"
rest_port=$((ports + 2))
SLURM_JWT=daemon slurmrestd -f "$SLURM_CONF" -a rest_auth/jwt -s openapi/v0.0.38 -u nobody \
  "127.0.0.1:$rest_port" > "$dir/log/slurmrestd.log" 2>&1 < /dev/null &
echo $! > "$dir/run/slurmrestd.pid"
up=no
for _ in $(seq 100); do
  curl -s -o /dev/null "http://127.0.0.1:$rest_port/" && up=yes && break
  sleep 0.2
done
if [ "$up" != yes ]; then
  echo "slurm: slurmrestd does not answer on port $rest_port; its log:" >&2
  cat "$dir/log/slurmrestd.log" >&2 || true
  exit 1
fi
echo "export SLURM_CONF=$SLURM_CONF"
echo "export NDEM_SLURM_DIR=$dir"
echo "export NDEM_SLURMRESTD=http://127.0.0.1:$rest_port"
