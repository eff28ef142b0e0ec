#!/usr/bin/env python3
# test-chrome-profile.py: V8 CPU profiles inside Chrome traces (Profile/ProfileChunk)
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# tests/data/chrome/chromium-v8-profile.json is Debian's chromium, headless,
# loading v8-profile-page.html beside it with the categories
# disabled-by-default-v8.cpu_profiler and v8.execute
# (bench/record-chromium.sh OUT json 3 URL CATEGORIES): two renderer
# processes, each with a Profile event on its main thread and ProfileChunks
# from its profiler thread. Its facts are computed here with Python's json:
# each profile (pid and "id") gathers its chunks' nodes (a child names its
# parent) and samples, placed at startTime + Σ timeDeltas. The command line
# must agree: `info --json` (a sampled "THREAD (V8 CPU profile)" track per
# profile beside the thread's spans, its sample count, the span), the flame
# graph's call tree of the whole trace and of a range per thread (exact
# sample counts per stack), and `compare` of two ranges and of two files
# (per-function sample counts and shares of each profile's track). Chunks
# before their Profile event read as when sorted; hand-made damage (a cycle,
# a missing parent, a second parent, an unknown node, a negative delta,
# arrays of different lengths, no Profile event at all) warns with the
# position and loses no sample. A sampler state keeps the profile tracks
# and loads again. Chunk index and threads: test-index-ranges.py
# and test-parallel.py read the recording too.

import csv
import io
import json
import os
import re
import shutil
import sys
from collections import Counter, defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import profile_check  # noqa: E402
from profile_check import check, info, run, top  # noqa: E402

data = os.path.join(top, 'tests', 'data', 'chrome')
tmp = profile_check.setup('chrome-profile')
PART = ' (V8 CPU profile)'


def frame_name(call_frame):
    """A frame as the reader names it (as a .cpuprofile's)."""
    name = call_frame.get('functionName') or '(anonymous)'
    url = call_frame.get('url') or ''
    if url:
        name += ' ' + (url.rsplit('/', 1)[-1] or url)
        if call_frame.get('lineNumber', -1) >= 0:
            name += ':%d' % (call_frame['lineNumber'] + 1)
    return name.replace(';', ':')


def facts(path):
    """Per profile (pid, tid of its Profile event): every sample as (time in
    µs, stack root first without "(root)"); and the trace's first and last
    time (µs)."""
    with open(path) as f:
        doc = json.load(f)
    events = doc['traceEvents'] if isinstance(doc, dict) else doc
    profiles = {}
    times = []
    for ev in events:
        if ev.get('ph') == 'M':
            continue
        if ev.get('ph') == 'P' and ev.get('name') in ('Profile', 'ProfileChunk'):
            key = (ev['pid'], str(ev.get('id')))
            p = profiles.setdefault(key, {'nodes': {}, 'parent': {}, 'samples': [], 'deltas': []})
            d = ev.get('args', {}).get('data', {})
            if ev['name'] == 'Profile':
                p['tid'] = ev['tid']
                p['start'] = d.get('startTime', ev['ts'])
                continue
            cp = d.get('cpuProfile', {})
            for n in cp.get('nodes', []):
                p['nodes'][n['id']] = n
                if 'parent' in n:
                    p['parent'][n['id']] = n['parent']
            p['samples'] += cp.get('samples', [])
            p['deltas'] += d.get('timeDeltas', [])
            continue
        times.append(ev['ts'])
        if ev.get('ph') == 'X' and 'dur' in ev:
            times.append(ev['ts'] + ev['dur'])
    out = {}
    for (pid, _), p in profiles.items():
        samples = []
        t = p['start']
        for s, d in zip(p['samples'], p['deltas']):
            t += d
            names = []
            q = s
            while q is not None:
                names.append(frame_name(p['nodes'][q]['callFrame']))
                q = p['parent'].get(q)
            if len(names) > 1 and names[-1] == '(root)':
                names.pop()
            samples.append((t, ';'.join(reversed(names))))
            times.append(t)
        out[(pid, p['tid'])] = samples
    return out, min(times), max(times)


def flame(path, a, per_thread=True, thread='CrRendererMain'):
    out = os.path.join(tmp, 'flame.csv')
    args = ['export', '--flamegraph', '--a', a, '--thread', thread + PART, '-o', out, path]
    if per_thread:
        args.insert(2, '--per-thread')
    proc = run(*args)
    if proc.returncode != 0:
        return None
    with open(out) as f:
        return {r['call_path']: float(r['self_weight']) for r in csv.DictReader(f) if float(r['self_weight']) > 0}


def check_recording():
    path = os.path.join(data, 'chromium-v8-profile.json')
    profiles, first, last = facts(path)
    check('recording: two profiles', len(profiles) == 2, repr(list(profiles)))

    rc, got, err = info(path)
    check('recording: info exit 0', rc == 0, err)
    check('recording: span', abs(got['span_s'] - (last - first) / 1e6) < 1e-6, f"{got['span_s']} {(last - first) / 1e6}")
    check('recording: no warnings', got['warnings'] == [], repr(got['warnings']))
    tracks = {(t['pid'], t['tid']): t for t in got['tracks'] if t['name'].endswith(PART)}
    check('recording: a profile track per Profile event, on its thread', set(tracks) == set(profiles),
          repr(sorted(tracks)))
    for key, samples in profiles.items():
        t = tracks.get(key, {})
        check(f'recording: {key} every sample on its track', t.get('events') == len(samples) and
              t.get('kind') == 'thread' and t.get('name') == 'CrRendererMain' + PART, repr(t)[:300])
    spans = [t for t in got['tracks'] if (t['pid'], t['tid']) in profiles and not t['name'].endswith(PART)]
    check('recording: the threads\' spans stay on their own tracks', len(spans) == 2 and
          all(t['unit'] == 'ns' for t in spans), repr(spans)[:300])

    def label(key):
        return 'CrRendererMain' + PART + ' [%d]' % key[0]

    def expected(a_s=None, b_s=None):
        want = Counter()
        for key, samples in profiles.items():
            for t, stack in samples:
                rel = (t - first) / 1e6
                if a_s is None or a_s <= rel < b_s:
                    want[label(key) + ';' + stack] += 1
        return {k: float(v) for k, v in want.items()}

    got_flame = flame(path, '0%..100%')
    want = expected()
    check('recording: flame graph self samples per stack and thread', got_flame == want,
          repr(sorted(set((got_flame or {}).items()) ^ set(want.items()))[:4]))
    leaves = Counter()
    for samples in profiles.values():
        leaves.update(s.split(';')[-1] for _, s in samples)
    check('recording: the page\'s functions are there', all(
        leaves[f'{f} page.html:{line}'] > 30 for f, line in (('fib', 2), ('sortMany', 3), ('work', 5))),
        repr(leaves.most_common(8)))
    # A range between two µs ticks: no sample sits on a bound.
    # Merged over threads: the range holds one profile's samples.
    got_range = flame(path, '0.6000005s..1.4000005s', per_thread=False)
    want = {k.split(';', 1)[1]: v for k, v in expected(0.6000005, 1.4000005).items()}
    check('recording: a range\'s flame graph', got_range == want and len(want) > 10,
          repr(sorted(set((got_range or {}).items()) ^ set(want.items()))[:4]))

    def in_range(key, a, b):
        return [s for t, s in profiles[key] if a <= (t - first) / 1e6 < b]

    def inclusive(samples):
        return Counter(f for s in samples for f in set(s.split(';')))

    copy = os.path.join(tmp, 'after.json')
    shutil.copy(path, copy)
    # Threads of one name: told apart by pid within a file, by process
    # name between two files (their pids differ from run to run).
    with open(path) as f:
        names = {e['pid']: e['args']['name'] for e in json.load(f)['traceEvents'] if e.get('name') == 'process_name'}
    for name, args, ra, rb, tag in (
            ('two ranges', ['--a', '0.3000005s..1.1000005s', '--b', '1.1000005s..1.9000005s', path],
             (0.3000005, 1.1000005), (1.1000005, 1.9000005), lambda pid: str(pid)),
            ('two files', [path, copy], (-1, 1e9), (-1, 1e9), lambda pid: names[pid])):
        proc = run('compare', *args)
        rows = [r for r in csv.DictReader(io.StringIO(proc.stdout.decode())) if PART in r['series']
                and r['stat'] == 'share']
        ok = proc.returncode == 0 and len(rows) >= 8
        seen = defaultdict(set)
        for key in profiles:
            a_s, b_s = in_range(key, *ra), in_range(key, *rb)
            a_n, b_n = inclusive(a_s), inclusive(b_s)
            prefix = 'CrRendererMain%s [%s]/' % (PART, tag(key[0]))
            mine = [r for r in rows if r['series'].startswith(prefix)]
            ok = ok and len(mine) == len(set(a_n) | set(b_n))
            for r in mine:
                f = r['series'][len(prefix):]
                seen[key].add(f)
                ok = ok and int(r['a_n']) == a_n[f] and int(r['b_n']) == b_n[f]
                if a_n[f]:
                    ok = ok and abs(float(r['a_value']) - a_n[f] / len(a_s)) < 1e-9
                if b_n[f]:
                    ok = ok and abs(float(r['b_value']) - b_n[f] / len(b_s)) < 1e-9
        check(f'recording: compare of {name}: per-function samples and shares of each profile', ok,
              proc.stderr.decode()[:300])


def check_state():
    """A sampler state holds the profile's track (a thread's part) and
    loads again, with its name."""
    path = os.path.join(data, 'chromium-v8-profile.json')
    state = os.path.join(tmp, 'profile.tss')
    proc = run('sample', '--state', '-o', state, path)
    rc, got, err = info(state) if proc.returncode == 0 else (proc.returncode, None, proc.stderr.decode())
    check('state: saved and loaded with the profile tracks', rc == 0 and sorted(
        t['name'] for t in got['tracks'] if t['name'].endswith(PART)) == ['CrRendererMain' + PART] * 2, err)


def trace(events):
    return '{"traceEvents":[\n' + ',\n'.join(json.dumps(e) for e in events) + '\n]}\n'


def node(i, name, parent=None, line=None):
    n = {'id': i, 'callFrame': {'functionName': name, 'url': 'file:///a/m.js' if line else '',
                                'lineNumber': line - 1 if line else -1}}
    if parent is not None:
        n['parent'] = parent
    return n


NODES = [node(1, '(root)'), node(2, 'main', 1, 1), node(3, 'work', 2, 10), node(4, 'leaf', 3, 20)]


def profile(pid=1, tid=1, start=1000, id='0x1'):
    return {'ph': 'P', 'name': 'Profile', 'cat': 'disabled-by-default-v8.cpu_profiler', 'pid': pid, 'tid': tid,
            'ts': start + 5, 'id': id, 'args': {'data': {'startTime': start}}}


def chunk(nodes, samples, deltas, pid=1, tid=9, ts=5000, id='0x1'):
    cp = {'samples': samples}
    if nodes:
        cp['nodes'] = nodes
    return {'ph': 'P', 'name': 'ProfileChunk', 'cat': 'disabled-by-default-v8.cpu_profiler', 'pid': pid,
            'tid': tid, 'ts': ts, 'id': id, 'args': {'data': {'cpuProfile': cp, 'timeDeltas': deltas}}}


def span():
    return {'ph': 'X', 'name': 'Task', 'pid': 1, 'tid': 1, 'ts': 900, 'dur': 10000}


def write(name, events):
    path = os.path.join(tmp, name + '.json')
    with open(path, 'w') as f:
        f.write(trace(events))
    return path


def folded(path):
    """The profile track's samples per stack, from the whole trace's flame graph."""
    got = flame(path, '0%..100%', per_thread=False, thread='Thread 1')
    return Counter({k: int(v) for k, v in (got or {}).items()})


def samples_of(path):
    proc = run('sample', '--k', '100000', path)
    rows = list(csv.DictReader(io.StringIO(proc.stdout.decode())))
    return sorted((float(r['time_s']), r['label']) for r in rows if r['track'].endswith(PART))


def damaged(name, events, want_samples, warning_re, positioned=True):
    path = write(name, events)
    rc, got, err = info(path)
    check(f'{name}: read', rc == 0, err)
    if rc != 0:
        return None
    n = sum(t['events'] for t in got['tracks'] if t['name'].endswith(PART))
    check(f'{name}: every sample kept', n == want_samples, f'{n} != {want_samples}')
    hits = [w for w in got['warnings'] if re.search(warning_re, w)]
    check(f'{name}: warned', hits != [], repr(got['warnings']))
    if positioned and hits:
        check(f'{name}: the warning names the position', re.match(re.escape(path) + r':\d+:\d+: ', hits[0]) is not None,
              hits[0])
    return path


def check_order_and_damage():
    sorted_events = [span(), profile(), chunk(NODES[:3], [2, 3, 3], [10, 20, 30]),
                     chunk([NODES[3]], [4, 4, 2], [5, 5, 5], ts=6000)]
    good = write('sorted', sorted_events)
    want = samples_of(good)
    check('sorted: samples at startTime + Σ deltas',
          [t for t, _ in want] == [0.00011, 0.00013, 0.00016, 0.000165, 0.00017, 0.000175], repr(want))
    check('sorted: stacks root first, without (root)',
          Counter(folded(good)) == Counter({'main m.js:1': 2, 'main m.js:1;work m.js:10': 2,
                                            'main m.js:1;work m.js:10;leaf m.js:20': 2}), repr(folded(good)))
    # Chrome writes per thread buffer: the profiler thread's chunks may come first.
    late = write('profile-last', [sorted_events[2], sorted_events[3], span(), profile()])
    check('chunks before their Profile event: placed as when sorted', samples_of(late) == want,
          repr(samples_of(late)))
    rc, got, _ = info(late)
    check('chunks before their Profile event: no warning', rc == 0 and got['warnings'] == [], repr(got))
    # Spilled to the spool's temporary file every few bytes: the same.
    proc = run('sample', '--k', '100000', late, env_extra={'TSL_CHROME_PROFILE_SPOOL_BYTES': '3'})
    rows = list(csv.DictReader(io.StringIO(proc.stdout.decode())))
    check('chunks before their Profile event: spilled, the same',
          sorted((float(r['time_s']), r['label']) for r in rows if r['track'].endswith(PART)) == want)

    damaged('no-profile-event', [span(), sorted_events[2]], 3, r'3 samples of V8 CPU profile 1:0x1 \(process:id\) '
            r'have no Profile event', positioned=False)
    cyc = [node(1, '(root)'), node(2, 'a', 3, 1), node(3, 'b', 2, 2)]
    path = damaged('cycle', [profile(), chunk(cyc, [2, 3], [1, 1])], 2, r'node 3 of a V8 CPU profile would be its own '
                   r'ancestor')
    if path:
        check('cycle: the walk ends', sum(folded(path).values()) == 2, repr(folded(path)))
    path = write('missing-parent', [profile(), chunk([node(1, '(root)'), node(2, 'orphan', 99, 3)], [2, 2], [1, 1])])
    check('missing parent: shown under (unknown node)', folded(path) == Counter({'(unknown node);orphan m.js:3': 2}),
          repr(folded(path)))
    damaged('second-parent', [profile(), chunk(NODES + [dict(node(3, 'again', 1, 4))], [4], [1])], 1,
            r'node 3 of a V8 CPU profile is defined twice')
    path = damaged('unknown-node', [profile(), chunk(NODES, [4, 77, 2], [1, 1, 1])], 3,
                   r'a sample names node 77')
    if path:
        check('unknown-node: kept as (unknown node)', folded(path)['(unknown node)'] == 1, repr(folded(path)))
    path = damaged('negative-delta', [profile(), chunk(NODES, [4, 2, 4], [10, -5, 10])], 3,
                   r'time delta is negative')
    if path:
        times = [t for t, _ in samples_of(path)]
        check('negative-delta: times as the deltas say', times == [0, 0.000005, 0.00001], repr(times))
    damaged('more-samples', [profile(), chunk(NODES, [4, 4, 2], [1, 1])], 3,
            r'"samples" and "timeDeltas" differ in length \(3 and 2\)')
    damaged('second-profile', [profile(), profile(start=5), chunk(NODES, [4], [1])], 1,
            r'a second Profile event with the same id')
    # The same id in two processes: two profiles.
    path = write('two-processes', [profile(), profile(pid=2, tid=2), chunk(NODES, [4], [1]),
                                   chunk(NODES, [3, 3], [1, 1], pid=2)])
    rc, got, _ = info(path)
    check('the same id in two processes: two profiles', rc == 0 and sorted(
        (t['pid'], t['events']) for t in got['tracks'] if t['name'].endswith(PART)) == [(1, 1), (2, 2)], repr(got))


def main():
    check_recording()
    check_state()
    check_order_and_damage()
    profile_check.finish()


if __name__ == '__main__':
    main()
