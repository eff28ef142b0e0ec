#!/usr/bin/env python3
# test-cpuprofile.py: V8 CPU profiles (.cpuprofile) against an independent reading
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# The facts of tests/data/cpuprofile/node-busy.cpuprofile (`node --cpu-prof`
# on busy.js beside it) are computed here with Python's json: each sample's
# stack from the nodes' "children", its time startTime + Σ timeDeltas. The
# command line must agree: `info --json` (format, events, span, one sampled
# thread track), `sample` (every sample kept at its time, per-function self
# counts), `export` of the flame graph's call tree (CSV) and of the folded
# stacks, a range's flame graph, and `compare` of two ranges and of two
# files (per-function shares of the samples whose stacks hold them). Generated profiles in V8's order, deltas first and tree last read
# the same; one large enough to spool to a temporary file reads in flat
# memory, and the same with no temporary file possible. Hand-made damage
# (a cycle, a second parent, an unknown node, a negative delta, arrays of
# different lengths, a syntax error, a cut) warns with the position and
# loses no sample. Elements of every length, blanks, fractions and exponents
# read as Python reads them (the eight-byte scan of the common ones).

import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import profile_check  # noqa: E402
from profile_check import (SANITIZED, check, flame_csv, folded, generate, info, peak_rss, run,  # noqa: E402
                           sample_rows, top)

data = os.path.join(top, 'tests', 'data', 'cpuprofile')
tmp = profile_check.setup('cpuprofile')


def frame_name(call_frame):
    """A frame as the reader names it: function (or "(anonymous)"), the url's
    last part and the 1-based line."""
    name = call_frame.get('functionName') or '(anonymous)'
    url = call_frame.get('url') or ''
    if url:
        name += ' ' + (url.rsplit('/', 1)[-1] or url)
        if call_frame.get('lineNumber', -1) >= 0:
            name += ':%d' % (call_frame['lineNumber'] + 1)
    return name.replace(';', ':')


def facts(path):
    """Stacks (root first, without V8's "(root)") and times (µs) of every sample."""
    with open(path) as f:
        doc = json.load(f)
    nodes = {n['id']: n for n in doc['nodes']}
    parent = {}
    for n in doc['nodes']:
        for c in n.get('children', []):
            parent.setdefault(c, n['id'])
    stacks = []
    for s in doc['samples']:
        names = []
        q = s
        while q is not None:
            names.append(frame_name(nodes[q]['callFrame']))
            q = parent.get(q)
        if len(names) > 1 and names[-1] == '(root)':
            names.pop()
        stacks.append(';'.join(reversed(names)))
    times = []
    t = doc['startTime']
    for d in doc['timeDeltas']:
        t += d
        times.append(t)
    first = min([doc['startTime']] + times)
    last = max([doc['endTime']] + times)
    return stacks, times, first, last


def check_recording():
    path = os.path.join(data, 'node-busy.cpuprofile')
    stacks, times, first, last = facts(path)
    leaves = Counter(s.split(';')[-1] for s in stacks)
    renamed_for_compare = os.path.join(tmp, 'after.cpuprofile')
    shutil.copy(path, renamed_for_compare)

    rc, got, err = info(path)
    check('recording: info exit 0', rc == 0, err)
    check('recording: format', got['format'] == 'cpuprofile', got['format'])
    check('recording: events', got['events'] == len(stacks), f"{got['events']} != {len(stacks)}")
    check('recording: span', abs(got['span_s'] - (last - first) / 1e6) < 1e-6, f"{got['span_s']} {(last - first) / 1e6}")
    check('recording: one sampled thread track', len(got['tracks']) == 1 and got['tracks'][0]['kind'] == 'thread'
          and got['tracks'][0]['samples'] == len(stacks), repr(got['tracks']))
    check('recording: no warnings', got['warnings'] == [], repr(got['warnings']))

    rows = sample_rows(path)
    check('recording: every sample kept', len(rows) == len(stacks))
    check('recording: per-function self samples',
          Counter(r['label'].split(';')[-1] for r in rows) == leaves,
          repr((Counter(r['label'].split(';')[-1] for r in rows) - leaves).most_common(3)))
    check('recording: stacks', Counter(r['label'] for r in rows) == Counter(stacks))
    want_times = sorted(round((t - first) / 1e6, 6) for t in times)
    got_times = sorted(float(r['time_s']) for r in rows)
    check('recording: sample times', len(got_times) == len(want_times) and
          all(abs(a - b) < 2e-6 for a, b in zip(got_times, want_times)))
    check('recording: the script\'s functions are there', all(leaves[f'{f} busy.js:{line}'] > 0 for f, line in
                                                              (('sortRandom', 8), ('sieve', 3))), repr(leaves))

    fl = flame_csv(path)
    check('recording: flame graph self weights', fl == {k: float(v) for k, v in Counter(stacks).items()},
          repr(sorted(set(fl.items()) ^ {(k, float(v)) for k, v in Counter(stacks).items()})[:4]))
    check('recording: folded stacks', folded(path) == Counter(stacks))

    # A range's flame graph and the compare of two ranges (and of two
    # files): the samples whose times fall in each half-open range (bounds
    # between two µs ticks, so no sample sits on one).
    def in_range(a, b):
        return [s for s, t in zip(stacks, times) if a <= (t - first) / 1e6 < b]

    out = os.path.join(tmp, 'range.csv')
    proc = run('export', '--flamegraph', '--a', '0.5000005s..1.2000005s', '-o', out, path)
    with open(out) as f:
        got_range = {r['call_path']: float(r['self_weight']) for r in csv.DictReader(f) if float(r['self_weight']) > 0}
    check('recording: a range\'s flame graph', proc.returncode == 0 and got_range ==
          {k: float(v) for k, v in Counter(in_range(0.5000005, 1.2000005)).items()})

    def inclusive(samples):
        """Per function: the samples whose stack holds it (once each)."""
        return Counter(f for s in samples for f in set(s.split(';')))

    for label, args, a_samples, b_samples in (
            ('two ranges', ['--a', '0.2000005s..0.9000005s', '--b', '0.9000005s..1.7000005s', path],
             in_range(0.2000005, 0.9000005), in_range(0.9000005, 1.7000005)),
            ('two files', [path, renamed_for_compare], stacks, stacks)):
        proc = run('compare', *args)
        rows = list(csv.DictReader(io.StringIO(proc.stdout.decode())))
        a_n, b_n = inclusive(a_samples), inclusive(b_samples)
        ok = proc.returncode == 0 and len(rows) == len(set(a_n) | set(b_n))
        for r in rows:
            f = r['series'].split('/', 1)[1]
            ok = ok and r['stat'] == 'share' and int(r['a_n']) == a_n[f] and int(r['b_n']) == b_n[f] \
                and abs(float(r['a_value']) - a_n[f] / len(a_samples)) < 1e-9 \
                and abs(float(r['b_value']) - b_n[f] / len(b_samples)) < 1e-9
        check(f'recording: compare of {label}: per-function sample shares', ok, proc.stderr.decode()[:300])

    # Its one track is in a group a person reads, not the format's code name.
    pdf = os.path.join(tmp, 'timeline.pdf')
    proc = run('export', '-o', pdf, path)
    text = subprocess.run(['pdftotext', pdf, '-'], capture_output=True, text=True).stdout
    check('recording: the track\'s group is "Profiles"', proc.returncode == 0 and 'Profiles' in text
          and 'V8 CPU profile' in text and '\ncpuprofile\n' not in text, text[:300])

    # The export's note: a profile's events are its samples, every one of a
    # window drawn; it read "Sampled view … 18 samples of 662 events (about
    # 37 events per sample)", the whole file's events against the window's.
    view = in_range(0.2000005, 0.3000005)
    proc = run('export', '--view', '0.2000005s..0.3000005s', '-o', pdf, path)
    text = subprocess.run(['pdftotext', pdf, '-'], capture_output=True, text=True).stdout
    check('recording: a view\'s note counts its profile samples', proc.returncode == 0 and len(view) > 5
          and f'Profile view: every profile sample in view ({len(view)})' in text and 'Sampled view' not in text,
          f'{len(view)} samples in view; ' + ' '.join(line for line in text.splitlines() if ' view' in line))
    proc = run('export', '-o', pdf, path)
    text = subprocess.run(['pdftotext', pdf, '-'], capture_output=True, text=True).stdout
    said = re.search(r'Profile view: (\d+) of the (\d+) profile samples in view \(K = 2000 per track\)', text)
    check('recording: the whole file\'s note: samples kept of the profile\'s',
          said is not None and int(said.group(2)) == len(stacks) and 0.95 * len(stacks) <= int(said.group(1)) <= len(stacks),
          ' '.join(line for line in text.splitlines() if ' view' in line))

    # Sniffed from the content, not the name.
    renamed = os.path.join(tmp, 'profile.json')
    shutil.copy(path, renamed)
    rc, got, _ = info(renamed)
    check('recording: sniffed whatever its name', rc == 0 and got['format'] == 'cpuprofile')


def gen(name, mb, order, nodes=300):
    return generate('gen-cpuprofile.py', name, str(mb), '--order', order, '--nodes', str(nodes), '--seed', '7')

def check_generated():
    small = {o: gen(f'small-{o}.cpuprofile', 0.3, o) for o in ('v8', 'deltas-first', 'tree-last')}
    stacks, _, first, last = facts(small['v8'])
    outputs = {o: (dict(info(p)[1], file=None), run('sample', p).stdout) for o, p in small.items()}
    for o in ('deltas-first', 'tree-last'):
        check(f'generated {o}: info and sample as in V8\'s order', outputs[o] == outputs['v8'])
    check('generated: events', outputs['v8'][0]['events'] == len(stacks))
    check('generated: flame graph self weights',
          flame_csv(small['v8']) == {k: float(v) for k, v in Counter(stacks).items()})

    # Past 4 MiB of varints (~2 M samples here) the first array goes to a
    # temporary file. Peak RSS first: a child forked later would count this
    # process's lists.
    huge = gen('huge.cpuprofile', 30, 'v8', nodes=2000)
    if not SANITIZED:
        rc, rss = peak_rss(['info', '--no-cache', huge])
        check('spooled: flat memory', rc == 0 and rss < 40 << 20, f'{rss >> 20} MiB')
    os.unlink(huge)
    # Smaller, spilled every 1000 bytes: many blocks, varints across them.
    small_spool = {'TSL_CPUPROFILE_SPOOL_BYTES': '1000'}
    big = gen('big.cpuprofile', 3, 'v8', nodes=2000)
    stacks, _, first, last = facts(big)
    rc, got, err = info(big, env_extra=small_spool)
    check('spooled: events and span', rc == 0 and got['events'] == len(stacks)
          and abs(got['span_s'] - (last - first) / 1e6) < 1e-6, err)
    check('spooled: flame graph self weights',
          flame_csv(big, env_extra=small_spool) == {k: float(v) for k, v in Counter(stacks).items()})
    check('spooled: folded stacks', folded(big, small_spool) == Counter(stacks))
    check('spooled: the same samples as in memory', run('sample', big, env_extra=small_spool).stdout ==
          run('sample', big).stdout)
    # No temporary file possible: the spool stays in memory, same result.
    rc2, got2, _ = info(big, env_extra=dict(small_spool, TMPDIR=os.path.join(tmp, 'missing')))
    check('spooled: no temporary file, same info', rc2 == 0 and got2 == got)


NODES = ('{"id":1,"callFrame":{"functionName":"(root)","url":""},"children":[2]},'
         '{"id":2,"callFrame":{"functionName":"main","url":"file:///a/m.js","lineNumber":0},"children":[3]},'
         '{"id":3,"callFrame":{"functionName":"work","url":"file:///a/m.js","lineNumber":9}}')


def damaged(name, text, want_events, warning_re, positioned=True):
    path = os.path.join(tmp, name + '.cpuprofile')
    with open(path, 'w') as f:
        f.write(text)
    rc, got, err = info(path)
    check(f'{name}: read', rc == 0, err)
    if rc != 0:
        return None
    check(f'{name}: every sample kept', got['events'] == want_events, f"{got['events']} != {want_events}")
    hits = [w for w in got['warnings'] if re.search(warning_re, w)]
    check(f'{name}: warned', hits != [], repr(got['warnings']))
    if positioned and hits:
        check(f'{name}: the warning names the position',
              re.match(re.escape(path) + r':\d+:\d+: ', hits[0]) is not None, hits[0])
    return path


def check_damage():
    damaged('cycle', '{"nodes":[' + NODES.replace('"lineNumber":9}', '"lineNumber":9},"children":[1]') +
            '],"startTime":0,"samples":[3,3],"timeDeltas":[1,1]}', 2, r'node 1 would be its own ancestor')
    path = damaged('self-cycle', '{"nodes":[{"id":1,"callFrame":{"functionName":"a"},"children":[1]}],'
                   '"startTime":0,"samples":[1],"timeDeltas":[1]}', 1, r'node 1 would be its own ancestor')
    path = damaged('second-parent', '{"nodes":[' + NODES.replace('"children":[2]', '"children":[2,3]') +
                   '],"startTime":0,"samples":[3],"timeDeltas":[1]}', 1, r'node 3 is a child of node 1 and of node 2')
    path = damaged('unknown-node', '{"nodes":[' + NODES + '],"startTime":0,"samples":[3,99,2],"timeDeltas":[1,1,1]}',
                   3, r'sample 1 names node 99')
    if path:
        check('unknown-node: kept as (unknown node)', folded(path)['(unknown node)'] == 1)
    damaged('unknown-node-tree-last', '{"startTime":0,"samples":[3,99],"timeDeltas":[1,1],"nodes":[' + NODES + ']}',
            2, r'sample 1 names node 99', positioned=False)
    path = damaged('negative-delta', '{"nodes":[' + NODES + '],"startTime":1000,"samples":[3,2,3],'
                   '"timeDeltas":[10,-5,10]}', 3, r'time delta 1 is negative')
    if path:
        times = sorted(float(r['time_s']) for r in sample_rows(path))
        check('negative-delta: times as the deltas say', times == [0.000005, 0.00001, 0.000015], repr(times))
    damaged('more-samples', '{"nodes":[' + NODES + '],"startTime":0,"samples":[3,3,2],"timeDeltas":[1,1]}',
            3, r'"samples" and "timeDeltas" differ in length \(3 and 2\)', positioned=False)
    damaged('more-deltas', '{"nodes":[' + NODES + '],"startTime":0,"samples":[3],"timeDeltas":[1,1,4]}',
            1, r'"samples" and "timeDeltas" differ in length \(1 and 3\)', positioned=False)
    damaged('syntax-error', '{"nodes":[' + NODES + '],"startTime":0,"samples":[3,2 2],"timeDeltas":[1,1]}',
            2, r"expected ',' or '\]'; the rest of the V8 CPU profile is not read")
    damaged('no-deltas', '{"nodes":[' + NODES + '],"startTime":0,"samples":[3,2]}',
            2, r'differ in length \(2 and 0\)', positioned=False)
    damaged('not-integer', '{"nodes":[' + NODES + '],"startTime":0,"samples":[3,"x",2.5],"timeDeltas":[1,1,1]}',
            3, r'not an integer node id')

    # The recording cut in its samples and in its deltas: what came before stays.
    with open(os.path.join(data, 'node-busy.cpuprofile')) as f:
        text = f.read()
    doc = json.loads(text)
    for where in ('"samples":[', '"timeDeltas":['):
        cut = text.index(where) + len(where) + 200
        cut = text.rindex(',', 0, cut)
        # The number at the cut may be cut short itself: not read.
        kept = text[text.index(where) + len(where):cut].count(',')
        want = kept if where.startswith('"samples') else len(doc['samples'])
        damaged('cut in ' + where[1:-3], text[:cut], want, r'truncated; what came before the cut was read')


def check_digits():
    """Elements of every length the eight-byte scan takes (1–7 digits) and
    past it, a leading zero, blanks, a sign, a fraction and an exponent, cut
    anywhere by the buffers: times and nodes as Python reads them."""
    rng = __import__('random').Random(5)
    ids = [1, 2, 3, 10, 100, 1000, 99999, 1234567]
    nodes = ','.join('{"id":%d,"callFrame":{"functionName":"f%d"}%s}' % (n, n, ',"parent":1' if n != 1 else '')
                     for n in ids)
    samples, deltas = [], []
    for i in range(20000):
        samples.append(rng.choice(ids))
        d = rng.choice([rng.randrange(10 ** k, 10 ** (k + 1)) for k in range(9)] + [0, 7])
        deltas.append(d)
    text_deltas = []
    for i, d in enumerate(deltas):
        form = i % 11
        text_deltas.append({0: '%d', 1: ' %d', 2: '%d.0', 3: '0%d' if d == 0 else '%d', 4: '%de0',
                            6: '\n%d'}.get(form, '%d') % d)
    text = ('{"nodes":[%s],"startTime":1000,"samples":[%s],"timeDeltas":[%s]}'
            % (nodes, ','.join(str(s) if i % 13 else ' %d' % s for i, s in enumerate(samples)), ','.join(text_deltas)))
    path = os.path.join(tmp, 'digits.cpuprofile')
    with open(path, 'w') as f:
        f.write(text)
    rc, got, err = info(path)
    check('digits: read without warnings', rc == 0 and got['warnings'] == [] and got['events'] == len(samples),
          err + repr(got and got['warnings']))
    rows = list(csv.DictReader(io.StringIO(run('sample', '--k', '100000', path).stdout.decode())))
    times, t = [], 1000
    for d in deltas:
        t += d
        times.append(t)
    first = min([1000] + times)
    want = sorted((round((t - first) / 1e6, 6), 'f1;f%d' % s if s != 1 else 'f1') for t, s in zip(times, samples))
    got_rows = sorted((float(r['time_s']), r['label']) for r in rows)
    check('digits: every time and node as Python reads them',
          len(got_rows) == len(want) and all(abs(a[0] - b[0]) < 2e-6 and a[1] == b[1] for a, b in zip(got_rows, want)),
          repr([(a, b) for a, b in zip(got_rows, want) if a != b][:3]))


def main():
    check_digits()
    check_recording()
    check_generated()
    check_damage()
    profile_check.finish()


if __name__ == '__main__':
    main()
