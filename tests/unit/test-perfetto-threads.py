#!/usr/bin/env python3
# test-perfetto-threads.py: the two-thread Perfetto reader gives what the one-thread one does
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# With TSL_READER_THREADS=eager the Perfetto reader decodes packets on the
# reading thread and models them on a second one from the first packet;
# with 0 (and by default), on one thread. Every Perfetto input
# we have (perfetto-outputs.py: fixtures, fuzz regressions, the unit test's
# traces, generated ones) must give byte-identical `info --json`, `sample`
# CSVs, messages and exit status either way, from a file and from a pipe
# (small reads, so many drains).

import filecmp
import os
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
timeslice = os.environ.get('TSL_TIMESLICE', 'timeslice')


def outputs(threads, into):
    env = dict(os.environ, TSL_READER_THREADS=threads)
    subprocess.run([sys.executable, os.path.join(here, 'perfetto-outputs.py'), into], env=env,
                   check=True, stdout=subprocess.DEVNULL, timeout=600)


def piped(threads, path):
    env = dict(os.environ, TSL_READER_THREADS=threads)
    with open(path, 'rb') as f:
        data = f.read()
    out = []
    for args in (['info', '--json', '--no-cache', '-'], ['sample', '--no-cache', '--k', '100000', '-']):
        p = subprocess.run([timeslice, *args], input=data, env=env, capture_output=True, timeout=120)
        out.append((p.returncode, p.stdout, p.stderr))
    return out


def main():
    failures = 0
    with tempfile.TemporaryDirectory(prefix='tsl-perfetto-threads-') as tmp:
        one, two = os.path.join(tmp, 'one'), os.path.join(tmp, 'two')
        outputs('0', one)
        outputs('eager', two)
        names = sorted(os.listdir(one))
        ok = len(names) > 30 and sorted(os.listdir(two)) == names
        print(('ok' if ok else 'not ok') + ' both runs wrote the outputs of every input (%d)' % len(names))
        failures += not ok
        for name in names:
            same = filecmp.cmp(os.path.join(one, name), os.path.join(two, name), shallow=False)
            if not same:
                print('not ok %s differs between one thread and two' % name)
                failures += 1
        if failures == 0:
            print('ok every output is the same on one thread and two')

        src = os.path.join(os.path.dirname(here), 'data', 'perfetto', 'chromium-startup.pftrace.zst')
        raw = os.path.join(tmp, 'chromium.pftrace')
        with open(raw, 'wb') as f:
            subprocess.run(['zstd', '-q', '-d', '-c', src], stdout=f, check=True)
        for path in (raw, src):
            same = piped('0', path) == piped('eager', path)
            print(('ok' if same else 'not ok') + ' %s from a pipe: the same on one thread and two'
                  % os.path.basename(path))
            failures += not same
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
