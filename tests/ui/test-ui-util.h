/* test-ui-util.h: waiting on a real main loop in ui tests, and what they wait for
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

#include "tsl-application.h"
#include "tsl-window-private.h"

/* Runs the main context until done (data) holds; fails after timeout_ms. */
static inline void
iterate_until (gboolean (*done) (gpointer),
               gpointer   data,
               guint      timeout_ms)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) timeout_ms * 1000;

  while (!done (data))
    {
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
}

/* Opens the display, or says why not: FALSE means skip (exit 77). Without
 * a display the ui tests skip, except when TSL_REQUIRE_DISPLAY is set (CI),
 * where that is an error. */
static inline gboolean
ui_test_init (void)
{
  if (!gtk_init_check ())
    {
      if (g_getenv ("TSL_REQUIRE_DISPLAY"))
        g_error ("no display, but TSL_REQUIRE_DISPLAY is set: run under xvfb-run");
      g_print ("1..0 # SKIP no display\n");
      return FALSE;
    }
  adw_init ();
  return TRUE;
}

/* The application of a test's windows, registered but not unique: it runs
 * beside any Timeslice already open on the display. */
static inline TslApplication *
ui_test_app_new (void)
{
  g_autoptr(GError) error = NULL;
  TslApplication *app = tsl_application_new ();

  g_application_set_flags (G_APPLICATION (app), G_APPLICATION_NON_UNIQUE);
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, &error));
  g_assert_no_error (error);
  return app;
}

/* What iterate_until() waits for. */

static inline gboolean
is_mapped (gpointer widget)
{
  return gtk_widget_get_mapped (widget);
}

/* Mapped and given its height: a view taller than 100 px has been laid out. */
static inline gboolean
is_laid_out (gpointer widget)
{
  return gtk_widget_get_mapped (widget) && gtk_widget_get_height (widget) > 100;
}

static inline gboolean
is_done_loading (gpointer window)
{
  return !tsl_window_is_loading (window);
}

static inline gboolean
compare_done (gpointer data)
{
  TslWindow *window = data;

  return !tsl_compare_panel_is_busy (window->compare_panel) &&
         g_list_model_get_n_items (tsl_compare_panel_get_model (window->compare_panel)) > 0;
}

static inline gboolean
flame_ready (gpointer data)
{
  TslWindow *window = data;

  return !tsl_flame_view_get_busy (window->flame_view) &&
         tsl_flame_view_get_flame (window->flame_view) != NULL;
}

/* Every label's text under `widget`, as drawn. */
static inline void
collect_labels (GtkWidget *widget,
                GPtrArray *texts)
{
  if (GTK_IS_LABEL (widget) && gtk_widget_get_mapped (widget))
    g_ptr_array_add (texts, (gpointer) gtk_label_get_label (GTK_LABEL (widget)));
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child; child = gtk_widget_get_next_sibling (child))
    collect_labels (child, texts);
}

static inline gboolean
has_text (GPtrArray  *texts,
          const char *text)
{
  for (guint i = 0; i < texts->len; i++)
    if (g_strcmp0 (g_ptr_array_index (texts, i), text) == 0)
      return TRUE;
  return FALSE;
}
