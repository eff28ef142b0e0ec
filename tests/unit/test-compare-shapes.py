#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Null calibration of `timeslice compare --stat mean` on shapes other than
# the normal: CSV files of 60 i.i.d. series, A and B the two halves, 10 or
# 300 points a side at 10 Hz, 40 files (2400 rows) a scenario, fixed seeds.
# Heavy tails (Pareto α 2.5, Student's t with 2 degrees of freedom), tied
# integers (Poisson 3) and a variance that doubles from A to B (the means
# equal): the share of tested rows with p < 0.05 must lie within
# 0.05 ± 0.015 (over three Monte Carlo standard errors at 2400 rows), except
# the heavy tails at 10 a side, which are conservative (Pareto 0.020–0.027,
# t(2) 0.032–0.036 over 2400–4000 rows: Welch's t on 10 points of heavy tails
# is cautious, never hot) and must stay at most 0.065.
# Rows declared too dependent (long memory): at most 3 %.
#
#   test-compare-shapes.py [SCENARIO…]   prints each check's figures
import csv
import io
import math
import os
import random
import subprocess
import sys
import tempfile

TIMESLICE = os.environ['TSL_TIMESLICE']
FILES = 40
SERIES = 60


def pareto(rng):
    return rng.paretovariate(2.5)


def student2(rng):
    return rng.gauss(0, 1) / math.sqrt(rng.gammavariate(1, 2) / 2)


def poisson3(rng):
    k, p, limit = 0, rng.random(), math.exp(-3)
    while p > limit:
        k += 1
        p *= rng.random()
    return k


# name, draw(rng): a value; None: normal, σ 1 in A and √2 in B
SHAPES = [
    ('Pareto 2.5', pareto),
    ('t(2)', student2),
    ('tied integers', poisson3),
    ('variance doubling', None),
]
SCENARIOS = [(f'{name}, {n} a side', n, draw, 0 if n == 10 and name in ('Pareto 2.5', 't(2)') else 0.035)
             for n in (10, 300) for name, draw in SHAPES]


def value(rng, draw, side):
    if draw is None:
        return 10 + rng.gauss(0, 1) * (math.sqrt(2) if side else 1)
    return 10 + draw(rng)


def run_scenario(tmp, index, n, draw):
    rng = random.Random(4200 + index)
    path = os.path.join(tmp, 'null.csv')
    tested = low = dependent = rows = 0
    for k in range(FILES):
        with open(path, 'w') as f:
            f.write('time,' + ','.join(f's{i}' for i in range(SERIES)) + '\n')
            for i in range(2 * n):
                f.write(f'{i / 10:.1f},' + ','.join(f'{value(rng, draw, i >= n):.6f}' for _ in range(SERIES)) + '\n')
        out = subprocess.run([TIMESLICE, 'compare', '--a', f'0s..{n / 10:g}s', '--b', f'{n / 10:g}s..{n / 5:g}s',
                              '--stat', 'mean', '--seed', str(k), path],
                             check=True, capture_output=True, text=True).stdout
        for r in csv.DictReader(io.StringIO(out)):
            rows += 1
            if not r['p_value']:
                dependent += r['method'] == 'too-dependent'
                continue
            tested += 1
            low += float(r['p_value']) < 0.05
    return rows, tested, low, dependent


def main():
    wanted = sys.argv[1:]
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        for i, (name, n, draw, lowest) in enumerate(SCENARIOS):
            if wanted and name not in wanted:
                continue
            rows, tested, low, dependent = run_scenario(tmp, i, n, draw)
            share = low / tested
            good = tested >= 0.9 * rows and lowest <= share <= 0.065 and dependent <= 0.03 * rows
            print(f'{name}: {low} of {tested} tested rows with p < 0.05 ({share:.4f}), '
                  f'{dependent} too dependent, {rows - tested - dependent} otherwise untested'
                  f'{"" if good else "  FAIL"}')
            ok = ok and good
    sys.exit(0 if ok else 1)


main()
