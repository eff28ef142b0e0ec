/* tsl-render-histogram.c: the bootstrap distribution of one compare row
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "tsl-render"

#include "config.h"

#include <math.h>
#include <string.h>

#include "tsl-block-test.h"
#include "tsl-duration.h"
#include "tsl-render-histogram.h"
#include "tsl-render-private.h"

#define N_BINS   40
#define T_QUANTILES 400
#define MARGIN_L 12
#define MARGIN_R 12
/* Title, caption, then the "0 %" label above the plot. */
#define MARGIN_T 50
#define MARGIN_B 30

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

/* An interval's end as a label: "+12.5 %", or "+∞" where it has none. */
static void
format_bound (char   *buf,
              gsize   size,
              double  bound)
{
  if (isinf (bound))
    g_strlcpy (buf, bound > 0 ? "+∞" : "−∞", size);
  else
    g_snprintf (buf, size, "%+.1f %%", bound * 100);
}

void
tsl_render_histogram (cairo_t                *cr,
                      const TslHistogramData *d,
                      double                  width,
                      double                  height)
{
  double fg = d->dark ? 0.92 : 0.15;
  double lo, hi, plot_w, plot_h, bin_w, ci_low, ci_high;
  guint bins[N_BINS] = { 0 };
  guint peak = 1;
  char buf[160];
  cairo_text_extents_t ext;
  double room;

#define X_OF(v) (MARGIN_L + ((v) - lo) / (hi - lo) * plot_w)

  cairo_save (cr);
  cairo_select_font_face (cr, "Cantarell", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size (cr, 10.5);

  if (d->n_effects < 2 || width < 80 || height < 80)
    {
      cairo_set_source_rgba (cr, fg, fg, fg, 0.6);
      text_at (cr, width / 2, height / 2, 0.5, "No bootstrap distribution for this row");
      cairo_restore (cr);
      return;
    }

  /* The middle 99.8 % sets the scale, so a few extreme resamples do not
   * squeeze the body of the distribution into one bin. */
  lo = d->effects[(guint) (d->n_effects * 0.001)];
  hi = d->effects[d->n_effects - 1 - (guint) (d->n_effects * 0.001)];
  /* An unbounded end of the interval (Fieller's, A not told from 0) does
   * not set the scale: it is drawn to the edge. */
  lo = MIN (lo, 0);
  hi = MAX (hi, 0);
  if (isfinite (d->ci_low))
    lo = MIN (lo, d->ci_low);
  if (isfinite (d->ci_high))
    hi = MAX (hi, d->ci_high);
  if (!isnan (d->change))
    {
      lo = MIN (lo, d->change);
      hi = MAX (hi, d->change);
    }
  if (hi - lo < 1e-9)
    {
      lo -= 0.01;
      hi += 0.01;
    }
  {
    double pad = (hi - lo) * 0.05;
    lo -= pad;
    hi += pad;
  }

  plot_w = width - MARGIN_L - MARGIN_R;
  plot_h = height - MARGIN_T - MARGIN_B;
  bin_w = (hi - lo) / N_BINS;

  for (guint i = 0; i < d->n_effects; i++)
    {
      int b = (int) floor ((d->effects[i] - lo) / bin_w);

      /* Counted apart: MAX() evaluates its arguments twice. */
      if (b >= 0 && b < N_BINS)
        {
          bins[b]++;
          peak = MAX (peak, bins[b]);
        }
    }

  ci_low = isinf (d->ci_low) ? lo : d->ci_low;
  ci_high = isinf (d->ci_high) ? hi : d->ci_high;

  /* CI band */
  if (!isnan (d->ci_low) && !isnan (d->ci_high))
    {
      if (d->significant)
        cairo_set_source_rgba (cr, 0.208, 0.518, 0.894, 0.18);
      else
        cairo_set_source_rgba (cr, fg, fg, fg, 0.08);
      cairo_rectangle (cr, X_OF (ci_low), MARGIN_T, X_OF (ci_high) - X_OF (ci_low), plot_h);
      cairo_fill (cr);
    }

  for (guint b = 0; b < N_BINS; b++)
    {
      double x0 = X_OF (lo + b * bin_w);
      double h = (double) bins[b] / peak * plot_h;

      cairo_rectangle (cr, x0 + 0.5, MARGIN_T + plot_h - h, MAX (plot_w / N_BINS - 1, 1), h);
    }
  cairo_set_source_rgba (cr, 0.384, 0.627, 0.918, 0.9);
  cairo_fill (cr);

  /* Axis with 0 % (no change) and the CI bounds */
  cairo_set_source_rgba (cr, fg, fg, fg, 0.5);
  cairo_rectangle (cr, MARGIN_L, MARGIN_T + plot_h, plot_w, 1);
  cairo_fill (cr);

  cairo_set_line_width (cr, 1.5);
  cairo_set_source_rgba (cr, fg, fg, fg, 0.85);
  cairo_move_to (cr, floor (X_OF (0)) + 0.5, MARGIN_T - 4);
  cairo_line_to (cr, floor (X_OF (0)) + 0.5, MARGIN_T + plot_h);
  cairo_stroke (cr);
  text_at (cr, X_OF (0), MARGIN_T - 6, 0.5, "0 %");

  if (!isnan (d->change))
    {
      cairo_set_source_rgb (cr, 1.0, 0.471, 0.0);
      cairo_move_to (cr, floor (X_OF (d->change)) + 0.5, MARGIN_T);
      cairo_line_to (cr, floor (X_OF (d->change)) + 0.5, MARGIN_T + plot_h);
      cairo_stroke (cr);
    }

  cairo_set_source_rgba (cr, fg, fg, fg, 0.8);
  if (!isnan (d->ci_low) && !isnan (d->ci_high))
    {
      char high[32];
      cairo_text_extents_t high_ext;
      double low_x, high_x, low_end, y = MARGIN_T + plot_h + 14;

      /* The low bound ends at its line, the high one starts at its line;
       * both stay inside the picture, and the high one drops a row rather
       * than overwrite the low one. */
      format_bound (buf, sizeof buf, d->ci_low);
      format_bound (high, sizeof high, d->ci_high);
      cairo_text_extents (cr, buf, &ext);
      cairo_text_extents (cr, high, &high_ext);
      low_x = CLAMP (X_OF (ci_low) - ext.x_advance, 2, MAX (width - 2 - ext.x_advance, 2));
      low_end = low_x + ext.x_advance;
      high_x = CLAMP (X_OF (ci_high), 2, MAX (width - 2 - high_ext.x_advance, 2));
      text_at (cr, low_x, y, 0.0, buf);
      text_at (cr, high_x, high_x < low_end + 6 ? y + 13 : y, 0.0, high);
    }

  /* Caption: what is shown and the two values compared */
  cairo_set_source_rgba (cr, fg, fg, fg, 1);
  cairo_select_font_face (cr, "Cantarell", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
  room = MAX (width - MARGIN_R - MARGIN_L, 1);
  g_snprintf (buf, sizeof buf, "%s (%s)", d->series ? d->series : "", d->stat ? d->stat : "");
  _tsl_render_show_text (cr, MARGIN_L, 14, room, buf);
  cairo_select_font_face (cr, "Cantarell", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  /* Its own line, elided when narrow: never shrunk below a readable size. */
  if (d->a_text[0] != '\0' && d->b_text[0] != '\0')
    g_snprintf (buf, sizeof buf, "A %s → B %s: %+.1f %%, CI shaded; orange = observed",
                d->a_text, d->b_text, d->change * 100);
  else
    g_snprintf (buf, sizeof buf, "A %.4g → B %.4g: %+.1f %%, CI shaded; orange = observed",
                d->a_value, d->b_value, d->change * 100);
  cairo_set_source_rgba (cr, fg, fg, fg, 0.7);
  _tsl_render_show_text (cr, MARGIN_L, 30, room, buf);

  cairo_restore (cr);
#undef X_OF
}

/* A value as the compare table shows it: a duration, a percentage, or a
 * number with its unit ("5.884e+04" said nothing of 58.84 µs). */
static void
format_value (char                *buf,
              gsize                size,
              const TslCompareRow *row,
              double               v)
{
  const char *unit = row->unit != NULL ? row->unit : "";

  if (!isfinite (v))
    g_strlcpy (buf, "—", size);
  else if (row->duration || strcmp (unit, "ns") == 0)
    {
      g_autofree char *d = tsl_duration_format (v);

      g_strlcpy (buf, d, size);
    }
  else if (strcmp (unit, "fraction") == 0)
    g_snprintf (buf, size, "%.2f %%", v * 100);
  else
    g_snprintf (buf, size, "%.4g%s%s", v, *unit == '\0' || *unit == '/' ? "" : " ", unit);
}

void
tsl_histogram_data_from_row (TslHistogramData     *data,
                             const TslCompareRow  *row,
                             double              **quantiles)
{
  *quantiles = NULL;
  data->effects = row->effects;
  data->n_effects = row->n_effects;
  if (row->n_effects == 0 && row->t_df > 0 && row->t_se > 0)
    {
      double *q = g_new (double, T_QUANTILES);

      for (guint i = 0; i < T_QUANTILES; i++)
        q[i] = row->change - row->t_se * tsl_t_isf ((i + 0.5) / T_QUANTILES, row->t_df);
      data->n_effects = T_QUANTILES;
      data->effects = *quantiles = q;
    }
  data->change = row->change;
  data->ci_low = row->ci_low;
  data->ci_high = row->ci_high;
  data->a_value = row->a_value;
  data->b_value = row->b_value;
  format_value (data->a_text, sizeof data->a_text, row, row->a_value);
  format_value (data->b_text, sizeof data->b_text, row, row->b_value);
  data->series = row->series;
  data->stat = row->stat;
  data->significant = row->significant;
}
