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
/* Resolves to absolute ns (relative to the trace start) for a span of span_ns. */
void              tsl_range_spec_resolve        (const TslRangeSpec  *spec,
                                                 gint64               span_ns,
                                                 gint64              *start_ns,
                                                 gint64              *end_ns);
G_END_DECLS
