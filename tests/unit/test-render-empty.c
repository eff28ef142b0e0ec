/* A trace whose events have no place on the timeline (Chrome metadata and
 * object snapshots): the picture says so instead of ruling a time axis of
 * zero length. */

#include <string.h>

#include "tsl-reader.h"
#include "tsl-render.h"
#include "tsl-render-private.h"

#define WIDTH 800
#define HEIGHT 400

static const char metadata_only[] =
  "{\"traceEvents\":["
  "{\"ph\":\"M\",\"pid\":1,\"tid\":2,\"ts\":0,\"name\":\"process_name\",\"args\":{\"name\":\"GPU Process\"}},"
  "{\"ph\":\"M\",\"pid\":1,\"tid\":2,\"ts\":0,\"name\":\"thread_name\",\"args\":{\"name\":\"IO\"}},"
  "{\"ph\":\"O\",\"pid\":1,\"tid\":2,\"ts\":5443650636079,\"id\":\"0x1\",\"name\":\"cc::Picture\",\"args\":{\"snapshot\":{}}},"
  "{\"ph\":\"O\",\"pid\":1,\"tid\":2,\"ts\":5443672642443,\"id\":\"0x2\",\"name\":\"cc::Picture\",\"args\":{\"snapshot\":{}}}"
  "]}";

static const char one_slice[] =
  "[{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":10,\"dur\":5,\"name\":\"work\"}]";

static TslSnapshot *
read_snapshot (const char *text)
{
  g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_TIME, 2000, 0x5EED);
  g_autoptr(TslReader) reader = tsl_reader_new (trace, "t.json");
  g_autoptr(GError) error = NULL;

  g_assert_true (tsl_reader_feed (reader, (const guint8 *) text, strlen (text), &error));
  g_assert_true (tsl_reader_finish (reader, &error));
  g_assert_no_error (error);
  return tsl_snapshot_new (trace);
}

static gboolean
is_ink (cairo_surface_t *surface,
        int              x,
        int              y)
{
  const unsigned char *data = cairo_image_surface_get_data (surface);
  guint32 p = *(const guint32 *) (data + y * cairo_image_surface_get_stride (surface) + x * 4);
  int r = (p >> 16) & 0xFF, g = (p >> 8) & 0xFF, b = p & 0xFF;

  /* Text and ticks are dark; the background, grid and gutter are light. */
  return r < 160 && g < 160 && b < 160;
}

static guint
count_ink (cairo_surface_t *surface,
           int              y0,
           int              y1)
{
  guint n = 0;

  for (int y = y0; y < y1; y++)
    for (int x = 0; x < WIDTH; x++)
      n += is_ink (surface, x, y);
  return n;
}

static cairo_surface_t *
paint (TslSnapshot *snapshot,
       gboolean     with_ranges)
{
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, WIDTH, HEIGHT);
  cairo_t *cr = cairo_create (surface);
  TslRenderOptions options;

  tsl_render_options_init (&options, snapshot, WIDTH, HEIGHT);
  if (with_ranges)
    {
      options.has_a = options.has_b = TRUE;
      options.a_start_ns = options.view_start_ns;
      options.a_end_ns = options.view_end_ns;
      options.b_start_ns = options.view_start_ns;
      options.b_end_ns = options.view_end_ns;
    }
  g_assert_true (tsl_render_paint (cr, snapshot, &options));
  g_assert_cmpint (cairo_status (cr), ==, CAIRO_STATUS_SUCCESS);
  cairo_destroy (cr);
  cairo_surface_flush (surface);
  return surface;
}

static void
test_metadata_only (void)
{
  g_autoptr(TslSnapshot) empty = read_snapshot (metadata_only);
  g_autoptr(TslSnapshot) full = read_snapshot (one_slice);
  cairo_surface_t *surface;

  g_assert_cmpuint (tsl_snapshot_get_n_tracks (empty), ==, 0);
  g_assert_cmpuint (tsl_snapshot_get_events (empty), ==, 4);

  /* The ruler's ticks are dark in a trace with a track ... */
  surface = paint (full, FALSE);
  g_assert_cmpuint (count_ink (surface, 0, TSL_RENDER_RULER_HEIGHT), >, 20);
  cairo_surface_destroy (surface);

  /* ... and absent without one, where the middle says why; ranges there
   * (none can be selected, but a caller may pass them) draw nothing. */
  for (guint ranges = 0; ranges < 2; ranges++)
    {
      surface = paint (empty, ranges);
      g_assert_cmpuint (count_ink (surface, 0, TSL_RENDER_RULER_HEIGHT), ==, 0);
      g_assert_cmpuint (count_ink (surface, HEIGHT / 2 - 30, HEIGHT / 2 + 30), >, 200);
      g_assert_cmpuint (count_ink (surface, HEIGHT / 2 + 60, HEIGHT), ==, 0);
      cairo_surface_destroy (surface);
    }
}

/* The line under "Nothing to draw" counts in the plural form its number
 * takes ("1 events read" before). */
static void
test_empty_text (void)
{
  g_autofree char *one = _tsl_render_empty_text (1);
  g_autofree char *two = _tsl_render_empty_text (2);
  g_autofree char *none = _tsl_render_empty_text (0);

  g_assert_cmpstr (one, ==, "1 event read, none with a place on the timeline");
  g_assert_cmpstr (two, ==, "2 events read, none with a place on the timeline");
  g_assert_cmpstr (none, ==, "0 events read, none with a place on the timeline");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/render-empty/metadata-only", test_metadata_only);
  g_test_add_func ("/render-empty/text", test_empty_text);
  return g_test_run ();
}
