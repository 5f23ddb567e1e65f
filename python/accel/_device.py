# _device.py: what torch.accelerator takes as a device (an index, a string
# such as "cuda:1", a torch.device) turned into accel's device index, and
# accel.Device, what current_accelerator() returns in place of torch.device.
from . import _lib

CURRENT = -1


class Device:
    """A device type and optional index (torch.device's role without torch):
    `.type` is the backend's device name ("cuda", "cpu"), `.index` an int or
    None; str() gives "cuda" or "cuda:1"."""

    __slots__ = ("type", "index")

    def __init__(self, type, index=None):
        self.type, self.index = str(type), index

    def __str__(self):
        return self.type if self.index is None else "%s:%d" % (self.type, self.index)

    def __repr__(self):
        return "accel.Device(%r)" % str(self)

    def __eq__(self, other):
        if isinstance(other, str):
            return str(self) == other
        return (getattr(other, "type", None), getattr(other, "index", None)) == (self.type,
                                                                                  self.index)

    def __hash__(self):
        return hash((self.type, self.index))


def index_of(acc, device, optional=True):
    """accel's device index for `device`: None (the current device, when
    `optional`), an int, "name" or "name:i", or an object with .type and
    .index (torch.device, accel.Device) whose type is this backend's."""
    if device is None:
        if not optional:
            raise TypeError("accel: a device is required here (an index, 'name:i' or a "
                            "device object)")
        return CURRENT
    if isinstance(device, str):
        kind, _, index = device.partition(":")
        if index and not index.isdigit():
            raise ValueError("accel: %r is not a device string ('name' or 'name:index')"
                             % device)
        return _typed_index(acc, device, kind, int(index) if index else None, optional)
    if hasattr(device, "type") and hasattr(device, "index"):
        return _typed_index(acc, device, str(device.type), device.index, optional)
    return _lib.int_arg(device, "device index")


def _typed_index(acc, device, kind, index, optional):
    own = acc.device_name()
    if kind != own:
        raise ValueError("accel: device %r is not a device of this accelerator (%r)"
                         % (str(device), own))
    if index is None:
        if not optional:
            raise ValueError("accel: device %r names no index" % str(device))
        return CURRENT
    return _lib.int_arg(index, "device index")
