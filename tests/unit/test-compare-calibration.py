#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
#
# End-to-end null calibration of `timeslice compare` on span durations: 120
# generated Chrome traces (fixed seed) where nothing changes between the two
# halves: one thread calling four functions in random order with lognormal
# durations, about 300 calls a side. Of the share and mean-duration rows,
# the share with p < 0.05 must lie within 0.05 ± 0.02 (about three Monte
# Carlo standard errors at ~960 rows); rows flagged significant after BH
# in at most 10 % of the traces. Every call also has a thread time (tdur,
# a uniform 30-100 % of its duration, from a second seeded generator so the
# wall draws stay those above): the cpu_share and cpu_mean rows are held to
# the same two bounds on their own. (Metric series:
# tests/unit/test-block-test.c and bench/compare-calibration.py.)
import csv
import io
import json
import math
import os
import random
import subprocess
import sys
import tempfile

TIMESLICE = os.environ['TSL_TIMESLICE']
TRACES = 120
NAMES = ['parse', 'layout', 'paint', 'io']


def write_trace(rng, cpu_rng, path):
    events = [{'name': 'thread_name', 'ph': 'M', 'pid': 1, 'tid': 1, 'args': {'name': 'main'}}]
    t = 0
    for _ in range(600):
        name = rng.choice(NAMES)
        dur = max(1, int(rng.lognormvariate(math.log(400), 0.6)))
        events.append({'name': name, 'ph': 'X', 'pid': 1, 'tid': 1, 'ts': t, 'dur': dur,
                       'tdur': round(dur * cpu_rng.uniform(0.3, 1.0), 3)})
        t += dur + 1 + int(rng.expovariate(1 / 200))
    with open(path, 'w') as f:
        json.dump(events, f)


def main():
    rng = random.Random(2024)
    cpu_rng = random.Random(3300)
    kinds = {'span durations': ('share', 'mean'), 'thread time': ('cpu_share', 'cpu_mean')}
    rows = dict.fromkeys(kinds, 0)
    low = dict.fromkeys(kinds, 0)
    flagged = dict.fromkeys(kinds, 0)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, 'null.json')
        for k in range(TRACES):
            write_trace(rng, cpu_rng, path)
            out = subprocess.run([TIMESLICE, 'compare', '--a', '0%..50%', '--b', '50%..100%',
                                  '--rounds', '500', '--seed', str(k), path],
                                 check=True, capture_output=True, text=True).stdout
            table = list(csv.DictReader(io.StringIO(out)))
            for kind, stats in kinds.items():
                mine = [r for r in table if r['stat'] in stats]
                ps = [float(r['p_value']) for r in mine if r['p_value']]
                rows[kind] += len(ps)
                low[kind] += sum(p < 0.05 for p in ps)
                flagged[kind] += any(r['significant'] == 'true' for r in mine)
    ok = True
    for kind in kinds:
        share = low[kind] / max(rows[kind], 1)
        print(f'{kind}: {low[kind]} of {rows[kind]} null rows with p < 0.05 ({share:.4f}); '
              f'{flagged[kind]} of {TRACES} traces with a significant row')
        ok = ok and abs(share - 0.05) <= 0.02 and flagged[kind] <= TRACES // 10 and rows[kind] >= 900
    sys.exit(0 if ok else 1)


main()
