/* tsl-range-summary.c: one range on its own, exact, no B needed
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "tsl-compare"

#include "config.h"

#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "tsl-chunk-index.h"
#include "tsl-csv-writer.h"
#include "tsl-range-stats.h"
#include "tsl-range-summary.h"
#include "tsl-read-stream.h"
#include "tsl-time-math.h"
#include "tsl-track-names.h"

/* K of the passes: the figures come from every event, not from samples. */
#define SUMMARY_K 16

void
tsl_summary_row_free (TslSummaryRow *row)
{
  if (row == NULL)
    return;
  g_free (row->track);
  g_free (row->name);
  g_free (row);
}

static gboolean
get_span (const TslCompareRequest *request,
          GCancellable            *cancellable,
          gint64                  *start,
          gint64                  *end,
          GError                 **error)
{
  g_autoptr(TslTrace) first = NULL;
  TslTrace *trace = request->trace;

  /* A file indexed before knows its span without a read. */
  if (trace == NULL && request->path != NULL && tsl_chunk_index_get_file_span (request->path, start, end))
    return TRUE;
  if (trace == NULL)
    {
      first = tsl_trace_new (TSL_SAMPLER_COUNT, SUMMARY_K, request->seed);
      if (request->budget != NULL)
        tsl_trace_set_budget (first, request->budget);
      if (!tsl_read_path (first, request->path, NULL, NULL, cancellable, error))
        return FALSE;
      trace = first;
    }

  tsl_trace_lock (trace);
  tsl_trace_get_span (trace, start, end);
  tsl_trace_unlock (trace);
  return TRUE;
}

static void
add_rows (GPtrArray     *rows,
          TslRangeStats *stats,
          gint64         length)
{
  /* Tracks named as the compare table names them: "(tid T)" where threads
   * of a process share a name, "[pid]" where processes do. */
  g_autoptr(TslTrackNames) names = _tsl_track_names_new ();

  for (guint i = 0; i < tsl_range_stats_get_n_tracks (stats); i++)
    {
      const TslRangeTrack *t = tsl_range_stats_get_track (stats, i);

      if (t != NULL)
        _tsl_track_names_add (names, t->kind, t->pid, t->tid, t->name);
    }

  for (guint i = 0; i < tsl_range_stats_get_n_tracks (stats); i++)
    {
      const TslRangeTrack *t = tsl_range_stats_get_track (stats, i);
      g_autofree char *track = NULL;
      TslSummaryRow *row;

      if (t == NULL)
        continue;
      track = _tsl_track_names_get (names, t->kind, t->pid, t->tid, t->name);

      if (t->kind == TSL_TRACK_COUNTER || t->kind == TSL_TRACK_METRIC)
        {
          if (t->n == 0)
            continue;
          row = g_new0 (TslSummaryRow, 1);
          row->track = g_strdup (track);
          row->n = t->n;
          row->mean = t->sum / t->n;
          row->min = t->min;
          row->max = t->max;
          row->mean_ns = row->total_ns = row->self_ns = row->share = NAN;
          g_ptr_array_add (rows, row);
          continue;
        }

      for (guint j = 0; t->funcs != NULL && j < t->funcs->len; j++)
        {
          const TslRangeFunc *f = g_ptr_array_index (t->funcs, j);

          /* A callee's parent that started before the range: not in it. */
          if (f->calls == 0 && f->samples == 0)
            continue;
          row = g_new0 (TslSummaryRow, 1);
          row->track = g_strdup (track);
          row->name = g_strdup (f->name);
          row->calls = f->calls;
          row->samples = f->samples;
          row->total_ns = f->total_ns;
          row->self_ns = f->self_ns;
          row->mean_ns = f->calls > 0 ? f->duration_ns / f->calls : NAN;
          if (t->spans)
            row->share = f->total_ns / (double) length;
          else
            row->share = t->points > 0 ? (double) f->samples / t->points : NAN;
          row->mean = row->min = row->max = NAN;
          g_ptr_array_add (rows, row);
        }
    }
}

static int
compare_rows (gconstpointer a,
              gconstpointer b)
{
  const TslSummaryRow *ra = *(TslSummaryRow * const *) a;
  const TslSummaryRow *rb = *(TslSummaryRow * const *) b;
  int c = strcmp (ra->track, rb->track);

  return c != 0 ? c : g_strcmp0 (ra->name, rb->name);
}

GPtrArray *
tsl_range_summary_run (const TslCompareRequest *request,
                       GCancellable            *cancellable,
                       gint64                  *length_ns,
                       GError                 **error)
{
  g_autoptr(TslTrace) trace = NULL;
  g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func ((GDestroyNotify) tsl_summary_row_free);
  TslRangeStats *stats;
  gint64 start = 0, end = 0, span, lo, hi, data_end, length;
  gboolean ok;

  g_return_val_if_fail (request != NULL, NULL);

  if (request->path == NULL || g_str_equal (request->path, "-") ||
      !g_file_test (request->path, G_FILE_TEST_IS_REGULAR))
    {
      g_set_error_literal (error, TSL_COMPARE_ERROR, TSL_COMPARE_ERROR_NO_INPUT,
                           _("a summary of one range re-reads the file: it needs a file, not a pipe"));
      return NULL;
    }

  if (!get_span (request, cancellable, &start, &end, error))
    return NULL;
  span = MAX (tsl_time_sub (end, start), 1);
  if (tsl_range_spec_fit (&request->a, span, &lo, &hi) == TSL_RANGE_OUTSIDE)
    {
      g_autofree char *range = tsl_range_spec_to_string (&request->a);

      g_set_error (error, TSL_COMPARE_ERROR, TSL_COMPARE_ERROR_RANGE,
                   _("range %s (%s) holds no data: it starts after the end of the trace"), "A", range);
      return NULL;
    }
  /* As the compare table does: the range keeps its own end, measured
   * against the end of the data once read. */
  tsl_range_spec_resolve (&request->a, span, &lo, &hi);
  if (request->a.is_fraction && request->a.end >= 1)
    hi = tsl_time_add (span, 1);
  lo = tsl_time_add (start, lo);
  hi = tsl_time_add (start, hi);

  trace = tsl_trace_new (TSL_SAMPLER_COUNT, SUMMARY_K, request->seed);
  if (request->budget != NULL)
    tsl_trace_set_budget (trace, request->budget);
  tsl_trace_set_time_filter (trace, lo, hi);
  stats = tsl_range_stats_new (trace, lo, hi, MIN (hi, tsl_time_add (end, 1)));
  ok = tsl_read_path_full (trace, request->path, TSL_READER_THREADS_NEVER, NULL, NULL, cancellable, error);
  if (ok)
    {
      tsl_range_stats_finish (stats);
      data_end = MAX (tsl_range_stats_get_data_end (stats), lo);
      length = request->a.is_fraction && request->a.end >= 1 ? tsl_time_sub (data_end, lo) : tsl_time_sub (MIN (hi, data_end), lo);
      length = MAX (length, 1);
      add_rows (rows, stats, length);
      g_ptr_array_sort (rows, compare_rows);
      if (length_ns != NULL)
        *length_ns = length;
    }
  tsl_range_stats_unref (stats);

  return ok ? g_steal_pointer (&rows) : NULL;
}

static void
summary_thread (GTask        *task,
                gpointer      source_object,
                gpointer      task_data,
                GCancellable *cancellable)
{
  GError *error = NULL;
  GPtrArray *rows = tsl_range_summary_run (task_data, cancellable, NULL, &error);

  if (rows == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, rows, (GDestroyNotify) g_ptr_array_unref);
}

void
tsl_range_summary_run_async (const TslCompareRequest *request,
                             GCancellable            *cancellable,
                             GAsyncReadyCallback      callback,
                             gpointer                 user_data)
{
  g_autoptr(GTask) task = g_task_new (NULL, cancellable, callback, user_data);

  g_return_if_fail (request != NULL);

  g_task_set_source_tag (task, tsl_range_summary_run_async);
  g_task_set_task_data (task, tsl_compare_request_copy (request), (GDestroyNotify) tsl_compare_request_free);
  g_task_run_in_thread (task, summary_thread);
}

GPtrArray *
tsl_range_summary_run_finish (GAsyncResult  *result,
                              GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

char *
tsl_range_summary_format_csv (const TslSummaryRow * const *rows,
                              guint                        n_rows)
{
  GString *buf = g_string_new ("track,name,calls,total_s,self_s,mean_s,share,samples,n,mean,min,max\n");

  for (guint i = 0; i < n_rows; i++)
    {
      const TslSummaryRow *row = rows[i];

      tsl_csv_append_field (buf, row->track);
      g_string_append_c (buf, ',');
      tsl_csv_append_field (buf, row->name != NULL ? row->name : "");
      if (row->name != NULL)
        {
          g_string_append_printf (buf, ",%" G_GUINT64_FORMAT, row->calls);
          tsl_csv_append_number (buf, row->total_ns / 1e9);
          tsl_csv_append_number (buf, row->self_ns / 1e9);
          tsl_csv_append_number (buf, row->mean_ns / 1e9);
          tsl_csv_append_number (buf, row->share);
          g_string_append_printf (buf, ",%" G_GUINT64_FORMAT ",,,,\n", row->samples);
          continue;
        }
      g_string_append_printf (buf, ",,,,,,,%" G_GUINT64_FORMAT, row->n);
      tsl_csv_append_number (buf, row->mean);
      tsl_csv_append_number (buf, row->min);
      tsl_csv_append_number (buf, row->max);
      g_string_append_c (buf, '\n');
    }

  return g_string_free (buf, FALSE);
}
