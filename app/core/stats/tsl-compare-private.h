/* tsl-compare-private.h: row by row, for building series lazily
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "tsl-compare.h"
#include "tsl-range-stats.h"

G_BEGIN_DECLS

/* One row without its q-value; (transfer full). */
TslCompareRow    *_tsl_compare_row_new          (const TslCompareSeries  *series,
                                                 const TslCompareRequest *request,
                                                 const char              *range_key,
                                                 GCancellable            *cancellable,
                                                 GError                 **error);
/* q-values across the rows, then each row's significance. */
void              _tsl_compare_finish_table     (GPtrArray               *rows,
                                                 const TslCompareRequest *request);

/* The ranges of one table, as the rows need them. */
typedef struct {
  const TslCompareRequest *request;
  const char              *range_key;
  double                   seconds[2];
  GPtrArray               *rows;
  GCancellable            *cancellable;
  GError                 **error;
} TslCompareTable;

/* Adds the row (none when both sides are empty); FALSE on error. */
gboolean          _tsl_compare_add_row          (TslCompareTable         *table,
                                                 const TslCompareSeries  *series);

/* The rows of one track (either side may be NULL) from the exact figures of
 * each range; end[] are the absolute ends of the ranges' data. A metric's
 * median, p95 and max are left to the caller: they need kept values. */
gboolean          _tsl_compare_exact_track_rows (TslCompareTable         *table,
                                                 TslRangeStats           *stats_a,
                                                 TslRangeStats           *stats_b,
                                                 const gint64             end[2],
                                                 const char              *name,
                                                 const TslRangeTrack     *a,
                                                 const TslRangeTrack     *b);

G_END_DECLS
