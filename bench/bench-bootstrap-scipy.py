#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
#
# scipy.stats.bootstrap doing the draws bench-bootstrap does: the mean of
# N items resampled ROUNDS times (N × ROUNDS draws), vectorised, in batches
# small enough to fit memory, percentile interval. Prints one line:
#   scipy_draws_per_s <float>
# Usage: bench-bootstrap-scipy.py [N] [ROUNDS]
import sys
import time

import numpy as np
from scipy import stats

n = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 20000
x = np.random.default_rng(1).exponential(1.0, n)

best = float('inf')
for _ in range(3):
    start = time.perf_counter()
    stats.bootstrap((x,), np.mean, n_resamples=rounds, batch=1000, vectorized=True,
                    method='percentile', random_state=2)
    best = min(best, time.perf_counter() - start)

print(f'scipy_draws_per_s {n * rounds / best:.6g}')
