#!/usr/bin/env python3
# check_trace.py: runs `accel demo` with ACCEL_TRACE set (or reads a trace
# file given with --file) and checks the Chrome trace-event JSON: one object
# with traceEvents; B/E ranges nest per track (every E closes the last open B
# on its tid, nothing left open); every stream track is named by thread_name
# metadata; timestamps never go backwards on a track; the demo's ranges and
# at least one stream track are present.
import json
import os
import subprocess
import sys
import tempfile


def fail(message):
    print("FAIL:", message)
    sys.exit(1)


def check(trace, expect_demo):
    if not isinstance(trace, dict) or not isinstance(trace.get("traceEvents"), list):
        fail("top level is not an object with a traceEvents array")
    events = trace["traceEvents"]
    names = {}
    open_ranges = {}
    last_ts = {}
    ranges = set()
    tracks_with_work = set()
    for index, e in enumerate(events):
        for key in ("ph", "pid", "tid"):
            if key not in e:
                fail(f"event {index} has no '{key}': {e}")
        ph, tid = e["ph"], e["tid"]
        if ph == "M":
            if e.get("name") == "thread_name":
                names[tid] = e["args"]["name"]
            continue
        if ph not in ("B", "E", "X", "i", "C"):
            fail(f"event {index} has unexpected phase {ph!r}")
        ts = e.get("ts")
        if not isinstance(ts, (int, float)) or ts < 0:
            fail(f"event {index} has no valid ts: {e}")
        if ts < last_ts.get(tid, 0):
            fail(f"timestamps go backwards on tid {tid} at event {index}: {ts} < {last_ts[tid]}")
        last_ts[tid] = ts
        if ph == "B":
            open_ranges.setdefault(tid, []).append(e["name"])
            ranges.add(e["name"])
        elif ph == "E":
            if not open_ranges.get(tid):
                fail(f"event {index}: E on tid {tid} with no open B")
            open_ranges[tid].pop()
        elif ph == "X":
            if not isinstance(e.get("dur"), (int, float)) or e["dur"] < 0:
                fail(f"event {index}: X without a valid dur: {e}")
            tracks_with_work.add(tid)
    left = {tid: stack for tid, stack in open_ranges.items() if stack}
    if left:
        fail(f"ranges left open: {left}")
    for tid in last_ts:
        if tid not in names:
            fail(f"track {tid} has events but no thread_name metadata")
    streams = [tid for tid, name in names.items() if name.startswith("stream ")]
    if expect_demo:
        missing = {"demo", "allocate", "copy in", "fill", "copy out"} - ranges
        if missing:
            fail(f"demo ranges missing from the trace: {sorted(missing)}")
        if not any(tid in tracks_with_work for tid in streams):
            fail(f"no stream track with work; tracks named: {names}")
    print(f"ok: {len(events)} events, {len(names)} named tracks "
          f"({len(streams)} stream), ranges {sorted(ranges)}")


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--file":
        with open(sys.argv[2]) as f:
            check(json.load(f), expect_demo=False)
        return
    if len(sys.argv) != 2:
        fail("usage: check_trace.py PATH_TO_ACCEL | --file TRACE.json")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "trace.json")
        env = dict(os.environ, ACCEL_TRACE=path)
        run = subprocess.run([sys.argv[1], "demo", "--size", "256K"], capture_output=True,
                             text=True, env=env)
        if run.returncode != 0:
            fail(f"accel demo exited {run.returncode}: {run.stderr.strip()}")
        if not os.path.exists(path):
            fail("accel demo with ACCEL_TRACE wrote no trace file")
        with open(path) as f:
            try:
                trace = json.load(f)
            except json.JSONDecodeError as error:
                fail(f"trace is not valid JSON: {error}")
        check(trace, expect_demo=True)


if __name__ == "__main__":
    main()
