#!/usr/bin/env python3
# test-threads.py: the two-thread Chrome reader gives what the one-thread one does
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# With TSL_READER_THREADS=eager the Chrome reader models events on a second
# thread from the first event on (by default only after several MiB). Every
# corpus file, every fixture and every bad input must give byte-identical
# `timeslice sample` output (every kept sample, its value and stack label),
# `info --json` and exit status either way, in count and time mode, from a
# file and from a pipe (small reads, so many drains). "eager" also splits
# every buffer's scan between the threads at a guessed event boundary, so
# generated traces whose nested arrays and strings mislead that guess are
# read too.

import os
import random
import subprocess
import sys
import tempfile

corpus = os.environ.get('TSL_CORPUS_DIR', '')
timeslice = os.environ.get('TSL_TIMESLICE', 'timeslice')
srcdir = os.environ.get('G_TEST_SRCDIR', os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run(args, threads, stdin=None):
    env = dict(os.environ, TSL_READER_THREADS=threads)
    proc = subprocess.run([timeslice] + args, env=env, input=stdin, capture_output=True, timeout=120)
    return proc.returncode, proc.stdout, proc.stderr


def tricky(rng, n, form):
    """Events whose bytes mislead a guess at event boundaries: nested arrays
    of objects and strings holding '},{', plus spans, counters, instants."""
    out = []
    ts = 0
    depth = 0
    for i in range(n):
        ts += rng.randint(1, 50)
        kind = rng.random()
        tid = rng.randint(1, 3)
        if kind < 0.2:
            args = ('{"frames": [{"a": %d},%s{"b": [{"c": 2},{"d": "x},{y"}]}],\n "s": "}, {\\"q\\": 1}"}'
                    % (i, rng.choice([' ', '\n'])))
            out.append('{"ph": "X", "ts": %d, "dur": %d, "pid": 1, "tid": %d, "name": "n%d", "args": %s}'
                       % (ts, rng.randint(0, 40), tid, i % 9, args))
        elif kind < 0.45 and depth < 6:
            depth += 1
            out.append('{"ph": "B", "ts": %d, "pid": 1, "tid": 1, "name": "s%d"}' % (ts, i % 5))
        elif kind < 0.6 and depth > 0:
            depth -= 1
            out.append('{"ph": "E", "ts": %d, "pid": 1, "tid": 1}' % ts)
        elif kind < 0.7:
            out.append('{"ph": "C", "ts": %d, "pid": 2, "name": "mem", "args": {"a": %d, "b": %d}}'
                       % (ts, rng.randint(0, 99), i))
        else:
            out.append('{"ph": "i", "ts": %d, "pid": 1, "tid": %d, "name": "tick", "s": "t"}' % (ts, tid))
    seps = [',', ',\n', ' , ', ',{},'.replace('{}', '{"ph": "i", "ts": 1, "pid": 3, "tid": 3}')]
    body = ''.join(e + rng.choice(seps) for e in out[:-1]) + out[-1]
    if form == 'array':
        return '[' + body + ']'
    if form == 'object':
        return ('{"traceEvents": [' + body + '], "samples": [{"cpu": 0, "tid": 1, "ts": 5, "sf": 1}],'
                ' "stackFrames": {"1": {"name": "root"}}}')
    if form == 'odd':
        # Non-objects and a trailing comma among the events, then the end cut off.
        return '[' + body.replace(out[n // 2], '1, "x", null, ' + out[n // 2]) + ',]'
    if form == 'error':
        return '[' + body.replace(out[n * 3 // 4], '{"ph": "X", "ts": }') + ']'
    return '[' + body[:len(body) * 2 // 3]


def generated(tmp):
    rng = random.Random(4)
    for form in ('array', 'object', 'odd', 'error', 'cut'):
        path = os.path.join(tmp, 'tricky-%s.json' % form)
        with open(path, 'w') as f:
            f.write(tricky(rng, 12000, form))
        yield path


def inputs(tmp):
    yield from generated(tmp)
    roots = [os.path.join(srcdir, 'data'), os.path.join(srcdir, '..', 'data', 'examples')]
    if corpus and os.path.isdir(corpus):
        roots.append(corpus)
    elif os.environ.get('CI'):
        sys.exit('corpus not found at %r' % corpus)
    for root in roots:
        for dirpath, _, names in os.walk(root):
            for name in sorted(names):
                if name.endswith(('.md', '.py')) or name in ('facts.json', 'EXPECTED'):
                    continue
                yield os.path.join(dirpath, name)


def main():
    failures = []
    n = 0
    chrome = 0
    tmp = tempfile.mkdtemp(prefix='tsl-threads-')
    for path in inputs(tmp):
        n += 1
        runs = [['info', '--json', path],
                ['sample', '--k=20', '--mode=count', path],
                ['sample', '--k=20', '--mode=time', path]]
        for args in runs:
            if run(args, '0') != run(args, 'eager'):
                failures.append('%s: %s differs with a second thread' % (' '.join(args[:-1]), path))
        with open(path, 'rb') as f:
            data = f.read()
        args = ['sample', '--k=20', '-']
        if run(args, '0', data) != run(args, 'eager', data):
            failures.append('sample from a pipe: %s differs with a second thread' % path)
        if b'"ph"' in data[:65536]:
            chrome += 1

    for name in os.listdir(tmp):
        os.unlink(os.path.join(tmp, name))
    os.rmdir(tmp)
    for failure in failures:
        print('FAIL', failure)
    print('%d inputs (%d with Chrome events) compared, %d differ' % (n, chrome, len(failures)))
    if chrome < 5:
        print('FAIL: too few Chrome inputs found; is G_TEST_SRCDIR right?')
        return 1
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
