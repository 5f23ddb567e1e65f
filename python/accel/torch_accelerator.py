# torch_accelerator.py: torch.accelerator's module-level names for accel's
# process-wide accelerator, so `import accel` reads like `torch.accelerator`
# (accel.device_count(), accel.set_stream(s), accel.memory.*, accel.random.*,
# accel.Graph). docs/python.md's table, generated from both packages by
# python/tests/test_parity_table.py, lists each name against torch's.
# Threads: the current device and stream are per thread, as in torch.
from . import _device
from ._torch_methods import device_index
from .memory import (empty_cache, empty_host_cache, get_memory_info, max_memory_allocated,
                     max_memory_reserved, memory_allocated, memory_reserved, memory_stats,
                     reset_accumulated_memory_stats, reset_peak_memory_stats)


def _acc():
    from .accelerator import get_accelerator
    return get_accelerator()


def device_count():
    return _acc().device_count()


def is_available():
    """Whether the process-wide accelerator has a device (torch: count > 0)."""
    return _acc().device_count() > 0


def current_accelerator(check_available=False):
    """The process-wide accelerator's device type as an accel.Device (index
    None), or None when check_available and it has no device. Unlike torch,
    accel counts its cpu backend as an accelerator (DeepSpeed's view)."""
    acc = _acc()
    if check_available and not is_available():
        return None
    return _device.Device(acc.device_name())


def current_device_index():
    return _acc().current_device()


def set_device_index(device):
    _acc().set_device_index(device)


current_device_idx = current_device_index  # torch's deprecated names
set_device_idx = set_device_index


def current_stream(device=None):
    acc = _acc()
    return acc.current_stream(_device.index_of(acc, device))


def set_stream(stream):
    _acc().set_stream(stream)


def synchronize(device=None):
    acc = _acc()
    acc.synchronize(_device.index_of(acc, device))


def get_device_capability(device=None):
    return _acc().get_device_capability(device)


__all__ = ["current_accelerator", "current_device_idx", "current_device_index",
           "current_stream", "device_count", "device_index", "empty_cache", "empty_host_cache",
           "get_device_capability", "get_memory_info", "is_available", "max_memory_allocated",
           "max_memory_reserved", "memory_allocated", "memory_reserved",
           "memory_stats", "reset_accumulated_memory_stats", "reset_peak_memory_stats",
           "set_device_idx", "set_device_index", "set_stream", "synchronize"]
