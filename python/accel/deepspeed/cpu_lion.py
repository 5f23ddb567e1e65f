# cpu_lion.py: the functions of DeepSpeed's compiled cpu_lion module
# (csrc/lion/cpu_lion.cpp: create_lion, lion_update, destroy_lion) with the
# same arguments and return values, running accel's CPULion kernels.
# DeepSpeedCPULion calls them through CPULionBuilder().load().
import ctypes

from .. import _lib
from . import _ops

_optimizers = {}


def create_lion(optimizer_id, alpha=1e-3, betta1=0.9, betta2=0.999, weight_decay=0.0,
                should_log=False):
    """Register optimizer `optimizer_id`. 0."""
    _optimizers[int(optimizer_id)] = {"lr": alpha, "betas": (betta1, betta2),
                                      "weight_decay": weight_decay}
    if should_log:
        _, op = _ops.table("cpu_lion")
        print("Lion Optimizer #%d is created with %s arithmetic capability (accel)."
              % (optimizer_id, op.implementation.decode()))
        print("Config: alpha=%f, betas=(%f, %f), weight_decay=%f"
              % (alpha, betta1, betta2, weight_decay))
    return 0


def lion_update(optimizer_id, step, lr, beta1, beta2, weight_decay, params, grads, exp_avg):
    """One Lion step over params and exp_avg, in place. 0."""
    _ops.lookup(_optimizers, optimizer_id, "Lion", "create_lion")
    handle, op = _ops.table("cpu_lion")
    config = _lib.LionConfig(lr, beta1, beta2, weight_decay)
    keep = [_ops.as_dltensor(t, name, name != "grads") for t, name in
            ((params, "params"), (grads, "grads"), (exp_avg, "exp_avg"))]
    _lib._checker(op.step(handle, None, ctypes.byref(config), keep[0][1], keep[1][1],
                          keep[2][1]), op.step, ())
    _ops.count("cpu_lion")
    return 0


def destroy_lion(optimizer_id):
    _optimizers.pop(int(optimizer_id), None)
    return 0
