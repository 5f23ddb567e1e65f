# test_accelerator.py: accel.get_accelerator()'s DeepSpeed-named methods on
# the backend the environment picks (cpu in CI), and bad input raising
# exceptions that carry accel's sentence.
import threading

import pytest

import accel


@pytest.fixture(scope="module")
def acc():
    return accel.get_accelerator()


def test_identity(acc):
    assert acc is accel.get_accelerator()
    assert acc.device_name() == acc._name
    assert acc.device_count() >= 1
    assert acc.current_device() == 0
    assert acc.current_device_name().startswith(acc.device_name())
    assert acc.is_available() is True
    assert isinstance(acc.is_synchronized_device(), bool)
    assert acc._name in accel.supported_names()
    assert accel.__version__.count(".") == 2


def test_set_device_and_bad_device(acc):
    acc.set_device(0)
    with pytest.raises(accel.AccelInvalidArgument) as info:
        acc.set_device(acc.device_count() + 7)
    assert str(info.value)  # accel's own sentence, not a generic text
    assert info.value.status == "ACCEL_ERROR_INVALID_ARGUMENT"
    assert str(info.value) == accel.last_error()
    assert acc.current_device() == 0  # nothing changed


def test_backend_names(acc):
    assert acc.communication_backend_name() in ("gloo", "ccl", "nccl", "hccl", "cncl", None)
    assert acc.get_compile_backend() == "inductor"
    acc.set_compile_backend("eager")
    assert acc.get_compile_backend() == "eager"
    with pytest.raises(ValueError, match="not supported by"):
        acc.set_compile_backend("no_such_backend")
    assert acc.get_compile_backend() == "eager"
    acc.set_compile_backend("inductor")


def test_envs(acc):
    names = acc.visible_devices_envs()
    assert names and all(isinstance(n, str) for n in names)
    assert isinstance(acc.export_envs(), list)
    env = {}
    acc.set_visible_devices_envs(env, [0, 2])
    assert env == {name: "0,2" for name in names}


def test_set_visible_devices_envs_setter_failure(acc):
    class Refusing(dict):
        def __setitem__(self, key, value):
            raise KeyError("read-only environment")

    with pytest.raises(KeyError, match="read-only"):
        acc.set_visible_devices_envs(Refusing(), [0])


def test_memory_stats(acc):
    before = acc.memory_allocated()
    t = acc.empty((1024,), "float32")
    assert acc.memory_allocated() >= before + 4096
    stats = acc.memory_stats()
    assert list(stats) == sorted(stats)
    for key in ("allocated_bytes.all.current", "reserved_bytes.all.peak", "num_ooms",
                "allocation.all.current", "requested_bytes.large_pool.freed"):
        assert key in stats
    assert stats["allocated_bytes.all.current"] == acc.memory_allocated()
    assert stats["max_split_size"] == -1
    assert acc.max_memory_allocated() >= acc.memory_allocated()
    assert acc.memory_cached() == acc.memory_reserved()
    t.free()
    assert acc.memory_allocated() == before
    acc.reset_peak_memory_stats()
    assert acc.max_memory_allocated() == acc.memory_allocated()
    acc.empty_cache()
    assert acc.total_memory() > 0
    assert 0 < acc.available_memory() <= acc.total_memory()


def test_rng_state_round_trip(acc):
    acc.manual_seed(1234)
    assert acc.initial_seed() == 1234
    state = acc.get_rng_state()
    assert isinstance(state, bytes) and len(state) == 16
    a = acc.uniform_(acc.empty((64,)))
    acc.synchronize()
    acc.set_rng_state(state)
    b = acc.uniform_(acc.empty((64,)))
    acc.synchronize()
    assert bytes(memoryview_of(a)) == bytes(memoryview_of(b))
    c = acc.uniform_(acc.empty((64,)))
    acc.synchronize()
    assert bytes(memoryview_of(c)) != bytes(memoryview_of(b))
    with pytest.raises(ValueError):
        acc.set_rng_state(b"short")
    assert acc.get_rng_state() != state  # the refused call changed nothing


def memoryview_of(tensor):
    import ctypes
    return (ctypes.c_char * tensor.nbytes).from_address(tensor.data_ptr())


def test_stream_context_restores_previous(acc):
    default = acc.current_stream()
    s1, s2 = acc.Stream(), acc.Stream()
    assert isinstance(s1, accel.Stream)
    with acc.stream(s1):
        assert acc.current_stream() == s1
        with acc.stream(s2):
            assert acc.current_stream() == s2
        assert acc.current_stream() == s1
    assert acc.current_stream() == default
    with pytest.raises(RuntimeError):
        with acc.stream(s1):
            raise RuntimeError("body failed")
    assert acc.current_stream() == default
    with acc.stream(None):
        assert acc.current_stream() == default


def test_current_stream_is_per_thread(acc):
    s = acc.Stream()
    seen = []
    with acc.stream(s):
        t = threading.Thread(target=lambda: seen.append(acc.current_stream() == s))
        t.start()
        t.join()
    assert seen == [False]


def test_events_and_callbacks(acc):
    s = acc.Stream()
    start, end = acc.Event(enable_timing=True), acc.Event(enable_timing=True)
    ran = []
    start.record(s)
    s.add_callback(lambda: ran.append(1))
    end.record(s)
    end.synchronize()
    assert ran == [1]
    assert end.query()
    s.synchronize()
    assert s.query()
    ms = start.elapsed_time(end)
    assert ms >= 0.0
    untimed = acc.Event()
    untimed.record(s)
    untimed.synchronize()
    with pytest.raises(accel.AccelError):
        untimed.elapsed_time(end)
    other = acc.Stream()
    other.wait_stream(s)
    other.synchronize()


def test_graph_capture_and_replay(acc):
    if not acc.is_graphs_supported():
        pytest.skip("no graphs on " + acc.device_name())
    t = acc.zeros((256,))
    g = acc.create_graph()
    with acc.capture_to_graph(g):
        acc.uniform_(t)
    acc.synchronize()
    view = memoryview_of(t)
    view[:] = b"\0" * t.nbytes
    acc.replay_graph(g)
    acc.synchronize()
    assert any(view[:])  # the replay filled the tensor again
    with pytest.raises(ValueError, match="already captured"):
        with acc.capture_to_graph(g):
            pass


def test_op_builders(acc):
    names = acc.op_builder_names()
    assert "CPUAdamBuilder" in names
    builder_cls = acc.get_op_builder("CPUAdamBuilder")
    assert builder_cls.NAME == "cpu_adam"
    builder = builder_cls()
    assert builder.is_compatible() and builder.is_installed()
    mod = builder.load()
    assert hasattr(mod, "adam_update") and hasattr(mod, "create_adam")
    missing = acc.create_op_builder("NoSuchBuilder")
    assert missing.NAME == "deepspeed_not_implemented"
    assert not missing.is_compatible()
    assert missing.incompatible_reason()
    with pytest.raises(NotImplementedError):
        missing.load()


def test_lazy_call_and_ranges(acc):
    calls = []
    acc.lazy_call(lambda: calls.append(1))
    acc.synchronize()
    assert calls == [1] or not acc.is_initialized()
    acc.range_push("outer")
    acc.range_pop()
    with pytest.raises(LookupError):
        acc.range_pop()


def test_open_and_close():
    acc = accel.open("cpu")
    assert acc.selection_method() == "explicit"
    s = acc.Stream()
    with pytest.raises(ValueError):
        acc.close()  # a stream is alive
    s.destroy()
    t = acc.zeros((16,))
    acc.close()
    t.free()  # its memory went with the accelerator: nothing to free, no crash
    with pytest.raises(ValueError, match="freed"):
        t.shape
    with pytest.raises(accel.AccelNotFound):
        accel.open("no_such_backend")
