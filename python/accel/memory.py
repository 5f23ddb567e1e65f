# memory.py: torch.accelerator.memory's functions over the process-wide
# accelerator (accel.get_accelerator()): the caching allocator's figures,
# its resets, the device's free and total memory, and the two caches'
# releases. A device is None (the current one), an index, "name:i" or a
# torch.device of this backend. docs/python.md has the table against torch.
# Threads: any thread; None means the calling thread's current device.


from . import _device


def _acc():
    from .accelerator import get_accelerator
    return get_accelerator()


def _on(device_index):
    """The accelerator and accel's index of `device_index`."""
    acc = _acc()
    return acc, _device.index_of(acc, device_index)


def _call(method, device_index):
    acc, index = _on(device_index)
    return getattr(acc, method)(index)


def empty_cache():
    """Give the caching allocator's unused blocks back to the runtime."""
    _acc().empty_cache()


def empty_host_cache():
    """Give the pinned host cache's blocks back (those freed before the last
    synchronize of every device; accel.h, accel_empty_host_cache)."""
    _acc().empty_host_cache()


def memory_stats(device_index=None):
    """torch's memory_stats() dict: its keys, sorted, num_oom_rejections included."""
    return _call('memory_stats', device_index)


def memory_allocated(device_index=None):
    return _call('memory_allocated', device_index)


def max_memory_allocated(device_index=None):
    return _call('max_memory_allocated', device_index)


def memory_reserved(device_index=None):
    return _call('memory_reserved', device_index)


def max_memory_reserved(device_index=None):
    return _call('max_memory_reserved', device_index)


def reset_accumulated_memory_stats(device_index=None):
    """The ".allocated"/".freed" figures and the num_* counters back to 0."""
    _call('reset_accumulated_memory_stats', device_index)


def reset_peak_memory_stats(device_index=None):
    _call('reset_peak_memory_stats', device_index)


def get_memory_info(device_index=None):
    """(free, total) bytes of the device, as its runtime reports them."""
    return _call('get_memory_info', device_index)


__all__ = ["empty_cache", "empty_host_cache", "get_memory_info", "max_memory_allocated",
           "max_memory_reserved", "memory_allocated", "memory_reserved", "memory_stats",
           "reset_accumulated_memory_stats", "reset_peak_memory_stats"]
