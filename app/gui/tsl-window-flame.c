/* tsl-window-flame.c: the Flame Graph page of the window
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "tsl-window"

#include "config.h"

#include <glib/gi18n.h>

#include "tsl-window-private.h"

static void
on_flame_changed (TslWindow    *self,
                  GParamSpec   *pspec,
                  TslFlameView *view)
{
  tsl_call_tree_set_flame (self->call_tree, tsl_flame_view_get_flame (view));
}

/* CPU time needs thread time in the trace and a file to re-read; going
 * back to wall time is always possible. */
static void
on_cpu_available (TslWindow    *self,
                  GParamSpec   *pspec,
                  TslFlameView *view)
{
  gboolean available = tsl_flame_view_get_cpu_available (view);

  gtk_widget_set_sensitive (GTK_WIDGET (self->cpu_button), available || tsl_flame_view_get_cpu (view));
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->cpu_button),
                               available ? _("Frames as wide as their thread (CPU) time instead of wall time (c); "
                                             "every event of the range or trace, re-read from the file")
                                         : _("This trace has no thread (CPU) time, or its file cannot be re-read"));
}

static void
on_node_activated (TslWindow   *self,
                   gpointer     node,
                   TslCallTree *tree)
{
  tsl_flame_view_zoom_to (self->flame_view, node);
}

void
_tsl_window_flame_mode_changed (TslWindow *self)
{
  guint selected = gtk_drop_down_get_selected (self->flame_mode_dropdown);

  if (selected != GTK_INVALID_LIST_POSITION)
    tsl_flame_view_set_mode (self->flame_view, (TslFlameMode) selected);
}

void
_tsl_window_flame_options_toggled (TslWindow *self)
{
  tsl_flame_view_set_merge_threads (self->flame_view, gtk_toggle_button_get_active (self->merge_threads_button));
  tsl_flame_view_set_icicle (self->flame_view, gtk_toggle_button_get_active (self->icicle_button));
}

/* The ranges also pick what the graph shows, until the user picks: both
 * ranges show the differential, one range that range. */
void
_tsl_window_flame_set_ranges (TslWindow *self,
                              gboolean   has_a,
                              gint64     a0,
                              gint64     a1,
                              gboolean   has_b,
                              gint64     b0,
                              gint64     b1)
{
  TslFlameMode mode = has_a && has_b ? TSL_FLAME_MODE_DIFF
                    : has_a ? TSL_FLAME_MODE_A
                    : has_b ? TSL_FLAME_MODE_B
                    : TSL_FLAME_MODE_WHOLE;

  tsl_flame_view_set_ranges (self->flame_view, has_a, a0, a1, has_b, b0, b1);
  gtk_drop_down_set_selected (self->flame_mode_dropdown, mode);
}

/* The flame tree is built on the main thread (and a differential starts a
 * bootstrap), so it follows the loading trace only while its page is shown,
 * not on every progress refresh behind the timeline. */
void
_tsl_window_flame_update_snapshot (TslWindow *self)
{
  if (g_strcmp0 (adw_view_stack_get_visible_child_name (self->view_stack), "flame") != 0)
    return;

  tsl_flame_view_set_snapshot (self->flame_view, tsl_timeline_view_get_snapshot (self->timeline));
}

void
_tsl_window_flame_init (TslWindow *self,
                        GSettings *settings)
{
  g_signal_connect_object (self->view_stack, "notify::visible-child-name",
                           G_CALLBACK (_tsl_window_flame_update_snapshot), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->flame_view, "notify::flame",
                           G_CALLBACK (on_flame_changed), self, G_CONNECT_SWAPPED);
  g_object_bind_property (self->flame_view, "cpu", self->cpu_button, "active",
                          G_BINDING_BIDIRECTIONAL | G_BINDING_SYNC_CREATE);
  g_signal_connect_object (self->flame_view, "notify::cpu-available",
                           G_CALLBACK (on_cpu_available), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->flame_view, "notify::cpu",
                           G_CALLBACK (on_cpu_available), self, G_CONNECT_SWAPPED);
  on_cpu_available (self, NULL, self->flame_view);
  g_signal_connect_object (self->call_tree, "node-activated",
                           G_CALLBACK (on_node_activated), self, G_CONNECT_SWAPPED);
  tsl_flame_view_set_test_settings (self->flame_view,
                                    g_settings_get_uint (settings, "bootstrap-rounds"),
                                    g_settings_get_double (settings, "confidence"));
}
