#!/usr/bin/python3
# bench/bench-compare-tracks.py: compare of a state or a pipe against its number of tracks
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
#   bench/bench-compare-tracks.py [--tracks 10000,40000] [--runs 3]
#                                 [--baseline OTHER] [TIMESLICE]
#
# A compare of a sampler state (.tss) or of standard input has no events to
# re-read: it compares the samples kept for every track, and names each row
# after its track (with the pid when two tracks share a name). Naming once
# asked every track about every other: 40,000 tracks took 15-41 s. For each
# track count, a seeded Chrome trace of that many counter tracks (one name
# in ten shared by two processes) is written in a temporary directory, read
# into a state, and `compare --a 0%..50% --b 50%..100% --rounds 100` is
# timed on the state and on the trace through a pipe, interleaved with
# --baseline's (say main's) when given; the CSVs must be equal. The measure
# is CPU time (user + system of the child), medians; the machine is shared.

import argparse
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def write_trace(path, n, seed=1):
    rng = random.Random(seed)
    with open(path, 'w') as out:
        out.write('{"traceEvents":[\n')
        first = True
        for i in range(n):
            pid = 1 + i % 2
            # Tracks 10k and 10k + 1 share a name in two processes.
            name = 'dup%d' % (i // 10) if i % 10 < 2 else 'c%d' % i
            for t in range(4):
                ev = {'ph': 'C', 'name': name, 'pid': pid, 'ts': t * 1000 + rng.randrange(7),
                      'args': {'v': rng.randrange(100)}}
                out.write(('' if first else ',\n') + json.dumps(ev, separators=(',', ':')))
                first = False
        out.write('\n]}\n')


def cpu_of(argv, stdin=None, out=None):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(stdin, 'rb') if stdin else open(os.devnull, 'rb') as f:
        proc = subprocess.run(argv, stdin=f, capture_output=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.exit('%s failed: %s' % (' '.join(argv), proc.stderr.decode()[-500:]))
    if out is not None:
        with open(out, 'wb') as f:
            f.write(proc.stdout)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--tracks', default='10000,40000')
    parser.add_argument('--runs', type=int, default=3)
    parser.add_argument('--baseline', help='another timeslice, for a before/after')
    parser.add_argument('timeslice', nargs='?', default=os.path.join(ROOT, '_build-bench', 'app', 'timeslice'))
    args = parser.parse_args()

    builds = [('this', args.timeslice)] + ([('baseline', args.baseline)] if args.baseline else [])
    compare = ['compare', '--no-cache', '--memory-budget', '4G', '--rounds', '100',
               '--a', '0%..50%', '--b', '50%..100%']
    tmp = tempfile.mkdtemp(prefix='tsl-bench-tracks-')
    try:
        print('| tracks | input | build | CPU s (median of %d) | × baseline |' % args.runs)
        print('|---:|---|---|---:|---:|')
        for n in (int(x) for x in args.tracks.split(',')):
            trace = os.path.join(tmp, 'tracks-%d.json' % n)
            state = os.path.join(tmp, 'tracks-%d.tss' % n)
            write_trace(trace, n)
            subprocess.run([args.timeslice, 'sample', '--no-cache', '--memory-budget', '4G', '--state',
                            '-o', state, trace], check=True, capture_output=True)
            for label, argv_tail, stdin in (('state', [state], None), ('stdin', ['-'], trace)):
                times = {name: [] for name, _ in builds}
                outputs = {}
                for r in range(args.runs):
                    for name, exe in builds:
                        out = os.path.join(tmp, '%s-%s.csv' % (name, label))
                        times[name].append(cpu_of([exe] + compare + argv_tail, stdin, out))
                        with open(out, 'rb') as f:
                            outputs[name] = f.read()
                if len(set(outputs.values())) != 1:
                    sys.exit('the builds disagree on %s of %d tracks' % (label, n))
                base = statistics.median(times['baseline']) if args.baseline else None
                for name, _ in builds:
                    cpu = statistics.median(times[name])
                    print('| %d | %s | %s | %.2f | %s |' % (n, label, name, cpu,
                                                           '%.3f' % (cpu / base) if base else '-'))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == '__main__':
    main()
