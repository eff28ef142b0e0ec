/* tsl-window-changes.c: the file's change points marked, listed, and compared either side
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Once a file is read, a worker finds its change points as `timeslice
 * changes` does, from the same cache (tsl-changes-load.h). The significant
 * ones are marked on the overview and the ruler and listed in the Changes
 * popover; choosing one (a click on a mark, a row, or ] and [) sets A to
 * the stretch before it and B to the stretch after it, up to the series'
 * neighbouring change points, and the compare table explains it.
 */
#define G_LOG_DOMAIN "tsl-window"

#include "config.h"

#include <math.h>

#include <glib/gi18n.h>

#include "tsl-changes-load.h"
#include "tsl-window-private.h"

/* More than this many are a list nobody reads: the strongest are kept. */
#define MAX_SHOWN 200

struct _TslWindowChanges
{
  GCancellable *cancellable;  /* the search under way */
  GPtrArray    *rows;         /* TslChangeRow *: every row, most important first … */
  GPtrArray    *shown;        /* … and the significant ones, marked and listed (borrowed) */
  int           current;      /* the one chosen, -1: none */
};

static void
show_marks (TslWindow *self)
{
  TslWindowChanges *changes = self->changes;
  guint n = changes->shown != NULL ? changes->shown->len : 0;
  g_autofree gint64 *times = g_new (gint64, n + 1);

  for (guint i = 0; i < n; i++)
    times[i] = (gint64) llround (((TslChangeRow *) g_ptr_array_index (changes->shown, i))->time_s * 1e9);
  tsl_overview_set_change_marks (self->overview, times, n, changes->current);
  tsl_timeline_view_set_change_marks (self->timeline, times, n, changes->current);
}

static void
set_button (TslWindow  *self,
            const char *label,
            const char *heading)
{
  gtk_menu_button_set_label (self->changes_button, label);
  tsl_changes_list_set_heading (self->changes_list, heading);
}

void
_tsl_window_changes_clear (TslWindow *self)
{
  TslWindowChanges *changes = self->changes;

  if (changes == NULL)
    return;
  if (changes->cancellable != NULL)
    g_cancellable_cancel (changes->cancellable);
  g_clear_object (&changes->cancellable);
  tsl_changes_list_set_rows (self->changes_list, NULL);
  g_clear_pointer (&changes->shown, g_ptr_array_unref);
  g_clear_pointer (&changes->rows, g_ptr_array_unref);
  changes->current = -1;
  show_marks (self);
  gtk_widget_set_visible (GTK_WIDGET (self->changes_button), FALSE);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.next-change", FALSE);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.previous-change", FALSE);
}

static void
find_thread (GTask        *task,
             gpointer      source,
             gpointer      task_data,
             GCancellable *cancellable)
{
  const TslCompareRequest *request = task_data;
  GError *error = NULL;
  GPtrArray *rows = tsl_changes_load (request, NULL, NULL, cancellable, &error);

  if (rows == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, rows, (GDestroyNotify) g_ptr_array_unref);
}

static void
found_cb (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  TslWindow *self = TSL_WINDOW (object);
  TslWindowChanges *changes = self->changes;
  g_autoptr(GPtrArray) rows = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *label = NULL;
  g_autofree char *heading = NULL;
  guint n = 0;

  rows = g_task_propagate_pointer (G_TASK (result), &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) || changes == NULL ||
      g_task_get_cancellable (G_TASK (result)) != changes->cancellable)
    return;
  g_clear_object (&changes->cancellable);

  if (rows == NULL)
    {
      /* A pipe or a damaged file: the rest of the window works without. */
      g_debug ("no change points: %s", error->message);
      set_button (self, _("C_hanges"), error->message);
      return;
    }

  /* Significant rows come first; the rest are not shown, but may bound
   * the stretches either side of those that are. */
  changes->shown = g_ptr_array_new ();
  while (n < rows->len && n < MAX_SHOWN && ((TslChangeRow *) g_ptr_array_index (rows, n))->significant)
    g_ptr_array_add (changes->shown, g_ptr_array_index (rows, n++));
  changes->rows = g_steal_pointer (&rows);
  changes->current = -1;
  tsl_changes_list_set_rows (self->changes_list, changes->shown);
  show_marks (self);

  /* Translators: the header button of the list of change points */
  label = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u C_hange", "%u C_hanges", n), n);
  heading = n == 0
            ? g_strdup (_("No series changed significantly anywhere in the file."))
            : g_strdup (_("Choose one to compare the stretch before it (A) with the stretch after it (B); ] and [ step through them."));
  set_button (self, label, heading);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.next-change", n > 0);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.previous-change", n > 0);
  /* bench and the ui test wait for this (G_MESSAGES_DEBUG=tsl-window). */
  g_debug ("change points: %u significant", n);
}

void
_tsl_window_changes_start (TslWindow *self)
{
  TslWindowChanges *changes = self->changes;
  TslTrace *trace = self->loader ? tsl_document_loader_get_trace (self->loader) : NULL;
  g_autoptr(TslCompareRequest) request = NULL;
  g_autoptr(GTask) task = NULL;
  g_autofree char *path = NULL;

  _tsl_window_changes_clear (self);
  /* Merged files and pipes: nothing to search by range. */
  if (self->parts != NULL || self->file == NULL || trace == NULL ||
      (path = g_file_get_path (self->file)) == NULL)
    return;

  request = tsl_compare_request_new ();
  request->path = g_steal_pointer (&path);
  request->a = (TslRangeSpec) { 0, 1, TRUE };
  /* The command's defaults, so that `timeslice changes` and the window
   * share a cache entry when the budgets agree. */
  request->k = TSL_CHANGES_DEFAULT_K;
  request->budget = tsl_budget_ref (tsl_trace_get_budget (trace));

  changes->cancellable = g_cancellable_new ();
  set_button (self, _("C_hanges"), _("Finding where each series changed…"));
  gtk_widget_set_visible (GTK_WIDGET (self->changes_button), TRUE);

  task = g_task_new (self, changes->cancellable, found_cb, NULL);
  g_task_set_source_tag (task, _tsl_window_changes_start);
  g_task_set_task_data (task, g_steal_pointer (&request), (GDestroyNotify) tsl_compare_request_free);
  g_task_run_in_thread (task, find_thread);
}

void
_tsl_window_changes_choose (TslWindow *self,
                            guint      index)
{
  TslWindowChanges *changes = self->changes;
  TslSnapshot *snapshot = tsl_timeline_view_get_snapshot (self->timeline);
  const TslChangeRow *row;
  gint64 t, start, end, margin;
  double before_s, after_s;

  if (changes->shown == NULL || index >= changes->shown->len || snapshot == NULL)
    return;
  row = g_ptr_array_index (changes->rows, index);
  if (!tsl_changes_stretches (changes->rows, index, 0, (double) tsl_snapshot_get_span (snapshot) / 1e9,
                              &before_s, &after_s))
    return;
  t = (gint64) llround (row->time_s * 1e9);
  start = (gint64) llround (before_s * 1e9);
  end = MIN ((gint64) llround (after_s * 1e9), tsl_snapshot_get_span (snapshot));

  changes->current = (int) index;
  show_marks (self);
  tsl_changes_list_select (self->changes_list, (int) index);
  /* B last: setting it runs the compare of both (tsl-window-ranges.c). */
  tsl_timeline_view_set_range (self->timeline, TSL_RANGE_A, start, t);
  tsl_timeline_view_set_range (self->timeline, TSL_RANGE_B, t, end);
  margin = (end - start) / 20;
  tsl_timeline_view_set_visible_time (self->timeline, MAX (start - margin, 0), end + margin);
}

static void
step (TslWindow *self,
      int        delta)
{
  TslWindowChanges *changes = self->changes;
  int n = changes->shown != NULL ? (int) changes->shown->len : 0;

  if (n == 0)
    return;
  /* In order of importance, as listed; around at either end. */
  _tsl_window_changes_choose (self, (guint) ((changes->current < 0 && delta < 0 ? 0 : changes->current + delta + n) % n));
}

static void
next_change_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *param)
{
  step (TSL_WINDOW (widget), 1);
}

static void
previous_change_action (GtkWidget  *widget,
                        const char *action_name,
                        GVariant   *param)
{
  step (TSL_WINDOW (widget), -1);
}

gboolean
_tsl_window_changes_handle_key (TslWindow       *self,
                                guint            keyval,
                                GdkModifierType  state)
{
  if (state & (GDK_CONTROL_MASK | GDK_ALT_MASK | GDK_SUPER_MASK))
    return FALSE;
  if (keyval == GDK_KEY_bracketright)
    return gtk_widget_activate_action (GTK_WIDGET (self), "win.next-change", NULL);
  if (keyval == GDK_KEY_bracketleft)
    return gtk_widget_activate_action (GTK_WIDGET (self), "win.previous-change", NULL);
  return FALSE;
}

static void
on_change_activated (TslWindow *self,
                     guint      index)
{
  gtk_menu_button_popdown (self->changes_button);
  _tsl_window_changes_choose (self, index);
}

int
_tsl_window_changes_get_current (TslWindow *self)
{
  return self->changes->current;
}

GPtrArray *
_tsl_window_changes_get_rows (TslWindow *self)
{
  return self->changes->shown;
}

void
_tsl_window_changes_class_init (GtkWidgetClass *widget_class)
{
  gtk_widget_class_bind_template_child (widget_class, TslWindow, overview);
  gtk_widget_class_bind_template_child (widget_class, TslWindow, changes_button);
  gtk_widget_class_bind_template_child (widget_class, TslWindow, changes_list);
  gtk_widget_class_install_action (widget_class, "win.next-change", NULL, next_change_action);
  gtk_widget_class_install_action (widget_class, "win.previous-change", NULL, previous_change_action);
}

void
_tsl_window_changes_init (TslWindow *self)
{
  self->changes = g_new0 (TslWindowChanges, 1);
  self->changes->current = -1;
  g_signal_connect_object (self->overview, "change-activated",
                           G_CALLBACK (on_change_activated), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->changes_list, "change-activated",
                           G_CALLBACK (on_change_activated), self, G_CONNECT_SWAPPED);
  _tsl_window_changes_clear (self);
}

void
_tsl_window_changes_dispose (TslWindow *self)
{
  if (self->changes == NULL)
    return;
  if (self->changes->cancellable != NULL)
    g_cancellable_cancel (self->changes->cancellable);
  g_clear_object (&self->changes->cancellable);
  g_clear_pointer (&self->changes->shown, g_ptr_array_unref);
  g_clear_pointer (&self->changes->rows, g_ptr_array_unref);
  g_clear_pointer (&self->changes, g_free);
}
