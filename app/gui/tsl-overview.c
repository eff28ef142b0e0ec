/* tsl-overview.c: the whole trace in miniature, the timeline's view as a window on it
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One row per process: how many events each pixel column of the whole span
 * holds, from the slices' exact counts (so nothing sampled away is missing),
 * each row scaled to its own busiest column. Dragging the window pans the
 * timeline; a press outside it centres the window there first.
 */
#define G_LOG_DOMAIN "tsl-overview"

#include "config.h"

#include <math.h>

#include <adwaita.h>
#include <glib/gi18n.h>

#include "tsl-change-marks.h"
#include "tsl-style.h"
#include "tsl-overview.h"
#include "tsl-render.h"

#define ROW_HEIGHT 8
#define MAX_ROWS   4
#define PAD        3
/* A press that moves less than this is a click. */
#define CLICK_SLOP 3.0

struct _TslOverview
{
  GtkWidget        parent_instance;

  TslTimelineView *timeline;
  double           grab_offset;  /* pointer x minus the window's left edge */
  double           drag_x;
  GArray          *marks;        /* gint64: change points, ns from the trace start */
  int              current_mark;
  int              pressed_mark;  /* the mark a press began on, -1: none */
};

enum {
  CHANGE_ACTIVATED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

enum {
  PROP_0,
  PROP_TIMELINE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (TslOverview, tsl_overview, GTK_TYPE_WIDGET)

static double
left (TslOverview *self)
{
  return self->timeline ? tsl_timeline_view_get_label_width (self->timeline) : 0;
}

static double
span_of (TslOverview *self)
{
  TslSnapshot *snapshot = self->timeline ? tsl_timeline_view_get_snapshot (self->timeline) : NULL;

  return snapshot ? MAX ((double) tsl_snapshot_get_span (snapshot), 1) : 1;
}

double
tsl_overview_time_to_x (TslOverview *self,
                        double       t)
{
  double w = MAX (gtk_widget_get_width (GTK_WIDGET (self)) - left (self), 1);

  g_return_val_if_fail (TSL_IS_OVERVIEW (self), 0);
  return left (self) + t / span_of (self) * w;
}

static double
x_to_time (TslOverview *self,
           double       x)
{
  double w = MAX (gtk_widget_get_width (GTK_WIDGET (self)) - left (self), 1);

  return (x - left (self)) / w * span_of (self);
}

static void
draw_activity (TslOverview *self,
               cairo_t     *cr,
               TslSnapshot *snapshot,
               double       width,
               double       height)
{
  guint cols = (guint) MAX (width - left (self), 1);
  g_autofree double *bins = g_new0 (double, (gsize) cols * MAX_ROWS);
  gint64 pids[MAX_ROWS];
  guint n_rows = 0;
  double row_h;
  gboolean dark = tsl_style_is_dark (GTK_WIDGET (self));

  for (guint i = 0; i < tsl_snapshot_get_n_tracks (snapshot); i++)
    {
      const TslSnapshotTrack *t = tsl_snapshot_get_track (snapshot, i);
      guint row = 0;

      while (row < n_rows && pids[row] != t->pid)
        row++;
      if (row == n_rows)
        {
          /* Processes past the last row share it. */
          if (n_rows == MAX_ROWS)
            row = MAX_ROWS - 1;
          else
            pids[n_rows++] = t->pid;
        }
      for (guint j = 0; j < t->n_samples; j++)
        {
          const TslSnapshotSample *s = &t->samples[j];
          double c = floor (tsl_overview_time_to_x (self, (double) s->time_ns) - left (self));

          bins[row * cols + (guint) CLAMP (c, 0, cols - 1)] += MAX (s->summary.count, 1);
        }
    }

  /* The rows share the strip's height. */
  row_h = n_rows > 0 ? floor ((height - 2 * PAD) / n_rows) : ROW_HEIGHT;
  for (guint row = 0; row < n_rows; row++)
    {
      double peak = 0, rgb[3];
      g_autofree char *key = g_strdup_printf ("%" G_GINT64_FORMAT, pids[row]);

      for (guint c = 0; c < cols; c++)
        peak = MAX (peak, bins[row * cols + c]);
      if (peak <= 0)
        continue;
      tsl_render_name_color (key, dark, rgb);
      cairo_set_source_rgb (cr, rgb[0], rgb[1], rgb[2]);
      for (guint c = 0; c < cols; c++)
        {
          double v = bins[row * cols + c] / peak, h;

          if (v <= 0)
            continue;
          /* At least a pixel for any activity: a lone event stays visible. */
          h = MAX (1, round (v * (row_h - 1)));
          cairo_rectangle (cr, left (self) + c, PAD + row * row_h + row_h - h, 1, h);
        }
      cairo_fill (cr);
    }
}

/* (transfer full): each mark's x. */
static double *
mark_xs (TslOverview *self)
{
  double *xs = g_new (double, self->marks->len + 1);

  for (guint i = 0; i < self->marks->len; i++)
    xs[i] = tsl_overview_time_to_x (self, (double) g_array_index (self->marks, gint64, i));
  return xs;
}

void
tsl_overview_set_change_marks (TslOverview  *self,
                               const gint64 *times_ns,
                               guint         n,
                               int           current)
{
  g_return_if_fail (TSL_IS_OVERVIEW (self));

  g_array_set_size (self->marks, 0);
  g_array_append_vals (self->marks, times_ns, n);
  self->current_mark = current;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
tsl_overview_snapshot (GtkWidget   *widget,
                       GtkSnapshot *snapshot)
{
  TslOverview *self = TSL_OVERVIEW (widget);
  double width = gtk_widget_get_width (widget), height = gtk_widget_get_height (widget);
  TslSnapshot *snap = self->timeline ? tsl_timeline_view_get_snapshot (self->timeline) : NULL;
  cairo_t *cr;
  gint64 start = 0, end = 0;
  double x0, x1;

  if (snap == NULL || width <= left (self))
    return;

  cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, width, height));
  draw_activity (self, cr, snap, width, height);

  tsl_timeline_view_get_visible_time (self->timeline, &start, &end);
  x0 = floor (tsl_overview_time_to_x (self, (double) start));
  x1 = ceil (tsl_overview_time_to_x (self, (double) end));
  /* The view: the rest dimmed, the window framed. */
  cairo_set_source_rgba (cr, 0.5, 0.5, 0.5, 0.25);
  cairo_rectangle (cr, left (self), 0, MAX (x0 - left (self), 0), height);
  cairo_rectangle (cr, x1, 0, MAX (width - x1, 0), height);
  cairo_fill (cr);
  cairo_set_source_rgba (cr, 0.208, 0.518, 0.894, 1);
  cairo_set_line_width (cr, 2);
  cairo_rectangle (cr, x0 + 1, 1, MAX (x1 - x0 - 2, 1), height - 2);
  cairo_stroke (cr);
  if (self->marks->len > 0)
    {
      g_autofree double *xs = mark_xs (self);

      tsl_change_marks_draw (widget, cr, xs, self->marks->len, self->current_mark, 0, height);
    }
  cairo_destroy (cr);
}

static void
tsl_overview_measure (GtkWidget      *widget,
                      GtkOrientation  orientation,
                      int             for_size,
                      int            *minimum,
                      int            *natural,
                      int            *minimum_baseline,
                      int            *natural_baseline)
{
  if (orientation == GTK_ORIENTATION_VERTICAL)
    *minimum = *natural = 2 * PAD + MAX_ROWS * ROW_HEIGHT;
  else
    *minimum = *natural = 0;
}

/* Keeps the view's length, starting at the window's new left edge. */
static void
move_window_to (TslOverview *self,
                double       left_x)
{
  gint64 start = 0, end = 0;
  double len, t;

  tsl_timeline_view_get_visible_time (self->timeline, &start, &end);
  len = (double) (end - start);
  t = CLAMP (x_to_time (self, left_x), 0, MAX (span_of (self) - len, 0));
  tsl_timeline_view_set_visible_time (self->timeline, (gint64) t, (gint64) (t + len));
}

static void
on_drag_begin (GtkGestureDrag *gesture,
               double          x,
               double          y,
               TslOverview    *self)
{
  gint64 start = 0, end = 0;
  double x0, x1;

  if (self->timeline == NULL || tsl_timeline_view_get_snapshot (self->timeline) == NULL)
    {
      gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_DENIED);
      return;
    }
  /* A press on a change mark chooses it if it ends as a click (drag-end);
   * a drag from it still moves the window. */
  self->pressed_mark = -1;
  if (self->marks->len > 0)
    {
      g_autofree double *xs = mark_xs (self);

      self->pressed_mark = tsl_change_marks_hit (xs, self->marks->len, x);
      if (self->pressed_mark >= 0)
        {
          self->drag_x = x;
          self->grab_offset = -1;
          return;
        }
    }
  tsl_timeline_view_get_visible_time (self->timeline, &start, &end);
  x0 = tsl_overview_time_to_x (self, (double) start);
  x1 = tsl_overview_time_to_x (self, (double) end);
  self->drag_x = x;
  if (x >= x0 && x <= x1)
    self->grab_offset = x - x0;
  else
    {
      /* Outside the window: centre it on the press. */
      self->grab_offset = (x1 - x0) / 2;
      move_window_to (self, x - self->grab_offset);
    }
}

static void
on_drag_update (GtkGestureDrag *gesture,
                double          dx,
                double          dy,
                TslOverview    *self)
{
  if (self->timeline == NULL)
    return;
  if (self->pressed_mark >= 0)
    {
      gint64 start = 0, end = 0;
      double x0, x1;

      /* Dragged off a mark: a drag as from anywhere else. */
      if (fabs (dx) < CLICK_SLOP)
        return;
      self->pressed_mark = -1;
      tsl_timeline_view_get_visible_time (self->timeline, &start, &end);
      x0 = tsl_overview_time_to_x (self, (double) start);
      x1 = tsl_overview_time_to_x (self, (double) end);
      self->grab_offset = self->drag_x >= x0 && self->drag_x <= x1 ? self->drag_x - x0 : (x1 - x0) / 2;
    }
  move_window_to (self, self->drag_x + dx - self->grab_offset);
}

static void
on_drag_end (GtkGestureDrag *gesture,
             double          dx,
             double          dy,
             TslOverview    *self)
{
  int mark = self->pressed_mark;

  self->pressed_mark = -1;
  if (mark >= 0 && fabs (dx) < CLICK_SLOP)
    g_signal_emit (self, signals[CHANGE_ACTIVATED], 0, (guint) mark);
}

void
tsl_overview_set_timeline (TslOverview     *self,
                           TslTimelineView *timeline)
{
  g_return_if_fail (TSL_IS_OVERVIEW (self));

  if (self->timeline == timeline)
    return;
  if (self->timeline != NULL)
    g_signal_handlers_disconnect_by_data (self->timeline, self);
  g_set_object (&self->timeline, timeline);
  if (timeline != NULL)
    g_signal_connect_object (timeline, "view-changed", G_CALLBACK (gtk_widget_queue_draw),
                             self, G_CONNECT_SWAPPED);
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TIMELINE]);
}

static void
tsl_overview_set_property (GObject      *object,
                           guint         prop_id,
                           const GValue *value,
                           GParamSpec   *pspec)
{
  if (prop_id == PROP_TIMELINE)
    tsl_overview_set_timeline (TSL_OVERVIEW (object), g_value_get_object (value));
  else
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
tsl_overview_get_property (GObject    *object,
                           guint       prop_id,
                           GValue     *value,
                           GParamSpec *pspec)
{
  if (prop_id == PROP_TIMELINE)
    g_value_set_object (value, TSL_OVERVIEW (object)->timeline);
  else
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
tsl_overview_dispose (GObject *object)
{
  TslOverview *self = TSL_OVERVIEW (object);

  if (self->timeline != NULL)
    g_signal_handlers_disconnect_by_data (self->timeline, self);
  g_clear_object (&self->timeline);
  G_OBJECT_CLASS (tsl_overview_parent_class)->dispose (object);
}

static void
tsl_overview_finalize (GObject *object)
{
  g_array_unref (TSL_OVERVIEW (object)->marks);
  G_OBJECT_CLASS (tsl_overview_parent_class)->finalize (object);
}

static void
tsl_overview_class_init (TslOverviewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = tsl_overview_dispose;
  object_class->finalize = tsl_overview_finalize;
  object_class->set_property = tsl_overview_set_property;
  object_class->get_property = tsl_overview_get_property;
  widget_class->snapshot = tsl_overview_snapshot;
  widget_class->measure = tsl_overview_measure;

  properties[PROP_TIMELINE] = g_param_spec_object ("timeline", NULL, NULL, TSL_TYPE_TIMELINE_VIEW,
                                                   G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY |
                                                   G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* A click on a change mark: its index among the marks set. */
  signals[CHANGE_ACTIVATED] = g_signal_new ("change-activated", G_TYPE_FROM_CLASS (klass),
                                            G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                            G_TYPE_NONE, 1, G_TYPE_UINT);

  gtk_widget_class_set_css_name (widget_class, "overview");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
tsl_overview_init (TslOverview *self)
{
  GtkGesture *drag = gtk_gesture_drag_new ();

  self->marks = g_array_new (FALSE, FALSE, sizeof (gint64));
  self->current_mark = -1;
  self->pressed_mark = -1;

  g_signal_connect_object (drag, "drag-begin", G_CALLBACK (on_drag_begin), self, 0);
  g_signal_connect_object (drag, "drag-update", G_CALLBACK (on_drag_update), self, 0);
  g_signal_connect_object (drag, "drag-end", G_CALLBACK (on_drag_end), self, 0);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drag));
  gtk_widget_set_tooltip_text (GTK_WIDGET (self), _("The whole trace: drag the window to move the view"));
}
