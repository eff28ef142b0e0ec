/* The compare row's distribution picture: its caption at a readable size
 * and its interval's labels inside the picture, however narrow or however
 * close to an edge the interval lies; its bars in proportion to their
 * counts. */

#include <math.h>

#include "tsl-render-histogram.h"

#define HEIGHT 300

static gboolean
is_ink (cairo_surface_t *surface,
        int              x,
        int              y)
{
  const unsigned char *data = cairo_image_surface_get_data (surface);
  guint32 p = *(const guint32 *) (data + y * cairo_image_surface_get_stride (surface) + x * 4);

  /* Text is dark grey on white; bars are blue, the CI band pale blue. */
  return ((p >> 16) & 0xFF) < 200 && ((p >> 8) & 0xFF) < 200 && (p & 0xFF) < 200;
}

/* Rows [y0, y1) holding ink, and the leftmost inked column, within x0..x1. */
static int
ink_rows (cairo_surface_t *surface,
          int              x0,
          int              x1,
          int              y0,
          int              y1,
          int             *leftmost)
{
  int rows = 0;

  *leftmost = x1;
  for (int y = y0; y < y1; y++)
    {
      gboolean any = FALSE;

      for (int x = x0; x < x1; x++)
        if (is_ink (surface, x, y))
          {
            any = TRUE;
            *leftmost = MIN (*leftmost, x);
          }
      rows += any;
    }
  return rows;
}

static cairo_surface_t *
draw (int width)
{
  static double effects[200];
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, width, HEIGHT);
  cairo_t *cr = cairo_create (surface);
  /* A change of -11.8 % whose interval ends far from 0 %: the interval
   * lies at the picture's left edge, as on a real CPU-utilisation file. */
  TslHistogramData d = {
    .effects = effects, .n_effects = G_N_ELEMENTS (effects), .change = -0.118,
    .ci_low = -0.123, .ci_high = -0.113, .a_value = 43.46, .b_value = 38.33,
    .series = "a-long-series-name/that-does-not-fit", .stat = "time_mean", .significant = TRUE,
  };

  for (guint i = 0; i < G_N_ELEMENTS (effects); i++)
    effects[i] = -0.123 + 0.01 * i / (G_N_ELEMENTS (effects) - 1);
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
  tsl_render_histogram (cr, &d, width, HEIGHT);
  cairo_destroy (cr);
  cairo_surface_flush (surface);
  return surface;
}

static void
test_labels (void)
{
  for (int width = 160; width <= 640; width += 240)
    {
      cairo_surface_t *surface = draw (width);
      int left, caption_rows, label_rows;

      /* The caption has a line of its own under the title, at its size
       * (it was shrunk into the title's line, right-aligned, before). */
      caption_rows = ink_rows (surface, 0, width / 2, 19, 36, &left);
      g_assert_cmpint (caption_rows, >=, 7);
      /* The interval's labels under the axis start inside the picture (the
       * low one, right-aligned to its line, began left of 0 before). */
      label_rows = ink_rows (surface, 0, width, HEIGHT - 30, HEIGHT, &left);
      g_assert_cmpint (label_rows, >=, 7);
      g_assert_cmpint (left, >=, 2);
      cairo_surface_destroy (surface);
    }
}

/* The height of the bars' colour in column x. */
static int
bar_height (cairo_surface_t *surface,
            int              x)
{
  const unsigned char *data = cairo_image_surface_get_data (surface);
  int stride = cairo_image_surface_get_stride (surface), n = 0;

  for (int y = 0; y < HEIGHT; y++)
    {
      guint32 p = *(const guint32 *) (data + y * stride + x * 4);
      int r = (p >> 16) & 0xFF, g = (p >> 8) & 0xFF, b = p & 0xFF;

      /* Bars are (98, 160, 234) at 90 % on white; the CI band is paler. */
      n += r < 150 && g > 130 && g < 200 && b > 200;
    }
  return n;
}

static void
test_bar_heights (void)
{
  /* 20 resamples in one bin, then 10 in another: the second bar is half
   * the first. The first bar, while it was the tallest, counted each of
   * its resamples twice (MAX() evaluated its `++bins[b]` twice), so the
   * second came out a quarter of it. */
  static double effects[30];
  const int width = 640;
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, width, HEIGHT);
  cairo_t *cr = cairo_create (surface);
  TslHistogramData d = {
    .effects = effects, .n_effects = G_N_ELEMENTS (effects), .change = NAN,
    .ci_low = 0.12, .ci_high = 0.18, .a_value = 1, .b_value = 1.15,
    .series = "s", .stat = "time_mean", .significant = TRUE,
  };
  int first = 0, second = 0;

  for (guint i = 0; i < G_N_ELEMENTS (effects); i++)
    effects[i] = i < 20 ? 0.10 : 0.20;
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
  tsl_render_histogram (cr, &d, width, HEIGHT);
  cairo_destroy (cr);
  cairo_surface_flush (surface);

  /* 0.10 lies mid-picture, 0.20 in its last quarter. */
  for (int x = 0; x < width; x++)
    {
      int h = bar_height (surface, x);

      if (x < width * 3 / 4)
        first = MAX (first, h);
      else
        second = MAX (second, h);
    }
  g_assert_cmpint (first, >, 100);
  /* Within a pixel and a half of half, for the bars' anti-aliased tops. */
  g_assert_cmpfloat (fabs (second - first / 2.0), <=, 1.5);
  cairo_surface_destroy (surface);
}

/* An interval unbounded above (Fieller's, A not told from 0) is drawn to
 * the edge: the bars keep their scale. With the infinity as the scale's
 * end every coordinate was NaN and the picture empty. */
static void
test_unbounded (void)
{
  static double effects[30];
  const int width = 640;
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, width, HEIGHT);
  cairo_t *cr = cairo_create (surface);
  TslHistogramData d = {
    .effects = effects, .n_effects = G_N_ELEMENTS (effects), .change = -0.98,
    .ci_low = -0.996, .ci_high = INFINITY, .a_value = 3.2e6, .b_value = 4e4,
    .series = "s", .stat = "mean", .significant = FALSE,
  };
  int tallest = 0, left;

  for (guint i = 0; i < G_N_ELEMENTS (effects); i++)
    effects[i] = i < 20 ? -0.99 : -0.5;
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
  tsl_render_histogram (cr, &d, width, HEIGHT);
  g_assert_cmpint (cairo_status (cr), ==, CAIRO_STATUS_SUCCESS);
  cairo_destroy (cr);
  cairo_surface_flush (surface);

  for (int x = 0; x < width; x++)
    tallest = MAX (tallest, bar_height (surface, x));
  g_assert_cmpint (tallest, >, 100);
  /* Both ends labelled, "+∞" among them. */
  g_assert_cmpint (ink_rows (surface, 0, width, HEIGHT - 30, HEIGHT, &left), >=, 7);
  cairo_surface_destroy (surface);
}

/* The caption gives A and B in the row's unit, as the table does. */
static void
test_caption_units (void)
{
  TslCompareRow row = { 0 };
  TslHistogramData d = { 0 };
  double *quantiles = NULL;

  row.series = "CrBrowserMain/RunTask";
  row.stat = "mean";
  row.duration = TRUE;
  row.unit = "ns";
  row.a_value = 58840;
  row.b_value = 14470;
  row.ci_low = row.ci_high = row.change = NAN;
  tsl_histogram_data_from_row (&d, &row, &quantiles);
  g_assert_cmpstr (d.a_text, ==, "58.84 µs");
  g_assert_cmpstr (d.b_text, ==, "14.47 µs");
  g_free (quantiles);

  row.duration = FALSE;
  row.unit = "fraction";
  row.a_value = 0.8095;
  row.b_value = NAN;
  tsl_histogram_data_from_row (&d, &row, &quantiles);
  g_assert_cmpstr (d.a_text, ==, "80.95 %");
  g_assert_cmpstr (d.b_text, ==, "—");
  g_free (quantiles);

  row.unit = "MB";
  row.a_value = 1234.5;
  tsl_histogram_data_from_row (&d, &row, &quantiles);
  g_assert_cmpstr (d.a_text, ==, "1234 MB");
  g_free (quantiles);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/render-histogram/labels", test_labels);
  g_test_add_func ("/render-histogram/bar-heights", test_bar_heights);
  g_test_add_func ("/render-histogram/caption-units", test_caption_units);
  g_test_add_func ("/render-histogram/unbounded", test_unbounded);
  return g_test_run ();
}
