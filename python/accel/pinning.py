# pinning.py: DeepSpeed's tensor pinning (pin_memory(t, make_copy,
# match_shape), unpin_memory, is_pinned) over accel_pin_memory /
# accel_unpin_memory. A pinned tensor is an accel.Tensor whose buffer the
# library pinned; unpinning (or collecting) it gives the buffer back, to
# the pinned host cache on the default pin backend (accel.h, accel_host_alloc).
# Threads: as accel.Tensor (one thread at a time per tensor).
import ctypes

from . import _lib
from ._lib import P, c_bool, c_size_t, c_uint64, c_void_p, lib
from .tensor import Tensor, import_dlpack


class PinnedStats(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("pinned_bytes", c_uint64),
                ("pinned_bytes_peak", c_uint64), ("tracked_bytes", c_uint64),
                ("pin_count", c_uint64), ("cached_bytes", c_uint64)]


_lib.declare({
    "accel_pin_memory": (_lib.STATUS, [c_void_p, P(_lib.DLTensor), c_bool, c_bool,
                                       P(_lib.DLTensor)]),
    "accel_unpin_memory": (_lib.STATUS, [c_void_p, P(_lib.DLTensor), P(c_bool)]),
    "accel_pinned_memory_stats": (_lib.STATUS, [c_void_p, P(PinnedStats)]),
    "accel_empty_host_cache": (_lib.STATUS, [c_void_p]),
})


class PinnedTensor(Tensor):
    """An accel.Tensor in memory accel pinned (acc.pin_memory). Its buffer
    goes back when it is unpinned (acc.unpin_memory), freed or collected."""

    def _release(self):
        if self._acc._handle is not None:
            freed = c_bool()
            lib.accel_unpin_memory(self._acc._handle, ctypes.pointer(self._dl),
                                   ctypes.byref(freed))


def pin_memory(acc, tensor, make_copy=True, match_shape=True):
    """A pinned host copy of the contiguous host tensor `tensor` (any DLPack
    producer): make_copy copies the elements (else the contents are
    undefined), match_shape keeps the shape (else it is flat)."""
    source = import_dlpack(tensor, acc)
    out = _lib.DLTensor()
    lib.accel_pin_memory(acc._handle, source._check(), bool(make_copy), bool(match_shape),
                         ctypes.byref(out))
    return PinnedTensor._owned(acc, out)


def unpin_memory(acc, tensor):
    """True when `tensor` is a PinnedTensor of `acc` that was still pinned:
    its buffer is given back (at once, or when the last DLPack export of it
    goes). Anything else (a view or numpy array over pinned memory, another
    tensor, one already unpinned) is left alone: False, as DeepSpeed's."""
    if not isinstance(tensor, PinnedTensor) or tensor._acc is not acc or tensor._ptr is None:
        return False
    tensor.free()
    return True


def pinned_memory_stats(acc):
    stats = PinnedStats(struct_size=ctypes.sizeof(PinnedStats))
    lib.accel_pinned_memory_stats(acc._handle, ctypes.byref(stats))
    return {name: getattr(stats, name) for name, _ in stats._fields_ if name != "struct_size"}
