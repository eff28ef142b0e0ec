#!/usr/bin/python3
# bench/ab-builds.py: two timeslice builds on the same inputs, interleaved, as ratios
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
#   bench/ab-builds.py --old OLD/timeslice --new NEW/timeslice [--runs 5] [--callgrind] FILE...
#
# For each FILE, `info --json --no-cache` by the old build then the new one,
# RUNS times interleaved so a busy machine weighs on both alike: CPU (user +
# system) medians and their ratio new / old, peak RSS the largest of each.
# With --callgrind, also each build's instructions once under valgrind (the
# figure that a loaded machine does not move). The builds must print the
# same `info --json`.

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile


def timed(exe, path):
    env = dict(os.environ, TSL_CACHE_MAX_BYTES='0', LC_ALL='C.UTF-8')
    p = subprocess.run(['/usr/bin/time', '-f', '%U %S %M', exe, 'info', '--json', '--no-cache', path],
                       env=env, capture_output=True, text=True, check=True)
    u, s, m = p.stderr.strip().split('\n')[-1].split()
    return float(u) + float(s), int(m) / 1024, p.stdout


def instructions(exe, path):
    env = dict(os.environ, TSL_CACHE_MAX_BYTES='0', LC_ALL='C.UTF-8')
    with tempfile.TemporaryDirectory() as d:
        p = subprocess.run(['valgrind', '--tool=callgrind', '--callgrind-out-file=' + os.path.join(d, 'cg'),
                            exe, 'info', '--no-cache', path], env=env, capture_output=True, text=True,
                           check=True)
    return int(re.search(r'Collected : (\d+)', p.stderr).group(1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--old', required=True)
    ap.add_argument('--new', required=True)
    ap.add_argument('--runs', type=int, default=5)
    ap.add_argument('--callgrind', action='store_true')
    ap.add_argument('files', nargs='+')
    args = ap.parse_args()

    print('| input | MB | old CPU s | new CPU s | × CPU | old RSS MiB | new RSS MiB |'
          + (' old instructions | new instructions | × instructions |' if args.callgrind else ''))
    print('|---|---:|---:|---:|---:|---:|---:|' + ('---:|---:|---:|' if args.callgrind else ''))
    for path in args.files:
        cpu = {'old': [], 'new': []}
        rss = {'old': 0.0, 'new': 0.0}
        out = {}
        for _ in range(args.runs):
            for side in ('old', 'new'):
                c, m, o = timed(getattr(args, side), path)
                cpu[side].append(c)
                rss[side] = max(rss[side], m)
                out[side] = o
        if out['old'] != out['new']:
            sys.exit(f'{path}: the builds print different info')
        old, new = statistics.median(cpu['old']), statistics.median(cpu['new'])
        row = (f'| {os.path.basename(path)} | {os.path.getsize(path) / 1e6:.1f} | {old:.3f} | {new:.3f} | '
               f'{new / old:.3f} | {rss["old"]:.1f} | {rss["new"]:.1f} |')
        if args.callgrind:
            i_old, i_new = instructions(args.old, path), instructions(args.new, path)
            row += f' {i_old:,} | {i_new:,} | {i_new / i_old:.4f} |'
        print(row, flush=True)


if __name__ == '__main__':
    main()
