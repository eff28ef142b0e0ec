#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# `timeslice changes BEFORE AFTER`: the series that differ between two runs
# are the significant rows of `timeslice compare BEFORE AFTER`, line for
# line and in its order (tests/data/compare/before.json and after.json:
# AFTER's worker/layout takes 1.5× as long); --top keeps the first N; --b
# narrows AFTER's range as compare's does; standard input is refused.
import os
import subprocess
import sys

exe = os.environ['TSL_TIMESLICE']
src = os.environ['G_TEST_SRCDIR']
before = os.path.join(src, 'data', 'compare', 'before.json')
after = os.path.join(src, 'data', 'compare', 'after.json')
failures = []


def check(cond, what):
    print(('ok   ' if cond else 'FAIL ') + what)
    if not cond:
        failures.append(what)


def run(*args):
    return subprocess.run([exe, *args], capture_output=True, text=True, timeout=300)


def significant(text):
    lines = text.splitlines()
    return [lines[0]] + [line for line in lines[1:] if ',true,' in line]


for extra in ([], ['--b', '0%..50%']):
    compare = run('compare', *extra, before, after)
    changes = run('changes', *extra, before, after)
    check(compare.returncode == 0 and changes.returncode == 0, f'both ran {extra} ({changes.stderr.strip()})')
    expected = significant(compare.stdout)
    check(changes.stdout.splitlines() == expected,
          f'changes {extra} lists compare\'s {len(expected) - 1} significant rows, in order')
    if not extra:
        check(len(expected) > 1 and all(line.startswith('worker/layout,') for line in expected[1:]),
              'between the whole runs, the slowed function alone differs')

top = run('changes', '--top', '1', before, after)
check(top.stdout.splitlines() == significant(run('compare', before, after).stdout)[:2], '--top 1 keeps the first row')
refused = run('changes', before, '-')
check(refused.returncode == 2 and 'standard input' in refused.stderr, f'standard input refused ({refused.returncode})')

if failures:
    print(f'{len(failures)} failed')
    sys.exit(1)
