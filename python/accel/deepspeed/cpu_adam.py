# cpu_adam.py: the functions of DeepSpeed's compiled cpu_adam module
# (csrc/adam/cpu_adam.cpp: create_adam, adam_update, adam_rollback,
# destroy_adam, and ZenFlow's zenflow_adam_* from _zenflow_adam.py) with the
# same arguments and return values, running accel's CPUAdam kernels
# (include/accel/accel_ops.h). DeepSpeedCPUAdam calls these through
# CPUAdamBuilder().load(); see accel.deepspeed for the glue.
import collections
import ctypes

from .. import _lib
from . import _ops
from ._zenflow_adam import (zenflow_adam_create, zenflow_adam_ctrl_exit,  # noqa: F401
                            zenflow_adam_ctrl_init, zenflow_adam_ctrl_size,
                            zenflow_adam_destroy, zenflow_adam_register_group,
                            zenflow_adam_run_worker, zenflow_adam_submit, zenflow_adam_wait)

# optimizer_id -> hyper-parameters given to create_adam (adamw_mode is the one
# adam_update does not pass again)
_optimizers = {}


def create_adam(optimizer_id, alpha=1e-3, betta1=0.9, betta2=0.999, eps=1e-8,
                weight_decay=0.0, adamw_mode=True, should_log=False):
    """Register optimizer `optimizer_id` (replacing one of that id). 0."""
    _optimizers[int(optimizer_id)] = {"lr": alpha, "betas": (betta1, betta2), "eps": eps,
                                      "weight_decay": weight_decay,
                                      "adamw_mode": bool(adamw_mode)}
    if should_log:
        _, op = _ops.table("cpu_adam")
        print("Adam Optimizer #%d is created with %s arithmetic capability (accel)."
              % (optimizer_id, op.implementation.decode()))
        print("Config: alpha=%f, betas=(%f, %f), weight_decay=%f, adam_w=%d"
              % (alpha, betta1, betta2, weight_decay, int(bool(adamw_mode))))
    return 0


def adam_update(optimizer_id, step, lr, beta1, beta2, epsilon, weight_decay, bias_correction,
                params, grads, exp_avg, exp_avg_sq):
    """One Adam(W) step, number `step` (>= 1), updating params, exp_avg and
    exp_avg_sq in place (contiguous host tensors, any DLPack producer). 0."""
    opt = _ops.lookup(_optimizers, optimizer_id, "Adam", "create_adam")
    handle, op = _ops.table("cpu_adam")
    config = _lib.AdamConfig(lr, beta1, beta2, epsilon, weight_decay, bool(bias_correction),
                             opt["adamw_mode"])
    keep = [_ops.as_dltensor(t, name, name != "grads") for t, name in
            ((params, "params"), (grads, "grads"), (exp_avg, "exp_avg"),
             (exp_avg_sq, "exp_avg_sq"))]
    step = _lib.int_arg(step, "step", "uint64")
    _lib._checker(op.step(handle, None, ctypes.byref(config), step, keep[0][1], keep[1][1],
                          keep[2][1], keep[3][1]), op.step, ())
    _ops.count("cpu_adam")
    return 0


OffloadResult = collections.namedtuple("OffloadResult", "overflow grad_norm combined_scale")


def adam_update_offload(optimizer_id, entries, loss_scale=1.0, clip_grad=0.0):
    """ZeRO-Offload's CPU phase for the tensors of optimizer `optimizer_id`
    in two passes over memory (accel_adam_op_t.offload_step): the inf/NaN
    check and the L2 norm of all the (loss-scaled) grads, then for each
    entry the Adam step with DeepSpeed's unscale/clip factor applied on read
    and the param's bf16/fp16 copy written beside it.

    entries: a list of dicts with params, grads, exp_avg, exp_avg_sq (float32
    except grads: float32, float16 or bfloat16), lp_params (optional, float16
    or bfloat16, None = no copy), step (>= 1) and that entry's group
    hyper-parameters lr, betas, eps, weight_decay, bias_correction.
    Returns OffloadResult(overflow, grad_norm, combined_scale); on overflow
    nothing was written. Bad input raises and writes nothing."""
    opt = _ops.lookup(_optimizers, optimizer_id, "Adam", "create_adam")
    handle, op = _ops.table("cpu_adam")
    if not op.has_member("offload_step") or not op.offload_step:
        raise RuntimeError("accel: this libaccel's CPUAdam has no offload_step; update accel")
    entries = list(entries)
    keep = []
    c_entries = (_lib.OffloadEntry * max(len(entries), 1))()
    for i, entry in enumerate(entries):
        beta1, beta2 = entry["betas"]
        config = _lib.AdamConfig(entry["lr"], beta1, beta2, entry["eps"], entry["weight_decay"],
                                 bool(entry["bias_correction"]), opt["adamw_mode"])
        tensors = []
        for name in ("params", "grads", "exp_avg", "exp_avg_sq", "lp_params"):
            t = entry.get(name)
            if t is None and name == "lp_params":
                tensors.append(None)
                continue
            kept = _ops.as_dltensor(t, "entry %d %s" % (i, name), name != "grads")
            keep.append(kept)
            tensors.append(kept[1])
        keep.append(config)
        c_entries[i] = _lib.OffloadEntry(tensors[0], tensors[1], tensors[2], tensors[3],
                                         tensors[4], ctypes.pointer(config),
                                         _lib.int_arg(entry["step"], "step", "uint64"))
    offload = _lib.OffloadConfig(ctypes.sizeof(_lib.OffloadConfig), loss_scale, clip_grad)
    result = _lib.OffloadResult()
    _lib._checker(op.offload_step(handle, None, ctypes.byref(offload), len(entries), c_entries,
                                  ctypes.byref(result)), op.offload_step, ())
    return OffloadResult(bool(result.overflow), result.grad_norm, result.combined_scale)


def adam_rollback(optimizer_id, step, lr, beta1, beta2, epsilon, weight_decay, bias_correction,
                  params, grads, exp_avg, exp_avg_sq):
    """Undo step number `step` of AdamW given the gradient it used (DeepSpeed's
    adam_rollback): float32 only, in place; returns 0, or -1 (printing why)
    for other dtypes, as DeepSpeed does. Computed with numpy on views of the
    tensors (needs numpy >= 1.22)."""
    _ops.lookup(_optimizers, optimizer_id, "Adam", "create_adam")
    import numpy as np
    views = []
    for t, name in ((params, "params"), (grads, "grads"), (exp_avg, "exp_avg"),
                    (exp_avg_sq, "exp_avg_sq")):
        if getattr(t, "requires_grad", False) and hasattr(t, "detach"):
            t = t.detach()  # the same memory
        try:
            view = np.from_dlpack(t)
        except (BufferError, RuntimeError, TypeError, ValueError):
            view = None  # bfloat16 and other dtypes numpy has not
        if view is None or view.dtype != np.float32:
            print("Error: Adam rollback currently only supports float32 tensors")
            return -1
        if not view.flags.c_contiguous or not view.flags.writeable and name != "grads":
            raise ValueError("accel: adam_rollback: %s must be contiguous, writable memory"
                             % name)
        views.append((t, view.reshape(-1)))
    p, g, m, v = (view for _, view in views)
    f32 = np.float32
    one = f32(1)
    b1, b2 = f32(beta1), f32(beta2)
    # The step being undone divided m and v by these bias corrections.
    corr1 = one - f32(np.power(b1, f32(step)))
    corr2 = one - f32(np.power(b2, f32(step)))
    delta = f32(lr) * (m / corr1) / (np.sqrt(v / corr2) + f32(epsilon))
    restored = (p + delta) / (one - f32(lr) * f32(weight_decay))
    restored[~np.isfinite(restored)] = 0
    p[...] = restored
    m[...] = (m - (one - b1) * g) / b1
    v[...] = (v - (one - b2) * g * g) / b2
    return 0


def destroy_adam(optimizer_id):
    """Forget optimizer `optimizer_id` (unknown ids are fine). 0."""
    _optimizers.pop(int(optimizer_id), None)
    return 0
