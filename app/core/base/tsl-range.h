/* tsl-range.h: time ranges as the command line writes them
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "tsl-duration.h"

G_BEGIN_DECLS

/* A half-open range [start, end) in ns from the trace start, or in fractions
 * of the trace span when given as percentages. */
typedef struct {
  double   start;
  double   end;
  gboolean is_fraction;
} TslRangeSpec;

gboolean          tsl_range_spec_parse          (const char          *text,
                                                 TslRangeSpec        *out,
                                                 GError             **error);
/* Resolves to absolute ns (relative to the trace start) for a span of
 * span_ns; ends beyond a gint64 saturate at its limits. */
void              tsl_range_spec_resolve        (const TslRangeSpec  *spec,
                                                 gint64               span_ns,
                                                 gint64              *start_ns,
                                                 gint64              *end_ns);
typedef enum {
  TSL_RANGE_INSIDE,    /* within the trace, or past its end by a hair */
  TSL_RANGE_CLIPPED,   /* ended after the trace: its end was moved to it */
  TSL_RANGE_OUTSIDE,   /* starts after the end of the trace: holds no data */
} TslRangeFit;

/* Resolves `spec` against a trace whose events lie at 0..span_ns from its
 * start ("…..100%" holds the last event) and clips it to them. A range
 * ending past the trace by no more than 1 % of its length is the usual
 * "…..end" and is left alone. */
TslRangeFit       tsl_range_spec_fit            (const TslRangeSpec  *spec,
                                                 gint64               span_ns,
                                                 gint64              *start_ns,
                                                 gint64              *end_ns);
/* (transfer full): "25%..50%" or "1.5 s..2 s", for messages. */
char             *tsl_range_spec_to_string      (const TslRangeSpec  *spec);
G_END_DECLS
