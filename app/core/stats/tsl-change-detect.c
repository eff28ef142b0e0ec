/* tsl-change-detect.c: binary segmentation with the block test at each split
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Blocks become normal scores of their ranks (van der Waerden), so skewed
 * values and bursts do not give the tails a t assumes. Each split's
 * difference of mean scores is over its standard error from the residuals
 * about both sides' levels, times (1 + φ) / (1 − φ) for their lag-1
 * autocorrelation, so autocorrelated blocks do not look more certain than
 * they are; its t becomes a normal score through its p-value. The largest
 * score's p-value is the tail of sup |B(t)| / √(t(1 − t)) over the splits'
 * range of t (Siegmund 1988: the Ornstein–Uhlenbeck approximation with
 * Pickands' constant 1), times TSL_CHANGE_TAIL_FACTOR.
 *
 * Tried first and measured worse: a Welch t per split with the compare's
 * batch-means variance per side (9 % of i.i.d. nulls at a nominal 5 %: the
 * short sides' variances are noisy), and block means instead of scores
 * (lognormal and bursty nulls reached p < 0.001 four to eight times too
 * often).
 */
#define G_LOG_DOMAIN "tsl-changes"

#include "config.h"

#include <math.h>
#include <stdlib.h>

#include "tsl-block-test.h"
#include "tsl-change-detect.h"

/* Deep recursion cannot add anything a 64-block series could show. */
#define MAX_DEPTH 8

static double
normal_sf (double z)
{
  return 0.5 * erfc (z / M_SQRT2);
}

/* The normal score with two-sided tail p, by bisection: exact enough and
 * safe for any p, including 0 (a score of 38: beyond any threshold). */
static double
normal_score (double p)
{
  double lo = 0, hi = 38;

  if (!(p < 1))
    return 0;
  for (guint i = 0; i < 100 && hi - lo > 1e-9; i++)
    {
      double mid = (lo + hi) / 2;

      if (2 * normal_sf (mid) > p)
        lo = mid;
      else
        hi = mid;
    }
  return (lo + hi) / 2;
}

/* Φ⁻¹(p) for 0 < p < 1: Acklam's rational approximation (relative error
 * 1.2e-9), then one Halley step on erfc. Bisection cost a trace of
 * thousands of functions seconds: every block of every statistic needs one. */
static double
normal_quantile (double p)
{
  static const double a[] = { -3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                              1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00 };
  static const double b[] = { -5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                              6.680131188771972e+01, -1.328068155288572e+01 };
  static const double c[] = { -7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                              -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00 };
  static const double d[] = { 7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                              3.754408661907416e+00 };
  double q, r, x, e;

  if (p < 0.02425)
    {
      q = sqrt (-2 * log (p));
      x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
          ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    }
  else if (p > 1 - 0.02425)
    {
      q = sqrt (-2 * log (1 - p));
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
  e = 0.5 * erfc (-x / M_SQRT2) - p;
  r = e * sqrt (2 * G_PI) * exp (x * x / 2);
  return x - r / (1 + x * r / 2);
}

double
tsl_change_max_p (double z,
                  guint  n,
                  guint  min_blocks)
{
  double a, span, p;

  if (!isfinite (z))
    return isnan (z) ? NAN : 0;
  if (n < 2 * min_blocks || min_blocks == 0)
    return NAN;

  /* Splits at t = m/n … 1 − m/n: the OU time of that stretch. */
  a = (double) min_blocks / n;
  span = 2 * log ((1 - a) / a);
  p = 2 * normal_sf (z) + span * z * exp (-z * z / 2) / sqrt (2 * G_PI);
  return CLAMP (TSL_CHANGE_TAIL_FACTOR * p, 0, 1);
}

static double
sum (const double *v,
     guint         lo,
     guint         hi)
{
  double total = 0;

  for (guint i = lo; i < hi; i++)
    total += v[i];
  return total;
}

/* The long-run variance of a block's score about both sides' levels: their
 * variance times (1 + φ) / (1 − φ), φ their lag-1 autocorrelation with
 * Kendall's bias correction as tsl_block_phi() makes it. The compare's
 * batch means spent too many degrees of freedom here (with any φ > 0,
 * about 20 batches of 64 blocks: a t on 19 of them, taken to the tail that
 * a maximum over splits and a table of many series need, cost half the
 * power); the variance about one level (a rank test's) let a real change
 * inflate it and scored a 0.5 σ shift at 300 points a side 4.9, not 6.1. */
static gboolean
long_run_variance (const double *x,
                   const double *residual,
                   guint         n,
                   double       *var,
                   double       *df)
{
  double ss = 0, lag = 0, den = 0, phi;
  guint used = 0;

  for (guint i = 0; i < n; i++)
    {
      used += x[i] != 0;
      den += residual[i] * residual[i];
      if (x[i] != 0)
        ss += residual[i] * residual[i] / x[i];
      if (i > 0)
        lag += residual[i] * residual[i - 1];
    }
  if (used < 4 || den <= 0)
    return FALSE;
  phi = lag / den;
  phi += (1 + 3 * phi) / n;
  phi = CLAMP (phi, -0.5, 0.95);
  *df = used - 2;
  *var = ss / *df * (1 + phi) / (1 - phi);
  return *var > 0;
}

/* The normal score of a split at k: the two sides' difference over its
 * standard error, the variance from the residuals about both sides' own
 * levels (so a real change does not inflate it), in batches sized from
 * their lag-1 autocorrelation as the compare's block test sizes them. One
 * variance for the whole stretch keeps the scores of neighbouring splits a
 * Brownian bridge's, which the maximum's p-value assumes. */
static gboolean
split_score (const double *y,
             const double *x,
             guint         lo,
             guint         k,
             guint         hi,
             double       *residual,
             double       *t,
             double       *df)
{
  double xl = sum (x, lo, k), xr = sum (x, k, hi), rl, rr, var;

  if (xl == 0 || xr == 0)
    return FALSE;
  rl = sum (y, lo, k) / xl;
  rr = sum (y, k, hi) / xr;
  for (guint i = lo; i < hi; i++)
    residual[i - lo] = y[i] - (i < k ? rl : rr) * x[i];
  if (!long_run_variance (x + lo, residual, hi - lo, &var, df))
    return FALSE;

  /* var is per unit of x (a block of the rank scores weighs 1). */
  *t = fabs (rr - rl) / sqrt (var * (1 / xl + 1 / xr));
  if (isnan (*t) || (isinf (*t) && rr == rl))
    return FALSE;
  return TRUE;
}

typedef struct {
  guint  index;
  double ratio;
} Ranked;

static int
compare_ranked (const void *pa,
                const void *pb)
{
  const Ranked *a = pa, *b = pb;

  if (a->ratio != b->ratio)
    return a->ratio < b->ratio ? -1 : 1;
  return a->index < b->index ? -1 : a->index > b->index;
}

/* Each block's normal score (van der Waerden) by its rank among the
 * stretch's blocks by y/x (ties share their mean rank), with weight 1; a
 * block without exposure gets weight 0. Scores of ranks have a normal's
 * tails whatever the values do: on block means the difference of means
 * reached p < 0.001 four times too often on lognormal values and eight
 * times on bursty counts. Plain ranks saturate: a 0.5 σ shift at 300
 * points a side scored 4.9 where the means score 6.1. */
static void
rank_scores (const double *y,
             const double *x,
             guint         lo,
             guint         hi,
             double       *u,
             double       *w)
{
  g_autofree Ranked *r = g_new (Ranked, hi - lo);
  double sy = 0, sx = 0, level;
  guint n = 0;

  for (guint i = lo; i < hi; i++)
    {
      sy += y[i];
      sx += x[i];
    }
  level = sx != 0 ? sy / sx : 0;
  for (guint i = lo; i < hi; i++)
    {
      u[i] = w[i] = 0;
      /* Blocks of more calls vary less: ranked by y − level·x over √x,
       * they are as spread as each other (equal x: the order of y/x). */
      if (x[i] > 0 && isfinite (y[i] / x[i]))
        r[n++] = (Ranked) { i, (y[i] - level * x[i]) / sqrt (x[i]) };
    }
  qsort (r, n, sizeof *r, compare_ranked);
  for (guint i = 0; i < n;)
    {
      guint j = i;
      double mean_rank;

      while (j + 1 < n && r[j + 1].ratio == r[i].ratio)
        j++;
      mean_rank = (i + j) / 2.0 + 1;
      for (guint l = i; l <= j; l++)
        {
          u[r[l].index] = normal_quantile (mean_rank / (n + 1));
          w[r[l].index] = 1;
        }
      i = j + 1;
    }
}

/* The split of [lo, hi) with the largest score; FALSE when none is testable. */
static gboolean
best_split (const double *y,
            const double *x,
            guint         lo,
            guint         hi,
            guint         m,
            TslChange    *out)
{
  g_autofree double *residual = g_new (double, hi - lo);
  g_autofree double *u = g_new (double, hi);
  g_autofree double *w = g_new (double, hi);
  gboolean found = FALSE;
  double best_t = 0, best_df = 0;

  rank_scores (y, x, lo, hi, u, w);
  for (guint k = lo + m; k + m <= hi; k++)
    {
      double t, df, xl = sum (x, lo, k), xr = sum (x, k, hi);

      if (xl == 0 || xr == 0 || !split_score (u, w, lo, k, hi, residual, &t, &df))
        continue;
      if (!found || t > best_t)
        {
          *out = (TslChange) { lo, hi, k, sum (y, lo, k) / xl, sum (y, k, hi) / xr, NAN, NAN };
          best_t = t;
          best_df = df;
          found = TRUE;
        }
    }
  /* Every split of the stretch has the same degrees of freedom, so the
   * largest t is the largest score. A t on few of them has heavier tails
   * than the maximum's approximation assumes: its own tail, as a score. */
  if (found)
    out->z = normal_score (2 * tsl_t_sf (best_t, best_df));
  if (found)
    out->p_value = tsl_change_max_p (out->z, hi - lo, m);
  return found;
}

static void
segment (const double *y,
         const double *x,
         guint         lo,
         guint         hi,
         guint         m,
         double        alpha,
         guint         depth,
         GArray       *out)
{
  TslChange change;

  if (hi - lo < 2 * m || depth > MAX_DEPTH ||
      !best_split (y, x, lo, hi, m, &change))
    return;
  g_array_append_val (out, change);
  if (!(change.p_value < alpha))
    return;
  segment (y, x, lo, change.split, m, alpha, depth + 1, out);
  segment (y, x, change.split, hi, m, alpha, depth + 1, out);
}

void
tsl_change_detect (const double *y,
                   const double *x,
                   guint         n,
                   double        alpha,
                   GArray       *out)
{
  tsl_change_detect_full (y, x, n, TSL_CHANGE_MIN_BLOCKS, alpha, out);
}

void
tsl_change_detect_full (const double *y,
                        const double *x,
                        guint         n,
                        guint         min_blocks,
                        double        alpha,
                        GArray       *out)
{
  g_return_if_fail (y != NULL && x != NULL && out != NULL && min_blocks > 0);

  segment (y, x, 0, n, min_blocks, alpha, 0, out);
}
