#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
#
# A numpy model of compare's block test on one row (300 points a side at
# 10 Hz, 64 blocks a range, A and B filling the series: no shifted copies),
# to try rules that declare a row too dependent to test from A and B alone
# (docs/statistics.md, "Too dependent is said, not tested").
#
# The model: block sums y and counts x, the pooled bias-corrected lag-1 φ,
# batches of about twice the AR(1) integrated time with the AR(1) bias
# divided out, Welch's t (tsl-block-test.c); the rule in use
# (tsl_block_memory_excess(), lags 2–8 above 0.35) and candidates:
# - `lw`: local Whittle estimate of d (Robinson 1995) on each range's
#   linearised units, objectives of A and B summed, m = ⌊n^0.65⌋;
# - `lw-pw`: the same on AR(1)-prewhitened units (z_t − φ z_{t−1}, the pooled φ);
# - `gph`: log-periodogram regression on the prewhitened units, pooled;
# - `vt`: variance-time slope of the units (aggregated at 1, 2, 4, 8, 16).
# Each candidate alone (replacing the rule in use) and or-ed with it, at
# thresholds that declare given shares of i.i.d. rows.
#
#   /usr/bin/python3 bench/longmem-model.py [--rows N] [--seed S]
#
# Prints Markdown tables: share of all rows with p < 0.05 and not declared
# per scenario, share declared, power of the two shifts.
import argparse
import math

import numpy as np
from scipy import stats

N = 300          # points a side
BLOCKS = 64      # TSL_RANGE_BLOCKS
MAX_PHI, MIN_PHI = 0.995, -0.5
MEMORY_LAG = 8


def arfima(rng, rows, n, d):
    """ARFIMA(0, d, 0), unit variance, by Davies–Harte (two series per FFT)."""
    size = 1 << math.ceil(math.log2(2 * n))
    half = size // 2
    k = np.arange(1, half + 1)
    rho = np.concatenate([[1.0], np.cumprod((k - 1 + d) / (k - d))])
    row = np.concatenate([rho, rho[half - 1:0:-1]])
    lam = np.maximum(np.fft.fft(row).real, 0)
    roots = np.sqrt(lam / size)
    pairs = (rows + 1) // 2
    w = rng.standard_normal((pairs, size)) + 1j * rng.standard_normal((pairs, size))
    x = np.fft.fft(roots * w, axis=1)[:, :n]
    return np.concatenate([x.real, x.imag])[:rows]


def ar1(rng, rows, n, phi):
    out = np.empty((rows, n))
    x = rng.standard_normal(rows)
    s = math.sqrt(1 - phi * phi)
    e = rng.standard_normal((rows, n))
    for i in range(n):
        out[:, i] = x
        x = phi * x + s * e[:, i]
    return out


def draw(rng, kind, rows):
    n = 2 * N
    if kind == 'iid':
        return rng.standard_normal((rows, n))
    if kind == 'arsum':
        return ar1(rng, rows, n, 0.99) + ar1(rng, rows, n, 0.5)
    if kind.startswith('ar'):
        return ar1(rng, rows, n, float(kind[2:]))
    if kind.startswith('d'):
        return arfima(rng, rows, n, float(kind[1:]))
    raise ValueError(kind)


BLOCK_OF = (np.arange(N) * BLOCKS) // N


def blocks(v):
    """Block sums (rows, 64) and counts (64,) of one range's points."""
    y = np.zeros((v.shape[0], BLOCKS))
    np.add.at(y.T, BLOCK_OF, v.T)
    x = np.bincount(BLOCK_OF, minlength=BLOCKS).astype(float)
    return y, x


def linearised(y, x):
    r = y.sum(1) / x.sum()
    return y - r[:, None] * x[None, :], r


def phi_of(z):
    n = z.shape[1]
    phi = (z[:, 1:] * z[:, :-1]).sum(1) / (z * z).sum(1)
    phi += (1 + 3 * phi) / n
    return np.clip(phi, MIN_PHI, MAX_PHI)


def ar1_mean_variance(k, phi):
    if phi == 0:
        return 1 / k
    return ((1 + phi) / (1 - phi) - 2 * phi * (1 - phi ** round(k)) / (k * (1 - phi) ** 2)) / k


def estimate(z, xsum, n, phi):
    """Variance and df of one row's ratio (tsl_block_estimate_units, c NULL)."""
    tau = (1 + phi) / (1 - phi)
    b = n // min(math.ceil(2 * tau), n) if phi > 0 else n
    b = min(max(b, min(3, n)), 64)
    edges = [(k * n) // b for k in range(b + 1)]
    ss = sum(z[edges[k]:edges[k + 1]].sum() ** 2 for k in range(b))
    bias = 1.0
    if phi != 0:
        m = n / b
        bias = (ar1_mean_variance(m, phi) - ar1_mean_variance(n, phi)) / ((b - 1) * ar1_mean_variance(n, phi))
    bias = min(max(bias, 1e-3), 2)
    return b / (b - 1) * ss / xsum ** 2 / bias, b - 1


def p_values(za, zb, ra, rb, x, phi):
    xs = x.sum()
    p = np.empty(len(phi))
    for i in range(len(phi)):
        va, dfa = estimate(za[i], xs, BLOCKS, phi[i])
        vb, dfb = estimate(zb[i], xs, BLOCKS, phi[i])
        v = va + vb
        df = v * v / (va * va / dfa + vb * vb / dfb)
        p[i] = 2 * stats.t.sf(abs(rb[i] - ra[i]) / math.sqrt(v), df)
    return p


def memory_excess(za, zb, phi):
    sums = np.zeros((za.shape[0], MEMORY_LAG + 1))
    for z in (za, zb):
        for k in range(MEMORY_LAG + 1):
            sums[:, k] += (z[:, k:] * z[:, :z.shape[1] - k]).sum(1)
    ph = np.clip(phi, 0, MAX_PHI)
    excess = np.zeros(za.shape[0])
    for k in range(2, MEMORY_LAG + 1):
        excess += sums[:, k] / sums[:, 0] - ph ** k
    return excess


D_GRID = np.linspace(-0.49, 0.99, 149)


def periodogram(z, m):
    n = z.shape[1]
    f = np.fft.rfft(z, axis=1)[:, 1:m + 1]
    lam = 2 * np.pi * np.arange(1, m + 1) / n
    return np.abs(f) ** 2 / (2 * np.pi * n), lam


def prewhiten(z, phi):
    return z[:, 1:] - phi[:, None] * z[:, :-1]


def local_whittle(series, power=0.65):
    """d minimising the sum of the ranges' local Whittle objectives."""
    total = 0
    for z in series:
        m = int(z.shape[1] ** power)
        i, lam = periodogram(z, m)
        g = (lam[None, None, :] ** (2 * D_GRID[:, None, None])) * i[None, :, :]   # (d, rows, m)
        total = total + np.log(g.mean(2)) - 2 * D_GRID[:, None] * np.log(lam).mean()
    return D_GRID[np.argmin(total, 0)]


def local_whittle_ar1(phi, n, power=0.65):
    """The d local Whittle finds on the spectrum of an AR(1) at phi itself."""
    m = int(n ** power)
    lam = 2 * np.pi * np.arange(1, m + 1) / n
    ph = np.clip(phi, 0, MAX_PHI)
    f = 1 / np.abs(1 - ph[:, None] * np.exp(1j * lam[None, :])) ** 2
    return local_whittle_spectrum(f, lam)


def local_whittle_spectrum(i, lam):
    g = (lam[None, None, :] ** (2 * D_GRID[:, None, None])) * i[None, :, :]
    total = np.log(g.mean(2)) - 2 * D_GRID[:, None] * np.log(lam).mean()
    return D_GRID[np.argmin(total, 0)]


def gph(series, power=0.65):
    """Log-periodogram regression, both ranges' ordinates pooled."""
    xs, ys = [], []
    for z in series:
        m = int(z.shape[1] ** power)
        i, lam = periodogram(z, m)
        xs.append(np.broadcast_to(-2 * np.log(2 * np.sin(lam / 2)), i.shape))
        ys.append(np.log(i))
    x, y = np.concatenate(xs, 1), np.concatenate(ys, 1)
    xc = x - x.mean(1, keepdims=True)
    return (xc * (y - y.mean(1, keepdims=True))).sum(1) / (xc * xc).sum(1)


def variance_time(series):
    """d from the slope of log Var(mean of k units) on log k, ranges pooled."""
    ks = [1, 2, 4, 8, 16]
    logs = []
    for k in ks:
        v = 0
        for z in series:
            n = z.shape[1] // k * k
            agg = z[:, :n].reshape(z.shape[0], -1, k).mean(2)
            v = v + agg.var(1, ddof=1)
        logs.append(np.log(v))
    lk = np.log(ks)
    lk = lk - lk.mean()
    slope = sum(a * b for a, b in zip(lk, logs)) / (lk * lk).sum()
    return 1 + slope / 2          # slope = 2d − 1


def scenario(rng, kind, rows, shift=0.0):
    v = draw(rng, kind, rows)
    v[:, N:] += shift
    ya, x = blocks(v[:, :N])
    yb, _ = blocks(v[:, N:])
    za, ra = linearised(ya, x)
    zb, rb = linearised(yb, x)
    ra, rb = ra / 1, rb / 1
    phi = (phi_of(za) + phi_of(zb)) / 2
    p = p_values(za, zb, ra, rb, x, phi)
    pa, pb = prewhiten(za, phi), prewhiten(zb, phi)
    return {
        'p': p,
        'excess': memory_excess(za, zb, phi),
        'lw': local_whittle([za, zb]),
        'lw-pw': local_whittle([pa, pb]),
        'lw-x': local_whittle([za, zb]) - local_whittle_ar1(phi, BLOCKS),
        'lw-pw.5': local_whittle([pa, pb], 0.5),
        'gph': gph([pa, pb]),
        'vt': variance_time([pa, pb]),
    }


SCENARIOS = [('i.i.d.', 'iid', 0), ('AR(1) 0.6', 'ar0.6', 0), ('AR(1) 0.9', 'ar0.9', 0),
             ('AR(1) 0.99 + 0.5', 'arsum', 0), ('ARFIMA d 0.3', 'd0.3', 0), ('ARFIMA d 0.45', 'd0.45', 0),
             ('0.25 σ shift, i.i.d.', 'iid', 0.25), ('0.5 σ shift, AR(1) 0.6', 'ar0.6', 0.5)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--rows', type=int, default=2000)
    ap.add_argument('--seed', type=int, default=31)
    args = ap.parse_args()
    res = {}
    for i, (name, kind, shift) in enumerate(SCENARIOS):
        res[name] = scenario(np.random.default_rng(args.seed + i), kind, args.rows, shift)
    iid = res['i.i.d.']
    lag = lambda r: r['excess'] > 0.35

    def row(label, declare):
        cells = []
        for name, _, shift in SCENARIOS:
            r = res[name]
            dec = declare(r)
            low = ((r['p'] < 0.05) & ~dec).mean()
            cells.append(f'{low:.3f} ({dec.mean():.3f})')
        print(f'| {label} | ' + ' | '.join(cells) + ' |')

    print('share of all rows with p < 0.05 and not declared (share declared);',
          f'{args.rows} rows a scenario, seed {args.seed}\n')
    print('| rule | ' + ' | '.join(n for n, _, _ in SCENARIOS) + ' |')
    print('|---|' + '---:|' * len(SCENARIOS))
    row('none', lambda r: np.zeros(len(r['p']), bool))
    row('lags 2–8 > 0.35 (in use)', lag)
    for key in ('lw', 'lw-x', 'lw-pw', 'lw-pw.5', 'gph', 'vt'):
        for share in (0.005, 0.02, 0.05, 0.15):
            theta = np.quantile(iid[key], 1 - share)
            row(f'{key} > {theta:.3f} (i.i.d. {share})', lambda r, t=theta, k=key: r[k] > t)
            row(f'lags or {key} > {theta:.3f}', lambda r, t=theta, k=key: lag(r) | (r[k] > t))
    # Why: rejection rate by quintile of each measure, ARFIMA d 0.45.
    r = res['ARFIMA d 0.45']
    print('\nARFIMA d 0.45: p < 0.05 by quintile of each measure (lowest first)\n')
    for key in ('excess', 'lw', 'lw-x', 'lw-pw', 'gph', 'vt'):
        q = np.quantile(r[key], [0.2, 0.4, 0.6, 0.8])
        bins = np.digitize(r[key], q)
        rates = [(r['p'][bins == b] < 0.05).mean() for b in range(5)]
        print(f'| {key} | ' + ' | '.join(f'{x:.2f}' for x in rates) + ' |')


if __name__ == '__main__':
    main()
