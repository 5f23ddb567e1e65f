# random.py: torch.accelerator.random's functions (initial_seed,
# get_rng_state(_all), set_rng_state(_all), manual_seed(_all), seed(_all))
# over the process-wide accelerator, and accel.random.Generator, the
# per-device generator DeepSpeed's default_generator(i) returns. Every
# device runs accel's Philox stream (docs/architecture.md, Random numbers);
# a state is 16 bytes (seed, offset), torch's get_state() is a uint8 tensor.
# Threads: the current device is per thread; generators are per device.
from . import _device


def _acc(acc):
    if acc is not None:
        return acc
    from .accelerator import get_accelerator
    return get_accelerator()


class Generator:
    """Device `device`'s generator (torch.Generator's methods, no torch):
    manual_seed, seed, initial_seed, get_state, set_state."""

    def __init__(self, device=None, acc=None):
        self._acc = _acc(acc)
        index = _device.index_of(self._acc, device)
        self.device_index = self._acc.current_device() if index < 0 else index
        self._acc._check_device(self.device_index)

    @property
    def device(self):
        return _device.Device(self._acc.device_name(), self.device_index)

    def manual_seed(self, seed):
        with self._acc.device_index(self.device_index):
            self._acc.manual_seed(seed)
        return self

    def seed(self):
        with self._acc.device_index(self.device_index):
            return self._acc.seed()

    def initial_seed(self):
        with self._acc.device_index(self.device_index):
            return self._acc.initial_seed()

    def get_state(self):
        return self._acc.get_rng_state(self.device_index)

    def set_state(self, new_state):
        self._acc.set_rng_state(new_state, self.device_index)
        return self

    def __repr__(self):
        return "accel.random.Generator(%s)" % self.device


def initial_seed(device=None, acc=None):
    return Generator(device, acc).initial_seed()


def get_rng_state(device=None, acc=None):
    return Generator(device, acc).get_state()


def get_rng_state_all(acc=None):
    acc = _acc(acc)
    return [acc.get_rng_state(i) for i in range(acc.device_count())]


def set_rng_state(new_state, device=None, acc=None):
    Generator(device, acc).set_state(new_state)


def set_rng_state_all(new_states, acc=None):
    """One state per device, in device order; a wrong count is refused
    before any device changes."""
    acc = _acc(acc)
    states = [bytes(s) for s in new_states]
    if len(states) != acc.device_count():
        raise ValueError("accel: set_rng_state_all got %d states for %d devices"
                         % (len(states), acc.device_count()))
    for i, state in enumerate(states):
        if len(state) != 16:
            raise ValueError("accel: RNG state %d is %d bytes; a state is 16 (seed, offset)"
                             % (i, len(state)))
    for i, state in enumerate(states):
        acc.set_rng_state(state, i)


def manual_seed(seed, acc=None):
    """Seed the current device's generator."""
    _acc(acc).manual_seed(seed)


def manual_seed_all(seed, acc=None):
    _acc(acc).manual_seed_all(seed)


def seed(acc=None):
    """Seed the current device from the OS entropy source; returns the seed."""
    return _acc(acc).seed()


def seed_all(acc=None):
    """One seed from the OS entropy source for every device (torch's
    seed_all: the first device's new seed, given to all); returns it."""
    acc = _acc(acc)
    value = acc.seed()
    acc.manual_seed_all(value)
    return value


__all__ = ["Generator", "get_rng_state", "get_rng_state_all", "initial_seed", "manual_seed",
           "manual_seed_all", "seed", "seed_all", "set_rng_state", "set_rng_state_all"]
