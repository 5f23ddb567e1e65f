# accelerator.py: accel.Accelerator, DeepSpeed's accelerator object
# (deepspeed.accelerator.get_accelerator()) over libaccel, with DeepSpeed's
# method names and return conventions where they make sense without torch.
# docs/python.md lists where it differs (torch objects become accel ones).
#
# Threads: as in C, the current device and current stream are per thread;
# the object itself may be shared between threads.
import contextlib
import ctypes
import threading

from . import _lib
from ._errors import AccelError
from ._lib import c_bool, c_char_p, c_float, c_int, c_size_t, c_uint64, c_void_p, lib
from ._torch_methods import TorchAcceleratorMethods
from .graphs import Graph
from .tensor import DTYPES, Tensor, _shape_tuple, dtype_name, import_dlpack

_CURRENT = -1
_EVENT_TIMING = 1
_FLAGS = {
    "is_available": 0, "is_synchronized_device": 1, "use_host_timers": 2,
    "resolves_data_dependency": 3, "handles_memory_backpressure": 4, "is_triton_supported": 5,
    "is_nvtx_domain_supported": 6, "prefer_triton_grouped_mm": 7, "is_bf16_supported": 8,
    "is_fp16_supported": 9, "is_graphs_supported": 10, "is_streams_supported": 11,
    "is_events_supported": 12, "is_pinned_memory_supported": 13,
    "is_host_register_supported": 14, "is_host_callbacks_supported": 15,
}


# Exceptions raised by add_callback functions, by stream handle, oldest
# first, until a synchronize() or query() of that stream raises them (each
# once). Written on the library's callback thread: guarded by the lock.
_callback_errors = {}
_callback_errors_lock = threading.Lock()


def _raise_callback_error(handle):
    with _callback_errors_lock:
        pending = _callback_errors.get(handle)
        if not pending:
            return
        exc = pending.pop(0)
        if not pending:
            del _callback_errors[handle]
    raise exc


def _dev(device_index):
    return _CURRENT if device_index is None else _lib.int_arg(device_index, "device index")


def _text(fn, *args, cap=512):
    buf = ctypes.create_string_buffer(cap)
    fn(*args, buf, cap)
    return buf.value.decode()


class Stream:
    """A device stream (torch.cuda.Stream's role). Destroyed by .destroy() or
    when collected; the default stream is never destroyed."""

    def __init__(self, device=None, priority=0, acc=None):
        self._acc = acc or get_accelerator()
        handle = c_void_p()
        lib.accel_stream_create(self._acc._handle, _dev(device),
                                _lib.int_arg(priority, "stream priority"),
                                ctypes.byref(handle))
        self._handle, self._owned = handle.value, True

    @classmethod
    def _wrap(cls, acc, handle):
        self = object.__new__(cls)
        self._acc, self._handle, self._owned = acc, handle, False
        return self

    def _check(self):
        if self._handle is None:
            raise ValueError("accel: this stream was destroyed")
        return self._handle

    def synchronize(self):
        """Wait for the queued work; then raise the oldest exception an
        add_callback function of this stream raised and nobody saw yet."""
        lib.accel_stream_synchronize(self._check())
        _raise_callback_error(self._handle)

    def query(self):
        """True when all queued work has finished (raising, as synchronize()
        does, an exception from an add_callback function first)."""
        status = lib.accel_stream_query(self._check())
        _raise_callback_error(self._handle)
        if status in (0, 6):
            return status == 0
        _lib._checker(status, lib.accel_stream_query, ())

    def wait_event(self, event):
        lib.accel_stream_wait_event(self._check(), event._check())

    def record_event(self, event=None):
        event = event or Event(acc=self._acc, device=self.device)
        event.record(self)
        return event

    def wait_stream(self, stream):
        """Work queued here after this call waits for the work queued on
        `stream` before it."""
        self.wait_event(stream.record_event())

    def add_callback(self, fn):
        """Run fn() on a library thread once the work queued before it has
        finished. fn must not call accel on this stream. An exception fn
        raises is kept and raised by the next synchronize() or query() of
        this stream (each such exception once, oldest first)."""
        acc = self._acc
        acc._release_finished_callbacks()
        handle = self._check()

        def trampoline(_user):
            try:
                fn()
            except BaseException as exc:  # noqa: B036 - the stream's owner gets it
                with _callback_errors_lock:
                    _callback_errors.setdefault(handle, []).append(exc)
            finally:
                # not released here: ctypes still runs this thunk's code
                acc._finished_callbacks.append(key)

        callback = _lib.HostFn(trampoline)
        key = id(callback)
        acc._callbacks[key] = callback
        try:
            lib.accel_stream_add_callback(self._check(), callback, None)
        except AccelError:
            del acc._callbacks[key]
            raise

    @property
    def device(self):
        out = c_int()
        lib.accel_stream_device(self._check(), ctypes.byref(out))
        return out.value

    def destroy(self):
        if self._handle is not None and self._owned:
            lib.accel_stream_destroy(self._handle)
            with _callback_errors_lock:  # the handle may be reused
                _callback_errors.pop(self._handle, None)
        self._handle = None

    def __del__(self):
        try:
            self.destroy()
        except Exception:
            pass

    def __eq__(self, other):
        return isinstance(other, Stream) and other._handle == self._handle

    def __hash__(self):
        return hash(self._handle)

    def __repr__(self):
        return "accel.Stream(0x%x)" % (self._handle or 0)


class Event:
    """A marker in a stream (torch.cuda.Event's role). enable_timing allows
    elapsed_time()."""

    def __init__(self, enable_timing=False, device=None, acc=None, **_torch_flags):
        self._acc = acc or get_accelerator()
        handle = c_void_p()
        lib.accel_event_create(self._acc._handle, _dev(device),
                               _EVENT_TIMING if enable_timing else 0, ctypes.byref(handle))
        self._handle = handle.value

    def _check(self):
        if self._handle is None:
            raise ValueError("accel: this event was destroyed")
        return self._handle

    def record(self, stream=None):
        lib.accel_event_record(self._check(), stream._check() if stream is not None else None)

    def synchronize(self):
        lib.accel_event_synchronize(self._check())

    def wait(self, stream=None):
        stream = stream or self._acc.current_stream()
        stream.wait_event(self)

    def query(self):
        status = lib.accel_event_query(self._check())
        if status in (0, 6):
            return status == 0
        _lib._checker(status, lib.accel_event_query, ())

    def elapsed_time(self, end_event):
        """Milliseconds from this event to end_event (both recorded, completed
        and created with enable_timing=True)."""
        out = c_float()
        lib.accel_event_elapsed_ms(self._check(), end_event._check(), ctypes.byref(out))
        return out.value

    def destroy(self):
        if self._handle is not None:
            lib.accel_event_destroy(self._handle)
        self._handle = None

    def __del__(self):
        try:
            self.destroy()
        except Exception:
            pass


class OpBuilder:
    """One of accel's op builders under DeepSpeed's names (NAME, BUILD_VAR...).
    load() returns, for CPUAdam/CPUAdagrad/CPULion, the module with the same
    functions as DeepSpeed's compiled op (accel.deepspeed), else an OpTable."""

    def __init__(self, acc, class_name):
        handle = c_void_p()
        lib.accel_get_op_builder(acc._handle, class_name.encode(), ctypes.byref(handle))
        self._acc, self._handle = acc, handle.value
        self.NAME = lib.accel_op_builder_op_name(self._handle).decode()
        self.class_name = lib.accel_op_builder_class_name(self._handle).decode()
        self.BUILD_VAR = "DS_BUILD_" + self.NAME.upper()

    def name(self):
        return self.NAME

    def absolute_name(self):
        return "accel.deepspeed." + self.NAME

    def is_compatible(self, verbose=False):
        out = c_bool()
        reason = ctypes.create_string_buffer(512)
        lib.accel_op_builder_is_compatible(self._handle, ctypes.byref(out), reason, 512)
        if verbose and not out.value:
            print(reason.value.decode())
        return out.value

    def incompatible_reason(self):
        out = c_bool()
        reason = ctypes.create_string_buffer(512)
        lib.accel_op_builder_is_compatible(self._handle, ctypes.byref(out), reason, 512)
        return "" if out.value else reason.value.decode()

    def is_installed(self):
        out = c_bool()
        lib.accel_op_builder_is_installed(self._handle, ctypes.byref(out))
        return out.value

    def implementation(self):
        return _text(lib.accel_op_builder_implementation, self._handle)

    def _load_table(self):
        out = c_void_p()
        lib.accel_op_builder_load(self._handle, ctypes.byref(out))
        return out.value

    def load(self, verbose=False):
        from . import deepspeed as ds
        module = ds.module_for(self.NAME)
        if module is not None:
            ds.bind(module, self._acc)
            return module
        return OpTable(self.NAME, self._load_table())

    def jit_load(self, verbose=False):
        return self.load(verbose)


class OpTable:
    """An op table of accel_ops.h that has no Python wrapper here: its name
    and address (for ctypes users)."""

    def __init__(self, name, address):
        self.name, self.address = name, address

    def __repr__(self):
        return "accel.OpTable(%s at 0x%x)" % (self.name, self.address)


class Accelerator(TorchAcceleratorMethods):
    """An opened accel backend. get_accelerator() gives the process-wide one;
    accel.open(name) an explicit one you close()."""

    def __init__(self, handle, owned):
        self._handle, self._owned = handle, owned
        self._name = lib.accel_name(handle).decode()
        # ctypes callbacks kept alive while the library may call them, by id;
        # stream callbacks that ran are released at the next add_callback
        self._callbacks = {}
        self._finished_callbacks = []
        self.Stream = type("Stream", (Stream,), {"__init__": _bound_init(Stream, self)})
        self.Event = type("Event", (Event,), {"__init__": _bound_init(Event, self)})

    def _release_finished_callbacks(self):
        while self._finished_callbacks:
            self._callbacks.pop(self._finished_callbacks.pop(), None)

    # ---- identity
    def __repr__(self):
        return "accel.Accelerator(%r, %s)" % (self._name, self.selection_method())

    def selection_method(self):
        return lib.accel_selection_method(self._handle).decode()

    def device_name(self, device_index=None):
        return _text(lib.accel_device_name, self._handle, _dev(device_index), cap=128)

    def device(self, device_index=None):
        """The device string (torch.device's role without torch)."""
        return self.device_name(device_index)

    def current_device_name(self):
        return _text(lib.accel_current_device_name, self._handle, cap=128)

    def communication_backend_name(self):
        out = c_char_p()
        try:
            lib.accel_communication_backend_name(self._handle, ctypes.byref(out))
        except NotImplementedError:
            return None
        return out.value.decode()

    def communication_backend_version(self):
        try:
            return _text(lib.accel_communication_backend_version, self._handle, cap=64)
        except NotImplementedError:
            return None

    def get_compile_backend(self):
        out = c_char_p()
        lib.accel_get_compile_backend(self._handle, ctypes.byref(out))
        return out.value.decode()

    def set_compile_backend(self, backend):
        lib.accel_set_compile_backend(self._handle, str(backend).encode())

    def is_current_accelerator_supported(self):
        out = c_bool()
        lib.accel_is_current_accelerator_supported(ctypes.byref(out))
        return out.value

    # ---- flags (DeepSpeed's boolean methods)
    def _flag(self, flag):
        out = c_bool()
        lib.accel_query_flag(self._handle, _FLAGS[flag], ctypes.byref(out))
        return out.value

    def __getattr__(self, name):
        if name in _FLAGS:
            return lambda: self._flag(name)
        raise AttributeError("'Accelerator' object has no attribute %r" % name)

    # ---- devices
    def device_count(self):
        out = c_int()
        lib.accel_device_count(self._handle, ctypes.byref(out))
        return out.value

    def set_device(self, device_index):
        lib.accel_set_device(self._handle, _lib.int_arg(device_index, "device index"))

    def current_device(self):
        out = c_int()
        lib.accel_current_device(self._handle, ctypes.byref(out))
        return out.value

    def synchronize(self, device_index=None):
        lib.accel_synchronize(self._handle, _dev(device_index))

    def get_device_properties(self, device_index=None):
        props = _lib.DeviceProperties(struct_size=ctypes.sizeof(_lib.DeviceProperties))
        lib.accel_device_properties(self._handle, _dev(device_index), ctypes.byref(props))
        return {name: (getattr(props, name).decode() if isinstance(getattr(props, name), bytes)
                       else getattr(props, name))
                for name, _ in props._fields_ if name != "struct_size"}

    # ---- RNG (state: 16 bytes, seed then offset)
    def manual_seed(self, seed):
        lib.accel_manual_seed(self._handle, int(seed) & (2**64 - 1))

    def manual_seed_all(self, seed):
        lib.accel_manual_seed_all(self._handle, int(seed) & (2**64 - 1))

    def seed(self):
        out = c_uint64()
        lib.accel_seed(self._handle, ctypes.byref(out))
        return out.value

    def initial_seed(self):
        out = c_uint64()
        lib.accel_initial_seed(self._handle, ctypes.byref(out))
        return out.value

    def get_rng_state(self, device_index=None):
        buf = ctypes.create_string_buffer(16)
        lib.accel_get_rng_state(self._handle, _dev(device_index), buf, 16)
        return buf.raw

    def set_rng_state(self, new_state, device_index=None):
        data = bytes(new_state)
        lib.accel_set_rng_state(self._handle, _dev(device_index), data, len(data))

    def random(self):
        """DeepSpeed returns torch.random; accel has no generator object:
        this accelerator (manual_seed, get/set_rng_state) plays that role."""
        return self

    def uniform_(self, tensor, stream=None):
        """Fill a float32 tensor of accel's memory with U[0,1) (Philox)."""
        self._fill(lib.accel_rng_uniform_f32, tensor, stream)
        return tensor

    def normal_(self, tensor, stream=None):
        """Fill a float32 tensor of accel's memory with N(0,1) (Philox)."""
        self._fill(lib.accel_rng_normal_f32, tensor, stream)
        return tensor

    def _fill(self, fn, tensor, stream):
        if not isinstance(tensor, Tensor) or tensor.dtype != "float32":
            raise TypeError("accel: random fills take a float32 accel.Tensor")
        fn(self._handle, tensor.data_ptr(), tensor.numel(),
           stream._check() if stream is not None else None)

    # ---- streams and events
    def current_stream(self, device_index=None):
        out = c_void_p()
        lib.accel_current_stream(self._handle, _dev(device_index), ctypes.byref(out))
        return Stream._wrap(self, out.value)

    def default_stream(self, device_index=None):
        out = c_void_p()
        lib.accel_default_stream(self._handle, _dev(device_index), ctypes.byref(out))
        return Stream._wrap(self, out.value)

    @contextlib.contextmanager
    def stream(self, stream):
        """`with acc.stream(s):` makes s current for this thread on its
        device and restores the stream that was current before. None is a
        no-op (torch's convention)."""
        if stream is None:
            yield
            return
        previous = self.current_stream(stream.device)
        lib.accel_set_current_stream(self._handle, stream._check())
        try:
            yield
        finally:
            lib.accel_set_current_stream(self._handle, previous._handle)

    def _sync_current_stream(self, device):
        out = c_void_p()
        lib.accel_current_stream(self._handle, device, ctypes.byref(out))
        lib.accel_stream_synchronize(out.value)

    # ---- graphs
    def create_graph(self):
        return Graph(acc=self)

    @contextlib.contextmanager
    def capture_to_graph(self, graph, pool=None, stream=None):
        """Record the work queued inside the block on `stream` (default: a new
        side stream, current inside the block, as torch.cuda.graph does);
        `pool` is another graph's pool() token to share its memory pool."""
        if pool is not None:
            graph.graph_pool = pool
        stream = stream or Stream(acc=self)
        graph._begin(stream)
        try:
            with self.stream(stream):
                yield graph
        finally:
            graph.capture_end()

    def replay_graph(self, graph):
        graph.replay()

    # ---- memory
    def _u64(self, fn, device_index):
        out = c_uint64()
        fn(self._handle, _dev(device_index), ctypes.byref(out))
        return out.value

    def memory_allocated(self, device_index=None):
        return self._u64(lib.accel_memory_allocated, device_index)

    def max_memory_allocated(self, device_index=None):
        return self._u64(lib.accel_max_memory_allocated, device_index)

    def reset_max_memory_allocated(self, device_index=None):
        lib.accel_reset_max_memory_allocated(self._handle, _dev(device_index))

    def memory_reserved(self, device_index=None):
        return self._u64(lib.accel_memory_reserved, device_index)

    def max_memory_reserved(self, device_index=None):
        return self._u64(lib.accel_max_memory_reserved, device_index)

    def reset_max_memory_reserved(self, device_index=None):
        lib.accel_reset_max_memory_reserved(self._handle, _dev(device_index))

    memory_cached = memory_reserved
    max_memory_cached = max_memory_reserved
    reset_max_memory_cached = reset_max_memory_reserved

    def reset_peak_memory_stats(self, device_index=None):
        lib.accel_reset_peak_memory_stats(self._handle, _dev(device_index))

    def memory_stats(self, device_index=None):
        """torch's memory_stats() dict: torch's keys, in torch's order."""
        stats, index = {}, 0
        key, value = c_char_p(), c_uint64()
        while True:
            status = lib.accel_memory_stats_entry(self._handle, _dev(device_index), index,
                                                  ctypes.byref(key), ctypes.byref(value))
            if status == 2:  # NOT_FOUND: past the last key
                return stats
            if status != 0:
                _lib._checker(status, lib.accel_memory_stats_entry, ())
            name = key.value.decode()
            # torch reports max_split_size -1 for "no limit"
            stats[name] = -1 if name == "max_split_size" and value.value == 2**64 - 1 \
                else value.value
            index += 1

    def empty_cache(self):
        lib.accel_empty_cache(self._handle)

    def total_memory(self, device_index=None):
        return self._u64(lib.accel_total_memory, device_index)

    def available_memory(self, device_index=None):
        return self._u64(lib.accel_available_memory, device_index)

    # ---- dtypes and tensors
    def supported_dtypes(self):
        arr = (c_int * 16)()
        count = c_size_t()
        lib.accel_supported_dtypes(self._handle, arr, 16, ctypes.byref(count))
        return [lib.accel_dtype_name(arr[i]).decode() for i in range(min(count.value, 16))]

    def _tensor(self, fn, shape, dtype, device, *extra):
        dims = _shape_tuple(shape)
        shape_arr = (ctypes.c_int64 * max(len(dims), 1))(*dims)
        dl = _lib.DLTensor()
        fn(self._handle, _dev(device), DTYPES[dtype_name(dtype)][0], len(dims), shape_arr,
           *extra, ctypes.byref(dl))
        return Tensor._owned(self, dl)

    def empty(self, shape, dtype="float32", device=None):
        """An uninitialised contiguous tensor on `device` (current device)."""
        return self._tensor(lib.accel_tensor_empty, shape, dtype, device)

    def zeros(self, shape, dtype="float32", device=None):
        return self._tensor(lib.accel_tensor_zeros, shape, dtype, device)

    def copy(self, obj, device=None):
        """A new tensor of accel's memory holding a copy of a host DLPack
        producer's elements (numpy, torch cpu, accel.Tensor)."""
        src = import_dlpack(obj, self)
        if src.device[0] not in (_lib.kDLCPU, _lib.kDLCUDAHost):
            raise ValueError("accel: copy() takes host memory; this tensor is on DLPack "
                             "device %r" % (src.device,))
        if not src.is_contiguous():
            raise ValueError("accel: copy() takes a contiguous tensor; this one has strides %r"
                             % (src.strides,))
        return self._tensor(lib.accel_tensor_from_host, src.shape, src.dtype, device,
                            src.data_ptr())

    def from_dlpack(self, obj):
        """`obj` (any DLPack producer) as an accel.Tensor: zero-copy when its
        memory is this backend's (host memory on cpu), else a copy when the
        source is host memory."""
        tensor = import_dlpack(obj, self)
        if tensor.device[0] == self.dlpack_device_type():
            return tensor
        return self.copy(tensor)

    def dlpack_device_type(self):
        out = _lib.c_int32()
        lib.accel_dlpack_device_type(self._handle, ctypes.byref(out))
        return out.value

    def on_accelerator(self, tensor):
        t = import_dlpack(tensor, self)
        out = c_bool()
        lib.accel_on_accelerator(self._handle, t._check(), ctypes.byref(out))
        return out.value

    def is_pinned(self, tensor):
        t = import_dlpack(tensor, self)
        out = c_bool()
        lib.accel_is_pinned(self._handle, t.data_ptr(), ctypes.byref(out))
        return out.value

    # ---- profiling and lazy init
    def range_push(self, msg, domain=None, category=None):
        lib.accel_range_push(self._handle, str(msg).encode(),
                             domain.encode() if domain else None,
                             category.encode() if category else None)

    def range_pop(self, domain=None):
        lib.accel_range_pop(self._handle, domain.encode() if domain else None)

    def lazy_call(self, callback):
        """Run callback() now if the runtime is initialised, else at its
        initialisation (DeepSpeed's lazy_call)."""
        def trampoline(_acc, _user):
            callback()
        fn = _lib.LazyFn(trampoline)
        self._callbacks[id(fn)] = fn  # may run later: kept for the process lifetime
        lib.accel_lazy_call(self._handle, fn, None)

    def is_initialized(self):
        out = c_bool()
        lib.accel_is_initialized(self._handle, ctypes.byref(out))
        return out.value

    # ---- op builders
    def get_op_builder(self, class_name):
        """DeepSpeed returns the builder class; calling it gives the builder."""
        acc = self

        class Builder(OpBuilder):
            def __init__(self):
                OpBuilder.__init__(self, acc, class_name)

        Builder.__name__ = Builder.__qualname__ = str(class_name)
        Builder.NAME = Builder().NAME
        return Builder

    def create_op_builder(self, class_name):
        return OpBuilder(self, class_name)

    def op_builder_names(self):
        count = c_size_t()
        lib.accel_op_builder_count(self._handle, ctypes.byref(count))
        names = []
        for i in range(count.value):
            b = c_void_p()
            lib.accel_op_builder_at(self._handle, i, ctypes.byref(b))
            names.append(lib.accel_op_builder_class_name(b.value).decode())
        return names

    # ---- environment
    def _names(self, fn):
        arr = ctypes.POINTER(c_char_p)()
        count = c_size_t()
        fn(self._handle, ctypes.byref(arr), ctypes.byref(count))
        return [arr[i].decode() for i in range(count.value)]

    def visible_devices_envs(self):
        return self._names(lib.accel_visible_devices_envs)

    def export_envs(self):
        return self._names(lib.accel_export_envs)

    def set_visible_devices_envs(self, current_env, local_accelerator_ids):
        """Write "0,2"-style lists into every visible-devices variable of the
        dict `current_env` (DeepSpeed's launcher passes os.environ's copy)."""
        errors = []

        def setter(_ctx, name, value):
            try:
                current_env[name.decode()] = value.decode()
                return 0
            except Exception as exc:  # reported below with the C status
                errors.append(exc)
                return 1

        ids = [_lib.int_arg(i, "accelerator id") for i in local_accelerator_ids]
        arr = (c_int * max(len(ids), 1))(*ids)
        try:
            lib.accel_set_visible_devices_envs(self._handle, arr, len(ids),
                                               _lib.EnvSetter(setter), None)
        except AccelError:
            if errors:
                raise errors[0]
            raise

    # ---- lifetime
    def close(self):
        """Release an accelerator from accel.open() (not the process-wide one)."""
        if self._owned and self._handle is not None:
            lib.accel_close(self._handle)
            self._handle = None


def _bound_init(cls, acc):
    def __init__(self, *args, **kw):
        kw.setdefault("acc", acc)
        cls.__init__(self, *args, **kw)
    return __init__


_accelerator = None


def get_accelerator():
    """The process-wide accelerator (ACCEL_ACCELERATOR / DS_ACCELERATOR, else
    auto-detect), as deepspeed.accelerator.get_accelerator()."""
    global _accelerator
    if _accelerator is None:
        handle = c_void_p()
        lib.accel_get(ctypes.byref(handle))
        _accelerator = Accelerator(handle.value, owned=False)
    return _accelerator


def open(name):
    """Open the backend `name` explicitly; close() it when done."""
    handle = c_void_p()
    lib.accel_open(str(name).encode(), ctypes.byref(handle))
    return Accelerator(handle.value, owned=True)
