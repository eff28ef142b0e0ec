/* tsl-window-search.c: find a function, and go from match to match
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The search bar highlights every call of the name (or pattern, with * and
 * ?) and counts them; Enter and Shift+Enter (or Ctrl+G, Shift+Ctrl+G) go to
 * the next and previous one in time order: the view centres on it, zoomed
 * in enough to show it, scrolled to its track, and outlines it.
 *
 * The snapshot holds samples, not calls (issue 32: "10 of 61" where the
 * trace held 2,494): a regular file is read once more in the background,
 * every event seen (tsl_search_scan_new()), so the count is of the trace's
 * calls and each is visited at its own start, end and depth. A pipe or a
 * merge of files can only be searched in what the snapshot holds, and the
 * count says so.
 */
#define G_LOG_DOMAIN "tsl-window"

#include "config.h"

#include <glib/gi18n.h>

#include "tsl-read-stream.h"
#include "tsl-render.h"
#include "tsl-search.h"
#include "tsl-window-private.h"

/* Calls kept for navigation (32 bytes each); more are counted. */
#define SEARCH_MAX_CALLS 1000000

/* What a match's `track` indexes: a track of whichever trace it came
 * from, found again in the snapshot shown when it is visited. */
typedef struct {
  TslTrackKind kind;
  gint64       pid;
  gint64       tid;
  guint        trace_index;
} SearchTrack;

static void
update_count (TslWindow *self)
{
  g_autofree char *text = NULL;
  guint n = self->search_matches ? self->search_matches->len : 0;
  guint64 found = MAX (self->search_found, n);
  g_autofree char *calls = g_strdup_printf ("%'" G_GUINT64_FORMAT, found);
  const char *query = gtk_editable_get_text (GTK_EDITABLE (self->search_entry));

  if (query == NULL || *query == '\0')
    text = g_strdup ("");
  else if (self->search_cancellable != NULL)
    text = g_strdup (_("Counting calls…"));
  else if (n == 0)
    text = g_strdup (_("No matches"));
  else if (self->search_whole && self->search_index < 0)
    /* TRANSLATORS: calls of the searched name in the whole trace */
    text = g_strdup_printf (g_dngettext (NULL, "%s call in the trace", "%s calls in the trace", found), calls);
  else if (self->search_whole)
    /* TRANSLATORS: the current search match, and how many calls the trace holds */
    text = g_strdup_printf (g_dngettext (NULL, "%d of %s call in the trace", "%d of %s calls in the trace", found),
                            self->search_index + 1, calls);
  else if (self->search_index < 0)
    /* TRANSLATORS: a pipe or merged files: only what is drawn is searched */
    text = g_strdup_printf (g_dngettext (NULL, "%u match among the samples", "%u matches among the samples", n), n);
  else
    /* TRANSLATORS: the current search match and how many there are among the samples */
    text = g_strdup_printf (g_dngettext (NULL, "%d of %u among the samples", "%d of %u among the samples", n),
                            self->search_index + 1, n);
  gtk_label_set_text (self->search_count_label, text);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.search-next", n > 0);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.search-previous", n > 0);
}

void
_tsl_window_search_clear (TslWindow *self)
{
  if (self->search_cancellable != NULL)
    g_cancellable_cancel (self->search_cancellable);
  g_clear_object (&self->search_cancellable);
  g_clear_pointer (&self->search_matches, g_array_unref);
  g_clear_pointer (&self->search_tracks, g_array_unref);
  self->search_index = -1;
  self->search_found = 0;
  self->search_whole = FALSE;
  tsl_timeline_view_set_mark (self->timeline, NULL, 0, 0, 0, 0);
}

/* The snapshot's own matches, each track named by what identifies it. */
static void
search_snapshot (TslWindow   *self,
                 TslSnapshot *snapshot,
                 const char  *query)
{
  self->search_matches = tsl_search_find (snapshot, query);
  self->search_tracks = g_array_new (FALSE, FALSE, sizeof (SearchTrack));
  for (guint t = 0; t < tsl_snapshot_get_n_tracks (snapshot); t++)
    {
      const TslSnapshotTrack *track = tsl_snapshot_get_track (snapshot, t);
      SearchTrack st = { track->kind, track->pid, track->tid, track->trace_index };

      g_array_append_val (self->search_tracks, st);
    }
  /* A snapshot with every slice of the trace holds every call. */
  self->search_whole = tsl_snapshot_get_exact (snapshot, NULL, NULL);
  self->search_found = self->search_matches->len;
}

typedef struct {
  char      *path;
  char      *text;
  TslBudget *budget;
  GArray    *matches;   /* results */
  GArray    *tracks;
  guint64    found;
} ScanData;

static void
scan_data_free (ScanData *data)
{
  g_free (data->path);
  g_free (data->text);
  g_clear_pointer (&data->matches, g_array_unref);
  g_clear_pointer (&data->tracks, g_array_unref);
  g_free (data);
}

static void
scan_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  ScanData *data = task_data;
  g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_COUNT, 16, TSL_WINDOW_SEED);
  g_autoptr(TslSearchScan) scan = NULL;
  g_autoptr(GArray) sampled = NULL;
  GError *error = NULL;

  tsl_trace_set_budget (trace, data->budget);
  /* Only the observer's calls are wanted, not samples of them. */
  tsl_trace_set_observe_metrics_only (trace, TRUE);
  scan = tsl_search_scan_new (trace, data->text, SEARCH_MAX_CALLS);
  if (!tsl_read_path_full (trace, data->path, TSL_READER_THREADS_NEVER, NULL, NULL, cancellable, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  data->matches = tsl_search_scan_finish (scan, &data->found, &sampled);
  /* A sampled profile has no calls to count; its matches would be runs
   * of samples, which a whole-file count cannot mix with. */
  if (sampled->len > 0)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED, "sampled profile");
      return;
    }
  data->tracks = g_array_new (FALSE, FALSE, sizeof (SearchTrack));
  for (guint t = 0; t < tsl_trace_get_n_tracks (trace); t++)
    {
      SearchTrack st = { tsl_trace_track_get_kind (trace, t), tsl_trace_track_get_pid (trace, t),
                         tsl_trace_track_get_tid (trace, t), t };

      g_array_append_val (data->tracks, st);
    }
  g_task_return_boolean (task, TRUE);
}

static void
scan_done_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  TslWindow *self = TSL_WINDOW (object);
  ScanData *data = g_task_get_task_data (G_TASK (result));
  g_autoptr(GError) error = NULL;

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        return;
      /* Unreadable now, or a profile: what the snapshot holds stays. */
      g_debug ("search: the whole-file count failed: %s", error->message);
      g_clear_object (&self->search_cancellable);
      update_count (self);
      return;
    }
  g_debug ("search: %" G_GUINT64_FORMAT " calls in the file", data->found);
  g_clear_object (&self->search_cancellable);
  g_clear_pointer (&self->search_matches, g_array_unref);
  g_clear_pointer (&self->search_tracks, g_array_unref);
  self->search_matches = g_steal_pointer (&data->matches);
  self->search_tracks = g_steal_pointer (&data->tracks);
  self->search_found = data->found;
  self->search_whole = TRUE;
  self->search_index = -1;
  update_count (self);
}

/* A regular file, read alone: it can be read again for every call. */
static char *
scannable_path (TslWindow *self)
{
  g_autofree char *path = NULL;

  if (self->file == NULL || self->loader == NULL || self->parts != NULL)
    return NULL;
  path = g_file_get_path (self->file);
  if (path == NULL || !g_file_test (path, G_FILE_TEST_IS_REGULAR))
    return NULL;
  return g_steal_pointer (&path);
}

void
_tsl_window_search_update (TslWindow *self)
{
  TslSnapshot *snapshot = tsl_timeline_view_get_snapshot (self->timeline);
  const char *query = gtk_editable_get_text (GTK_EDITABLE (self->search_entry));
  g_autofree char *path = NULL;

  _tsl_window_search_clear (self);
  if (snapshot != NULL && query != NULL && *query != '\0')
    {
      search_snapshot (self, snapshot, query);
      if (!self->search_whole && (path = scannable_path (self)) != NULL)
        {
          g_autoptr(GTask) task = NULL;
          ScanData *data = g_new0 (ScanData, 1);

          data->path = g_steal_pointer (&path);
          data->text = g_strdup (query);
          data->budget = tsl_trace_get_budget (tsl_document_loader_get_trace (self->loader));
          self->search_cancellable = g_cancellable_new ();
          task = g_task_new (self, self->search_cancellable, scan_done_cb, NULL);
          g_task_set_task_data (task, data, (GDestroyNotify) scan_data_free);
          g_task_run_in_thread (task, scan_thread);
        }
    }
  update_count (self);
}

void
_tsl_window_search_snapshot_changed (TslWindow *self)
{
  /* The file's calls do not change as it is drawn anew: the count and
   * the current match stay. Only what the snapshot alone held is redone. */
  if (self->search_whole || self->search_cancellable != NULL)
    return;
  _tsl_window_search_update (self);
}

/* The shown snapshot's index of the match's track, or -1. */
static int
find_track (TslWindow   *self,
            TslSnapshot *snapshot,
            guint        track)
{
  const SearchTrack *st = &g_array_index (self->search_tracks, SearchTrack, track);
  int found = -1;

  for (guint t = 0; t < tsl_snapshot_get_n_tracks (snapshot); t++)
    {
      const TslSnapshotTrack *s = tsl_snapshot_get_track (snapshot, t);

      if (s->kind != st->kind || s->pid != st->pid || s->tid != st->tid)
        continue;
      /* Async tracks of one thread differ by name: the same read order
       * gives them the same index. */
      if (found < 0 || s->trace_index == st->trace_index)
        found = t;
    }
  return found;
}

/* Centres the view on the match, zoomed to show it with room around it
 * unless the view already does, and scrolls its track into sight. */
static void
go_to (TslWindow *self,
       int        index)
{
  const TslSearchMatch *m = &g_array_index (self->search_matches, TslSearchMatch, index);
  TslSnapshot *snapshot = tsl_timeline_view_get_snapshot (self->timeline);
  const TslSnapshotTrack *track;
  int t = snapshot != NULL ? find_track (self, snapshot, m->track) : -1;
  gint64 vs, ve, width, len = MAX (m->end_ns - m->start_ns, 1), middle;
  TslRenderOptions o;
  GtkAdjustment *adj = tsl_timeline_view_get_vadjustment (self->timeline);
  double top, row, page;

  self->search_index = index;
  if (t < 0)
    {
      update_count (self);
      return;
    }
  track = tsl_snapshot_get_track (snapshot, t);
  tsl_timeline_view_get_visible_time (self->timeline, &vs, &ve);
  width = ve - vs;
  /* Too small to see (under 1/50 of the view) or too wide: frame it. */
  if (len * 50 < width || len * 6 > width * 5)
    width = MAX (len * 4, 1000);
  middle = m->start_ns + len / 2;
  tsl_timeline_view_set_visible_time (self->timeline, middle - width / 2, middle - width / 2 + width);
  tsl_timeline_view_set_mark (self->timeline, track->name, track->pid, m->depth, m->start_ns, m->end_ns);

  tsl_timeline_view_get_render_options (self->timeline, &o);
  /* The call's own row, which in a deep track may be far below its top. */
  top = tsl_render_track_top (snapshot, &o, t);
  row = tsl_render_row_top (snapshot, &o, t, m->depth);
  page = gtk_adjustment_get_page_size (adj);
  if (row < gtk_adjustment_get_value (adj) || row + 40 > gtk_adjustment_get_value (adj) + page)
    /* The track's top too when it fits, else the row a third down. */
    gtk_adjustment_set_value (adj, row + 40 - top <= page ? MAX (top - 20, 0) : MAX (row - page / 3, 0));
  update_count (self);
}

static void
step (TslWindow *self,
      gboolean   forward)
{
  guint n;
  int index;

  if (self->search_matches == NULL)
    _tsl_window_search_update (self);
  n = self->search_matches ? self->search_matches->len : 0;
  if (n == 0)
    return;
  if (self->search_index < 0)
    {
      gint64 vs, ve;

      /* From the view: the first match in it, or the last before it. */
      tsl_timeline_view_get_visible_time (self->timeline, &vs, &ve);
      index = tsl_search_first_from (self->search_matches, vs);
      if (!forward)
        index = (index + n - 1) % n;
    }
  else
    index = (self->search_index + (forward ? 1 : n - 1)) % n;
  go_to (self, index);
}

void
_tsl_window_search_next (TslWindow *self)
{
  step (self, TRUE);
}

void
_tsl_window_search_previous (TslWindow *self)
{
  step (self, FALSE);
}

static void
search_next_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *param)
{
  step (TSL_WINDOW (widget), TRUE);
}

static void
search_previous_action (GtkWidget  *widget,
                        const char *action_name,
                        GVariant   *param)
{
  step (TSL_WINDOW (widget), FALSE);
}

/* Shift+Enter in the entry: the entry itself only knows Enter. */
static gboolean
on_entry_key_pressed (GtkEventControllerKey *controller,
                      guint                  keyval,
                      guint                  keycode,
                      GdkModifierType        state,
                      TslWindow             *self)
{
  if ((keyval == GDK_KEY_Return || keyval == GDK_KEY_KP_Enter || keyval == GDK_KEY_ISO_Enter) &&
      (state & GDK_SHIFT_MASK) != 0)
    {
      step (self, FALSE);
      return TRUE;
    }
  return FALSE;
}

void
_tsl_window_search_init (TslWindow *self)
{
  GtkEventController *keys = gtk_event_controller_key_new ();

  self->search_index = -1;
  /* The entry sits in a box with the count and buttons, not directly in the bar. */
  gtk_search_bar_connect_entry (self->search_bar, GTK_EDITABLE (self->search_entry));
  gtk_event_controller_set_propagation_phase (keys, GTK_PHASE_CAPTURE);
  g_signal_connect_object (keys, "key-pressed", G_CALLBACK (on_entry_key_pressed), self, 0);
  gtk_widget_add_controller (GTK_WIDGET (self->search_entry), keys);
  update_count (self);
}

void
_tsl_window_search_class_init (GtkWidgetClass *widget_class)
{
  gtk_widget_class_bind_template_child (widget_class, TslWindow, search_count_label);
  gtk_widget_class_bind_template_callback (widget_class, _tsl_window_search_next);
  gtk_widget_class_bind_template_callback (widget_class, _tsl_window_search_previous);
  gtk_widget_class_install_action (widget_class, "win.search-next", NULL, search_next_action);
  gtk_widget_class_install_action (widget_class, "win.search-previous", NULL, search_previous_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_g, GDK_CONTROL_MASK, "win.search-next", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_g, GDK_CONTROL_MASK | GDK_SHIFT_MASK,
                                       "win.search-previous", NULL);
}
