# cpu_adagrad.py: the functions of DeepSpeed's compiled cpu_adagrad module
# (csrc/adagrad/cpu_adagrad.cpp: create_adagrad, adagrad_update,
# destroy_adagrad) with the same arguments and return values, running
# accel's CPUAdagrad kernels. DeepSpeedCPUAdagrad calls them through
# CPUAdagradBuilder().load().
import ctypes

from .. import _lib
from . import _ops

_optimizers = {}


def create_adagrad(optimizer_id, alpha=1e-2, eps=1e-8, weight_decay=0.0, should_log=False):
    """Register optimizer `optimizer_id`. 0."""
    _optimizers[int(optimizer_id)] = {"lr": alpha, "eps": eps, "weight_decay": weight_decay}
    if should_log:
        _, op = _ops.table("cpu_adagrad")
        print("Adagrad Optimizer #%d is created with %s arithmetic capability (accel)."
              % (optimizer_id, op.implementation.decode()))
        print("Config: alpha=%f, weight_decay=%f" % (alpha, weight_decay))
    return 0


def adagrad_update(optimizer_id, step, lr, epsilon, weight_decay, params, grads, exp_avg_sq):
    """One Adagrad step over params and exp_avg_sq, in place. 0. (Adagrad does
    not depend on the step number; it is taken for DeepSpeed's signature.)"""
    _ops.lookup(_optimizers, optimizer_id, "Adagrad", "create_adagrad")
    handle, op = _ops.table("cpu_adagrad")
    config = _lib.AdagradConfig(lr, epsilon, weight_decay)
    keep = [_ops.as_dltensor(t, name, name != "grads") for t, name in
            ((params, "params"), (grads, "grads"), (exp_avg_sq, "exp_avg_sq"))]
    _lib._checker(op.step(handle, None, ctypes.byref(config), keep[0][1], keep[1][1],
                          keep[2][1]), op.step, ())
    _ops.count("cpu_adagrad")
    return 0


def destroy_adagrad(optimizer_id):
    _optimizers.pop(int(optimizer_id), None)
    return 0
