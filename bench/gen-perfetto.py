#!/usr/bin/python3
# gen-perfetto.py: seeded Perfetto protobuf traces for the ingest benchmark
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
#   gen-perfetto.py --mb SIZE [--seed S] OUT                 synthetic (SDK-like)
#   gen-perfetto.py --mb SIZE --repeat TRACE OUT             a real trace, repeated
#
# Synthetic: 4 processes × 4 threads, one packet sequence per thread, as the
# Perfetto SDK writes them: track descriptors, a ClockSnapshot per sequence
# defining a sequence-scoped incremental clock (µs deltas), interned event
# names and categories (emitted with the packet that first uses them, again
# after each periodic incremental-state reset), nested slices (begin/end),
# instants, a debug annotation on some events, and a counter per process.
#
# Repeat: the packets of TRACE (for instance a Chromium recording) written
# again and again, each copy shifted in time by the span of the original:
# every reading of a built-in clock (ClockSnapshots, packet timestamps not on
# a sequence-scoped clock) moves; sequence-scoped clocks follow their
# snapshots.

import argparse
import io
import random
import struct
import sys


def varint(n):
    n &= (1 << 64) - 1
    out = bytearray()
    while n >= 0x80:
        out.append(n & 0x7f | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def key(number, wire):
    return varint(number << 3 | wire)


def f_varint(number, value):
    return key(number, 0) + varint(value)


def f_bytes(number, value):
    if isinstance(value, str):
        value = value.encode()
    return key(number, 2) + varint(len(value)) + value


BLOCK = 16_000_000


def packet(payload):
    return f_bytes(1, payload)


NAMES = ["MessageLoop::RunTask", "ThreadControllerImpl::RunTask", "v8.run", "v8.compile",
         "Layout", "Paint", "UpdateLayerTree", "Commit", "RasterTask", "DecodeImage",
         "ParseHTML", "EvaluateScript", "FunctionCall", "GPUTask", "SwapBuffers",
         "ResourceLoad", "IPC::Dispatch", "mojo::Message", "Scheduler::Idle", "GC"]
NAMES += [f"Task{i:03d}" for i in range(180)]
CATEGORIES = ["toplevel", "blink", "v8", "cc", "gpu", "loading", "ipc", "disabled-by-default-x"]


def synthetic(out, size, seed):
    rng = random.Random(seed)
    written = 0
    chunks = []
    pending = 0

    def emit(b):
        nonlocal written, pending
        chunks.append(b)
        written += len(b)
        pending += len(b)
        if pending >= 1 << 20:
            out.write(b"".join(chunks))
            chunks.clear()
            pending = 0

    processes = [(100 + p, f"process-{p}") for p in range(4)]
    threads = []
    for p, (pid, pname) in enumerate(processes):
        emit(packet(f_bytes(60, f_varint(1, 1000 + p) + f_bytes(3, f_varint(1, pid) + f_bytes(6, pname)))))
        emit(packet(f_bytes(60, f_varint(1, 2000 + p) + f_varint(5, 1000 + p) + f_bytes(2, "memory")
                            + f_bytes(8, f_varint(3, 3)))))
        for t in range(4):
            tid = pid * 10 + t
            uuid = 3000 + p * 4 + t
            emit(packet(f_bytes(60, f_varint(1, uuid) + f_varint(5, 1000 + p)
                                + f_bytes(4, f_varint(1, pid) + f_varint(2, tid)
                                          + f_bytes(5, f"Worker{t}" if t else "Main")))))
            threads.append({"seq": 1 + len(threads), "uuid": uuid, "counter": 2000 + p,
                            "interned": set(), "depth": 0, "stack": [], "ts": 0})

    boot = 1_000_000_000_000
    # Pre-encoded pieces: the TrackEvent bodies that do not vary.
    annotation = f_bytes(4, f_varint(1, 1) + f_bytes(6, "https://example.org/resource?id=12345"))
    end_body = f_varint(9, 2)
    seq_flags = f_varint(13, 2)

    def reset(th):
        # SEQ_INCREMENTAL_STATE_CLEARED, defaults (incremental clock 64 in
        # µs, the thread's track), and a snapshot tying clock 64 to BOOTTIME.
        th["interned"].clear()
        clock = (f_bytes(1, f_varint(1, 6) + f_varint(2, boot + th["ts"] * 1000))
                 + f_bytes(1, f_varint(1, 64) + f_varint(2, th["ts"]) + f_varint(3, 1) + f_varint(4, 1000)))
        defaults = f_varint(58, 64) + f_bytes(11, f_varint(11, th["uuid"]))
        emit(packet(f_varint(10, th["seq"]) + f_varint(13, 1) + f_bytes(59, defaults) + f_bytes(6, clock)))
        th["last"] = th["ts"]

    for th in threads:
        reset(th)

    n = 0
    while written < size:
        th = threads[rng.randrange(len(threads))]
        for _ in range(rng.randrange(8, 64)):
            n += 1
            th["ts"] += rng.randrange(1, 40)
            delta = th["ts"] - th["last"]
            th["last"] = th["ts"]
            head = f_varint(8, delta) + f_varint(10, th["seq"]) + seq_flags
            r = rng.random()
            if th["depth"] > 0 and (r < 0.45 or th["depth"] >= 6):
                th["depth"] -= 1
                th["stack"].pop()
                emit(packet(head + f_bytes(11, end_body)))
                continue
            if r < 0.9:
                # Code has structure: a function calls one of a few others.
                parent = th["stack"][-1] if th["stack"] else rng.randrange(20)
                name = (parent * 7 + rng.randrange(2) + 1) % len(NAMES) if th["stack"] else parent
                cat = name % len(CATEGORIES)
                body = f_varint(9, 1) + f_varint(10, name + 1) + f_varint(3, cat + 1)
                th["depth"] += 1
                th["stack"].append(name)
            else:
                name = rng.randrange(20)
                cat = 0
                body = f_varint(9, 3) + f_varint(10, name + 1) + f_varint(3, 1)
            if rng.random() < 0.1:
                body += annotation
            interned = b""
            if ("n", name) not in th["interned"]:
                th["interned"].add(("n", name))
                interned += f_bytes(2, f_varint(1, name + 1) + f_bytes(2, NAMES[name]))
            if ("c", cat) not in th["interned"]:
                th["interned"].add(("c", cat))
                interned += f_bytes(1, f_varint(1, cat + 1) + f_bytes(2, CATEGORIES[cat]))
            if interned:
                head += f_bytes(12, interned)
            emit(packet(head + f_bytes(11, body)))
            if n % 50 == 0:
                emit(packet(f_varint(8, 0) + f_varint(10, th["seq"]) + seq_flags
                            + f_bytes(11, f_varint(9, 4) + f_varint(11, th["counter"])
                                      + f_varint(30, rng.randrange(1 << 20, 1 << 28)))))
        # Readers see sequences restarted now and then (ring buffers, new
        # processes): interning starts over.
        if rng.random() < 0.002:
            reset(th)
    # Close what is open, so that copies of this block (see main) nest alike.
    for th in threads:
        while th["depth"] > 0:
            th["depth"] -= 1
            th["stack"].pop()
            th["ts"] += 1
            emit(packet(f_varint(8, th["ts"] - th["last"]) + f_varint(10, th["seq"]) + seq_flags
                        + f_bytes(11, end_body)))
            th["last"] = th["ts"]
    out.write(b"".join(chunks))
    return n, max(th["ts"] for th in threads) * 1000


def fields(b):
    i = 0
    out = []
    while i < len(b):
        k, i = read_varint(b, i)
        number, wire = k >> 3, k & 7
        if wire == 0:
            v, i = read_varint(b, i)
        elif wire == 1:
            v, i = b[i:i + 8], i + 8
        elif wire == 5:
            v, i = b[i:i + 4], i + 4
        elif wire == 2:
            n, i = read_varint(b, i)
            v, i = b[i:i + n], i + n
        else:
            raise ValueError(f"wire type {wire}")
        out.append((number, wire, v))
    return out


def read_varint(b, i):
    v = shift = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7f) << shift
        shift += 7
        if c < 0x80:
            return v, i


def encode(flist):
    out = bytearray()
    for number, wire, v in flist:
        out += key(number, wire)
        if wire == 0:
            out += varint(v)
        elif wire == 2:
            out += varint(len(v)) + v
        else:
            out += v
    return bytes(out)


def repeat(out, size, data, span=None):
    """Copies of a trace, shifted; only packets holding built-in clock
    readings are re-encoded per copy."""
    template = []          # bytes, or the fields of a packet to shift
    seq_clock = {}
    seq_track = {}
    open_begins = {}       # track → template indices of slices begun, not ended
    unmatched = set()
    lo, hi = None, None
    for number, wire, p in fields(data):
        if number != 1 or wire != 2:
            continue
        fl = fields(p)
        d = {n: v for n, w, v in fl}
        seq = d.get(10, 0)
        for n, w, v in fl:
            if n == 59:
                for n2, w2, v2 in fields(v):
                    if n2 == 58:
                        seq_clock[seq] = v2
                    if n2 == 11:
                        for n3, w3, v3 in fields(v2):
                            if n3 == 11:
                                seq_track[seq] = v3
        if 11 in d:
            ev = dict((n, v) for n, w, v in fields(d[11]))
            track = ev.get(11, seq_track.get(seq, ("seq", seq)))
            if ev.get(9) == 1:
                open_begins.setdefault(track, []).append(len(template))
            elif ev.get(9) == 2:
                if open_begins.get(track):
                    open_begins[track].pop()
                else:
                    unmatched.add(len(template))
            if n == 13 and v & 1 and 59 not in d:
                seq_clock.pop(seq, None)
        clock = d.get(58, seq_clock.get(seq, 6))
        shift_ts = 8 in d and clock < 64
        if shift_ts:
            lo = d[8] if lo is None else min(lo, d[8])
            hi = d[8] if hi is None else max(hi, d[8])
        if 6 in d:
            for n2, w2, v2 in fields(d[6]):
                c = dict((x[0], x[2]) for x in fields(v2)) if n2 == 1 else {}
                if c.get(1) == 6 and 2 in c:
                    lo = c[2] if lo is None else min(lo, c[2])
                    hi = c[2] if hi is None else max(hi, c[2])
        if shift_ts or 6 in d:
            template.append(fl)
        else:
            template.append(packet(p))
    # A copy must not leave slices open for the next one to nest under (a
    # real trace's stacks do not deepen forever): slices the original leaves
    # open, and ends it has no begin for, are left out of the copies.
    drop = unmatched.union(*open_begins.values())
    template = [x for i, x in enumerate(template) if i not in drop]
    if span is None:
        # Events run on past the last reading: a tenth more.
        span = (hi - lo if lo is not None else 0) * 11 // 10 + 1_000_000

    def shifted(fl, offset):
        res = []
        for n, w, v in fl:
            if n == 8 and w == 0:
                v = v + offset
            elif n == 6 and w == 2:
                clocks = []
                for n2, w2, v2 in fields(v):
                    if n2 == 1:
                        c = fields(v2)
                        cid = next((x[2] for x in c if x[0] == 1), 0)
                        if cid < 64:
                            c = [(a, b, x + offset if a == 2 else x) for a, b, x in c]
                        v2 = encode(c)
                    clocks.append((n2, w2, v2))
                v = encode(clocks)
            res.append((n, w, v))
        return packet(encode(res))

    written = copies = 0
    while written < size:
        offset = copies * span
        chunk = b"".join(t if isinstance(t, bytes) else shifted(t, offset) for t in template)
        out.write(chunk)
        written += len(chunk)
        copies += 1
    return copies


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=float, required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", help="a Perfetto trace (uncompressed) to repeat")
    ap.add_argument("out")
    args = ap.parse_args()
    size = int(args.mb * 1e6)
    with open(args.out, "wb") as out:
        if args.repeat:
            n = repeat(out, size, open(args.repeat, "rb").read())
            print(f"{n} copies of {args.repeat}", file=sys.stderr)
        else:
            # Python makes about 2 MB of packets a second: beyond one block,
            # the block is repeated, shifted in time like a real trace.
            block = io.BytesIO()
            n, span = synthetic(block, min(size, BLOCK), args.seed)
            copies = repeat(out, size, block.getvalue(), span + 1_000_000)
            print(f"{n} events a block, {copies} blocks", file=sys.stderr)


if __name__ == "__main__":
    main()
