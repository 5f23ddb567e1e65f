# graphs.py: accel.Graph, torch.accelerator.Graph's interface (keep_graph,
# pool, capture_error_mode; capture_begin/capture_end/instantiate/replay/
# reset/pool/enable_debug_mode/debug_dump; a context manager) over the C
# graph API. Pool sharing is accel_graph_create_sharing_pool: graphs made
# with the token another graph's pool() returned allocate from one private
# pool, which lives while any of them does (accel.h, graphs).
# Ownership: a Graph owns its C graph (made at construction and again
# after reset); destroy() or collection frees it. Threads: one thread at a
# time per Graph; the pool table is locked.
import ctypes
import itertools
import threading
import warnings
import weakref

from . import _lib
from ._errors import AccelUnsupported
from ._lib import P, c_void_p, lib

_lib.declare({
    "accel_graph_create_sharing_pool": (_lib.STATUS, [c_void_p, c_void_p, P(c_void_p)]),
})

CAPTURE_ERROR_MODES = ("default", "global", "thread_local", "relaxed")

# pool token (serial, 0) -> the live Graphs allocating from that pool
_pools = {}
_pools_lock = threading.Lock()
_serials = itertools.count(1)


def _check_mode(mode):
    if mode not in CAPTURE_ERROR_MODES:
        raise ValueError("accel: capture_error_mode must be one of %s, not %r"
                         % (", ".join(CAPTURE_ERROR_MODES), mode))
    return mode


def _check_pool(pool):
    if pool is None:
        return None
    with _pools_lock:
        known = isinstance(pool, tuple) and pool in _pools
    if not known:
        raise ValueError("accel: pool %r is not a token from an accel Graph's pool()" % (pool,))
    return pool


class Graph:
    """Recorded stream work that can be replayed (torch.accelerator.Graph).

    keep_graph: torch keeps the captured graph un-instantiated until
    instantiate() or the first replay(); accel's C graph is instantiated by
    capture_end on every backend, so this only changes which calls are
    allowed, as in torch. pool: another graph's pool() token: both graphs
    allocate from one private pool. capture_error_mode: "default" and
    "relaxed" capture as accel does (CUDA's relaxed mode); "global" and
    "thread_local" are refused at capture_begin (accel cannot ask for them)."""

    def __init__(self, keep_graph=False, *, pool=None, capture_error_mode="default", acc=None):
        from .accelerator import get_accelerator
        self._acc = acc or get_accelerator()
        self.keep_graph = bool(keep_graph)
        self.graph_pool = _check_pool(pool)
        self.capture_error_mode = _check_mode(capture_error_mode)
        self._handle = self._token = self._made_with = self._stream = None
        self._captured = self._instantiated = self._debug = False
        self._replays = 0
        self._make()

    # ---- the C graph and its pool
    def _make(self):
        pool = self.graph_pool
        with _pools_lock:
            token = pool if pool is not None else (next(_serials), 0)
            members = _pools.setdefault(token, [])
            donors = [g for g in (ref() for ref in members)
                      if g is not None and g._handle is not None and g._acc is self._acc]
        handle = c_void_p()
        if donors:
            lib.accel_graph_create_sharing_pool(self._acc._handle, donors[0]._handle,
                                                ctypes.byref(handle))
        else:
            lib.accel_graph_create(self._acc._handle, ctypes.byref(handle))
        with _pools_lock:
            _pools[token].append(weakref.ref(self))
        self._handle, self._token, self._made_with = handle.value, token, pool

    def _drop(self):
        if self._handle is None:
            return
        lib.accel_graph_destroy(self._handle)  # refused (raises) while capturing
        self._handle = None
        with _pools_lock:
            _pools[self._token] = [r for r in _pools[self._token]
                                   if r() is not None and r() is not self]

    def _check(self):
        if self._handle is None:
            raise ValueError("accel: this graph was destroyed")
        return self._handle

    # ---- capture
    def _begin(self, stream):
        """Start capturing the work queued on `stream`."""
        # graph_pool and capture_error_mode may have been set since (torch's reset note)
        self.graph_pool = _check_pool(self.graph_pool)
        _check_mode(self.capture_error_mode)
        if self.capture_error_mode in ("global", "thread_local"):
            raise AccelUnsupported(
                "accel: capture_error_mode %r is not available: accel captures in relaxed "
                "mode on every backend (use 'default' or 'relaxed')" % self.capture_error_mode,
                "ACCEL_ERROR_UNSUPPORTED", "capture_begin")
        if self._handle is None or (self.graph_pool != self._made_with and not self._captured):
            self._drop()
            self._make()
        lib.accel_graph_capture_begin(self._handle, stream._check())
        self._stream = stream

    def capture_begin(self):
        """Begin capturing the work queued on the calling thread's current
        stream of the current device."""
        self._begin(self._acc.current_stream())

    def capture_end(self):
        if self._stream is None or self._captured:
            raise RuntimeError("accel: capture_end() without capture_begin()")
        try:
            lib.accel_graph_capture_end(self._check(), self._stream._check())
        except Exception:
            self._stream = None  # the C capture is over either way
            raise
        self._captured = True
        self._instantiated = not self.keep_graph

    def instantiate(self):
        """torch's explicit instantiation, for keep_graph=True graphs."""
        if not self._captured:
            raise RuntimeError("accel: capture_end() must have been called before instantiate()")
        if self._instantiated and not self.keep_graph:
            raise RuntimeError("accel: instantiate() is for graphs made with keep_graph=True; "
                               "capture_end instantiated this one")
        self._instantiated = True

    def replay(self, stream=None):
        """Queue the captured work on `stream`, default the calling thread's
        current stream of the capture's device (torch's choice)."""
        if not self._captured:
            raise RuntimeError("accel: replay() without a preceding successful capture")
        if not self._instantiated:
            self.instantiate()
        if stream is None:
            stream = self._acc.current_stream(self._stream.device)
        lib.accel_graph_replay(self._check(), stream._check())
        self._replays += 1

    def reset(self):
        """Delete the captured graph (its pool's memory goes when no other
        graph shares it); the Graph can capture again, with graph_pool and
        capture_error_mode as set now."""
        self._drop()
        self._captured = self._instantiated = False
        self._stream, self._replays = None, 0

    def pool(self):
        """The token another Graph(pool=...) shares this graph's pool with."""
        if not self._captured:
            raise RuntimeError("accel: pool() without a preceding successful capture")
        return self._token

    # ---- debugging
    def enable_debug_mode(self):
        self._debug = True

    def debug_dump(self, path):
        """Write the graph, as accel knows it, to `path` in Graphviz DOT (the
        C API does not expose the backend's captured nodes, so this is one
        node: backend, device, capture stream, pool, state, replays).
        Without enable_debug_mode() it warns and writes nothing, as torch."""
        if not self._debug:
            warnings.warn("accel: graph debug mode is off; call enable_debug_mode() first",
                          stacklevel=2)
            return
        if not self._captured:
            raise RuntimeError("accel: debug_dump() without a preceding successful capture")
        label = "\\n".join([
            "accel graph 0x%x" % self._handle,
            "backend %s, device %d" % (self._acc.device_name(), self._stream.device),
            "capture stream 0x%x" % (self._stream._handle or 0),
            "pool %r" % (self._token,),
            "keep_graph %s, instantiated %s" % (self.keep_graph, self._instantiated),
            "replays %d" % self._replays,
        ])
        with open(path, "w") as out:
            out.write('digraph accel_graph {\n  graph0 [shape=box, label="%s"];\n}\n' % label)

    # ---- context manager: torch's order (synchronize, release caches, begin)
    def __enter__(self):
        self._acc.synchronize()
        self._acc.empty_cache()
        self._acc.empty_host_cache()
        self.capture_begin()
        return self

    def __exit__(self, *exc_info):
        self.capture_end()

    # ---- lifetime
    def destroy(self):
        self._drop()

    def __del__(self):
        try:
            self._drop()
        except Exception:
            pass

    def __repr__(self):
        state = "captured" if self._captured else "capturing" if self._stream else "empty"
        return "accel.Graph(%s, pool=%r)" % (state, self._token)


__all__ = ["Graph"]
