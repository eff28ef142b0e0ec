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
# (plain, gzip-compressed and zstd-compressed in several frames; speedscope
# files with overlapping evented profiles, sampled ones between them, and
# one whose frame table follows its profiles; collapsed stacks), for seeded
# random ranges, with chunks small enough that each file has many (and a
# Chrome trace whose two processes have a thread of one name, one of them
# only at the start: compare's "worker [PID]" must not depend on the chunks
# read; and one that leaks async spans, b/e and S/F, by the thousand: each
# checkpoint restores those open there, and its range reads must skip
# chunks). The generated files must really be read through the index (corpus files may
# not be: some allow none, as a Chrome trace with `samples`; the speedscope
# file with its frames last must not), and plain speedscope ones must skip
# a quarter of the file in some read. Perfetto: generated traces of several
# sequences (interning reset and reused with other names, incremental
# clocks and counters, dropped packets, unsorted; perfetto_gen.py), whose
# range reads must skip chunks, and the recorded Chromium trace. Collapsed
# stacks (time: the line ordinal) have bad lines throughout, past the
# warnings' cap, so a range read must resume the ordinal and the count of
# skipped lines the final warning gives. V8 CPU profiles embedded as
# ProfileChunk events (a generated trace and the Chromium recording): a
# range read restores each profile's clock and replays its nodes, and must
# skip chunks.

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


def collapsed(rng, n):
    """Folded stacks with comments, blank lines and, every few hundred
    lines, a bad count or a line of no kind (more than the reader names)."""
    frames = ['main', 'run', 'parse', 'std::vector<int>::push_back', 'fn a', 'memcpy [k]']
    out = ['# folded by a test\n']
    for i in range(n):
        r = rng.random()
        if r < 0.003:
            out.append('main;bad %s\n' % rng.choice(['-4', '1.5', '1e3']))
        elif r < 0.006:
            out.append('no count on this line\n')
        elif r < 0.02:
            out.append('\n' if r < 0.013 else '# note\n')
        else:
            out.append('%s %d\n' % (';'.join(rng.choice(frames) for _ in range(rng.randint(1, 8))),
                                     rng.randint(1, 300)))
    return ''.join(out)


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
    fewest = 1.0
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
                    for m in re.finditer(r'read (\d+) of (\d+) bytes \(\d+ of \d+ chunks\) through the index', log):
                        fewest = min(fewest, int(m.group(1)) / int(m.group(2)))
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
    if must_index is None and through > 0:
        failures.append('%s: read through an index it cannot have' % name)
    # Speedscope: the generated files' events are really streamed and skipped
    # (gzip: deflate blocks of this text are too long for points inside).
    if must_index and name.endswith('.speedscope.json') and fewest > 0.75:
        failures.append('%s: no range read skipped a quarter of the file (at best %.2f)' % (name, fewest))
    if must_index:
        stats['indexable'] += 1
        if through == 0:
            failures.append('%s: never read through the index' % name)
    # Perfetto: a chunk that changes tracks or descriptors is read always;
    # the generated traces have few, so their range reads must skip some.
    if must_skip and skipped == 0:
        failures.append('%s: every range read read the whole file' % name)
    print('ok %s (%d range reads through the index)' % (name, through))


def speedscope(rng, n, layout):
    """A speedscope file: evented profiles that overlap in time (so chunk
    bounds, not positions, decide), frames left open at a profile's end, a
    profile whose endValue follows its events, sampled profiles between
    them ('mixed') and the shared frame table before or after the profiles
    ('frames-last': held whole, no index)."""
    frames = '"shared":{"frames":[%s]}' % ','.join('{"name":"f%d","file":"m.py"}' % i for i in range(40))
    profiles = []
    for p in range(4):
        if layout == 'mixed' and p % 2 == 1:
            samples = [[rng.randrange(40) for _ in range(rng.randint(1, 6))] for _ in range(n // 8)]
            weights = [rng.choice((1, 2, 3)) for _ in samples]
            profiles.append('{"type":"sampled","name":"s%d","unit":"microseconds","startValue":%d,'
                            '"endValue":%d,"samples":%s,"weights":%s}'
                            % (p, p * 50, p * 50 + sum(weights), samples, weights))
            continue
        t = rng.randrange(0, 5000)
        start = t
        stack = []
        events = []
        deep = layout == 'deep' and p == 1
        for i in range(n // 4):
            if deep and i < 1000:
                # Too many open frames for a checkpoint's state.
                stack.append(rng.randrange(40))
                events.append('{"type":"O","frame":%d,"at":%d}' % (stack[-1], t))
            elif layout == 'malformed' and i == n // 8:
                events.append('{"type":"X","frame":1,"at":%d}' % t)
            elif stack and (len(stack) > (1012 if deep and i < n // 8 else 12) or rng.random() < 0.55):
                events.append('{"type":"C","frame":%d,"at":%d}' % (stack.pop(), t))
            else:
                stack.append(rng.randrange(40))
                events.append('{"type":"O","frame":%d,"at":%d}' % (stack[-1], t))
            t += rng.randrange(0, 30)
        body = '"events":[\n%s]' % ',\n'.join(events)
        if p == 2:
            profiles.append('{"type":"evented","name":"e%d","unit":"microseconds","startValue":%d,%s,'
                            '"endValue":%d}' % (p, start, body, t + 5))
        else:
            profiles.append('{"type":"evented","name":"e%d","unit":"microseconds","startValue":%d,'
                            '"endValue":%d,%s}' % (p, start, t + 5, body))
    head = '{"$schema":"https://www.speedscope.app/file-format-schema.json","exporter":"test",'
    body = '"profiles":[%s]' % ',\n'.join(profiles)
    if layout == 'frames-last':
        return head + body + ',' + frames + '}\n'
    return head + frames + ',' + body + ',"activeProfileIndex":0}\n'


def same_names(rng, n):
    """Two processes' threads of one name, one of them with events only at
    the file's start: compare tells them apart as "worker [PID]", and a range
    read that skips the start must name them as the whole read does."""
    ev = ['{"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"worker"}}',
          '{"ph":"M","name":"thread_name","pid":2,"tid":2,"args":{"name":"worker"}}']
    for i in range(n // 20):
        ev.append('{"ph":"X","name":"early","pid":2,"tid":2,"ts":%d,"dur":5}' % (i * 10))
    t = n // 2
    for i in range(n):
        t += rng.randint(5, 15)
        ev.append('{"ph":"X","name":"%s","pid":1,"tid":1,"ts":%d,"dur":4}' % (rng.choice(['mid', 'late']), t))
    return '[\n' + ',\n'.join(ev) + '\n]\n'


def profile_chunks(rng, n):
    """V8 CPU profiles embedded as Profile/ProfileChunk events among spans:
    two processes, one whose first chunks come before its Profile event;
    each chunk adds nodes (some naming a parent defined only later, one a
    cycle) and samples with deltas (a few negative): a checkpoint saves each
    profile's clock and the nodes made or changed since the last one, and a
    range read replays them."""
    ev = ['{"ph":"M","name":"thread_name","pid":%d,"tid":%d,"args":{"name":"main"}}' % (p, p) for p in (1, 2)]
    nodes = {1: 0, 2: 0}
    pending = {1: [], 2: []}
    t = 10000
    late = []
    for i in range(n):
        t += rng.randint(5, 40)
        pid = rng.choice((1, 2))
        if i == 5:
            ev.append('{"ph":"P","name":"Profile","pid":1,"tid":1,"ts":%d,"id":"0x1",'
                      '"args":{"data":{"startTime":%d}}}' % (t, t - 3000))
        if i == n // 4:
            late.append(len(ev))
            ev.append('{"ph":"P","name":"Profile","pid":2,"tid":2,"ts":%d,"id":"0x1",'
                      '"args":{"data":{"startTime":9000}}}' % t)
        if rng.random() < 0.04:
            new = []
            # The tree grows early, as a program's does, then rarely.
            for _ in range(rng.randint(0, 6) if nodes[pid] < 40 or rng.random() < 0.05 else 0):
                nodes[pid] += 1
                k = nodes[pid]
                parent = rng.randint(max(1, k - 5), k - 1) if k > 1 else None
                if k == 7:
                    parent = 9   # 9 names 7 below: a cycle
                if k == 9:
                    parent = 7
                if k == 12:
                    parent = 14  # defined later
                new.append('{"id":%d,"callFrame":{"functionName":"f%d","url":"file:///m.js","lineNumber":%d}%s}'
                           % (k, rng.randrange(8), k % 5, ',"parent":%d' % parent if parent else ''))
            samples = [rng.randint(1, nodes[pid] + (1 if rng.random() < 0.01 else 0)) if nodes[pid] else 1
                       for _ in range(rng.randint(0, 60))]
            deltas = [rng.randint(-20, 400) if rng.random() < 0.002 else rng.randint(50, 400) for _ in samples]
            ev.append('{"ph":"P","name":"ProfileChunk","pid":%d,"tid":%d,"ts":%d,"id":"0x1","args":{"data":'
                      '{"cpuProfile":{"nodes":[%s],"samples":%s},"timeDeltas":%s}}}'
                      % (pid, pid + 10, t, ','.join(new), samples, deltas))
        else:
            ev.append('{"ph":"X","name":"task%d","pid":%d,"tid":%d,"ts":%d,"dur":%d}'
                      % (rng.randrange(5), pid, pid, t, rng.randint(1, 30)))
    # Process 2's Profile event moved after its first chunks.
    moved = ev.pop(late[0])
    first_chunk = next(i for i, e in enumerate(ev) if '"pid":2,"tid":12' in e)
    ev.insert(first_chunk + 3, moved)
    return '[\n' + ',\n'.join(ev) + '\n]\n'


def leaked_async(rng, n):
    """Async spans closed at once, a few thousand events later or never;
    ends before their begins; an id reused while open; X events between."""
    ev = ['{"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"main"}}']
    pending = []
    t = 1000
    for i in range(n):
        t += rng.randint(1, 40)
        r = rng.random()
        if r < 0.2:
            ph = rng.choice(['b', 'S'])
            end = {'b': 'e', 'S': 'F'}[ph]
            span = '"cat":"%s","name":"req%d","id":"0x%x","pid":1,"tid":1' % (rng.choice(['net', 'input']), i % 4, i)
            ev.append('{"ph":"%s",%s,"ts":%d}' % (ph, span, t))
            fate = rng.random()
            if fate < 0.6:
                ev.append('{"ph":"%s",%s,"ts":%d}' % (end, span, t + rng.randint(0, 300)))
            elif fate < 0.85:
                pending.append((end, span))
        elif r < 0.25 and pending:
            end, span = pending.pop(max(0, len(pending) - rng.randint(1, 5)))
            ev.append('{"ph":"%s",%s,"ts":%d}' % (end, span, t))
        elif r < 0.27:
            span = '"cat":"io","name":"early","id2":{"local":"0x%x"},"pid":2,"tid":3' % i
            ev.append('{"ph":"e",%s,"ts":%d}' % (span, t + 30))
            ev.append('{"ph":"b",%s,"ts":%d}' % (span, t))
        elif r < 0.28:
            ev.append('{"ph":"b","cat":"net","name":"poll","id":7,"pid":1,"tid":1,"ts":%d}' % t)
        else:
            ev.append('{"ph":"X","name":"x%d","pid":1,"tid":%d,"ts":%d,"dur":%d}'
                      % (rng.randint(0, 3), rng.randint(1, 2), t, rng.randint(0, 30)))
    return '{"traceEvents":[\n' + ',\n'.join(ev) + '\n]}\n'


def thread_time(rng, n):
    """B/E pairs with thread clocks ("tts"): long outer spans, open across
    many checkpoints, around short inner ones, so a range read starting at
    a checkpoint must give an open span the CPU time a whole read gives."""
    ev = ['{"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"main"}}']
    t = tts = 1000
    for i in range(n):
        ev.append('{"ph":"B","name":"outer%d","pid":1,"tid":1,"ts":%d,"tts":%d}' % (i % 3, t, tts))
        for j in range(400):
            t += rng.randint(1, 20)
            tts += rng.randint(0, 10)
            d = rng.randint(1, 30)
            c = rng.randint(0, d)
            ev.append('{"ph":"B","name":"inner%d","pid":1,"tid":1,"ts":%d,"tts":%d}' % (j % 4, t, tts))
            t += d
            tts += c
            ev.append('{"ph":"E","pid":1,"tid":1,"ts":%d,"tts":%d}' % (t, tts))
        t += rng.randint(1, 20)
        tts += rng.randint(0, 10)
        ev.append('{"ph":"E","pid":1,"tid":1,"ts":%d,"tts":%d}' % (t, tts))
    return '{"traceEvents":[\n' + ',\n'.join(ev) + '\n]}\n'


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
            ('gen-same-names.json', same_names(rng, 20000)),
            ('gen-evented.speedscope.json', speedscope(rng, 24000, 'evented')),
            ('gen-mixed.speedscope.json', speedscope(rng, 24000, 'mixed')),
            ('gen.folded', collapsed(rng, 30000)),
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
        # Frames after the profiles, or a malformed event (counted per
        # profile): no index, the same results. Cut short, or a profile
        # with too many frames open for a checkpoint: indexed elsewhere.
        cut = speedscope(rng, 24000, 'evented')
        for name, text, must in (('gen-frames-last.speedscope.json', speedscope(rng, 24000, 'frames-last'), None),
                                 ('gen-malformed.speedscope.json', speedscope(rng, 24000, 'malformed'), None),
                                 ('gen-cut.speedscope.json', cut[:len(cut) * 7 // 10], True),
                                 ('gen-deep.speedscope.json', speedscope(rng, 24000, 'deep'), True)):
            p = os.path.join(tmp, name)
            with open(p, 'wb') as f:
                f.write(text.encode())
            paths.append((p, must, False))
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
        # Last, from a generator of its own: the other files' ranges stay
        # those they were drawn before it came.
        p = os.path.join(tmp, 'gen-leaked-async.json')
        with open(p, 'w') as f:
            f.write(leaked_async(random.Random(34), 30000))
        paths.append((p, True, True))
        p = os.path.join(tmp, 'gen-profile-chunks.json')
        with open(p, 'w') as f:
            f.write(profile_chunks(random.Random(36), 30000))
        paths.append((p, True, True))
        # Chromium's V8 CPU profiles (ProfileChunk events), recorded.
        paths.append((os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                   'data', 'chrome', 'chromium-v8-profile.json'), True, True))
        p = os.path.join(tmp, 'gen-thread-time.json')
        with open(p, 'w') as f:
            f.write(thread_time(random.Random(35), 40))
        paths.append((p, True, True))
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
