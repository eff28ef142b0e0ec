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
# file and from a pipe (small reads, so many drains).

import os
import subprocess
import sys

corpus = os.environ.get('TSL_CORPUS_DIR', '')
timeslice = os.environ.get('TSL_TIMESLICE', 'timeslice')
srcdir = os.environ.get('G_TEST_SRCDIR', os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run(args, threads, stdin=None):
    env = dict(os.environ, TSL_READER_THREADS=threads)
    proc = subprocess.run([timeslice] + args, env=env, input=stdin, capture_output=True, timeout=120)
    return proc.returncode, proc.stdout, proc.stderr


def inputs():
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
    for path in inputs():
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

    for failure in failures:
        print('FAIL', failure)
    print('%d inputs (%d with Chrome events) compared, %d differ' % (n, chrome, len(failures)))
    if chrome < 5:
        print('FAIL: too few Chrome inputs found; is G_TEST_SRCDIR right?')
        return 1
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
