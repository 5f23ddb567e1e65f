# test_callback_errors.py: an exception raised by an add_callback function is
# not lost on the library's thread: the next synchronize() or query() of that
# stream raises it, once; other streams never see it.
import threading

import pytest

import accel


def _ran(stream):
    """An event set by a callback queued after everything on `stream`."""
    done = threading.Event()
    stream.add_callback(done.set)
    return done


def boom(text):
    def fn():
        raise KeyError(text)
    return fn


def test_synchronize_raises_the_callbacks_exception_once():
    s = accel.get_accelerator().Stream()
    s.add_callback(boom("from the callback"))
    with pytest.raises(KeyError, match="from the callback"):
        s.synchronize()
    s.synchronize()  # raised once, then cleared


def test_query_raises_it_too():
    s = accel.get_accelerator().Stream()
    s.add_callback(boom("seen by query"))
    assert _ran(s).wait(30)
    with pytest.raises(KeyError, match="seen by query"):
        s.query()
    assert s.query() is True


def test_each_exception_is_raised_in_order():
    s = accel.get_accelerator().Stream()
    s.add_callback(boom("first"))
    s.add_callback(boom("second"))
    with pytest.raises(KeyError, match="first"):
        s.synchronize()
    with pytest.raises(KeyError, match="second"):
        s.synchronize()
    s.synchronize()


def test_other_streams_do_not_see_it():
    acc = accel.get_accelerator()
    failing, other = acc.Stream(), acc.Stream()
    failing.add_callback(boom("only mine"))
    assert _ran(failing).wait(30)
    other.synchronize()
    assert other.query() is True
    with pytest.raises(KeyError, match="only mine"):
        failing.synchronize()


def test_default_stream_wrappers_share_the_error():
    acc = accel.get_accelerator()
    acc.default_stream().add_callback(boom("on the default stream"))
    with pytest.raises(KeyError, match="on the default stream"):
        acc.default_stream().synchronize()  # another wrapper of the same stream
