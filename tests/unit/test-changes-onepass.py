#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
#
# `timeslice changes` of a whole file reads it once, its blocks growing with
# the span as the read goes; with the span known from the chunk index (a
# file `info` read before) it cuts the same blocks from the start. The two
# tables must be the same row for row (series, statistic, time and
# significance exactly; values to 1e-9 relative: sums merged pairwise add
# in another order) on every corpus file and on generated ones (metrics,
# Chrome traces sorted and shuffled, so that events land before the first
# one read); for the generated ones the second must really have taken the
# index's span.
import json
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile

TIMESLICE = os.environ['TSL_TIMESLICE']


def env_with(cache):
    env = dict(os.environ, XDG_CACHE_HOME=cache, G_MESSAGES_DEBUG='tsl-compare')
    env.pop('TSL_CACHE_MAX_BYTES', None)
    return env


def changes(path, cache, *args):
    proc = subprocess.run([TIMESLICE, 'changes', *args, path], env=env_with(cache),
                          capture_output=True, text=True)
    # GLib writes debug messages to stdout, before the table.
    table = ''.join(line for line in proc.stdout.splitlines(True) if not line.startswith('(timeslice:'))
    return proc.returncode, table, proc.stdout + proc.stderr


def same_tables(a, b):
    la, lb = a.splitlines(), b.splitlines()
    if len(la) != len(lb):
        return False
    for x, y in zip(la, lb):
        if x == y:
            continue
        # Quoted names hold no numbers that differ: split from the right.
        cx, cy = x.rsplit(',', 9), y.rsplit(',', 9)
        if len(cx) != len(cy) or cx[0] != cy[0] or cx[1] != cy[1] or cx[2] != cy[2] or cx[8:] != cy[8:]:
            return False
        for u, v in zip(cx[3:8], cy[3:8]):
            if u == v:
                continue
            fu, fv = float(u), float(v)
            if not math.isclose(fu, fv, rel_tol=1e-9, abs_tol=1e-12):
                return False
    return True


def write_metrics(rng, path):
    with open(path, 'w') as f:
        f.write('ts,a,b\n')
        for t in range(700):
            shift = 1.0 if t > 400 else 0.0
            f.write(f'{t * 0.37:.3f},{rng.gauss(shift, 1):.6f},{rng.gauss(0, 1):.6f}\n')


def write_trace(rng, path, shuffled):
    events = [{'name': 'thread_name', 'ph': 'M', 'pid': 1, 'tid': 1, 'args': {'name': 'main'}}]
    t = 5000
    for i in range(3000):
        name = rng.choice(['parse', 'layout', 'paint'])
        dur = int(rng.lognormvariate(math.log(300), 0.5) * (1.6 if name == 'parse' and i > 1800 else 1))
        events.append({'name': name, 'ph': 'X', 'pid': 1, 'tid': 1 + i % 2, 'ts': t, 'dur': max(1, dur)})
        if i % 7 == 0:
            events.append({'name': 'mem', 'ph': 'C', 'pid': 1, 'ts': t, 'args': {'v': rng.randint(0, 100)}})
        t += max(1, dur) + int(rng.expovariate(1 / 150))
    if shuffled:
        rng.shuffle(events)
    with open(path, 'w') as f:
        json.dump(events, f)


def main():
    failures = []
    with tempfile.TemporaryDirectory(prefix='tsl-changes-onepass-') as tmp:
        rng = random.Random(808)
        paths = []
        for i in range(3):
            p = os.path.join(tmp, f'metrics-{i}.csv')
            write_metrics(rng, p)
            paths.append(p)
            for shuffled in (False, True):
                p = os.path.join(tmp, f'trace-{i}-{int(shuffled)}.json')
                write_trace(rng, p, shuffled)
                paths.append(p)
        corpus = os.environ.get('TSL_CORPUS_DIR', '')
        if corpus and os.path.isdir(corpus):
            for root, _, files in sorted(os.walk(corpus)):
                for f in sorted(files):
                    if f not in ('facts.json', 'MANIFEST.md'):
                        paths.append(os.path.join(root, f))
        else:
            print('# corpus not found (TSL_CORPUS_DIR): generated files only', file=sys.stderr)
            if os.environ.get('CI'):
                failures.append('corpus not found')

        compared = known_span = 0
        for path in paths:
            cache = os.path.join(tmp, 'cache')
            shutil.rmtree(cache, ignore_errors=True)
            rc1, one, err1 = changes(path, cache, '--no-cache')
            subprocess.run([TIMESLICE, 'info', path], env=env_with(cache), capture_output=True)
            rc2, known, err2 = changes(path, cache)
            name = os.path.relpath(path, corpus) if path.startswith(corpus or '\0') else os.path.basename(path)
            if rc1 != rc2:
                failures.append(f'{name}: exit {rc1} in one pass, {rc2} with the span known')
                continue
            if rc1 != 0:
                continue   # not a file changes can read (states, profiles without times): the same error
            compared += 1
            if 'the span from the chunk index' in err1:
                failures.append(f'{name}: --no-cache took the span from the index')
            # Some corpus files keep no span in their index (too small, or
            # their times come from the end): the generated ones must.
            if 'one read, the span from the chunk index' in err2:
                known_span += 1
            elif not path.startswith(corpus or '\0'):
                failures.append(f'{name}: the second read did not take the span from the index')
            if not same_tables(one, known):
                failures.append(f'{name}: the tables differ')
        print(f'{compared} files compared, {known_span} with the span from the index')
        if compared < 9:
            failures.append(f'only {compared} files compared')

    for f in failures:
        print('FAIL:', f)
    sys.exit(1 if failures else 0)


main()
