# _torch_methods.py: the Accelerator methods of torch.accelerator and of
# DeepSpeed's accelerator ABC that came after the first set in
# accelerator.py: device_index, set_stream, get_memory_info,
# reset_accumulated_memory_stats, empty_host_cache, get_device_capability,
# tensor pinning, default_generator and the *_all RNG calls. A mixin of
# accel.Accelerator; `self` is that accelerator.
# Threads: as accelerator.py (current device and stream are per thread).
import ctypes

from . import _device, _lib, pinning
from ._lib import c_void_p, lib
from .tensor import DTYPES

_lib.declare({
    "accel_reset_accumulated_memory_stats": (_lib.STATUS, [c_void_p, ctypes.c_int]),
})


class device_index:
    """`with device_index(i):` makes device i current for this thread and
    restores the previous one on exit (torch.accelerator.device_index);
    None changes nothing. The index may be "name:i" or a torch.device."""

    def __init__(self, device, acc=None):
        if acc is None:
            from .accelerator import get_accelerator
            acc = get_accelerator()
        self._acc = acc
        self.idx = None if device is None else _device.index_of(acc, device, optional=False)
        self.prev_idx = -1

    def __enter__(self):
        if self.idx is not None:
            self.prev_idx = self._acc.current_device()
            self._acc.set_device(self.idx)
        return self

    def __exit__(self, *exc_info):
        if self.idx is not None:
            self._acc.set_device(self.prev_idx)


class TorchAcceleratorMethods:
    """torch.accelerator's and DeepSpeed's newer methods (see the module)."""

    def _check_device(self, index):
        count = self.device_count()
        if not 0 <= index < count:
            raise ValueError("accel: device %d is out of range (%s has %d devices)"
                             % (index, self.device_name(), count))
        return index

    def _index(self, device):
        index = _device.index_of(self, device)
        return self.current_device() if index < 0 else self._check_device(index)

    # ---- devices and streams
    def device_index(self, device):
        return device_index(device, acc=self)

    def current_device_index(self):
        return self.current_device()

    def set_device_index(self, device):
        self.set_device(_device.index_of(self, device, optional=False))

    def set_stream(self, stream):
        """Make `stream` current for this thread and its device the current
        device (torch.accelerator.set_stream)."""
        self.set_device(stream.device)
        lib.accel_set_current_stream(self._handle, stream._check())

    def get_device_capability(self, device=None):
        """{"supported_dtypes": the dtype names accel tensors can be allocated
        with on the device} (torch's key; names instead of torch dtypes)."""
        self._index(device)
        return {"supported_dtypes": set(DTYPES)}

    # ---- memory
    def get_memory_info(self, device=None):
        """(free, total) bytes of the device, as its runtime reports them."""
        index = _device.index_of(self, device)
        return self.available_memory(index), self.total_memory(index)

    def reset_accumulated_memory_stats(self, device=None):
        lib.accel_reset_accumulated_memory_stats(self._handle, _device.index_of(self, device))

    def empty_host_cache(self):
        lib.accel_empty_host_cache(self._handle)

    def pinned_memory_stats(self):
        """accel_pinned_stats_t as a dict: pinned_bytes(_peak), tracked_bytes,
        pin_count, cached_bytes (the pinned host cache)."""
        return pinning.pinned_memory_stats(self)

    # ---- DeepSpeed's tensor pinning
    def pin_memory(self, tensor, make_copy=True, match_shape=True):
        return pinning.pin_memory(self, tensor, make_copy, match_shape)

    def unpin_memory(self, tensor):
        return pinning.unpin_memory(self, tensor)

    # ---- random numbers
    def default_generator(self, device_index):
        from .random import Generator
        return Generator(device_index, acc=self)

    def get_rng_state_all(self):
        from . import random
        return random.get_rng_state_all(acc=self)

    def set_rng_state_all(self, new_states):
        from . import random
        random.set_rng_state_all(new_states, acc=self)

    def seed_all(self):
        from . import random
        return random.seed_all(acc=self)


