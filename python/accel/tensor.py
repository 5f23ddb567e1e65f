# tensor.py: accel.Tensor, a DLPack tensor in accel's memory or borrowed from
# another DLPack producer (numpy, torch, cupy...), and the two directions of
# the DLPack exchange (__dlpack__ out, from_dlpack in), zero-copy both ways.
#
# Ownership: a Tensor from acc.empty/zeros/copy owns its memory (the caching
# allocator, freed by accel_tensor_free when the Tensor is collected or
# .free() is called). A Tensor from from_dlpack borrows the producer's memory
# and calls the producer's deleter when collected. A capsule from __dlpack__
# keeps its Tensor alive until the consumer calls the deleter (numpy: when
# the array is collected), so memory is never freed under a consumer: a
# free() while an export is alive only retires the Tensor, and the release
# happens when the last export's deleter runs (DLPack's rule).
# Capsules carry no Python destructor: a ctypes callback run while a
# consumer's exception is pending loses that exception (SystemError). The
# exports table holds each capsule instead, and a sweep (every export, free
# and numpy()) deletes the ones dropped unconsumed.
# Threads: _exports_lock guards _exports, _capsules and every Tensor's
# export count; the releases themselves run outside it.
import ctypes
import gc
import sys
import threading

from . import _lib
from ._lib import DLManagedTensor, DLManagedTensorVersioned, DLTensor, lib

# accel_dtype_t value, DLPack (code, bits), itemsize, by torch's name
DTYPES = {
    "float32": (0, (2, 32), 4),
    "float16": (1, (2, 16), 2),
    "bfloat16": (2, (4, 16), 2),
    "float64": (3, (2, 64), 8),
    "uint8": (4, (1, 8), 1),
    "int32": (5, (0, 32), 4),
    "int64": (6, (0, 64), 8),
}
_ALIASES = {"float": "float32", "half": "float16", "double": "float64", "long": "int64",
            "int": "int32", "bf16": "bfloat16", "fp16": "float16", "fp32": "float32"}
_BY_DLPACK = {v[1]: k for k, v in DTYPES.items()}


def dtype_name(dtype):
    """The accel dtype name for `dtype`: a name ("float32", "half"), a numpy
    dtype or scalar type (np.dtype("float16"), np.float16), or a torch dtype
    (torch.float16)."""
    if isinstance(dtype, type) and dtype.__module__ == "numpy":
        text = dtype.__name__  # np.float16 -> "float16", np.bool_ -> "bool"
        shown = "numpy.%s" % text
    else:
        text = str(dtype)
        shown = repr(dtype)
    if text.startswith("torch."):
        text = text[len("torch."):]
    text = _ALIASES.get(text, text)
    if text not in DTYPES:
        raise ValueError("accel: dtype %s is not one accel stores; use one of %s"
                         % (shown, ", ".join(DTYPES)))
    return text


# DLPack (code, bits) of element types from_dlpack borrows but accel does not
# store: named in Tensor.dtype; accel's own allocations and ops refuse them.
_BORROWED_ONLY = {(0, 8): "int8", (0, 16): "int16", (1, 16): "uint16", (1, 32): "uint32",
                  (1, 64): "uint64", (6, 8): "bool", (5, 64): "complex64",
                  (5, 128): "complex128"}


def _shape_tuple(shape):
    """A shape as a tuple of Python ints in 0..2**63-1 (_lib.int_arg's
    rule: integers only, numpy and torch integers too; a float, or a value
    the C int64 shape would wrap, is refused)."""
    if not isinstance(shape, (list, tuple)) and hasattr(shape, "__index__"):
        shape = (shape,)
    try:
        entries = tuple(shape)
    except TypeError:
        raise TypeError("accel: shape must be an int or a sequence of ints, not %r"
                        % (shape,)) from None
    dims = tuple(_lib.int_arg(d, "shape entry", "int64") for d in entries)
    if any(d < 0 for d in dims):
        raise ValueError("accel: shape %r has a negative dimension" % (dims,))
    return dims


_ADDRESS_END = 1 << (8 * ctypes.sizeof(ctypes.c_void_p))
_MAX_NDIM = 32  # src/core/tensor_check.h's ACCEL_TENSOR_MAX_NDIM


def _check_imported(dl, producer):
    """What the Python side reads of a producer's DLTensor before any C call
    checks it: 0..32 dimensions with a shape array, no negative extent, and
    whole-byte elements (shape and nbytes would read past the array or lie
    otherwise)."""
    name = type(producer).__name__
    if not 0 <= dl.ndim <= _MAX_NDIM or (dl.ndim > 0 and not dl.shape):
        raise ValueError("accel: %s exported a tensor with ndim %d%s; accel takes 0..%d "
                         "dimensions with a shape array"
                         % (name, dl.ndim, "" if dl.shape else " and no shape", _MAX_NDIM))
    if any(dl.shape[i] < 0 for i in range(dl.ndim)):
        raise ValueError("accel: %s exported a tensor with a negative extent" % name)
    if dl.dtype.bits == 0 or dl.dtype.bits % 8 or dl.dtype.lanes == 0:
        raise ValueError("accel: %s exported elements of %d bits x %d lanes, not whole bytes"
                         % (name, dl.dtype.bits, dl.dtype.lanes))


# ---- CPython capsule functions, all taking addresses (c_void_p)
_api = ctypes.pythonapi
_capsule_new = _api.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]  # no destructor
_capsule_is_valid = _api.PyCapsule_IsValid
_capsule_is_valid.restype = ctypes.c_int
_capsule_is_valid.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
_capsule_get_pointer = _api.PyCapsule_GetPointer
_capsule_get_pointer.restype = ctypes.c_void_p
_capsule_get_pointer.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
_capsule_set_name = _api.PyCapsule_SetName
_capsule_set_name.restype = ctypes.c_int
_capsule_set_name.argtypes = [ctypes.c_void_p, ctypes.c_void_p]

# Names passed to PyCapsule_New/SetName must outlive the capsule: module-owned.
_NAME = ctypes.create_string_buffer(b"dltensor")
_USED_NAME = ctypes.create_string_buffer(b"used_dltensor")
_VNAME = ctypes.create_string_buffer(b"dltensor_versioned")
_USED_VNAME = ctypes.create_string_buffer(b"used_dltensor_versioned")

# Exported DLManagedTensor structs by address -> (struct, Tensor). The entry
# keeps both alive until the consumer deletes it (or the sweep, for a
# capsule dropped unconsumed).
_exports = {}
# Capsules not yet seen consumed, by struct address -> (capsule, versioned).
_capsules = {}
# Re-entrant: a collection can start while this thread holds it (any
# allocation), and run Tensor.__del__ -> free() or a consumer's deleter.
_exports_lock = threading.RLock()


def _call_deleter(address, versioned=False):
    struct = DLManagedTensorVersioned if versioned else DLManagedTensor
    managed = struct.from_address(address)
    deleter = managed.deleter
    if deleter:  # a NULL function pointer is false
        deleter(ctypes.byref(managed))


def _export_done(address):
    """The consumer (or the sweep) deleted export `address`: the Tensor's
    deferred release runs when it was the last one."""
    with _exports_lock:
        entry = _exports.pop(address, None)
        _capsules.pop(address, None)
        tensor = entry[1] if entry is not None else None
        if tensor is None:
            return
        tensor._live_exports -= 1
        release = tensor._live_exports == 0 and tensor._release_pending
        if release:
            tensor._release_pending = False
    if release:
        tensor._release()


@_lib.DLDeleter
def _export_deleter(managed):
    _export_done(ctypes.addressof(managed.contents))


@_lib.DLVersionedDeleter
def _export_versioned_deleter(managed):
    _export_done(ctypes.addressof(managed.contents))


def _capsule_refs(entries):
    """(address, references sys.getrefcount sees on its capsule) for each
    (capsule, versioned) entry of `entries` (a dict); no other local holds
    the capsule, so a capsule only the dict holds always reads the same."""
    return [(address, sys.getrefcount(entry[0])) for address, entry in list(entries.items())]


def _capsule_refs_baseline():
    """What _capsule_refs reads on a capsule nobody but its dict holds."""
    probe = {0: (_capsule_new(ctypes.addressof(_NAME), ctypes.addressof(_NAME), None), False)}
    return _capsule_refs(probe)[0][1]


_CAPSULE_UNHELD = None  # set on first sweep


def _sweep(blocking=True):
    """Delete the exports whose capsule was dropped unconsumed (held by
    nobody but _capsules) and forget the consumed ones (their consumer
    calls the deleter). Not blocking: skipped when another thread (or this
    one, from inside the lock) holds the table."""
    global _CAPSULE_UNHELD
    if _CAPSULE_UNHELD is None:
        _CAPSULE_UNHELD = _capsule_refs_baseline()
    dropped = []
    if not _exports_lock.acquire(blocking):
        return
    try:
        for address, refs in _capsule_refs(_capsules):
            if address not in _capsules:  # gone meanwhile (a re-entrant sweep or deleter)
                continue
            versioned = _capsules[address][1]
            name = b"dltensor_versioned" if versioned else b"dltensor"
            if not _capsule_is_valid(id(_capsules[address][0]), name):
                del _capsules[address]  # consumed: its consumer deletes
            elif refs <= _CAPSULE_UNHELD:
                del _capsules[address]
                dropped.append((address, versioned))
    finally:
        _exports_lock.release()
    for address, versioned in dropped:
        _call_deleter(address, versioned)


def _sweep_after_gc(phase, _info):
    # A collection is where dropped objects are expected to go: unconsumed
    # capsules go then too. CPython runs no collection while an exception
    # is pending, so this never loses one.
    if phase == "stop" and _capsules:
        _sweep(blocking=False)


gc.callbacks.append(_sweep_after_gc)


class Tensor:
    """A contiguous or strided DLPack tensor: accel's own memory, or a view of
    another producer's memory (from_dlpack). Exports __dlpack__."""

    def __init__(self, *_args, **_kw):
        raise TypeError("accel.Tensor is made by acc.empty/zeros/copy or accel.from_dlpack")

    @classmethod
    def _owned(cls, acc, dl):
        self = object.__new__(cls)
        self._acc, self._dl, self._managed, self._producer = acc, dl, None, None
        self._versioned = self._readonly = False
        self._live_exports, self._release_pending = 0, False
        self._ptr = ctypes.pointer(dl)
        return self

    @classmethod
    def _borrowed(cls, acc, address, producer, versioned):
        self = object.__new__(cls)
        struct = DLManagedTensorVersioned if versioned else DLManagedTensor
        managed = struct.from_address(address)
        self._acc, self._managed, self._producer = acc, address, producer
        self._versioned = versioned
        self._readonly = bool(versioned and managed.flags & _lib.DLPACK_FLAG_READ_ONLY)
        self._dl = managed.dl_tensor
        self._live_exports, self._release_pending = 0, False
        self._ptr = ctypes.pointer(self._dl)
        return self

    # ---- release
    def free(self):
        """Release the memory now (owned) or hand the producer's back
        (borrowed). Later use raises ValueError. While a DLPack export of
        this tensor is alive (an array from numpy.from_dlpack, an unconsumed
        capsule), its memory stays: free() then only retires this Tensor,
        and the release runs when the last export's deleter does."""
        _sweep()
        with _exports_lock:
            if self._ptr is None:
                return
            self._ptr = None
            if self._live_exports > 0:
                self._release_pending = True
                return
        self._release()

    def _release(self):
        """The release free() promised: once, with no export alive."""
        if self._managed is None:
            # an accelerator closed first released this memory with it
            if self._acc._handle is not None:
                lib.accel_tensor_free(self._acc._handle, ctypes.pointer(self._dl))
        else:
            _call_deleter(self._managed, self._versioned)
            self._managed = None
        self._producer = None

    def __del__(self):
        try:
            if getattr(self, "_ptr", None) is not None:
                self.free()
        except Exception:  # interpreter shutdown or an accelerator already closed
            pass

    def _check(self):
        if self._ptr is None:
            raise ValueError("accel: this tensor was freed")
        return self._ptr

    # ---- description
    @property
    def ndim(self):
        self._check()
        return self._dl.ndim

    @property
    def shape(self):
        self._check()
        return tuple(self._dl.shape[i] for i in range(self._dl.ndim))

    @property
    def strides(self):
        """Element strides, or None for compact row-major."""
        self._check()
        if not self._dl.strides:
            return None
        return tuple(self._dl.strides[i] for i in range(self._dl.ndim))

    @property
    def dtype(self):
        self._check()
        key = (self._dl.dtype.code, self._dl.dtype.bits)
        name = _BY_DLPACK.get(key, _BORROWED_ONLY.get(key))
        if self._dl.dtype.lanes != 1 or name is None:
            return "dlpack(code=%d,bits=%d,lanes=%d)" % (key + (self._dl.dtype.lanes,))
        return name

    @property
    def itemsize(self):
        return self._dl.dtype.bits // 8

    def numel(self):
        n = 1
        for d in self.shape:
            n *= d
        return n

    @property
    def nbytes(self):
        return self.numel() * self.itemsize

    def data_ptr(self):
        """Address of the first element (data + byte_offset). ValueError
        when that sum, or its end after nbytes, runs past the end of the
        address space (a hostile producer's byte_offset): the C side refuses
        such a tensor (src/core/tensor_check.c), and so does this."""
        self._check()
        address = (self._dl.data or 0) + self._dl.byte_offset
        if address + self.nbytes > _ADDRESS_END:
            raise ValueError("accel: the tensor's data + byte_offset %d + its %d bytes wraps past "
                             "the end of the address space" % (self._dl.byte_offset, self.nbytes))
        return address

    def is_contiguous(self):
        strides = self.strides
        if strides is None:
            return True
        expected = 1
        for d, s in zip(reversed(self.shape), reversed(strides)):
            if d != 1 and s != expected:
                return False
            expected *= d
        return True

    @property
    def device(self):
        """(DLPack device type, device index), as __dlpack_device__."""
        return self.__dlpack_device__()

    @property
    def is_borrowed(self):
        return self._managed is not None

    @property
    def readonly(self):
        """True for memory its producer exported read-only (DLPack 1.0 flag)."""
        return self._readonly

    def __repr__(self):
        if self._ptr is None:
            return "accel.Tensor(freed)"
        return "accel.Tensor(shape=%s, dtype=%s, device=%s%s)" % (
            self.shape, self.dtype, self.device, ", borrowed" if self.is_borrowed else "")

    # ---- DLPack out
    def __dlpack_device__(self):
        self._check()
        return (int(self._dl.device.device_type), int(self._dl.device.device_id))

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        """A capsule viewing this tensor's memory (no copy): DLPack 1.0
        ("dltensor_versioned") when the consumer's max_version allows, else
        the legacy "dltensor". Work queued on the calling thread's current
        stream of the tensor's device is waited for first, so the consumer
        sees finished data."""
        self._check()
        if copy:
            raise BufferError("accel: __dlpack__(copy=True) is not supported; "
                              "use acc.copy(tensor) first")
        if dl_device is not None and tuple(dl_device) != self.__dlpack_device__():
            raise BufferError("accel: cannot export to device %r: the tensor is on %r"
                              % (tuple(dl_device), self.__dlpack_device__()))
        if self._acc is not None and self._managed is None:
            self._acc._sync_current_stream(self._dl.device.device_id)
        if max_version is not None and tuple(max_version)[0] >= 1:
            managed = DLManagedTensorVersioned()
            managed.version.major, managed.version.minor = 1, 0
            managed.flags = _lib.DLPACK_FLAG_READ_ONLY if self._readonly else 0
            managed.deleter = _export_versioned_deleter
            name = _VNAME
        else:
            if self._readonly:
                raise BufferError("accel: this tensor is read-only; legacy DLPack cannot "
                                  "say so (ask with max_version=(1, 0))")
            managed = DLManagedTensor()
            managed.deleter = _export_deleter
            name = _NAME
        managed.dl_tensor = self._dl
        managed.manager_ctx = None
        address = ctypes.addressof(managed)
        capsule = _capsule_new(address, ctypes.addressof(name), None)
        _sweep()
        with _exports_lock:
            if self._ptr is None:  # freed by another thread meanwhile
                raise ValueError("accel: this tensor was freed")
            _exports[address] = (managed, self)
            _capsules[address] = (capsule, max_version is not None and tuple(max_version)[0] >= 1)
            self._live_exports += 1
        return capsule

    def numpy(self):
        """A numpy array viewing this tensor (zero-copy; host memory only:
        a tensor in device memory raises BufferError saying so)."""
        import numpy
        device = self.__dlpack_device__()
        if device[0] not in (_lib.kDLCPU, _lib.kDLCUDAHost):
            raise BufferError("accel: numpy() needs host memory; this tensor is in device "
                              "memory (DLPack device %r): copy it to the host first"
                              % (device,))
        try:
            return numpy.from_dlpack(self)
        finally:
            _sweep()


def import_dlpack(obj, acc=None):
    """Borrow the memory of any DLPack producer as an accel.Tensor (no copy).
    DLPack 1.0 is asked for first, the legacy protocol otherwise."""
    if isinstance(obj, Tensor):
        return obj
    if not hasattr(obj, "__dlpack__"):
        raise TypeError("accel: %s is not a DLPack producer (it has no __dlpack__)"
                        % type(obj).__name__)
    try:
        try:
            capsule = obj.__dlpack__(max_version=(1, 0))
        except TypeError:  # a producer older than the max_version keyword
            capsule = obj.__dlpack__()
    except (BufferError, RuntimeError, TypeError, ValueError) as exc:
        raise ValueError("accel: %s refused to export through DLPack: %s"
                         % (type(obj).__name__, exc)) from exc
    address = id(capsule)
    if _capsule_is_valid(address, b"dltensor_versioned"):
        name, used, versioned = b"dltensor_versioned", _USED_VNAME, True
    elif _capsule_is_valid(address, b"dltensor"):
        name, used, versioned = b"dltensor", _USED_NAME, False
    else:
        raise ValueError("accel: %s.__dlpack__() did not return an unused DLPack capsule"
                         % type(obj).__name__)
    pointer = _capsule_get_pointer(address, name)
    if versioned:
        major = DLManagedTensorVersioned.from_address(pointer).version.major
        if major != 1:
            raise ValueError("accel: %s exported DLPack %d.x; accel reads 1.x and 0.x"
                             % (type(obj).__name__, major))
    if _capsule_set_name(address, ctypes.addressof(used)) != 0:
        raise ValueError("accel: could not mark the DLPack capsule as used")
    struct = DLManagedTensorVersioned if versioned else DLManagedTensor
    try:
        _check_imported(struct.from_address(pointer).dl_tensor, obj)
    except ValueError:
        _call_deleter(pointer, versioned)  # consumed: handed back at once
        raise
    return Tensor._borrowed(acc, pointer, obj, versioned)


def dlpack_ptr(obj):
    """(Tensor, POINTER(DLTensor)) for any DLPack producer; the Tensor keeps
    the borrowed memory alive and must be kept while the pointer is used."""
    tensor = import_dlpack(obj)
    return tensor, tensor._check()
