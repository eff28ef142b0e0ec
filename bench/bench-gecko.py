#!/usr/bin/env python3
# bench-gecko.py: Firefox profile ingest against the V8 CPU profile reader's, same sizes, same run
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Usage: bench-gecko.py [--exe TIMESLICE] [--sizes 100,1000] [--runs 3] [--tmpdir DIR] [--inputs DIR]
# Generates a Gecko profile (bench/gen-gecko.py, 4 threads, one in a
# sub-process), its processed twin and a V8 CPU profile (bench/gen-cpuprofile.py)
# of each size, then times `timeslice info --json --no-cache FILE` on each,
# interleaved, and prints a Markdown table: wall-clock and CPU seconds
# (medians), MB/s, MB per CPU-second, peak RSS, and the Gecko reader's ratios
# to the V8 reader's. Peak RSS and CPU come from wait4() on the child alone.
# Each file is also read with TSL_READER_THREADS=1 in the same interleaving:
# "cores" is CPU ÷ wall of the default read, "× one thread" its wall-clock
# speed-up over the one-thread read (the Gecko and V8 readers decode on a
# second thread ahead of the one that models; on a busy machine the
# governor keeps them on one). --one-thread 0 leaves those reads out;
# --inputs DIR reads gecko.json, processed.json and v8.cpuprofile found in
# DIR (made earlier by the generators) instead of generating them: a
# gigabyte V8 profile takes gen-cpuprofile.py over 15 GB of memory.
# Not run by bench/run (it writes up to three files of the largest size).

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def measure(exe, path, threads=None):
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        env = dict(os.environ)
        if threads is not None:
            env['TSL_READER_THREADS'] = threads
        os.execve(exe, [exe, 'info', '--json', '--no-cache', path], env)
    _, status, usage = os.wait4(pid, 0)
    wall = time.monotonic() - start
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f'bench-gecko: {exe} info {path} failed')
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def generate(script, size_mb, path, extra):
    t = time.monotonic()
    with open(path, 'wb') as f:
        subprocess.run([sys.executable, os.path.join(ROOT, 'bench', script), '%g' % size_mb] + extra,
                       stdout=f, check=True)
    print(f'generated {os.path.basename(path)}: {os.path.getsize(path) / 1e6:.0f} MB in '
          f'{time.monotonic() - t:.0f} s', file=sys.stderr, flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--exe', default=os.path.join(ROOT, '_build-bench', 'app', 'timeslice'))
    ap.add_argument('--sizes', default='100,1000')
    ap.add_argument('--runs', type=int, default=3)
    ap.add_argument('--tmpdir')
    ap.add_argument('--one-thread', type=int, default=1, help='also read each file on one thread (1) or not (0)')
    ap.add_argument('--inputs', help='read the files of these names already in this directory (those present), '
                    'generated earlier, instead of generating them; --sizes gives one label')
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(dir=args.tmpdir, prefix='tsl-bench-gecko-') as tmp:
        for size in (float(s) for s in args.sizes.split(',')):
            where = args.inputs or tmp
            files = {
                'Firefox (Gecko)': (os.path.join(where, 'gecko.json'), 'gen-gecko.py', ['--seed', '1']),
                'Firefox (processed)': (os.path.join(where, 'processed.json'), 'gen-gecko.py',
                                        ['--form', 'processed', '--seed', '1']),
                'V8 CPU profile': (os.path.join(where, 'v8.cpuprofile'), 'gen-cpuprofile.py', ['--seed', '1']),
            }
            if args.inputs:
                files = {k: v for k, v in files.items() if os.path.exists(v[0])}
            else:
                for path, script, extra in files.values():
                    generate(script, size, path, extra)
            results = {k: [] for k in files}
            one = {k: [] for k in files}
            for _ in range(args.runs):
                for k, (path, _, _) in files.items():
                    results[k].append(measure(args.exe, path))
                    if args.one_thread:
                        one[k].append(measure(args.exe, path, '1'))
            for k, (path, _, _) in files.items():
                mb = os.path.getsize(path) / 1e6
                wall = statistics.median(r[0] for r in results[k])
                cpu = statistics.median(r[1] for r in results[k])
                rss = max(r[2] for r in results[k])
                wall1 = statistics.median(r[0] for r in one[k]) if one[k] else float('nan')
                rows.append((k, size, mb, wall, cpu, mb / wall, mb / cpu, rss, cpu / wall, wall1 / wall))
            if not args.inputs:
                for path, _, _ in files.values():
                    os.unlink(path)
    v8 = {r[1]: r for r in rows if r[0] == 'V8 CPU profile'}
    load = os.getloadavg()[0]
    print(f'\n`{os.path.relpath(args.exe, ROOT)} info --json --no-cache`, medians of {args.runs} interleaved runs; '
          f'load average {load:.1f} at the end\n')
    print('| format | size | MB | wall s | CPU s | MB/s | MB per CPU-s | peak RSS MiB | MB per CPU-s ÷ V8\'s | '
          'RSS ÷ V8\'s | cores | × one thread |')
    print('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
    for k, size, mb, wall, cpu, mbs, mbcpu, rss, cores, speedup in rows:
        base = v8[size]
        print(f'| {k} | {size:g} MB | {mb:.0f} | {wall:.2f} | {cpu:.2f} | {mbs:.0f} | {mbcpu:.0f} | {rss:.1f} | '
              f'{mbcpu / base[6]:.2f}× | {rss / base[7]:.2f}× | {cores:.2f} | {speedup:.2f}× |')


if __name__ == '__main__':
    main()
