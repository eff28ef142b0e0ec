#!/usr/bin/env python3
# test-bad-inputs.py: `timeslice info --json` on every file of tests/data/bad/
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Each file must either be refused (exit 1, stderr "timeslice: FILE:LINE:COLUMN:
# message") or read (exit 0, valid JSON, the expected warning), as
# tests/data/bad/EXPECTED says; never a crash, a signal or a hang. A 20 MB
# single line and 100,000-deep nesting are generated here, and stray '}'s. Damaged zstd reads
# the same through a pipe that delivers it in two pieces as from the file.

import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time

timeslice = os.environ.get('TSL_TIMESLICE', 'timeslice')
bad = os.path.join(os.environ.get('G_TEST_SRCDIR', os.path.dirname(__file__) + '/..'), 'data', 'bad')
failures = []


def check(name, cond, detail=''):
    print(('ok ' if cond else 'not ok ') + name + (f' # {detail}' if detail and not cond else ''))
    if not cond:
        failures.append(name)


def expect(directory, name, status, message):
    try:
        proc = subprocess.run([timeslice, 'info', '--json', name], cwd=directory,
                              capture_output=True, timeout=120)
    except subprocess.TimeoutExpired:
        check(f'{name}: finishes', False, 'hung for 120 s')
        return
    err = proc.stderr.decode('utf-8', 'replace')
    if proc.returncode != status:
        check(f'{name}: exit {status}', False, f'exit {proc.returncode}: {err[:300]}')
        return
    if status == 1:
        ok = re.match(r'timeslice: ' + re.escape(name) + r':\d+:\d+: ', err) is not None
        check(f'{name}: FILE:LINE:COLUMN', ok, err)
        check(f'{name}: says "{message}"', message is None or message in err, err)
        return
    try:
        got = json.loads(proc.stdout)
    except ValueError as e:
        check(f'{name}: valid JSON', False, str(e))
        return
    warnings = got.get('warnings', [])
    check(f'{name}: warns "{message}"',
          message is None or any(message in w for w in warnings), repr(warnings))


def generated(directory):
    depth = 100000
    head = '[{"ph":"X","ts":1,"dur":2,"name":"a","pid":1,"tid":1,"args":{"a":'
    tail = '}},{"ph":"X","ts":5,"dur":2,"name":"b","pid":1,"tid":1}]'
    files = {
        'deep-array.json': (head + '[' * depth + ']' * depth + tail, 0, None),
        'deep-object.json': (head + '{"a":' * depth + '1' + '}' * depth + tail, 0, None),
        'deep-unclosed.json': (head + '[' * depth, 1, 'ends inside an event'),
        'deep.speedscope.json': ('{"$schema":"https://www.speedscope.app/file-format-schema.json",'
                                 '"shared":{"frames":[{"name":"a","x":' + '[' * depth + ']' * depth +
                                 '}]},"profiles":[]}', 1, 'nothing to show'),
    }
    events = []
    size = 0
    i = 0
    while size < 20 * 1024 * 1024:
        e = '{"ph":"X","ts":%d,"dur":2,"name":"n%d","pid":1,"tid":%d}' % (i, i % 997, i % 4)
        events.append(e)
        size += len(e) + 1
        i += 1
    files['huge-line.json'] = ('[' + ','.join(events) + ']', 0, None)
    files['huge-name.json'] = ('[{"ph":"X","ts":1,"dur":2,"pid":1,"tid":1,"name":"' +
                               'abcdefghijklmnopqrstuvwxyz' * (20 * 1024 * 1024 // 26) + '"}]', 0,
                               'names longer than 16384 bytes were cut')
    # A single 20 MB line that is not JSON: the sniffer waits for its end and
    # tells a collapsed stack from the whole line (its frame is cut).
    files['huge-line.txt'] = ('main;' + 'x' * (20 * 1024 * 1024) + ' 5\n', 0,
                              'names longer than 16384 bytes were cut')
    for name, (text, status, message) in files.items():
        with open(os.path.join(directory, name), 'w') as f:
            f.write(text)
        expect(directory, name, status, message)

    proc = subprocess.run([timeslice, 'info', '--json', 'huge-line.json'], cwd=directory,
                          capture_output=True, timeout=120)
    check('huge line: every event read', json.loads(proc.stdout)['events'] == i)

    # Issue 16 D12: the 20 MB name is cut before it is stored or laid out; an
    # SVG export took 27 times the name (540 MB here). ru_maxrss of the
    # children is the largest child's peak; none before this one nears it.
    proc = subprocess.run([timeslice, 'export', '-o', 'huge-name.svg', 'huge-name.json'],
                          cwd=directory, capture_output=True, timeout=120)
    peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    check('huge name: exported', proc.returncode == 0, proc.stderr.decode('utf-8', 'replace')[:300])
    check('huge name: export peak RSS under 160 MiB', peak_mib < 160, f'{peak_mib:.0f} MiB')


def info_json(args, **kw):
    proc = subprocess.run([timeslice, 'info', '--json', *args], capture_output=True, timeout=120, **kw)
    return json.loads(proc.stdout) if proc.returncode == 0 else {'exit': proc.returncode,
                                                                 'stderr': proc.stderr.decode()[:300]}


def stray_braces(directory):
    """A stray '}' after an event failed the whole file ("expected ',' or
    ']' after an event"): the events around it are kept and it is warned
    about, in both forms, from a pipe, and on every core of a big file."""
    got = info_json([os.path.join(bad, 'chrome-stray-brace.json')])
    check('stray }: the 5 events before it kept', got.get('events') == 5, repr(got))
    with open(os.path.join(bad, 'chrome-stray-brace.json'), 'rb') as f:
        got = info_json(['-'], stdin=f)
    check('stray }: the same from a pipe', got.get('events') == 5, repr(got))

    event = '{"ph":"X","ts":%d,"dur":2,"name":"n%d","pid":1,"tid":%d}'
    for name, text, n in (
            ('stray-object.json', '{"traceEvents":[' + event % (1, 1, 1) + '}]}', 1),
            ('stray-middle.json', '[' + event % (1, 1, 1) + '}}, ' + event % (2, 2, 1) + ']', 2)):
        path = os.path.join(directory, name)
        with open(path, 'w') as f:
            f.write(text)
        got = info_json([path])
        check(f'{name}: {n} events kept', got.get('events') == n, repr(got))
        check(f'{name}: warned', any("ignored a '}' after an event" in w for w in got.get('warnings', [])),
              repr(got))

    # 8 MB with a stray '}' every 100,000 events: the parallel scanners stop
    # there and the one-thread loop goes on, as one thread alone does.
    events = []
    for i in range(200000):
        events.append(event % (i, i % 97, i % 3) + ('}' if i % 100000 == 50000 else ''))
    path = os.path.join(directory, 'stray-big.json')
    with open(path, 'w') as f:
        f.write('[' + ',\n'.join(events) + ']')
    one = info_json([path], env=dict(os.environ, TSL_READER_THREADS='1'))
    check('stray } in a big file: every event kept', one.get('events') == 200000, repr(one)[:300])
    check('stray } in a big file: both warned', sum("ignored a '}'" in w for w in one.get('warnings', [])) == 2,
          repr(one.get('warnings')))
    for label, extra in (('4 threads', {'TSL_READER_THREADS': '4'}),
                         ('the two-thread pipe, every buffer split', {'TSL_READER_THREADS': 'eager'}),
                         ('random cuts', {'TSL_READER_THREADS': '4', 'TSL_READER_SPLIT_SEED': '7'})):
        got = info_json([path], env=dict(os.environ, **extra))
        check(f'stray }} in a big file, {label}: what one thread reads', got == one, repr(got)[:300])


def split_pipe(name, cut):
    path = os.path.join(bad, name)
    whole = subprocess.run([timeslice, 'info', '--json', path], capture_output=True, timeout=120)
    data = open(path, 'rb').read()
    proc = subprocess.Popen([timeslice, 'info', '--json', '-'], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdin.write(data[:cut])
    proc.stdin.flush()
    time.sleep(0.3)
    proc.stdin.write(data[cut:])
    proc.stdin.close()
    out = proc.stdout.read()
    proc.wait(timeout=120)
    check(f'{name} cut at {cut} through a pipe: the exit status of the file', proc.returncode == whole.returncode,
          f'{proc.returncode} != {whole.returncode}')
    if proc.returncode == 0 and whole.returncode == 0:
        a, b = json.loads(whole.stdout), json.loads(out)
        check(f'{name} cut at {cut} through a pipe: the events of the file', a['events'] == b['events'],
              f"{b['events']} != {a['events']}")


def main():
    n = 0
    with open(os.path.join(bad, 'EXPECTED')) as f:
        for line in f:
            line = line.rstrip('\n')
            if not line or line.startswith('#'):
                continue
            name, status, message = line.split(' ', 2)
            expect(bad, name, int(status), None if message == '-' else message)
            n += 1
    check('at least 40 bad inputs', n >= 40, str(n))
    check('every file is listed', sorted(os.listdir(bad)) == sorted(
        [l.split(' ')[0] for l in open(os.path.join(bad, 'EXPECTED')) if l.strip() and not l.startswith('#')]
        + ['EXPECTED']))

    for cut in (5, 100, 150):
        split_pipe('zstd-raw-block-then-damage.zst', cut)

    with tempfile.TemporaryDirectory() as directory:
        generated(directory)
        stray_braces(directory)

    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
