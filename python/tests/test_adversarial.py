# test_adversarial.py: hostile input to the Python package (issue 28 G3,
# G10, G11 and their classes): DLPack lifetimes when a tensor is freed under
# a live export, every integer the package converts for C (shapes, device
# indices, priorities, steps) with values that would wrap or truncate, a
# seeded fuzz of those conversions, hostile DLPack producers, numpy() on a
# backend whose memory is not host memory, and stream callbacks making
# blocking calls. Each case is refused with a
# clear error and changes nothing (allocated bytes are compared).
import ctypes
import gc
import operator
import os
import random
import threading

import pytest

import accel
from accel import _lib
from accel.tensor import _shape_tuple

np = pytest.importorskip("numpy", minversion="1.22")


@pytest.fixture(scope="module")
def acc():
    return accel.get_accelerator()


@pytest.fixture(scope="module")
def host_acc(acc):
    if acc.dlpack_device_type() != _lib.kDLCPU:
        pytest.skip("these checks view accel memory from numpy: a host-memory backend (cpu)")
    return acc


def settled_allocated(acc):
    gc.collect()
    return acc.memory_allocated()


# ---- G3: free() under a live DLPack export

def test_free_under_live_export_keeps_the_memory(host_acc):
    acc = host_acc
    before = settled_allocated(acc)
    t = acc.zeros((1 << 20,))
    v = np.from_dlpack(t)
    t.free()
    with pytest.raises(ValueError, match="freed"):
        t.shape  # the Tensor is retired at once
    t2 = acc.zeros((1 << 20,))
    v[:] = 7  # the export's memory is still its own
    assert float(np.from_dlpack(t2).max()) == 0.0
    assert np.from_dlpack(t2).ctypes.data != v.ctypes.data
    t2.free()
    assert acc.memory_allocated() > before  # v still holds t's memory
    del v
    assert settled_allocated(acc) == before  # released by the last deleter


def test_free_waits_for_the_last_of_several_exports(host_acc):
    acc = host_acc
    before = settled_allocated(acc)
    t = acc.zeros((4096,))
    first, second = np.from_dlpack(t), np.from_dlpack(t)
    capsule = t.__dlpack__()  # unconsumed
    t.free()
    t.free()  # a second free() does nothing
    del first
    assert settled_allocated(acc) > before
    del capsule
    assert settled_allocated(acc) > before
    second[:] = 1.0
    del second
    assert settled_allocated(acc) == before


def test_export_of_a_freed_tensor_is_refused(acc):
    t = acc.zeros((8,))
    t.free()
    with pytest.raises(ValueError, match="freed"):
        t.__dlpack__()


# ---- G10: shapes and every other integer converted for C

HOSTILE_SHAPES = [
    ((2**64 + 5,), ValueError), ((2**63,), ValueError), (2**64, ValueError),
    ((-1,), ValueError), ((2, -2**63), ValueError), ((1.9,), TypeError), (1.9, TypeError),
    ((float("nan"),), TypeError), ((float("inf"),), TypeError), (("3",), TypeError),
    ("3", TypeError), (None, TypeError), ((2, 2.0), TypeError), (((2,),), TypeError),
    ((np.float64(3),), TypeError), ((2**63 - 1, 2**63 - 1), accel.AccelInvalidArgument),
    ((1,) * 33, accel.AccelInvalidArgument),
]


@pytest.mark.parametrize("make", ["empty", "zeros"])
@pytest.mark.parametrize("shape,error", HOSTILE_SHAPES)
def test_hostile_shapes_are_refused(acc, make, shape, error):
    before = settled_allocated(acc)
    with pytest.raises(error) as info:
        getattr(acc, make)(shape)
    assert "shape" in str(info.value) or "dimension" in str(info.value) \
        or "overflow" in str(info.value)
    assert settled_allocated(acc) == before


def test_integer_like_shapes_work(acc):
    t = acc.zeros((np.int64(3), np.uint8(2)))
    assert t.shape == (3, 2)
    assert acc.zeros(np.int32(4)).shape == (4,)


def test_device_and_priority_do_not_wrap(acc):
    for bad, error in ((2**32, ValueError), (2**31, ValueError), (-2**31 - 1, ValueError),
                       (1.5, TypeError), ("0", TypeError)):
        before = settled_allocated(acc)
        with pytest.raises(error, match="device index"):
            acc.empty((2,), device=bad)
        with pytest.raises(error, match="device index"):
            acc.set_device(bad)
        with pytest.raises(error, match="priority"):
            accel.Stream(priority=bad, acc=acc)
        assert settled_allocated(acc) == before
    assert acc.current_device() == 0


def test_step_does_not_wrap():
    from accel.deepspeed import cpu_adam
    cpu_adam.create_adam(77)
    w = np.zeros(4, np.float32)
    try:
        for bad, error in ((2**64, ValueError), (-1, ValueError), (1.5, TypeError)):
            with pytest.raises(error, match="step"):
                cpu_adam.adam_update(77, bad, 1e-3, 0.9, 0.999, 1e-8, 0, True, w, w.copy(),
                                     w.copy(), w.copy())
        assert not w.any()
    finally:
        cpu_adam.destroy_adam(77)


def fuzz_values(rng, count):
    """Integers near every C boundary, and things that are not integers."""
    edges = [0, 1, 2**31 - 1, 2**31, 2**32, 2**63 - 1, 2**63, 2**64 - 1, 2**64, 2**65]
    for _ in range(count):
        kind = rng.randrange(6)
        if kind == 0:
            yield rng.choice(edges) + rng.randint(-2, 2) * rng.choice((1, -1))
        elif kind == 1:
            yield rng.randint(-2**70, 2**70)
        elif kind == 2:
            yield rng.uniform(-1e20, 1e20)
        elif kind == 3:
            yield rng.choice((np.int8, np.int64, np.uint64, np.float32, np.bool_))(
                rng.randint(0, 100))
        elif kind == 4:
            yield rng.choice((None, "7", b"7", [3], 3j, object()))
        else:
            yield rng.choice((True, False))


def test_fuzz_integer_conversions():
    """Seeded fuzz of the conversion every integer for C goes through: it
    returns the exact value in range, or raises TypeError/ValueError;
    never a wrapped or truncated number."""
    rng = random.Random(28)
    ranges = {"int": (-2**31, 2**31 - 1), "int64": (-2**63, 2**63 - 1),
              "uint64": (0, 2**64 - 1)}
    cases = 0
    for value in fuzz_values(rng, 4000):
        for ctype, (low, high) in ranges.items():
            cases += 1
            try:
                exact = operator.index(value)
            except TypeError:
                with pytest.raises(TypeError):
                    _lib.int_arg(value, "x", ctype)
                continue
            if low <= exact <= high:
                assert _lib.int_arg(value, "x", ctype) == exact
            else:
                with pytest.raises(ValueError):
                    _lib.int_arg(value, "x", ctype)
    assert cases == 12000


def test_fuzz_shape_conversion():
    rng = random.Random(2028)
    for _ in range(2000):
        shape = tuple(fuzz_values(rng, rng.randrange(0, 4)))
        try:
            dims = _shape_tuple(shape)
        except (TypeError, ValueError):
            continue
        assert all(type(d) is int and 0 <= d < 2**63 for d in dims)
        assert dims == tuple(operator.index(d) for d in shape)


# ---- hostile DLPack producers

# A function object of its own (ctypes.pythonapi.PyCapsule_New is shared with
# the package, whose argtypes must stay as they are).
_capsule_new = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p,
                                 ctypes.c_void_p)(("PyCapsule_New", ctypes.pythonapi))


class HostileProducer:
    """Exports a legacy DLPack capsule over `buffer` with a DLTensor set up
    by `shape_it` (the capsule has no destructor and no deleter: its memory
    is this object's)."""

    def __init__(self, buffer, shape_it):
        self.buffer = buffer
        self.shape = (ctypes.c_int64 * 4)(buffer.size, 0, 0, 0)
        self.managed = _lib.DLManagedTensor()
        dl = self.managed.dl_tensor
        dl.data = buffer.ctypes.data
        dl.device = _lib.DLDevice(_lib.kDLCPU, 0)
        dl.ndim = 1
        dl.dtype = _lib.DLDataType(2, 32, 1)
        dl.shape = self.shape
        shape_it(dl, self)

    def __dlpack__(self, stream=None, max_version=None, **_kw):
        if max_version is not None:
            raise TypeError("legacy only")
        return _capsule_new(ctypes.addressof(self.managed), b"dltensor", None)

    def __dlpack_device__(self):
        return (_lib.kDLCPU, 0)


def _wrap(dl, _p):
    dl.byte_offset = 2**64 - 4


def _last_byte(dl, _p):
    dl.byte_offset = 2**64 - dl.data - 1


def _ndim_huge(dl, _p):
    dl.ndim = 1 << 30


def _ndim_negative(dl, _p):
    dl.ndim = -1


def _no_shape(dl, _p):
    dl.shape = None


def _negative_extent(dl, p):
    p.shape[0] = -5


def _bits_zero(dl, _p):
    dl.dtype = _lib.DLDataType(2, 0, 1)


HOSTILE_PRODUCERS = [("byte_offset wraps", _wrap), ("offset to the last byte", _last_byte),
                     ("ndim 2**30", _ndim_huge), ("ndim -1", _ndim_negative),
                     ("shape NULL", _no_shape), ("negative extent", _negative_extent),
                     ("0-bit elements", _bits_zero)]


@pytest.mark.parametrize("name,shape_it", HOSTILE_PRODUCERS)
def test_hostile_producers_are_refused(host_acc, name, shape_it):
    acc = host_acc
    from accel.deepspeed import cpu_adam
    buffer = np.zeros(64, np.float32)
    guard = np.zeros(4096, np.float32)
    calls = {
        "copy": lambda p: acc.copy(p),
        "uniform_": lambda p: acc.uniform_(accel.from_dlpack(p)),
        "is_pinned": lambda p: acc.is_pinned(p),
        "adam_update": lambda p: cpu_adam.adam_update(
            78, 1, 1e-3, 0.9, 0.999, 1e-8, 0, True, p, np.zeros(64, np.float32),
            np.zeros(64, np.float32), np.zeros(64, np.float32)),
    }
    cpu_adam.create_adam(78)
    try:
        for call, run in calls.items():
            before = settled_allocated(acc)
            with pytest.raises((ValueError, TypeError, accel.AccelInvalidArgument)) as info:
                run(HostileProducer(buffer, shape_it))
            assert str(info.value), (name, call)
            assert not buffer.any() and not guard.any(), (name, call)
            assert settled_allocated(acc) == before, (name, call)
    finally:
        cpu_adam.destroy_adam(78)


# ---- G11: numpy() on a backend whose memory is not host memory

def _opencl():
    try:
        return accel.open("opencl")
    except accel.AccelError as exc:
        pytest.skip("opencl does not open here: %s" % exc)


def test_numpy_on_device_memory_raises_and_releases():
    ocl = _opencl()
    before = settled_allocated(ocl)
    t = ocl.zeros((1024,))
    with pytest.raises(BufferError, match="host memory"):
        t.numpy()
    # numpy's own refusal reaches the caller (it used to be lost in the
    # capsule destructor: SystemError) and the capsule it dropped is released
    with pytest.raises(RuntimeError, match="[Uu]nsupported device"):
        np.from_dlpack(t)
    t.free()
    assert settled_allocated(ocl) == before


def test_numpy_on_device_memory_from_threads():
    ocl = _opencl()
    before = settled_allocated(ocl)
    errors = []

    def worker():
        for _ in range(20):
            t = ocl.zeros((256,))
            try:
                np.from_dlpack(t)
            except RuntimeError as exc:
                errors.append(type(exc))
            t.free()

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert errors == [RuntimeError] * 80
    assert settled_allocated(ocl) == before


# ---- a stream callback (Stream.add_callback) making a blocking call
#
# Work queued after a callback waits for it, so a blocking call from the
# callback on what it runs on would wait for itself: each must raise
# AccelError with the library's sentence, never hang (copy(), which waits
# for its own copy only, may work instead). The callback waits
# for `queued` before its call, so the event is recorded behind it first.
# A call that does not return in CALLBACK_TIMEOUT_S ends the process (the
# stream is stuck for good, pytest could not go on).
CALLBACK_TIMEOUT_S = 20

CALLBACK_CALLS = {
    "synchronize": lambda acc, s, e, t: acc.synchronize(),
    "stream.synchronize": lambda acc, s, e, t: s.synchronize(),
    "event.synchronize": lambda acc, s, e, t: e.synchronize(),
    "empty_cache": lambda acc, s, e, t: acc.empty_cache(),
    "copy": lambda acc, s, e, t: acc.copy(np.zeros(16, dtype=np.float32)),
}


@pytest.mark.parametrize("name", sorted(CALLBACK_CALLS))
def test_callback_blocking_calls_are_refused(acc, name):
    s, e = acc.Stream(), acc.Event()
    t = acc.zeros((16,))
    queued, done, outcome = threading.Event(), threading.Event(), []

    def callback():
        queued.wait()
        try:
            outcome.append(CALLBACK_CALLS[name](acc, s, e, t))
        except accel.AccelError as exc:
            outcome.append(exc)
        finally:
            done.set()

    s.add_callback(callback)
    e.record(s)
    queued.set()
    if not done.wait(CALLBACK_TIMEOUT_S):
        print(f"FAILED: {name} from a stream callback did not return: it waits for itself",
              flush=True)
        os._exit(1)
    s.synchronize()  # the stream goes on
    t.free()
    (exc,) = outcome
    if name == "copy" and not isinstance(exc, accel.AccelError):
        assert exc.shape == (16,)  # it worked: a tensor of the copy
        exc.free()
        return
    assert isinstance(exc, accel.AccelError), f"{name} from a callback was not refused"
    assert exc.status == "ACCEL_ERROR_INVALID_ARGUMENT", (exc.status, str(exc))
    assert "host callback" in str(exc)
