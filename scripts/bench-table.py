#!/usr/bin/env python3
"""bench-table.py: the README's performance table, generated from one
`accel bench --json` run so the figures in the docs cannot drift from the
bench. Replaces what lies between the two marker lines of README.md
(BEGIN/END below) with: the machine (CPU model, vector set, CPUs, kernel),
the date, the load average at the end of the run, and one row per figure
(accel's value, the baseline's, the ratio, the goal and whether it is met).

  scripts/bench-table.py [--accel PATH] [--readme FILE] [SUITE...]
      run `accel bench --json` (the default suites, or SUITE...) and write
      the table into the README
  scripts/bench-table.py --json FILE [--readme FILE]
      the same from a JSON file an earlier run wrote
  scripts/bench-table.py --json FILE --print
      print the table only

Python 3 standard library only. Exit 1 when the bench or the README's
markers fail.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

BEGIN = "<!-- bench-table: begin (scripts/bench-table.py writes this part; do not edit) -->"
END = "<!-- bench-table: end -->"


def number(value):
    """A figure value as the bench's text table prints it."""
    if value is None:
        return "-"
    if value >= 100:
        return "%.0f" % value
    if value >= 10:
        return "%.1f" % value
    return "%.3g" % value


def cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def verdict(figure):
    if figure["failed"]:
        return "failed"
    if figure["ratio"] is None:
        return "noisy" if figure["ratio_status"] == "noisy" else "-"
    if figure["goal"] is None:
        return ""
    return "met" if figure["ratio"] >= figure["goal"] else "**not met**"


def baseline_text(figure):
    if figure["baseline"] is not None:
        return "%s %s" % (number(figure["baseline"]["median"]), figure["baseline_name"])
    return figure["baseline_note"] or "-"


def table(report):
    machine = report["machine"]
    load = machine.get("load_average_at_end")
    load_text = " / ".join("%.2f" % x for x in load) if load else "unknown"
    lines = [
        "Measured %s by `accel bench` %s (backend %s, %d repetitions per side%s) on %s, "
        "%d CPUs, vector set %s, %s %s; load average (1 / 5 / 15 min) at the end of the "
        "run: %s."
        % (
            report.get("date_utc", "unknown date"),
            report["version"],
            report["backend"],
            report["reps"],
            ", --quick" if report["quick"] else "",
            machine.get("cpu") or "an unnamed CPU",
            machine.get("online_cpus", 0),
            machine.get("cpu_isa", "unknown"),
            machine.get("os", ""),
            machine.get("kernel", ""),
            load_text,
        ),
        "",
        "Ratio = accel speed / baseline speed (> 1: accel faster); a ratio is withheld "
        '("noisy") when either side\'s (p90 - p10) / median is over %.0f%% and the two '
        "sides' p10-p90 ranges overlap."
        % (report["noise_threshold"] * 100),
        "",
        "| suite | figure | accel | unit | baseline (same run) | ratio | goal | |",
        "|---|---|---:|---|---|---:|---:|---|",
    ]
    for f in report["figures"]:
        ratio = "%.2f×" % f["ratio"] if f["ratio"] is not None else "-"
        goal = "≥ %.2f×" % f["goal"] if f["goal"] is not None else ""
        value = "-" if f["failed"] else number(f["median"])
        lines.append(
            "| %s | %s | %s | %s | %s | %s | %s | %s |"
            % tuple(
                cell(x)
                for x in (
                    f["suite"],
                    f["name"] + (" — " + f["note"] if f["note"] else ""),
                    value,
                    f["unit"],
                    baseline_text(f),
                    ratio,
                    goal,
                    verdict(f),
                )
            )
        )
    return "\n".join(lines) + "\n"


def replace_section(readme_path, text):
    with open(readme_path, encoding="utf-8") as f:
        content = f.read()
    start, end = content.find(BEGIN), content.find(END)
    if start < 0 or end < start:
        sys.exit("bench-table: %s has no '%s' ... '%s' section" % (readme_path, BEGIN, END))
    start += len(BEGIN)
    content = content[:start] + "\n" + text + content[end:]
    with open(readme_path, "w", encoding="utf-8") as f:
        f.write(content)


def run_bench(accel, suites):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "bench.json")
        command = [accel, "bench", *suites, "--json", path]
        print("bench-table: running %s" % " ".join(command), file=sys.stderr)
        if subprocess.call(command) != 0:
            sys.exit("bench-table: accel bench failed")
        with open(path, encoding="utf-8") as f:
            return json.load(f)


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("suites", nargs="*", help="suites to run (default: accel bench's own)")
    parser.add_argument("--json", help="read this accel bench --json file instead of running")
    parser.add_argument("--accel", help="the accel program (default: build/tools/accel/accel, "
                        "then accel on PATH)")
    parser.add_argument("--readme", default=os.path.join(root, "README.md"))
    parser.add_argument("--print", action="store_true", help="print the table, change nothing")
    args = parser.parse_args()
    if args.json:
        with open(args.json, encoding="utf-8") as f:
            report = json.load(f)
    else:
        accel = args.accel or os.path.join(root, "build", "tools", "accel", "accel")
        if not os.access(accel, os.X_OK):
            accel = shutil.which("accel")
        if not accel:
            sys.exit("bench-table: no accel program (build it, or pass --accel PATH)")
        report = run_bench(accel, args.suites)
    text = table(report)
    if args.print:
        sys.stdout.write(text)
        return
    replace_section(args.readme, text)
    print("bench-table: wrote %d figures into %s" % (len(report["figures"]), args.readme),
          file=sys.stderr)


if __name__ == "__main__":
    main()
