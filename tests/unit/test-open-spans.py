#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Spans that never close (issue 32): a Chrome `B` without its `E` and a
# Perfetto slice without its end last to the end of the trace. A zoomed view
# far from where they began still lists them (`export --view`), at their
# real depth and extent, marked `open`; their children stay under them.
import csv
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from perfetto_proto import (BEGIN, CLEARED, END, FLAGS, SEQ, event, process_track,  # noqa: E402
                            thread_track, trace)

exe = os.environ['TSL_TIMESLICE']
env = {k: v for k, v in os.environ.items() if k not in ('DISPLAY', 'WAYLAND_DISPLAY')}
env['LC_ALL'] = 'C'
tmp = tempfile.mkdtemp()
failures = []


def check(cond, what):
    print(('ok   ' if cond else 'FAIL ') + what)
    if not cond:
        failures.append(what)


def run(*args):
    return subprocess.run([exe, *args], capture_output=True, text=True, env=env, timeout=300)


def view_rows(path, view):
    out = os.path.join(tmp, 'view.csv')
    r = run('export', '-o', out, '--view', view, path)
    check(r.returncode == 0, 'export --view %s of %s succeeds %s' % (view, os.path.basename(path), r.stderr.strip()))
    return list(csv.DictReader(open(out))) if r.returncode == 0 else []


def check_open(rows, what, end_s):
    """RunLoop::Run (depth 0) and ThreadController active (depth 1) are
    listed, open, from where they began to the end of the trace; the calls
    inside them are at depth 2 and closed."""
    by_name = {}
    for r in rows:
        by_name.setdefault(r['name'], []).append(r)
    for depth, name in enumerate(('RunLoop::Run', 'ThreadController active')):
        got = by_name.get(name, [])
        check(len(got) == 1, '%s: %s is in the zoomed view (%d rows)' % (what, name, len(got)))
        if got:
            r = got[0]
            check(int(r['depth']) == depth, '%s: %s at depth %d (%s)' % (what, name, depth, r['depth']))
            check(r['open'] == 'true' and r['exact'] == 'true', '%s: %s is marked open' % (what, name))
            check(abs(float(r['start_s']) - depth * 1e-5) < 1e-9,
                  '%s: %s starts where it began (%s)' % (what, name, r['start_s']))
            check(abs(float(r['end_s']) - end_s) < 1e-9,
                  '%s: %s ends at the end of the trace (%s, not %s)' % (what, name, r['end_s'], end_s))
    calls = by_name.get('Task', [])
    check(len(calls) > 10 and all(int(r['depth']) == 2 and r['open'] == 'false' for r in calls),
          '%s: the %d calls in view are closed, at depth 2' % (what, len(calls)))


# Chrome JSON: two `B` opened at 0 and 10 µs never closed, 1000 tasks of
# 50 µs every 100 µs inside them, a last instant at 200 ms.
events = [
    {'ph': 'M', 'name': 'thread_name', 'pid': 1, 'tid': 1, 'args': {'name': 'CrBrowserMain'}},
    {'ph': 'B', 'name': 'RunLoop::Run', 'pid': 1, 'tid': 1, 'ts': 1000},
    {'ph': 'B', 'name': 'ThreadController active', 'pid': 1, 'tid': 1, 'ts': 1010},
]
for i in range(1000):
    events.append({'ph': 'X', 'name': 'Task', 'pid': 1, 'tid': 1, 'ts': 1100 + i * 100, 'dur': 50})
events.append({'ph': 'i', 'name': 'last', 'pid': 1, 'tid': 2, 'ts': 201000, 's': 't'})
path = os.path.join(tmp, 'open.json')
with open(path, 'w') as f:
    json.dump(events, f)

r = run('info', path)
check('2 \'B\' spans had no \'E\'' in r.stdout + r.stderr, 'info warns of the 2 open spans')
check_open(view_rows(path, '40%..45%'), 'Chrome, zoomed to 40–45 %', 0.2)
check_open(view_rows(path, '0%..100%'), 'Chrome, the whole trace', 0.2)

# A closed B/E pair on another thread stays closed and as long as it was.
events.insert(3, {'ph': 'B', 'name': 'Closed', 'pid': 1, 'tid': 3, 'ts': 5000})
events.insert(4, {'ph': 'E', 'pid': 1, 'tid': 3, 'ts': 6000})
with open(path, 'w') as f:
    json.dump(events, f)
rows = [r for r in view_rows(path, '0%..10%') if r['name'] == 'Closed']
check(len(rows) == 1 and rows[0]['open'] == 'false' and abs(float(rows[0]['end_s']) - 0.005) < 1e-9,
      'a B with its E is not open and ends at its E')

# One open span: the warning is in the singular (ngettext), not "1 'B' spans".
one = os.path.join(tmp, 'one.json')
with open(one, 'w') as f:
    json.dump([{'ph': 'B', 'name': 'a', 'pid': 1, 'tid': 1, 'ts': 0},
               {'ph': 'X', 'name': 'b', 'pid': 1, 'tid': 1, 'ts': 5, 'dur': 1}], f)
r = run('info', one)
check("1 'B' span had no 'E' and was closed at the end of the trace" in r.stdout + r.stderr,
      'one open span is warned of in the singular')

# Perfetto: the same shape, slices begun and never ended.
MS = 1000000
packets = [process_track(1, 10, 'app'), thread_track(2, 1, 10, 11, 'CrBrowserMain'),
           thread_track(3, 1, 10, 12, 'other'), [(SEQ, 1), (FLAGS, CLEARED)],
           event(1 * MS, 2, BEGIN, name='RunLoop::Run'),
           event(1 * MS + 10000, 2, BEGIN, name='ThreadController active')]
for i in range(1000):
    packets.append(event(1 * MS + 100000 + i * 100000, 2, BEGIN, name='Task'))
    packets.append(event(1 * MS + 150000 + i * 100000, 2, END))
packets.append(event(201 * MS, 3, BEGIN, name='last'))
packets.append(event(201 * MS, 3, END))
ppath = os.path.join(tmp, 'open.pftrace')
with open(ppath, 'wb') as f:
    f.write(trace(packets))
check_open(view_rows(ppath, '40%..45%'), 'Perfetto, zoomed to 40–45 %', 0.2)

if failures:
    print('%d failed' % len(failures))
    sys.exit(1)
