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
import perfetto_read  # noqa: E402
from perfetto_proto import (BEGIN, CLEARED, CLOCK_SNAPSHOT, DEFAULTS, END, FLAGS, INSTANT,  # noqa: E402
                            NEEDS_STATE, SEQ, TIMESTAMP, TRACK_DESCRIPTOR, TRACK_EVENT, event,
                            process_track, thread_track, trace)

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


def test_ends_without_begins():
    MS = 1_000_000
    packets = [
        process_track(1, 10, 'app'),
        thread_track(2, 1, 10, 11, 'main'),
        thread_track(3, 1, 10, 12, 'worker'),
        [(TRACK_DESCRIPTOR, [(1, 9), (5, 1), (2, 'requests')])],
        [(SEQ, 1), (FLAGS, CLEARED)],
        [(SEQ, 2), (FLAGS, CLEARED)],
        [(SEQ, 3), (FLAGS, CLEARED)],
        event(1 * MS, 3, INSTANT, name='start'),
        # main: two slices begun before the trace end at 2 and 3 ms; then a
        # slice, and an end too many. Instants before those ends are inside
        # them (read before the reader knew of them).
        event(1 * MS + MS // 2, 2, INSTANT, name='inside both'),
        event(2 * MS, 2, END),
        event(2 * MS + MS // 2, 2, INSTANT, name='inside one'),
        event(3 * MS, 2, END),
        event(4 * MS, 2, INSTANT, name='after'),
        event(6 * MS, 2, BEGIN, name='later'),
        event(7 * MS, 2, END),
        event(8 * MS, 2, END),
        # requests, an async track two sequences write: sequence 2's end
        # (at 12 ms) is written out before sequence 3's begin (at 11 ms).
        event(12 * MS, 9, END, seq=2),
        event(11 * MS, 9, BEGIN, name='request', seq=3),
        event(20 * MS, 3, INSTANT, name='last'),
    ]
    path = write('ends.pftrace', trace(packets))
    w = warnings(path)
    check('ends: two slices begun before the trace, said so',
          '2 slice ends came before any begin on their track' in w, w)
    check('ends: one misplaced end counted', '1 slice ends without a begin, on tracks whose earlier' in w, w)
    check('ends: nothing left open', 'had no end' not in w, w)
    got = rows(view(path))
    main = sorted((float(r['start_s']), float(r['end_s']), r['name'], r['open'], int(r['depth']))
                  for r in got if r['track'] == 'main')
    check('ends: the slices begun before the trace run from its start, marked "start", nested, '
          'and what came before their ends nests under them',
          main == [(0.0, 0.001, '(begun before the trace)', 'start', 1),
                   (0.0, 0.002, '(begun before the trace)', 'start', 0),
                   (0.0005, 0.0005, 'inside both', 'false', 2),
                   (0.0015, 0.0015, 'inside one', 'false', 1),
                   (0.003, 0.003, 'after', 'false', 0),
                   (0.005, 0.006, 'later', 'false', 0)], main)
    req = [(float(r['start_s']), float(r['end_s']), r['name']) for r in got if r['name'] == 'request']
    check('ends: an end written before its begin is paired by time', req == [(0.01, 0.011, 'request')], req)


def test_chromium():
    """The recording against an independent reading: counts, then every
    closed slice's times, and the slices begun before the trace."""
    proto_z = os.path.join(data, 'perfetto', 'chromium-ends.pftrace.zst')
    raw = subprocess.run(['zstd', '-q', '-d', '-c', proto_z], capture_output=True, check=True).stdout
    path = write('chromium-ends.pftrace', raw)
    events = perfetto_read.read(raw)
    closed, unclosed, before, misplaced = perfetto_read.slices(events)
    w = warnings(path)
    check('chromium: it has every case (ends before begins, misplaced, open at the end)',
          len(before) >= 5 and len(misplaced) >= 5 and len(unclosed) >= 20,
          (len(before), len(misplaced), len(unclosed)))
    for n, text in ((len(before), 'slice ends came before any begin on their track'),
                    (len(misplaced), 'slice ends without a begin, on tracks whose earlier slices'),
                    (len(unclosed), 'slices had no end and were closed')):
        check('chromium: %d %s' % (n, text), '%d %s' % (n, text) in w, w)
    check('chromium: no other loss', 'ignored' not in w.replace('were ignored (misplaced', ''), w)

    got = rows(view(path))
    start = min(ts for ts, *_rest in events)
    spans = sorted((round(float(r['start_s']) * 1e9), round(float(r['end_s']) * 1e9))
                   for r in got if r['open'] == 'false' and r['start_s'] != r['end_s'])
    want = sorted((b - start, e - start) for b, e in closed if e > b)
    check('chromium: every closed slice at the times an independent reading gives (%d)' % len(want),
          len(spans) == len(want) and all(abs(a[0] - b[0]) <= 1 and abs(a[1] - b[1]) <= 1
                                          for a, b in zip(spans, want)),
          next(((a, b) for a, b in zip(spans, want) if a != b), (len(spans), len(want))))
    pre = sorted(round(float(r['end_s']) * 1e9) for r in got if r['open'] == 'start')
    check('chromium: slices begun before the trace end where their ends are',
          len(pre) == len(before) and all(abs(a - (b - start)) <= 1 for a, b in zip(pre, sorted(before))),
          (pre, sorted(b - start for b in before)))
    check('chromium: and start at the trace start',
          all(float(r['start_s']) == 0 for r in got if r['open'] == 'start'))

    # Through the chunk index (small chunks), a zoomed view before those
    # ends (but the first, at the trace's start) lists them as the whole
    # read does.
    total = max(float(r['end_s']) for r in got)
    window = '%.4f%%..%.4f%%' % (100 * 0.1 / total, 100 * 0.4 / total)
    small = {'TSL_INDEX_CHUNK_BYTES': '65536', 'XDG_CACHE_HOME': os.path.join(tmp, 'cache')}
    view(path, window, env=small)   # the first read makes the index
    indexed = view(path, window, env=small)
    whole = view(path, window, env={'TSL_NO_INDEX': '1'})
    check('chromium: a zoomed view through the index equals a whole read', indexed == whole and indexed != b'')
    early = [r for r in rows(indexed) if r['open'] == 'start']
    want = [b for b in before if b - start > 0.1e9]
    check('chromium: and lists the slices begun before the trace (%d)' % len(want),
          len(early) == len(want) and len(want) >= 5, len(early))


def main():
    test_clock_moved_by_descriptors()
    test_ends_without_begins()
    test_chromium()
    if failures:
        print('# %d failed: %s' % (len(failures), ', '.join(failures)))
        sys.exit(1)


if __name__ == '__main__':
    main()
