#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
#
# `timeslice compare` lists rows by impact (issue 31 item 4): the absolute
# change of time per second of range for functions, first, then other series
# by the change of their value; not by % change. In a generated trace,
# `zzz_big` (200 calls a second, 1000 → 1100 µs: +10 %, 20 ms more a second)
# must come before `aaa_tiny` (20 calls, 10 → 60 µs: +500 %, 1 ms a second),
# and a gauge after every function row. A function called once in A and
# once in B on another thread (400 ms → 10 ms: the largest change of time
# per second) cannot be tested: it comes after every tested row.
import csv
import io
import json
import os
import random
import subprocess
import sys
import tempfile

TIMESLICE = os.environ['TSL_TIMESLICE']


def write_trace(path):
    rng = random.Random(4)
    events = [{'name': 'thread_name', 'ph': 'M', 'pid': 1, 'tid': 1, 'args': {'name': 'main'}}]
    for side in range(2):
        base = side * 1_000_000
        for i in range(200):
            dur = (1000 if side == 0 else 1100) + rng.randint(-50, 50)
            events.append({'name': 'zzz_big', 'ph': 'X', 'pid': 1, 'tid': 1, 'ts': base + i * 5000, 'dur': dur})
        for i in range(20):
            dur = (10 if side == 0 else 60) + rng.randint(-2, 2)
            events.append({'name': 'aaa_tiny', 'ph': 'X', 'pid': 1, 'tid': 1,
                           'ts': base + i * 50000 + 2000, 'dur': dur})
        for i in range(100):
            events.append({'name': 'memory', 'ph': 'C', 'pid': 1, 'tid': 1, 'ts': base + i * 10000,
                           'args': {'value': 100 + 50 * side + rng.random()}})
    events.append({'name': 'thread_name', 'ph': 'M', 'pid': 1, 'tid': 2, 'args': {'name': 'worker'}})
    events.append({'name': 'once', 'ph': 'X', 'pid': 1, 'tid': 2, 'ts': 100_000, 'dur': 400_000})
    events.append({'name': 'once', 'ph': 'X', 'pid': 1, 'tid': 2, 'ts': 1_100_000, 'dur': 10_000})
    with open(path, 'w') as f:
        json.dump(events, f)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, 'impact.json')
        write_trace(path)
        out = subprocess.run([TIMESLICE, 'compare', '--a', '0s..1s', '--b', '1s..2s', '--seed', '1', path],
                             check=True, capture_output=True, text=True).stdout
    table = list(csv.DictReader(io.StringIO(out)))
    tested = [(r['series'], r['stat']) for r in table if r['p_value'] != '']
    untested = [(r['series'], r['stat']) for r in table if r['p_value'] == '']
    rows = tested + untested
    print('order:', [(r['series'], r['stat'], r['p_value']) for r in table])
    funcs = [s for s, _ in tested if '/' in s]
    ok = (len(tested) >= 5 and rows[0][0] == 'main/zzz_big' and
          funcs.index('main/zzz_big') < funcs.index('main/aaa_tiny') and
          all('/' in s for s, _ in tested[:len(funcs)]) and
          # The CSV lists the tested rows first, and 'once' among the others.
          [(r['series'], r['stat']) for r in table] == rows and
          any(s == 'worker/once' for s, _ in untested) and
          not any(s == 'worker/once' for s, _ in tested))
    sys.exit(0 if ok else 1)


main()
