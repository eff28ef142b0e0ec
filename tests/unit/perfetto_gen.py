# perfetto_gen.py: seeded Perfetto traces that exercise a reader's state
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Several packet sequences, each a thread writing as the Perfetto SDK and
# Chrome do: its descriptors, a ClockSnapshot defining a sequence-scoped
# incremental clock (timestamps are deltas), TracePacketDefaults naming the
# clock and the thread's track, event names interned in the packet that
# first uses them. Every few hundred packets a sequence resets its
# incremental state and interns again with the ids shuffled (an id comes
# back with another name), and now and then it reports dropped packets (its
# events are skipped until the next reset). Sequences write in bursts whose
# clocks drift apart, so the file is not in time order. Slices nest, and
# some stay open across resets; an incremental counter track per process,
# async tracks declared along the way, instants.

import random

from perfetto_proto import (BEGIN, CLEARED, CLOCK_SNAPSHOT, COUNTER, DEFAULTS, END, FLAGS,
                            INSTANT, INTERNED, NEEDS_STATE, SEQ, TIMESTAMP, TRACK_DESCRIPTOR,
                            TRACK_EVENT, counter_track, encode, process_track, thread_track, trace)

NAMES = ['RunTask', 'Layout', 'Paint', 'v8.run', 'Commit', 'Draw', 'Parse', 'GC', 'Idle', 'Fetch',
         'Style', 'Raster']
BOOTTIME = 6
SEQ_CLOCK = 64


class Sequence:
    def __init__(self, rng, sid, pid, tid):
        self.rng = rng
        self.sid = sid
        self.pid = pid
        self.tid = tid
        self.track = 1000 + sid
        self.boot = 1_000_000_000 + rng.randint(0, 1000)
        self.last = 0          # the incremental clock's last value
        self.stack = []
        self.iids = {}         # name -> iid since the last reset
        self.next_iid = 1
        self.order = []
        self.valid = False
        self.since_reset = 0

    def reset(self, packets):
        """A packet with SEQ_INCREMENTAL_STATE_CLEARED: defaults, clock, descriptor."""
        rng = self.rng
        self.iids = {}
        # Ids handed out from a shuffled start: the same id names another
        # event after each reset.
        self.next_iid = rng.randint(1, 40)
        self.last = 0
        self.valid = True
        self.since_reset = 0
        defaults = [(58, SEQ_CLOCK), (11, [(11, self.track)])]
        snapshot = [(1, [(1, BOOTTIME), (2, self.boot)]),
                    (1, [(1, SEQ_CLOCK), (2, 0), (3, 1)])]
        self.last = 0
        packets.append([(SEQ, self.sid), (FLAGS, CLEARED), (DEFAULTS, defaults),
                        (CLOCK_SNAPSHOT, snapshot)])
        packets.append([(SEQ, self.sid), (FLAGS, NEEDS_STATE)] +
                       thread_track(self.track, 10 * self.pid, self.pid, self.tid, 'T%d' % self.tid))

    def event(self, packets, dt, type_, name=None, track=None, extra=()):
        self.boot += dt
        self.last += dt
        ev = [(9, type_)]
        if track is not None:
            ev.append((11, track))
        interned = []
        if name is not None:
            if name not in self.iids:
                self.iids[name] = self.next_iid
                self.next_iid += self.rng.randint(1, 3)
                interned.append((2, [(1, self.iids[name]), (2, name)]))
            ev.append((10, self.iids[name]))
        ev += list(extra)
        p = [(TIMESTAMP, dt), (SEQ, self.sid), (FLAGS, NEEDS_STATE)]
        if interned:
            p.append((INTERNED, interned))
        p.append((TRACK_EVENT, ev))
        packets.append(p)
        self.since_reset += 1


def generate(rng, n):
    """A Trace of about n packets, as bytes."""
    packets = []
    seqs = []
    for pid in (1, 2):
        packets.append(process_track(10 * pid, pid, 'proc%d' % pid))
        packets.append(counter_track(20 * pid + 500, 10 * pid, 'heap%d' % pid, unit=3,
                                     incremental=True))
    sid = 1
    for pid in (1, 2):
        for tid in range(3):
            seqs.append(Sequence(rng, sid, pid, 100 * pid + tid))
            sid += 1
    # The service's clock for the descriptor-only packets.
    packets.append([(CLOCK_SNAPSHOT, [(1, [(1, BOOTTIME), (2, 1)])]), (SEQ, 99)])
    async_tracks = []
    next_async = 9000
    now = 1_000_000_000
    while len(packets) < n:
        seq = rng.choice(seqs)
        if not seq.valid or seq.since_reset > rng.randint(150, 400):
            seq.reset(packets)
        # A burst starts near the other threads' time, or (rarely) well
        # before it: its thread was held up. Clocks only go forward.
        late = rng.randint(0, 200_000) if rng.random() < 0.05 else rng.randint(0, 3000)
        gap = max(0, now - late - seq.boot)
        for i in range(rng.randint(3, 30)):
            r = rng.random()
            dt = rng.randint(1, 400) + (gap if i == 0 else 0)
            if r < 0.3 and len(seq.stack) < 6:
                name = rng.choice(NAMES)
                seq.stack.append(name)
                seq.event(packets, dt, BEGIN, name)
            elif r < 0.55 + 0.05 * len(seq.stack) and seq.stack:
                seq.stack.pop()
                seq.event(packets, dt, END)
            elif r < 0.7:
                seq.event(packets, dt, INSTANT, rng.choice(NAMES))
            elif r < 0.8:
                seq.event(packets, dt, COUNTER, track=20 * seq.pid + 500,
                          extra=[(30, rng.randint(-50, 100))])
            elif r < 0.8005:
                # A new async track, and a slice on it that ends later.
                uuid = next_async
                next_async += 1
                packets.append([(SEQ, seq.sid)] +
                               [(TRACK_DESCRIPTOR, [(1, uuid), (5, 10 * seq.pid),
                                                     (2, 'req%d.%d' % (seq.pid, uuid % 4))])])
                seq.event(packets, dt, BEGIN, 'request', track=uuid)
                async_tracks.append((seq, uuid))
            elif r < 0.83 and async_tracks:
                owner, uuid = async_tracks.pop(0)
                if owner is seq:
                    seq.event(packets, dt, END, track=uuid)
                else:
                    async_tracks.append((owner, uuid))
            elif 0.83 <= r < 0.8315:
                # Packets lost: the sequence's state is gone until it resets.
                packets.append([(SEQ, seq.sid), (42, 1)])
                seq.valid = False
                break
            else:
                seq.event(packets, dt, INSTANT, 'tick%d' % rng.randint(0, 2))
        # Most bursts close their slices; some stay open across bursts.
        while seq.stack and rng.random() < 0.8:
            seq.stack.pop()
            seq.event(packets, rng.randint(1, 50), END)
        now = max(now, seq.boot)
    return trace(encode(p) if isinstance(p, list) else p for p in packets)


if __name__ == '__main__':
    import sys
    sys.stdout.buffer.write(generate(random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 1),
                                     int(sys.argv[2]) if len(sys.argv) > 2 else 20000))
