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
 * an index the span pass is skipped too. The reads, their cache and the
 * ranges' lengths are in tsl-compare-read.c, the rows from kept samples
 * in tsl-compare-samples.c; this file runs them and orders the table.
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
#include "tsl-track-names.h"
#include "tsl-duration.h"
#include "tsl-read-stream.h"
#include "tsl-snapshot.h"
#include "tsl-time-math.h"
#include "tsl-trace-state.h"

/* The code below predates the shared names. */
typedef TslSampleTrack TrackData;
typedef TslRangeRead RangeRead;

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

/* Track names as shown, made unique where two tracks share one (counted
 * once: asking every track for each one was quadratic, 40,000 tracks took
 * 15-41 s). */
static TslTrackNames *
track_names (GPtrArray *tracks)
{
  TslTrackNames *names = _tsl_track_names_new ();

  for (guint i = 0; i < tracks->len; i++)
    {
      const TrackData *td = g_ptr_array_index (tracks, i);

      _tsl_track_names_add (names, td->kind, td->pid, td->tid, td->name);
    }
  return names;
}

static gboolean
is_quantile_stat (const TslCompareRequest *request)
{
  return request->has_stat && (request->stat == TSL_STAT_MEDIAN || request->stat == TSL_STAT_P95 ||
                               request->stat == TSL_STAT_MAX);
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
  g_autoptr(GPtrArray) tracks = g_ptr_array_new_with_free_func (_tsl_compare_sample_track_free);
  g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func ((GDestroyNotify) tsl_compare_row_free);
  g_autoptr(TslTrackNames) names = NULL;
  g_autofree char *range_key = NULL;
  gboolean two_files = request->path_b != NULL;
  gboolean seekable = _tsl_compare_is_seekable_file (request->path);
  TslTrace *trace = request->trace;
  const char *paths[2] = { request->path, two_files ? request->path_b : request->path };
  gint64 start[2] = { 0, 0 }, end[2] = { 0, 0 }, span[2], lo[2], hi[2];
  TslCompareTable table = { request, NULL, { 0, 0 }, rows, cancellable, error };
  RangeRead reads[2] = { { 0 } };
  gboolean ok = TRUE;

  if (two_files && (!seekable || !_tsl_compare_is_seekable_file (request->path_b)))
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

      first = _tsl_compare_read_first_pass (request, request->path, seekable ? TSL_COMPARE_SPAN_PASS_K : request->k, cancellable, error);
      if (first == NULL)
        return NULL;
      trace = first;
    }

  span[0] = _tsl_compare_trace_span (trace, &start[0], &end[0]);
  if (two_files)
    {
      /* The window's merged trace is not B's: B's span is its own. */
      first_b = _tsl_compare_read_first_pass (request, request->path_b, TSL_COMPARE_SPAN_PASS_K, cancellable, error);
      if (first_b == NULL)
        return NULL;
      span[1] = _tsl_compare_trace_span (first_b, &start[1], &end[1]);
    }
  else
    {
      span[1] = span[0];
      start[1] = start[0];
      end[1] = end[0];
    }

  /* Re-read ranges warn once the end of the data is known (below). */
  if (!_tsl_compare_resolve_range (&request->a, "A", span[0], &lo[0], &hi[0], &table.seconds[0],
                      seekable ? NULL : warnings, error) ||
      !_tsl_compare_resolve_range (&request->b, "B", span[1], &lo[1], &hi[1], &table.seconds[1],
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

      _tsl_compare_read_ranges (request, trace, paths, start, end, lo, hi, both, reads, cancellable);
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
      _tsl_compare_measure_ranges (request, start, lo, hi, data_end, ends, table.seconds, warnings);
      _tsl_compare_collect_side (keys[0], tracks, snap_a, 0, lo[0], hi[0]);
      _tsl_compare_collect_side (keys[1], tracks, snap_b, 1, lo[1], hi[1]);
      ok = _tsl_compare_exact_rows (&table, reads, ends, keys, two_files);
      /* Dependence slower than the ranges, told by the trace around them. */
      if (ok && !two_files && !is_quantile_stat (request))
        ok = _tsl_compare_check_shifts (&table, trace, request->path, start[0], end[0], lo, hi,
                                        cancellable, error);
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

  _tsl_compare_collect_side (by_key, tracks, snap_a, 0, lo[0], hi[0]);
  _tsl_compare_collect_side (by_key, tracks, snap_b, 1, lo[1], hi[1]);

  names = track_names (tracks);
  for (guint i = 0; ok && i < tracks->len; i++)
    {
      const TrackData *td = g_ptr_array_index (tracks, i);
      g_autofree char *name = _tsl_track_names_get (names, td->kind, td->pid, td->tid, td->name);

      ok = _tsl_compare_is_stack_kind (td->kind) ? _tsl_compare_add_frame_rows (&table, td, name)
                                                 : _tsl_compare_add_metric_rows (&table, td, name);
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
