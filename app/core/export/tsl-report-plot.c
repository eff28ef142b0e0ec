/* tsl-report-plot.c: the picture beside each significant row of a report
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A row with resampled effects (or a t reference) gets its distribution; one
 * with only an interval gets the interval on a % axis, so no row shows an
 * empty box; one with neither gets a sentence instead of a picture.
 */
#define G_LOG_DOMAIN "tsl-report"

#include "config.h"

#include <math.h>

#include <glib/gi18n-lib.h>

#include "tsl-render-histogram.h"
#include "tsl-report-private.h"

#define FONT   "DejaVu Sans"
#define SIDE   12.0

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
  if (row->test == TSL_COMPARE_TEST_TOO_FEW || row->test == TSL_COMPARE_TEST_NONE)
    return g_strdup_printf (_("No interval for this row: too few calls or points to test (%s vs %s)."), a, b);
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
  double lo, hi, pad, axis_y = height - 22, plot_w = width - 2 * SIDE;

  tsl_histogram_data_from_row (&data, row, &quantiles);
  if (data.n_effects >= 2)
    {
      tsl_render_histogram (cr, &data, width, height);
      /* The painter's caption prints raw values ("A 1.225e+05"): the
       * report's own, in the row's units, goes over it. */
      cairo_set_source_rgb (cr, 1, 1, 1);
      cairo_rectangle (cr, 0, 0, width, 19);
      cairo_fill (cr);
      caption (cr, row, width);
      return;
    }
  if (!isfinite (row->ci_low) || !isfinite (row->ci_high))
    return;

#define X_OF(v) (SIDE + ((v) - lo) / (hi - lo) * plot_w)
  lo = MIN (0, MIN (row->ci_low, isfinite (row->change) ? row->change : 0));
  hi = MAX (0, MAX (row->ci_high, isfinite (row->change) ? row->change : 0));
  pad = MAX ((hi - lo) * 0.08, 0.01);
  lo -= pad;
  hi += pad;

  cairo_save (cr);
  cairo_select_font_face (cr, FONT, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size (cr, 9);

  /* Axis, 0 % (no change) */
  cairo_set_source_rgba (cr, 0.15, 0.15, 0.15, 0.5);
  cairo_rectangle (cr, SIDE, axis_y, plot_w, 1);
  cairo_fill (cr);
  cairo_set_source_rgba (cr, 0.15, 0.15, 0.15, 0.85);
  cairo_set_line_width (cr, 1.5);
  cairo_move_to (cr, floor (X_OF (0)) + 0.5, 31);
  cairo_line_to (cr, floor (X_OF (0)) + 0.5, axis_y);
  cairo_stroke (cr);
  text_at (cr, X_OF (0), 28, 0.5, "0 %");   /* under the caption */

  /* The interval as a bar (at least a hairline when its ends meet), the
   * observed change in orange */
  cairo_set_source_rgba (cr, 0.208, 0.518, 0.894, row->significant ? 0.55 : 0.25);
  cairo_rectangle (cr, X_OF (row->ci_low), axis_y - 18, MAX (X_OF (row->ci_high) - X_OF (row->ci_low), 2), 12);
  cairo_fill (cr);
  if (isfinite (row->change))
    {
      cairo_set_source_rgb (cr, 1.0, 0.471, 0.0);
      cairo_move_to (cr, floor (X_OF (row->change)) + 0.5, axis_y - 22);
      cairo_line_to (cr, floor (X_OF (row->change)) + 0.5, axis_y);
      cairo_stroke (cr);
    }

  cairo_set_source_rgba (cr, 0.15, 0.15, 0.15, 0.85);
  lo_text = _tsl_report_format_change (row->ci_low);
  hi_text = _tsl_report_format_change (row->ci_high);
  text_at (cr, X_OF (row->ci_low), axis_y + 13, 1.0, lo_text);
  text_at (cr, X_OF (row->ci_high), axis_y + 13, 0.0, hi_text);
  /* Translators: beside an interval plot in a report */
  caption (cr, row, width);
  cairo_restore (cr);
#undef X_OF
}
