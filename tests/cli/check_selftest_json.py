#!/usr/bin/env python3
# check_selftest_json.py: runs `accel selftest --json FILE` and checks the
# report: it validates against src/selftest/report.schema.json, names the
# checks `accel selftest --list` names, in that order, and its counts agree
# with its checks. By default every check must pass or skip; --expect
# NAME=RESULT[/RESULT] (repeatable) asks for one check's result instead (a
# hang, crash or broken vendor rule the test injected), and then every other
# check must still pass or skip: the run went on past the injected fault.
import argparse
import json
import os
import subprocess
import sys
import tempfile

SCHEMA = os.path.join(os.path.dirname(__file__), "..", "..", "src", "selftest",
                      "report.schema.json")


def fail(message, output=""):
    print("FAIL:", message)
    if output:
        print("--- output\n" + output)
    sys.exit(1)


def validate(report, schema):
    try:
        import jsonschema
    except ImportError:
        fail("python3 jsonschema is missing: install python3-jsonschema (scripts/deps.sh)")
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(report), key=lambda e: list(e.path))
    return [f"{'/'.join(str(p) for p in e.path)}: {e.message}" for e in errors]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("accel")
    parser.add_argument("--backend", required=True)
    parser.add_argument("--expect", action="append", default=[],
                        metavar="NAME=RESULT[/RESULT][:TEXT]",
                        help="the check's result, and TEXT in its sentence")
    parser.add_argument("--launch", type=int, default=0, metavar="N",
                        help="run under `accel launch -n N` (rank 0 writes the report)")
    opts, opts.args = parser.parse_known_args()
    opts.args = [a for a in opts.args if a != "--"]
    expected = dict(e.split("=", 1) for e in opts.expect)
    with open(SCHEMA) as f:
        schema = json.load(f)

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "report.json")
        command = [opts.accel, "selftest", "--backend", opts.backend, "--json", path] + opts.args
        if opts.launch:
            command = [opts.accel, "launch", "-n", str(opts.launch)] + command
        run = subprocess.run(command, capture_output=True, text=True)
        listed = subprocess.run([opts.accel, "selftest", "--backend", opts.backend, "--list"]
                                + [a for a in opts.args if a != "--timeout" and
                                   not a.replace(".", "").isdigit()],
                                capture_output=True, text=True)
        if not os.path.exists(path):
            fail(f"no report written; exit code {run.returncode}; stderr: {run.stderr}", run.stdout)
        with open(path) as f:
            try:
                report = json.load(f)
            except json.JSONDecodeError as error:
                fail(f"the report is not valid JSON: {error}")

    problems = validate(report, schema)
    if problems:
        fail("the report does not match the schema:\n  " + "\n  ".join(problems[:20]))
    # The validator rejects what the schema forbids (the test can fail).
    broken = dict(report, checks=[dict(report["checks"][0], result="MAYBE")])
    if not validate(broken, schema):
        fail("the schema accepted a check result of MAYBE")

    names = [c["name"] for c in report["checks"]]
    # --list cannot know the backend's engine: it names the comm rules of
    # every engine, the run only those of its own.
    want_names = [n for n in listed.stdout.split()
                  if not n.startswith("rule.comm_") or n in names]
    if listed.returncode != 0 or names != want_names:
        fail(f"the report's checks differ from `--list`:\n  report: {names}\n  list:   {want_names}")
    summary = report["summary"]
    for key, result in [("pass", "PASS"), ("fail", "FAIL"), ("skip", "SKIP"), ("hang", "HANG"),
                        ("crash", "CRASH")]:
        count = sum(1 for c in report["checks"] if c["result"] == result)
        if summary[key] != count:
            fail(f"summary.{key} is {summary[key]} but {count} checks are {result}")
    if report["backend"] != opts.backend:
        fail(f"backend is {report['backend']}, expected {opts.backend}")
    if opts.launch and report["launcher"] != {"rank": 0, "size": opts.launch}:
        fail(f"launcher is {report['launcher']}, expected rank 0 of {opts.launch}")
    if report["system"] is None:
        fail(f"no system part: {report['system_error']}")

    bad = []
    for check in report["checks"]:
        want = expected.pop(check["name"], None)
        if want is not None:
            want, _, text = want.partition(":")
            if check["result"] not in want.split("/"):
                bad.append(f"{check['name']} is {check['result']}, expected {want}: "
                           f"{check['sentence']}")
            elif text not in check["sentence"]:
                bad.append(f"{check['name']}: sentence {check['sentence']!r} lacks {text!r}")
            else:
                print(f"{check['name']}: {check['result']} as injected: {check['sentence']}")
        elif opts.launch and check["name"].startswith("comm.") and check["result"] != "PASS":
            bad.append(f"{check['name']} is {check['result']} under a launcher: "
                       f"{check['sentence']}\n{check['output'] or ''}")
        elif check["result"] not in ("PASS", "SKIP"):
            bad.append(f"{check['name']} is {check['result']}: {check['sentence']}\n"
                       f"{check['output'] or ''}")
    if expected:
        bad.append(f"not in the report: {sorted(expected)}")
    if bad:
        fail("\n".join(bad), run.stdout)
    # Exit 1 when some expected result is a failure (no PASS or SKIP in it).
    want_rc = 1 if any(not {"PASS", "SKIP"} & set(e.split("=", 1)[1].partition(":")[0].split("/"))
                       for e in opts.expect) else 0
    if run.returncode != want_rc:
        fail(f"exit code {run.returncode}, expected {want_rc}", run.stdout + run.stderr)
    if not any(c["result"] == "PASS" for c in report["checks"]
               if c["name"] != "selftest.open"):
        fail("no check besides selftest.open passed", run.stdout)
    print(f"selftest report on {opts.backend}: {summary['checks']} checks, {summary['pass']} "
          f"passed, {summary['skip']} skipped, {summary['hang']} hung, {summary['crash']} "
          f"crashed, in {summary['seconds']:.1f} s; valid against the schema")


if __name__ == "__main__":
    main()
