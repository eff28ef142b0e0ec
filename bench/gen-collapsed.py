#!/usr/bin/env python3
# gen-collapsed.py: collapsed ("folded") stacks of about SIZE bytes, for reader benchmarks
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Usage: gen-collapsed.py SIZE_MB > out.folded  (deterministic: same size, same bytes)
#
# Stacks are random walks down a call tree (as a profile's are: deep shared
# prefixes, 4 to 40 frames), one `frame;frame;… count` line each, counts
# skewed towards small ones.

import random
import sys


def main():
    target = int(float(sys.argv[1]) * 1e6) if len(sys.argv) > 1 else 100_000_000
    rng = random.Random(1)
    out = sys.stdout
    names = ['fn_%d' % i for i in range(600)] + ['std::vector<int>::push_back', 'main', '[unknown]',
                                                  'libc.so.6`memcpy', 'do_syscall_64 [k]']
    # A few hundred distinct stacks, as a real profile folds to.
    stacks = []
    for _ in range(400):
        depth = rng.randrange(4, 41)
        stacks.append(';'.join(['main'] + [rng.choice(names) for _ in range(depth - 1)]))
    written = 0
    lines = []
    while written < target:
        base = rng.choice(stacks)
        # Some lines go deeper than the stack they share a prefix with.
        if rng.random() < 0.3:
            base += ';' + ';'.join(rng.choice(names) for _ in range(rng.randrange(1, 6)))
        line = '%s %d\n' % (base, int(rng.paretovariate(1.2)))
        lines.append(line)
        written += len(line)
        if len(lines) >= 4096:
            out.write(''.join(lines))
            lines = []
    out.write(''.join(lines))


if __name__ == '__main__':
    main()
