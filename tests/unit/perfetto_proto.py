# perfetto_proto.py: a tiny protobuf encoder for Perfetto test traces
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Messages are lists of (field number, value) pairs; a value is an int
# (varint), a float (double, fixed64), bytes or str (length-delimited), a
# nested list (a message), or a Raw wrapper for hand-made bytes. Field
# numbers follow the public perfetto_trace.proto.

import struct


class Fixed64:
    def __init__(self, value):
        self.value = value


class Raw:
    """Bytes written as they are (no key): for malformed inputs."""
    def __init__(self, data):
        self.data = data


def varint(n):
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = n & 0x7f
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def encode(fields):
    out = bytearray()
    for item in fields:
        if isinstance(item, Raw):
            out += item.data
            continue
        number, value = item
        if isinstance(value, bool) or isinstance(value, int):
            out += varint(number << 3 | 0) + varint(int(value))
        elif isinstance(value, float):
            out += varint(number << 3 | 1) + struct.pack('<d', value)
        elif isinstance(value, Fixed64):
            out += varint(number << 3 | 1) + struct.pack('<Q', value.value)
        else:
            if isinstance(value, str):
                value = value.encode()
            elif isinstance(value, list):
                value = encode(value)
            out += varint(number << 3 | 2) + varint(len(value)) + value
    return bytes(out)


def packed(values):
    return b''.join(varint(v) for v in values)


def trace(packets):
    """A Trace: each packet (a field list, or bytes) as field 1."""
    return b''.join(varint(1 << 3 | 2) + varint(len(p)) + p
                    for p in (x if isinstance(x, bytes) else encode(x) for x in packets))


# TracePacket fields
TIMESTAMP, CLOCK_ID, SEQ, FLAGS, INTERNED, DEFAULTS = 8, 58, 10, 13, 12, 59
TRACK_EVENT, TRACK_DESCRIPTOR, CLOCK_SNAPSHOT = 11, 60, 6
PROCESS_TREE, THREAD_DESCRIPTOR, STREAMING_PROFILE, PERF_SAMPLE = 2, 44, 54, 66
COMPRESSED, ZSTD_COMPRESSED, FTRACE_EVENTS = 50, 133, 1
CLEARED, NEEDS_STATE = 1, 2
BEGIN, END, INSTANT, COUNTER = 1, 2, 3, 4


def process_track(uuid, pid, name):
    return [(TRACK_DESCRIPTOR, [(1, uuid), (3, [(1, pid), (6, name)])])]


def thread_track(uuid, parent, pid, tid, name):
    return [(TRACK_DESCRIPTOR, [(1, uuid), (5, parent), (4, [(1, pid), (2, tid), (5, name)])])]


def counter_track(uuid, parent, name, unit=None, incremental=False):
    counter = []
    if unit is not None:
        counter.append((3, unit))
    if incremental:
        counter.append((5, 1))
    return [(TRACK_DESCRIPTOR, [(1, uuid), (5, parent), (2, name), (8, counter)])]


def event(ts, track, type_, name=None, name_iid=None, seq=1, flags=NEEDS_STATE, extra=()):
    ev = [(9, type_), (11, track)]
    if name is not None:
        ev.append((23, name))
    if name_iid is not None:
        ev.append((10, name_iid))
    ev += list(extra)
    return [(TIMESTAMP, ts), (SEQ, seq), (FLAGS, flags), (TRACK_EVENT, ev)]


def interned_names(pairs):
    return [(2, [(1, iid), (2, name)]) for iid, name in pairs]
