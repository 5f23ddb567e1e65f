#!/usr/bin/env python3
# check_bench_json.py: runs `accel bench --quick --json FILE [--suite NAME]`
# and checks that it completes and writes one valid JSON object with machine
# info, the backend and a list of figures carrying median, spread, reps,
# baseline, ratio and direction; with --suite, only that suite's figures (and
# for optim and aio: every figure ran, sizes, units, goals, notes). A smoke test: it never
# judges a timing.
import json
import os
import re
import subprocess
import sys
import tempfile


def fail(message, output=""):
    print("FAIL:", message)
    if output:
        print("--- output\n" + output)
    sys.exit(1)


ALL_SUITES = {"startup", "dispatch", "alloc", "copy", "rng", "stream", "optim", "aio"}
# fp32 figures compared with a plain single-thread C loop of the same formula.
PLAIN_LOOP_FIGURES = {"adam f32/f32 2^20", "adam f32/f32 2^22", "adagrad f32 2^22",
                      "lion f32 2^22"}


def check_optim(figures):
    """The optim suite's --quick figures: the STREAM ceiling (copy and triad
    with non-temporal stores, nstream, update), fp32 Adam at 2^20 and 2^22, the mixed pairs,
    Adagrad and Lion at 2^22, each as G params/s and as a fraction of its
    STREAM ceiling; the fused ZeRO-Offload phase with f32 and bf16 grads
    against the unfused one (goal 1.3) and against its ceiling; the op's
    implementation and thread count in the notes."""
    names = {figure["name"]: figure for figure in figures}
    streams = [name for name in names if name.startswith("STREAM ")]
    if len(streams) != 4:
        fail(f"optim: STREAM figures {streams}, expected copy NT, triad NT, nstream, update")
    expected = list(streams)
    for label in ("adam f32/f32 2^20", "adam f32/f32 2^22", "adam f16/f32 2^22",
                  "adam bf16/f32 2^22", "adam f16/f16 2^22", "adam bf16/bf16 2^22",
                  "adagrad f32 2^22", "lion f32 2^22"):
        expected += [label, label + " ceiling"]
    offload = []
    for grads in ("f32", "bf16"):
        offload += [f"offload {grads} grads 2^22", f"offload {grads} grads 2^22 ceiling",
                    f"unfused {grads} grads 2^22 ceiling"]
    expected += offload
    if sorted(names) != sorted(expected):
        fail(f"optim figures {sorted(names)}, expected {sorted(expected)}")
    for name, figure in names.items():
        if figure["failed"]:
            fail(f"optim figure {name} failed: {figure['note']}")
        if not figure["median"] or figure["median"] <= 0:
            fail(f"optim figure {name}: median {figure['median']!r}")
        if name.startswith("STREAM "):
            if figure["unit"] != "GB/s" or "threads" not in figure["note"]:
                fail(f"optim figure {name}: unit or thread count missing")
            continue
        if name.endswith(" ceiling"):
            if figure["unit"] != "GB/s" or figure["baseline"] is None:
                fail(f"optim figure {name}: unit or STREAM baseline missing")
            if not name.startswith("unfused") and figure["goal"] != 0.8:
                fail(f"optim figure {name}: goal {figure['goal']!r}, expected 0.8")
        elif figure["unit"] != "Gpar/s":
            fail(f"optim figure {name}: unit {figure['unit']!r}, expected Gpar/s")
        if name in offload:
            if not name.endswith(" ceiling") and (figure["goal"] != 1.3
                                                  or figure["baseline"] is None):
                fail(f"optim figure {name}: goal 1.3 or unfused baseline missing")
            continue
        if name in PLAIN_LOOP_FIGURES and figure["baseline"] is None:
            fail(f"optim figure {name}: no plain-loop baseline")
        if not re.match(r"^(.*; )?(avx512|avx2|scalar), [0-9]+ threads; [0-9]+ B/param",
                        figure["note"]):
            fail(f"optim figure {name}: note {figure['note']!r} lacks implementation/threads")


def check_aio(figures):
    """The aio suite's --quick figures: a write and a read of one 16 MiB file,
    in GB/s, each five times: against dd (goal 0.95, when dd exists), fio
    and DeepSpeed's AsyncIOBuilder op (goal 1.0, each skipped with a reason
    when missing), with a note naming the I/O path and the pinned_alloc
    buffer; fio on a hugetlb buffer (no goal; skipped with a reason without
    reserved huge pages); then that buffer against a posix_memalign one (no
    goal, always measured)."""
    expected = []
    for name in ("write 16 MiB O_DIRECT", "read 16 MiB O_DIRECT"):
        expected += [(name, "dd"), (name, "fio"), (name, "DeepSpeed"), (name, "fio huge"),
                     (name, "buffer")]
    found = []
    for figure in figures:
        name = figure["name"]
        baseline = figure["baseline_name"] or figure["baseline_note"] or ""
        tool = ("dd" if figure.get("goal") == 0.95 else
                "fio huge" if "shmhuge" in baseline or "huge pages needed" in baseline else
                "fio" if "fio" in baseline else
                "buffer" if "posix_memalign" in baseline else
                "DeepSpeed")
        found.append((name, tool))
        if figure["median"] is None or figure["unit"] != "GB/s":
            fail(f"aio figure {name}: failed, or unit wrong: {figure}")
        if tool == "buffer":
            if figure.get("goal") is not None or figure["baseline"] is None:
                fail(f"aio figure {name} against a plain buffer: goal or no baseline: {figure}")
            if "pinned_alloc" not in figure["note"]:
                fail(f"aio figure {name}: note {figure['note']!r} does not name pinned_alloc")
            continue
        if tool == "fio huge":
            if figure.get("goal") is not None or "engines alone" not in figure["note"]:
                fail(f"aio figure {name} against fio on huge pages: goal or note: {figure}")
            if figure["baseline"] is None and not baseline.startswith("skipped: "):
                fail(f"aio figure {name}: no fio huge-page baseline and no reason: {baseline!r}")
            continue
        if figure.get("goal") != (0.95 if tool == "dd" else 1.0):
            fail(f"aio figure {name} against {tool}: goal {figure.get('goal')}")
        if figure["baseline"] is None:
            note = figure.get("baseline_note") or ""
            if tool == "dd" and "dd not found" not in note:
                fail(f"aio figure {name}: no dd baseline")
            if tool != "dd" and not note.startswith("skipped: "):
                fail(f"aio figure {name}: no {tool} baseline and no reason: {note!r}")
        if not re.match(r"^(io_uring|threads), pinned_alloc buffer, block", figure["note"]):
            fail(f"aio figure {name}: note {figure['note']!r} lacks the I/O path or the buffer")
    if found != expected:
        fail(f"aio figures {found}, expected {expected}")


def check_comm(figures, backend):
    """The comm suite's --quick figures: all_reduce at 8 B, 4 KiB and 1 MiB,
    each with the default timeout (against MPI_Iallreduce+Test) and without
    one (against MPI_Allreduce), measured by 2 ranks under mpirun (on the cpu
    backend when the suite's backend is not host memory), then the NCCL
    part: on a backend other than cuda one line saying it was skipped and
    why. First, accel's cost per call: 8 B on a one-rank communicator
    (MPI_COMM_SELF) against MPI_Allreduce there; last, the noise floor:
    8 B MPI_Allreduce against itself."""
    expected = {"all_reduce 8 B, 1 rank (cost per call)", "all_reduce 8 B, MPI against itself"}
    for size in ("8 B latency", "4 KiB latency", "1 MiB busbw"):
        expected |= {f"all_reduce {size}", f"all_reduce {size} no timeout"}
    mpi = [f for f in figures if not f["name"].startswith("nccl")]
    nccl = [f for f in figures if f["name"].startswith("nccl")]
    names = {f["name"] for f in mpi}
    if names != expected:
        fail(f"comm figures {sorted(names)}, expected {sorted(expected)}")
    for figure in mpi:
        if figure["failed"] or not (figure["baseline_name"] or "").startswith("MPI_"):
            fail(f"comm figure {figure['name']}: failed or no MPI baseline: {figure}")
        one_rank = figure["name"].endswith("(cost per call)")
        if one_rank and "MPI_COMM_SELF" not in figure["note"]:
            fail(f"comm figure {figure['name']}: not on MPI_COMM_SELF: {figure['note']}")
        if not one_rank and "2 ranks" not in figure["note"]:
            fail(f"comm figure {figure['name']}: not measured by 2 ranks: {figure['note']}")
        if ("cpu backend" in figure["note"]) != (backend != "cpu"):
            fail(f"comm figure {figure['name']}: backend {backend}, note {figure['note']!r}")
    if backend != "cuda":
        if len(nccl) != 1 or nccl[0]["name"] != "nccl all_reduce" or not nccl[0]["failed"]:
            fail(f"expected one skipped 'nccl all_reduce' line on {backend}: {nccl}")
        note = nccl[0]["note"]
        if not note.startswith("skipped: ") or f"the backend is {backend}, not cuda" not in note:
            fail(f"the NCCL line does not say why it was skipped: {note!r}")


def main():
    if len(sys.argv) not in (2, 4) or (len(sys.argv) == 4 and sys.argv[2] != "--suite"):
        fail("usage: check_bench_json.py PATH_TO_ACCEL [--suite NAME]")
    suite = sys.argv[3] if len(sys.argv) == 4 else None
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "bench.json")
        command = [sys.argv[1], "bench", "--quick", "--json", path]
        command += ["--suite", suite] if suite else []
        run = subprocess.run(command, capture_output=True, text=True, timeout=110)
        if run.returncode != 0:
            fail(f"exit code {run.returncode}; stderr: {run.stderr.strip()}", run.stdout)
        try:
            with open(path) as f:
                report = json.load(f)
        except (OSError, json.JSONDecodeError) as error:
            fail(f"no valid JSON in {path}: {error}", run.stdout)
    if not isinstance(report, dict):
        fail("top level is not an object")
    for key in ("machine", "backend", "figures", "quick", "ratio_direction"):
        if key not in report:
            fail(f"missing key '{key}'")
    if report["quick"] is not True or not report["figures"]:
        fail("expected a --quick run with figures")
    suites = set()
    for figure in report["figures"]:
        for key in ("suite", "name", "unit", "median", "spread", "reps", "baseline", "ratio",
                    "ratio_status", "direction"):
            if key not in figure:
                fail(f"figure {figure.get('name')} lacks '{key}'")
        if figure["ratio_status"] not in ("ok", "noisy", "none"):
            fail(f"figure {figure['name']}: ratio_status {figure['ratio_status']!r}")
        if (figure["ratio"] is None) != (figure["ratio_status"] != "ok"):
            fail(f"figure {figure['name']}: ratio and ratio_status disagree")
        # Measured, or failed with a sentence: never a silent 0 (a full
        # figure table once left the aio figures at 0 GB/s, unfailed).
        measured = figure["reps"] > 0 and figure["median"] is not None and figure["median"] > 0
        if not measured and not (figure["failed"] and
                                 figure["note"].startswith(("failed: ", "skipped: "))):
            fail(f"figure {figure['suite']} {figure['name']}: neither measured nor failed "
                 f"with a reason: {figure}")
        suites.add(figure["suite"])
    expected = {suite} if suite else ALL_SUITES
    if suites != expected:
        fail(f"suites {sorted(suites)}, expected {sorted(expected)}")
    if suite == "optim":
        check_optim(report["figures"])
    if suite == "aio":
        check_aio(report["figures"])
    if suite == "comm":
        check_comm(report["figures"], report["backend"])
    print(f"ok: {report['backend']}, {len(report['figures'])} figures in {len(suites)} suites")


if __name__ == "__main__":
    main()
