/* tsl-window-report.c: File ▸ Export Report… — the report of the current ranges
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The report shows the compare panel's rows (filtered, sorted, top N)
 * and the timeline as shown; hashing the input, the flame graph and the
 * drawing run on a worker thread.
 */
#define G_LOG_DOMAIN "tsl-window"

#include "config.h"

#include <glib/gi18n.h>

#include "tsl-report.h"
#include "tsl-window-private.h"

typedef struct {
  GFile             *input;
  char              *path;
  TslTrace          *trace;
  TslSnapshot       *shown;      /* the timeline as shown */
  TslSnapshot       *whole;      /* the flame graph's ranges */
  TslRenderOptions   options;
  gint64            *collapsed;
  char              *title;
  TslCompareRequest *request;
  GPtrArray         *items;      /* TslCompareItem: they own the rows */
  TslReportFormat    format;
  GFile             *file;
} ReportJob;

static void
report_job_free (ReportJob *job)
{
  g_clear_object (&job->input);
  g_free (job->path);
  g_clear_object (&job->trace);
  g_clear_pointer (&job->shown, tsl_snapshot_unref);
  g_clear_pointer (&job->whole, tsl_snapshot_unref);
  g_free (job->collapsed);
  g_free (job->title);
  g_clear_pointer (&job->request, tsl_compare_request_free);
  g_clear_pointer (&job->items, g_ptr_array_unref);
  g_clear_object (&job->file);
  g_free (job);
}

static void
report_worker (GTask        *task,
               gpointer      source_object,
               gpointer      task_data,
               GCancellable *cancellable)
{
  ReportJob *job = task_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(TslFlame) flame = NULL;
  g_autofree const TslCompareRow **rows = g_new0 (const TslCompareRow *, job->items->len + 1);
  g_autofree char *sha256 = NULL;
  g_auto(GStrv) warnings = NULL;
  TslFlameSelection selection = { NULL, 0, TRUE, TSL_FLAME_WEIGHT_AUTO };
  TslReport report = { 0 };
  gboolean ok;

  sha256 = tsl_report_digest_file (job->input, &report.size, cancellable, &error);
  if (sha256 == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  /* Every event of the compare's ranges, as `export --report` draws it;
   * the kept samples only when the file cannot be re-read by range. */
  flame = tsl_flame_new_exact (job->request, TRUE, TRUE, &selection, NULL, cancellable, NULL);
  if (flame == NULL && !g_cancellable_is_cancelled (cancellable))
    flame = tsl_flame_new_diff (job->whole, job->options.a_start_ns, job->options.a_end_ns,
                                job->whole, job->options.b_start_ns, job->options.b_end_ns,
                                &selection, job->request, cancellable, NULL);
  for (guint i = 0; i < job->items->len; i++)
    rows[i] = tsl_compare_item_get_row (g_ptr_array_index (job->items, i));

  report.path = job->path;
  report.sha256 = sha256;
  report.trace = job->trace;
  report.snapshot = job->shown;
  report.timeline = &job->options;
  report.request = job->request;
  report.rows = rows;
  report.n_rows = job->items->len;
  report.top = 0;   /* the default top N of the panel's rows, as on the command line */
  report.flame = flame;

  /* The loader may still feed the trace (follow mode). */
  tsl_trace_lock (job->trace);
  warnings = tsl_trace_dup_warnings (job->trace);
  report.warnings = (const char * const *) warnings;
  ok = tsl_report_write (&report, job->format, job->file, cancellable, &error);
  tsl_trace_unlock (job->trace);

  if (!ok)
    g_task_return_error (task, g_steal_pointer (&error));
  else
    g_task_return_boolean (task, TRUE);
}

static void
report_done_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(TslWindow) self = user_data;
  ReportJob *job = g_task_get_task_data (G_TASK (result));

  _tsl_window_export_done (self, job->file, result);
}

void
_tsl_window_report_to (TslWindow *self,
                       GFile     *file)
{
  g_autoptr(GTask) task = NULL;
  g_autofree char *name = g_file_get_basename (file);
  TslSnapshot *shown = tsl_timeline_view_get_shown_snapshot (self->timeline);
  TslSnapshot *whole = tsl_timeline_view_get_snapshot (self->timeline);
  const TslCompareRequest *request = tsl_compare_panel_get_request (self->compare_panel);
  GListModel *model = tsl_compare_panel_get_model (self->compare_panel);
  TslReportFormat format;
  ReportJob *job;

  if (shown == NULL || whole == NULL || self->loader == NULL || self->file == NULL || self->parts != NULL)
    return;
  if (!tsl_report_format_from_name (name, &format, NULL))
    {
      _tsl_window_show_error (self, _("Unknown Report Type"),
                              _("Name the report with .pdf or .html at the end."));
      return;
    }
  if (request == NULL || tsl_compare_panel_is_busy (self->compare_panel))
    {
      _tsl_window_show_error (self, _("No Comparison Yet"),
                              _("Select ranges A and B and wait for the table: the report shows what it found."));
      return;
    }

  job = g_new0 (ReportJob, 1);
  job->input = g_object_ref (self->file);
  job->path = g_file_get_path (self->file);
  job->trace = g_object_ref (tsl_document_loader_get_trace (self->loader));
  job->shown = tsl_snapshot_ref (shown);
  job->whole = tsl_snapshot_ref (whole);
  job->request = tsl_compare_request_copy (request);
  job->format = format;
  job->file = g_object_ref (file);
  job->title = g_file_get_basename (self->file);
  job->items = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    g_ptr_array_add (job->items, g_list_model_get_item (model, i));

  /* As shown: the visible window and ranges, every track, a title. */
  tsl_timeline_view_get_render_options (self->timeline, &job->options);
  job->collapsed = g_memdup2 (job->options.collapsed, sizeof (gint64) * job->options.n_collapsed);
  job->options.collapsed = job->collapsed;
  job->options.highlight = NULL;
  job->options.title = job->title;
  job->options.draw_note = TRUE;
  job->options.has_a = job->options.has_b = TRUE;
  job->options.a_start_ns = (gint64) request->a.start;
  job->options.a_end_ns = (gint64) request->a.end;
  job->options.b_start_ns = (gint64) request->b.start;
  job->options.b_end_ns = (gint64) request->b.end;

  task = g_task_new (self, self->cancellable, report_done_cb, g_object_ref (self));
  g_task_set_source_tag (task, _tsl_window_report_to);
  g_task_set_task_data (task, job, (GDestroyNotify) report_job_free);
  g_task_run_in_thread (task, report_worker);
}

static gboolean
has_report_extension (const char *name)
{
  TslReportFormat format;

  return tsl_report_format_from_name (name, &format, NULL);
}

static void
report_response_cb (GtkNativeDialog *dialog,
                    int              response,
                    TslWindow       *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = _tsl_window_chooser_get_file (GTK_FILE_CHOOSER (dialog), has_report_extension);

      _tsl_window_report_to (self, file);
    }
  g_object_unref (dialog);
}

void
_tsl_window_report_action (GtkWidget  *widget,
                           const char *action_name,
                           GVariant   *param)
{
  TslWindow *self = TSL_WINDOW (widget);
  static const TslWindowSaveType types[] = {
    { N_("PDF Report"), "*.pdf", ".pdf", FALSE },
    { N_("HTML Report"), "*.html", ".html", FALSE },
  };

  if (self->file == NULL)
    return;
  _tsl_window_save_dialog (self, _("Export Report"), "-report.pdf", types, G_N_ELEMENTS (types),
                           G_CALLBACK (report_response_cb));
}
