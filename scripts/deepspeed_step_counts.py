#!/usr/bin/env python3
# deepspeed_step_counts.py COUNT_DIR RESULTS_XML: the proof step of
# scripts/test-deepspeed.sh. COUNT_DIR holds one <pid>.json per process that
# ran an optimizer step, written by accel.deepspeed (ACCEL_DEEPSPEED_COUNT_DIR):
# how many steps of each op libaccel ran for that process, its command line
# and its parent's. RESULTS_XML is pytest's junit report. Prints the steps by
# kind of process and the run's summary line; exits 1 unless forkserver
# workers ran cpu_adam, cpu_adagrad and cpu_lion steps in libaccel and
# ZenFlow's cross-process test passed in a spawn process that did too.
import glob
import json
import os
import sys
import xml.etree.ElementTree as ET

OPS = ("cpu_adam", "cpu_adagrad", "cpu_lion")


def kind(record):
    """How multiprocessing started the process (its command lines say)."""
    if "forkserver" in record["parent_cmdline"]:
        return "forkserver worker"
    if "spawn_main" in record["cmdline"]:
        return "spawn process"
    return "pytest process"


def results(path):
    """{outcome: [test ids]} from pytest's junit xml."""
    out = {"passed": [], "failed": [], "skipped": []}
    for case in ET.parse(path).getroot().iter("testcase"):
        name = "%s::%s" % (case.get("classname"), case.get("name"))
        if case.find("failure") is not None or case.find("error") is not None:
            out["failed"].append(name)
        elif case.find("skipped") is not None:
            out["skipped"].append(name)
        else:
            out["passed"].append(name)
    return out


def main(count_dir, results_xml):
    by_kind = {}
    libraries = set()
    for path in sorted(glob.glob(os.path.join(count_dir, "*.json"))):
        with open(path) as f:
            record = json.load(f)
        libraries.add("%s (%s)" % (record["library"], record["implementation"]))
        entry = by_kind.setdefault(kind(record), {"processes": 0, **{op: 0 for op in OPS}})
        entry["processes"] += 1
        for op in OPS:
            entry[op] += record["steps"][op]
    for name, entry in sorted(by_kind.items()):
        print("test-deepspeed: libaccel steps in %d %s(es): %s" % (
            entry["processes"], name, ", ".join("%s %d" % (op, entry[op]) for op in OPS)))
    print("test-deepspeed: library: %s" % ", ".join(sorted(libraries)))
    problems = []
    workers = by_kind.get("forkserver worker", {})
    for op in OPS:
        if not workers.get(op):
            problems.append("no forkserver worker ran a %s step in libaccel" % op)
    outcome = results(results_xml)
    zenflow = [t for t in outcome["passed"] if t.endswith("test_zenflow_adam_cross_process")]
    if not zenflow:
        problems.append("test_zenflow_adam_cross_process did not pass (skipped: %s)"
                        % any(t.endswith("test_zenflow_adam_cross_process")
                              for t in outcome["skipped"]))
    elif not by_kind.get("spawn process", {}).get("cpu_adam"):
        problems.append("ZenFlow's optimizer process (spawn) ran no cpu_adam step in libaccel")
    for problem in problems:
        print("test-deepspeed: FAILED: %s" % problem)
    print("test-deepspeed: %d passed, %d failed, %d skipped" % (
        len(outcome["passed"]), len(outcome["failed"]) + len(problems), len(outcome["skipped"])))
    return 1 if problems or outcome["failed"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
