#!/usr/bin/env python3
# gen-gecko.py: a Firefox Profiler profile of about SIZE MB, for reader benchmarks and tests
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Usage: gen-gecko.py SIZE_MB [--threads N] [--stacks N] [--form gecko|processed]
#        [--seed S] > out.json
# Deterministic for the same arguments. Each thread has a random stack
# tree of N stacks (default 3000, depth up to 40) over N/3 frames and
# strings, then samples of random stacks 1 ms apart with a CPU delta
# (about 1 in 20 with a null stack, as an idle thread's), and an interval
# marker every 50 samples. The Gecko form is what Firefox writes (rows
# under a schema, the tables after the samples, a sub-process in
# "processes" holding the last thread); the processed form is what
# profiler.firefox.com saves (columns, funcTable, shared.stringArray last).
# Written as it goes: memory stays small whatever the size.

import argparse
import random
import sys

# Bytes of a Gecko sample row "[1234,56789.123456,null,null,1234567]," and of
# a processed sample's cells in its four columns.
ROW_BYTES = {'gecko': 37, 'processed': 21}


def tree(rng, n_stacks):
    n_frames = max(2, n_stacks // 3)
    prefix, frame, depth = [None], [0], [0]
    for i in range(1, n_stacks):
        p = rng.randrange(i)
        while depth[p] >= 40:
            p = prefix[p]
        prefix.append(p)
        frame.append(rng.randrange(1, n_frames))
        depth.append(depth[p] + 1)
    strings = ['(root)'] + ['f%d (file:///app/src/m%d.js:%d:%d)' % (i, i % 37, i % 500, i % 80)
                            for i in range(1, n_frames)]
    return prefix, frame, strings


def j(v):
    return 'null' if v is None else str(v)


def write_thread_gecko(out, rng, index, n_samples, n_stacks, t0):
    prefix, frame, strings = tree(rng, n_stacks)
    out.write('{"processType":"default","name":"Thread%d","processName":"Generated","pid":100,"tid":%d,'
              '"registerTime":0,"unregisterTime":null,'
              '"samples":{"schema":{"stack":0,"time":1,"eventDelay":2,"argumentValues":3,"threadCPUDelta":4},'
              '"data":[' % (index, 1000 + index))
    t = t0
    chunk = []
    for i in range(n_samples):
        t += 1.0 + rng.random() * 0.002
        stack = None if rng.random() < 0.05 else rng.randrange(n_stacks)
        chunk.append('[%s,%.6f,null,null,%d]' % (j(stack), t, rng.randrange(100, 1000000)))
        if len(chunk) == 4096:
            out.write(('' if i < 4096 else ',') + ','.join(chunk))
            chunk = []
    if chunk:
        out.write((',' if n_samples > len(chunk) else '') + ','.join(chunk))
    out.write(']},"markers":{"schema":{"name":0,"startTime":1,"endTime":2,"phase":3,"category":4,"data":5},'
              '"data":[')
    out.write(','.join('[0,%.6f,%.6f,1,1,{"type":"Work","n":%d}]' % (t0 + k * 50, t0 + k * 50 + 20, k)
                       for k in range(n_samples // 50)))
    out.write(']},"stackTable":{"schema":{"prefix":0,"frame":1},"data":[')
    out.write(','.join('[%s,%d]' % (j(p), f) for p, f in zip(prefix, frame)))
    out.write(']},"frameTable":{"schema":{"location":0,"relevantForJS":1,"innerWindowID":2,"implementation":3,'
              '"line":4,"column":5,"category":6,"subcategory":7},"data":[')
    out.write(','.join('[%d,false,0,null,%d,null,1,0]' % (i, i) for i in range(len(strings))))
    out.write(']},"stringTable":[' + ','.join('"%s"' % s for s in ['Work'] + strings[1:]) + ']}')


def write_thread_processed(out, rng, index, n_samples, n_stacks, t0, shared):
    prefix, frame, strings = tree(rng, n_stacks)
    base = len(shared)
    shared.extend(strings)
    out.write('{"name":"Thread%d","processName":"Generated","processType":"default","pid":"100","tid":%d,'
              '"samples":{"weight":null,"weightType":"samples","stack":[' % (index, 1000 + index))
    out.write(','.join(j(None if rng.random() < 0.05 else rng.randrange(n_stacks)) for _ in range(n_samples)))
    out.write('],"time":[')
    t = t0
    times = []
    for _ in range(n_samples):
        t += 1.0
        times.append('%.3f' % t)
        if len(times) == 8192:
            out.write(','.join(times) + ',')
            times = []
    out.write(','.join(times) if times else 'null')
    out.write('],"threadCPUDelta":[' + ','.join(str(100 + i % 997) for i in range(n_samples)) +
              '],"length":%d},' % n_samples)
    n_markers = n_samples // 50
    out.write('"markers":{"data":[%s],"name":[%s],"startTime":[%s],"endTime":[%s],"phase":[%s],'
              '"category":[%s],"length":%d},' % (
                  ','.join('null' for _ in range(n_markers)), ','.join(str(base) for _ in range(n_markers)),
                  ','.join('%.3f' % (t0 + k * 50) for k in range(n_markers)),
                  ','.join('%.3f' % (t0 + k * 50 + 20) for k in range(n_markers)),
                  ','.join('1' for _ in range(n_markers)), ','.join('0' for _ in range(n_markers)), n_markers))
    out.write('"stackTable":{"frame":[%s],"prefix":[%s],"length":%d},' % (
        ','.join(map(str, frame)), ','.join(map(j, prefix)), n_stacks))
    out.write('"frameTable":{"func":[%s],"length":%d},' % (','.join(map(str, range(len(strings)))), len(strings)))
    out.write('"funcTable":{"name":[%s],"length":%d}}' % (','.join(str(base + i) for i in range(len(strings))),
                                                          len(strings)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('size_mb', type=float)
    ap.add_argument('--threads', type=int, default=4)
    ap.add_argument('--stacks', type=int, default=3000)
    ap.add_argument('--form', choices=('gecko', 'processed'), default='gecko')
    ap.add_argument('--seed', type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    out = sys.stdout
    per_thread = max(1, int(args.size_mb * 1e6 / ROW_BYTES[args.form] / args.threads))
    meta = ('"meta":{"version":27,"startTime":1700000000000.0,"interval":1,"processType":0,'
            '"product":"Generated","stackwalk":1,"sampleUnits":{"time":"ms","eventDelay":"ms",'
            '"threadCPUDelta":"\u00b5s"}')
    if args.form == 'gecko':
        out.write('{"libs":[],' + meta + ',"categories":[{"name":"Other","color":"grey","subcategories":["Other"]}]},'
                  '"threads":[')
        for i in range(args.threads - 1):
            if i:
                out.write(',')
            write_thread_gecko(out, rng, i, per_thread, args.stacks, 10.0)
        # The last thread in a sub-process that started 250 ms after the parent.
        out.write('],"processes":[{"libs":[],' + meta.replace('1700000000000.0', '1700000000250.0') +
                  '},"threads":[')
        write_thread_gecko(out, rng, args.threads - 1, per_thread, args.stacks, 10.0)
        out.write('],"processes":[]}]}\n')
    else:
        shared = []
        out.write('{' + meta.replace('"version":27', '"version":27,"preprocessedProfileVersion":48') +
                  '},"libs":[],"threads":[')
        for i in range(args.threads):
            if i:
                out.write(',')
            write_thread_processed(out, rng, i, per_thread, args.stacks, 10.0, shared)
        out.write('],"shared":{"stringArray":[' + ','.join('"%s"' % s for s in shared) + ']}}\n')


if __name__ == '__main__':
    main()
