#!/usr/bin/env python3
# test-gecko.py: Firefox Profiler profiles (Gecko and processed) against an independent reading
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# tests/data/gecko/firefox-page.json.gz is a real recording: Debian's
# firefox-esr, headless, MOZ_PROFILER_STARTUP=1 with the js, stackwalk, cpu
# and memory features at a 1 ms interval, loading page.html beside it,
# which closes itself (bench/record-firefox.sh); trimmed by trim.py beside it
# to the page's content process, one thread of the parent and the parent's
# memory counter (libraries and most marker payloads dropped; every table
# whole). Its facts are computed here with
# Python's json: each sample's stack from "stackTable"/"frameTable"/
# "stringTable" under their schemas, its time that of the thread's process
# (meta.startTime) after the first's; markers with a start and an end
# (intervals, starts paired with the next end of their name); counters as
# running sums. The command line must agree: `info --json` (events, span,
# tracks, names), `sample` (every sample of every thread at its time,
# per-function self counts per thread), the flame graph of the whole and
# of a range, and `compare` of two ranges and of two files. The same
# profile converted here to the processed format (columns, funcTable,
# shared.stringArray) reads the same. Generated profiles large enough to
# spool read in flat memory; hand-made damage (a prefix cycle, indices out
# of range, time that goes back, a cut, a syntax error) warns with the
# position and never hangs.

import csv
import gzip
import io
import json
import os
import re
import shutil
import subprocess
import sys
from collections import Counter, defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import profile_check  # noqa: E402
from profile_check import (SANITIZED, check, flame_csv, folded, generate, info, peak_rss, run,  # noqa: E402
                           sample_rows, top)

data = os.path.join(top, 'tests', 'data', 'gecko')
tmp = profile_check.setup('gecko')


def load(path):
    opener = gzip.open if path.endswith('.gz') else open
    with opener(path, 'rt', encoding='utf-8') as f:
        return json.load(f)


def ns(ms):
    return int(round(ms * 1e6))


class Thread:
    def __init__(self, name, pid, tid):
        self.name, self.pid, self.tid = name, pid, tid
        self.stacks = []      # (time_ns, label) of samples with a stack
        self.cpu_times = []   # times of CPU points


def facts(doc):
    """Threads, spans, counter points and every time noted, as the reader
    should see them."""
    root_start = doc['meta']['startTime']
    threads, spans, counters, times = [], [], [], []

    def col(table, name):
        return table['schema'][name] if name in table['schema'] else None

    def cell(row, i):
        return row[i] if i is not None and i < len(row) else None

    def walk(profile):
        offset = ns(profile['meta']['startTime'] - root_start)
        first_pid = None
        for th in profile.get('threads', []):
            strings = th['stringTable']
            st, ft = th['stackTable'], th['frameTable']
            sp, sf, fl = col(st, 'prefix'), col(st, 'frame'), col(ft, 'location')

            def label(s):
                names = []
                while s is not None:
                    row = st['data'][s]
                    names.append(strings[ft['data'][cell(row, sf)][fl]].replace(';', ':'))
                    s = cell(row, sp)
                return ';'.join(reversed(names))

            t = Thread(th['name'], th['pid'], th['tid'])
            if first_pid is None:
                first_pid = th['pid']
            sm = th['samples']
            si, ti, ci = col(sm, 'stack'), col(sm, 'time'), col(sm, 'threadCPUDelta')
            prev = None
            for i, row in enumerate(sm['data']):
                at = offset + ns(cell(row, ti))
                if cell(row, si) is not None:
                    t.stacks.append((at, label(cell(row, si))))
                    times.append(at)
                cpu = cell(row, ci)
                if i > 0 and cpu is not None and at > prev:
                    t.cpu_times.append(at)
                    times.append(at)
                prev = at
            threads.append(t)
            mk = th['markers']
            ni, si_, ei, pi = col(mk, 'name'), col(mk, 'startTime'), col(mk, 'endTime'), col(mk, 'phase')
            open_ = defaultdict(list)
            for row in mk['data']:
                name, start, end, phase = strings[row[ni]], cell(row, si_), cell(row, ei), cell(row, pi)
                if phase == 1 and start is not None and end is not None:
                    span = (start, end)
                elif phase == 2 and start is not None:
                    open_[name].append(start)
                    continue
                elif phase == 3 and open_[name] and end is not None:
                    span = (open_[name].pop(), end)
                else:
                    continue
                if span[1] >= span[0]:
                    spans.append((t.name, name, offset + ns(span[0]), offset + ns(span[1])))
                    times.extend((offset + ns(span[0]), offset + ns(span[1])))
        for c in profile.get('counters', []):
            tci, cci = col(c['samples'], 'time'), col(c['samples'], 'count')
            total = 0
            for row in c['samples']['data']:
                total += row[cci]
                counters.append((c['name'], first_pid, offset + ns(row[tci]), total))
                times.append(offset + ns(row[tci]))
        for p in profile.get('processes', []):
            walk(p)

    walk(doc)
    return threads, spans, counters, min(times), max(times)


def to_processed(doc):
    """The same profile in the processed format: one flat list of threads,
    columns instead of rows, functions, and one shared string array."""
    shared = []
    index = {}

    def intern(s):
        if s not in index:
            index[s] = len(shared)
            shared.append(s)
        return index[s]

    root_start = doc['meta']['startTime']
    out_threads, out_counters = [], []

    def walk(profile):
        offset = profile['meta']['startTime'] - root_start
        for th in profile.get('threads', []):
            strings = th['stringTable']

            def columns(table, names, shift=()):
                cols = {n: [] for n in names}
                for row in table['data']:
                    for n in names:
                        i = table['schema'].get(n)
                        v = row[i] if i is not None and i < len(row) else None
                        if n in shift and v is not None:
                            v += offset
                        cols[n].append(v)
                cols['length'] = len(table['data'])
                return cols

            stack = columns(th['stackTable'], ['prefix', 'frame'])
            frames = th['frameTable']
            li = frames['schema']['location']
            func_names = [intern(strings[r[li]]) for r in frames['data']]
            samples = columns(th['samples'], ['stack', 'time', 'threadCPUDelta'], shift=('time',))
            samples['weight'] = None
            samples['weightType'] = 'samples'
            markers = columns(th['markers'], ['name', 'startTime', 'endTime', 'phase'],
                              shift=('startTime', 'endTime'))
            markers['name'] = [intern(strings[n]) for n in markers['name']]
            out_threads.append({
                'name': th['name'], 'processName': th.get('processName'), 'pid': str(th['pid']), 'tid': th['tid'],
                'samples': samples, 'markers': markers, 'stackTable': stack,
                'frameTable': {'func': list(range(len(frames['data']))), 'length': len(frames['data'])},
                'funcTable': {'name': func_names, 'length': len(func_names)},
            })
        for c in profile.get('counters', []):
            s = c['samples']
            out_counters.append({'name': c['name'], 'category': c['category'], 'pid': str(profile['threads'][0]['pid']),
                                 'samples': {'time': [r[s['schema']['time']] + offset for r in s['data']],
                                             'count': [r[s['schema']['count']] for r in s['data']],
                                             'length': len(s['data'])}})
        for p in profile.get('processes', []):
            walk(p)

    walk(doc)
    meta = dict(doc['meta'], preprocessedProfileVersion=48, sampleUnits=doc['meta'].get('sampleUnits'))
    # "shared" last: its threads wait for their strings.
    return {'meta': meta, 'libs': [], 'threads': out_threads, 'counters': out_counters, 'shared': {'stringArray': shared}}


def share_is(text, n, total):
    """A compare value: the share n / total, or empty for a side without samples."""
    return text == '' if total == 0 else abs(float(text) - n / total) < 1e-9


def check_profile(tag, path, doc, compare_files=True):
    threads, spans, counters, first, last = facts(doc)
    n_samples = sum(len(t.stacks) for t in threads)
    n_events = n_samples + sum(len(t.cpu_times) for t in threads) + len(spans) + len(counters)

    rc, got, err = info(path)
    check(f'{tag}: info exit 0', rc == 0, err)
    if rc != 0:
        return
    check(f'{tag}: format', got['format'] == 'gecko', got['format'])
    check(f'{tag}: events', got['events'] == n_events, f"{got['events']} != {n_events}")
    check(f'{tag}: span', abs(got['span_s'] - (last - first) / 1e9) < 2e-6, f"{got['span_s']} {(last - first) / 1e9}")
    check(f'{tag}: no warnings', got['warnings'] == [], repr(got['warnings'][:3]))
    by_key = {(tr['pid'], tr['tid']): tr for tr in got['tracks'] if tr['kind'] == 'thread'}
    for t in threads:
        tr = by_key.get((t.pid, t.tid))
        check(f'{tag}: thread {t.name} {t.tid} named, with its samples', tr is not None and tr['name'] == t.name
              and tr['events'] == len(t.stacks), repr(tr))
    markers = Counter(tr['name'] for tr in got['tracks'] if tr['kind'] == 'async')
    want_markers = Counter(f'{t.name} ({t.tid}) markers' for t in threads for s in spans if s[0] == t.name)
    check(f'{tag}: marker spans per thread', {tr['name']: tr['events'] for tr in got['tracks'] if tr['kind'] == 'async'}
          == dict(want_markers), repr(markers))
    mem = sorted(tr['events'] for tr in got['tracks'] if tr['kind'] == 'counter' and tr['name'] == 'malloc')
    check(f'{tag}: memory counters', mem == sorted(Counter((c[0], c[1]) for c in counters).values()), repr(mem))

    rows = sample_rows(path)
    per_track = defaultdict(list)
    for r in rows:
        per_track[r['track']].append(r)
    for t in threads:
        got_rows = per_track.get(t.name, [])
        check(f'{tag}: {t.name}: every sample kept', len(got_rows) == len(t.stacks), f'{len(got_rows)} {len(t.stacks)}')
        leaves = Counter(label.split(';')[-1] for _, label in t.stacks)
        check(f'{tag}: {t.name}: per-function self samples', Counter(r['label'].split(';')[-1] for r in got_rows)
              == leaves)
        check(f'{tag}: {t.name}: stacks', Counter(r['label'] for r in got_rows) == Counter(lb for _, lb in t.stacks))
        want_times = sorted(round((at - first) / 1e9, 6) for at, _ in t.stacks)
        got_times = sorted(float(r['time_s']) for r in got_rows)
        check(f'{tag}: {t.name}: sample times', len(got_times) == len(want_times)
              and all(abs(a - b) < 2e-6 for a, b in zip(got_times, want_times)))

    all_stacks = [s for t in threads for s in t.stacks]
    check(f'{tag}: flame graph self weights', flame_csv(path) ==
          {k: float(v) for k, v in Counter(lb for _, lb in all_stacks).items()})

    def in_range(a, b):
        return [lb for at, lb in all_stacks if a <= (at - first) / 1e9 < b]

    # Range bounds between two µs ticks, so no sample sits on one.
    span_s = (last - first) / 1e9

    def at(x):
        return round(span_s * x, 3) + 0.0000005

    check(f'{tag}: a range\'s flame graph', flame_csv(path, f'{at(0.2)}s..{at(0.5)}s') ==
          {k: float(v) for k, v in Counter(in_range(at(0.2), at(0.5))).items()})

    def inclusive(samples):
        return Counter(f for s in samples for f in set(s.split(';')))

    def per_thread(a, b):
        """Per thread: its samples in [a, b), or all of them."""
        return {t.name: [lb for at, lb in t.stacks if a is None or a <= (at - first) / 1e9 < b] for t in threads}

    comparisons = [('two ranges', ['--a', f'{at(0.1)}s..{at(0.4)}s', '--b', f'{at(0.4)}s..{at(0.75)}s', path],
                    per_thread(at(0.1), at(0.4)), per_thread(at(0.4), at(0.75)))]
    if compare_files:
        renamed = os.path.join(tmp, 'after-' + os.path.basename(path))
        shutil.copy(path, renamed)
        comparisons.append(('two files', [path, renamed], per_thread(None, None), per_thread(None, None)))
    for label, args, a_samples, b_samples in comparisons:
        proc = run('compare', *args)
        # The threads' sampled tracks: a function's share of a thread's samples.
        got_rows = [r for r in csv.DictReader(io.StringIO(proc.stdout.decode()))
                    if r['stat'] == 'share' and r['series'].split('/', 1)[0] in a_samples]
        want = 0
        ok = proc.returncode == 0
        for name in a_samples:
            a_n, b_n = inclusive(a_samples[name]), inclusive(b_samples[name])
            want += len(set(a_n) | set(b_n))
            for r in got_rows:
                if r['series'].split('/', 1)[0] != name:
                    continue
                f = r['series'].split('/', 1)[1]
                ok = ok and int(r['a_n']) == a_n[f] and int(r['b_n']) == b_n[f] \
                    and share_is(r['a_value'], a_n[f], len(a_samples[name])) \
                    and share_is(r['b_value'], b_n[f], len(b_samples[name]))
        check(f'{tag}: compare of {label}: per-function sample shares per thread', ok and len(got_rows) == want,
              f'{len(got_rows)} rows, {want} functions; ' + proc.stderr.decode()[:300])
    return threads


def got_events(path):
    return info(path)[1]['events']


def check_recording():
    path = os.path.join(data, 'firefox-page.json.gz')
    doc = load(path)
    threads = check_profile('recording', path, doc)
    page = Counter(lb.split(';')[-1].split(' ')[0] for t in (threads or []) for _, lb in t.stacks
                   if 'page.html' in lb.split(';')[-1])
    check('recording: the page\'s functions are there', all(page[f] > 0 for f in ('sortWork', 'stringWork')),
          repr(page))
    plain = os.path.join(tmp, 'profile.txt')
    with open(plain, 'w') as f:
        json.dump(doc, f)
    rc, got, _ = info(plain)
    check('recording: sniffed whatever its name, uncompressed', rc == 0 and got['format'] == 'gecko')

    # Firefox writes "libs" first; with many libraries "meta" is past what the
    # sniffer sees (6 MB of them here).
    many_libs = os.path.join(tmp, 'many-libs.json')
    lib = {'start': 0, 'end': 1, 'offset': 0, 'name': 'libxul.so', 'path': '/usr/lib/firefox-esr/libxul.so',
           'debugName': 'libxul.so', 'debugPath': '/usr/lib/firefox-esr/libxul.so',
           'breakpadId': '6EB7AA126B126E8224F61BDD9B052A560', 'codeId': '12aab76e', 'arch': ''}
    with open(many_libs, 'w') as f:
        json.dump(dict({'libs': [lib] * 20000}, **{k: v for k, v in doc.items() if k != 'libs'}), f)
    rc, got, err = info(many_libs)
    check('recording: sniffed with 20,000 libraries before "meta"', rc == 0 and got['format'] == 'gecko'
          and got['events'] == got_events(path), err[:200])
    os.unlink(many_libs)

    processed = os.path.join(tmp, 'processed.json')
    with open(processed, 'w') as f:
        json.dump(to_processed(doc), f)
    rc, got_p, err = info(processed)
    rc_g, got_g, _ = info(path)
    def same(d):
        return dict({k: v for k, v in d.items() if k != 'file'}, tracks=sorted(d['tracks'], key=repr))

    check('processed: info as the Gecko profile\'s (tracks in another order)', rc == 0 and same(got_p) == same(got_g),
          err + repr([(a, b) for a, b in zip(got_p['tracks'], got_g['tracks']) if a != b][:2]) if rc == 0 else err)
    gecko_rows = sorted(run('sample', path).stdout.splitlines())
    check('processed: the same samples', sorted(run('sample', processed).stdout.splitlines()) == gecko_rows)
    # Its threads wait for "shared" with their spools in temporary files.
    check('processed: the same samples, spooled to files while they wait',
          sorted(run('sample', processed, env_extra={'TSL_GECKO_SPOOL_BYTES': '1000'}).stdout.splitlines())
          == gecko_rows)


def gen(name, mb, form='gecko', stacks=3000):
    return generate('gen-gecko.py', name, str(mb), '--form', form, '--stacks', str(stacks), '--seed', '7')

def check_generated():
    # Peak RSS first: a child forked later would count this process's lists.
    # 60 MB: ~400,000 samples a thread, 1.6 MB of varints each, so every
    # thread's spools reach their temporary files.
    huge = gen('huge.json', 60)
    if not SANITIZED:
        rc, rss = peak_rss(['info', '--no-cache', huge])
        check('spooled: flat memory', rc == 0 and rss < 45 << 20, f'{rss >> 20} MiB')
    os.unlink(huge)
    # 0.25 MB: fewer samples a thread than K, so `sample` lists every one.
    small = gen('small.json', 0.25, stacks=500)
    check_profile('generated', small, load(small), compare_files=False)
    # Spilled every 1000 bytes: many blocks, varints across them; and with
    # no temporary file possible, all in memory: the same samples.
    small_spool = {'TSL_GECKO_SPOOL_BYTES': '1000'}
    base = run('sample', small).stdout
    check('spooled: the same samples as in memory', run('sample', small, env_extra=small_spool).stdout == base)
    check('spooled: no temporary file, the same samples',
          run('sample', small, env_extra=dict(small_spool, TMPDIR=os.path.join(tmp, 'missing'))).stdout == base)
    rc, got, err = info(gen('processed.json', 1, form='processed', stacks=500))
    check('generated processed: read', rc == 0 and got['format'] == 'gecko' and got['warnings'] == []
          and len([t for t in got['tracks'] if t['kind'] == 'thread']) == 4, err)


def gecko_doc(samples, stacks, frames=None, strings=None, markers=None):
    return {'meta': {'version': 27, 'startTime': 1000, 'interval': 1}, 'libs': [], 'threads': [{
        'name': 'Main', 'pid': 1, 'tid': 1,
        'samples': {'schema': {'stack': 0, 'time': 1}, 'data': samples},
        'markers': {'schema': {'name': 0, 'startTime': 1, 'endTime': 2, 'phase': 3, 'category': 4, 'data': 5},
                    'data': markers or []},
        'stackTable': {'schema': {'prefix': 0, 'frame': 1}, 'data': stacks},
        'frameTable': {'schema': {'location': 0}, 'data': frames if frames is not None else [[0], [1], [2]]},
        'stringTable': strings if strings is not None else ['main', 'work', 'leaf']}], 'processes': []}


def damaged(name, text, want_events, warning_re, positioned=True):
    path = os.path.join(tmp, name + '.json')
    with open(path, 'w') as f:
        f.write(text if isinstance(text, str) else json.dumps(text))
    try:
        rc, got, err = info(path)
    except subprocess.TimeoutExpired:
        check(f'{name}: ends', False)
        return None
    check(f'{name}: read', rc == 0, err)
    if rc != 0:
        return None
    check(f'{name}: every sample kept', want_events is None or got['events'] == want_events, f"{got['events']} != {want_events}")
    hits = [w for w in got['warnings'] if re.search(warning_re, w)]
    check(f'{name}: warned', hits != [], repr(got['warnings']))
    if positioned and hits:
        check(f'{name}: the warning names the position',
              re.match(re.escape(path) + r':\d+:\d+: ', hits[0]) is not None, hits[0])
    return path


def check_damage():
    chain = [[None, 0], [0, 1], [1, 2]]
    path = damaged('prefix-cycle', gecko_doc([[2, 1], [1, 2]], [[None, 0], [2, 1], [1, 2]]), 2,
                   r'stack 1 names prefix 2, which does not come before it; it is made a root')
    if path:
        check('prefix-cycle: the chain is cut where it turned back', folded(path) == Counter(
            {'work': 1, 'work;leaf': 1}), repr(folded(path)))
    damaged('self-prefix', gecko_doc([[0, 1]], [[0, 0]]), 1, r'stack 0 names prefix 0')
    path = damaged('frame-out-of-range', gecko_doc([[1, 1]], [[None, 0], [0, 5]]), 1,
                   r'thread Main: a stack names frame 5, past its 3 frames')
    if path:
        check('frame-out-of-range: shown as (unknown frame)', folded(path) == Counter({'main;(unknown frame)': 1}))
    damaged('stack-out-of-range', gecko_doc([[2, 1], [9, 2]], chain), 2, r'a sample names stack 9, past its 3 stacks')
    damaged('string-out-of-range', gecko_doc([[0, 1]], [[None, 0]], frames=[[7]]), 1,
            r'frame 0 names string 7, past its 3 strings')
    path = damaged('time-goes-back', gecko_doc([[2, 5], [2, 3], [1, 4]], chain), 3,
                   r'sample 1 is earlier than the one before it')
    if path:
        times = sorted(float(r['time_s']) for r in sample_rows(path))
        check('time-goes-back: each sample at its time', times == [0.0, 0.001, 0.002], repr(times))
    processed = {'meta': {'startTime': 0, 'preprocessedProfileVersion': 48}, 'threads': [{
        'name': 'P', 'pid': '7', 'tid': 7, 'samples': {'stack': [0, 1, 1], 'timeDeltas': [10, -4, 2], 'length': 3},
        'stackTable': {'prefix': [None, 0], 'frame': [0, 1], 'length': 2},
        'frameTable': {'func': [0, 1], 'length': 2}, 'funcTable': {'name': [0, 1], 'length': 2},
        'stringArray': ['a', 'b']}]}
    path = damaged('negative-time-delta', processed, 3, r'sample 1 is earlier than the one before it')
    if path:
        times = sorted(float(r['time_s']) for r in sample_rows(path))
        check('negative-time-delta: times as the deltas say', times == [0.0, 0.002, 0.004], repr(times))
    damaged('not-an-index', gecko_doc([[2, 1], ['x', 2], [1, 3]], chain), 2, r'expected an integer index or null')
    text = json.dumps(gecko_doc([[2, 1], [1, 2], [2, 3]], chain))
    damaged('syntax-error', text.replace('[1, 2]', '[1, 2 2]', 1), 1,
            r"expected ',' or '\]'; the rest of the Firefox profile is not read")

    # The recording cut in the middle of a thread's samples: what came before stays.
    doc = load(os.path.join(data, 'firefox-page.json.gz'))
    text = json.dumps(doc)
    cut = text.index('"samples"', text.index('"processes"'))
    cut = text.index('], [', cut + 5000) + 1
    damaged('cut in samples', text[:cut], None, r'truncated; what came before the cut was read')


def main():
    check_recording()
    check_generated()
    check_damage()
    profile_check.finish()


if __name__ == '__main__':
    main()
