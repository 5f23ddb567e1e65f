# test_zenflow_adam.py: ZenFlow's zenflow_adam_* functions of
# accel.deepspeed.cpu_adam without torch: an optimizer process started with
# spawn steps shared-memory numpy buffers through the control block, and each
# step must equal adam_update on a mirror bit for bit, alternating the double
# buffers (DeepSpeed's test_zenflow_adam_cross_process, which
# scripts/test-deepspeed.sh runs with torch). Also the refusals.
import multiprocessing as mp
from multiprocessing import shared_memory

import numpy as np
import pytest

from accel.deepspeed import cpu_adam as op

N = 100003  # not a multiple of any SIMD width
HP = (1e-3, 0.9, 0.999, 1e-8, 0.01)


def optimizer_process(names, ready):
    from accel.deepspeed import cpu_adam, step_counts
    shms = [shared_memory.SharedMemory(name=name) for name in names]
    arrays = [np.ndarray((N,), np.float32, buffer=s.buf) for s in shms[:-1]]
    control = np.ndarray((cpu_adam.zenflow_adam_ctrl_size(),), np.uint8, buffer=shms[-1].buf)
    cpu_adam.create_adam(0, *HP, True, False)
    handle = cpu_adam.zenflow_adam_create(0, [0])
    cpu_adam.zenflow_adam_register_group(handle, *arrays)
    ready.set()
    cpu_adam.zenflow_adam_run_worker(handle, control.ctypes.data)
    cpu_adam.zenflow_adam_destroy(handle)
    assert step_counts()["cpu_adam"] == 5  # each step ran in libaccel
    del arrays, control
    for s in shms:
        s.close()


def test_cross_process_steps_match_adam_update():
    size = op.zenflow_adam_ctrl_size()
    shms = [shared_memory.SharedMemory(create=True, size=N * 4) for _ in range(8)]
    shms.append(shared_memory.SharedMemory(create=True, size=size))
    try:
        # param, grad0, grad1, exp_avg0, exp_avg1, exp_avg_sq0, exp_avg_sq1, stale
        arrays = [np.ndarray((N,), np.float32, buffer=s.buf) for s in shms[:-1]]
        rng = np.random.default_rng(0)
        for a in arrays:
            a[:] = 0
        arrays[0][:] = rng.standard_normal(N)
        control = np.ndarray((size,), np.uint8, buffer=shms[-1].buf)
        op.zenflow_adam_ctrl_init(control.ctypes.data, 1)
        op.create_adam(1, *HP, True, False)
        p_ref = arrays[0].copy()
        m_ref = [np.zeros(N, np.float32), np.zeros(N, np.float32)]
        v_ref = [np.zeros(N, np.float32), np.zeros(N, np.float32)]
        ctx = mp.get_context("spawn")
        ready = ctx.Event()
        proc = ctx.Process(target=optimizer_process, args=([s.name for s in shms], ready))
        proc.start()
        try:
            assert ready.wait(60)
            assert op.zenflow_adam_wait(control.ctypes.data, 0.05) is False  # nothing pending
            for step in range(1, 6):
                now = step & 1
                grad = rng.standard_normal(N).astype(np.float32)
                arrays[1 + now][:] = grad
                op.zenflow_adam_submit(control.ctypes.data, now, step, [HP[0]], [HP[1]],
                                       [HP[2]], [HP[3]], [HP[4]], [1])
                assert op.zenflow_adam_wait(control.ctypes.data, 60.0), step
                op.adam_update(1, step, *HP, True, p_ref, grad, m_ref[now], v_ref[now])
                assert np.array_equal(arrays[0], p_ref), step
                assert np.array_equal(arrays[3 + now], m_ref[now]), step
                assert np.array_equal(arrays[5 + now], v_ref[now]), step
                assert np.array_equal(arrays[7], p_ref), step  # the stale snapshot
            op.zenflow_adam_ctrl_exit(control.ctypes.data)
            proc.join(30)
            assert proc.exitcode == 0
        finally:
            if proc.is_alive():
                proc.terminate()
            op.destroy_adam(1)
        del arrays, control
    finally:
        for s in shms:
            s.close()
            s.unlink()


def test_refusals():
    control = np.zeros(op.zenflow_adam_ctrl_size(), np.uint8)
    with pytest.raises(RuntimeError, match="at most 1024"):
        op.zenflow_adam_ctrl_init(control.ctypes.data, 1025)
    with pytest.raises(ValueError, match="NULL"):
        op.zenflow_adam_ctrl_init(0, 1)
    op.zenflow_adam_ctrl_init(control.ctypes.data, 1)
    with pytest.raises(ValueError, match="one entry per group"):
        op.zenflow_adam_submit(control.ctypes.data, 0, 1, [1e-3, 1e-3], [0.9], [0.999], [1e-8],
                               [0.0], [1])
    with pytest.raises(RuntimeError, match="no ZenFlowAdam handle 12345"):
        op.zenflow_adam_run_worker(12345, control.ctypes.data)
    with pytest.raises(TypeError, match="zf_affinity"):
        op.zenflow_adam_create(0, ["a"])
    p = np.zeros(8, np.float32)
    handle = op.zenflow_adam_create(0, [])
    with pytest.raises(ValueError, match="stale has 16 bytes"):
        op.zenflow_adam_register_group(handle, p, p.copy(), p.copy(), p.copy(), p.copy(),
                                       p.copy(), p.copy(), np.zeros(4, np.float32))
    op.zenflow_adam_destroy(handle)
