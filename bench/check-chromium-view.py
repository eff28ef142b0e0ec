#!/usr/bin/env python3
# bench/check-chromium-view.py: a real recording's zoomed view draws every level and every open span
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Usage: bench/check-chromium-view.py [--timeslice PATH] [--keep DIR] TRACE...
# For each trace (a recording of bench/record-chromium.sh, JSON or proto):
# takes its busiest thread (most events), the window of 1 % of the trace's
# span holding most of that thread's slices, and `export --view` of that
# window for that thread only, as CSV, SVG and PNG; then the same for the
# thread with most spans that never close, 1 % of the span between the
# median of their starts and the trace's end. Then checks:
#   - every slice in the CSV is exact ("exact: every slice of the view");
#   - the SVG draws slice cells in exactly max depth + 1 distinct rows;
#   - the PNG shows exactly max depth + 1 bands of slice pixels (cells are
#     14 px in rows of 15, so neighbouring rows stay apart);
#   - every slice that starts before the view or ends after it (open at an
#     edge: still running, or never closed) is drawn to that edge in its row.
# Prints one line per check and exits 1 if any fails. Needs the recordings,
# which are not in the repository (record them with bench/record-chromium.sh),
# hence a script here rather than a unit test. Needs ImageMagick's `convert`
# for the PNG.
import argparse
import bisect
import csv
import json
import os
import re
import subprocess
import sys
import tempfile

failures = []


def check(name, cond, detail=''):
    print(('ok ' if cond else 'not ok ') + name + ('' if cond or not detail else f' # {detail}'))
    if not cond:
        failures.append(name)


def run(timeslice, *args):
    env = dict(os.environ, TSL_CACHE_MAX_BYTES='0')
    proc = subprocess.run([timeslice, *args], capture_output=True, env=env, timeout=600)
    if proc.returncode != 0:
        sys.exit(f'{timeslice} {" ".join(args)}: {proc.stderr.decode()}')
    return proc.stdout


def svg_cells(path):
    """Filled rectangles of a cairo SVG (outside the glyph definitions)."""
    svg = open(path).read()
    body = svg[svg.index('</defs>'):] if '</defs>' in svg else svg
    cells = []
    for style, d in re.findall(r'<path style="([^"]*)" d="([^"]*)"', body):
        if 'fill:rgb' not in style:
            continue
        for sub in re.findall(r'M ([^MZ]*)Z', d):
            nums = [float(x) for x in re.findall(r'-?[0-9.]+(?:e-?[0-9]+)?', sub)]
            xs, ys = nums[0::2], nums[1::2]
            cells.append((min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys)))
    return cells


def png_bands(path, left, right, top, bottom):
    """Runs of pixel rows in [top, bottom) with saturated (slice) pixels
    between x = left and right: background, grid and text are grey."""
    ppm = subprocess.run(['convert', path, 'ppm:-'], capture_output=True, check=True).stdout
    magic, size, maxval, pixels = ppm.split(b'\n', 3)
    width, height = (int(v) for v in size.split())
    rows = []
    for y in range(top, min(bottom, height)):
        line = pixels[(y * width + int(left) + 1) * 3:(y * width + int(right) - 1) * 3]
        rows.append(any(max(line[i:i + 3]) - min(line[i:i + 3]) > 40 for i in range(0, len(line), 3)))
    bands, inside = 0, False
    for has in rows:
        if has and not inside:
            bands += 1
        inside = has
    return bands


def check_view(timeslice, trace, out, info, thread, v0, v1, label):
    """export --view of [v0, v1) s for `thread` only, as CSV, SVG and PNG, checked."""
    name = f'{os.path.basename(trace)} ({label})'
    pattern = thread['name']
    view = f'{v0:.6f}..{v1:.6f}'
    stem = os.path.join(out, f'{os.path.basename(trace)}-{label.split()[0]}')
    files = {ext: f'{stem}.{ext}' for ext in ('csv', 'svg', 'png')}
    for path in files.values():
        run(timeslice, 'export', '--view', view, '--tracks', pattern, '-o', path, trace)
    slices = [r for r in csv.DictReader(open(files['csv'])) if r['track'] == pattern]
    depth = max(int(r['depth']) for r in slices)
    # The CSV writes times rounded to the µs: an edge within it counts as the edge.
    left_open = [r for r in slices if float(r['start_s']) < v0 - 1e-6]
    right_open = [r for r in slices if float(r['end_s']) > v1 + 1e-6]
    never_closed = sum(r['open'] == 'true' for r in slices)
    print(f'# {name}: {info["format"]}, {pattern} (pid {thread["pid"]}, {thread["events"]} events), '
          f'view {view} s of {info["span_s"]:.3f} s: {len(slices)} slices, max depth {depth}, '
          f'{len(left_open)} open at the left edge, {len(right_open)} at the right, {never_closed} never closed')

    check(f'{name}: every slice in view is exact', all(r['exact'] == 'true' for r in slices))

    cells = [c for c in svg_cells(files['svg']) if 10 <= c[3] <= 15]
    plot_left = min(c[0] for c in cells)
    plot_right = max(c[0] + c[2] for c in cells)
    tops = sorted({round(c[1]) for c in cells})
    check(f'{name}: SVG rows drawn = max depth + 1', len(tops) == depth + 1, f'{len(tops)} rows, depth {depth}')
    rows_y = {d: tops[0] + 15 * d for d in range(depth + 1)}
    check(f'{name}: SVG rows are one per level, 15 px apart', tops == list(rows_y.values()), tops[:6])

    def drawn_to(row, edge):
        y = rows_y[int(row['depth'])]
        return any(abs(round(c[1]) - y) <= 1 and
                   (c[0] <= plot_left + 1 if edge == 'left' else c[0] + c[2] >= plot_right - 1)
                   for c in cells)

    check(f'{name}: every span open at the left edge is drawn from it', all(drawn_to(r, 'left') for r in left_open),
          [r['name'] for r in left_open if not drawn_to(r, 'left')][:5])
    check(f'{name}: every span open at the right edge is drawn to it', all(drawn_to(r, 'right') for r in right_open),
          [r['name'] for r in right_open if not drawn_to(r, 'right')][:5])

    bands = png_bands(files['png'], plot_left, plot_right, tops[0] - 2, tops[-1] + 16)
    check(f'{name}: PNG rows drawn = max depth + 1', bands == depth + 1, f'{bands} bands, depth {depth}')


def check_trace(timeslice, trace, keep):
    info = json.loads(run(timeslice, 'info', '--json', trace))
    span = info['span_s']
    out = keep or tempfile.mkdtemp(prefix='tsl-chromium-view-')
    whole = os.path.join(out, f'{os.path.basename(trace)}-whole.csv')
    run(timeslice, 'export', '--view', '0%..100%', '-o', whole, trace)
    slices = list(csv.DictReader(open(whole)))
    # --tracks picks tracks by name: only threads whose name is theirs alone.
    names = [t['name'] for t in info['tracks']]
    threads = {t['name']: t for t in info['tracks'] if t['kind'] == 'thread' and names.count(t['name']) == 1}

    # The busiest thread, at the 1 % of the span holding most of its slices.
    busiest = max(threads.values(), key=lambda t: t['events'])
    starts = sorted(float(r['start_s']) for r in slices if r['track'] == busiest['name'])
    width = span / 100
    first = max(range(len(starts)), key=lambda i: bisect.bisect_left(starts, starts[i] + width) - i)
    check_view(timeslice, trace, out, info, busiest, starts[first], starts[first] + width, 'busiest thread')

    # The thread with most spans that never close, 1 % of the span halfway
    # from the median of their starts to the trace's end: most of them
    # cross both edges.
    never = {}
    for r in slices:
        if r['open'] == 'true' and r['track'] in threads:
            never.setdefault(r['track'], []).append(float(r['start_s']))
    if never:
        track = max(never, key=lambda k: len(never[k]))
        median = sorted(never[track])[len(never[track]) // 2]
        middle = min((median + span) / 2, span - width / 2)
        check_view(timeslice, trace, out, info, threads[track], middle - width / 2, middle + width / 2,
                   'never-closed spans')


def main():
    parser = argparse.ArgumentParser(description='Check the zoomed view of real Chromium recordings.')
    parser.add_argument('--timeslice', default=os.path.join(os.path.dirname(__file__), '..', '_build', 'app', 'timeslice'))
    parser.add_argument('--keep', help='write the exports here and keep them')
    parser.add_argument('traces', nargs='+')
    args = parser.parse_args()
    for trace in args.traces:
        check_trace(args.timeslice, trace, args.keep)
    print(f'# {len(failures)} failed' if failures else '# all passed')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
