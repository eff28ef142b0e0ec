#!/usr/bin/python3
# bench/change-bounds.py: how well any method can place the changes the power targets ask for
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
#   /usr/bin/python3 bench/change-bounds.py [--draws N] [--seed S]
#
# `timeslice changes` is asked to place three changes (docs/statistics.md,
# "Finding what changed"); this measures, on the same generated data as
# tests/unit/test-changes.py, how often two estimators that see every raw
# point (not 64 blocks of them) land within the window asked for:
#
# - least squares: the single split of the raw points with the smallest
#   residual sum of squares (the maximum-likelihood change point of a
#   normal mean with unknown levels);
# - Bayes, an upper bound: the levels, φ and the scale change are given
#   (known, not estimated), the posterior over the change's place under a
#   uniform prior is exact, and the estimate is the place whose window
#   holds the most posterior mass — the estimator that maximises the
#   chance of landing within the window, averaged over where the change
#   is. Away from the ends every place is alike, so no method that does
#   not know the change is halfway does better at halfway.
#
# Scenarios: a 0.5 σ shift after 300 of 600 i.i.d. normal points, window
# ±2 % (±12 points); the same with AR(1) φ 0.6 (marginal σ 1), window ±5 %
# (±30 points); a function that slows 1.5× after 230 of 460 calls in
# test-changes.py's generated trace (lognormal durations, σ 0.6 on the log
# scale; the window ±2 % of the trace's span, in time). Needs numpy
# (Debian's python3).

import argparse
import math

import numpy as np


def ar1(rng, n, phi):
    e = rng.standard_normal(n)
    x = np.empty(n)
    prev = rng.standard_normal()
    s = math.sqrt(1 - phi * phi)
    for i in range(n):
        prev = phi * prev + s * e[i]
        x[i] = prev
    return x


def least_squares(x, margin=6):
    n = len(x)
    c = np.cumsum(x)
    k = np.arange(1, n)
    stat = (c[:-1] - k * c[-1] / n) ** 2 / (k * (n - k))
    stat[:margin - 1] = stat[n - margin:] = -1
    return int(np.argmax(stat)) + 1


def window_mode(loglik, places, half):
    """The place whose ±half window holds the most posterior mass."""
    p = np.exp(loglik - loglik.max())
    p /= p.sum()
    c = np.concatenate([[0], np.cumsum(p)])
    lo = np.searchsorted(places, places - half, side='left')
    hi = np.searchsorted(places, places + half, side='right')
    return places[int(np.argmax(c[hi] - c[lo]))]


def loglik_shift(x, delta, phi):
    """log-likelihood of a shift by delta starting at each k = 1 … n − 1."""
    n = len(x)
    if phi == 0:
        gain = (x ** 2 - (x - delta) ** 2) / 2
        return np.cumsum(gain[::-1])[::-1][1:]
    s2 = 1 - phi * phi
    out = np.empty(n - 1)
    idx = np.arange(n)
    for k in range(1, n):
        r = x - delta * (idx >= k)
        e = r[1:] - phi * r[:-1]
        out[k - 1] = -(e @ e) / (2 * s2)
    return out


def level(rng, draws, phi, half):
    n, delta, true = 600, 0.5, 300
    ls = bayes = 0
    places = np.arange(1, n, dtype=float)
    for _ in range(draws):
        x = (ar1(rng, n, phi) if phi else rng.standard_normal(n)) + delta * (np.arange(n) >= true)
        ls += abs(least_squares(x) - true) <= half
        bayes += abs(window_mode(loglik_shift(x, delta, phi), places, half) - true) <= half
    return ls / draws, bayes / draws


def slowdown_trace(rng, calls=460, factor=1.5):
    """test-changes.py's write_trace(): parse's start times and durations."""
    t, times, durs, change = 0, [], [], None
    names = 0
    while names < calls:
        parse = rng.random() < 0.5
        dur = rng.lognormal(math.log(400), 0.6)
        if parse:
            if names == calls // 2:
                change = t
            if names >= calls // 2:
                dur *= factor
            names += 1
            times.append(t)
            durs.append(dur)
        t += max(1, int(dur)) + 1 + int(rng.exponential(200))
    return np.array(times, float), np.array(durs), change, t


def slowdown(rng, draws):
    ls = bayes = 0
    delta = math.log(1.5)
    for _ in range(draws):
        times, durs, change, span = slowdown_trace(rng)
        half = 0.02 * span
        ls += abs(times[least_squares(durs)] - change) <= half
        # Known: the log-durations' σ and the shift in log scale.
        z = (np.log(durs) - math.log(400)) / 0.6
        est = window_mode(loglik_shift(z, delta / 0.6, 0), times[1:], half)
        bayes += abs(est - change) <= half
    return ls / draws, bayes / draws


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--draws', type=int, default=2000)
    parser.add_argument('--seed', type=int, default=37)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)

    rows = [('0.5 σ shift, i.i.d., within ±2 % (target ≥ 90 %)', level(rng, args.draws, 0, 12)),
            ('0.5 σ shift, AR(1) φ 0.6, within ±5 % (target ≥ 80 %)', level(rng, args.draws // 4, 0.6, 30)),
            ('1.5× slowdown, 230 calls a side, within ±2 % (target ≥ 90 %)', slowdown(rng, args.draws))]
    print('Share of draws placed within the window (seed %d; %d draws, %d for AR(1))'
          % (args.seed, args.draws, args.draws // 4))
    print()
    print('| change | least squares on every point | Bayes, parameters known (upper bound) |')
    print('|---|---:|---:|')
    for name, (ls, bayes) in rows:
        print('| %s | %.1f %% | %.1f %% |' % (name, 100 * ls, 100 * bayes))


if __name__ == '__main__':
    main()
