/* tsl-window.c: the main window: a timeline, its ranges and the compare panel
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "tsl-window"

#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gi18n.h>

#include "tsl-first-view.h"
#include "tsl-range.h"
#include "tsl-render.h"
#include "tsl-overview.h"
#include "tsl-snapshot.h"
#include "tsl-window-private.h"

G_DEFINE_FINAL_TYPE (TslWindow, tsl_window, ADW_TYPE_APPLICATION_WINDOW)


static void
clear_list (GtkListBox *list)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (list))))
    gtk_list_box_remove (list, child);
}

/* Appends one trace's warnings, each after `prefix` (a merged file's
 * name) when there is one. */
static void
add_warnings_of (TslTrace   *trace,
                 const char *prefix,
                 GPtrArray  *messages,
                 GArray     *counts)
{
  g_autoptr(GArray) own = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_auto(GStrv) warnings = NULL;

  tsl_trace_lock (trace);
  warnings = tsl_trace_dup_warnings_counted (trace, own);
  tsl_trace_unlock (trace);
  for (guint i = 0; warnings != NULL && warnings[i] != NULL; i++)
    {
      g_ptr_array_add (messages, prefix != NULL ? g_strdup_printf ("%s: %s", prefix, warnings[i])
                                                : g_strdup (warnings[i]));
      g_array_append_val (counts, g_array_index (own, guint64, i));
    }
}

/* One row per kind of warning: the message, wrapped, and how often it
 * was seen; every merged file's, each named. */
void
_tsl_window_update_warnings (TslWindow *self)
{
  TslTrace *trace = tsl_document_loader_get_trace (self->loader);
  g_autoptr(GArray) counts = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_autoptr(GPtrArray) messages = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *label = NULL;
  char **warnings;
  guint n;

  if (self->parts == NULL)
    add_warnings_of (trace, NULL, messages, counts);
  else
    _tsl_window_merge_add_warnings (self, add_warnings_of, messages, counts);
  n = messages->len;
  warnings = (char **) messages->pdata;
  clear_list (self->warnings_list);
  for (guint i = 0; i < n; i++)
    {
      guint64 count = g_array_index (counts, guint64, i);
      g_autofree char *times = g_strdup_printf ("%'" G_GUINT64_FORMAT "×", count);
      GtkWidget *row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
      GtkWidget *message = gtk_label_new (warnings[i]);
      GtkWidget *number = gtk_label_new (times);

      gtk_label_set_xalign (GTK_LABEL (message), 0);
      gtk_label_set_wrap (GTK_LABEL (message), TRUE);
      gtk_label_set_wrap_mode (GTK_LABEL (message), PANGO_WRAP_WORD_CHAR);
      /* A wrapping label asks for its narrowest width; give it a line's. */
      gtk_label_set_width_chars (GTK_LABEL (message), 50);
      gtk_label_set_max_width_chars (GTK_LABEL (message), 70);
      gtk_label_set_selectable (GTK_LABEL (message), TRUE);
      gtk_widget_set_hexpand (message, TRUE);
      gtk_widget_add_css_class (number, "numeric");
      gtk_widget_add_css_class (number, "dim-label");
      gtk_label_set_yalign (GTK_LABEL (number), 0);
      gtk_box_append (GTK_BOX (row), message);
      gtk_box_append (GTK_BOX (row), number);
      gtk_widget_set_margin_top (row, 6);
      gtk_widget_set_margin_bottom (row, 6);
      gtk_widget_set_margin_start (row, 8);
      gtk_widget_set_margin_end (row, 8);
      gtk_list_box_append (self->warnings_list, row);
    }

  label = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u warning", "%u warnings", n), n);
  gtk_menu_button_set_label (self->warnings_button, label);
  gtk_widget_set_visible (GTK_WIDGET (self->warnings_button), n > 0);
}

/* Shows a consistent copy of the trace; cheap enough to run on each of the
 * loader's throttled notifications while a file loads, so the timeline fills in. */
static void
refresh_document (TslWindow *self)
{
  TslTrace *trace;
  g_autoptr(TslSnapshot) snapshot = NULL;

  if (self->loader == NULL)
    {
      tsl_timeline_view_set_snapshot (self->timeline, NULL);
      tsl_flame_view_set_snapshot (self->flame_view, NULL);
      return;
    }

  trace = tsl_document_loader_get_trace (self->loader);
  snapshot = self->parts != NULL ? _tsl_window_merge_snapshot (self) : tsl_snapshot_new (trace);
  tsl_timeline_view_set_snapshot (self->timeline, snapshot);
  tsl_compare_panel_set_tracks (self->compare_panel, snapshot);
  _tsl_window_search_snapshot_changed (self);
  _tsl_window_flame_update_snapshot (self);
  _tsl_window_update_warnings (self);
  /* A followed file that had no track may gain one. */
  _tsl_window_update_actions (self);

  _tsl_window_update_status (self);
}

/* What the status bar says about the picture: exact (every slice of the
 * view) or sampled, and how many events a sample stands for. Counted from
 * the tracks' own event counts: a CSV row is one event of the file but
 * one per column for the samplers (it read "about 0 events per sample"). */
void
_tsl_window_update_status (TslWindow *self)
{
  TslSnapshot *snapshot = tsl_timeline_view_get_snapshot (self->timeline);
  TslSnapshot *shown = tsl_timeline_view_get_shown_snapshot (self->timeline);
  g_autofree char *span = NULL;
  g_autofree char *count = NULL;
  g_autofree char *status = NULL;
  g_autofree char *view = NULL;
  guint64 samples = 0, offered = 0, profile_samples = 0;
  gboolean has_slices = FALSE, all_profiles = TRUE;
  guint n_tracks;

  if (snapshot == NULL || shown == NULL)
    return;

  n_tracks = tsl_snapshot_get_n_tracks (shown);
  for (guint i = 0; i < n_tracks; i++)
    {
      samples += tsl_snapshot_get_track (shown, i)->n_samples;
      offered += tsl_snapshot_get_track (shown, i)->events;
      has_slices |= tsl_snapshot_get_track (shown, i)->exact;
    }
  /* A sampled profile's events are its samples; the file's own events
   * count something else (a V8 ProfileChunk holds hundreds of them). */
  for (guint i = 0; i < tsl_snapshot_get_n_tracks (snapshot); i++)
    {
      const TslSnapshotTrack *track = tsl_snapshot_get_track (snapshot, i);

      if (track->sampled)
        profile_samples += track->events;
      else if (track->events > 0)
        all_profiles = FALSE;
    }
  all_profiles &= profile_samples > 0;

  /* "Exact" speaks of slices: a file of metrics only has none. No track
   * keeps nothing, not "every event". */
  if (n_tracks == 0)
    view = g_strdup (_("nothing to draw"));
  else if (has_slices && tsl_snapshot_get_exact (shown, NULL, NULL))
    view = g_strdup (_("exact: every slice of the view"));
  else if (offered <= samples)
    view = all_profiles
           ? g_strdup_printf (_("every sample kept (K = %u per track)"), tsl_snapshot_get_k (shown))
           : g_strdup_printf (_("every event kept (K = %u per track)"), tsl_snapshot_get_k (shown));
  /* A few left out: "~1 per sample" read as nonsense. */
  else if ((double) offered < 1.05 * (double) samples)
    view = all_profiles
           ? g_strdup_printf (_("nearly every sample kept (K = %u per track)"), tsl_snapshot_get_k (shown))
           : g_strdup_printf (_("nearly every event kept (K = %u per track)"), tsl_snapshot_get_k (shown));
  else
    {
      double r = (double) offered / (double) MAX (samples, 1);
      /* Below 10, a decimal: "~1" hid up to half as many again. The plural
       * form for a fraction above 1, as in English. */
      gboolean decimal = r < 9.95;
      g_autofree char *ratio = decimal ? g_strdup_printf ("%.1f", r) : g_strdup_printf ("%'.0f", r);
      gulong n = decimal ? (gulong) ceil (r) : (gulong) MIN (r + 0.5, (double) G_MAXULONG);

      if (all_profiles)
        /* Translators: ~N profile samples per sample drawn, K samples per track */
        view = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                             "sampled, ~%s profile sample per sample (K = %u per track)",
                                             "sampled, ~%s profile samples per sample (K = %u per track)", n),
                                ratio, tsl_snapshot_get_k (shown));
      else
        /* Translators: ~N events per sample, K samples per track */
        view = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                             "sampled, ~%s event per sample (K = %u per track)",
                                             "sampled, ~%s events per sample (K = %u per track)", n),
                                ratio, tsl_snapshot_get_k (shown));
    }

  {
    guint64 n_events = tsl_snapshot_get_events (snapshot);
    g_autofree char *events = g_strdup_printf ("%'" G_GUINT64_FORMAT, n_events);
    g_autofree char *n_samples = g_strdup_printf ("%'" G_GUINT64_FORMAT, profile_samples);
    /* Plural forms take an unsigned long; beyond it, the plural. */
    gulong pe = (gulong) MIN (n_events, G_MAXULONG), ps = (gulong) MIN (profile_samples, G_MAXULONG);

    if (all_profiles)
      /* Translators: the samples of a sampled profile (V8, Firefox, pprof, perf) */
      count = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s sample", "%s samples", ps), n_samples);
    else if (profile_samples > 0)
      {
        g_autofree char *e = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s event", "%s events", pe), events);
        /* Translators: the samples of the profiles a trace holds beside its events */
        g_autofree char *p = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s profile sample",
                                                           "%s profile samples", ps), n_samples);

        /* Translators: a trace's events, and the samples of the profiles it holds */
        count = g_strdup_printf (_("%s, %s"), e, p);
      }
    else
      count = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s event", "%s events", pe), events);
  }

  span = tsl_duration_format ((double) tsl_snapshot_get_span (snapshot));
  /* Translators: format · events or samples · tracks · exact or sampled view · span */
  status = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s · %s · %u track · %s · span %s",
                                         "%s · %s · %u tracks · %s · span %s", n_tracks),
                            tsl_snapshot_get_format (snapshot) ? tsl_snapshot_get_format (snapshot) : _("unknown format"),
                            count, n_tracks, view, span);
  /* The first view left a sparse tail out: said until everything is shown. */
  if (self->first_view_outside > 0)
    {
      gint64 vs, ve;

      tsl_timeline_view_get_visible_time (self->timeline, &vs, &ve);
      if (vs <= 0 && ve >= tsl_snapshot_get_span (snapshot))
        self->first_view_outside = 0;
      else
        {
          g_autofree char *n = g_strdup_printf ("%'" G_GUINT64_FORMAT, self->first_view_outside);
          g_autofree char *note = NULL;
          g_autofree char *with_note = NULL;

          /* TRANSLATORS: the first view shows where the events are; 0 is the key */
          note = g_strdup_printf (g_dngettext (NULL, "%s event lies outside this view: 0 shows everything",
                                               "%s events lie outside this view: 0 shows everything",
                                               self->first_view_outside), n);
          with_note = g_strdup_printf ("%s · %s", status, note);
          g_free (status);
          status = g_steal_pointer (&with_note);
        }
    }
  gtk_label_set_label (self->status_label, status);
}

/* Opens on the busy part of the trace, not on a few stray late events
 * (tsl-first-view.h); the status bar says how many it leaves out. */
static void
show_activity (TslWindow *self)
{
  TslSnapshot *snapshot = tsl_timeline_view_get_snapshot (self->timeline);
  gint64 start, end;
  guint64 outside;

  if (snapshot == NULL || self->parts != NULL ||
      !tsl_first_view_find (snapshot, TSL_FIRST_VIEW_FRACTION, &start, &end, &outside))
    return;
  self->first_view_outside = outside;
  tsl_timeline_view_set_visible_time (self->timeline, start, end);
  _tsl_window_update_status (self);
}

static void
loader_fraction_cb (TslDocumentLoader *loader,
                    GParamSpec        *pspec,
                    TslWindow         *self)
{
  double fraction = tsl_document_loader_get_fraction (loader);

  /* -1: a pipe, whose size is unknown. */
  if (fraction < 0)
    gtk_progress_bar_pulse (self->progress_bar);
  else
    gtk_progress_bar_set_fraction (self->progress_bar, fraction);
}

/* More events were read: the loader throttles this, so each one is worth a
 * new snapshot. */
static void
loader_events_cb (TslDocumentLoader *loader,
                  GParamSpec        *pspec,
                  TslWindow         *self)
{
  refresh_document (self);
}

static void
follow_progress (TslWindow *self)
{
  self->progress_binding = g_object_bind_property (self->loader, "message",
                                                   self->progress_label, "label",
                                                   G_BINDING_DEFAULT);
  g_signal_connect_object (self->loader, "notify::fraction",
                           G_CALLBACK (loader_fraction_cb), self, 0);
  g_signal_connect_object (self->loader, "notify::events",
                           G_CALLBACK (loader_events_cb), self, 0);
}

/* The loader may outlive its turn here (its task holds a reference until the
 * worker returns): nothing of it may reach this window any more. */
static void
stop_following_progress (TslWindow *self)
{
  g_clear_pointer (&self->progress_binding, g_binding_unbind);
  if (self->loader != NULL)
    g_signal_handlers_disconnect_by_data (self->loader, self);
}

static void
add_to_recent (GFile *file)
{
  g_autofree char *uri = g_file_get_uri (file);
  static char *groups[] = { (char *) "timeslice", NULL };
  GtkRecentData data = {
    .display_name = NULL,
    .mime_type = (char *) "application/octet-stream",
    .app_name = (char *) "Timeslice",
    .app_exec = (char *) "timeslice %u",
    .groups = groups,
  };

  gtk_recent_manager_add_full (gtk_recent_manager_get_default (), uri, &data);
}

static void
load_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(TslWindow) self = user_data;
  TslDocumentLoader *loader = TSL_DOCUMENT_LOADER (object);
  g_autoptr(GError) error = NULL;
  gboolean ok;

  /* Before finishing, whose final notifications would take one more snapshot. */
  if (loader == self->loader)
    stop_following_progress (self);

  ok = tsl_document_loader_load_finish (loader, result, &error);

  /* A newer open replaced this load: drop the stale result. */
  if (loader != self->loader)
    return;

  g_clear_object (&self->cancellable);
  gtk_revealer_set_reveal_child (self->progress_revealer, FALSE);
  tsl_timeline_view_set_loading (self->timeline, FALSE);
  refresh_document (self);
  _tsl_window_update_actions (self);

  /* Compare re-reads the file per range; what was read so far is its fallback. */
  tsl_compare_panel_set_k (self->compare_panel, tsl_trace_get_k (tsl_document_loader_get_trace (loader)));
  tsl_compare_panel_set_source (self->compare_panel, self->file, tsl_document_loader_get_trace (loader));
  tsl_flame_view_set_source (self->flame_view, self->file, tsl_document_loader_get_trace (loader),
                             tsl_trace_get_k (tsl_document_loader_get_trace (loader)));

  /* Merged: the window's own file is one part; the others may still load. */
  if (self->parts != NULL)
    _tsl_window_merge_part_done (self, loader);

  if (ok)
    {
      /* bench/window-compare.py waits for this (G_MESSAGES_DEBUG=tsl-window). */
      g_debug ("loaded: %" G_GUINT64_FORMAT " events",
               tsl_trace_get_events (tsl_document_loader_get_trace (loader)));
      show_activity (self);
      add_to_recent (self->file);
      /* Merged: once every file is read (tsl-window-merge.c). */
      if (self->parts == NULL)
        _tsl_window_changes_start (self);
      return;
    }

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      adw_toast_overlay_add_toast (self->toast_overlay,
                                   adw_toast_new (_("Stopped reading: showing what was read so far")));
      return;
    }

  {
    g_autofree char *name = g_file_get_basename (self->file);
    g_autofree char *heading = g_strdup_printf (_("Could Not Read “%s”"), name);

    /* What was read before the fault is kept and shown behind the dialog. */
    _tsl_window_show_error (self, heading, error->message);
    if (tsl_trace_get_events (tsl_document_loader_get_trace (loader)) == 0)
      {
        g_clear_object (&self->loader);
        g_clear_object (&self->file);
        adw_view_switcher_title_set_title (self->window_title, _("Timeslice"));
        adw_view_switcher_title_set_subtitle (self->window_title, NULL);
        gtk_widget_set_visible (GTK_WIDGET (self->file_label), FALSE);
        adw_view_switcher_title_set_view_switcher_enabled (self->window_title, FALSE);
        gtk_window_set_title (GTK_WINDOW (self), _("Timeslice"));
        gtk_stack_set_visible_child_name (self->stack, "empty");
        _tsl_window_update_actions (self);
      }
  }
}

/* Every window of the process shares one memory budget: the
 * TIMESLICE_MEMORY_BUDGET environment variable (MiB), else 256 MiB. */
static TslBudget *
process_budget (void)
{
  static TslBudget *budget;

  if (budget == NULL)
    {
      g_autoptr(GError) error = NULL;
      guint64 bytes = tsl_budget_process_bytes_from_env (&error);

      if (error != NULL)
        g_warning ("%s", error->message);
      budget = tsl_budget_new_for_process (bytes);
    }
  return budget;
}

/* A trace as the window reads it: time mode, exact while small, the
 * process's budget. */
TslTrace *
_tsl_window_new_trace (TslWindow *self)
{
  GSettings *settings;
  TslTrace *trace;

  settings = tsl_application_get_settings (TSL_APPLICATION (gtk_window_get_application (GTK_WINDOW (self))));
  trace = tsl_trace_new (TSL_SAMPLER_TIME, g_settings_get_uint (settings, "sampler-k"), TSL_WINDOW_SEED);
  /* A small file is drawn exactly from the start; a larger one when zoomed in. */
  tsl_trace_record_exact (trace, TSL_WINDOW_EXACT_PER_TRACK, TSL_WINDOW_EXACT_TOTAL);
  tsl_trace_set_budget (trace, process_budget ());
  return trace;
}

void
tsl_window_open (TslWindow *self,
                 GFile     *file)
{
  g_autoptr(TslTrace) trace = NULL;
  g_autofree char *name = NULL;
  g_autofree char *title = NULL;
  g_autofree char *parent_path = NULL;
  g_autoptr(GFile) parent = NULL;

  g_return_if_fail (TSL_IS_WINDOW (self));
  g_return_if_fail (G_IS_FILE (file));

  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  stop_following_progress (self);
  _tsl_window_cancel_detail (self);
  /* The calls counted were another file's. */
  _tsl_window_search_clear (self);
  _tsl_window_changes_clear (self);
  self->first_view_outside = 0;

  g_set_object (&self->file, file);
  /* A new open replaces a merge (tsl_window_open_merged() starts here). */
  g_clear_pointer (&self->parts, g_ptr_array_unref);
  tsl_compare_panel_set_parts (self->compare_panel, NULL, 0, NULL);

  name = g_file_get_basename (file);
  parent = g_file_get_parent (file);
  parent_path = parent ? g_file_get_parse_name (parent) : NULL;
  title = g_strdup_printf ("%s — %s", name, _("Timeslice"));
  gtk_window_set_title (GTK_WINDOW (self), title);
  adw_view_switcher_title_set_title (self->window_title, name);
  adw_view_switcher_title_set_subtitle (self->window_title, parent_path);
  gtk_label_set_label (self->file_label, name);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->file_label), parent_path);
  gtk_widget_set_visible (GTK_WIDGET (self->file_label), TRUE);
  adw_view_switcher_title_set_view_switcher_enabled (self->window_title, TRUE);

  trace = _tsl_window_new_trace (self);

  g_clear_object (&self->loader);
  self->loader = tsl_document_loader_new (file, trace);
  self->cancellable = g_cancellable_new ();
  tsl_document_loader_set_follow (self->loader, gtk_toggle_button_get_active (self->follow_button));

  gtk_progress_bar_set_fraction (self->progress_bar, 0);
  gtk_label_set_label (self->progress_label, _("Reading…"));
  gtk_revealer_set_reveal_child (self->progress_revealer, TRUE);
  tsl_timeline_view_set_loading (self->timeline, TRUE);
  gtk_stack_set_visible_child_name (self->stack, "document");
  refresh_document (self);

  follow_progress (self);
  tsl_document_loader_load_async (self->loader, self->cancellable, load_cb, g_object_ref (self));

  _tsl_window_update_actions (self);
}

gboolean
tsl_window_is_empty (TslWindow *self)
{
  g_return_val_if_fail (TSL_IS_WINDOW (self), FALSE);

  return self->file == NULL;
}

gboolean
tsl_window_is_loading (TslWindow *self)
{
  g_return_val_if_fail (TSL_IS_WINDOW (self), FALSE);

  return self->cancellable != NULL || _tsl_window_merge_is_loading (self);
}

static gboolean
on_drop_cb (GtkDropTarget *target,
            const GValue  *value,
            double         x,
            double         y,
            TslWindow     *self)
{
  GSList *files;
  guint i = 0;

  if (!G_VALUE_HOLDS (value, GDK_TYPE_FILE_LIST))
    return FALSE;

  files = g_value_get_boxed (value);
  /* Several files: one timeline, in this window when it is free. */
  if (files != NULL && files->next != NULL)
    {
      g_autoptr(GPtrArray) all = g_ptr_array_new ();
      TslWindow *window = self;

      for (GSList *l = files; l; l = l->next)
        g_ptr_array_add (all, l->data);
      if (!tsl_window_is_empty (self))
        {
          window = tsl_window_new (TSL_APPLICATION (gtk_window_get_application (GTK_WINDOW (self))));
          gtk_window_present (GTK_WINDOW (window));
        }
      tsl_window_open_merged (window, (GFile **) all->pdata, all->len, NULL);
      return TRUE;
    }
  for (GSList *l = files; l; l = l->next, i++)
    {
      /* The first file goes to this window when it is free, the rest get their own. */
      if (i == 0 && tsl_window_is_empty (self))
        tsl_window_open (self, l->data);
      else
        g_application_open (g_application_get_default (), (GFile **) &l->data, 1, "");
    }

  return files != NULL;
}

/* Timeline keys whenever its page is shown, not only while it has focus:
 * after a page switch the focus is elsewhere and the search bar, which
 * captures typing in the window, took "+" and "w" as text (issue 18). A
 * text entry with focus keeps its keys. */
static gboolean
on_window_key_pressed (GtkEventControllerKey *controller,
                       guint                  keyval,
                       guint                  keycode,
                       GdkModifierType        state,
                       TslWindow             *self)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (self));

  if (g_strcmp0 (gtk_stack_get_visible_child_name (self->stack), "document") != 0 ||
      g_strcmp0 (adw_view_stack_get_visible_child_name (self->view_stack), "timeline") != 0)
    return FALSE;
  if (focus != NULL && GTK_IS_EDITABLE (focus))
    return FALSE;
  if (_tsl_window_changes_handle_key (self, keyval, state))
    return TRUE;
  if (focus == GTK_WIDGET (self->timeline))
    return FALSE;
  return tsl_timeline_view_handle_key (self->timeline, keyval, state, focus != NULL);
}

static void
on_page_changed (TslWindow *self)
{
  if (g_strcmp0 (adw_view_stack_get_visible_child_name (self->view_stack), "timeline") == 0)
    gtk_widget_grab_focus (GTK_WIDGET (self->timeline));
}

static void
on_search_changed (TslWindow      *self,
                   GtkSearchEntry *entry)
{
  tsl_timeline_view_set_highlight (self->timeline, gtk_editable_get_text (GTK_EDITABLE (entry)));
  _tsl_window_search_update (self);
}

static void
on_select_b_toggled (TslWindow       *self,
                     GtkToggleButton *button)
{
  tsl_timeline_view_set_select_b (self->timeline, gtk_toggle_button_get_active (button));
}

static void
on_series_selected (TslWindow       *self,
                    const char      *series,
                    TslComparePanel *panel)
{
  TslSnapshot *snapshot = tsl_timeline_view_get_snapshot (self->timeline);
  const TslSnapshotTrack *best = NULL;
  gsize best_len = 0;
  gint64 pid;

  if (series == NULL || snapshot == NULL)
    {
      tsl_timeline_view_set_highlight (self->timeline, NULL);
      return;
    }

  /* "worker-1/parse" (or "worker-1 [PID]/parse" where two processes have a
   * worker-1) is the function "parse" of that thread only, by its whole
   * name; names may hold '/', so the longest track name that prefixes the
   * row wins. A row without one is a series: that track. */
  for (guint i = 0; i < tsl_snapshot_get_n_tracks (snapshot); i++)
    {
      const TslSnapshotTrack *track = tsl_snapshot_get_track (snapshot, i);
      g_autofree char *with_pid = g_strdup_printf ("%s [%" G_GINT64_FORMAT "]", track->name, track->pid);
      const char *names[] = { track->name, with_pid };

      for (guint n = 0; n < G_N_ELEMENTS (names); n++)
        {
          gsize len = strlen (names[n]);

          if (strncmp (series, names[n], len) == 0 && (series[len] == '/' || series[len] == '\0') &&
              len + 1 > best_len)
            {
              best = track;
              best_len = len + 1;
            }
        }
    }

  /* Merged files: the same thread of every file (two runs, matched by name). */
  pid = best == NULL ? 0 : tsl_snapshot_get_n_parts (snapshot) > 0 ? TSL_RENDER_ANY_PID : best->pid;
  if (best == NULL)
    tsl_timeline_view_set_highlight_full (self->timeline, series, TRUE, NULL, 0);
  else if (series[best_len - 1] == '\0')
    tsl_timeline_view_set_highlight_full (self->timeline, best->name, TRUE, best->name, pid);
  else
    tsl_timeline_view_set_highlight_full (self->timeline, series + best_len, TRUE, best->name, pid);
}

static void
on_follow_toggled (TslWindow       *self,
                   GtkToggleButton *button)
{
  gboolean follow = gtk_toggle_button_get_active (button);

  if (self->loader == NULL)
    return;

  /* Switching off lets the running load finish at the current end; switching
   * on after a load finished reads the file again, now following it. */
  if (tsl_window_is_loading (self) || !follow)
    tsl_document_loader_set_follow (self->loader, follow);
  else
    {
      g_autoptr(GFile) file = g_object_ref (self->file);

      tsl_window_open (self, file);
    }
}

void
tsl_window_set_follow (TslWindow *self,
                       gboolean   follow)
{
  g_return_if_fail (TSL_IS_WINDOW (self));

  gtk_toggle_button_set_active (self->follow_button, follow);
}

static void
tsl_window_dispose (GObject *object)
{
  TslWindow *self = TSL_WINDOW (object);

  /* A closed window stops its load; the worker drops its result. */
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  stop_following_progress (self);
  _tsl_window_cancel_detail (self);
  _tsl_window_cancel_slice_details (self);
  _tsl_window_search_clear (self);
  _tsl_window_changes_dispose (self);

  gtk_widget_dispose_template (GTK_WIDGET (self), TSL_TYPE_WINDOW);

  g_clear_object (&self->chooser);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->loader);
  g_clear_object (&self->file);
  g_clear_pointer (&self->parts, g_ptr_array_unref);

  G_OBJECT_CLASS (tsl_window_parent_class)->dispose (object);
}

static void
tsl_window_class_init (TslWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = tsl_window_dispose;

  gtk_widget_class_set_template_from_resource (widget_class, "/org/timeslice/Timeslice/tsl-window.ui");
  gtk_widget_class_bind_template_child (widget_class, TslWindow, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, TslWindow, window_title);
  gtk_widget_class_bind_template_child (widget_class, TslWindow, stack);
  gtk_widget_class_bind_template_child (widget_class, TslWindow, progress_revealer);
  gtk_widget_class_bind_template_child (widget_class, TslWindow, progress_bar);
  gtk_widget_class_bind_template_child (widget_class, TslWindow, progress_label);
  gtk_widget_class_bind_template_child (widget_class, TslWindow, search_bar);
  gtk_widget_class_bind_template_child (widget_class, TslWindow, search_entry);
  gtk_widget_class_bind_template_child (widget_class, TslWindow, timeline);
  gtk_widget_class_bind_template_child (widget_class, TslWindow, timeline_scrollbar);
  gtk_widget_class_bind_template_child (widget_class, TslWindow, warnings_button);
  gtk_widget_class_bind_template_child (widget_class, TslWindow, file_label);
  gtk_widget_class_bind_template_child (widget_class, TslWindow, warnings_list);
  gtk_widget_class_bind_template_child (widget_class, TslWindow, select_b_button);
  gtk_widget_class_bind_template_callback (widget_class, on_search_changed);
  gtk_widget_class_bind_template_callback (widget_class, on_window_key_pressed);
  _tsl_window_slice_class_init (widget_class);
  _tsl_window_search_class_init (widget_class);
  _tsl_window_changes_class_init (widget_class);
  gtk_widget_class_bind_template_callback (widget_class, on_select_b_toggled);
  gtk_widget_class_bind_template_callback (widget_class, on_follow_toggled);
  gtk_widget_class_bind_template_callback_full (widget_class, "on_range_entry_activate",
                                                G_CALLBACK (_tsl_window_range_entry_activate));
  gtk_widget_class_bind_template_callback_full (widget_class, "on_ranges_changed",
                                                G_CALLBACK (_tsl_window_update_ranges));
  gtk_widget_class_bind_template_child (widget_class, TslWindow, ranges_button);
  gtk_widget_class_bind_template_child (widget_class, TslWindow, compare_panel);
  gtk_widget_class_bind_template_child (widget_class, TslWindow, paned);
  gtk_widget_class_bind_template_child (widget_class, TslWindow, view_stack);
  gtk_widget_class_bind_template_child (widget_class, TslWindow, flame_view);
  gtk_widget_class_bind_template_child (widget_class, TslWindow, call_tree);
  gtk_widget_class_bind_template_child (widget_class, TslWindow, flame_mode_dropdown);
  gtk_widget_class_bind_template_child (widget_class, TslWindow, cpu_button);
  gtk_widget_class_bind_template_child (widget_class, TslWindow, merge_threads_button);
  gtk_widget_class_bind_template_child (widget_class, TslWindow, icicle_button);
  gtk_widget_class_bind_template_callback_full (widget_class, "on_flame_mode_changed",
                                                G_CALLBACK (_tsl_window_flame_mode_changed));
  gtk_widget_class_bind_template_callback_full (widget_class, "on_flame_options_toggled",
                                                G_CALLBACK (_tsl_window_flame_options_toggled));
  gtk_widget_class_bind_template_callback (widget_class, on_series_selected);
  gtk_widget_class_bind_template_child (widget_class, TslWindow, a_start_entry);
  gtk_widget_class_bind_template_child (widget_class, TslWindow, a_end_entry);
  gtk_widget_class_bind_template_child (widget_class, TslWindow, b_start_entry);
  gtk_widget_class_bind_template_child (widget_class, TslWindow, b_end_entry);
  gtk_widget_class_bind_template_child (widget_class, TslWindow, follow_button);
  gtk_widget_class_bind_template_child (widget_class, TslWindow, search_button);
  gtk_widget_class_bind_template_child (widget_class, TslWindow, status_label);
  gtk_widget_class_bind_template_child (widget_class, TslWindow, recent_section);

  _tsl_window_class_actions_init (klass);
}

/* The panel's first height: GtkPaned would give it only its minimum (about
 * seven rows); it takes 45 % of the height instead, until the divider is
 * moved. */
#define PANEL_SHARE 0.45

static void
on_paned_max_position (TslWindow *self)
{
  int max = 0;

  g_object_get (self->paned, "max-position", &max, NULL);
  if (max <= 0)
    return;
  g_signal_handlers_disconnect_by_func (self->paned, on_paned_max_position, self);
  gtk_paned_set_position (self->paned, (int) (max * (1 - PANEL_SHARE)));
}

static void
tsl_window_init (TslWindow *self)
{
  GtkDropTarget *drop;

  g_type_ensure (TSL_TYPE_TIMELINE_VIEW);
  g_type_ensure (TSL_TYPE_OVERVIEW);
  g_type_ensure (TSL_TYPE_COMPARE_PANEL);
  g_type_ensure (TSL_TYPE_FLAME_VIEW);
  g_type_ensure (TSL_TYPE_CALL_TREE);
  g_type_ensure (TSL_TYPE_CHANGES_LIST);
  gtk_widget_init_template (GTK_WIDGET (self));
  _tsl_window_search_init (self);
  _tsl_window_changes_init (self);
  _tsl_window_actions_init (self);

  adw_view_switcher_title_set_view_switcher_enabled (self->window_title, FALSE);
  gtk_scrollbar_set_adjustment (self->timeline_scrollbar,
                                tsl_timeline_view_get_vadjustment (self->timeline));
  g_signal_connect_object (self->timeline, "view-changed",
                           G_CALLBACK (_tsl_window_queue_detail), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->timeline, "view-changed",
                           G_CALLBACK (_tsl_window_update_status), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->timeline, "group-moved",
                           G_CALLBACK (_tsl_window_merge_group_moved), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->view_stack, "notify::visible-child-name",
                           G_CALLBACK (on_page_changed), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->paned, "notify::max-position",
                           G_CALLBACK (on_paned_max_position), self, G_CONNECT_SWAPPED);

  drop = gtk_drop_target_new (GDK_TYPE_FILE_LIST, GDK_ACTION_COPY);
  g_signal_connect_object (drop, "drop", G_CALLBACK (on_drop_cb), self, 0);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drop));

  g_signal_connect_object (gtk_recent_manager_get_default (), "changed",
                           G_CALLBACK (_tsl_window_update_recent), self, G_CONNECT_SWAPPED);
  _tsl_window_update_recent (self);
  _tsl_window_update_actions (self);
  _tsl_window_update_ranges (self);
}

TslWindow *
tsl_window_new (TslApplication *application)
{
  GSettings *settings = tsl_application_get_settings (application);
  TslWindow *self;

  self = g_object_new (TSL_TYPE_WINDOW, "application", application, NULL);

  gtk_window_set_default_size (GTK_WINDOW (self),
                               g_settings_get_int (settings, "window-width"),
                               g_settings_get_int (settings, "window-height"));
  if (g_settings_get_boolean (settings, "window-maximized"))
    gtk_window_maximize (GTK_WINDOW (self));

  g_settings_bind (settings, "window-width", self, "default-width", G_SETTINGS_BIND_SET);
  g_settings_bind (settings, "window-height", self, "default-height", G_SETTINGS_BIND_SET);
  g_settings_bind (settings, "window-maximized", self, "maximized", G_SETTINGS_BIND_SET);
  tsl_compare_panel_bind_settings (self->compare_panel, settings);
  _tsl_window_flame_init (self, settings);

  return self;
}
