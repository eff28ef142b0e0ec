#!/usr/bin/env python3
# test-cli-limits.py: the command line at the edges of what it accepts
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# --k out of range is one usage error (exit 2) for every subcommand; "--"
# ends the options; a mistyped command is an unknown command even without a
# display; file names with a colon are file names; times near ±9.2e9 s (the
# ends of a gint64 in ns) give right spans and times; a range holding no data
# is a usage error naming it and the trace's span, one partly outside is
# clipped with a warning; a frame name holding ';' stays one frame in a
# .folded export; --part states its real limit; collapsed-stack counts up
# to 2^63-1 weigh what they say. Under the ASan build (build-aux/dev asan) the same runs
# also fail on any leak or undefined behaviour.

import csv
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

timeslice = os.environ.get('TSL_TIMESLICE', 'timeslice')
data = os.path.join(os.environ.get('G_TEST_SRCDIR', os.path.dirname(__file__) + '/..'), 'data')
collapsed = os.path.join(data, 'collapsed.txt')
counters = os.path.join(data, 'chrome', 'counters.json')
example = os.path.join(data, '..', '..', 'data', 'examples', 'example-trace.json')
limits = os.path.join(data, 'limits')
env = {k: v for k, v in os.environ.items() if k not in ('DISPLAY', 'WAYLAND_DISPLAY')}
failures = []


def check(name, cond, detail=''):
    print(('ok ' if cond else 'not ok ') + name + (f' # {detail}' if detail and not cond else ''))
    if not cond:
        failures.append(name)
    return cond


def run(*args, cwd=None):
    return subprocess.run([timeslice, *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=120)


def test_k(tmp):
    out = os.path.join(tmp, 'k.csv')
    commands = {
        'info': ('info',),
        'sample': ('sample',),
        'compare': ('compare', '--a', '0%..50%', '--b', '50%..100%'),
        'export': ('export', '-o', out),
        'export --flamegraph': ('export', '--flamegraph', '-o', os.path.join(tmp, 'k.svg')),
        'export .folded': ('export', '-o', os.path.join(tmp, 'k.folded')),
    }
    for label, args in commands.items():
        for k in ('0', '1000001', '536870911', '536870912'):
            r = run(*args, '--k', k, counters)
            check(f'{label} --k {k}: exit 2', r.returncode == 2, f'exit {r.returncode}: {r.stderr[:200]}')
            check(f'{label} --k {k}: says the bounds', '--k must be between 1 and 1000000' in r.stderr, r.stderr[:200])
        r = run(*args, '--k', '1000000', collapsed)
        check(f'{label} --k 1000000: accepted', r.returncode == 0, f'exit {r.returncode}: {r.stderr[:200]}')


def test_arguments(tmp):
    dash = os.path.join(tmp, '-dash.txt')
    shutil.copy(collapsed, dash)
    r = run('info', '--', '-dash.txt', cwd=tmp)
    check('info -- -dash.txt: exit 0', r.returncode == 0, r.stderr)
    check('info -- -dash.txt: reads it', 'File:     -dash.txt' in r.stdout, r.stdout[:200])
    r = run('sample', '--k', '10', '--', '-dash.txt', cwd=tmp)
    check('sample --k 10 -- -dash.txt: exit 0', r.returncode == 0, r.stderr)

    colon = 'trace-2024-01-01T12:30:00.json'
    shutil.copy(counters, os.path.join(tmp, colon))
    r = run('info', colon, cwd=tmp)
    check('info with a colon in the name: exit 0', r.returncode == 0, r.stderr)
    check('info with a colon in the name: read as Chrome JSON', 'chrome-json' in r.stdout, r.stdout[:200])

    r = run('frobnicate', colon, cwd=tmp)
    check('frobnicate FILE: exit 2', r.returncode == 2, f'exit {r.returncode}: {r.stderr}')
    check('frobnicate FILE: unknown command', 'unknown command “frobnicate”' in r.stderr, r.stderr)
    r = run('frobnicate', cwd=tmp)
    check('frobnicate: unknown command', r.returncode == 2 and 'unknown command' in r.stderr, r.stderr)
    # A file, even one named like a word, still opens the window: without a
    # display that fails, but not as an unknown command.
    word = os.path.join(tmp, 'mytrace')
    shutil.copy(collapsed, word)
    for arg in ('mytrace', colon):
        r = run(arg, cwd=tmp)
        check(f'timeslice {arg}: goes for the window', r.returncode != 0 and 'unknown command' not in r.stderr,
              f'exit {r.returncode}: {r.stderr[:200]}')


def test_extreme_times(tmp):
    trace = os.path.join(limits, 'chrome-times-at-limits.json')
    r = run('info', '--json', trace)
    check('times at ±9.1e9 s: info exit 0', r.returncode == 0, r.stderr)
    if r.returncode == 0:
        info = json.loads(r.stdout)
        check('times at ±9.1e9 s: span is 1.82e10 s', abs(info['span_s'] - 1.82e10) < 1, repr(info['span_s']))
    r = run('sample', trace)
    check('times at ±9.1e9 s: sample exit 0', r.returncode == 0, r.stderr)
    times = [float(line.split(',')[2]) for line in r.stdout.splitlines()[1:] if line.split(',')[2]]
    check('times at ±9.1e9 s: every time_s within 0..1.82e10', times and all(0 <= t <= 1.82e10 + 1 for t in times),
          repr(times))
    check('times at ±9.1e9 s: the counter spans the trace', min(times) == 0 and max(times) > 1.8e10, repr(times))
    r = run('compare', '--a', '0%..50%', '--b', '50%..100%', trace)
    check('times at ±9.1e9 s: compare exit 0', r.returncode == 0, r.stderr)
    for out in ('t.png', 't.folded', 'f.svg'):
        extra = ('--flamegraph',) if out == 'f.svg' else ()
        r = run('export', *extra, '--a', '0%..50%', '-o', os.path.join(tmp, out), trace)
        check(f'times at ±9.1e9 s: export {out} exit 0', r.returncode == 0, r.stderr)

    # A span over 2^63 ns wrapped: the report said "Span -541 d" and --view
    # resolved its range against a span of 1 ns (UBSan: signed overflow), so
    # "0%..2%" was "empty". The view's axis saturates at 2^63 ns, as the
    # timeline's does; both spans start 1e8 s after the first event (their
    # durations, over 292 years, are ignored with a warning).
    page = os.path.join(tmp, 'limits.html')
    r = run('export', '--report', '-o', page, trace)
    check('times at ±9.1e9 s: report exit 0', r.returncode == 0, r.stderr)
    span = re.search(r'Span</dt><dd>([^<]*)</dd>', open(page).read()) if r.returncode == 0 else None
    days = re.fullmatch(r'([0-9.e+]+) d', span.group(1)) if span else None
    check('times at ±9.1e9 s: the report\'s span is 1.82e10 s',
          days is not None and abs(float(days.group(1)) / (1.82e10 / 86400) - 1) < 1e-3, span and span.group(1))
    for view, names in (('0%..2%', ['early', 'x']), ('0%..1%', [])):
        out = os.path.join(tmp, 'limits-view.csv')
        r = run('export', '--view', view, '-o', out, trace)
        check(f'times at ±9.1e9 s: --view {view} exit 0', r.returncode == 0, r.stderr)
        rows = list(csv.DictReader(open(out))) if r.returncode == 0 else []
        check(f'times at ±9.1e9 s: --view {view} lists {names}', sorted(row['name'] for row in rows) == names,
              repr(rows))


def test_ranges(tmp):
    # counters.json spans 3 µs.
    outside = '1e10..1e11'
    cases = [
        ('compare', ('compare', '--a', outside, '--b', '0%..50%'), 'range A'),
        ('export png', ('export', '--a', outside, '-o', os.path.join(tmp, 'r.png')), outside),
        ('export --b png', ('export', '--b', outside, '-o', os.path.join(tmp, 'r.png')), outside),
        ('export .folded', ('export', '--a', outside, '-o', os.path.join(tmp, 'r.folded')), outside),
        ('export --flamegraph', ('export', '--flamegraph', '--a', outside, '-o', os.path.join(tmp, 'r.svg')), outside),
        ('export csv', ('export', '--a', outside, '--b', '0%..50%', '-o', os.path.join(tmp, 'r.csv')), 'range A'),
    ]
    for label, args, names in cases:
        r = run(*args, counters)
        check(f'{label}, range after the end: exit 2', r.returncode == 2, f'exit {r.returncode}: {r.stderr}')
        check(f'{label}, range after the end: names the range', names in r.stderr, r.stderr)
        check(f'{label}, range after the end: says the span', 'span is' in r.stderr and '3 µs' in r.stderr, r.stderr)
    check('no report written for an empty range', not any(os.path.exists(os.path.join(tmp, n))
                                                          for n in ('r.png', 'r.folded', 'r.svg', 'r.csv')))

    for label, args in (('export png', ('export', '--a', '1us..1s', '-o', os.path.join(tmp, 'p.png'))),
                        ('export .folded', ('export', '--a', '1us..1s', '-o', os.path.join(tmp, 'p.folded'))),
                        ('compare', ('compare', '--a', '1us..1s', '--b', '0%..50%'))):
        r = run(*args, counters)
        check(f'{label}, range partly after the end: exit 0', r.returncode == 0, r.stderr)
        check(f'{label}, range partly after the end: warns', 'warning:' in r.stderr and 'ends after the trace' in r.stderr,
              r.stderr)


def test_folded_names(tmp):
    trace = os.path.join(limits, 'chrome-semicolon-names.json')
    out = os.path.join(tmp, 'names.folded')
    r = run('export', '-o', out, trace)
    check('names with ";": export exit 0', r.returncode == 0, r.stderr)
    lines = open(out).read().splitlines() if r.returncode == 0 else []
    stacks = sorted(line.rsplit(' ', 1)[0] for line in lines)
    check('names with ";": one frame each, ";" written as ":"',
          stacks == ['main', 'main;plain', 'main;std::map<int:int>::at',
                     'main;std::map<int:int>::at;two lines:here'], repr(stacks))
    again = os.path.join(tmp, 'again.folded')
    r = run('export', '-o', again, out)
    check('names with ";": reading the export back gives it again',
          r.returncode == 0 and open(again).read() == open(out).read(), r.stderr)


def test_flame_one_range(tmp):
    # The subtitle of a one-range flame graph leaked (D10; the ASan build
    # reports it): both ranges, A only, B only, none.
    for label, extra in (('A', ('--a', '0%..50%')), ('B', ('--b', '50%..100%')), ('none', ()),
                         ('A and B', ('--a', '0%..50%', '--b', '50%..100%'))):
        r = run('export', '--flamegraph', *extra, '--rounds', '200', '-o', os.path.join(tmp, 'fl.svg'), example)
        check(f'flame graph, ranges {label}: exit 0', r.returncode == 0, r.stderr)
    r = run('export', '-o', os.path.join(tmp, 'whole.folded'), example)
    check('.folded of the whole trace: exit 0', r.returncode == 0, r.stderr)


def test_part_limit(tmp):
    # "--part 1/100000" was refused with "must be I/N with 1 ≤ I ≤ N", which
    # it is: the message must give the limit that refused it.
    for spec in ('1/100000', '65536/65536', '0/3', '4/3', 'x'):
        r = run('sample', '--state', '--mode', 'time', '--part', spec, '-o', os.path.join(tmp, 'p.tss'), counters)
        check(f'--part {spec}: exit 2', r.returncode == 2, f'exit {r.returncode}: {r.stderr}')
        check(f'--part {spec}: states the limit', 'N ≤ 65535' in r.stderr and spec in r.stderr, r.stderr)


def test_collapsed_counts(tmp):
    # Counts from 1e15 to 2^63-1 weighed 1, silently, and 2^64-2 was "not a
    # whole number of samples": each weighs what it says, and a count over
    # 2^63-1 weighs 2^63-1 with a warning (so a .folded export reads back).
    big = (1 << 63) - 1
    path = os.path.join(tmp, 'big.folded')
    with open(path, 'w') as f:
        f.write('main;a 1000000000000000\nmain;b 9223372036854775807\nmain;c 1\n'
                'main;d 18446744073709551614\nmain;e 1.5\nmain;f 000000000000000000000000000007\n')
    want = {'main;a': 10 ** 15, 'main;b': big, 'main;c': 1, 'main;d': big, 'main;f': 7}
    r = run('info', '--json', path)
    warnings = json.loads(r.stdout)['warnings'] if r.returncode == 0 else []
    check('big counts: info exit 0', r.returncode == 0, r.stderr)
    check('big counts: 2^64-2 is counted as 2^63-1, with a warning',
          any('count over 9223372036854775807 samples was counted as' in w for w in warnings), repr(warnings))
    check('big counts: 2^64-2 is not called a fraction', not any('18446744073709551614' in w for w in warnings),
          repr(warnings))
    check('big counts: 1.5 is still refused', any('“1.5” is not a whole number' in w for w in warnings),
          repr(warnings))
    for label, extra in (('whole trace', ()), ('range A', ('--a', '0%..100%'))):
        out = os.path.join(tmp, 'big-out.folded')
        r = run('export', *extra, '-o', out, path)
        check(f'big counts, .folded of the {label}: exit 0', r.returncode == 0, r.stderr)
        got = dict(line.rsplit(' ', 1) for line in open(out).read().splitlines()) if r.returncode == 0 else {}
        check(f'big counts, .folded of the {label}: each stack weighs its count',
              {k: int(v) for k, v in got.items()} == want, repr(got))
    r = run('info', '--json', out)
    check('big counts: the .folded reads back without a warning',
          r.returncode == 0 and not any('count over' in w for w in json.loads(r.stdout)['warnings']), r.stdout)
    flame = os.path.join(tmp, 'big-flame.csv')
    r = run('export', '--flamegraph', '-o', flame, path)
    rows = {row['call_path']: row for row in csv.DictReader(open(flame))} if r.returncode == 0 else {}
    check('big counts, flame graph CSV: weights are the counts',
          rows and all(float(rows[k]['self_weight']) == float(v) for k, v in want.items()), repr(rows))
    r = run('export', '--flamegraph', '--a', '0%..50%', '--b', '50%..100%', '-o', flame, path)
    rows = {row['call_path']: row for row in csv.DictReader(open(flame))} if r.returncode == 0 else {}
    check('big counts, differential flame graph: b is all but all of A',
          rows and float(rows['main;b']['a_share']) > 0.9998, repr(rows.get('main;b')))


def main():
    with tempfile.TemporaryDirectory() as tmp:
        test_k(tmp)
        test_arguments(tmp)
        test_extreme_times(tmp)
        test_ranges(tmp)
        test_folded_names(tmp)
        test_flame_one_range(tmp)
        test_part_limit(tmp)
        test_collapsed_counts(tmp)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
