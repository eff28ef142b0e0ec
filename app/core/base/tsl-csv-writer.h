/* tsl-csv-writer.h: CSV output shared by the command line and the window
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Appends `text` quoted as RFC 4180 requires (only when it must be). */
void              tsl_csv_append_field          (GString     *line,
                                                 const char  *text);
/* (transfer full): the shortest C-locale form of `value` that reads back
 * exactly; "" for NAN. */
char             *tsl_csv_format_double         (double       value);

G_END_DECLS
