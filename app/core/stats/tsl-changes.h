/* tsl-changes.h: when each series changed, from one range read's blocks
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every metric's level (time-weighted mean), every never-decreasing
 * counter's rate, and per thread every function with enough calls (share
 * of time, mean duration, calls per second; share of samples for sampled
 * profiles) is searched for change points (tsl-change-detect.h) in the
 * exact block totals of one range read (tsl-range-stats.h). Rows are ranked
 * by effect: the relative size of the shift times how long it lasts.
 */
#pragma once

#include <gio/gio.h>

#include "tsl-compare.h"

G_BEGIN_DECLS

/* A segment is searched again on either side of a change with a p-value
 * below this: such changes bound the stretches the others' before and
 * after values are measured over. */
#define TSL_CHANGES_SPLIT_P 0.05

/* A function needs this many calls (or samples) in the range to be searched. */
#define TSL_CHANGES_MIN_CALLS 100

typedef struct {
  char       *series;       /* "cpu" or "worker-1/parse", as compare names it */
  const char *stat;         /* "time_mean", "rate_per_s", "share", "mean", "calls_per_s" (static) */
  const char *unit;         /* static */
  double      time_s;       /* from the trace's start */
  double      before;       /* the stat from the previous change (or the range's start) … */
  double      after;        /* … and up to the next (or the range's end) */
  double      change;       /* after / before − 1; NAN from 0 */
  double      p_value;
  double      q_value;      /* Benjamini–Hochberg over every row */
  gboolean    significant;  /* q < 1 − confidence */
  double      effect;       /* |after − before| / max(|before|, |after|) × seconds after */
} TslChangeRow;

void              tsl_change_row_free           (TslChangeRow        *row);

/* A change's statistic in words ("share of time", "level"), translated;
 * the id itself when it has none. */
const char       *tsl_change_stat_label         (const char          *stat);

/* Reads request->path (a seekable file) once over range request->a with
 * the request's K, seed and budget, and searches every series. Significant
 * rows come first by effect, the rest by p-value. `warnings` (optional)
 * receives the range's notes. (transfer full) (element-type TslChangeRow) */
GPtrArray        *tsl_changes_run               (const TslCompareRequest *request,
                                                 GPtrArray               *warnings,
                                                 GCancellable            *cancellable,
                                                 GError                 **error);

/* tsl_changes_run(), for tests: with `ignore_index` the whole file's read
 * does not take its span from the chunk index, so its blocks grow as the
 * read goes; the table is the same either way. */
GPtrArray        *_tsl_changes_run              (const TslCompareRequest *request,
                                                 gboolean                 ignore_index,
                                                 GPtrArray               *warnings,
                                                 GCancellable            *cancellable,
                                                 GError                 **error);

/* (transfer full): the first `top` rows (0: all) as CSV, header
 * series,stat,time_s,before,after,change_pct,p_value,q_value,significant,unit. */
char             *tsl_changes_format_csv        (const TslChangeRow * const *rows,
                                                 guint                       n_rows,
                                                 guint                       top);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TslChangeRow, tsl_change_row_free)

G_END_DECLS
