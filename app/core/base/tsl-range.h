/* tsl-range.h: time ranges as the command line writes them (DESIGN.md §5)
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
/* Resolved ends saturate at ±TSL_RANGE_MAX_NS (about 146 years), so the
 * difference of any two resolved times is representable. */
#define TSL_RANGE_MAX_NS (G_GINT64_CONSTANT (1) << 62)

/* Resolves to absolute ns (relative to the trace start) for a span of span_ns. */
void              tsl_range_spec_resolve        (const TslRangeSpec  *spec,
                                                 gint64               span_ns,
                                                 gint64              *start_ns,
                                                 gint64              *end_ns);
/* (transfer full): "25%..50%" or "1.5 s..2 s", for messages. */
char             *tsl_range_spec_to_string      (const TslRangeSpec  *spec);
G_END_DECLS
