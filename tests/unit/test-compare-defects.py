#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Three small defects of `timeslice compare` (issue 31 item 7): a mostly-zero
# gauge that rose once without falling is not a counter; `--help` states the
# default statistics as they are; a range past the end of the data ends one
# median gap (the mean of the two middle gaps of an even count) after the last
# point, not one upper-middle gap.
import csv
import io
import os
import subprocess
import sys
import tempfile

TIMESLICE = os.environ['TSL_TIMESLICE']
failures = []


def compare(path, a, b):
    out = subprocess.run([TIMESLICE, 'compare', '--a', a, '--b', b, '--seed', '1', path],
                         check=True, capture_output=True, text=True)
    return {r['series']: r for r in csv.DictReader(io.StringIO(out.stdout))}, out.stderr


def check_gauge(tmp):
    """`idle` is 0 for 20 s, then 4 for the last point; `bytes` rises at every point."""
    path = os.path.join(tmp, 'gauge.csv')
    with open(path, 'w') as f:
        f.write('time,idle,bytes\n')
        for i in range(200):
            f.write(f'{i / 10:.1f},{4 if i == 199 else 0},{1000 + 7 * i}\n')
    rows, _ = compare(path, '0s..10s', '10s..20s')
    if rows['idle']['stat'] != 'time_mean':
        failures.append(f'a mostly-zero gauge read as {rows["idle"]["stat"]}')
    if rows['bytes']['stat'] != 'rate_per_s':
        failures.append(f'a counter read as {rows["bytes"]["stat"]}')


def check_help():
    text = subprocess.run([TIMESLICE, 'compare', '--help'], check=True, capture_output=True, text=True).stdout
    flat = ' '.join(text.split())
    if 'default sum for metrics' in flat or "a gauge's time-weighted mean" not in flat:
        failures.append('compare --help states stale defaults for --stat')


def check_gap(tmp):
    """Gaps 1, 1, 2, 2 s: the median is 1.5 s, so the data end 7.5 s and B = 4..7.5 s."""
    path = os.path.join(tmp, 'gap.csv')
    with open(path, 'w') as f:
        f.write('time,g\n0,1\n1,2\n2,3\n4,4\n6,5\n')
    rows, err = compare(path, '0s..4s', '4s..20s')
    if 'its length is taken as 3.5 s' not in err:
        failures.append(f'past the end: {err.strip()!r}')
    b = float(rows['g']['b_value'])
    if abs(b - (4 * 2 + 5 * 1.5) / 3.5) > 1e-9:
        failures.append(f'past the end: time-weighted mean {b}')


def main():
    with tempfile.TemporaryDirectory() as tmp:
        check_gauge(tmp)
        check_help()
        check_gap(tmp)
    for f in failures:
        print('FAIL', f)
    sys.exit(1 if failures else 0)


main()
