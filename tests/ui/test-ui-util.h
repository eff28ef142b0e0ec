/* test-ui-util.h: waiting on a real main loop in ui tests
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

#include "tsl-application.h"

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
