#!/usr/bin/python3
# bench/bench-changes.py: what `timeslice changes` costs against `info` on a first read
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
#   bench/bench-changes.py [--mb 1000] [--runs 3] [--file FILE] [TIMESLICE]
#
# Generates a seeded Chrome trace with bench/gen-chrome.py (--form object)
# in a temporary directory, or takes --file, and measures in one run,
# interleaved, medians of --runs:
#
# - `info --no-cache`: one whole read, the baseline;
# - `changes --no-cache`: a first read, nothing cached (one read of the
#   whole file, every series' blocks growing with the span);
# - `changes` with the chunk index a previous `info` cached (as after the
#   window opened the file: the same read through the index, its blocks
#   cut from the span the index knows);
# - `changes` with its table cached (an unchanged file: nothing read).
#
# The targets: a first read ≤ 1.2 × `info --no-cache`, from the cache
# ≤ 0.2 s. The machine is shared: the measure is CPU time (user + system of
# the child, from getrusage); wall time is printed for reference, beside
# the load average. The page cache is warm.

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
    env = dict(os.environ)
    env.pop('TSL_CACHE_MAX_BYTES', None)
    env.update(env_extra)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    proc = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.exit('%s failed: %s' % (' '.join(argv), proc.stderr.decode()[-500:]))
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, proc.stdout


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--mb', type=float, default=1000)
    parser.add_argument('--runs', type=int, default=3)
    parser.add_argument('--file', help='use this trace instead of generating one')
    parser.add_argument('timeslice', nargs='?', default=os.path.join(ROOT, '_build-bench', 'app', 'timeslice'))
    args = parser.parse_args()

    tmp = tempfile.mkdtemp(prefix='tsl-bench-changes-')
    try:
        path = args.file
        if path is None:
            path = os.path.join(tmp, 'trace.json')
            with open(path, 'wb') as f:
                subprocess.run([sys.executable, os.path.join(ROOT, 'bench', 'gen-chrome.py'),
                                '--mb', str(args.mb), '--form', 'object'], stdout=f, check=True)
        size = os.path.getsize(path)
        subprocess.run(['cat', path], stdout=subprocess.DEVNULL, check=True)   # warm the page cache

        indexed = os.path.join(tmp, 'index-cache')
        tabled = os.path.join(tmp, 'table-cache')
        exe = args.timeslice
        rows = {}
        n_rows = None
        loads = []
        # The cached variants' entries: info leaves the chunk index, a first
        # changes leaves the index and the table.
        run([exe, 'info', path], {'XDG_CACHE_HOME': indexed})
        run([exe, 'changes', '-o', os.devnull, path], {'XDG_CACHE_HOME': tabled})
        for _ in range(args.runs):
            loads.append(os.getloadavg()[0])
            for label, argv, env in (
                    ('info --no-cache (one whole read)', [exe, 'info', '--no-cache', path], {}),
                    ('changes --no-cache (first read)', [exe, 'changes', '--no-cache', path], {}),
                    ('changes, the chunk index cached by info', [exe, 'changes', path],
                     {'XDG_CACHE_HOME': indexed}),
                    ('changes, its table cached', [exe, 'changes', path], {'XDG_CACHE_HOME': tabled})):
                if label.startswith('changes, the chunk index'):
                    # Only the index: drop the table the previous run saved.
                    for name in os.listdir(os.path.join(indexed, 'timeslice')):
                        if name.startswith('changes-'):
                            os.unlink(os.path.join(indexed, 'timeslice', name))
                cpu, wall, out = run(argv, env)
                if label.startswith('changes --no-cache'):
                    n_rows = out.count(b'\n') - 1
                rows.setdefault(label, []).append((cpu, wall))

        info = statistics.median(x[0] for x in rows['info --no-cache (one whole read)'])
        print('changes against info, %s (%.0f MB), %d runs interleaved, medians; CPU = user + system; '
              'load average %.1f–%.1f; %d rows'
              % (os.path.basename(path), size / 1e6, args.runs, min(loads), max(loads), n_rows))
        print()
        print('| command | CPU s | × info | wall s |')
        print('|---|---:|---:|---:|')
        for label, runs in rows.items():
            cpu = statistics.median(x[0] for x in runs)
            wall = statistics.median(x[1] for x in runs)
            print('| %s | %.3f | %.2f | %.3f |' % (label, cpu, cpu / info, wall))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == '__main__':
    main()
