# _errors.py: the exceptions accel raises. Each carries accel's own sentence
# (accel_last_error) and the status name; each also derives from the Python
# built-in exception a caller would catch for that kind of failure.


class AccelError(RuntimeError):
    """A failed accel call: .status is the status name ("ACCEL_ERROR_..."),
    .function the C function, str() the library's sentence."""

    def __init__(self, message, status="ACCEL_ERROR_INTERNAL", function=""):
        super().__init__(message)
        self.status = status
        self.function = function


class AccelInvalidArgument(AccelError, ValueError):
    """ACCEL_ERROR_INVALID_ARGUMENT."""


class AccelNotFound(AccelError, LookupError):
    """ACCEL_ERROR_NOT_FOUND."""


class AccelUnavailable(AccelError):
    """ACCEL_ERROR_UNAVAILABLE: vendor runtime or hardware missing."""


class AccelUnsupported(AccelError, NotImplementedError):
    """ACCEL_ERROR_UNSUPPORTED: this backend lacks the capability."""


class AccelOutOfMemory(AccelError, MemoryError):
    """ACCEL_ERROR_OUT_OF_MEMORY."""


class AccelNotReady(AccelError):
    """ACCEL_ERROR_NOT_READY."""


class AccelDeviceError(AccelError):
    """ACCEL_ERROR_DEVICE_ERROR: the vendor runtime failed."""


_BY_STATUS = {1: AccelInvalidArgument, 2: AccelNotFound, 3: AccelUnavailable,
              4: AccelUnsupported, 5: AccelOutOfMemory, 6: AccelNotReady, 7: AccelDeviceError}


def raise_for_status(status, name, sentence, function):
    cls = _BY_STATUS.get(status, AccelError)
    raise cls(sentence or (function + " failed with " + name), name, function)
