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

/* A track of range A and its partner of range B (either NULL: a series
 * seen on one side only), under the name the table shows. */
typedef struct {
  const TslRangeTrack *t[2];
  char                *name;
} TslTrackPair;

/* Pairs the tracks of two range reads (tsl-compare-match.c): by identity
 * for ranges of one file, by name for two files (two runs).
 * (transfer full) (element-type TslTrackPair) */
GPtrArray        *_tsl_compare_match_tracks     (TslRangeStats           *stats_a,
                                                 TslRangeStats           *stats_b,
                                                 gboolean                 two_files);

/* Exact figures of the ranges a request names, each read in full. */
typedef struct {
  TslRangeStats *stats[2];   /* NULL for a side not asked */
  gint64         lo[2];      /* absolute start of each range */
  gint64         end[2];     /* absolute end of each range's data */
  double         seconds[2];
  gint64         start;      /* absolute start of the trace the ranges are from */
} TslExactReads;

/* Reads the sides `has` asks for of request->path (a seekable file, else
 * G_IO_ERROR_NOT_SUPPORTED) with the request's first pass, K, seed, budget
 * and max_paths; warnings as the compare table's. */
gboolean          _tsl_compare_read_exact       (const TslCompareRequest *request,
                                                 const gboolean           has[2],
                                                 TslExactReads           *out,
                                                 GPtrArray               *warnings,
                                                 GCancellable            *cancellable,
                                                 GError                 **error);
void              _tsl_exact_reads_clear        (TslExactReads           *reads);
/* tsl_compare_run() that also hands over the exact reads its rows came from
 * (stats NULL when the file could not be re-read by range), so one pass over
 * the ranges also gives their flame graphs. */
GPtrArray        *_tsl_compare_run_keeping_reads (const TslCompareRequest *request,
                                                 TslExactReads           *reads,
                                                 GCancellable            *cancellable,
                                                 GPtrArray               *warnings,
                                                 GError                 **error);

/* The cache of range reads (tsl-compare-run.c): emptied, for tests that
 * must read again; and how many reads it has answered. */
void              _tsl_compare_forget_reads     (void);
guint64           _tsl_compare_get_read_hits    (void);

/* Rows from block aggregates (y over x per block; value = Σy/Σx × scale),
 * the table's methods: the blocks' t test, or for counts the exact
 * conditional test unless the blocks are overdispersed. */
typedef struct {
  double   y[TSL_RANGE_BLOCKS];
  double   x[TSL_RANGE_BLOCKS];
  double   scale;
  guint64  n;        /* events the value comes from */
  const double *c;   /* (nullable) observations per block: the test's units start at
                      * blocks holding one (tsl_block_units()); NULL: every block */
  gboolean held;     /* y sums values × the times they hold (x): units of unequal weight */
} TslBlockSide;

gboolean          _tsl_compare_block_row        (TslCompareTable         *table,
                                                 const char              *series,
                                                 const char              *stat,
                                                 TslStat                  stat_id,
                                                 const char              *unit,
                                                 TslBlockSide            *sides);
/* A share of counts: n events of exposure[s]. */
gboolean          _tsl_compare_count_row        (TslCompareTable         *table,
                                                 const char              *series,
                                                 const char              *stat,
                                                 TslStat                  stat_id,
                                                 const char              *unit,
                                                 TslBlockSide            *sides,
                                                 const double            *exposure,
                                                 gboolean                 per_exposure);

G_END_DECLS
