# zero_offload.py: ZeRO-1/2's CPU-offload step (DeepSpeed's
# deepspeed/runtime/zero/stage_1_and_2.py, step() with offload_optimizer:
# cpu) for a DeepSpeedCPUAdam, in two passes over memory instead of four:
# the overflow check and the grad norm, then unscale/clip + the Adam step +
# the copy into the bf16/fp16 partitions, on accel's CPUAdam kernels
# (cpu_adam.adam_update_offload, include/accel/accel_ops.h).
#
# Threads: as DeepSpeedCPUAdam.step: one step of an optimizer at a time.
from . import cpu_adam


def zero_offload_step(optimizer, lp_params=None, loss_scale=1.0, clip_grad=0.0):
    """What ZeRO-2's step() does on the CPU for `optimizer` (a
    DeepSpeedCPUAdam whose params are the fp32 partitions, their .grad the
    fp32 or bf16/fp16 gradient partitions): skip everything if a grad holds
    inf or NaN; else divide the grads by loss_scale * max(1, clip) with
    clip = (norm / loss_scale + 1e-6) / clip_grad (no clipping when
    clip_grad is 0), run the Adam step of every param, and copy each param
    into its entry of `lp_params` (a list parallel to the optimizer's params
    in group order, or None). The grads themselves are left as they were.

    Returns cpu_adam.OffloadResult(overflow, grad_norm, combined_scale);
    grad_norm is the loss-scaled norm, as DeepSpeed's scaled_global_norm().
    state['step'] advances only for a step that ran; optimizer states are
    created as DeepSpeedCPUAdam creates them (float32 zeros)."""
    if optimizer.opt_id not in cpu_adam._optimizers:  # DeepSpeed's own op built it
        cpu_adam.create_adam(optimizer.opt_id, adamw_mode=getattr(optimizer, "adam_w_mode", True))
    entries, stepped = [], []
    flat = [p for group in optimizer.param_groups for p in group["params"]]
    if lp_params is not None and len(lp_params) != len(flat):
        raise ValueError("accel: lp_params has %d tensors but the optimizer has %d params"
                         % (len(lp_params), len(flat)))
    index = 0
    for group in optimizer.param_groups:
        for p in group["params"]:
            lp = lp_params[index] if lp_params is not None else None
            index += 1
            if p.grad is None:
                continue
            state = optimizer.state[p]
            if len(state) == 0:
                import torch
                state["step"] = 0
                state["exp_avg"] = torch.zeros_like(p.data, dtype=torch.float)
                state["exp_avg_sq"] = torch.zeros_like(p.data, dtype=torch.float)
            entries.append({"params": p.data, "grads": p.grad.data, "exp_avg": state["exp_avg"],
                            "exp_avg_sq": state["exp_avg_sq"], "lp_params": lp,
                            "step": state["step"] + 1, "lr": group["lr"], "betas": group["betas"],
                            "eps": group["eps"], "weight_decay": group["weight_decay"],
                            "bias_correction": group.get("bias_correction", True)})
            stepped.append(state)
    result = cpu_adam.adam_update_offload(optimizer.opt_id, entries, loss_scale, clip_grad)
    if not result.overflow:
        for state in stepped:
            state["step"] += 1
    return result
