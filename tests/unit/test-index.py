#!/usr/bin/env python3
# test-index.py: range reads through the chunk index give what whole reads give
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# `timeslice compare` reads the file once (recording the chunk index), then
# each range again. With the index those range reads read only the chunks
# whose times overlap the range (plus the header and any chunk that made a
# track or a name); with TSL_NO_INDEX=1 they read the whole file. On
# generated unsorted traces of every indexed format (Chrome array and object
# form with nested B/E and X spans, counters, async spans and metadata; CSV
# wide and long; perf script), cut into 16 KiB chunks, the compare CSV must
# be byte-identical either way, for seeded random ranges (and, on Chrome
# traces cut into larger chunks, for ranges near and past the end of the
# data, where a gauge's last point holds until its series ends in the whole
# file). Each file must also
# really be indexed and read in part (the debug message of the range read
# says how much; a pipe is never indexed). The on-disk cache is used by a
# second process and dropped when the file is touched, appended to,
# truncated, replaced or changed at its head, or the entry is corrupt,
# truncated or empty; an unwritable cache never fails a command.

import json
import os
import random
import subprocess
import sys
import tempfile

timeslice = os.environ.get('TSL_TIMESLICE', 'timeslice')
CHUNK = '16384'


def chrome(rng, n, form):
    """Threads write bursts of nested spans; bursts of different threads
    interleave out of time order, and a few events are far out of order."""
    events = ['{"name": "process_name", "ph": "M", "pid": 1, "tid": 0, "args": {"name": "Main"}}']
    for tid in range(1, 4):
        events.append('{"name": "thread_name", "ph": "M", "pid": 1, "tid": %d, "args": {"name": "T%d"}}'
                      % (tid, tid))
    clock = {tid: 0 for tid in range(1, 4)}
    while len(events) < n:
        tid = rng.randint(1, 3)
        base = clock[tid] + rng.randint(0, 2000)
        ts = base
        stack = []
        for _ in range(rng.randint(5, 40)):
            ts += rng.randint(1, 30)
            r = rng.random()
            if r < 0.25 and len(stack) < 6:
                name = 'f%d' % rng.randint(0, 9)
                stack.append(name)
                events.append('{"ph": "B", "ts": %d, "pid": 1, "tid": %d, "name": "%s", "cat": "c"}'
                              % (ts, tid, name))
            elif r < 0.45 and stack:
                stack.pop()
                events.append('{"ph": "E", "ts": %d, "pid": 1, "tid": %d}' % (ts, tid))
            elif r < 0.7:
                events.append('{"ph": "X", "ts": %d, "dur": %d, "pid": 1, "tid": %d, "name": "x%d"}'
                              % (ts, rng.randint(0, 20), tid, rng.randint(0, 5)))
            elif r < 0.85:
                events.append('{"ph": "C", "ts": %d, "pid": 2, "name": "mem", "args": {"heap": %d, "rss": %d}}'
                              % (ts, rng.randint(0, 999), rng.randint(0, 99)))
            elif r < 0.9:
                events.append('{"ph": "b", "ts": %d, "pid": 1, "tid": %d, "cat": "net", "name": "req", "id": %d}'
                              % (ts, tid, len(events)))
                events.append('{"ph": "e", "ts": %d, "pid": 1, "tid": %d, "cat": "net", "name": "req", "id": %d}'
                              % (ts + rng.randint(1, 9), tid, len(events) - 1))
            elif r < 0.92:
                # Far out of order: an instant long before or after its neighbours.
                events.append('{"ph": "i", "ts": %d, "pid": 1, "tid": %d, "name": "late", "s": "t"}'
                              % (max(0, ts + rng.randint(-20000, 20000)), tid))
            else:
                events.append('{"ph": "i", "ts": %d, "pid": 1, "tid": %d, "name": "tick", "s": "t"}' % (ts, tid))
        while stack:
            ts += rng.randint(1, 30)
            stack.pop()
            events.append('{"ph": "E", "ts": %d, "pid": 1, "tid": %d}' % (ts, tid))
        clock[tid] = ts
    body = ',\n'.join(events)
    if form == 'array':
        return '[\n' + body + '\n]\n'
    return '{"displayTimeUnit": "ms", "traceEvents": [\n' + body + '\n], "otherData": {"v": 1}}\n'


def csv(rng, n, form):
    rows = []
    t = 0.0
    for _ in range(n):
        t += rng.random() * 0.01
        jitter = rng.random() * 0.5 if rng.random() < 0.02 else 0.0
        if form == 'wide':
            rows.append('%.6f,%d,%.3f' % (t - jitter, rng.randint(0, 100), rng.random() * 50))
        else:
            rows.append('%.6f,%s,%.3f' % (t - jitter, rng.choice(['cpu', 'mem', 'io']), rng.random() * 50))
    header = 'time,cpu,mem' if form == 'wide' else 'time,series,value'
    return header + '\n' + '\n'.join(rows) + '\n'


def perf(rng, n):
    out = ['# ========\n# captured on: test\n# ========\n#\n']
    t = 1000.0
    for _ in range(n):
        t += rng.random() * 0.001
        when = t - (rng.random() * 0.3 if rng.random() < 0.02 else 0.0)
        tid = rng.randint(100, 103)
        out.append('app %d/%d [00%d] %.6f: 250000 cpu-clock:pppH:\n' % (100, tid, tid % 4, when))
        for d in range(rng.randint(1, 5)):
            out.append('\t    %012x fn%d+0x1%d (/usr/bin/app)\n' % (0x400000 + d, rng.randint(0, 7), d))
        out.append('\n')
    return ''.join(out)


def run(args, env_extra):
    env = dict(os.environ, TSL_INDEX_CHUNK_BYTES=CHUNK, G_MESSAGES_DEBUG='tsl-read-stream tsl-chunk-index')
    env.update(env_extra)
    return subprocess.run([timeslice] + args, env=env, capture_output=True, timeout=300)


def cache_checks(tmp, rng, failures):
    """The index cache under $XDG_CACHE_HOME/timeslice: a second process
    uses it (no first pass), and any change to the file or damage to the
    entry means the file is read again, with the same table."""
    path = os.path.join(tmp, 'cached.json')
    out = os.path.join(tmp, 'cached.csv')
    cache = os.path.join(tmp, 'xdg-cache')
    with open(path, 'w') as f:
        f.write(chrome(rng, 20000, 'object'))
    args = ['compare', '--a', '20%..22%', '--b', '70%..72%', '--rounds', '200', '-o', out, path]

    def table(env):
        proc = run(args, dict(env, XDG_CACHE_HOME=cache))
        if proc.returncode != 0:
            failures.append('cache: exit %d: %s' % (proc.returncode, proc.stderr.decode()[-300:]))
            return None, ''
        with open(out, 'rb') as f:
            return f.read(), proc.stdout.decode()

    def check(what, expect_cache):
        whole, _ = table({'TSL_NO_INDEX': '1'})
        got, log = table({})
        from_cache = 'from the cache' in log
        if got != whole:
            failures.append('cache, %s: the table differs from a whole read' % what)
        if from_cache != expect_cache:
            failures.append('cache, %s: index %s the cache' % (what, 'from' if from_cache else 'not from'))
        print('ok cache: %s' % what)

    table({})   # records and writes the entry
    entries = [os.path.join(cache, 'timeslice', n) for n in os.listdir(os.path.join(cache, 'timeslice'))]
    if len(entries) != 1:
        failures.append('cache: %d entries after one read, not 1' % len(entries))
        return
    check('unchanged file', True)
    # The first pass is skipped with a cached index: the range reads are all
    # that is read.
    _, log = table({})
    if log.count('through the index') != 2:
        failures.append('cache: the range reads did not use the cached index')

    st = os.stat(path)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))
    check('touched (new mtime)', False)
    check('touched, then read again', True)

    with open(path, 'a') as f:
        f.write('\n\n')
    check('appended', False)

    with open(path, 'r+') as f:
        text = f.read()
        f.seek(0)
        f.write(text[:len(text) * 2 // 3])
        f.truncate()
    check('truncated', False)

    with open(path + '.new', 'w') as f:
        f.write(chrome(rng, 20000, 'object'))
    os.replace(path + '.new', path)
    check('replaced (new inode)', False)

    # Same size and mtime, other bytes at the head: the head/tail hash tells.
    st = os.stat(path)
    with open(path, 'r+b') as f:
        head = f.read(200)
        f.seek(0)
        f.write(head.replace(b'Main', b'Mein'))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    check('same size and mtime, head changed', False)

    entry = os.path.join(cache, 'timeslice', os.listdir(os.path.join(cache, 'timeslice'))[0])
    for what, damage in (('corrupt entry', lambda b: b[:100] + bytes([b[100] ^ 1]) + b[101:]),
                         ('truncated entry', lambda b: b[:len(b) // 2]),
                         ('empty entry', lambda b: b'')):
        for name in os.listdir(os.path.join(cache, 'timeslice')):
            p = os.path.join(cache, 'timeslice', name)
            with open(p, 'rb') as f:
                data = f.read()
            with open(p, 'wb') as f:
                f.write(damage(data))
        check(what, False)
        check(what + ', rewritten', True)

    # An unwritable cache (its directory cannot be made): read, never fail.
    blocker = os.path.join(tmp, 'not-a-dir')
    with open(blocker, 'w') as f:
        f.write('x')
    for _ in range(2):
        proc = run(args, {'XDG_CACHE_HOME': blocker})
        if proc.returncode != 0 or 'from the cache' in proc.stdout.decode():
            failures.append('cache: unwritable cache dir: exit %d' % proc.returncode)
    print('ok cache: unwritable')


def gauge_end_checks(tmp, failures):
    """A gauge's last point in a range holds until the series' end in the
    whole file (its last point plus its median gap): a range read through
    the index must take both from the index, not from the chunks it read.
    Ranges near and past the end of the data, on traces whose unsorted
    bursts put the counter's last points in chunks such a range skips."""
    for n in (5000, 10000, 40000):
        path = os.path.join(tmp, 'gauge-%d.json' % n)
        text = chrome(random.Random(1919), n, 'object')
        with open(path, 'w') as f:
            f.write(text)
        times = [e['ts'] for e in json.loads(text)['traceEvents'] if 'ts' in e]
        span = max(times) - min(times)
        # Percentages end at 100%; a range past the data is in time units.
        ranges = [('88.37%..98.37%', '35.53%..45.53%'), ('90%..100%', '0%..10%'),
                  ('97%..99.5%', '99%..100%'),
                  ('%dus..%dus' % (span * 0.96, span * 1.06), '%dus..%dus' % (span * 0.5, span * 0.6))]
        for a, b in ranges:
            tables = []
            for env in ({}, {'TSL_NO_INDEX': '1'}):
                out = os.path.join(tmp, 'gauge.csv')
                proc = run(['compare', '--a', a, '--b', b, '--rounds', '200', '-o', out, path],
                           dict(env, TSL_INDEX_CHUNK_BYTES='87313', TSL_CACHE_MAX_BYTES='0'))
                if proc.returncode != 0:
                    failures.append('gauge end, %d events, %s %s: exit %d: %s'
                                    % (n, a, b, proc.returncode, proc.stderr.decode()[-300:]))
                    break
                with open(out, 'rb') as f:
                    tables.append(f.read())
            if len(tables) == 2 and tables[0] != tables[1]:
                failures.append('gauge end, %d events, --a %s --b %s: the compare table differs with the index'
                                % (n, a, b))
            print('ok gauge end: %d events, --a %s --b %s' % (n, a, b))


def main():
    rng = random.Random(19)
    failures = []
    inputs = [
        ('chrome-array.json', chrome(rng, 30000, 'array')),
        ('chrome-object.json', chrome(rng, 30000, 'object')),
        ('wide.csv', csv(rng, 40000, 'wide')),
        ('long.csv', csv(rng, 40000, 'long')),
        ('perf.txt', perf(rng, 12000)),
    ]
    with tempfile.TemporaryDirectory() as tmp:
        cache_checks(tmp, rng, failures)
        gauge_end_checks(tmp, failures)
        for name, text in inputs:
            path = os.path.join(tmp, name)
            with open(path, 'w') as f:
                f.write(text)
            size = os.path.getsize(path)
            for trial in range(4):
                a = rng.uniform(0, 95)
                b = rng.uniform(0, 95)
                wa = rng.choice([1, 2, 5])
                args = ['compare', '--a', '%.2f%%..%.2f%%' % (a, a + wa), '--b', '%.2f%%..%.2f%%' % (b, b + wa),
                        '--rounds', '200', path]
                out_i = os.path.join(tmp, 'indexed.csv')
                out_w = os.path.join(tmp, 'whole.csv')
                indexed = run(args[:-1] + ['-o', out_i, path], {})
                whole = run(args[:-1] + ['-o', out_w, path], {'TSL_NO_INDEX': '1'})
                what = '%s %s' % (name, ' '.join(args[:5]))
                if indexed.returncode != 0 or whole.returncode != 0:
                    failures.append('%s: exit %d/%d: %s' % (what, indexed.returncode, whole.returncode,
                                                            indexed.stderr.decode()[-300:]))
                    continue
                with open(out_i, 'rb') as f, open(out_w, 'rb') as g:
                    same = f.read() == g.read()
                if not same:
                    failures.append('%s: the compare table differs with the index' % what)
                # GLib writes debug messages to standard output.
                if b'through the index' in whole.stdout:
                    failures.append('%s: TSL_NO_INDEX=1 still read through the index' % what)
                # Two range reads, then the shifted copies of A and B (8 to
                # 16 when they fit, tsl-compare-shifts.c) in groups of at
                # most 4 on one side: 2 to 5 groups, one read each, or two
                # when A and B overlap. Each read must skip chunks.
                reads = [line for line in indexed.stdout.decode().splitlines() if 'through the index' in line]
                ra, rb = round(a, 2), round(b, 2)
                per_group = 2 if (ra < rb + wa and rb < ra + wa) else 1
                extra = len(reads) - 2
                if extra != 0 and not (extra % per_group == 0 and 2 <= extra // per_group <= 5):
                    failures.append('%s: %d range reads went through the index, not 2 (or 2 to 5 groups '
                                    'of shifted copies more, %d read each)' % (what, len(reads), per_group))
                for line in reads:
                    got = int(line.split(': read ')[1].split(' ')[0])
                    if got >= size // 2:
                        failures.append('%s: a %d%% range read %d of %d bytes' % (what, wa, got, size))
                print('ok %s' % what)

            # A pipe has no index: the one pass is split by time instead.
            with open(path, 'rb') as f:
                piped = subprocess.run([timeslice, 'compare', '--a', '0%..10%', '--b', '50%..60%', '-'],
                                       stdin=f, capture_output=True, timeout=300,
                                       env=dict(os.environ, G_MESSAGES_DEBUG='tsl-read-stream'))
            if piped.returncode != 0 or b'through the index' in piped.stdout or \
               b'not a seekable file' not in piped.stderr:
                failures.append('%s from a pipe: %r' % (name, piped.stderr.decode()[-300:]))

    for f in failures:
        print('FAIL: ' + f)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
