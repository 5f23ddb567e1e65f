#!/usr/bin/env python3
# compare_deepspeed_module.py: DeepSpeedCPUAdam on DeepSpeed's own JIT-built
# cpu_adam op against DeepSpeedCPUAdam on accel's module (accel.deepspeed,
# through use_accel_ops()), in one process, stepping the same tensors:
# - time to first step: constructing the optimizer (DeepSpeed: the JIT build
#   of cpu_adam into an empty TORCH_EXTENSIONS_DIR, unless --warm-cache) plus
#   its first step;
# - steps/s at each size, the two optimizers alternating, median of --reps.
# Not a test. Needs torch, deepspeed (and ninja, a C++ compiler for the JIT
# build) and accel installed in the same Python; without them it says how to
# get them (scripts/test-deepspeed.sh builds such a venv) and exits 0.
import argparse
import os
import statistics
import sys
import tempfile
import time


def parse_args():
    parser = argparse.ArgumentParser(
        description="DeepSpeedCPUAdam: DeepSpeed's JIT-built op vs accel's module")
    parser.add_argument("--sizes", default="20,22,24",
                        help="log2 of the parameter counts (default 20,22,24)")
    parser.add_argument("--reps", type=int, default=7, help="timed repetitions (median)")
    parser.add_argument("--target", type=float, default=0.2,
                        help="minimum seconds of one repetition")
    parser.add_argument("--warm-cache", action="store_true",
                        help="keep TORCH_EXTENSIONS_DIR (time a cached JIT load instead)")
    return parser.parse_args()


def main():
    args = parse_args()
    if not args.warm_cache:
        os.environ["TORCH_EXTENSIONS_DIR"] = tempfile.mkdtemp(prefix="accel-bench-ext-")
    try:
        import torch
        import deepspeed  # noqa: F401
        from deepspeed.ops.adam import DeepSpeedCPUAdam
        import accel.deepspeed
    except ImportError as exc:
        print("compare_deepspeed_module.py needs torch, deepspeed and accel in one Python (%s).\n"
              "scripts/test-deepspeed.sh makes such a venv (~/.cache/accel/venv-ds); then:\n"
              "  ~/.cache/accel/venv-ds/bin/python bench/compare_deepspeed_module.py" % exc)
        return 0
    import accel
    hyper = dict(lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01, adamw_mode=True)
    torch.manual_seed(0)
    first = torch.nn.Parameter(torch.randn(1 << 20))
    first.grad = torch.randn(1 << 20)

    # DeepSpeed's own op first: the glue below replaces the builder for later
    # constructions only; this optimizer keeps the JIT-built module.
    t0 = time.perf_counter()
    opt_ds = DeepSpeedCPUAdam([first], **hyper)
    opt_ds.step()
    ds_first = time.perf_counter() - t0
    ds_module = opt_ds.ds_opt_adam

    accel.deepspeed.use_accel_ops()
    t0 = time.perf_counter()
    opt_accel = DeepSpeedCPUAdam([first], **hyper)
    opt_accel.step()
    accel_first = time.perf_counter() - t0
    assert opt_accel.ds_opt_adam.__name__ == "accel.deepspeed.cpu_adam"
    assert ds_module is not opt_accel.ds_opt_adam

    impl = accel.get_accelerator().create_op_builder("CPUAdamBuilder").implementation()
    print("deepspeed %s, torch %s (%d threads), accel %s (%s)"
          % (deepspeed.__version__, torch.__version__, torch.get_num_threads(),
             accel.__version__, impl))
    print("time to first step (construct + 1 step, 2^20 params): DeepSpeed %.2f s (%s), "
          "accel %.4f s" % (ds_first, "cached JIT load" if args.warm_cache else
                            "JIT build into an empty TORCH_EXTENSIONS_DIR", accel_first))
    del opt_ds, opt_accel

    print("%-8s %16s %16s %8s" % ("params", "DeepSpeed st/s", "accel st/s", "ratio"))
    for log2 in [int(s) for s in args.sizes.split(",")]:
        n = 1 << log2
        param = torch.nn.Parameter(torch.randn(n))
        param.grad = torch.randn(n)
        opts = {}
        accel.deepspeed.use_accel_ops()
        opts["accel"] = DeepSpeedCPUAdam([param], **hyper)
        opts["deepspeed"] = DeepSpeedCPUAdam([param], **hyper)
        opts["deepspeed"].ds_opt_adam.destroy_adam(opts["deepspeed"].opt_id)
        opts["deepspeed"].ds_opt_adam = ds_module  # the same optimizer on DeepSpeed's op
        ds_module.create_adam(opts["deepspeed"].opt_id, hyper["lr"], 0.9, 0.999, hyper["eps"],
                              hyper["weight_decay"], True, False)
        iters = {}
        for name, opt in opts.items():  # warm up, and size a repetition
            opt.step()
            t0, k = time.perf_counter(), 0
            while time.perf_counter() - t0 < args.target:
                opt.step()
                k += 1
            iters[name] = max(k, 1)
        rates = {name: [] for name in opts}
        for _ in range(args.reps):
            for name, opt in opts.items():
                t0 = time.perf_counter()
                for _ in range(iters[name]):
                    opt.step()
                rates[name].append(iters[name] / (time.perf_counter() - t0))
        ds_rate = statistics.median(rates["deepspeed"])
        ac_rate = statistics.median(rates["accel"])
        print("2^%-6d %16.1f %16.1f %7.2fx" % (log2, ds_rate, ac_rate, ac_rate / ds_rate))
    return 0


if __name__ == "__main__":
    sys.exit(main())
