# check_cpu_lion.py: DeepSpeed's CPU Lion optimizer (DeepSpeedCPULion, the
# class ZeRO-Offload uses for Lion) stepped on accel's cpu_lion op, against
# a reference Lion written here with torch (the formula of
# include/accel/accel_ops.h). DeepSpeed's own Lion test compares with
# FusedLion, which has no CPU builder, so on a CPU-only machine nothing else
# steps CPU Lion through DeepSpeed. Not collected by python/tests (it needs
# torch, DeepSpeed and DeepSpeed's test harness): scripts/test-deepspeed.sh
# copies it into DeepSpeed's tests as unit/ops/lion/test_accel_cpu_lion.py,
# where DistributedTest runs it in a forkserver worker.
import pytest
import torch

import accel.deepspeed
from deepspeed.ops.lion import DeepSpeedCPULion
from unit.common import DistributedTest

STEPS = 10
HYPER = {"lr": 1e-3, "betas": (0.9, 0.99), "weight_decay": 0.01}


def reference_step(p, g, m, lr, beta1, beta2, weight_decay):
    """One Lion step in float32 on p (float32 master copy) and m, in place.
    sign() takes c's sign bit, as DeepSpeed's kernel does (+0 steps down)."""
    c = beta1 * m + (1 - beta1) * g
    if weight_decay > 0:
        p.mul_(1 - lr * weight_decay)
    p.add_(torch.where(torch.signbit(c), 1.0, -1.0) * lr)
    m.mul_(beta2).add_((1 - beta2) * g)


@pytest.mark.parametrize("dtype", [torch.float, torch.bfloat16, torch.half],
                         ids=["fp32", "bf16", "fp16"])
@pytest.mark.parametrize("size", [22, 1024, 1048576])
class TestAccelCPULion(DistributedTest):
    world_size = 1
    reuse_dist_env = True
    requires_cuda_env = False

    def test_steps_match_reference(self, dtype, size):
        torch.manual_seed(size)
        param = torch.nn.Parameter(torch.randn(size, dtype=torch.float).to(dtype))
        optimizer = DeepSpeedCPULion([param], **HYPER)
        assert optimizer.ds_opt_lion.__name__ == "accel.deepspeed.cpu_lion"
        before = accel.deepspeed.step_counts()["cpu_lion"]
        p_ref = param.detach().float().clone()
        m_ref = torch.zeros(size, dtype=torch.float)
        for _ in range(STEPS):
            grad = torch.randn(size, dtype=torch.float)
            param.grad = grad.to(dtype)
            optimizer.step()
            reference_step(p_ref, param.grad.float(), m_ref, HYPER["lr"], *HYPER["betas"],
                           HYPER["weight_decay"])
            p_ref = p_ref.to(dtype).float()  # the parameter is stored in its dtype
        # the steps ran in libaccel, in this worker
        assert accel.deepspeed.step_counts()["cpu_lion"] - before == STEPS
        state = optimizer.state[param]["exp_avg"].float()
        assert torch.allclose(state, m_ref, rtol=1e-5, atol=1e-6)
        # A c within rounding of 0 may take the other sign: 2 lr per flip.
        diff = (param.detach().float() - p_ref).abs()
        close = diff <= 1e-6 + 1e-5 * p_ref.abs() + (8e-3 if dtype != torch.float else 0) * p_ref.abs()
        flips = (~close).sum().item()
        assert flips <= max(1, size // 10000), "%d of %d elements differ" % (flips, size)
        assert diff.max().item() <= 2 * HYPER["lr"] * STEPS + 1e-2 * p_ref.abs().max().item()
