#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
#
# `timeslice compare --a RANGE FILE` (no --b) summarizes the range exactly:
# on the trace test-compare-exact.py generates, every function's calls,
# total, self and mean time and share, and every series' n, mean, min and
# max equal the values computed here from the same events, to 1e-9.
# Self time: a call's duration minus its direct callees' that start in the
# range (a span belongs to the range its start falls in).
import csv
import importlib.util
import io
import os
import random
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location('compare_exact', os.path.join(here, 'test-compare-exact.py'))
exact = importlib.util.module_from_spec(spec)
spec.loader.exec_module(exact)

NS = exact.NS


def summary(path, a):
    out = subprocess.run([exact.TIMESLICE, 'compare', '--a', a, path],
                         check=True, capture_output=True, text=True).stdout
    return {(r['track'], r['name']): r for r in csv.DictReader(io.StringIO(out))}


def main():
    rng = random.Random(29)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, 'trace.json')
        spans, gauge, counter = exact.make_trace(rng, path)
        lo, hi = 1 * NS, 3 * NS
        rows = summary(path, '1s..3s')
        want_keys = set()
        for thread, calls in spans.items():
            inside = [c for c in calls if lo <= c[0] * 1000 < hi]
            for name in sorted({c[2] for c in inside}):
                want_keys.add((thread, name))
                mine = [c for c in inside if c[2] == name]
                # Inclusive time stops at the range's end; self time and the mean do not.
                total = sum(min(c[1] * 1000, hi - c[0] * 1000) for c in mine if name not in c[3])
                callees = sum(c[1] * 1000 for c in inside if c[3] and c[3][-1] == name)
                row = rows.get((thread, name))
                if row is None:
                    exact.failures.append(f'{thread}/{name}: no row')
                    continue
                exact.check(f'{thread}/{name} calls', int(row['calls']), len(mine))
                exact.check(f'{thread}/{name} total', float(row['total_s']) * NS, total)
                exact.check(f'{thread}/{name} self', float(row['self_s']) * NS,
                            sum(c[1] * 1000 for c in mine) - callees)
                exact.check(f'{thread}/{name} mean', float(row['mean_s']) * NS,
                            sum(c[1] * 1000 for c in mine) / len(mine))
                exact.check(f'{thread}/{name} share', float(row['share']), total / (hi - lo))
        for name, points in (('heap', gauge), ('requests', counter)):
            want_keys.add((name, ''))
            values = [v for t, v in points if lo <= t * 1000 < hi]
            row = rows.get((name, ''))
            if row is None:
                exact.failures.append(f'{name}: no row')
                continue
            exact.check(f'{name} n', int(row['n']), len(values))
            exact.check(f'{name} mean', float(row['mean']), sum(values) / len(values))
            exact.check(f'{name} min', float(row['min']), min(values))
            exact.check(f'{name} max', float(row['max']), max(values))
        if set(rows) != want_keys:
            exact.failures.append(f'rows {sorted(set(rows) ^ want_keys)} differ')
        # From a pipe there is nothing to re-read: a usage error, not a guess.
        with open(path) as f:
            piped = subprocess.run([exact.TIMESLICE, 'compare', '--a', '1s..3s', '-'],
                                   stdin=f, capture_output=True, text=True)
        if piped.returncode == 0 or 'pipe' not in piped.stderr:
            exact.failures.append(f'pipe: exit {piped.returncode}, {piped.stderr!r}')
        print(f'{len(rows)} rows checked', file=sys.stderr)
    for f in exact.failures:
        print('FAIL', f)
    sys.exit(1 if exact.failures else 0)


main()
