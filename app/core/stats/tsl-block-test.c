/* tsl-block-test.c: batch means over time blocks, for autocorrelated series
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Chosen by measurement (README, "What significant means"): consecutive
 * blocks are grouped into batches of about twice the series' integrated
 * autocorrelation time, estimated from the lag-1 autocorrelation of the
 * linearised block series z = y − R·x with Kendall's small-sample bias
 * correction. Batches that long are still correlated a little, so the batch
 * variance underestimates; the exact AR(1) expectation of the batch-means
 * estimator at that φ divides that out. φ is not cut at 0: a slightly
 * negative estimate then balances a slightly positive one on uncorrelated
 * data (cut at 0, or set to 0 below a threshold, the test was conservative
 * on i.i.d. data or lenient at φ = 0.3–0.6). The reference is Student's t on
 * batches − 1 degrees of freedom, Welch's for two ranges. Fixed batch counts
 * (8, 10 or 16 a range) rejected 8–36 % of nulls at φ = 0.9–0.97; this
 * stays within 0.035–0.065 there (tests/unit/test-block-test.c).
 */
#define G_LOG_DOMAIN "tsl-compare"

#include "config.h"

#include <math.h>
#include <string.h>

#include "tsl-block-test.h"
#include "tsl-exact-tests.h"

#define MAX_BATCHES 64
#define MIN_BATCHES 3
#define MAX_PHI     0.995
#define MIN_PHI     -0.5

static double
ratio_of (const double *y,
          const double *x,
          guint         n,
          double       *sum_x)
{
  double sy = 0, sx = 0;

  for (guint i = 0; i < n; i++)
    {
      sy += y[i];
      sx += x[i];
    }
  *sum_x = sx;
  return sx != 0 ? sy / sx : NAN;
}

double
tsl_block_phi (const double *y,
               const double *x,
               guint         n)
{
  double sx, r = ratio_of (y, x, n, &sx), num = 0, den = 0, prev = 0, phi;

  if (n < 3 || !isfinite (r))
    return 0;

  for (guint i = 0; i < n; i++)
    {
      double z = y[i] - r * x[i];

      den += z * z;
      if (i > 0)
        num += z * prev;
      prev = z;
    }
  if (den <= 0)
    return 0;

  phi = num / den;
  /* Kendall (1954): the lag-1 estimate is low by about (1 + 3φ) / n. */
  phi += (1 + 3 * phi) / n;
  return CLAMP (phi, MIN_PHI, MAX_PHI);
}

#define MEMORY_MAX_LAG 8

/* Σ z_i z_{i+k} for k = 0..MEMORY_MAX_LAG of one range's linearised units. */
static void
add_lag_products (const double *y,
                  const double *x,
                  guint         n,
                  double       *sums)
{
  double sx, r = ratio_of (y, x, n, &sx);

  for (guint k = 0; k <= MEMORY_MAX_LAG && k < n; k++)
    for (guint i = k; i < n; i++)
      sums[k] += (y[i] - r * x[i]) * (y[i - k] - r * x[i - k]);
}

/* Chosen by simulation (300 points a side in 64 blocks, 2000 series a
 * scenario): lags 2 to 8 and a threshold of 0.35 declared 86 % of rows of
 * AR(1) φ 0.99 + φ 0.5 and 41–47 % of ARFIMA d 0.3–0.45 against 1.7 % of
 * i.i.d. rows and 2.5–3.2 % of AR(1) φ 0.3–0.6 (0.7 % at φ 0.9). Lags 2–4,
 * 2–16, the batch-means variance at 8–32 blocks against the AR(1)'s and a
 * threshold rising with φ all separated less, and so did low-frequency
 * estimates of d (local Whittle, log-periodogram, variance-time:
 * bench/longmem-model.py). The rows of long memory that
 * stay, and still reject, are those whose ranges look the least dependent
 * inside: within two ranges of 64 units nothing tells them apart. */
double
tsl_block_memory_excess (const double *y_a,
                         const double *x_a,
                         guint         n_a,
                         const double *y_b,
                         const double *x_b,
                         guint         n_b,
                         double        phi)
{
  double sums[MEMORY_MAX_LAG + 1] = { 0 }, excess = 0, predicted = 1;

  if (MIN (n_a, n_b) < TSL_BLOCK_MIN_UNITS_FOR_MEMORY)
    return NAN;
  add_lag_products (y_a, x_a, n_a, sums);
  add_lag_products (y_b, x_b, n_b, sums);
  if (!(sums[0] > 0))
    return NAN;
  phi = CLAMP (phi, 0, MAX_PHI);
  for (guint k = 1; k <= MEMORY_MAX_LAG; k++)
    {
      predicted *= phi;
      if (k >= 2)
        excess += sums[k] / sums[0] - predicted;
    }
  return excess;
}

guint
tsl_block_units (const double *y,
                 const double *x,
                 const double *c,
                 guint         n,
                 double       *uy,
                 double       *ux,
                 double       *uc)
{
  guint units = 0;

  for (guint i = 0; i < n; i++)
    {
      if (c != NULL && c[i] > 0)
        {
          uy[units] = ux[units] = 0;
          if (uc != NULL)
            uc[units] = 0;
          units++;
        }
      if (units > 0)
        {
          uy[units - 1] += y[i];
          ux[units - 1] += x[i];
          if (uc != NULL)
            uc[units - 1] += c[i];
        }
    }
  if (units == 0)
    {
      memcpy (uy, y, n * sizeof *y);
      memcpy (ux, x, n * sizeof *x);
      if (uc != NULL)
        memset (uc, 0, n * sizeof *uc);
      return n;
    }

  /* Blocks before the first observation belong to the first unit. */
  for (guint i = 0; c[i] <= 0; i++)
    {
      uy[0] += y[i];
      ux[0] += x[i];
    }
  return units;
}

/* Variance of the mean of k consecutive points of a unit-variance AR(1). */
static double
ar1_mean_variance (double k,
                   double phi)
{
  if (phi == 0)
    return 1 / k;
  /* pow of a negative φ needs a whole k; the batches differ by one block at most. */
  return ((1 + phi) / (1 - phi) - 2 * phi * (1 - pow (phi, round (k))) / (k * (1 - phi) * (1 - phi))) / k;
}

void
tsl_block_estimate (const double     *y,
                    const double     *x,
                    guint             n,
                    double            phi,
                    TslBlockEstimate *out)
{
  tsl_block_estimate_units (y, x, NULL, n, phi, out);
}

void
tsl_block_estimate_units (const double     *y,
                          const double     *x,
                          const double     *c,
                          guint             n,
                          double            phi,
                          TslBlockEstimate *out)
{
  double sum_x, r = ratio_of (y, x, n, &sum_x), tau, ss = 0, bias = 1, m;
  double s1 = 0, s2 = 0, sxs = 0, sxx = 0, unbias, df;  /* s2: Σ√s */
  guint b;

  *out = (TslBlockEstimate) { r, NAN, 0, 0, 0 };
  if (n < 2 || !isfinite (r))
    return;

  if (phi < 0)
    phi = tsl_block_phi (y, x, n);
  phi = CLAMP (phi, MIN_PHI, MAX_PHI);

  /* Batches of about twice the integrated autocorrelation time. */
  tau = (1 + phi) / (1 - phi);
  b = phi > 0 ? n / (guint) MIN (ceil (2 * tau), n) : n;
  b = CLAMP (b, MIN (MIN_BATCHES, n), MAX_BATCHES);

  for (guint k = 0; k < b; k++)
    {
      double zk = 0, xk = 0, sk = 0;

      for (guint i = (guint) ((guint64) k * n / b); i < (guint) ((guint64) (k + 1) * n / b); i++)
        {
          zk += y[i] - r * x[i];
          xk += x[i];
          /* A unit of c observations sharing x: its z varies as x² / c. */
          sk += c != NULL && c[i] > 0 ? x[i] * x[i] / c[i] : 1;
        }
      ss += zk * zk;
      s1 += sk;
      s2 += sqrt (sk);
      sxs += xk * sk;
      sxx += xk * xk;
    }

  /* E[Σ z²] = Σs − 2 Σxs / X + Σx² Σs / X² for batches of unequal
   * weight (b − 1 of b when they are equal); the degrees of freedom are
   * the effective number of batches on √s, (Σ√s)² / Σs − 1: a few
   * long-held values of a gauge at irregular times weigh as few
   * observations, not as many. (Satterthwaite's (Σs)² / Σs² rejected 2.3 %
   * of nulls at Poisson times, this 4.0 %, without it 6.0 %.) */
  if (c != NULL)
    {
      unbias = s1 / (s1 - 2 * sxs / sum_x + sxx * s1 / (sum_x * sum_x));
      df = s2 * s2 / s1 - 1;
    }
  else
    {
      unbias = (double) b / (b - 1);
      df = b - 1;
    }
  if (!isfinite (unbias) || unbias <= 0)
    unbias = (double) b / (b - 1);
  df = CLAMP (df, 1, b - 1);

  /* What correlation is left between batches: E[estimate] / truth for an
   * AR(1) at phi, with batches of m blocks. */
  m = (double) n / b;
  if (phi != 0)
    bias = (ar1_mean_variance (m, phi) - ar1_mean_variance (n, phi)) /
           ((b - 1) * ar1_mean_variance (n, phi));
  bias = CLAMP (bias, 1e-3, 2);

  out->variance = unbias * ss / (sum_x * sum_x) / bias;
  out->df = df;
  out->phi = phi;
  out->batches = b;
}

/* Regularised incomplete beta I_x(a, b) by Lentz's continued fraction. */
static double
beta_cf (double a,
         double b,
         double x)
{
  const double tiny = 1e-300;
  double c = 1, d = 1 - (a + b) * x / (a + 1), h;

  d = fabs (d) < tiny ? tiny : d;
  d = 1 / d;
  h = d;
  for (int m = 1; m <= 300; m++)
    {
      double aa = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)), del;

      d = 1 + aa * d;
      d = fabs (d) < tiny ? tiny : d;
      c = 1 + aa / c;
      c = fabs (c) < tiny ? tiny : c;
      d = 1 / d;
      h *= d * c;
      aa = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
      d = 1 + aa * d;
      d = fabs (d) < tiny ? tiny : d;
      c = 1 + aa / c;
      c = fabs (c) < tiny ? tiny : c;
      d = 1 / d;
      del = d * c;
      h *= del;
      if (fabs (del - 1) < 1e-15)
        break;
    }
  return h;
}

static double
beta_inc (double a,
          double b,
          double x)
{
  double front;

  if (x <= 0)
    return 0;
  if (x >= 1)
    return 1;
  front = exp (lgamma (a + b) - lgamma (a) - lgamma (b) + a * log (x) + b * log1p (-x));
  if (x < (a + 1) / (a + b + 2))
    return front * beta_cf (a, b, x) / a;
  return 1 - front * beta_cf (b, a, 1 - x) / b;
}

double
tsl_t_sf (double t,
          double df)
{
  double tail;

  if (isnan (t) || !(df > 0))
    return NAN;
  if (isinf (t))
    return t > 0 ? 0 : 1;
  tail = 0.5 * beta_inc (df / 2, 0.5, df / (df + t * t));
  return t > 0 ? tail : 1 - tail;
}

double
tsl_f_sf (double f,
          double d1,
          double d2)
{
  if (isnan (f) || !(d1 > 0) || !(d2 > 0))
    return NAN;
  if (f <= 0)
    return 1;
  if (isinf (f))
    return 0;
  return beta_inc (d2 / 2, d1 / 2, d2 / (d2 + d1 * f));
}

/* Student's t density. */
static double
t_pdf (double t,
       double df)
{
  return exp (lgamma ((df + 1) / 2) - lgamma (df / 2) - 0.5 * log (df * G_PI) -
              (df + 1) / 2 * log1p (t * t / df));
}

/* Newton's method on the survival function, kept inside a bracket that
 * bisection narrows whenever a step would leave it: a few evaluations of the
 * incomplete beta instead of bisection's ~45 (a flame graph tests thousands
 * of frames, and this was 80 % of its time). */
double
tsl_t_isf (double p,
           double df)
{
  double lo = 0, hi = INFINITY, x, z, z3;

  if (!(p > 0 && p < 1) || !(df > 0))
    return NAN;
  if (p > 0.5)
    return -tsl_t_isf (1 - p, df);

  /* Cornish–Fisher from the normal quantile: two or three steps from it. */
  z = -tsl_ndtri (p);
  z3 = z * z * z;
  x = z + (z3 + z) / (4 * df) + (5 * z3 * z * z + 16 * z3 + 3 * z) / (96 * df * df);
  if (!(x > 0 && x < 1e300))
    x = 1;
  for (int i = 0; i < 400; i++)
    {
      double f = tsl_t_sf (x, df) - p, step, next;

      if (f > 0)
        lo = x;
      else
        hi = x;
      if (f == 0 || (isfinite (hi) && hi - lo <= 1e-15 * hi))
        break;
      step = f / t_pdf (x, df);
      next = x + step;
      /* Outside the bracket: halve it, or double while it has no top. */
      if (!(next > lo && next < hi) || !isfinite (step))
        next = isinf (hi) ? MIN (2 * x, 1e300) : (lo + hi) / 2;
      /* Far below the root of a heavy tail Newton creeps (x grows by 1/df
       * a step): double until the root is bracketed. */
      else if (isinf (hi) && f > p)
        next = MIN (MAX (next, 2 * x), 1e300);
      else if (fabs (step) <= 1e-14 * x)
        {
          x = next;
          break;
        }
      x = next;
    }
  return x;
}

/* Fieller's interval of B / A − 1: every ratio ρ the test's statistic
 * would not tell from B − ρA at quantile t, (B − ρA)² ≤ t² (vB + ρ² vA). It
 * holds no change (ρ = 1) exactly when the test does not reject, unlike the
 * delta method's interval, symmetric about B / A, which ignored most of A's
 * uncertainty when B is far below A: a real recording's mean of 24 calls
 * read −98.7 % [−100 %, −96 %] beside p = 0.27. Where A itself is not told
 * from 0 the set is unbounded: ratios from the upper root on (B above 0 at
 * that level), else every ratio; its ends are then ±infinity. */
static void
fieller (const TslBlockEstimate *a,
         const TslBlockEstimate *b,
         double                  t,
         TslBlockComparison     *out)
{
  double t2 = t * t, ea = a->estimate, eb = b->estimate;
  double qa = ea * ea - t2 * a->variance;          /* ρ² coefficient */
  double qb = eb * eb - t2 * b->variance;          /* constant term */
  double disc = ea * eb * ea * eb - qa * qb;       /* (half the ρ coefficient)² − qa qb */
  double root, lo, hi;

  if (!isfinite (t) || !isfinite (disc))
    return;
  if (qa > 0)
    {
      /* A told from 0: a bounded interval about B / A (disc ≥ 0 then, as
       * ρ = B / A satisfies the inequality). */
      root = sqrt (MAX (disc, 0));
      lo = (ea * eb - root) / qa;
      hi = (ea * eb + root) / qa;
      out->ci_low = lo - 1;
      out->ci_high = hi - 1;
      return;
    }
  out->ci_low = -INFINITY;
  out->ci_high = INFINITY;
  if (qa < 0 && disc > 0 && qb > 0)
    {
      /* The set is (−∞, r1] ∪ [r2, ∞) with r1 < 0 < r2 when B is told from
       * 0: where the sign of B / A is A's and B's (both positive or both
       * negative), the ratios beyond r2 are the possible ones. */
      root = sqrt (disc);
      lo = (ea * eb + root) / qa;
      hi = (ea * eb - root) / qa;
      if ((ea > 0) == (eb > 0))
        out->ci_low = MAX (lo, hi) - 1;
      else
        out->ci_high = MIN (lo, hi) - 1;
    }
}

void
tsl_block_compare (const TslBlockEstimate *a,
                   const TslBlockEstimate *b,
                   double                  confidence,
                   TslBlockComparison     *out)
{
  double d = b->estimate - a->estimate, v = a->variance + b->variance, ratio;

  *out = (TslBlockComparison) { NAN, NAN, NAN, NAN, 0, MIN (a->batches, b->batches), NAN };
  if (!isfinite (a->estimate) || !isfinite (b->estimate))
    return;
  out->change = a->estimate != 0 ? b->estimate / a->estimate - 1 : (d == 0 ? 0 : NAN);
  if (!isfinite (v) || a->df <= 0 || b->df <= 0)
    return;

  if (v <= 0)
    {
      /* Both ranges constant: any difference is the whole story. */
      out->p_value = d == 0 ? 1 : 0;
      out->ci_low = out->ci_high = out->change;
      out->df = a->df + b->df;
      return;
    }

  /* Welch–Satterthwaite. */
  out->df = v * v / (a->variance * a->variance / a->df + b->variance * b->variance / b->df);
  out->p_value = MIN (1, 2 * tsl_t_sf (fabs (d) / sqrt (v), out->df));

  if (a->estimate == 0)
    return;
  ratio = b->estimate / a->estimate;
  out->se_change = sqrt ((b->variance + ratio * ratio * a->variance) / (a->estimate * a->estimate));
  fieller (a, b, tsl_t_isf ((1 - confidence) / 2, out->df), out);
}
