#!/usr/bin/env python3
# test-parallel.py: a regular file read on N threads gives what one thread gives
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# The Chrome reader scans a regular file's buffers on every core
# (TSL_READER_THREADS=N) and models them in order. For every corpus file,
# every fixture, generated unsorted traces (bench/gen-chrome.py) and traces
# made to mislead a guess at event starts (test-threads.py's), N = 2, 3 and
# 4 with TSL_READER_SPLIT_SEED (every buffer cut at random places from the
# first event) must give byte-identical `sample --state` output, identical
# `info --json`, exit status and messages, and a byte-identical chunk index
# in the cache, to one thread; the generated traces are also read with the
# default cuts. The reader's debug log counts the segments and the wrong
# guesses among them, which must both be many.

import glob
import importlib.util
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

corpus = os.environ.get('TSL_CORPUS_DIR', '')
timeslice = os.environ.get('TSL_TIMESLICE', 'timeslice')
srcdir = os.environ.get('G_TEST_SRCDIR', os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
bench = os.path.join(srcdir, '..', 'bench')

spec = importlib.util.spec_from_file_location('threads', os.path.join(srcdir, 'unit', 'test-threads.py'))
threads_test = importlib.util.module_from_spec(spec)
spec.loader.exec_module(threads_test)

SEGMENTS = re.compile(rb'(\d+) segments scanned on \d+ threads \(\d+ by the modelling one\), '
                      rb'(\d+) of them cut at a wrong guess')


def read(tmp, path, threads, seed):
    """(what must match, segments, wrong guesses) of one read on `threads`.
    Random cuts come with small index chunks (many checkpoints to compare);
    the default cuts need the default chunks (a chunk is a parse call)."""
    cache = tempfile.mkdtemp(prefix='cache-', dir=tmp)
    env = dict(os.environ, TSL_READER_THREADS=str(threads), XDG_CACHE_HOME=cache,
               TSL_CACHE_MAX_BYTES=str(1 << 30), G_MESSAGES_DEBUG='tsl-reader')
    if seed != 'default':
        env['TSL_INDEX_CHUNK_BYTES'] = '65536'
    env.pop('TSL_READER_SPLIT_SEED', None)
    if seed not in (None, 'default'):
        env['TSL_READER_SPLIT_SEED'] = str(seed)
    state = os.path.join(tmp, 'out.tss')
    if os.path.exists(state):
        os.unlink(state)
    proc = subprocess.run([timeslice, 'sample', '--state', '-o', state, path], env=env,
                          capture_output=True, timeout=300)
    found = SEGMENTS.search(proc.stdout)
    segments, wrong = (int(found.group(1)), int(found.group(2))) if found else (0, 0)
    state_bytes = open(state, 'rb').read() if os.path.exists(state) else None
    index = b''.join(open(f, 'rb').read()
                     for f in sorted(glob.glob(os.path.join(cache, 'timeslice', 'index-*'))))
    env.pop('G_MESSAGES_DEBUG')
    env['TSL_CACHE_MAX_BYTES'] = '0'
    info = subprocess.run([timeslice, 'info', '--json', path], env=env, capture_output=True,
                          timeout=300)
    shutil.rmtree(cache)
    stdout = b''.join(line for line in proc.stdout.splitlines(True) if b'-DEBUG: ' not in line)
    result = (proc.returncode, stdout, proc.stderr, state_bytes, index,
              info.returncode, info.stdout, info.stderr)
    return result, segments, wrong


def differing(base, many, path, threads, seed):
    """A failure line naming what of read()'s result differs, or None."""
    if many == base:
        return None
    what = [name for name, a, b in zip(('status', 'stdout', 'stderr', 'state', 'index',
                                        'info status', 'info', 'info stderr'), base, many)
            if a != b]
    return '%s: %s differ on %d threads (split seed %s)' % (path, ', '.join(what), threads, seed)


def generated(tmp):
    for form in ('object', 'array'):
        path = os.path.join(tmp, 'gen-%s.json' % form)
        with open(path, 'wb') as f:
            subprocess.run([sys.executable, os.path.join(bench, 'gen-chrome.py'), '--mb', '6',
                            '--seed', '3', '--form', form], stdout=f, check=True)
        yield path
    yield from threads_test.generated(tmp)


def main():
    rng = random.Random(19)
    failures = []
    total_segments = total_wrong = 0
    n = 0
    tmp = tempfile.mkdtemp(prefix='tsl-parallel-')
    gen = list(generated(tmp))
    inputs = gen + [p for p in threads_test.inputs(tmp) if p not in gen]
    for path in inputs:
        n += 1
        one, _, _ = read(tmp, path, 1, None)
        if path in gen[:2] and one[4] == b'':
            failures.append('%s: no chunk index in the cache to compare' % path)
        # Other formats once (CSV and perf script on every N: test-parallel-text.py).
        chrome = b'"format" : "chrome-json"' in one[6]
        runs = [(threads, rng.randrange(1 << 30)) for threads in ((2, 3, 4) if chrome else (4,))]
        if path in gen[:2]:
            one_default, _, _ = read(tmp, path, 1, 'default')
            runs += [(threads, 'default') for threads in (2, 3, 4)]
        for threads, seed in runs:
            many, segments, wrong = read(tmp, path, threads, seed)
            total_segments += segments
            total_wrong += wrong
            if path in gen[:2] and seed == 'default' and segments == 0:
                failures.append('%s: not read in parallel on %d threads' % (path, threads))
            failure = differing(one_default if seed == 'default' else one, many, path, threads, seed)
            if failure:
                failures.append(failure)

    shutil.rmtree(tmp)
    for failure in failures:
        print('FAIL', failure)
    print('%d inputs compared; %d segments scanned in parallel, %d cut at a wrong guess; %d differ'
          % (n, total_segments, total_wrong, len(failures)))
    if total_wrong < 1000 or total_segments - total_wrong < 1000:
        print('FAIL: too few segments or wrong guesses to test anything')
        return 1
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
