/* tsl-compare.h: which series changed between ranges A and B (docs/ARCHITECTURE.md, "Compare statistics")
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "tsl-bootstrap.h"
#include "tsl-range.h"
#include "tsl-trace.h"

G_BEGIN_DECLS

#define TSL_COMPARE_ERROR (tsl_compare_error_quark ())

typedef enum {
  TSL_COMPARE_ERROR_RANGE,      /* a range lies outside the trace */
  TSL_COMPARE_ERROR_NO_INPUT,   /* neither a path nor a trace */
} TslCompareError;

GQuark            tsl_compare_error_quark       (void);

typedef enum {
  TSL_COMPARE_TWO_SAMPLE,   /* resample A and B; the default */
  TSL_COMPARE_SEED,         /* the seed's test: B outside A's resampled band */
} TslCompareMethod;

/* The test a row used; its name is the CSV's `method`. */
typedef enum {
  TSL_COMPARE_TEST_IID,
  TSL_COMPARE_TEST_BLOCK,         /* circular block bootstrap (autocorrelated) */
  TSL_COMPARE_TEST_BINOMIAL,      /* counts: conditional binomial test */
  TSL_COMPARE_TEST_PERMUTATION,   /* max: exact permutation test */
  TSL_COMPARE_TEST_SEED,          /* method seed */
  TSL_COMPARE_TEST_NONE,          /* too few points on one side */
  TSL_COMPARE_TEST_BLOCKS_T,      /* batch means over time blocks (tsl-block-test.h) */
  TSL_COMPARE_TEST_TOO_FEW,       /* fewer independent observations a side than a test
                                   * needs, or no variation: not tested */
  TSL_COMPARE_TEST_TOO_DEPENDENT, /* dependence that outlasts the ranges (long
                                   * memory, tsl_block_memory_excess()): not tested */
} TslCompareTest;

/* A series seen in one range only. */
typedef enum {
  TSL_COMPARE_IN_BOTH,
  TSL_COMPARE_NEW_IN_B,
  TSL_COMPARE_GONE_IN_B,
} TslComparePresence;

const char       *tsl_compare_test_to_string    (TslCompareTest       test);
gboolean          tsl_compare_method_from_string(const char          *text,
                                                 TslCompareMethod    *method);

typedef struct {
  char             *path;          /* file to re-read per range; "-" is stdin */
  char             *path_b;        /* (nullable) a second file: A is read from `path`,
                                    * B from this one, each range from its own
                                    * file's start; series matched by name */
  TslTrace         *trace;         /* (nullable) the first pass, if already read;
                                    * tsl_compare_run() takes its lock to read it */
  TslBudget        *budget;        /* (nullable) for the traces it reads; else the
                                    * trace's, else a default one */
  TslRangeSpec      a;
  TslRangeSpec      b;
  gboolean          has_stat;      /* stat overrides the defaults where it applies */
  TslStat           stat;
  gboolean          cpu_stat;      /* with has_stat: stat (share or mean) of thread
                                    * (CPU) time: cpu_share, cpu_mean */
  TslCompareMethod  method;
  guint             rounds;
  double            confidence;
  guint64           seed;
  guint             k;             /* samples per track and range: K..2K */
  guint             n_threads;     /* 0: one per processor */
  gboolean          keep_effects;  /* fill TslCompareRow.effects, e.g. for a histogram */
  guint             max_paths;     /* range reads keep call paths (flame graphs); 0: none */
} TslCompareRequest;

TslCompareRequest *tsl_compare_request_new      (void);
TslCompareRequest *tsl_compare_request_copy     (const TslCompareRequest *request);
void               tsl_compare_request_free     (TslCompareRequest       *request);

typedef struct {
  char           *series;      /* "cpu" or "worker-1/parse" */
  char           *stat;        /* "sum", "sum_per_s", "share", … */
  TslStat         stat_id;
  double          a_value;     /* NAN when undefined */
  double          b_value;
  double          change;      /* b / a − 1 as a fraction; NAN from 0 or NAN */
  double          ci_low;      /* fractions, like change */
  double          ci_high;
  double          p_value;
  double          q_value;
  gboolean        significant;
  guint64         n_a;         /* events or calls each side's value comes from */
  guint64         n_b;
  guint           units_a;     /* too-few by the blocks' rule: time blocks holding the
                                * observations a side (tsl_block_units()) … */
  guint           units_b;
  guint           min_units;   /* … and the least the test needs a side (8 for counts
                                * in bursts); 0 when another rule applied: fewer than
                                * TSL_BLOCK_MIN_OBSERVATIONS a side, or no spread */
  TslCompareTest  test;
  gboolean        bca;         /* the interval is BCa, else percentile */
  gboolean        duration;    /* a_value and b_value are durations in ns */
  const char     *unit;        /* "ns", "%", "/s", "" … (static) */
  TslComparePresence presence;
  gboolean        few_blocks;  /* blocks-t on few independent batches a side */
  double          t_df;        /* blocks-t: the change's t reference … */
  double          t_se;        /* … and standard error (0 otherwise) */
  double          impact;      /* |change| per second of range of what the row measures:
                                * seconds per second for time, else the series' unit
                                * (tsl_compare_sort_by_impact()); 0 until sorted */
  gboolean        impact_is_time;
  gboolean        waiting;     /* wall time grew, CPU time did not (the CSV's note
                                * "waiting"): on a function's wall row and its CPU twin */
  double          wall_change; /* waiting: the wall row's change and the CPU row's */
  double          cpu_change;
  guint           n_effects;   /* sorted resampled effects (keep_effects) */
  double         *effects;
} TslCompareRow;

void              tsl_compare_row_free          (TslCompareRow       *row);
/* Counts in bursts are tested on their blocks from this many units a side
 * (blocks holding events): null bursty instants rejected 0.076 of rows at
 * 4–7 units, 0.047 from 8 (docs/statistics.md). */
#define TSL_COMPARE_MIN_BURSTY_UNITS 8

/* (transfer full) (nullable): why a too-few row was not tested, naming the
 * rule that applied, e.g. "too few calls (1 vs 1)" or "too few independent
 * calls (20 vs 25, in 5 vs 6 time blocks; at least 8 a side)"; translated.
 * NULL for any other row. */
char             *tsl_compare_row_dup_too_few   (const TslCompareRow *row);

/* What the row's value is, in words ("mean duration", "CPU share"),
 * translated: a series can have two rows (a function's share and its mean
 * duration), which would read alike without it. The CSV keeps the id. */
const char       *tsl_compare_row_stat_label    (const TslCompareRow *row);

/* One side of a series as the engine sees it. x holds the items for the
 * statistic in time order: values for mean/median/p95/max, per-slice sums
 * for sum, 0/1 for share. events/thinning serve count: `events` counted
 * items, each standing for `thinning` events (1 when exact). */
typedef struct {
  const double *x;
  gsize         n;
  double        seconds;
  guint64       events;
  double        thinning;
} TslCompareSide;

typedef struct {
  const char     *name;
  TslStat         stat;
  TslCompareSide  a;
  TslCompareSide  b;
} TslCompareSeries;

/* The table for prepared series (used by tsl_compare_run; public for tests
 * and other front ends). range_key names the ranges in each row's seed.
 * (transfer full) (element-type TslCompareRow) */
GPtrArray        *tsl_compare_series            (const TslCompareSeries  *series,
                                                 guint                    n_series,
                                                 const TslCompareRequest *request,
                                                 const char              *range_key,
                                                 GCancellable            *cancellable,
                                                 GError                 **error);

/* Reads (or re-reads) the input and builds the whole table. Blocks: a window
 * uses the _async() form, which runs it on a worker thread (the bootstrap
 * spreads over n_threads more). `warnings` (optional, transfer full) receives
 * notes such as "compared in-memory samples".
 * (transfer full) (element-type TslCompareRow) */
GPtrArray        *tsl_compare_run               (const TslCompareRequest *request,
                                                 GCancellable            *cancellable,
                                                 GStrv                   *warnings,
                                                 GError                 **error);
void              tsl_compare_run_async         (const TslCompareRequest *request,
                                                 GCancellable            *cancellable,
                                                 GAsyncReadyCallback      callback,
                                                 gpointer                 user_data);
/* (transfer full) (element-type TslCompareRow) */
GPtrArray        *tsl_compare_run_finish        (GAsyncResult            *result,
                                                 GStrv                   *warnings,
                                                 GError                 **error);

/* (transfer full): the table as `timeslice compare` writes it, header
 * series,stat,a_value,b_value,change_pct,ci_low_pct,ci_high_pct,p_value,q_value,significant,
 * a_n,b_n,method,unit,note; change_pct reads "new in B" or "gone in B" for a
 * series seen in one range only; note reads "waiting" for a function whose
 * wall time grew while its CPU time did not (tsl_compare_mark_waiting()). */
char             *tsl_compare_format_csv        (const TslCompareRow * const *rows,
                                                 guint                         n_rows);

/* The table's default order: tested rows (with a p-value) before untested
 * ones; within each, rows measuring time (functions: share, time,
 * durations weighted by calls per second) first, by the absolute change of
 * time per second of range; then the others by the absolute change of their
 * value per second (rates, time-weighted means as they are); ties:
 * significant first, then q, then name. Fills each row's impact.
 * `seconds`: the two ranges' lengths. */
void              tsl_compare_sort_by_impact    (GPtrArray                    *rows,
                                                 const double                 *seconds);

/* Marks rows `waiting`: for each function with a wall row (mean, share) and
 * its CPU twin (cpu_mean, cpu_share), when the wall row is significant and
 * up while the CPU row is not significantly up, changed by less than half
 * as much, and its interval lies wholly below the wall row's. */
void              tsl_compare_mark_waiting      (GPtrArray                    *rows);

/* Appends the cells after series and stat, each after a ',', exactly as
 * tsl_compare_format_csv() writes them (the report shows these strings). */
void              tsl_compare_append_csv_cells  (GString                      *buf,
                                                 const TslCompareRow          *row);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TslCompareRequest, tsl_compare_request_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (TslCompareRow, tsl_compare_row_free)

G_END_DECLS
