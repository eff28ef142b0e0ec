#!/usr/bin/python3
# bench/bench-dask.py: contrib/timeslice-dask.py on 1 worker against 2, and a single pass
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
#   bench/bench-dask.py [--mb 200] [--parts 4] [--runs 3] [TIMESLICE]
#
# Generates a seeded CSV of --mb megabytes (bench/gen-csv.py; its reader uses
# one thread, so the workers are what scales), makes its chunk index once,
# then interleaves, --runs times: `timeslice sample --state` of the whole
# file (the baseline), and the recipe's --parts on a LocalCluster of 1 and of
# 2 workers (the time it reports for sampling the parts, cluster start-up
# left out). Prints medians, the ratios, and the machine's load average,
# since other jobs on the machine take cores from the workers.
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

top = os.path.normpath(os.path.join(os.path.dirname(__file__), '..'))
parser = argparse.ArgumentParser()
parser.add_argument('--mb', type=float, default=200)
parser.add_argument('--parts', type=int, default=4)
parser.add_argument('--runs', type=int, default=3)
parser.add_argument('timeslice', nargs='?', default=os.path.join(top, '_build', 'app', 'timeslice'))
args = parser.parse_args()

tmp = tempfile.mkdtemp()
env = dict(os.environ, XDG_CACHE_HOME=os.path.join(tmp, 'cache'))
src = os.path.join(tmp, 'metrics.csv')
with open(src, 'w') as f:
    subprocess.run([sys.executable, os.path.join(top, 'bench', 'gen-csv.py'), str(args.mb), '8'], stdout=f, check=True)
recipe = os.path.join(top, 'contrib', 'timeslice-dask.py')
subprocess.run([args.timeslice, 'info', src], check=True, capture_output=True, env=env)   # the index

single, sampled = [], {1: [], 2: []}
for _ in range(args.runs):
    start = time.monotonic()
    subprocess.run([args.timeslice, 'sample', '--state', '--mode', 'time', '--no-cache', '-o', os.devnull, src],
                   check=True, env=env)
    single.append(time.monotonic() - start)
    for w in (1, 2):
        r = subprocess.run([recipe, '--timeslice', args.timeslice, '--workers', str(w), '--parts', str(args.parts),
                            '--mode', 'time', '--no-prepare', '--quiet', '-o', os.path.join(tmp, 'out.tss'), src],
                           check=True, capture_output=True, text=True, env=env)
        sampled[w].append(float(re.search(r'sampled in ([0-9.]+) s', r.stderr).group(1)))

one, two, base = statistics.median(sampled[1]), statistics.median(sampled[2]), statistics.median(single)
print(f'{args.mb:g} MB CSV, {args.parts} parts, medians of {args.runs}: single pass {base:.2f} s; '
      f'1 worker {one:.2f} s ({one / base:.2f} of it), 2 workers {two:.2f} s ({two / base:.2f}); '
      f'2 workers / 1 worker = {two / one:.2f}; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores')
