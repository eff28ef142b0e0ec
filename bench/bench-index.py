#!/usr/bin/python3
# bench/bench-index.py: what the chunk index saves range reads, and costs the first read
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
#   bench/bench-index.py [--mb 1000] [--runs 3] [--form object|array] [--file FILE]
#                        [--repeat TRACE] [--rounds R] [--baseline OTHER] [--cached-only]
#                        [TIMESLICE]
#
# Generates a seeded Chrome trace with bench/gen-chrome.py (threads'
# bursts interleave, so the file is unsorted) in a temporary directory and
# measures, in one run, each figure beside its baseline:
#
# - `timeslice compare --a X%..X+1% --b Y%..Y+1%` three ways: with
#   TSL_NO_INDEX=1 (a span pass, then every range read scans the whole
#   file: the baseline), with an empty index cache (the span pass records
#   the index, the range reads use it), and with the cache a previous run
#   left (no span pass: only the ranges' chunks are read). The bytes each
#   range read took come from the read's debug message
#   (G_MESSAGES_DEBUG=tsl-read-stream).
# - `timeslice info` with and without recording the index: the first read's
#   overhead, in CPU time and peak RSS.
#
# --rounds R is passed to compare (`--rounds 1`: the reads alone, without
# the bootstrap); --file takes a trace (plain, gzip or zstd) instead;
# --repeat TRACE makes the --mb file of copies of a real Chrome trace
# (bench/gen-repeat.py: each copy's async spans left open pile up).
# --baseline OTHER also runs the cached compare with another build (say
# main's), interleaved with TIMESLICE's, and prints after ÷ before;
# --cached-only leaves out the compares without the index or with an empty
# cache (the slow ones) and keeps `info` for the ratio.
#
# The machine is shared: the measure is CPU time (user + system of the
# child, from getrusage) and bytes read, medians of interleaved runs; wall
# time is printed for reference only. The page cache is warm.

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(argv, env_extra):
    env = dict(os.environ, G_MESSAGES_DEBUG='tsl-read-stream')
    env.update(env_extra)
    rss_file = os.path.join(tempfile.gettempdir(), 'tsl-bench-index-rss')
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    # /usr/bin/time tells the child's own peak RSS (getrusage only the
    # largest of all children).
    proc = subprocess.run(['/usr/bin/time', '-f', '%M', '-o', rss_file] + argv, env=env, capture_output=True)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.exit('%s failed: %s' % (' '.join(argv), proc.stderr.decode()[-500:]))
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    with open(rss_file) as f:
        run.rss = int(f.read().split()[-1]) / 1024.0
    out = proc.stdout
    reads = []
    for line in out.decode(errors='replace').splitlines():
        if 'chunks) through the index' in line:
            run.chunks[argv[0]] = int(line.split(' chunks) through')[0].split(' of ')[-1])
        if 'through the index' in line:
            # Compressed input: the compressed bytes the read took.
            if 'compressed bytes' in line:
                reads.append(int(line.split('text, ')[1].split(' ')[0]))
            else:
                reads.append(int(line.split(': read ')[1].split(' ')[0]))
    return cpu, wall, reads


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--mb', type=float, default=1000)
    parser.add_argument('--runs', type=int, default=3)
    parser.add_argument('--form', default='object')
    parser.add_argument('--file', help='use this trace instead of generating one')
    parser.add_argument('--repeat', help='generate the trace from copies of this one (bench/gen-repeat.py)')
    parser.add_argument('--rounds', type=int, help='compare --rounds')
    parser.add_argument('--baseline', help='another timeslice to run the cached compare with, for a before/after')
    parser.add_argument('--cached-only', action='store_true', help='only the cached compares (and info)')
    parser.add_argument('timeslice', nargs='?', default=os.path.join(ROOT, '_build-bench', 'app', 'timeslice'))
    args = parser.parse_args()

    tmp = tempfile.mkdtemp(prefix='tsl-bench-index-')
    try:
        path = args.file
        if path is None:
            path = os.path.join(tmp, 'trace.json')
            if args.repeat is not None:
                gen = [os.path.join(ROOT, 'bench', 'gen-repeat.py'), '--mb', str(args.mb), args.repeat]
            else:
                gen = [os.path.join(ROOT, 'bench', 'gen-chrome.py'), '--mb', str(args.mb), '--form', args.form]
            with open(path, 'wb') as f:
                subprocess.run([sys.executable] + gen, stdout=f, check=True)
        size = os.path.getsize(path)
        subprocess.run(['cat', path], stdout=subprocess.DEVNULL, check=True)   # warm the cache

        # The third pair is adjacent, as a user selects A then B: there
        # 16 shifted copies fit and the compare reads them too.
        ranges = [('10%..11%', '90%..91%'), ('45%..46%', '60%..61%'), ('50%..51%', '51%..52%')]
        kept = os.path.join(tmp, 'kept-cache')
        # The baseline's own: a build with another cache format would
        # replace the entry of the other at every run.
        kept_baseline = os.path.join(tmp, 'kept-cache-baseline')
        cold = os.path.join(tmp, 'cold-cache')
        rows = {}
        rss = {}
        for r in range(args.runs):
            for a, b in ranges:
                argv = [args.timeslice, 'compare', '--a', a, '--b', b, '-o', os.devnull, path]
                if args.rounds is not None:
                    argv[2:2] = ['--rounds', str(args.rounds)]
                shutil.rmtree(cold, ignore_errors=True)
                variants = (('no index', {'TSL_NO_INDEX': '1'}),
                            ('index', {'XDG_CACHE_HOME': cold}),
                            ('cached', {'XDG_CACHE_HOME': kept}))
                if args.cached_only:
                    variants = variants[2:]
                if r == 0:
                    run(argv, {'XDG_CACHE_HOME': kept})   # leaves the entry
                    if args.baseline is not None:
                        run([args.baseline] + argv[1:], {'XDG_CACHE_HOME': kept_baseline})
                for label, env in variants:
                    cpu, wall, reads = run(argv, env)
                    rows.setdefault(('compare %s / %s' % (a, b), label), []).append((cpu, wall, reads))
                if args.baseline is not None:
                    cpu, wall, reads = run([args.baseline] + argv[1:], {'XDG_CACHE_HOME': kept_baseline})
                    rows.setdefault(('compare %s / %s' % (a, b), 'cached, baseline'), []).append((cpu, wall, reads))
            for label, env in (('no index', {'TSL_NO_INDEX': '1'}), ('index', {'XDG_CACHE_HOME': cold})):
                shutil.rmtree(cold, ignore_errors=True)
                cpu, wall, reads = run([args.timeslice, 'info', path], env)
                rows.setdefault(('info (first read)', label), []).append((cpu, wall, reads))
                rss.setdefault(label, []).append(run.rss)

        print('Chunk index, %s (%.0f MB), %d runs, medians; CPU = user + system; compare %s'
              % (os.path.basename(path), size / 1e6, args.runs,
                 '--rounds %d' % args.rounds if args.rounds is not None else 'at its default rounds'))
        print()
        print('| command | variant | CPU s | × no index | wall s | bytes read per range read |')
        print('|---|---|---:|---:|---:|---|')
        for (name, label), runs in rows.items():
            base = rows.get((name, 'no index'))
            cpu = statistics.median(x[0] for x in runs)
            wall = statistics.median(x[1] for x in runs)
            reads = runs[0][2]
            read_text = ', '.join('%.1f MB (%.1f %%)' % (n / 1e6, 100.0 * n / size) for n in reads) or '-'
            ratio = '%.3f' % (cpu / statistics.median(x[0] for x in base)) if base else '-'
            print('| %s | %s | %.2f | %s | %.2f | %s |' % (name, label, cpu, ratio, wall, read_text))
        info = statistics.median(x[0] for x in rows[('info (first read)', 'no index')])
        info_wall = statistics.median(x[1] for x in rows[('info (first read)', 'no index')])
        print()
        for (name, label), runs in rows.items():
            if name.startswith('compare') and label.startswith('cached'):
                print('%s, %s index: %.3f x info in CPU, %.3f x in wall time' %
                      (name, label, statistics.median(x[0] for x in runs) / info,
                       statistics.median(x[1] for x in runs) / info_wall))
            if name.startswith('compare') and label == 'cached' and (name, 'cached, baseline') in rows:
                before = rows[(name, 'cached, baseline')]
                print('%s, cached: after / before = %.3f in CPU, %.3f in wall time' %
                      (name, statistics.median(x[0] for x in runs) / statistics.median(x[0] for x in before),
                       statistics.median(x[1] for x in runs) / statistics.median(x[1] for x in before)))
        for exe, chunks in run.chunks.items():
            print('index of %s: %d chunks' % (exe, chunks))
        print('info peak RSS: %.1f MiB without the index, %.1f MiB recording it' %
              (statistics.median(rss['no index']), statistics.median(rss['index'])))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


run.chunks = {}

if __name__ == '__main__':
    main()
