/* tsl-changes-list.h: the significant change points of a file, one row each
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "tsl-changes.h"

G_BEGIN_DECLS

#define TSL_TYPE_CHANGES_LIST (tsl_changes_list_get_type ())

G_DECLARE_FINAL_TYPE (TslChangesList, tsl_changes_list, TSL, CHANGES_LIST, GtkWidget)

/* Rows (TslChangeRow *, borrowed for as long as they are shown: NULL
 * clears) named by series, before → after and change; `files` (NULL: one
 * file) names each row's file, for merged files. Activating one emits
 * "change-activated" with its index. */
void              tsl_changes_list_set_rows     (TslChangesList     *self,
                                                 GPtrArray          *rows,
                                                 const char * const *files);
/* The line above the rows: how many, or why there are none. */
void              tsl_changes_list_set_heading  (TslChangesList *self,
                                                 const char     *text);
/* Selects row `index` (-1: none) without activating it. */
void              tsl_changes_list_select       (TslChangesList *self,
                                                 int             index);

G_END_DECLS
