#!/usr/bin/python3
# bench/gen-repeat.py: a long recording made of copies of a real Chrome trace
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
#   bench/gen-repeat.py --mb 1000 FILE > OUT.json
#
# Repeats FILE's events (a Chrome JSON trace, object or array form) until
# the output reaches the size asked, as one recording: each copy's
# timestamps are shifted past the previous copy's end, and its async ids
# (hex or decimal strings, or numbers) made its own, so the spans a copy
# leaves open pile up as a long recording that leaks them does (a copy of
# the corpus's catapult__multiple_input_latency.json leaves 31 open: 277
# copies, 1 GB, end with about 8,600). Pids and tids stay: no copy makes
# tracks. Deterministic: the same FILE and size give the same bytes.

import argparse
import json
import math
import os
import sys

ID_STRIDE = 1 << 36


def shifted_id(value, copy):
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return value + copy * ID_STRIDE
    if isinstance(value, str):
        try:
            if value.lower().startswith('0x'):
                return hex(int(value, 16) + copy * ID_STRIDE)
            return str(int(value) + copy * ID_STRIDE)
        except ValueError:
            return '%s/%d' % (value, copy)
    return value


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--mb', type=float, default=1000)
    parser.add_argument('file')
    args = parser.parse_args()

    with open(args.file, 'rb') as f:
        doc = json.load(f)
    events = doc['traceEvents'] if isinstance(doc, dict) else doc
    times = [e['ts'] for e in events if isinstance(e.get('ts'), (int, float)) and e.get('ph') != 'M']
    span = int(math.ceil(max(times) - min(times))) + 1000
    # Metadata (names) once, in the first copy; every copy the rest, each
    # event as text with its ts and id left to fill in.
    meta = [json.dumps(e, separators=(',', ':')) for e in events if e.get('ph') == 'M']
    body = [e for e in events if e.get('ph') != 'M']
    size = os.path.getsize(args.file)
    copies = max(1, int(math.ceil(args.mb * 1e6 / size)))

    out = sys.stdout
    out.write('{"traceEvents":[\n')
    out.write(',\n'.join(meta))
    first = not meta
    for copy in range(copies):
        lines = []
        for e in body:
            e = dict(e)
            if isinstance(e.get('ts'), int):
                e['ts'] += copy * span
            elif isinstance(e.get('ts'), float):
                e['ts'] = round(e['ts'] + copy * span, 3)
            for key in ('id', 'id2'):
                if key in e and not isinstance(e[key], dict):
                    e[key] = shifted_id(e[key], copy)
            lines.append(json.dumps(e, separators=(',', ':')))
        out.write(('' if first else ',\n') + ',\n'.join(lines))
        first = False
    out.write('\n]}\n')


if __name__ == '__main__':
    main()
