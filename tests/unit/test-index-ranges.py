#!/usr/bin/env python3
# test-index-ranges.py: every range operation gives the same through the index
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# The range operations of the command line: `compare --a --b`, the range
# summary `compare --a`, the exact flame graph of a range (`export
# --flamegraph --a`, as CSV) and the view (`export --view`, as CSV). With the
# chunk index they read only the chunks whose times overlap the range; with
# TSL_NO_INDEX=1 the whole file. Their output files and messages must be the
# same byte for byte, on every corpus file and on generated unsorted traces
# (plain, gzip-compressed and zstd-compressed in several frames), for seeded
# random ranges, with chunks small enough that each file has many. The
# generated files must really be read through the index (corpus files may
# not be: some allow none, as a Chrome trace with `samples`). Perfetto:
# generated traces of several sequences (interning reset and reused with
# other names, incremental clocks and counters, dropped packets, unsorted;
# perfetto_gen.py), whose range reads must skip chunks, and the recorded
# Chromium trace.

import gzip
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import importlib.util

spec = importlib.util.spec_from_file_location('test_index', os.path.join(os.path.dirname(__file__), 'test-index.py'))
gen = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gen)
import perfetto_gen

timeslice = os.environ.get('TSL_TIMESLICE', 'timeslice')
corpus = os.environ.get('TSL_CORPUS_DIR', '')


def run(args, env_extra, cache):
    env = dict(os.environ, XDG_CACHE_HOME=cache, G_MESSAGES_DEBUG='tsl-read-stream')
    env.update(env_extra)
    return subprocess.run([timeslice] + args, env=env, capture_output=True, timeout=300)


def zstd_frames(data, frame_bytes):
    """The text as concatenated zstd frames of about frame_bytes each."""
    out = b''
    for i in range(0, len(data), frame_bytes):
        out += subprocess.run(['zstd', '-q', '-c', '-3'], input=data[i:i + frame_bytes],
                              capture_output=True, check=True).stdout
    return out


def check_file(path, rng, tmp, failures, stats, must_index, must_skip=False):
    size = os.path.getsize(path)
    chunk = str(max(4096, size // 16))
    cache = os.path.join(tmp, 'cache')
    shutil.rmtree(cache, ignore_errors=True)
    name = os.path.relpath(path, corpus) if corpus and path.startswith(corpus) else os.path.basename(path)
    through = 0
    skipped = 0
    for trial in range(2):
        a = rng.uniform(0, 90)
        b = rng.uniform(0, 90)
        w = rng.choice([1, 3, 10])
        ra = '%.2f%%..%.2f%%' % (a, a + w)
        rb = '%.2f%%..%.2f%%' % (b, b + w)
        commands = [
            ['compare', '--a', ra, '--b', rb, '--rounds', '40'],
            ['compare', '--a', ra],
            ['export', '--flamegraph', '--a', ra],
            ['export', '--view', ra],
        ]
        for cmd in commands:
            outs = {}
            for mode, env in (('indexed', {}), ('whole', {'TSL_NO_INDEX': '1'})):
                out = os.path.join(tmp, mode + '.csv')
                if os.path.exists(out):
                    os.unlink(out)
                proc = run(cmd + ['-o', out, path], dict(env, TSL_INDEX_CHUNK_BYTES=chunk), cache)
                data = open(out, 'rb').read() if os.path.exists(out) else None
                log = proc.stdout.decode(errors='replace')
                if mode == 'indexed':
                    through += log.count('through the index')
                    skipped += sum(1 for got, total in re.findall(r'read (\d+) of (\d+) bytes', log)
                                   if int(got) < int(total))
                elif 'through the index' in log:
                    failures.append('%s %s: TSL_NO_INDEX=1 read through the index' % (name, ' '.join(cmd)))
                outs[mode] = (proc.returncode, data, proc.stderr)
            if outs['indexed'] != outs['whole']:
                (ri, di, ei), (rw, dw, ew) = outs['indexed'], outs['whole']
                failures.append('%s %s: differs through the index (exit %d/%d, output %s, stderr %r / %r)'
                                % (name, ' '.join(cmd), ri, rw, 'same' if di == dw else 'differs',
                                   ei.decode(errors='replace')[-200:], ew.decode(errors='replace')[-200:]))
            stats['runs'] += 1
    if must_index:
        stats['indexable'] += 1
        if through == 0:
            failures.append('%s: never read through the index' % name)
    # Perfetto: a chunk that changes tracks or descriptors is read always;
    # the generated traces have few, so their range reads must skip some.
    if must_skip and skipped == 0:
        failures.append('%s: every range read read the whole file' % name)
    print('ok %s (%d range reads through the index)' % (name, through))


def main():
    rng = random.Random(1919)
    failures = []
    stats = {'runs': 0, 'indexable': 0}
    only = sys.argv[1:]
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        texts = [
            ('gen-chrome-array.json', gen.chrome(rng, 20000, 'array')),
            ('gen-chrome-object.json', gen.chrome(rng, 20000, 'object')),
            ('gen-wide.csv', gen.csv(rng, 20000, 'wide')),
            ('gen-long.csv', gen.csv(rng, 20000, 'long')),
            ('gen-perf.txt', gen.perf(rng, 6000)),
            # Sequences with interning, resets, incremental clocks and
            # counters, dropped packets, out of time order (perfetto_gen.py).
            ('gen-a.pftrace', perfetto_gen.generate(rng, 20000)),
            ('gen-b.pftrace', perfetto_gen.generate(rng, 30000)),
        ]
        # Damaged Perfetto input: cut inside a packet, and bytes overwritten
        # after a 0x0A in the middle (a damaged packet or a broken framing).
        good = texts[-1][1]
        cut = good[:len(good) * 2 // 3 + 5]
        broken = bytearray(good)
        at = len(good) // 2
        while broken[at] != 0x0A:
            at += 1
        broken[at + 1:at + 2] = b'\xff\xff\x7f'
        texts += [('gen-cut.pftrace', cut), ('gen-broken.pftrace', bytes(broken))]
        for name, text in texts:
            data = text if isinstance(text, bytes) else text.encode()
            for suffix, blob in (('', data), ('.gz', gzip.compress(data, 6)),
                                 ('.zst', zstd_frames(data, 64 * 1024) if shutil.which('zstd') else None)):
                if blob is None:
                    continue
                p = os.path.join(tmp, name + suffix)
                with open(p, 'wb') as f:
                    f.write(blob)
                paths.append((p, True, name.endswith('.pftrace') and suffix == ''))
        if corpus and os.path.isdir(corpus):
            for root, _, files in sorted(os.walk(corpus)):
                for f in sorted(files):
                    if f in ('facts.json', 'MANIFEST.md'):
                        continue
                    paths.append((os.path.join(root, f), False, False))
        else:
            print('# corpus not found (TSL_CORPUS_DIR): generated traces only', file=sys.stderr)
            if os.environ.get('CI'):
                failures.append('corpus not found')
        # The recorded Chromium trace, decompressed (the .zst is one frame).
        chromium = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                'data', 'perfetto', 'chromium-startup.pftrace.zst')
        if shutil.which('zstd') and os.path.exists(chromium):
            p = os.path.join(tmp, 'chromium-startup.pftrace')
            with open(p, 'wb') as f:
                subprocess.run(['zstd', '-q', '-d', '-c', chromium], stdout=f, check=True)
            paths.append((p, True, False))
        for p, must_index, must_skip in paths:
            if only and not any(o in p for o in only):
                continue
            check_file(p, rng, tmp, failures, stats, must_index, must_skip)

    print('%d runs, %d files that must be indexed' % (stats['runs'], stats['indexable']))
    for f in failures:
        print('FAIL: ' + f)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
