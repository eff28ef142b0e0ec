/* tsl-render-flows.c: flow arrows between exact slices
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Drawn over the tracks, under the ranges: a curve from where the flow
 * leaves its slice to where it arrives, with a dot at the tail and a head
 * at the arrival, when the view reaches either end and both tracks are
 * shown. The flows come matched with the snapshot (tsl-flow-match.h).
 */
#define G_LOG_DOMAIN "tsl-render"

#include "config.h"

#include <math.h>
#include <stdlib.h>

#include "tsl-render-private.h"

#define HEAD 6.0

/* Past this many arrows in view the curves, dots and heads become straight
 * half-transparent lines, written into the pixels when the target allows:
 * an antialiased curve costs cairo 20–40 µs, a line ~1.5 µs, and a
 * hairball of curves reads no better (bench/bench-render). */
#define MAX_DETAILED 300
/* Past this many, none: a note says how many and to zoom in (at the flow
 * budget, 26,000 lines in view took 40–75 ms a paint). */
#define MAX_DRAWN    10000

typedef struct {
  double x0, y0, x1, y1;
} Arrow;

/* By row, then column: neighbouring lines then share cache lines of the
 * surface (drawn in surface order, a line a column, they missed the cache
 * on every pixel: 350 ms for 26,000 arrows). */
static int
compare_arrows (const void *a,
                const void *b)
{
  const Arrow *x = a, *y = b;
  int ry = (int) floor (x->y0) - (int) floor (y->y0);

  if (ry != 0)
    return ry;
  return (x->x0 > y->x0) - (x->x0 < y->x0);
}

void
_tsl_render_flows (cairo_t                *cr,
                   TslRenderCanvas        *canvas,
                   TslSnapshot            *snapshot,
                   const TslRenderOptions *o,
                   const TslRenderTheme   *theme,
                   const double           *tops)
{
  const TslSnapshotFlow *flows;
  guint n = 0;
  double left = tsl_render_label_width (o);
  double header = tsl_render_header_height (o);
  g_autoptr(GArray) arrows = NULL;

  flows = tsl_snapshot_get_flows (snapshot, &n);
  if (n == 0)
    return;

  arrows = g_array_new (FALSE, FALSE, sizeof (Arrow));
  for (guint i = 0; i < n; i++)
    {
      const TslSnapshotFlow *f = &flows[i];
      Arrow a;

      if (isnan (tops[f->from_track]) || isnan (tops[f->to_track]))
        continue;
      a.x0 = tsl_render_time_to_x (o, (double) f->from_ns);
      a.x1 = tsl_render_time_to_x (o, (double) f->to_ns);
      if ((a.x0 < left && a.x1 < left) || (a.x0 > o->width && a.x1 > o->width))
        continue;
      /* At the slice's own row; a level a capped track hides, at its
       * "+N levels" row. */
      a.y0 = _tsl_render_row_middle (o, tsl_snapshot_get_track (snapshot, f->from_track),
                                     f->from_depth, tops[f->from_track]);
      a.y1 = _tsl_render_row_middle (o, tsl_snapshot_get_track (snapshot, f->to_track),
                                     f->to_depth, tops[f->to_track]);
      if ((a.y0 < header && a.y1 < header) || (a.y0 > o->height && a.y1 > o->height))
        continue;
      g_array_append_val (arrows, a);
    }
  if (arrows->len == 0)
    return;

  cairo_save (cr);
  cairo_rectangle (cr, left, header, MAX (o->width - left, 0), MAX (o->height - header, 0));
  cairo_clip (cr);
  if (arrows->len > MAX_DRAWN)
    {
      g_autofree char *note = g_strdup_printf ("%u flow arrows in view: zoom in to draw them",
                                               arrows->len);
      cairo_text_extents_t ext;

      cairo_set_font_size (cr, 11);
      cairo_text_extents (cr, note, &ext);
      cairo_set_source_rgba (cr, theme->gutter.r, theme->gutter.g, theme->gutter.b, 0.9);
      cairo_rectangle (cr, o->width - ext.x_advance - 24, header + 4, ext.x_advance + 16, 18);
      cairo_fill (cr);
      cairo_set_source_rgb (cr, theme->dim.r, theme->dim.g, theme->dim.b);
      _tsl_render_show_text (cr, o->width - ext.x_advance - 16, header + 17, ext.x_advance + 8, note);
      cairo_restore (cr);
      return;
    }
  cairo_set_line_width (cr, 1.25);
  cairo_set_source_rgba (cr, theme->fg.r, theme->fg.g, theme->fg.b, 0.8);

  if (arrows->len > MAX_DETAILED && canvas->pixels != NULL)
    {
      double rgb[3] = { theme->fg.r, theme->fg.g, theme->fg.b };

      qsort (arrows->data, arrows->len, sizeof (Arrow), compare_arrows);
      cairo_surface_flush (cairo_get_target (cr));
      for (guint i = 0; i < arrows->len; i++)
        {
          const Arrow *a = &g_array_index (arrows, Arrow, i);

          _tsl_render_canvas_line (canvas, a->x0, a->y0, a->x1, a->y1, left, rgb, 0.5);
        }
      cairo_surface_mark_dirty (cairo_get_target (cr));
      cairo_restore (cr);
      return;
    }
  if (arrows->len > MAX_DETAILED)
    {
      cairo_set_line_width (cr, 1);
      cairo_set_source_rgba (cr, theme->fg.r, theme->fg.g, theme->fg.b, 0.5);
      for (guint i = 0; i < arrows->len; i++)
        {
          const Arrow *a = &g_array_index (arrows, Arrow, i);

          cairo_move_to (cr, a->x0, a->y0);
          cairo_line_to (cr, a->x1, a->y1);
        }
      cairo_stroke (cr);
      cairo_restore (cr);
      return;
    }

  for (guint i = 0; i < arrows->len; i++)
    {
      const Arrow *a = &g_array_index (arrows, Arrow, i);
      /* Leaves and arrives horizontally: a flow to a later slice bows
       * forward, one to the same time bows out to the right. */
      double bend = MAX (fabs (a->x1 - a->x0) / 2, 16);

      /* One stroke each: cairo's stroker took 75× longer on one path of
       * 1,600 overlapping curves than on the curves one by one. */
      cairo_move_to (cr, a->x0, a->y0);
      cairo_curve_to (cr, a->x0 + bend, a->y0, a->x1 - bend, a->y1, a->x1 - HEAD * 0.6, a->y1);
      cairo_stroke (cr);
    }
  for (guint i = 0; i < arrows->len; i++)
    {
      const Arrow *a = &g_array_index (arrows, Arrow, i);

      /* A dot at the tail, a head pointing right at the arrival (the
       * curve's tangent there is horizontal). */
      cairo_new_sub_path (cr);
      cairo_arc (cr, a->x0, a->y0, 2.0, 0, 2 * G_PI);
      cairo_close_path (cr);
      cairo_move_to (cr, a->x1, a->y1);
      cairo_line_to (cr, a->x1 - HEAD * cos (0.45), a->y1 - HEAD * sin (0.45));
      cairo_line_to (cr, a->x1 - HEAD * cos (0.45), a->y1 + HEAD * sin (0.45));
      cairo_close_path (cr);
    }
  cairo_fill (cr);

  cairo_restore (cr);
}
