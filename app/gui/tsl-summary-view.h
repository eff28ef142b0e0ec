/* tsl-summary-view.h: range A on its own, per function and thread and per series
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define TSL_TYPE_SUMMARY_VIEW (tsl_summary_view_get_type ())
G_DECLARE_FINAL_TYPE (TslSummaryView, tsl_summary_view, TSL, SUMMARY_VIEW, GtkWidget)

/* Shows `rows` (element-type TslSummaryRow), taking them out of the array;
 * length_ns is the range's length, for the heading. */
void              tsl_summary_view_set_rows     (TslSummaryView *self,
                                                 GPtrArray      *rows,
                                                 gint64          length_ns);
/* The rows as shown, sorted (element-type TslSummaryItem). */
GListModel       *tsl_summary_view_get_model    (TslSummaryView *self);
GtkColumnView    *tsl_summary_view_get_column_view (TslSummaryView *self);

G_END_DECLS
