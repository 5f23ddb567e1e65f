# accel: Python bindings of libaccel, the portable accelerator runtime
# (DeepSpeed's accelerator abstraction as a C library). ctypes over the
# libaccel.so shipped in this package: the stable C ABI is the contract, so
# nothing here is compiled against Python. See docs/python.md.
from ._errors import (AccelDeviceError, AccelError, AccelInvalidArgument, AccelNotFound,
                      AccelNotReady, AccelOutOfMemory, AccelUnavailable, AccelUnsupported)
from ._lib import last_error
from ._lib import lib as _clib
from .accelerator import Accelerator, Event, Graph, OpBuilder, Stream, get_accelerator, open
from .tensor import DTYPES, Tensor
from . import comm
from . import graphs, memory, random
from ._device import Device
from .pinning import PinnedTensor
from .torch_accelerator import *  # noqa: F401,F403 (torch.accelerator's names)
from .torch_accelerator import __all__ as _torch_accelerator_names

__version__ = _clib.accel_version().decode()


def from_dlpack(obj):
    """Borrow any DLPack producer's memory as an accel.Tensor (zero-copy)."""
    return get_accelerator().from_dlpack(obj)


def supported_names():
    """Names ACCEL_ACCELERATOR / DS_ACCELERATOR / accel.open accept."""
    import ast
    return ast.literal_eval(_clib.accel_supported_names().decode())


__all__ = ["Accelerator", "AccelError", "AccelInvalidArgument", "AccelNotFound",
           "AccelUnavailable", "AccelUnsupported", "AccelOutOfMemory", "AccelNotReady",
           "AccelDeviceError", "DTYPES", "Event", "Graph", "OpBuilder", "Stream", "Tensor",
           "comm", "from_dlpack", "get_accelerator", "last_error", "open", "supported_names"]
# accel.memory, accel.random and accel.graphs stay out of __all__: a star
# import must not shadow the standard library's random.
__all__ += ["Device", "PinnedTensor"] + _torch_accelerator_names
