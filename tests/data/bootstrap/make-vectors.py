#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Reference vectors for tests/unit/test-bootstrap.c, from Debian's
# python3-scipy (1.10) and numpy with fixed seeds:
#   one     scipy.stats.bootstrap percentile and BCa intervals of one-sample
#           statistics;
#   two     the same for the relative change stat(b) / stat(a) - 1 with
#           paired=False (A and B resampled independently);
#   binom   scipy.stats.binomtest two-sided p-values;
#   coverage  how often scipy's 95% interval of the relative change of means
#           covers the true 0 on a known generator (for our coverage test).
#
# Run: /usr/bin/python3 make-vectors.py > vectors.json
import json
import sys

import numpy as np
from scipy import stats

RESAMPLES = 100000


def p95(x, axis=-1):
    return np.percentile(x, 95, axis=axis)


STATS = {
    'mean': lambda x, axis=-1: np.mean(x, axis=axis),
    'sum': lambda x, axis=-1: np.sum(x, axis=axis),
    'median': lambda x, axis=-1: np.median(x, axis=axis),
    'p95': p95,
    'share': lambda x, axis=-1: np.mean(x, axis=axis),
}


def data(rng, kind, n):
    if kind == 'normal':
        return rng.normal(10, 2, n)
    if kind == 'exponential':
        return rng.exponential(3, n)
    if kind == 'lognormal':
        return rng.lognormal(1, 0.6, n)
    if kind == 'bernoulli':
        return (rng.random(n) < 0.3).astype(float)
    raise ValueError(kind)


def ci(sample, fn, confidence, method, seed, two=False):
    if two:
        def statistic(a, b, axis=-1):
            return fn(b, axis=axis) / fn(a, axis=axis) - 1
        res = stats.bootstrap(sample, statistic, n_resamples=RESAMPLES, paired=False,
                              vectorized=True, confidence_level=confidence,
                              method=method, random_state=seed)
    else:
        res = stats.bootstrap((sample,), fn, n_resamples=RESAMPLES, vectorized=True,
                              confidence_level=confidence, method=method, random_state=seed)
    return [float(res.confidence_interval.low), float(res.confidence_interval.high)]


def main():
    rng = np.random.default_rng(20260101)
    out = {'resamples': RESAMPLES, 'one': [], 'two': [], 'binom': [], 'coverage': {}}

    one_cases = [('mean', 'normal', 20), ('mean', 'exponential', 50), ('sum', 'lognormal', 30),
                 ('median', 'exponential', 41), ('median', 'normal', 60), ('p95', 'lognormal', 200),
                 ('share', 'bernoulli', 80)]
    for i, (stat, kind, n) in enumerate(one_cases):
        x = data(rng, kind, n)
        for confidence in (0.95, 0.9):
            for method in ('percentile', 'BCa'):
                low, high = ci(x, STATS[stat], confidence, method, 1000 + i)
                out['one'].append({'stat': stat, 'x': x.tolist(), 'confidence': confidence,
                                   'method': method.lower(), 'low': low, 'high': high})

    two_cases = [('mean', 'exponential', 30, 40, 1.2), ('mean', 'normal', 25, 25, 1.0),
                 ('sum', 'lognormal', 40, 40, 1.1), ('median', 'exponential', 51, 60, 1.3),
                 ('share', 'bernoulli', 120, 100, 1.0)]
    for i, (stat, kind, n_a, n_b, factor) in enumerate(two_cases):
        a = data(rng, kind, n_a)
        b = data(rng, kind, n_b)
        if kind != 'bernoulli':
            b = b * factor
        for method in ('percentile', 'BCa'):
            low, high = ci((a, b), STATS[stat], 0.95, method, 2000 + i, two=True)
            out['two'].append({'stat': stat, 'a': a.tolist(), 'b': b.tolist(), 'confidence': 0.95,
                               'method': method.lower(), 'low': low, 'high': high})

    for k, n, p in [(3, 10, 0.5), (0, 10, 0.5), (10, 10, 0.5), (7, 20, 0.3), (2, 30, 0.2),
                    (45, 100, 0.5), (60, 100, 0.5), (13, 200, 0.1), (500, 1000, 0.52),
                    (12000, 25000, 0.5), (5, 5000, 0.002), (1, 1, 0.9), (40, 41, 0.5)]:
        out['binom'].append({'k': k, 'n': n, 'p': p,
                             'pvalue': float(stats.binomtest(k, n, p).pvalue)})

    # Coverage of the 95% interval of mean(b)/mean(a) - 1 where A and B are
    # both Exp(1), n_a = 30, n_b = 40: the truth is 0.
    trials = 300
    cover = {'percentile': 0, 'bca': 0}
    for t in range(trials):
        a = rng.exponential(1, 30)
        b = rng.exponential(1, 40)
        for method in ('percentile', 'BCa'):
            def statistic(a, b, axis=-1):
                return np.mean(b, axis=axis) / np.mean(a, axis=axis) - 1
            res = stats.bootstrap((a, b), statistic, n_resamples=2000, paired=False,
                                  vectorized=True, method=method, random_state=t)
            ci_ = res.confidence_interval
            cover[method.lower()] += ci_.low <= 0 <= ci_.high
    out['coverage'] = {'n_a': 30, 'n_b': 40, 'trials': trials,
                       'percentile': cover['percentile'] / trials, 'bca': cover['bca'] / trials}

    json.dump(out, sys.stdout, indent=0)
    sys.stdout.write('\n')


if __name__ == '__main__':
    main()
