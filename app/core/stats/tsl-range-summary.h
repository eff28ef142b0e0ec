/* tsl-range-summary.h: one range on its own, exact, no B needed
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The figures are those the compare table's A side comes from
 * (tsl-range-stats over every event of the range), laid out per function
 * and thread, and per series, rather than tested against a B.
 */
#pragma once

#include <gio/gio.h>

#include "tsl-compare.h"

G_BEGIN_DECLS

typedef struct {
  char     *track;     /* the track as shown ("w1", "heap", "java [12]") */
  char     *name;      /* the function; NULL on a series row */
  /* Function rows: spans start in the range (README "What significant means") */
  guint64   calls;
  double    total_ns;  /* inclusive, a recursive call counted once */
  double    self_ns;   /* minus the time of its direct callees in the range */
  double    mean_ns;   /* Σ durations / calls; NAN without calls */
  double    share;     /* total over the range's length; of samples in a sampled profile */
  guint64   samples;   /* sampled stacks holding it */
  /* Series rows: points in the range */
  guint64   n;
  double    mean;      /* Σ values / n */
  double    min;
  double    max;
} TslSummaryRow;

void              tsl_summary_row_free          (TslSummaryRow           *row);

/* Reads range A of `request` (B is ignored) of request->path, which must be
 * a seekable file, every event of the range; rows sorted by track then name.
 * `length_ns` (optional) receives the range's length as the shares use it.
 * Blocks; the _async() form runs it on a worker thread.
 * (transfer full) (element-type TslSummaryRow) */
GPtrArray        *tsl_range_summary_run         (const TslCompareRequest *request,
                                                 GCancellable            *cancellable,
                                                 gint64                  *length_ns,
                                                 GError                 **error);
void              tsl_range_summary_run_async   (const TslCompareRequest *request,
                                                 GCancellable            *cancellable,
                                                 GAsyncReadyCallback      callback,
                                                 gpointer                 user_data);
/* (transfer full) (element-type TslSummaryRow) */
GPtrArray        *tsl_range_summary_run_finish  (GAsyncResult            *result,
                                                 GError                 **error);

/* (transfer full): header track,name,calls,total_s,self_s,mean_s,share,
 * samples,n,mean,min,max; cells that do not apply to the row are empty. */
char             *tsl_range_summary_format_csv  (const TslSummaryRow * const *rows,
                                                 guint                        n_rows);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TslSummaryRow, tsl_summary_row_free)

G_END_DECLS
