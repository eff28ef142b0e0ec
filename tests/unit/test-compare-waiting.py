#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
#
# The compare's "waiting" mark (wall time up, CPU time not) holds its
# false-mark rate: on null traces (wall and CPU unchanged) and on traces
# where a function's wall and CPU time both grow by 20 %, at most 5 % of its
# wall rows (mean, share) are marked; where only its wall time doubles, most
# are. The hard case: the function mostly waits, its CPU time small and
# variable (exponential, mean 40 µs, beside 200–800 µs off CPU), so its CPU
# rows are noisy and often not significant though they grew.
import csv
import io
import json
import os
import random
import subprocess
import sys
import tempfile

TIMESLICE = os.environ['TSL_TIMESLICE']
failures = []


def make(rng, path, wall_grow, cpu_grow, length_us=1_000_000):
    """One thread of fetch, compute and idle calls; in the second half
    compute's wall and CPU times grow by the factors given."""
    events = [{'name': 'thread_name', 'ph': 'M', 'pid': 1, 'tid': 1, 'args': {'name': 'main'}}]
    t = 0
    while t < length_us:
        name = rng.choice(['fetch', 'compute', 'idle'])
        cpu = int(rng.expovariate(1 / 40))
        off = rng.randrange(200, 800)
        if name == 'compute' and t >= length_us // 2:
            # The wall time grows by wall_grow, the CPU part of it by cpu_grow.
            new_cpu = int(cpu * cpu_grow)
            off = int((cpu + off) * wall_grow) - new_cpu
            cpu = new_cpu
        events.append({'name': name, 'ph': 'X', 'pid': 1, 'tid': 1, 'ts': t, 'dur': cpu + off, 'tdur': cpu})
        t += cpu + off + rng.randrange(10, 200)
    with open(path, 'w') as f:
        json.dump(events, f)


def marks(rng, path, n, wall_grow, cpu_grow, names):
    marked = rows = 0
    for _ in range(n):
        make(rng, path, wall_grow, cpu_grow)
        out = subprocess.run([TIMESLICE, 'compare', '--a', '0%..50%', '--b', '50%..100%', '--rounds', '200', path],
                             check=True, capture_output=True, text=True).stdout
        table = {(r['series'], r['stat']): r for r in csv.DictReader(io.StringIO(out))}
        for name in names:
            for stat in ('mean', 'share'):
                rows += 1
                marked += table[(f'main/{name}', stat)]['note'] == 'waiting'
    return marked, rows


def main():
    rng = random.Random(41)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, 'trace.json')
        for label, n, wall, cpu, names, lo, hi in (
                ('null', 40, 1.0, 1.0, ('fetch', 'compute', 'idle'), 0, 0.05),
                ('both +20 %', 60, 1.2, 1.2, ('compute',), 0, 0.05),
                ('wall ×2, CPU flat', 30, 2.0, 1.0, ('compute',), 0.8, 1)):
            marked, rows = marks(rng, path, n, wall, cpu, names)
            rate = marked / rows
            print(f'{label}: {marked} of {rows} wall rows marked waiting ({rate:.3f})', file=sys.stderr)
            if not lo <= rate <= hi:
                failures.append(f'{label}: {rate:.3f} of {rows} rows marked waiting, want {lo}..{hi}')
    for f in failures:
        print('FAIL', f)
    sys.exit(1 if failures else 0)


main()
