# test_deepspeed_ops.py: accel.deepspeed's cpu_adam / cpu_adagrad / cpu_lion
# modules (DeepSpeed's compiled-op functions) on numpy arrays: against a
# numpy reference of each step, rollback undoing a step, and bad input.
# DeepSpeed's own tests run against them in scripts/test-deepspeed.sh.
import pytest

import accel
from accel.deepspeed import (CPUAdagradBuilder, CPUAdamBuilder, CPULionBuilder, cpu_adagrad,
                             cpu_adam, cpu_lion)

np = pytest.importorskip("numpy", minversion="1.22")


def rand(n, seed):
    return np.random.default_rng(seed).standard_normal(n).astype(np.float32)


def adam_reference(p, g, m, v, step, lr, b1, b2, eps, wd, adamw):
    p, g, m, v = (x.astype(np.float64) for x in (p, g, m, v))
    if wd and not adamw:
        g = g + wd * p
    m = b1 * m + (1 - b1) * g
    v = b2 * v + (1 - b2) * g * g
    if wd and adamw:
        p = p - lr * wd * p
    bc1 = 1 - b1 ** step
    bc2 = 1 / np.sqrt(1 - b2 ** step)
    p = p - (lr / bc1) * m / (np.sqrt(v) * bc2 + eps)
    return p, m, v


@pytest.mark.parametrize("adamw", [True, False])
def test_adam_matches_reference(adamw):
    n = 1000
    p, m, v = rand(n, 1), np.zeros(n, np.float32), np.zeros(n, np.float32)
    rp, rm, rv = p.copy(), m.copy(), v.copy()
    assert cpu_adam.create_adam(3, 1e-3, 0.9, 0.999, 1e-8, 0.01, adamw, False) == 0
    for step in range(1, 6):
        g = rand(n, 100 + step)
        assert cpu_adam.adam_update(3, step, 1e-2, 0.9, 0.999, 1e-8, 0.01, True, p, g, m, v) == 0
        rp, rm, rv = adam_reference(rp, g, rm, rv, step, 1e-2, 0.9, 0.999, 1e-8, 0.01, adamw)
    np.testing.assert_allclose(p, rp, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(m, rm, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(v, rv, rtol=1e-5, atol=1e-7)
    assert cpu_adam.destroy_adam(3) == 0


def test_adam_rollback_undoes_a_step():
    n = 256
    p, m, v = rand(n, 2), rand(n, 3) * 0.1, np.abs(rand(n, 4)) * 0.01
    before = (p.copy(), m.copy(), v.copy())
    cpu_adam.create_adam(4, 1e-3, 0.9, 0.999, 1e-8, 0.01, True, False)
    g = rand(n, 5)
    cpu_adam.adam_update(4, 3, 1e-3, 0.9, 0.999, 1e-8, 0.01, True, p, g, m, v)
    assert not np.allclose(p, before[0])
    assert cpu_adam.adam_rollback(4, 3, 1e-3, 0.9, 0.999, 1e-8, 0.01, True, p, g, m, v) == 0
    for got, want in zip((p, m, v), before):
        np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-5)
    half = np.zeros(4, np.float16)
    assert cpu_adam.adam_rollback(4, 1, 1e-3, 0.9, 0.999, 1e-8, 0, True, half, half, half,
                                  half) == -1
    cpu_adam.destroy_adam(4)


def test_adagrad_and_lion_match_reference():
    n = 300
    p, v = rand(n, 6), np.zeros(n, np.float32)
    g = rand(n, 7)
    rp = p.astype(np.float64)
    cpu_adagrad.create_adagrad(1, 1e-2, 1e-10, 0.0, False)
    assert cpu_adagrad.adagrad_update(1, 1, 1e-2, 1e-10, 0.0, p, g, v) == 0
    rv = g.astype(np.float64) ** 2
    rp = rp - 1e-2 * g / (np.sqrt(rv) + 1e-10)
    np.testing.assert_allclose(p, rp, rtol=1e-5, atol=1e-6)
    cpu_adagrad.destroy_adagrad(1)

    p, m = rand(n, 8), rand(n, 9)
    rp, rm = p.astype(np.float64), m.astype(np.float64)
    cpu_lion.create_lion(2, 1e-3, 0.9, 0.99, 0.0, False)
    assert cpu_lion.lion_update(2, 1, 1e-3, 0.9, 0.99, 0.0, p, g, m) == 0
    c = 0.9 * rm + 0.1 * g
    rp = rp - 1e-3 * np.where(np.signbit(c), -1.0, 1.0)
    rm = 0.99 * rm + 0.01 * g
    np.testing.assert_allclose(p, rp, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(m, rm, rtol=1e-5, atol=1e-6)
    cpu_lion.destroy_lion(2)


def test_bad_input_is_refused_and_changes_nothing():
    cpu_adam.create_adam(5)
    p, g, m, v = (np.ones(8, np.float32) for _ in range(4))
    with pytest.raises(ValueError) as info:  # step 0
        cpu_adam.adam_update(5, 0, 1e-3, 0.9, 0.999, 1e-8, 0, True, p, g, m, v)
    assert str(info.value) and "step" in str(info.value)
    with pytest.raises(ValueError):  # sizes differ
        cpu_adam.adam_update(5, 1, 1e-3, 0.9, 0.999, 1e-8, 0, True, p, np.ones(4, np.float32),
                             m, v)
    with pytest.raises(ValueError):  # bad beta
        cpu_adam.adam_update(5, 1, 1e-3, 1.5, 0.999, 1e-8, 0, True, p, g, m, v)
    with pytest.raises(TypeError, match="params"):
        cpu_adam.adam_update(5, 1, 1e-3, 0.9, 0.999, 1e-8, 0, True, [1.0], g, m, v)
    assert p.tolist() == [1.0] * 8 and m.tolist() == [1.0] * 8
    cpu_adam.destroy_adam(5)
    with pytest.raises(RuntimeError, match="create_adam"):
        cpu_adam.adam_update(5, 1, 1e-3, 0.9, 0.999, 1e-8, 0, True, p, g, m, v)


def test_builders_look_like_deepspeeds():
    for cls, mod in ((CPUAdamBuilder, cpu_adam), (CPUAdagradBuilder, cpu_adagrad),
                     (CPULionBuilder, cpu_lion)):
        b = cls()
        assert b.name == cls.NAME and b.BUILD_VAR.startswith("DS_BUILD_")
        assert b.is_compatible()
        assert b.load() is mod
        assert b.absolute_name() == mod.__name__
    acc = accel.get_accelerator()
    assert acc.create_op_builder("CPULionBuilder").load() is cpu_lion


def test_torch_tensors_direct_path():
    torch = pytest.importorskip("torch")
    n = 512
    p = torch.nn.Parameter(torch.randn(n))  # requires grad: stepped through .data
    g, m, v = torch.randn(n), torch.zeros(n), torch.zeros(n)
    ref = [x.detach().numpy().copy() for x in (p, g, m, v)]
    cpu_adam.create_adam(7, 1e-3, 0.9, 0.999, 1e-8, 0.01, True, False)
    assert cpu_adam.adam_update(7, 1, 1e-3, 0.9, 0.999, 1e-8, 0.01, True, p, g, m, v) == 0
    cpu_adam.adam_update(7, 1, 1e-3, 0.9, 0.999, 1e-8, 0.01, True, *ref)
    assert np.array_equal(p.detach().numpy(), ref[0])  # same bits as through DLPack
    assert cpu_adam.adam_rollback(7, 1, 1e-3, 0.9, 0.999, 1e-8, 0.01, True, p, g, m, v) == 0
    half = torch.randn(n).bfloat16()
    assert cpu_adam.adam_update(7, 2, 1e-3, 0.9, 0.999, 1e-8, 0.0, True, half,
                                torch.randn(n).bfloat16(), m, v) == 0
    with pytest.raises(ValueError, match="contiguous"):
        cpu_adam.adam_update(7, 3, 1e-3, 0.9, 0.999, 1e-8, 0, True, p[::2], g[::2], m[::2],
                             v[::2])
    with pytest.raises(ValueError, match="dtype"):
        cpu_adam.adam_update(7, 3, 1e-3, 0.9, 0.999, 1e-8, 0, True, p.double(), g, m, v)
    cpu_adam.destroy_adam(7)


# ---- ZeRO-Offload's fused CPU phase (cpu_adam.adam_update_offload)

def offload_entries(n_sizes, grad_dtype, seed, lp=True):
    entries = []
    for i, n in enumerate(n_sizes):
        entries.append({"params": rand(n, seed + i), "grads": (rand(n, seed + 50 + i) * 64)
                        .astype(grad_dtype), "exp_avg": rand(n, seed + 90 + i) * 0.05,
                        "exp_avg_sq": np.abs(rand(n, seed + 99 + i)) * 0.003 + 1e-6,
                        "lp_params": np.zeros(n, np.float16) if lp else None, "step": 3 + i,
                        "lr": 1e-3, "betas": (0.9, 0.999), "eps": 1e-8,
                        "weight_decay": 0.01 * (i % 2), "bias_correction": True})
    return entries


def unfused_reference(entries, loss_scale, clip_grad, norm):
    """ZeRO-2's passes: unscale/clip in f32 (stage_1_and_2.py), the Adam
    step, the copy; on copies of the arrays."""
    norm = np.float32(norm)
    if clip_grad > 0:
        clip = (norm / np.float32(loss_scale) + np.float32(1e-6)) / np.float32(clip_grad)
        combined = max(clip, np.float32(1)) * np.float32(loss_scale)
        inverse = np.float32(1) / combined
    else:
        inverse = np.float32(1.0 / loss_scale)
    out = []
    for e in entries:
        p, m, v = e["params"].copy(), e["exp_avg"].copy(), e["exp_avg_sq"].copy()
        g = (e["grads"].astype(np.float32) * inverse).astype(np.float32)
        cpu_adam.adam_update(7, e["step"], e["lr"], 0.9, 0.999, 1e-8, e["weight_decay"], True,
                             p, g, m, v)
        out.append((p, m, v, p.astype(np.float16)))
    return out


@pytest.mark.parametrize("grad_dtype,loss_scale,clip_grad", [
    (np.float32, 1024.0, 1.0), (np.float32, 1.0, 0.0), (np.float16, 512.0, 0.5)])
def test_offload_matches_unfused(grad_dtype, loss_scale, clip_grad):
    cpu_adam.create_adam(7, adamw_mode=True)
    entries = offload_entries([4133, 1, 129, 70001], grad_dtype, 10)
    want_norm = np.sqrt(sum(np.sum(e["grads"].astype(np.float64) ** 2) for e in entries))
    before = [{k: (x.copy() if hasattr(x, "copy") else x) for k, x in e.items()}
              for e in entries]
    result = cpu_adam.adam_update_offload(7, entries, loss_scale, clip_grad)
    assert not result.overflow
    assert abs(result.grad_norm - want_norm) <= 1e-6 * want_norm
    expected = unfused_reference(before, loss_scale, clip_grad, result.grad_norm)
    for e, (p, m, v, lp) in zip(entries, expected):
        for got, want in ((e["params"], p), (e["exp_avg"], m), (e["exp_avg_sq"], v),
                          (e["lp_params"], lp)):
            assert np.array_equal(got.view(np.uint8), want.view(np.uint8))
    cpu_adam.destroy_adam(7)


def test_offload_overflow_writes_nothing():
    cpu_adam.create_adam(8)
    entries = offload_entries([1000, 77], np.float32, 20)
    entries[1]["grads"][5] = np.inf
    before = [{k: x.copy() for k, x in e.items() if hasattr(x, "copy")} for e in entries]
    result = cpu_adam.adam_update_offload(8, entries, 1024.0, 1.0)
    assert result.overflow and not np.isfinite(result.grad_norm)
    for e, b in zip(entries, before):
        for k in b:
            assert np.array_equal(e[k], b[k])
    cpu_adam.destroy_adam(8)


def test_offload_bad_input_writes_nothing():
    cpu_adam.create_adam(9)
    entries = offload_entries([100, 100], np.float32, 30)
    entries[1]["lp_params"] = np.zeros(100, np.float32)  # float32 is no low-precision copy
    before = [e["params"].copy() for e in entries]
    with pytest.raises(ValueError, match="lp_param"):
        cpu_adam.adam_update_offload(9, entries, 1.0, 0.0)
    with pytest.raises(ValueError, match="loss_scale"):
        cpu_adam.adam_update_offload(9, offload_entries([10], np.float32, 1), 0.0, 0.0)
    for e, b in zip(entries, before):
        assert np.array_equal(e["params"], b)
    cpu_adam.destroy_adam(9)


def test_zero_offload_step_counts_only_steps_that_ran():
    """zero_offload_step on a DeepSpeedCPUAdam-shaped optimizer (numpy
    tensors, states already made): state['step'] advances with a step,
    not with an overflow; lp_params get the params' copy."""
    from types import SimpleNamespace
    from accel.deepspeed import zero_offload_step

    class Param:  # torch.nn.Parameter's .data and .grad.data, hashable
        def __init__(self, n, seed):
            self.data = rand(n, seed)
            self.grad = SimpleNamespace(data=rand(n, seed + 1))
    params = [Param(300, 1), Param(17, 3)]
    state = {p: {"step": 4, "exp_avg": np.zeros(p.data.size, np.float32),
                 "exp_avg_sq": np.zeros(p.data.size, np.float32)} for p in params}
    group = dict(HYPER_GROUP, params=params)
    opt = SimpleNamespace(opt_id=11, adam_w_mode=True, param_groups=[group], state=state)
    lps = [np.zeros(300, np.float16), np.zeros(17, np.float16)]
    result = zero_offload_step(opt, lps, loss_scale=2.0, clip_grad=0.0)
    assert not result.overflow and result.combined_scale == 2.0
    assert [state[p]["step"] for p in params] == [5, 5]
    assert np.array_equal(lps[1], params[1].data.astype(np.float16))
    params[0].grad.data[3] = np.nan
    before = params[1].data.copy()
    assert zero_offload_step(opt, lps, 2.0, 0.0).overflow
    assert [state[p]["step"] for p in params] == [5, 5]
    assert np.array_equal(params[1].data, before)
    with pytest.raises(ValueError, match="lp_params"):
        zero_offload_step(opt, lps[:1])
    cpu_adam.destroy_adam(11)


HYPER_GROUP = {"lr": 1e-3, "betas": (0.9, 0.999), "eps": 1e-8, "weight_decay": 0.01,
               "bias_correction": True}
