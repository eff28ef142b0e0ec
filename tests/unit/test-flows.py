#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Flow arrows (issue 18 item 7, issue 20): `export --view … --flows` lists
# the arrows the timeline draws, each from the slice a flow leaves to the
# slice it reaches. Chrome flow v1 ('s'/'t'/'f': enclosing slice, 'f' the
# next slice unless "bp": "e"), flow v2 (bind_id, flow_in, flow_out on X and
# B events) and Perfetto's TrackEvent flow_ids / terminating_flow_ids are
# checked against what this script computes from the trace it writes; `info`
# counts them all.
import csv
import json
import os
import random
import struct
import subprocess
import sys
import tempfile
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from perfetto_proto import (BEGIN, CLEARED, END, FLAGS, SEQ, Fixed64, event,  # noqa: E402
                            packed, process_track, thread_track, trace)

exe = os.environ['TSL_TIMESLICE']
env = {k: v for k, v in os.environ.items() if k not in ('DISPLAY', 'WAYLAND_DISPLAY')}
tmp = tempfile.mkdtemp()
failures = []


def check(what, cond, detail=''):
    print(('ok   ' if cond else 'FAIL ') + what)
    if not cond:
        failures.append(what)
        if detail:
            print('     ' + str(detail)[:2000])


def run(*args):
    return subprocess.run([exe, *args], capture_output=True, text=True, env=env, timeout=300)


def arrows(path, view, *extra):
    out = os.path.join(tmp, 'flows.csv')
    proc = run('export', '--view', view, '-o', out, '--flows', *extra, path)
    if proc.returncode != 0:
        check('export --flows of ' + os.path.basename(path), False, proc.stderr)
        return []
    with open(out, newline='') as f:
        rows = list(csv.DictReader(f))
    return sorted((r['from_track'], int(r['from_depth']), r['from_name'], round(float(r['from_s']) * 1e6, 3),
                   r['to_track'], int(r['to_depth']), r['to_name'], round(float(r['to_s']) * 1e6, 3))
                  for r in rows)


def write_json(name, events):
    path = os.path.join(tmp, name)
    with open(path, 'w') as f:
        json.dump({'traceEvents': events}, f)
    return path


def meta(tid, name):
    return {'ph': 'M', 'name': 'thread_name', 'pid': 1, 'tid': tid, 'args': {'name': name}}


# 1. A small hand-made trace: every binding rule once.
small = write_json('small.json', [
    meta(1, 'main'), meta(2, 'worker'), meta(3, 'io'),
    # 's' inside post/send binds to send (the deepest slice holding it);
    # Chrome writes an X after the flow events inside it.
    {'ph': 'X', 'name': 'post', 'ts': 0, 'dur': 5, 'pid': 1, 'tid': 1},
    {'ph': 's', 'cat': 'c', 'name': 'task', 'id': 7, 'ts': 2, 'pid': 1, 'tid': 1},
    {'ph': 'X', 'name': 'send', 'ts': 1, 'dur': 2, 'pid': 1, 'tid': 1},
    # 't' (the id as a string is the same id) passes through run.
    {'ph': 't', 'cat': 'c', 'name': 'task', 'id': '7', 'ts': 5, 'pid': 1, 'tid': 2},
    {'ph': 'X', 'name': 'run', 'ts': 4, 'dur': 5, 'pid': 1, 'tid': 2},
    # 'f' without "bp" binds to the next slice to begin on its thread.
    {'ph': 'f', 'cat': 'c', 'name': 'task', 'id': 7, 'ts': 10, 'pid': 1, 'tid': 3},
    {'ph': 'X', 'name': 'finish', 'ts': 12, 'dur': 2, 'pid': 1, 'tid': 3},
    # Same id, other name: another flow; "bp": "e" binds to the enclosing slice.
    {'ph': 's', 'cat': 'c', 'name': 'other', 'id': 7, 'ts': 1.5, 'pid': 1, 'tid': 1},
    {'ph': 'f', 'cat': 'c', 'name': 'other', 'id': 7, 'ts': 13, 'bp': 'e', 'pid': 1, 'tid': 3},
    # A flow whose end binds to nothing (no slice on tid 4): no arrow.
    {'ph': 's', 'cat': 'c', 'name': 'lost', 'id': 1, 'ts': 2.5, 'pid': 1, 'tid': 1},
    {'ph': 'f', 'cat': 'c', 'name': 'lost', 'id': 1, 'ts': 3, 'bp': 'e', 'pid': 1, 'tid': 4},
    # Flow v2 on X and B/E events.
    {'ph': 'X', 'name': 'producer', 'ts': 20, 'dur': 2, 'pid': 1, 'tid': 1,
     'bind_id': '0xa', 'flow_out': True},
    {'ph': 'B', 'name': 'relay', 'ts': 24, 'pid': 1, 'tid': 3, 'bind_id': '0xa',
     'flow_in': True, 'flow_out': True},
    {'ph': 'E', 'ts': 26, 'pid': 1, 'tid': 3},
    {'ph': 'X', 'name': 'consumer', 'ts': 28, 'dur': 2, 'pid': 1, 'tid': 2,
     'bind_id': '0xa', 'flow_in': True},
])
want = sorted([
    ('main', 1, 'send', 2.0, 'worker', 0, 'run', 5.0),
    ('worker', 0, 'run', 5.0, 'io', 0, 'finish', 12.0),
    ('main', 1, 'send', 1.5, 'io', 0, 'finish', 13.0),
    ('main', 0, 'producer', 22.0, 'io', 0, 'relay', 24.0),
    ('io', 0, 'relay', 26.0, 'worker', 0, 'consumer', 28.0),
])
got = arrows(small, '0..40us')
check('small trace: every arrow, bound as the format says', got == want, got)
got = arrows(small, '0..40us', '--tracks', 'io')
check('--tracks keeps arrows with an end on a matching track',
      got == [w for w in want if 'io' in (w[0], w[4])], got)
got = arrows(small, '0..40us', '--tracks', 'nothing')
check('--tracks matching no track: no arrow', got == [], got)
# A view holding only the v2 flow: the v1 ends are outside it.
got = arrows(small, '19us..40us')
check('a view without a flow\'s ends has no arrow of it', got == [w for w in want if w[3] >= 19], got)

proc = run('info', '--json', small)
flows = json.loads(proc.stdout).get('flows') if proc.returncode == 0 else None
check('info counts flow events and bindings',
      flows == {'s': 3, 't': 1, 'f': 3, 'bind_id': 3, 'flow_in': 2, 'flow_out': 2,
                'flow_ids': 0, 'terminating_flow_ids': 0}, flows)
proc = run('info', small)
check('info says bindings', 'Bindings: 3 events with bind_id (2 flow_in, 2 flow_out)' in proc.stdout,
      proc.stdout)

def png_rows(path):
    """cairo's 8-bit RGB or RGBA PNG (non-interlaced) as rows of bytes."""
    data = open(path, 'rb').read()
    pos, idat, width, height, bpp = 8, b'', 0, 0, 4
    while pos < len(data):
        length, kind = struct.unpack('>I4s', data[pos:pos + 8])
        if kind == b'IHDR':
            width, height, _, color = struct.unpack('>IIBB', data[pos + 8:pos + 18])
            bpp = 4 if color == 6 else 3
        elif kind == b'IDAT':
            idat += data[pos + 8:pos + 8 + length]
        pos += 12 + length
    raw, stride, rows, prev, i = zlib.decompress(idat), width * bpp, [], bytearray(width * bpp), 0
    for _ in range(height):
        f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a, b = (line[x - bpp] if x >= bpp else 0), prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                pp = a + b - c
                pa, pb, pc = abs(pp - a), abs(pp - b), abs(pp - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return rows


# The painter draws them on demand, as the window does (issue 32, item 3):
# without --flows no slice is selected, so the view's PNG is the PNG of the
# same trace with its flows taken out (the bottom note aside, which counts
# the events read); with --flows every arrow in view is drawn.
png = os.path.join(tmp, 'with.png')
png_all = os.path.join(tmp, 'all.png')
os.mkdir(os.path.join(tmp, 'bare'))
bare = write_json(os.path.join('bare', 'small.json'),
                  [{k: v for k, v in e.items() if k not in ('bind_id', 'flow_in', 'flow_out')}
                   for e in json.load(open(small))['traceEvents'] if e['ph'] not in 'stf'])
png_bare = os.path.join(tmp, 'bare.png')
p1 = run('export', '--view', '0..40us', '--size', '800x300', '-o', png, small)
p2 = run('export', '--view', '0..40us', '--size', '800x300', '-o', png_bare, bare)
p3 = run('export', '--view', '0..40us', '--size', '800x300', '--flows', '-o', png_all, small)
check('export PNG of a view with flows', p1.returncode == 0 and p2.returncode == 0 and p3.returncode == 0,
      p1.stderr + p2.stderr + p3.stderr)
if p1.returncode == 0 and p2.returncode == 0 and p3.returncode == 0:
    default, without, every = (png_rows(p)[:-24] for p in (png, png_bare, png_all))
    check('by default no arrow is drawn (the PNG is the one without flows)', default == without)
    check('with --flows the arrows are drawn (the PNGs differ)', every != without)

# 2. Generated: 3 threads of nested X slices, 400 flows (chains s → t… → f)
# between random slices, the expected arrows computed here.
def generated(seed):
    rng = random.Random(seed)
    # An instant at 0: the trace starts there, times stay as written.
    events = [meta(1, 'a'), meta(2, 'b'), meta(3, 'c'),
              {'ph': 'i', 'name': 'origin', 'ts': 0, 'pid': 1, 'tid': 1, 's': 't'}]
    names = {1: 'a', 2: 'b', 3: 'c'}
    roots = 200
    for tid in (1, 2, 3):
        for k in range(roots):
            r = 1000 + k * 100
            events.append({'ph': 'X', 'name': 'root', 'ts': r, 'dur': 80, 'pid': 1, 'tid': tid})
            events.append({'ph': 'X', 'name': 'child', 'ts': r + 10, 'dur': 40, 'pid': 1, 'tid': tid})
    want, flows = [], []
    for i in range(400):
        hops = rng.randint(2, 4)
        k = rng.randrange(roots - hops * 10)
        prev = None
        for h in range(hops):
            tid = rng.choice((1, 2, 3))
            r = 1000 + k * 100
            last = h == hops - 1
            ph = 's' if h == 0 else 'f' if last else 't'
            ev = {'ph': ph, 'cat': 'g', 'name': 'flow', 'id': i, 'pid': 1, 'tid': tid}
            how = rng.randrange(3) if last else rng.randrange(2)
            if how == 0:     # inside the child: the child encloses it
                ts, bound = r + 10 + rng.randint(1, 39), (names[tid], 1, 'child')
            elif how == 1:   # inside the root, beside the child
                ts, bound = r + 50 + rng.randint(1, 29), (names[tid], 0, 'root')
            else:            # 'f' in the gap before a root: the next slice
                ts, bound = r - rng.randint(1, 19), (names[tid], 0, 'root')
            if how < 2 and last:
                ev['bp'] = 'e'
            ev['ts'] = ts
            at = r if how == 2 else ts
            flows.append(ev)
            if prev is not None:
                want.append(prev + bound + (float(at),))
            prev = bound + (float(ts),)
            k += rng.randint(1, 10)
    # Flow events anywhere among the slices (traces are not sorted); the
    # slices in order, as the reader nests X events by file order.
    for ev in flows:
        events.insert(rng.randint(4, len(events)), ev)
    return events, sorted(want)


for seed in (1, 2, 3):
    events, want = generated(seed)
    path = write_json('gen-%d.json' % seed, events)
    got = arrows(path, '0..30ms')
    check('generated trace %d: %d arrows as computed' % (seed, len(want)), got == want,
          [x for x in got if x not in want][:5] + ['missing'] + [x for x in want if x not in got][:5])

# 3. Perfetto: flow_ids (47, fixed64) continue a flow, terminating_flow_ids
# (48) end it; packed and the deprecated varint forms (36, 42) too.
MS = 1000000
packets = [[(SEQ, 1), (FLAGS, CLEARED)], process_track(1, 10, 'app'), thread_track(2, 1, 10, 11, 'ui'),
           thread_track(3, 1, 10, 12, 'gpu'), thread_track(4, 1, 10, 13, 'net')]


def slice_(ts, dur, track, name, extra=()):
    return [event(ts, track, BEGIN, name, extra=extra), event(ts + dur, track, END)]


packets += slice_(1 * MS, 2 * MS, 2, 'input', [(47, Fixed64(0xdeadbeef00000001))])
packets += slice_(4 * MS, 2 * MS, 3, 'draw', [(47, Fixed64(0xdeadbeef00000001))])
packets += [event(7 * MS, 4, BEGIN, 'send'),
            event(7 * MS + 100, 4, BEGIN, 'write', extra=[(48, Fixed64(0xdeadbeef00000001))]),
            event(8 * MS, 4, END), event(9 * MS, 4, END)]
# Packed fixed64 flow ids, two flows leaving one slice.
packets += slice_(10 * MS, MS, 2, 'fork', [(47, b''.join(x.to_bytes(8, 'little') for x in (5, 6)))])
packets += slice_(12 * MS, MS, 3, 'join5', [(48, Fixed64(5))])
packets += slice_(13 * MS, MS, 4, 'join6', [(48, (6).to_bytes(8, 'little'))])
# Deprecated varint forms.
packets += slice_(15 * MS, MS, 2, 'old', [(36, 99)])
packets += slice_(17 * MS, MS, 4, 'old-end', [(42, packed([99]))])
pf = os.path.join(tmp, 'flows.pftrace')
with open(pf, 'wb') as f:
    f.write(trace(packets))
want = sorted([
    ('ui', 0, 'input', 3000.0, 'gpu', 0, 'draw', 4000.0),
    ('gpu', 0, 'draw', 6000.0, 'net', 1, 'write', 7000.1),
    ('ui', 0, 'fork', 11000.0, 'gpu', 0, 'join5', 12000.0),
    ('ui', 0, 'fork', 11000.0, 'net', 0, 'join6', 13000.0),
    ('ui', 0, 'old', 16000.0, 'net', 0, 'old-end', 17000.0),
])
# Times from the trace start, the first slice at 1 ms.
want = [w[:3] + (round(w[3] - 1000, 3),) + w[4:7] + (round(w[7] - 1000, 3),) for w in want]
got = arrows(pf, '0..20ms')
check('perfetto flow_ids and terminating_flow_ids: every arrow', got == want, got)
proc = run('info', '--json', pf)
flows = json.loads(proc.stdout).get('flows') if proc.returncode == 0 else None
check('info counts perfetto flow ids',
      flows is not None and flows['flow_ids'] == 5 and flows['terminating_flow_ids'] == 4, flows)

if failures:
    print('%d failed' % len(failures))
    sys.exit(1)
