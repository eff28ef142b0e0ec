/* tsl-column-view.h: the sortable tables of the compare panel and call tree
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Appends one resizable column per title (N_() strings, translated here) to
 * `view`. Each column's index is the data of its factory's `setup` and `bind`
 * handlers and of its sorter's `compare`; column `expand` takes the spare
 * width. The columns go to columns[0..n_columns-1], owned by the caller. */
void              tsl_column_view_add_columns   (GtkColumnView         *view,
                                                 const char * const    *titles,
                                                 guint                  n_columns,
                                                 GCallback              setup,
                                                 GCallback              bind,
                                                 GCompareDataFunc       compare,
                                                 guint                  expand,
                                                 GtkColumnViewColumn  **columns);
/* Orders two sort keys for a sorter; an undefined (NAN) key sorts as the
 * smallest. */
int               tsl_column_view_compare_keys  (double                 a,
                                                 double                 b);

/* (transfer full): a table cell's number, "%.4g" or "%.3e" outside
 * [1e-3, 1e6); `nan_text` for NAN. */
char             *tsl_column_view_format_number (double                 v,
                                                 const char            *nan_text);

/* Makes the table one stop of the Tab chain: Tab and Shift+Tab leave it for
 * the widget after or before it, the arrow keys move between its rows.
 * GTK 4.8's column view takes Tab from row to row (GTK 4.12 has
 * `tab-behavior` for this), which traps a keyboard user in a long table. */
void              tsl_column_view_tab_leaves    (GtkColumnView         *view);

G_END_DECLS
