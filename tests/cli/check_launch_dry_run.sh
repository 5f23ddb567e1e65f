#!/usr/bin/env bash
# check_launch_dry_run.sh ACCEL: the exact commands `accel launch --dry-run`
# prints for each engine (mpirun, srun, ssh) from tests/cli/launch_hostfile
# (worker-0 slots=4, worker-1 slots=2), in a known environment and
# directory: each node's visible devices (cpu: CUDA_VISIBLE_DEVICES), node
# rank and size, the job's variables, accel's own variables forwarded and
# NCCL_* not (the cpu backend exports no prefix).
set -euo pipefail
accel=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
hostfile="$(cd "$(dirname "$0")" && pwd)/launch_hostfile"
work=$(mktemp -d "${TMPDIR:-/tmp}/accel_launch_dry.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
root=""
[ "$(id -u)" = 0 ] && root=" --allow-run-as-root"
failed=0

# expect NAME EXPECTED_OUTPUT ACCEL_ARGS...
expect() {
    local name=$1 expected=$2
    shift 2
    local got
    got=$(env -i PATH="$PATH" ACCEL_ACCELERATOR=cpu ACCEL_PLUGIN_PATH= ACCEL_MPIRUN=/bin/true \
        ACCEL_SRUN=/bin/true ACCEL_SSH=/bin/true ACCEL_LAUNCH_TEST="two words" \
        NCCL_LAUNCH_TEST=1 "$accel" launch --dry-run "$@" 2>&1) || true
    if [ "$got" != "$expected" ]; then
        echo "FAIL: $name"
        diff <(echo "$expected") <(echo "$got") || true
        failed=1
    else
        echo "ok: $name"
    fi
}

forward="-x ACCEL_ACCELERATOR -x ACCEL_LAUNCH_TEST -x ACCEL_MPIRUN -x ACCEL_PLUGIN_PATH -x ACCEL_SRUN -x ACCEL_SSH"
expect mpirun "/bin/true --bind-to none$root \\
  -n 2 --host worker-0:2 -x CUDA_VISIBLE_DEVICES=0,2 -x CROSS_RANK=0 -x LOCAL_SIZE=2 -x MASTER_ADDR=worker-0 -x MASTER_PORT=29600 -x WORLD_SIZE=3 -x CROSS_SIZE=2 $forward prog a 'b c' \\
  : -n 1 --host worker-1:1 -x CUDA_VISIBLE_DEVICES=1 -x CROSS_RANK=1 -x LOCAL_SIZE=1 -x MASTER_ADDR=worker-0 -x MASTER_PORT=29600 -x WORLD_SIZE=3 -x CROSS_SIZE=2 $forward prog a 'b c'" \
    --hostfile "$hostfile" --include worker-0:2,0@worker-1:1 --master_port 29600 prog a "b c"

expect mpirun_launcher_args "/bin/true --bind-to none$root --mca plm_rsh_args '-p 2222' --mca btl self,tcp \\
  -n 1 --host worker-1:1 -x CUDA_VISIBLE_DEVICES=0 -x CROSS_RANK=0 -x LOCAL_SIZE=1 -x MASTER_ADDR=worker-1 -x MASTER_PORT=29500 -x WORLD_SIZE=1 -x CROSS_SIZE=1 $forward prog" \
    -H "$hostfile" --exclude=worker-0@worker-1:1 --ssh_port 2222 --launcher_args " --mca btl	self,tcp " prog

expect srun "/bin/true --nodes=2 --ntasks=4 --ntasks-per-node=2 --nodelist=worker-0,worker-1 --export=ALL \\
  sh -c 'case \"\$SLURMD_NODENAME\" in worker-0) export CUDA_VISIBLE_DEVICES=0,1 CROSS_RANK=0 LOCAL_SIZE=2;; worker-1) export CUDA_VISIBLE_DEVICES=0,1 CROSS_RANK=1 LOCAL_SIZE=2;; *) echo \"accel launch: node \$SLURMD_NODENAME is not one of the selected hosts\" >&2; exit 1;; esac; export MASTER_ADDR=10.0.0.1 MASTER_PORT=29500 WORLD_SIZE=4 CROSS_SIZE=2 RANK=\$((CROSS_RANK * 2 + SLURM_LOCALID)) LOCAL_RANK=\$SLURM_LOCALID; exec \"\$@\"' accel-launch prog a" \
    -H "$hostfile" --launcher slurm --num_gpus 2 --master_addr 10.0.0.1 prog a

q="'\\''"  # a ' inside the single-quoted ssh command
exports="ACCEL_ACCELERATOR=cpu ACCEL_LAUNCH_TEST=${q}two words${q} ACCEL_MPIRUN=/bin/true ACCEL_PLUGIN_PATH=${q}${q} ACCEL_SRUN=/bin/true ACCEL_SSH=/bin/true MASTER_ADDR=worker-0 MASTER_PORT=29500 WORLD_SIZE=4 CROSS_SIZE=2"
wait_all='{ cat >/dev/null; kill -TERM $pids; } <&3 >/dev/null 2>&1 & watch=$!; exec 3<&-; rc=0; for p in $pids; do wait "$p"; s=$?; [ "$rc" = 0 ] && rc=$s; done; kill "$watch" 2>/dev/null; exit "$rc"'
expect ssh "/bin/true -p 2222 worker-0 'cd $work || exit 1; exec 3<&0; export $exports CUDA_VISIBLE_DEVICES=0,2 CROSS_RANK=0 LOCAL_SIZE=2; pids=; RANK=0 LOCAL_RANK=0 prog a 3<&- & pids=\"\$pids \$!\"; RANK=1 LOCAL_RANK=1 prog a 3<&- & pids=\"\$pids \$!\"; $wait_all'
/bin/true -p 2222 worker-1 'cd $work || exit 1; exec 3<&0; export $exports CUDA_VISIBLE_DEVICES=0,1 CROSS_RANK=1 LOCAL_SIZE=2; pids=; RANK=2 LOCAL_RANK=0 prog a 3<&- & pids=\"\$pids \$!\"; RANK=3 LOCAL_RANK=1 prog a 3<&- & pids=\"\$pids \$!\"; $wait_all'" \
    -H "$hostfile" --launcher ssh --exclude worker-0:1,3 --ssh_port 2222 prog a

# pdsh is DeepSpeed's name for the same fan-out; --num_accelerators its
# other name for --num_gpus; --num_nodes the first hosts.
expect pdsh_alias "/bin/true worker-0 'cd $work || exit 1; exec 3<&0; export ${exports/WORLD_SIZE=4 CROSS_SIZE=2/WORLD_SIZE=1 CROSS_SIZE=1} CUDA_VISIBLE_DEVICES=0 CROSS_RANK=0 LOCAL_SIZE=1; pids=; RANK=0 LOCAL_RANK=0 prog 3<&- & pids=\"\$pids \$!\"; $wait_all'" \
    -H "$hostfile" --launcher pdsh --num_nodes 1 --num_accelerators 1 prog

exit "$failed"
