#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
#
# `timeslice compare` names each track's rows so that no two read alike. A
# Chromium recording has a dozen threads named ThreadPoolForegroundWorker in
# one process: "name [pid]" alone gave 44 pairs of identical (series, stat)
# rows. Threads of a process sharing a name get their tids, as the window
# names them ("pool (tid 2)"), then a name still shared gets "[pid]"; each
# row's value is its own thread's (the read of a
# seekable file and of a pipe alike), and the recording has no two rows alike.
# The range-A summary and the per-thread flame graph name threads the same way.
import csv
import gzip
import io
import json
import os
import subprocess
import sys
import tempfile

TIMESLICE = os.environ['TSL_TIMESLICE']
DATA = os.path.join(os.environ['G_TEST_SRCDIR'], 'data')
failures = []

# (pid, tid, thread name, duration of each call in µs)
THREADS = [(1, 1, 'main', 100), (1, 2, 'pool', 200), (1, 3, 'pool', 300), (2, 4, 'pool', 400)]
WANT = {'main/work': 100e3, 'pool (tid 2)/work': 200e3, 'pool (tid 3)/work': 300e3, 'pool/work': 400e3}
# The same name in two processes, each once: "[pid]".
WANT_PROCESSES = {'main/work': 100e3, 'pool [1]/work': 200e3, 'pool [2]/work': 400e3}


def compare(path, stdin=None):
    proc = subprocess.run([TIMESLICE, 'compare', '--no-cache', '--a', '0%..50%', '--b', '50%..100%',
                           '-o', '-', '-' if stdin is not None else path],
                          input=stdin, capture_output=True, check=True)
    return list(csv.DictReader(io.StringIO(proc.stdout.decode())))


def alike(rows):
    seen, twice = set(), set()
    for r in rows:
        key = (r['series'], r['stat'])
        (twice if key in seen else seen).add(key)
    return sorted(twice)


with tempfile.TemporaryDirectory() as tmp:
    events = []
    for pid, tid, name, dur in THREADS:
        events.append({'name': 'thread_name', 'ph': 'M', 'pid': pid, 'tid': tid, 'args': {'name': name}})
        events += [{'name': 'work', 'ph': 'X', 'pid': pid, 'tid': tid, 'ts': i * 1000, 'dur': dur}
                   for i in range(200)]
    path = os.path.join(tmp, 'pools.json')
    with open(path, 'w') as f:
        json.dump(events, f)
    path2 = os.path.join(tmp, 'processes.json')
    with open(path2, 'w') as f:
        json.dump([e for e in events if e['tid'] != 3], f)
    for p, want in ((path, WANT), (path2, WANT_PROCESSES)):
        for how, rows in (('file', compare(p)), ('pipe', compare(None, open(p, 'rb').read()))):
            means = {r['series']: float(r['a_value']) for r in rows if r['stat'] == 'mean'}
            if means != want:
                failures.append(f'{how}: mean rows {means}, want {want}')
            if alike(rows):
                failures.append(f'{how}: rows alike {alike(rows)}')

recording = os.path.join(DATA, 'perfetto', 'chromium-startup.json.gz')
with gzip.open(recording, 'rb') as f:
    raw = f.read()
for how, rows in (('recording', compare(recording)), ('recording, pipe', compare(None, raw))):
    if len(rows) < 100 or alike(rows):
        failures.append(f'{how}: {len(rows)} rows, alike: {alike(rows)[:4]}')
    if not any(r['series'].startswith('ThreadPoolForegroundWorker (tid ') for r in rows):
        failures.append(f'{how}: no ThreadPoolForegroundWorker row told apart by its thread id')

# Range A alone (its summary table) names tracks the same way.
out = subprocess.run([TIMESLICE, 'compare', '--no-cache', '--a', '30%..50%', '-o', '-', recording],
                     check=True, capture_output=True).stdout.decode()
summary = [(r['track'], r['name']) for r in csv.DictReader(io.StringIO(out))]
if len(summary) < 50 or len(set(summary)) != len(summary):
    failures.append(f'summary of A: {len(summary)} rows, {len(summary) - len(set(summary))} alike')

# The per-thread flame graph's top frames name threads as the compare's rows do.
def flame_tops(path, *ranges):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, 'flame.csv')
        subprocess.run([TIMESLICE, 'export', '--no-cache', '--flamegraph', '--per-thread', *ranges, '-o', out, path],
                       check=True, capture_output=True)
        with open(out, encoding='utf-8') as f:
            return {r['call_path']: r for r in csv.DictReader(f) if ';' not in r['call_path']}


tops = flame_tops(recording, '--a', '0%..50%', '--b', '50%..100%')
threads = {r['series'].split('/')[0] for r in compare(recording)}
pools = [t for t in tops if t.startswith('ThreadPoolForegroundWorker')]
if len(pools) < 5 or not set(tops) <= threads:
    failures.append(f'flame graph top frames {sorted(set(tops) - threads)[:3]} not the compare\'s names')

# A thread's frame in A meets its frame in B though a namesake of its
# process works in B only (each side named its threads alone: "w" in A,
# "w [1]" in B, a thread gone and one new).
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, 'namesake.json')
    events = [{'name': 'thread_name', 'ph': 'M', 'pid': 1, 'tid': t, 'args': {'name': 'w'}} for t in (1, 2)]
    events += [{'name': 'f', 'ph': 'X', 'pid': 1, 'tid': 1, 'ts': i * 100, 'dur': 50} for i in range(200)]
    events += [{'name': 'f', 'ph': 'X', 'pid': 1, 'tid': 2, 'ts': 10000 + i * 100, 'dur': 50} for i in range(100)]
    events += [{'name': 'g', 'ph': 'X', 'pid': 2, 'tid': 3, 'ts': i * 100, 'dur': 50} for i in range(200)]
    with open(path, 'w') as f:
        json.dump(events, f)
    tops = flame_tops(path, '--a', '0%..50%', '--b', '50%..100%')
    w1 = tops.get('w (tid 1)')
    if w1 is None or not float(w1['a_share']) > 0 or not float(w1['b_share']) > 0 or 'w' in tops:
        failures.append(f'namesake: top frames {sorted(tops)}, "w (tid 1)" {w1}')

for f in failures:
    print('FAIL', f)
print(f'{len(failures)} failures')
sys.exit(1 if failures else 0)
