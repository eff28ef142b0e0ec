#!/usr/bin/env python3
# test-perfetto-ends.py: Perfetto slice begins and ends, paired as Perfetto's importer pairs them
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# What a slice end without its begin is (docs/ARCHITECTURE.md, "Perfetto and
# zstd"): before any begin on its track, a slice begun before the trace,
# shown from the trace's start and marked `start` in the view CSV; after,
# a misplaced end, counted; an end written out before its begin by another
# sequence, paired by time. A timestamp on an incremental clock moves the
# clock whatever its packet holds. Small traces are encoded here; the
# Chromium recording in tests/data/perfetto/ (README.md there) is read
# independently (perfetto_read.py) and the counts and slices compared.

import csv
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from perfetto_proto import (BEGIN, CLEARED, CLOCK_SNAPSHOT, DEFAULTS, END, FLAGS, INSTANT,  # noqa: E402
                            NEEDS_STATE, SEQ, TIMESTAMP, TRACK_DESCRIPTOR, TRACK_EVENT, process_track,
                            trace)

timeslice = os.environ.get('TSL_TIMESLICE', 'timeslice')
data = os.path.join(os.environ.get('G_TEST_SRCDIR', os.path.dirname(__file__) + '/..'), 'data')
tmp = tempfile.mkdtemp(prefix='tsl-perfetto-ends-')
failures = []


def check(name, cond, detail=''):
    print(('ok ' if cond else 'not ok ') + name + (f' # {detail}' if detail and not cond else ''))
    if not cond:
        failures.append(name)


def run(*args, env=None):
    return subprocess.run([timeslice, *args], capture_output=True, timeout=300,
                          env=dict(os.environ, **(env or {})))


def write(name, content):
    path = os.path.join(tmp, name)
    with open(path, 'wb') as f:
        f.write(content)
    return path


def warnings(path):
    out = run('info', path).stdout.decode()
    return out[out.find('Warnings:'):] if 'Warnings:' in out else ''


def view(path, window='0%..100%', env=None):
    out = os.path.join(tmp, 'view.csv')
    if os.path.exists(out):
        os.unlink(out)
    r = run('export', '-o', out, '--view', window, path, env=env)
    check('export --view %s of %s' % (window, os.path.basename(path)), r.returncode == 0, r.stderr.decode())
    return open(out, 'rb').read() if r.returncode == 0 else b''


def rows(csv_bytes):
    return list(csv.DictReader(csv_bytes.decode().splitlines()))


def test_clock_moved_by_descriptors():
    # Clock 64 counts microseconds in deltas. A TrackDescriptor between a
    # begin and its end carries 100 of them: the slice lasts 105 µs.
    packets = [
        process_track(1, 10, 'app'),
        [(SEQ, 1), (FLAGS, CLEARED),
         (CLOCK_SNAPSHOT, [(1, [(1, 6), (2, 1_000_000)]), (1, [(1, 64), (2, 1000), (3, 1), (4, 1000)])]),
         (DEFAULTS, [(58, 64), (11, [(11, 2)])])],
        [(TIMESTAMP, 10), (SEQ, 1), (FLAGS, NEEDS_STATE), (TRACK_EVENT, [(9, BEGIN), (23, 'Task')])],
        [(TIMESTAMP, 100), (SEQ, 1), (FLAGS, NEEDS_STATE),
         (TRACK_DESCRIPTOR, [(1, 2), (5, 1), (4, [(1, 10), (2, 11), (5, 'main')])])],
        [(TIMESTAMP, 5), (SEQ, 1), (FLAGS, NEEDS_STATE), (TRACK_EVENT, [(9, END)])],
        [(TIMESTAMP, 1), (SEQ, 1), (FLAGS, NEEDS_STATE), (TRACK_EVENT, [(9, INSTANT), (23, 'after')])],
        [(TIMESTAMP, 1000), (SEQ, 1), (FLAGS, NEEDS_STATE), (TRACK_EVENT, [(9, INSTANT), (23, 'last')])],
    ]
    got = {r['name']: (float(r['start_s']), float(r['end_s'])) for r in rows(view(write('clock.pftrace', trace(packets))))}
    task = got.get('Task', (0, 0))
    check('clock: a descriptor\'s delta counts: the slice lasts 105 µs',
          abs(task[1] - task[0] - 105e-6) < 1e-12, got)
    check('clock: and the instant after it is 106 µs after the begin',
          abs(got.get('after', (0,))[0] - task[0] - 106e-6) < 1e-12, got)


def main():
    test_clock_moved_by_descriptors()
    if failures:
        print('# %d failed: %s' % (len(failures), ', '.join(failures)))
        sys.exit(1)


if __name__ == '__main__':
    main()
