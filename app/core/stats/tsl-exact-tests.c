/* tsl-exact-tests.c: exact tests where the bootstrap is the wrong tool
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Counts are Poisson processes, so given their total the split between two
 * ranges is binomial (the conditional test is exact); the maximum is not
 * smooth, so the bootstrap is inconsistent for it and a permutation test is
 * used instead. Block bootstrap support lives here too.
 */
#define G_LOG_DOMAIN "tsl-exact-tests"

#include "config.h"

#include <math.h>
#include <stdlib.h>

#include "tsl-exact-tests.h"

/* scipy.stats.binomtest's relative tolerance for "no more likely than k". */
#define BINOM_RERR (1 + 1e-7)

static double
binom_log_pmf (guint64 x,
               guint64 n,
               double  p)
{
  return lgamma ((double) n + 1) - lgamma ((double) x + 1) - lgamma ((double) (n - x) + 1) +
         (double) x * log (p) + (double) (n - x) * log1p (-p);
}

/* Σ pmf(x) from `start` away from the mode (step −1 or +1), stopping once the
 * terms, which only shrink there, no longer change the sum. */
static double
binom_tail (guint64 start,
            int     step,
            guint64 n,
            double  p)
{
  double term = exp (binom_log_pmf (start, n, p)), sum = 0, odds = p / (1 - p);
  guint64 x = start;

  for (;;)
    {
      sum += term;
      if (term <= sum * 1e-17 || (step < 0 && x == 0) || (step > 0 && x == n))
        break;

      /* pmf(x + 1) / pmf(x) = (n − x) / (x + 1) · p / (1 − p) */
      if (step > 0)
        {
          term *= (double) (n - x) / (double) (x + 1) * odds;
          x++;
        }
      else
        {
          term *= (double) x / (double) (n - x + 1) / odds;
          x--;
        }
    }

  return sum;
}

double
tsl_binomial_test (guint64 k,
                   guint64 n,
                   double  p)
{
  double log_d, m, pval;
  guint64 lo, hi;

  g_return_val_if_fail (k <= n, NAN);

  if (isnan (p) || p < 0 || p > 1)
    return NAN;
  if (p == 0)
    return k == 0 ? 1.0 : 0.0;
  if (p == 1)
    return k == n ? 1.0 : 0.0;

  m = (double) n * p;
  if ((double) k == m)
    return 1.0;

  log_d = binom_log_pmf (k, n, p) + log (BINOM_RERR);

  if ((double) k < m)
    {
      /* The far tail: the smallest x ≥ ceil (m) no more likely than k. */
      lo = (guint64) ceil (m);
      hi = n + 1;
      while (lo < hi)
        {
          guint64 mid = lo + (hi - lo) / 2;

          if (binom_log_pmf (mid, n, p) <= log_d)
            hi = mid;
          else
            lo = mid + 1;
        }
      pval = binom_tail (k, -1, n, p) + (lo <= n ? binom_tail (lo, +1, n, p) : 0);
    }
  else
    {
      /* The largest x ≤ floor (m) no more likely than k, if any. */
      gboolean found = FALSE;
      guint64 best = 0;

      lo = 0;
      hi = (guint64) floor (m);
      while (lo <= hi)
        {
          guint64 mid = lo + (hi - lo) / 2;

          if (binom_log_pmf (mid, n, p) <= log_d)
            {
              found = TRUE;
              best = mid;
              lo = mid + 1;
            }
          else if (mid == 0)
            break;
          else
            hi = mid - 1;
        }
      pval = binom_tail (k, +1, n, p) + (found ? binom_tail (best, -1, n, p) : 0);
    }

  return MIN (1.0, pval);
}

double
tsl_rate_test (guint64 n_a,
               double  e_a,
               guint64 n_b,
               double  e_b)
{
  if (!(e_a > 0) || !(e_b > 0))
    return NAN;
  if (n_a + n_b == 0)
    return 1.0;

  return tsl_binomial_test (n_b, n_a + n_b, e_b / (e_a + e_b));
}

static int
compare_descending (const void *pa,
                    const void *pb)
{
  double a = *(const double *) pa;
  double b = *(const double *) pb;

  return (a < b) - (a > b);
}

double
tsl_permutation_test_max (const double *a,
                          gsize         n_a,
                          const double *b,
                          gsize         n_b)
{
  g_autofree double *z = NULL;
  double max_a = -INFINITY, max_b = -INFINITY, d_obs, tol, p = 0;
  gsize total = n_a + n_b;

  if (n_a == 0 || n_b == 0)
    return NAN;

  z = g_new (double, total);
  /* Assigned apart: MAX() evaluates its arguments twice. */
  for (gsize i = 0; i < n_a; i++)
    {
      z[i] = a[i];
      max_a = MAX (max_a, z[i]);
    }
  for (gsize i = 0; i < n_b; i++)
    {
      z[n_a + i] = b[i];
      max_b = MAX (max_b, z[n_a + i]);
    }
  qsort (z, total, sizeof (double), compare_descending);

  d_obs = fabs (max_b - max_a);
  /* Equal differences computed from different pairs may round apart. */
  tol = 1e-12 * MAX (fabs (z[0]), fabs (z[total - 1]));

  /* The group holding the overall top item has max z[0]; the other group's
   * max is z[j], the first item (in descending order) that went to it. */
  for (guint side = 0; side < 2; side++)
    {
      double n_top = side == 0 ? (double) n_b : (double) n_a;
      double n_other = side == 0 ? (double) n_a : (double) n_b;
      double prob = 1;

      for (gsize j = 1; j < total; j++)
        {
          prob *= (n_top - (double) (j - 1)) / (double) (total - (j - 1));
          if (prob <= 0)
            break;
          if (z[0] - z[j] >= d_obs - tol)
            p += prob * n_other / (double) (total - j);
        }
    }

  return MIN (1.0, p);
}

/* ---- block bootstrap support ---- */

double
tsl_lag1_autocorrelation (const double *x,
                          gsize         n)
{
  double mean = 0, num = 0, den = 0;

  if (n < 3)
    return 0;

  for (gsize i = 0; i < n; i++)
    mean += x[i];
  mean /= (double) n;

  for (gsize i = 0; i < n; i++)
    {
      double d = x[i] - mean;

      den += d * d;
      if (i + 1 < n)
        num += d * (x[i + 1] - mean);
    }

  return den > 0 ? num / den : 0;
}

double
tsl_block_length (const double *x,
                  gsize         n)
{
  g_autofree double *acv = NULL;
  double mean = 0, cv, g = 0, lr = 0, d_cb, b, b_max;
  gsize kn, m_max, m = 0;
  gboolean found = FALSE;

  if (n < 8)
    return 1;

  kn = MAX (5, (gsize) sqrt (log10 ((double) n)));
  m_max = (gsize) ceil (sqrt ((double) n)) + kn;
  m_max = MIN (m_max, n - 1);
  b_max = ceil (MIN (3 * sqrt ((double) n), (double) n / 3));

  for (gsize i = 0; i < n; i++)
    mean += x[i];
  mean /= (double) n;

  acv = g_new0 (double, m_max + 1);
  for (gsize lag = 0; lag <= m_max; lag++)
    {
      double s = 0;

      for (gsize i = lag; i < n; i++)
        s += (x[i] - mean) * (x[i - lag] - mean);
      acv[lag] = s / (double) n;
    }

  if (!(acv[0] > 0))
    return 1;

  /* m̂: the smallest lag after which kn autocorrelations in a row are
   * insignificant at c = 2 (Politis & White 2004, §3.2); M = 2 m̂. */
  cv = 2 * sqrt (log10 ((double) n) / (double) n);
  for (gsize start = 0; start + kn <= m_max && !found; start++)
    {
      found = TRUE;
      for (gsize k = 1; k <= kn; k++)
        {
          if (fabs (acv[start + k] / acv[0]) >= cv)
            {
              found = FALSE;
              break;
            }
        }
      if (found)
        m = start;
    }
  m = found ? MIN (2 * MAX (m, 1), m_max) : m_max;

  /* Flat-top lag window λ(t) = 1 for |t| ≤ ½, 2 (1 − |t|) up to 1. */
  lr = acv[0];
  for (gsize k = 1; k <= m; k++)
    {
      double t = (double) k / (double) m;
      double lambda = t <= 0.5 ? 1 : 2 * (1 - t);

      g += 2 * lambda * (double) k * acv[k];
      lr += 2 * lambda * acv[k];
    }

  /* D_CB = 4/3 g(0)², the 2009 correction of the 2004 constant. */
  d_cb = 4.0 / 3.0 * lr * lr;
  if (!(d_cb > 0))
    return 1;

  b = cbrt (2 * g * g / d_cb) * cbrt ((double) n);
  return CLAMP (b, 1.0, MAX (b_max, 1.0));
}

/* ---- the normal distribution ---- */

double
tsl_ndtr (double x)
{
  return 0.5 * erfc (-x / G_SQRT2);
}

double
tsl_ndtri (double p)
{
  /* Acklam's rational approximation (relative error 1.15e-9), then one
   * Halley step against erfc, which brings it to double precision. */
  static const double a[] = { -3.969683028665376e+01, 2.209460984245205e+02,
                              -2.759285104469687e+02, 1.383577518672690e+02,
                              -3.066479806614716e+01, 2.506628277459239e+00 };
  static const double b[] = { -5.447609879822406e+01, 1.615858368580409e+02,
                              -1.556989798598866e+02, 6.680131188771972e+01,
                              -1.328068155288572e+01 };
  static const double c[] = { -7.784894002430293e-03, -3.223964580411365e-01,
                              -2.400758277161838e+00, -2.549732539343734e+00,
                              4.374664141464968e+00, 2.938163982698783e+00 };
  static const double d[] = { 7.784695709041462e-03, 3.224671290700398e-01,
                              2.445134137142996e+00, 3.754408661907416e+00 };
  double q, r, x, e, u;

  if (isnan (p) || p < 0 || p > 1)
    return NAN;
  if (p == 0)
    return -INFINITY;
  if (p == 1)
    return INFINITY;

  if (p < 0.02425)
    {
      q = sqrt (-2 * log (p));
      x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
          ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    }
  else if (p > 1 - 0.02425)
    {
      q = sqrt (-2 * log1p (-p));
      x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
           ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    }
  else
    {
      q = p - 0.5;
      r = q * q;
      x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
          (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
    }

  e = tsl_ndtr (x) - p;
  u = e * sqrt (2 * G_PI) * exp (x * x / 2);
  return x - u / (1 + x * u / 2);
}
