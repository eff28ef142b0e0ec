#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Sample traces on a Dask cluster and merge the sampler states.

Maps `timeslice sample --state` over FILEs (consecutive parts of one
stream, in order, or with --separate different sources) or over the
--parts of one big FILE, on a Dask LocalCluster (default) or the scheduler
at --scheduler, then merges the states with `timeslice merge` into OUT and
prints `timeslice info OUT` (or, with --open, opens it in the window).

Only the small states travel: each task runs timeslice where the data is
and returns the state's bytes. In count mode a part's tracks number their
events after the earlier parts' (timeslice sample --after), so the parts
run twice: time mode first, whose states give each part's event counts,
then count mode. The result is byte for byte what one `timeslice sample
--state` of the whole would write.

    contrib/timeslice-dask.py --parts 8 -o all.tss big.json
    contrib/timeslice-dask.py --scheduler tcp://scheduler:8786 -o all.tss part-*.json
    contrib/timeslice-dask.py --separate --open -o runs.tss before.json after.json

Needs Dask's distributed (Debian: python3-distributed). With --parts, FILE
must be readable at the same path by every worker; a part that finds no
chunk index of FILE in its cache reads FILE once to make one, so on a
LocalCluster (one cache) the recipe first makes it (--no-prepare skips it).
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time


def sample_state(timeslice, path, mode, k, part=None, after=()):
    """A task: the state of `path` (or of one part of it) as bytes."""
    with tempfile.TemporaryDirectory(prefix='timeslice-dask-') as tmp:
        args = [timeslice, 'sample', '--state', '--mode', mode, '--k', str(k)]
        for i, state in enumerate(after):
            name = os.path.join(tmp, f'after-{i}.tss')
            with open(name, 'wb') as f:
                f.write(state)
            args += ['--after', name]
        if part is not None:
            args += ['--part', f'{part[0]}/{part[1]}']
        out = os.path.join(tmp, 'state.tss')
        r = subprocess.run(args + ['-o', out, path], capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(r.stderr.strip() or f'timeslice exited {r.returncode}')
        with open(out, 'rb') as f:
            return f.read()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=__doc__.split('\n\n', 1)[1])
    parser.add_argument('files', nargs='+', metavar='FILE')
    parser.add_argument('-o', '--output', required=True, metavar='OUT.tss')
    parser.add_argument('--parts', type=int, default=0, metavar='N',
                        help='split the one FILE into N byte ranges (timeslice sample --part)')
    parser.add_argument('--separate', action='store_true',
                        help='the FILEs are different sources, kept as separate groups')
    parser.add_argument('--mode', choices=['count', 'time'], default='count')
    parser.add_argument('--k', type=int, default=2000)
    parser.add_argument('--scheduler', metavar='ADDRESS', help='a running scheduler (default: a LocalCluster)')
    parser.add_argument('--workers', type=int, default=os.cpu_count() or 1,
                        help='LocalCluster workers (default: the cores)')
    parser.add_argument('--timeslice', default=shutil.which('timeslice') or 'timeslice',
                        help='the timeslice program on the workers')
    parser.add_argument('--no-prepare', action='store_true', help='with --parts: do not make the index first')
    parser.add_argument('--open', action='store_true', help='open the result in the window')
    parser.add_argument('--quiet', action='store_true', help='print only the timings')
    args = parser.parse_args()
    if args.parts and len(args.files) != 1:
        parser.error('--parts takes one FILE')
    if args.parts and args.separate:
        parser.error('--parts splits one source: no --separate')

    from dask.distributed import Client, LocalCluster

    cluster = None
    if args.scheduler:
        client = Client(args.scheduler)
    else:
        cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                               host='127.0.0.1', dashboard_address=None)
        client = Client(cluster)

    try:
        if args.parts:
            path = os.path.abspath(args.files[0])
            if not args.no_prepare:
                # The chunk index, once, where every local worker finds it.
                subprocess.run([args.timeslice, 'sample', '--state', '--part', f'1/{args.parts}',
                                '--mode', 'time', '--k', '1', '-o', os.devnull, path],
                               check=True, capture_output=True)
            jobs = [(path, (i, args.parts)) for i in range(1, args.parts + 1)]
        else:
            jobs = [(os.path.abspath(f), None) for f in args.files]

        start = time.monotonic()
        first_mode = 'time' if args.mode == 'count' and not args.separate else args.mode
        futures = [client.submit(sample_state, args.timeslice, p, first_mode, args.k, part, pure=False)
                   for p, part in jobs]
        states = client.gather(futures)
        if first_mode != args.mode:
            # Count mode: part i numbered after parts 1..i-1 (their time-mode states' counts).
            shared = [client.scatter(s) for s in states]
            futures = [client.submit(sample_state, args.timeslice, p, 'count', args.k, part, shared[:i],
                                     pure=False)
                       for i, (p, part) in enumerate(jobs)]
            states = client.gather(futures)
        sampled = time.monotonic() - start

        with tempfile.TemporaryDirectory(prefix='timeslice-dask-') as tmp:
            names = []
            for i, state in enumerate(states):
                base = os.path.splitext(os.path.basename(jobs[i][0]))[0] if args.separate else f'part-{i + 1}'
                names.append(os.path.join(tmp, base + '.tss'))
                with open(names[-1], 'wb') as f:
                    f.write(state)
            merge = [args.timeslice, 'merge', '-o', args.output] + (['--separate'] if args.separate else [])
            subprocess.run(merge + names, check=True)
        total = time.monotonic() - start
    finally:
        client.close()
        if cluster is not None:
            cluster.close()

    workers = args.workers if cluster is not None else 'remote'
    print(f'{len(jobs)} tasks on {workers} workers: sampled in {sampled:.2f} s, merged in {total - sampled:.2f} s',
          file=sys.stderr)
    if args.open:
        os.execvp(args.timeslice, [args.timeslice, args.output])
    if not args.quiet:
        subprocess.run([args.timeslice, 'info', args.output], check=True)


if __name__ == '__main__':
    main()
