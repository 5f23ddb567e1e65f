# test_torch_accelerator.py: torch.accelerator's names (accel.device_index,
# set_stream, memory.*, random.*, Graph, current_accelerator) and DeepSpeed's
# later ABC methods (pin_memory / unpin_memory / is_pinned,
# default_generator, num_oom_rejections), one test or more per name, on the
# backend the environment picks (cpu in CI). Tests that need two devices
# open a second cpu accelerator with LOCAL_SIZE=2.
import ctypes
import warnings

import numpy as np
import pytest

import accel


@pytest.fixture(scope="module")
def acc():
    return accel.get_accelerator()


@pytest.fixture()
def two(monkeypatch):
    """A cpu accelerator with two devices (cpu counts LOCAL_SIZE devices)."""
    monkeypatch.setenv("LOCAL_SIZE", "2")
    opened = accel.open("cpu")
    assert opened.device_count() == 2
    yield opened
    opened.set_device(0)
    opened.close()


# ---- device_index, set_stream, current_accelerator
def test_device_index_switches_and_restores(two):
    assert two.current_device() == 0
    with two.device_index(1):
        assert two.current_device() == 1
        with two.device_index("cpu:0"):
            assert two.current_device() == 0
        assert two.current_device() == 1
    assert two.current_device() == 0
    with pytest.raises(KeyError):
        with two.device_index(1):
            raise KeyError("inside")
    assert two.current_device() == 0  # restored when the block raised


def test_device_index_none_and_bad_input(acc):
    before = acc.current_device()
    with accel.device_index(None):
        assert acc.current_device() == before
    with pytest.raises(accel.AccelInvalidArgument):
        with accel.device_index(acc.device_count() + 3):
            pass
    with pytest.raises(ValueError, match="not a device of this accelerator"):
        accel.device_index("no_such_backend:0")
    with pytest.raises(TypeError):
        accel.device_index(1.5)
    assert acc.current_device() == before


def test_set_stream(acc, two):
    s = acc.Stream()
    accel.set_stream(s)
    try:
        assert accel.current_stream() == s
        assert acc.current_stream() == s
    finally:
        accel.set_stream(acc.default_stream())
    assert accel.current_stream() == acc.default_stream()
    # torch: the stream's device becomes the current device
    other = two.Stream(device=1)
    two.set_stream(other)
    assert two.current_device() == 1
    assert two.current_stream() == other
    two.set_stream(two.default_stream(1))
    other.destroy()
    s.destroy()


def test_current_accelerator(acc, monkeypatch):
    device = accel.current_accelerator()
    assert device.type == acc.device_name() and device.index is None
    assert str(device) == acc.device_name()
    assert accel.current_accelerator(check_available=True) == device

    class NoDevices:
        def device_count(self):
            return 0

        def device_name(self):
            return "cuda"

    monkeypatch.setattr(accel.torch_accelerator, "_acc", lambda: NoDevices())
    assert accel.current_accelerator(check_available=True) is None
    assert accel.current_accelerator().type == "cuda"  # compile-time answer, as torch


def test_device_functions(acc):
    assert accel.device_count() == acc.device_count()
    assert accel.is_available() is True
    assert accel.current_device_index() == accel.current_device_idx() == acc.current_device()
    accel.set_device_index(0)
    accel.set_device_idx("%s:0" % acc.device_name())
    accel.synchronize()
    accel.synchronize(0)


# ---- memory
def test_get_memory_info(acc):
    free, total = accel.get_memory_info()
    assert isinstance(free, int) and isinstance(total, int)
    assert 0 < free <= total
    assert total == acc.total_memory()
    assert acc.get_memory_info(0)[1] == total
    with pytest.raises(accel.AccelInvalidArgument):
        accel.get_memory_info(acc.device_count() + 1)


def test_reset_accumulated_memory_stats(acc):
    kept = acc.empty((3 << 20,), "uint8")
    acc.empty((1000,), "uint8").free()
    stats = accel.memory_stats()
    assert stats["allocation.all.allocated"] > 0 and stats["allocation.all.freed"] > 0
    current, peak = stats["allocated_bytes.all.current"], stats["allocated_bytes.all.peak"]
    accel.reset_accumulated_memory_stats()
    stats = accel.memory.memory_stats()
    assert stats["allocation.all.allocated"] == 0 and stats["allocation.all.freed"] == 0
    assert stats["num_ooms"] == stats["num_device_alloc"] == stats["num_oom_rejections"] == 0
    assert stats["allocated_bytes.all.current"] == current
    assert stats["allocated_bytes.all.peak"] == peak
    kept.free()
    assert accel.memory_stats()["allocation.all.freed"] == 1
    with pytest.raises(accel.AccelInvalidArgument):
        acc.reset_accumulated_memory_stats(acc.device_count() + 1)


def test_num_oom_rejections(acc):
    before = acc.memory_stats()
    malloc = accel._lib.lib.accel_malloc
    malloc.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_void_p)]
    malloc.restype = ctypes.c_int
    out = ctypes.c_void_p()
    status = malloc(acc._handle, 2**64 - 64, ctypes.byref(out))
    assert accel._lib.status_name(status) == "ACCEL_ERROR_OUT_OF_MEMORY"
    after = acc.memory_stats()
    assert after["num_oom_rejections"] == before["num_oom_rejections"] + 1
    assert after["num_ooms"] == before["num_ooms"] + 1
    assert list(after) == sorted(after)  # torch's order, the new key in its place


def test_memory_module_matches_accelerator(acc):
    assert accel.memory.memory_allocated() == acc.memory_allocated()
    assert accel.memory.max_memory_reserved(0) == acc.max_memory_reserved(0)
    assert accel.max_memory_allocated() == acc.max_memory_allocated()
    accel.memory.reset_peak_memory_stats()
    accel.memory.empty_cache()
    assert accel.memory_reserved() == acc.memory_reserved()


def test_empty_host_cache(acc):
    if not acc.is_pinned_memory_supported():
        pytest.skip("no pinned memory on " + acc.device_name())
    accel.synchronize()
    accel.empty_host_cache()
    assert acc.pinned_memory_stats()["cached_bytes"] == 0
    pinned = acc.pin_memory(np.arange(5000, dtype=np.float32))
    pinned_address = pinned.data_ptr()
    assert acc.unpin_memory(pinned)
    assert acc.pinned_memory_stats()["cached_bytes"] == 20000
    accel.empty_host_cache()  # freed after the last synchronize: kept (work may use it)
    assert acc.pinned_memory_stats()["cached_bytes"] == 20000
    accel.synchronize()
    again = acc.pin_memory(np.ones(5000, dtype=np.float32))
    assert again.data_ptr() == pinned_address  # served from the cache
    assert np.from_dlpack(again)[4999] == 1.0
    acc.unpin_memory(again)
    accel.synchronize()
    accel.memory.empty_host_cache()
    assert acc.pinned_memory_stats()["cached_bytes"] == 0


# ---- get_device_capability
def test_get_device_capability(acc):
    capability = accel.get_device_capability()
    dtypes = capability["supported_dtypes"]
    assert isinstance(dtypes, set) and {"float32", "bfloat16", "float16"} <= dtypes
    assert dtypes == set(accel.DTYPES)
    for dtype in dtypes:  # each can be allocated on the device
        acc.empty((3,), dtype).free()
    assert acc.get_device_capability("%s:0" % acc.device_name()) == capability
    with pytest.raises(ValueError, match="out of range"):
        acc.get_device_capability(acc.device_count())


# ---- pinning (DeepSpeed's ABC)
def test_pin_memory_copy_and_shape(acc):
    source = np.arange(24, dtype=np.float32).reshape(4, 6)
    pinned = acc.pin_memory(source)
    assert isinstance(pinned, accel.PinnedTensor)
    assert pinned.shape == (4, 6) and pinned.dtype == "float32"
    assert np.array_equal(np.from_dlpack(pinned), source)
    assert acc.is_pinned(pinned) and not acc.is_pinned(source)
    flat = acc.pin_memory(source, make_copy=False, match_shape=False)
    assert flat.shape == (24,)
    assert acc.unpin_memory(flat) is True
    view = np.from_dlpack(pinned)
    assert acc.unpin_memory(pinned) is True
    assert acc.unpin_memory(pinned) is False  # already unpinned
    assert view[3, 5] == 23.0  # the export keeps the buffer until it goes
    with pytest.raises(ValueError, match="freed"):
        pinned.shape


def test_unpin_memory_leaves_other_tensors(acc):
    source = np.ones(64, dtype=np.float32)
    pinned = acc.pin_memory(source)
    assert acc.unpin_memory(source) is False
    assert acc.unpin_memory(np.from_dlpack(pinned)) is False  # a view: not freed
    assert acc.is_pinned(pinned)
    assert acc.unpin_memory(pinned) is True


def test_pin_memory_bad_input(acc):
    with pytest.raises(ValueError):
        acc.pin_memory(np.ones((4, 4), dtype=np.float32)[:, ::2])  # strided
    with pytest.raises(ValueError):
        acc.pin_memory(np.ones(0, dtype=np.float32))  # empty
    with pytest.raises(TypeError):
        acc.pin_memory([1, 2, 3])


# ---- random
def test_random_module(acc):
    accel.random.manual_seed(1234)
    assert accel.random.initial_seed() == 1234
    state = accel.random.get_rng_state()
    assert isinstance(state, bytes) and len(state) == 16
    first = np.from_dlpack(acc.uniform_(acc.empty((8,)))).copy()
    accel.random.set_rng_state(state)
    again = np.from_dlpack(acc.uniform_(acc.empty((8,)))).copy()
    assert np.array_equal(first, again)
    states = accel.random.get_rng_state_all()
    assert len(states) == acc.device_count()
    accel.random.set_rng_state_all(states)
    value = accel.random.seed()
    assert accel.random.initial_seed() == value
    everywhere = accel.random.seed_all()
    assert all(acc.default_generator(i).initial_seed() == everywhere
               for i in range(acc.device_count()))
    accel.random.manual_seed_all(7)
    assert accel.random.initial_seed(0) == 7


def test_random_per_device(two):
    accel.random.manual_seed_all(5, acc=two)
    with two.device_index(1):
        accel.random.manual_seed(99, acc=two)
    assert accel.random.initial_seed(0, acc=two) == 5
    assert accel.random.initial_seed(1, acc=two) == 99
    states = two.get_rng_state_all()
    assert states[0] != states[1]
    with pytest.raises(ValueError, match="2 devices"):
        two.set_rng_state_all(states[:1])  # refused before any device changes
    with pytest.raises(ValueError, match="16"):
        two.set_rng_state_all([states[0], b"short"])
    assert two.get_rng_state_all() == states
    two.set_rng_state_all([states[1], states[0]])
    assert two.get_rng_state(0) == states[1]
    assert two.seed_all() == accel.random.initial_seed(1, acc=two)


def test_default_generator(acc, two):
    gen = acc.default_generator(0)
    assert gen.manual_seed(42) is gen and gen.initial_seed() == 42
    assert gen.device.index == 0 and gen.device.type == acc.device_name()
    state = gen.get_state()
    a = np.from_dlpack(acc.uniform_(acc.empty((4,)))).copy()
    gen.set_state(state)
    b = np.from_dlpack(acc.uniform_(acc.empty((4,)))).copy()
    assert np.array_equal(a, b)
    second = two.default_generator(1)
    second.manual_seed(3)
    assert two.default_generator(1).initial_seed() == 3
    assert two.current_device() == 0  # the generator switched and restored
    with pytest.raises(ValueError, match="out of range"):
        two.default_generator(2)


# ---- Graph
def _needs_graphs(acc):
    if not acc.is_graphs_supported():
        pytest.skip("no graphs on " + acc.device_name())


def test_graph_capture_replay_context_manager(acc):
    _needs_graphs(acc)
    t = acc.zeros((256,))
    s = acc.Stream()
    g = accel.Graph()
    with acc.stream(s):
        with g:
            acc.uniform_(t)
        view = np.from_dlpack(t)
        acc.synchronize()
        view[:] = 0
        g.replay()  # on the current stream, as torch
    acc.synchronize()
    assert view.any()
    with pytest.raises(RuntimeError, match="keep_graph=True"):
        g.instantiate()
    s.destroy()


def test_graph_keep_graph_and_reset(acc):
    _needs_graphs(acc)
    t = acc.zeros((64,))
    s = acc.Stream()
    g = accel.Graph(keep_graph=True)
    with pytest.raises(RuntimeError, match="capture_end"):
        g.instantiate()
    with pytest.raises(RuntimeError, match="without a preceding"):
        g.replay()
    with pytest.raises(RuntimeError, match="without a preceding"):
        g.pool()
    with acc.stream(s):
        g.capture_begin()
        acc.uniform_(t)
        g.capture_end()
    g.instantiate()
    g.instantiate()  # keep_graph: again is allowed
    g.replay(s)
    with pytest.raises(accel.AccelInvalidArgument, match="already captured"):
        g._begin(s)
    g.reset()
    with acc.stream(s):
        g.capture_begin()  # capturable again after reset
        acc.uniform_(t)
        g.capture_end()
    g.replay(s)
    s.synchronize()
    s.destroy()


def test_graph_pool_sharing(acc):
    _needs_graphs(acc)
    s = acc.Stream()
    size = 3 << 20

    def capture(graph):
        with acc.stream(s):
            graph.capture_begin()
            t = acc.empty((size,), "uint8")  # from the graph's private pool
            graph.capture_end()
        t.free()  # back to that pool, never to the shared cache

    first = accel.Graph()
    capture(first)
    reserved = acc.memory_reserved()
    shared = accel.Graph(pool=first.pool())
    capture(shared)
    assert acc.memory_reserved() == reserved  # reused the shared pool's block
    assert shared.pool() == first.pool()
    alone = accel.Graph()
    capture(alone)
    assert acc.memory_reserved() > reserved  # a pool of its own
    with pytest.raises(ValueError, match="not a token"):
        accel.Graph(pool=(10**9, 0))
    for g in (first, shared, alone):
        g.reset()
    s.destroy()


def test_graph_capture_error_mode_and_debug_dump(acc, tmp_path):
    _needs_graphs(acc)
    with pytest.raises(ValueError, match="capture_error_mode"):
        accel.Graph(capture_error_mode="strict")
    s = acc.Stream()
    strict = accel.Graph(capture_error_mode="global")
    with acc.stream(s):
        with pytest.raises(NotImplementedError, match="relaxed"):
            strict.capture_begin()
    g = accel.Graph(capture_error_mode="relaxed")
    with acc.stream(s):
        g.capture_begin()
        acc.uniform_(acc.zeros((8,)))
        g.capture_end()
    path = tmp_path / "graph.dot"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        g.debug_dump(str(path))
    assert caught and "enable_debug_mode" in str(caught[0].message)
    assert not path.exists()
    g.enable_debug_mode()
    g.replay(s)
    g.debug_dump(str(path))
    text = path.read_text()
    assert text.startswith("digraph") and "replays 1" in text and acc.device_name() in text
    s.synchronize()
    s.destroy()


def test_capture_to_graph_takes_pool(acc):
    _needs_graphs(acc)
    size = 3 << 20
    first = acc.create_graph()
    with acc.capture_to_graph(first):
        t = acc.empty((size,), "uint8")
    t.free()
    reserved = acc.memory_reserved()
    second = acc.create_graph()
    with acc.capture_to_graph(second, pool=first.pool()):
        u = acc.empty((size,), "uint8")
    u.free()
    assert acc.memory_reserved() == reserved
    acc.replay_graph(second)
    acc.synchronize()


def test_graph_settings_changed_after_reset(acc):
    _needs_graphs(acc)
    s = acc.Stream()
    first, second = accel.Graph(), accel.Graph()
    with acc.stream(s):
        with first:
            acc.uniform_(acc.zeros((8,)))
        with second:
            acc.uniform_(acc.zeros((8,)))
    second.reset()
    second.graph_pool = ("not", "a token")  # torch: set before the next capture
    with acc.stream(s), pytest.raises(ValueError, match="not a token"):
        second.capture_begin()
    second.graph_pool = first.pool()
    second.capture_error_mode = "thread_local"
    with acc.stream(s), pytest.raises(NotImplementedError):
        second.capture_begin()
    second.capture_error_mode = "relaxed"
    with acc.stream(s):
        with second:
            acc.uniform_(acc.zeros((8,)))
    assert second.pool() == first.pool()
    s.synchronize()
    s.destroy()


def test_star_import_keeps_stdlib_random():
    namespace = {}
    exec("from accel import *", namespace)
    assert "random" not in namespace and "memory" not in namespace
    assert namespace["device_index"] is accel.device_index
    assert namespace["get_memory_info"] is accel.memory.get_memory_info
