#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Fixtures for tests/unit/test-compare.c, each with a planted change between
# A = 0%..50% and B = 50%..100% in one series and none in another:
#   metrics.csv  wide metric file, 400 rows at 0.5 s: `planted` has mean 10
#                in A and 12 in B (sd 2); `steady` has mean 10 throughout.
#   trace.json   Chrome trace, thread "worker-1" with one X event per ms for
#                2 s: `parse` holds 30% of the events in A and 45% in B,
#                `io` 30% in both (the rest are `compute`).
# Run from this directory: /usr/bin/python3 make-fixture.py
import json
import random

rng = random.Random(5)

with open('metrics.csv', 'w') as f:
    f.write('time,planted,steady\n')
    for i in range(400):
        t = i * 0.5
        planted = rng.gauss(10 if t < 100 else 12, 2)
        steady = rng.gauss(10, 2)
        f.write(f'{t:.1f},{planted:.4f},{steady:.4f}\n')

events = [
    {'name': 'process_name', 'ph': 'M', 'pid': 1, 'tid': 0, 'args': {'name': 'app'}},
    {'name': 'thread_name', 'ph': 'M', 'pid': 1, 'tid': 7, 'args': {'name': 'worker-1'}},
]
for i in range(2000):
    p_parse = 0.30 if i < 1000 else 0.45
    u = rng.random()
    if u < 0.30:
        name = 'io'
    elif u < 0.30 + p_parse:
        name = 'parse'
    else:
        name = 'compute'
    events.append({'name': name, 'ph': 'X', 'pid': 1, 'tid': 7, 'ts': i * 1000, 'dur': 800})

with open('trace.json', 'w') as f:
    f.write('[\n')
    f.write(',\n'.join(json.dumps(e, separators=(',', ':')) for e in events))
    f.write('\n]\n')
