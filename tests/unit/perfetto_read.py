# perfetto_read.py: an independent reading of a Chromium Perfetto trace's slices
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Decodes the wire format with nothing shared with the C reader, puts every
# TrackEvent on the trace clock as Perfetto's trace processor does (each
# packet with a timestamp moves its sequence's incremental clock, whatever
# it carries), then sorts the events by time, as the trace processor's
# sorter does, and pairs begins and ends on per-track stacks. Enough for
# what Chromium writes: TrackDescriptors, TracePacketDefaults (clock and
# track), ClockSnapshots with sequence-scoped incremental clocks,
# interned event names. Field numbers are those of perfetto_trace.proto.

import struct
import zlib


def _varint(b, i):
    r = s = 0
    while True:
        c = b[i]
        i += 1
        r |= (c & 0x7f) << s
        s += 7
        if c < 0x80:
            return r, i


def fields(b):
    i, n = 0, len(b)
    while i < n:
        k, i = _varint(b, i)
        num, wire = k >> 3, k & 7
        if wire == 0:
            v, i = _varint(b, i)
        elif wire == 1:
            v = struct.unpack_from('<Q', b, i)[0]
            i += 8
        elif wire == 2:
            ln, i = _varint(b, i)
            v = bytes(b[i:i + ln])
            i += ln
        elif wire == 5:
            v = struct.unpack_from('<I', b, i)[0]
            i += 4
        else:
            raise ValueError('wire type %d' % wire)
        yield num, v


def packets(data):
    for num, v in fields(data):
        if num != 1:
            continue
        inner = [x for f, x in fields(v) if f == 50]
        if inner:
            yield from packets(zlib.decompress(inner[0]))
        else:
            yield v


BEGIN, END = 1, 2


def read(data):
    """Every TrackEvent as (time_ns, order, track, type, name); ClockSnapshot
    clocks other than MONOTONIC (3) and the sequence's clock 64/65 are
    related to MONOTONIC, which is taken as the trace clock (Chrome's
    snapshots relate it to BOOTTIME by a constant offset)."""
    seqs = {}
    builtin = {3: 0}          # builtin clock → offset to MONOTONIC
    events = []
    for p in packets(data):
        pk, kind, payload = {}, None, None
        for f, v in fields(p):
            if f in (8, 10, 13, 58, 41, 42):
                pk[f] = v
            elif f in (12, 59):
                pk[f] = v
            elif f in (3, 79, 87, 98):
                pass
            else:
                kind, payload = f, v
        s = seqs.setdefault(pk.get(10, 0), {'valid': False})
        if pk.get(41) or pk.get(13, 0) & 1:
            s.clear()
            s['valid'] = True
        if pk.get(13, 0) & 2 and not s['valid']:
            continue
        if 59 in pk:
            for f, v in fields(pk[59]):
                if f == 58:
                    s['clock'] = v
                elif f == 11:
                    for f2, v2 in fields(v):
                        if f2 == 11:
                            s['track'] = v2
        if 12 in pk:
            for f, v in fields(pk[12]):
                if f == 2:
                    entry = dict(fields(v))
                    s.setdefault('names', {})[entry.get(1)] = entry.get(2, b'').decode()
        if kind == 6:
            clocks = {}
            for f, v in fields(payload):
                if f == 1:
                    c = dict(fields(v))
                    clocks[c.get(1)] = c
            if 3 in clocks:
                mono = clocks[3][2]
                for cid, c in clocks.items():
                    mult = c.get(4, 1)
                    if 64 <= cid < 128:
                        s[('off', cid)] = mono - c[2] * mult
                        s[('mult', cid)] = mult
                        if c.get(3):
                            s[('last', cid)] = c[2]
                    elif cid != 3:
                        builtin[cid] = mono - c[2] * mult
            continue
        if 8 not in pk:
            continue
        clock = pk.get(58, s.get('clock', 6))
        if 64 <= clock < 128:
            if ('off', clock) not in s:
                continue
            value = pk[8]
            if ('last', clock) in s:
                value = s[('last', clock)] = s[('last', clock)] + value
            ts = value * s[('mult', clock)] + s[('off', clock)]
        else:
            ts = pk[8] + builtin.get(clock, 0)
        if kind != 11:
            continue
        ev = {'type': 0}
        for f, v in fields(payload):
            if f == 9:
                ev['type'] = v
            elif f == 11:
                ev['track'] = v
            elif f == 10:
                ev['name'] = s.get('names', {}).get(v)
            elif f == 23:
                ev['name'] = v.decode()
        track = ev['track'] if 'track' in ev else s.get('track', 0)
        events.append((ts, len(events), track, ev['type'], ev.get('name')))
    return events


def slices(events):
    """Pairs begins and ends in time order (stable: file order breaks ties).
    Returns (closed, unclosed, before, misplaced): closed as (start, end)
    pairs, unclosed begin times, the ends of slices begun before the trace
    (an end before any begin on its track) and the misplaced ends (an end
    on an empty stack of a track that had begun slices)."""
    stacks, began = {}, set()
    closed, before, misplaced = [], [], []
    for ts, _order, track, type_, _name in sorted(events):
        if type_ == BEGIN:
            stacks.setdefault(track, []).append(ts)
            began.add(track)
        elif type_ == END:
            if stacks.get(track):
                closed.append((stacks[track].pop(), ts))
            elif track in began:
                misplaced.append(ts)
            else:
                before.append(ts)
    unclosed = [ts for st in stacks.values() for ts in st]
    return closed, unclosed, before, misplaced
