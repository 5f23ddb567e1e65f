#!/usr/bin/env python3
# check_bench_json.py: runs `accel bench --quick --json FILE` and checks that
# it completes and writes one valid JSON object with machine info, the backend
# and a list of figures carrying median, spread, reps, baseline, ratio and
# direction. A smoke test: it never judges a timing.
import json
import os
import subprocess
import sys
import tempfile


def fail(message, output=""):
    print("FAIL:", message)
    if output:
        print("--- output\n" + output)
    sys.exit(1)


def main():
    if len(sys.argv) != 2:
        fail("usage: check_bench_json.py PATH_TO_ACCEL")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "bench.json")
        run = subprocess.run([sys.argv[1], "bench", "--quick", "--json", path],
                             capture_output=True, text=True, timeout=110)
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
        suites.add(figure["suite"])
    expected = {"startup", "dispatch", "alloc", "copy", "rng", "stream"}
    if suites != expected:
        fail(f"suites {sorted(suites)}, expected {sorted(expected)}")
    print(f"ok: {report['backend']}, {len(report['figures'])} figures in {len(suites)} suites")


if __name__ == "__main__":
    main()
