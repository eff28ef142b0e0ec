#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# `timeslice export` without a display: PNG size and pixels, SVG as XML, PDF
# through pdfinfo, CSV round trip, and errors that leave files alone.
import csv
import json
import re
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
import zlib

exe = os.environ['TSL_TIMESLICE']
src = os.environ['G_TEST_SRCDIR']
example = os.path.join(src, '..', 'data', 'examples', 'example-trace.json')
env = {k: v for k, v in os.environ.items() if k not in ('DISPLAY', 'WAYLAND_DISPLAY')}
tmp = tempfile.mkdtemp()
failures = []


def check(cond, what):
    print(('ok   ' if cond else 'FAIL ') + what)
    if not cond:
        failures.append(what)


def run(*args):
    return subprocess.run([exe, *args], capture_output=True, text=True, env=env, timeout=120)


def read_png(path):
    """Decodes cairo's 8-bit RGBA/RGB non-interlaced PNG into rows of pixels."""
    data = open(path, 'rb').read()
    assert data[:8] == b'\x89PNG\r\n\x1a\n'
    pos, idat, header = 8, b'', None
    while pos < len(data):
        length, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b'IHDR':
            header = struct.unpack('>IIBBBBB', body)
        elif kind == b'IDAT':
            idat += body
        pos += 12 + length
    width, height, depth, color, _, _, interlace = header
    assert depth == 8 and interlace == 0 and color in (2, 6)
    bpp = 4 if color == 6 else 3
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(height):
        f = raw[i]
        line = bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return width, height, bpp, rows


def pixel(img, x, y):
    _, _, bpp, rows = img
    return tuple(rows[y][x * bpp:x * bpp + 3])


# PNG with both ranges: A is blue-tinted, B orange-tinted, tracks are drawn.
png = os.path.join(tmp, 'timeline.png')
r = run('export', '-o', png, '--size', '1000x700', '--a', '10%..30%', '--b', '60%..80%', example)
check(r.returncode == 0, f'export PNG exits 0 ({r.stderr.strip()})')
img = read_png(png)
check(img[0] == 1000 and img[1] == 700, f'PNG is 1000x700 (got {img[0]}x{img[1]})')
plot_x0, plot_w = 200, 800
ax = plot_x0 + int(plot_w * 0.2)
bx = plot_x0 + int(plot_w * 0.7)
y = 600  # below the tracks, above the note: background, grid and range tint
pa, pb = pixel(img, ax, y), pixel(img, bx, y)
check(pa[2] > pa[0] + 10, f'range A is drawn blue-tinted at x={ax} (pixel {pa})')
check(pb[0] > pb[2] + 10, f'range B is drawn orange-tinted at x={bx} (pixel {pb})')
outside = pixel(img, plot_x0 + int(plot_w * 0.45), y)
check(abs(outside[0] - outside[2]) < 10, f'between the ranges is untinted (pixel {outside})')
colored = sum(1 for yy in range(80, 500, 4) for xx in range(plot_x0, 1000, 4)
              if max(pixel(img, xx, yy)) - min(pixel(img, xx, yy)) > 60)
check(colored > 500, f'tracks are drawn: {colored} saturated pixels in the track area')

# Default size grows with the tracks; without ranges nothing is tinted.
png2 = os.path.join(tmp, 'plain.png')
r = run('export', '-o', png2, example)
img2 = read_png(png2)
check(r.returncode == 0 and img2[0] == 1600 and img2[1] > 300, f'default PNG is 1600 wide and tall enough ({img2[0]}x{img2[1]})')

svg = os.path.join(tmp, 'timeline.svg')
r = run('export', '-o', svg, '--a', '0.1s..0.2s', example)
root = ET.parse(svg).getroot()
check(r.returncode == 0 and root.tag.endswith('svg'), f'SVG parses with an svg root ({root.tag})')

pdf = os.path.join(tmp, 'timeline.pdf')
r = run('export', '-o', pdf, example)
check(r.returncode == 0 and open(pdf, 'rb').read(5) == b'%PDF-', 'PDF written')
if shutil.which('pdfinfo'):
    info = subprocess.run(['pdfinfo', pdf], capture_output=True, text=True)
    check(info.returncode == 0 and re.search(r'^Pages: +1$', info.stdout, re.M), 'pdfinfo opens the PDF: 1 page')
    check('example-trace.json' in info.stdout, 'PDF title names the file')
    check(re.search(r'^Page size: +841.89 x 595.276 pts \(A4\)', info.stdout, re.M),
          'the page is A4, landscape, in the C locale')
else:
    check(False, 'pdfinfo (poppler-utils) is installed')

# Issue 32, item 7: a view of 150 threads was one 1570 x 9790 pt page; a
# PDF now holds the locale's paper pages (A4 here), the tracks cut at their
# boundaries, every page with the title and ruler.
many = os.path.join(tmp, 'many.json')
with open(many, 'w') as f:
    json.dump({'traceEvents': [{'ph': 'X', 'name': f'work{t}', 'pid': 1, 'tid': t, 'ts': t, 'dur': 50}
                               for t in range(1, 151)]}, f)
many_pdf = os.path.join(tmp, 'many.pdf')
r = run('export', '--view', '0..200us', '-o', many_pdf, many)
if shutil.which('pdfinfo') and r.returncode == 0:
    info = subprocess.run(['pdfinfo', many_pdf], capture_output=True, text=True).stdout
    pages = int(re.search(r'^Pages: +(\d+)', info, re.M).group(1))
    check(pages >= 3, f'a long track list is paginated ({pages} pages)')
    check(re.search(r'^Page size: +841.89 x 595.276 pts \(A4\)', info, re.M), 'on A4 pages')
    text = subprocess.run(['pdftotext', '-layout', many_pdf, '-'], capture_output=True, text=True).stdout
    check(text.count('many.json') == pages, 'every page has the title')
    check(all(f'work{t}' in text for t in (1, 75, 150)), 'the first, middle and last tracks are drawn')
else:
    check(False, f'export --view of 150 threads as PDF: {r.stderr}')

# --tracks PATTERN draws only the matching tracks; --all-tracks is the
# default, every track; not both, and only with --view.
def png_height(path):
    with open(path, 'rb') as f:
        return struct.unpack('>II', f.read(24)[16:24])[1]


all_png, default_png, some_png = (os.path.join(tmp, n) for n in ('all.png', 'default.png', 'some.png'))
r1 = run('export', '--view', '0..200us', '--all-tracks', '-o', all_png, many)
r2 = run('export', '--view', '0..200us', '-o', default_png, many)
r3 = run('export', '--view', '0..200us', '--tracks', 'Thread 1?', '-o', some_png, many)
check(r1.returncode == 0 and r2.returncode == 0 and open(all_png, 'rb').read() == open(default_png, 'rb').read(),
      '--all-tracks is the default picture')
check(r3.returncode == 0 and png_height(some_png) < png_height(all_png) / 5,
      f'--tracks draws only the matching tracks ({r3.stderr.strip()})')
r = run('export', '--view', '0..200us', '--tracks', 'Thread 1?', '-o', os.path.join(tmp, 'some.csv'), many)
rows = list(csv.DictReader(open(os.path.join(tmp, 'some.csv'), newline=''))) if r.returncode == 0 else []
check(rows and all(row['track'].startswith('Thread 1') for row in rows), '--tracks lists the same tracks as CSV')
for args in (['--view', '0..200us', '--tracks', 'x', '--all-tracks'], ['--all-tracks'], ['--tracks', 'x']):
    r = run('export', *args, '-o', os.path.join(tmp, 'bad.png'), many)
    check(r.returncode == 2 and not os.path.exists(os.path.join(tmp, 'bad.png')), f'export {args} is refused')
r = run('export', '--view', '0..200us', '--tracks', 'nothing*', '-o', os.path.join(tmp, 'bad.png'), many)
check(r.returncode != 0 and 'matches no track' in r.stderr, 'a pattern that matches nothing says so')

# CSV of the samples round-trips through a CSV parser and matches `sample --mode time`.
out_csv = os.path.join(tmp, 'samples.csv')
r = run('export', '-o', out_csv, example)
rows = list(csv.reader(open(out_csv, newline='')))
check(rows[0] == ['track', 'index', 'time_s', 'weight', 'value', 'label'], 'CSV header')
check(len(rows) > 1000 and all(len(row) == 6 for row in rows), f'{len(rows) - 1} CSV rows of 6 fields')
r2 = run('sample', '--mode', 'time', example)
check(r2.stdout == open(out_csv).read(), 'export CSV equals `sample --mode time`')
weights = sum(int(row[3]) for row in rows[1:])
info = run('info', '--json', example)
import json
events = sum(t['events'] for t in json.loads(info.stdout)['tracks'])
check(weights == events, f'sample weights add up to the events of all tracks ({weights} = {events})')

# Errors: unwritable output exits 1 naming the file; an existing file survives a failed run.
keep = os.path.join(tmp, 'keep.png')
with open(keep, 'wb') as f:
    f.write(b'precious')
r = run('export', '-o', keep, os.path.join(tmp, 'missing-input.json'))
check(r.returncode == 1 and open(keep, 'rb').read() == b'precious', 'bad input leaves the existing output intact')
blocker = os.path.join(tmp, 'not-a-dir')
open(blocker, 'w').close()
bad = os.path.join(blocker, 'x.png')
r = run('export', '-o', bad, example)
check(r.returncode == 1 and r.stderr.startswith('timeslice: ') and bad in r.stderr,
      f'unwritable output exits 1 and names it ({r.stderr.strip()})')
r = run('export', '-o', os.path.join(tmp, 'x.gif'), example)
check(r.returncode == 2, 'unknown report type is a usage error')
r = run('export', '-o', png, '--size', '10x10', example)
check(r.returncode == 2, 'a too small --size is a usage error')
r = run('export', '-o', png, '--a', '2s..1s', example)
check(r.returncode == 2, 'an empty range is a usage error')

shutil.rmtree(tmp)
if failures:
    print(f'{len(failures)} checks failed')
    sys.exit(1)
