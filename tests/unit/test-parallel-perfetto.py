#!/usr/bin/env python3
# test-parallel-perfetto.py: a Perfetto trace read on N threads gives what one thread gives
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# On a regular file the Perfetto reader frames each buffer's packets, has
# them decoded on every core and models the records in order
# (tsl-perfetto-parallel.c). For every Perfetto input perfetto-outputs.py
# gathers (fixtures, fuzz regressions, the unit test's traces, generated
# synthetic and Chromium traces) and damaged copies of the generated ones
# (cut inside a packet, a key that is not a length-delimited field, a
# packet claiming more than 256 MiB, TrackEvents that are not messages),
# N = 2, 3 and 4 with TSL_READER_SPLIT_SEED (segments of random sizes down
# to one packet, and a random bound on how far the decoding runs ahead)
# must give byte-identical `sample --state` output, `info --json`, exit
# status and messages, and a byte-identical chunk index, to one thread;
# the generated traces are also read with the default cuts. The reader's
# debug log counts the segments decoded in parallel, which must be many.
# The comparison is test-parallel.py's. Under ASan (TSL_SANITIZED=1) each
# input is read on 2 and 4 threads only, and the default cuts on 2: the
# plain run checks the rest, and CI's time is bounded.

import importlib.util
import os
import random
import re
import shutil
import sys
import tempfile

srcdir = os.environ.get('G_TEST_SRCDIR', os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, os.path.dirname(path))
    spec.loader.exec_module(module)
    return module


parallel = load('parallel', os.path.join(srcdir, 'unit', 'test-parallel.py'))
outputs = load('outputs', os.path.join(srcdir, 'unit', 'perfetto-outputs.py'))
proto = load('perfetto_proto', os.path.join(srcdir, 'unit', 'perfetto_proto.py'))
# The Perfetto reader's line: (segments, those the modelling thread decoded).
parallel.SEGMENTS = re.compile(rb'(\d+) segments of TracePackets decoded on \d+ threads '
                               rb'\((\d+) by the modelling one\)')


def packet_starts(data):
    """The offset of every top-level field of a well-formed Trace."""
    at, starts = 0, []
    while at < len(data):
        starts.append(at)
        p = at + 1
        n = 0
        shift = 0
        while True:
            b = data[p]
            p += 1
            n |= (b & 0x7F) << shift
            shift += 7
            if b < 0x80:
                break
        at = p + n
    return starts


def damaged(tmp, path, rng):
    """Copies of a generated trace hurt at a packet boundary past the
    middle (so that the parallel part before it is long)."""
    data = open(path, 'rb').read()
    starts = packet_starts(data)
    base = os.path.join(tmp, os.path.basename(path))
    at = starts[rng.randrange(len(starts) * 3 // 5, len(starts) * 4 // 5)]
    cut = starts[rng.randrange(len(starts) // 2, len(starts) - 1)] + 3
    copies = {
        'cut': data[:cut],
        'varint-key': data[:at] + b'\x08\x01' + data[at:],
        'huge': data[:at] + b'\x0a' + proto.varint(300 << 20) + data[at:],
    }
    # TrackEvents that are not messages (a field with wire type 7), as
    # packets of their own at several places.
    bad = b'\x0a\x04\x5a\x02\x0f\x00'
    spots = sorted(rng.sample(starts, 5))
    out, last = bytearray(), 0
    for s in spots:
        out += data[last:s] + bad
        last = s
    copies['bad-events'] = bytes(out + data[last:])
    for kind, content in copies.items():
        name = '%s-%s.pftrace' % (base, kind)
        with open(name, 'wb') as f:
            f.write(content)
        yield name


def inputs(tmp):
    """(path, whether it is big enough for the default cuts)"""
    found = []
    for d in (os.path.join(outputs.ROOT, 'tests', 'data', 'perfetto'),
              os.path.join(outputs.ROOT, 'tests', 'fuzz', 'regressions', 'perfetto-proto')):
        found += [(os.path.join(d, n), False) for n in sorted(os.listdir(d))
                  if not n.endswith(('.md', '.html', '.json.gz'))]
    fixtures = os.path.join(tmp, 'fixtures')
    os.makedirs(fixtures)
    outputs.unit_fixtures(fixtures)
    outputs.generated(fixtures)
    rng = random.Random(41)
    for n in sorted(os.listdir(fixtures)):
        path = os.path.join(fixtures, n)
        big = n.startswith('gen-')
        found.append((path, big))
        if big:
            found += [(copy, True) for copy in damaged(fixtures, path, rng)]
    return found


SANITIZED = os.environ.get('TSL_SANITIZED') == '1'


def main():
    rng = random.Random(29)
    counts = (2, 4) if SANITIZED else (2, 3, 4)
    failures = []
    segments_total = by_model_total = 0
    n = 0
    tmp = tempfile.mkdtemp(prefix='tsl-parallel-perfetto-')
    for path, big in inputs(tmp):
        one, _, _ = parallel.read(tmp, path, 1, None)
        n += 1
        runs = [(threads, rng.randrange(1 << 30)) for threads in counts]
        if big:
            one_default, _, _ = parallel.read(tmp, path, 1, 'default')
            runs += [(threads, 'default') for threads in ((2,) if SANITIZED else (2, 4))]
        for threads, seed in runs:
            many, segments, by_model = parallel.read(tmp, path, threads, seed)
            segments_total += segments
            by_model_total += by_model
            if big and segments < 10:
                failures.append('%s: only %d segments on %d threads (split seed %s)'
                                % (path, segments, threads, seed))
            failure = parallel.differing(one_default if seed == 'default' else one, many, path,
                                         threads, seed)
            if failure:
                failures.append(failure)
    shutil.rmtree(tmp)

    for failure in failures:
        print('FAIL', failure)
    print('%d segments decoded in parallel, %d of them by the modelling thread'
          % (segments_total, by_model_total))
    if segments_total < (3000 if SANITIZED else 5000):
        print('FAIL: too few segments to test anything')
        failures.append('segments')
    print('%d inputs compared; %d differ' % (n, len(failures)))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
