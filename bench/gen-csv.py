#!/usr/bin/env python3
# gen-csv.py: a wide CSV metric file of about SIZE bytes, for reader benchmarks
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Usage: gen-csv.py SIZE_MB [COLUMNS] > out.csv  (deterministic)

import random
import sys
import time

def main():
    target = int(float(sys.argv[1]) * 1e6) if len(sys.argv) > 1 else 100_000_000
    columns = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    rng = random.Random(1)
    out = sys.stdout
    out.write('timestamp,' + ','.join(f'series_{i}' for i in range(columns)) + '\n')
    written = 0
    t = 1_400_000_000
    while written < target:
        rows = []
        for _ in range(1000):
            t += 5
            stamp = time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime(t))
            rows.append(stamp + ',' + ','.join(f'{rng.random() * 100:.3f}' for _ in range(columns)) + '\n')
        chunk = ''.join(rows)
        out.write(chunk)
        written += len(chunk)

if __name__ == '__main__':
    main()
