/* tsl-compare-run.c: from a trace file and two ranges to the compare table
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A seekable file is read three times: once for the trace's span (with a
 * tiny K, unless the caller already has the trace), then once per range
 * with a time filter and a fresh count-mode sampler, so each range gets its
 * own K..2K points per track. The two range reads run on two threads (one
 * read alone, the other kept from before, on every core). A
 * pipe cannot be re-read: its one pass's samples are split by time instead
 * and a warning says so. A range read of a file read before reads only
 * the chunks whose times overlap the range (the chunk index,
 * read/tsl-chunk-index.h, which the first pass records and caches); with
 * an index the span pass is skipped too.
 *
 * Weights: re-reads and the command line use count mode, where every kept
 * sample of a track stands for the same number of events (T, bar the last
 * slice), so items are used unweighted; a time-mode trace given without a
 * path is used the same way, which over-weights quiet slices slightly.
 */
#define G_LOG_DOMAIN "tsl-compare"

#include "config.h"

#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "tsl-chunk-index.h"
#include "tsl-compare-private.h"
#include "tsl-duration.h"
#include "tsl-read-stream.h"
#include "tsl-snapshot.h"
#include "tsl-time-math.h"
#include "tsl-trace-state.h"

/* K of the span-only first pass: it needs times, not samples. */
#define SPAN_PASS_K 16

typedef struct {
  char   *name;
  GArray *hits[2];    /* guint32 positions of the side's samples holding it */
  guint32 last[2];    /* 1 + position of the last hit, to count a frame once per stack */
  GArray *durations[2]; /* double ns of kept spans whose innermost frame it is */
} Frame;

typedef struct {
  char         *name;
  TslTrackKind  kind;
  gint64        pid;
  /* Metric and counter tracks */
  GArray       *values[2];   /* double, kept sample values */
  GArray       *sums[2];     /* double, per-slice sums */
  /* Both */
  guint64       events[2];   /* Σ summary.count over the side's samples */
  guint         n_samples[2];
  /* Thread and async tracks */
  GHashTable   *frame_ids;   /* name → Frame */
  GPtrArray    *frames;
  gboolean      durations;   /* values are span durations in ns (unit "ns") */
} TrackData;

static void
frame_free (gpointer data)
{
  Frame *frame = data;

  g_free (frame->name);
  g_array_unref (frame->durations[0]);
  g_array_unref (frame->durations[1]);
  g_array_unref (frame->hits[0]);
  g_array_unref (frame->hits[1]);
  g_free (frame);
}

static void
track_data_free (gpointer data)
{
  TrackData *td = data;

  g_free (td->name);
  for (guint s = 0; s < 2; s++)
    {
      g_array_unref (td->values[s]);
      g_array_unref (td->sums[s]);
    }
  g_hash_table_unref (td->frame_ids);
  g_ptr_array_unref (td->frames);
  g_free (td);
}

static gboolean
is_stack_kind (TslTrackKind kind)
{
  return kind == TSL_TRACK_THREAD || kind == TSL_TRACK_ASYNC;
}

static TrackData *
ensure_track (GHashTable             *by_key,
              GPtrArray              *tracks,
              const TslSnapshotTrack *t)
{
  g_autofree char *key = g_strdup_printf ("%d\x1f%" G_GINT64_FORMAT "\x1f%" G_GINT64_FORMAT "\x1f%s",
                                          (int) t->kind, t->pid, t->tid, t->name);
  TrackData *td = g_hash_table_lookup (by_key, key);

  if (td != NULL)
    return td;

  td = g_new0 (TrackData, 1);
  td->name = g_strdup (t->name);
  td->kind = t->kind;
  td->durations = g_strcmp0 (t->unit, "ns") == 0;
  td->pid = t->pid;
  for (guint s = 0; s < 2; s++)
    {
      td->values[s] = g_array_new (FALSE, FALSE, sizeof (double));
      td->sums[s] = g_array_new (FALSE, FALSE, sizeof (double));
    }
  td->frame_ids = g_hash_table_new (g_str_hash, g_str_equal);
  td->frames = g_ptr_array_new_with_free_func (frame_free);
  g_ptr_array_add (tracks, td);
  g_hash_table_insert (by_key, g_steal_pointer (&key), td);

  return td;
}

static inline void
frame_hit (Frame   *frame,
           guint    side,
           guint32  position)
{
  /* A recursive stack names a frame twice; it is one sample holding it. */
  if (frame->last[side] == position + 1)
    return;
  frame->last[side] = position + 1;
  g_array_append_val (frame->hits[side], position);
}

static Frame *
add_frame_hit (TrackData  *td,
               guint       side,
               const char *name,
               guint32     position)
{
  Frame *frame = g_hash_table_lookup (td->frame_ids, name);

  if (frame == NULL)
    {
      frame = g_new0 (Frame, 1);
      frame->name = g_strdup (name);
      for (guint s = 0; s < 2; s++)
        {
          frame->hits[s] = g_array_new (FALSE, FALSE, sizeof (guint32));
          frame->durations[s] = g_array_new (FALSE, FALSE, sizeof (double));
        }
      g_ptr_array_add (td->frames, frame);
      g_hash_table_insert (td->frame_ids, frame->name, frame);
    }

  frame_hit (frame, side, position);
  return frame;
}

/* Adds the samples of `snapshot` with a time in [lo, hi) as side `side`.
 * A track's frames are found by the snapshot's frame id, each name looked
 * up once per track rather than once per sample holding it. */
static void
collect_side (GHashTable  *by_key,
              GPtrArray   *tracks,
              TslSnapshot *snapshot,
              guint        side,
              gint64       lo,
              gint64       hi)
{
  g_autoptr(GPtrArray) by_id = g_ptr_array_new ();   /* frame id → Frame *, of the current track */
  g_autoptr(GArray) used = g_array_new (FALSE, FALSE, sizeof (guint32));

  for (guint i = 0; i < tsl_snapshot_get_n_tracks (snapshot); i++)
    {
      const TslSnapshotTrack *t = tsl_snapshot_get_track (snapshot, i);
      TrackData *td = ensure_track (by_key, tracks, t);

      for (guint j = 0; j < t->n_samples; j++)
        {
          const TslSnapshotSample *s = &t->samples[j];

          if (s->time_ns < lo || s->time_ns >= hi)
            continue;

          td->events[side] += s->summary.count;
          if (is_stack_kind (t->kind))
            {
              guint32 position = td->n_samples[side]++;
              Frame *leaf = NULL;

              for (guint f = 0; f < s->n_frames; f++)
                {
                  guint32 id = s->frames[f];

                  if (id >= by_id->len)
                    g_ptr_array_set_size (by_id, id + 1);
                  leaf = g_ptr_array_index (by_id, id);
                  if (leaf == NULL)
                    {
                      leaf = add_frame_hit (td, side, tsl_snapshot_get_frame_name (snapshot, id), position);
                      by_id->pdata[id] = leaf;
                      g_array_append_val (used, id);
                    }
                  else
                    frame_hit (leaf, side, position);
                }
              /* A kept span's value is its own duration: its innermost frame's. */
              if (td->durations && leaf != NULL && !isnan (s->value))
                g_array_append_val (leaf->durations[side], s->value);
              continue;
            }

          td->n_samples[side]++;
          if (!isnan (s->value))
            g_array_append_val (td->values[side], s->value);
          if (!isnan (s->summary.min))
            g_array_append_val (td->sums[side], s->summary.sum);
        }

      for (guint u = 0; u < used->len; u++)
        by_id->pdata[g_array_index (used, guint32, u)] = NULL;
      g_array_set_size (used, 0);
    }
}

static int
compare_frames (gconstpointer a,
                gconstpointer b)
{
  const Frame *fa = *(Frame * const *) a;
  const Frame *fb = *(Frame * const *) b;

  return strcmp (fa->name, fb->name);
}

gboolean
_tsl_compare_add_row (TslCompareTable        *table,
                      const TslCompareSeries *series)
{
  TslCompareRow *row;

  /* Nothing on either side: no row rather than an empty one. */
  if (series->a.n == 0 && series->b.n == 0 &&
      series->a.events == 0 && series->b.events == 0)
    return TRUE;

  row = _tsl_compare_row_new (series, table->request, table->range_key,
                              table->cancellable, table->error);
  if (row == NULL)
    return FALSE;

  g_ptr_array_add (table->rows, row);
  return TRUE;
}

static gboolean
add_metric_rows (TslCompareTable *table,
                 const TrackData *td,
                 const char      *name)
{
  const TslCompareRequest *request = table->request;
  TslStat stat = request->has_stat && request->stat != TSL_STAT_SHARE ? request->stat : TSL_STAT_SUM;
  TslCompareSeries series = { name, stat };
  TslCompareSide *sides[2] = { &series.a, &series.b };

  for (guint s = 0; s < 2; s++)
    {
      GArray *items = stat == TSL_STAT_SUM ? td->sums[s] : td->values[s];

      *sides[s] = (TslCompareSide) {
        (const double *) items->data, items->len, table->seconds[s], td->events[s], 1.0,
      };
    }

  return _tsl_compare_add_row (table, &series);
}

/* For spans (instrumented traces) the time a function takes is what users
 * compare: a slower function has as many spans as before, so its share of
 * samples does not move. Their rows compare duration (mean by default, or
 * the --stat given) beside the share rows. */
static gboolean
add_duration_row (TslCompareTable *table,
                  const Frame     *frame,
                  const char      *name,
                  TslStat          stat)
{
  TslCompareSeries series = { name, stat };
  TslCompareSide *sides[2] = { &series.a, &series.b };

  guint before = table->rows->len;

  for (guint s = 0; s < 2; s++)
    *sides[s] = (TslCompareSide) {
      (const double *) frame->durations[s]->data, frame->durations[s]->len,
      table->seconds[s], frame->durations[s]->len, 1.0,
    };

  if (!_tsl_compare_add_row (table, &series))
    return FALSE;
  if (table->rows->len > before)
    ((TslCompareRow *) g_ptr_array_index (table->rows, before))->duration = TRUE;
  return TRUE;
}

static gboolean
add_frame_rows (TslCompareTable *table,
                const TrackData *td,
                const char      *track_name)
{
  const TslCompareRequest *request = table->request;
  gboolean value_stat = request->has_stat &&
                        (request->stat == TSL_STAT_MEAN || request->stat == TSL_STAT_MEDIAN ||
                         request->stat == TSL_STAT_P95 || request->stat == TSL_STAT_MAX);
  TslStat stat = request->has_stat && request->stat == TSL_STAT_COUNT ? TSL_STAT_COUNT : TSL_STAT_SHARE;
  /* g_autofree on an array would free only its first element. */
  g_autofree double *items_a = g_new0 (double, MAX (td->n_samples[0], 1));
  g_autofree double *items_b = g_new0 (double, MAX (td->n_samples[1], 1));
  double *items[2] = { items_a, items_b };

  g_ptr_array_sort (td->frames, compare_frames);

  for (guint i = 0; i < td->frames->len; i++)
    {
      const Frame *frame = g_ptr_array_index (td->frames, i);
      g_autofree char *name = g_strdup_printf ("%s/%s", track_name, frame->name);
      TslCompareSeries series = { name, stat };
      TslCompareSide *sides[2] = { &series.a, &series.b };
      gboolean ok = TRUE;

      if (td->durations && (frame->durations[0]->len > 0 || frame->durations[1]->len > 0) &&
          (value_stat || !request->has_stat))
        {
          if (!add_duration_row (table, frame, name, value_stat ? request->stat : TSL_STAT_MEAN))
            return FALSE;
        }

      /* Share and count rows, unless a value statistic asked for durations only. */
      if (value_stat && td->durations)
        continue;

      for (guint s = 0; s < 2; s++)
        {
          GArray *hits = frame->hits[s];

          for (guint h = 0; h < hits->len; h++)
            items[s][g_array_index (hits, guint32, h)] = 1;
          *sides[s] = (TslCompareSide) {
            items[s], td->n_samples[s], table->seconds[s], hits->len,
            td->n_samples[s] > 0 ? (double) td->events[s] / td->n_samples[s] : 1.0,
          };
        }

      ok = _tsl_compare_add_row (table, &series);

      for (guint s = 0; s < 2; s++)
        for (guint h = 0; h < frame->hits[s]->len; h++)
          items[s][g_array_index (frame->hits[s], guint32, h)] = 0;

      if (!ok)
        return FALSE;
    }

  return TRUE;
}

/* Track names as shown, made unique by process where two tracks share one. */
static char *
track_display_name (GPtrArray       *tracks,
                    const TrackData *td)
{
  for (guint i = 0; i < tracks->len; i++)
    {
      const TrackData *other = g_ptr_array_index (tracks, i);

      if (other != td && g_str_equal (other->name, td->name))
        return g_strdup_printf ("%s [%" G_GINT64_FORMAT "]", td->name, td->pid);
    }

  return g_strdup (td->name);
}

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
} RangeRead;

/* The last range reads of this process, for the next request: the window
 * reads range A for its summary, its compare and its flame graph, and again
 * with every new B. A read is used again only for the same file, unchanged
 * (device, inode, size, mtime, before and after the read), and the same
 * range, grid, K, seed, paths and memory share, so it gives what reading
 * again would. Its stats and snapshot never change once made. */
#define READ_CACHE_SIZE 3

typedef struct {
  char          *path;
  GStatBuf       st;
  gint64         lo;
  gint64         hi;
  gint64         grid_hi;
  guint          k;
  guint64        seed;
  guint          max_paths;
  guint64        budget;
  guint64        used;      /* when last used, for replacing the oldest */
  TslSnapshot   *snapshot;
  TslRangeStats *stats;
} CachedRead;

static GMutex read_cache_lock;
static CachedRead read_cache[READ_CACHE_SIZE];
static guint64 read_cache_clock;
static guint64 read_cache_hits;

static gboolean
same_file (const GStatBuf *a,
           const GStatBuf *b)
{
  return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
         a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

static gboolean
cached_read_matches (const CachedRead *c,
                     const RangeRead  *rr,
                     const GStatBuf   *st)
{
  return c->path != NULL && g_str_equal (c->path, rr->path) && same_file (&c->st, st) &&
         c->lo == rr->lo && c->hi == rr->hi && c->grid_hi == rr->grid_hi &&
         c->k == rr->request->k && c->seed == rr->request->seed &&
         c->max_paths == rr->request->max_paths && c->budget == tsl_budget_get_limit (rr->budget);
}

static void
cached_read_clear (CachedRead *c)
{
  g_clear_pointer (&c->path, g_free);
  g_clear_pointer (&c->snapshot, tsl_snapshot_unref);
  g_clear_pointer (&c->stats, tsl_range_stats_unref);
}

static gboolean
read_cache_lookup (RangeRead      *rr,
                   const GStatBuf *st)
{
  gboolean found = FALSE;

  g_mutex_lock (&read_cache_lock);
  for (guint i = 0; i < READ_CACHE_SIZE && !found; i++)
    if (cached_read_matches (&read_cache[i], rr, st))
      {
        read_cache[i].used = ++read_cache_clock;
        rr->snapshot = tsl_snapshot_ref (read_cache[i].snapshot);
        rr->stats = tsl_range_stats_ref (read_cache[i].stats);
        read_cache_hits++;
        found = TRUE;
      }
  g_mutex_unlock (&read_cache_lock);
  return found;
}

static void
read_cache_store (const RangeRead *rr,
                  const GStatBuf  *st)
{
  CachedRead *oldest = &read_cache[0];

  g_mutex_lock (&read_cache_lock);
  for (guint i = 0; i < READ_CACHE_SIZE; i++)
    {
      if (cached_read_matches (&read_cache[i], rr, st))
        {
          oldest = NULL;   /* another thread read it meanwhile */
          break;
        }
      if (read_cache[i].used < oldest->used)
        oldest = &read_cache[i];
    }
  if (oldest != NULL)
    {
      cached_read_clear (oldest);
      *oldest = (CachedRead) { g_strdup (rr->path), *st, rr->lo, rr->hi, rr->grid_hi, rr->request->k,
                               rr->request->seed, rr->request->max_paths, tsl_budget_get_limit (rr->budget),
                               ++read_cache_clock, tsl_snapshot_ref (rr->snapshot),
                               tsl_range_stats_ref (rr->stats) };
    }
  g_mutex_unlock (&read_cache_lock);
}

void
_tsl_compare_forget_reads (void)
{
  g_mutex_lock (&read_cache_lock);
  for (guint i = 0; i < READ_CACHE_SIZE; i++)
    cached_read_clear (&read_cache[i]);
  g_mutex_unlock (&read_cache_lock);
}

guint64
_tsl_compare_get_read_hits (void)
{
  guint64 hits;

  g_mutex_lock (&read_cache_lock);
  hits = read_cache_hits;
  g_mutex_unlock (&read_cache_lock);
  return hits;
}

static gpointer
read_range (gpointer data)
{
  RangeRead *rr = data;
  g_autoptr(TslTrace) trace = NULL;
  GStatBuf before, after;
  /* read_ranges() looked in the cache of range reads already. */
  gboolean keyed = g_stat (rr->path, &before) == 0;

  trace = tsl_trace_new (TSL_SAMPLER_COUNT, rr->request->k, rr->request->seed);

  /* Its part of the first pass's budget: together they stay within what
   * the process may take. */
  tsl_trace_set_budget (trace, rr->budget);
  tsl_trace_set_time_filter (trace, rr->lo, rr->hi);
  /* Exact figures from every event of the range, beside the samples. */
  rr->stats = tsl_range_stats_new (trace, rr->lo, rr->hi, rr->grid_hi);
  /* The rows come from the stats; samples only give a metric's median. */
  tsl_trace_set_observe_metrics_only (trace, TRUE);
  if (rr->request->max_paths > 0)
    tsl_range_stats_keep_paths (rr->stats, rr->request->max_paths);
  if (tsl_read_path_full (trace, rr->path, rr->threads, NULL, NULL, rr->cancellable, &rr->error))
    {
      tsl_range_stats_finish (rr->stats);
      rr->snapshot = tsl_snapshot_new (trace);
      if (keyed && g_stat (rr->path, &after) == 0 && same_file (&before, &after))
        read_cache_store (rr, &after);
    }

  return NULL;
}

/* Reads the asked ranges of seekable files (side s from paths[s], its
 * times from start[s]), one per thread. */
static void
read_ranges (const TslCompareRequest *request,
             TslTrace                *trace,
             const char * const      *paths,
             const gint64            *start,
             const gint64            *end,
             const gint64            *lo,
             const gint64            *hi,
             const gboolean          *has,
             RangeRead               *reads,
             GCancellable            *cancellable)
{
  GThread *thread = NULL;
  TslBudget *whole = tsl_trace_get_budget (trace);
  /* Each range read gets a quarter of the limit, whatever else runs: the
   * window reads a range for its summary, its compare and its flame graph
   * at once, and a share of what is left would let the first starve the
   * others (tracks folded into "other threads"), so the same ranges would
   * not give the same numbers in the window and on the command line. */
  gsize share = (gsize) (tsl_budget_get_limit (whole) / 4);
  gboolean to_read[2];
  TslReaderThreads threads;

  for (guint s = 0; s < 2; s++)
    {
      GStatBuf st;

      reads[s] = (RangeRead) { paths[s], request, tsl_time_add (start[s], lo[s]),
                               tsl_time_add (start[s], hi[s]),
                               MIN (tsl_time_add (start[s], hi[s]), tsl_time_add (end[s], 1)), cancellable,
                               tsl_budget_new_part (whole, share) };
      to_read[s] = has[s] && !(g_stat (paths[s], &st) == 0 && read_cache_lookup (&reads[s], &st));
    }

  /* Two reads are independent, a core each; one alone (the window's new B,
   * A being kept) scans on every core. The result is the same either way. */
  threads = to_read[0] && to_read[1] ? TSL_READER_THREADS_NEVER : TSL_READER_THREADS_DEFAULT;
  reads[0].threads = reads[1].threads = threads;
  if (to_read[1])
    thread = g_thread_try_new ("tsl-compare-read", read_range, &reads[1], NULL);
  if (to_read[0])
    read_range (&reads[0]);
  if (thread != NULL)
    g_thread_join (thread);
  else if (to_read[1])
    read_range (&reads[1]);
  for (guint s = 0; s < 2; s++)
    tsl_budget_unref (reads[s].budget);
}

/* The pass that tells the trace's span (and, from a pipe, its samples). */
static TslTrace *
read_first_pass (const TslCompareRequest *request,
                 const char              *path,
                 guint                    k,
                 GCancellable            *cancellable,
                 GError                 **error)
{
  g_autoptr(TslTrace) first = tsl_trace_new (TSL_SAMPLER_COUNT, k, request->seed);
  gint64 start, end;

  if (request->budget != NULL)
    tsl_trace_set_budget (first, request->budget);
  /* Only the span is needed of a file that is re-read by range; one indexed
   * before (this process or the cache) knows it without a pass. */
  if (k == SPAN_PASS_K && tsl_chunk_index_get_file_span (path, &start, &end))
    {
      tsl_trace_note_time (first, start);
      tsl_trace_note_time (first, end);
      return g_steal_pointer (&first);
    }
  if (!tsl_read_path (first, path, NULL, NULL, cancellable, error))
    return NULL;
  return g_steal_pointer (&first);
}

static gint64
trace_span (TslTrace *trace,
            gint64   *start,
            gint64   *end)
{
  tsl_trace_lock (trace);
  tsl_trace_get_span (trace, start, end);
  tsl_trace_unlock (trace);
  return MAX (tsl_time_sub (*end, *start), 1);
}

/* A sampler state is a regular file with no events to re-read. */
static gboolean
is_seekable_file (const char *path)
{
  return path != NULL && !g_str_equal (path, "-") &&
         g_file_test (path, G_FILE_TEST_IS_REGULAR) && !tsl_state_file_test (path);
}

/* Resolves a range against the span and clips it; FALSE when it holds no time of the trace. */
static gboolean
resolve_range (const TslRangeSpec *spec,
               const char         *which,
               gint64              span,
               gint64             *lo,
               gint64             *hi,
               double             *seconds,
               GPtrArray          *warnings,
               GError            **error)
{
  TslRangeFit fit = tsl_range_spec_fit (spec, span, lo, hi);

  if (fit == TSL_RANGE_OUTSIDE)
    {
      g_autofree char *length = tsl_duration_format ((double) span);
      g_autofree char *range = tsl_range_spec_to_string (spec);

      g_set_error (error, TSL_COMPARE_ERROR, TSL_COMPARE_ERROR_RANGE,
                   _("range %s (%s) holds no data: it starts after the end of the trace (its span is %s)"),
                   which, range, length);
      return FALSE;
    }

  /* Without warnings (re-read ranges) the caller measures the range against
   * the end of the data once known, which a metric's last point extends by
   * its sampling interval: the range keeps its own end. */
  if (warnings == NULL)
    {
      gint64 unclipped_lo;

      tsl_range_spec_resolve (spec, span, &unclipped_lo, hi);
      if (spec->is_fraction && spec->end >= 1)
        *hi = span < G_MAXINT64 ? span + 1 : G_MAXINT64;
      return TRUE;
    }

  if (fit == TSL_RANGE_CLIPPED)
    {
      g_autofree char *length = tsl_duration_format ((double) (span - *lo));

      g_ptr_array_add (warnings, g_strdup_printf ("range %s ends after the trace; its length is taken as %s",
                                                  which, length));
    }

  *seconds = (double) MAX (MIN (*hi, span) - *lo, 1) / 1e9;
  return TRUE;
}

static char *
range_track_key (const TslRangeTrack *t)
{
  return g_strdup_printf ("%d\x1f%" G_GINT64_FORMAT "\x1f%" G_GINT64_FORMAT "\x1f%s",
                          (int) t->kind, t->pid, t->tid, t->name);
}

static gboolean
ends_at_data_end (const TslRangeSpec *spec)
{
  return spec->is_fraction && spec->end >= 1;
}

/* The length of each range now that the end of the data is known (a
 * metric's last point covers one median gap); a warning only when a range
 * truly reaches past the data. */
static void
measure_ranges (const TslCompareRequest *request,
                const gint64            *start,
                const gint64            *lo,
                const gint64            *hi,
                const gint64            *data_end,
                gint64                  *end,
                double                  *seconds,
                GPtrArray               *warnings)
{
  const TslRangeSpec *specs[2] = { &request->a, &request->b };
  const char *which[2] = { "A", "B" };

  for (guint s = 0; s < 2; s++)
    {
      gint64 a = tsl_time_add (start[s], lo[s]), b = tsl_time_add (start[s], hi[s]);

      end[s] = ends_at_data_end (specs[s]) ? MAX (data_end[s], a) : MIN (b, MAX (data_end[s], a));
      if (!ends_at_data_end (specs[s]) && b > tsl_time_add (data_end[s], 1) &&
          (double) tsl_time_sub (b, data_end[s]) > 0.01 * (double) tsl_time_sub (b, a))
        {
          g_autofree char *length = tsl_duration_format ((double) tsl_time_sub (end[s], a));

          g_ptr_array_add (warnings, g_strdup_printf ("range %s ends after the trace; its length is taken as %s",
                                                      which[s], length));
        }
      seconds[s] = (double) MAX (tsl_time_sub (end[s], a), 1) / 1e9;
    }
}

static gboolean
is_quantile_stat (const TslCompareRequest *request)
{
  return request->has_stat && (request->stat == TSL_STAT_MEDIAN || request->stat == TSL_STAT_P95 ||
                               request->stat == TSL_STAT_MAX);
}

static const GArray *
side_or_empty (const TrackData *td,
               guint            s,
               gboolean         sums,
               const GArray    *empty)
{
  if (td == NULL)
    return empty;
  return sums ? td->sums[s] : td->values[s];
}

/* A metric's median, p95 or max, from the kept values of each side's
 * track (by_key[s] holds side s's tracks). */
static gboolean
quantile_metric_rows (TslCompareTable   *table,
                      GHashTable        *by_key[2],
                      const TslTrackPair *pair)
{
  g_autoptr(GArray) empty = g_array_new (FALSE, FALSE, sizeof (double));
  const TrackData *td[2] = { NULL, NULL };
  TrackData view = { 0 };

  for (guint s = 0; s < 2; s++)
    if (pair->t[s] != NULL)
      {
        g_autofree char *key = range_track_key (pair->t[s]);

        td[s] = g_hash_table_lookup (by_key[s], key);
      }
  if (td[0] == NULL && td[1] == NULL)
    return TRUE;
  for (guint s = 0; s < 2; s++)
    {
      view.values[s] = (GArray *) side_or_empty (td[s], s, FALSE, empty);
      view.sums[s] = (GArray *) side_or_empty (td[s], s, TRUE, empty);
      view.events[s] = td[s] != NULL ? td[s]->events[s] : 0;
    }
  return add_metric_rows (table, &view, pair->name);
}

static gboolean
exact_rows (TslCompareTable *table,
            RangeRead       *reads,
            const gint64    *end,
            GHashTable      *by_key[2],
            gboolean         two_files)
{
  g_autoptr(GPtrArray) pairs = _tsl_compare_match_tracks (reads[0].stats, reads[1].stats, two_files);

  for (guint i = 0; i < pairs->len; i++)
    {
      const TslTrackPair *pair = g_ptr_array_index (pairs, i);
      const TslRangeTrack *any = pair->t[0] != NULL ? pair->t[0] : pair->t[1];
      gboolean metric = any->kind == TSL_TRACK_COUNTER || any->kind == TSL_TRACK_METRIC;

      if (metric && is_quantile_stat (table->request))
        {
          if (!quantile_metric_rows (table, by_key, pair))
            return FALSE;
          continue;
        }
      if (!_tsl_compare_exact_track_rows (table, reads[0].stats, reads[1].stats, end, pair->name,
                                          pair->t[0], pair->t[1]))
        return FALSE;
    }

  return TRUE;
}

static GPtrArray *
run (const TslCompareRequest *request,
     TslExactReads           *keep,
     GCancellable            *cancellable,
     GPtrArray               *warnings,
     GError                 **error)
{
  g_autoptr(TslTrace) first = NULL;
  g_autoptr(TslTrace) first_b = NULL;
  g_autoptr(TslSnapshot) snap_a = NULL;
  g_autoptr(TslSnapshot) snap_b = NULL;
  g_autoptr(GHashTable) by_key = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GHashTable) by_key_b = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GPtrArray) tracks = g_ptr_array_new_with_free_func (track_data_free);
  g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func ((GDestroyNotify) tsl_compare_row_free);
  g_autofree char *range_key = NULL;
  gboolean two_files = request->path_b != NULL;
  gboolean seekable = is_seekable_file (request->path);
  TslTrace *trace = request->trace;
  const char *paths[2] = { request->path, two_files ? request->path_b : request->path };
  gint64 start[2] = { 0, 0 }, end[2] = { 0, 0 }, span[2], lo[2], hi[2];
  TslCompareTable table = { request, NULL, { 0, 0 }, rows, cancellable, error };
  RangeRead reads[2] = { { 0 } };
  gboolean ok = TRUE;

  if (two_files && (!seekable || !is_seekable_file (request->path_b)))
    {
      const char *which = seekable ? request->path_b : request->path;

      /* Two runs are compared from exact re-reads of each; a state has no events. */
      if (tsl_state_file_test (which))
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                     _("%s is a sampler state: comparing two files needs the traces themselves, "
                       "to re-read a range of each"), which);
      else
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                     _("%s: comparing two files needs two regular files, to re-read a range of each"),
                     which);
      return NULL;
    }

  if (trace == NULL)
    {
      if (request->path == NULL)
        {
          g_set_error_literal (error, TSL_COMPARE_ERROR, TSL_COMPARE_ERROR_NO_INPUT,
                               _("nothing to compare: no file and no trace"));
          return NULL;
        }

      first = read_first_pass (request, request->path, seekable ? SPAN_PASS_K : request->k, cancellable, error);
      if (first == NULL)
        return NULL;
      trace = first;
    }

  span[0] = trace_span (trace, &start[0], &end[0]);
  if (two_files)
    {
      /* The window's merged trace is not B's: B's span is its own. */
      first_b = read_first_pass (request, request->path_b, SPAN_PASS_K, cancellable, error);
      if (first_b == NULL)
        return NULL;
      span[1] = trace_span (first_b, &start[1], &end[1]);
    }
  else
    {
      span[1] = span[0];
      start[1] = start[0];
      end[1] = end[0];
    }

  /* Re-read ranges warn once the end of the data is known (below). */
  if (!resolve_range (&request->a, "A", span[0], &lo[0], &hi[0], &table.seconds[0],
                      seekable ? NULL : warnings, error) ||
      !resolve_range (&request->b, "B", span[1], &lo[1], &hi[1], &table.seconds[1],
                      seekable ? NULL : warnings, error))
    return NULL;

  range_key = g_strdup_printf ("%" G_GINT64_FORMAT "..%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT "..%" G_GINT64_FORMAT "%s",
                               lo[0], hi[0], lo[1], hi[1], two_files ? ",two files" : "");
  table.range_key = range_key;

  if (seekable)
    {
      gint64 data_end[2], ends[2];
      const gboolean both[2] = { TRUE, TRUE };
      GHashTable *keys[2] = { by_key, two_files ? by_key_b : by_key };

      read_ranges (request, trace, paths, start, end, lo, hi, both, reads, cancellable);
      for (guint s = 0; s < 2; s++)
        {
          if (reads[s].error != NULL && (error == NULL || *error == NULL))
            g_propagate_error (error, g_steal_pointer (&reads[s].error));
          g_clear_error (&reads[s].error);
        }
      snap_a = reads[0].snapshot;
      snap_b = reads[1].snapshot;
      if (snap_a == NULL || snap_b == NULL)
        {
          ok = FALSE;
          goto out;
        }

      for (guint s = 0; s < 2; s++)
        data_end[s] = tsl_range_stats_get_data_end (reads[s].stats);
      /* Two ranges of one file share its end. */
      if (!two_files)
        data_end[0] = data_end[1] = MAX (data_end[0], data_end[1]);
      measure_ranges (request, start, lo, hi, data_end, ends, table.seconds, warnings);
      collect_side (keys[0], tracks, snap_a, 0, lo[0], hi[0]);
      collect_side (keys[1], tracks, snap_b, 1, lo[1], hi[1]);
      ok = exact_rows (&table, reads, ends, keys, two_files);
      if (ok && keep != NULL)
        for (guint s = 0; s < 2; s++)
          {
            keep->stats[s] = g_steal_pointer (&reads[s].stats);
            keep->lo[s] = tsl_time_add (start[s], lo[s]);
            keep->end[s] = ends[s];
            keep->seconds[s] = table.seconds[s];
          }
      goto out;
    }

  snap_a = tsl_snapshot_new (trace);
  snap_b = tsl_snapshot_ref (snap_a);
  if (tsl_state_file_test (request->path))
    g_ptr_array_add (warnings,
                     g_strdup_printf ("%s is a sampler state, with no events to re-read: compared the samples "
                                      "it kept (%u..%u per track over the whole trace), not exact values of each range",
                                      request->path, tsl_snapshot_get_k (snap_a), 2 * tsl_snapshot_get_k (snap_a)));
  else
    g_ptr_array_add (warnings,
                     g_strdup_printf ("%s is not a seekable file: compared the samples kept in one pass "
                                      "(%u..%u per track over the whole trace), not exact values of each range",
                                      request->path != NULL ? request->path : "the trace",
                                      tsl_snapshot_get_k (snap_a), 2 * tsl_snapshot_get_k (snap_a)));

  collect_side (by_key, tracks, snap_a, 0, lo[0], hi[0]);
  collect_side (by_key, tracks, snap_b, 1, lo[1], hi[1]);

  for (guint i = 0; ok && i < tracks->len; i++)
    {
      const TrackData *td = g_ptr_array_index (tracks, i);
      g_autofree char *name = track_display_name (tracks, td);

      ok = is_stack_kind (td->kind) ? add_frame_rows (&table, td, name)
                                    : add_metric_rows (&table, td, name);
    }

out:
  for (guint s = 0; s < 2; s++)
    g_clear_pointer (&reads[s].stats, tsl_range_stats_unref);
  if (!ok || g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;

  _tsl_compare_finish_table (rows, request);
  tsl_compare_sort_by_impact (rows, table.seconds);
  return g_steal_pointer (&rows);
}

GPtrArray *
tsl_compare_run (const TslCompareRequest *request,
                 GCancellable            *cancellable,
                 GStrv                   *warnings,
                 GError                 **error)
{
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  GPtrArray *rows;

  g_return_val_if_fail (request != NULL, NULL);
  g_return_val_if_fail (request->trace == NULL || TSL_IS_TRACE (request->trace), NULL);

  rows = run (request, NULL, cancellable, notes, error);

  if (warnings != NULL)
    {
      g_ptr_array_add (notes, NULL);
      *warnings = (GStrv) g_ptr_array_steal (notes, NULL);
    }

  return rows;
}

GPtrArray *
_tsl_compare_run_keeping_reads (const TslCompareRequest *request,
                                TslExactReads           *reads,
                                GCancellable            *cancellable,
                                GPtrArray               *warnings,
                                GError                 **error)
{
  GPtrArray *rows;

  *reads = (TslExactReads) { { NULL, NULL } };
  rows = run (request, reads, cancellable, warnings, error);
  if (rows == NULL)
    _tsl_exact_reads_clear (reads);
  return rows;
}

typedef struct {
  TslCompareRequest *request;
  GStrv              warnings;
} TaskData;

static void
task_data_free (gpointer data)
{
  TaskData *td = data;

  tsl_compare_request_free (td->request);
  g_strfreev (td->warnings);
  g_free (td);
}

static void
compare_thread (GTask        *task,
                gpointer      source_object,
                gpointer      task_data,
                GCancellable *cancellable)
{
  TaskData *td = task_data;
  GError *error = NULL;
  GPtrArray *rows;

  rows = tsl_compare_run (td->request, cancellable, &td->warnings, &error);
  if (rows == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, rows, (GDestroyNotify) g_ptr_array_unref);
}

void
tsl_compare_run_async (const TslCompareRequest *request,
                       GCancellable            *cancellable,
                       GAsyncReadyCallback      callback,
                       gpointer                 user_data)
{
  g_autoptr(GTask) task = NULL;
  TaskData *td;

  g_return_if_fail (request != NULL);

  td = g_new0 (TaskData, 1);
  td->request = tsl_compare_request_copy (request);

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, tsl_compare_run_async);
  g_task_set_task_data (task, td, task_data_free);
  g_task_run_in_thread (task, compare_thread);
}

GPtrArray *
tsl_compare_run_finish (GAsyncResult  *result,
                        GStrv         *warnings,
                        GError       **error)
{
  TaskData *td;

  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == tsl_compare_run_async, NULL);

  td = g_task_get_task_data (G_TASK (result));
  if (warnings != NULL)
    *warnings = g_strdupv (td->warnings);

  return g_task_propagate_pointer (G_TASK (result), error);
}

gboolean
_tsl_compare_read_exact (const TslCompareRequest *request,
                         const gboolean           has[2],
                         TslExactReads           *out,
                         GPtrArray               *warnings,
                         GCancellable            *cancellable,
                         GError                 **error)
{
  g_autoptr(TslTrace) first = NULL;
  TslTrace *trace = request->trace;
  gint64 start = 0, end = 0, span, lo[2] = { 0, 0 }, hi[2] = { 0, 0 }, data_end = G_MININT64;
  const TslRangeSpec *specs[2] = { &request->a, &request->b };
  RangeRead reads[2] = { { 0 } };
  double unused;
  gboolean ok = TRUE;

  *out = (TslExactReads) { { NULL, NULL } };
  if (!is_seekable_file (request->path))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   tsl_state_file_test (request->path)
                   ? "%s is a sampler state: it has no events to re-read"
                   : "%s is not a seekable file: its ranges cannot be re-read",
                   request->path != NULL ? request->path : "the trace");
      return FALSE;
    }

  if (trace == NULL)
    {
      first = read_first_pass (request, request->path, SPAN_PASS_K, cancellable, error);
      if (first == NULL)
        return FALSE;
      trace = first;
    }

  span = trace_span (trace, &start, &end);

  for (guint s = 0; s < 2; s++)
    if (has[s] && !resolve_range (specs[s], s == 0 ? "A" : "B", span, &lo[s], &hi[s], &unused, NULL, error))
      return FALSE;

  {
    const char *paths[2] = { request->path, request->path };
    const gint64 starts[2] = { start, start }, ends[2] = { end, end };

    read_ranges (request, trace, paths, starts, ends, lo, hi, has, reads, cancellable);
  }
  for (guint s = 0; s < 2; s++)
    {
      if (reads[s].error != NULL && ok)
        {
          g_propagate_error (error, g_steal_pointer (&reads[s].error));
          ok = FALSE;
        }
      g_clear_error (&reads[s].error);
      g_clear_pointer (&reads[s].snapshot, tsl_snapshot_unref);
      if (has[s] && reads[s].stats == NULL)
        ok = FALSE;
      if (reads[s].stats != NULL)
        data_end = MAX (data_end, tsl_range_stats_get_data_end (reads[s].stats));
    }

  if (ok && !g_cancellable_set_error_if_cancelled (cancellable, error))
    {
      g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
      gint64 ends[2];
      const gint64 starts[2] = { start, start }, data_ends[2] = { data_end, data_end };

      measure_ranges (request, starts, lo, hi, data_ends, ends, out->seconds, notes);
      for (guint s = 0; s < 2; s++)
        {
          out->stats[s] = has[s] ? g_steal_pointer (&reads[s].stats) : NULL;
          out->lo[s] = tsl_time_add (start, lo[s]);
          out->end[s] = ends[s];
          out->start = start;
          /* Only the asked ranges' warnings. */
          for (guint i = 0; warnings != NULL && i < notes->len; i++)
            if (g_str_has_prefix (g_ptr_array_index (notes, i), s == 0 ? "range A " : "range B ") && has[s])
              g_ptr_array_add (warnings, g_strdup (g_ptr_array_index (notes, i)));
        }
    }
  else
    ok = FALSE;

  for (guint s = 0; s < 2; s++)
    g_clear_pointer (&reads[s].stats, tsl_range_stats_unref);
  return ok;
}

void
_tsl_exact_reads_clear (TslExactReads *reads)
{
  for (guint s = 0; s < 2; s++)
    g_clear_pointer (&reads->stats[s], tsl_range_stats_unref);
}
