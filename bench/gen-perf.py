#!/usr/bin/env python3
# gen-perf.py: a `perf script` text of about SIZE bytes, for reader benchmarks
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Usage: gen-perf.py SIZE_MB > out.txt  (deterministic: same size, same bytes)

import random
import sys

def main():
    target = int(float(sys.argv[1]) * 1e6) if len(sys.argv) > 1 else 100_000_000
    rng = random.Random(1)
    out = sys.stdout
    syms = [f'fn_{i}+0x{rng.randrange(4096):x}' for i in range(400)]
    dsos = ['/usr/bin/app', '/usr/lib/x86_64-linux-gnu/libc.so.6', '[kernel.kallsyms]']
    threads = [(1000, 1000 + i, 'worker' if i else 'app main') for i in range(8)]
    out.write('# ========\n# captured on: synthetic\n# ========\n#\n')
    written = 0
    t = 1000.0
    while written < target:
        pid, tid, comm = rng.choice(threads)
        t += rng.random() * 0.001
        lines = [f'{comm} {pid}/{tid} [{tid % 4:03d}] {t:.6f}: {rng.randrange(1, 100000)} cycles: \n']
        for _ in range(rng.randrange(4, 40)):
            lines.append(f'\t{rng.randrange(1 << 48):12x} {rng.choice(syms)} ({rng.choice(dsos)})\n')
        lines.append('\n')
        chunk = ''.join(lines)
        out.write(chunk)
        written += len(chunk)

if __name__ == '__main__':
    main()
