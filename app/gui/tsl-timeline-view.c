/* tsl-timeline-view.c: the zoomable multi-track timeline widget
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Draws through core's painter (tsl-render.c) so the window and export show
 * the same picture. Times are ns from the trace start.
 */
#define G_LOG_DOMAIN "tsl-timeline-view"

#include "config.h"

#include <math.h>

#include <adwaita.h>
#include <glib/gi18n.h>

#include "tsl-change-marks.h"
#include "tsl-style.h"
#include "tsl-range.h"
#include "tsl-timeline-base.h"
#include "tsl-timeline-view.h"

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
  N_SIGNALS
};

static guint signals[N_SIGNALS];

enum {
  PROP_0,
  PROP_ALL_FLOWS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (TslTimelineView, tsl_timeline_view, GTK_TYPE_WIDGET)

static double
span_of (TslTimelineView *self)
{
  return self->snapshot ? (double) MAX (tsl_snapshot_get_span (self->snapshot), 1) : 1.0;
}

/* The detail snapshot while the view lies inside its window, else the whole trace's. */
static TslSnapshot *
shown (TslTimelineView *self)
{
  if (self->detail != NULL &&
      self->view_start >= (double) self->detail_start &&
      self->view_end <= (double) self->detail_end)
    return self->detail;
  return self->snapshot;
}

static void
fill_options (TslTimelineView  *self,
              TslRenderOptions *o)
{
  tsl_render_options_init (o, self->snapshot,
                           gtk_widget_get_width (GTK_WIDGET (self)),
                           gtk_widget_get_height (GTK_WIDGET (self)));
  o->view_start_ns = (gint64) floor (self->view_start);
  o->view_end_ns = (gint64) ceil (self->view_end);
  o->scroll_y = gtk_adjustment_get_value (self->vadjustment);
  o->label_width = self->label_width;
  o->counter_height = self->counter_height;
  o->max_rows = self->compact ? COMPACT_ROWS : 0;
  /* The crosshair follows the pointer over the tracks (not the labels). */
  o->has_crosshair = self->pointer_x >= self->label_width;
  o->crosshair_x = self->pointer_x;
  /* Absolute timestamps (ISO CSV, date columns) read as local wall-clock time. */
  if (!self->elapsed_time && self->snapshot != NULL &&
      tsl_snapshot_get_start (self->snapshot) >= TSL_RENDER_EPOCH_MIN_NS)
    o->wall_clock_ns = tsl_snapshot_get_start (self->snapshot);
  o->dark = tsl_style_is_dark (GTK_WIDGET (self));
  o->highlight = self->highlight;
  o->highlight_exact = self->highlight_exact;
  o->highlight_track = self->highlight_track;
  o->highlight_pid = self->highlight_pid;
  o->has_mark = self->has_mark;
  o->mark_track = self->mark_track;
  o->mark_pid = self->mark_pid;
  o->mark_depth = self->mark_depth;
  o->mark_start_ns = self->mark_start;
  o->mark_end_ns = self->mark_end;
  o->flows = self->all_flows ? TSL_RENDER_FLOWS_ALL : TSL_RENDER_FLOWS_SELECTED;
  o->has_selection = self->has_selection;
  o->selection_track = self->selection_track;
  o->selection_pid = self->selection_pid;
  o->selection_depth = self->selection_depth;
  o->selection_start_ns = self->selection_start;
  o->selection_end_ns = self->selection_end;
  o->collapsed = (const gint64 *) (gpointer) self->collapsed->data;
  o->n_collapsed = self->collapsed->len;
  o->has_a = self->has_range[TSL_RANGE_A];
  o->a_start_ns = self->range_start[TSL_RANGE_A];
  o->a_end_ns = self->range_end[TSL_RANGE_A];
  o->has_b = self->has_range[TSL_RANGE_B];
  o->b_start_ns = self->range_start[TSL_RANGE_B];
  o->b_end_ns = self->range_end[TSL_RANGE_B];
  o->a_group = self->range_group[TSL_RANGE_A];
  o->b_group = self->range_group[TSL_RANGE_B];
}

guint
tsl_timeline_view_get_n_base_paints (TslTimelineView *self)
{
  g_return_val_if_fail (TSL_IS_TIMELINE_VIEW (self), 0);

  return tsl_timeline_base_get_n_paints (self->base);
}

void
tsl_timeline_view_get_render_options (TslTimelineView  *self,
                                      TslRenderOptions *options)
{
  g_return_if_fail (TSL_IS_TIMELINE_VIEW (self));

  fill_options (self, options);
}

static void
update_adjustment (TslTimelineView *self)
{
  double height = gtk_widget_get_height (GTK_WIDGET (self)) - TSL_RENDER_RULER_HEIGHT;
  TslRenderOptions o;
  double content;

  fill_options (self, &o);
  content = shown (self) ? tsl_render_content_height (shown (self), &o) : 0;

  gtk_adjustment_configure (self->vadjustment,
                            CLAMP (gtk_adjustment_get_value (self->vadjustment), 0, MAX (content - height, 0)),
                            0, MAX (content, height), 20, MAX (height * 0.9, 1), MAX (height, 1));
}

static void
tsl_timeline_view_snapshot (GtkWidget   *widget,
                            GtkSnapshot *snapshot)
{
  TslTimelineView *self = TSL_TIMELINE_VIEW (widget);
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);
  TslRenderOptions options;
  GdkTexture *texture;
  cairo_t *cr;

  if (width <= 0 || height <= 0)
    return;

  fill_options (self, &options);
  texture = tsl_timeline_base_get (self->base, shown (self), &options, gtk_widget_get_scale_factor (widget));
  if (texture != NULL)
    gtk_snapshot_append_texture (snapshot, texture, &GRAPHENE_RECT_INIT (0, 0, width, height));
  if (options.has_a || options.has_b || options.has_crosshair)
    {
      cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, width, height));
      tsl_render_paint_overlay (cr, shown (self), &options);
      cairo_destroy (cr);
    }
  if (self->change_marks != NULL && self->change_marks->len > 0)
    {
      g_autofree double *xs = g_new (double, self->change_marks->len);
      double left = tsl_render_label_width (&options);

      for (guint i = 0; i < self->change_marks->len; i++)
        xs[i] = tsl_render_time_to_x (&options, (double) g_array_index (self->change_marks, gint64, i));
      cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (left, 0, MAX (width - left, 1), TSL_RENDER_RULER_HEIGHT));
      tsl_change_marks_draw (widget, cr, xs, self->change_marks->len, self->change_current,
                             0, TSL_RENDER_RULER_HEIGHT);
      cairo_destroy (cr);
    }

  if (gtk_widget_has_visible_focus (widget))
    {
      GdkRGBA focus;

      gtk_style_context_get_color (gtk_widget_get_style_context (widget), &focus);
      focus.alpha = 0.4;
      gtk_snapshot_append_border (snapshot,
                                  &GSK_ROUNDED_RECT_INIT (1, 1, width - 2, height - 2),
                                  (float[4]) { 2, 2, 2, 2 },
                                  (GdkRGBA[4]) { focus, focus, focus, focus });
    }
}

static void
tsl_timeline_view_size_allocate (GtkWidget *widget,
                                 int        width,
                                 int        height,
                                 int        baseline)
{
  update_adjustment (TSL_TIMELINE_VIEW (widget));
}

static void
set_view (TslTimelineView *self,
          double           start,
          double           end)
{
  double span = span_of (self);
  double width;

  /* A NaN would become the view and every later one (issue 18). */
  if (!isfinite (start) || !isfinite (end))
    return;
  width = MAX (end - start, MIN_SPAN_NS);

  width = MIN (width, span);
  start = CLAMP (start, 0, span - width);

  self->view_start = start;
  self->view_end = start + width;
  self->showing_all = start <= 0 && start + width >= span;

  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_signal_emit (self, signals[VIEW_CHANGED], 0);
}

void
tsl_timeline_view_set_visible_time (TslTimelineView *self,
                                    gint64           start_ns,
                                    gint64           end_ns)
{
  g_return_if_fail (TSL_IS_TIMELINE_VIEW (self));

  set_view (self, (double) start_ns, (double) end_ns);
}

void
tsl_timeline_view_get_visible_time (TslTimelineView *self,
                                    gint64          *start_ns,
                                    gint64          *end_ns)
{
  g_return_if_fail (TSL_IS_TIMELINE_VIEW (self));

  *start_ns = (gint64) floor (self->view_start);
  *end_ns = (gint64) ceil (self->view_end);
}

void
tsl_timeline_view_zoom (TslTimelineView *self,
                        double           factor,
                        double           anchor_x)
{
  TslRenderOptions o;
  double anchor, start, end;

  g_return_if_fail (TSL_IS_TIMELINE_VIEW (self));
  g_return_if_fail (factor > 0);

  fill_options (self, &o);
  if (!isfinite (anchor_x) || anchor_x < tsl_render_label_width (&o))
    anchor = (self->view_start + self->view_end) / 2;
  else
    anchor = tsl_render_x_to_time (&o, anchor_x);

  start = anchor - (anchor - self->view_start) / factor;
  end = anchor + (self->view_end - anchor) / factor;
  set_view (self, start, end);
}

void
tsl_timeline_view_pan (TslTimelineView *self,
                       double           fraction)
{
  double width;

  g_return_if_fail (TSL_IS_TIMELINE_VIEW (self));

  width = self->view_end - self->view_start;
  set_view (self, self->view_start + fraction * width, self->view_end + fraction * width);
}

void
tsl_timeline_view_set_snapshot (TslTimelineView *self,
                                TslSnapshot     *snapshot)
{
  g_return_if_fail (TSL_IS_TIMELINE_VIEW (self));

  if (snapshot == self->snapshot)
    return;

  if (snapshot != NULL)
    tsl_snapshot_ref (snapshot);
  g_clear_pointer (&self->snapshot, tsl_snapshot_unref);
  self->snapshot = snapshot;
  /* Groups of ranges are merged files'. */
  if (snapshot == NULL || tsl_snapshot_get_n_parts (snapshot) == 0)
    self->range_group[0] = self->range_group[1] = 0;
  /* A new trace (or a new load of it) outdates any detail. */
  if (snapshot == NULL || self->detail == NULL ||
      tsl_snapshot_get_start (snapshot) != tsl_snapshot_get_start (self->detail))
    g_clear_pointer (&self->detail, tsl_snapshot_unref);

  if (self->showing_all || snapshot == NULL)
    set_view (self, 0, span_of (self));
  else
    set_view (self, self->view_start, self->view_end);

  update_adjustment (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
tsl_timeline_view_set_detail (TslTimelineView *self,
                              TslSnapshot     *detail,
                              gint64           start_ns,
                              gint64           end_ns)
{
  g_return_if_fail (TSL_IS_TIMELINE_VIEW (self));

  if (detail != NULL)
    tsl_snapshot_ref (detail);
  g_clear_pointer (&self->detail, tsl_snapshot_unref);
  self->detail = detail;
  self->detail_start = start_ns;
  self->detail_end = end_ns;

  update_adjustment (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/**
 * tsl_timeline_view_get_shown_snapshot:
 *
 * Returns: (transfer none) (nullable): what is drawn now: the detail
 *   snapshot while the view lies inside it, else the whole trace's
 */
TslSnapshot *
tsl_timeline_view_get_shown_snapshot (TslTimelineView *self)
{
  g_return_val_if_fail (TSL_IS_TIMELINE_VIEW (self), NULL);

  return shown (self);
}

/**
 * tsl_timeline_view_get_snapshot:
 *
 * Returns: (transfer none) (nullable): what the view shows
 */
TslSnapshot *
tsl_timeline_view_get_snapshot (TslTimelineView *self)
{
  g_return_val_if_fail (TSL_IS_TIMELINE_VIEW (self), NULL);

  return self->snapshot;
}

void
tsl_timeline_view_set_range (TslTimelineView *self,
                             TslRangeId       range,
                             gint64           start_ns,
                             gint64           end_ns)
{
  g_return_if_fail (TSL_IS_TIMELINE_VIEW (self));
  g_return_if_fail (range == TSL_RANGE_A || range == TSL_RANGE_B);

  if (end_ns < start_ns)
    {
      gint64 tmp = start_ns;
      start_ns = end_ns;
      end_ns = tmp;
    }

  self->cleared_has[0] = self->cleared_has[1] = FALSE;
  self->has_range[range] = end_ns > start_ns;
  self->range_start[range] = start_ns;
  self->range_end[range] = end_ns;

  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_signal_emit (self, signals[RANGES_CHANGED], 0);
}

gboolean
tsl_timeline_view_get_selecting (TslTimelineView *self)
{
  g_return_val_if_fail (TSL_IS_TIMELINE_VIEW (self), FALSE);

  return self->selecting;
}

gboolean
tsl_timeline_view_get_range (TslTimelineView *self,
                             TslRangeId       range,
                             gint64          *start_ns,
                             gint64          *end_ns)
{
  g_return_val_if_fail (TSL_IS_TIMELINE_VIEW (self), FALSE);

  if (start_ns)
    *start_ns = self->range_start[range];
  if (end_ns)
    *end_ns = self->range_end[range];
  return self->has_range[range];
}

void
tsl_timeline_view_clear_ranges (TslTimelineView *self)
{
  g_return_if_fail (TSL_IS_TIMELINE_VIEW (self));

  if (!self->has_range[0] && !self->has_range[1])
    return;

  for (guint r = 0; r < 2; r++)
    {
      self->cleared_has[r] = self->has_range[r];
      self->cleared_start[r] = self->range_start[r];
      self->cleared_end[r] = self->range_end[r];
      self->cleared_group[r] = self->range_group[r];
    }
  self->has_range[0] = self->has_range[1] = FALSE;
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_signal_emit (self, signals[RANGES_CHANGED], 0);
}

gboolean
tsl_timeline_view_restore_ranges (TslTimelineView *self)
{
  g_return_val_if_fail (TSL_IS_TIMELINE_VIEW (self), FALSE);

  if (!self->cleared_has[0] && !self->cleared_has[1])
    return FALSE;
  for (guint r = 0; r < 2; r++)
    {
      self->has_range[r] = self->cleared_has[r];
      self->range_start[r] = self->cleared_start[r];
      self->range_end[r] = self->cleared_end[r];
      self->range_group[r] = self->cleared_group[r];
    }
  self->cleared_has[0] = self->cleared_has[1] = FALSE;
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_signal_emit (self, signals[RANGES_CHANGED], 0);
  return TRUE;
}

void
tsl_timeline_view_set_select_b (TslTimelineView *self,
                                gboolean         select_b)
{
  g_return_if_fail (TSL_IS_TIMELINE_VIEW (self));

  self->select_b = !!select_b;
}

void
tsl_timeline_view_set_highlight (TslTimelineView *self,
                                 const char      *text)
{
  g_return_if_fail (TSL_IS_TIMELINE_VIEW (self));

  tsl_timeline_view_set_highlight_full (self, text, FALSE, NULL, 0);
}

/**
 * tsl_timeline_view_set_highlight_full:
 * @exact: match whole names only
 * @track: (nullable): only on the track of this name in process @pid
 *
 * A compare row highlights one function of one thread, by its exact name.
 */
void
tsl_timeline_view_set_highlight_full (TslTimelineView *self,
                                      const char      *text,
                                      gboolean         exact,
                                      const char      *track,
                                      gint64           pid)
{
  g_return_if_fail (TSL_IS_TIMELINE_VIEW (self));

  g_free (self->highlight);
  self->highlight = (text && *text) ? g_strdup (text) : NULL;
  g_free (self->highlight_track);
  self->highlight_track = g_strdup (track);
  self->highlight_pid = pid;
  self->highlight_exact = exact;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/**
 * tsl_timeline_view_set_mark:
 * @track: (nullable): the track's name (in process @pid); NULL clears
 *
 * Outlines one call: the current search match.
 */
void
tsl_timeline_view_set_mark (TslTimelineView *self,
                            const char      *track,
                            gint64           pid,
                            guint            depth,
                            gint64           start_ns,
                            gint64           end_ns)
{
  g_return_if_fail (TSL_IS_TIMELINE_VIEW (self));

  g_free (self->mark_track);
  self->mark_track = g_strdup (track);
  self->has_mark = track != NULL;
  self->mark_pid = pid;
  self->mark_depth = depth;
  self->mark_start = start_ns;
  self->mark_end = end_ns;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/**
 * tsl_timeline_view_set_selection:
 * @track: (nullable): the slice's track name (in process @pid); NULL clears
 *
 * Selects one slice: it is outlined and, unless every flow is shown, its
 * flows are the ones drawn (its whole chain). Kept by name, depth and
 * time, so it stays selected as zooming re-reads the view.
 */
void
tsl_timeline_view_set_selection (TslTimelineView *self,
                                 const char      *track,
                                 gint64           pid,
                                 guint            depth,
                                 gint64           start_ns,
                                 gint64           end_ns)
{
  g_return_if_fail (TSL_IS_TIMELINE_VIEW (self));

  g_free (self->selection_track);
  self->selection_track = g_strdup (track);
  self->has_selection = track != NULL;
  self->selection_pid = pid;
  self->selection_depth = depth;
  self->selection_start = start_ns;
  self->selection_end = end_ns;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

gboolean
tsl_timeline_view_get_all_flows (TslTimelineView *self)
{
  g_return_val_if_fail (TSL_IS_TIMELINE_VIEW (self), FALSE);

  return self->all_flows;
}

/**
 * tsl_timeline_view_set_all_flows:
 *
 * Every flow arrow in view (up to the painter's one cap), or only the
 * selected slice's, as Perfetto does: a browser trace's tens of thousands
 * of flows hide every track.
 */
void
tsl_timeline_view_set_all_flows (TslTimelineView *self,
                                 gboolean         all_flows)
{
  g_return_if_fail (TSL_IS_TIMELINE_VIEW (self));

  all_flows = !!all_flows;
  if (self->all_flows == all_flows)
    return;
  self->all_flows = all_flows;
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ALL_FLOWS]);
}

/**
 * tsl_timeline_view_get_vadjustment:
 *
 * Returns: (transfer none): the vertical scroll position of the tracks
 */
GtkAdjustment *
tsl_timeline_view_get_vadjustment (TslTimelineView *self)
{
  g_return_val_if_fail (TSL_IS_TIMELINE_VIEW (self), NULL);

  return self->vadjustment;
}

static gboolean
on_scroll (GtkEventControllerScroll *controller,
           double                    dx,
           double                    dy,
           TslTimelineView          *self)
{
  GdkModifierType state = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (controller));

  if (state & GDK_CONTROL_MASK)
    {
      /* A scroll event's own position may be NaN: the motion controller's
       * last position is where the pointer is. */
      if (isfinite (dy))
        tsl_timeline_view_zoom (self, pow (1.15, -dy), self->pointer_x);
      return TRUE;
    }

  if (state & GDK_SHIFT_MASK)
    {
      tsl_timeline_view_pan (self, (dx + dy) * 0.1);
      return TRUE;
    }

  if (dx != 0)
    tsl_timeline_view_pan (self, dx * 0.05);
  if (dy != 0)
    gtk_adjustment_set_value (self->vadjustment, gtk_adjustment_get_value (self->vadjustment) + dy * 40);

  return TRUE;
}

static gboolean
on_label_edge (TslTimelineView *self,
               double           x,
               double           y)
{
  return y >= TSL_RENDER_RULER_HEIGHT && fabs (x - self->label_width) <= 4;
}

/* On the lower edge of a metric or counter track (their height is one
 * setting: dragging any of them resizes them all, as Ctrl+Shift+Up does). */
static gboolean
on_track_edge (TslTimelineView *self,
               double           x,
               double           y)
{
  TslSnapshot *snapshot = shown (self);
  TslRenderOptions o;
  double top;

  if (snapshot == NULL || y < TSL_RENDER_RULER_HEIGHT)
    return FALSE;
  fill_options (self, &o);
  top = tsl_render_header_height (&o) - o.scroll_y;
  for (guint i = 0; i < tsl_snapshot_get_n_tracks (snapshot); i++)
    {
      const TslSnapshotTrack *track = tsl_snapshot_get_track (snapshot, i);
      double bottom;

      if (tsl_timeline_view_is_group_collapsed (self, track->pid) ||
          track->kind == TSL_TRACK_THREAD || track->kind == TSL_TRACK_ASYNC)
        continue;
      bottom = top + tsl_render_track_top (snapshot, &o, i) + tsl_render_track_height (snapshot, &o, i);
      if (fabs (y - bottom) <= 3)
        return TRUE;
      if (bottom > y + 3)
        break;
    }
  return FALSE;
}

void
tsl_timeline_view_set_counter_height (TslTimelineView *self,
                                      double           height)
{
  g_return_if_fail (TSL_IS_TIMELINE_VIEW (self));

  if (!isfinite (height))
    return;
  self->counter_height = CLAMP (round (height), TSL_RENDER_MIN_COUNTER_HEIGHT,
                                TSL_RENDER_MAX_COUNTER_HEIGHT);
  update_adjustment (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
tsl_timeline_view_set_label_width (TslTimelineView *self,
                                   double           width)
{
  TslRenderOptions o;

  g_return_if_fail (TSL_IS_TIMELINE_VIEW (self));

  if (!isfinite (width))
    return;
  fill_options (self, &o);
  o.label_width = width;
  self->label_width = tsl_render_label_width (&o);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

gint64
tsl_timeline_view_get_wall_clock (TslTimelineView *self)
{
  TslRenderOptions o;

  g_return_val_if_fail (TSL_IS_TIMELINE_VIEW (self), 0);

  if (self->snapshot == NULL)
    return 0;
  fill_options (self, &o);
  return o.wall_clock_ns;
}

double
tsl_timeline_view_get_counter_height (TslTimelineView *self)
{
  g_return_val_if_fail (TSL_IS_TIMELINE_VIEW (self), TSL_RENDER_COUNTER_HEIGHT);

  return self->counter_height > 0 ? self->counter_height : TSL_RENDER_COUNTER_HEIGHT;
}

double
tsl_timeline_view_get_label_width (TslTimelineView *self)
{
  g_return_val_if_fail (TSL_IS_TIMELINE_VIEW (self), TSL_RENDER_LABEL_WIDTH);

  return self->label_width;
}

static void
on_motion (GtkEventControllerMotion *controller,
           double                    x,
           double                    y,
           TslTimelineView          *self)
{
  self->pointer_x = x;
  gtk_widget_queue_draw (GTK_WIDGET (self));
  gtk_widget_set_cursor_from_name (GTK_WIDGET (self), on_label_edge (self, x, y) ? "col-resize"
                                                      : on_track_edge (self, x, y) ? "row-resize" : NULL);
}

static void
on_leave (GtkEventControllerMotion *controller,
          TslTimelineView          *self)
{
  self->pointer_x = -1;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
on_drag_begin (GtkGestureDrag  *gesture,
               double           x,
               double           y,
               TslTimelineView *self)
{
  GdkModifierType state = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (gesture));
  guint button = gtk_gesture_single_get_current_button (GTK_GESTURE_SINGLE (gesture));

  gtk_widget_grab_focus (GTK_WIDGET (self));

  self->drag_start_x = x;
  self->drag_start_y = y;
  self->drag_start_view = self->view_start;
  /* The label column's edge resizes it; dragging the ruler or with the
   * middle button pans; elsewhere it selects. */
  self->drag_resizes = on_label_edge (self, x, y);
  self->drag_start_label_width = self->label_width;
  self->drag_resizes_tracks = !self->drag_resizes && on_track_edge (self, x, y);
  self->drag_start_counter_height = tsl_timeline_view_get_counter_height (self);
  /* Ctrl+drag on a merged file's header moves that file along the axis;
   * a range selected on a file's tracks lies in that file. */
  self->drag_group = 0;
  self->drag_group_dx = 0;
  self->drag_start_group = 0;
  if (self->snapshot != NULL && tsl_snapshot_get_n_parts (self->snapshot) > 0)
    {
      TslRenderOptions o;
      TslRenderHit hit;

      fill_options (self, &o);
      if (tsl_render_hit_test (shown (self), &o, x, y, &hit))
        {
          if (hit.on_group && (state & GDK_CONTROL_MASK))
            {
              self->drag_group = hit.group_pid;
              self->drag_group_scale = (self->view_end - self->view_start) /
                                       MAX (o.width - tsl_render_label_width (&o), 1);
            }
          self->drag_start_group = hit.on_group ? hit.group_pid
                                   : hit.track >= 0 ? tsl_snapshot_get_track (shown (self), hit.track)->pid : 0;
        }
    }
  self->drag_pans = button == GDK_BUTTON_MIDDLE || y < TSL_RENDER_RULER_HEIGHT || x < self->label_width;
  self->dragging_range = (self->select_b || (state & GDK_SHIFT_MASK)) ? TSL_RANGE_B : TSL_RANGE_A;
}

static void
on_drag_update (GtkGestureDrag  *gesture,
                double           dx,
                double           dy,
                TslTimelineView *self)
{
  TslRenderOptions o;

  fill_options (self, &o);

  if (self->drag_group != 0)
    {
      /* In whole ns from the drag's start, so the steps add up to it. */
      gint64 total = (gint64) (dx * self->drag_group_scale);
      gint64 done = (gint64) (self->drag_group_dx * self->drag_group_scale);

      self->drag_group_dx = dx;
      if (total != done)
        g_signal_emit (self, signals[GROUP_MOVED], 0, self->drag_group, total - done);
      return;
    }

  if (self->drag_resizes)
    {
      tsl_timeline_view_set_label_width (self, self->drag_start_label_width + dx);
      return;
    }
  if (self->drag_resizes_tracks)
    {
      tsl_timeline_view_set_counter_height (self, self->drag_start_counter_height + dy);
      return;
    }

  if (self->drag_pans)
    {
      double width = self->view_end - self->view_start;
      double plot = MAX (o.width - tsl_render_label_width (&o), 1);
      double start = self->drag_start_view - dx / plot * width;

      set_view (self, start, start + width);
      return;
    }

  if (fabs (dx) < 3)
    return;

  {
    double t0 = CLAMP (tsl_render_x_to_time (&o, self->drag_start_x), 0, span_of (self));
    double t1 = CLAMP (tsl_render_x_to_time (&o, self->drag_start_x + dx), 0, span_of (self));

    self->range_group[self->dragging_range] = self->drag_start_group;
    self->selecting = TRUE;
    tsl_timeline_view_set_range (self, self->dragging_range, (gint64) MIN (t0, t1), (gint64) MAX (t0, t1));
  }
}

void
tsl_timeline_view_set_range_group (TslTimelineView *self,
                                   TslRangeId       range,
                                   gint64           pid)
{
  g_return_if_fail (TSL_IS_TIMELINE_VIEW (self));
  g_return_if_fail (range == TSL_RANGE_A || range == TSL_RANGE_B);

  self->range_group[range] = pid;
}

gint64
tsl_timeline_view_get_range_group (TslTimelineView *self,
                                   TslRangeId       range)
{
  g_return_val_if_fail (TSL_IS_TIMELINE_VIEW (self), 0);
  g_return_val_if_fail (range == TSL_RANGE_A || range == TSL_RANGE_B, 0);

  return self->range_group[range];
}

void
tsl_timeline_view_toggle_group (TslTimelineView *self,
                                gint64           pid)
{
  g_return_if_fail (TSL_IS_TIMELINE_VIEW (self));

  for (guint i = 0; i < self->collapsed->len; i++)
    {
      if (g_array_index (self->collapsed, gint64, i) == pid)
        {
          g_array_remove_index_fast (self->collapsed, i);
          update_adjustment (self);
          gtk_widget_queue_draw (GTK_WIDGET (self));
          return;
        }
    }

  g_array_append_val (self->collapsed, pid);
  update_adjustment (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

gboolean
tsl_timeline_view_is_group_collapsed (TslTimelineView *self,
                                      gint64           pid)
{
  g_return_val_if_fail (TSL_IS_TIMELINE_VIEW (self), FALSE);

  for (guint i = 0; i < self->collapsed->len; i++)
    if (g_array_index (self->collapsed, gint64, i) == pid)
      return TRUE;
  return FALSE;
}

static void
on_drag_end (GtkGestureDrag  *gesture,
             double           dx,
             double           dy,
             TslTimelineView *self)
{
  TslRenderOptions o;
  TslRenderHit hit;

  /* The selection is final now: listeners that waited for it go. */
  if (self->selecting)
    {
      self->selecting = FALSE;
      g_signal_emit (self, signals[RANGES_CHANGED], 0);
      return;
    }
  /* The release's offset: motion events may have been compressed. */
  if (self->drag_resizes_tracks)
    {
      tsl_timeline_view_set_counter_height (self, self->drag_start_counter_height + dy);
      self->drag_resizes_tracks = FALSE;
      return;
    }
  /* A click (no drag) on a process header collapses or expands its group. */
  if (self->drag_group != 0)
    {
      self->drag_group = 0;
      return;
    }
  if (fabs (dx) > 3 || fabs (dy) > 3 || self->snapshot == NULL)
    return;

  fill_options (self, &o);
  if (!tsl_render_hit_test (shown (self), &o, self->drag_start_x, self->drag_start_y, &hit))
    return;
  if (hit.on_group)
    tsl_timeline_view_toggle_group (self, hit.group_pid);
  else if (hit.slice != NULL)
    {
      const TslSnapshotTrack *track = tsl_snapshot_get_track (shown (self), hit.track);

      tsl_timeline_view_set_selection (self, track->name, track->pid, hit.slice->depth,
                                       hit.slice->start_ns, hit.slice->end_ns);
      g_signal_emit (self, signals[SLICE_ACTIVATED], 0, shown (self), (guint) hit.track,
                     (guint) (hit.slice - track->slices));
    }
}

static void
on_pinch_begin (GtkGesture       *gesture,
                GdkEventSequence *sequence,
                TslTimelineView  *self)
{
  self->pinch_start_span = self->view_end - self->view_start;
}

static void
on_pinch_scale_changed (GtkGestureZoom  *gesture,
                        double           scale,
                        TslTimelineView *self)
{
  double x = 0, y = 0;
  double current = self->view_end - self->view_start;

  gtk_gesture_get_bounding_box_center (GTK_GESTURE (gesture), &x, &y);
  if (scale > 0 && current > 0)
    tsl_timeline_view_zoom (self, current / (self->pinch_start_span / scale), x);
}

static gboolean
query_tooltip (GtkWidget  *widget,
               int         x,
               int         y,
               gboolean    keyboard,
               GtkTooltip *tooltip)
{
  TslTimelineView *self = TSL_TIMELINE_VIEW (widget);
  const TslSnapshotTrack *track;
  TslRenderOptions o;
  TslRenderHit hit;
  g_autoptr(GString) text = NULL;
  g_autofree char *when = NULL;

  fill_options (self, &o);
  if (!tsl_render_hit_test (shown (self), &o, x, y, &hit) || hit.sample == NULL)
    return FALSE;

  track = tsl_snapshot_get_track (shown (self), hit.track);
  when = tsl_duration_format ((double) hit.sample->time_ns);
  if (o.wall_clock_ns > 0)
    {
      g_autofree char *clock = tsl_render_format_tick (&o, (double) hit.sample->time_ns, 1);
      g_autofree char *elapsed = g_steal_pointer (&when);

      /* Translators: local wall-clock time, then the time from the trace start */
      when = g_strdup_printf (_("%s (%s from the start)"), clock, elapsed);
    }
  text = g_string_new (NULL);
  g_string_append_printf (text, "<b>%s</b>\n", track->name);
  {
    /* The count is formatted first: G_GUINT64_FORMAT inside _() would hide
     * the string from translation. */
    g_autofree char *weight = g_strdup_printf ("%" G_GUINT64_FORMAT, hit.sample->summary.count);

    g_string_append_printf (text, _("at %s · weight %s events"), when, weight);
  }

  if (hit.sample->n_frames > 0)
    {
      g_string_append (text, "\n");
      for (guint i = 0; i < hit.sample->n_frames; i++)
        {
          g_autofree char *escaped =
            g_markup_escape_text (tsl_snapshot_get_frame_name (shown (self), hit.sample->frames[i]), -1);

          g_string_append_printf (text, "\n%*s%s%s%s", (int) MIN (i, 12) * 2, "",
                                  (int) i == hit.depth ? "<b>" : "", escaped,
                                  (int) i == hit.depth ? "</b>" : "");
        }
    }
  else if (!isnan (hit.sample->value))
    {
      g_string_append_printf (text, _("\nvalue %.6g · slice min %.6g, max %.6g, sum %.6g"),
                              hit.sample->value, hit.sample->summary.min,
                              hit.sample->summary.max, hit.sample->summary.sum + 0.0);
    }

  gtk_tooltip_set_markup (tooltip, text->str);
  return TRUE;
}

static void
zoom_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *param)
{
  tsl_timeline_view_zoom (TSL_TIMELINE_VIEW (widget), g_variant_get_double (param), -1);
}

static void
pan_action (GtkWidget  *widget,
            const char *action_name,
            GVariant   *param)
{
  tsl_timeline_view_pan (TSL_TIMELINE_VIEW (widget), g_variant_get_double (param));
}

/* Wall-clock or elapsed time, for files with absolute timestamps. */
static void
elapsed_time_action (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *param)
{
  TslTimelineView *self = TSL_TIMELINE_VIEW (widget);

  self->elapsed_time = !self->elapsed_time;
  gtk_widget_queue_draw (widget);
}

/* Every level of every thread, or at most COMPACT_ROWS of each (a deep
 * browser thread is 30+ rows) with a "+N levels" row marking the rest. */
static void
compact_tracks_action (GtkWidget  *widget,
                       const char *action_name,
                       GVariant   *param)
{
  TslTimelineView *self = TSL_TIMELINE_VIEW (widget);

  self->compact = !self->compact;
  update_adjustment (self);
  gtk_widget_queue_draw (widget);
}

/* Every flow in view, or the selected slice's only. */
static void
all_flows_action (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *param)
{
  TslTimelineView *self = TSL_TIMELINE_VIEW (widget);

  tsl_timeline_view_set_all_flows (self, !self->all_flows);
}

/* Metric and counter tracks taller or shorter by the factor given. */
static void
counter_height_action (GtkWidget  *widget,
                       const char *action_name,
                       GVariant   *param)
{
  TslTimelineView *self = TSL_TIMELINE_VIEW (widget);
  double h = self->counter_height > 0 ? self->counter_height : TSL_RENDER_COUNTER_HEIGHT;

  tsl_timeline_view_set_counter_height (self, h * g_variant_get_double (param));
}

static void
zoom_all_action (GtkWidget  *widget,
                 const char *action_name,
                 GVariant   *param)
{
  TslTimelineView *self = TSL_TIMELINE_VIEW (widget);

  set_view (self, 0, span_of (self));
}

static void
zoom_selection_action (GtkWidget  *widget,
                       const char *action_name,
                       GVariant   *param)
{
  TslTimelineView *self = TSL_TIMELINE_VIEW (widget);
  double start = G_MAXDOUBLE, end = -G_MAXDOUBLE;

  for (guint r = 0; r < 2; r++)
    {
      if (!self->has_range[r])
        continue;
      start = MIN (start, (double) self->range_start[r]);
      end = MAX (end, (double) self->range_end[r]);
    }

  if (end > start)
    set_view (self, start - (end - start) * 0.05, end + (end - start) * 0.05);
}

static void
clear_ranges_action (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *param)
{
  tsl_timeline_view_clear_ranges (TSL_TIMELINE_VIEW (widget));
}

static void
on_dark_changed (TslTimelineView *self)
{
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
tsl_timeline_view_dispose (GObject *object)
{
  TslTimelineView *self = TSL_TIMELINE_VIEW (object);

  g_clear_pointer (&self->snapshot, tsl_snapshot_unref);
  g_clear_pointer (&self->detail, tsl_snapshot_unref);
  g_clear_pointer (&self->base, tsl_timeline_base_free);
  g_clear_object (&self->vadjustment);
  g_clear_pointer (&self->highlight, g_free);
  g_clear_pointer (&self->highlight_track, g_free);
  g_clear_pointer (&self->mark_track, g_free);
  g_clear_pointer (&self->selection_track, g_free);
  g_clear_pointer (&self->collapsed, g_array_unref);
  g_clear_pointer (&self->change_marks, g_array_unref);

  G_OBJECT_CLASS (tsl_timeline_view_parent_class)->dispose (object);
}

static void
tsl_timeline_view_get_property (GObject    *object,
                                guint       prop_id,
                                GValue     *value,
                                GParamSpec *pspec)
{
  TslTimelineView *self = TSL_TIMELINE_VIEW (object);

  switch (prop_id)
    {
    case PROP_ALL_FLOWS:
      g_value_set_boolean (value, self->all_flows);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
tsl_timeline_view_set_property (GObject      *object,
                                guint         prop_id,
                                const GValue *value,
                                GParamSpec   *pspec)
{
  TslTimelineView *self = TSL_TIMELINE_VIEW (object);

  switch (prop_id)
    {
    case PROP_ALL_FLOWS:
      tsl_timeline_view_set_all_flows (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

/* The timeline's own keys, without modifiers. */
static const struct { guint key; const char *action; const char *format; double value; } keys[] = {
  { GDK_KEY_plus, "timeline.zoom", "d", 1.5 },
  { GDK_KEY_equal, "timeline.zoom", "d", 1.5 },
  { GDK_KEY_KP_Add, "timeline.zoom", "d", 1.5 },
  { GDK_KEY_w, "timeline.zoom", "d", 1.5 },
  { GDK_KEY_minus, "timeline.zoom", "d", 1 / 1.5 },
  { GDK_KEY_KP_Subtract, "timeline.zoom", "d", 1 / 1.5 },
  { GDK_KEY_s, "timeline.zoom", "d", 1 / 1.5 },
  { GDK_KEY_Left, "timeline.pan", "d", -0.15 },
  { GDK_KEY_a, "timeline.pan", "d", -0.15 },
  { GDK_KEY_Right, "timeline.pan", "d", 0.15 },
  { GDK_KEY_d, "timeline.pan", "d", 0.15 },
  { GDK_KEY_0, "timeline.zoom-all", NULL, 0 },
  { GDK_KEY_KP_0, "timeline.zoom-all", NULL, 0 },
  { GDK_KEY_f, "timeline.zoom-selection", NULL, 0 },
  { GDK_KEY_Escape, "timeline.clear-ranges", NULL, 0 },
  { GDK_KEY_t, "timeline.elapsed-time", NULL, 0 },
  { GDK_KEY_l, "timeline.compact-tracks", NULL, 0 },
  { GDK_KEY_v, "timeline.all-flows", NULL, 0 },
};

static gboolean
activate_key (TslTimelineView *self,
              guint            i)
{
  if (keys[i].format != NULL)
    return gtk_widget_activate_action (GTK_WIDGET (self), keys[i].action, keys[i].format, keys[i].value);
  return gtk_widget_activate_action (GTK_WIDGET (self), keys[i].action, NULL);
}

/**
 * tsl_timeline_view_handle_key:
 * @printable_only: only keys that would type a character (the window calls
 *   it for keys the timeline did not get: arrows and Escape stay with the
 *   widget that has focus)
 *
 * Returns: TRUE when @keyval is a timeline key and was handled
 */
gboolean
tsl_timeline_view_handle_key (TslTimelineView *self,
                              guint            keyval,
                              GdkModifierType  state,
                              gboolean         printable_only)
{
  g_return_val_if_fail (TSL_IS_TIMELINE_VIEW (self), FALSE);

  if (state & (GDK_CONTROL_MASK | GDK_ALT_MASK | GDK_SUPER_MASK))
    return FALSE;
  if (printable_only && gdk_keyval_to_unicode (keyval) == 0)
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    if (keys[i].key == keyval)
      return activate_key (self, i);
  return FALSE;
}

static void
tsl_timeline_view_class_init (TslTimelineViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = tsl_timeline_view_dispose;
  object_class->get_property = tsl_timeline_view_get_property;
  object_class->set_property = tsl_timeline_view_set_property;

  widget_class->snapshot = tsl_timeline_view_snapshot;
  widget_class->size_allocate = tsl_timeline_view_size_allocate;
  widget_class->query_tooltip = query_tooltip;

  /**
   * TslTimelineView::ranges-changed:
   *
   * Range A or B was set or cleared. A drag emits it on every step, then once
   * more at the release, when tsl_timeline_view_get_selecting() is FALSE.
   */
  /* Every flow in view (TRUE), or only the selected slice's. */
  properties[PROP_ALL_FLOWS] =
    g_param_spec_boolean ("all-flows", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  signals[RANGES_CHANGED] = g_signal_new ("ranges-changed", G_TYPE_FROM_CLASS (klass),
                                          G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  signals[VIEW_CHANGED] = g_signal_new ("view-changed", G_TYPE_FROM_CLASS (klass),
                                        G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  /**
   * TslTimelineView::slice-activated:
   * @snapshot: (type gpointer): the shown TslSnapshot
   * @track: track index in @snapshot
   * @slice: slice index in that track
   *
   * A slice of the exact view was clicked.
   */
  signals[SLICE_ACTIVATED] = g_signal_new ("slice-activated", G_TYPE_FROM_CLASS (klass),
                                           G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE,
                                           3, G_TYPE_POINTER, G_TYPE_UINT, G_TYPE_UINT);
  /**
   * TslTimelineView::group-moved:
   * @pid: the group (a merged snapshot's file: its index + 1)
   * @delta_ns: how far it was dragged since the last emission
   *
   * A merged file's header was Ctrl+dragged along the time axis.
   */
  signals[GROUP_MOVED] = g_signal_new ("group-moved", G_TYPE_FROM_CLASS (klass),
                                       G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE,
                                       2, G_TYPE_INT64, G_TYPE_INT64);

  gtk_widget_class_install_action (widget_class, "timeline.zoom", "d", zoom_action);
  gtk_widget_class_install_action (widget_class, "timeline.pan", "d", pan_action);
  gtk_widget_class_install_action (widget_class, "timeline.zoom-all", NULL, zoom_all_action);
  gtk_widget_class_install_action (widget_class, "timeline.zoom-selection", NULL, zoom_selection_action);
  gtk_widget_class_install_action (widget_class, "timeline.clear-ranges", NULL, clear_ranges_action);
  gtk_widget_class_install_action (widget_class, "timeline.counter-height", "d", counter_height_action);
  gtk_widget_class_install_action (widget_class, "timeline.elapsed-time", NULL, elapsed_time_action);
  gtk_widget_class_install_action (widget_class, "timeline.compact-tracks", NULL, compact_tracks_action);
  gtk_widget_class_install_action (widget_class, "timeline.all-flows", NULL, all_flows_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Down, GDK_CONTROL_MASK | GDK_SHIFT_MASK,
                                       "timeline.counter-height", "d", 1.5);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Up, GDK_CONTROL_MASK | GDK_SHIFT_MASK,
                                       "timeline.counter-height", "d", 1 / 1.5);

  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      if (keys[i].format != NULL)
        gtk_widget_class_add_binding_action (widget_class, keys[i].key, 0, keys[i].action,
                                             keys[i].format, keys[i].value);
      else
        gtk_widget_class_add_binding_action (widget_class, keys[i].key, 0, keys[i].action, NULL);
    }

  gtk_widget_class_set_css_name (widget_class, "timeline");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
tsl_timeline_view_init (TslTimelineView *self)
{
  GtkEventController *scroll, *motion;
  GtkGesture *drag, *pinch;

  self->vadjustment = g_object_ref_sink (gtk_adjustment_new (0, 0, 1, 20, 100, 1));
  self->base = tsl_timeline_base_new ();
  self->collapsed = g_array_new (FALSE, FALSE, sizeof (gint64));
  self->change_marks = g_array_new (FALSE, FALSE, sizeof (gint64));
  self->change_current = -1;
  self->view_end = 1;
  self->showing_all = TRUE;
  self->pointer_x = -1;
  self->label_width = TSL_RENDER_LABEL_WIDTH;

  gtk_widget_set_focusable (GTK_WIDGET (self), TRUE);
  gtk_widget_set_has_tooltip (GTK_WIDGET (self), TRUE);
  gtk_widget_set_overflow (GTK_WIDGET (self), GTK_OVERFLOW_HIDDEN);

  g_signal_connect_object (self->vadjustment, "value-changed",
                           G_CALLBACK (gtk_widget_queue_draw), self, G_CONNECT_SWAPPED);

  scroll = gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_BOTH_AXES);
  g_signal_connect_object (scroll, "scroll", G_CALLBACK (on_scroll), self, 0);
  gtk_widget_add_controller (GTK_WIDGET (self), scroll);

  motion = gtk_event_controller_motion_new ();
  g_signal_connect_object (motion, "motion", G_CALLBACK (on_motion), self, 0);
  g_signal_connect_object (motion, "enter", G_CALLBACK (on_motion), self, 0);
  g_signal_connect_object (motion, "leave", G_CALLBACK (on_leave), self, 0);
  gtk_widget_add_controller (GTK_WIDGET (self), motion);

  drag = gtk_gesture_drag_new ();
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (drag), 0);
  g_signal_connect_object (drag, "drag-begin", G_CALLBACK (on_drag_begin), self, 0);
  g_signal_connect_object (drag, "drag-update", G_CALLBACK (on_drag_update), self, 0);
  g_signal_connect_object (drag, "drag-end", G_CALLBACK (on_drag_end), self, 0);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drag));

  pinch = gtk_gesture_zoom_new ();
  g_signal_connect_object (pinch, "begin", G_CALLBACK (on_pinch_begin), self, 0);
  g_signal_connect_object (pinch, "scale-changed", G_CALLBACK (on_pinch_scale_changed), self, 0);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (pinch));

  g_signal_connect_object (adw_style_manager_get_default (), "notify::dark",
                           G_CALLBACK (on_dark_changed), self, G_CONNECT_SWAPPED);
}

GtkWidget *
tsl_timeline_view_new (void)
{
  return g_object_new (TSL_TYPE_TIMELINE_VIEW, NULL);
}

void
tsl_timeline_view_set_change_marks (TslTimelineView *self,
                                    const gint64    *times_ns,
                                    guint            n,
                                    int              current)
{
  g_return_if_fail (TSL_IS_TIMELINE_VIEW (self));

  g_array_set_size (self->change_marks, 0);
  g_array_append_vals (self->change_marks, times_ns, n);
  self->change_current = current;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}
