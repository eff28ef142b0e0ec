/* tsl-window-actions.c: the window's actions, dialogs and recent files
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "tsl-window"

#include "config.h"

#include <glib/gi18n.h>

#include "tsl-window-private.h"

#define MAX_RECENT 10

void
_tsl_window_show_error (TslWindow  *self,
                        const char *heading,
                        const char *body)
{
  AdwMessageDialog *dialog;

  dialog = ADW_MESSAGE_DIALOG (adw_message_dialog_new (GTK_WINDOW (self), heading, body));
  adw_message_dialog_add_response (dialog, "close", _("_Close"));
  adw_message_dialog_set_default_response (dialog, "close");
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
add_filter (GtkFileChooser *chooser,
            const char     *name,
            const char    **patterns,
            const char    **mime_types)
{
  g_autoptr(GtkFileFilter) filter = gtk_file_filter_new ();

  gtk_file_filter_set_name (filter, name);
  for (guint i = 0; patterns && patterns[i]; i++)
    gtk_file_filter_add_pattern (filter, patterns[i]);
  for (guint i = 0; mime_types && mime_types[i]; i++)
    gtk_file_filter_add_mime_type (filter, mime_types[i]);
  gtk_file_chooser_add_filter (chooser, filter);
}

static void
chooser_response_cb (GtkNativeDialog *dialog,
                     int              response,
                     TslWindow       *self)
{
  g_autoptr(GListModel) files = NULL;

  if (response == GTK_RESPONSE_ACCEPT)
    {
      files = gtk_file_chooser_get_files (GTK_FILE_CHOOSER (dialog));
      /* Several files: one timeline, a group per file. */
      if (g_list_model_get_n_items (files) > 1)
        {
          g_autoptr(GPtrArray) all = g_ptr_array_new_with_free_func (g_object_unref);
          TslWindow *window = self;

          for (guint i = 0; i < g_list_model_get_n_items (files); i++)
            g_ptr_array_add (all, g_list_model_get_item (files, i));
          if (!tsl_window_is_empty (self))
            {
              window = tsl_window_new (TSL_APPLICATION (gtk_window_get_application (GTK_WINDOW (self))));
              gtk_window_present (GTK_WINDOW (window));
            }
          tsl_window_open_merged (window, (GFile **) all->pdata, all->len, NULL);
          g_clear_object (&self->chooser);
          return;
        }
      for (guint i = 0; i < g_list_model_get_n_items (files); i++)
        {
          g_autoptr(GFile) file = g_list_model_get_item (files, i);

          if (tsl_window_is_empty (self))
            tsl_window_open (self, file);
          else
            g_application_open (g_application_get_default (), &file, 1, "");
        }
    }

  g_clear_object (&self->chooser);
}

static void
open_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *param)
{
  TslWindow *self = TSL_WINDOW (widget);
  static const char *trace_patterns[] = {
    "*.json", "*.json.gz", "*.trace", "*.perf", "*.perf.txt", "*.txt", "*.folded",
    "*.collapsed", "*.out", "*.gz", "*.pftrace", "*.perfetto-trace", "*.pb", "*.zst", NULL
  };
  static const char *trace_mimes[] = { "application/json", "application/gzip", "application/zstd", NULL };
  static const char *metric_patterns[] = { "*.csv", "*.tsv", "*.csv.gz", "*.tsv.gz", "*.csv.zst",
                                           "*.tsv.zst", NULL };
  static const char *metric_mimes[] = { "text/csv", "text/tab-separated-values", NULL };
  static const char *all_patterns[] = { "*", NULL };
  GtkFileChooser *chooser;

  if (self->chooser != NULL)
    {
      gtk_native_dialog_show (GTK_NATIVE_DIALOG (self->chooser));
      return;
    }

  self->chooser = gtk_file_chooser_native_new (_("Open Trace or Metric File"),
                                               GTK_WINDOW (self),
                                               GTK_FILE_CHOOSER_ACTION_OPEN,
                                               _("_Open"), _("_Cancel"));
  chooser = GTK_FILE_CHOOSER (self->chooser);
  gtk_file_chooser_set_select_multiple (chooser, TRUE);

  /* Formats are sniffed from content, so these filters only help browsing. */
  add_filter (chooser, _("Traces and Metrics"), NULL, NULL);
  {
    g_autoptr(GListModel) filters = gtk_file_chooser_get_filters (chooser);
    g_autoptr(GtkFileFilter) first = g_list_model_get_item (filters, 0);

    for (guint i = 0; trace_patterns[i]; i++)
      gtk_file_filter_add_pattern (first, trace_patterns[i]);
    for (guint i = 0; metric_patterns[i]; i++)
      gtk_file_filter_add_pattern (first, metric_patterns[i]);
  }
  add_filter (chooser, _("Profiler Traces"), trace_patterns, trace_mimes);
  add_filter (chooser, _("Metric Files (CSV, TSV)"), metric_patterns, metric_mimes);
  add_filter (chooser, _("All Files"), all_patterns, NULL);

  g_signal_connect_object (self->chooser, "response", G_CALLBACK (chooser_response_cb), self, 0);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (self->chooser));
}

static void
open_example_action (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *param)
{
  TslWindow *self = TSL_WINDOW (widget);
  GtkApplication *app = gtk_window_get_application (GTK_WINDOW (self));
  g_autoptr(GFile) example = tsl_application_dup_example (TSL_APPLICATION (app));

  if (example == NULL)
    {
      _tsl_window_show_error (self, _("Example Trace Not Found"),
                              _("The bundled example trace is not installed."));
      return;
    }

  if (tsl_window_is_empty (self))
    tsl_window_open (self, example);
  else
    g_application_open (G_APPLICATION (app), &example, 1, "");
}

static void
open_recent_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *param)
{
  TslWindow *self = TSL_WINDOW (widget);
  g_autoptr(GFile) file = g_file_new_for_uri (g_variant_get_string (param, NULL));

  if (tsl_window_is_empty (self))
    tsl_window_open (self, file);
  else
    g_application_open (g_application_get_default (), &file, 1, "");
}

static void
stop_loading_action (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *param)
{
  TslWindow *self = TSL_WINDOW (widget);

  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  _tsl_window_merge_stop (self);
}

static void
find_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *param)
{
  TslWindow *self = TSL_WINDOW (widget);

  gtk_search_bar_set_search_mode (self->search_bar, TRUE);
  gtk_widget_grab_focus (GTK_WIDGET (self->search_entry));
}

static int
compare_recent (gconstpointer a,
                gconstpointer b)
{
  GDateTime *da = gtk_recent_info_get_modified (*(GtkRecentInfo **) a);
  GDateTime *db = gtk_recent_info_get_modified (*(GtkRecentInfo **) b);

  return g_date_time_compare (db, da);
}

void
_tsl_window_update_recent (TslWindow *self)
{
  GtkRecentManager *manager = gtk_recent_manager_get_default ();
  g_autoptr(GPtrArray) mine = g_ptr_array_new_with_free_func ((GDestroyNotify) gtk_recent_info_unref);
  GList *items = gtk_recent_manager_get_items (manager);

  for (GList *l = items; l; l = l->next)
    {
      GtkRecentInfo *info = l->data;

      if (gtk_recent_info_has_application (info, "Timeslice") && gtk_recent_info_exists (info))
        g_ptr_array_add (mine, gtk_recent_info_ref (info));
    }
  g_list_free_full (items, (GDestroyNotify) gtk_recent_info_unref);

  g_ptr_array_sort (mine, compare_recent);

  g_menu_remove_all (self->recent_section);
  for (guint i = 0; i < mine->len && i < MAX_RECENT; i++)
    {
      GtkRecentInfo *info = g_ptr_array_index (mine, i);
      g_autoptr(GMenuItem) item = g_menu_item_new (gtk_recent_info_get_display_name (info), NULL);

      g_menu_item_set_action_and_target (item, "win.open-recent", "s", gtk_recent_info_get_uri (info));
      g_menu_append_item (self->recent_section, item);
    }

  if (mine->len == 0)
    {
      g_autoptr(GMenuItem) item = g_menu_item_new (_("No Recent Files"), "win.no-recent");
      g_menu_append_item (self->recent_section, item);
    }
}

/* Loaded and nothing has a place on the timeline: no range to compare. */
static gboolean
has_no_tracks (TslWindow *self)
{
  TslSnapshot *snapshot = tsl_timeline_view_get_snapshot (self->timeline);

  return self->file != NULL && !tsl_window_is_loading (self) &&
         snapshot != NULL && tsl_snapshot_get_n_tracks (snapshot) == 0;
}

void
_tsl_window_update_actions (TslWindow *self)
{
  gboolean no_tracks = has_no_tracks (self);

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.stop-loading",
                                 tsl_window_is_loading (self));
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.export", self->file != NULL);
  /* A report describes one input file, and compares ranges of its tracks. */
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.export-report",
                                 self->file != NULL && self->parts == NULL && !no_tracks);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.restore-ranges", !no_tracks);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.file-offsets", self->parts != NULL);
  gtk_widget_set_sensitive (GTK_WIDGET (self->select_b_button), !no_tracks);
  tsl_compare_panel_set_no_tracks (self->compare_panel, no_tracks);
  /* The ranges button names the file instead of inviting a drag. */
  if (no_tracks != self->no_tracks)
    {
      self->no_tracks = no_tracks;
      _tsl_window_update_ranges (self);
    }

  /* Tools that act on an open file stay out of the empty window's way. */
  gtk_widget_set_visible (GTK_WIDGET (self->select_b_button), self->file != NULL);
  gtk_widget_set_visible (GTK_WIDGET (self->follow_button), self->file != NULL);
  gtk_widget_set_visible (GTK_WIDGET (self->search_button), self->file != NULL);
  /* Never enabled: it only labels the empty recent list. */
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.no-recent", FALSE);
}

/* "win.all-flows", a check item of the main menu (and "v" on the
 * timeline): its state is the timeline's, whichever changed it. */
void
_tsl_window_actions_init (TslWindow *self)
{
  g_autoptr(GPropertyAction) all_flows = g_property_action_new ("all-flows", self->timeline, "all-flows");

  g_action_map_add_action (G_ACTION_MAP (self), G_ACTION (all_flows));
}

void
_tsl_window_class_actions_init (TslWindowClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  gtk_widget_class_install_action (widget_class, "win.open", NULL, open_action);
  gtk_widget_class_install_action (widget_class, "win.open-example", NULL, open_example_action);
  gtk_widget_class_install_action (widget_class, "win.open-recent", "s", open_recent_action);
  gtk_widget_class_install_action (widget_class, "win.stop-loading", NULL, stop_loading_action);
  gtk_widget_class_install_action (widget_class, "win.no-recent", NULL, NULL);
  gtk_widget_class_install_action (widget_class, "win.find", NULL, find_action);
  gtk_widget_class_install_action (widget_class, "win.export", NULL, _tsl_window_export_action);
  gtk_widget_class_install_action (widget_class, "win.export-report", NULL, _tsl_window_report_action);
  gtk_widget_class_install_action (widget_class, "win.clear-ranges", NULL, _tsl_window_clear_ranges_action);
  gtk_widget_class_install_action (widget_class, "win.restore-ranges", NULL, _tsl_window_restore_ranges_action);
  /* An entry with the focus keeps Ctrl+Z for its own text. */
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_z, GDK_CONTROL_MASK, "win.restore-ranges", NULL);
  gtk_widget_class_install_action (widget_class, "win.file-offsets", NULL, _tsl_window_offsets_action);

  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "win.stop-loading", NULL);
}
