#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# `timeslice export --report` and change points: without --a/--b the report
# compares the stretches either side of the file's most important change
# point and says so on its first page (a file where nothing changes keeps
# the halves and says that); with --a/--b its first page lists the
# significant change points from the start of A to the end of B, the same
# ones `timeslice changes --a --b` finds. Generated files, fixed seeds.
import csv
import html
import io
import os
import random
import re
import subprocess
import sys
import tempfile

exe = os.environ['TSL_TIMESLICE']
src = os.environ['G_TEST_SRCDIR']
trace = os.path.join(src, 'data', 'compare', 'trace.json')
env = {k: v for k, v in os.environ.items() if k not in ('DISPLAY', 'WAYLAND_DISPLAY')}
env['LC_ALL'] = 'C.UTF-8'
tmp = tempfile.mkdtemp()
failures = []


def check(cond, what):
    print(('ok   ' if cond else 'FAIL ') + what)
    if not cond:
        failures.append(what)


def run(*args):
    return subprocess.run([exe, *args], capture_output=True, text=True, env=env, timeout=300)


def write_metrics(path, seed, shift):
    """20 series of 600 points a second, level 10, σ 1; s7 rises by `shift` at 300 s."""
    rng = random.Random(seed)
    with open(path, 'w') as f:
        f.write('ts,' + ','.join(f's{i}' for i in range(20)) + '\n')
        for t in range(600):
            cells = [rng.gauss(10, 1) + (shift if i == 7 and t >= 300 else 0) for i in range(20)]
            f.write(f'{t},' + ','.join(f'{c:.6f}' for c in cells) + '\n')


def text_of(page):
    return html.unescape(re.sub(r'<[^>]+>', ' ', open(page).read()))


def seconds(text):
    """'4 min 59.5 s', '5 min', '300 ms' → seconds."""
    total = 0.0
    for value, unit in re.findall(r'([\d.]+)\s*(min|ms|µs|ns|s|h)\b', text):
        total += float(value) * {'h': 3600, 'min': 60, 's': 1, 'ms': 1e-3, 'µs': 1e-6, 'ns': 1e-9}[unit]
    return total


def fact(page, label):
    m = re.search(r'<dt>' + re.escape(label) + r'</dt><dd>([^<]*)</dd>', open(page).read())
    return html.unescape(m.group(1)) if m else None


# Without ranges: around the planted change.
shifted = os.path.join(tmp, 'shift.csv')
write_metrics(shifted, 37, 1.0)
page = os.path.join(tmp, 'shift.html')
pdf = os.path.join(tmp, 'shift.pdf')
table = os.path.join(tmp, 'shift-table.csv')
r = run('export', '--report', '-o', page, '--table', table, shifted)
check(r.returncode == 0, f'report without ranges written (exit {r.returncode}: {r.stderr.strip()})')
r = run('export', '--report', '-o', pdf, shifted)
check(r.returncode == 0, f'PDF report without ranges written (exit {r.returncode}: {r.stderr.strip()})')
top = list(csv.DictReader(io.StringIO(run('changes', '--top', '1', shifted).stdout)))[0]
check(top['series'] == 's7' and top['significant'] == 'true', f'the planted change is the top change point ({top})')
text = text_of(page)
check('A and B were not given: they are the stretches before and after the file\'s most important change point, s7'
      in text, 'the HTML says A and B were chosen around s7\'s change')
first = subprocess.run(['pdftotext', '-f', '1', '-l', '1', pdf, '-'], capture_output=True, text=True).stdout
check('A and B were not given' in first and 's7' in first, 'the PDF says so on its first page')
a, b = fact(page, 'Range A'), fact(page, 'Range B')
check(a is not None and b is not None, f'ranges stated ({a}, {b})')
if a and b:
    a0, a1 = (seconds(x) for x in a.split('–'))
    b0, b1 = (seconds(x) for x in b.split('–'))
    t = float(top['time_s'])
    # The facts are rounded to the second at this length.
    check(a0 == 0 and abs(a1 - t) < 1 and abs(b0 - t) < 1 and b1 > 598,
          f'A ends and B starts at the change ({t:.2f} s): A {a0}–{a1}, B {b0}–{b1}')
    check(abs(t - 300) <= 12, f'the change found within ±2 % of the span of 300 s ({t:.2f} s)')
rows = list(csv.DictReader(open(table, newline='')))
check(rows[0]['series'] == 's7' and rows[0]['significant'] == 'true',
      f'the compare table\'s top row is s7, significant ({rows[0]["series"]}, {rows[0]["significant"]})')

# Without ranges, nothing changes: the halves, said.
flat = os.path.join(tmp, 'flat.csv')
write_metrics(flat, 5, 0.0)
found = [row for row in csv.DictReader(io.StringIO(run('changes', flat).stdout)) if row['significant'] == 'true']
check(found == [], f'the null file (seed 5) has no significant change point ({len(found)})')
page = os.path.join(tmp, 'flat.html')
r = run('export', '--report', '-o', page, flat)
check(r.returncode == 0, f'report of the null file written (exit {r.returncode})')
check('no series changed significantly anywhere in the file: A is its first half, B its second' in text_of(page),
      'the null file\'s report says A and B are the halves')
check(fact(page, 'Range A') == '0 ns – 5 min', f'A is the first half ({fact(page, "Range A")})')

# With ranges: the change points inside them, as `changes --a --b` finds them.
page = os.path.join(tmp, 'trace.html')
ranges = ['--a', '0%..50%', '--b', '50%..100%']
r = run('export', '--report', '-o', page, *ranges, trace)
check(r.returncode == 0, f'report with ranges written (exit {r.returncode})')
expected = [row for row in csv.DictReader(io.StringIO(run('changes', *ranges, trace).stdout))
            if row['significant'] == 'true']
check(len(expected) > 0, f'the fixture has significant change points ({len(expected)})')
text = text_of(page)
n = len(expected)
check(f'{n} change point{"s" if n != 1 else ""} from the start of A to the end of B, most important first' in text,
      f'the report counts {n} change points inside A and B')
items = re.findall(r'<ol class="changes">(.*?)</ol>', open(page).read(), re.S)
listed = re.findall(r'<li>(.*?)</li>', items[0] if items else '', re.S)
check([html.unescape(li).split(' · ')[0] for li in listed] == [row['series'] for row in expected],
      'the listed change points are `changes --a --b`\'s significant rows, in its order')
narrow_ranges = ['--a', '0%..20%', '--b', '20%..40%']
narrow = os.path.join(tmp, 'narrow.html')
r = run('export', '--report', '-o', narrow, *narrow_ranges, trace)
check(r.returncode == 0, f'report with narrow ranges written (exit {r.returncode})')
inside = [row for row in csv.DictReader(io.StringIO(run('changes', *narrow_ranges, trace).stdout))
          if row['significant'] == 'true']
check(inside == [], f'nothing changes in the fixture\'s first 40 % ({len(inside)})')
check('No series changed significantly from the start of A to the end of B.' in text_of(narrow),
      'ranges without a change point say so')

if failures:
    print(f'{len(failures)} failed')
    sys.exit(1)
