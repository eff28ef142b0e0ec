/* tsl-window-changes.c: the file's change points marked, listed, and compared either side
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Once a file is read, a worker finds its change points as `timeslice
 * changes` does, from the same cache (tsl-changes-load.h). The significant
 * ones are marked on the overview and the ruler and listed in the Changes
 * popover; choosing one (a click on a mark, a row, or ] and [) sets A to
 * the stretch before it and B to the stretch after it, up to the series'
 * neighbouring change points, and the compare table explains it. Merged
 * files are searched each on its own, so no change point spans two files'
 * data; choosing one sets A and B within its file.
 */
#define G_LOG_DOMAIN "tsl-window"

#include "config.h"

#include <math.h>

#include <glib/gi18n.h>

#include "tsl-changes-load.h"
#include "tsl-render.h"
#include "tsl-window-private.h"

/* More than this many are a list nobody reads: the strongest are kept. */
#define MAX_SHOWN 200

/* Where a listed change point is. */
typedef struct {
  guint  file;    /* the merged file it was found in (0: the one file) */
  guint  index;   /* its row in that file's table */
  double effect;  /* orders merged files' change points together */
} Place;

struct _TslWindowChanges
{
  GCancellable *cancellable;  /* the search under way */
  GPtrArray    *tables;       /* per file (merged: per part), GPtrArray of TslChangeRow *,
                               * every row, most important first; NULL for a file not searched */
  GPtrArray    *shown;        /* the significant ones, marked and listed (borrowed) … */
  GArray       *places;       /* … and where each is (Place) */
  int           current;      /* the one chosen, -1: none */
};

/* What the worker searches: one request per file, NULL for one that cannot
 * be searched (a pipe). */
typedef struct {
  GPtrArray *requests;
} Search;

typedef struct {
  GPtrArray *tables;   /* as TslWindowChanges' */
  char      *error;    /* the first file's failure, if any */
} Found;

static void
search_free (Search *search)
{
  g_ptr_array_unref (search->requests);
  g_free (search);
}

static void
table_free (gpointer table)
{
  if (table != NULL)
    g_ptr_array_unref (table);
}

static void
found_free (Found *found)
{
  g_clear_pointer (&found->tables, g_ptr_array_unref);
  g_free (found->error);
  g_free (found);
}

/* Where file `file` lies on the timeline's axis and how long it is, ns. */
static gboolean
place_of_file (TslWindow *self,
               guint      file,
               gint64    *position,
               gint64    *span)
{
  TslSnapshot *snapshot = tsl_timeline_view_get_snapshot (self->timeline);

  *position = 0;
  if (snapshot == NULL)
    return FALSE;
  if (self->parts == NULL)
    {
      *span = tsl_snapshot_get_span (snapshot);
      return TRUE;
    }
  return tsl_snapshot_get_part (snapshot, file, NULL, position, span);
}

static const TslChangeRow *
shown_row (TslWindowChanges *changes,
           guint             i,
           GPtrArray       **table,
           guint            *index)
{
  const Place *place = &g_array_index (changes->places, Place, i);

  *table = g_ptr_array_index (changes->tables, place->file);
  *index = place->index;
  return g_ptr_array_index (*table, place->index);
}

static void
show_marks (TslWindow *self)
{
  TslWindowChanges *changes = self->changes;
  guint n = changes->shown != NULL ? changes->shown->len : 0;
  g_autofree gint64 *times = g_new (gint64, n + 1);
  guint marked = 0;

  for (guint i = 0; i < n; i++)
    {
      const Place *place = &g_array_index (changes->places, Place, i);
      const TslChangeRow *row = g_ptr_array_index (changes->shown, i);
      gint64 position, span;

      /* Every mark or none: a mark's index is its row's. */
      if (!place_of_file (self, place->file, &position, &span))
        break;
      times[marked++] = position + (gint64) llround (row->time_s * 1e9);
    }
  if (marked < n)
    marked = 0;
  tsl_overview_set_change_marks (self->overview, times, marked, changes->current);
  tsl_timeline_view_set_change_marks (self->timeline, times, marked, changes->current);
}

void
_tsl_window_changes_relayout (TslWindow *self)
{
  if (self->changes != NULL)
    show_marks (self);
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
  tsl_changes_list_set_rows (self->changes_list, NULL, NULL);
  g_clear_pointer (&changes->shown, g_ptr_array_unref);
  g_clear_pointer (&changes->places, g_array_unref);
  g_clear_pointer (&changes->tables, g_ptr_array_unref);
  changes->current = -1;
  show_marks (self);
  gtk_widget_set_visible (GTK_WIDGET (self->changes_button), FALSE);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.next-change", FALSE);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.previous-change", FALSE);
}

/* Each file on its own, one after the other: a change point never spans
 * two files' data, and each file's table is the one `timeslice changes
 * FILE` gives and caches. */
static void
find_thread (GTask        *task,
             gpointer      source,
             gpointer      task_data,
             GCancellable *cancellable)
{
  const Search *search = task_data;
  Found *found = g_new0 (Found, 1);

  found->tables = g_ptr_array_new_with_free_func (table_free);
  for (guint i = 0; i < search->requests->len; i++)
    {
      const TslCompareRequest *request = g_ptr_array_index (search->requests, i);
      g_autoptr(GError) error = NULL;
      GPtrArray *rows = request != NULL ? tsl_changes_load (request, NULL, NULL, cancellable, &error) : NULL;

      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          found_free (found);
          g_task_return_error (task, g_steal_pointer (&error));
          return;
        }
      if (error != NULL && found->error == NULL)
        found->error = g_strdup (error->message);
      g_ptr_array_add (found->tables, rows);
    }
  g_task_return_pointer (task, found, (GDestroyNotify) found_free);
}

/* `places` holds each file's rows in its table's order, file after file:
 * merged so that each file keeps its order (the command's) and, of the
 * files' next rows, the one of largest effect comes first. */
static GArray *
merge_by_effect (GArray *places,
                 guint   n_files)
{
  GArray *merged = g_array_sized_new (FALSE, FALSE, sizeof (Place), places->len);
  g_autofree guint *next = g_new0 (guint, n_files + 1);
  g_autofree guint *end = g_new0 (guint, n_files + 1);

  for (guint i = 0; i < places->len; i++)
    end[g_array_index (places, Place, i).file] = i + 1;
  for (guint f = 0, at = 0; f < n_files; f++)
    {
      next[f] = at;
      at = MAX (at, end[f]);
      end[f] = at;
    }
  while (merged->len < places->len)
    {
      const Place *best = NULL;
      guint best_file = 0;

      for (guint f = 0; f < n_files; f++)
        {
          const Place *head;

          if (next[f] >= end[f])
            continue;
          head = &g_array_index (places, Place, next[f]);
          if (best == NULL || head->effect > best->effect)
            {
              best = head;
              best_file = f;
            }
        }
      g_array_append_val (merged, *best);
      next[best_file]++;
    }
  return merged;
}

/* The significant rows of every table, with where each is: one file's in
 * its table's order; merged files' in their tables' orders, interleaved
 * by effect (relative change × seconds to the next change or the file's
 * end, which a cached table does not keep). */
static void
choose_shown (TslWindow *self)
{
  TslWindowChanges *changes = self->changes;

  changes->shown = g_ptr_array_new ();
  changes->places = g_array_new (FALSE, FALSE, sizeof (Place));
  for (guint f = 0; f < changes->tables->len; f++)
    {
      GPtrArray *table = g_ptr_array_index (changes->tables, f);
      gint64 position = 0, span = 0;

      if (table == NULL || !place_of_file (self, f, &position, &span))
        continue;
      for (guint i = 0; i < table->len && i < MAX_SHOWN; i++)
        {
          const TslChangeRow *row = g_ptr_array_index (table, i);
          Place place = { f, i, 0 };
          double before_s, after_s, larger;

          if (!row->significant)
            break;
          larger = MAX (fabs (row->before), fabs (row->after));
          if (self->parts != NULL && larger > 0 &&
              tsl_changes_stretches (table, i, 0, (double) span / 1e9, &before_s, &after_s))
            place.effect = fabs (row->after - row->before) / larger * (after_s - row->time_s);
          g_array_append_val (changes->places, place);
        }
    }
  if (self->parts != NULL)
    {
      GArray *merged = merge_by_effect (changes->places, changes->tables->len);

      g_array_unref (changes->places);
      changes->places = merged;
    }
  if (changes->places->len > MAX_SHOWN)
    g_array_set_size (changes->places, MAX_SHOWN);
  for (guint i = 0; i < changes->places->len; i++)
    {
      GPtrArray *table;
      guint index;

      g_ptr_array_add (changes->shown, (gpointer) shown_row (changes, i, &table, &index));
    }
}

static void
found_cb (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  TslWindow *self = TSL_WINDOW (object);
  TslWindowChanges *changes = self->changes;
  Found *found;
  g_autoptr(GError) error = NULL;
  g_autofree char *label = NULL;
  g_autofree char *heading = NULL;
  g_autofree const char **names = NULL;
  gboolean any = FALSE;
  guint n;

  found = g_task_propagate_pointer (G_TASK (result), &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) || changes == NULL ||
      g_task_get_cancellable (G_TASK (result)) != changes->cancellable)
    {
      if (found != NULL)
        found_free (found);
      return;
    }
  g_clear_object (&changes->cancellable);

  for (guint f = 0; found != NULL && f < found->tables->len; f++)
    any |= g_ptr_array_index (found->tables, f) != NULL;
  if (!any)
    {
      /* A pipe or a damaged file: the rest of the window works without. */
      const char *why = error != NULL ? error->message : found->error != NULL ? found->error : "";

      g_debug ("no change points: %s", why);
      set_button (self, _("C_hanges"), why);
      if (found != NULL)
        found_free (found);
      return;
    }
  if (found->error != NULL)
    g_debug ("change points of some files only: %s", found->error);

  /* Significant rows come first; the rest are not shown, but may bound
   * the stretches either side of those that are. */
  changes->tables = g_steal_pointer (&found->tables);
  found_free (found);
  changes->current = -1;
  choose_shown (self);
  n = changes->shown->len;
  if (self->parts != NULL)
    {
      names = g_new0 (const char *, n + 1);
      for (guint i = 0; i < n; i++)
        {
          GFile *file;
          TslTrace *trace;

          _tsl_window_merge_get_part (self, g_array_index (changes->places, Place, i).file, &file, &trace, &names[i]);
        }
    }
  tsl_changes_list_set_rows (self->changes_list, changes->shown, names);
  show_marks (self);

  /* Translators: the header button of the list of change points */
  label = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u C_hange", "%u C_hanges", n), n);
  heading = n > 0 ? g_strdup (_("Choose one to compare the stretch before it (A) with the stretch after it (B); ] and [ step through them."))
            : self->parts != NULL ? g_strdup (_("No series changed significantly anywhere in any of the files."))
            : g_strdup (_("No series changed significantly anywhere in the file."));
  set_button (self, label, heading);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.next-change", n > 0);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.previous-change", n > 0);
  /* bench and the ui test wait for this (G_MESSAGES_DEBUG=tsl-window). */
  g_debug ("change points: %u significant", n);
}

/* The `changes` command's request for `file`, NULL for a pipe. */
static TslCompareRequest *
request_for (GFile    *file,
             TslTrace *trace)
{
  TslCompareRequest *request;
  char *path;

  if (file == NULL || trace == NULL || (path = g_file_get_path (file)) == NULL)
    return NULL;
  request = tsl_compare_request_new ();
  request->path = path;
  request->a = (TslRangeSpec) { 0, 1, TRUE };
  /* The command's defaults, so that `timeslice changes` and the window
   * share a cache entry when the budgets agree. */
  request->k = TSL_CHANGES_DEFAULT_K;
  request->budget = tsl_budget_ref (tsl_trace_get_budget (trace));
  return request;
}

void
_tsl_window_changes_start (TslWindow *self)
{
  TslWindowChanges *changes = self->changes;
  g_autoptr(GTask) task = NULL;
  Search *search;
  gboolean any = FALSE;

  _tsl_window_changes_clear (self);
  if (self->parts != NULL && _tsl_window_merge_is_loading (self))
    return;

  search = g_new0 (Search, 1);
  search->requests = g_ptr_array_new_with_free_func ((GDestroyNotify) tsl_compare_request_free);
  if (self->parts == NULL)
    g_ptr_array_add (search->requests,
                     request_for (self->file, self->loader ? tsl_document_loader_get_trace (self->loader) : NULL));
  else
    {
      GFile *file;
      TslTrace *trace;
      const char *name;

      for (guint i = 0; _tsl_window_merge_get_part (self, i, &file, &trace, &name); i++)
        g_ptr_array_add (search->requests, request_for (file, trace));
    }
  for (guint i = 0; i < search->requests->len; i++)
    any |= g_ptr_array_index (search->requests, i) != NULL;
  /* Pipes only: nothing to search by range. */
  if (!any)
    {
      search_free (search);
      return;
    }

  changes->cancellable = g_cancellable_new ();
  set_button (self, _("C_hanges"), _("Finding where each series changed…"));
  gtk_widget_set_visible (GTK_WIDGET (self->changes_button), TRUE);

  task = g_task_new (self, changes->cancellable, found_cb, NULL);
  g_task_set_source_tag (task, _tsl_window_changes_start);
  g_task_set_task_data (task, search, (GDestroyNotify) search_free);
  g_task_run_in_thread (task, find_thread);
}

/* Merged: the file's header at the top of the timeline, so that its
 * ranges, shaded on its tracks only, are in view. */
static void
scroll_to_file (TslWindow *self,
                guint      file)
{
  TslSnapshot *snapshot = tsl_timeline_view_get_snapshot (self->timeline);
  TslRenderOptions o;

  tsl_timeline_view_get_render_options (self->timeline, &o);
  for (guint i = 0; i < tsl_snapshot_get_n_tracks (snapshot); i++)
    if (tsl_snapshot_get_track (snapshot, i)->pid == (gint64) file + 1)
      {
        double top = i > 0 ? tsl_render_track_top (snapshot, &o, i - 1) + tsl_render_track_height (snapshot, &o, i - 1) : 0;

        gtk_adjustment_set_value (tsl_timeline_view_get_vadjustment (self->timeline), top);
        return;
      }
}

void
_tsl_window_changes_choose (TslWindow *self,
                            guint      index)
{
  TslWindowChanges *changes = self->changes;
  const TslChangeRow *row;
  GPtrArray *table;
  guint file, row_index;
  gint64 position, span, t, start, end, margin;
  double before_s, after_s;

  if (changes->shown == NULL || index >= changes->shown->len)
    return;
  file = g_array_index (changes->places, Place, index).file;
  row = shown_row (changes, index, &table, &row_index);
  if (!place_of_file (self, file, &position, &span) ||
      !tsl_changes_stretches (table, row_index, 0, (double) span / 1e9, &before_s, &after_s))
    return;
  t = position + (gint64) llround (row->time_s * 1e9);
  start = position + (gint64) llround (before_s * 1e9);
  end = position + MIN ((gint64) llround (after_s * 1e9), span);

  changes->current = (int) index;
  show_marks (self);
  tsl_changes_list_select (self->changes_list, (int) index);
  /* Merged: both ranges in the change's file, which the compare reads. */
  if (self->parts != NULL)
    {
      tsl_timeline_view_set_range_group (self->timeline, TSL_RANGE_A, (gint64) file + 1);
      tsl_timeline_view_set_range_group (self->timeline, TSL_RANGE_B, (gint64) file + 1);
      scroll_to_file (self, file);
    }
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

guint
_tsl_window_changes_get_file (TslWindow *self,
                              guint      index)
{
  TslWindowChanges *changes = self->changes;

  if (changes->places == NULL || index >= changes->places->len)
    return 0;
  return g_array_index (changes->places, Place, index).file;
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
  g_clear_pointer (&self->changes->places, g_array_unref);
  g_clear_pointer (&self->changes->tables, g_ptr_array_unref);
  g_clear_pointer (&self->changes, g_free);
}
