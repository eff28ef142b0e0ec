#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Writes the bundled example: a small, realistic Chrome trace of a build-like
batch job — a main thread, a worker pool with nested spans, a GC thread,
counters for memory and queue depth, and instants. Seeded, so the committed
file is reproducible: python3 data/examples/make-example.py > data/examples/example-trace.json
"""
import json
import random
import sys

rng = random.Random(20261129)
events = []
PID = 4242


def meta(name, tid, args):
    events.append({"ph": "M", "name": name, "pid": PID, "tid": tid, "args": args})


meta("process_name", 0, {"name": "imgpipe"})
meta("process_sort_index", 0, {"sort_index": 0})
meta("thread_name", 1, {"name": "main"})
meta("thread_sort_index", 1, {"sort_index": 0})
for w in range(4):
    meta("thread_name", 10 + w, {"name": f"worker-{w + 1}"})
    meta("thread_sort_index", 10 + w, {"sort_index": 1 + w})
meta("thread_name", 20, {"name": "gc"})
meta("thread_sort_index", 20, {"sort_index": 9})


def span(tid, name, ts, dur, cat="app", args=None):
    ev = {"ph": "X", "name": name, "cat": cat, "pid": PID, "tid": tid,
          "ts": round(ts, 3), "dur": round(dur, 3)}
    if args:
        ev["args"] = args
    events.append(ev)


# Phases of the job in µs: load, process (slower in the second half: a planted
# regression in "resize"), store.
t = 0.0
span(1, "load_config", t, 1800)
t += 2000
load_end = t + 120_000
while t < load_end:
    d = rng.uniform(800, 2400)
    span(1, "read_image", t, d, "io", {"bytes": rng.randint(20_000, 900_000)})
    span(1, "decode", t + 0.1 * d, 0.8 * d)
    t += d + rng.uniform(20, 200)
process_start = t
process_end = t + 1_500_000
for w in range(4):
    tid = 10 + w
    wt = process_start + rng.uniform(0, 500)
    while wt < process_end:
        slow = 1.6 if wt > (process_start + process_end) / 2 else 1.0
        resize = rng.gauss(900, 120) * slow
        blur = rng.gauss(1400, 200)
        encode = rng.gauss(700, 90)
        total = resize + blur + encode + 60
        span(tid, "process_tile", wt, total)
        span(tid, "resize", wt + 10, resize)
        span(tid, "blur", wt + 20 + resize, blur)
        span(tid, "convolve", wt + 30 + resize, blur * 0.7)
        span(tid, "encode", wt + 40 + resize + blur, encode)
        wt += total + rng.expovariate(1 / 150)
span(1, "wait_workers", process_start, process_end - process_start)

gt = process_start
while gt < process_end:
    gt += rng.expovariate(1 / 90_000)
    d = rng.uniform(2000, 9000)
    events.append({"ph": "B", "name": "gc_mark", "cat": "gc", "pid": PID, "tid": 20, "ts": round(gt, 3)})
    events.append({"ph": "B", "name": "scan_roots", "cat": "gc", "pid": PID, "tid": 20, "ts": round(gt + 50, 3)})
    events.append({"ph": "E", "pid": PID, "tid": 20, "ts": round(gt + 0.3 * d, 3)})
    events.append({"ph": "E", "pid": PID, "tid": 20, "ts": round(gt + d, 3)})
    events.append({"ph": "i", "name": "gc_done", "s": "t", "pid": PID, "tid": 20, "ts": round(gt + d, 3)})
    gt += d

store_end = process_end + 200_000
st = process_end
while st < store_end:
    d = rng.uniform(1500, 5000)
    span(1, "write_output", st, d, "io")
    st += d + rng.uniform(50, 400)

mem = 180.0
ct = 0.0
while ct < store_end:
    if process_start < ct < process_end:
        mem += rng.gauss(0.25, 2.0)
    else:
        mem += rng.gauss(0.0, 0.8)
    queue = max(0, int(rng.gauss(12 if process_start < ct < process_end else 1, 3)))
    events.append({"ph": "C", "name": "memory", "pid": PID, "tid": 1, "ts": round(ct, 3),
                   "args": {"rss_mb": round(mem, 2)}})
    events.append({"ph": "C", "name": "queue", "pid": PID, "tid": 1, "ts": round(ct, 3),
                   "args": {"depth": queue}})
    ct += 2000

json.dump({"traceEvents": events, "displayTimeUnit": "ms",
           "metadata": {"generator": "data/examples/make-example.py"}},
          sys.stdout, separators=(",", ":"))
sys.stdout.write("\n")
