/* tsl-compare-panel.h: the table of what changed between ranges A and B
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "tsl-compare-item.h"
#include "tsl-summary-view.h"
#include "tsl-snapshot.h"
#include "tsl-trace.h"

G_BEGIN_DECLS

#define TSL_TYPE_COMPARE_PANEL (tsl_compare_panel_get_type ())
G_DECLARE_FINAL_TYPE (TslComparePanel, tsl_compare_panel, TSL, COMPARE_PANEL, GtkWidget)

GtkWidget        *tsl_compare_panel_new          (void);
/* The input to re-read per range (NULL for none) and the trace read from it. */
void              tsl_compare_panel_set_source   (TslComparePanel *self,
                                                  GFile           *file,
                                                  TslTrace        *trace);
/* The tracks of what is shown (NULL: none), whose names split a row's
 * series into thread and function. */
void              tsl_compare_panel_set_tracks   (TslComparePanel *self,
                                                  TslSnapshot     *snapshot);
/* Merged files (NULL: none): a range is read from the file it lies in,
 * from that file's start, and A and B in two files compare two runs;
 * `merged` tells where each file lies on the axis. */
void              tsl_compare_panel_set_parts    (TslComparePanel *self,
                                                  GFile          **files,
                                                  guint            n_files,
                                                  TslSnapshot     *merged);
/* Merged files: the file each range was selected in (-1: the one it
 * overlaps most). */
void              tsl_compare_panel_set_range_parts (TslComparePanel *self,
                                                  int              part_a,
                                                  int              part_b);
/* Ranges in ns from the trace start; recomputes after a short pause. */
void              tsl_compare_panel_set_ranges   (TslComparePanel *self,
                                                  gboolean         has_a,
                                                  gint64           a_start,
                                                  gint64           a_end,
                                                  gboolean         has_b,
                                                  gint64           b_start,
                                                  gint64           b_end);
/* Starts the computation a change queued now rather than after the pause
 * that lets a drag or typing settle. */
void              tsl_compare_panel_flush        (TslComparePanel *self);
/* Confidence and rounds follow (and set) these settings. */
void              tsl_compare_panel_bind_settings (TslComparePanel *self,
                                                  GSettings       *settings);
void              tsl_compare_panel_set_k        (TslComparePanel *self,
                                                  guint            k);
/* TRUE while a table is being computed. */
void              tsl_compare_panel_set_no_tracks (TslComparePanel *self,
                                                  gboolean         no_tracks);
const char       *tsl_compare_panel_get_page     (TslComparePanel *self);
gboolean          tsl_compare_panel_is_busy      (TslComparePanel *self);
/* The rows as shown (filtered and sorted). */
GListModel       *tsl_compare_panel_get_model    (TslComparePanel *self);
GtkColumnView    *tsl_compare_panel_get_column_view (TslComparePanel *self);
void              tsl_compare_panel_set_filter   (TslComparePanel *self,
                                                  const char      *text);
/* The settings of the rows shown once not busy (K, seed, rounds …);
 * (transfer none) (nullable): none before the first compare. */
const TslCompareRequest *tsl_compare_panel_get_request (TslComparePanel *self);
/* (transfer none) (nullable) */
TslCompareItem   *tsl_compare_panel_get_selected (TslComparePanel *self);

/* (transfer none): the summary of range A shown while B is not selected. */
TslSummaryView   *tsl_compare_panel_get_summary_view (TslComparePanel *self);

G_END_DECLS
