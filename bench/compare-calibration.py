#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
#
# End-to-end calibration of `timeslice compare` on null CSV files, the way
# issue 17 measured it: 20 series a file, 300 points a side at 10 Hz, A and
# B from one stationary process (nothing changes); the share of rows with
# p < 0.05 and the share of files with a row significant after BH.
#
#   bench/compare-calibration.py TIMESLICE [TIMESLICE…] [--files N] [--stat S]
#
# Each binary gets the same files; prints a Markdown table. Not part of
# `meson test` (minutes); the fixed-seed statistical tests are
# tests/unit/test-block-test.c.
import argparse
import csv
import io
import math
import os
import random
import subprocess
import tempfile

SCENARIOS = [
    ('i.i.d. normal', 'normal', 0.0, 300),
    ('lognormal', 'lognormal', 0.0, 300),
    ('unequal lengths (300 / 150)', 'normal', 0.0, 150),
    ('AR(1) φ = 0.3', 'normal', 0.3, 300),
    ('AR(1) φ = 0.6', 'normal', 0.6, 300),
    ('AR(1) φ = 0.9', 'normal', 0.9, 300),
    ('AR(1) φ = 0.97', 'normal', 0.97, 300),
]


def write_file(path, rng, shape, phi, n_b, series=20):
    n = 300 + n_b
    cols = []
    for _ in range(series):
        x = rng.gauss(0, 1)
        col = []
        for _ in range(n):
            col.append(10 + x if shape == 'normal' else math.exp(x))
            x = phi * x + math.sqrt(1 - phi * phi) * rng.gauss(0, 1)
        cols.append(col)
    with open(path, 'w') as f:
        f.write('time,' + ','.join(f's{i}' for i in range(series)) + '\n')
        for i in range(n):
            f.write(f'{i / 10:.1f},' + ','.join(f'{c[i]:.6f}' for c in cols) + '\n')
    return f'{300 / 10:g}s', f'{n / 10:g}s'


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('binaries', nargs='+')
    ap.add_argument('--files', type=int, default=50)
    ap.add_argument('--stat', default='mean', help="'default': no --stat (gauges: time_mean)")
    ap.add_argument('--seed', type=int, default=1)
    args = ap.parse_args()

    print('| scenario | ' + ' | '.join(f'{b}: p<0.05 | files flagged' for b in args.binaries) + ' |')
    print('|---|' + '---:|---:|' * len(args.binaries))
    with tempfile.TemporaryDirectory() as tmp:
        for name, shape, phi, n_b in SCENARIOS:
            rng = random.Random(args.seed)
            counts = {b: [0, 0, 0] for b in args.binaries}   # rows, rows p<0.05, files flagged
            for k in range(args.files):
                path = os.path.join(tmp, 'null.csv')
                mid, end = write_file(path, rng, shape, phi, n_b)
                for b in args.binaries:
                    stat = [] if args.stat == 'default' else ['--stat', args.stat]
                    out = subprocess.run([b, 'compare', '--a', f'0s..{mid}', '--b', f'{mid}..{end}',
                                          *stat, '--seed', str(k), path],
                                         check=True, capture_output=True, text=True).stdout
                    rows = list(csv.DictReader(io.StringIO(out)))
                    counts[b][0] += len(rows)
                    counts[b][1] += sum(1 for r in rows if r['p_value'] and float(r['p_value']) < 0.05)
                    counts[b][2] += any(r['significant'] == 'true' for r in rows)
            print(f'| {name} | ' + ' | '.join(f'{c[1] / c[0]:.3f} | {c[2]}/{args.files}'
                                               for c in counts.values()) + ' |', flush=True)


main()
