#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
#
# `timeslice export --flamegraph` with ranges writes exact per-call-path
# figures (issue 17, item 6): on generated files, the call-tree CSV's weights
# and shares equal the values computed here, independently, to 1e-9
# relative; q-values are Benjamini–Hochberg across the frames; the frames'
# tests hold their level on null traces and find a real change.
#
# Rules computed here, as docs/ARCHITECTURE.md "Flame graphs" states them:
# - a span belongs to the range its start falls in and weighs its duration
#   at its own call path (its callees' time included); a frame's total is
#   that, or its children's sum when larger; its self the rest (≥ 0);
# - in sampled profiles a sample (a collapsed line: its count) weighs one
#   event at its stack; a frame's total is every event under its path;
# - a frame's A and B shares: its weight (spans: at its own path) over the
#   root's; paths past the bound fold into "(other)" with a warning.
import csv
import io
import json
import os
import random
import subprocess
import sys
import tempfile

TIMESLICE = os.environ['TSL_TIMESLICE']
NS = 1_000_000_000
failures = []


def check(what, got, want, rel=1e-9):
    ok = abs(got) <= 1e-12 if want == 0 else abs(got - want) <= rel * abs(want)
    if not ok:
        failures.append(f'{what}: got {got!r}, want {want!r}')


def flame(path, *args):
    out = os.path.join(os.path.dirname(path), 'tree.csv')
    done = subprocess.run([TIMESLICE, 'export', '--flamegraph', '-o', out, *args, path],
                          check=True, capture_output=True, text=True)
    with open(out) as f:
        return {r['call_path']: r for r in csv.DictReader(f)}, done.stderr


def num(text):
    return float(text) if text != '' else float('nan')


class Tree:
    """Call paths (tuples) with a weight at the path, per side."""

    def __init__(self, time):
        self.time = time
        self.own = [{}, {}]
        self.nodes = set()

    def add(self, side, path, weight):
        self.own[side][path] = self.own[side].get(path, 0) + weight
        for i in range(1, len(path) + 1):
            self.nodes.add(path[:i])

    def kids(self, node):
        return [n for n in self.nodes if len(n) == len(node) + 1 and n[:len(node)] == node]

    def total(self, side, node, memo):
        if (side, node) not in memo:
            below = sum(self.total(side, k, memo) for k in self.kids(node))
            own = self.own[side].get(node, 0)
            memo[(side, node)] = max(own, below) if self.time else own + below
        return memo[(side, node)]

    def test_weight(self, side, node, memo):
        """Spans: the time at the path itself; samples: everything under it."""
        return self.own[side].get(node, 0) if self.time else self.total(side, node, memo)


def check_tree(label, rows, tree, diff):
    memo = {}
    side = 1
    root = tree.total(side, (), memo)
    roots = [sum(tree.test_weight(s, n, memo) for n in tree.nodes if len(n) == 1) for s in (0, 1)]
    if set(rows) != {';'.join(n) for n in tree.nodes}:
        failures.append(f'{label}: paths {sorted(set(rows) ^ {";".join(n) for n in tree.nodes})[:5]} differ')
        return
    for node in tree.nodes:
        row = rows[';'.join(node)]
        total = tree.total(side, node, memo)
        below = sum(tree.total(side, k, memo) for k in tree.kids(node))
        self_w = max(total - below, 0)
        check(f'{label} {node} total_weight', num(row['total_weight']), total)
        check(f'{label} {node} self_weight', num(row['self_weight']), self_w)
        check(f'{label} {node} total_share', num(row['total_share']), total / root)
        check(f'{label} {node} self_share', num(row['self_share']), self_w / root)
        if diff:
            for s, col in ((0, 'a_share'), (1, 'b_share')):
                check(f'{label} {node} {col}', num(row[col]), tree.test_weight(s, node, memo) / roots[s])
    if diff:
        check_bh(label, rows)


def check_bh(label, rows):
    tested = [(num(r['p_value']), path) for path, r in rows.items() if r['p_value'] != '']
    tested.sort()
    m, running, want = len(tested), 1.0, {}
    for rank in range(m, 0, -1):
        p, path = tested[rank - 1]
        running = min(running, p * m / rank)
        want[path] = running
    for path, q in want.items():
        check(f'{label} {path} q_value', num(rows[path]['q_value']), q)
    if m < 3:
        failures.append(f'{label}: only {m} frames tested')


def make_spans(rng, path, slow_b=1.0, length=6_000_000):
    """Two threads of nested calls (X on w1, B/E on w2), 0..length µs; in
    the second half `b` calls on w1 last slow_b times as long."""
    half = length // 2
    events = [{'name': 'thread_name', 'ph': 'M', 'pid': 1, 'tid': t, 'args': {'name': n}}
              for t, n in ((10, 'w1'), (11, 'w2'))]
    spans = []   # (start_us, dur_us, path)
    names = ['parse', 'layout', 'io', 'b']

    def call(tid, start, end, ancestors, depth, style):
        name = rng.choice(names) if depth else 'main'
        spans.append((tid, start, end - start, ancestors + (name,)))
        if style == 'X':
            events.append({'name': name, 'ph': 'X', 'pid': 1, 'tid': tid, 'ts': start, 'dur': end - start})
        else:
            events.append({'name': name, 'ph': 'B', 'pid': 1, 'tid': tid, 'ts': start})
        t = start
        for _ in range(rng.randrange(1, 4) if depth < 3 else 0):
            lo = t + rng.randrange(1, 20)
            hi = lo + rng.randrange(1, 150)
            if hi >= end:
                break
            call(tid, lo, hi, ancestors + (name,), depth + 1, style)
            t = hi
        if style == 'BE':
            events.append({'name': name, 'ph': 'E', 'pid': 1, 'tid': tid, 'ts': end})

    for tid, style in ((10, 'X'), (11, 'BE')):
        t = 0
        while t < length:
            dur = rng.randrange(300, 1500)
            call(tid, t, t + dur, (), 0, style)
            t += dur + rng.randrange(1, 200)
    if slow_b != 1.0:
        # B's `b` calls are longer: lengthen them in place (they stay nested).
        for e in events:
            if e.get('name') == 'b' and e.get('ph') == 'X' and e['ts'] >= half and e['tid'] == 10:
                e['dur'] = int(e['dur'] * slow_b)
        spans = [(tid, s, int(d * slow_b) if p[-1] == 'b' and s >= half and tid == 10 else d, p)
                 for tid, s, d, p in spans]
    events.sort(key=lambda e: e.get('ts', -1))
    with open(path, 'w') as f:
        json.dump(events, f)
    return spans


def span_tree(spans, ranges):
    tree = Tree(time=True)
    for side, (lo, hi) in enumerate(ranges):
        for _, start, dur, path in spans:
            if lo <= start * 1000 < hi:
                tree.add(side, path, dur * 1000)
    return tree


def check_spans(rng, tmp):
    path = os.path.join(tmp, 'spans.json')
    spans = make_spans(rng, path)
    ranges = [(1 * NS, 3 * NS), (3 * NS, 5 * NS)]
    rows, _ = flame(path, '--a', '1s..3s', '--b', '3s..5s')
    check_tree('spans diff', rows, span_tree(spans, ranges), True)
    rows, _ = flame(path, '--a', '1s..3s')
    check_tree('spans A', rows, span_tree(spans, [(0, 0), ranges[0]]), False)
    # One thread only: the other's calls are not in the tree.
    rows, _ = flame(path, '--a', '1s..3s', '--b', '3s..5s', '--thread', 'w2')
    check_tree('spans w2', rows, span_tree([s for s in spans if s[0] == 11], ranges), True)
    print(f'spans: {len(rows)} frames checked', file=sys.stderr)


def check_collapsed(rng, tmp):
    """Collapsed stacks: no time axis, line i at i ns; each line's count."""
    path = os.path.join(tmp, 'stacks.folded')
    names = ['main', 'run', 'parse', 'draw', 'io']
    lines = []
    with open(path, 'w') as f:
        for _ in range(400):
            stack = ('main',) + tuple(rng.choice(names[1:]) for _ in range(rng.randrange(0, 4)))
            count = rng.randrange(1, 50)
            lines.append((stack, count))
            f.write(';'.join(stack) + f' {count}\n')
    rows, _ = flame(path, '--a', '50ns..200ns', '--b', '200ns..390ns')
    tree = Tree(time=False)
    for side, (lo, hi) in enumerate([(50, 200), (200, 390)]):
        for i, (stack, count) in enumerate(lines):
            if lo <= i < hi:
                tree.add(side, stack, count)
    check_tree('collapsed', rows, tree, True)


def check_sampled(rng, tmp):
    """A speedscope sampled profile: one event per sample."""
    path = os.path.join(tmp, 'sampled.speedscope.json')
    names = ['main', 'run', 'parse', 'draw', 'io']
    samples, weights, times, t = [], [], [], 0
    while t < 6000:
        samples.append([0] + [rng.randrange(1, 5) for _ in range(rng.randrange(0, 4))])
        w = rng.randrange(1, 4)
        weights.append(w)
        times.append(t)
        t += w
    doc = {'$schema': 'https://www.speedscope.app/file-format-schema.json',
           'shared': {'frames': [{'name': n} for n in names]},
           'profiles': [{'type': 'sampled', 'name': 'prof', 'unit': 'milliseconds', 'startValue': 0,
                         'endValue': t, 'samples': samples, 'weights': weights}]}
    with open(path, 'w') as f:
        json.dump(doc, f)
    rows, _ = flame(path, '--a', '1s..3s', '--b', '3s..5s')
    tree = Tree(time=False)
    for side, (lo, hi) in enumerate([(1000, 3000), (3000, 5000)]):
        for s, at in zip(samples, times):
            if lo <= at < hi:
                tree.add(side, tuple(names[i] for i in s), 1)
    check_tree('sampled', rows, tree, True)


def check_bound(tmp):
    """More distinct paths than the bound (16,384): the rest under "(other)",
    every event still counted, and a warning says so."""
    path = os.path.join(tmp, 'many.folded')
    n = 17000
    with open(path, 'w') as f:
        for i in range(n):
            f.write(f'main;f{i} 2\n')
    rows, err = flame(path, '--a', f'0ns..{n}ns')
    other = rows.get('(other)')
    if other is None or 'counted under “(other)”' not in err:
        failures.append(f'bound: no (other) frame or warning: {err!r}')
        return
    check('bound (other) weight', num(other['total_weight']), 2 * (n - 16384))
    check('bound root weight', sum(num(r['total_weight']) for p, r in rows.items() if ';' not in p), 2 * n)


def check_calibration(rng, tmp):
    """Null traces (the same process in A and B): frames with p < 0.05 within
    0.05 ± 0.035 (about 3 Monte Carlo standard errors at ~320 frames); a
    frame whose calls double in length in B is found in every trace."""
    path = os.path.join(tmp, 'null.json')
    small = low = 0
    for _ in range(40):
        make_spans(rng, path, length=2_000_000)
        rows, _ = flame(path, '--a', '0s..1s', '--b', '1s..2s', '--per-thread')
        for p, r in rows.items():
            if p.count(';') >= 2 and r['p_value'] != '' and max(num(r['a_share']), num(r['b_share'])) > 0.005:
                small += 1
                low += num(r['p_value']) < 0.05
    rate = low / small
    print(f'null: {low} of {small} frames with p < 0.05 ({rate:.3f})', file=sys.stderr)
    if not 0.015 <= rate <= 0.085:
        failures.append(f'null: {rate:.3f} of {small} frames with p < 0.05')
    found = 0
    for _ in range(5):
        make_spans(rng, path, slow_b=2.0, length=2_000_000)
        rows, _ = flame(path, '--a', '0s..1s', '--b', '1s..2s', '--thread', 'w1')
        found += rows['main;b']['significant'] == 'true' and num(rows['main;b']['change_pct']) > 0
    if found != 5:
        failures.append(f'power: main;b doubled found in {found} of 5 traces')


def main():
    rng = random.Random(17)
    with tempfile.TemporaryDirectory() as tmp:
        check_spans(rng, tmp)
        check_collapsed(rng, tmp)
        check_sampled(rng, tmp)
        check_bound(tmp)
        check_calibration(rng, tmp)
    for f in failures[:40]:
        print('FAIL', f)
    sys.exit(1 if failures else 0)


main()
