/* test-render.c: the painter, checked pixel by pixel on image surfaces
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <math.h>

#include "tsl-render.h"

#define WIDTH  1000
#define HEIGHT 400

static guint32
pixel (cairo_surface_t *surface,
       int              x,
       int              y)
{
  unsigned char *data = cairo_image_surface_get_data (surface);
  int stride = cairo_image_surface_get_stride (surface);

  return *(guint32 *) (data + y * stride + x * 4) & 0xFFFFFF;
}

static gboolean
is_background (guint32 p)
{
  int r = (p >> 16) & 0xFF, g = (p >> 8) & 0xFF, b = p & 0xFF;

  /* White, near-white grid lines and the light gutter. */
  return r > 200 && g > 200 && b > 200 && MAX (r, MAX (g, b)) - MIN (r, MIN (g, b)) < 12;
}

static cairo_surface_t *
paint (TslSnapshot      *snapshot,
       TslRenderOptions *options)
{
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, WIDTH, HEIGHT);
  cairo_t *cr = cairo_create (surface);

  tsl_render_paint (cr, snapshot, options);
  g_assert_cmpint (cairo_status (cr), ==, CAIRO_STATUS_SUCCESS);
  cairo_destroy (cr);
  cairo_surface_flush (surface);
  return surface;
}

/* The highest non-background pixel of column x between y0 and y1, or y1. */
static int
topmost_ink (cairo_surface_t *surface,
             int              x,
             int              y0,
             int              y1)
{
  for (int y = y0; y < y1; y++)
    if (!is_background (pixel (surface, x, y)))
      return y;
  return y1;
}

/* One event of 100 among a million at 1: sampled away, but the slice's
 * exact max keeps it on screen at full zoom-out. */
static void
test_spike_survives (void)
{
  g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_TIME, 50, 7);
  g_autoptr(TslSnapshot) snapshot = NULL;
  cairo_surface_t *surface;
  TslRenderOptions options;
  guint track = tsl_trace_ensure_track (trace, TSL_TRACK_METRIC, 0, 0, "load");
  const guint n = 1000000, spike = 700000;
  int spike_x, highest_elsewhere = HEIGHT;
  double spike_t;
  gboolean spike_kept = FALSE;

  for (guint i = 0; i < n; i++)
    tsl_trace_offer (trace, track, (gint64) i * 1000, i == spike ? 100.0 : 1.0 + (i % 3) * 0.01);

  snapshot = tsl_snapshot_new (trace);
  {
    const TslSnapshotTrack *t = tsl_snapshot_get_track (snapshot, 0);

    g_assert_cmpfloat (t->value_max, ==, 100.0);
    for (guint i = 0; i < t->n_samples; i++)
      spike_kept |= t->samples[i].value == 100.0;
    /* K = 50 keeps 50..100 of a million events: the spike itself is gone. */
    g_assert_false (spike_kept);
  }

  tsl_render_options_init (&options, snapshot, WIDTH, HEIGHT);
  surface = paint (snapshot, &options);

  spike_t = (double) spike * 1000 - (double) tsl_snapshot_get_start (snapshot);
  spike_x = (int) tsl_render_time_to_x (&options, spike_t);

  /* The envelope reaches higher at the spike's slice than anywhere else. */
  for (int x = TSL_RENDER_LABEL_WIDTH + 2; x < WIDTH - 2; x++)
    if (abs (x - spike_x) > 12)
      highest_elsewhere = MIN (highest_elsewhere, topmost_ink (surface, x, TSL_RENDER_RULER_HEIGHT + 26, HEIGHT));
  {
    int at_spike = HEIGHT;

    for (int x = spike_x - 12; x <= spike_x + 12; x++)
      at_spike = MIN (at_spike, topmost_ink (surface, x, TSL_RENDER_RULER_HEIGHT + 26, HEIGHT));
    g_assert_cmpint (at_spike + 20, <, highest_elsewhere);
  }

  cairo_surface_destroy (surface);
}

/* Ranges tint the tracks, thread stacks are drawn, nothing outside them. */
static void
test_ranges_and_stacks (void)
{
  g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_TIME, 200, 7);
  g_autoptr(TslSnapshot) snapshot = NULL;
  cairo_surface_t *surface;
  TslRenderOptions options;
  guint track = tsl_trace_ensure_track (trace, TSL_TRACK_THREAD, 1, 1, NULL);
  gint64 span;
  int ax, bx, y;
  guint32 pa, pb;

  for (guint i = 0; i < 10000; i++)
    if (tsl_trace_offer (trace, track, (gint64) i * 1000, NAN))
      tsl_trace_set_label (trace, track, i < 5000 ? "main;parse" : "main;render");

  snapshot = tsl_snapshot_new (trace);
  span = tsl_snapshot_get_span (snapshot);
  tsl_render_options_init (&options, snapshot, WIDTH, HEIGHT);
  options.has_a = TRUE;
  options.a_start_ns = span / 10;
  options.a_end_ns = span / 5;
  options.has_b = TRUE;
  options.b_start_ns = span / 2;
  options.b_end_ns = span * 3 / 5;
  surface = paint (snapshot, &options);

  /* Two stack levels drawn in colour across the plot. */
  y = TSL_RENDER_RULER_HEIGHT + 24 + 7;
  g_assert_false (is_background (pixel (surface, TSL_RENDER_LABEL_WIDTH + 300, y)));
  g_assert_false (is_background (pixel (surface, TSL_RENDER_LABEL_WIDTH + 300, y + 15)));

  /* Below the tracks: A blue-tinted, B orange-tinted, between them neither. */
  y = HEIGHT - 20;
  ax = (int) tsl_render_time_to_x (&options, (double) span * 0.15);
  bx = (int) tsl_render_time_to_x (&options, (double) span * 0.55);
  pa = pixel (surface, ax, y);
  pb = pixel (surface, bx, y);
  g_assert_cmpint ((int) (pa & 0xFF), >, (int) ((pa >> 16) & 0xFF) + 10);
  g_assert_cmpint ((int) ((pb >> 16) & 0xFF), >, (int) (pb & 0xFF) + 10);
  g_assert_true (is_background (pixel (surface, (int) tsl_render_time_to_x (&options, (double) span * 0.35), y)));

  cairo_surface_destroy (surface);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/render/spike-survives-zoom-out", test_spike_survives);
  g_test_add_func ("/render/ranges-and-stacks", test_ranges_and_stacks);
  return g_test_run ();
}
