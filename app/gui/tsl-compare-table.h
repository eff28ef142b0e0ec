/* tsl-compare-table.h: the compare panel's table, shared with the panel
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "tsl-compare.h"

G_BEGIN_DECLS

typedef enum {
  COL_SIGNIFICANT,
  COL_IMPACT,
  COL_THREAD,
  COL_FUNCTION,
  COL_STAT,
  COL_A,
  COL_B,
  COL_CHANGE,
  COL_CI,
  COL_Q,
  COL_N_A,
  COL_N_B,
  COL_TEST,
  N_COLUMNS
} Column;

/* An untested row (too few, too dependent) is never significant. */
gboolean          _tsl_compare_row_is_significant (const TslCompareRow  *row);
/* Every column of the table to `view`, into columns[0..N_COLUMNS-1]; Tab
 * leaves the table (tsl_column_view_tab_leaves()). */
void              _tsl_compare_table_add_columns  (GtkColumnView        *view,
                                                   GtkColumnViewColumn **columns);

G_END_DECLS
