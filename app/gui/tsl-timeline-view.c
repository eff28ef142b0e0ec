/* tsl-timeline-view.c: the zoomable multi-track timeline widget
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Draws through core's painter (tsl-render.c) so the window and export show
 * the same picture. Times are ns from the trace start. Pointer, keys,
 * actions and the tooltip are in tsl-timeline-view-input.c.
 */
#define G_LOG_DOMAIN "tsl-timeline-view"

#include "config.h"

#include <math.h>

#include <glib/gi18n.h>

#include <adwaita.h>

#include "tsl-change-marks.h"
#include "tsl-style.h"
#include "tsl-timeline-view-private.h"

guint _tsl_timeline_view_signals[_TSL_TIMELINE_VIEW_N_SIGNALS];

enum {
  PROP_0,
  PROP_ALL_FLOWS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (TslTimelineView, tsl_timeline_view, GTK_TYPE_WIDGET)

double
_tsl_timeline_view_span (TslTimelineView *self)
{
  return self->snapshot ? (double) MAX (tsl_snapshot_get_span (self->snapshot), 1) : 1.0;
}

/* The detail snapshot while the view lies inside its window, else the whole trace's. */
TslSnapshot *
_tsl_timeline_view_shown (TslTimelineView *self)
{
  if (self->detail != NULL &&
      self->view_start >= (double) self->detail_start &&
      self->view_end <= (double) self->detail_end)
    return self->detail;
  return self->snapshot;
}

void
_tsl_timeline_view_fill_options (TslTimelineView  *self,
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
  if (self->loading)
    {
      o->empty_heading = _("Reading…");
      o->empty_text = "";
    }
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
  o->selection_name = self->selection_name;
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

  _tsl_timeline_view_fill_options (self, options);
}

void
_tsl_timeline_view_update_adjustment (TslTimelineView *self)
{
  double height = gtk_widget_get_height (GTK_WIDGET (self)) - TSL_RENDER_RULER_HEIGHT;
  TslRenderOptions o;
  double content;

  _tsl_timeline_view_fill_options (self, &o);
  content = _tsl_timeline_view_shown (self) ? tsl_render_content_height (_tsl_timeline_view_shown (self), &o) : 0;

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

  _tsl_timeline_view_fill_options (self, &options);
  texture = tsl_timeline_base_get (self->base, _tsl_timeline_view_shown (self), &options, gtk_widget_get_scale_factor (widget));
  if (texture != NULL)
    gtk_snapshot_append_texture (snapshot, texture, &GRAPHENE_RECT_INIT (0, 0, width, height));
  if (options.has_a || options.has_b || options.has_crosshair)
    {
      cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, width, height));
      tsl_render_paint_overlay (cr, _tsl_timeline_view_shown (self), &options);
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
  _tsl_timeline_view_update_adjustment (TSL_TIMELINE_VIEW (widget));
}

void
_tsl_timeline_view_set_view (TslTimelineView *self,
          double           start,
          double           end)
{
  double span = _tsl_timeline_view_span (self);
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
  g_signal_emit (self, _tsl_timeline_view_signals[VIEW_CHANGED], 0);
}

void
tsl_timeline_view_set_visible_time (TslTimelineView *self,
                                    gint64           start_ns,
                                    gint64           end_ns)
{
  g_return_if_fail (TSL_IS_TIMELINE_VIEW (self));

  _tsl_timeline_view_set_view (self, (double) start_ns, (double) end_ns);
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

  _tsl_timeline_view_fill_options (self, &o);
  if (!isfinite (anchor_x) || anchor_x < tsl_render_label_width (&o))
    anchor = (self->view_start + self->view_end) / 2;
  else
    anchor = tsl_render_x_to_time (&o, anchor_x);

  start = anchor - (anchor - self->view_start) / factor;
  end = anchor + (self->view_end - anchor) / factor;
  _tsl_timeline_view_set_view (self, start, end);
}

void
tsl_timeline_view_pan (TslTimelineView *self,
                       double           fraction)
{
  double width;

  g_return_if_fail (TSL_IS_TIMELINE_VIEW (self));

  width = self->view_end - self->view_start;
  _tsl_timeline_view_set_view (self, self->view_start + fraction * width, self->view_end + fraction * width);
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
    _tsl_timeline_view_set_view (self, 0, _tsl_timeline_view_span (self));
  else
    _tsl_timeline_view_set_view (self, self->view_start, self->view_end);

  _tsl_timeline_view_update_adjustment (self);
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

  _tsl_timeline_view_update_adjustment (self);
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

  return _tsl_timeline_view_shown (self);
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
  g_signal_emit (self, _tsl_timeline_view_signals[RANGES_CHANGED], 0);
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
  g_signal_emit (self, _tsl_timeline_view_signals[RANGES_CHANGED], 0);
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
  g_signal_emit (self, _tsl_timeline_view_signals[RANGES_CHANGED], 0);
  return TRUE;
}

void
tsl_timeline_view_set_loading (TslTimelineView *self,
                               gboolean         loading)
{
  g_return_if_fail (TSL_IS_TIMELINE_VIEW (self));

  self->loading = !!loading;
  gtk_widget_queue_draw (GTK_WIDGET (self));
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
 * @name: (nullable): the slice's name: tells it from others of the same
 *   start, end and depth (Chrome's instants of one microsecond)
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
                                 gint64           end_ns,
                                 const char      *name)
{
  g_return_if_fail (TSL_IS_TIMELINE_VIEW (self));

  g_free (self->selection_track);
  self->selection_track = g_strdup (track);
  g_free (self->selection_name);
  self->selection_name = track != NULL ? g_strdup (name) : NULL;
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

void
tsl_timeline_view_set_counter_height (TslTimelineView *self,
                                      double           height)
{
  g_return_if_fail (TSL_IS_TIMELINE_VIEW (self));

  if (!isfinite (height))
    return;
  self->counter_height = CLAMP (round (height), TSL_RENDER_MIN_COUNTER_HEIGHT,
                                TSL_RENDER_MAX_COUNTER_HEIGHT);
  _tsl_timeline_view_update_adjustment (self);
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
  _tsl_timeline_view_fill_options (self, &o);
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
  _tsl_timeline_view_fill_options (self, &o);
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
          _tsl_timeline_view_update_adjustment (self);
          gtk_widget_queue_draw (GTK_WIDGET (self));
          return;
        }
    }

  g_array_append_val (self->collapsed, pid);
  _tsl_timeline_view_update_adjustment (self);
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
  g_clear_pointer (&self->selection_name, g_free);
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

  _tsl_timeline_view_signals[RANGES_CHANGED] = g_signal_new ("ranges-changed", G_TYPE_FROM_CLASS (klass),
                                          G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  _tsl_timeline_view_signals[VIEW_CHANGED] = g_signal_new ("view-changed", G_TYPE_FROM_CLASS (klass),
                                        G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  /**
   * TslTimelineView::slice-activated:
   * @snapshot: (type gpointer): the shown TslSnapshot
   * @track: track index in @snapshot
   * @slice: slice index in that track
   *
   * A slice of the exact view was clicked.
   */
  _tsl_timeline_view_signals[SLICE_ACTIVATED] = g_signal_new ("slice-activated", G_TYPE_FROM_CLASS (klass),
                                           G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE,
                                           3, G_TYPE_POINTER, G_TYPE_UINT, G_TYPE_UINT);
  /**
   * TslTimelineView::group-moved:
   * @pid: the group (a merged snapshot's file: its index + 1)
   * @delta_ns: how far it was dragged since the last emission
   *
   * A merged file's header was Ctrl+dragged along the time axis.
   */
  _tsl_timeline_view_signals[GROUP_MOVED] = g_signal_new ("group-moved", G_TYPE_FROM_CLASS (klass),
                                       G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE,
                                       2, G_TYPE_INT64, G_TYPE_INT64);

  _tsl_timeline_view_class_init_input (widget_class);

  gtk_widget_class_set_css_name (widget_class, "timeline");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
tsl_timeline_view_init (TslTimelineView *self)
{
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

  _tsl_timeline_view_init_input (self);

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
