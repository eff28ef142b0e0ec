#!/usr/bin/env python3
# gen-speedscope.py: a speedscope JSON file of about SIZE MB, for reader benchmarks
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Usage: gen-speedscope.py SIZE_MB [--kind evented|sampled|mixed] [--profiles N]
#        [--frames-last] [--seed S] > out.json
# Deterministic for the same arguments. Evented profiles nest open/close
# events of `--frames` frames (default 2000) up to depth 24 over the whole
# span, each profile starting at a different time (so profiles overlap);
# sampled profiles hold stacks and weights. --frames-last writes the shared
# frame table after the profiles (JSON key order is free; the reader then
# holds the whole document).

import argparse
import json
import random
import sys


def evented(rng, out, index, budget, n_frames):
    t = rng.randrange(0, 1000)
    head = ('{"type":"evented","name":"thread %d","unit":"microseconds",'
            '"startValue":%d,"events":[' % (index, t))
    out.write(head)
    written = len(head)
    stack = []
    first = True
    parts = []
    while written < budget or stack:
        if stack and (written >= budget or len(stack) >= 24 or rng.random() < 0.45):
            frame = stack.pop()
            e = '{"type":"C","frame":%d,"at":%d}' % (frame, t)
        else:
            frame = rng.randrange(n_frames)
            stack.append(frame)
            e = '{"type":"O","frame":%d,"at":%d}' % (frame, t)
        t += rng.randrange(0, 40)
        if not first:
            e = ',' + e
        first = False
        parts.append(e)
        written += len(e)
        if len(parts) >= 4096:
            out.write(''.join(parts))
            parts = []
    out.write(''.join(parts))
    tail = '],"endValue":%d}' % (t + 1)
    out.write(tail)
    return written + len(tail)


def sampled(rng, out, index, budget, n_frames):
    head = ('{"type":"sampled","name":"sampled %d","unit":"milliseconds",'
            '"startValue":0,"endValue":0,"samples":[' % index)
    out.write(head)
    written = len(head)
    weights = []
    parts = []
    stack = [rng.randrange(n_frames) for _ in range(8)]
    while written < budget * 0.8:
        if rng.random() < 0.3:
            cut = rng.randrange(1, len(stack) + 1)
            stack = stack[:cut] + [rng.randrange(n_frames) for _ in range(rng.randrange(0, 6))]
        s = ('' if not weights else ',') + '[' + ','.join(map(str, stack)) + ']'
        parts.append(s)
        written += len(s)
        weights.append(rng.choice((1, 1, 2, 5)))
        if len(parts) >= 4096:
            out.write(''.join(parts))
            parts = []
    out.write(''.join(parts))
    w = '],"weights":[' + ','.join(map(str, weights)) + ']}'
    out.write(w)
    return written + len(w)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('mb', type=float)
    ap.add_argument('--kind', default='evented', choices=('evented', 'sampled', 'mixed'))
    ap.add_argument('--profiles', type=int, default=4)
    ap.add_argument('--frames', type=int, default=2000)
    ap.add_argument('--frames-last', action='store_true')
    ap.add_argument('--seed', type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    out = sys.stdout
    budget = int(args.mb * 1e6) // max(1, args.profiles)
    frames = '"shared":{"frames":[%s]}' % ','.join(
        json.dumps({'name': 'fn_%d' % i, 'file': 'src/m%d.py' % (i % 50), 'line': i}) for i in range(args.frames))
    out.write('{"$schema":"https://www.speedscope.app/file-format-schema.json",')
    out.write('"exporter":"gen-speedscope.py","name":"generated",')
    if not args.frames_last:
        out.write(frames + ',')
    out.write('"profiles":[')
    for i in range(args.profiles):
        if i:
            out.write(',')
        kind = args.kind if args.kind != 'mixed' else ('evented', 'sampled')[i % 2]
        (evented if kind == 'evented' else sampled)(rng, out, i, budget, args.frames)
    out.write(']')
    if args.frames_last:
        out.write(',' + frames)
    out.write(',"activeProfileIndex":0}\n')


if __name__ == '__main__':
    main()
