#!/usr/bin/env python3
"""rule_breaks.py: each vendor-rule probe of `accel selftest` catches the
rule it guards (issue 29), on a simulated runtime. The one script behind
every broken-rule test (rule_breaks.cmake, accel_rule_breaks).

    rule_breaks.py [--launch N] [--group GROUP] [--rule-list FILE]
                   [--jobs J] ACCEL BACKEND CASE...

The probes are `rule.GROUP.*` (GROUP: the backend, or comm_<engine> for a
collectives engine's, which run under `accel launch -n N`). CASE is a rule
id, optionally followed by `+VAR=VALUE` settings that case needs (a slow
stream), or `ID!skip` for a probe that cannot observe its rule in a running
process and must skip (the reason is written beside the case table).

  1. With no rule broken, every check of `accel selftest --only rule.GROUP.*`
     passes or skips (an `ID!skip` probe skips).
  2. With --rule-list (src/selftest/rules/rule-list.h), every probe that
     file lists for GROUP has a CASE, and every CASE a probe.
  3. For each CASE, the sim breaks that rule (ACCEL_SIM_BREAK) and
     `accel selftest --only rule.GROUP.<id>` reports that probe FAIL or HANG
     (a HANG is the watchdog stopping a probe that waits for what never
     comes), with no check hanging or crashing besides it.

Each selftest runs only the probes it needs and a short watchdog, so a
case takes a fraction of a second, or the watchdog's 10 s for a probe that
hangs; --jobs runs that many cases at once (not under --launch: two jobs
would share the hosts' ports). The sim's own environment (ACCEL_<NAME>_LIBRARY
...) comes from ctest. Exit 0 when every check holds, 1 otherwise, with the
output of each run that broke one."""
import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile

# The per-check watchdog with a rule broken: the broken modes that hang do
# so at once, and a probe that hangs is stopped this quickly.
BROKEN_TIMEOUT = "10"
# With nothing broken, a loaded machine must not turn a slow probe into a
# HANG.
UNBROKEN_TIMEOUT = "60"


def run(args, only, env, timeout):
    """Run the selftest; returns the parsed report's checks by name (None
    with no report) and the run's output."""
    with tempfile.TemporaryDirectory() as folder:
        report = os.path.join(folder, "r.json")
        command = [args.accel, "selftest", "--backend", args.backend, "--only", only,
                   "--json", report, "--timeout", timeout]
        if args.launch:
            command = [args.accel, "launch", "-n", args.launch, "--"] + command
        done = subprocess.run(command, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, timeout=600, check=False)
        output = "--- `%s` (exit %d)\n%s" % (" ".join(command), done.returncode, done.stdout)
        if not os.path.exists(report):
            return None, output
        with open(report, encoding="utf-8") as stream:
            checks = json.load(stream)["checks"]
    return {check["name"]: check for check in checks}, output


def listed_probes(rule_list, group):
    """The rule ids rule-list.h lists for GROUP: its rows `X(group, "id", ...`."""
    with open(rule_list, encoding="utf-8") as stream:
        text = stream.read()
    return set(re.findall(r'\bX\(%s,\s*"([^"]+)"' % re.escape(group), text))


def unbroken(args, prefix, cases):
    """Check 1 and 2; returns the failures."""
    failures = []
    checks, output = run(args, prefix + "*", dict(os.environ), UNBROKEN_TIMEOUT)
    if checks is None:
        return ["with no rule broken, no report:\n" + output]
    print(output)
    skipping = {prefix + case.rule for case in cases if case.skip}
    for name, check in sorted(checks.items()):
        want = ("SKIP",) if name in skipping else ("PASS", "SKIP")
        if check["result"] not in want:
            failures.append("%s is %s with no rule broken: %s"
                            % (name, check["result"], check["sentence"]))
    ran = {name for name in checks if name.startswith(prefix)}
    for case in cases:
        if prefix + case.rule not in ran:
            failures.append("no probe %s%s in the selftest" % (prefix, case.rule))
    if args.rule_list:
        ids = {case.rule for case in cases}
        for missing in sorted(listed_probes(args.rule_list, args.group) - ids):
            failures.append("probe %s%s (rule-list.h) has no broken-rule case" % (prefix, missing))
    return failures


class Case:
    """One CASE argument: the rule id, the settings it needs, whether it skips."""

    def __init__(self, text):
        self.skip = text.endswith("!skip")
        if self.skip:
            text = text[:-len("!skip")]
        self.rule, *self.settings = text.split("+")


def broken(args, prefix, case):
    """Check 3 for one case; returns (its line, failures)."""
    env = dict(os.environ, ACCEL_SIM_BREAK=case.rule)
    for setting in case.settings:
        name, _, value = setting.partition("=")
        env[name] = value
    name = prefix + case.rule
    checks, output = run(args, name, env, BROKEN_TIMEOUT)
    if checks is None:
        return "no report with %s broken" % case.rule, ["%s broken: no report\n%s"
                                                         % (case.rule, output)]
    got = checks.get(name, {}).get("result", "missing")
    line = "%-9s %s with ACCEL_SIM_BREAK=%s %s" % (got, name, case.rule, " ".join(case.settings))
    failures = []
    if got not in ("FAIL", "HANG"):
        failures.append("%s is %s with its rule broken: the probe does not catch it\n%s"
                        % (name, got, output))
    stuck = ["%s %s" % (check["result"], other) for other, check in sorted(checks.items())
             if other != name and check["result"] in ("HANG", "CRASH")]
    if stuck:
        failures.append("with %s broken, other checks hung or crashed: %s\n%s"
                        % (case.rule, ", ".join(stuck), output))
    return line, failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--launch", help="ranks: run under `accel launch -n N`")
    parser.add_argument("--group", help="the probes' group, rule.GROUP.* (default BACKEND)")
    parser.add_argument("--rule-list", help="rule-list.h: every probe it lists needs a case")
    parser.add_argument("--jobs", type=int, default=2, help="cases run at once")
    parser.add_argument("accel")
    parser.add_argument("backend")
    parser.add_argument("cases", nargs="+", metavar="CASE")
    args = parser.parse_args()
    args.group = args.group or args.backend
    prefix = "rule.%s." % args.group
    cases = [Case(text) for text in args.cases]

    failures = unbroken(args, prefix, cases)
    jobs = 1 if args.launch else max(1, args.jobs)
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        results = pool.map(lambda case: broken(args, prefix, case),
                           [case for case in cases if not case.skip])
        for line, case_failures in results:
            print(line)
            failures += case_failures

    for failure in failures:
        print("rule_breaks: " + failure, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
