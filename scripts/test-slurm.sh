#!/usr/bin/env bash
# test-slurm.sh: the opt-in check that `accel launch --launcher slurm` works
# against a real Slurm. It starts a private one-node cluster on this
# machine (slurmctld and slurmd with a configuration, state and logs in a
# temporary folder, on ports of their own), then inside `salloc`:
#   1. two ranks of tests/comm/launch_nodes_check, each checking RANK,
#      LOCAL_RANK, WORLD_SIZE, its node's visible devices and a forwarded
#      variable (srun passes the whole environment, so "absent" variables
#      are not checked);
#   2. a job whose rank 1 exits 7: the launcher must exit 7;
#   3. the launcher killed mid-job (SIGTERM to srun, which `accel launch`
#      became): srun cancels the step, and no rank may be left running.
# The default test suite never runs it: it needs root (Slurm's daemons and
# munge) and installs slurmd, slurmctld, slurm-client and munge with apt
# when missing. Every rank here meets on one node: multi-node Slurm is not
# covered (slurmd is one per host unless Slurm was built for more).
#
#   scripts/test-slurm.sh            (after a build in ./build, or BUILD=dir)
#
# Exits 0 when every check passed, 1 when one failed, 77 (skip) with the
# reason when it cannot run here.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$root/build}
accel=$build/tools/accel/accel
check=$build/tests/comm/launch_nodes_check
skip() { echo "test-slurm: skipped: $*"; exit 77; }
fail() { echo "test-slurm: FAIL: $*"; exit 1; }
[ -x "$accel" ] && [ -x "$check" ] || fail "build first: no $accel or $check"
[ "$(id -u)" = 0 ] || skip "Slurm's daemons and munge need root"
if ! command -v slurmctld >/dev/null || ! command -v srun >/dev/null || ! command -v munged >/dev/null
then
    command -v apt-get >/dev/null || skip "no Slurm and no apt-get to install it"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q slurmd slurmctld slurm-client munge \
        >/dev/null || skip "apt-get could not install Slurm"
fi

host=$(hostname -s)
work=$(mktemp -d "${TMPDIR:-/tmp}/accel_slurm.XXXXXX")
conf=$work/slurm.conf
cleanup() {
    for daemon in slurmd slurmctld; do
        [ -f "$work/$daemon.pid" ] && kill "$(cat "$work/$daemon.pid")" 2>/dev/null || true
    done
    sleep 1
    rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/spool" "$work/state"
cat >"$conf" <<CONF
ClusterName=accel-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=16817
SlurmdPort=16818
AuthType=auth/munge
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
SlurmUser=root
SlurmdUser=root
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmdSpoolDir=$work/spool
StateSaveLocation=$work/state
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=accel Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF
export SLURM_CONF=$conf
# munge: the system's key and socket, started once if it is not running.
if ! munge -n >/dev/null 2>&1; then
    mkdir -p /run/munge && chown munge:munge /run/munge 2>/dev/null || true
    runuser -u munge -- /usr/sbin/munged 2>/dev/null || /usr/sbin/munged --force ||
        skip "munged does not start"
fi
slurmctld -f "$conf" || fail "slurmctld did not start: $(tail -3 "$work/slurmctld.log" 2>/dev/null)"
slurmd -f "$conf" || fail "slurmd did not start: $(tail -3 "$work/slurmd.log" 2>/dev/null)"
for _ in $(seq 60); do
    sinfo -h -o %t 2>/dev/null | grep -q idle && break
    sleep 0.5
done
sinfo -h -o %t | grep -q idle || fail "the node never became idle: $(sinfo 2>&1)"
echo "test-slurm: one-node cluster up ($(sinfo -h -o '%P %D %t %N'))"

printf '%s slots=2\n' "$host" >"$work/hostfile"
args=(--hostfile "$work/hostfile" --launcher slurm)

# 1. The ranks see what the launcher promised.
export ACCEL_TEST_FORWARDED="a value with spaces" ACCEL_TEST_SHIM_HOST=$host
salloc -Q -N1 -n2 "$accel" launch "${args[@]}" "$check" --node "$host=0,1" \
    --var "ACCEL_TEST_FORWARDED=$ACCEL_TEST_FORWARDED" || fail "the ranks' environment"
echo "test-slurm: 2 ranks through srun saw their RANK, LOCAL_RANK, sizes, devices and variables"

# 2. A failing rank's status is the launcher's.
rc=0
salloc -Q -N1 -n2 "$accel" launch "${args[@]}" /bin/sh -c 'exit $((RANK == 1 ? 7 : 0))' || rc=$?
[ "$rc" = 7 ] || fail "rank 1 exited 7 but the launcher exited $rc"
echo "test-slurm: rank 1 exited 7, and so did the launcher"

# 3. The launcher killed mid-job: no rank outlives it.
rm -f "$work"/rank.*.pid
salloc -Q -N1 -n2 "$accel" launch "${args[@]}" /bin/sh -c \
    "echo \$\$ >'$work'/rank.\$RANK.pid; exec sleep 300" &
job=$!
for _ in $(seq 100); do
    [ "$(ls "$work"/rank.*.pid 2>/dev/null | wc -l)" = 2 ] && break
    sleep 0.2
done
[ "$(ls "$work"/rank.*.pid 2>/dev/null | wc -l)" = 2 ] || fail "the 2 ranks did not start"
# `accel launch` execs srun: the launcher is srun now (salloc is its parent).
pkill -TERM -f "^[^ ]*srun --nodes=1 --ntasks=2 " || fail "no srun to signal"
wait "$job" || true
alive=2
for _ in $(seq 75); do
    alive=0
    for f in "$work"/rank.*.pid; do kill -0 "$(cat "$f")" 2>/dev/null && alive=$((alive + 1)); done
    [ "$alive" = 0 ] && break
    sleep 0.2
done
if [ "$alive" != 0 ]; then
    for f in "$work"/rank.*.pid; do kill -KILL "$(cat "$f")" 2>/dev/null || true; done
    fail "$alive rank(s) still running 15 s after the launcher got SIGTERM"
fi
echo "test-slurm: the launcher got SIGTERM mid-job and both ranks ended"
echo "test-slurm: all passed"
