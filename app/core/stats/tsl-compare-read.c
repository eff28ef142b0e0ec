/* tsl-compare-read.c: reading each range of a file again, exactly
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The span pass (skipped when the chunk index knows the file's span), then
 * one read per range with a time filter, a fresh count-mode sampler and the
 * exact figures of every event (tsl-range-stats), two ranges on two
 * threads; the last few reads are kept for the next request on the same
 * file. Ranges are resolved against the span, and their lengths measured
 * once the end of the data is known.
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

/* The code below predates the shared name. */
typedef TslRangeRead RangeRead;

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
  gboolean       grow;
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
         c->max_paths == rr->request->max_paths && c->budget == tsl_budget_get_limit (rr->budget) &&
         c->grow == rr->grow;
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
                               rr->grow, ++read_cache_clock, tsl_snapshot_ref (rr->snapshot),
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
  /* Exact figures from every event of the range, beside the samples. */
  /* A filter even over all time: the read goes through the chunk index
   * when there is one, and never takes a cached state without events. */
  tsl_trace_set_time_filter (trace, rr->lo, rr->hi);
  if (rr->grow)
    rr->stats = tsl_range_stats_new_growing (trace, rr->span_start, rr->span_end);
  else
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
             GCancellable            *cancellable);

/* Reads the asked ranges of seekable files (side s from paths[s], its
 * times from start[s]), one per thread. */
void
_tsl_compare_read_ranges (const TslCompareRequest *request,
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
  read_ranges (request, trace, paths, start, end, lo, hi, has, reads, cancellable);
}

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

/* NULL with @error set when the read failed. */
TslRangeStatsGroup *
_tsl_compare_read_group (const TslCompareRequest *request,
                         TslTrace                *trace,
                         const char              *path,
                         gint64                   start,
                         gint64                   end,
                         guint                    n,
                         const gint64            *lo,
                         const gint64            *hi,
                         GCancellable            *cancellable,
                         GError                 **error)
{
  g_autoptr(TslTrace) read = tsl_trace_new (TSL_SAMPLER_COUNT, request->k, request->seed);
  g_autoptr(TslBudget) budget = NULL;
  g_autoptr(TslRangeStatsGroup) group = NULL;
  g_autofree gint64 *abs_lo = g_new (gint64, n);
  g_autofree gint64 *abs_hi = g_new (gint64, n);
  g_autofree gint64 *grid_hi = g_new (gint64, n);
  gint64 first = G_MAXINT64, last = G_MININT64;

  g_return_val_if_fail (n > 0, NULL);

  for (guint i = 0; i < n; i++)
    {
      abs_lo[i] = tsl_time_add (start, lo[i]);
      abs_hi[i] = tsl_time_add (start, hi[i]);
      grid_hi[i] = MIN (abs_hi[i], tsl_time_add (end, 1));
      first = MIN (first, abs_lo[i]);
      last = MAX (last, abs_hi[i]);
    }
  /* A range read's share of the limit, as read_ranges() gives each. */
  budget = tsl_budget_new_part (tsl_trace_get_budget (trace),
                                (gsize) (tsl_budget_get_limit (tsl_trace_get_budget (trace)) / 4));
  tsl_trace_set_budget (read, budget);
  tsl_trace_set_time_filter (read, first, last);
  group = tsl_range_stats_group_new (read, n, abs_lo, abs_hi, grid_hi);
  tsl_trace_set_observe_metrics_only (read, TRUE);
  /* No call paths: the flame graph reads A and B, no row reads them. */
  if (!tsl_read_path_full (read, path, TSL_READER_THREADS_DEFAULT, NULL, NULL, cancellable, error))
    return NULL;
  tsl_range_stats_group_finish (group);
  return g_steal_pointer (&group);
}

/* The pass that tells the trace's span (and, from a pipe, its samples). */
TslTrace *
_tsl_compare_read_first_pass (const TslCompareRequest *request,
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
  if (k == TSL_COMPARE_SPAN_PASS_K && tsl_chunk_index_get_file_span (path, &start, &end))
    {
      tsl_trace_note_time (first, start);
      tsl_trace_note_time (first, end);
      return g_steal_pointer (&first);
    }
  if (!tsl_read_path (first, path, NULL, NULL, cancellable, error))
    return NULL;
  return g_steal_pointer (&first);
}

gint64
_tsl_compare_trace_span (TslTrace *trace,
                         gint64   *start,
                         gint64   *end)
{
  tsl_trace_lock (trace);
  tsl_trace_get_span (trace, start, end);
  tsl_trace_unlock (trace);
  return MAX (tsl_time_sub (*end, *start), 1);
}

/* A sampler state is a regular file with no events to re-read. */
gboolean
_tsl_compare_is_seekable_file (const char *path)
{
  return path != NULL && !g_str_equal (path, "-") &&
         g_file_test (path, G_FILE_TEST_IS_REGULAR) && !tsl_state_file_test (path);
}

/* Resolves a range against the span and clips it; FALSE when it holds no time of the trace. */
gboolean
_tsl_compare_resolve_range (const TslRangeSpec *spec,
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

static gboolean
ends_at_data_end (const TslRangeSpec *spec)
{
  return spec->is_fraction && spec->end >= 1;
}

/* The length of each range now that the end of the data is known (a
 * metric's last point covers one median gap); a warning only when a range
 * truly reaches past the data. */
void
_tsl_compare_measure_ranges (const TslCompareRequest *request,
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
  if (!_tsl_compare_is_seekable_file (request->path))
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
      first = _tsl_compare_read_first_pass (request, request->path, TSL_COMPARE_SPAN_PASS_K, cancellable, error);
      if (first == NULL)
        return FALSE;
      trace = first;
    }

  span = _tsl_compare_trace_span (trace, &start, &end);

  for (guint s = 0; s < 2; s++)
    if (has[s] && !_tsl_compare_resolve_range (specs[s], s == 0 ? "A" : "B", span, &lo[s], &hi[s], &unused,
                                               NULL, error))
      return FALSE;

  {
    const char *paths[2] = { request->path, request->path };
    const gint64 starts[2] = { start, start }, ends[2] = { end, end };

    _tsl_compare_read_ranges (request, trace, paths, starts, ends, lo, hi, has, reads, cancellable);
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

      _tsl_compare_measure_ranges (request, starts, lo, hi, data_ends, ends, out->seconds, notes);
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

gboolean
_tsl_compare_read_whole (const TslCompareRequest *request,
                         gboolean                 ignore_index,
                         TslExactReads           *out,
                         GCancellable            *cancellable,
                         GError                 **error)
{
  g_autoptr(TslBudget) whole = NULL;
  RangeRead rr = { 0 };
  GStatBuf st;
  gint64 start = 1, end = 0;

  *out = (TslExactReads) { { NULL, NULL } };
  if (!_tsl_compare_is_seekable_file (request->path))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   tsl_state_file_test (request->path)
                   ? "%s is a sampler state: it has no events to re-read"
                   : "%s is not a seekable file: its ranges cannot be re-read",
                   request->path != NULL ? request->path : "the trace");
      return FALSE;
    }
  if (ignore_index || !tsl_chunk_index_get_file_span (request->path, &start, &end))
    start = 1, end = 0;
  else
    g_debug ("%s: one read, the span from the chunk index", request->path);

  /* The share of the process budget a range read gets (read_ranges()). */
  whole = request->budget != NULL ? tsl_budget_ref (request->budget)
                                  : tsl_budget_new_for_process (TSL_BUDGET_DEFAULT_PROCESS);
  rr = (RangeRead) { request->path, request, G_MININT64, G_MAXINT64, G_MAXINT64, cancellable,
                     tsl_budget_new_part (whole, (gsize) (tsl_budget_get_limit (whole) / 4)) };
  rr.grow = TRUE;
  rr.span_start = start;
  rr.span_end = end;
  rr.threads = TSL_READER_THREADS_DEFAULT;
  if (!(g_stat (request->path, &st) == 0 && read_cache_lookup (&rr, &st)))
    read_range (&rr);
  tsl_budget_unref (rr.budget);
  g_clear_pointer (&rr.snapshot, tsl_snapshot_unref);
  if (rr.error != NULL)
    {
      g_propagate_error (error, rr.error);
      g_clear_pointer (&rr.stats, tsl_range_stats_unref);
      return FALSE;
    }
  if (rr.stats == NULL || g_cancellable_set_error_if_cancelled (cancellable, error))
    {
      g_clear_pointer (&rr.stats, tsl_range_stats_unref);
      return FALSE;
    }

  out->stats[0] = rr.stats;
  out->start = out->lo[0] = tsl_range_stats_block_start (rr.stats, 0);
  out->end[0] = MAX (tsl_range_stats_get_data_end (rr.stats), out->start);
  out->seconds[0] = (double) MAX (tsl_time_sub (out->end[0], out->start), 1) / 1e9;
  return TRUE;
}

void
_tsl_exact_reads_clear (TslExactReads *reads)
{
  for (guint s = 0; s < 2; s++)
    g_clear_pointer (&reads->stats[s], tsl_range_stats_unref);
}
