/* tsl-timeline-view-private.h: TslTimelineView's insides, for its own files
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * tsl-timeline-view.c (view, snapshot, ranges, painting) and
 * tsl-timeline-view-input.c (pointer, keys, actions, tooltip) share these.
 */
#pragma once

#include <adwaita.h>

#include "tsl-range.h"
#include "tsl-timeline-base.h"
#include "tsl-timeline-view.h"

G_BEGIN_DECLS

#define MIN_SPAN_NS 1000.0  /* 1 µs across the whole width at most zoom */
#define COMPACT_ROWS 8      /* levels per thread track in compact mode ("l") */

struct _TslTimelineView
{
  GtkWidget      parent_instance;

  TslSnapshot   *snapshot;
  TslTimelineBase *base;       /* the tracks as last painted, under ranges and crosshair */
  TslSnapshot   *detail;       /* re-sampled at full resolution for [detail_start, detail_end) */
  gint64         detail_start;
  gint64         detail_end;
  GtkAdjustment *vadjustment;
  char          *highlight;
  char          *highlight_track;  /* NULL: every track */
  gint64         highlight_pid;
  gboolean       highlight_exact;
  gboolean       has_mark;         /* the current search match */
  char          *mark_track;
  gint64         mark_pid;
  guint          mark_depth;
  gint64         mark_start;
  gint64         mark_end;
  gboolean       has_selection;    /* the clicked slice, whose flows are drawn */
  char          *selection_track;
  char          *selection_name;   /* the slice's name, among slices of one start and depth */
  gint64         selection_pid;
  guint          selection_depth;
  gint64         selection_start;
  gint64         selection_end;
  gboolean       all_flows;        /* every flow in view, not only the selection's */

  double         view_start;
  double         view_end;
  gboolean       showing_all;

  gboolean       has_range[2];
  gint64         range_start[2];
  gint64         range_end[2];

  GArray        *collapsed;  /* gint64 pids of collapsed process groups */
  GArray        *change_marks;   /* gint64: significant change points, on the ruler */
  int            change_current; /* the one chosen, -1: none */

  gboolean       select_b;
  TslRangeId     dragging_range;
  gboolean       selecting;     /* a drag is moving a range's end */
  double         drag_start_x;
  double         drag_start_y;
  double         drag_start_view;
  gboolean       drag_pans;
  double         pinch_start_span;
  double         pointer_x;    /* where the pointer is, -1 when outside: zoom anchors here */
  double         label_width;
  double         counter_height; /* metric and counter tracks; 0 is the painter's default */
  gboolean       elapsed_time;   /* absolute times shown from the trace start all the same */
  gboolean       loading;        /* a file is being read: no track is not yet "nothing" */
  gboolean       compact;        /* thread tracks capped to COMPACT_ROWS, "+N levels" below */
  gboolean       drag_resizes; /* dragging the label column's edge */
  double         drag_start_label_width;
  gboolean       drag_resizes_tracks; /* dragging a metric track's lower edge */
  double         drag_start_counter_height;
  gint64         drag_group;   /* Ctrl+drag on a merged file's header: its pid, else 0 */
  gint64         range_group[2]; /* the group (pid) each range was selected in, 0: none */
  /* What the last clear removed, for Ctrl+Z; forgotten when a range is set. */
  gboolean       cleared_has[2];
  gint64         cleared_start[2];
  gint64         cleared_end[2];
  gint64         cleared_group[2];
  gint64         drag_start_group;
  double         drag_group_dx; /* of the drag, already handed on as group-moved */
  double         drag_group_scale; /* ns per pixel when it began: the view refits as the file moves */
};

enum {
  RANGES_CHANGED,
  VIEW_CHANGED,
  SLICE_ACTIVATED,
  GROUP_MOVED,
  _TSL_TIMELINE_VIEW_N_SIGNALS
};

extern guint _tsl_timeline_view_signals[_TSL_TIMELINE_VIEW_N_SIGNALS];

double            _tsl_timeline_view_span           (TslTimelineView  *self);
TslSnapshot      *_tsl_timeline_view_shown          (TslTimelineView  *self);
void              _tsl_timeline_view_fill_options   (TslTimelineView  *self,
                                                     TslRenderOptions *o);
void              _tsl_timeline_view_update_adjustment (TslTimelineView *self);
void              _tsl_timeline_view_set_view       (TslTimelineView  *self,
                                                     double            start,
                                                     double            end);
/* tsl-timeline-view-input.c: the actions, key bindings and tooltip of the
 * class, and the pointer controllers of each view. */
void              _tsl_timeline_view_class_init_input (GtkWidgetClass *widget_class);
void              _tsl_timeline_view_init_input     (TslTimelineView  *self);

G_END_DECLS
