# _lib.py: loads libaccel.so with ctypes and declares the C functions the
# package calls (include/accel/accel.h and accel_ops.h are the contract).
# The library is the one shipped inside the package (accel/lib/), unless
# ACCEL_LIBRARY names another file (a build tree, a sanitizer build).
import ctypes
import glob
import operator
import os

from ._errors import raise_for_status

c_int, c_int32, c_int64, c_uint64, c_size_t = (ctypes.c_int, ctypes.c_int32, ctypes.c_int64,
                                               ctypes.c_uint64, ctypes.c_size_t)
c_bool, c_float, c_char_p, c_void_p = ctypes.c_bool, ctypes.c_float, ctypes.c_char_p, ctypes.c_void_p
c_double = ctypes.c_double
P = ctypes.POINTER


# ---- Python values into C integers
# ctypes converts an int that does not fit its C type by dropping the high
# bits (device 2**32 became device 0) and a float by truncating it (device
# 1.5 became 1): every integer the package hands to C goes through int_arg.
_C_RANGES = {
    "int": (-2**31, 2**31 - 1),
    "int64": (-2**63, 2**63 - 1),
    "uint64": (0, 2**64 - 1),
}


def int_arg(value, what, ctype="int", low=None):
    """`value` as a Python int the C type `ctype` ("int", "int64",
    "uint64") holds exactly, at least `low` when given: integers only
    (numpy and torch integers too, through __index__); a float, a string or
    None raises TypeError, a value out of range ValueError, both naming
    `what`."""
    try:
        number = operator.index(value)
    except TypeError:
        raise TypeError("accel: %s must be an integer, not %r (%s)"
                        % (what, value, type(value).__name__)) from None
    lowest, highest = _C_RANGES[ctype]
    if low is not None:
        lowest = max(lowest, low)
    if not lowest <= number <= highest:
        raise ValueError("accel: %s %d is out of range (%d to %d)" % (what, number, lowest,
                                                                       highest))
    return number


# ---- DLPack structs (dlpack.h, ABI of DLPack 0.x "dltensor" capsules)
class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", c_int32), ("device_id", c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", c_void_p), ("device", DLDevice), ("ndim", c_int32),
                ("dtype", DLDataType), ("shape", P(c_int64)), ("strides", P(c_int64)),
                ("byte_offset", c_uint64)]


class DLManagedTensor(ctypes.Structure):
    pass


DLDeleter = ctypes.CFUNCTYPE(None, P(DLManagedTensor))
DLManagedTensor._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", c_void_p),
                            ("deleter", DLDeleter)]

class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    pass


DLVersionedDeleter = ctypes.CFUNCTYPE(None, P(DLManagedTensorVersioned))
DLManagedTensorVersioned._fields_ = [("version", DLPackVersion), ("manager_ctx", c_void_p),
                                     ("deleter", DLVersionedDeleter),
                                     ("flags", ctypes.c_uint64), ("dl_tensor", DLTensor)]
DLPACK_FLAG_READ_ONLY = 1

kDLCPU, kDLCUDA, kDLCUDAHost, kDLOpenCL = 1, 2, 3, 4


# ---- accel structs
class MemoryStats(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t)] + [(n, c_uint64) for n in (
        "allocated_bytes", "allocated_bytes_peak", "reserved_bytes", "reserved_bytes_peak",
        "requested_bytes", "requested_bytes_peak", "allocation_count", "allocation_count_peak",
        "segment_count", "segment_count_peak", "alloc_retries", "ooms")]


class DeviceProperties(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("name", ctypes.c_char * 256),
                ("vendor", ctypes.c_char * 64), ("total_memory", c_uint64),
                ("compute_major", c_int), ("compute_minor", c_int),
                ("multiprocessor_count", c_int), ("pci_bus_id", ctypes.c_char * 32),
                ("uuid", ctypes.c_char * 64), ("driver_version", ctypes.c_char * 64)]


class AdamConfig(ctypes.Structure):
    _fields_ = [("lr", c_float), ("beta1", c_float), ("beta2", c_float), ("eps", c_float),
                ("weight_decay", c_float), ("bias_correction", c_bool), ("adamw_mode", c_bool)]


class AdagradConfig(ctypes.Structure):
    _fields_ = [("lr", c_float), ("eps", c_float), ("weight_decay", c_float)]


class LionConfig(ctypes.Structure):
    _fields_ = [("lr", c_float), ("beta1", c_float), ("beta2", c_float),
                ("weight_decay", c_float)]


_T = P(DLTensor)
AdamStep = ctypes.CFUNCTYPE(c_int, c_void_p, c_void_p, P(AdamConfig), c_uint64, _T, _T, _T, _T)
AdagradStep = ctypes.CFUNCTYPE(c_int, c_void_p, c_void_p, P(AdagradConfig), _T, _T, _T)
LionStep = ctypes.CFUNCTYPE(c_int, c_void_p, c_void_p, P(LionConfig), _T, _T, _T)


class OffloadConfig(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("loss_scale", c_float), ("clip_grad", c_float)]


class OffloadEntry(ctypes.Structure):
    _fields_ = [("param", _T), ("grad", _T), ("exp_avg", _T), ("exp_avg_sq", _T),
                ("lp_param", _T), ("adam", P(AdamConfig)), ("step", c_uint64)]


class OffloadResult(ctypes.Structure):
    _fields_ = [("overflow", c_bool), ("grad_norm", c_float), ("combined_scale", c_float)]


AdamStepMulti = ctypes.CFUNCTYPE(c_int, c_void_p, c_void_p, P(AdamConfig), c_uint64, c_size_t,
                                 c_void_p, c_void_p, c_void_p, c_void_p)
OffloadStep = ctypes.CFUNCTYPE(c_int, c_void_p, c_void_p, P(OffloadConfig), c_size_t,
                               P(OffloadEntry), P(OffloadResult))


class AdamOp(ctypes.Structure):
    # step_multi and offload_step were appended: read them only when
    # struct_size covers them (has_member)
    _fields_ = [("struct_size", c_size_t), ("implementation", c_char_p), ("step", AdamStep),
                ("step_multi", AdamStepMulti), ("offload_step", OffloadStep)]

    def has_member(self, name):
        field = getattr(type(self), name)
        return self.struct_size >= field.offset + field.size


class AdagradOp(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("implementation", c_char_p), ("step", AdagradStep)]


class LionOp(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("implementation", c_char_p), ("step", LionStep)]


HostFn = ctypes.CFUNCTYPE(None, c_void_p)
LazyFn = ctypes.CFUNCTYPE(None, c_void_p, c_void_p)
EnvSetter = ctypes.CFUNCTYPE(c_int, c_void_p, c_char_p, c_char_p)


def _find_library():
    override = os.environ.get("ACCEL_LIBRARY", "")
    if override:
        return override
    here = os.path.dirname(os.path.abspath(__file__))
    for pattern in ("lib/libaccel.so", "lib64/libaccel.so", "lib/libaccel.so.*",
                    "lib64/libaccel.so.*"):
        found = sorted(glob.glob(os.path.join(here, pattern)))
        if found:
            return found[0]
    import ctypes.util
    name = ctypes.util.find_library("accel")
    if name:
        return name
    raise ImportError("accel: libaccel.so is not inside the package (" + here + "/lib) and "
                      "not on the loader path; reinstall with `pip install .` from the "
                      "repository, or set ACCEL_LIBRARY to the library's path")


path = _find_library()
lib = ctypes.CDLL(path)

# name: (restype, argtypes). Functions returning accel_status_t get a checker
# that raises the matching exception with accel_last_error()'s sentence.
_STATUS = object()
_SIGNATURES = {
    "accel_version": (c_char_p, []),
    "accel_status_name": (c_char_p, [c_int]),
    "accel_last_error": (c_char_p, []),
    "accel_get": (_STATUS, [P(c_void_p)]),
    "accel_open": (_STATUS, [c_char_p, P(c_void_p)]),
    "accel_close": (_STATUS, [c_void_p]),
    "accel_selection_method": (c_char_p, [c_void_p]),
    "accel_supported_names": (c_char_p, []),
    "accel_is_current_accelerator_supported": (_STATUS, [P(c_bool)]),
    "accel_name": (c_char_p, [c_void_p]),
    "accel_device_name": (_STATUS, [c_void_p, c_int, ctypes.c_char_p, c_size_t]),
    "accel_current_device_name": (_STATUS, [c_void_p, ctypes.c_char_p, c_size_t]),
    "accel_flag_name": (c_char_p, [c_int]),
    "accel_query_flag": (_STATUS, [c_void_p, c_int, P(c_bool)]),
    "accel_communication_backend_name": (_STATUS, [c_void_p, P(c_char_p)]),
    "accel_communication_backend_version": (_STATUS, [c_void_p, ctypes.c_char_p, c_size_t]),
    "accel_get_compile_backend": (_STATUS, [c_void_p, P(c_char_p)]),
    "accel_set_compile_backend": (_STATUS, [c_void_p, c_char_p]),
    "accel_device_count": (_STATUS, [c_void_p, P(c_int)]),
    "accel_set_device": (_STATUS, [c_void_p, c_int]),
    "accel_current_device": (_STATUS, [c_void_p, P(c_int)]),
    "accel_synchronize": (_STATUS, [c_void_p, c_int]),
    "accel_device_properties": (_STATUS, [c_void_p, c_int, P(DeviceProperties)]),
    "accel_manual_seed": (_STATUS, [c_void_p, c_uint64]),
    "accel_manual_seed_all": (_STATUS, [c_void_p, c_uint64]),
    "accel_seed": (_STATUS, [c_void_p, P(c_uint64)]),
    "accel_initial_seed": (_STATUS, [c_void_p, P(c_uint64)]),
    "accel_get_rng_state": (_STATUS, [c_void_p, c_int, c_void_p, c_size_t]),
    "accel_set_rng_state": (_STATUS, [c_void_p, c_int, c_void_p, c_size_t]),
    "accel_rng_uniform_f32": (_STATUS, [c_void_p, c_void_p, c_size_t, c_void_p]),
    "accel_rng_normal_f32": (_STATUS, [c_void_p, c_void_p, c_size_t, c_void_p]),
    "accel_stream_create": (_STATUS, [c_void_p, c_int, c_int, P(c_void_p)]),
    "accel_stream_destroy": (_STATUS, [c_void_p]),
    "accel_stream_synchronize": (_STATUS, [c_void_p]),
    "accel_stream_query": (c_int, [c_void_p]),
    "accel_stream_wait_event": (_STATUS, [c_void_p, c_void_p]),
    "accel_stream_add_callback": (_STATUS, [c_void_p, HostFn, c_void_p]),
    "accel_default_stream": (_STATUS, [c_void_p, c_int, P(c_void_p)]),
    "accel_current_stream": (_STATUS, [c_void_p, c_int, P(c_void_p)]),
    "accel_set_current_stream": (_STATUS, [c_void_p, c_void_p]),
    "accel_stream_device": (_STATUS, [c_void_p, P(c_int)]),
    "accel_event_create": (_STATUS, [c_void_p, c_int, ctypes.c_uint, P(c_void_p)]),
    "accel_event_destroy": (_STATUS, [c_void_p]),
    "accel_event_record": (_STATUS, [c_void_p, c_void_p]),
    "accel_event_synchronize": (_STATUS, [c_void_p]),
    "accel_event_query": (c_int, [c_void_p]),
    "accel_event_elapsed_ms": (_STATUS, [c_void_p, c_void_p, P(c_float)]),
    "accel_memcpy": (_STATUS, [c_void_p, c_void_p, c_void_p, c_size_t, c_int]),
    "accel_is_pinned": (_STATUS, [c_void_p, c_void_p, P(c_bool)]),
    "accel_memory_allocated": (_STATUS, [c_void_p, c_int, P(c_uint64)]),
    "accel_max_memory_allocated": (_STATUS, [c_void_p, c_int, P(c_uint64)]),
    "accel_reset_max_memory_allocated": (_STATUS, [c_void_p, c_int]),
    "accel_memory_reserved": (_STATUS, [c_void_p, c_int, P(c_uint64)]),
    "accel_max_memory_reserved": (_STATUS, [c_void_p, c_int, P(c_uint64)]),
    "accel_reset_max_memory_reserved": (_STATUS, [c_void_p, c_int]),
    "accel_reset_peak_memory_stats": (_STATUS, [c_void_p, c_int]),
    "accel_memory_stats": (_STATUS, [c_void_p, c_int, P(MemoryStats)]),
    "accel_memory_stats_entry": (c_int, [c_void_p, c_int, c_size_t, P(c_char_p), P(c_uint64)]),
    "accel_empty_cache": (_STATUS, [c_void_p]),
    "accel_total_memory": (_STATUS, [c_void_p, c_int, P(c_uint64)]),
    "accel_available_memory": (_STATUS, [c_void_p, c_int, P(c_uint64)]),
    "accel_dtype_name": (c_char_p, [c_int]),
    "accel_supported_dtypes": (_STATUS, [c_void_p, P(c_int), c_size_t, P(c_size_t)]),
    "accel_dlpack_device_type": (_STATUS, [c_void_p, P(c_int32)]),
    "accel_tensor_empty": (_STATUS, [c_void_p, c_int, c_int, c_int32, P(c_int64), P(DLTensor)]),
    "accel_tensor_zeros": (_STATUS, [c_void_p, c_int, c_int, c_int32, P(c_int64), P(DLTensor)]),
    "accel_tensor_from_host": (_STATUS, [c_void_p, c_int, c_int, c_int32, P(c_int64), c_void_p,
                                         P(DLTensor)]),
    "accel_tensor_free": (_STATUS, [c_void_p, P(DLTensor)]),
    "accel_on_accelerator": (_STATUS, [c_void_p, P(DLTensor), P(c_bool)]),
    "accel_graph_create": (_STATUS, [c_void_p, P(c_void_p)]),
    "accel_graph_capture_begin": (_STATUS, [c_void_p, c_void_p]),
    "accel_graph_capture_end": (_STATUS, [c_void_p, c_void_p]),
    "accel_graph_replay": (_STATUS, [c_void_p, c_void_p]),
    "accel_graph_destroy": (_STATUS, [c_void_p]),
    "accel_range_push": (_STATUS, [c_void_p, c_char_p, c_char_p, c_char_p]),
    "accel_range_pop": (_STATUS, [c_void_p, c_char_p]),
    "accel_lazy_call": (_STATUS, [c_void_p, LazyFn, c_void_p]),
    "accel_is_initialized": (_STATUS, [c_void_p, P(c_bool)]),
    "accel_get_op_builder": (_STATUS, [c_void_p, c_char_p, P(c_void_p)]),
    "accel_op_builder_count": (_STATUS, [c_void_p, P(c_size_t)]),
    "accel_op_builder_at": (_STATUS, [c_void_p, c_size_t, P(c_void_p)]),
    "accel_op_builder_class_name": (c_char_p, [c_void_p]),
    "accel_op_builder_op_name": (c_char_p, [c_void_p]),
    "accel_op_builder_is_compatible": (_STATUS, [c_void_p, P(c_bool), ctypes.c_char_p, c_size_t]),
    "accel_op_builder_is_installed": (_STATUS, [c_void_p, P(c_bool)]),
    "accel_op_builder_implementation": (_STATUS, [c_void_p, ctypes.c_char_p, c_size_t]),
    "accel_op_builder_load": (_STATUS, [c_void_p, P(c_void_p)]),
    "accel_visible_devices_envs": (_STATUS, [c_void_p, P(P(c_char_p)), P(c_size_t)]),
    "accel_export_envs": (_STATUS, [c_void_p, P(P(c_char_p)), P(c_size_t)]),
    "accel_set_visible_devices_envs": (_STATUS, [c_void_p, P(c_int), c_size_t, EnvSetter,
                                                 c_void_p]),
}


def _last_error():
    text = lib.accel_last_error()
    return text.decode("utf-8", "replace") if text else ""


def _status_name(status):
    name = lib.accel_status_name(status)
    return name.decode() if name else str(status)


def _checker(result, func, args):
    if result != 0:
        raise_for_status(result, _status_name(result), _last_error(),
                         getattr(func, "__name__", "an op step"))
    return result


STATUS = _STATUS  # for modules declaring their own functions (comm.py)


def declare(signatures):
    """Give each C function in `signatures` (name: (restype, argtypes)) its
    types; accel_status_t results raise through _checker."""
    for name, (res, args) in signatures.items():
        fn = getattr(lib, name)
        fn.argtypes = args
        if res is _STATUS:
            fn.restype = c_int
            fn.errcheck = _checker
        else:
            fn.restype = res


declare(_SIGNATURES)


def last_error():
    """The calling thread's accel_last_error() sentence."""
    return _last_error()


def status_name(status):
    return _status_name(status)
