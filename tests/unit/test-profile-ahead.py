#!/usr/bin/env python3
# test-profile-ahead.py: V8 and Gecko profiles read on two threads against one
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# The V8 reader's samples and deltas and the Gecko reader's table rows are
# decoded on a second thread ahead of the one that models them
# (tsl-cpuprofile-ahead.c, tsl-gecko-ahead.c). Generated profiles of a few
# MB (several parse calls), in every order the generators write, and
# copies damaged at seeded random places (elements and cells of other
# shapes: blanks, fractions, negatives, null, strings, long numbers; time
# that goes back; a syntax error; cuts) must read byte for byte as on one
# thread: `info --json` with its warnings and exit status, and `sample`.
# TSL_SCAN_AHEAD_BYTES=1 lets every stretch of a buffer go to the thread,
# and the debug log must show that it decoded records (and that
# TSL_READER_THREADS=1 made none); without it, a V8 profile's arrays still
# go to the thread (it is on by default), in stretches of 64 KiB or more.
# A Gecko thread's samples are placed while the next thread's rows are
# scanned: the log must show that too, and warnings of both (a stack past
# its table in the one placed, cells of the wrong type in the one read)
# must come in one thread's order.
# The rest of a thread's samples are popped on the second thread (the log).

import os
import random
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import profile_check  # noqa: E402
from profile_check import check, generate, run  # noqa: E402

tmp = profile_check.setup('profile-ahead')
ONE = {'TSL_READER_THREADS': '1', 'G_MESSAGES_DEBUG': 'tsl-reader tsl-gecko-reader'}
TWO = {'TSL_READER_THREADS': '2', 'TSL_READER_ADAPT': '0', 'TSL_SCAN_AHEAD_BYTES': '1',
       'G_MESSAGES_DEBUG': 'tsl-reader tsl-gecko-reader'}
DECODED = re.compile(rb'(\d+) jobs, (\d+) records decoded on a second thread')
PLACED = re.compile(rb'(\d+) samples placed while the next thread.*, (\d+) popped on the second thread')


def outputs(path, env):
    """What a reading shows: info's status, JSON and warnings, sample's CSV,
    and the records the second thread decoded (from the debug log)."""
    proc = run('info', '--json', path, env_extra=env)
    rows = run('sample', path, env_extra=env)
    log = proc.stdout + proc.stderr
    records = sum(int(m.group(2)) for m in DECODED.finditer(log))
    placed[path] = sum(int(m.group(1)) for m in PLACED.finditer(log))
    popped[path] = sum(int(m.group(2)) for m in PLACED.finditer(log))
    return (proc.returncode, plain(proc.stdout), plain(proc.stderr), rows.returncode, plain(rows.stdout)), records


def plain(text):
    """Without the debug log's lines (GLib writes them to stdout), which
    differ in their pids and times."""
    return b'\n'.join(line for line in text.splitlines() if b'-DEBUG: ' not in line)


def damage(text, rng, kind, n=40):
    """`text` with n elements (V8) or cells (Gecko) of other shapes, or
    a syntax error, somewhere past its first tenth."""
    out = bytearray(text)
    lo = len(out) // 10
    if kind == 'syntax':
        at = out.find(b',', rng.randrange(lo, len(out) - 100))
        out[at:at + 1] = b';'
        return bytes(out)
    shapes = [b' 12', b'1.5', b'-3', b'null', b'"x"', b'123456789012', b'7 ', b'{"a":[1,2]}', b'99999999',
              b'0.000001', b'1e3', b'[]']
    for _ in range(n):
        at = out.find(b',', rng.randrange(lo, len(out) - 100)) + 1
        end = at
        while chr(out[end]) in '0123456789.-':
            end += 1
        if end > at:
            out[at:end] = rng.choice(shapes)
    return bytes(out)


placed = {}
popped = {}


def compare(name, path):
    one, none = outputs(path, ONE)
    placed_one = placed[path] + popped[path]
    two, records = outputs(path, TWO)
    check(f'{name}: two threads read as one (info, warnings, sample)', one == two,
          f'status {one[0]}/{two[0]}, info equal {one[1] == two[1]}, warnings equal {one[2] == two[2]}, '
          f'sample equal {one[4] == two[4]}')
    check(f'{name}: one thread decodes nothing ahead', none == 0 and placed_one == 0,
          f'{none} records, {placed_one} samples placed early')
    return records


inputs = []
for order in ('v8', 'deltas-first', 'tree-last'):
    inputs.append((f'cpuprofile {order}', generate('gen-cpuprofile.py', f'v8-{order}.cpuprofile', '3',
                                                   '--order', order, '--seed', '3')))
inputs.append(('gecko', generate('gen-gecko.py', 'gecko.json', '3', '--seed', '3')))
inputs.append(('gecko processed', generate('gen-gecko.py', 'processed.json', '2', '--form', 'processed',
                                           '--seed', '3')))

rng = random.Random(38)
damaged = []
for name, path in inputs[:1] + inputs[3:4]:
    with open(path, 'rb') as f:
        text = f.read()
    for kind in ('shapes', 'syntax'):
        for i in range(2):
            out = os.path.join(tmp, f'{kind}-{i}-' + os.path.basename(path))
            with open(out, 'wb') as f:
                f.write(damage(text, rng, kind))
            damaged.append((f'{name} with {kind} {i}', out))
    for i in range(3):
        out = os.path.join(tmp, f'cut-{i}-' + os.path.basename(path))
        with open(out, 'wb') as f:
            f.write(text[:rng.randrange(len(text) // 10, len(text))])
        damaged.append((f'{name} cut {i}', out))

# Thread 0's stacks past its table (warned as it is placed) and thread 1's
# stacks of the wrong type (warned as it is read), while thread 0 is placed.
with open(inputs[3][1], 'rb') as f:
    text = f.read()
out = bytearray()
for k, part in enumerate(text.split(b'"samples":')):
    if k in (1, 2):
        rows = part.split(b'],[')
        for i in range(len(rows) // 3, len(rows) - 1, len(rows) // 40):
            cell = rows[i].split(b',', 1)
            rows[i] = (b'99999' if k == 1 else b'"x"') + b',' + cell[1]
        part = b'],['.join(rows)
    out += (b'"samples":' if k > 0 else b'') + part
damaged.append(('gecko with warnings from two threads', os.path.join(tmp, 'two-threads-warn.json')))
with open(damaged[-1][1], 'wb') as f:
    f.write(bytes(out))

decoded = {}
for name, path in inputs + damaged:
    decoded[name] = compare(name, path)
for name in ('cpuprofile v8', 'cpuprofile deltas-first', 'cpuprofile tree-last', 'gecko'):
    check(f'{name}: the second thread decoded elements', decoded[name] > 50000, f'{decoded[name]} records')
default = dict(TWO)
del default['TSL_SCAN_AHEAD_BYTES']
same, records = outputs(inputs[0][1], default)
check('cpuprofile v8: decoded ahead by default', records > 50000, f'{records} records')
check('cpuprofile v8: decoded ahead by default reads as one thread', same == outputs(inputs[0][1], ONE)[0])
check('damaged V8 and Gecko profiles: the second thread decoded elements',
      all(decoded[name] > 1000 for name, _ in damaged if 'cut 0' not in name),
      str({name: decoded[name] for name, _ in damaged}))

check('gecko: samples were placed while the next thread was scanned', placed[inputs[3][1]] > 1000,
      f'{placed[inputs[3][1]]} samples')
check('gecko: the rest of each thread popped on the second thread', popped[inputs[3][1]] > 10000,
      f'{popped[inputs[3][1]]} samples')
check('gecko with warnings from two threads: samples popped on the second thread', popped[damaged[-1][1]] > 1000,
      f'{popped[damaged[-1][1]]} samples')
check('gecko with warnings from two threads: samples placed while the next was scanned',
      placed[damaged[-1][1]] > 1000, f'{placed[damaged[-1][1]]} samples')

profile_check.finish()
