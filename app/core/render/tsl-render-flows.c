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

#include "tsl-render-private.h"

#define HEAD 6.0

static double
row_middle (const TslSnapshotTrack *track,
            guint                   slice,
            double                  top)
{
  guint depth = MIN (track->slices[slice].depth, TSL_RENDER_MAX_ROWS - 1);

  return top + depth * TSL_RENDER_ROW_HEIGHT + TSL_RENDER_ROW_HEIGHT / 2.0;
}

void
_tsl_render_flows (cairo_t                *cr,
                   TslSnapshot            *snapshot,
                   const TslRenderOptions *o,
                   const TslRenderTheme   *theme,
                   const double           *tops)
{
  const TslSnapshotFlow *flows;
  guint n = 0;
  double left = tsl_render_label_width (o);
  double header = tsl_render_header_height (o);

  flows = tsl_snapshot_get_flows (snapshot, &n);
  if (n == 0)
    return;

  cairo_save (cr);
  cairo_rectangle (cr, left, header, MAX (o->width - left, 0), MAX (o->height - header, 0));
  cairo_clip (cr);
  cairo_set_line_width (cr, 1.25);
  cairo_set_source_rgba (cr, theme->fg.r, theme->fg.g, theme->fg.b, 0.8);

  for (guint i = 0; i < n; i++)
    {
      const TslSnapshotFlow *f = &flows[i];
      double x0, y0, x1, y1, bend, angle;

      if (isnan (tops[f->from_track]) || isnan (tops[f->to_track]))
        continue;
      x0 = tsl_render_time_to_x (o, (double) f->from_ns);
      x1 = tsl_render_time_to_x (o, (double) f->to_ns);
      if ((x0 < left && x1 < left) || (x0 > o->width && x1 > o->width))
        continue;
      y0 = row_middle (tsl_snapshot_get_track (snapshot, f->from_track), f->from_slice,
                       tops[f->from_track]);
      y1 = row_middle (tsl_snapshot_get_track (snapshot, f->to_track), f->to_slice,
                       tops[f->to_track]);
      if ((y0 < header && y1 < header) || (y0 > o->height && y1 > o->height))
        continue;

      /* Leaves and arrives horizontally: a flow to a later slice bows
       * forward, one to the same time bows out to the right. */
      bend = MAX (fabs (x1 - x0) / 2, 16);
      cairo_move_to (cr, x0, y0);
      cairo_curve_to (cr, x0 + bend, y0, x1 - bend, y1, x1 - HEAD * 0.6, y1);
      cairo_stroke (cr);

      cairo_arc (cr, x0, y0, 2.0, 0, 2 * G_PI);
      cairo_fill (cr);

      angle = 0;  /* the curve's tangent at the head is horizontal */
      cairo_move_to (cr, x1, y1);
      cairo_line_to (cr, x1 - HEAD * cos (angle - 0.45), y1 - HEAD * sin (angle - 0.45));
      cairo_line_to (cr, x1 - HEAD * cos (angle + 0.45), y1 - HEAD * sin (angle + 0.45));
      cairo_close_path (cr);
      cairo_fill (cr);
    }

  cairo_restore (cr);
}
