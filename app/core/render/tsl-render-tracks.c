/* tsl-render-tracks.c: one track's content: stacks, exact slices, series, the search mark
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Cost model (docs/ARCHITECTURE.md, "Painters"): one cairo rectangle per sample is the slow path,
 * so stacks are reduced to runs — neighbouring columns with the same frame at
 * the same depth become one rectangle, and columns narrower than a pixel merge
 * into the run before them. Text is drawn only where a run is wide enough.
 */
#define G_LOG_DOMAIN "tsl-render"

#include "config.h"

#include <math.h>
#include <string.h>

#include "tsl-render.h"
#include "tsl-render-private.h"
#include "tsl-search.h"

gboolean
_tsl_render_matches (const TslRenderOptions *o,
         const char             *name)
{
  const char *needle = o->highlight;

  if (needle == NULL || *needle == '\0' || name == NULL)
    return FALSE;
  return o->highlight_exact ? strcmp (name, needle) == 0 : tsl_search_matches (needle, name);
}

/* 1 for what the highlight picks (or when there is none), else dimmed. A
 * highlight scoped to one track (a compare row: a function of one thread)
 * dims that name on every other track. */
static double
highlight_alpha (const TslRenderOptions *o,
                 const TslSnapshotTrack *track,
                 const char             *name)
{
  if (o->highlight == NULL || *o->highlight == '\0')
    return 1.0;
  if (o->highlight_track != NULL &&
      ((o->highlight_pid != TSL_RENDER_ANY_PID && track->pid != o->highlight_pid) ||
       g_strcmp0 (track->name, o->highlight_track) != 0))
    return 0.4;
  return _tsl_render_matches (o, name) ? 1.0 : 0.4;
}

typedef struct {
  guint32 frame;
  double  x0;
  double  x1;
} Run;

typedef struct {
  double  x;
  double  y;
  double  width;
  guint32 frame;
} Label;

/* One bar of a row: [x0, x1) × [y, y + h - 1), into the pixels when it may. */
static void
fill_cell (cairo_t         *cr,
           TslRenderCanvas *canvas,
           double           x0,
           double           y,
           double           x1,
           double           h,
           const double    *rgb,
           double           alpha)
{
  if (canvas->pixels != NULL)
    _tsl_render_canvas_fill (canvas, x0, y, x1, y + h - 1, rgb, alpha);
  else
    {
      cairo_set_source_rgba (cr, rgb[0], rgb[1], rgb[2], alpha);
      cairo_rectangle (cr, x0, y, x1 - x0, h - 1);
      cairo_fill (cr);
    }
}

static void
flush_run (cairo_t                *cr,
           TslRenderCanvas        *canvas,
           GArray                 *labels,
           TslSnapshot            *snapshot,
           const TslSnapshotTrack *track,
           const TslRenderOptions *o,
           const Run              *run,
           double                  y,
           double                  h)
{
  const char *name;
  double rgb[3];
  double x0 = MAX (run->x0, tsl_render_label_width (o));
  double x1 = MIN (run->x1, o->width);
  double alpha;

  if (run->frame == 0 || x1 <= x0)
    return;

  name = tsl_snapshot_get_frame_name (snapshot, run->frame);
  tsl_render_name_color (name, o->dark, rgb);
  alpha = highlight_alpha (o, track, name);

  fill_cell (cr, canvas, x0, y, x0 + MAX (x1 - x0, 1), h, rgb, alpha);

  if (x1 - x0 > 36)
    {
      Label label = { x0 + 3, y + h - 4, x1 - x0 - 6, run->frame };

      g_array_append_val (labels, label);
    }
}

static void
draw_labels (cairo_t     *cr,
             TslSnapshot *snapshot,
             GArray      *labels)
{
  if (labels->len == 0)
    return;
  cairo_set_source_rgba (cr, 0.1, 0.1, 0.12, 0.9);
  cairo_set_font_size (cr, 10);
  for (guint i = 0; i < labels->len; i++)
    {
      const Label *l = &g_array_index (labels, Label, i);

      _tsl_render_show_text (cr, l->x, l->y, l->width, tsl_snapshot_get_frame_name (snapshot, l->frame));
    }
}

/* Below a track capped to `rows` levels: the "+N levels" row, whose
 * cells (drawn by the caller) show where the hidden levels have slices,
 * and its label in the label column, so no level is left out unsaid. */
static void
hidden_levels_label (cairo_t                *cr,
                     const TslRenderOptions *o,
                     double                  y,
                     guint                   hidden)
{
  TslRenderTheme theme;
  g_autofree char *text = g_strdup_printf ("+%u level%s", hidden, hidden == 1 ? "" : "s");

  _tsl_render_theme_init (&theme, o->dark);
  _tsl_render_set_rgb (cr, &theme.dim, 1);
  cairo_set_font_size (cr, 10);
  _tsl_render_show_text (cr, 24, y + TSL_RENDER_ROW_HEIGHT - 4, tsl_render_label_width (o) - 36, text);
}

static const double hidden_rgb[3] = { 0.55, 0.55, 0.58 };

/* The "+N levels" row of a capped sampled track: where kept samples go
 * deeper than the rows shown. Out of line, to leave the rows' loop as it was. */
static G_GNUC_NO_INLINE void
hidden_samples (cairo_t                *cr,
                TslRenderCanvas        *canvas,
                const TslSnapshotTrack *track,
                const TslRenderOptions *o,
                guint                   rows,
                double                  y)
{
  double left = tsl_render_label_width (o);
  double vs = (double) o->view_start_ns;
  double scale = MAX (o->width - left, 1) / MAX ((double) o->view_end_ns - vs, 1);
  double x0 = 0, x1 = 0;

  for (guint i = 0; i < track->n_samples; i++)
    {
      const TslSnapshotSample *s = &track->samples[i];
      double a, b;

      if (s->n_frames <= rows || s->end_ns < o->view_start_ns || s->start_ns > o->view_end_ns)
        continue;
      a = MAX (floor (left + ((double) s->start_ns - vs) * scale), left);
      b = MIN (MAX (ceil (left + ((double) s->end_ns - vs) * scale), a + 1), o->width);
      if (a <= x1)
        {
          x1 = MAX (x1, b);
          continue;
        }
      if (x1 > x0)
        fill_cell (cr, canvas, x0, y, x1, TSL_RENDER_ROW_HEIGHT, hidden_rgb, 0.6);
      x0 = a;
      x1 = b;
    }
  if (x1 > x0)
    fill_cell (cr, canvas, x0, y, x1, TSL_RENDER_ROW_HEIGHT, hidden_rgb, 0.6);
}

void
_tsl_render_stacks (cairo_t                *cr,
             TslRenderCanvas        *canvas,
             TslSnapshot            *snapshot,
             const TslSnapshotTrack *track,
             const TslRenderOptions *o,
             double                  top)
{
  guint hidden;
  guint rows = _tsl_render_rows (o, track, &hidden);
  gboolean durations = g_strcmp0 (track->unit, "ns") == 0;
  /* tsl_render_time_to_x(), hoisted out of the per-sample loop. */
  double left = tsl_render_label_width (o);
  double vs = (double) o->view_start_ns;
  double scale = MAX (o->width - left, 1) / MAX ((double) o->view_end_ns - vs, 1);
  g_autoptr(GArray) labels = g_array_new (FALSE, FALSE, sizeof (Label));

  /* Pending cairo drawing must land before the pixels are written. */
  if (canvas->pixels != NULL)
    cairo_surface_flush (cairo_get_target (cr));

  for (guint d = 0; d < rows; d++)
    {
      double y = top + d * TSL_RENDER_ROW_HEIGHT;
      Run run = { 0, 0, 0 };

      for (guint i = 0; i < track->n_samples; i++)
        {
          const TslSnapshotSample *s = &track->samples[i];
          gint64 start = s->start_ns, end = s->end_ns;
          gboolean call = FALSE;
          guint32 frame;
          double x0, x1;

          /* A sample without a frame this deep leaves the row alone: were
           * it a run of nothing stretched over its parent's span, it would
           * hide the children kept beside it. */
          if (d >= s->n_frames)
            continue;
          frame = s->frames[d];

          /* A span longer than its slice is drawn to its end: a kept 2 s span
           * must not shrink to a 1 ms column. On its own row (the leaf) it
           * is one call, drawn from where it starts. */
          if (durations && !isnan (s->value) && s->value >= 0)
            {
              if ((double) s->time_ns + s->value > (double) end)
                end = (gint64) MIN ((double) s->time_ns + s->value, 9.0e18);  /* no overflow */
              if (d + 1 == s->n_frames)
                {
                  start = s->time_ns;
                  call = TRUE;
                }
            }

          if (end < o->view_start_ns || start > o->view_end_ns)
            continue;

          /* Whole pixels: a pixel shows the first sample that reaches it, a
           * random representative since the samples are random. */
          x0 = floor (left + ((double) start - vs) * scale);
          x1 = MAX (ceil (left + ((double) end - vs) * scale), x0 + 1);

          if (x1 <= run.x1)
            continue;
          x0 = MAX (x0, run.x1);

          if (frame == run.frame && x0 <= run.x1 && !call)
            {
              run.x1 = x1;
              continue;
            }

          /* Back-to-back calls of one function stay two bars. */
          if (call && frame == run.frame && run.x1 - run.x0 >= 3 && x0 <= run.x1)
            run.x1 -= 1;
          flush_run (cr, canvas, labels, snapshot, track, o, &run, y, TSL_RENDER_ROW_HEIGHT);
          run = (Run) { frame, x0, x1 };
        }

      flush_run (cr, canvas, labels, snapshot, track, o, &run, y, TSL_RENDER_ROW_HEIGHT);
    }

  if (hidden > 0)
    hidden_samples (cr, canvas, track, o, rows, top + rows * TSL_RENDER_ROW_HEIGHT);

  if (canvas->pixels != NULL)
    cairo_surface_mark_dirty (cairo_get_target (cr));

  draw_labels (cr, snapshot, labels);
  if (hidden > 0)
    hidden_levels_label (cr, o, top + rows * TSL_RENDER_ROW_HEIGHT, hidden);
}

/* Exact view: every slice where it is. Slices narrower than a pixel share
 * it with the first one that reaches it; a slice three pixels wide or more
 * ends a pixel early, so back-to-back calls stay apart. */
void
_tsl_render_slices (cairo_t                *cr,
             TslRenderCanvas        *canvas,
             TslSnapshot            *snapshot,
             const TslSnapshotTrack *track,
             const TslRenderOptions *o,
             double                  top)
{
  guint hidden;
  guint rows = _tsl_render_rows (o, track, &hidden);
  double left = tsl_render_label_width (o);
  double right = o->width;
  double vs = (double) o->view_start_ns, ve = (double) o->view_end_ns;
  double scale = MAX (right - left, 1) / MAX (ve - vs, 1);
  /* Per row, where drawing reached; the last is the "+N levels" row. */
  g_autofree double *filled = g_new (double, rows + 1);
  g_autoptr(GArray) labels = g_array_new (FALSE, FALSE, sizeof (Label));

  for (guint d = 0; d <= rows; d++)
    filled[d] = left;

  if (canvas->pixels != NULL)
    cairo_surface_flush (cairo_get_target (cr));

  for (guint i = 0; i < track->n_slices; i++)
    {
      const TslSnapshotSlice *s = &track->slices[i];
      guint row = MIN (s->depth, rows);
      double x0, x1, y, rgb[3], alpha;
      const char *name;

      if ((double) s->start_ns > ve || (double) s->end_ns < vs)
        continue;

      /* Most slices of a full budget share a pixel with the one before:
       * skip them before any rounding. */
      x1 = left + ((double) s->end_ns - vs) * scale;
      if (x1 < filled[row] - 0.5)
        continue;
      x0 = round (left + ((double) s->start_ns - vs) * scale);
      x1 = round (x1);
      x0 = MAX (x0, left);
      x1 = MIN (x1, right);
      if (x1 - x0 >= 3)
        x1 -= 1;
      else
        x1 = MAX (x1, x0 + 1);
      if (row == rows)
        {
          /* A hidden level: the "+N levels" row marks where it has slices. */
          x1 = MAX (x1, x0 + 1);
          if (x1 <= filled[row])
            continue;
          x0 = MAX (x0, filled[row]);
          filled[row] = x1;
          fill_cell (cr, canvas, x0, top + row * TSL_RENDER_ROW_HEIGHT, x1, TSL_RENDER_ROW_HEIGHT,
                     hidden_rgb, 0.6);
          continue;
        }
      if (x1 <= filled[s->depth])
        continue;
      x0 = MAX (x0, filled[s->depth]);
      filled[s->depth] = x1;

      name = tsl_snapshot_get_frame_name (snapshot, s->frame);
      tsl_render_name_color (name, o->dark, rgb);
      alpha = highlight_alpha (o, track, name);
      y = top + s->depth * TSL_RENDER_ROW_HEIGHT;

      fill_cell (cr, canvas, x0, y, x1, TSL_RENDER_ROW_HEIGHT, rgb, alpha);

      if (x1 - x0 > 24)
        {
          Label label = { x0 + 3, y + TSL_RENDER_ROW_HEIGHT - 4, x1 - x0 - 5, s->frame };

          g_array_append_val (labels, label);
        }
    }

  if (canvas->pixels != NULL)
    cairo_surface_mark_dirty (cairo_get_target (cr));

  draw_labels (cr, snapshot, labels);
  if (hidden > 0)
    hidden_levels_label (cr, o, top + rows * TSL_RENDER_ROW_HEIGHT, hidden);
}

static void
format_value (char   *buf,
              gsize   len,
              double  value,
              const char *unit)
{
  if (fabs (value) >= 1e6 || (fabs (value) < 1e-2 && value != 0))
    g_snprintf (buf, len, "%.3g%s%s", value, unit ? " " : "", unit ? unit : "");
  else
    g_snprintf (buf, len, "%.4g%s%s", value, unit ? " " : "", unit ? unit : "");
}

gboolean
tsl_render_series_value_at (const TslSnapshotTrack *track,
                            gint64                  time_ns,
                            double                 *value)
{
  guint lo = 0, hi;

  g_return_val_if_fail (track != NULL && value != NULL, FALSE);

  /* The first sample after time_ns, by bisection (samples are in time order). */
  hi = track->n_samples;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (track->samples[mid].time_ns <= time_ns)
        lo = mid + 1;
      else
        hi = mid;
    }
  while (lo > 0)
    {
      const TslSnapshotSample *s = &track->samples[--lo];

      if (!isnan (s->value))
        {
          *value = s->value;
          return TRUE;
        }
    }
  return FALSE;
}

/* A series' value axis: its kept range, widened by one around a flat line.
 * FALSE when it has no value. */
static gboolean
series_axis (const TslSnapshotTrack *track,
             double                 *lo,
             double                 *hi)
{
  *lo = track->value_min;
  *hi = track->value_max;
  if (isnan (*lo) || isnan (*hi))
    return FALSE;
  if (*hi - *lo < 1e-12)
    {
      *hi += 0.5;
      *lo -= 0.5;
    }
  return TRUE;
}

void
_tsl_render_series (cairo_t                *cr,
             const TslSnapshotTrack *track,
             const TslRenderOptions *o,
             const TslRenderTheme   *theme,
             double                  top)
{
  double ch = _tsl_render_counter_height (o);
  double h = ch - 8;
  double lo, hi;
  double rgb[3];
  gboolean started = FALSE;
  double last_x = 0, last_y = 0;
  guint n_points = 0;
  gboolean dimmed = highlight_alpha (o, track, track->name) < 1;
  char label[64];

  if (!series_axis (track, &lo, &hi))
    return;

  tsl_render_name_color (track->name, o->dark, rgb);

#define Y_OF(v) (top + 4 + h - ((v) - lo) / (hi - lo) * h)

  /* Gridlines at the axis' min, middle and max, the values the gutter names. */
  _tsl_render_set_rgb (cr, &theme->grid, 1);
  /* Pixel-aligned rectangles: cairo's fast path, unlike a stroke. */
  for (guint g = 0; g < 3; g++)
    cairo_rectangle (cr, tsl_render_label_width (o), floor (Y_OF (lo + (hi - lo) * g / 2)),
                     o->width - tsl_render_label_width (o), 1);
  cairo_fill (cr);

  /* Exact envelope: every slice's min..max, so one spike survives any zoom. */
  cairo_set_source_rgba (cr, rgb[0], rgb[1], rgb[2], dimmed ? 0.08 : 0.3);
  for (guint i = 0; i < track->n_samples; i++)
    {
      const TslSnapshotSample *s = &track->samples[i];
      double x0, x1, y0, y1;

      if (s->end_ns < o->view_start_ns || s->start_ns > o->view_end_ns || isnan (s->summary.min))
        continue;
      x0 = MAX (tsl_render_time_to_x (o, (double) s->start_ns), tsl_render_label_width (o));
      x1 = MIN (tsl_render_time_to_x (o, (double) s->end_ns), o->width);
      y0 = Y_OF (s->summary.max);
      y1 = Y_OF (s->summary.min);
      cairo_rectangle (cr, x0, y0, MAX (x1 - x0, 1), MAX (y1 - y0, 1));
    }
  cairo_fill (cr);

  cairo_save (cr);
  cairo_rectangle (cr, tsl_render_label_width (o), top, o->width - tsl_render_label_width (o), ch);
  cairo_clip (cr);
  for (guint i = 0; i < track->n_samples; i++)
    {
      const TslSnapshotSample *s = &track->samples[i];
      double x;

      if (isnan (s->value))
        continue;
      x = tsl_render_time_to_x (o, (double) s->time_ns);
      if (!started)
        cairo_move_to (cr, x, Y_OF (s->value));
      else
        cairo_line_to (cr, x, Y_OF (s->value));
      started = TRUE;
      last_x = x;
      last_y = Y_OF (s->value);
      n_points++;
    }
  /* One point is no line: draw it as a dot, its value held to the end. */
  if (n_points == 1)
    {
      cairo_line_to (cr, MAX (o->width, last_x + 1), last_y);
      cairo_new_sub_path (cr);
      cairo_arc (cr, last_x, last_y, 3, 0, 2 * G_PI);
    }
  cairo_set_source_rgba (cr, rgb[0] * 0.8, rgb[1] * 0.8, rgb[2] * 0.8, dimmed ? 0.3 : 1);
  cairo_set_line_width (cr, n_points == 1 ? 2 : 1.25);
  cairo_set_line_join (cr, CAIRO_LINE_JOIN_ROUND);
  cairo_stroke (cr);
  cairo_restore (cr);

  /* y-axis labels in the gutter */
  cairo_set_font_size (cr, 9.5);
  _tsl_render_set_rgb (cr, &theme->dim, 1);
  format_value (label, sizeof label, hi, track->unit);
  _tsl_render_show_text (cr, tsl_render_label_width (o) - 70, top + 12, 66, label);
  format_value (label, sizeof label, lo, track->unit);
  _tsl_render_show_text (cr, tsl_render_label_width (o) - 70, top + ch - 6, 66, label);
  /* A taller track has room for its middle too. */
  if (ch >= 2 * TSL_RENDER_COUNTER_HEIGHT)
    {
      format_value (label, sizeof label, (lo + hi) / 2, track->unit);
      _tsl_render_show_text (cr, tsl_render_label_width (o) - 70, Y_OF ((lo + hi) / 2) + 4, 66, label);
    }

#undef Y_OF
}

void
_tsl_render_series_crosshair (cairo_t                *cr,
                              const TslSnapshotTrack *track,
                              const TslRenderOptions *o,
                              const TslRenderTheme   *theme,
                              double                  top)
{
  double ch = _tsl_render_counter_height (o);
  double h = ch - 8;
  double lo, hi;
  double rgb[3];
  double value;
  char label[64];

  if (!series_axis (track, &lo, &hi) ||
      !tsl_render_series_value_at (track, (gint64) tsl_render_x_to_time (o, o->crosshair_x), &value))
    return;

  {
    double vy = top + 4 + h - (value - lo) / (hi - lo) * h, tx = o->crosshair_x + 6;

    tsl_render_name_color (track->name, o->dark, rgb);
    format_value (label, sizeof label, value, track->unit);
    cairo_set_source_rgba (cr, rgb[0] * 0.6, rgb[1] * 0.6, rgb[2] * 0.6, 1);
    cairo_arc (cr, o->crosshair_x, vy, 3.5, 0, 2 * G_PI);
    cairo_fill (cr);
    /* Beside the pointer, or before it near the right edge. */
    if (tx + 90 > o->width)
      tx = o->crosshair_x - 96;
    cairo_set_font_size (cr, 11);
    _tsl_render_set_rgb (cr, &theme->fg, 1);
    _tsl_render_show_text (cr, tx, CLAMP (vy - 4, top + 12, top + ch - 2), 90, label);
  }
}

/* The current search match: an outline a few pixels wider than the bar,
 * so that even a call narrower than a pixel is seen. */
void
_tsl_render_mark (cairo_t                *cr,
           const TslRenderOptions *o,
           const TslRenderTheme   *theme,
           const TslSnapshotTrack *track,
           double                  top)
{
  double left = tsl_render_label_width (o);
  double x0 = tsl_render_time_to_x (o, (double) o->mark_start_ns) - 2;
  double x1 = tsl_render_time_to_x (o, (double) o->mark_end_ns) + 2;
  double y = _tsl_render_row_middle (o, track, o->mark_depth, top) - TSL_RENDER_ROW_HEIGHT / 2.0;

  x0 = MAX (x0, left);
  x1 = MIN (x1, o->width);
  if (x1 <= x0)
    return;
  cairo_save (cr);
  cairo_rectangle (cr, left, top, o->width - left, _tsl_render_height_of (o, track));
  cairo_clip (cr);
  _tsl_render_set_rgb (cr, &theme->fg, 1);
  cairo_set_line_width (cr, 2);
  cairo_rectangle (cr, x0, y - 1, x1 - x0, TSL_RENDER_ROW_HEIGHT + 1);
  cairo_stroke (cr);
  cairo_restore (cr);
}
