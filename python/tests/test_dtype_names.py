# test_dtype_names.py: numpy scalar types are dtypes (np.float16 as
# "float16"), refusals name the dtype as the caller wrote it, and from_dlpack
# borrows element types accel does not store (int8, bool, complex64) under
# their names, while accel's own allocations and ops refuse them with a
# sentence (docs/python.md, "Tensors and DLPack").
import numpy as np
import pytest

import accel


@pytest.mark.parametrize("scalar", [np.float32, np.float16, np.float64, np.uint8, np.int32,
                                    np.int64])
def test_numpy_scalar_types_are_dtypes(scalar):
    t = accel.get_accelerator().zeros((3,), scalar)
    assert t.dtype == np.dtype(scalar).name
    assert t.numpy().dtype == np.dtype(scalar)


@pytest.mark.parametrize("scalar", [np.bool_, np.int8, np.complex64])
def test_unstored_numpy_scalar_types_are_refused_by_name(scalar):
    with pytest.raises(ValueError) as info:
        accel.get_accelerator().zeros((3,), scalar)
    text = str(info.value)
    assert "numpy.%s" % scalar.__name__ in text and "<class" not in text
    assert "float16" in text  # the list of what accel stores


@pytest.mark.parametrize("array, name", [
    (np.arange(-3, 3, dtype=np.int8), "int8"),
    (np.array([True, False, True]), "bool"),
    (np.array([1 + 2j, -3j], dtype=np.complex64), "complex64"),
])
def test_from_dlpack_borrows_unstored_dtypes_by_name(array, name):
    acc = accel.get_accelerator()
    t = accel.from_dlpack(array)
    assert t.dtype == name and t.is_borrowed
    assert t.data_ptr() == array.ctypes.data
    view = t.numpy()
    assert view.dtype == array.dtype and np.array_equal(view, array)
    with pytest.raises(ValueError, match="not one accel stores"):
        acc.copy(array)  # accel's own memory holds its seven dtypes only
    with pytest.raises(TypeError, match="float32"):
        acc.uniform_(t)
