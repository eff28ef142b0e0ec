/* tsl-compare-private.h: row by row, for building series lazily
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "tsl-compare.h"
#include "tsl-range-stats.h"
#include "tsl-reader.h"
#include "tsl-snapshot.h"

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
/* The whole of request->path in one read, its blocks growing with the span
 * (tsl_range_stats_new_growing()): no pass to measure the span first. The
 * chunk index's span, when it knows the file, cuts the same blocks from
 * the start unless `ignore_index`. Only side 0 is filled. */
gboolean          _tsl_compare_read_whole       (const TslCompareRequest *request,
                                                 gboolean                 ignore_index,
                                                 TslExactReads           *out,
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

/* Reading each range again (tsl-compare-read.c). */

/* K of the span-only first pass: it needs times, not samples. */
#define TSL_COMPARE_SPAN_PASS_K 16

/* One range's read: what to read, and what it gave (snapshot and stats,
 * or error). */
typedef struct {
  const char              *path;
  const TslCompareRequest *request;
  gint64                   lo;
  gint64                   hi;
  gint64                   grid_hi;
  GCancellable            *cancellable;
  TslBudget               *budget;
  TslReaderThreads         threads;
  TslSnapshot             *snapshot;
  TslRangeStats           *stats;
  GError                  *error;
  gboolean                 grow;      /* the whole file, blocks growing with the span
                                       * (tsl_range_stats_new_growing()) … */
  gint64                   span_start; /* … from this span when known (start ≤ end) */
  gint64                   span_end;
} TslRangeRead;

/* Reads the asked ranges of seekable files (side s from paths[s], its
 * times from start[s]), one per thread, or takes them from the cache. */
void              _tsl_compare_read_ranges      (const TslCompareRequest *request,
                                                 TslTrace                *trace,
                                                 const char * const      *paths,
                                                 const gint64            *start,
                                                 const gint64            *end,
                                                 const gint64            *lo,
                                                 const gint64            *hi,
                                                 const gboolean          *has,
                                                 TslRangeRead            *reads,
                                                 GCancellable            *cancellable);
/* Disjoint ranges of one file in one read (the shifted comparisons of
 * tsl-compare-shifts.c), times from start: neither looked up nor kept in
 * the cache, so they do not push out the reads of A and B. */
TslRangeStatsGroup *_tsl_compare_read_group  (const TslCompareRequest *request,
                                              TslTrace                *trace,
                                              const char              *path,
                                              gint64                   start,
                                              gint64                   end,
                                              guint                    n,
                                              const gint64            *lo,
                                              const gint64            *hi,
                                              GCancellable            *cancellable,
                                              GError                 **error);
/* Rows from the exact reads of both ranges (tsl-compare-exact.c); by_key
 * holds the kept samples, for the quantiles of metrics. */
gboolean          _tsl_compare_exact_rows       (TslCompareTable         *table,
                                                 TslRangeRead            *reads,
                                                 const gint64            *end,
                                                 GHashTable              *by_key[2],
                                                 gboolean                 two_files);
/* Declares too-dependent the block-tested rows whose variance the same
 * comparison made elsewhere in the trace contradicts (tsl-compare-shifts.c).
 * lo and hi: the ranges from the trace's start, which ends at end; FALSE
 * only on cancellation. */
gboolean          _tsl_compare_check_shifts     (TslCompareTable         *table,
                                                 TslTrace                *trace,
                                                 const char              *path,
                                                 gint64                   start,
                                                 gint64                   end,
                                                 const gint64            *lo,
                                                 const gint64            *hi,
                                                 GCancellable            *cancellable,
                                                 GError                 **error);
/* The pass that tells the trace's span (and, from a pipe, its samples);
 * (transfer full) (nullable). */
TslTrace         *_tsl_compare_read_first_pass  (const TslCompareRequest *request,
                                                 const char              *path,
                                                 guint                    k,
                                                 GCancellable            *cancellable,
                                                 GError                 **error);
/* The trace's span, at least 1 ns; its start and end in start and end. */
gint64            _tsl_compare_trace_span       (TslTrace                *trace,
                                                 gint64                  *start,
                                                 gint64                  *end);
/* A regular file that is not a sampler state: its ranges can be re-read. */
gboolean          _tsl_compare_is_seekable_file (const char              *path);
/* Resolves a range against the span and clips it; FALSE when it holds no
 * time of the trace. */
gboolean          _tsl_compare_resolve_range    (const TslRangeSpec      *spec,
                                                 const char              *which,
                                                 gint64                   span,
                                                 gint64                  *lo,
                                                 gint64                  *hi,
                                                 double                  *seconds,
                                                 GPtrArray               *warnings,
                                                 GError                 **error);
/* The length of each range once the end of the data is known. */
void              _tsl_compare_measure_ranges   (const TslCompareRequest *request,
                                                 const gint64            *start,
                                                 const gint64            *lo,
                                                 const gint64            *hi,
                                                 const gint64            *data_end,
                                                 gint64                  *end,
                                                 double                  *seconds,
                                                 GPtrArray               *warnings);

/* Rows from kept samples (tsl-compare-samples.c). */

/* A track's kept samples on both sides. */
typedef struct {
  char         *name;
  TslTrackKind  kind;
  gint64        pid;
  gint64        tid;
  /* Metric and counter tracks */
  GArray       *values[2];   /* double, kept sample values */
  GArray       *sums[2];     /* double, per-slice sums */
  /* Both */
  guint64       events[2];   /* Σ summary.count over the side's samples */
  guint         n_samples[2];
  /* Thread and async tracks */
  GHashTable   *frame_ids;   /* name → frame */
  GPtrArray    *frames;
  gboolean      durations;   /* values are span durations in ns (unit "ns") */
} TslSampleTrack;

void              _tsl_compare_sample_track_free (gpointer                data);
gboolean          _tsl_compare_is_stack_kind    (TslTrackKind             kind);
/* Adds the samples of `snapshot` with a time in [lo, hi) as side `side`
 * to the tracks (by_key: "kind\x1fpid\x1ftid\x1fname" → TslSampleTrack). */
void              _tsl_compare_collect_side     (GHashTable              *by_key,
                                                 GPtrArray               *tracks,
                                                 TslSnapshot             *snapshot,
                                                 guint                    side,
                                                 gint64                   lo,
                                                 gint64                   hi);
gboolean          _tsl_compare_add_metric_rows  (TslCompareTable         *table,
                                                 const TslSampleTrack    *td,
                                                 const char              *name);
gboolean          _tsl_compare_add_frame_rows   (TslCompareTable         *table,
                                                 const TslSampleTrack    *td,
                                                 const char              *track_name);
/* A metric's median, p95 or max from the kept values of each side's track
 * (by_key[s] holds side s's tracks). */
gboolean          _tsl_compare_quantile_metric_rows (TslCompareTable     *table,
                                                 GHashTable              *by_key[2],
                                                 const TslTrackPair      *pair);

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
  guint    min_units;/* fewer units and the row is too-few; 0: TSL_BLOCK_MIN_OBSERVATIONS */
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
