#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Long memory through `timeslice compare`: null CSV files of 20 series, 300
# points a side at 10 Hz, A and B adjacent in one stationary process whose
# dependence outlasts the range, default statistic (the time-weighted mean).
# Rows the engine cannot test at this length read `too-dependent`, with
# empty p and q, never significant, and stderr says how many.
#
# Inside a longer trace (13 comparisons' length, A and B the seventh, so 11
# shifted comparisons fit around them: tsl-compare-shifts.c):
# - Sum of AR(1) φ 0.99 and φ 0.5 (unit variance each), ARFIMA(0, d, 0) d 0.3
#   and 0.45 (Davies–Harte): at most 0.08 of all rows with p < 0.05 (0.055,
#   0.127, 0.140 without the shifts; 0.004, 0.042, 0.033 measured).
# - i.i.d. normal, --stat mean: at most 5 % of rows declared too dependent
#   (3.8 % measured, 2.0 % without the shifts) and the tested rows' share
#   with p < 0.05 within 0.05 ± 0.015 (0.053 measured).
# - A 0.25 σ shift from B on, i.i.d., --stat mean: found (p < 0.05) in at
#   least 0.78 of rows (0.820 measured, 0.828 without the shifts).
# A and B the whole file (no trace around them, the within-range rule alone):
# - AR(1) φ 0.99 + 0.5: at most 0.08 (0.305 without the rule; 0.059
#   measured); ARFIMA d 0.3 and 0.45: at most 0.16 (0.14–0.15 measured):
#   inside two ranges of 300 points the rows that still reject look no more
#   dependent than i.i.d. ones (docs/statistics.md).
# - i.i.d. normal, --stat mean: at most 3 % declared (2.5 % measured), the
#   tested rows' share within 0.05 ± 0.015.
# Monte Carlo standard error of a share near 0.08: 0.010 at 800 rows, 0.011 at 600.
#
# The series are drawn in pure Python from random.Random; numpy, when the
# interpreter has it (Debian's python3-numpy; meson's python3 may not, then
# /usr/bin/python3 is used if it has), only does the linear algebra, on the
# same draws: the same series to rounding, several times faster.
#
#   test-compare-longmem.py [SCENARIO…]   prints each check's figures
import cmath
import csv
import io
import math
import operator
import os
import random
import subprocess
import sys
import tempfile

try:
    import numpy as np
except ImportError:
    np = None
    DEBIAN = '/usr/bin/python3'
    if (os.path.exists(DEBIAN) and os.path.realpath(sys.executable) != os.path.realpath(DEBIAN)
            and subprocess.run([DEBIAN, '-c', 'import numpy'], capture_output=True).returncode == 0):
        os.execv(DEBIAN, [DEBIAN] + sys.argv)

TIMESLICE = os.environ['TSL_TIMESLICE']
SERIES = 20
N = 600

# The longer trace: 13 comparisons' length, A and B the seventh.
SPANS = 13
# Davies–Harte's circulant: a power of two ≥ 2 (SPANS × N − 1).
CIRCULANT = 16384

# name, kind, parameter, files, --stat, comparisons' lengths in the file,
# bound: at most this share of rows with p < 0.05 ('power': at least)
SCENARIOS = [
    ('AR(1) 0.99 + 0.5', 'arsum', 0, 40, None, 1, 0.08),
    ('ARFIMA d 0.3', 'arfima', 0.3, 40, None, 1, 0.16),
    ('ARFIMA d 0.45', 'arfima', 0.45, 40, None, 1, 0.16),
    ('i.i.d.', 'iid', 0, 60, 'mean', 1, None),
    ('trace: AR(1) 0.99 + 0.5', 'arsum', 0, 40, None, SPANS, 0.08),
    ('trace: ARFIMA d 0.3', 'arfima', 0.3, 30, None, SPANS, 0.08),
    ('trace: ARFIMA d 0.45', 'arfima', 0.45, 30, None, SPANS, 0.08),
    ('trace: i.i.d.', 'iid', 0, 40, 'mean', SPANS, None),
    ('trace: 0.25 σ shift', 'shift', 0.25, 25, 'mean', SPANS, 'power'),
]


def hosking(n, d):
    """Durbin–Levinson coefficients and innovation variances of ARFIMA(0, d, 0)
    (with numpy: the Cholesky factor of its covariance, the same filter)."""
    rho = [1.0]
    for k in range(1, n):
        rho.append(rho[-1] * (k - 1 + d) / (k - d))
    if np is not None:
        r = np.array(rho)
        return np.linalg.cholesky(r[np.abs(np.subtract.outer(np.arange(n), np.arange(n)))])
    rows, var, prev, v = [[]], [1.0], [], 1.0
    for t in range(1, n):
        kappa = (rho[t] - sum(map(operator.mul, prev, reversed(rho[1:t])))) / v
        prev = [p - kappa * q for p, q in zip(prev, reversed(prev))] + [kappa]
        v *= 1 - kappa * kappa
        rows.append(prev)
        var.append(v)
    return rows, var


def fft(a):
    """Radix-2 FFT (len(a) a power of two), e^(−2πijk/n)."""
    n = len(a)
    a = list(a)
    j = 0
    for i in range(1, n):
        bit = n >> 1
        while j & bit:
            j ^= bit
            bit >>= 1
        j |= bit
        if i < j:
            a[i], a[j] = a[j], a[i]
    size = 2
    while size <= n:
        half = size // 2
        w = [cmath.exp(-2j * math.pi * k / size) for k in range(half)]
        for start in range(0, n, size):
            lo = a[start:start + half]
            t = [x * y for x, y in zip(a[start + half:start + size], w)]
            a[start:start + half] = [x + y for x, y in zip(lo, t)]
            a[start + half:start + size] = [x - y for x, y in zip(lo, t)]
        size *= 2
    return a


def davies_harte(d):
    """Square roots of the circulant's eigenvalues over its size, for ARFIMA(0, d, 0)."""
    half = CIRCULANT // 2
    rho = [1.0]
    for k in range(1, half + 1):
        rho.append(rho[-1] * (k - 1 + d) / (k - d))
    row = rho + rho[half - 1:0:-1]
    if np is not None:
        return np.sqrt(np.maximum(np.fft.fft(row).real, 0) / CIRCULANT)
    return [math.sqrt(max(v.real, 0) / CIRCULANT) for v in fft(row)]


def draw_pair(rng, n, roots):
    """Two independent ARFIMA series of n points (the real and imaginary parts)."""
    w = [complex(rng.gauss(0, 1), rng.gauss(0, 1)) for _ in range(len(roots))]
    if np is not None:
        x = np.fft.fft(roots * np.array(w))[:n]
        return x.real.tolist(), x.imag.tolist()
    x = fft([r * v for r, v in zip(roots, w)])
    return [v.real for v in x[:n]], [v.imag for v in x[:n]]


def draw(rng, kind, param, coefficients, n=N):
    if kind in ('iid', 'shift'):
        return [rng.gauss(0, 1) for _ in range(n)]
    if kind == 'arsum':
        out = [0.0] * n
        for phi in (0.99, 0.5):
            x, s = rng.gauss(0, 1), math.sqrt(1 - phi * phi)
            for i in range(n):
                out[i] += x
                x = phi * x + s * rng.gauss(0, 1)
        return out
    if np is not None:
        return (coefficients[:n, :n] @ np.array([rng.gauss(0, 1) for _ in range(n)])).tolist()
    rows, var = coefficients
    x = []
    for t in range(n):
        mean = sum(map(operator.mul, rows[t], reversed(x))) if t else 0.0
        x.append(mean + math.sqrt(var[t]) * rng.gauss(0, 1))
    return x


def draw_all(rng, kind, param, coefficients, spans):
    """SERIES columns of spans × N points; a shift adds param from B's start on."""
    n = spans * N
    if kind == 'arfima' and spans > 1:
        cols = []
        while len(cols) < SERIES:
            cols.extend(draw_pair(rng, n, coefficients))
        return cols[:SERIES]
    cols = [draw(rng, kind, param, coefficients, n) for _ in range(SERIES)]
    if kind == 'shift':
        start = (spans // 2) * N + N // 2
        cols = [c[:start] + [v + param for v in c[start:]] for c in cols]
    return cols


def run_scenario(tmp, index, kind, param, files, stat, spans):
    rng = random.Random(3100 + index)
    coefficients = None
    if kind == 'arfima':
        coefficients = davies_harte(param) if spans > 1 else hosking(N, param)
    path = os.path.join(tmp, 'null.csv')
    rows = tested = low = dependent = 0
    ok = True
    # A and B: the middle comparison's halves, in seconds (10 Hz).
    a0 = (spans // 2) * N / 10
    a, b = f'{a0:g}s..{a0 + N / 20:g}s', f'{a0 + N / 20:g}s..{a0 + N / 10:g}s'
    for k in range(files):
        cols = draw_all(rng, kind, param, coefficients, spans)
        with open(path, 'w') as f:
            f.write('time,' + ','.join(f's{i}' for i in range(SERIES)) + '\n')
            for i in range(spans * N):
                f.write(f'{i / 10:.1f},' + ','.join(f'{10 + c[i]:.6f}' for c in cols) + '\n')
        args = [TIMESLICE, 'compare', '--a', a, '--b', b, '--seed', str(k), path]
        if stat:
            args += ['--stat', stat]
        out = subprocess.run(args, check=True, capture_output=True, text=True)
        table = list(csv.DictReader(io.StringIO(out.stdout)))
        declared = 0
        for r in table:
            rows += 1
            if r['method'] == 'too-dependent':
                declared += 1
                if r['p_value'] or r['q_value'] or r['significant'] != 'false':
                    print(f'FAIL: a too-dependent row with p “{r["p_value"]}”, q “{r["q_value"]}”, '
                          f'significant {r["significant"]}')
                    ok = False
                continue
            tested += 1
            low += float(r['p_value']) < 0.05
        dependent += declared
        said = f'timeslice: {declared} row{"" if declared == 1 else "s"} not tested (method too-dependent'
        if declared and said not in out.stderr:
            print(f'FAIL: stderr does not say “{said}”: {out.stderr.strip()!r}')
            ok = False
    return rows, tested, low, dependent, ok


def check_report(tmp):
    """The report says how many rows were too dependent to test."""
    rng = random.Random(77)
    path = os.path.join(tmp, 'slow.csv')
    cols = [draw(rng, 'arsum', 0, None) for _ in range(SERIES)]
    with open(path, 'w') as f:
        f.write('time,' + ','.join(f's{i}' for i in range(SERIES)) + '\n')
        for i in range(N):
            f.write(f'{i / 10:.1f},' + ','.join(f'{10 + c[i]:.6f}' for c in cols) + '\n')
    table = os.path.join(tmp, 'table.csv')
    report = os.path.join(tmp, 'report.html')
    subprocess.run([TIMESLICE, 'export', '--report', '--a', '0s..30s', '--b', '30s..60s', '--table', table,
                    '-o', report, path], check=True, capture_output=True, text=True)
    with open(table) as f:
        n = sum(r['method'] == 'too-dependent' for r in csv.DictReader(f))
    with open(report) as f:
        html = f.read()
    want = f'{n} rows were too dependent to test at this length'
    good = n > 1 and want in html
    print(f'report: {n} rows too dependent, “{want}” {"found" if want in html else "missing"}'
          f'{"" if good else "  FAIL"}')
    return good


def main():
    wanted = sys.argv[1:]
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        if not wanted or 'report' in wanted:
            ok = check_report(tmp)
        for i, (name, kind, param, files, stat, spans, most) in enumerate(SCENARIOS):
            if wanted and name not in wanted:
                continue
            rows, tested, low, dependent, good = run_scenario(tmp, i, kind, param, files, stat, spans)
            if most == 'power':
                good = good and low / rows >= 0.78
                figures = f'{low / rows:.4f} of {rows} rows with p < 0.05 (at least 0.78)'
            elif most is not None:
                good = good and low / rows <= most
                figures = f'{low / rows:.4f} of {rows} rows with p < 0.05 (at most {most})'
            else:
                declared = 0.03 if spans == 1 else 0.05
                good = good and dependent <= declared * rows and abs(low / tested - 0.05) <= 0.015
                figures = f'{low / tested:.4f} of {tested} tested rows with p < 0.05'
            print(f'{name}: {figures}, {dependent / rows:.4f} too dependent{"" if good else "  FAIL"}')
            ok = ok and good
    sys.exit(0 if ok else 1)


main()
