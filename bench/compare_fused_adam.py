#!/usr/bin/env python3
# compare_fused_adam.py: torch.optim.AdamW(fused=True) on a CUDA device,
# timed the way bench/cuda_bench.c times accel's FusedAdam (fp32, the same
# tensor size, 20 steps after a warm-up, wall time around a synchronize),
# and the ratio to the accel figure that cuda_bench printed
# (FUSED_ADAM_GPARAMS_PER_S in its output, given with --accel-log).
# scripts/gpu-check.sh runs it after cuda_bench. Without torch or without a
# CUDA device it says why and exits 0: it is a comparison, not a test.
import argparse
import re
import sys
import time


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size-mib", type=int, default=256,
                        help="MiB per tensor (cuda_bench's argument; default 256)")
    parser.add_argument("--accel-log", help="cuda_bench's output, for the ratio")
    parser.add_argument("--reps", type=int, default=20)
    args = parser.parse_args()
    try:
        import torch
    except ImportError as error:
        print(f"compare_fused_adam: torch is not installed ({error}); nothing to compare")
        return 0
    if not torch.cuda.is_available():
        print("compare_fused_adam: torch sees no CUDA device; nothing to compare")
        return 0
    count = args.size_mib * (1 << 20) // 4
    param = torch.nn.Parameter(torch.zeros(count, dtype=torch.float32, device="cuda"))
    param.grad = torch.zeros_like(param)
    optimizer = torch.optim.AdamW([param], lr=1e-3, weight_decay=0.0, fused=True)
    optimizer.step()  # creates the moments
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(args.reps):
        optimizer.step()
    torch.cuda.synchronize()
    torch_rate = count * args.reps / (time.perf_counter() - start) / 1e9
    print(f"torch {torch.__version__} AdamW(fused=True) fp32 {args.size_mib} MiB/tensor: "
          f"{torch_rate:.3f} Gpar/s on {torch.cuda.get_device_name()}")
    if args.accel_log:
        try:
            with open(args.accel_log, encoding="utf-8") as log:
                found = re.search(r"^FUSED_ADAM_GPARAMS_PER_S ([0-9.]+)", log.read(), re.M)
        except OSError as error:
            found = None
            print(f"compare_fused_adam: cannot read {args.accel_log}: {error}")
        if found:
            accel_rate = float(found.group(1))
            print(f"accel FusedAdam fp32: {accel_rate:.3f} Gpar/s: "
                  f"{accel_rate / torch_rate:.2f}x of torch's fused AdamW")
        else:
            print("compare_fused_adam: no FusedAdam figure in the accel log")
    return 0


if __name__ == "__main__":
    sys.exit(main())
