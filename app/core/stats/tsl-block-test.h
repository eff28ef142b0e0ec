/* tsl-block-test.h: ratio estimates and their uncertainty from time blocks
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A range is cut into equal time blocks; each block holds a numerator y and
 * a denominator x (Σ values and count for a mean, Σ value·dt and Σ dt for a
 * time-weighted mean, Σ durations and calls for a mean duration, count and
 * seconds for a rate). The estimate is Σy / Σx, exact over every event. Its
 * variance comes from batches of consecutive blocks (batch means), long
 * enough for the series' autocorrelation and corrected for what is left of
 * it, so neighbouring events that move together do not count as independent
 * observations.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  double estimate;   /* Σy / Σx; NAN when Σx is 0 */
  double variance;   /* of the estimate; NAN when it cannot be told */
  double df;         /* degrees of freedom of the variance: batches − 1, fewer
                      * when units weigh unequally */
  double phi;        /* lag-1 autocorrelation used, after bias correction */
  guint  batches;
} TslBlockEstimate;

/* Observations fewer than this a side are not tested (method too-few):
 * Welch's t on i.i.d. normal points rejects 2.3 %, 3.4 % and 4.2 % of nulls
 * at 2, 3 and 4 points a side, and 0.04–0.05 from 4 on (README). */
#define TSL_BLOCK_MIN_OBSERVATIONS 4

/* Merges blocks into units that each start at a block holding an
 * observation (c[j] > 0), so that a sparse series has as many units as
 * blocks with points, never more: its empty blocks (no point, or a gauge's
 * held value) join the unit before them, leading ones the first. Without
 * observations (c NULL or all 0) the blocks are the units. Returns how many
 * units went to uy, ux and uc (nullable: their observations; all 0 when
 * the blocks are the units), n at most. */
guint             tsl_block_units               (const double         *y,
                                                 const double         *x,
                                                 const double         *c,
                                                 guint                 n,
                                                 double               *uy,
                                                 double               *ux,
                                                 double               *uc);

/* `phi` < 0 estimates the block series' own autocorrelation; ≥ 0 uses it
 * (e.g. pooled over two ranges, see tsl_block_phi()). */
void              tsl_block_estimate            (const double         *y,
                                                 const double         *x,
                                                 guint                 n,
                                                 double                phi,
                                                 TslBlockEstimate     *out);
/* The same where unit i holds c[i] values weighted by x (a gauge's values
 * and the times they hold; c NULL: tsl_block_estimate()): each unit's z
 * varies as x² / c, the variance is unbiased for unequal units and the
 * degrees of freedom are their effective number. */
void              tsl_block_estimate_units      (const double         *y,
                                                 const double         *x,
                                                 const double         *c,
                                                 guint                 n,
                                                 double                phi,
                                                 TslBlockEstimate     *out);
/* The bias-corrected lag-1 autocorrelation of the linearised block series. */
double            tsl_block_phi                 (const double         *y,
                                                 const double         *x,
                                                 guint                 n);

/* Long memory: dependence that outlasts what the lag-1 autocorrelation
 * says. The autocorrelation of the linearised units at lags 2 to 8, pooled
 * over both ranges (each about its own ratio), minus what an AR(1) at `phi`
 * predicts there (φ^k, φ cut at 0), summed. Near 0 (−0.12 median, 1.7 % of
 * rows above TSL_BLOCK_MAX_MEMORY_EXCESS) on i.i.d. series of 64 units a
 * side; 0.3–0.6 under ARFIMA d 0.3–0.45 or a slow AR(1) beneath a fast one
 * (README). NAN with fewer than TSL_BLOCK_MIN_UNITS_FOR_MEMORY units on a
 * side: too few to tell. */
#define TSL_BLOCK_MIN_UNITS_FOR_MEMORY 32
#define TSL_BLOCK_MAX_MEMORY_EXCESS    0.35

double            tsl_block_memory_excess       (const double         *y_a,
                                                 const double         *x_a,
                                                 guint                 n_a,
                                                 const double         *y_b,
                                                 const double         *x_b,
                                                 guint                 n_b,
                                                 double                phi);

typedef struct {
  double p_value;    /* Welch t test of estimate B − estimate A */
  double change;     /* B / A − 1 */
  double ci_low;     /* Fieller's interval of the change, t quantile; ±inf where unbounded */
  double ci_high;
  double df;
  guint  batches;    /* the fewer of the two sides' */
  double se_change;  /* the delta method's standard error of the change, for pooling with
                      * shifted copies and drawing its t distribution */
} TslBlockComparison;

void              tsl_block_compare             (const TslBlockEstimate *a,
                                                 const TslBlockEstimate *b,
                                                 double                confidence,
                                                 TslBlockComparison   *out);

/* Student's t distribution: upper tail P(T > t) and its inverse. */
double            tsl_t_sf                      (double               t,
                                                 double               df);
double            tsl_t_isf                     (double               p,
                                                 double               df);
/* Snedecor's F distribution on d1 and d2 degrees of freedom: P(F > f). */
double            tsl_f_sf                      (double               f,
                                                 double               d1,
                                                 double               d2);

G_END_DECLS
