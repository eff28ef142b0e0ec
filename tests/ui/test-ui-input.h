/* test-ui-input.h: real input through the X server (XTest), as a user gives it
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gdk/x11/gdkx.h>
#include <gtk/gtk.h>

/* Runs `xdotool ARGS`; it must succeed. */
static inline void
xdo (const char *args)
{
  g_autofree char *command = g_strdup_printf ("xdotool %s", args);
  g_autoptr(GError) error = NULL;
  int status = 0;

  g_assert_true (g_spawn_command_line_sync (command, NULL, NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
}

/* Lets the main context run for `ms`. */
static inline void
settle (guint ms)
{
  gint64 until = g_get_monotonic_time () + ms * 1000;

  while (g_get_monotonic_time () < until)
    {
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
}

/* Moves the pointer to (x, y) of `widget`, inside the toplevel `window`. */
static inline void
pointer_to (gpointer   window,
            GtkWidget *widget,
            double     x,
            double     y)
{
  GtkNative *native = GTK_NATIVE (window);
  double wx, wy, sx, sy;
  g_autofree char *args = NULL;

  g_assert_true (gtk_widget_translate_coordinates (widget, GTK_WIDGET (window), x, y, &wx, &wy));
  gtk_native_get_surface_transform (native, &sx, &sy);
  args = g_strdup_printf ("mousemove --sync --window %lu %d %d",
                          (unsigned long) gdk_x11_surface_get_xid (gtk_native_get_surface (native)),
                          (int) (wx + sx), (int) (wy + sy));
  xdo (args);
  settle (100);
}
