#!/usr/bin/env python3
"""rule_breaks.py: each vendor-rule probe of `accel selftest` catches the
rule it guards (issue 29), on a simulated runtime.

    rule_breaks.py [--launch N] [--group GROUP] ACCEL BACKEND CASE...

CASE is a rule id, optionally followed by `+VAR=VALUE` settings that case
needs (a slow stream), or `ID!skip` for a probe that cannot observe its
rule in a running process and must skip. The probes are `rule.GROUP.*`
(GROUP: the backend, or comm_<engine> for a collectives engine's, which
run under `accel launch -n N`). First, with no rule broken, every probe
must pass or skip, and there must be one CASE per probe. Then, for each
CASE, the sim breaks that rule (ACCEL_SIM_BREAK) and `accel selftest
--only rule.GROUP.<id>` must report that probe FAIL or HANG, with no other
check hanging or crashing. The sim's own environment (ACCEL_<NAME>_LIBRARY
...) comes from ctest."""
import json
import os
import subprocess
import sys
import tempfile

# The per-check watchdog for a broken rule: a probe that hangs is stopped
# quickly (the broken modes that hang do so at once).
BROKEN_TIMEOUT = "10"


def run(accel, launch, backend, only, env, timeout):
    """Run the selftest; returns the parsed report's checks by name."""
    with tempfile.TemporaryDirectory() as folder:
        report = os.path.join(folder, "r.json")
        command = [accel, "selftest", "--backend", backend, "--only", only,
                   "--json", report, "--timeout", timeout]
        if launch:
            command = [accel, "launch", "-n", launch, "--"] + command
        done = subprocess.run(command, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, timeout=600)
        if not os.path.exists(report):
            sys.exit("rule_breaks: %s wrote no report (exit %d):\n%s"
                     % (" ".join(command), done.returncode, done.stdout))
        with open(report, encoding="utf-8") as stream:
            checks = json.load(stream)["checks"]
    return {check["name"]: check for check in checks}, done.stdout


def main():
    args = sys.argv[1:]
    launch = group = None
    while args and args[0] in ("--launch", "--group"):
        if args[0] == "--launch":
            launch = args[1]
        else:
            group = args[1]
        args = args[2:]
    if len(args) < 3:
        sys.exit(__doc__)
    accel, backend, cases = args[0], args[1], args[2:]
    prefix = "rule.%s." % (group or backend)
    failures = []

    checks, output = run(accel, launch, backend, prefix + "*", dict(os.environ), "60")
    probes = {name for name in checks if name.startswith(prefix)}
    ids = {case.split("+")[0].split("!")[0] for case in cases}
    skipping = {prefix + case.split("!")[0] for case in cases if case.endswith("!skip")}
    for name in sorted(probes):
        want = ("SKIP",) if name in skipping else ("PASS", "SKIP")
        if checks[name]["result"] not in want:
            failures.append("%s is %s with no rule broken: %s"
                            % (name, checks[name]["result"], checks[name]["sentence"]))
    for missing in sorted({prefix + i for i in ids} - probes):
        failures.append("no probe %s in the selftest" % missing)
    for extra in sorted(probes - {prefix + i for i in ids}):
        failures.append("probe %s has no broken-rule case here" % extra)
    print(output)

    for case in cases:
        if case.endswith("!skip"):
            continue
        rule_id, *settings = case.split("+")
        env = dict(os.environ, ACCEL_SIM_BREAK=rule_id)
        for setting in settings:
            name, _, value = setting.partition("=")
            env[name] = value
        name = prefix + rule_id
        checks, output = run(accel, launch, backend, name, env, BROKEN_TIMEOUT)
        got = checks.get(name, {}).get("result", "missing")
        print("%-9s %s with ACCEL_SIM_BREAK=%s %s" % (got, name, rule_id, " ".join(settings)))
        if got not in ("FAIL", "HANG"):
            failures.append("%s is %s with its rule broken:\n%s" % (name, got, output))
        for other, check in checks.items():
            if other != name and check["result"] in ("HANG", "CRASH"):
                failures.append("%s is %s while %s was broken" % (other, check["result"], rule_id))

    for failure in failures:
        print("rule_breaks: " + failure, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
