/* tsl-window-merge.c: several files as one timeline
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each file has its own loader and trace (memory O(files × tracks × K));
 * the timeline shows tsl_snapshot_new_merged() of their snapshots: one
 * group per file, on one axis, aligned by their clocks where they share
 * one (tsl_snapshot_align()), else each from 0, plus an offset the user
 * gives (--offset, File Offsets…, or Ctrl+drag on a file's header).
 * Moving a file merges the same snapshots again; nothing is re-read. The
 * compare panel reads a range from the file it lies in, so A in one file
 * and B in another compare two runs; each file is searched for change
 * points on its own (tsl-window-changes.c). Part 0 is the window's own loader
 * (progress, warnings, follow); zoomed-in re-reads and slice details,
 * which read one file, are off while merged.
 */
#define G_LOG_DOMAIN "tsl-window"

#include "config.h"

#include <glib/gi18n.h>

#include "tsl-duration.h"
#include "tsl-render.h"
#include "tsl-window-private.h"

struct _TslWindowPart
{
  GFile             *file;
  char              *name;
  TslDocumentLoader *loader;
  GCancellable      *cancellable;
  TslSnapshot       *snapshot;   /* the last taken of its trace */
  gint64             offset;     /* the user's shift, ns */
  gboolean           done;
};

void
_tsl_window_part_free (gpointer data)
{
  TslWindowPart *part = data;

  if (part->loader != NULL)
    g_signal_handlers_disconnect_matched (part->loader, G_SIGNAL_MATCH_FUNC, 0, 0, NULL,
                                          _tsl_window_merge_refresh, NULL);
  if (part->cancellable != NULL)
    g_cancellable_cancel (part->cancellable);
  g_clear_object (&part->cancellable);
  g_clear_object (&part->file);
  g_clear_object (&part->loader);
  g_clear_pointer (&part->snapshot, tsl_snapshot_unref);
  g_free (part->name);
  g_free (part);
}

void
_tsl_window_merge_stop (TslWindow *self)
{
  for (guint i = 0; self->parts != NULL && i < self->parts->len; i++)
    {
      TslWindowPart *part = g_ptr_array_index (self->parts, i);

      if (part->cancellable != NULL)
        g_cancellable_cancel (part->cancellable);
    }
}

gboolean
_tsl_window_merge_is_loading (TslWindow *self)
{
  for (guint i = 0; self->parts != NULL && i < self->parts->len; i++)
    if (!((TslWindowPart *) g_ptr_array_index (self->parts, i))->done)
      return TRUE;
  return FALSE;
}

/* The merged snapshot of the parts' last snapshots; `retake` copies each
 * trace anew (while they load). */
static TslSnapshot *
merge (TslWindow *self,
       gboolean   retake)
{
  guint n = self->parts->len;
  g_autofree TslSnapshot **snapshots = g_new0 (TslSnapshot *, n);
  g_autofree const char **names = g_new0 (const char *, n);
  g_autofree gint64 *starts = g_new0 (gint64, n);
  g_autofree gint64 *spans = g_new0 (gint64, n);
  g_autofree gint64 *positions = g_new0 (gint64, n);

  for (guint i = 0; i < n; i++)
    {
      TslWindowPart *part = g_ptr_array_index (self->parts, i);

      if (retake || part->snapshot == NULL)
        {
          g_clear_pointer (&part->snapshot, tsl_snapshot_unref);
          part->snapshot = tsl_snapshot_new (tsl_document_loader_get_trace (part->loader));
        }
      snapshots[i] = part->snapshot;
      names[i] = part->name;
      starts[i] = tsl_snapshot_get_start (part->snapshot);
      spans[i] = tsl_snapshot_get_span (part->snapshot);
    }

  tsl_snapshot_align (starts, spans, n, positions);
  for (guint i = 0; i < n; i++)
    positions[i] += ((TslWindowPart *) g_ptr_array_index (self->parts, i))->offset;
  return tsl_snapshot_new_merged (snapshots, names, positions, n);
}

static void
hand_to_compare (TslWindow   *self,
                 TslSnapshot *merged)
{
  g_autofree GFile **files = g_new0 (GFile *, self->parts->len);

  if (_tsl_window_merge_is_loading (self))
    return;
  for (guint i = 0; i < self->parts->len; i++)
    files[i] = ((TslWindowPart *) g_ptr_array_index (self->parts, i))->file;
  tsl_compare_panel_set_parts (self->compare_panel, files, self->parts->len, merged);
}

void
_tsl_window_merge_add_warnings (TslWindow            *self,
                                TslWindowAddWarnings  add,
                                GPtrArray            *messages,
                                GArray               *counts)
{
  for (guint i = 0; self->parts != NULL && i < self->parts->len; i++)
    {
      TslWindowPart *part = g_ptr_array_index (self->parts, i);

      if (part->loader != NULL)
        add (tsl_document_loader_get_trace (part->loader), part->name, messages, counts);
    }
}

TslSnapshot *
_tsl_window_merge_snapshot (TslWindow *self)
{
  TslSnapshot *merged = merge (self, TRUE);

  hand_to_compare (self, merged);
  return merged;
}

gboolean
_tsl_window_merge_get_part (TslWindow   *self,
                            guint        i,
                            GFile      **file,
                            TslTrace   **trace,
                            const char **name)
{
  TslWindowPart *part;

  if (self->parts == NULL || i >= self->parts->len)
    return FALSE;
  part = g_ptr_array_index (self->parts, i);
  *file = part->file;
  *trace = part->loader != NULL ? tsl_document_loader_get_trace (part->loader) : NULL;
  *name = part->name;
  return TRUE;
}

/* The parts moved: the same snapshots, merged again. */
static void
relayout (TslWindow *self)
{
  g_autoptr(TslSnapshot) merged = merge (self, FALSE);

  tsl_timeline_view_set_snapshot (self->timeline, merged);
  hand_to_compare (self, merged);
  /* Change points are times in their own file: their marks move with it. */
  _tsl_window_changes_relayout (self);
  _tsl_window_search_update (self);
  _tsl_window_flame_update_snapshot (self);
  _tsl_window_update_status (self);
}

void
_tsl_window_merge_refresh (TslWindow *self)
{
  g_autoptr(TslSnapshot) merged = NULL;

  if (self->parts == NULL)
    return;
  merged = _tsl_window_merge_snapshot (self);
  tsl_timeline_view_set_snapshot (self->timeline, merged);
  _tsl_window_update_status (self);
  _tsl_window_update_warnings (self);
}

static void
part_load_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(TslWindow) self = user_data;
  TslDocumentLoader *loader = TSL_DOCUMENT_LOADER (object);
  g_autoptr(GError) error = NULL;

  g_signal_handlers_disconnect_by_data (loader, self);
  if (!tsl_document_loader_load_finish (loader, result, &error) &&
      !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_autofree char *name = g_file_get_basename (tsl_document_loader_get_file (loader));
      g_autofree char *heading = g_strdup_printf (_("Could Not Read “%s”"), name);

      _tsl_window_show_error (self, heading, error->message);
    }
  _tsl_window_merge_part_done (self, loader);
}

/* A range lying in the first two files by default: A = all of the first,
 * B = all of the second (two runs). */
static void
set_default_ranges (TslWindow   *self,
                    TslSnapshot *merged)
{
  gint64 position[2], span[2];

  if (tsl_snapshot_get_n_parts (merged) < 2 ||
      tsl_timeline_view_get_range (self->timeline, TSL_RANGE_A, NULL, NULL) ||
      tsl_timeline_view_get_range (self->timeline, TSL_RANGE_B, NULL, NULL))
    return;
  for (guint i = 0; i < 2; i++)
    tsl_snapshot_get_part (merged, i, NULL, &position[i], &span[i]);
  tsl_timeline_view_set_range_group (self->timeline, TSL_RANGE_A, 1);
  tsl_timeline_view_set_range_group (self->timeline, TSL_RANGE_B, 2);
  tsl_timeline_view_set_range (self->timeline, TSL_RANGE_A, position[0], position[0] + span[0]);
  tsl_timeline_view_set_range (self->timeline, TSL_RANGE_B, position[1], position[1] + span[1]);
}

void
_tsl_window_merge_part_done (TslWindow         *self,
                             TslDocumentLoader *loader)
{
  for (guint i = 0; self->parts != NULL && i < self->parts->len; i++)
    {
      TslWindowPart *part = g_ptr_array_index (self->parts, i);

      if (part->loader == loader)
        part->done = TRUE;
    }
  _tsl_window_merge_loaded (self);
}

void
_tsl_window_merge_loaded (TslWindow *self)
{
  g_autoptr(TslSnapshot) merged = NULL;

  if (self->parts == NULL || _tsl_window_merge_is_loading (self))
    return;

  merged = _tsl_window_merge_snapshot (self);
  tsl_timeline_view_set_snapshot (self->timeline, merged);
  _tsl_window_update_warnings (self);
  /* The flame page draws the merged samples; ranges of one file are not re-read. */
  tsl_flame_view_set_source (self->flame_view, NULL, NULL, tsl_snapshot_get_k (merged));
  _tsl_window_flame_update_snapshot (self);
  set_default_ranges (self, merged);
  _tsl_window_update_status (self);
  _tsl_window_update_actions (self);
  /* Every file read: each is searched for change points on its own. */
  _tsl_window_changes_start (self);
}

void
tsl_window_open_merged (TslWindow    *self,
                        GFile       **files,
                        guint         n_files,
                        const gint64 *offsets)
{
  g_autoptr(GString) title = g_string_new (NULL);

  g_return_if_fail (TSL_IS_WINDOW (self));
  g_return_if_fail (n_files > 0);

  tsl_window_open (self, files[0]);
  if (n_files == 1)
    return;

  self->parts = g_ptr_array_new_with_free_func (_tsl_window_part_free);
  for (guint i = 0; i < n_files; i++)
    {
      TslWindowPart *part = g_new0 (TslWindowPart, 1);

      part->file = g_object_ref (files[i]);
      part->name = g_file_get_basename (files[i]);
      part->offset = offsets != NULL ? offsets[i] : 0;
      g_string_append_printf (title, "%s%s", i > 0 ? " + " : "", part->name);
      g_ptr_array_add (self->parts, part);
      if (i == 0)
        {
          /* The window's own load: load_cb marks it done. */
          part->loader = g_object_ref (self->loader);
          continue;
        }
      {
        g_autoptr(TslTrace) trace = _tsl_window_new_trace (self);

        part->loader = tsl_document_loader_new (files[i], trace);
      }
      part->cancellable = g_cancellable_new ();
      g_signal_connect_object (part->loader, "notify::events",
                               G_CALLBACK (_tsl_window_merge_refresh), self, G_CONNECT_SWAPPED);
      tsl_document_loader_load_async (part->loader, part->cancellable, part_load_cb, g_object_ref (self));
    }

  adw_view_switcher_title_set_title (self->window_title, title->str);
  gtk_label_set_label (self->file_label, title->str);
  gtk_window_set_title (GTK_WINDOW (self), title->str);
}

guint
tsl_window_get_n_files (TslWindow *self)
{
  g_return_val_if_fail (TSL_IS_WINDOW (self), 0);

  return self->parts != NULL ? self->parts->len : self->file != NULL;
}

gint64
tsl_window_get_file_offset (TslWindow *self,
                            guint      i)
{
  g_return_val_if_fail (TSL_IS_WINDOW (self), 0);

  if (self->parts == NULL || i >= self->parts->len)
    return 0;
  return ((TslWindowPart *) g_ptr_array_index (self->parts, i))->offset;
}

void
tsl_window_set_file_offset (TslWindow *self,
                            guint      i,
                            gint64     offset)
{
  TslSnapshot *before;
  TslWindowPart *part;
  gint64 delta, position = 0, span = 0;

  g_return_if_fail (TSL_IS_WINDOW (self));

  if (self->parts == NULL || i >= self->parts->len)
    return;
  part = g_ptr_array_index (self->parts, i);
  delta = offset - part->offset;
  if (delta == 0)
    return;
  part->offset = offset;

  /* A range lying in the moved file moves with it. */
  before = tsl_timeline_view_get_snapshot (self->timeline);
  if (before != NULL && tsl_snapshot_get_part (before, i, NULL, &position, &span))
    for (TslRangeId r = TSL_RANGE_A; r <= TSL_RANGE_B; r++)
      {
        gint64 lo, hi;

        gint64 group = tsl_timeline_view_get_range_group (self->timeline, r);

        if (tsl_timeline_view_get_range (self->timeline, r, &lo, &hi) &&
            (group > 0 ? group == (gint64) i + 1 : tsl_snapshot_find_part (before, lo, hi) == i))
          tsl_timeline_view_set_range (self->timeline, r, lo + delta, hi + delta);
      }
  relayout (self);
}

void
_tsl_window_merge_group_moved (TslWindow       *self,
                               gint64           pid,
                               gint64           delta_ns,
                               TslTimelineView *view)
{
  /* A merged snapshot's groups are its files, pid = index + 1. */
  if (self->parts == NULL || pid < 1 || pid > self->parts->len)
    return;
  tsl_window_set_file_offset (self, (guint) (pid - 1),
                              tsl_window_get_file_offset (self, (guint) (pid - 1)) + delta_ns);
}

/* File ▸ File Offsets…: an entry per file, its shift as a duration. */
static void
offsets_response (AdwMessageDialog *dialog,
                  const char       *response,
                  TslWindow        *self)
{
  GtkWidget *grid = adw_message_dialog_get_extra_child (dialog);

  if (g_strcmp0 (response, "apply") != 0 || self->parts == NULL)
    return;
  for (guint i = 0; i < self->parts->len; i++)
    {
      GtkWidget *entry = gtk_grid_get_child_at (GTK_GRID (grid), 1, (int) i);
      const char *text = gtk_editable_get_text (GTK_EDITABLE (entry));
      g_autoptr(GError) error = NULL;
      gboolean negative = text[0] == '-';
      double ns = 0;

      if (!tsl_duration_parse (negative ? text + 1 : text, &ns, &error))
        {
          g_autofree char *heading = g_strdup_printf (_("Not an Offset: “%s”"), text);

          _tsl_window_show_error (self, heading, error->message);
          return;
        }
      tsl_window_set_file_offset (self, i, (gint64) (negative ? -ns : ns));
    }
}

void
_tsl_window_offsets_action (GtkWidget  *widget,
                            const char *action_name,
                            GVariant   *param)
{
  TslWindow *self = TSL_WINDOW (widget);
  GtkWidget *dialog, *grid;

  if (self->parts == NULL)
    return;

  dialog = adw_message_dialog_new (GTK_WINDOW (self), _("File Offsets"),
                                   _("Shift a file along the time axis, e.g. “1.5 s” or “-200 ms”. "
                                     "Ctrl+drag a file’s header does the same."));
  grid = gtk_grid_new ();
  gtk_grid_set_row_spacing (GTK_GRID (grid), 6);
  gtk_grid_set_column_spacing (GTK_GRID (grid), 12);
  for (guint i = 0; i < self->parts->len; i++)
    {
      TslWindowPart *part = g_ptr_array_index (self->parts, i);
      GtkWidget *label = gtk_label_new (part->name);
      GtkWidget *entry = gtk_entry_new ();
      g_autofree char *text = part->offset == 0 ? g_strdup ("0 s")
                              : part->offset < 0 ? g_strdup_printf ("-%s", tsl_duration_format ((double) -part->offset))
                              : tsl_duration_format ((double) part->offset);

      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_editable_set_text (GTK_EDITABLE (entry), text);
      gtk_entry_set_activates_default (GTK_ENTRY (entry), TRUE);
      gtk_grid_attach (GTK_GRID (grid), label, 0, (int) i, 1, 1);
      gtk_grid_attach (GTK_GRID (grid), entry, 1, (int) i, 1, 1);
    }
  adw_message_dialog_set_extra_child (ADW_MESSAGE_DIALOG (dialog), grid);
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog),
                                    "cancel", _("_Cancel"), "apply", _("_Apply"), NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "apply", ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "apply");
  g_signal_connect_object (dialog, "response", G_CALLBACK (offsets_response), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}
