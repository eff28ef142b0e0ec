/* tsl-timeline-view.h: the zoomable multi-track timeline widget
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "tsl-render.h"

G_BEGIN_DECLS

typedef enum {
  TSL_RANGE_A,
  TSL_RANGE_B,
} TslRangeId;

#define TSL_TYPE_TIMELINE_VIEW (tsl_timeline_view_get_type ())
G_DECLARE_FINAL_TYPE (TslTimelineView, tsl_timeline_view, TSL, TIMELINE_VIEW, GtkWidget)

GtkWidget        *tsl_timeline_view_new              (void);
/* Keeps the visible window unless it showed everything, so a file that is
 * still loading keeps filling the view. */
void              tsl_timeline_view_set_snapshot     (TslTimelineView *self,
                                                      TslSnapshot     *snapshot);
TslSnapshot      *tsl_timeline_view_get_snapshot     (TslTimelineView *self);
/* A re-sampling of [start_ns, end_ns) at full resolution, drawn while the
 * view lies inside that window (zoomed in). NULL drops it. */
void              tsl_timeline_view_set_detail       (TslTimelineView *self,
                                                      TslSnapshot     *detail,
                                                      gint64           start_ns,
                                                      gint64           end_ns);
TslSnapshot      *tsl_timeline_view_get_shown_snapshot (TslTimelineView *self);
void              tsl_timeline_view_set_visible_time (TslTimelineView *self,
                                                      gint64           start_ns,
                                                      gint64           end_ns);
void              tsl_timeline_view_get_visible_time (TslTimelineView *self,
                                                      gint64          *start_ns,
                                                      gint64          *end_ns);
void              tsl_timeline_view_zoom             (TslTimelineView *self,
                                                      double           factor,
                                                      double           anchor_x);
void              tsl_timeline_view_pan              (TslTimelineView *self,
                                                      double           fraction);
gboolean          tsl_timeline_view_handle_key       (TslTimelineView *self,
                                                      guint            keyval,
                                                      GdkModifierType  state,
                                                      gboolean         printable_only);
/* The track label column, widened by dragging its edge. */
void              tsl_timeline_view_set_label_width  (TslTimelineView *self,
                                                      double           width);
double            tsl_timeline_view_get_label_width  (TslTimelineView *self);
/* Height of metric and counter tracks (timeline.counter-height changes it). */
void              tsl_timeline_view_set_counter_height (TslTimelineView *self,
                                                        double           height);
double            tsl_timeline_view_get_counter_height (TslTimelineView *self);
/* The absolute start (ns since the epoch) the ruler reads wall-clock time
 * from; 0 when it shows elapsed time (timeline.elapsed-time toggles). */
gint64            tsl_timeline_view_get_wall_clock   (TslTimelineView *self);
void              tsl_timeline_view_set_range        (TslTimelineView *self,
                                                      TslRangeId       range,
                                                      gint64           start_ns,
                                                      gint64           end_ns);
/* Merged files: the group (pid) a range was selected in, 0 for none. A
 * drag sets it from where it started; set it before set_range() to have
 * the ranges-changed handlers see it. */
void              tsl_timeline_view_set_range_group  (TslTimelineView *self,
                                                      TslRangeId       range,
                                                      gint64           pid);
gint64            tsl_timeline_view_get_range_group  (TslTimelineView *self,
                                                      TslRangeId       range);
/* TRUE while a drag moves a range: ranges-changed is emitted on every
 * step, then once more, not selecting, when the button is released. */
gboolean          tsl_timeline_view_get_selecting    (TslTimelineView *self);
gboolean          tsl_timeline_view_get_range        (TslTimelineView *self,
                                                      TslRangeId       range,
                                                      gint64          *start_ns,
                                                      gint64          *end_ns);
void              tsl_timeline_view_clear_ranges     (TslTimelineView *self);
/* Brings back what the last clear of the ranges removed (Ctrl+Z); FALSE
 * when there is nothing to bring back (a range was set since). */
gboolean          tsl_timeline_view_restore_ranges (TslTimelineView *self);
/* Drag selects B instead of A (the header-bar toggle); Shift+drag always does. */
/* While a file loads, a view with no track yet says so instead of
 * "Nothing to draw". */
void              tsl_timeline_view_set_loading      (TslTimelineView *self,
                                                      gboolean         loading);
void              tsl_timeline_view_set_select_b     (TslTimelineView *self,
                                                      gboolean         select_b);
void              tsl_timeline_view_set_highlight    (TslTimelineView *self,
                                                      const char      *text);
void              tsl_timeline_view_set_highlight_full (TslTimelineView *self,
                                                      const char      *text,
                                                      gboolean         exact,
                                                      const char      *track,
                                                      gint64           pid);
/* The clicked slice, outlined, whose flows are drawn; a NULL track clears it. */
void              tsl_timeline_view_set_selection    (TslTimelineView *self,
                                                     const char      *track,
                                                     gint64           pid,
                                                     guint            depth,
                                                     gint64           start_ns,
                                                     gint64           end_ns,
                                                     const char      *name);
/* Every flow in view, or only the selected slice's (the default). */
gboolean          tsl_timeline_view_get_all_flows    (TslTimelineView *self);
void              tsl_timeline_view_set_all_flows    (TslTimelineView *self,
                                                     gboolean         all_flows);
/* Outlines one call (the current search match); a NULL track clears it. */
void              tsl_timeline_view_set_mark         (TslTimelineView *self,
                                                      const char      *track,
                                                      gint64           pid,
                                                      guint            depth,
                                                      gint64           start_ns,
                                                      gint64           end_ns);
GtkAdjustment    *tsl_timeline_view_get_vadjustment  (TslTimelineView *self);
/* Process groups collapse to their header (a click on it toggles). */
void              tsl_timeline_view_toggle_group     (TslTimelineView *self,
                                                      gint64           pid);
gboolean          tsl_timeline_view_is_group_collapsed (TslTimelineView *self,
                                                        gint64           pid);
/* Fills `options` with what the view shows, for export "as shown". */
void              tsl_timeline_view_get_render_options (TslTimelineView  *self,
                                                        TslRenderOptions *options);
/* How many times the tracks were painted (not the ranges or crosshair over
 * them): for tests. */
guint             tsl_timeline_view_get_n_base_paints (TslTimelineView *self);

/* Significant change points (ns from the trace start), marked on the
 * ruler; `current` (-1: none) is the one chosen. */
void              tsl_timeline_view_set_change_marks (TslTimelineView *self,
                                                      const gint64    *times_ns,
                                                      guint            n,
                                                      int              current);

G_END_DECLS
