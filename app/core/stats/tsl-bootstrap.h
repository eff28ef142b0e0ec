/* tsl-bootstrap.h: resampling kernels and tests for comparing two ranges
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The resampling side of the compare (docs/ARCHITECTURE.md, "Compare
 * statistics"), free of any trace type: samples are
 * plain arrays of doubles. Every random choice comes from TslRng streams
 * derived from the caller's seed and the index of a block of rounds, so a
 * result depends on the seed only, never on the number of threads.
 */
#pragma once

#include <gio/gio.h>

#include "tsl-exact-tests.h"

G_BEGIN_DECLS

typedef enum {
  TSL_STAT_SUM,
  TSL_STAT_MEAN,
  TSL_STAT_MEDIAN,
  TSL_STAT_P95,
  TSL_STAT_MAX,
  TSL_STAT_COUNT,   /* the number of items; compared with tsl_rate_test() */
  TSL_STAT_SHARE,   /* the fraction of items that are 1 in a 0/1 vector */
} TslStat;

#define TSL_N_STATS (TSL_STAT_SHARE + 1)

const char       *tsl_stat_to_string            (TslStat              stat);
gboolean          tsl_stat_from_string          (const char          *text,
                                                 TslStat             *stat);
/* The plain statistic; median and p95 interpolate linearly between order
 * statistics, as numpy.percentile does. NAN for an empty sample. */
double            tsl_stat_compute              (TslStat              stat,
                                                 const double        *x,
                                                 gsize                n);
/* x[q·(n−1)] of an ascending array, interpolated (numpy's "linear"). */
double            tsl_quantile_sorted           (const double        *sorted,
                                                 gsize                n,
                                                 double               q);

/* One side of a comparison. The statistic of a resample is scaled by
 * `scale` (e.g. 1 / seconds for a rate). `block` is the block length of a
 * circular block bootstrap; 0 or 1 resamples items independently. */
typedef struct {
  const double *x;
  gsize         n;
  double        scale;
  guint         block;
} TslBootstrapSample;

typedef struct {
  TslStat       stat;
  guint         rounds;
  guint64       seed;
  guint         n_threads;   /* 0: one per processor */
} TslBootstrapConfig;

/* The resampled statistics θ*(x) · scale of one sample, rounds of them, in
 * round order (not sorted). `stream` separates independent uses of a seed. */
gboolean          tsl_bootstrap_one_sample      (const TslBootstrapSample *x,
                                                 const TslBootstrapConfig *config,
                                                 guint64              stream,
                                                 double              *out,
                                                 GCancellable        *cancellable,
                                                 GError             **error);
/* The resampled relative effects θ*(B) / θ*(A) − 1 with A and B resampled
 * independently, each at its own size; rounds of them in round order. */
gboolean          tsl_bootstrap_two_sample      (const TslBootstrapSample *a,
                                                 const TslBootstrapSample *b,
                                                 const TslBootstrapConfig *config,
                                                 double              *out,
                                                 GCancellable        *cancellable,
                                                 GError             **error);
/* θ(B) / θ(A) − 1 with 0/0 read as no change and x/0 as ±infinity. */
double            tsl_relative_change           (double               theta_a,
                                                 double               theta_b);

/* Leave-one-out values of the (unscaled) statistic: out[i] = θ(x without
 * x[i]). O(n) for sum, mean, share, count and max; O(n log n) for median
 * and p95 (one sort, then each deletion shifts the interpolation ranks). */
void              tsl_jackknife                 (TslStat              stat,
                                                 const double        *x,
                                                 gsize                n,
                                                 double              *out);

/* Intervals from an ascending array of resampled values. */
void              tsl_percentile_interval       (const double        *sorted,
                                                 guint                rounds,
                                                 double               confidence,
                                                 double              *low,
                                                 double              *high);
/* BCa as scipy.stats.bootstrap computes it: bias from the share of
 * resamples below theta_hat, acceleration from jackknife values of the
 * statistic, one group per sample (leaving out an item of that sample).
 * FALSE when the bias correction is undefined (every resample on one side
 * of theta_hat); the caller then falls back to the percentile interval. */
gboolean          tsl_bca_interval              (double               theta_hat,
                                                 const double        *sorted,
                                                 guint                rounds,
                                                 const double * const *jack,
                                                 const gsize         *n_jack,
                                                 guint                n_groups,
                                                 double               confidence,
                                                 double              *low,
                                                 double              *high);
/* Two-sided p-value of "no change" from resampled effects:
 * min (1, 2 · min (1 + #(e ≤ 0), 1 + #(e ≥ 0)) / (rounds + 1)). */
double            tsl_bootstrap_p_value         (const double        *effects,
                                                 guint                rounds);

/* Benjamini–Hochberg adjusted p-values; NAN entries are skipped and stay NAN. */
void              tsl_bh_qvalues                (const double        *p,
                                                 gsize                n,
                                                 double              *q);

G_END_DECLS
