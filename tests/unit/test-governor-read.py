#!/usr/bin/env python3
# test-governor-read.py: reads that switch between every core and one thread
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# The governor (tsl-scan-governor.h) reads probes on every core and on one
# thread, then the faster way, buffer by buffer. With probes of 128 KiB
# (TSL_READER_ADAPT_BYTES) and stretches of one probe (TSL_READER_ADAPT_RATIO)
# a CSV, Chrome JSON (parallel after 4 MiB of events), Perfetto trace and a
# zstd Chrome trace of a few MB switch at most buffers (each has at least 8
# governed buffers: the first is read on every core untimed, and a read
# whose first stretch goes to one thread switches back at the next cycle's
# second probe, the sixth buffer); each read must give the one-thread
# read's `sample --state` bytes, `info --json`, messages and chunk index, and
# its debug log must show both ways used. The zstd trace is also read on the
# machine's cores (decided by the time waited for a core), with the same
# result.

import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

timeslice = os.environ.get('TSL_TIMESLICE', 'timeslice')
srcdir = os.environ.get('G_TEST_SRCDIR', os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
bench = os.path.join(srcdir, '..', 'bench')

GOVERNOR = re.compile(rb'governor: (\d+) bytes scanned on every core, (\d+) on one thread, (\d+) switches'
                      rb'( \(by the time waited for a core\))?')


def read(tmp, path, env_extra):
    cache = tempfile.mkdtemp(prefix='cache-', dir=tmp)
    env = dict(os.environ, XDG_CACHE_HOME=cache, TSL_CACHE_MAX_BYTES=str(1 << 30),
               G_MESSAGES_DEBUG='tsl-reader', **{k: v for k, v in env_extra.items() if v is not None})
    for name, value in env_extra.items():
        if value is None:
            env.pop(name, None)
    for name in ('TSL_READER_SPLIT_SEED', 'TSL_READER_ADAPT', 'TSL_READER_ADAPT_BYTES',
                 'TSL_READER_ADAPT_RATIO'):
        if name not in env_extra:
            env.pop(name, None)
    state = os.path.join(tmp, 'out.tss')
    if os.path.exists(state):
        os.unlink(state)
    proc = subprocess.run([timeslice, 'sample', '--state', '-o', state, path], env=env,
                          capture_output=True, timeout=300)
    found = GOVERNOR.search(proc.stdout + proc.stderr)
    index = b''.join(open(f, 'rb').read()
                     for f in sorted(glob.glob(os.path.join(cache, 'timeslice', 'index-*'))))
    env.pop('G_MESSAGES_DEBUG')
    env['TSL_CACHE_MAX_BYTES'] = '0'
    info = subprocess.run([timeslice, 'info', '--json', path], env=env, capture_output=True, timeout=300)
    shutil.rmtree(cache)
    stdout = b''.join(line for line in proc.stdout.splitlines(True) if b'-DEBUG: ' not in line)
    stderr = b''.join(line for line in proc.stderr.splitlines(True) if b'-DEBUG: ' not in line)
    result = (proc.returncode, stdout, stderr, open(state, 'rb').read() if os.path.exists(state) else None,
              index, info.returncode, info.stdout, info.stderr)
    return result, found


def main():
    tmp = tempfile.mkdtemp(prefix='tsl-governor-')
    inputs = []
    path = os.path.join(tmp, 'metrics.csv')
    with open(path, 'wb') as f:
        subprocess.run([sys.executable, os.path.join(bench, 'gen-csv.py'), '9'], stdout=f, check=True)
    inputs.append(path)
    path = os.path.join(tmp, 'trace.json')
    with open(path, 'wb') as f:
        subprocess.run([sys.executable, os.path.join(bench, 'gen-chrome.py'), '--mb', '13', '--seed', '2'],
                       stdout=f, check=True)
    inputs.append(path)
    subprocess.run(['zstd', '-q', '-3', path, '-o', path + '.zst'], check=True)
    inputs.append(path + '.zst')
    path = os.path.join(tmp, 'trace.pftrace')
    subprocess.run([sys.executable, os.path.join(bench, 'gen-perfetto.py'), '--mb', '8', '--seed', '2', path],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    inputs.append(path)

    failures = []
    names = ('status', 'stdout', 'stderr', 'state', 'index', 'info status', 'info', 'info stderr')
    for path in inputs:
        one, _ = read(tmp, path, {'TSL_READER_THREADS': '1'})
        governed, found = read(tmp, path, {'TSL_READER_THREADS': '2', 'TSL_READER_ADAPT': '1',
                                           'TSL_READER_ADAPT_BYTES': '131072',
                                           'TSL_READER_ADAPT_RATIO': '1'})
        if one[0] != 0 or one[4] == b'':
            failures.append('%s: the one-thread read failed or made no index' % path)
        if governed != one:
            failures.append('%s: %s differ when governed' % (
                path, ', '.join(n for n, a, b in zip(names, one, governed) if a != b)))
        if found is None:
            failures.append('%s: no governor in the debug log' % path)
        else:
            parallel, serial, switches = (int(x) for x in found.groups()[:3])
            print('%s: %d bytes on every core, %d on one thread, %d switches'
                  % (os.path.basename(path), parallel, serial, switches))
            if parallel == 0 or serial == 0 or switches < 2:
                failures.append('%s: the governor did not use both ways' % path)
        if path.endswith('.zst'):
            # The machine's cores: decided by the time waited for a core.
            waited, found = read(tmp, path, {'TSL_READER_THREADS': None})
            if waited != one:
                failures.append('%s: %s differ when decided by the wait' % (
                    path, ', '.join(n for n, a, b in zip(names, one, waited) if a != b)))
            # Without Linux's schedstat the probes decide, as elsewhere.
            if (os.cpu_count() > 1 and os.path.exists('/proc/thread-self/schedstat') and
                    (found is None or b'waited for a core' not in found.group(0))):
                failures.append('%s: not decided by the time waited for a core' % path)
    shutil.rmtree(tmp)
    for failure in failures:
        print('FAIL', failure)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
