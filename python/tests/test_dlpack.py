# test_dlpack.py: accel.Tensor through DLPack both ways with numpy (and torch
# when it is installed): zero-copy where the memory is shared, lifetimes
# (memory outlives its last consumer), and bad input refused with a clear
# error.
import ctypes
import gc

import pytest

import accel

np = pytest.importorskip("numpy", minversion="1.22")


@pytest.fixture(scope="module")
def acc():
    a = accel.get_accelerator()
    if a.dlpack_device_type() != 1:
        pytest.skip("these checks need a backend whose memory is host memory (cpu)")
    return a


def test_empty_zeros_describe(acc):
    t = acc.empty((2, 3), "float16")
    assert t.shape == (2, 3) and t.dtype == "float16" and t.ndim == 2
    assert t.numel() == 6 and t.nbytes == 12 and t.is_contiguous()
    assert t.device == (1, 0) and t.__dlpack_device__() == (1, 0)
    z = acc.zeros(5, np.dtype("int64"))
    assert z.dtype == "int64" and z.shape == (5,)
    assert np.from_dlpack(z).tolist() == [0] * 5
    assert acc.zeros((), "float32").shape == ()


def test_accel_to_numpy_is_zero_copy(acc):
    t = acc.zeros((4, 4), "float32")
    a = np.from_dlpack(t)
    assert a.shape == (4, 4) and a.dtype == np.float32
    assert a.ctypes.data == t.data_ptr()
    a[1, 2] = 7.5
    b = t.numpy()
    assert b[1, 2] == 7.5


def test_numpy_keeps_memory_alive(acc):
    gc.collect()
    before = acc.memory_allocated()
    t = acc.zeros((1024,), "float32")
    a = np.from_dlpack(t)
    del t
    gc.collect()
    assert acc.memory_allocated() > before  # the array still holds the tensor
    a[:] = 3.0
    assert float(a.sum()) == 3.0 * 1024
    del a
    gc.collect()
    assert acc.memory_allocated() == before


def test_unconsumed_capsule_releases(acc):
    gc.collect()
    before = acc.memory_allocated()
    t = acc.zeros((256,), "float32")
    capsule = t.__dlpack__()
    del t
    gc.collect()
    assert acc.memory_allocated() > before
    del capsule
    gc.collect()
    assert acc.memory_allocated() == before


def test_numpy_to_accel_is_zero_copy(acc):
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    t = accel.from_dlpack(a)
    assert t.is_borrowed and t.data_ptr() == a.ctypes.data
    assert t.shape == (3, 4) and t.dtype == "float32"
    a[0, 0] = 42
    assert np.from_dlpack(t)[0, 0] == 42
    # round trip back to numpy: still the same memory
    assert np.from_dlpack(t).ctypes.data == a.ctypes.data


def test_legacy_and_versioned_capsules(acc):
    t = acc.zeros((3,), "float32")
    legacy, versioned = t.__dlpack__(), t.__dlpack__(max_version=(1, 0))
    assert "dltensor" in repr(legacy) and "dltensor_versioned" in repr(versioned)
    ro = np.arange(3, dtype=np.float32)
    ro.flags.writeable = False
    borrowed = accel.from_dlpack(ro)
    assert borrowed.readonly
    with pytest.raises(BufferError, match="read-only"):
        borrowed.__dlpack__()
    assert not np.from_dlpack(borrowed).flags.writeable
    from accel.deepspeed import cpu_adam
    cpu_adam.create_adam(9)
    w = np.zeros(3, np.float32)
    with pytest.raises(ValueError, match="read-only"):
        cpu_adam.adam_update(9, 1, 1e-3, 0.9, 0.999, 1e-8, 0, True, ro, w, w.copy(), w.copy())
    cpu_adam.destroy_adam(9)


def test_dtypes_round_trip(acc):
    for dtype in ("float32", "float64", "float16", "uint8", "int32", "int64"):
        a = (np.arange(10) % 7).astype(dtype)
        t = acc.copy(a)
        assert t.dtype == dtype and not t.is_borrowed
        assert t.data_ptr() != a.ctypes.data
        assert np.array_equal(np.from_dlpack(t), a)


def test_copy_is_independent(acc):
    a = np.ones(8, dtype=np.float32)
    t = acc.copy(a)
    a[:] = 5
    assert np.from_dlpack(t).tolist() == [1.0] * 8


def test_strided_input(acc):
    a = np.arange(16, dtype=np.float32).reshape(4, 4)[:, ::2]
    t = accel.from_dlpack(a)
    assert not t.is_contiguous()
    assert t.strides == (4, 2)
    with pytest.raises(ValueError, match="contiguous"):
        acc.copy(a)


def test_bad_inputs(acc):
    with pytest.raises(TypeError, match="not a DLPack producer"):
        accel.from_dlpack([1, 2, 3])
    with pytest.raises(ValueError, match="dtype"):
        acc.empty((2,), "complex64")
    with pytest.raises(ValueError, match="negative"):
        acc.empty((2, -1))
    with pytest.raises(TypeError, match="shape"):
        acc.empty(2.5)
    with pytest.raises(ValueError, match="dtype"):  # complex: no accel dtype
        acc.copy(np.zeros(3, dtype=np.complex64))
    t = acc.empty((3,))
    t.free()
    with pytest.raises(ValueError, match="freed"):
        t.shape
    with pytest.raises(ValueError, match="freed"):
        np.from_dlpack(t)


def test_rng_refuses_borrowed_memory(acc):
    a = np.zeros(16, dtype=np.float32)
    t = accel.from_dlpack(a)
    with pytest.raises(ValueError) as info:
        acc.uniform_(t)
    assert "allocation" in str(info.value)
    assert not a.any()  # nothing written


def test_on_accelerator_and_pinned(acc):
    t = acc.zeros((4,))
    assert acc.on_accelerator(t)
    assert acc.on_accelerator(np.zeros(3))  # cpu backend: host memory is its memory
    assert acc.is_pinned(np.zeros(3)) is False


def test_torch_round_trip(acc):
    torch = pytest.importorskip("torch")
    t = acc.zeros((3, 2), "bfloat16")
    x = torch.from_dlpack(t)
    assert x.dtype == torch.bfloat16 and x.shape == (3, 2)
    assert x.data_ptr() == t.data_ptr()
    x.fill_(1.5)
    y = torch.arange(6, dtype=torch.float16)
    u = accel.from_dlpack(y)
    assert u.dtype == "float16" and u.data_ptr() == y.data_ptr()
    back = torch.from_dlpack(acc.copy(y))
    assert torch.equal(back, y)
    assert ctypes.c_uint16.from_address(t.data_ptr()).value == 0x3FC0  # bf16 1.5
