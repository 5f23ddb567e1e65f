#!/usr/bin/env python3
# compare_cpu_adam.py: accel's CPU Adam step next to DeepSpeed's DeepSpeedCPUAdam
# and torch.optim.AdamW (foreach and fused) on this machine, in one invocation,
# all with the same thread count. accel's figures come from
# `accel bench --suite optim --json`; the others are timed here. Not a test:
# without torch and deepspeed it says how to install them and exits 0.
import argparse
import gc
import json
import os
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HYPER = {"lr": 1e-3, "betas": (0.9, 0.999), "eps": 1e-8, "weight_decay": 0.01}

INSTALL_HINT = """\
compare_cpu_adam.py needs torch and deepspeed (not installed here: {missing}).
Install them in a virtual environment, for example:
  python3 -m venv ~/venv-ds && . ~/venv-ds/bin/activate
  pip install torch --index-url https://download.pytorch.org/whl/cpu   # or: pip install torch
  pip install deepspeed ninja
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
        description="CPU Adam step: accel vs DeepSpeedCPUAdam vs torch.optim.AdamW")
    parser.add_argument("--accel", help="the accel binary (default: build/tools/accel/accel)")
    parser.add_argument("--quick", action="store_true",
                        help="2^20 and 2^22 only, fewer repetitions")
    parser.add_argument("--large", action="store_true",
                        help="also 2^28 params (~16 GiB: three optimizers at once)")
    parser.add_argument("--reps", type=int, help="timed repetitions per optimizer, alternating "
                        "(median; default 11, 3 with --quick, as accel bench)")
    parser.add_argument("--target", type=float, help="minimum seconds of one repetition "
                        "(default 0.02, 0.002 with --quick, as accel bench)")
    parser.add_argument("--threads", type=int, help="threads for everyone (default: "
                        "ACCEL_CPU_THREADS, else the CPUs in the affinity mask)")
    parser.add_argument("--json", metavar="FILE", help="write the results as JSON")
    args = parser.parse_args()
    args.reps = args.reps or (3 if args.quick else 11)
    args.target = args.target or (0.002 if args.quick else 0.02)
    args.sizes = [20, 22] if args.quick else [20, 22, 24, 26] + ([28] if args.large else [])
    return args


def find_accel(path):
    candidate = path or os.path.join(REPO, "build", "tools", "accel", "accel")
    if not os.access(candidate, os.X_OK):
        sys.exit(f"compare_cpu_adam.py: no accel binary at {candidate} "
                 "(build it, or pass --accel PATH)")
    return candidate


def run_accel(accel, args, threads):
    """accel's optim figures, from `accel bench --suite optim --json`."""
    env = dict(os.environ, ACCEL_CPU_THREADS=str(threads))
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "optim.json")
        command = [accel, "bench", "--suite", "optim", "--json", out]
        command += ["--quick"] if args.quick else []
        command += ["--large"] if args.large else []
        print("$", " ".join(command), flush=True)
        run = subprocess.run(command, env=env, capture_output=True, text=True)
        print(run.stdout, end="")
        if run.returncode != 0:
            sys.exit(f"accel bench failed ({run.returncode}): {run.stderr.strip()}")
        with open(out) as f:
            return json.load(f)


def accel_figures(report):
    """{log2: {"gparams": ..., "spread": ..., "fraction": ..., "note": ...}} for fp32 Adam."""
    rows = {}
    for fig in report["figures"]:
        for log2 in range(20, 29):
            base = f"adam f32/f32 2^{log2}"
            if fig["name"] == base and not fig["failed"]:
                rows.setdefault(log2, {}).update(gparams=fig["median"], spread=fig["spread"],
                                                 note=fig["note"])
            elif fig["name"] == base + " roofline" and not fig["failed"] and fig["baseline"]:
                # accel bench withholds a noisy ratio; the medians' quotient
                # is shown here all the same, marked with '*'.
                rows.setdefault(log2, {}).update(
                    fraction=fig["median"] / fig["baseline"]["median"],
                    fraction_noisy=fig["ratio_status"] != "ok", gbps=fig["median"],
                    roofline_gbps=fig["baseline"]["median"])
    return rows


def make_contender(torch, make_optimizer, count):
    """One optimizer over `count` fp32 params with a gradient; (optimizer,
    None) or (None, why) when it cannot be made or stepped here."""
    param = torch.nn.Parameter(torch.empty(count, dtype=torch.float32).uniform_(0.5, 0.75))
    param.grad = torch.empty(count, dtype=torch.float32).uniform_(-0.08, 0.08)
    try:
        optimizer = make_optimizer([param])
        optimizer.step()  # states allocated and touched, op built or loaded
    except (RuntimeError, TypeError, ValueError) as error:
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


def measure_size(torch, contenders, count, args):
    """accel bench's method for the Python optimizers: each calibrated to
    repetitions of at least target_s, one warm-up repetition, then the
    contenders' repetitions alternate; seconds per step of each repetition,
    median and (p90 - p10) / median."""
    live, results, skipped = [], {}, {}
    for name, make in contenders:
        optimizer, why = make_contender(torch, make, count)
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


def deepspeed_build_info(deepspeed):
    """What DeepSpeed's CPUAdamBuilder compiles with on this machine."""
    try:
        from deepspeed.accelerator import get_accelerator
        builder = get_accelerator().create_op_builder("CPUAdamBuilder")
        return {"accelerator": get_accelerator().device_name(), "simd": builder.simd_width(),
                "arch": builder.cpu_arch(), "cxx_args": builder.strip_empty_entries(
                    builder.cxx_args())}
    except Exception as error:  # informational only
        return {"error": str(error)}


def optimizers(torch, deepspeed):
    from deepspeed.ops.adam import DeepSpeedCPUAdam
    adamw = torch.optim.AdamW
    return [
        ("deepspeed", lambda p: DeepSpeedCPUAdam(p, adamw_mode=True, bias_correction=True,
                                                 **HYPER)),
        ("torch_foreach", lambda p: adamw(p, foreach=True, **HYPER)),
        ("torch_fused", lambda p: adamw(p, fused=True, **HYPER)),
    ]


def fmt_rate(entry):
    if entry is None:
        return "-"
    return f"{entry['gparams']:.3f} ({entry['spread'] * 100:.0f}%)"


def fmt_ratio(a, b):
    return f"{a['gparams'] / b['gparams']:.2f}x" if a and b else "-"


def print_table(rows):
    columns = ["params", "accel Gp/s", "roofline", "DeepSpeed", "torch foreach", "torch fused",
               "accel/DS", "accel/foreach", "accel/fused"]
    widths = [7, 15, 8, 15, 15, 15, 8, 13, 11]
    print("  ".join(c.rjust(w) for c, w in zip(columns, widths)))
    for row in rows:
        accel = row.get("accel")
        fraction = "-"
        if accel and "fraction" in accel:
            fraction = f"{accel['fraction']:.2f}" + ("*" if accel["fraction_noisy"] else "")
        cells = [f"2^{row['log2']}", fmt_rate(accel), fraction,
                 fmt_rate(row.get("deepspeed")), fmt_rate(row.get("torch_foreach")),
                 fmt_rate(row.get("torch_fused")),
                 fmt_ratio(accel, row.get("deepspeed")),
                 fmt_ratio(accel, row.get("torch_foreach")),
                 fmt_ratio(accel, row.get("torch_fused"))]
        print("  ".join(c.rjust(w) for c, w in zip(cells, widths)))
    print("G params/s = params / median step time; (n%) = (p90 - p10) / median of the "
          "repetitions;\n"
          "roofline = accel's bytes per step / step time over the p,m,v += g loop's GB/s at the "
          "same size\n(* = a spread over accel bench's noise threshold); ratios > 1: accel "
          "faster. accel's figures\ncome from its own run just before the others, on the same "
          "machine and thread count.")


def main():
    args = parse_args()
    threads = thread_count(args.threads)
    # Before torch loads its OpenMP runtime: DeepSpeed's op and torch's
    # kernels both read it.
    os.environ["OMP_NUM_THREADS"] = str(threads)
    missing = []
    try:
        import torch
    except ImportError:
        missing.append("torch")
    try:
        import deepspeed
    except ImportError:
        missing.append("deepspeed")
    except Exception as error:  # deepspeed imported but could not start
        missing.append(f"deepspeed ({error})")
    if missing:
        print(INSTALL_HINT.format(missing=", ".join(missing)))
        return 0
    accel = find_accel(args.accel)
    torch.set_num_threads(threads)
    print(f"threads: {threads} (OMP_NUM_THREADS, torch.set_num_threads, ACCEL_CPU_THREADS); "
          f"torch {torch.__version__}, deepspeed {deepspeed.__version__}; "
          f"median of {args.reps} alternating repetitions of >= {args.target} s after a warm-up")
    build = deepspeed_build_info(deepspeed)
    print(f"DeepSpeed CPUAdamBuilder: {build}", flush=True)

    report = run_accel(accel, args, threads)
    accel_rows = accel_figures(report)
    rows, skipped = [], {}
    for log2 in args.sizes:
        row = {"log2": log2, "params": 1 << log2}
        if log2 in accel_rows and "gparams" in accel_rows[log2]:
            row["accel"] = accel_rows[log2]
        contenders = [c for c in optimizers(torch, deepspeed) if c[0] not in skipped]
        results, newly_skipped = measure_size(torch, contenders, 1 << log2, args)
        for name, why in newly_skipped.items():
            print(f"{name}: skipped ({why})", flush=True)
        skipped.update(newly_skipped)
        row.update(results)
        for name, result in results.items():
            print(f"2^{log2} {name}: {result['gparams']:.3f} G params/s "
                  f"(spread {result['spread'] * 100:.0f}%)", flush=True)
        rows.append(row)
    print()
    print_table(rows)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"threads": threads, "torch": torch.__version__,
                       "deepspeed": deepspeed.__version__, "deepspeed_build": build,
                       "hyper_parameters": HYPER, "reps": args.reps, "target_s": args.target,
                       "skipped": skipped, "rows": rows, "accel_bench": report}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
