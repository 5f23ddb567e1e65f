#!/usr/bin/env bash
# run_launch_nodes.sh ACCEL ENGINE CHECK: `accel launch` on two "hosts" of
# this machine, 127.0.0.2 and 127.0.0.3 (loopback addresses other than
# 127.0.0.1, which Open MPI takes for other machines; IP literals need no
# hosts file or root), through a stand-in for ssh that runs the command
# here in an emptied environment, as a login on another machine would: the
# ranks see only what the launcher forwarded. ENGINE is openmpi (mpirun
# uses the stand-in as its rsh agent; the ranks all_reduce over MPI) or ssh
# (the stand-in is the ssh engine's ssh). CHECK is launch_nodes_check,
# which each rank runs. 2 nodes x 2 ranks, with devices 1,3 of the first
# host's 4 and both of the second's 2 (--include), a third host left out.
# Over ssh, then a job whose rank 3 exits 7: the launcher must exit 7 and
# name 127.0.0.3. Last, the launcher killed mid-job (SIGTERM, SIGKILL):
# every rank must end.
# Exits 77 (ctest's skip) saying why when mpirun is missing.
set -euo pipefail
accel=$1 engine=$2 check=$3
skip() { echo "skipped: $*"; exit 77; }
if [ "$engine" = openmpi ]; then
    if [ -z "${ACCEL_MPIRUN:-}" ] || [ "$ACCEL_MPIRUN" = "ACCEL_MPIRUN-NOTFOUND" ]; then
        unset ACCEL_MPIRUN
        command -v mpirun >/dev/null || skip "mpirun is not installed"
    fi
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/accel_launch_nodes.XXXXXX")
trap 'rm -rf "$work"' EXIT
# The stand-in: [-p PORT] [-OPTION...] HOST COMMAND... (ssh's and Open MPI's
# rsh agent's call). It notes the host, then runs COMMAND with only PATH,
# HOME, the sanitizers' settings (a cluster-wide configuration) and
# ACCEL_TEST_SHIM_HOST, which tells each rank which host it was started for.
cat >"$work/fake-ssh" <<SHIM
#!/bin/sh
while [ \$# -gt 0 ]; do
    case "\$1" in -p|-o|-l|-i) shift 2 ;; -*) shift ;; *) break ;; esac
done
host=\$1; shift
echo "\$host" >>"$work/hosts.log"
exec env -i PATH="\$PATH" HOME="\${HOME:-/}" ASAN_OPTIONS="\${ASAN_OPTIONS-}" \
    LSAN_OPTIONS="\${LSAN_OPTIONS-}" UBSAN_OPTIONS="\${UBSAN_OPTIONS-}" \
    TSAN_OPTIONS="\${TSAN_OPTIONS-}" ACCEL_TEST_SHIM_HOST="\$host" /bin/sh -c "\$*"
SHIM
chmod +x "$work/fake-ssh"
cat >"$work/hostfile" <<HOSTS
# two "machines" (and a third, left out by --include)
127.0.0.2 slots=4
127.0.0.3 slots=2

127.0.0.4 slots=2
HOSTS

# What must reach the ranks (accel's own variables, the backend's export
# prefixes) and what must not (anything else).
export ACCEL_TEST_FORWARDED="a value with spaces and 'quotes'"
export ACCEL_COMM_TIMEOUT=60
export LAUNCH_TEST_NOT_FORWARDED=1
expect=(--node 127.0.0.2=1,3 --node 127.0.0.3=0,1
        --var "ACCEL_TEST_FORWARDED=$ACCEL_TEST_FORWARDED" --var ACCEL_COMM_TIMEOUT=60
        --absent LAUNCH_TEST_NOT_FORWARDED)
# A variable under each of the backend's export prefixes (none on cpu;
# ASCEND, HCCL, ... on npu), given as LAUNCH_TEST_PREFIXES.
for prefix in ${LAUNCH_TEST_PREFIXES:-}; do
    export "${prefix}_LAUNCH_TEST=forwarded"
    expect+=(--var "${prefix}_LAUNCH_TEST=forwarded")
done

args=(--hostfile "$work/hostfile" --include 127.0.0.2:1,3@127.0.0.3 --master_port 29533)
if [ "$engine" = openmpi ]; then
    # One agent call per host; TCP on loopback only: the two "hosts" share
    # this machine's name and session directory, where Open MPI's
    # shared-memory transport (vader) would give local rank 0 of each the
    # same segment file.
    args+=(--launcher_args "--mca plm_rsh_agent $work/fake-ssh --mca plm_rsh_no_tree_spawn 1
           --mca btl self,tcp --mca btl_tcp_if_include lo --mca oob_tcp_if_include lo")
    expect=(--comm "${expect[@]}")
else
    export ACCEL_SSH="$work/fake-ssh"
    args+=(--launcher ssh)
fi
echo "+ accel launch ${args[*]} $check ${expect[*]}"
"$accel" launch "${args[@]}" --dry-run "$check" "${expect[@]}"
"$accel" launch "${args[@]}" "$check" "${expect[@]}"
# Each selected host was reached once, the left-out one never.
sort "$work/hosts.log" | tr '\n' ' ' | grep -qx '127.0.0.2 127.0.0.3 ' ||
    { echo "FAIL: the stand-in ssh was called for: $(tr '\n' ' ' <"$work/hosts.log")"; exit 1; }
echo "hosts reached: $(tr '\n' ' ' <"$work/hosts.log")"
if [ "$engine" = ssh ]; then
    # A rank that fails: the launcher exits with its status, naming its host.
    rc=0
    "$accel" launch "${args[@]}" /bin/sh -c 'exit $((RANK == 3 ? 7 : 0))' 2>"$work/err" || rc=$?
    grep -q "accel launch: the ranks on host '127.0.0.3' ended with status 7" "$work/err" &&
        [ "$rc" = 7 ] || { echo "FAIL: a failing rank gave exit $rc and: $(cat "$work/err")"; exit 1; }
    echo "a failing rank: exit $rc, $(cat "$work/err")"
fi
if [ "$engine" = ssh ]; then
    # The launcher dies (SIGTERM, then SIGKILL, where no handler can run):
    # no rank may outlive it. Over real ssh the remote side sees its stdin
    # close when the launcher goes; here the stand-in's sh is that side.
    for sig in TERM KILL; do
        rm -f "$work"/rank.*.pid
        "$accel" launch "${args[@]}" /bin/sh -c \
            "echo \$\$ >'$work'/rank.\$RANK.pid; exec sleep 300" 2>/dev/null &
        launcher=$!
        for _ in $(seq 150); do
            [ "$(ls "$work"/rank.*.pid 2>/dev/null | wc -l)" = 4 ] && break
            sleep 0.2
        done
        [ "$(ls "$work"/rank.*.pid 2>/dev/null | wc -l)" = 4 ] ||
            { echo "FAIL: the 4 ranks did not start"; kill -KILL "$launcher"; exit 1; }
        kill "-$sig" "$launcher"
        wait "$launcher" || true
        alive=4
        for _ in $(seq 50); do
            alive=0
            for f in "$work"/rank.*.pid; do
                kill -0 "$(cat "$f")" 2>/dev/null && alive=$((alive + 1))
            done
            [ "$alive" = 0 ] && break
            sleep 0.2
        done
        if [ "$alive" != 0 ]; then
            echo "FAIL: $alive rank(s) still running 10 s after the launcher got SIG$sig"
            for f in "$work"/rank.*.pid; do kill -KILL "$(cat "$f")" 2>/dev/null || true; done
            exit 1
        fi
        echo "the launcher got SIG$sig: every rank ended"
    done
fi
