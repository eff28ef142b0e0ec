#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
#
# `timeslice changes`: calibration, power and ranking on generated files
# (fixed seeds, so every figure below reproduces exactly; measured figures
# in the README, "Finding what changed").
#
# Null: CSV files of 20 series × 600 points where nothing changes — i.i.d.
# normal, lognormal, AR(1) with φ = 0.6 and 0.9, and bursty Poisson counts
# (a two-state rate, bursts of ~10 points at 5× the rate) — and generated
# traces of four functions (share, mean duration and call rate each), 40
# files each. At most 15 of the 240 files (6.3 %) may report any
# significant change point (11 did, 4.6 %; the Monte Carlo standard error
# of a 5 % rate over 240 files is 1.4 points), and at most 6 of the 40 of
# any one kind.
# Power: a 0.5 σ level shift halfway through one series of 20 (300 points a
# side, i.i.d.) is found, significant, within ±5 % of the span in ≥ 75 %
# of 40 files (34 were) and within ±2 % in ≥ 55 % (27 were). That is below
# the 90 %: the BH threshold over 20 series and the maximum over
# splits ask for about 4 standard errors, and even a least-squares change
# point on the 600 raw points lands within ±2 % in only about 68 % of such
# files.
# Ranking: a function that slows 1.5× halfway through a generated trace
# (≈ 230 calls a side) is the top change point, significant and within ±2 %
# of the span of its time, in ≥ 40 of 60 traces (43 are; 37 were while rows
# ranked by their estimated size alone, when a barely significant row's
# overstated size put another function on top). No method reaches the
# issue's 90 %: even given the levels, the best placement from every call
# lands within ±2 % in about 82 % (bench/change-bounds.py).
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
SERIES = 20
POINTS = 600


def run_changes(path, *args):
    out = subprocess.run([TIMESLICE, 'changes', *args, path],
                         check=True, capture_output=True, text=True).stdout
    return list(csv.DictReader(io.StringIO(out)))


def write_metrics(path, columns):
    with open(path, 'w') as f:
        f.write('ts,' + ','.join(f's{i}' for i in range(len(columns))) + '\n')
        for t in range(POINTS):
            f.write(f'{t},' + ','.join(f'{c[t]:.6g}' for c in columns) + '\n')


def iid(rng):
    return [rng.gauss(0, 1) for _ in range(POINTS)]


def lognormal(rng):
    return [rng.lognormvariate(0, 1) for _ in range(POINTS)]


def ar1(rng, phi=0.6):
    x, out = rng.gauss(0, 1), []
    for _ in range(POINTS):
        x = phi * x + math.sqrt(1 - phi * phi) * rng.gauss(0, 1)
        out.append(x)
    return out


def poisson(rng, lam):
    # Knuth's method: small rates only.
    limit, k, p = math.exp(-lam), 0, rng.random()
    while p > limit:
        k += 1
        p *= rng.random()
    return k


def bursty(rng):
    out, burst = [], 0
    for _ in range(POINTS):
        if burst == 0 and rng.random() < 0.02:
            burst = 1 + int(rng.expovariate(1 / 10))
        out.append(poisson(rng, 10.0 if burst > 0 else 2.0))
        burst = max(0, burst - 1)
    return out


def null_rates(tmp):
    rng = random.Random(37)
    path = os.path.join(tmp, 'null.csv')
    flagged = {}
    for name, gen in (('iid', iid), ('lognormal', lognormal), ('ar1-0.6', ar1),
                      ('ar1-0.9', lambda r: ar1(r, 0.9)), ('bursty-poisson', bursty)):
        flagged[name] = 0
        for _ in range(40):
            write_metrics(path, [gen(rng) for _ in range(SERIES)])
            rows = run_changes(path)
            assert len(rows) >= SERIES, rows
            flagged[name] += any(r['significant'] == 'true' for r in rows)
    # Traces: four functions on one thread, nothing slowing down.
    trace = os.path.join(tmp, 'null.json')
    flagged['trace'] = 0
    for _ in range(40):
        write_trace(rng, trace, 1.0)
        rows = run_changes(trace)
        assert len(rows) >= 12, rows
        flagged['trace'] += any(r['significant'] == 'true' for r in rows)
    total = sum(flagged.values())
    print(f'null: files with a significant change point: {flagged} '
          f'({total} of 240, {100 * total / 240:.1f} %)')
    return total <= 15 and all(v <= 6 for v in flagged.values())


def level_power(tmp, gen, seed, need2, need5):
    rng = random.Random(seed)
    path = os.path.join(tmp, 'shift.csv')
    within2 = within5 = 0
    files = 40
    for _ in range(files):
        columns = [gen(rng) for _ in range(SERIES)]
        columns[7] = [v + (0.5 if t >= POINTS // 2 else 0) for t, v in enumerate(columns[7])]
        write_metrics(path, columns)
        rows = [r for r in run_changes(path) if r['series'] == 's7' and r['significant'] == 'true']
        err = min((abs(float(r['time_s']) - POINTS / 2) for r in rows), default=math.inf)
        within2 += err <= 0.02 * POINTS
        within5 += err <= 0.05 * POINTS
    print(f'power, 0.5 σ shift ({gen.__name__}): found within ±2 %: {within2} of {files}, '
          f'within ±5 %: {within5} of {files}')
    return within5 >= need5 * files and within2 >= need2 * files


def write_trace(rng, path, factor, parse_calls=460):
    events = [{'name': 'thread_name', 'ph': 'M', 'pid': 1, 'tid': 1, 'args': {'name': 'main'}}]
    t = 0
    change_us = None
    calls = 0
    names = ['parse', 'layout', 'paint', 'io']
    while calls < parse_calls:
        name = 'parse' if rng.random() < 0.5 else rng.choice(names[1:])
        dur = rng.lognormvariate(math.log(400), 0.6)
        if name == 'parse':
            if calls == parse_calls // 2 and change_us is None:
                change_us = t
            if calls >= parse_calls // 2:
                dur *= factor
            calls += 1
        events.append({'name': name, 'ph': 'X', 'pid': 1, 'tid': 1, 'ts': t, 'dur': max(1, int(dur))})
        t += max(1, int(dur)) + 1 + int(rng.expovariate(1 / 200))
    with open(path, 'w') as f:
        json.dump(events, f)
    return change_us / 1e6, t / 1e6


def slowdown_top(tmp):
    rng = random.Random(4242)
    path = os.path.join(tmp, 'slow.json')
    top = 0
    traces = 60
    for _ in range(traces):
        change_s, span_s = write_trace(rng, path, 1.5)
        rows = run_changes(path, '--top', '1')
        assert len(rows) == 1, rows
        r = rows[0]
        top += (r['series'] == 'main/parse' and r['significant'] == 'true' and
                abs(float(r['time_s']) - change_s) <= 0.02 * span_s)
    print(f'a function slowing 1.5×: the top change point, at the right time, in {top} of {traces}')
    # The range read through the chunk index (kept in the test's cache) gives
    # what a read without one gives, row for row, on a trace of several
    # chunks (about 3 MB).
    write_trace(rng, path, 1.5, 25000)
    indexed = subprocess.run([TIMESLICE, 'changes', path], check=True, capture_output=True, text=True).stdout
    plain = subprocess.run([TIMESLICE, 'changes', path], check=True, capture_output=True, text=True,
                           env=dict(os.environ, TSL_NO_INDEX='1')).stdout
    same = indexed == plain and indexed.count('\n') > 3
    print(f'with and without the chunk index: {"the same" if same else "DIFFERENT"}')
    return top >= 40 and same


def cli_errors(tmp):
    path = os.path.join(tmp, 'small.csv')
    write_metrics(path, [iid(random.Random(1)) for _ in range(2)])
    out = os.path.join(tmp, 'out.csv')
    subprocess.run([TIMESLICE, 'changes', '--top', '3', '-o', out, '--a', '10%..90%', path], check=True)
    with open(out) as f:
        header = f.readline().strip()
    ok = header == 'series,stat,time_s,before,after,change_pct,p_value,q_value,significant,unit'
    bad = subprocess.run([TIMESLICE, 'changes', '--top', '-1', path], capture_output=True, text=True)
    ok = ok and bad.returncode != 0 and '--top' in bad.stderr
    missing = subprocess.run([TIMESLICE, 'changes', os.path.join(tmp, 'none.csv')],
                             capture_output=True, text=True)
    ok = ok and missing.returncode == 1 and 'none.csv' in missing.stderr
    # --a and --b bound the search together: every change lies between them.
    rows = run_changes(path, '--a', '100s..200s', '--b', '400s..450s')
    ok = ok and rows and all(100 <= float(r['time_s']) <= 450 for r in rows)
    mixed = subprocess.run([TIMESLICE, 'changes', '--a', '1s..2s', '--b', '50%..60%', path],
                           capture_output=True, text=True)
    ok = ok and mixed.returncode == 2 and '--a and --b' in mixed.stderr
    pipe = subprocess.run([TIMESLICE, 'changes', '-'], stdin=open(path), capture_output=True, text=True)
    ok = ok and pipe.returncode == 1 and 'not a seekable file' in pipe.stderr
    print(f'command line: {"ok" if ok else "FAILED"}')
    return ok


def cache(tmp):
    """A second run on the unchanged file is served from the cache; a changed
    file is read again."""
    env = dict(os.environ, XDG_CACHE_HOME=os.path.join(tmp, 'cache'))
    env.pop('TSL_CACHE_MAX_BYTES', None)
    path = os.path.join(tmp, 'cached.csv')

    def changes(*args):
        return subprocess.run([TIMESLICE, 'changes', *args, path], check=True, capture_output=True,
                              text=True, env=env).stdout

    rng = random.Random(11)
    write_metrics(path, [iid(rng) for _ in range(4)])
    first = changes()
    entries = [n for n in os.listdir(os.path.join(tmp, 'cache', 'timeslice')) if n.startswith('changes-')]
    ok = changes() == first and len(entries) == 1
    columns = [iid(rng) for _ in range(4)]
    columns[1] = [v + (2 if t >= 200 else 0) for t, v in enumerate(columns[1])]
    write_metrics(path, columns)
    again = changes()
    flagged = [any(line.startswith('s1,') and ',true,' in line for line in out.splitlines())
               for out in (first, again)]
    ok = ok and again != first and again == changes('--no-cache') and flagged == [False, True]
    print(f'cache: {"ok" if ok else "FAILED"}')
    return ok


def main():
    with tempfile.TemporaryDirectory(prefix='tsl-changes-') as tmp:
        results = [cli_errors(tmp), cache(tmp), slowdown_top(tmp), level_power(tmp, iid, 3737, 0.55, 0.75),
                   null_rates(tmp)]
    sys.exit(0 if all(results) else 1)


main()
