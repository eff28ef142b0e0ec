#!/usr/bin/env python3
# test-csv-injection.py: trace names cannot become spreadsheet formulas
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Thread, function and counter names starting with =, +, -, @, a tab or '
# were written as they are into the CSVs (`export --view`, `--flows`, the
# flame graph's call tree, `compare`, `compare --a` alone, `sample`), and a
# spreadsheet opening them ran the formulas. Such a cell now starts with a
# ', RFC 4180 quoting still applies, and dropping one leading ' from a cell
# that has one gives the name back (a name starting with ' gets another).

import csv
import io
import json
import os
import subprocess
import sys
import tempfile

timeslice = os.environ.get('TSL_TIMESLICE', 'timeslice')
env = {k: v for k, v in os.environ.items() if k not in ('DISPLAY', 'WAYLAND_DISPLAY')}
failures = []

THREADS = {2: '=cmd|calc', 3: '@at', 4: "'tick", 5: 'main'}
FUNCTIONS = {2: ('-neg', '=1+2'), 3: ('+plus', 'ok'), 4: ('=HYPERLINK("http://x","y")', 'ok'),
             5: ('run', '\tTab')}
COUNTER = '=ctr'
DANGEROUS = ('=', '+', '-', '@', '\t', '\r')


def check(name, cond, detail=''):
    print(('ok ' if cond else 'not ok ') + name + (f' # {detail}' if detail and not cond else ''))
    if not cond:
        failures.append(name)


def run(*args):
    return subprocess.run([timeslice, *args], capture_output=True, text=True, env=env, timeout=120)


def make_trace(path):
    events = [{'ph': 'M', 'name': 'thread_name', 'pid': 1, 'tid': tid, 'args': {'name': name}}
              for tid, name in THREADS.items()]
    for i in range(40):
        for tid, (outer, inner) in FUNCTIONS.items():
            events.append({'ph': 'X', 'name': outer, 'ts': i * 100, 'dur': 80, 'pid': 1, 'tid': tid})
            events.append({'ph': 'X', 'name': inner, 'ts': i * 100 + 10, 'dur': 30 + i % 7,
                           'pid': 1, 'tid': tid})
        events.append({'ph': 'C', 'name': COUNTER, 'ts': i * 100, 'pid': 1, 'args': {'v': i % 5}})
        # A flow from thread 2 to thread 3 for --flows.
        events.append({'ph': 's', 'name': 'f', 'id': i, 'ts': i * 100 + 20, 'pid': 1, 'tid': 2})
        events.append({'ph': 'f', 'name': 'f', 'id': i, 'ts': i * 100 + 30, 'bp': 'e', 'pid': 1, 'tid': 3})
    with open(path, 'w') as f:
        json.dump({'traceEvents': events}, f)


def name_back(cell):
    return cell[1:] if cell.startswith("'") else cell


def check_cells(label, text, columns, expect):
    """Every cell of `columns` is neutralised and reads back as a name that
    `expect(column, name)` accepts; returns the names read back."""
    rows = list(csv.DictReader(io.StringIO(text)))
    check(f'{label}: has rows', len(rows) > 0, text[:200])
    got, formulas, strangers, wrong = set(), set(), set(), set()
    for row in rows:
        for column in columns:
            cell = row[column]
            if cell == '':
                continue
            name = name_back(cell)
            if cell.startswith(DANGEROUS):
                formulas.add(cell)
            if not expect(column, name):
                strangers.add(cell)
            if cell != ("'" + name if name.startswith(DANGEROUS + ("'",)) else name):
                wrong.add(cell)
            got.add(name)
    check(f'{label}: no cell is a formula', not formulas, repr(sorted(formulas)))
    check(f'{label}: every cell reads back as a name', not strangers, repr(sorted(strangers)))
    check(f'{label}: one \' added exactly where needed', not wrong, repr(sorted(wrong)))
    return got


def main():
    threads = set(THREADS.values())
    functions = {f for pair in FUNCTIONS.values() for f in pair}
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, 'names.json')
        make_trace(trace)

        view = os.path.join(tmp, 'view.csv')
        r = run('export', '--view', '0%..100%', '-o', view, trace)
        check('--view: exit 0', r.returncode == 0, r.stderr)
        got = check_cells('--view', open(view, newline='').read(), ('track', 'name'),
                          lambda col, name: name in (threads if col == 'track' else functions))
        check('--view: every name read back', threads | functions <= got, repr(got))

        flows = os.path.join(tmp, 'flows.csv')
        r = run('export', '--view', '0%..100%', '--flows', '-o', flows, trace)
        check('--flows: exit 0', r.returncode == 0, r.stderr)
        check_cells('--flows', open(flows, newline='').read(),
                    ('from_track', 'from_name', 'to_track', 'to_name'),
                    lambda col, name: name in (threads if col.endswith('track') else functions))

        flame = os.path.join(tmp, 'flame.csv')
        r = run('export', '--flamegraph', '-o', flame, trace)
        check('flame graph CSV: exit 0', r.returncode == 0, r.stderr)
        got = check_cells('flame graph CSV', open(flame, newline='').read(), ('call_path',),
                          lambda col, name: all(f in functions for f in name.split(';')))
        check('flame graph CSV: a path starting with a formula', '=HYPERLINK("http://x","y")' in got, repr(got))

        r = run('compare', '--a', '0%..50%', '--b', '50%..100%', trace)
        check('compare: exit 0', r.returncode == 0, r.stderr)
        got = check_cells('compare', r.stdout, ('series', 'unit'),
                          lambda col, name: col == 'unit' or name == COUNTER or
                          name.split('/', 1)[0] in threads)
        check('compare: every thread read back', threads <= {n.split('/', 1)[0] for n in got}, repr(got))

        r = run('compare', '--a', '0%..100%', trace)
        check('compare --a: exit 0', r.returncode == 0, r.stderr)
        check_cells('compare --a', r.stdout, ('track', 'name'),
                    lambda col, name: name in (threads | {COUNTER} if col == 'track' else functions))

        r = run('sample', trace)
        check('sample: exit 0', r.returncode == 0, r.stderr)
        check_cells('sample', r.stdout, ('track', 'label'),
                    lambda col, name: name in threads | {COUNTER} if col == 'track'
                    else all(f in functions for f in name.split(';')))

    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
