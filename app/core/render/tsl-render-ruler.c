/* tsl-render-ruler.c: the time ruler and the grid under the tracks
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "tsl-render"

#include "config.h"

#include <math.h>

#include "tsl-duration.h"
#include "tsl-render.h"
#include "tsl-render-private.h"

/* Tick steps a person reads easily: 1-2-5 below a second, then the clock's
 * own steps (15 s, 30 min, 6 h, a day, a week). */
static double
nice_step (double span_ns,
           double plot_px)
{
  static const double clock[] = {
    1e9, 2e9, 5e9, 10e9, 15e9, 30e9,
    60e9, 120e9, 300e9, 600e9, 900e9, 1800e9,
    3600e9, 7200e9, 3 * 3600e9, 6 * 3600e9, 12 * 3600e9,
    86400e9, 2 * 86400e9, 7 * 86400e9, 14 * 86400e9, 28 * 86400e9,
  };
  static const double mults[] = { 1, 2, 5, 10 };
  double target = span_ns * 90.0 / MAX (plot_px, 1);
  double mag;

  if (target > 1e9)
    {
      for (guint i = 0; i < G_N_ELEMENTS (clock); i++)
        if (clock[i] >= target)
          return clock[i];
      /* Beyond four weeks: whole multiples of 28 days in 1-2-5 steps. */
      mag = pow (10, floor (log10 (target / clock[G_N_ELEMENTS (clock) - 1])));
      for (guint i = 0; i < G_N_ELEMENTS (mults); i++)
        if (clock[G_N_ELEMENTS (clock) - 1] * mag * mults[i] >= target)
          return clock[G_N_ELEMENTS (clock) - 1] * mag * mults[i];
    }

  mag = pow (10, floor (log10 (MAX (target, 1e-3))));
  for (guint i = 0; i < G_N_ELEMENTS (mults); i++)
    if (mag * mults[i] >= target)
      return mag * mults[i];
  return mag * 10;
}

#define MAX_TICKS 200

/* The ticks of the view: counted, never stepped until past the end, so a
 * step below the times' resolution (1 ns at 2^63 ns is lost in a double)
 * cannot loop for ever. */
static guint
ticks (const TslRenderOptions *o,
       double                 *first,
       double                 *step)
{
  double span = (double) o->view_end_ns - (double) o->view_start_ns;
  double n;

  *step = nice_step (span, o->width - tsl_render_label_width (o));
  *first = ceil ((double) o->view_start_ns / *step) * *step;
  n = floor (((double) o->view_end_ns - *first) / *step) + 1;
  if (!isfinite (n) || n < 1 || !(*step > 0))
    return 0;
  return (guint) MIN (n, MAX_TICKS);
}

char *
tsl_render_format_tick (const TslRenderOptions *o,
                        double                  t,
                        double                  step)
{
  g_autoptr(GDateTime) when = NULL;
  g_autofree char *hms = NULL;
  gint64 ns;

  g_return_val_if_fail (o != NULL, NULL);

  if (o->wall_clock_ns <= 0)
    return t == 0 ? g_strdup ("0") : tsl_duration_format (t);

  ns = o->wall_clock_ns + (gint64) llround (t);
  when = g_date_time_new_from_unix_local (ns / 1000000000);
  if (when == NULL)
    return tsl_duration_format (t);
  hms = g_date_time_format (when, step >= 86400e9 ? "%Y-%m-%d" : "%H:%M:%S");
  /* Sub-second ticks need the fraction to tell them apart. */
  if (step < 1e9)
    return g_strdup_printf ("%s.%03d", hms, (int) ((ns / 1000000) % 1000));
  return g_steal_pointer (&hms);
}

void
_tsl_render_ruler (cairo_t                *cr,
            const TslRenderOptions *o,
            const TslRenderTheme   *theme,
            double                  top)
{
  double first, step;
  guint n = ticks (o, &first, &step);

  _tsl_render_set_rgb (cr, &theme->gutter, 1);
  cairo_rectangle (cr, 0, top, o->width, TSL_RENDER_RULER_HEIGHT);
  cairo_fill (cr);

  cairo_set_font_size (cr, 10.5);
  for (guint i = 0; i < n; i++)
    {
      double t = first + i * step;
      double x = floor (tsl_render_time_to_x (o, t)) + 0.5;
      g_autofree char *label = tsl_render_format_tick (o, t, step);

      _tsl_render_set_rgb (cr, &theme->dim, 0.8);
      cairo_move_to (cr, x, top + TSL_RENDER_RULER_HEIGHT - 8);
      cairo_line_to (cr, x, top + TSL_RENDER_RULER_HEIGHT);
      cairo_set_line_width (cr, 1);
      cairo_stroke (cr);

      _tsl_render_set_rgb (cr, &theme->fg, 0.85);
      _tsl_render_show_text (cr, x + 3, top + 14, 200, label);
    }

  _tsl_render_set_rgb (cr, &theme->grid, 1);
  cairo_rectangle (cr, 0, top + TSL_RENDER_RULER_HEIGHT - 1, o->width, 1);
  cairo_fill (cr);
}

void
_tsl_render_grid (cairo_t                *cr,
           const TslRenderOptions *o,
           const TslRenderTheme   *theme,
           double                  top)
{
  double first, step;
  guint n = ticks (o, &first, &step);

  _tsl_render_set_rgb (cr, &theme->grid, 1);
  for (guint i = 0; i < n; i++)
    {
      double t = first + i * step;
      double x = floor (tsl_render_time_to_x (o, t));
      cairo_rectangle (cr, x, top, 1, o->height - top);
    }
  cairo_fill (cr);
}
