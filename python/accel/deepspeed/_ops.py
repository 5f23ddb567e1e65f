# _ops.py: what the three DeepSpeed-compatible op modules share: the
# accelerator their steps run on, loading accel's op tables once, and turning
# any DLPack producer (torch tensors included) into a DLTensor pointer
# without copying.
#
# Threads: the registries are dicts guarded by the GIL; a step runs with the
# GIL released (ctypes) on accel's CPU worker pool. As in DeepSpeed, two
# steps must not update the same tensors at the same time.
import ctypes

from .. import _lib
from ..accelerator import get_accelerator
from ..tensor import import_dlpack

_state = {"acc": None, "tables": {}}

_TABLES = {"cpu_adam": ("CPUAdamBuilder", _lib.AdamOp),
           "cpu_adagrad": ("CPUAdagradBuilder", _lib.AdagradOp),
           "cpu_lion": ("CPULionBuilder", _lib.LionOp)}


def bind(acc):
    """Run the steps on `acc` (an accel.Accelerator); default: get_accelerator()."""
    _state["acc"] = acc


def accelerator():
    if _state["acc"] is None:
        _state["acc"] = get_accelerator()
    return _state["acc"]


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


def as_dltensor(obj, what, written=True):
    """(keep-alive, POINTER(DLTensor)) for a DLPack producer. Tensors that
    require grad are detached first (a view: same memory), as DeepSpeed
    passes p.data."""
    if getattr(obj, "requires_grad", False) and hasattr(obj, "detach"):
        obj = obj.detach()
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
