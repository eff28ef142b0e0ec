#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# `timeslice export --view` (issue 18): on a generated trace with nested
# spans, the CSV of a window holding fewer events than the exact budget lists
# every slice of the file in that window, with exact times, and nothing else;
# --tracks filters; the PNG draws the same view; past the budget the rows
# say they are samples.
import csv
import json
import os
import random
import subprocess
import sys
import tempfile

exe = os.environ['TSL_TIMESLICE']
env = {k: v for k, v in os.environ.items() if k not in ('DISPLAY', 'WAYLAND_DISPLAY')}
tmp = tempfile.mkdtemp()
failures = []


def check(cond, what):
    print(('ok   ' if cond else 'FAIL ') + what)
    if not cond:
        failures.append(what)


def run(*args):
    return subprocess.run([exe, *args], capture_output=True, text=True, env=env, timeout=300)


def generate(rng):
    """Three threads: X spans nested by time, B/E spans nested by order,
    X spans with instants inside. Returns (events, expected slices) where a
    slice is (thread name, depth, start_us, end_us, name)."""
    events = [
        {'ph': 'M', 'name': 'process_name', 'pid': 1, 'tid': 1, 'args': {'name': 'app'}},
        {'ph': 'M', 'name': 'thread_name', 'pid': 1, 'tid': 1, 'args': {'name': 'main'}},
        {'ph': 'M', 'name': 'thread_name', 'pid': 1, 'tid': 2, 'args': {'name': 'worker'}},
        {'ph': 'M', 'name': 'thread_name', 'pid': 1, 'tid': 3, 'args': {'name': 'io'}},
    ]
    slices = []

    # main: back-to-back `main` calls, children filling ~98 % of each.
    t = 1000
    for i in range(2000):
        d = rng.randint(200, 400)
        events.append({'ph': 'X', 'name': 'main', 'pid': 1, 'tid': 1, 'ts': t, 'dur': d})
        slices.append(('main', 0, t, t + d, 'main'))
        c = t
        for name in ('tokenize', 'parse', 'emit'):
            cd = d * 98 // 300
            events.append({'ph': 'X', 'name': name, 'pid': 1, 'tid': 1, 'ts': c, 'dur': cd})
            slices.append(('main', 1, c, c + cd, name))
            if name == 'parse':
                events.append({'ph': 'X', 'name': 'gc', 'pid': 1, 'tid': 1, 'ts': c + 2, 'dur': cd // 2})
                slices.append(('main', 2, c + 2, c + 2 + cd // 2, 'gc'))
            c += cd
        t += d

    # worker: B/E nested up to 4 deep, in file order.
    t, stack = 1000, []
    while t < 1000 + 2000 * 300:
        t += rng.randint(1, 40)
        if stack and (len(stack) == 4 or rng.random() < 0.45):
            name, start, depth = stack.pop()
            events.append({'ph': 'E', 'pid': 1, 'tid': 2, 'ts': t})
            slices.append(('worker', depth, start, t, name))
        else:
            name = 'job%d' % rng.randint(0, 5)
            events.append({'ph': 'B', 'name': name, 'pid': 1, 'tid': 2, 'ts': t})
            stack.append((name, t, len(stack)))
    while stack:
        name, start, depth = stack.pop()
        t += 1
        events.append({'ph': 'E', 'pid': 1, 'tid': 2, 'ts': t})
        slices.append(('worker', depth, start, t, name))

    # io: reads with a few instants inside them.
    t = 1500
    for i in range(3000):
        d = rng.randint(50, 150)
        events.append({'ph': 'X', 'name': 'read', 'pid': 1, 'tid': 3, 'ts': t, 'dur': d})
        slices.append(('io', 0, t, t + d, 'read'))
        mark = t + rng.randint(1, d - 1)
        events.append({'ph': 'i', 'name': 'mark', 'pid': 1, 'tid': 3, 'ts': mark, 's': 't'})
        slices.append(('io', 1, mark, mark, 'mark'))
        t += d + rng.randint(1, 100)

    # In time order, parents before the children that start with them (X
    # spans nest by containment in the order they come, as tracers write
    # them); B/E keep their order by construction.
    meta = [e for e in events if e['ph'] == 'M']
    timed = sorted((e for e in events if e['ph'] != 'M'),
                   key=lambda e: (e['ts'], 0 if e['ph'] == 'E' else 1, -e.get('dur', 0)))
    events = meta + timed
    return events, slices


def in_view(start, end, vs, ve):
    return start < ve and (end > vs or (end == start and start >= vs))


rng = random.Random(18)
events, slices = generate(rng)
path = os.path.join(tmp, 'nested.json')
with open(path, 'w') as f:
    json.dump(events, f)
origin = min(e['ts'] for e in events if 'ts' in e)
last = max(e['ts'] + e.get('dur', 0) for e in events if 'ts' in e)

# A window of ~1.5 % of the trace: a few hundred slices, far below the budget.
vs_us, ve_us = origin + (last - origin) * 0.40, origin + (last - origin) * 0.415
vs_ns, ve_ns = round((vs_us - origin) * 1000), round((ve_us - origin) * 1000)
view = '%dns..%dns' % (vs_ns, ve_ns)
expected = sorted((track, depth, (s - origin) * 1000, (e - origin) * 1000, name)
                  for track, depth, s, e, name in slices
                  if in_view((s - origin) * 1000, (e - origin) * 1000, vs_ns, ve_ns))

out = os.path.join(tmp, 'view.csv')
r = run('export', '-o', out, '--view', view, path)
check(r.returncode == 0, 'export --view to CSV succeeds: ' + r.stderr.strip())
rows = list(csv.DictReader(open(out)))
check(list(rows[0].keys()) == ['track', 'depth', 'start_s', 'end_s', 'name', 'exact', 'open'] if rows else False,
      'header is track,depth,start_s,end_s,name,exact,open')
check(all(r['open'] == 'false' for r in rows), 'every span of this file is closed')
got = sorted((r['track'], int(r['depth']), round(float(r['start_s']) * 1e9),
              round(float(r['end_s']) * 1e9), r['name']) for r in rows)
check(len(expected) > 300, '%d slices of the file lie in the window' % len(expected))
check(all(r['exact'] == 'true' for r in rows), 'every row is exact')
missing = [s for s in expected if s not in set(got)]
extra = [s for s in got if s not in set(expected)]
check(not missing, 'every slice of the file in the window is listed (%d missing, e.g. %s)' % (len(missing), missing[:3]))
check(not extra, 'nothing else is listed (%d extra, e.g. %s)' % (len(extra), extra[:3]))
check(got == expected, 'the rows are the file\'s slices, times exact to the nanosecond')
for track in ('main', 'worker', 'io'):
    check(any(g[0] == track for g in got), 'track %s has slices in the window' % track)
check(any(g[0] == 'main' and g[1] == 2 for g in got), 'third-level spans under a sampled parent are there')

# --tracks keeps only the matching tracks.
r = run('export', '-o', out, '--view', view, '--tracks', 'w*', path)
rows = list(csv.DictReader(open(out)))
check(r.returncode == 0 and rows and all(x['track'] == 'worker' for x in rows),
      '--tracks w* lists only the worker')
check(len(rows) == sum(1 for s in expected if s[0] == 'worker'), '… all of its slices')

# The PNG of the same view: a picture of the requested size with slices in it.
png = os.path.join(tmp, 'view.png')
r = run('export', '-o', png, '--size', '1200x500', '--view', view, path)
check(r.returncode == 0 and open(png, 'rb').read(8) == b'\x89PNG\r\n\x1a\n', 'export --view to PNG succeeds')

# Usage errors.
check(run('export', '-o', out, '--view', '5..2', path).returncode == 2, 'a reversed view is a usage error')
check(run('export', '-o', out, '--view', 'nonsense', path).returncode == 2, 'a bad view is a usage error')
check(run('export', '-o', out, '--tracks', 'x', path).returncode == 2, '--tracks without --view is a usage error')

# Past the budget (100,000 events per track in the window): samples, said so.
big = os.path.join(tmp, 'big.json')
with open(big, 'w') as f:
    f.write('[')
    f.write(','.join('{"ph":"X","name":"f%d","pid":1,"tid":1,"ts":%d,"dur":1}' % (i % 7, i * 2)
                     for i in range(120000)))
    f.write(']')
r = run('export', '-o', out, '--view', '0%..100%', big)
rows = list(csv.DictReader(open(out)))
check(r.returncode == 0 and rows and all(x['exact'] == 'false' for x in rows),
      'a window over the budget is listed as samples (exact=false)')
check(0 < len(rows) < 120000, 'and holds fewer rows than events (%d)' % len(rows))

if failures:
    print('%d failed' % len(failures))
    sys.exit(1)
