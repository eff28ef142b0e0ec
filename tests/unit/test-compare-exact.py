#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
#
# `timeslice compare` reports exact per-range values: on generated files where
# nothing changes, the A and B columns (and a_n, b_n) equal the values
# computed here, independently, from the same file, to 1e-9 relative.
#
# Rules computed here, as README "What significant means" states them:
# - a span belongs to the range its start falls in; a function's share is
#   its inclusive time inside the range (a call inside an open call of the
#   same name not again, a call outlasting the range up to the range's end)
#   over the range's length, its mean duration Σ durations / calls;
# - a gauge's value holds until its next point; the range's last point holds
#   to the range's end, or to its series' last point plus the median gap;
# - a counter that never decreases is compared by its rise per second;
# - in a sampled profile a function's share is that of the samples holding it.
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
    if want == 0:
        ok = abs(got) <= 1e-12
    else:
        ok = abs(got - want) <= rel * abs(want)
    if not ok:
        failures.append(f'{what}: got {got!r}, want {want!r}')


def run(path, a, b, *extra):
    out = subprocess.run([TIMESLICE, 'compare', '--a', a, '--b', b, '--rounds', '200', *extra, path],
                         check=True, capture_output=True, text=True).stdout
    return {(r['series'], r['stat']): r for r in csv.DictReader(io.StringIO(out))}


def make_trace(rng, path):
    """Two threads of nested calls (X events on one, B/E on the other), a
    gauge at irregular times and a cumulative counter, 0..6 s."""
    events = [{'name': 'thread_name', 'ph': 'M', 'pid': 1, 'tid': t, 'args': {'name': n}}
              for t, n in ((10, 'w1'), (11, 'w2'))]
    spans = {'w1': [], 'w2': []}   # (start_us, dur_us, name, ancestors)
    names = ['parse', 'layout', 'io']

    def call(thread, tid, start, end, ancestors, depth, style):
        name = rng.choice(names)
        spans[thread].append((start, end - start, name, ancestors))
        if style == 'X':
            events.append({'name': name, 'ph': 'X', 'pid': 1, 'tid': tid, 'ts': start, 'dur': end - start})
        else:
            events.append({'name': name, 'ph': 'B', 'pid': 1, 'tid': tid, 'ts': start})
        t = start
        for _ in range(rng.randrange(3) if depth < 3 else 0):
            lo = t + rng.randrange(1, 40)
            hi = lo + rng.randrange(1, 200)
            if hi >= end:
                break
            call(thread, tid, lo, hi, ancestors + (name,), depth + 1, style)
            t = hi
        if style == 'BE':
            events.append({'name': name, 'ph': 'E', 'pid': 1, 'tid': tid, 'ts': end})

    for thread, tid, style in (('w1', 10, 'X'), ('w2', 11, 'BE')):
        t = 0
        while t < 6_000_000:
            dur = rng.randrange(200, 1500)
            call(thread, tid, t, t + dur, (), 0, style)
            t += dur + rng.randrange(1, 300)

    gauge, counter = [], []
    t, v, total = 0, 50.0, 0
    while t <= 6_000_000:
        v = round(v + rng.gauss(0, 2), 3)
        gauge.append((t, v))
        events.append({'name': 'heap', 'ph': 'C', 'pid': 1, 'ts': t, 'args': {'value': v}})
        total += rng.randrange(0, 5)
        counter.append((t, total))
        events.append({'name': 'requests', 'ph': 'C', 'pid': 1, 'ts': t, 'args': {'value': total}})
        t += rng.randrange(5_000, 15_000)
    events.sort(key=lambda e: e.get('ts', -1))
    with open(path, 'w') as f:
        json.dump(events, f)
    return spans, gauge, counter


def median_gap(points):
    """The upper median of the series' first 2049 gaps (points in time order)."""
    gaps = sorted([b[0] - a[0] for a, b in zip(points, points[1:]) if b[0] > a[0]][:2049])
    return gaps[len(gaps) // 2]


def time_mean(points, lo, hi, scale):
    """points: (time, value) in file units × scale = ns."""
    gap = median_gap(points) * scale
    last = points[-1][0] * scale
    inside = [(t * scale, v) for t, v in points if lo <= t * scale < hi]
    weighted = held = 0.0
    for (t, v), (t2, _) in zip(inside, inside[1:] + [(min(hi, last + gap), None)]):
        weighted += v * (t2 - t)
        held += t2 - t
    return weighted / held, len(inside)


def rise_rate(points, lo, hi, scale):
    inside = [(t * scale, v) for t, v in points if lo <= t * scale < hi]
    return (inside[-1][1] - inside[0][1]) / (inside[-1][0] - inside[0][0]) * NS, len(inside)


def check_trace(rng, tmp):
    path = os.path.join(tmp, 'trace.json')
    spans, gauge, counter = make_trace(rng, path)
    ranges = {'a': (1 * NS, 3 * NS), 'b': (3 * NS, 5 * NS)}
    rows = run(path, '1s..3s', '3s..5s')
    for thread, calls in spans.items():
        for name in sorted({c[2] for c in calls}):
            for side, (lo, hi) in ranges.items():
                mine = [c for c in calls if c[2] == name and lo <= c[0] * 1000 < hi]
                total = sum(min(c[1] * 1000, hi - c[0] * 1000) for c in mine if name not in c[3])
                share = rows[(f'{thread}/{name}', 'share')]
                mean = rows[(f'{thread}/{name}', 'mean')]
                check(f'{thread}/{name} share {side}', float(share[f'{side}_value']), total / (hi - lo))
                check(f'{thread}/{name} mean {side}', float(mean[f'{side}_value']),
                      sum(c[1] * 1000 for c in mine) / len(mine))
                check(f'{thread}/{name} calls {side}', int(mean[f'{side}_n']), len(mine))
    for side, (lo, hi) in ranges.items():
        want, n = time_mean(gauge, lo, hi, 1000)
        check(f'heap time_mean {side}', float(rows[('heap', 'time_mean')][f'{side}_value']), want)
        check(f'heap n {side}', int(rows[('heap', 'time_mean')][f'{side}_n']), n)
        want, n = rise_rate(counter, lo, hi, 1000)
        check(f'requests rate {side}', float(rows[('requests', 'rate_per_s')][f'{side}_value']), want)
    print(f'trace: {len(rows)} rows checked', file=sys.stderr)


def check_metrics(rng, tmp):
    """1 Hz CSV, 0..599 s: a gauge and a cumulative byte count."""
    path = os.path.join(tmp, 'metrics.csv')
    cpu, sent = [], []
    x, total = 0.0, 0
    with open(path, 'w') as f:
        f.write('time,cpu,sent\n')
        for t in range(600):
            x = 0.6 * x + rng.gauss(0, 1)
            total += rng.randrange(100, 2000)
            cpu.append((t, round(40 + 5 * x, 4)))
            sent.append((t, total))
            f.write(f'{t},{cpu[-1][1]},{total}\n')
    a, b = (100 * NS, 300 * NS), (300 * NS, 500 * NS)
    default = run(path, '100s..300s', '300s..500s')
    by_stat = {s: run(path, '100s..300s', '300s..500s', '--stat', s) for s in ('mean', 'sum', 'count')}
    for side, (lo, hi) in (('a', a), ('b', b)):
        values = [v for t, v in cpu if lo <= t * NS < hi]
        want, n = time_mean(cpu, lo, hi, NS)
        check(f'cpu time_mean {side}', float(default[('cpu', 'time_mean')][f'{side}_value']), want)
        check(f'cpu mean {side}', float(by_stat['mean'][('cpu', 'mean')][f'{side}_value']), sum(values) / n)
        check(f'cpu sum {side}', float(by_stat['sum'][('cpu', 'sum')][f'{side}_value']), sum(values))
        check(f'cpu count {side}', float(by_stat['count'][('cpu', 'count')][f'{side}_value']), n)
        want, n = rise_rate(sent, lo, hi, NS)
        check(f'sent rate {side}', float(default[('sent', 'rate_per_s')][f'{side}_value']), want)
        check(f'sent n {side}', int(default[('sent', 'rate_per_s')][f'{side}_n']), n)
    print(f'metrics: {len(default)} rows checked', file=sys.stderr)
    check_span_end(path, cpu)


def run_full(path, a, b, *extra):
    return subprocess.run([TIMESLICE, 'compare', '--a', a, '--b', b, '--rounds', '200', *extra, path],
                          check=True, capture_output=True, text=True)


def check_span_end(path, cpu):
    """Points at 0..599 s, 1 Hz: the data ends at 600 s, so 300s..600s is
    as long as 0s..300s, its last point holds one second, and nothing is
    said about it; 300s..700s does reach past the data, by 100 s."""
    done = run_full(path, '0s..300s', '300s..600s', '--stat', 'sum')
    rows = {(r['series'], r['stat']): r for r in csv.DictReader(io.StringIO(done.stdout))}
    # The sum of a running total (sent) drifts like a random walk: its row
    # is declared too dependent to test, and stderr says so; nothing else.
    said = [line for line in done.stderr.splitlines() if '(method too-dependent' not in line]
    if said:
        failures.append(f'span end: unexpected warning {said!r}')
    if ('cpu', 'sum') not in rows:
        failures.append(f'span end: ranges of 300 s taken as unequal: {sorted(rows)}')
    else:
        check('cpu sum B to the end', float(rows[('cpu', 'sum')]['b_value']),
              sum(v for t, v in cpu if t >= 300))
    done = run_full(path, '0s..300s', '300s..600s')
    rows = {(r['series'], r['stat']): r for r in csv.DictReader(io.StringIO(done.stdout))}
    want, _ = time_mean(cpu, 300 * NS, 600 * NS, NS)
    check('cpu time_mean B to the end', float(rows[('cpu', 'time_mean')]['b_value']), want)
    done = run_full(path, '0s..300s', '300s..700s')
    if 'range B ends after the trace; its length is taken as 5 min' not in done.stderr:
        failures.append(f'span end: warning for 300s..700s was {done.stderr!r}')


def check_sampled(rng, tmp):
    """A speedscope sampled profile: events are weighted samples of whole
    stacks, so a function's share is the share of samples holding it (not
    the weight of samples where it is innermost)."""
    path = os.path.join(tmp, 'sampled.speedscope.json')
    names = ['main', 'run', 'parse', 'draw', 'io']
    samples, weights, t, times = [], [], 0, []
    while t < 6000:
        stack = [0] + [rng.randrange(1, 5) for _ in range(rng.randrange(0, 4))]
        samples.append(stack)
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
    rows = run(path, '1s..3s', '3s..5s')
    for side, (lo, hi) in (('a', (1000, 3000)), ('b', (3000, 5000))):
        inside = [s for s, at in zip(samples, times) if lo <= at < hi]
        for i, name in enumerate(names):
            holding = sum(1 for s in inside if i in s)
            row = rows.get((f'prof/{name}', 'share'))
            if row is None:
                failures.append(f'sampled: no share row for {name}: {sorted(rows)}')
                continue
            check(f'sampled {name} share {side}', float(row[f'{side}_value']), holding / len(inside))
            check(f'sampled {name} n {side}', int(row[f'{side}_n']), holding)
        if any(k[1] == 'mean' for k in rows):
            failures.append('sampled: samples were taken for calls with durations')
    print(f'sampled: {len(rows)} rows checked', file=sys.stderr)


def check_presence(tmp):
    """A function called in B only reads "new in B" with its exact value,
    one called in A only "gone in B"; no infinite change."""
    path = os.path.join(tmp, 'presence.json')
    events = [{'name': 'thread_name', 'ph': 'M', 'pid': 1, 'tid': 1, 'args': {'name': 'main'}}]
    for i in range(400):
        name = 'early' if i < 200 and i % 4 == 0 else 'late' if i >= 200 and i % 4 == 0 else 'work'
        events.append({'name': name, 'ph': 'X', 'pid': 1, 'tid': 1, 'ts': i * 1000, 'dur': 500})
    # A counter with one point: no gap to hold it by, so its plain value.
    events.append({'name': 'lone', 'ph': 'C', 'pid': 1, 'ts': 50_000, 'args': {'value': 7}})
    with open(path, 'w') as f:
        json.dump(events, f)
    rows = run(path, '0s..200ms', '200ms..400ms')
    late, early = rows[('main/late', 'share')], rows[('main/early', 'share')]
    if late['change_pct'] != 'new in B' or early['change_pct'] != 'gone in B':
        failures.append(f'presence: change {late["change_pct"]!r} / {early["change_pct"]!r}')
    # B is measured to the end of the data: the last call ends at 399.5 ms.
    check('late share b', float(late['b_value']), 50 * 500_000 / 199_500_000)
    check('late share a', float(late['a_value']), 0)
    lone = rows.get(('lone', 'time_mean'), {})
    if lone.get('a_value') != '7' or lone.get('change_pct') != 'gone in B':
        failures.append(f'presence: a counter with one point: {lone}')
    if late['significant'] != 'true':
        failures.append('presence: 50 calls against none not significant')
    # From a pipe (kept samples, no re-read) it reads the same words.
    with open(path) as f:
        piped = subprocess.run([TIMESLICE, 'compare', '--a', '0s..200ms', '--b', '200ms..400ms', '-'],
                               stdin=f, check=True, capture_output=True, text=True).stdout
    changes = {r['series']: r['change_pct'] for r in csv.DictReader(io.StringIO(piped)) if r['stat'] == 'share'}
    if changes.get('main/late') != 'new in B' or changes.get('main/early') != 'gone in B':
        failures.append(f'presence from a pipe: {changes}')


def main():
    rng = random.Random(17)
    with tempfile.TemporaryDirectory() as tmp:
        check_trace(rng, tmp)
        check_metrics(rng, tmp)
        check_sampled(rng, tmp)
        check_presence(tmp)
    for f in failures:
        print('FAIL', f)
    sys.exit(1 if failures else 0)


if __name__ == '__main__':
    main()
