#!/usr/bin/env python3
# test-perfetto.py: Perfetto protobuf traces and zstd input, through the CLI
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Small traces are encoded here (perfetto_proto.py); the Chromium trace in
# tests/data/perfetto/ was recorded once, with its JSON twin from the same
# page (tests/data/perfetto/README.md).

import json
import os
import shutil
import subprocess
import sys
import tempfile
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from perfetto_proto import *  # noqa: E402,F401,F403

timeslice = os.environ.get('TSL_TIMESLICE', 'timeslice')
data = os.path.join(os.environ.get('G_TEST_SRCDIR', os.path.dirname(__file__) + '/..'), 'data')
failures = []
tmp = tempfile.mkdtemp(prefix='tsl-perfetto-')


def check(name, cond, detail=''):
    print(('ok ' if cond else 'not ok ') + name + (f' # {detail}' if detail and not cond else ''))
    if not cond:
        failures.append(name)


def write(name, content):
    path = os.path.join(tmp, name)
    with open(path, 'wb') as f:
        f.write(content)
    return path


def run(*args, stdin=None):
    return subprocess.run([timeslice, *args], input=stdin, capture_output=True, timeout=60)


def info(path, stdin=None):
    proc = run('info', '--json', path, stdin=stdin)
    if proc.returncode != 0:
        return None, proc.stderr.decode()
    return json.loads(proc.stdout), proc.stderr.decode()


def samples(path):
    """Every event kept (K is large): (track, time_s, value, label) rows."""
    proc = run('sample', '--k', '100000', path)
    rows = []
    for line in proc.stdout.decode().splitlines()[1:]:
        track, _index, time_s, _weight, value, label = line.split(',', 5)
        rows.append((track, float(time_s), float(value) if value else None, label))
    return sorted(rows, key=lambda r: (r[0], r[1], r[3]))


def zstd(raw):
    return subprocess.run(['zstd', '-q', '-c'], input=raw, capture_output=True, check=True).stdout


def seq_start(seq, interned=(), defaults=None):
    packet = [(SEQ, seq), (FLAGS, CLEARED)]
    if interned:
        packet.append((INTERNED, interned_names(interned)))
    if defaults is not None:
        packet.append((DEFAULTS, defaults))
    return packet


def basic_trace():
    """A process with a named thread, interned slice names, a counter."""
    return trace([
        process_track(1, 42, 'browser'),
        thread_track(2, 1, 42, 43, 'CrBrowserMain'),
        counter_track(3, 1, 'heap', unit=3),
        seq_start(1, [(1, 'Loop'), (2, 'Task')], [(58, 6), (11, [(11, 2)])]),
        [(TIMESTAMP, 1000), (SEQ, 1), (FLAGS, NEEDS_STATE), (TRACK_EVENT, [(9, BEGIN), (10, 1)])],
        [(TIMESTAMP, 1100), (SEQ, 1), (FLAGS, NEEDS_STATE), (TRACK_EVENT, [(9, BEGIN), (10, 2)])],
        [(TIMESTAMP, 1200), (SEQ, 1), (FLAGS, NEEDS_STATE), (TRACK_EVENT, [(9, INSTANT), (23, 'mark')])],
        [(TIMESTAMP, 1300), (SEQ, 1), (FLAGS, NEEDS_STATE), (TRACK_EVENT, [(9, END)])],
        [(TIMESTAMP, 1400), (SEQ, 1), (FLAGS, NEEDS_STATE), (TRACK_EVENT, [(9, END)])],
        event(1500, 3, COUNTER, extra=[(30, 1234)]),
        event(1600, 3, COUNTER, extra=[(44, 2.5)]),
    ])


def test_basic():
    path = write('basic.pftrace', basic_trace())
    got, err = info(path)
    check('basic: opens', got is not None, err)
    if got is None:
        return
    check('basic: format', got['format'] == 'perfetto-proto', got['format'])
    check('basic: events are TrackEvent packets', got['events'] == 7, got['events'])
    threads = [t for t in got['tracks'] if t['kind'] == 'thread']
    check('basic: thread named', [(t['name'], t['pid'], t['tid'], t.get('process')) for t in threads]
          == [('CrBrowserMain', 42, 43, 'browser')], threads)
    counters = [t for t in got['tracks'] if t['kind'] == 'counter']
    check('basic: counter track', [(t['name'], t.get('unit'), t['events']) for t in counters]
          == [('heap', 'bytes', 2)], counters)
    check('basic: span', abs(got['span_s'] - 600e-9) < 1e-12, got['span_s'])
    check('basic: no warnings', got['warnings'] == [], got['warnings'])

    rows = samples(path)
    expect = [('CrBrowserMain', 0.0, 400.0, 'Loop'),
              ('CrBrowserMain', 1e-07, 200.0, 'Loop;Task'),
              ('CrBrowserMain', 2e-07, None, 'Loop;Task;mark'),
              ('heap', 5e-07, 1234.0, ''),
              ('heap', 6e-07, 2.5, '')]
    check('basic: slices nest, durations, counter values',
          [(r[0], round(r[1], 12), r[2], r[3]) for r in rows] == expect, rows)

    raw = basic_trace()
    with open(os.path.join(data, 'perfetto', 'basic.pftrace'), 'rb') as f:
        check('basic: the fuzz seed in tests/data is this trace', f.read() == raw)
    got2, err = info('-', stdin=raw)
    check('basic: from a pipe', got2 is not None and got2['events'] == 7, err)


def test_names_again_after_resets():
    # After a reset a sequence mostly sends the same names under the same
    # iids, and the reader reuses what it interned: a name only a prefix of
    # the earlier one, or whose bytes were repaired (a NUL), is read anew.
    names = [b'first', b'firs', b'first', b'fir\x00st', b'fir\x00st', b'first']
    packets = [thread_track(10, 0, 7, 8, 'worker')]
    for i, name in enumerate(names):
        packets.append(seq_start(2, [(1, name)]))
        packets.append([(TIMESTAMP, 1000 * (i + 1)), (SEQ, 2), (FLAGS, NEEDS_STATE),
                        (TRACK_EVENT, [(9, INSTANT), (11, 10), (10, 1)])])
    path = write('names-again.pftrace', trace(packets))
    got = [r[3] for r in samples(path) if r[0] == 'worker']
    check('names again: each event its sequence\'s name of the time',
          got == ['first', 'firs', 'first', 'fir\ufffdst', 'fir\ufffdst', 'first'], got)


def test_sequences_and_defaults():
    # Incremental state: a packet needing state before its sequence cleared
    # it is skipped; names re-interned after a clear; legacy thread
    # descriptor with delta timestamps in microseconds.
    packets = [
        [(TRACK_DESCRIPTOR, [(1, 10), (4, [(1, 7), (2, 8), (5, 'worker')])])],
        [(TIMESTAMP, 500), (SEQ, 2), (FLAGS, NEEDS_STATE), (TRACK_EVENT, [(9, INSTANT), (11, 10), (10, 1)])],
        seq_start(2, [(1, 'first')]),
        [(TIMESTAMP, 1000), (SEQ, 2), (FLAGS, NEEDS_STATE), (TRACK_EVENT, [(9, INSTANT), (11, 10), (10, 1)])],
        seq_start(2, [(1, 'second')]),
        [(TIMESTAMP, 2000), (SEQ, 2), (FLAGS, NEEDS_STATE), (TRACK_EVENT, [(9, INSTANT), (11, 10), (10, 1)])],
        # Legacy: ThreadDescriptor packet, then deltas on CLOCK_MONOTONIC.
        [(SEQ, 3), (FLAGS, CLEARED), (THREAD_DESCRIPTOR, [(1, 7), (2, 9), (5, 'legacy'), (6, 10)])],
        [(SEQ, 3), (TRACK_EVENT, [(1, 5), (9, BEGIN), (23, 'old')])],
        [(SEQ, 3), (TRACK_EVENT, [(1, 3), (9, END)])],
        # MONOTONIC = BOOTTIME - 0 here: a snapshot relates them.
        [(SEQ, 9), (CLOCK_SNAPSHOT, [(1, [(1, 6), (2, 1_000_000)]), (1, [(1, 3), (2, 1_000_000)])])],
    ]
    # The snapshot must come before the legacy events: move it first.
    packets.insert(0, packets.pop())
    path = write('sequences.pftrace', trace(packets))
    got, err = info(path)
    check('sequences: opens', got is not None, err)
    if got is None:
        return
    rows = samples(path)
    labels = [(r[0], r[3]) for r in rows]
    check('sequences: names follow the latest interning',
          [l for l in labels if l[0] == 'worker'] == [('worker', 'first'), ('worker', 'second')],
          labels)
    check('sequences: skipped packet counted',
          any('needing incremental state' in w and w.startswith('1 ') for w in got['warnings']),
          got['warnings'])
    legacy = [r for r in rows if r[0] == 'legacy']
    check('sequences: legacy delta timestamps (us, monotonic)',
          len(legacy) == 1 and legacy[0][2] == 3000.0 and legacy[0][3] == 'old', legacy)
    check('sequences: events', got['events'] == 5, got['events'])


def test_clocks():
    # Packets on MONOTONIC, and on a sequence-scoped incremental clock (64)
    # in microseconds, related to BOOTTIME by snapshots; one packet on a
    # clock nobody related, one at 2^63.
    packets = [
        [(TRACK_DESCRIPTOR, [(1, 5), (4, [(1, 1), (2, 1), (5, 'main')])])],
        [(SEQ, 1), (CLOCK_SNAPSHOT, [(1, [(1, 6), (2, 10_000)]), (1, [(1, 3), (2, 4_000)])])],
        [(SEQ, 2), (FLAGS, CLEARED), (CLOCK_SNAPSHOT, [(1, [(1, 3), (2, 5_000)]),
                                                       (1, [(1, 64), (2, 1), (3, 1), (4, 1000)])]),
         (DEFAULTS, [(58, 64), (11, [(11, 5)])])],
        [(TIMESTAMP, 2000), (CLOCK_ID, 3), (SEQ, 1), (TRACK_EVENT, [(9, INSTANT), (11, 5), (23, 'mono')])],
        [(TIMESTAMP, 1), (SEQ, 2), (FLAGS, NEEDS_STATE), (TRACK_EVENT, [(9, INSTANT), (23, 'inc1')])],
        [(TIMESTAMP, 2), (SEQ, 2), (FLAGS, NEEDS_STATE), (TRACK_EVENT, [(9, INSTANT), (23, 'inc2')])],
        [(TIMESTAMP, 7), (CLOCK_ID, 200), (SEQ, 1), (TRACK_EVENT, [(9, INSTANT), (11, 5), (23, 'lost')])],
        [(TIMESTAMP, 1 << 63), (SEQ, 1), (TRACK_EVENT, [(9, INSTANT), (11, 5), (23, 'huge')])],
    ]
    path = write('clocks.pftrace', trace(packets))
    got, err = info(path)
    check('clocks: opens', got is not None, err)
    if got is None:
        return
    rows = samples(path)
    times = {r[3]: round(r[1] * 1e9) for r in rows}
    # BOOTTIME = MONOTONIC + 6000, so mono is at 8000 ns. Clock 64 (1 us a
    # unit, delta-encoded) reads 1 at MONOTONIC 5000: inc1 = 1 + 1 = 2 units
    # → MONOTONIC 6000 → 12000 ns; inc2 = 2 + 2 = 4 units → 14000 ns.
    start = min(times.values()) if times else 0
    got_rel = {k: v - start for k, v in times.items()}
    check('clocks: converted onto one timeline',
          got_rel == {'mono': 0, 'inc1': 4000, 'inc2': 6000}, times)
    check('clocks: unrelated clock counted',
          any('not related to the trace clock' in w and w.startswith('1 ') for w in got['warnings']),
          got['warnings'])
    check('clocks: 2^63 timestamp counted',
          any('out of range' in w for w in got['warnings']), got['warnings'])


def test_compressed_and_profiles():
    inner = trace([
        [(TRACK_DESCRIPTOR, [(1, 20), (4, [(1, 3), (2, 4), (5, 'inflated')])])],
        [(TIMESTAMP, 100), (SEQ, 4), (TRACK_EVENT, [(9, INSTANT), (11, 20), (23, 'zlib')])],
    ])
    inner_zstd = trace([
        [(TIMESTAMP, 200), (SEQ, 4), (TRACK_EVENT, [(9, INSTANT), (11, 20), (23, 'zstd')])],
    ])
    stacks = [
        (5, [(1, 1), (2, b'main')]), (5, [(1, 2), (2, b'work')]),
        (6, [(1, 1), (2, 1)]), (6, [(1, 2), (2, 2)]),
        (7, [(1, 1), (2, packed([1, 2]))]),
    ]
    packets = [
        [(COMPRESSED, zlib.compress(inner))],
        [(ZSTD_COMPRESSED, zstd(inner_zstd))],
        [(PROCESS_TREE, [(1, [(1, 3), (3, '/usr/bin/app'), (3, '--flag')]),
                         (2, [(1, 4), (3, 3), (2, 'renamed')])])],
        # StreamingProfilePacket: thread from the sequence's ThreadDescriptor.
        [(SEQ, 5), (FLAGS, CLEARED), (TIMESTAMP, 0),
         (THREAD_DESCRIPTOR, [(1, 3), (2, 5), (5, 'sampler'), (6, 1)])],
        [(SEQ, 5), (FLAGS, NEEDS_STATE), (INTERNED, stacks),
         (STREAMING_PROFILE, [(1, packed([1, 1])), (2, packed([1, 1]))])],
        [(SEQ, 6), (FLAGS, CLEARED), (INTERNED, stacks)],
        [(TIMESTAMP, 300), (SEQ, 6), (FLAGS, NEEDS_STATE), (PERF_SAMPLE, [(2, 3), (3, 6), (4, 1)])],
        [(FTRACE_EVENTS, b'')], [(FTRACE_EVENTS, b'')],
        [(SEQ, 1), (CLOCK_SNAPSHOT, [(1, [(1, 6), (2, 0)]), (1, [(1, 3), (2, 0)])])],
    ]
    packets.insert(0, packets.pop())
    path = write('compressed.pftrace', trace(packets))
    got, err = info(path)
    check('compressed: opens', got is not None, err)
    if got is None:
        return
    check('compressed: events counted after inflating', got['events'] == 2, got['events'])
    rows = samples(path)
    labels = sorted((r[0], r[3]) for r in rows)
    check('compressed: deflate and zstd bundles read, profiles as stacks',
          labels == [('Thread 6', 'main;work'), ('renamed', 'zlib'), ('renamed', 'zstd'),
                     ('sampler', 'main;work'), ('sampler', 'main;work')], labels)
    procs = {t.get('process') for t in got['tracks']}
    check('compressed: ProcessTree names the process from its command line', procs == {'app'}, procs)
    check('compressed: skipped kinds counted',
          '2 ftrace_events packets not shown' in got['warnings'], got['warnings'])


def test_malformed():
    good = basic_trace()
    cases = [
        # name, bytes, expected exit, text in the error or a warning
        ('truncated varint', good + b'\x0a\xff\xff', 0, 'the trace ends inside a TracePacket'),
        ('length past the end', good + b'\x0a\x20\x40\x01', 0, 'the trace ends inside a TracePacket'),
        ('wrong wire type at the top', good + b'\x0b\x00', 1,
         f'{len(good)}: expected a TracePacket'),
        ('varint over 10 bytes', good + b'\x0a' + b'\xff' * 11, 1, 'longer than 10 bytes'),
        ('1 GB claimed length', good + b'\x0a' + varint(1 << 30) + b'\x08\x01', 1,
         f'{len(good)}: a TracePacket claims 1073741824 bytes'),
        ('wrong wire type inside', good + trace([[Raw(b'\x5d\x00\x00\x00\x00')]]), 0,
         f'{len(good)}: skipped a malformed TracePacket: a field of the TracePacket has the wrong wire type'),
        ('field runs past its packet', good + trace([[Raw(b'\x5a\x09\x48\x03')]]), 0,
         'runs past the end of its TracePacket'),
        ('interned id never defined', good + trace([
            [(TIMESTAMP, 1700), (SEQ, 1), (FLAGS, NEEDS_STATE), (TRACK_EVENT, [(9, INSTANT), (10, 99)])]]),
         0, 'never defined'),
        ('2^63 timestamp', good + trace([[(TIMESTAMP, (1 << 63) + 5), (SEQ, 1), (FLAGS, NEEDS_STATE),
                                          (TRACK_EVENT, [(9, INSTANT), (10, 1)])]]), 0, 'out of range'),
        ('2^64-1 counter and timestamp deltas', good + trace([
            [(TIMESTAMP, (1 << 64) - 1), (SEQ, 1), (TRACK_EVENT, [(9, COUNTER), (11, 3), (30, -1)])]]),
         0, 'timestamp out of range'),
        ('end without begin', good + trace([
            [(TIMESTAMP, 1700), (SEQ, 1), (FLAGS, NEEDS_STATE), (TRACK_EVENT, [(9, END)])]]), 0,
         '1 slice ends without a begin, on tracks whose earlier slices had all ended'),
        ('damaged deflate bundle', good + trace([[(COMPRESSED, zlib.compress(good)[:-9] + b'junkjunk')]]), 0,
         'compressed packet bundles were damaged'),
    ]
    for name, raw, status, text in cases:
        path = write('bad.pftrace', raw)
        proc = run('info', '--json', path)
        out = proc.stderr.decode() if status else proc.stdout.decode()
        check(f'malformed: {name}: exit {status}', proc.returncode == status, proc.stderr.decode())
        check(f'malformed: {name}: says so', text in out, out[-600:])
        if status == 1:
            check(f'malformed: {name}: FILE:BYTE', f'{path}:' in out, out)
        else:
            got = json.loads(proc.stdout)
            check(f'malformed: {name}: keeps what came before', got['events'] >= 7, got['events'])


def test_nothing_to_show():
    """A trace of one packet with no event: the message gives a byte
    offset, as Perfetto's own errors do, never a line and column."""
    raw = trace([[(TIMESTAMP, 1000), (SEQ, 1)]])
    path = write('empty.pftrace', raw)
    proc = run('info', path)
    err = proc.stderr.decode()
    check('nothing to show: exit 1', proc.returncode == 1, err)
    check('nothing to show: FILE:BYTE', f'{path}:{len(raw)}: nothing to show' in err, err)


def test_zstd_input():
    raw = basic_trace()
    z = zstd(raw)
    got, err = info(write('basic.pftrace.zst', z))
    check('zstd: perfetto inside', got is not None and got['format'] == 'perfetto-proto'
          and got['events'] == 7 and got['warnings'] == [], (err, got))
    got, err = info('-', stdin=z + zstd(b''))
    check('zstd: from a pipe, concatenated frames', got is not None and got['events'] == 7, err)

    # Several zstd blocks (128 KiB each), so that half a frame holds whole ones.
    csv = b'time,cpu\n' + b''.join(b'%d,%d\n' % (i, (i * 7919) % 1000) for i in range(200000))
    got, err = info(write('metrics.csv.zst', zstd(csv)))
    check('zstd: any format (CSV)', got is not None and got['format'] == 'csv' and got['events'] == 200000,
          (err, got and got['events']))

    zcsv = zstd(csv)
    got, err = info(write('cut.csv.zst', zcsv[:len(zcsv) // 2]))
    check('zstd: truncated frame keeps what was read and warns',
          got is not None and 0 < got['events'] < 200000
          and any('zstd data is truncated' in w for w in got['warnings']), (err, got))
    damaged = bytearray(zcsv)
    for i in range(len(damaged) // 2, len(damaged) // 2 + 32):
        damaged[i] ^= 0x5a
    got, err = info(write('damaged.csv.zst', bytes(damaged)))
    check('zstd: damaged frame keeps what was read and warns',
          got is not None and 0 < got['events'] < 200000
          and any('zstd data is damaged' in w for w in got['warnings']), (err, got))
    proc = run('info', write('magic-only.zst', zstd(b'')[:4]))
    check('zstd: nothing but a magic number', proc.returncode == 1
          and 'zstd data is truncated' in proc.stderr.decode(), proc.stderr.decode())


def test_trailing_nul():
    # Text readers drop NULs padding the end of a file; in protobuf a 0 is
    # data (here the last packet's sequence id).
    raw = basic_trace() + trace([[(TIMESTAMP, 5000), (SEQ, 0)]]) * 3
    check('nul: the trace ends in a NUL byte', raw[-1:] == b'\x00')
    got, err = info(write('nul-end.pftrace', raw))
    check('nul: a final 0 is data, not padding', got is not None and got['warnings'] == [],
          (err, got and got['warnings']))


def test_not_perfetto():
    # Text that starts with a newline (the 0x0A of a packet key) stays text.
    path = write('leading-newline.txt', b'\n\nmain;work 5\nmain;rest 3\n')
    got, err = info(path)
    check('sniff: text after a blank line is not perfetto',
          got is not None and got['format'] == 'collapsed', (err, got and got['format']))


def test_chromium():
    proto_z = os.path.join(data, 'perfetto', 'chromium-startup.pftrace.zst')
    twin = os.path.join(data, 'perfetto', 'chromium-startup.json.gz')
    raw = subprocess.run(['zstd', '-q', '-d', '-c', proto_z], capture_output=True, check=True).stdout
    check('chromium: recorded trace is a plain proto once decompressed', raw[:1] == b'\x0a')
    plain = write('chromium.pftrace', raw)

    got, err = info(plain)
    check('chromium: opens', got is not None, err)
    if got is None:
        return
    gotz, _ = info(proto_z)
    check('chromium: same through zstd', gotz == dict(got, file=proto_z), 'differs')
    json_info, err = info(twin)
    check('chromium: JSON twin opens', json_info is not None, err)
    check('chromium: format', got['format'] == 'perfetto-proto')
    check('chromium: no packet is malformed or off the clock',
          not any('malformed' in w or 'clock' in w or 'incremental' in w for w in got['warnings']),
          got['warnings'])

    def threads(i):
        return {(t.get('process'), t['name']) for t in i['tracks'] if t['kind'] == 'thread'}

    main = {('Browser', 'CrBrowserMain'), ('Renderer', 'CrRendererMain'), ('GPU Process', 'CrGpuMain')}
    check('chromium: processes and threads named', main <= threads(got), sorted(map(str, threads(got))))
    check('chromium: twin has the same main threads', main <= threads(json_info), sorted(map(str, threads(json_info))))
    common = {name for _p, name in threads(got)} & {name for _p, name in threads(json_info)}
    check('chromium: thread names of both formats mostly overlap',
          len(common) >= 0.8 * len({name for _p, name in threads(got)}), sorted(common))

    # The page's performance.mark()s and measure()s: the same in both, on
    # the same stacks of nested slices.
    def marks(path):
        rows = samples(path)
        return sorted((r[0], r[3]) for r in rows if 'tsl-mark-' in r[3]), \
            sorted(r[3] for r in rows if r[3].startswith('tsl-measure-'))
    pm, pmeasure = marks(plain)
    jm, jmeasure = marks(twin)
    check('chromium: 40 marks, nested in run-task slices',
          len(pm) == 40 and all(r[0] == 'CrRendererMain' and ';' in r[1] for r in pm), pm[:3])
    check('chromium: marks and their stacks equal the JSON twin', pm == jm, (pm[:2], jm[:2]))
    check('chromium: 40 measures, equal to the JSON twin', len(pmeasure) == 40 and pmeasure == jmeasure,
          (pmeasure[:2], jmeasure[:2]))


def test_process_names():
    # Chrome 156 describes a renderer as "Renderer", then again with its
    # command line as process_name: the label stays "Renderer". A process
    # known only by its command line is named after the program.
    cmd = '/usr/lib/chromium/chromium --type=renderer --crashpad-handler-pid=0 --lang=en-US'
    raw = trace([
        [(TRACK_DESCRIPTOR, [(1, 1), (3, [(1, 7570), (2, cmd), (6, 'Renderer')])])],
        [(TRACK_DESCRIPTOR, [(1, 1), (3, [(1, 7570), (2, cmd), (6, cmd), (8, 'Omnibox Popup')])])],
        thread_track(2, 1, 7570, 7571, 'CrRendererMain'),
        [(TRACK_DESCRIPTOR, [(1, 3), (3, [(1, 7600), (2, '/usr/bin/node --cpu-prof app.js')])])],
        thread_track(4, 3, 7600, 7601, 'node'),
        event(1000, 2, INSTANT, name='a', flags=0),
        event(1100, 4, INSTANT, name='b', flags=0),
    ])
    path = write('process-names.pftrace', raw)
    got, err = info(path)
    check('process names: opens', got is not None, err)
    if got is None:
        return
    names = sorted((t['pid'], t.get('process')) for t in got['tracks'])
    check('process names: a command line never replaces a name', names == [(7570, 'Renderer'), (7600, 'node')],
          names)

    # A track of no process is in a group with a name a person reads, not
    # the format's code name ("perfetto-proto").
    raw = trace([
        thread_track(2, 1, 7570, 7571, 'CrRendererMain'),
        [(TRACK_DESCRIPTOR, [(1, 9), (2, 'NetworkService')])],
        event(1000, 2, INSTANT, name='a', flags=0),
        event(1100, 9, INSTANT, name='b', flags=0),
    ])
    path = write('global.pftrace', raw)
    pdf = os.path.join(tmp, 'global.pdf')
    proc = run('export', '-o', pdf, path)
    text = subprocess.run(['pdftotext', pdf, '-'], capture_output=True, text=True).stdout
    check('process names: the group of no process is "Global (no process)"',
          proc.returncode == 0 and 'Global (no process)' in text and 'perfetto-proto' not in text, text[:400])


def test_async_track_names():
    # Chrome writes hundreds of async tracks with no name: each is called
    # after its first named event in the file (Perfetto's rule), and keeps
    # that name in a range read that skips the chunk of its first slice, in
    # a sampler state and in a merge of parts. A track whose events have no
    # name keeps "Track UUID".
    filler = [event(2000 + i * 10, 2, INSTANT, name='tick', flags=0) for i in range(120000)]
    end = 2000 + 120000 * 10
    raw = trace([
        process_track(1, 42, 'browser'),
        thread_track(2, 1, 42, 43, 'CrBrowserMain'),
        [(TRACK_DESCRIPTOR, [(1, 10), (5, 1)])],
        [(TRACK_DESCRIPTOR, [(1, 11), (5, 1)])],
        [(TRACK_DESCRIPTOR, [(1, 12), (5, 1)])],
        event(1000, 10, BEGIN, name='Loading', flags=0),
        event(1100, 11, BEGIN, name='Commit', flags=0),
        event(1200, 11, END, flags=0),
        event(1300, 12, END, flags=0),
        *filler,
        event(end, 11, BEGIN, name='Commit', flags=0),
        event(end + 50, 10, BEGIN, name='Paint', flags=0),
        event(end + 60, 10, END, flags=0),
        event(end + 70, 10, END, flags=0),
        event(end + 80, 11, END, flags=0),
    ])
    path = write('async-names.pftrace', raw)
    got, err = info(path)
    check('async names: opens', got is not None, err)
    if got is None:
        return
    names = sorted(t['name'] for t in got['tracks'] if t['kind'] == 'async')
    check('async names: after the first slice, else the uuid', names == ['Commit', 'Loading', 'Track 12'],
          names)

    csv = os.path.join(tmp, 'async-late.csv')
    proc = run('export', '--view', '99.99%..100%', '-o', csv, path)
    rows = open(csv).read().splitlines()[1:] if proc.returncode == 0 else []
    late = sorted({r.split(',')[0] for r in rows if r.split(',')[4] in ('Paint', 'Commit')})
    check('async names: a range read past the first slice names the track as the whole read',
          late == ['Commit', 'Loading'], (proc.stderr.decode(), late, rows[:6]))

    tss = os.path.join(tmp, 'async-names.tss')
    parts = [os.path.join(tmp, f'async-names-{i}.tss') for i in (1, 2)]
    merged = os.path.join(tmp, 'async-names-merged.tss')
    ok = run('sample', '--state', '--mode', 'time', '-o', tss, path).returncode == 0
    for i, part in enumerate(parts, 1):
        ok = ok and run('sample', '--state', '--mode', 'time', f'--part={i}/2', '-o', part, path).returncode == 0
    ok = ok and run('merge', '-o', merged, *parts).returncode == 0
    state, err = info(tss) if ok else (None, 'sample --state or merge failed')
    names = sorted(t['name'] for t in state['tracks'] if t['kind'] == 'async') if state else None
    check('async names: kept in a sampler state', names == ['Commit', 'Loading', 'Track 12'], (names, err))
    same = ok and open(merged, 'rb').read() == open(tss, 'rb').read()
    check('async names: parts merged equal one pass byte for byte', same)


def test_state_across_resets():
    # What the reader keeps per sequence follows every reset and every new
    # TracePacketDefaults: a sequence-scoped clock is gone after a reset
    # (and defined again, starts afresh: not incremental, no last value),
    # and extra counter values go to the tracks the latest defaults name.
    packets = [
        process_track(1, 42, 'browser'),
        thread_track(2, 1, 42, 43, 'main'),
        [(TRACK_DESCRIPTOR, [(1, 5), (5, 2), (2, 'thread_time'), (8, [(1, 1), (4, 1000), (5, 1)])])],
        counter_track(7, 1, 'mem'),
        [(SEQ, 2), (FLAGS, CLEARED),
         (CLOCK_SNAPSHOT, [(1, [(1, 6), (2, 10_000)]), (1, [(1, 64), (2, 1), (3, 1), (4, 1000)])]),
         (DEFAULTS, [(58, 64), (11, [(11, 2), (31, 5)])])],
        # Clock 64: 1 + 1 = 2 units of 1 us, one past the snapshot: 11000 ns
        # (the end at 12000, 'm' at 13000).
        [(TIMESTAMP, 1), (SEQ, 2), (FLAGS, NEEDS_STATE), (TRACK_EVENT, [(9, BEGIN), (23, 'a'), (12, 10)])],
        [(TIMESTAMP, 1), (SEQ, 2), (FLAGS, NEEDS_STATE), (TRACK_EVENT, [(9, END), (12, 5)])],
        # The same sequence's defaults now name the counter 'mem'.
        [(SEQ, 2), (DEFAULTS, [(58, 64), (11, [(11, 2), (31, 7)])])],
        [(TIMESTAMP, 1), (SEQ, 2), (FLAGS, NEEDS_STATE), (TRACK_EVENT, [(9, INSTANT), (23, 'm'), (12, 100)])],
        # A reset relating clock 65 only: clock 64 is not defined any more.
        [(SEQ, 2), (FLAGS, CLEARED),
         (CLOCK_SNAPSHOT, [(1, [(1, 6), (2, 20_000)]), (1, [(1, 65), (2, 0)])]),
         (DEFAULTS, [(58, 64), (11, [(11, 2)])])],
        [(TIMESTAMP, 7), (SEQ, 2), (FLAGS, NEEDS_STATE), (TRACK_EVENT, [(9, INSTANT), (23, 'lost')])],
        [(TIMESTAMP, 500), (CLOCK_ID, 65), (SEQ, 2), (FLAGS, NEEDS_STATE), (TRACK_EVENT, [(9, INSTANT), (23, 'c')])],
        # Clock 64 again, in ns and absolute: 30000 + (150 - 100).
        [(SEQ, 2), (FLAGS, CLEARED),
         (CLOCK_SNAPSHOT, [(1, [(1, 6), (2, 30_000)]), (1, [(1, 64), (2, 100)])]),
         (DEFAULTS, [(58, 64), (11, [(11, 2)])])],
        [(TIMESTAMP, 150), (SEQ, 2), (FLAGS, NEEDS_STATE), (TRACK_EVENT, [(9, INSTANT), (23, 'd')])],
    ]
    path = write('resets.pftrace', trace(packets))
    got, err = info(path)
    check('resets: opens', got is not None, err)
    if got is None:
        return
    rows = samples(path)
    times = {r[3]: round(r[1] * 1e9) for r in rows if r[0] == 'main'}
    start = times.get('a', 0)
    check('resets: each clock as its latest snapshot defines it',
          {k: v - start for k, v in times.items()} == {'a': 0, 'm': 2000, 'c': 9500, 'd': 19050}, times)
    check('resets: a clock gone with its sequence\'s reset is counted',
          any('not related to the trace clock' in w and w.startswith('1 ') for w in got['warnings']),
          got['warnings'])
    mem = [t for t in got['tracks'] if t['name'] == 'mem']
    check('resets: extra values go to the tracks the latest defaults name',
          [t['events'] for t in mem] == [1], mem)
    check('resets: thread time values counted',
          any('thread CPU time' in w and w.startswith('2 ') for w in got['warnings']), got['warnings'])


def test_field_orders():
    """The decoder reads the usual field orders (Chrome's, the SDK's)
    straight through before its general loop: repeated fields, fields past
    the predicted ones and other orders read as in any order (the last of a
    repeated field wins)."""
    def head(ts):
        return [(TIMESTAMP, ts), (SEQ, 1), (FLAGS, NEEDS_STATE)]

    start = [process_track(1, 42, 'browser'), thread_track(2, 1, 42, 43, 'Main'),
             seq_start(1, [(1, 'Loop'), (2, 'Task')], [(58, 6), (11, [(11, 2)])])]
    plain = trace(start + [
        head(1000) + [(TRACK_EVENT, [(9, BEGIN), (10, 1)])],
        head(1100) + [(TRACK_EVENT, [(9, BEGIN), (10, 2)])],
        head(1200) + [(TRACK_EVENT, [(9, END)])],
        head(1300) + [(TRACK_EVENT, [(9, INSTANT), (10, 2)])],
        head(1400) + [(TRACK_EVENT, [(9, END)])],
    ])
    shuffled = trace(start + [
        # Chrome's order, the sequence last (after a uid); a name twice.
        [(TIMESTAMP, 1000), (FLAGS, NEEDS_STATE), (TRACK_EVENT, [(9, BEGIN), (10, 2), (3, 7), (10, 1)]),
         (3, 1000), (SEQ, 1)],
        # A timestamp and a sequence twice: the last wins.
        [(TIMESTAMP, 5), (SEQ, 9), (TIMESTAMP, 1100), (SEQ, 1), (FLAGS, NEEDS_STATE),
         (TRACK_EVENT, [(3, 1), (9, BEGIN), (10, 2)])],
        # The event before the flags; the type last.
        [(TIMESTAMP, 1200), (SEQ, 1), (TRACK_EVENT, [(9, INSTANT), (9, END)]), (FLAGS, NEEDS_STATE)],
        # Extra fields between the predicted ones.
        head(1300) + [(INTERNED, interned_names([(3, 'Other')])),
                      (TRACK_EVENT, [(9, INSTANT), (12, 5), (10, 2)])],
        head(1400) + [(TRACK_EVENT, [(9, END)]), (SEQ, 1)],
    ])
    a, b = write('orders-plain.pftrace', plain), write('orders-shuffled.pftrace', shuffled)
    got_a, err_a = info(a)
    got_b, err_b = info(b)
    check('field orders: both open', got_a is not None and got_b is not None, err_a + err_b)
    if got_a is None or got_b is None:
        return
    check('field orders: same events and warnings',
          (got_a['events'], got_a['warnings']) == (got_b['events'], got_b['warnings']),
          (got_b['events'], got_b['warnings']))
    rows_a, rows_b = samples(a), samples(b)
    check('field orders: same slices', rows_a == rows_b and len(rows_a) == 3, (rows_a, rows_b))


def main():
    for test in (test_basic, test_names_again_after_resets, test_sequences_and_defaults, test_clocks, test_compressed_and_profiles,
                 test_malformed, test_nothing_to_show, test_zstd_input, test_trailing_nul, test_not_perfetto, test_chromium,
                 test_process_names, test_async_track_names, test_state_across_resets, test_field_orders):
        test()
    shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        print(f'# {len(failures)} failed: {", ".join(failures)}')
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
