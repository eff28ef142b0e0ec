/* tsl-change-marks.c: change points drawn as marks on the overview and the ruler
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Only significant change points are marked, so they take the colour the
 * compare table gives significant rows (.tsl-significant: @accent_color);
 * the list names each, so the colour is never the only cue.
 */
#define G_LOG_DOMAIN "tsl-window"

#include "config.h"

#include <math.h>

#include "tsl-change-marks.h"

static void
accent_color (GtkWidget *widget,
              GdkRGBA   *color)
{
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  if (!gtk_style_context_lookup_color (gtk_widget_get_style_context (widget), "accent_color", color))
    gdk_rgba_parse (color, "#1c71d8");
  G_GNUC_END_IGNORE_DEPRECATIONS
}

void
tsl_change_marks_draw (GtkWidget    *widget,
                       cairo_t      *cr,
                       const double *xs,
                       guint         n,
                       int           current,
                       double        top,
                       double        bottom)
{
  GdkRGBA accent;

  g_return_if_fail (GTK_IS_WIDGET (widget));

  if (n == 0)
    return;
  accent_color (widget, &accent);
  cairo_save (cr);
  for (guint i = 0; i < n; i++)
    {
      double x = floor (xs[i]) + 0.5;
      gboolean is_current = (int) i == current;

      cairo_set_source_rgba (cr, accent.red, accent.green, accent.blue, is_current ? 1.0 : 0.7);
      cairo_set_line_width (cr, is_current ? 2 : 1);
      cairo_move_to (cr, x, top);
      cairo_line_to (cr, x, bottom);
      cairo_stroke (cr);
      /* A flag pointing down, so a mark reads as one where lines crowd. */
      cairo_move_to (cr, x - (is_current ? 5 : 4), top);
      cairo_line_to (cr, x + (is_current ? 5 : 4), top);
      cairo_line_to (cr, x, top + (is_current ? 7 : 5));
      cairo_close_path (cr);
      cairo_fill (cr);
    }
  cairo_restore (cr);
}

int
tsl_change_marks_hit (const double *xs,
                      guint         n,
                      double        x)
{
  int best = -1;
  double best_d = TSL_CHANGE_MARK_REACH;

  for (guint i = 0; i < n; i++)
    if (fabs (xs[i] - x) <= best_d)
      {
        best_d = fabs (xs[i] - x);
        best = (int) i;
      }
  return best;
}
