#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Two runs of one program as Chrome traces: BEFORE and AFTER, where AFTER's
# `slow` function (default worker/layout) takes `factor` times as long.
# Everything else is drawn from the same distributions with another seed,
# and the runs differ as two runs do: other pids and tids, another clock
# origin. Work is paced (a task starts every 2 ms, as in a frame loop), so a
# slower function leaves the other functions' shares of the thread's time
# alone. Threads: "main" (parse, paint, io), "worker" (layout, style,
# decode), two processes each with a thread "io-pool" (read, write: a name
# that repeats, matched by process name), and a gauge "queue" and a
# cumulative counter "bytes" (both stationary).
#
#   make-runs.py BEFORE.json AFTER.json [--seed S] [--factor F] [--seconds T]
#
# tests/data/compare/before.json and after.json are `--seed 1 --factor 1.5
# --seconds 2`.
import argparse
import json
import math
import random

THREADS = [
    # (process, thread, functions)
    ('app', 'main', ['parse', 'paint', 'io']),
    ('app', 'worker', ['layout', 'style', 'decode']),
    ('app', 'io-pool', ['read', 'write']),
    ('helper', 'io-pool', ['read', 'write']),
]
PERIOD_US = 2000


def make_run(rng, seconds, slow, factor, pid_base, tid_base, origin_us):
    events = []
    pids = {'app': pid_base, 'helper': pid_base + 7}
    for process, pid in pids.items():
        events.append({'name': 'process_name', 'ph': 'M', 'pid': pid, 'args': {'name': process}})
    for i, (process, thread, funcs) in enumerate(THREADS):
        pid = pids[process]
        tid = tid_base + 13 * i
        events.append({'name': 'thread_name', 'ph': 'M', 'pid': pid, 'tid': tid, 'args': {'name': thread}})
        t = 0
        while t < seconds * 1e6 - PERIOD_US:
            name = rng.choice(funcs)
            dur = rng.lognormvariate(math.log(300), 0.5)
            if f'{thread}/{name}' == slow:
                dur *= factor
            dur = min(int(dur) + 1, PERIOD_US - 10)
            start = t + rng.randrange(0, PERIOD_US - dur)
            events.append({'name': name, 'ph': 'X', 'pid': pid, 'tid': tid,
                           'ts': origin_us + start, 'dur': dur})
            t += PERIOD_US
    queue = 10.0
    total = 0
    pid = pids['app']
    for j in range(int(seconds * 100)):
        queue = 10 + 0.5 * (queue - 10) + rng.gauss(0, 1)
        total += rng.randrange(100, 200)
        ts = origin_us + j * 10000
        events.append({'name': 'queue', 'ph': 'C', 'pid': pid, 'ts': ts, 'args': {'queue': queue}})
        events.append({'name': 'bytes', 'ph': 'C', 'pid': pid, 'ts': ts, 'args': {'bytes': total}})
    return events


def write_runs(before, after, seed=1, factor=1.5, seconds=2.0, slow='worker/layout'):
    rng = random.Random(seed)
    runs = [make_run(rng, seconds, slow, 1.0, 100, 1000, 5_000_000),
            make_run(rng, seconds, slow, factor, 4242, 7000, 900_000_000)]
    for path, events in zip((before, after), runs):
        with open(path, 'w') as f:
            json.dump(events, f, separators=(',', ':'))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('before')
    parser.add_argument('after')
    parser.add_argument('--seed', type=int, default=1)
    parser.add_argument('--factor', type=float, default=1.5)
    parser.add_argument('--seconds', type=float, default=2.0)
    args = parser.parse_args()
    write_runs(args.before, args.after, args.seed, args.factor, args.seconds)


if __name__ == '__main__':
    main()
