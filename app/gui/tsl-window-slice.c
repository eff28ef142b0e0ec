/* tsl-window-slice.c: the details of a clicked slice
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * In the exact view every slice is where the file has it, so a click names
 * one call: its name, thread, start, duration, self time (less its direct
 * children) and the calls it is nested in. Shown in a side pane, selectable
 * and copyable. A Chrome event's category and arguments are not held in
 * memory: they are read back from the file at the event's position, on a
 * worker thread (tsl-event-details.h), and added when they arrive.
 */
#define G_LOG_DOMAIN "tsl-window"

#include "config.h"

#include <glib/gi18n.h>

#include "tsl-event-details.h"
#include "tsl-window-private.h"

/* What the pane shows before the details arrive, to append them to. */
typedef struct {
  GFile   *file;
  gint64   offset;
  GString *text;
  GString *markup;
} DetailsRequest;

static void
details_request_free (gpointer data)
{
  DetailsRequest *request = data;

  g_object_unref (request->file);
  g_string_free (request->text, TRUE);
  g_string_free (request->markup, TRUE);
  g_free (request);
}

static void
append_field (GString    *text,
              GString    *markup,
              const char *label,
              const char *value)
{
  g_autofree char *escaped = g_markup_escape_text (value, -1);

  g_string_append_printf (text, "%s: %s\n", label, value);
  g_string_append_printf (markup, "<b>%s</b>\n%s\n\n", label, escaped);
}

static void
set_details (TslWindow  *self,
             const char *text,
             const char *markup)
{
  gtk_label_set_markup (self->slice_label, markup);
  g_object_set_data_full (G_OBJECT (self->slice_label), "text", g_strdup (text), g_free);
}

static void
read_details_thread (GTask        *task,
                     gpointer      source,
                     gpointer      task_data,
                     GCancellable *cancellable)
{
  DetailsRequest *request = task_data;
  GError *error = NULL;
  GPtrArray *fields = tsl_slice_details_read (request->file, request->offset, cancellable, &error);

  if (fields == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, fields, (GDestroyNotify) g_ptr_array_unref);
}

static void
details_read (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  TslWindow *self = TSL_WINDOW (source);
  DetailsRequest *request = g_task_get_task_data (G_TASK (result));
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) fields = g_task_propagate_pointer (G_TASK (result), &error);
  gboolean args_seen = FALSE;

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  if (fields == NULL)
    append_field (request->text, request->markup, _("Arguments"), error->message);
  for (guint i = 0; fields != NULL && i < fields->len; i++)
    {
      TslEventField *field = g_ptr_array_index (fields, i);

      /* Name and times are shown above, from the exact slice. */
      if (g_str_equal (field->key, "cat"))
        append_field (request->text, request->markup, _("Category"), field->value);
      else if (g_str_equal (field->key, "ph"))
        append_field (request->text, request->markup, _("Phase"), field->value);
      else if (g_str_equal (field->key, "note"))
        append_field (request->text, request->markup, _("Note"), field->value);
      else if (g_str_has_prefix (field->key, "args."))
        {
          if (!args_seen)
            {
              g_string_append_printf (request->text, "%s:\n", _("Arguments"));
              g_string_append_printf (request->markup, "<span size=\"larger\"><b>%s</b></span>\n\n",
                                      _("Arguments"));
              args_seen = TRUE;
            }
          append_field (request->text, request->markup, field->key + 5, field->value);
        }
    }
  set_details (self, request->text->str, request->markup->str);
}

void
_tsl_window_cancel_slice_details (TslWindow *self)
{
  if (self->slice_cancellable != NULL)
    g_cancellable_cancel (self->slice_cancellable);
  g_clear_object (&self->slice_cancellable);
}

void
_tsl_window_show_slice (TslWindow   *self,
                        TslSnapshot *snapshot,
                        guint        track_index,
                        guint        slice_index)
{
  const TslSnapshotTrack *track = tsl_snapshot_get_track (snapshot, track_index);
  const TslSnapshotSlice *slice = &track->slices[slice_index];
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(GString) markup = g_string_new (NULL);
  g_autoptr(GString) stack = g_string_new (NULL);
  /* To the nanosecond: the pane is where exact times are read off. */
  g_autofree char *start = g_strdup_printf ("%.9f s", (double) slice->start_ns / 1e9);
  g_autofree char *rounded = tsl_duration_format ((double) (slice->end_ns - slice->start_ns));
  g_autofree char *duration = g_strdup_printf ("%s (%'" G_GINT64_FORMAT " ns)", rounded,
                                               slice->end_ns - slice->start_ns);
  g_autofree char *self_time = NULL;
  g_autofree char *thread = NULL;

  self_time = tsl_duration_format ((double) tsl_snapshot_slice_self_time (track, slice_index));
  thread = track->process
    ? g_strdup_printf ("%s (tid %" G_GINT64_FORMAT ") · %s (pid %" G_GINT64_FORMAT ")",
                       track->name, track->tid, track->process, track->pid)
    : g_strdup_printf ("%s (tid %" G_GINT64_FORMAT ")", track->name, track->tid);

  /* Root first: walk up the parents, then print them in reverse. */
  {
    g_autoptr(GArray) path = g_array_new (FALSE, FALSE, sizeof (guint));

    for (guint i = slice_index; i != G_MAXUINT; i = tsl_snapshot_slice_parent (track, i))
      g_array_prepend_val (path, i);
    for (guint i = 0; i < path->len; i++)
      g_string_append_printf (stack, "%s%s", i ? " › " : "",
                              tsl_snapshot_get_frame_name (snapshot, track->slices[g_array_index (path, guint, i)].frame));
  }

  append_field (text, markup, _("Name"), tsl_snapshot_get_frame_name (snapshot, slice->frame));
  append_field (text, markup, _("Thread"), thread);
  append_field (text, markup, _("Start"), start);
  append_field (text, markup, _("Duration"), duration);
  append_field (text, markup, _("Self time"), self_time);
  append_field (text, markup, _("Nested in"), stack->str);

  set_details (self, text->str, markup->str);
  gtk_revealer_set_reveal_child (self->slice_revealer, TRUE);

  _tsl_window_cancel_slice_details (self);
  /* A merged snapshot's offsets are of several files: no arguments read back. */
  if (self->file != NULL && self->parts == NULL &&
      (g_strcmp0 (tsl_snapshot_get_format (snapshot), "chrome-json") == 0 ||
       g_strcmp0 (tsl_snapshot_get_format (snapshot), "perfetto-proto") == 0))
    {
      DetailsRequest *request = g_new0 (DetailsRequest, 1);
      g_autoptr(GTask) task = NULL;

      request->file = g_object_ref (self->file);
      request->offset = slice->offset;
      request->text = g_steal_pointer (&text);
      request->markup = g_steal_pointer (&markup);
      self->slice_cancellable = g_cancellable_new ();
      task = g_task_new (self, self->slice_cancellable, details_read, NULL);
      g_task_set_task_data (task, request, details_request_free);
      g_task_run_in_thread (task, read_details_thread);
    }
}

static void
copy_slice_action (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *param)
{
  TslWindow *self = TSL_WINDOW (widget);
  const char *text = g_object_get_data (G_OBJECT (self->slice_label), "text");

  if (text != NULL)
    gdk_clipboard_set_text (gtk_widget_get_clipboard (widget), text);
}

static void
close_slice_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *param)
{
  TslWindow *self = TSL_WINDOW (widget);

  _tsl_window_cancel_slice_details (self);
  gtk_revealer_set_reveal_child (self->slice_revealer, FALSE);
  /* Closing the details ends the selection, and its flows go. */
  tsl_timeline_view_set_selection (self->timeline, NULL, 0, 0, 0, 0, NULL);
  gtk_widget_grab_focus (GTK_WIDGET (self->timeline));
}

void
_tsl_window_slice_class_init (GtkWidgetClass *widget_class)
{
  gtk_widget_class_bind_template_child (widget_class, TslWindow, slice_revealer);
  gtk_widget_class_bind_template_child (widget_class, TslWindow, slice_label);
  gtk_widget_class_bind_template_callback (widget_class, _tsl_window_show_slice);
  gtk_widget_class_install_action (widget_class, "win.copy-slice", NULL, copy_slice_action);
  gtk_widget_class_install_action (widget_class, "win.close-slice", NULL, close_slice_action);
}
