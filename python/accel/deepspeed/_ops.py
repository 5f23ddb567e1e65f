# _ops.py: what the three DeepSpeed-compatible op modules share: the
# accelerator their steps run on, loading accel's op tables once, and turning
# any DLPack producer (torch tensors included) into a DLTensor pointer
# without copying.
#
# Threads: the registries are dicts guarded by the GIL; a step runs with the
# GIL released (ctypes) on accel's CPU worker pool. As in DeepSpeed, two
# steps must not update the same tensors at the same time.
import ctypes
import json
import os
import sys

from .. import _lib
from ..accelerator import get_accelerator, open as open_accelerator
from ..tensor import import_dlpack

_state = {"acc": None, "tables": {}}

# Steps that libaccel's op table ran and returned ACCEL_OK for, per op, in
# this process (step_counts()). With ACCEL_DEEPSPEED_COUNT_DIR set, every
# count also rewrites <dir>/<pid>.json, so a test harness can read the
# counts of worker processes it never talks to (scripts/test-deepspeed.sh).
_counts = {"cpu_adam": 0, "cpu_adagrad": 0, "cpu_lion": 0}

_TABLES = {"cpu_adam": ("CPUAdamBuilder", _lib.AdamOp),
           "cpu_adagrad": ("CPUAdagradBuilder", _lib.AdagradOp),
           "cpu_lion": ("CPULionBuilder", _lib.LionOp)}


def bind(acc):
    """Run the steps on `acc` (an accel.Accelerator); default: get_accelerator()."""
    _state["acc"] = acc


def accelerator():
    """The accelerator the steps run on: bind()'s, else accel's cpu backend
    when DeepSpeed's accelerator in this process is cpu (DeepSpeed printed
    its own "Setting accelerator to CPU" warning then, and auto-detect would
    print accel's copy of it), else get_accelerator()."""
    if _state["acc"] is None:
        _state["acc"] = open_accelerator("cpu") if _deepspeed_chose_cpu() else get_accelerator()
    return _state["acc"]


def _deepspeed_chose_cpu():
    ds = sys.modules.get("deepspeed.accelerator")
    try:
        return getattr(ds.get_accelerator(), "_name", None) == "cpu" if ds else False
    except Exception:  # noqa: BLE001 - a DeepSpeed that cannot say: auto-detect
        return False


def table(op_name):
    """accel's op table for `op_name` (cached): (accel_t handle, table)."""
    acc = accelerator()
    key = (acc._handle, op_name)
    cached = _state["tables"].get(key)
    if cached is None:
        class_name, struct = _TABLES[op_name]
        address = acc.create_op_builder(class_name)._load_table()
        cached = (acc._handle, ctypes.cast(address, ctypes.POINTER(struct)).contents)
        _state["tables"][key] = cached
    return cached


def count(op_name):
    """Record one step of op_name that libaccel ran (called after the C call
    returned ACCEL_OK)."""
    _counts[op_name] += 1
    directory = os.environ.get("ACCEL_DEEPSPEED_COUNT_DIR")
    if directory:
        _, op = table(op_name)
        record = {"pid": os.getpid(), "ppid": os.getppid(), "cmdline": _cmdline(os.getpid()),
                  "parent_cmdline": _cmdline(os.getppid()), "library": _lib.path,
                  "implementation": op.implementation.decode(), "steps": _counts}
        path = os.path.join(directory, "%d.json" % os.getpid())
        with open(path + ".tmp", "w") as out:
            json.dump(record, out)
        os.replace(path + ".tmp", path)


def _cmdline(pid):
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return ""


def step_counts():
    """{op name: steps libaccel ran for it in this process}."""
    return dict(_counts)


# torch dtype name -> DLPack (code, bits), for the torch fast path below
_TORCH_DTYPES = {"torch.float32": (2, 32), "torch.float16": (2, 16), "torch.bfloat16": (4, 16),
                 "torch.float64": (2, 64), "torch.uint8": (1, 8), "torch.int32": (0, 32),
                 "torch.int64": (0, 64)}
_CPU = _lib.DLDevice(_lib.kDLCPU, 0)


def _torch_dltensor(t, what):
    """A flat DLTensor over a contiguous CPU torch tensor, without a DLPack
    capsule (one step imports four tensors: this saves most of the call's
    Python time). Same checks the capsule path leads to."""
    if t.device.type != "cpu":
        raise ValueError("accel: %s is on %s; DeepSpeed's CPU optimizers (and accel's) take "
                         "CPU tensors" % (what, t.device))
    if not t.is_contiguous():
        raise ValueError("accel: %s is not contiguous; the step needs contiguous memory" % what)
    code_bits = _TORCH_DTYPES.get(str(t.dtype))
    if code_bits is None:
        raise ValueError("accel: %s has dtype %s, which accel's steps do not take" % (what, t.dtype))
    shape = (ctypes.c_int64 * 1)(t.numel())
    dl = _lib.DLTensor(t.data_ptr(), _CPU, 1, _lib.DLDataType(code_bits[0], code_bits[1], 1),
                       shape, None, 0)
    return (t, shape, dl), ctypes.pointer(dl)


def as_dltensor(obj, what, written=True):
    """(keep-alive, POINTER(DLTensor)) for a DLPack producer; the keep-alive
    must be held while the pointer is used. torch tensors take a direct path
    (their data pointer, as DeepSpeed's compiled op reads it); others go
    through DLPack. Tensors that require grad are used as their .data (the
    same memory), as DeepSpeed passes p.data."""
    if type(obj).__module__.startswith("torch") and hasattr(obj, "data_ptr"):
        return _torch_dltensor(obj.data if obj.requires_grad else obj, what)
    try:
        tensor = import_dlpack(obj)
    except (TypeError, ValueError) as exc:
        raise TypeError("accel: %s: %s" % (what, exc)) from None
    if written and tensor.readonly:
        raise ValueError("accel: %s is read-only memory (its DLPack producer said so); "
                         "the step writes it" % what)
    return tensor, tensor._ptr


def lookup(registry, optimizer_id, kind, create):
    try:
        return registry[optimizer_id]
    except KeyError:
        raise RuntimeError("accel: no %s optimizer #%d: call %s(%d, ...) first"
                           % (kind, optimizer_id, create, optimizer_id)) from None
