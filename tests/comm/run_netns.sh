#!/usr/bin/env bash
# run_netns.sh N PROGRAM [ARGS...]: run PROGRAM as N ranks on two "hosts" (N/2
# each): two network namespaces joined by a veth pair, 10.77.0.1 and
# 10.77.0.2, so the ranks of different hosts talk over TCP only, as on two
# machines. mpirun runs in the first namespace and starts the second's
# ranks through `ip netns exec` (its rsh agent). Needs root, iproute2 and
# mpirun; exits 77 (ctest's skip) saying why when any is missing or the
# kernel refuses namespaces. The namespaces go away when the script ends.
set -euo pipefail
ranks=$1; shift
skip() { echo "skipped: $*"; exit 77; }
mpirun=${ACCEL_MPIRUN:-}
if [ -z "$mpirun" ] || [ "$mpirun" = "ACCEL_MPIRUN-NOTFOUND" ]; then
    mpirun=$(command -v mpirun || true)
fi
[ -n "$mpirun" ] || skip "mpirun is not installed (Debian: apt-get install openmpi-bin)"
[ "$(id -u)" = 0 ] || skip "network namespaces need root"
command -v ip >/dev/null || skip "ip (iproute2) is not installed"

tag=accel$$
a=${tag}a b=${tag}b
agent=$(mktemp "${TMPDIR:-/tmp}/accel_netns_agent.XXXXXX")
cleanup() {
    ip netns del "$a" 2>/dev/null || true
    ip netns del "$b" 2>/dev/null || true
    rm -f "$agent"
}
trap cleanup EXIT
if ! err=$(ip netns add "$a" 2>&1); then skip "ip netns add refused: $err"; fi
ip netns add "$b"
ip link add "${tag}x" netns "$a" type veth peer name "${tag}y" netns "$b"
ip -n "$a" addr add 10.77.0.1/24 dev "${tag}x"
ip -n "$b" addr add 10.77.0.2/24 dev "${tag}y"
for ns in "$a" "$b"; do ip -n "$ns" link set lo up; done
ip -n "$a" link set "${tag}x" up
ip -n "$b" link set "${tag}y" up

# Open MPI's rsh agent gets "HOST COMMAND...": the second host is the second
# namespace.
cat >"$agent" <<EOF
#!/bin/sh
shift
exec ip netns exec $b /bin/sh -c "\$*"
EOF
chmod +x "$agent"

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# TCP only: both hosts share this machine's hostname and /dev/shm, which
# Open MPI's shared-memory transport (vader) would take for one host.
# The test's ACCEL_*, ASAN_* and LSAN_* variables go to every rank.
exports=()
for name in $(compgen -e | grep -E '^(ACCEL|ASAN|LSAN)_' || true); do exports+=(-x "$name"); done
half=$((ranks / 2))
ip netns exec "$a" "$mpirun" -n "$ranks" --host "10.77.0.1:$half,10.77.0.2:$((ranks - half))" \
    --bind-to none --mca plm_rsh_agent "$agent" --mca plm_rsh_no_tree_spawn 1 \
    --mca btl self,tcp --mca btl_tcp_if_include 10.77.0.0/24 \
    --mca oob_tcp_if_include 10.77.0.0/24 "${exports[@]}" "$@"
