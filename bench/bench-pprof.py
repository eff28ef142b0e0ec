#!/usr/bin/env python3
# bench-pprof.py: pprof ingest against the V8 CPU profile reader on the same samples
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Usage: bench/bench-pprof.py [--mb SIZE] [--runs R] [--timeslice EXE]
#
# Generates a V8 CPU profile of SIZE MB (bench/gen-cpuprofile.py, seed 1),
# then the same samples of the same tree as a pprof profile, plain and
# gzipped (bench/gen-pprof.py --samples N), and times `info --no-cache` of
# each, interleaved, R runs (default 3), warm page cache. Prints CPU time
# (user + system; the machine is shared, so wall time says less), MB/s of
# the file as stored, samples/s and peak RSS, each as a ratio to the
# .cpuprofile of the same run. Default EXE: _build/app/timeslice.

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)


def measure(argv):
    t0 = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.execvp(argv[0], argv)
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError('failed: ' + ' '.join(argv))
    return dict(cpu=usage.ru_utime + usage.ru_stime, wall=wall, rss=usage.ru_maxrss / 1024)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--mb', type=float, default=100)
    ap.add_argument('--runs', type=int, default=3)
    ap.add_argument('--timeslice', default=os.path.join(ROOT, '_build', 'app', 'timeslice'))
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix='tsl-bench-pprof-')
    try:
        files = {'cpuprofile': os.path.join(tmp, 'p.cpuprofile'), 'pprof': os.path.join(tmp, 'p.pprof'),
                 'pprof.gz': os.path.join(tmp, 'p.pprof.gz')}
        with open(files['cpuprofile'], 'wb') as f:
            subprocess.run([sys.executable, os.path.join(BENCH, 'gen-cpuprofile.py'), str(args.mb)],
                           stdout=f, check=True)
        info = subprocess.run([args.timeslice, 'info', '--json', '--no-cache', files['cpuprofile']],
                              capture_output=True, check=True)
        n = json.loads(info.stdout)['events']
        for key, extra in (('pprof', []), ('pprof.gz', ['--gzip'])):
            with open(files[key], 'wb') as f:
                subprocess.run([sys.executable, os.path.join(BENCH, 'gen-pprof.py'), '0', '--samples', str(n)]
                               + extra, stdout=f, check=True)
        for key, path in files.items():
            got = json.loads(subprocess.run([args.timeslice, 'info', '--json', '--no-cache', path],
                                            capture_output=True, check=True).stdout)['events']
            if got != n:
                sys.exit(f'{key}: {got} samples, not {n}')
        results = {k: [] for k in files}
        for _ in range(args.runs):
            for key, path in files.items():
                results[key].append(measure([args.timeslice, 'info', '--no-cache', path]))
        load = open('/proc/loadavg').read().split()[:3]
        base = statistics.median(r['cpu'] for r in results['cpuprofile'])
        base_rss = statistics.median(r['rss'] for r in results['cpuprofile'])
        print(f'{n:,} samples, {args.runs} interleaved runs, load average at the end {" ".join(load)}')
        print()
        print('| input | size MB | CPU s (median, min–max) | MB/s of CPU | M samples/s | × CPU of .cpuprofile '
              '| peak RSS MiB | × RSS |')
        print('|---|---|---|---|---|---|---|---|')
        for key, path in files.items():
            mb = os.path.getsize(path) / 1e6
            cpu = [r['cpu'] for r in results[key]]
            med = statistics.median(cpu)
            rss = statistics.median(r['rss'] for r in results[key])
            print(f'| {key} | {mb:.1f} | {med:.2f} ({min(cpu):.2f}–{max(cpu):.2f}) | {mb / med:.0f} | '
                  f'{n / med / 1e6:.1f} | {med / base:.2f} | {rss:.0f} | {rss / base_rss:.2f} |')
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == '__main__':
    main()
