/* tsl-range-stats.h: exact figures of one time range, over every event
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Attached to the trace that re-reads a range, it sees every event inside
 * the range (tsl_trace_set_event_func()) and keeps, per series, exact
 * totals plus the same totals over TSL_RANGE_BLOCKS equal time blocks, from
 * which tsl-block-test derives intervals that survive autocorrelation.
 * Events outside the range only tell where each metric series ends, for
 * the span-end rule: a regularly sampled metric's last point covers one
 * median gap (tsl-series-ends.h). A read through the chunk index sees only
 * some chunks: there the whole file's facts come from the index
 * (tsl_trace_get_file_series_end()). Memory: O(series × blocks), plus a
 * bounded sample of durations per function. Each series' blocks are
 * arrays of tsl_range_stats_get_n_blocks() doubles.
 */
#pragma once

#include <glib.h>

#include "tsl-busy.h"
#include "tsl-trace.h"

G_BEGIN_DECLS

#define TSL_RANGE_BLOCKS 64
/* Stats whose blocks grow with the span (tsl_range_stats_new_growing())
 * keep up to this many: the finished ones number from 63 to this. */
#define TSL_RANGE_MAX_BLOCKS 128
#define TSL_RANGE_MAX_DURATIONS 2000
/* Separate busy stretches kept per name of an async track (tsl-busy.h). */
#define TSL_RANGE_MAX_BUSY 4096

/* A function's thread (CPU) time, over its calls that have one (Chrome's
 * tdur, tts): held only where the input has it. */
typedef struct {
  guint64   calls;        /* calls with a thread time */
  double    cpu_ns;       /* Σ of their thread times, recursive ones too */
  double    total_ns;     /* … a recursive call counted once */
  double    wall_ns;      /* Σ of the same calls' durations */
  double   *block_calls;
  double   *block_cpu;
  double   *block_total;
} TslRangeCpu;

typedef struct {
  char     *name;
  guint64   calls;        /* spans of it that start in the range */
  double    total_ns;     /* inclusive, a recursive call counted once; on an
                           * async track, the time some span of it covers */
  double    self_ns;
  double    duration_ns;  /* Σ of every call's duration, recursive ones too */
  guint64   samples;      /* sampled stacks holding it */
  double   *block_calls;
  double   *block_total;
  double   *block_duration;
  double   *block_samples;
  GArray   *durations;    /* double ns, all of them up to the bound, then a uniform sample */
  TslRangeCpu *cpu;       /* (nullable) NULL when no call of it had a thread time */
  guint64   seen;         /* internal: durations offered, last sample counted */
  TslBusy  *busy;         /* internal: an async track's spans until finished */
  guint64   stamp;
} TslRangeFunc;

/* One call path of a thread (keep_paths): the flame graph's exact figures. */
typedef struct {
  char     *path;          /* frames joined by ';', root first */
  double    weight;        /* events at exactly this path (collapsed stacks: each line's count) */
  double    time_ns;       /* spans at this path: Σ durations, their callees' time included */
  guint64   cpu_spans;     /* spans at this path with a thread time */
  double    cpu_ns;        /* Σ of those thread times, their callees' included */
  double   *block_weight;
  double   *block_time;
  double   *block_cpu;
} TslRangePath;

#define TSL_RANGE_OTHER_PATH "(other)"

typedef struct {
  TslTrackKind  kind;
  char         *name;
  gint64        pid;
  gint64        tid;
  char         *process;      /* (nullable) the process's name, if the trace gave one */
  gboolean      spans;        /* a thread whose events carry durations */
  /* Metric and counter tracks, points inside the range */
  guint64       n;
  double        sum;
  double        min;
  double        max;
  double        weighted_sum; /* Σ value × the time it holds (ns) */
  double        held_ns;
  gboolean      decreased;    /* some point is below the one before it */
  gboolean      increased;
  double       *block_n;
  double       *block_sum;
  double       *block_weighted;
  double       *block_held;
  double       *block_rise;  /* monotonic counters: increase … */
  double       *block_rise_ns; /* … over this much time */
  double        median_gap_ns; /* over the whole file; 0 with fewer than two points */
  gint64        last_ns;       /* the track's last point in the whole file */
  /* Thread and async tracks */
  guint64       points;        /* events without a duration (samples, instants) */
  double       *block_points;
  GPtrArray    *funcs;         /* TslRangeFunc *, sorted by name after finish */
  GPtrArray    *paths;         /* TslRangePath * (keep_paths), in order of appearance */
  /* internal */
  GHashTable   *func_ids;      /* name → TslRangeFunc, for lookups after the read */
  gpointer      func_slots;    /* the per-event lookup: open addressing by the name's bytes */
  guint         func_mask;
  gpointer      leaf_slots;    /* names taken by id (tsl_trace_set_names_func()): id → function */
  guint         leaf_mask;
  guint         n_leaves;
  GHashTable   *path_ids;
  gboolean      has_prev;
  gint64        prev_ns;
  double        prev_value;
  guint         prev_block;
  TslSeriesRecorder series;
} TslRangeTrack;

typedef struct _TslRangeStats TslRangeStats;

/* Times are absolute, as the reader gives them: the range is [lo, hi);
 * blocks cut [lo, grid_hi) (the part of the range that can hold data). */
TslRangeStats    *tsl_range_stats_new           (TslTrace        *trace,
                                                 gint64           lo,
                                                 gint64           hi,
                                                 gint64           grid_hi);
/* Stats of every event of the file, whose blocks follow the span as the
 * read goes, so that one read needs no pass to measure the span first:
 * blocks of a power-of-two width in ns, aligned to multiples of it, the
 * narrowest that keep the events seen so far within
 * TSL_RANGE_MAX_BLOCKS; when an event lands outside them (past the end,
 * or before the start of unsorted input) the width doubles and
 * neighbours merge pairwise. Finished, the blocks are the ones the final
 * span [start, end] alone gives, whatever the events' order, with a first
 * or last block shorter than half a width merged into its neighbour.
 * `start` and `end`, when the span is already known (start ≤ end; else
 * pass start > end), cut those blocks from the first event on. Events
 * the trace's time filter leaves out are not counted. For the change
 * search: functions keep no durations, self time or thread time. */
TslRangeStats    *tsl_range_stats_new_growing   (TslTrace        *trace,
                                                 gint64           start,
                                                 gint64           end);
/* Before the read: also keep every call path of thread and async tracks,
 * at most `max_paths` distinct ones in all; later new paths fold into one
 * TSL_RANGE_OTHER_PATH path per track. Memory: about 1.6 KiB a path (three
 * sets of blocks: events, time, CPU time). */
void              tsl_range_stats_keep_paths    (TslRangeStats   *self,
                                                 guint            max_paths);
/* Events that went to a TSL_RANGE_OTHER_PATH path, and to how many paths
 * they would have gone. */
guint64           tsl_range_stats_get_folded    (TslRangeStats   *self,
                                                 guint64         *n_paths);
/* After the read: the last points' hold, names, sorting; detaches. Once
 * finished the figures never change, so finished stats can be shared
 * (the compare's cache of range reads, tsl-compare-run.c). */
void              tsl_range_stats_finish        (TslRangeStats   *self);
TslRangeStats    *tsl_range_stats_ref           (TslRangeStats   *self);
void              tsl_range_stats_unref         (TslRangeStats   *self);

guint             tsl_range_stats_get_n_tracks  (TslRangeStats   *self);
const TslRangeTrack *tsl_range_stats_get_track  (TslRangeStats   *self,
                                                 guint            i);
/* The end of the data (absolute): the last event, or a metric's last point
 * plus its median gap when later. */
gint64            tsl_range_stats_get_data_end  (TslRangeStats   *self);
/* How many blocks each series has: TSL_RANGE_BLOCKS, or for growing
 * stats once finished, 63 to TSL_RANGE_MAX_BLOCKS. */
guint             tsl_range_stats_get_n_blocks  (TslRangeStats   *self);
/* Where block i starts (absolute ns); i = n_blocks gives where the last
 * ends before tsl_range_stats_block_ns() extends it to `end`. */
gint64            tsl_range_stats_block_start   (TslRangeStats   *self,
                                                 guint            i);
/* Width of block i in ns, the last one reaching `end` (absolute). */
double            tsl_range_stats_block_ns      (TslRangeStats   *self,
                                                 guint            i,
                                                 gint64           end);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TslRangeStats, tsl_range_stats_unref)

/* Several disjoint ranges' stats filled by one read of the trace
 * (tsl-range-stats-group.c): what each range's own read would give, the
 * chunks between them read once. No durations are kept (no quantiles). */
typedef struct _TslRangeStatsGroup TslRangeStatsGroup;

TslRangeStatsGroup *tsl_range_stats_group_new        (TslTrace           *trace,
                                                      guint               n,
                                                      const gint64       *lo,
                                                      const gint64       *hi,
                                                      const gint64       *grid_hi);
void                tsl_range_stats_group_finish     (TslRangeStatsGroup *self);
TslRangeStats      *tsl_range_stats_group_get        (TslRangeStatsGroup *self,
                                                      guint               i);
void                tsl_range_stats_group_free       (TslRangeStatsGroup *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TslRangeStatsGroup, tsl_range_stats_group_free)

G_END_DECLS
