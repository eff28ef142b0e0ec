#!/usr/bin/env python3
# gen-pprof.py: a pprof profile (profile.proto) of about SIZE MB, for reader benchmarks
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Usage: gen-pprof.py SIZE_MB [--nodes N] [--seed S] [--gzip] [--samples N]
#        > out.pprof
# Deterministic for the same arguments. The same random call tree as
# gen-cpuprofile.py (N nodes, default 3000, depth up to 40; a function and a
# location per node), then one Sample record per sample of a random node, as
# a profiler that does not aggregate writes them: its stack (location ids,
# leaf first, packed), [1 sample, 10 ms of cpu], a "thread" label of one of
# four threads. Sample types, period and times as Go writes them; the
# tables after the samples. SIZE_MB is of the uncompressed profile; with
# --samples N, N samples instead: with the events `info` counts in a
# `gen-cpuprofile.py` profile of the same seed and nodes, the same tree and
# the same nodes sampled in the same order (the same content in the other
# format). --gzip compresses the output at level 6, as Go's runtime/pprof
# does.

import argparse
import gzip
import random
import sys


def varint(v):
    v &= (1 << 64) - 1
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7f) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def fv(n, v):
    return varint(n << 3) + varint(v)


def fl(n, b):
    return varint(n << 3 | 2) + varint(len(b)) + b


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('size_mb', type=float)
    ap.add_argument('--nodes', type=int, default=3000)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--gzip', action='store_true')
    ap.add_argument('--samples', type=int)
    args = ap.parse_args()
    rng = random.Random(args.seed)

    # The tree exactly as gen-cpuprofile.py draws it.
    parent = [0]
    depth = [0]
    for i in range(1, args.nodes):
        p = rng.randrange(i)
        while depth[p] >= 40:
            p = parent[p]
        parent.append(p)
        depth.append(depth[p] + 1)

    strings = ['', 'samples', 'count', 'cpu', 'nanoseconds', 'thread', 't1', 't2', 't3', 't4', 'root']
    name_at = len(strings)
    strings += ['f%d' % i for i in range(1, args.nodes)]
    file_at = len(strings)
    strings += ['/app/src/m%d.go' % k for k in range(37)]

    head = fv(9, 1_700_000_000_000_000_000 + rng.randrange(1_000_000))
    head += fl(1, fv(1, 1) + fv(2, 2)) + fl(1, fv(1, 3) + fv(2, 4))
    tables = bytearray()
    for i in range(args.nodes):
        fid = i + 1
        name = 10 if i == 0 else name_at + i - 1
        tables += fl(4, fv(1, fid) + fv(3, 0x400000 + 16 * i) + fl(4, fv(1, fid) + fv(2, i % 500)))
        tables += fl(5, fv(1, fid) + fv(2, name) + fv(3, name) + fv(4, file_at + i % 37) + fv(5, i % 500))
    tables += b''.join(fl(6, s.encode()) for s in strings)

    # A record per (node, thread), made once.
    records = []
    for i in range(args.nodes):
        stack, q = [], i
        while True:
            stack.append(q + 1)
            if q == 0:
                break
            q = parent[q]
        locs = fl(1, b''.join(varint(x) for x in stack)) + fl(2, varint(1) + varint(10_000_000))
        records.append([fl(2, locs + fl(3, fv(1, 5) + fv(2, 6 + t))) for t in range(4)])

    if args.samples:
        n = args.samples
    else:
        mean = sum(len(records[i][0]) for i in range(1, args.nodes)) / max(1, args.nodes - 1)
        n = max(1, int((args.size_mb * 1e6 - len(tables)) / mean))
    # gen-cpuprofile.py's node ids are these + 1.
    ids = [rng.randrange(1, args.nodes) for _ in range(n)]
    threads = [rng.randrange(4) for _ in range(n)]

    out = sys.stdout.buffer
    if args.gzip:
        out = gzip.GzipFile(fileobj=out, mode='wb', compresslevel=6, mtime=0)
    out.write(head)
    chunk = 1 << 16
    for at in range(0, n, chunk):
        out.write(b''.join(records[i][t] for i, t in zip(ids[at:at + chunk], threads[at:at + chunk])))
    out.write(fv(10, n * 10_000_000) + fl(11, fv(1, 3) + fv(2, 4)) + fv(12, 10_000_000))
    out.write(bytes(tables))
    out.close() if args.gzip else out.flush()


if __name__ == '__main__':
    main()
