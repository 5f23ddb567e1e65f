#!/usr/bin/env python3
# selftest_rule_break.py: shows that one vendor-rule probe of `accel selftest`
# catches what it is for (issue 29). The sim under test breaks that rule
# (ACCEL_SIM_BREAK, set by the caller: tests/sim/README.md, "Fault
# injection"); this script runs the selftest command given after `--` with
# `--json FILE` appended, then reads the report:
#   - the probe named by --check ran and FAILed or HANGed (a HANG is the
#     watchdog stopping a probe that waits for something never coming);
#   - no other check HANGed or CRASHed (other probes may FAIL when the
#     broken rule is one they use too: that is said, not judged).
# With --pass instead, nothing is broken and every check must PASS or SKIP.
# Exit 0 when so, 1 otherwise (with the run's output).
import argparse
import json
import os
import subprocess
import sys


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--check", help="the probe that must FAIL or HANG: rule.<backend>.<id>")
    parser.add_argument("--pass", dest="all_pass", action="store_true",
                        help="no rule broken: every check passes or skips")
    parser.add_argument("--json", required=True, help="where the report goes")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command or (args.check is None) == (not args.all_pass):
        parser.error("give the selftest command after --, and one of --check or --pass")
    if os.path.exists(args.json):
        os.remove(args.json)
    run = subprocess.run(command + ["--json", args.json], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, check=False)

    def fail(message):
        print("FAIL:", message)
        print("--- `%s` (exit %d)\n%s" % (" ".join(command), run.returncode, run.stdout))
        sys.exit(1)

    try:
        with open(args.json, encoding="utf-8") as report_file:
            report = json.load(report_file)
    except (OSError, ValueError) as error:
        fail("no readable report: %s" % error)
    results = {check["name"]: check for check in report.get("checks", [])}
    if args.all_pass:
        bad = ["%s %s: %s" % (c["result"], name, c["sentence"])
               for name, c in results.items() if c["result"] not in ("PASS", "SKIP")]
        if bad:
            fail("with no rule broken:\n  " + "\n  ".join(bad))
        print("ok: %d checks, none failed" % len(results))
        return
    target = results.get(args.check)
    if target is None:
        fail("%s did not run (the report has %s)" % (args.check, ", ".join(sorted(results))))
    if target["result"] not in ("FAIL", "HANG"):
        fail("%s is %s with its rule broken: the probe does not catch it"
             % (args.check, target["result"]))
    stuck = ["%s %s" % (c["result"], name) for name, c in results.items()
             if name != args.check and c["result"] in ("HANG", "CRASH")]
    if stuck:
        fail("other checks hung or crashed: " + ", ".join(stuck))
    others = sorted(name for name, c in results.items()
                    if name != args.check and c["result"] == "FAIL")
    print("ok: %s %s: %s" % (target["result"], args.check, target["sentence"]))
    if others:
        print("   (also failing, as they rely on the same rule: %s)" % ", ".join(others))


if __name__ == "__main__":
    main()
