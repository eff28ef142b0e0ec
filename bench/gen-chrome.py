#!/usr/bin/env python3
# gen-chrome.py: a seeded synthetic Chrome Trace Event Format file for benchmarks
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Streams to stdout until about --mb megabytes (10^6 bytes) are written:
# metadata, then per-thread trees of nested B/E and X spans with args,
# instants, counters with one or two series, and sampled stacks (P events
# with "sf" into a stackFrames table and with "stack" arrays). Threads are
# interleaved in bursts, so the file is sorted per thread but not overall,
# like real traces. Same arguments, same bytes.
#
#   bench/gen-chrome.py --mb 1000 --form object > /tmp/trace.json

import argparse
import random
import sys

FUNCS = [
    "MessageLoop::Run", "ThreadController::DoWork", "v8.run", "V8.Execute",
    "FunctionCall", "Layout", "UpdateLayoutTree", "Paint", "Composite",
    "ParseHTML", "EvaluateScript", "v8.compile", "GC", "MinorGC",
    "ResourceLoader::Start", "HitTest", "RasterTask", "ImageDecodeTask",
    "SkCanvas::drawRect", "cc::LayerTreeHost::DoUpdateLayers",
]
CATS = ["toplevel", "v8", "blink", "cc", "disabled-by-default-devtools.timeline"]
FRAMES = 64


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mb", type=float, default=100.0, help="approximate size in MB")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--form", choices=["array", "object"], default="object")
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--processes", type=int, default=2)
    args = parser.parse_args()

    rng = random.Random(args.seed)
    out = sys.stdout.buffer
    limit = int(args.mb * 1e6)
    written = 0
    buf = []
    buf_len = 0

    def emit(text):
        nonlocal written, buf_len
        buf.append(text)
        buf_len += len(text)
        if buf_len >= 1 << 20:
            flush()

    def flush():
        nonlocal written, buf_len
        data = "".join(buf).encode()
        out.write(data)
        written += len(data)
        buf.clear()
        buf_len = 0

    threads = []
    for p in range(args.processes):
        pid = 1000 + p
        for t in range(args.threads // args.processes or 1):
            threads.append({"pid": pid, "tid": pid * 10 + t, "ts": rng.randrange(10**6, 2 * 10**6)})

    if args.form == "object":
        emit('{"displayTimeUnit": "ms", "metadata": {"generator": "gen-chrome.py", "seed": %d},\n' % args.seed)
        emit('"stackFrames": {')
        emit(",".join('"%d": {"category": "js", "name": "%s"%s}'
                      % (i, FUNCS[i % len(FUNCS)],
                         ', "parent": "%d"' % (i // 2) if i > 0 else "")
                      for i in range(FRAMES)))
        emit('},\n"traceEvents": [\n')
    else:
        emit("[\n")

    first = True

    def event(text):
        nonlocal first
        if first:
            emit(text)
            first = False
        else:
            emit(",\n" + text)

    for p in range(args.processes):
        event('{"name": "process_name", "ph": "M", "pid": %d, "tid": 0, "args": {"name": "Renderer %d"}}'
              % (1000 + p, p))
    for th in threads:
        event('{"name": "thread_name", "ph": "M", "pid": %d, "tid": %d, "args": {"name": "Worker %d"}}'
              % (th["pid"], th["tid"], th["tid"]))

    def span(th, depth):
        """A span and its children; returns its duration in µs."""
        name = FUNCS[rng.randrange(len(FUNCS))]
        cat = CATS[rng.randrange(len(CATS))]
        pid, tid = th["pid"], th["tid"]
        start = th["ts"]
        if depth >= 4 or rng.random() < 0.35:
            dur = rng.randrange(1, 400) + rng.random()
            th["ts"] = start + dur + rng.randrange(0, 20)
            event('{"pid": %d, "tid": %d, "ts": %.3f, "ph": "X", "cat": "%s", "name": "%s", "dur": %.3f, '
                  '"tdur": %.3f, "args": {"src_file": "../../base/task.cc", "line": %d}}'
                  % (pid, tid, start, cat, name, dur, dur * 0.9, rng.randrange(1, 2000)))
            return
        event('{"pid": %d, "tid": %d, "ts": %.3f, "ph": "B", "cat": "%s", "name": "%s", '
              '"args": {"data": {"frame": "0x%x", "url": "https://example.com/app.js"}}}'
              % (pid, tid, start, cat, name, rng.getrandbits(40)))
        th["ts"] = start + rng.randrange(1, 30)
        for _ in range(rng.randrange(1, 4)):
            span(th, depth + 1)
            r = rng.random()
            if r < 0.05:
                event('{"pid": %d, "tid": %d, "ts": %.3f, "ph": "i", "s": "t", "cat": "%s", "name": "Mark"}'
                      % (pid, tid, th["ts"], cat))
            elif r < 0.10:
                event('{"pid": %d, "tid": %d, "ts": %.3f, "ph": "C", "name": "Heap", '
                      '"args": {"used": %d, "total": %d}}'
                      % (pid, tid, th["ts"], rng.randrange(10**6, 10**8), 2 * 10**8))
            elif r < 0.12:
                event('{"pid": %d, "tid": %d, "ts": %.3f, "ph": "C", "name": "FPS", "args": {"value": %.1f}}'
                      % (pid, tid, th["ts"], 30 + 30 * rng.random()))
            elif r < 0.16:
                if args.form == "object" and rng.random() < 0.5:
                    event('{"pid": %d, "tid": %d, "ts": %.3f, "ph": "P", "cat": "v8", "name": "Sample", "sf": "%d"}'
                          % (pid, tid, th["ts"], rng.randrange(FRAMES)))
                else:
                    depth_s = rng.randrange(1, 8)
                    stack = ", ".join('"%s"' % FUNCS[rng.randrange(len(FUNCS))] for _ in range(depth_s))
                    event('{"pid": %d, "tid": %d, "ts": %.3f, "ph": "P", "cat": "v8", "name": "Sample", '
                          '"stack": [%s]}' % (pid, tid, th["ts"], stack))
        th["ts"] += rng.randrange(1, 30)
        event('{"pid": %d, "tid": %d, "ts": %.3f, "ph": "E", "cat": "%s", "name": "%s", "args": {}}'
              % (pid, tid, th["ts"], cat, name))

    while written + buf_len < limit:
        th = threads[rng.randrange(len(threads))]
        for _ in range(rng.randrange(1, 5)):
            span(th, 0)

    if args.form == "object":
        emit('\n],\n"systemTraceEvents": "# tracer: nop\\n"}\n')
    else:
        emit("\n]\n")
    flush()


if __name__ == "__main__":
    main()
