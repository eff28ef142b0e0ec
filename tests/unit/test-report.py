#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# `timeslice export --report`: the PDF's text (pdftotext) and the HTML's
# table state the header facts and the numbers of the compare CSV of the same
# run, formatted for reading (units, 3–4 significant digits, calls per side);
# long names are cut in the middle with the whole name in a note (PDF) or a
# title (HTML); the HTML refers to nothing outside itself; errors keep files.
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


UNITS = {'ns': 1, 'µs': 1e3, 'ms': 1e6, 's': 1e9, 'min': 60e9, 'h': 3600e9}
SI = {'k': 1e3, 'M': 1e6, 'G': 1e9, 'T': 1e12}


def reads_as(cell, row, field):
    """The formatted cell stands for the CSV's full-precision number: within
    the rounding of 3 significant digits, in the row's unit."""
    want = row[field]
    if want in ('', 'nan'):
        return cell in ('—', '')
    want = float(want)
    m = re.fullmatch(r'([-+]?[\d.]+)(?: ([kMGT]))?(?: ?(ns|µs|ms|s|min|h|%|/s|[^\d ]+))?(/s)?', cell.strip())
    if not m:
        return False
    value = float(m.group(1)) * SI.get(m.group(2) or '', 1)
    unit = m.group(3) or ''
    if field not in ('a_value', 'b_value'):
        return unit == '%' and abs(value - want) <= 0.006 * abs(want) + 0.051
    if row['unit'] in ('ns', 'ns/s'):
        value *= UNITS.get(unit, float('nan'))
    elif row['unit'] == 'fraction':
        value /= 100
    return abs(value - want) <= 0.006 * abs(want) + 1e-12


def long_numbers(text):
    """Numbers printed raw: 6 or more digits after a point, or 7 in a row."""
    return re.findall(r'\d*\.\d{6,}|\d{7,}', text)


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
table_text = text.split('What changed', 1)[-1]
check(not long_numbers(table_text), f'PDF: no raw numbers after the header: {long_numbers(table_text)[:4]}')
positions = []
for row in significant:
    hit = [i for i, line in enumerate(lines) if line.split()[:2] == [row['series'], row['stat']]]
    check(len(hit) == 1 and f"{row['a_n']} / {row['b_n']}" in lines[hit[0]],
          f'PDF table row {row["series"]} {row["stat"]} with its calls per side {row["a_n"]} / {row["b_n"]}')
    positions.extend(hit)
rest = [row for row in rows if row['significant'] != 'true']
rest_hits = [i for i, line in enumerate(lines) for row in rest
             if line.split()[:2] == [row['series'], row['stat']]]
check(positions and rest_hits and max(positions) < min(rest_hits), 'PDF: significant rows first')
check(positions == sorted(positions), 'PDF: the significant rows in the CSV\'s (impact) order')
check('nothing else changed more than noise would' in text, 'PDF: the sentence for the whole table')
parse = next(row for row in significant if row['series'] == 'worker-1/parse')
flat_text = ' '.join(text.split())
check(not re.search(r'A -?[\d.]+(e[-+]\d+)? → B', flat_text) and 'A 24.2 % → B 37.8 %, +56.1 %' in flat_text,
      'PDF: the plots\' captions in units too, no bare values')
check(re.search(rf"worker-1/parse: share [\d.]+ % → [\d.]+ %, \+[\d.]+ % \[\+[\d.]+ %, \+[\d.]+ %\], "
                rf"q [<\d. ]+, {parse['a_n']} vs {parse['b_n']} calls", flat_text),
      'PDF: the plain-language line of the planted change, with its change and calls per side')

check('Differential flame graph, A → B' in text and 'parse' in text.split('Differential flame graph')[-1],
      'PDF: the differential flame graph of a trace with call stacks')
check('Exact: every event of A and B' in ' '.join(text.split()),
      'PDF: the flame graph is the exact one of the ranges (as export --flamegraph), not the kept samples')
metrics = os.path.join(src, 'data', 'compare', 'metrics.csv')
flat = os.path.join(tmp, 'metrics.pdf')
r = run('export', '--report', '-o', flat, metrics)
flat_text = subprocess.run(['pdftotext', flat, '-'], capture_output=True, text=True).stdout
check(r.returncode == 0 and 'planted: mean over time' in flat_text and 'flame graph' not in flat_text,
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
# The report names a statistic in words, as the window does (the CSV keeps its id).
STAT_WORDS = {'mean': 'mean duration', 'share': 'share', 'cpu_share': 'CPU share', 'cpu_mean': 'mean CPU time',
              'time_mean': 'mean over time', 'rate_per_s': 'rate'}
for row in rows:
    got = by_key.get((row['series'], STAT_WORDS.get(row['stat'], row['stat'])))
    fields = ['a_value', 'b_value', 'change_pct', 'ci_low_pct', 'ci_high_pct']
    ok = got is not None and len(got) == 8 and got[7] == f"{row['a_n']} / {row['b_n']}"
    if ok:
        ci = re.fullmatch(r'\[(.*), (.*)\]', got[5]) if got[5] else None
        shown = [got[2], got[3], got[4] if row['change_pct'] not in ('new in B', 'gone in B') else '',
                 ci.group(1) if ci else '', ci.group(2) if ci else '']
        ok = all(reads_as(cell, row, field) for cell, field in zip(shown, fields)
                 if row[field] not in ('new in B', 'gone in B'))
    check(ok, f'HTML row {row["series"]} {row["stat"]} reads as the CSV, with calls per side: {got}')
    check(got is None or not long_numbers(' '.join(got)), f'HTML row {row["series"]} {row["stat"]}: no raw numbers')
    check(got is None or row['change_pct'] != '0' or got[4] == '0 %', f'HTML row {row["series"]} {row["stat"]}: no change reads "0 %"')
check([r[0:2] for r in table_rows[:len(significant)]] == [[r['series'], r['stat']] for r in significant],
      'HTML: significant rows first, in the CSV\'s (impact) order')

# --- page one, the timeline, long names -------------------------------------
first_page = subprocess.run(['pdftotext', '-l', '1', pdf, '-'], capture_output=True, text=True).stdout
first = ' '.join(first_page.split())
top = significant[0]
check('Largest significant changes' in first and f"1. {top['series']}: {top['stat']} " in first,
      f'PDF page 1 names the first significant row in the CSV\'s (impact) order: {top["series"]} {top["stat"]}')
first_li = re.search(r'<ol class="first">\s*<li>([^<]*)</li>', body)
check(first_li is not None and first_li.group(1).startswith(f"{top['series']}: {top['stat']} ")
      and body.index('<ol class="first">') < body.index('<h2>Timeline'),
      'HTML names the same row first, before the timeline')

# Many threads, one function with a long name that slows down in B.
LONG = 'ComponentWithAVeryLongNamespace::SubsystemScheduler::DispatchPendingWorkItemsForTheFrameAfterLayout'
events = [{'name': 'process_name', 'ph': 'M', 'pid': 1, 'tid': 0, 'args': {'name': 'app'}}]
for t in range(120):
    events.append({'name': 'thread_name', 'ph': 'M', 'pid': 1, 'tid': 10 + t, 'args': {'name': f'worker-{t}'}})
for i in range(40):
    events.append({'name': LONG, 'ph': 'X', 'pid': 1, 'tid': 10, 'ts': i * 25000, 'dur': 100 + (i * 37) % 200})
for i in range(200):
    events.append({'name': LONG, 'ph': 'X', 'pid': 1, 'tid': 10, 'ts': 1000000 + i * 5000, 'dur': 1000 + (i * 53) % 2000})
for t in range(1, 120):
    for i in range(20):
        events.append({'name': f'step{t % 5}', 'ph': 'X', 'pid': 1, 'tid': 10 + t, 'ts': i * 100000 + t * 7,
                       'dur': 2000 + (i * t * 31) % 2000})
# Instants: the share of `mark` among worker-3's rises (a Poisson row, an
# interval but no resamples); `gone` leaves worker-4 (no interval at all).
for i in range(30):
    events.append({'name': 'mark', 'ph': 'I', 's': 't', 'pid': 1, 'tid': 13, 'ts': i * 33000 + 5})
for i in range(150):
    events.append({'name': 'mark', 'ph': 'I', 's': 't', 'pid': 1, 'tid': 13, 'ts': 1000000 + i * 6000 + 5})
for i in range(200):
    events.append({'name': 'other', 'ph': 'I', 's': 't', 'pid': 1, 'tid': 13, 'ts': i * 10000 + 7})
for i in range(25):
    events.append({'name': 'gone', 'ph': 'I', 's': 't', 'pid': 1, 'tid': 14, 'ts': i * 40000 + 3})
for i in range(100):
    events.append({'name': 'other', 'ph': 'I', 's': 't', 'pid': 1, 'tid': 14, 'ts': i * 20000 + 9})
# A file name longer than a line: wrapped in the PDF's title and header, whole.
many = os.path.join(tmp, 'many-threads-' + 'with-a-file-name-longer-than-one-line-of-the-page-' * 3 + 'end.json')
json.dump(events, open(many, 'w'))
many_pdf, many_html, many_csv = (os.path.join(tmp, 'many.' + x) for x in ('pdf', 'html', 'csv'))
many_name = os.path.basename(many)
r = run('export', '--report', '-o', many_pdf, '--table', many_csv, *ranges, many)
check(r.returncode == 0, f'report of 120 threads ({r.stderr.strip()})')
run('export', '--report', '-o', many_html, *ranges, many)
long_series = f'worker-0/{LONG}'
check(any(row['series'] == long_series and row['significant'] == 'true'
          for row in csv.DictReader(open(many_csv, newline=''))), 'the long-named function is significant')

header_text = ''.join(subprocess.run(['pdftotext', '-layout', '-l', '1', many_pdf, '-'], capture_output=True,
                                     text=True).stdout.split())
name_words = [float(m.group(2)) - float(m.group(1)) for m in re.finditer(
    r'yMin="([\d.]+)" xMax="[\d.]+" yMax="([\d.]+)">many-threads', subprocess.run(
        ['pdftotext', '-bbox', '-l', '1', many_pdf, '-'], capture_output=True, text=True).stdout)]
check(header_text.count(many_name) >= 2 and len(name_words) >= 2 and min(name_words[:2]) >= 8,
      f'PDF: a long file name whole in the title and the File fact, wrapped, not shrunk ({name_words})')
many_rows = {(row['series'], row['stat']): row for row in csv.DictReader(open(many_csv, newline=''))}
check(many_rows.get(('worker-3/mark', 'share'), {}).get('method') == 'poisson' and
      many_rows[('worker-3/mark', 'share')]['significant'] == 'true' and
      many_rows.get(('worker-4/gone', 'share'), {}).get('significant') == 'true', 'the fixture\'s Poisson rows are significant')
flat_many = ' '.join(subprocess.run(['pdftotext', many_pdf, '-'], capture_output=True, text=True).stdout.split())
check('No bootstrap distribution' not in flat_many, 'PDF: no empty distribution box')
check('A 23.1 % → B 60.0 %, +160 %; shaded: interval' in flat_many, 'PDF: a Poisson row gets its interval plotted')
check('No interval for this row: seen in one range only' in flat_many, 'PDF: a row without an interval gets a sentence')
check(re.search(r'worker-4/gone: share gone in B \(was [\d.]+ %\), q [<\d. ]+, 25 vs 0 calls', flat_many),
      'PDF: a row gone in B with its calls per side')
many_body = open(many_html, encoding='utf-8').read()
gone = re.search(r'<p class="sentence">worker-4/gone: share[^<]*</p>\s*(<[^>]*>[^<]*)', many_body)
check(gone is not None and gone.group(1).startswith('<p class="note">No interval'),
      'HTML: the sentence instead of a picture for a row without an interval')

# The timeline: its heading on the page where its picture starts, its track
# labels at a readable size (pdftotext -bbox gives each word's box).
pages = subprocess.run(['pdftotext', '-bbox', many_pdf, '-'], capture_output=True, text=True).stdout.split('<page ')
heading_page = next((pg for pg in pages if '>Timeline</word>' in pg), '')
check('>worker-1</word>' in heading_page, 'PDF: the timeline\'s heading on the page of its picture')
labels = [(m.group(3), float(m.group(2)) - float(m.group(1))) for m in
          re.finditer(r'yMin="([\d.]+)" xMax="[\d.]+" yMax="([\d.]+)">(worker-\d+)</word>', ''.join(pages))]
heights = [h for _, h in labels]
check(len(labels) >= 20 and min(heights) >= 6,
      f'PDF: {len(labels)} track labels, none smaller than 6 pt (smallest {min(heights, default=0):.1f})')
check({'worker-0', 'worker-3', 'worker-4'} <= {name for name, _ in labels} and
      re.search(r'\d+ of 1[2-9]\d tracks: those of the significant rows, then the busiest',
                ' '.join(subprocess.run(['pdftotext', many_pdf, '-'], capture_output=True, text=True).stdout.split())),
      'PDF: the timeline shows the tracks of the significant rows and says how many of all')

# Long names: cut in the middle at full size with a numbered note holding the
# whole name (PDF), whole with a title (HTML).
many_text = subprocess.run(['pdftotext', many_pdf, '-'], capture_output=True, text=True).stdout
note = re.search(r'^\[(\d+)\] ' + re.escape(long_series) + '$', many_text, re.M)
marks = re.findall(r'worker-0/Compo\S*…\S*Layout \[(\d+)\]', many_text)
check(note is not None and len(marks) == 2 and set(marks) == {note.group(1)},
      f'PDF: the long name cut in the middle, marked, and whole in one note for its two rows ({marks})')
p = Page()
p.feed(open(many_html, encoding='utf-8').read())
check(f'title="{long_series}"' in open(many_html, encoding='utf-8').read() and
      any(row and row[0] == long_series for row in p.rows), 'HTML: the long name whole, with a title')

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
