/* tsl-report-plot.c: the picture beside each significant row of a report
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A row with resampled effects (or a t reference) gets its distribution; one
 * with only an interval gets the interval on a % axis, so no row shows an
 * empty box; one with neither gets a sentence instead of a picture. Drawn
 * here rather than by the window's histogram painter, whose caption prints
 * raw values ("A 1.225e+05") where the report writes them in units.
 */
#define G_LOG_DOMAIN "tsl-report"

#include "config.h"

#include <math.h>

#include <glib/gi18n-lib.h>

#include "tsl-render-histogram.h"
#include "tsl-report-private.h"

#define FONT   "DejaVu Sans"
#define SIDE   12.0
#define N_BINS 40

TslReportPlot
_tsl_report_plot_kind (const TslCompareRow *row)
{
  g_autofree double *quantiles = NULL;
  TslHistogramData data = { 0 };

  tsl_histogram_data_from_row (&data, row, &quantiles);
  if (data.n_effects >= 2)
    return TSL_REPORT_PLOT_DISTRIBUTION;
  if (isfinite (row->ci_low) && isfinite (row->ci_high))
    return TSL_REPORT_PLOT_INTERVAL;
  return TSL_REPORT_PLOT_NONE;
}

char *
_tsl_report_plot_sentence (const TslCompareRow *row)
{
  g_autofree char *a = g_strdup_printf ("%" G_GUINT64_FORMAT, row->n_a);
  g_autofree char *b = g_strdup_printf ("%" G_GUINT64_FORMAT, row->n_b);

  if (row->presence != TSL_COMPARE_IN_BOTH)
    return g_strdup (_("No interval for this row: seen in one range only, its change has no finite bounds."));
  if (row->test == TSL_COMPARE_TEST_TOO_FEW)
    {
      g_autofree char *why = tsl_compare_row_dup_too_few (row);

      /* Translators: %s says why, e.g. "too few calls (1 vs 1)" */
      return g_strdup_printf (_("No interval for this row: %s."), why);
    }
  if (row->test == TSL_COMPARE_TEST_NONE)
    return g_strdup_printf (_("No interval for this row: too few calls or points to test (%s vs %s)."), a, b);
  if (row->test == TSL_COMPARE_TEST_TOO_DEPENDENT)
    return g_strdup (_("No interval for this row: too dependent to test at this length."));
  return g_strdup (_("No interval for this row."));
}

static void
text_at (cairo_t    *cr,
         double      x,
         double      y,
         double      align,
         const char *text)
{
  cairo_text_extents_t ext;

  cairo_text_extents (cr, text, &ext);
  cairo_move_to (cr, x - ext.x_advance * align, y);
  cairo_show_text (cr, text);
}

/* "A 122.5 µs → B 21.61 µs, −82.4 %; shaded: interval; orange: observed" */
static void
caption (cairo_t             *cr,
         const TslCompareRow *row,
         double               width)
{
  g_autofree char *a = _tsl_report_format_value (row, row->a_value);
  g_autofree char *b = _tsl_report_format_value (row, row->b_value);
  g_autofree char *change = _tsl_report_format_change (row->change);
  /* Translators: above a plot of a report's row: A's value → B's, the change */
  g_autofree char *text = g_strdup_printf (_("A %s → B %s, %s; shaded: interval; orange: observed"),
                                           a, b, change);

  cairo_save (cr);
  cairo_select_font_face (cr, FONT, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size (cr, 9);
  cairo_set_source_rgba (cr, 0.15, 0.15, 0.15, 0.85);
  text_at (cr, SIDE, 13, 0.0, text);
  cairo_restore (cr);
}

void
_tsl_report_paint_plot (cairo_t             *cr,
                        const TslCompareRow *row,
                        double               width,
                        double               height)
{
  g_autofree double *quantiles = NULL;
  g_autofree char *lo_text = NULL, *hi_text = NULL;
  TslHistogramData data = { 0 };
  double lo, hi, pad, axis_y = height - 22, top = 34, plot_w = width - 2 * SIDE;
  gboolean histogram;

  tsl_histogram_data_from_row (&data, row, &quantiles);
  histogram = data.n_effects >= 2;
  if (!histogram && (!isfinite (row->ci_low) || !isfinite (row->ci_high)))
    return;

#define X_OF(v) (SIDE + ((v) - lo) / (hi - lo) * plot_w)
  lo = MIN (0, isfinite (row->change) ? row->change : 0);
  hi = MAX (0, isfinite (row->change) ? row->change : 0);
  if (isfinite (row->ci_low) && isfinite (row->ci_high))
    {
      lo = MIN (lo, row->ci_low);
      hi = MAX (hi, row->ci_high);
    }
  if (histogram)
    {
      /* The middle 99.8 % sets the scale, as in the window's histogram. */
      lo = MIN (lo, data.effects[(guint) (data.n_effects * 0.001)]);
      hi = MAX (hi, data.effects[data.n_effects - 1 - (guint) (data.n_effects * 0.001)]);
    }
  pad = MAX ((hi - lo) * 0.06, 0.01);
  lo -= pad;
  hi += pad;

  cairo_save (cr);
  cairo_rectangle (cr, 0, 0, width, height);
  cairo_clip (cr);
  cairo_select_font_face (cr, FONT, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size (cr, 9);

  if (histogram)
    {
      /* The interval shaded behind the distribution's bars */
      guint bins[N_BINS] = { 0 }, peak = 1;
      double bin_w = (hi - lo) / N_BINS;

      if (!isnan (row->ci_low) && !isnan (row->ci_high))
        {
          /* An unbounded end (Fieller's, A not told from 0) reaches the edge. */
          double ci_low = isinf (row->ci_low) ? lo : row->ci_low, ci_high = isinf (row->ci_high) ? hi : row->ci_high;

          cairo_set_source_rgba (cr, 0.208, 0.518, 0.894, row->significant ? 0.18 : 0.08);
          cairo_rectangle (cr, X_OF (ci_low), top, X_OF (ci_high) - X_OF (ci_low), axis_y - top);
          cairo_fill (cr);
        }
      for (guint i = 0; i < data.n_effects; i++)
        {
          int b = (int) floor ((data.effects[i] - lo) / bin_w);

          /* Counted apart: MAX() evaluates its arguments twice. */
          if (b >= 0 && b < N_BINS)
            {
              bins[b]++;
              peak = MAX (peak, bins[b]);
            }
        }
      for (guint b = 0; b < N_BINS; b++)
        {
          double h = (double) bins[b] / peak * (axis_y - top);

          cairo_rectangle (cr, X_OF (lo + b * bin_w) + 0.5, axis_y - h, MAX (plot_w / N_BINS - 1, 1), h);
        }
      cairo_set_source_rgba (cr, 0.384, 0.627, 0.918, 0.9);
      cairo_fill (cr);
    }
  else
    {
      /* The interval as a bar (at least a hairline when its ends meet) */
      cairo_set_source_rgba (cr, 0.208, 0.518, 0.894, row->significant ? 0.55 : 0.25);
      cairo_rectangle (cr, X_OF (row->ci_low), axis_y - 18, MAX (X_OF (row->ci_high) - X_OF (row->ci_low), 2), 12);
      cairo_fill (cr);
    }

  /* Axis, 0 % (no change) under the caption, the observed change in orange */
  cairo_set_source_rgba (cr, 0.15, 0.15, 0.15, 0.5);
  cairo_rectangle (cr, SIDE, axis_y, plot_w, 1);
  cairo_fill (cr);
  cairo_set_source_rgba (cr, 0.15, 0.15, 0.15, 0.85);
  cairo_set_line_width (cr, 1.5);
  cairo_move_to (cr, floor (X_OF (0)) + 0.5, 31);
  cairo_line_to (cr, floor (X_OF (0)) + 0.5, axis_y);
  cairo_stroke (cr);
  text_at (cr, X_OF (0), 28, 0.5, "0 %");
  if (isfinite (row->change))
    {
      cairo_set_source_rgb (cr, 1.0, 0.471, 0.0);
      cairo_move_to (cr, floor (X_OF (row->change)) + 0.5, histogram ? top : axis_y - 22);
      cairo_line_to (cr, floor (X_OF (row->change)) + 0.5, axis_y);
      cairo_stroke (cr);
    }

  cairo_set_source_rgba (cr, 0.15, 0.15, 0.15, 0.85);
  if (isfinite (row->ci_low) && isfinite (row->ci_high))
    {
      lo_text = _tsl_report_format_change (row->ci_low);
      hi_text = _tsl_report_format_change (row->ci_high);
      text_at (cr, X_OF (row->ci_low), axis_y + 13, 1.0, lo_text);
      text_at (cr, X_OF (row->ci_high), axis_y + 13, 0.0, hi_text);
    }
  caption (cr, row, width);
  cairo_restore (cr);
#undef X_OF
}
