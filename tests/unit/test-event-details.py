#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Slice details (issue 18 item 2): the Chrome reader remembers where each
# exact slice's event starts in the file, and tsl_event_details_read() reads
# that one event back. On a generated trace (nested B/E and X spans and
# instants, args of every JSON type, escapes, non-ASCII, members in varying
# order and spacing) every slice's offset is its event's, and its details
# equal what Python's json module reads for that event; with one thread and
# with the reader's worker splitting every buffer; after a UTF-8 BOM; and in
# gzip and multi-frame zstd input, where the offsets are of the decompressed
# text and the details are read from the chunk index's nearest access point.
import gzip
import json
import os
import random
import subprocess
import sys
import tempfile

dump = os.path.join(os.environ['G_TEST_BUILDDIR'], 'event-details-dump')
tmp = tempfile.mkdtemp()
failures = []


def check(cond, what):
    print(('ok   ' if cond else 'FAIL ') + what)
    if not cond:
        failures.append(what)


def random_args(rnd):
    args = {}
    for j in range(rnd.randrange(0, 5)):
        kind = rnd.randrange(7)
        key = rnd.choice(['url', 'size', 'ratio', 'flag', 'data', 'none', 'clé', 'q"uote'])
        args[key + str(j)] = [
            lambda: rnd.choice(['plain', 'é ü 漢字', 'tab\there', 'quote " and \\ back', 'line\nbreak']),
            lambda: rnd.randrange(-10**12, 10**12),
            lambda: rnd.uniform(-1e6, 1e6),
            lambda: rnd.random() < 0.5,
            lambda: None,
            lambda: {'nested': [1, 2.5, 'x', {'deep': True}]},
            lambda: [rnd.randrange(100) for _ in range(3)],
        ][kind]()
    return args


def generate(rnd, n_per_thread=3000):
    events = []
    for tid in range(1, 5):
        ts = 1000
        for _ in range(n_per_thread // 6):
            ts += rnd.randrange(1, 50)
            start = ts
            outer = {'name': 'frame', 'cat': rnd.choice(['render', 'gc,v8', 'disabled-by-default-x']),
                     'ph': 'B', 'ts': start, 'pid': 7, 'tid': tid, 'args': random_args(rnd)}
            events.append(outer)
            for _ in range(rnd.randrange(1, 4)):
                ts += rnd.randrange(1, 20)
                dur = rnd.randrange(1, 20)
                ev = {'name': rnd.choice(['parse', 'layout', 'paint «ß»']), 'ph': 'X',
                      'ts': ts + rnd.choice([0, 0.25, 0.5]), 'dur': dur, 'pid': 7, 'tid': tid}
                if rnd.random() < 0.7:
                    ev['cat'] = 'blink'
                if rnd.random() < 0.8:
                    ev['args'] = random_args(rnd)
                events.append(ev)
                ts += dur + 1
            if rnd.random() < 0.3:
                events.append({'name': 'mark', 'ph': 'i', 's': 't', 'ts': ts, 'pid': 7, 'tid': tid,
                               'args': random_args(rnd)})
            ts += 2
            events.append({'ph': 'E', 'ts': ts, 'pid': 7, 'tid': tid, 'args': {'end': 1}})
        events.append({'name': 'C', 'ph': 'C', 'ts': ts, 'pid': 7, 'args': {'v': 3}})
    return events


def write(path, events, rnd, bom=False):
    """Writes the object form with varied member order and spacing; returns
    the byte offset of each event's '{'."""
    offsets = []
    out = bytearray(b'\xef\xbb\xbf' if bom else b'')
    out += b'{"displayTimeUnit": "ns", "traceEvents": [\n'
    for i, ev in enumerate(events):
        items = list(ev.items())
        if rnd.random() < 0.3:
            rnd.shuffle(items)
        compact = rnd.random() < 0.5
        text = json.dumps(dict(items), ensure_ascii=rnd.random() < 0.5,
                          separators=(',', ':') if compact else (', ', ': '))
        if i:
            out += b',\n' if rnd.random() < 0.8 else b', '
        offsets.append(len(out))
        out += text.encode('utf-8')
    out += b'\n]}\n'
    with open(path, 'wb') as f:
        f.write(out)
    return offsets


def expected_fields(ev):
    fields = [(k, ev[k]) for k in ('name', 'cat', 'ph', 'ts', 'dur') if k in ev]
    fields += [('args.' + k, v) for k, v in ev.get('args', {}).items()]
    return fields


def same_value(text, value):
    if isinstance(value, str):
        return text == value
    if isinstance(value, bool):
        return text == ('true' if value else 'false')
    if isinstance(value, int):
        return text == str(value)
    if isinstance(value, float):
        return float(text) == value
    return json.loads(text) == value


def run(path, threads, extra=None):
    env = dict(os.environ, TSL_READER_THREADS=threads)
    env.update(extra or {})
    r = subprocess.run([dump, path], capture_output=True, text=True, env=env, timeout=300)
    check(r.returncode == 0, f'{os.path.basename(path)} ({threads}): dump runs ({r.stderr.strip()[:200]})')
    return [json.loads(line) for line in r.stdout.splitlines()]


def check_file(path, events, offsets, threads, extra=None):
    opener = gzip.open if path.endswith('.gz') else open
    if path.endswith('.zst'):
        data = subprocess.run(['zstd', '-dc', path], capture_output=True, check=True).stdout
    else:
        with opener(path, 'rb') as f:
            data = f.read()
    parsed = json.loads(data.decode('utf-8-sig'))['traceEvents']
    check(parsed == events, 'the generated file reads back as generated')
    by_offset = dict(zip(offsets, parsed))
    slices = run(path, threads, extra)
    want = {o for o, ev in zip(offsets, parsed) if ev['ph'] in ('B', 'X', 'i')}
    got = [s['offset'] for s in slices]
    label = f'{os.path.basename(path)} ({threads})'
    check(len(got) == len(want) and set(got) == want,
          f'{label}: the {len(want)} slices are at their events\' offsets (got {len(got)}, '
          f'{len(set(got) - want)} wrong)')
    bad = []
    for s in slices:
        ev = by_offset.get(s['offset'])
        if ev is None or 'fields' not in s:
            bad.append(s)
            continue
        exp = expected_fields(ev)
        fields = s['fields']
        if ([k for k, _ in fields] != [k for k, _ in exp] or
                not all(same_value(t, v) for (_, t), (_, v) in zip(fields, exp)) or
                not s['name'].endswith(ev['name'])):
            bad.append((s, exp))
    check(not bad, f'{label}: every slice\'s details equal Python\'s json ({len(bad)} differ: {bad[:2]})')


rnd = random.Random(18)
events = generate(rnd)
plain = os.path.join(tmp, 'trace.json')
offsets = write(plain, events, rnd)
check(os.path.getsize(plain) > 1_000_000, 'the trace is big enough to be read in several buffers')
for threads in ('0', 'eager'):
    check_file(plain, events, offsets, threads)

bom = os.path.join(tmp, 'bom.json')
small = generate(rnd, 300)
check_file(bom, small, write(bom, small, rnd, bom=True), '0')

# Compressed: chunks of 64 KiB of text, so each lookup decompresses a little.
small_chunks = {'TSL_INDEX_CHUNK_BYTES': '65536', 'XDG_CACHE_HOME': os.path.join(tmp, 'cache')}
gz = os.path.join(tmp, 'trace.json.gz')
with open(plain, 'rb') as f, gzip.open(gz, 'wb') as g:
    g.write(f.read())
check_file(gz, events, offsets, '0', small_chunks)
# Without an index (TSL_NO_INDEX): decompressed from the start, same details.
small_plain = os.path.join(tmp, 'small.json')
small_offsets = write(small_plain, small, rnd)
with open(small_plain, 'rb') as f, gzip.open(small_plain + '.gz', 'wb') as g:
    g.write(f.read())
check_file(small_plain + '.gz', small, small_offsets, '0', {'TSL_NO_INDEX': '1'})

zst = os.path.join(tmp, 'trace.json.zst')
with open(plain, 'rb') as f:
    data = f.read()
with open(zst, 'wb') as z:
    for i in range(0, len(data), 100_000):
        z.write(subprocess.run(['zstd', '-q', '-c'], input=data[i:i + 100_000], capture_output=True,
                               check=True).stdout)
check_file(zst, events, offsets, '0', small_chunks)

sys.exit(1 if failures else 0)
