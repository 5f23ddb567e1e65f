#!/usr/bin/env python3
# compare_offload.py: ZeRO-Offload's CPU phase on the same tensors two ways,
# timed alternately in one process with the same thread count:
#   deepspeed: what ZeRO-2's step() runs on the CPU (stage_1_and_2.py): the
#     inf/NaN check and the grad norm with torch, grad.mul_(1 / combined)
#     (unscale_and_clip_grads), DeepSpeedCPUAdam.step() on DeepSpeed's own
#     JIT-built cpu_adam op, and bit16_partition.copy_(fp32_partition);
#   accel: accel.deepspeed.zero_offload_step() (two passes, accel's op).
# At 2^24 and 2^26 parameters (2^22 with --quick), fp32 and bf16 grads
# (bf16 grads go through an fp32 grad buffer on the DeepSpeed side, as
# ZeRO-2 keeps one). Not a test: without torch and deepspeed (the venv that
# scripts/test-deepspeed.sh fills, ~/.cache/accel/venv-ds) it says why and
# exits 0.
import argparse
import os
import statistics
import sys
import time

HYPER = {"lr": 1e-3, "betas": (0.9, 0.999), "eps": 1e-8, "weight_decay": 0.01}
VENV = os.environ.get("ACCEL_DS_VENV", os.path.expanduser("~/.cache/accel/venv-ds"))


def skip(why):
    print("compare_offload: SKIPPED: %s" % why)
    print("  (torch and deepspeed come from the venv scripts/test-deepspeed.sh fills: %s;\n"
          "   run this script with %s/bin/python)" % (VENV, VENV))
    sys.exit(0)


def parse_args():
    parser = argparse.ArgumentParser(description="ZeRO-Offload CPU phase: accel vs DeepSpeed")
    parser.add_argument("--quick", action="store_true", help="2^22 only, 3 repetitions")
    parser.add_argument("--reps", type=int, help="timed repetitions per side (default 7)")
    args = parser.parse_args()
    args.reps = args.reps or (3 if args.quick else 7)
    args.sizes = [22] if args.quick else [24, 26]
    return args


def deepspeed_phase(torch, opt, fp32_grad, lp, loss_scale, clip_grad):
    """ZeRO-2's CPU work for one step, as stage_1_and_2.py does it."""
    params = [p for g in opt.param_groups for p in g["params"]]
    grad = params[0].grad
    overflow = bool(torch.logical_or(grad.isnan(), grad.isinf()).any())  # _has_inf_or_nan
    if overflow:
        return True
    norm = torch.tensor(float(grad.double().norm(2)), dtype=torch.float)
    combined = loss_scale
    if clip_grad > 0:
        clip = torch.clamp(((norm / loss_scale) + 1e-6) / clip_grad, min=1.0)
        combined = clip * loss_scale
    if fp32_grad is not None:  # bf16 grads: into the fp32 grad buffer first
        fp32_grad.copy_(grad)
        params[0].grad = fp32_grad
    params[0].grad.data.mul_(1. / combined)
    opt.step()
    lp.data.copy_(params[0].data)
    if fp32_grad is not None:
        params[0].grad = grad
    return False


def time_once(fn, reset):
    """Seconds of fn(); reset() (untimed) first."""
    if reset is not None:
        reset()
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main():
    args = parse_args()
    try:
        import torch
        import deepspeed  # noqa: F401
        from deepspeed.ops.adam import DeepSpeedCPUAdam
    except ImportError as exc:
        skip("torch or deepspeed is not importable here (%s)" % exc)
    import accel.deepspeed as ads
    from accel.deepspeed import cpu_adam as accel_cpu_adam

    threads = len(os.sched_getaffinity(0))
    torch.set_num_threads(int(os.environ.get("ACCEL_CPU_THREADS", threads)))
    print("compare_offload: %d threads; loss_scale 1024, clip 1.0; median of %d repetitions"
          % (torch.get_num_threads(), args.reps))
    print("%-26s %12s %12s %8s" % ("case", "deepspeed ms", "accel ms", "ratio"))
    for log2 in args.sizes:
        n = 1 << log2
        for grad_dtype in (torch.float32, torch.bfloat16):
            sides, resets = {}, {}
            for side in ("deepspeed", "accel"):
                p = torch.nn.Parameter(torch.rand(n) * 0.5)
                if grad_dtype != torch.float32 and hasattr(p, "grad_dtype"):
                    p.grad_dtype = None  # torch >= 2.10 refuses a bf16 grad on an f32 param
                p.grad = (torch.randn(n) * 64).to(grad_dtype)
                opt = DeepSpeedCPUAdam([p], **HYPER)
                lp = torch.zeros(n, dtype=torch.bfloat16)
                fp32_grad = torch.zeros(n) if grad_dtype != torch.float32 else None
                if side == "accel":
                    accel_cpu_adam.create_adam(opt.opt_id, adamw_mode=opt.adam_w_mode)
                    sides[side] = lambda opt=opt, lp=lp: ads.zero_offload_step(
                        opt, [lp], 1024.0, 1.0)
                    resets[side] = None
                else:
                    sides[side] = lambda opt=opt, g=fp32_grad, lp=lp: deepspeed_phase(
                        torch, opt, g, lp, 1024.0, 1.0)
                    saved = p.grad.clone()
                    # mul_ scaled f32 grads in place: fresh grads each step, untimed
                    resets[side] = (lambda p=p, saved=saved: p.grad.data.copy_(saved)
                                    if fp32_grad is None else None)
                time_once(sides[side], resets[side])  # warm-up: states, JIT build, pages
            times = {side: [] for side in sides}
            for _ in range(args.reps):
                for side, fn in sides.items():
                    times[side].append(time_once(fn, resets[side]))
            ds, ac = (statistics.median(times[s]) for s in ("deepspeed", "accel"))
            label = "2^%d %s grads" % (log2, "f32" if grad_dtype == torch.float32 else "bf16")
            print("%-26s %12.2f %12.2f %7.2fx" % (label, ds * 1e3, ac * 1e3, ds / ac))
    print("ratio = DeepSpeed time / accel time (> 1: accel faster); the f32 grads DeepSpeed "
          "scales in place are restored between steps, untimed.")


if __name__ == "__main__":
    main()
