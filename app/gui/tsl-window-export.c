/* tsl-window-export.c: File ▸ Export from the window
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Reports are drawn with core's painter on a worker thread, from an immutable
 * snapshot, and written atomically: a failed export leaves no partial file.
 */
#define G_LOG_DOMAIN "tsl-window"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "tsl-export.h"
#include "tsl-window-private.h"

typedef struct {
  TslSnapshot      *snapshot;
  TslTrace         *trace;
  TslRenderOptions  options;
  char             *title;
  char             *table_csv;  /* the compare table, formatted on the main thread */
  gint64           *collapsed;
  char             *selection_track; /* the worker's copies of the widget's strings */
  char             *selection_name;
  char             *mark_track;
  TslExportFormat   format;
  GFile            *file;
  gboolean          zoomed;     /* CSV: the view's slices, not every sample */
} ExportJob;

static void
export_job_free (ExportJob *job)
{
  g_clear_pointer (&job->snapshot, tsl_snapshot_unref);
  g_clear_object (&job->trace);
  g_clear_object (&job->file);
  g_free (job->title);
  g_free (job->table_csv);
  g_free (job->collapsed);
  g_free (job->selection_track);
  g_free (job->selection_name);
  g_free (job->mark_track);
  g_free (job);
}

static void
export_worker (GTask        *task,
               gpointer      source_object,
               gpointer      task_data,
               GCancellable *cancellable)
{
  ExportJob *job = task_data;
  g_autoptr(GError) error = NULL;
  gboolean ok;

  if (job->table_csv != NULL)
    {
      ok = tsl_export_replace_contents (job->file, job->table_csv, strlen (job->table_csv),
                                        cancellable, &error);
    }
  else if (job->format == TSL_EXPORT_CSV)
    {
      g_autoptr(GOutputStream) memory = g_memory_output_stream_new_resizable ();

      if (job->zoomed)
        ok = tsl_export_write_view (job->snapshot, job->options.view_start_ns, job->options.view_end_ns,
                                    NULL, memory, cancellable, &error);
      else
        {
          /* Copy under the lock, write to disk without it. */
          tsl_trace_lock (job->trace);
          ok = tsl_export_write_samples (job->trace, memory, cancellable, &error);
          tsl_trace_unlock (job->trace);
        }

      ok = ok && g_output_stream_close (memory, cancellable, &error);
      ok = ok && tsl_export_replace_contents (job->file,
                                              g_memory_output_stream_get_data (G_MEMORY_OUTPUT_STREAM (memory)),
                                              g_memory_output_stream_get_data_size (G_MEMORY_OUTPUT_STREAM (memory)),
                                              cancellable, &error);
    }
  else
    {
      ok = tsl_export_timeline (job->snapshot, &job->options, job->format, job->file, cancellable, &error);
    }

  if (!ok)
    g_task_return_error (task, g_steal_pointer (&error));
  else
    g_task_return_boolean (task, TRUE);
}

static void
open_export_cb (AdwToast  *toast,
                TslWindow *self)
{
  GFile *file = g_object_get_data (G_OBJECT (toast), "file");
  g_autofree char *uri = g_file_get_uri (file);

  gtk_show_uri (GTK_WINDOW (self), uri, GDK_CURRENT_TIME);
}

void
_tsl_window_export_done (TslWindow    *self,
                         GFile        *file,
                         GAsyncResult *result)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *name = g_file_get_basename (file);

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      g_autofree char *heading = g_strdup_printf (_("Could Not Export “%s”"), name);

      _tsl_window_show_error (self, heading, error->message);
      return;
    }

  {
    g_autofree char *text = g_strdup_printf (_("Exported “%s”"), name);
    AdwToast *toast = adw_toast_new (text);

    adw_toast_set_button_label (toast, _("_Open"));
    g_object_set_data_full (G_OBJECT (toast), "file", g_object_ref (file), g_object_unref);
    g_signal_connect_object (toast, "button-clicked", G_CALLBACK (open_export_cb), self, 0);
    adw_toast_overlay_add_toast (self->toast_overlay, toast);
  }
}

static void
export_done_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(TslWindow) self = user_data;
  ExportJob *job = g_task_get_task_data (G_TASK (result));

  _tsl_window_export_done (self, job->file, result);
}

static char *
format_compare_table (TslWindow *self)
{
  GListModel *model = tsl_compare_panel_get_model (self->compare_panel);
  guint n = g_list_model_get_n_items (model);
  g_autoptr(GPtrArray) items = g_ptr_array_new_with_free_func (g_object_unref);
  g_autofree const TslCompareRow **rows = g_new0 (const TslCompareRow *, MAX (n, 1));

  /* As shown: the panel's filter and sort order. */
  for (guint i = 0; i < n; i++)
    {
      TslCompareItem *item = g_list_model_get_item (model, i);

      g_ptr_array_add (items, item);
      rows[i] = tsl_compare_item_get_row (item);
    }

  return tsl_compare_format_csv (rows, n);
}

/* Starts the export of what the window shows to `file`: the timeline as a
 * picture, or as CSV the samples (zoomed in: the slices of the view, as
 * `timeslice export --view` writes them) or (`table`) the compare table. */
void
_tsl_window_export_to (TslWindow *self,
                       GFile     *file,
                       gboolean   table)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *name = g_file_get_basename (file);
  /* As shown: zoomed in, the re-read of the view (its own samples or every
   * slice), not the whole trace's coarse samples (issue 18). */
  TslSnapshot *snapshot = tsl_timeline_view_get_shown_snapshot (self->timeline);
  ExportJob *job;
  gint64 view_start, view_end;
  TslExportFormat format;

  if (snapshot == NULL || self->loader == NULL)
    return;

  if (!tsl_export_format_from_name (name, &format, &error))
    {
      _tsl_window_show_error (self, _("Unknown Report Type"),
                              _("Name the file with .png, .svg, .pdf or .csv at the end."));
      return;
    }

  job = g_new0 (ExportJob, 1);
  job->snapshot = tsl_snapshot_ref (snapshot);
  job->trace = g_object_ref (tsl_document_loader_get_trace (self->loader));
  job->format = format;
  job->file = g_object_ref (file);
  job->title = g_file_get_basename (self->file);
  if (table && format == TSL_EXPORT_CSV)
    job->table_csv = format_compare_table (self);
  tsl_timeline_view_get_visible_time (self->timeline, &view_start, &view_end);
  job->zoomed = view_start > 0 || view_end < tsl_snapshot_get_span (snapshot);

  /* As shown: the visible time window, ranges and tracks at the window's
   * scale and scroll, plus a title and the sampling note so the picture
   * explains itself (issue 32: it was every track, 9,790 pt tall). A PDF
   * puts them on the locale's paper. */
  tsl_timeline_view_get_render_options (self->timeline, &job->options);
  /* The worker must not read the widget's own array. */
  job->collapsed = g_memdup2 (job->options.collapsed, sizeof (gint64) * job->options.n_collapsed);
  job->options.collapsed = job->collapsed;
  /* The flows drawn are the window's: the selected slice's, or all. */
  job->selection_track = g_strdup (job->options.selection_track);
  job->options.selection_track = job->selection_track;
  job->selection_name = g_strdup (job->options.selection_name);
  job->options.selection_name = job->selection_name;
  job->mark_track = g_strdup (job->options.mark_track);
  job->options.mark_track = job->mark_track;
  job->options.highlight = NULL;
  job->options.has_crosshair = FALSE;
  job->options.title = job->title;
  job->options.draw_note = TRUE;
  {
    TslRenderOptions plain = job->options;
    double shown;

    plain.title = NULL;
    shown = plain.height - tsl_render_header_height (&plain);
    /* The tracks the window shows, not the empty space below the last. */
    shown = MIN (shown, tsl_render_content_height (snapshot, &job->options) - job->options.scroll_y);
    if (job->options.width >= TSL_RENDER_MIN_LABEL_WIDTH * 2 && shown > 0)
      job->options.height = tsl_render_header_height (&job->options) + shown + TSL_EXPORT_NOTE_HEIGHT + 8;
    else
      {
        /* A timeline not laid out yet (the file just opened): every track. */
        job->options.scroll_y = 0;
        job->options.width = MAX (job->options.width, 800);
        job->options.height = MIN (tsl_export_natural_height (snapshot, &job->options), 20000);
      }
  }

  task = g_task_new (self, self->cancellable, export_done_cb, g_object_ref (self));
  g_task_set_source_tag (task, _tsl_window_export_to);
  g_task_set_task_data (task, job, (GDestroyNotify) export_job_free);
  g_task_run_in_thread (task, export_worker);
}

GFile *
_tsl_window_chooser_get_file (GtkFileChooser *chooser,
                              gboolean      (*has_extension) (const char *name))
{
  g_autoptr(GFile) file = gtk_file_chooser_get_file (chooser);
  GtkFileFilter *filter = gtk_file_chooser_get_filter (chooser);
  g_autofree char *name = g_file_get_basename (file);

  /* No extension typed: take the one of the chosen filter. */
  if (!has_extension (name) && filter != NULL)
    {
      const char *ext = g_object_get_data (G_OBJECT (filter), "extension");
      g_autofree char *with_ext = g_strconcat (name, ext, NULL);
      g_autoptr(GFile) parent = g_file_get_parent (file);

      return g_file_get_child (parent, with_ext);
    }
  return g_steal_pointer (&file);
}

static gboolean
has_export_extension (const char *name)
{
  TslExportFormat format;

  return tsl_export_format_from_name (name, &format, NULL);
}

static void
export_response_cb (GtkNativeDialog *dialog,
                    int              response,
                    TslWindow       *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      GtkFileFilter *filter = gtk_file_chooser_get_filter (GTK_FILE_CHOOSER (dialog));
      g_autoptr(GFile) file = _tsl_window_chooser_get_file (GTK_FILE_CHOOSER (dialog), has_export_extension);

      _tsl_window_export_to (self, file,
                             filter != NULL && g_object_get_data (G_OBJECT (filter), "table") != NULL);
    }

  g_object_unref (dialog);
}

void
_tsl_window_save_dialog (TslWindow              *self,
                         const char             *title,
                         const char             *suffix,
                         const TslWindowSaveType *types,
                         guint                   n_types,
                         GCallback               response)
{
  GtkFileChooserNative *chooser;
  g_autofree char *base = NULL;
  g_autofree char *suggested = NULL;

  chooser = gtk_file_chooser_native_new (title, GTK_WINDOW (self),
                                         GTK_FILE_CHOOSER_ACTION_SAVE, _("_Export"), _("_Cancel"));

  for (guint i = 0; i < n_types; i++)
    {
      g_autoptr(GtkFileFilter) filter = gtk_file_filter_new ();

      gtk_file_filter_set_name (filter, _(types[i].name));
      gtk_file_filter_add_pattern (filter, types[i].pattern);
      g_object_set_data (G_OBJECT (filter), "extension", (gpointer) types[i].ext);
      if (types[i].table)
        g_object_set_data (G_OBJECT (filter), "table", GINT_TO_POINTER (1));
      gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (chooser), filter);
    }

  base = g_file_get_basename (self->file);
  if (strchr (base, '.'))
    *strchr (base, '.') = '\0';
  suggested = g_strconcat (base, suffix, NULL);
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (chooser), suggested);

  g_signal_connect_object (chooser, "response", response, self, 0);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

void
_tsl_window_export_action (GtkWidget  *widget,
                           const char *action_name,
                           GVariant   *param)
{
  TslWindow *self = TSL_WINDOW (widget);
  static const TslWindowSaveType types[] = {
    { N_("PNG Image"), "*.png", ".png", FALSE },
    { N_("SVG Image"), "*.svg", ".svg", FALSE },
    { N_("PDF Document"), "*.pdf", ".pdf", FALSE },
    { N_("CSV of the Samples"), "*.csv", ".csv", FALSE },
    { N_("CSV of the Compare Table"), "*.csv", ".csv", TRUE },
  };

  if (self->file == NULL)
    return;

  _tsl_window_save_dialog (self, _("Export Timeline"), "-timeline.png", types, G_N_ELEMENTS (types),
                           G_CALLBACK (export_response_cb));
}
