#!/usr/bin/env python3
# gen-cpuprofile.py: a V8 CPU profile (.cpuprofile) of about SIZE MB, for reader benchmarks and tests
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Usage: gen-cpuprofile.py SIZE_MB [--nodes N] [--order v8|deltas-first|tree-last]
#        [--seed S] > out.cpuprofile
# Deterministic for the same arguments. A random call tree of N nodes
# (default 3000, depth up to 40) as V8 writes it (parent first, "children"
# lists), then samples of random nodes and time deltas of 0–2000 µs. The
# order is V8's (nodes, startTime, endTime, samples, timeDeltas) or, to
# exercise the reader's spool, the deltas before the samples, or the tree
# and times after both arrays.

import argparse
import random
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('size_mb', type=float)
    ap.add_argument('--nodes', type=int, default=3000)
    ap.add_argument('--order', choices=('v8', 'deltas-first', 'tree-last'), default='v8')
    ap.add_argument('--seed', type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    out = sys.stdout

    parent = [0]
    depth = [0]
    for i in range(1, args.nodes):
        p = rng.randrange(i)
        while depth[p] >= 40:
            p = parent[p]
        parent.append(p)
        depth.append(depth[p] + 1)
    children = [[] for _ in range(args.nodes)]
    for i in range(1, args.nodes):
        children[parent[i]].append(i)
    nodes = []
    for i in range(args.nodes):
        name = '(root)' if i == 0 else 'f%d' % i
        url = '' if i == 0 else 'file:///app/src/m%d.js' % (i % 37)
        node = ('{"id":%d,"callFrame":{"functionName":"%s","scriptId":"%d","url":"%s",'
                '"lineNumber":%d,"columnNumber":%d},"hitCount":0' % (i + 1, name, i % 37, url, i % 500, i % 80))
        if children[i]:
            node += ',"children":[%s]' % ','.join(str(c + 1) for c in children[i])
        nodes.append(node + '}')
    tree = '"nodes":[' + ','.join(nodes) + ']'
    start = 1_000_000_000 + rng.randrange(1_000_000)

    # ~9.1 bytes per sample: a node id and a delta with their commas.
    n = max(1, int((args.size_mb * 1e6 - len(tree)) / 9.1))
    ids = [rng.randrange(1, args.nodes) + 1 for _ in range(n)]
    deltas = [rng.randrange(0, 2001) for _ in range(n)]
    end = start + sum(deltas)
    times = '"startTime":%d,"endTime":%d' % (start, end)
    samples = '"samples":[' + ','.join(map(str, ids)) + ']'
    tdeltas = '"timeDeltas":[' + ','.join(map(str, deltas)) + ']'
    if args.order == 'v8':
        parts = [tree, times, samples, tdeltas]
    elif args.order == 'deltas-first':
        parts = [tree, times, tdeltas, samples]
    else:
        parts = [samples, tdeltas, times, tree]
    out.write('{' + ','.join(parts) + '}\n')


if __name__ == '__main__':
    main()
