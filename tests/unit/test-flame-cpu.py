#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
#
# `timeslice export --flamegraph --weight cpu`: the flame graph by thread
# (CPU) time. Its call-tree CSV equals, to 1e-9 relative, the exact per-range
# aggregates computed here independently:
# - a span belongs to the range its start falls in and weighs its thread time
#   (Chrome JSON: an X's tdur, a B/E pair's difference of tts; none: 0) at
#   its own call path, its callees' CPU time included; a frame's total CPU
#   time is that, or its children's sum when larger; its self CPU time the
#   rest (≥ 0); shares are over the root's total;
# - in a differential graph a frame's A and B shares are the CPU time at its
#   own path over the sum of the top-level frames', q-values BH across frames;
# - without a range the whole trace is read (every event, 0%..100%).
# On a Chromium 156 recording made here (tests/data/chrome/chromium-cpu.json)
# the same, nesting its X events as the format says. A function whose CPU time
# doubles in B is found, and null traces hold the frames' level; a trace
# without thread time, and a pipe, are refused with a message naming the
# input. Collapsed stacks (OUT.folded) by CPU time give each stack's self
# CPU time in ns, as the graph draws it.
import csv
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

TIMESLICE = os.environ['TSL_TIMESLICE']
NS = 1_000_000_000
failures = []


def check(what, got, want, rel=1e-9):
    ok = abs(got) <= 1e-9 if want == 0 else abs(got - want) <= rel * abs(want)
    if not ok:
        failures.append(f'{what}: got {got!r}, want {want!r}')


OUT_DIR = tempfile.mkdtemp(prefix='flame-cpu-')


def flame(path, *args, check_rc=True):
    out = os.path.join(OUT_DIR, 'tree.csv')
    if os.path.exists(out):
        os.unlink(out)
    done = subprocess.run([TIMESLICE, 'export', '--flamegraph', '--weight', 'cpu', '-o', out, *args, path],
                          capture_output=True, text=True)
    if not check_rc:
        return done
    if done.returncode != 0:
        failures.append(f'{path} {args}: exit {done.returncode}: {done.stderr.strip()}')
        return {}
    with open(out) as f:
        return {r['call_path']: r for r in csv.DictReader(f)}


def num(text):
    return float(text) if text != '' else float('nan')


class Tree:
    """Call paths (tuples) with the CPU time of spans at exactly the path, per side."""

    def __init__(self):
        self.own = [{}, {}]
        self.nodes = set()

    def add(self, side, path, cpu_ns):
        self.own[side][path] = self.own[side].get(path, 0) + cpu_ns
        for i in range(1, len(path) + 1):
            self.nodes.add(path[:i])

    def kids(self, node):
        return [n for n in self.nodes if len(n) == len(node) + 1 and n[:len(node)] == node]

    def total(self, side, node, memo):
        if (side, node) not in memo:
            below = sum(self.total(side, k, memo) for k in self.kids(node))
            memo[(side, node)] = max(self.own[side].get(node, 0), below)
        return memo[(side, node)]


def check_tree(label, rows, tree, diff):
    memo = {}
    root = tree.total(1, (), memo)
    roots = [sum(tree.own[s].get(n, 0) for n in tree.nodes if len(n) == 1) for s in (0, 1)]
    want_paths = {';'.join(n) for n in tree.nodes}
    if set(rows) != want_paths:
        failures.append(f'{label}: paths {sorted(set(rows) ^ want_paths)[:5]} differ')
        return 0
    if root <= 0:
        failures.append(f'{label}: no CPU time in the tree')
    for node in tree.nodes:
        row = rows[';'.join(node)]
        total = tree.total(1, node, memo)
        below = sum(tree.total(1, k, memo) for k in tree.kids(node))
        self_cpu = max(total - below, 0)
        check(f'{label} {node} total_weight', num(row['total_weight']), total)
        check(f'{label} {node} self_weight', num(row['self_weight']), self_cpu)
        check(f'{label} {node} total_share', num(row['total_share']), total / root)
        check(f'{label} {node} self_share', num(row['self_share']), self_cpu / root)
        if diff:
            for s, col in ((0, 'a_share'), (1, 'b_share')):
                check(f'{label} {node} {col}', num(row[col]), tree.own[s].get(node, 0) / roots[s])
    if diff:
        tested = sorted((num(r['p_value']), p) for p, r in rows.items() if r['p_value'] != '')
        m, running = len(tested), 1.0
        for rank in range(m, 0, -1):
            p, path = tested[rank - 1]
            running = min(running, p * m / rank)
            check(f'{label} {path} q_value', num(rows[path]['q_value']), running)
        if m < 3:
            failures.append(f'{label}: only {m} frames tested')
    return len(tree.nodes)


def make_trace(rng, path, slow_cpu_b=1.0, length=6_000_000):
    """Nested calls on two threads, X with tdur on w1 and B/E with tts on
    w2; one call in five has no thread time. In the second half, `b` calls on
    w1 use slow_cpu_b times the thread time (their wall time unchanged)."""
    half = length // 2
    events = [{'name': 'thread_name', 'ph': 'M', 'pid': 1, 'tid': t, 'args': {'name': n}}
              for t, n in ((10, 'w1'), (11, 'w2'))]
    spans = []   # (tid, start_us, cpu_us or None, path)
    clock = {10: 0, 11: 0}

    def call(tid, start, end, ancestors, depth, style):
        name = rng.choice(['parse', 'layout', 'io', 'b']) if depth else 'main'
        has_cpu = rng.random() < 0.8
        i = len(spans)
        spans.append(None)
        if style == 'X':
            # At most half the wall time, so that a doubled one still fits.
            cpu = rng.randrange(0, (end - start) // 2 + 1) if has_cpu else None
            if cpu is not None and name == 'b' and start >= half and tid == 10:
                cpu = int(cpu * slow_cpu_b)
            e = {'name': name, 'ph': 'X', 'pid': 1, 'tid': tid, 'ts': start, 'dur': end - start}
            if has_cpu:
                e['tdur'] = cpu
            events.append(e)
        else:
            b = {'name': name, 'ph': 'B', 'pid': 1, 'tid': tid, 'ts': start}
            if has_cpu:
                b['tts'] = clock[tid]
            events.append(b)
        t = start
        for _ in range(rng.randrange(1, 4) if depth < 3 else 0):
            lo = t + rng.randrange(1, 20)
            hi = lo + rng.randrange(1, 150)
            if hi >= end:
                break
            clock[tid] += rng.randrange(0, 30)
            call(tid, lo, hi, ancestors + (name,), depth + 1, style)
            t = hi
        if style == 'BE':
            clock[tid] += rng.randrange(0, 30)
            e = {'name': name, 'ph': 'E', 'pid': 1, 'tid': tid, 'ts': end}
            cpu = None
            if has_cpu:
                e['tts'] = clock[tid]
                cpu = clock[tid] - b['tts']
            events.append(e)
        spans[i] = (tid, start, cpu, ancestors + (name,))

    for tid, style in ((10, 'X'), (11, 'BE')):
        t = 0
        while t < length:
            dur = rng.randrange(300, 1500)
            call(tid, t, t + dur, (), 0, style)
            t += dur + rng.randrange(1, 200)
    events.sort(key=lambda e: e.get('ts', -1))
    with open(path, 'w') as f:
        json.dump(events, f)
    return spans


def span_tree(spans, ranges):
    tree = Tree()
    for side, (lo, hi) in enumerate(ranges):
        for _, start, cpu, path in spans:
            if lo <= start * 1000 < hi:
                tree.add(side, path, (cpu or 0) * 1000)
    return tree


def check_generated(rng, tmp):
    path = os.path.join(tmp, 'cpu.json')
    spans = make_trace(rng, path)
    ranges = [(1 * NS, 3 * NS), (3 * NS, 5 * NS)]
    n = check_tree('diff', flame(path, '--a', '1s..3s', '--b', '3s..5s'), span_tree(spans, ranges), True)
    check_tree('A', flame(path, '--a', '1s..3s'), span_tree(spans, [(0, 0), ranges[0]]), False)
    check_tree('B', flame(path, '--b', '3s..5s'), span_tree(spans, [(0, 0), ranges[1]]), False)
    check_tree('w2', flame(path, '--a', '1s..3s', '--b', '3s..5s', '--thread', 'w2'),
               span_tree([s for s in spans if s[0] == 11], ranges), True)
    check_tree('whole', flame(path), span_tree(spans, [(0, 0), (0, 10 * NS)]), False)
    print(f'generated: {n} frames of the differential checked', file=sys.stderr)


def chrome_nesting(events):
    """X events of one thread in file order: each nests in the open ones
    that end at or after its own end (Chrome's rule for complete events)."""
    out, stack = [], []   # stack of (end_us, name)
    for e in events:
        end = e['ts'] + e['dur']
        while stack and (stack[-1][0] <= e['ts'] or stack[-1][0] < end):
            stack.pop()
        path = tuple(n for _, n in stack) + (e['name'],)
        out.append((e, path))
        stack.append((end, e['name']))
    return out


def check_chromium(tmp):
    path = os.path.join(os.environ['G_TEST_SRCDIR'], 'data', 'chrome', 'chromium-cpu.json')
    events = [e for e in json.load(open(path))['traceEvents'] if e['ph'] == 'X']
    t0 = min(e['ts'] for e in events)
    ranges = [(0, 1_500_000), (1_500_000, 3_500_000)]
    tree = Tree()
    for side, (lo, hi) in enumerate(ranges):
        for e, p in chrome_nesting(events):
            if lo <= (e['ts'] - t0) * 1000 < hi:
                tree.add(side, p, e.get('tdur', 0) * 1000)
    n = check_tree('chromium diff', flame(path, '--a', '0ms..1.5ms', '--b', '1.5ms..3.5ms'), tree, True)
    whole = Tree()
    for e, p in chrome_nesting(events):
        whole.add(1, p, e.get('tdur', 0) * 1000)
    check_tree('chromium whole', flame(path), whole, False)
    print(f'chromium: {n} frames checked', file=sys.stderr)


def check_power(rng, tmp):
    """`b` on w1 doubles its thread time in B at the same wall time."""
    path = os.path.join(tmp, 'power.json')
    found = 0
    for _ in range(5):
        make_trace(rng, path, slow_cpu_b=2.0, length=2_000_000)
        rows = flame(path, '--a', '0s..1s', '--b', '1s..2s', '--thread', 'w1')
        r = rows.get('main;b')
        found += r is not None and r['significant'] == 'true' and num(r['change_pct']) > 0
    if found < 5:
        failures.append(f'power: main;b with doubled CPU time found in {found} of 5 traces')


def check_null(rng, tmp):
    """Null traces (the same process in A and B): frames with p < 0.05
    within 0.05 ± 0.035, as test-flame-exact.py holds the wall graph. The
    frames one level under `main` (thread;main;f), chosen by their place,
    not by their shares: frames near the 0.5 % mark count only when one side
    happens to be large, which selects the larger differences."""
    path = os.path.join(tmp, 'null.json')
    small = low = 0
    for _ in range(30):
        make_trace(rng, path, length=2_000_000)
        rows = flame(path, '--a', '0s..1s', '--b', '1s..2s', '--per-thread')
        for p, r in rows.items():
            if p.count(';') == 2 and r['p_value'] != '':
                small += 1
                low += num(r['p_value']) < 0.05
    rate = low / max(small, 1)
    print(f'null: {low} of {small} frames with p < 0.05 ({rate:.3f})', file=sys.stderr)
    if small < 200 or not 0.015 <= rate <= 0.085:
        failures.append(f'null: {rate:.3f} of {small} frames with p < 0.05')


def check_folded(tmp):
    """OUT.folded by CPU time: each stack's self CPU time in whole ns, the
    CSV tree's self_weight (checked above against Python's), not its count
    of events."""
    path = os.path.join(os.environ['G_TEST_SRCDIR'], 'data', 'chrome', 'chromium-cpu.json')
    for args in [(), ('--a', '0ms..1.5ms')]:
        rows = flame(path, *args)
        out = os.path.join(tmp, 'cpu.folded')
        done = subprocess.run([TIMESLICE, 'export', '--weight', 'cpu', '-o', out, *args, path],
                              capture_output=True, text=True)
        if done.returncode != 0:
            failures.append(f'folded {args}: exit {done.returncode}: {done.stderr.strip()}')
            continue
        got = {}
        with open(out) as f:
            for line in f:
                stack, _, n = line.rstrip('\n').rpartition(' ')
                got[stack] = int(n)
        want = {p: round(num(r['self_weight'])) for p, r in rows.items() if round(num(r['self_weight'])) > 0}
        if got != want:
            diff = sorted(set(got.items()) ^ set(want.items()))[:4]
            failures.append(f'folded {args}: {len(got)} stacks, want {len(want)}; differ: {diff}')
        if sum(got.values()) < 100_000:
            failures.append(f'folded {args}: {sum(got.values())} ns of CPU time in all')


def check_refusals(tmp):
    plain = os.path.join(tmp, 'plain.json')
    with open(plain, 'w') as f:
        json.dump([{'name': 'f', 'ph': 'X', 'pid': 1, 'tid': 1, 'ts': t, 'dur': 5} for t in range(0, 1000, 10)], f)
    done = flame(plain, '--a', '0%..50%', check_rc=False)
    if done.returncode == 0 or plain not in done.stderr or 'thread (CPU) time' not in done.stderr:
        failures.append(f'no thread time: exit {done.returncode}, {done.stderr.strip()!r}')
    out = os.path.join(tmp, 'pipe.csv')
    with open(plain, 'rb') as f:
        done = subprocess.run([TIMESLICE, 'export', '--flamegraph', '--weight', 'cpu', '-o', out, '-'],
                              stdin=f, capture_output=True, text=True)
    if done.returncode == 0 or 'cannot be re-read' not in done.stderr:
        failures.append(f'pipe: exit {done.returncode}, {done.stderr.strip()!r}')


def main():
    rng = random.Random(33)
    with tempfile.TemporaryDirectory() as tmp:
        check_generated(rng, tmp)
        check_chromium(tmp)
        check_power(rng, tmp)
        check_null(rng, tmp)
        check_folded(tmp)
        check_refusals(tmp)
    shutil.rmtree(OUT_DIR, ignore_errors=True)
    for f in failures[:40]:
        print('FAIL', f)
    print(f'{len(failures)} failures')
    sys.exit(1 if failures else 0)


main()
