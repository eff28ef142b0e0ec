/* tsl-change-detect.h: where a series of time blocks shifts level
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Binary segmentation on the blocks a range read keeps (numerator y and
 * denominator x per block, as tsl-block-test takes them): every split of a
 * segment is tested with a two-sample t on the blocks' normal scores, its
 * variance corrected for lag-1 autocorrelation, and the largest statistic
 * gets a p-value for being a maximum over all splits tried, so a series
 * without a change reports one about as often as the stated rate however
 * many splits it offers (tests/unit/test-change-detect.c).
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Each side of a split holds at least this many blocks (of 64: 9 %). */
#define TSL_CHANGE_MIN_BLOCKS 6

/* The maximum's p-value is the approximation's times this: null series
 * (i.i.d., lognormal, AR(1) φ = 0.6 and 0.9, bursty counts) reached
 * p < 0.005 up to twice as often as they should without it, and a table of
 * many series is decided in that tail (tests/unit/test-change-detect.c). */
#define TSL_CHANGE_TAIL_FACTOR 2.0

typedef struct {
  guint  lo;         /* the segment searched: blocks [lo, hi) */
  guint  hi;
  guint  split;      /* the first block after the change */
  double before;     /* Σy / Σx over [lo, split) */
  double after;      /* Σy / Σx over [split, hi) */
  double z;          /* the largest normal score of the splits' tests */
  double p_value;    /* of that largest score as a maximum over the splits */
} TslChange;

/* Appends to `out` (of TslChange) the change found in [0, n), then
 * recursively in the segments either side of every change whose p-value is
 * below `alpha`. Every appended change is a tested candidate, significant
 * or not: multiple testing is the caller's (BH over all of them). */
void              tsl_change_detect             (const double *y,
                                                 const double *x,
                                                 guint         n,
                                                 double        alpha,
                                                 GArray       *out);

/* tsl_change_detect() with `min_blocks` a side of a split instead of
 * TSL_CHANGE_MIN_BLOCKS: for n other than 64, the same share of it. */
void              tsl_change_detect_full        (const double *y,
                                                 const double *x,
                                                 guint         n,
                                                 guint         min_blocks,
                                                 double        alpha,
                                                 GArray       *out);

/* P(max over the splits of |Z| > z) for a segment of n blocks with
 * `min_blocks` a side, under no change: the standardised Brownian bridge's
 * tail (an Ornstein–Uhlenbeck process after a change of time), which the
 * discrete maximum never exceeds by much and usually stays under. */
double            tsl_change_max_p              (double        z,
                                                 guint         n,
                                                 guint         min_blocks);

G_END_DECLS
