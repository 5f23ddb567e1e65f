# _zenflow_adam.py: the zenflow_adam_* functions of DeepSpeed's compiled
# cpu_adam module (csrc/adam/cpu_adam_impl.cpp, DeepSpeed 0.19.8), which
# accel.deepspeed.cpu_adam re-exports: ZenFlow's overlapped optimizer step,
# run in a dedicated optimizer process and driven from the training process
# through a control block in shared memory.
#
# - Training process: zenflow_adam_ctrl_size() bytes of shared memory,
#   zenflow_adam_ctrl_init(ptr, groups); then per step zenflow_adam_submit()
#   and zenflow_adam_wait(); zenflow_adam_ctrl_exit() at the end.
# - Optimizer process: create_adam(id, ...), zenflow_adam_create(id,
#   affinity) -> handle, zenflow_adam_register_group(handle, param, grad0,
#   grad1, exp_avg0, exp_avg1, exp_avg_sq0, exp_avg_sq1, stale) per group,
#   then zenflow_adam_run_worker(handle, ptr) until the exit command.
#
# Each requested step runs, group by group, accel's CPU Adam step (libaccel,
# the same C call as adam_update, so a step gives the same bits as
# adam_update on the same tensors) on grad/exp_avg/exp_avg_sq[now_state],
# then copies the updated param into `stale` (memmove). The control block is
# private to this module (both processes use it): two process-shared POSIX
# semaphores (libc's sem_*), the command, and per-group hyper-parameters.
#
# Ownership: the registry of handles is per process; a handle keeps the
# registered tensors alive until zenflow_adam_destroy. The control block's
# memory is the caller's. Threads: the sem_* calls release the GIL (ctypes);
# run_worker blocks its thread until the exit command.
import ctypes
import ctypes.util
import errno
import os
import time

from .. import _lib
from . import _ops

_MAX_GROUPS = 1024  # DeepSpeed's ZEN_MAX_GROUPS
_HP_PER_GROUP = 5  # lr, beta1, beta2, eps, weight_decay
_CMD_STEP, _CMD_EXIT = 0, 1
_SEM_BYTES = 64  # >= sizeof(sem_t) on Linux (32 with glibc and musl on 64-bit)


class _Semaphore(ctypes.Union):
    _fields_ = [("bytes", ctypes.c_ubyte * _SEM_BYTES), ("align", ctypes.c_int64)]


class _Control(ctypes.Structure):
    _fields_ = [("cmd_ready", _Semaphore), ("done", _Semaphore), ("cmd", ctypes.c_int),
                ("now_state", ctypes.c_int), ("step", ctypes.c_int64),
                ("num_groups", ctypes.c_int), ("hp", ctypes.c_float * (_MAX_GROUPS * _HP_PER_GROUP)),
                ("bias_correction", ctypes.c_uint8 * _MAX_GROUPS)]


class _Timespec(ctypes.Structure):
    _fields_ = [("tv_sec", ctypes.c_long), ("tv_nsec", ctypes.c_long)]


_libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
_sem_init = _libc.sem_init
_sem_init.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint]
_sem_post = _libc.sem_post
_sem_post.argtypes = [ctypes.c_void_p]
_sem_wait = _libc.sem_wait
_sem_wait.argtypes = [ctypes.c_void_p]
_sem_timedwait = _libc.sem_timedwait
_sem_timedwait.argtypes = [ctypes.c_void_p, ctypes.POINTER(_Timespec)]

_zenflows = {}  # handle -> _ZenFlowAdam
_next_handle = [0]


class _Group:
    """One registered parameter group: DLTensor pointers plus the keep-alives."""

    def __init__(self, tensors):
        names = ("param", "grad0", "grad1", "exp_avg0", "exp_avg1", "exp_avg_sq0",
                 "exp_avg_sq1")
        self.dl = {}
        for name, tensor in zip(names, tensors):
            self.dl[name] = _ops.as_dltensor(tensor, name, not name.startswith("grad"))
        stale = tensors[7]
        self.stale = None
        if stale is not None:
            self.stale = _ops.as_dltensor(stale, "stale")
            if _nbytes(self.stale) != _nbytes(self.dl["param"]):
                raise ValueError("accel: zenflow_adam_register_group: stale has %d bytes, param "
                                 "%d; the snapshot copies param whole"
                                 % (_nbytes(self.stale), _nbytes(self.dl["param"])))


def _nbytes(entry):
    dl = entry[1].contents
    count = 1
    for i in range(dl.ndim):
        count *= dl.shape[i]
    return count * dl.dtype.bits // 8


def _address(entry):
    dl = entry[1].contents
    return (dl.data or 0) + dl.byte_offset


class _ZenFlowAdam:
    def __init__(self, optimizer_id, affinity):
        self.optimizer_id = optimizer_id
        self.affinity = affinity
        self.groups = []

    def run_step(self, control):
        from . import cpu_adam  # the optimizer registry (create_adam)
        opt = _ops.lookup(cpu_adam._optimizers, self.optimizer_id, "Adam", "create_adam")
        if control.num_groups != len(self.groups):
            raise RuntimeError("accel: ZenFlowAdam: the control block has %d group(s), this "
                               "handle %d registered" % (control.num_groups, len(self.groups)))
        now = control.now_state
        if now not in (0, 1):
            raise RuntimeError("accel: ZenFlowAdam: now_state is %d, not 0 or 1" % now)
        handle, op = _ops.table("cpu_adam")
        step = _lib.int_arg(control.step, "step", "uint64")
        for g, group in enumerate(self.groups):
            hp = control.hp[g * _HP_PER_GROUP:(g + 1) * _HP_PER_GROUP]
            config = _lib.AdamConfig(hp[0], hp[1], hp[2], hp[3], hp[4],
                                     bool(control.bias_correction[g]), opt["adamw_mode"])
            dl = group.dl
            _lib._checker(op.step(handle, None, ctypes.byref(config), step, dl["param"][1],
                                  dl["grad%d" % now][1], dl["exp_avg%d" % now][1],
                                  dl["exp_avg_sq%d" % now][1]), op.step, ())
            _ops.count("cpu_adam")
            if group.stale is not None:
                ctypes.memmove(_address(group.stale), _address(dl["param"]), _nbytes(dl["param"]))


def _control(control_ptr):
    address = _lib.int_arg(control_ptr, "control_ptr", "uint64")
    if address == 0:
        raise ValueError("accel: ZenFlowAdam: control_ptr is NULL")
    return _Control.from_address(address)


def _zenflow(handle):
    try:
        return _zenflows[int(handle)]
    except KeyError:
        raise RuntimeError("accel: no ZenFlowAdam handle %d: call zenflow_adam_create first"
                           % handle) from None


def zenflow_adam_create(optimizer_id, zf_affinity):
    """A ZenFlowAdam stepping Adam optimizer `optimizer_id` (create_adam's),
    its pool pinned to the cores in zf_affinity (applied by run_worker to
    its thread, which accel's CPU worker threads started from it inherit).
    Returns its handle."""
    cores = [_lib.int_arg(core, "zf_affinity entry") for core in zf_affinity]
    handle = _next_handle[0]
    _next_handle[0] += 1
    _zenflows[handle] = _ZenFlowAdam(int(optimizer_id), cores)
    return handle


def zenflow_adam_register_group(handle, param, grad0, grad1, exp_avg0, exp_avg1, exp_avg_sq0,
                                exp_avg_sq1, stale):
    """Add a parameter group: the param, the two gradient buffers, the two
    (exp_avg, exp_avg_sq) states, and the stale snapshot (None: none)."""
    zenflow = _zenflow(handle)
    zenflow.groups.append(_Group((param, grad0, grad1, exp_avg0, exp_avg1, exp_avg_sq0,
                                  exp_avg_sq1, stale)))


def zenflow_adam_destroy(handle):
    _zenflows.pop(int(handle), None)


def zenflow_adam_ctrl_size():
    """Bytes of the shared control block."""
    return ctypes.sizeof(_Control)


def zenflow_adam_ctrl_init(control_ptr, num_groups):
    """Initialise the control block at control_ptr (memory both processes
    share) for num_groups groups; once, before the optimizer process starts."""
    if not 0 <= num_groups <= _MAX_GROUPS:
        raise RuntimeError("accel: ZenFlowAdam: %d param groups; at most %d"
                           % (num_groups, _MAX_GROUPS))
    control = _control(control_ptr)
    control.num_groups = num_groups
    control.cmd = _CMD_STEP
    for sem in (control.cmd_ready, control.done):
        if _sem_init(ctypes.addressof(sem), 1, 0) != 0:
            raise OSError(ctypes.get_errno(), "accel: ZenFlowAdam: sem_init failed")


def zenflow_adam_run_worker(handle, control_ptr):
    """The optimizer process's loop: wait for a command, run the step it asks
    for, post its completion; return on the exit command."""
    zenflow = _zenflow(handle)
    control = _control(control_ptr)
    if zenflow.affinity:
        os.sched_setaffinity(0, zenflow.affinity)
    while True:
        while _sem_wait(ctypes.addressof(control.cmd_ready)) != 0:
            if ctypes.get_errno() != errno.EINTR:
                raise OSError(ctypes.get_errno(), "accel: ZenFlowAdam: sem_wait failed")
        if control.cmd == _CMD_EXIT:
            return
        zenflow.run_step(control)
        _sem_post(ctypes.addressof(control.done))


def zenflow_adam_submit(control_ptr, now_state, step, lr, beta1, beta2, eps, weight_decay,
                        bias_correction):
    """Ask the optimizer process for step `step` on buffer set now_state, with
    one hyper-parameter per group in each list."""
    control = _control(control_ptr)
    lists = (lr, beta1, beta2, eps, weight_decay, bias_correction)
    count = len(lr)
    if count > _MAX_GROUPS or any(len(values) != count for values in lists):
        raise ValueError("accel: zenflow_adam_submit: the six hyper-parameter lists need one "
                         "entry per group (at most %d); got lengths %s"
                         % (_MAX_GROUPS, [len(values) for values in lists]))
    for g in range(count):
        base = g * _HP_PER_GROUP
        control.hp[base:base + _HP_PER_GROUP] = [lr[g], beta1[g], beta2[g], eps[g],
                                                  weight_decay[g]]
        control.bias_correction[g] = 1 if bias_correction[g] else 0
    control.now_state = int(now_state)
    control.step = int(step)
    control.cmd = _CMD_STEP
    _sem_post(ctypes.addressof(control.cmd_ready))  # publishes the fields above


def zenflow_adam_wait(control_ptr, timeout_s):
    """Wait up to timeout_s seconds for one step's completion: True when one
    was consumed, False on timeout (the caller then checks that the
    optimizer process still lives)."""
    control = _control(control_ptr)
    deadline = time.time() + float(timeout_s)
    spec = _Timespec(int(deadline), int((deadline - int(deadline)) * 1e9))
    while _sem_timedwait(ctypes.addressof(control.done), ctypes.byref(spec)) != 0:
        if ctypes.get_errno() != errno.EINTR:
            return False
    return True


def zenflow_adam_ctrl_exit(control_ptr):
    """Tell the optimizer process's run_worker to return."""
    control = _control(control_ptr)
    control.cmd = _CMD_EXIT
    _sem_post(ctypes.addressof(control.cmd_ready))
