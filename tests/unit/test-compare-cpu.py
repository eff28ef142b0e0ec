#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
#
# `timeslice compare` on thread (CPU) time: the cpu_share and cpu_mean rows
# equal the exact per-range aggregates computed here, independently, to 1e-9
# relative (Chrome JSON: an X's tdur, a B/E pair's difference of tts; calls
# without thread time left out; a call outlasting the range counts at most
# its wall time inside it); `--stat cpu_share|cpu_mean` gives those rows
# alone; and a planted function whose wall time doubles while its CPU time
# stays flat is noted "waiting" (CSV and report), one whose CPU time doubles
# with it is not.
import csv
import io
import json
import os
import random
import re
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


def run(path, a, b, *extra):
    out = subprocess.run([TIMESLICE, 'compare', '--a', a, '--b', b, '--rounds', '200', *extra, path],
                         check=True, capture_output=True, text=True).stdout
    return {(r['series'], r['stat']): r for r in csv.DictReader(io.StringIO(out))}


def make_trace(rng, path):
    """Nested calls on two threads, X events with tdur on one, B/E with tts
    on the other; one call in five has no thread time. 0..6 s."""
    events = [{'name': 'thread_name', 'ph': 'M', 'pid': 1, 'tid': t, 'args': {'name': n}}
              for t, n in ((10, 'w1'), (11, 'w2'))]
    spans = {'w1': [], 'w2': []}   # (start_us, cpu_us or None, name, ancestors, end_us)
    names = ['parse', 'layout', 'io']
    clock = {10: 0, 11: 0}         # each thread's CPU clock (µs)

    def call(thread, tid, start, end, ancestors, depth, style):
        name = rng.choice(names)
        has_cpu = rng.random() < 0.8
        i = len(spans[thread])
        spans[thread].append(None)
        if style == 'X':
            cpu = rng.randrange(0, end - start + 1) if has_cpu else None
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
        for _ in range(rng.randrange(3) if depth < 3 else 0):
            lo = t + rng.randrange(1, 40)
            hi = lo + rng.randrange(1, 200)
            if hi >= end:
                break
            clock[tid] += rng.randrange(0, 30)
            call(thread, tid, lo, hi, ancestors + (name,), depth + 1, style)
            t = hi
        if style == 'BE':
            clock[tid] += rng.randrange(0, 30)
            e = {'name': name, 'ph': 'E', 'pid': 1, 'tid': tid, 'ts': end}
            if has_cpu:
                e['tts'] = clock[tid]
                cpu = clock[tid] - b['tts']
            else:
                cpu = None
            events.append(e)
        spans[thread][i] = (start, cpu, name, ancestors, end)

    for thread, tid, style in (('w1', 10, 'X'), ('w2', 11, 'BE')):
        t = 0
        while t < 6_000_000:
            dur = rng.randrange(200, 1500)
            call(thread, tid, t, t + dur, (), 0, style)
            t += dur + rng.randrange(1, 300)
    events.sort(key=lambda e: e.get('ts', -1))
    with open(path, 'w') as f:
        json.dump(events, f)
    return spans


def check_exact(rng, tmp):
    path = os.path.join(tmp, 'cpu.json')
    spans = make_trace(rng, path)
    ranges = {'a': (1 * NS, 3 * NS), 'b': (3 * NS, 5 * NS)}
    rows = run(path, '1s..3s', '3s..5s')
    alone = {s: run(path, '1s..3s', '3s..5s', '--stat', s) for s in ('cpu_share', 'cpu_mean')}
    checked = 0
    for s, table in alone.items():
        if {stat for _, stat in table} != {s}:
            failures.append(f'--stat {s} gave the stats {sorted({stat for _, stat in table})}')
    for thread, calls in spans.items():
        for name in sorted({c[2] for c in calls}):
            for side, (lo, hi) in ranges.items():
                mine = [c for c in calls if c[2] == name and lo <= c[0] * 1000 < hi and c[1] is not None]
                # A call outlasting the range: at most its wall time inside it.
                total = sum(min(c[1] * 1000, (min(c[4] * 1000, hi) - c[0] * 1000))
                            for c in mine if name not in c[3])
                series = f'{thread}/{name}'
                for table in (rows, alone['cpu_share']):
                    check(f'{series} cpu_share {side}', float(table[(series, 'cpu_share')][f'{side}_value']),
                          total / (hi - lo))
                for table in (rows, alone['cpu_mean']):
                    check(f'{series} cpu_mean {side}', float(table[(series, 'cpu_mean')][f'{side}_value']),
                          sum(c[1] * 1000 for c in mine) / len(mine))
                    check(f'{series} cpu calls {side}', int(table[(series, 'cpu_mean')][f'{side}_n']), len(mine))
                checked += 1
    if checked < 12:
        failures.append(f'only {checked} function sides checked')
    print(f'exact: {checked} function sides checked', file=sys.stderr)


def check_chromium():
    """200 calls of a Chromium 156 recording made here (tests/data): each
    function's cpu_mean and calls with thread time, Σ tdur / calls."""
    path = os.path.join(os.environ['G_TEST_SRCDIR'], 'data', 'chrome', 'chromium-cpu.json')
    events = [e for e in json.load(open(path))['traceEvents'] if e['ph'] == 'X']
    t0 = min(e['ts'] for e in events)
    rows = run(path, '0ms..1.5ms', '1.5ms..3.5ms')
    checked = 0
    for side, (lo, hi) in (('a', (0, 1500)), ('b', (1500, 3500))):
        by_name = {}
        for e in events:
            if 'tdur' in e and lo <= e['ts'] - t0 < hi:
                by_name.setdefault(e['name'], []).append(e['tdur'] * 1000)
        for name, cpu in by_name.items():
            row = rows[(f'CrBrowserMain/{name}', 'cpu_mean')]
            check(f'chromium {name} cpu_mean {side}', float(row[f'{side}_value']), sum(cpu) / len(cpu))
            check(f'chromium {name} cpu calls {side}', int(row[f'{side}_n']), len(cpu))
            checked += 1
    if checked < 10:
        failures.append(f'chromium: only {checked} function sides checked')
    print(f'chromium: {checked} function sides checked', file=sys.stderr)


def check_perfetto(rng, tmp):
    """Perfetto, as Chrome writes thread time: an incremental
    COUNTER_THREAD_TIME_NS track in µs (multiplier 1000), a value on each
    slice's begin and end as extra counter values; one slice in five
    without. cpu_mean and its calls against the differences."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from perfetto_proto import (trace, process_track, thread_track, event, TRACK_DESCRIPTOR,
                                BEGIN, END, SEQ, FLAGS, CLEARED)
    packets = [process_track(1, 42, 'browser'), thread_track(2, 1, 42, 43, 'main'),
               [(SEQ, 1), (FLAGS, CLEARED)],
               [(TRACK_DESCRIPTOR, [(1, 5), (5, 2), (2, 'thread_time'), (8, [(1, 1), (4, 1000), (5, 1)])])]]
    clock = last = 0
    calls = []     # (start_ns, name, cpu_ns or None)
    t = 1_000_000

    def stamp(has):
        nonlocal last
        if not has:
            return []
        delta, last = clock - last, clock
        return [(31, 5), (12, delta)]

    while t < 6_000_000_000:
        name = rng.choice(['parse', 'layout'])
        has = rng.random() < 0.8
        begin = clock
        packets.append(event(t, 2, BEGIN, name=name, extra=stamp(has)))
        dur = rng.randrange(200_000, 1_500_000)
        clock += rng.randrange(0, dur // 1000)
        packets.append(event(t + dur, 2, END, extra=stamp(has)))
        calls.append((t, name, (clock - begin) * 1000 if has else None))
        t += dur + rng.randrange(1000, 300_000)
        clock += rng.randrange(0, 50)
    path = os.path.join(tmp, 'cpu.pftrace')
    with open(path, 'wb') as f:
        f.write(trace(packets))
    t0 = calls[0][0]
    rows = run(path, '1s..3s', '3s..5s')
    checked = 0
    for side, (lo, hi) in (('a', (1 * NS, 3 * NS)), ('b', (3 * NS, 5 * NS))):
        for name in ('parse', 'layout'):
            cpu = [c[2] for c in calls if c[1] == name and c[2] is not None and lo <= c[0] - t0 < hi]
            row = rows[(f'main/{name}', 'cpu_mean')]
            check(f'perfetto {name} cpu_mean {side}', float(row[f'{side}_value']), sum(cpu) / len(cpu))
            check(f'perfetto {name} cpu calls {side}', int(row[f'{side}_n']), len(cpu))
            checked += 1
    print(f'perfetto: {checked} function sides checked', file=sys.stderr)


def make_planted(rng, path):
    """One thread, 0..20 s: `fetch` doubles its wall time in the second half
    with the same CPU time (it waits), `compute` doubles both, `idle` keeps
    both."""
    events = [{'name': 'thread_name', 'ph': 'M', 'pid': 1, 'tid': 1, 'args': {'name': 'main'}}]
    t = 0
    while t < 20_000_000:
        name = rng.choice(['fetch', 'compute', 'idle'])
        slow = 2 if t >= 10_000_000 and name in ('fetch', 'compute') else 1
        cpu = rng.randrange(200, 400)
        wall = cpu + rng.randrange(100, 300)
        if name == 'fetch':
            wall *= slow
        elif name == 'compute':
            cpu, wall = cpu * slow, wall * slow
        events.append({'name': name, 'ph': 'X', 'pid': 1, 'tid': 1, 'ts': t, 'dur': wall, 'tdur': cpu})
        t += wall + rng.randrange(10, 200)
    with open(path, 'w') as f:
        json.dump(events, f)


def check_planted(rng, tmp):
    path = os.path.join(tmp, 'planted.json')
    make_planted(rng, path)
    rows = run(path, '0%..50%', '50%..100%')
    for stat in ('mean', 'cpu_mean'):
        r = rows[('main/fetch', stat)]
        if r['note'] != 'waiting':
            failures.append(f'main/fetch {stat}: note {r["note"]!r}, want "waiting" ({r})')
    for series in ('main/compute', 'main/idle'):
        for stat in ('mean', 'cpu_mean', 'share', 'cpu_share'):
            if rows[(series, stat)]['note'] != '':
                failures.append(f'{series} {stat}: note {rows[(series, stat)]["note"]!r}, want none')
    # The report says which function changed only in wall time.
    page = os.path.join(tmp, 'report.html')
    subprocess.run([TIMESLICE, 'export', '--report', '-o', page, '--a', '0%..50%', '--b', '50%..100%', path],
                   check=True, capture_output=True, text=True)
    html = open(page, encoding='utf-8').read()
    if 'only in wall time (waiting, off CPU): main/fetch.' not in html:
        failures.append('report: main/fetch not said to change only in wall time')
    if not re.search(r'main/fetch: mean duration [^<]*; wall \+(9\d|10\d) %, CPU [+-]\d %: waiting', html):
        failures.append('report: no sentence "main/fetch: mean duration …; wall +~100 %, CPU ~0 %: waiting"')
    # Statistics are named in words, as the window names them, not by their CSV ids.
    if re.search(r'>\s*cpu_(mean|share)\s*<|: cpu_(mean|share) ', html):
        failures.append('report: a statistic named by its CSV id (cpu_mean / cpu_share)')
    if not re.search(r'main/compute: mean CPU time [^<]*→', html):
        failures.append('report: no sentence "main/compute: mean CPU time … → …"')
    fetch = rows[('main/fetch', 'mean')]
    print(f'planted: fetch wall {float(fetch["change_pct"]):+.0f} %, '
          f'CPU {float(rows[("main/fetch", "cpu_mean")]["change_pct"]):+.0f} %: waiting', file=sys.stderr)


def main():
    rng = random.Random(33)
    with tempfile.TemporaryDirectory() as tmp:
        check_exact(rng, tmp)
        check_chromium()
        check_perfetto(rng, tmp)
        check_planted(rng, tmp)
    for f in failures[:20]:
        print('FAIL', f)
    print(f'{len(failures)} failures')
    sys.exit(1 if failures else 0)


main()
