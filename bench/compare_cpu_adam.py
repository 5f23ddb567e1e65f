#!/usr/bin/env python3
# compare_cpu_adam.py: like for like, DeepSpeed's CPU Adam op against accel's,
# both called from Python through the same DeepSpeedCPUAdam class (its
# step() loop, the same tensors, dtypes and thread count): one optimizer's
# ds_opt_adam is DeepSpeed's JIT-built cpu_adam, the other's is
# accel.deepspeed.cpu_adam. torch.optim.AdamW (foreach, fused) with --torch.
# Prints the machine (CPU model, cores, ISA flags, load) first. Not a test:
# without torch and deepspeed it says how to install them and exits 0.
import argparse
import gc
import json
import os
import platform
import sys
import time

HYPER = {"lr": 1e-3, "betas": (0.9, 0.999), "eps": 1e-8, "weight_decay": 0.01}
DTYPES = {"fp32": "float32", "bf16": "bfloat16", "fp16": "float16"}

INSTALL_HINT = """\
compare_cpu_adam.py needs torch and deepspeed (not installed here: {missing}).
Install them in a virtual environment, for example:
  python3 -m venv ~/venv-ds && . ~/venv-ds/bin/activate
  pip install torch --index-url https://download.pytorch.org/whl/cpu   # or: pip install torch
  pip install deepspeed ninja && pip install .    # accel, from this repository
DeepSpeedCPUAdam compiles its op on first use (JIT): it needs ninja and a C++
compiler, and DS_BUILD_OPS must be unset. Then run this script with that python."""


def thread_count(requested):
    """accel's CPU pool rule: ACCEL_CPU_THREADS when a positive integer, else
    the CPUs in this process's affinity mask."""
    if requested:
        return requested
    text = os.environ.get("ACCEL_CPU_THREADS", "")
    if text.isdigit() and int(text) > 0:
        return int(text)
    return len(os.sched_getaffinity(0))


def parse_args():
    parser = argparse.ArgumentParser(
        description="CPU Adam step through DeepSpeedCPUAdam: DeepSpeed's op vs accel's")
    parser.add_argument("--quick", action="store_true",
                        help="2^20 and 2^22 only, fewer repetitions")
    parser.add_argument("--sizes", help="comma-separated log2 sizes (default 20,22,24)")
    parser.add_argument("--dtypes", default="fp32,bf16",
                        help="param dtypes among fp32,bf16,fp16 (default fp32,bf16)")
    parser.add_argument("--torch", action="store_true",
                        help="also torch.optim.AdamW foreach and fused (fp32 only)")
    parser.add_argument("--reps", type=int, help="timed repetitions per optimizer, alternating "
                        "(median; default 11, 5 with --quick)")
    parser.add_argument("--target", type=float, help="minimum seconds of one repetition "
                        "(default 0.05, 0.01 with --quick)")
    parser.add_argument("--threads", type=int, help="threads for everyone (default: "
                        "ACCEL_CPU_THREADS, else the CPUs in the affinity mask)")
    parser.add_argument("--json", metavar="FILE", help="write the results as JSON")
    args = parser.parse_args()
    args.reps = args.reps or (5 if args.quick else 11)
    args.target = args.target or (0.01 if args.quick else 0.05)
    if args.sizes:
        args.sizes = [int(x) for x in args.sizes.split(",")]
    else:
        args.sizes = [20, 22] if args.quick else [20, 22, 24]
    args.dtypes = [d for d in args.dtypes.split(",") if d]
    for d in args.dtypes:
        if d not in DTYPES:
            parser.error("--dtypes: %s is not one of %s" % (d, ", ".join(DTYPES)))
    return args


def machine():
    """What the figures were measured on."""
    info = {"machine": platform.machine(), "kernel": platform.release(),
            "cpus_online": os.cpu_count(), "cpus_usable": len(os.sched_getaffinity(0)),
            "load_average": os.getloadavg()}
    try:
        with open("/proc/cpuinfo") as f:
            text = f.read()
        for line in text.splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "model name" and "cpu" not in info:
                info["cpu"] = value.strip()
            if key.strip() == "flags" and "isa" not in info:
                flags = set(value.split())
                info["isa"] = [f for f in ("sse4_2", "avx", "avx2", "fma", "f16c", "avx512f",
                                           "avx512bw", "avx512_bf16", "amx_bf16")
                               if f in flags]
    except OSError:
        pass
    return info


def make_contender(torch, make_optimizer, count, dtype):
    """One optimizer over `count` params of `dtype` with a gradient;
    (optimizer, None) or (None, why) when it cannot be made or stepped."""
    param = torch.nn.Parameter(torch.empty(count, dtype=torch.float32).uniform_(0.5, 0.75)
                               .to(dtype))
    param.grad = torch.empty(count, dtype=torch.float32).uniform_(-0.08, 0.08).to(dtype)
    try:
        optimizer = make_optimizer([param])
        optimizer.step()  # states allocated and touched, op built or loaded
    except (RuntimeError, TypeError, ValueError, AttributeError) as error:
        return None, str(error).splitlines()[0]
    return optimizer, None


def timed_steps(optimizer, iters):
    start = time.perf_counter()
    for _ in range(iters):
        optimizer.step()
    return time.perf_counter() - start


def calibrate(optimizer, target_s):
    """Steps per repetition so that one repetition takes at least target_s."""
    iters = 1
    while True:
        elapsed = timed_steps(optimizer, iters)
        if elapsed >= target_s:
            return iters
        iters = max(iters + 1, int(iters * target_s / max(elapsed, 1e-6) * 1.1))


def series(samples):
    ordered = sorted(samples)

    def percentile(p):
        position = p * (len(ordered) - 1)
        low = int(position)
        high = min(low + 1, len(ordered) - 1)
        return ordered[low] + (ordered[high] - ordered[low]) * (position - low)

    median = percentile(0.5)
    return {"median_s": median, "spread": (percentile(0.9) - percentile(0.1)) / median,
            "reps": len(ordered)}


def measure_size(torch, contenders, count, dtype, args):
    """accel bench's method: each optimizer calibrated to repetitions of at
    least target_s, one warm-up repetition, then the contenders'
    repetitions alternate; seconds per step of each repetition, median and
    (p90 - p10) / median."""
    live, results, skipped = [], {}, {}
    for name, make in contenders:
        optimizer, why = make_contender(torch, make, count, dtype)
        if optimizer is None:
            skipped[name] = why
            continue
        live.append((name, optimizer, calibrate(optimizer, args.target)))
    for name, optimizer, iters in live:
        timed_steps(optimizer, iters)
    samples = {name: [] for name, _, _ in live}
    for _ in range(args.reps):
        for name, optimizer, iters in live:
            samples[name].append(timed_steps(optimizer, iters) / iters)
    for name, _, _ in live:
        results[name] = series(samples[name])
        results[name]["gparams"] = count / results[name]["median_s"] / 1e9
    del live
    gc.collect()
    return results, skipped


def deepspeed_build_info():
    """What DeepSpeed's CPUAdamBuilder compiles with on this machine."""
    try:
        from deepspeed.accelerator import get_accelerator
        builder = get_accelerator().create_op_builder("CPUAdamBuilder")
        return {"accelerator": get_accelerator().device_name(), "simd": builder.simd_width(),
                "cxx_args": builder.strip_empty_entries(builder.cxx_args())}
    except Exception as error:  # informational only
        return {"error": str(error)}


def accel_op(deepspeed_adam):
    """A DeepSpeedCPUAdam factory whose ds_opt_adam is accel's module: the
    class made as usual (DeepSpeed's op loaded), then its op replaced and
    its optimizer id created in accel's registry with the same settings."""
    import accel.deepspeed.cpu_adam as accel_adam

    def make(params):
        optimizer = deepspeed_adam(params)
        optimizer.ds_opt_adam = accel_adam
        lr, betas, eps, wd = HYPER["lr"], HYPER["betas"], HYPER["eps"], HYPER["weight_decay"]
        accel_adam.create_adam(optimizer.opt_id, lr, betas[0], betas[1], eps, wd, True, False)
        return optimizer
    return make


def contenders(torch, args, dtype_name):
    from deepspeed.ops.adam import DeepSpeedCPUAdam

    def deepspeed_adam(params):
        return DeepSpeedCPUAdam(params, adamw_mode=True, bias_correction=True, **HYPER)
    out = [("DeepSpeed op", deepspeed_adam), ("accel op", accel_op(deepspeed_adam))]
    if args.torch and dtype_name == "fp32":
        adamw = torch.optim.AdamW
        out += [("torch foreach", lambda p: adamw(p, foreach=True, **HYPER)),
                ("torch fused", lambda p: adamw(p, fused=True, **HYPER))]
    return out


def main():
    args = parse_args()
    threads = thread_count(args.threads)
    # Before torch loads its OpenMP runtime: DeepSpeed's op and torch's
    # kernels both read it; accel's pool reads ACCEL_CPU_THREADS.
    os.environ["OMP_NUM_THREADS"] = str(threads)
    os.environ["ACCEL_CPU_THREADS"] = str(threads)
    missing = []
    for name in ("torch", "deepspeed", "accel"):
        try:
            __import__(name)
        except ImportError:
            missing.append(name)
        except Exception as error:  # imported but could not start
            missing.append("%s (%s)" % (name, error))
    if missing:
        print(INSTALL_HINT.format(missing=", ".join(missing)))
        return 0
    import accel
    import deepspeed
    import torch
    torch.set_num_threads(threads)
    host = machine()
    print("machine: %s, %s, %d CPUs (%d usable), ISA %s, load average %s" % (
        host.get("cpu", "?"), host["machine"], host["cpus_online"], host["cpus_usable"],
        "/".join(host.get("isa", [])), " ".join("%.2f" % x for x in host["load_average"])))
    implementation = accel.get_accelerator().create_op_builder("CPUAdamBuilder").implementation()
    build = deepspeed_build_info()
    print("threads %d; torch %s, deepspeed %s, accel %s (%s); median of %d alternating "
          "repetitions of >= %s s after a warm-up" % (
              threads, torch.__version__, deepspeed.__version__, accel.__version__,
              implementation, args.reps, args.target))
    print("DeepSpeed CPUAdamBuilder: %s" % build, flush=True)
    rows, skipped = [], {}
    for dtype_name in args.dtypes:
        dtype = getattr(torch, DTYPES[dtype_name])
        for log2 in args.sizes:
            results, newly = measure_size(torch, contenders(torch, args, dtype_name), 1 << log2,
                                          dtype, args)
            for name, why in newly.items():
                print("%s %s: skipped (%s)" % (dtype_name, name, why), flush=True)
            skipped.update(newly)
            row = {"dtype": dtype_name, "log2": log2, "results": results}
            rows.append(row)
            ds, ours = results.get("DeepSpeed op"), results.get("accel op")
            ratio = " accel/DeepSpeed %.2fx" % (ours["gparams"] / ds["gparams"]) if ds and ours \
                else ""
            print("%s 2^%d: %s%s" % (dtype_name, log2, ", ".join(
                "%s %.3f G params/s (spread %.0f%%)" % (name, r["gparams"], r["spread"] * 100)
                for name, r in results.items()), ratio), flush=True)
    end_load = os.getloadavg()
    print("load average at the end: %s" % " ".join("%.2f" % x for x in end_load))
    print("G params/s = params / median step time through DeepSpeedCPUAdam.step(); spread = "
          "(p90 - p10) / median;\nratio > 1: accel's op faster. Both ops run from Python "
          "through the same class on the same machine and thread count.")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": host, "end_load_average": end_load, "threads": threads,
                       "torch": torch.__version__, "deepspeed": deepspeed.__version__,
                       "accel": accel.__version__, "accel_kernels": implementation,
                       "deepspeed_build": build, "hyper_parameters": HYPER, "reps": args.reps,
                       "target_s": args.target, "skipped": skipped, "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
