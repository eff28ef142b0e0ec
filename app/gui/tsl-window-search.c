/* tsl-window-search.c: find a function, and go from match to match
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The search bar highlights every call of the name (or pattern, with * and
 * ?) and counts them; Enter and Shift+Enter (or Ctrl+G, Shift+Ctrl+G) go to
 * the next and previous one in time order: the view centres on it, zoomed
 * in enough to show it, scrolled to its track, and outlines it.
 */
#define G_LOG_DOMAIN "tsl-window"

#include "config.h"

#include <glib/gi18n.h>

#include "tsl-render.h"
#include "tsl-search.h"
#include "tsl-window-private.h"

static void
update_count (TslWindow *self)
{
  g_autofree char *text = NULL;
  guint n = self->search_matches ? self->search_matches->len : 0;
  const char *query = gtk_editable_get_text (GTK_EDITABLE (self->search_entry));

  if (query == NULL || *query == '\0')
    text = g_strdup ("");
  else if (n == 0)
    text = g_strdup (_("No matches"));
  else if (self->search_index < 0)
    text = g_strdup_printf (g_dngettext (NULL, "%u match", "%u matches", n), n);
  else
    /* TRANSLATORS: the current search match and how many there are */
    text = g_strdup_printf (_("%d of %u"), self->search_index + 1, n);
  gtk_label_set_text (self->search_count_label, text);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.search-next", n > 0);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.search-previous", n > 0);
}

void
_tsl_window_search_clear (TslWindow *self)
{
  g_clear_pointer (&self->search_matches, g_array_unref);
  g_clear_pointer (&self->search_snapshot, tsl_snapshot_unref);
  self->search_index = -1;
  tsl_timeline_view_set_mark (self->timeline, NULL, 0, 0, 0, 0);
}

void
_tsl_window_search_update (TslWindow *self)
{
  TslSnapshot *snapshot = tsl_timeline_view_get_snapshot (self->timeline);
  const char *query = gtk_editable_get_text (GTK_EDITABLE (self->search_entry));

  _tsl_window_search_clear (self);
  if (snapshot != NULL && query != NULL && *query != '\0')
    {
      self->search_matches = tsl_search_find (snapshot, query);
      self->search_snapshot = tsl_snapshot_ref (snapshot);
    }
  update_count (self);
}

/* Centres the view on the match, zoomed to show it with room around it
 * unless the view already does, and scrolls its track into sight. */
static void
go_to (TslWindow *self,
       int        index)
{
  const TslSearchMatch *m = &g_array_index (self->search_matches, TslSearchMatch, index);
  const TslSnapshotTrack *track = tsl_snapshot_get_track (self->search_snapshot, m->track);
  gint64 vs, ve, width, len = MAX (m->end_ns - m->start_ns, 1), middle;
  TslRenderOptions o;
  GtkAdjustment *adj = tsl_timeline_view_get_vadjustment (self->timeline);
  double top, page;

  self->search_index = index;
  tsl_timeline_view_get_visible_time (self->timeline, &vs, &ve);
  width = ve - vs;
  /* Too small to see (under 1/50 of the view) or too wide: frame it. */
  if (len * 50 < width || len * 6 > width * 5)
    width = MAX (len * 4, 1000);
  middle = m->start_ns + len / 2;
  tsl_timeline_view_set_visible_time (self->timeline, middle - width / 2, middle - width / 2 + width);
  tsl_timeline_view_set_mark (self->timeline, track->name, track->pid, m->depth, m->start_ns, m->end_ns);

  tsl_timeline_view_get_render_options (self->timeline, &o);
  top = tsl_render_track_top (self->search_snapshot, &o, m->track);
  page = gtk_adjustment_get_page_size (adj);
  if (top < gtk_adjustment_get_value (adj) || top + 40 > gtk_adjustment_get_value (adj) + page)
    gtk_adjustment_set_value (adj, MAX (top - 20, 0));
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
