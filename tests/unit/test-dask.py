#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# contrib/timeslice-dask.py on a LocalCluster of 2 workers: the --parts of a
# generated trace, and files that are consecutive parts of one stream, merged
# into exactly the state a single pass writes, in count and time mode.
import os
import subprocess
import sys
import tempfile

top = os.path.normpath(os.path.join(os.path.dirname(__file__), '..', '..'))
exe = os.environ['TSL_TIMESLICE']
recipe = os.path.join(top, 'contrib', 'timeslice-dask.py')
tmp = tempfile.mkdtemp()
env = dict(os.environ, LC_ALL='C.UTF-8', XDG_CACHE_HOME=os.path.join(tmp, 'cache'))
env.pop('TSL_NO_INDEX', None)
failures = []


def check(cond, what):
    print(('ok   ' if cond else 'FAIL ') + what)
    if not cond:
        failures.append(what)


def path(name):
    return os.path.join(tmp, name)


def single_pass(src, mode, out):
    subprocess.run([exe, 'sample', '--state', '--mode', mode, '--k', '300', '--no-cache', '-o', out, src],
                   check=True, env=env)
    return open(out, 'rb').read()


def dask(*args):
    # The recipe's own interpreter (#!/usr/bin/python3: Debian's, with python3-distributed).
    r = subprocess.run([recipe, '--timeslice', exe, '--workers', '2', '--k', '300', '--quiet', *args],
                       capture_output=True, text=True, env=env, timeout=600)
    print(r.stderr.strip().splitlines()[-1] if r.stderr.strip() else '')
    return r


trace = path('trace.json')
with open(trace, 'wb') as f:
    subprocess.run([sys.executable, os.path.join(top, 'bench', 'gen-chrome.py'), '--mb', '6', '--seed', '9',
                    '--form', 'array'], stdout=f, check=True)
# Small chunks so that 3 parts have boundaries to start at.
env['TSL_INDEX_CHUNK_BYTES'] = str(512 * 1024)
for mode in ('time', 'count'):
    out = path(f'dask-{mode}.tss')
    r = dask('--parts', '3', '--mode', mode, '-o', out, trace)
    check(r.returncode == 0, f'recipe, --parts 3, {mode} mode: exit 0 ({r.stderr.strip()[-300:]})')
    check(r.returncode == 0 and open(out, 'rb').read() == single_pass(trace, mode, path(f'one-{mode}.tss')),
          f'--parts 3 on 2 workers, {mode} mode: merged state == single pass, byte for byte')

# Files that are consecutive parts of one stream (a CSV cut in three).
csv = path('metrics.csv')
subprocess.run([sys.executable, os.path.join(top, 'bench', 'gen-csv.py'), '2', '4'],
               stdout=open(csv, 'wb'), check=True)
lines = open(csv, encoding='utf-8').read().splitlines(keepends=True)
cuts = [1, 9001, 21007, len(lines)]
parts = []
for i in range(3):
    parts.append(path(f'part{i}.csv'))
    with open(parts[-1], 'w', encoding='utf-8') as f:
        f.writelines(lines[:1] + lines[cuts[i]:cuts[i + 1]])
for mode in ('count', 'time'):
    out = path(f'files-{mode}.tss')
    r = dask('--mode', mode, '-o', out, *parts)
    check(r.returncode == 0 and open(out, 'rb').read() == single_pass(csv, mode, path(f'csv-{mode}.tss')),
          f'3 part files on 2 workers, {mode} mode: merged state == single pass of the whole, byte for byte')

if failures:
    print(f'{len(failures)} failed')
    sys.exit(1)
