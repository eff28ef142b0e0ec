/* tsl-duration.h: durations as people read and write them
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Parses one "12.5ms"-style duration into ns. */
gboolean          tsl_duration_parse            (const char          *text,
                                                 double              *ns,
                                                 GError             **error);
/* (transfer full): "1.25 ms", "3 s", "2 min 5 s", with a unit suited to the value. */
char             *tsl_duration_format           (double               ns);
/* (transfer full): "1 s – 2.5 s", a range's ends from the trace start. */
char             *tsl_duration_format_range     (gint64               start_ns,
                                                 gint64               end_ns);

G_END_DECLS
