# comm.py: accel's collectives (include/accel/accel_comm.h) for Python, on
# any DLPack producer's memory: accel.Tensor, numpy arrays, torch tensors.
# Buffers are borrowed for the call (zero-copy) and must be contiguous; their
# element counts are checked here against what each collective reads and
# writes, since accel can check only the memory its own allocator made.
#
# Ownership: a Communicator owns its accel_comm_t until destroy() (or
# garbage collection); it keeps its Accelerator alive. Threads: as the C API,
# one thread at a time per communicator; group() is per thread.
import contextlib
import ctypes

from . import _lib
from ._lib import P, c_bool, c_char_p, c_double, c_int, c_size_t, c_void_p, lib
from .accelerator import get_accelerator
from .tensor import DTYPES, import_dlpack

OPS = {"sum": 0, "prod": 1, "min": 2, "max": 3, "avg": 4}
SPLIT_NONE = -1  # accel_comm_split's ACCEL_COMM_SPLIT_NONE


class CommOptions(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("engine", c_char_p), ("device", c_int),
                ("use_local_rank", c_bool), ("timeout_s", c_double)]


class EngineInfo(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("backend_name", c_char_p), ("engine", c_char_p),
                ("available", c_bool), ("detail", ctypes.c_char * 320)]


_STATUS = _lib.STATUS
_lib.declare({
    "accel_comm_engine_info": (_STATUS, [c_void_p, P(EngineInfo)]),
    "accel_comm_init": (_STATUS, [c_void_p, P(CommOptions), P(c_void_p)]),
    "accel_comm_split": (_STATUS, [c_void_p, c_int, c_int, P(c_void_p)]),
    "accel_comm_destroy": (_STATUS, [c_void_p]),
    "accel_comm_rank": (_STATUS, [c_void_p, P(c_int)]),
    "accel_comm_size": (_STATUS, [c_void_p, P(c_int)]),
    "accel_comm_device": (_STATUS, [c_void_p, P(c_int)]),
    "accel_comm_engine_name": (_STATUS, [c_void_p, P(c_char_p)]),
    "accel_all_reduce": (_STATUS, [c_void_p, c_void_p, c_void_p, c_size_t, c_int, c_int,
                                   c_void_p]),
    "accel_all_gather": (_STATUS, [c_void_p, c_void_p, c_void_p, c_size_t, c_int, c_void_p]),
    "accel_reduce_scatter": (_STATUS, [c_void_p, c_void_p, c_void_p, c_size_t, c_int, c_int,
                                       c_void_p]),
    "accel_broadcast": (_STATUS, [c_void_p, c_void_p, c_void_p, c_size_t, c_int, c_int,
                                  c_void_p]),
    "accel_reduce": (_STATUS, [c_void_p, c_void_p, c_void_p, c_size_t, c_int, c_int, c_int,
                               c_void_p]),
    "accel_send": (_STATUS, [c_void_p, c_void_p, c_size_t, c_int, c_int, c_void_p]),
    "accel_recv": (_STATUS, [c_void_p, c_void_p, c_size_t, c_int, c_int, c_void_p]),
    "accel_barrier": (_STATUS, [c_void_p, c_void_p]),
    "accel_comm_group_start": (_STATUS, []),
    "accel_comm_group_end": (_STATUS, []),
})


def engine_info(acc=None):
    """Which engine serves `acc`'s backend here (accel_comm_engine_info), as a
    dict: backend_name (DeepSpeed's name), engine, available, detail."""
    acc = acc if acc is not None else get_accelerator()
    info = EngineInfo(struct_size=ctypes.sizeof(EngineInfo))
    lib.accel_comm_engine_info(acc._handle, ctypes.byref(info))
    text = (lambda b: b.decode() if b else None)
    return {"backend_name": text(info.backend_name), "engine": text(info.engine),
            "available": bool(info.available), "detail": info.detail.decode()}


@contextlib.contextmanager
def group():
    """`with accel.comm.group():` issues the calls inside as one group
    (accel_comm_group_start/_end): matching sends and receives in one group
    cannot deadlock. Per thread; nests."""
    lib.accel_comm_group_start()
    try:
        yield
    finally:
        lib.accel_comm_group_end()


def _op(op):
    if op not in OPS:
        raise ValueError("accel: reduce op %r is not one of %s" % (op, ", ".join(OPS)))
    return OPS[op]


class _Buffer:
    """One argument borrowed for a call: the accel.Tensor view that keeps the
    producer's memory alive, its address, element count and dtype."""

    def __init__(self, obj, what, writable):
        self.tensor = import_dlpack(obj)
        self.what = what
        dtype = self.tensor.dtype
        if dtype not in DTYPES:
            raise TypeError("accel: the %s has dtype %s, which accel's collectives do not "
                            "carry (%s)" % (what, dtype, ", ".join(DTYPES)))
        if not self.tensor.is_contiguous():
            raise ValueError("accel: the %s is not contiguous; collectives need one block of "
                             "memory (make a contiguous copy first)" % what)
        if writable and self.tensor.readonly:
            raise ValueError("accel: the %s is read-only, and this collective writes it" % what)
        self.dtype, self.code, self.count = dtype, DTYPES[dtype][0], self.tensor.numel()
        self.ptr = self.tensor.data_ptr()

    def same_dtype(self, other):
        if other.dtype != self.dtype:
            raise TypeError("accel: the %s is %s but the %s is %s; both must have one dtype"
                            % (self.what, self.dtype, other.what, other.dtype))

    def expect(self, count, why):
        if self.count != count:
            raise ValueError("accel: the %s holds %d elements but %s needs %d"
                             % (self.what, self.count, why, count))


def _ranks(size):
    return "%d rank%s" % (size, "" if size == 1 else "s")


def _stream(stream):
    return stream._check() if stream is not None else None


class Communicator:
    """A communicator over every process of the job (accel_comm_init): ranks
    from mpirun / `accel launch` or from RANK/WORLD_SIZE, on the engine the
    accelerator's communication backend name stands for (MPI on cpu)."""

    def __init__(self, acc=None, engine=None, device=None, use_local_rank=False, timeout=None,
                 _handle=None):
        self._acc = acc if acc is not None else get_accelerator()
        self._handle = None
        if _handle is not None:
            self._handle = _handle
            return
        options = CommOptions(struct_size=ctypes.sizeof(CommOptions),
                              engine=engine.encode() if engine else None,
                              device=-1 if device is None else _lib.int_arg(device, "device"),
                              use_local_rank=bool(use_local_rank),
                              timeout_s=0.0 if timeout is None else float(timeout))
        out = c_void_p()
        lib.accel_comm_init(self._acc._handle, ctypes.byref(options), ctypes.byref(out))
        self._handle = out.value

    def _check(self):
        if self._handle is None:
            raise ValueError("accel: this communicator was destroyed")
        return self._handle

    def _int(self, fn):
        out = c_int()
        fn(self._check(), ctypes.byref(out))
        return out.value

    @property
    def rank(self):
        return self._int(lib.accel_comm_rank)

    @property
    def size(self):
        return self._int(lib.accel_comm_size)

    @property
    def device(self):
        return self._int(lib.accel_comm_device)

    @property
    def engine(self):
        out = c_char_p()
        lib.accel_comm_engine_name(self._check(), ctypes.byref(out))
        return out.value.decode()

    # ---- collectives: each returns the buffer holding its result
    def all_reduce(self, tensor, op="sum", out=None, stream=None):
        """out[i] = op over ranks of tensor[i]; in place when out is None."""
        send = _Buffer(tensor, "input", out is None)
        recv = send if out is None else _Buffer(out, "output", True)
        send.same_dtype(recv)
        recv.expect(send.count, "all_reduce of the input")
        lib.accel_all_reduce(self._check(), send.ptr, recv.ptr, send.count, send.code, _op(op),
                             _stream(stream))
        return tensor if out is None else out

    def all_gather(self, tensor, out, stream=None):
        """out = every rank's tensor, in rank order (out holds size x tensor)."""
        send, recv = _Buffer(tensor, "input", False), _Buffer(out, "output", True)
        send.same_dtype(recv)
        recv.expect(send.count * self.size, "all_gather over %s" % _ranks(self.size))
        lib.accel_all_gather(self._check(), send.ptr, recv.ptr, send.count, send.code,
                             _stream(stream))
        return out

    def reduce_scatter(self, tensor, out, op="sum", stream=None):
        """tensor holds size blocks of out's length; rank r's out is op over
        ranks of block r."""
        send, recv = _Buffer(tensor, "input", False), _Buffer(out, "output", True)
        send.same_dtype(recv)
        send.expect(recv.count * self.size, "reduce_scatter over %s" % _ranks(self.size))
        lib.accel_reduce_scatter(self._check(), send.ptr, recv.ptr, recv.count, send.code,
                                 _op(op), _stream(stream))
        return out

    def broadcast(self, tensor, root=0, out=None, stream=None):
        """The root's tensor onto every rank (into out, else in place)."""
        send = _Buffer(tensor, "input", out is None)
        recv = send if out is None else _Buffer(out, "output", True)
        send.same_dtype(recv)
        recv.expect(send.count, "broadcast of the input")
        lib.accel_broadcast(self._check(), send.ptr, recv.ptr, send.count, send.code,
                            _lib.int_arg(root, "root"), _stream(stream))
        return tensor if out is None else out

    def reduce(self, tensor, root=0, op="sum", out=None, stream=None):
        """op over ranks of tensor into the root's out (in place when None);
        other ranks' out is not written."""
        send = _Buffer(tensor, "input", out is None)
        recv = send if out is None else _Buffer(out, "output", True)
        send.same_dtype(recv)
        recv.expect(send.count, "reduce of the input")
        lib.accel_reduce(self._check(), send.ptr, recv.ptr, send.count, send.code, _op(op),
                         _lib.int_arg(root, "root"), _stream(stream))
        return tensor if out is None else out

    def send(self, tensor, peer, stream=None):
        buf = _Buffer(tensor, "input", False)
        lib.accel_send(self._check(), buf.ptr, buf.count, buf.code, _lib.int_arg(peer, "peer"),
                       _stream(stream))

    def recv(self, tensor, peer, stream=None):
        buf = _Buffer(tensor, "input", True)
        lib.accel_recv(self._check(), buf.ptr, buf.count, buf.code, _lib.int_arg(peer, "peer"),
                       _stream(stream))
        return tensor

    def barrier(self, stream=None):
        lib.accel_barrier(self._check(), _stream(stream))

    def split(self, color, key=0):
        """MPI_Comm_split's rule; color SPLIT_NONE (or None) takes part and
        gets None. Collective over this communicator."""
        out = c_void_p()
        color = SPLIT_NONE if color is None else _lib.int_arg(color, "color")
        lib.accel_comm_split(self._check(), color, _lib.int_arg(key, "key"), ctypes.byref(out))
        return Communicator(self._acc, _handle=out.value) if out.value else None

    # ---- lifetime
    def destroy(self):
        if self._handle is not None:
            handle, self._handle = self._handle, None
            lib.accel_comm_destroy(handle)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.destroy()

    def __del__(self):
        try:
            self.destroy()
        except Exception:  # interpreter shutdown, or an engine failing late
            pass

    def __repr__(self):
        if self._handle is None:
            return "accel.comm.Communicator(destroyed)"
        return "accel.comm.Communicator(rank=%d, size=%d, engine=%s)" % (
            self.rank, self.size, self.engine)


def init(acc=None, engine=None, device=None, use_local_rank=False, timeout=None):
    """A Communicator over the whole job; see Communicator."""
    return Communicator(acc, engine, device, use_local_rank, timeout)
