/* test-ui-util.h: waiting on a real main loop in ui tests
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

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
