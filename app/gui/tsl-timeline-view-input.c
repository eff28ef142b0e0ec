/* tsl-timeline-view-input.c: the timeline's pointer, keys, actions and tooltip
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Wheel and pinch zoom, drags that select ranges, pan, resize the label
 * column or the counter tracks and move a merged file, clicks on slices and
 * group headers, the `timeline.` actions and their keys, and the tooltip.
 * The view itself (what is shown, ranges, painting) is tsl-timeline-view.c.
 */
#define G_LOG_DOMAIN "tsl-timeline-view"

#include "config.h"

#include <math.h>

#include <glib/gi18n.h>

#include "tsl-duration.h"
#include "tsl-timeline-view-private.h"

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
  TslSnapshot *snapshot = _tsl_timeline_view_shown (self);
  TslRenderOptions o;
  double top;

  if (snapshot == NULL || y < TSL_RENDER_RULER_HEIGHT)
    return FALSE;
  _tsl_timeline_view_fill_options (self, &o);
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

  /* No track, no time axis: a range there would be empty. */
  if (self->snapshot == NULL || tsl_snapshot_get_n_tracks (self->snapshot) == 0)
    {
      gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_DENIED);
      return;
    }

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

      _tsl_timeline_view_fill_options (self, &o);
      if (tsl_render_hit_test (_tsl_timeline_view_shown (self), &o, x, y, &hit))
        {
          if (hit.on_group && (state & GDK_CONTROL_MASK))
            {
              self->drag_group = hit.group_pid;
              self->drag_group_scale = (self->view_end - self->view_start) /
                                       MAX (o.width - tsl_render_label_width (&o), 1);
            }
          self->drag_start_group = hit.on_group ? hit.group_pid
                                   : hit.track >= 0 ? tsl_snapshot_get_track (_tsl_timeline_view_shown (self), hit.track)->pid : 0;
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

  _tsl_timeline_view_fill_options (self, &o);

  if (self->drag_group != 0)
    {
      /* In whole ns from the drag's start, so the steps add up to it. */
      gint64 total = (gint64) (dx * self->drag_group_scale);
      gint64 done = (gint64) (self->drag_group_dx * self->drag_group_scale);

      self->drag_group_dx = dx;
      if (total != done)
        g_signal_emit (self, _tsl_timeline_view_signals[GROUP_MOVED], 0, self->drag_group, total - done);
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

      _tsl_timeline_view_set_view (self, start, start + width);
      return;
    }

  if (fabs (dx) < 3)
    return;

  {
    double t0 = CLAMP (tsl_render_x_to_time (&o, self->drag_start_x), 0, _tsl_timeline_view_span (self));
    double t1 = CLAMP (tsl_render_x_to_time (&o, self->drag_start_x + dx), 0, _tsl_timeline_view_span (self));

    self->range_group[self->dragging_range] = self->drag_start_group;
    self->selecting = TRUE;
    tsl_timeline_view_set_range (self, self->dragging_range, (gint64) MIN (t0, t1), (gint64) MAX (t0, t1));
  }
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
      g_signal_emit (self, _tsl_timeline_view_signals[RANGES_CHANGED], 0);
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

  _tsl_timeline_view_fill_options (self, &o);
  if (!tsl_render_hit_test (_tsl_timeline_view_shown (self), &o, self->drag_start_x, self->drag_start_y, &hit))
    return;
  if (hit.on_group)
    tsl_timeline_view_toggle_group (self, hit.group_pid);
  else if (hit.slice != NULL)
    {
      const TslSnapshotTrack *track = tsl_snapshot_get_track (_tsl_timeline_view_shown (self), hit.track);

      tsl_timeline_view_set_selection (self, track->name, track->pid, hit.slice->depth,
                                       hit.slice->start_ns, hit.slice->end_ns,
                                       tsl_snapshot_get_frame_name (_tsl_timeline_view_shown (self), hit.slice->frame));
      g_signal_emit (self, _tsl_timeline_view_signals[SLICE_ACTIVATED], 0, _tsl_timeline_view_shown (self), (guint) hit.track,
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

  _tsl_timeline_view_fill_options (self, &o);
  if (!tsl_render_hit_test (_tsl_timeline_view_shown (self), &o, x, y, &hit) || hit.sample == NULL)
    return FALSE;

  track = tsl_snapshot_get_track (_tsl_timeline_view_shown (self), hit.track);
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
            g_markup_escape_text (tsl_snapshot_get_frame_name (_tsl_timeline_view_shown (self), hit.sample->frames[i]), -1);

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
  _tsl_timeline_view_update_adjustment (self);
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

  _tsl_timeline_view_set_view (self, 0, _tsl_timeline_view_span (self));
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
    _tsl_timeline_view_set_view (self, start - (end - start) * 0.05, end + (end - start) * 0.05);
}

static void
clear_ranges_action (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *param)
{
  tsl_timeline_view_clear_ranges (TSL_TIMELINE_VIEW (widget));
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

void
_tsl_timeline_view_class_init_input (GtkWidgetClass *widget_class)
{
  widget_class->query_tooltip = query_tooltip;

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
}

void
_tsl_timeline_view_init_input (TslTimelineView *self)
{
  GtkEventController *scroll, *motion;
  GtkGesture *drag, *pinch;

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
}
