#!/usr/bin/env python3
# test-pprof.py: pprof profiles (profile.proto) against an independent reading
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# The facts of tests/data/pprof/go-*.pprof (busy.go beside them, recorded
# with runtime/pprof, and gotest/busy_test.go, by `go test -cpuprofile`) are computed here with a protobuf reader of a few lines
# and Python's gzip: each Sample record's stack (locations leaf first, a
# location's inlined lines caller last, both reversed), its count of samples,
# its thread label, and the samples' places, spread evenly over
# [time_nanos, time_nanos + duration_nanos) in file order. The command line
# must agree: `info --json` (format, events, span, a sampled track per thread
# label), `sample` (every sample at its place, its cpu time as the value),
# the flame graph's call tree and folded stacks, a range's flame graph, and
# `compare` of two ranges and of the two recordings (per-function shares of
# samples; the function the recording made slower comes out on top). Hand-made
# profiles (encoded here) check the choice of weight and count, unsymbolized
# frames, and damage: a location naming a missing function, indices out of
# range, negative and missing values, wrong wire types, cuts of the protobuf
# and of the gzip stream; each warns with its byte and keeps what was read.
# Generated profiles (bench/gen-pprof.py) held in a temporary file past a
# few bytes read the same as in memory and with no temporary file possible,
# and a large one in flat memory. Perfetto traces, also protobuf, are not
# taken for pprof.

import csv
import glob
import gzip
import io
import os
import re
import subprocess
import sys
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import profile_check  # noqa: E402
from profile_check import (SANITIZED, check, flame_csv, folded, generate, info, peak_rss, run,  # noqa: E402
                           sample_rows, top)

data = os.path.join(top, 'tests', 'data', 'pprof')
tmp = profile_check.setup('pprof')


# --- the wire format, read -------------------------------------------------

def varint(b, i):
    v = shift = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7f) << shift
        shift += 7
        if c < 0x80:
            return v, i


def fields(b):
    """(number, wire, value) of each field of a message."""
    i = 0
    while i < len(b):
        key, i = varint(b, i)
        wire = key & 7
        if wire == 0:
            v, i = varint(b, i)
        elif wire == 2:
            n, i = varint(b, i)
            v = b[i:i + n]
            i += n
        elif wire == 1:
            v, i = int.from_bytes(b[i:i + 8], 'little'), i + 8
        elif wire == 5:
            v, i = int.from_bytes(b[i:i + 4], 'little'), i + 4
        else:
            raise ValueError(f'wire type {wire}')
        yield key >> 3, wire, v


def signed(v):
    return v - (1 << 64) if v >= 1 << 63 else v


def repeated(wire, v):
    """A repeated varint field: packed or not."""
    if wire == 0:
        return [v]
    out, i = [], 0
    while i < len(v):
        x, i = varint(v, i)
        out.append(x)
    return out


def parse(raw):
    if raw[:2] == b'\x1f\x8b':
        raw = gzip.decompress(raw)
    p = dict(types=[], samples=[], locations={}, functions={}, mappings={}, strings=[],
             time=0, duration=0, period=0, period_type=(0, 0), default_type=0)
    for n, wire, v in fields(raw):
        if n in (1, 11):
            vt = dict((k, x) for k, _, x in fields(v))
            pair = (vt.get(1, 0), vt.get(2, 0))
            if n == 1:
                p['types'].append(pair)
            else:
                p['period_type'] = pair
        elif n == 2:
            s = dict(locs=[], values=[], labels=[])
            for k, w, x in fields(v):
                if k == 1:
                    s['locs'] += repeated(w, x)
                elif k == 2:
                    s['values'] += [signed(y) for y in repeated(w, x)]
                elif k == 3:
                    s['labels'].append(dict((a, b) for a, _, b in fields(x)))
            p['samples'].append(s)
        elif n == 3:
            m = dict((k, x) for k, _, x in fields(v))
            p['mappings'].setdefault(m.get(1, 0), m)
        elif n == 4:
            loc = dict(lines=[])
            for k, _, x in fields(v):
                if k == 4:
                    loc['lines'].append(dict((a, b) for a, _, b in fields(x)).get(1, 0))
                else:
                    loc[k] = x
            p['locations'].setdefault(loc.get(1, 0), loc)
        elif n == 5:
            f = dict((k, x) for k, _, x in fields(v))
            p['functions'].setdefault(f.get(1, 0), f)
        elif n == 6:
            p['strings'].append(v.decode('utf-8', 'replace'))
        elif n == 9:
            p['time'] = signed(v)
        elif n == 10:
            p['duration'] = signed(v)
        elif n == 12:
            p['period'] = signed(v)
        elif n == 14:
            p['default_type'] = signed(v)
    return p


def string(p, i):
    return p['strings'][i] if 0 <= i < len(p['strings']) else None


def frame_names(p, loc_id):
    """A location's frames, root first, as the reader names them."""
    loc = p['locations'].get(loc_id)
    if loc is None:
        return ['(unknown location)']
    if not loc['lines']:
        m = p['mappings'].get(loc.get(2, 0))
        file = string(p, m.get(5, 0)) if m else None
        addr = loc.get(3, 0)
        if file and addr >= m.get(2, 0):
            return ['%s+0x%x' % (os.path.basename(file), addr - m.get(2, 0))]
        return ['0x%x' % addr]
    names = []
    for fid in reversed(loc['lines']):
        f = p['functions'].get(fid)
        if f is None:
            names.append('(unknown function)')
            continue
        name = string(p, f.get(2, 0)) or string(p, f.get(3, 0)) or '(unnamed function)'
        names.append(name.replace(';', ':'))
    return names


def choose(p):
    """(weight, count) sample type indices, as documented in the reader."""
    named = [(string(p, t), string(p, u)) for t, u in p['types']]
    weight = next((i for i, tu in enumerate(named) if tu == ('cpu', 'nanoseconds')), None)
    if weight is None:
        weight = next((i for i, (t, _) in enumerate(p['types']) if t == p['default_type']), None)
    if weight is None and named:
        weight = len(named) - 1
    count = next((i for i, tu in enumerate(named) if tu == ('samples', 'count')), None)
    if count is None:
        count = next((i for i, (_, u) in enumerate(named) if u == 'count'), None)
    return weight, count


THREAD_KEYS = {'thread', 'thread_name', 'threadname', 'thread_id', 'tid', 'goroutine'}


def facts(path):
    """Every sample: (track, stack, time in ns, value), in file order."""
    with open(path, 'rb') as f:
        p = parse(f.read())
    weight, count = choose(p)
    records = []
    for s in p['samples']:
        c = s['values'][count] if count is not None and count < len(s['values']) else (0 if count is not None else 1)
        c = max(c, 0)
        w = s['values'][weight] if weight is not None and weight < len(s['values']) else 0
        thread = None
        for label in s['labels']:
            if (string(p, label.get(1, 0)) or '').lower() in THREAD_KEYS and thread is None:
                thread = string(p, label.get(2, 0)) if label.get(2, 0) else None
                if not thread and 3 in label:
                    thread = str(signed(label[3]))
        stack = [n for loc in reversed(s['locs']) for n in frame_names(p, loc)]
        value = 1.0 if weight == count else (max(w, 0) / c if c else 0)
        records.append((thread, ';'.join(stack) or '(no stack)', c, value))
    n = sum(r[2] for r in records)
    threads = {r[0] for r in records}
    samples, k = [], 0
    for thread, stack, c, value in records:
        name = thread if thread is not None else ('(no thread label)' if len(threads) > 1 else 'pprof profile')
        for _ in range(c):
            samples.append((name, stack, p['time'] + p['duration'] * k // n, value))
            k += 1
    return p, samples


# --- the command line -------------------------------------------------------

def flame_paths(samples):
    """The flame graph's call paths (threads merged, the default)."""
    return Counter(s[1] for s in samples)


def inclusive(samples):
    """Per thread/function: the samples whose stack holds it (once each)."""
    return Counter(s[0] + '/' + f for s in samples for f in set(s[1].split(';')))


def check_compare(label, args, a_samples, b_samples):
    proc = run('compare', *args)
    rows = list(csv.DictReader(io.StringIO(proc.stdout.decode())))
    a_n, b_n = inclusive(a_samples), inclusive(b_samples)
    a_tot, b_tot = Counter(s[0] for s in a_samples), Counter(s[0] for s in b_samples)
    ok = proc.returncode == 0 and len(rows) == len(set(a_n) | set(b_n))
    bad = []
    for r in rows:
        series = r['series']
        thread = series.split('/', 1)[0]
        good = r['stat'] == 'share' and int(r['a_n']) == a_n[series] and int(r['b_n']) == b_n[series] \
            and (a_tot[thread] == 0 or abs(float(r['a_value']) - a_n[series] / a_tot[thread]) < 1e-9) \
            and (b_tot[thread] == 0 or abs(float(r['b_value']) - b_n[series] / b_tot[thread]) < 1e-9)
        if not good:
            bad.append(r)
        ok = ok and good
    check(f'compare of {label}: per-function sample shares', ok, (proc.stderr.decode()[:200], bad[:2]))
    return rows


def check_recording():
    path = os.path.join(data, 'go-before.pprof')
    p, samples = facts(path)
    start, end = p['time'], p['time'] + p['duration']
    check('recording: has samples, labels and inlined frames', len(samples) > 50 and
          len({s[0] for s in samples}) == 3 and any(len(loc['lines']) > 1 for loc in p['locations'].values()),
          f'{len(samples)} samples')

    rc, got, err = info(path)
    check('recording: info exit 0', rc == 0, err)
    if rc != 0:
        return
    check('recording: format', got['format'] == 'pprof', got['format'])
    check('recording: events', got['events'] == len(samples), f"{got['events']} != {len(samples)}")
    check('recording: span', abs(got['span_s'] - (end - start) / 1e9) < 1e-9, f"{got['span_s']}")
    tracks = {t['name']: t['samples'] for t in got['tracks'] if t['kind'] == 'thread'}
    check('recording: one sampled track per thread label', tracks == Counter(s[0] for s in samples), repr(tracks))
    check('recording: the warning says the samples are spread evenly',
          any(re.search(r'spread evenly over the profile\'s 4\.\d+ s in file order', w) for w in got['warnings'])
          and any('"samples" (count)' in w and '"cpu" (nanoseconds)' in w for w in got['warnings']),
          repr(got['warnings']))

    rows = sample_rows(path)
    want = Counter((s[0], s[1], round((s[2] - start) / 1e9, 9), s[3]) for s in samples)
    have = Counter((r['track'], r['label'], round(float(r['time_s']), 9), float(r['value'])) for r in rows)
    check('recording: every sample at its place with its cpu time', have == want,
          repr(list((have - want).items())[:2]) + ' vs ' + repr(list((want - have).items())[:2]))
    leaves = Counter(s[1].split(';')[-1] for s in samples)
    check('recording: the program\'s functions are there', all(leaves[f] > 0 for f in ('main.mix',))
          and any('main.digest' in s[1] for s in samples) and any('main.sortSome' in s[1] for s in samples),
          repr(leaves.most_common(5)))

    check('recording: flame graph self weights', flame_csv(path) == {k: float(v) for k, v in
                                                                     flame_paths(samples).items()})
    check('recording: folded stacks', folded(path) == flame_paths(samples))

    # A range: the samples whose places fall in it (bounds between two ns).
    def in_range(a, b):
        return [s for s in samples if a <= (s[2] - start) / 1e9 < b]

    check('recording: a range\'s flame graph', flame_csv(path, '0.5000000005s..2.2000000005s') ==
          {k: float(v) for k, v in flame_paths(in_range(0.5000000005, 2.2000000005)).items()})
    check_compare('two ranges', ['--a', '0.2000000005s..1.9000000005s', '--b', '1.9000000005s..3.9000000005s', path],
                  in_range(0.2000000005, 1.9000000005), in_range(1.9000000005, 3.9000000005))

    # The two recordings: busy.go's mix() did 4 times the work in the second.
    after = os.path.join(data, 'go-after.pprof')
    _, b_samples = facts(after)
    rows = check_compare('the two recordings', [path, after], samples, b_samples)
    a_n, b_n = inclusive(samples), inclusive(b_samples)
    a_tot, b_tot = Counter(s[0] for s in samples), Counter(s[0] for s in b_samples)
    for thread in sorted(a_tot):
        gains = {f.split('/', 1)[1]: b_n[f] / b_tot[thread] - a_n[f] / a_tot[thread]
                 for f in set(a_n) | set(b_n) if f.startswith(thread + '/')}
        ours = [r for r in rows if r['series'].startswith(thread + '/')]
        top_row = max(ours, key=lambda r: float(r['b_value']) - float(r['a_value']))
        check(f'the two recordings, {thread}: main.mix got the most expensive',
              max(gains, key=gains.get) == 'main.mix' and top_row['series'] == thread + '/main.mix',
              top_row['series'])

    # The tracks are in a group a person reads, not the format's code name.
    pdf = os.path.join(tmp, 'timeline.pdf')
    proc = run('export', '-o', pdf, path)
    text = subprocess.run(['pdftotext', pdf, '-'], capture_output=True, text=True).stdout
    check('recording: the tracks\' group is "Profiles"', proc.returncode == 0 and 'Profiles' in text
          and 'worker-1' in text and '\npprof\n' not in text, text[:300])

    # Sniffed from the content, not the name; plain (not gzipped) as well.
    plain = os.path.join(tmp, 'profile.json')
    with open(plain, 'wb') as f:
        f.write(gzip.decompress(open(path, 'rb').read()))
    rc, got2, _ = info(plain)
    check('recording: sniffed whatever its name, inflated too', rc == 0 and got2['format'] == 'pprof'
          and got2['events'] == got['events'])


def check_go_test():
    path = os.path.join(data, 'go-test-cpuprofile.pprof')
    p, samples = facts(path)
    rc, got, err = info(path)
    check('go test: read', rc == 0, err)
    if rc != 0:
        return
    check('go test: events and one track', got['events'] == len(samples) > 0 and
          [(t['name'], t['samples']) for t in got['tracks']] == [('pprof profile', len(samples))], repr(got['tracks']))
    check('go test: span', abs(got['span_s'] - p['duration'] / 1e9) < 1e-9)
    check('go test: the benchmarks are there', any('busytest.fib' in s[1] for s in samples)
          and any('busytest.BenchmarkSort' in s[1] for s in samples))
    check('go test: flame graph self weights', flame_csv(path) == {k: float(v) for k, v in
                                                                   flame_paths(samples).items()})
    check('go test: folded stacks', folded(path) == flame_paths(samples))


# --- hand-made profiles -----------------------------------------------------

def enc_varint(v):
    v &= (1 << 64) - 1
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7f) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def fv(n, v):
    return enc_varint(n << 3) + enc_varint(v)


def fl(n, b):
    return enc_varint(n << 3 | 2) + enc_varint(len(b)) + b


def packed(n, values):
    return fl(n, b''.join(enc_varint(v) for v in values))


def profile(strings, types, samples, functions, locations, mappings=(), time=1_000_000_000,
            duration=40_000_000, period=(None, 0), extra=b''):
    """types: (type, unit) string indices; samples: (locs, values, labels);
    functions: (id, name); locations: (id, [function ids, caller last], mapping, address)."""
    out = bytearray()
    for t, u in types:
        out += fl(1, fv(1, t) + fv(2, u))
    for locs, values, labels in samples:
        out += fl(2, packed(1, locs) + packed(2, values) +
                  b''.join(fl(3, fv(1, k) + (fv(2, s) if s else b'') + (fv(3, num) if num is not None else b''))
                           for k, s, num in labels))
    for mid, start, fname in mappings:
        out += fl(3, fv(1, mid) + fv(2, start) + fv(5, fname))
    for lid, lines, mapping, address in locations:
        out += fl(4, fv(1, lid) + (fv(2, mapping) if mapping else b'') + fv(3, address) +
                  b''.join(fl(4, fv(1, f) + fv(2, 7)) for f in lines))
    for fid, name in functions:
        out += fl(5, fv(1, fid) + fv(2, name))
    for s in strings:
        out += fl(6, s.encode())
    if time is not None:
        out += fv(9, time)
    if duration is not None:
        out += fv(10, duration)
    if period[0] is not None:
        out += fl(11, fv(1, period[0]) + fv(2, period[1])) + fv(12, 10_000_000)
    return bytes(out + extra)


STRINGS = ['', 'samples', 'count', 'cpu', 'nanoseconds', 'main', 'work', 'inner', 'thread', 'w1', 'libx.so',
           'alloc_space', 'bytes', 'tid']
GO_TYPES = [(1, 2), (3, 4)]
FUNCS = [(1, 5), (2, 6), (3, 7)]
LOCS = [(1, [1], 0, 0x10), (2, [3, 2], 0, 0x20)]   # 2: inner inlined into work


def write(name, raw, gz=True):
    path = os.path.join(tmp, name + '.pprof')
    with open(path, 'wb') as f:
        f.write(gzip.compress(raw, mtime=0) if gz else raw)
    return path


def hand(name, raw, want_events, warning_re=None, gz=True):
    """Reads a hand-made profile: events as the script says, the warning
    with its byte, the stacks as the script says. Returns the info."""
    path = write(name, raw, gz)
    rc, got, err = info(path)
    check(f'{name}: read', rc == 0, err)
    if rc != 0:
        return path, None
    check(f'{name}: every sample kept', got['events'] == want_events, f"{got['events']} != {want_events}")
    if warning_re is not None:
        hits = [w for w in got['warnings'] if re.search(warning_re, w)]
        check(f'{name}: warned with the byte', hits != [] and re.match(re.escape(path) + r':\d+: ', hits[0]),
              repr(got['warnings']))
    return path, got


def check_hand():
    # The weight and count chosen; values per sample; a thread label.
    raw = profile(STRINGS, GO_TYPES, [([2, 1], [3, 30_000_000], [(8, 9, None)]), ([1], [1, 10_000_000], [])],
                  FUNCS, LOCS)
    path, got = hand('go-like', raw, 4)
    if got:
        _, samples = facts(path)
        check('go-like: tracks', {t['name']: t['samples'] for t in got['tracks']} == {'w1': 3, '(no thread label)': 1})
        check('go-like: folded stacks (inlined frames)', folded(path) == flame_paths(samples)
              and flame_paths(samples)['main;work;inner'] == 3, repr(folded(path)))
        rows = sample_rows(path)
        check('go-like: places and values', sorted((r['time_s'], r['value']) for r in rows) ==
              [('0', '1e+07'), ('0.01', '1e+07'), ('0.02', '1e+07'), ('0.03', '1e+07')], repr(rows))

    # No count type: one sample a record, weighted by the default type.
    raw = profile(STRINGS, [(11, 12)], [([1], [4096], [(13, 0, 7)]), ([2], [100], [])], FUNCS, LOCS,
                  extra=fv(14, 11))
    path, got = hand('no-count', raw, 2, gz=False)
    if got:
        check('no-count: said', any('no sample type counts samples' in w for w in got['warnings']))
        check('no-count: the weight is the default type', any('"alloc_space" (bytes)' in w for w in got['warnings']))
        check('no-count: a numeric thread label', '7' in {t['name'] for t in got['tracks']}, repr(got['tracks']))
        values = sorted(float(r['value']) for r in sample_rows(path))
        check('no-count: values', values == [100.0, 4096.0], repr(values))

    # Unsymbolized: a mapping's file and offset, or the bare address.
    raw = profile(STRINGS, GO_TYPES, [([3, 4], [1, 1], [])], FUNCS, [(3, [], 1, 0x401234), (4, [], 0, 0xbeef)],
                  mappings=[(1, 0x400000, 10)])
    path, got = hand('unsymbolized', raw, 1)
    if got:
        check('unsymbolized: frames named by address', folded(path) == Counter({'0xbeef;libx.so+0x1234': 1}),
              repr(folded(path)))

    # Damage: each warns with its byte and keeps the samples.
    path, got = hand('missing-function', profile(STRINGS, GO_TYPES, [([2], [2, 2], [])], FUNCS,
                                                 [(1, [1], 0, 0), (2, [99, 2], 0, 0)]),
                     2, r'location names function 99, which is not in the profile')
    if got:
        check('missing-function: shown as (unknown function)',
              folded(path) == Counter({'work;(unknown function)': 2}), repr(folded(path)))
    path, got = hand('missing-location', profile(STRINGS, GO_TYPES, [([7, 1], [1, 1], [])], FUNCS, LOCS),
                     1, r'sample names location 7, which is not in the profile')
    if got:
        check('missing-location: shown as (unknown location)',
              folded(path) == Counter({'main;(unknown location)': 1}), repr(folded(path)))
    path, got = hand('string-out-of-range', profile(STRINGS, GO_TYPES, [([1], [1, 1], [])], [(1, 500)], LOCS),
                     1, r'function\'s name is not in the string table')
    if got:
        check('string-out-of-range: (unnamed function)', folded(path) == Counter({'(unnamed function)': 1}))
    hand('negative-count', profile(STRINGS, GO_TYPES, [([1], [-3, -30], []), ([1], [2, 20], [])], FUNCS, LOCS),
         2, r'sample\'s count is negative \(-3\); it is not shown')
    hand('missing-values', profile(STRINGS, GO_TYPES, [([1], [], []), ([1], [2], [])], FUNCS, LOCS),
         0 + 2, r'sample has 0 values for 2 sample types')
    hand('huge-count', profile(STRINGS, GO_TYPES, [([1], [1 << 40, 1], [])], FUNCS, LOCS),
         1 << 20, r'sample\'s count \(1099511627776\) is more than 1048576')
    good = profile(STRINGS, GO_TYPES, [([1], [1, 1], [])], FUNCS, LOCS)
    hand('wrong-wire-type', good + fl(9, b'xx'), 1, r'field 9 of the Profile has the wrong wire type \(2\)')
    hand('bad-key', good + b'\x0f\x00' + good, 1, r'expected a field of the Profile message.*the rest of the '
         r'pprof profile is not read')
    hand('too-long', good + enc_varint(2 << 3 | 2) + enc_varint(1 << 40), 1,
         r'claims 1099511627776 bytes.*the rest of the pprof profile is not read')
    # Cut: the samples before the cut are kept; the tables after it are lost.
    cut = good[:len(good) - 20]
    path, got = hand('cut-protobuf', cut, 1, r'the pprof profile ends inside a field \(\d+ bytes of it present\)')
    # A cut gzip stream: what it inflated is read, and the reader says it is cut.
    raw = gzip.compress(profile(STRINGS, GO_TYPES, [([2, 1], [1, 1], [])] * 400, FUNCS, LOCS), mtime=0)
    path = os.path.join(tmp, 'cut-gzip.pprof')
    with open(path, 'wb') as f:
        f.write(raw[:len(raw) * 2 // 3])
    rc, got, err = info(path)
    check('cut-gzip: read with a warning', rc == 0 and any(re.search('gzip|truncated|ends inside', w)
                                                          for w in got['warnings']), err + repr(got))
    # Random bytes and text are not pprof.
    path = write('not-pprof', b'\n\x05hello world, not a profile\n', gz=False)
    rc, got, err = info(path)
    check('text starting with a newline: not pprof', rc != 0 or got['format'] != 'pprof', repr(got))


def gen(name, mb, *extra):
    return generate('gen-pprof.py', name, str(mb), '--seed', '7', *extra)

def check_generated():
    # Peak RSS first: a child forked later would count this process's lists.
    # 60 MB of records, 15 times the 4 MiB kept in memory.
    huge = gen('huge.pprof', 60, '--gzip')
    if not SANITIZED:
        rc, rss = peak_rss(['info', '--no-cache', huge])
        check('spooled: flat memory', rc == 0 and rss < 40 << 20, f'{rss >> 20} MiB')
    os.unlink(huge)

    path = gen('small.pprof', 1)
    _, samples = facts(path)
    rc, got, err = info(path)
    check('generated: events and tracks', rc == 0 and got['events'] == len(samples) and
          {t['name']: t['events'] for t in got['tracks']} == Counter(s[0] for s in samples), err)
    check('generated: flame graph self weights', flame_csv(path) == {k: float(v) for k, v in
                                                                    flame_paths(samples).items()})
    # Spilled every 1000 bytes: many blocks, records across them.
    small_spool = {'TSL_PPROF_SPOOL_BYTES': '1000'}
    in_memory = run('sample', path).stdout
    check('spooled: the same samples as in memory', in_memory != b'' and
          run('sample', path, env_extra=small_spool).stdout == in_memory)
    check('spooled: the same info', info(path, env_extra=small_spool)[1] == got)
    # No temporary file possible: the spool stays in memory, same result.
    no_tmp = dict(small_spool, TMPDIR=os.path.join(tmp, 'missing'))
    check('spooled: no temporary file, the same samples', run('sample', path, env_extra=no_tmp).stdout == in_memory)


def check_perfetto_not_taken():
    paths = glob.glob(os.path.join(top, 'tests', 'data', 'perfetto', '*.pftrace'))
    formats = {os.path.basename(p): info(p)[1]['format'] for p in paths}
    check('Perfetto traces are not taken for pprof', formats != {} and set(formats.values()) == {'perfetto-proto'},
          repr(formats))


def main():
    check_recording()
    check_go_test()
    check_hand()
    check_generated()
    check_perfetto_not_taken()
    profile_check.finish()


if __name__ == '__main__':
    main()
