#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# A change point's before and after values are the stretches to its
# neighbouring change points, not the whole segment the search was in when
# it found it: on a series with two level shifts (seeded), each row's values
# equal the mean of the raw points between its neighbours, and equal the
# A and B values `timeslice compare` gives for those stretches — what the
# window and the report compare when one is chosen (to 0.01: the compare
# weighs the point held across a boundary by the time it holds on each side).
import csv
import io
import os
import random
import subprocess
import sys
import tempfile

exe = os.environ['TSL_TIMESLICE']
env = dict(os.environ, LC_ALL='C.UTF-8')
failures = []


def check(cond, what):
    print(('ok   ' if cond else 'FAIL ') + what)
    if not cond:
        failures.append(what)


def run(*args):
    r = subprocess.run([exe, *args], capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    return list(csv.DictReader(io.StringIO(r.stdout)))


tmp = tempfile.mkdtemp()
path = os.path.join(tmp, 'steps.csv')
rng = random.Random(11)
levels = [(0, 10.0), (200, 14.0), (400, 12.0)]
values = []
for t in range(600):
    level = [v for start, v in levels if t >= start][-1]
    values.append(level + rng.gauss(0, 0.5))
with open(path, 'w') as f:
    f.write('ts,level\n')
    for t, v in enumerate(values):
        f.write(f'{t},{v:.6f}\n')

rows = [row for row in run('changes', path) if row['significant'] == 'true']
times = sorted(float(row['time_s']) for row in rows)
check(len(rows) == 2 and abs(times[0] - 200) <= 12 and abs(times[1] - 400) <= 12,
      f'both shifts found, within ±2 % of the span ({times})')
for row in rows:
    t = float(row['time_s'])
    lo = max([u for u in times if u < t], default=0)
    hi = min([u for u in times if u > t], default=600)
    before = [v for i, v in enumerate(values) if lo <= i < t]
    after = [v for i, v in enumerate(values) if t <= i < hi]
    mean_b, mean_a = sum(before) / len(before), sum(after) / len(after)
    check(abs(float(row['before']) - mean_b) < 0.02 and abs(float(row['after']) - mean_a) < 0.02,
          f'change at {t:.1f} s: before {row["before"]} ≈ mean of [{lo:.1f}, {t:.1f}) {mean_b:.4f}, '
          f'after {row["after"]} ≈ mean of [{t:.1f}, {hi:.1f}) {mean_a:.4f}')
    compare = run('compare', '--a', f'{lo}s..{t}s', '--b', f'{t}s..{hi}s', path)
    check(len(compare) == 1 and abs(float(compare[0]['a_value']) - float(row['before'])) < 0.01
          and abs(float(compare[0]['b_value']) - float(row['after'])) < 0.01,
          f'compare of those stretches gives the same values ({compare[0]["a_value"]}, {compare[0]["b_value"]})')

if failures:
    print(f'{len(failures)} failed')
    sys.exit(1)
