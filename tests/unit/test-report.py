#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# `timeslice export --report`: the PDF's text (pdftotext) and the HTML's
# table state the header facts and exactly the numbers of the compare CSV of
# the same run; the HTML refers to nothing outside itself; errors keep files.
import csv
import hashlib
import html.parser
import io
import json
import os
import re
import subprocess
import sys
import tempfile

exe = os.environ['TSL_TIMESLICE']
src = os.environ['G_TEST_SRCDIR']
# The fixture's planted change: worker-1/parse holds 30 % of the events in A, 45 % in B.
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


pdf = os.path.join(tmp, 'report.pdf')
page = os.path.join(tmp, 'report.html')
table = os.path.join(tmp, 'table.csv')
ranges = ['--a', '0%..50%', '--b', '50%..100%']

r = run('export', '--report', '-o', pdf, '--table', table, *ranges, trace)
check(r.returncode == 0, f'PDF report written (exit {r.returncode}: {r.stderr.strip()})')
r = run('export', '--report', '-o', page, *ranges, trace)
check(r.returncode == 0, f'HTML report written (exit {r.returncode}: {r.stderr.strip()})')

rows = list(csv.DictReader(open(table, newline='')))
compare = run('compare', *ranges, trace)
check(compare.stdout == open(table).read(), 'the report\'s table is the CSV `compare` writes')
significant = [row for row in rows if row['significant'] == 'true']
check(any(row['series'] == 'worker-1/parse' and row['stat'] == 'share' for row in significant),
      'the planted change (worker-1/parse share) is significant')

info = json.loads(run('info', '--json', trace).stdout)
data = open(trace, 'rb').read()
facts = {
    'File': 'trace.json',
    'Size': f'{len(data)} bytes',
    'Format': info['format'],
    'SHA-256': hashlib.sha256(data).hexdigest(),
    'Events': str(info['events']),
    'K': '2000',
    'Seed': '24301 (0x5EED)',
    'Rounds': '10000',
    'Confidence': '0.95',
    'Method': 'two-sample',
}


def cells(row):
    ci = f"[{row['ci_low_pct']}, {row['ci_high_pct']}]" if row['ci_low_pct'] or row['ci_high_pct'] else ''
    return [row['series'], row['stat'], row['a_value'], row['b_value'], row['change_pct'], ci,
            row['q_value'], row['unit']]


# --- PDF: text stays text, A4 in the C locale --------------------------------
info_pdf = subprocess.run(['pdfinfo', pdf], capture_output=True, text=True).stdout
check('(A4)' in info_pdf, 'the PDF is A4 where LC_PAPER says nothing else')
# A Letter locale, compiled into a temporary LOCPATH (Debian's `locales`).
locpath = os.path.join(tmp, 'locale')
os.mkdir(locpath)
subprocess.run(['localedef', '-i', 'en_US', '-f', 'UTF-8', os.path.join(locpath, 'en_US.UTF-8')],
               capture_output=True, timeout=300)
letter = os.path.join(tmp, 'letter.pdf')
r = subprocess.run([exe, 'export', '--report', '-o', letter, trace], capture_output=True, text=True,
                   env=dict(env, LC_ALL='', LANG='C.UTF-8', LC_PAPER='en_US.UTF-8', LOCPATH=locpath))
letter_info = subprocess.run(['pdfinfo', letter], capture_output=True, text=True).stdout
check(r.returncode == 0 and '(letter)' in letter_info, f'LC_PAPER=en_US gives Letter pages: {letter_info.splitlines()[-3:]}')
text = subprocess.run(['pdftotext', '-layout', pdf, '-'], capture_output=True, text=True).stdout
lines = text.splitlines()
for label, value in facts.items():
    check(any(re.match(rf'\s*{re.escape(label)}\s+{re.escape(value)}', line) for line in lines),
          f'PDF header: {label} {value}')
positions = []
for row in significant:
    expected = [c for c in cells(row) if c]
    hit = [i for i, line in enumerate(lines)
           if line.split()[:2] == [row['series'], row['stat']]
           and re.sub(r'\s+', ' ', line).strip() == ' '.join(expected)]
    check(len(hit) == 1, f'PDF table row {row["series"]} {row["stat"]} reads exactly {" ".join(expected)}')
    positions.extend(hit)
rest = [row for row in rows if row['significant'] != 'true']
rest_hits = [i for i, line in enumerate(lines) for row in rest
             if line.split()[:2] == [row['series'], row['stat']]]
check(positions and rest_hits and max(positions) < min(rest_hits), 'PDF: significant rows first')
check('nothing else changed more than noise would' in text, 'PDF: the sentence for the whole table')
parse = next(row for row in significant if row['series'] == 'worker-1/parse')
check(f"worker-1/parse: share " in text and f"{float(parse['change_pct']):+.1f} %" in text,
      'PDF: the plain-language line of the planted change, with its change')

check('Differential flame graph, A → B' in text and 'parse' in text.split('Differential flame graph')[-1],
      'PDF: the differential flame graph of a trace with call stacks')
check('Exact: every event of A and B' in ' '.join(text.split()),
      'PDF: the flame graph is the exact one of the ranges (as export --flamegraph), not the kept samples')
metrics = os.path.join(src, 'data', 'compare', 'metrics.csv')
flat = os.path.join(tmp, 'metrics.pdf')
r = run('export', '--report', '-o', flat, metrics)
flat_text = subprocess.run(['pdftotext', flat, '-'], capture_output=True, text=True).stdout
check(r.returncode == 0 and 'planted: time_mean' in flat_text and 'flame graph' not in flat_text,
      'a metrics file: the planted series in words, no flame graph page')

# --- HTML: self-contained, same numbers --------------------------------------


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.refs, self.tags, self.rows, self.cell, self.facts, self.dt = [], set(), [], None, {}, None

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        for name, value in attrs:
            if name in ('src', 'href', 'xlink:href', 'action', 'srcset', 'data'):
                self.refs.append(value)
            if name == 'style' and 'url(' in (value or '') and 'url(#' not in value:
                self.refs.append(value)
        if tag == 'tr':
            self.rows.append([])
        if tag == 'td':
            self.cell = ''
        if tag == 'dt':
            self.dt = ''

    def handle_endtag(self, tag):
        if tag == 'td':
            self.rows[-1].append(self.cell)
            self.cell = None
        if tag == 'dd':
            self.dt = None

    def handle_data(self, d):
        if self.cell is not None:
            self.cell += d
        if self.dt is not None:
            if self.lasttag == 'dt':
                self.dt += d
            else:
                self.facts[self.dt] = self.facts.get(self.dt, '') + d


body = open(page, encoding='utf-8').read()
p = Page()
p.feed(body)
check(all(ref.startswith('#') for ref in p.refs), f'HTML refers only to itself: {[r for r in p.refs if not r.startswith("#")][:3]}')
check('script' not in p.tags and '<script' not in body.lower(), 'HTML has no script')
check(not re.search(r'(src|href)\s*=\s*["\']?(https?:|//|file:)', body, re.I), 'HTML has no external src/href')
check('@import' not in body and 'url(http' not in body, 'HTML style loads nothing')
check(body.count('<svg') >= 1 + len(significant), 'HTML: timeline and one histogram per significant row inline')
for label, value in facts.items():
    check(p.facts.get(label, '').startswith(value), f'HTML header: {label} {value}')
table_rows = [r for r in p.rows if r]
expected_rows = sorted(rows, key=lambda r: r['significant'] != 'true')[:len(table_rows)]
by_key = {(r[0], r[1]): r for r in table_rows}
check(len(table_rows) == len(rows), f'HTML lists every row of this small table ({len(table_rows)})')
for row in rows:
    got = by_key.get((row['series'], row['stat']))
    check(got == cells(row), f'HTML row {row["series"]} {row["stat"]} equals the CSV')
check([r[0:2] for r in table_rows[:len(significant)]] ==
      sorted([[r['series'], r['stat']] for r in significant],
             key=lambda k: float(next(x['q_value'] for x in significant if [x['series'], x['stat']] == k))),
      'HTML: significant rows first, smallest q first')

# --- top N and errors -----------------------------------------------------------
small = os.path.join(tmp, 'top.html')
r = run('export', '--report', '--top', '1', '-o', small, *ranges, trace)
p = Page()
p.feed(open(small, encoding='utf-8').read())
check(r.returncode == 0 and len([r for r in p.rows if r]) == 1, '--top 1 keeps one row')

old = os.path.join(tmp, 'old.pdf')
open(old, 'w').write('keep me')
for args, status, what in [
        (['--top', '0'], 2, '--top 0'),
        (['--size', '800x600'], 2, '--size with --report'),
        (['--a', '5s..6s'], 2, 'a range after the end of the trace'),
]:
    r = run('export', '--report', '-o', old, *args, trace)
    check(r.returncode == status and open(old).read() == 'keep me',
          f'{what}: exit {r.returncode} (want {status}), the old file kept')
r = run('export', '--report', '-o', os.path.join(tmp, 'x.txt'), trace)
check(r.returncode == 2 and '.pdf or .html' in r.stderr, 'an unknown extension is a usage error naming .pdf and .html')
r = run('export', '--report', '-o', os.path.join(tmp, 'no', 'dir', 'r.pdf'), trace)
check(r.returncode == 1 and 'r.pdf' in r.stderr and '.part' not in r.stderr,
      f'a missing directory: exit 1 naming the file ({r.stderr.strip()})')
r = run('export', '--table', table, '-o', os.path.join(tmp, 'x.png'), trace)
check(r.returncode == 2, '--table without --report is a usage error')

if failures:
    print(f'{len(failures)} failures', file=sys.stderr)
    sys.exit(1)
