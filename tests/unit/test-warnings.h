/* test-warnings.h: looking for a warning in a trace's list
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <string.h>

#include "tsl-trace.h"

/* TRUE when one of the trace's warnings contains `needle`. */
static inline gboolean
has_warning (TslTrace   *trace,
             const char *needle)
{
  g_auto(GStrv) warnings = tsl_trace_dup_warnings (trace);

  for (guint i = 0; warnings[i] != NULL; i++)
    if (strstr (warnings[i], needle) != NULL)
      return TRUE;
  return FALSE;
}
