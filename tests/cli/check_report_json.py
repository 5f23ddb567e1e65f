#!/usr/bin/env python3
# check_report_json.py: runs `accel report --json` and checks that it is one
# valid JSON object whose selection agrees with its own cascade (ten
# candidates in the auto-detect order of docs/architecture.md, cpu last, the auto-detect pick chosen).
import json
import re
import subprocess
import sys

CASCADE = ["xpu.external", "xpu", "npu", "sdaa", "mps", "hpu", "mlu", "cuda", "opencl", "cpu"]


def fail(message, output=""):
    print("FAIL:", message)
    if output:
        print("--- output\n" + output)
    sys.exit(1)


def main():
    if len(sys.argv) != 2:
        fail("usage: check_report_json.py PATH_TO_ACCEL")
    run = subprocess.run([sys.argv[1], "report", "--json"], capture_output=True, text=True)
    if run.returncode != 0:
        fail(f"exit code {run.returncode}; stderr: {run.stderr.strip()}", run.stdout)
    try:
        report = json.loads(run.stdout)
    except json.JSONDecodeError as error:
        fail(f"not valid JSON: {error}", run.stdout)
    if not isinstance(report, dict):
        fail("top level is not an object", run.stdout)

    names = [c["name"] for c in report["cascade"]]
    if names != CASCADE:
        fail(f"cascade is {names}, expected {CASCADE}")
    chosen = [c["name"] for c in report["cascade"] if c["chosen"]]
    if len(chosen) != 1:
        fail(f"expected exactly one chosen candidate, got {chosen}")
    accelerator = report["accelerator"]
    if accelerator is None or accelerator["selection_method"] != "auto detect":
        fail(f"accelerator is {accelerator}, expected an auto-detect choice")
    if accelerator["name"] != chosen[0]:
        fail(f"selected {accelerator['name']} but the cascade chose {chosen[0]}")
    earlier = [c["name"] for c in report["cascade"][: names.index(chosen[0])] if c["available"]]
    if earlier:
        fail(f"{chosen[0]} chosen although earlier candidates are available: {earlier}")
    if not any(c["available"] for c in report["cascade"][:-1]) and chosen[0] != "cpu":
        fail(f"no accelerator is available, yet {chosen[0]} was chosen instead of cpu")
    for key in ("devices", "dtypes", "flags", "op_builders", "environment"):
        if key not in report:
            fail(f"missing key '{key}'", run.stdout)
    aio = [op for op in report["op_builders"] if op.get("op_name") == "async_io"]
    if len(aio) != 1 or not re.match(r"^(io_uring|threads)", aio[0].get("note") or ""):
        fail(f"async_io is not listed with its I/O path as a note: {aio}")
    if report["device_count"] != len(report["devices"]) or not report["devices"]:
        fail("device_count does not match the devices listed")
    print(f"ok: {accelerator['name']} ({accelerator['selection_method']}), "
          f"{len(names)} candidates, {len(report['devices'])} device(s)")


if __name__ == "__main__":
    main()
