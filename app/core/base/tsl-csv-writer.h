/* tsl-csv-writer.h: CSV output shared by the command line and the window
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Appends `text` quoted as RFC 4180 requires (only when it must be), after
 * a ' when it starts with = + - @ tab CR or ' (no formula in a spreadsheet;
 * drop one leading ' to read the text back). Numbers go through
 * tsl_csv_append_number(), never here. */
void              tsl_csv_append_field          (GString     *line,
                                                 const char  *text);
/* (transfer full): the shortest C-locale form of `value` that reads back
 * exactly; "" for NAN. */
char             *tsl_csv_format_double         (double       value);
/* Appends ',' and tsl_csv_format_double (value); an infinity (a change from
 * 0) is as undefined in a cell as NAN, so both leave the cell empty. */
void              tsl_csv_append_number         (GString     *line,
                                                 double       value);
/* The cells every A → B table ends with, each after a ',':
 * a,b,change_pct,ci_low_pct,ci_high_pct,p_value,q_value,significant.
 * `change`, `ci_low` and `ci_high` are fractions, written as percentages;
 * an interval's unbounded end (Fieller's, where A is not told from 0) is
 * "inf" or "-inf". */
void              tsl_csv_append_change         (GString     *line,
                                                 double       a,
                                                 double       b,
                                                 double       change,
                                                 double       ci_low,
                                                 double       ci_high,
                                                 double       p_value,
                                                 double       q_value,
                                                 gboolean     significant);

G_END_DECLS
