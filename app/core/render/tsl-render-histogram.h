/* tsl-render-histogram.h: the bootstrap distribution of one compare row
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <cairo.h>
#include <glib.h>

#include "tsl-compare.h"

G_BEGIN_DECLS

typedef struct {
  const double *effects;      /* sorted resampled relative changes (fractions) */
  guint         n_effects;
  double        change;       /* the observed relative change */
  double        ci_low;
  double        ci_high;
  double        a_value;
  double        b_value;
  char          a_text[48];   /* A and B in the row's unit; empty: plain numbers */
  char          b_text[48];
  const char   *series;
  const char   *stat;
  gboolean      significant;
  gboolean      dark;
} TslHistogramData;

/* Histogram of the effects in %, the CI shaded, 0 % (no change) and the
 * observed change marked, A and B's values in the caption. */
void              tsl_render_histogram          (cairo_t                *cr,
                                                 const TslHistogramData *data,
                                                 double                  width,
                                                 double                  height);

/* Fills `data` from a compare row. A block test has no resamples: its t
 * distribution of the change, drawn as evenly spaced quantiles, shows the
 * same interval; those go in *quantiles (free it after drawing). */
void              tsl_histogram_data_from_row   (TslHistogramData       *data,
                                                 const TslCompareRow    *row,
                                                 double                **quantiles);

G_END_DECLS
