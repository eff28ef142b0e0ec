/* test-render.c: the painter, checked pixel by pixel on image surfaces
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tsl-reader.h"
#include "tsl-render.h"
#include "tsl-search.h"

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

static gboolean
same_pixels (cairo_surface_t *a,
             cairo_surface_t *b)
{
  int stride = cairo_image_surface_get_stride (a);

  g_assert_cmpint (stride, ==, cairo_image_surface_get_stride (b));
  return memcmp (cairo_image_surface_get_data (a), cairo_image_surface_get_data (b),
                 (gsize) stride * HEIGHT) == 0;
}

/* The window keeps the base (tracks) and draws ranges and the crosshair
 * over it: base + overlay must be the picture tsl_render_paint() draws, and
 * the base must not depend on what the overlay draws. */
static void
test_base_and_overlay (void)
{
  g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_TIME, 200, 7);
  g_autoptr(TslSnapshot) snapshot = NULL;
  guint thread = tsl_trace_ensure_track (trace, TSL_TRACK_THREAD, 1, 1, NULL);
  guint counter = tsl_trace_ensure_track (trace, TSL_TRACK_COUNTER, 1, 0, "load");
  TslRenderOptions o, plain, other;
  cairo_surface_t *full, *composed, *base, *bare;
  cairo_t *cr;
  gint64 span;
  g_autofree char *copy = NULL;
  gint64 pids[2] = { 5, 6 }, pids_copy[2] = { 5, 6 };

  for (guint i = 0; i < 10000; i++)
    {
      if (tsl_trace_offer (trace, thread, (gint64) i * 1000, NAN))
        tsl_trace_set_label (trace, thread, i < 5000 ? "main;parse" : "main;render");
      tsl_trace_offer (trace, counter, (gint64) i * 1000, sin (i / 300.0) * 50 + 60);
    }
  snapshot = tsl_snapshot_new (trace);
  span = tsl_snapshot_get_span (snapshot);
  tsl_render_options_init (&o, snapshot, WIDTH, HEIGHT);
  o.has_a = TRUE;
  o.a_start_ns = span / 10;
  o.a_end_ns = span / 5;
  o.has_b = TRUE;
  o.b_start_ns = span / 2;
  o.b_end_ns = span * 3 / 5;
  o.has_crosshair = TRUE;
  o.crosshair_x = WIDTH * 0.7;

  full = paint (snapshot, &o);
  composed = cairo_image_surface_create (CAIRO_FORMAT_RGB24, WIDTH, HEIGHT);
  cr = cairo_create (composed);
  g_assert_true (tsl_render_paint_base (cr, snapshot, &o));
  tsl_render_paint_overlay (cr, snapshot, &o);
  cairo_destroy (cr);
  cairo_surface_flush (composed);
  g_assert_true (same_pixels (full, composed));

  /* The base ignores the ranges and crosshair it is given... */
  base = cairo_image_surface_create (CAIRO_FORMAT_RGB24, WIDTH, HEIGHT);
  cr = cairo_create (base);
  tsl_render_paint_base (cr, snapshot, &o);
  cairo_destroy (cr);
  cairo_surface_flush (base);
  plain = o;
  plain.has_a = plain.has_b = plain.has_crosshair = FALSE;
  bare = paint (snapshot, &plain);
  g_assert_true (same_pixels (base, bare));
  /* ...and the overlay draws something. */
  g_assert_false (same_pixels (base, full));

  /* What the base depends on, by value. */
  other = o;
  other.has_a = FALSE;
  other.b_end_ns = span;
  other.crosshair_x = 10;
  other.has_crosshair = FALSE;
  g_assert_true (tsl_render_options_same_base (&o, &other));
  o.highlight = "parse";
  copy = g_strdup ("parse");
  other.highlight = copy;
  o.collapsed = pids;
  o.n_collapsed = 2;
  other.collapsed = pids_copy;
  other.n_collapsed = 2;
  g_assert_true (tsl_render_options_same_base (&o, &other));
#define CHANGED(field, value) G_STMT_START { \
    TslRenderOptions changed = o; \
    changed.field = value; \
    g_assert_false (tsl_render_options_same_base (&o, &changed)); \
  } G_STMT_END
  CHANGED (view_start_ns, 1);
  CHANGED (view_end_ns, span / 2);
  CHANGED (width, WIDTH - 1);
  CHANGED (label_width, 90);
  CHANGED (height, HEIGHT + 1);
  CHANGED (scroll_y, 3);
  CHANGED (dark, TRUE);
  CHANGED (highlight, "render");
  CHANGED (highlight, NULL);
  CHANGED (highlight_exact, TRUE);
  CHANGED (highlight_track, "main");
  CHANGED (highlight_pid, 9);
  CHANGED (has_mark, TRUE);
  CHANGED (mark_track, "main");
  CHANGED (mark_pid, 2);
  CHANGED (mark_depth, 1);
  CHANGED (mark_start_ns, 5);
  CHANGED (mark_end_ns, 5);
  CHANGED (title, "t");
  CHANGED (n_collapsed, 1);
  CHANGED (draw_note, TRUE);
  CHANGED (counter_height, 100);
  CHANGED (wall_clock_ns, 1);
#undef CHANGED
  pids_copy[1] = 7;
  g_assert_false (tsl_render_options_same_base (&o, &other));

  cairo_surface_destroy (full);
  cairo_surface_destroy (composed);
  cairo_surface_destroy (base);
  cairo_surface_destroy (bare);
}

/* A thread whose calls nest three deep: 8 back-to-back `main` calls of
 * 1 ms, each holding `tokenize`, then `parse`, which holds `gc`. 34 events
 * with the two names. */
static TslTrace *
read_nested (gboolean exact)
{
  g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_TIME, 2000, 0x5EED);
  g_autoptr(TslReader) reader = tsl_reader_new (trace, "nested.json");
  g_autoptr(GString) json = g_string_new ("[\n"
    "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"app\"}},\n"
    "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"main\"}}");
  g_autoptr(GError) error = NULL;

  for (int i = 0; i < 8; i++)
    g_string_append_printf (json,
      ",\n{\"ph\":\"X\",\"name\":\"main\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":1000}"
      ",\n{\"ph\":\"X\",\"name\":\"tokenize\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":300}"
      ",\n{\"ph\":\"X\",\"name\":\"parse\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":690}"
      ",\n{\"ph\":\"X\",\"name\":\"gc\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":200}",
      i * 1000, i * 1000, i * 1000 + 300, i * 1000 + 500);
  g_string_append (json, "\n]\n");

  if (exact)
    tsl_trace_record_exact (trace, 100000, 1000000);
  g_assert_true (tsl_reader_feed (reader, (const guint8 *) json->str, json->len, &error));
  g_assert_true (tsl_reader_finish (reader, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (tsl_trace_get_events (trace), ==, 34);
  return g_steal_pointer (&trace);
}

#define ROW_Y(d) (TSL_RENDER_RULER_HEIGHT + 24 + (d) * 15 + 7)

/* Issue 18: a kept `main` sample has no frame at depth 1; it must not
 * paint "nothing" over its whole span and hide the children kept beside it. */
static void
test_nested_sampled (void)
{
  g_autoptr(TslTrace) trace = read_nested (FALSE);
  g_autoptr(TslSnapshot) snapshot = tsl_snapshot_new (trace);
  cairo_surface_t *surface;
  TslRenderOptions options;

  g_assert_false (tsl_snapshot_get_track (snapshot, 0)->exact);
  tsl_render_options_init (&options, snapshot, WIDTH, HEIGHT);
  surface = paint (snapshot, &options);

  for (int i = 0; i < 8; i++)
    {
      int parse_x = (int) tsl_render_time_to_x (&options, (i * 1000 + 800) * 1000.0);
      int gc_x = (int) tsl_render_time_to_x (&options, (i * 1000 + 600) * 1000.0);

      g_assert_false (is_background (pixel (surface, parse_x, ROW_Y (1))));
      g_assert_false (is_background (pixel (surface, gc_x, ROW_Y (2))));
      /* No fourth level. */
      g_assert_true (is_background (pixel (surface, gc_x, ROW_Y (3))));
    }
  cairo_surface_destroy (surface);
}

/* Exact view: every slice, nested children under each parent, and two
 * back-to-back `main` calls drawn as two bars with a gap between them. */
static void
test_nested_exact (void)
{
  g_autoptr(TslTrace) trace = read_nested (TRUE);
  g_autoptr(TslSnapshot) snapshot = tsl_snapshot_new (trace);
  const TslSnapshotTrack *track = tsl_snapshot_get_track (snapshot, 0);
  cairo_surface_t *surface;
  TslRenderOptions options;
  guint depths[3] = { 0 };

  g_assert_true (tsl_snapshot_get_exact (snapshot, NULL, NULL));
  g_assert_true (track->exact);
  g_assert_cmpuint (track->n_slices, ==, 32);
  g_assert_cmpuint (track->max_depth, ==, 3);
  for (guint i = 0; i < track->n_slices; i++)
    {
      const TslSnapshotSlice *s = &track->slices[i];
      const char *name = tsl_snapshot_get_frame_name (snapshot, s->frame);

      g_assert_cmpuint (s->depth, <, 3);
      depths[s->depth]++;
      if (i > 0)
        g_assert_cmpint (s->start_ns, >=, track->slices[i - 1].start_ns);
      if (g_str_equal (name, "main"))
        g_assert_cmpint (s->end_ns - s->start_ns, ==, 1000000);
      if (g_str_equal (name, "gc"))
        g_assert_cmpuint (s->depth, ==, 2);
    }
  g_assert_cmpuint (depths[0], ==, 8);
  g_assert_cmpuint (depths[1], ==, 16);
  g_assert_cmpuint (depths[2], ==, 8);

  /* Zoomed to two calls: 1 ms is ~400 px. */
  tsl_render_options_init (&options, snapshot, WIDTH, HEIGHT);
  options.view_start_ns = 2000000;
  options.view_end_ns = 4000000;
  surface = paint (snapshot, &options);
  {
    int boundary = (int) round (tsl_render_time_to_x (&options, 3000000.0));
    int gap = 0;

    for (int x = boundary - 2; x <= boundary + 1; x++)
      gap += is_background (pixel (surface, x, ROW_Y (0)));
    g_assert_cmpint (gap, >=, 1);
    g_assert_false (is_background (pixel (surface, boundary - 100, ROW_Y (0))));
    g_assert_false (is_background (pixel (surface, boundary + 100, ROW_Y (0))));
    g_assert_false (is_background (pixel (surface, (int) tsl_render_time_to_x (&options, 3100000.0), ROW_Y (1))));
    g_assert_false (is_background (pixel (surface, (int) tsl_render_time_to_x (&options, 3600000.0), ROW_Y (2))));
  }
  cairo_surface_destroy (surface);

  /* Self time and nesting, for the details of a clicked slice. */
  for (guint i = 0; i < track->n_slices; i++)
    {
      const TslSnapshotSlice *s = &track->slices[i];
      const char *name = tsl_snapshot_get_frame_name (snapshot, s->frame);
      guint parent = tsl_snapshot_slice_parent (track, i);

      if (g_str_equal (name, "main"))
        {
          g_assert_cmpint (tsl_snapshot_slice_self_time (track, i), ==, 10000);
          g_assert_cmpuint (parent, ==, G_MAXUINT);
        }
      else if (g_str_equal (name, "parse"))
        g_assert_cmpint (tsl_snapshot_slice_self_time (track, i), ==, 490000);
      else if (g_str_equal (name, "gc"))
        {
          g_assert_cmpint (tsl_snapshot_slice_self_time (track, i), ==, 200000);
          g_assert_cmpstr (tsl_snapshot_get_frame_name (snapshot, track->slices[parent].frame), ==, "parse");
          g_assert_cmpint (track->slices[parent].start_ns, ==, s->start_ns - 200000);
        }
    }

  /* Hit test: the pointer over gc finds that slice. */
  {
    TslRenderHit hit;
    double x = tsl_render_time_to_x (&options, 3600000.0);

    g_assert_true (tsl_render_hit_test (snapshot, &options, x, ROW_Y (2), &hit));
    g_assert_nonnull (hit.slice);
    g_assert_cmpstr (tsl_snapshot_get_frame_name (snapshot, hit.slice->frame), ==, "gc");
    g_assert_cmpint (hit.slice->start_ns, ==, 3500000);
  }
}

/* Two threads of `calls` calls; with `flows` arrows from call i of the
 * first to call i of the second. */
static TslSnapshot *
flow_snapshot (guint calls,
               guint flows)
{
  g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_TIME, 64, 1);
  guint t[2];

  tsl_trace_record_exact (trace, TSL_EXACT_PER_TRACK, TSL_EXACT_TOTAL);
  for (guint k = 0; k < 2; k++)
    {
      t[k] = tsl_trace_ensure_track (trace, TSL_TRACK_THREAD, 1, 1 + k, NULL);
      tsl_trace_track_set_unit (trace, t[k], "ns");
      for (guint i = 0; i < calls; i++)
        if (tsl_trace_offer (trace, t[k], (gint64) i * 1000 + k * 300, 500))
          tsl_trace_set_label (trace, t[k], "call");
    }
  for (guint i = 0; i < flows; i++)
    {
      tsl_trace_record_flow (trace, t[0], i, (gint64) i * 1000, 0, TSL_FLOW_BIND_SLICE, TSL_FLOW_OUT);
      tsl_trace_record_flow (trace, t[1], i, (gint64) i * 1000 + 300, 0, TSL_FLOW_BIND_SLICE, TSL_FLOW_IN);
    }
  return tsl_snapshot_new (trace);
}

/* Pixels that differ between two paintings in [x0, x1) × [y0, y1). */
static guint
count_changed (cairo_surface_t *a,
               cairo_surface_t *b,
               int              x0,
               int              x1,
               int              y0,
               int              y1)
{
  guint n = 0;

  for (int y = y0; y < y1; y++)
    for (int x = x0; x < x1; x++)
      n += pixel (a, x, y) != pixel (b, x, y);
  return n;
}

/* Three threads of four calls (call i of thread k at i µs + k × 300 ns,
 * 500 ns long): a chain of two flows, call 0 of thread 0 → call 0 of
 * thread 1 → call 0 of thread 2, and an unrelated flow from call 2 of
 * thread 0 to call 2 of thread 1. */
static TslSnapshot *
chain_snapshot (void)
{
  g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_TIME, 64, 1);
  guint t[3];

  tsl_trace_record_exact (trace, TSL_EXACT_PER_TRACK, TSL_EXACT_TOTAL);
  for (guint k = 0; k < 3; k++)
    {
      t[k] = tsl_trace_ensure_track (trace, TSL_TRACK_THREAD, 1, 1 + k, NULL);
      tsl_trace_track_set_unit (trace, t[k], "ns");
      for (guint i = 0; i < 4; i++)
        if (tsl_trace_offer (trace, t[k], (gint64) i * 1000 + k * 300, 500))
          tsl_trace_set_label (trace, t[k], "call");
    }
  tsl_trace_record_flow (trace, t[0], 100, 0, 0, TSL_FLOW_BIND_SLICE, TSL_FLOW_OUT);
  tsl_trace_record_flow (trace, t[1], 100, 300, 0, TSL_FLOW_BIND_SLICE, TSL_FLOW_IN);
  tsl_trace_record_flow (trace, t[1], 101, 300, 0, TSL_FLOW_BIND_SLICE, TSL_FLOW_OUT);
  tsl_trace_record_flow (trace, t[2], 101, 600, 0, TSL_FLOW_BIND_SLICE, TSL_FLOW_IN);
  tsl_trace_record_flow (trace, t[0], 102, 2000, 0, TSL_FLOW_BIND_SLICE, TSL_FLOW_OUT);
  tsl_trace_record_flow (trace, t[1], 102, 2300, 0, TSL_FLOW_BIND_SLICE, TSL_FLOW_IN);
  return tsl_snapshot_new (trace);
}

/* Selects the call of the snapshot's track `track` starting at start_ns. */
static void
select_slice (TslSnapshot      *snapshot,
              TslRenderOptions *options,
              guint             track,
              gint64            start_ns)
{
  const TslSnapshotTrack *t = tsl_snapshot_get_track (snapshot, track);

  options->has_selection = TRUE;
  options->selection_track = t->name;
  options->selection_pid = t->pid;
  options->selection_depth = 0;
  options->selection_start_ns = start_ns;
  options->selection_end_ns = start_ns + 500;
}

/* The arrows tsl_render_flows_shown() picks, as "FROM_NS->TO_NS" each (a
 * flow leaves its slice at the slice's end). */
static GString *
shown_flows (TslSnapshot            *snapshot,
             const TslRenderOptions *options)
{
  g_autofree char *note = NULL;
  g_autoptr(GArray) shown = tsl_render_flows_shown (snapshot, options, &note);
  const TslSnapshotFlow *flows;
  GString *out = g_string_new (NULL);
  guint n = 0;

  flows = tsl_snapshot_get_flows (snapshot, &n);
  g_assert_null (note);
  for (guint i = 0; i < shown->len; i++)
    {
      const TslSnapshotFlow *f = &flows[g_array_index (shown, guint, i)];

      g_string_append_printf (out, "%s%" G_GINT64_FORMAT "->%" G_GINT64_FORMAT,
                              i ? " " : "", f->from_ns, f->to_ns);
    }
  return out;
}

/* Chrome writes several instants at one microsecond and depth
 * ("SequenceManager PostTask", then "ScheduleWork", which has the flows):
 * the selection tells them apart by name, so the clicked one's flows are
 * drawn, not the first's (none). */
static void
test_flows_of_same_time_instants (void)
{
  g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_TIME, 64, 1);
  g_autoptr(TslSnapshot) snapshot = NULL;
  const TslSnapshotTrack *track;
  const TslSnapshotFlow *flows;
  TslRenderOptions options;
  const char *bound, *other;
  GString *text;
  guint t[2], n = 0;

  tsl_trace_record_exact (trace, TSL_EXACT_PER_TRACK, TSL_EXACT_TOTAL);
  for (guint k = 0; k < 2; k++)
    {
      t[k] = tsl_trace_ensure_track (trace, TSL_TRACK_THREAD, 1, 1 + k, NULL);
      tsl_trace_track_set_unit (trace, t[k], "ns");
    }
  if (tsl_trace_offer (trace, t[0], 0, 1000))
    tsl_trace_set_label (trace, t[0], "RunTask");
  if (tsl_trace_offer (trace, t[0], 400, 0))
    tsl_trace_set_label (trace, t[0], "RunTask;SequenceManager PostTask");
  if (tsl_trace_offer (trace, t[0], 400, 0))
    tsl_trace_set_label (trace, t[0], "RunTask;ScheduleWork");
  if (tsl_trace_offer (trace, t[1], 600, 100))
    tsl_trace_set_label (trace, t[1], "DoWork");
  tsl_trace_record_flow (trace, t[0], 7, 400, 1, TSL_FLOW_BIND_ENCLOSING, TSL_FLOW_OUT);
  tsl_trace_record_flow (trace, t[1], 7, 600, 0, TSL_FLOW_BIND_SLICE, TSL_FLOW_IN);
  snapshot = tsl_snapshot_new (trace);

  flows = tsl_snapshot_get_flows (snapshot, &n);
  g_assert_cmpuint (n, ==, 1);
  track = tsl_snapshot_get_track (snapshot, flows[0].from_track);
  g_assert_cmpuint (track->slices[flows[0].from_slice].depth, ==, 1);
  g_assert_cmpint (track->slices[flows[0].from_slice].start_ns, ==, track->slices[flows[0].from_slice].end_ns);
  bound = tsl_snapshot_get_frame_name (snapshot, track->slices[flows[0].from_slice].frame);
  other = g_strcmp0 (bound, "ScheduleWork") == 0 ? "SequenceManager PostTask" : "ScheduleWork";

  tsl_render_options_init (&options, snapshot, WIDTH, HEIGHT);
  options.has_selection = TRUE;
  options.selection_track = track->name;
  options.selection_pid = track->pid;
  options.selection_depth = 1;
  options.selection_start_ns = track->slices[flows[0].from_slice].start_ns;
  options.selection_end_ns = options.selection_start_ns;

  options.selection_name = bound;
  text = shown_flows (snapshot, &options);
  g_assert_cmpstr (text->str, ==, "400->600");
  g_string_free (text, TRUE);
  options.selection_name = other;
  text = shown_flows (snapshot, &options);
  g_assert_cmpstr (text->str, ==, "");
  g_string_free (text, TRUE);
}

/* Issue 32, item 3: flows on demand. By default (tsl_render_options_init)
 * none without a selection, and the whole chain of the selected slice in
 * both directions (not the unrelated flow); TSL_RENDER_FLOWS_ALL draws
 * every one in view. Painting follows: the default picture has no arrow. */
static void
test_flows_on_demand (void)
{
  g_autoptr(TslSnapshot) snapshot = chain_snapshot ();
  g_autoptr(TslSnapshot) bare = flow_snapshot (10, 0);
  g_autoptr(TslSnapshot) with = flow_snapshot (10, 10);
  TslRenderOptions options;
  GString *text;
  guint n = 0;
  cairo_surface_t *a, *b;
  double top0, top1, left;

  tsl_snapshot_get_flows (snapshot, &n);
  g_assert_cmpuint (n, ==, 3);
  tsl_render_options_init (&options, snapshot, WIDTH, HEIGHT);
  g_assert_cmpint (options.flows, ==, TSL_RENDER_FLOWS_SELECTED);

  text = shown_flows (snapshot, &options);
  g_assert_cmpstr (text->str, ==, "");
  g_string_free (text, TRUE);

  /* The middle of the chain reaches back and forward; either end reaches
   * the whole chain. */
  for (guint k = 0; k < 3; k++)
    {
      g_auto(GStrv) parts = NULL;

      select_slice (snapshot, &options, k, k * 300);
      text = shown_flows (snapshot, &options);
      parts = g_strsplit (text->str, " ", -1);
      g_assert_cmpuint (g_strv_length (parts), ==, 2);
      g_assert_nonnull (strstr (text->str, "500->300"));
      g_assert_nonnull (strstr (text->str, "800->600"));
      g_assert_null (strstr (text->str, "2500->2300"));
      g_string_free (text, TRUE);
    }
  /* A slice with no flow: none; one with its own flow: that one. */
  select_slice (snapshot, &options, 2, 3600);
  text = shown_flows (snapshot, &options);
  g_assert_cmpstr (text->str, ==, "");
  g_string_free (text, TRUE);
  select_slice (snapshot, &options, 1, 2300);
  text = shown_flows (snapshot, &options);
  g_assert_cmpstr (text->str, ==, "2500->2300");
  g_string_free (text, TRUE);

  options.has_selection = FALSE;
  options.flows = TSL_RENDER_FLOWS_ALL;
  text = shown_flows (snapshot, &options);
  g_assert_nonnull (strstr (text->str, "500->300"));
  g_assert_nonnull (strstr (text->str, "800->600"));
  g_assert_nonnull (strstr (text->str, "2500->2300"));
  g_string_free (text, TRUE);
  /* In view only: a window over the unrelated flow alone. */
  options.view_start_ns = 1900;
  options.view_end_ns = 3000;
  text = shown_flows (snapshot, &options);
  g_assert_cmpstr (text->str, ==, "2500->2300");
  g_string_free (text, TRUE);

  /* The default picture has no arrow; the selection's has. */
  tsl_render_options_init (&options, with, WIDTH, HEIGHT);
  a = paint (bare, &options);
  b = paint (with, &options);
  left = tsl_render_label_width (&options);
  top0 = tsl_render_header_height (&options) + tsl_render_track_top (with, &options, 0);
  top1 = tsl_render_header_height (&options) + tsl_render_track_top (with, &options, 1);
  g_assert_cmpuint (count_changed (a, b, (int) left + 1, WIDTH, (int) top0 + 16, (int) top1 - 1), ==, 0);
  cairo_surface_destroy (b);
  select_slice (with, &options, 0, 4000);
  b = paint (with, &options);
  g_assert_cmpuint (count_changed (a, b, (int) left + 1, WIDTH, (int) top0 + 16, (int) top1 - 1), >, 0);
  cairo_surface_destroy (a);
  cairo_surface_destroy (b);
}

/* One cap, one note: past TSL_RENDER_MAX_FLOWS in view no arrow and the
 * same note whatever the picture's height or scroll, so that a window
 * showing a few tracks and an export of every track agree (the window drew
 * 21,161 arrows where the PNG said to zoom in). */
static void
test_flows_cap (void)
{
  g_autoptr(TslSnapshot) many = flow_snapshot (12000, 12000);
  g_autoptr(TslSnapshot) few = flow_snapshot (5000, 5000);
  const double heights[] = { 60, HEIGHT, 20000 };
  const double scrolls[] = { 0, 400 };

  for (guint h = 0; h < G_N_ELEMENTS (heights); h++)
    for (guint s = 0; s < G_N_ELEMENTS (scrolls); s++)
      {
        TslRenderOptions options;
        g_autofree char *note = NULL;
        g_autoptr(GArray) shown = NULL;

        tsl_render_options_init (&options, many, WIDTH, heights[h]);
        options.flows = TSL_RENDER_FLOWS_ALL;
        options.scroll_y = scrolls[s];
        shown = tsl_render_flows_shown (many, &options, &note);
        g_assert_cmpuint (shown->len, ==, 0);
        g_assert_cmpstr (note, ==, "12000 flow arrows in view, more than 10000: zoom in to draw them");
        g_clear_pointer (&shown, g_array_unref);
        g_clear_pointer (&note, g_free);

        tsl_render_options_init (&options, few, WIDTH, heights[h]);
        options.flows = TSL_RENDER_FLOWS_ALL;
        options.scroll_y = scrolls[s];
        shown = tsl_render_flows_shown (few, &options, &note);
        g_assert_cmpuint (shown->len, ==, 5000);
        g_assert_null (note);
      }
}

/* export --view --tracks: a snapshot of the matching tracks alone, their
 * slices and names intact, with the flows between two kept tracks. */
static void
test_filtered_snapshot (void)
{
  g_autoptr(TslSnapshot) snapshot = chain_snapshot ();
  g_autoptr(TslSnapshot) all = tsl_snapshot_new_filtered (snapshot, "*");
  g_autoptr(TslSnapshot) none = tsl_snapshot_new_filtered (snapshot, "no such track");
  const TslSnapshotTrack *last = tsl_snapshot_get_track (snapshot, 2);
  g_autoptr(TslSnapshot) one = NULL;
  g_autofree char *pattern = NULL;
  guint n = 0;

  g_assert_cmpuint (tsl_snapshot_get_n_tracks (all), ==, 3);
  tsl_snapshot_get_flows (all, &n);
  g_assert_cmpuint (n, ==, 3);
  for (guint t = 0; t < 3; t++)
    {
      const TslSnapshotTrack *a = tsl_snapshot_get_track (snapshot, t);
      const TslSnapshotTrack *b = tsl_snapshot_get_track (all, t);

      g_assert_cmpstr (a->name, ==, b->name);
      g_assert_cmpuint (a->n_slices, ==, b->n_slices);
      g_assert_cmpuint (a->n_samples, ==, b->n_samples);
      for (guint s = 0; s < a->n_samples; s++)
        g_assert_cmpstr (tsl_snapshot_get_frame_name (snapshot, a->samples[s].frames[0]), ==,
                         tsl_snapshot_get_frame_name (all, b->samples[s].frames[0]));
    }
  g_assert_cmpuint (tsl_snapshot_get_n_tracks (none), ==, 0);
  tsl_snapshot_get_flows (none, &n);
  g_assert_cmpuint (n, ==, 0);

  /* The last thread alone: no flow has both ends on it. */
  pattern = g_strdup (last->name);
  one = tsl_snapshot_new_filtered (snapshot, pattern);
  g_assert_cmpuint (tsl_snapshot_get_n_tracks (one), >=, 1);
  g_assert_cmpstr (tsl_snapshot_get_track (one, 0)->name, ==, last->name);
  tsl_snapshot_get_flows (one, &n);
  g_assert_cmpuint (n, ==, 0);
}

/* Flow arrows: curves between the bound slices, lines when there are many
 * (written into the pixels), and past 10,000 in view a note instead; drawn
 * only between the tracks' rows and the label column's edge. */
static void
test_flow_arrows (void)
{
  const guint counts[] = { 10, 5000, 12000 };

  for (guint c = 0; c < G_N_ELEMENTS (counts); c++)
    {
      g_autoptr(TslSnapshot) bare = flow_snapshot (counts[c], 0);
      g_autoptr(TslSnapshot) with = flow_snapshot (counts[c], counts[c]);
      cairo_surface_t *a, *b;
      TslRenderOptions options;
      double top0, top1, left;
      guint n_flows = 0, in_gap, in_labels, in_note;

      tsl_snapshot_get_flows (with, &n_flows);
      g_assert_cmpuint (n_flows, ==, counts[c]);
      tsl_render_options_init (&options, with, WIDTH, HEIGHT);
      options.flows = TSL_RENDER_FLOWS_ALL;
      a = paint (bare, &options);
      b = paint (with, &options);
      left = tsl_render_label_width (&options);
      top0 = tsl_render_header_height (&options) + tsl_render_track_top (with, &options, 0);
      top1 = tsl_render_header_height (&options) + tsl_render_track_top (with, &options, 1);
      /* Below the first track's row, above the second's: only arrows. */
      in_gap = count_changed (a, b, (int) left + 1, WIDTH, (int) top0 + 16, (int) top1 - 1);
      in_labels = count_changed (a, b, 0, (int) left - 1, 0, HEIGHT);
      in_note = count_changed (a, b, WIDTH - 300, WIDTH, (int) tsl_render_header_height (&options),
                               (int) tsl_render_header_height (&options) + 24);
      if (counts[c] <= 10000)
        g_assert_cmpuint (in_gap, >, 0);
      else
        {
          g_assert_cmpuint (in_gap, ==, 0);
          g_assert_cmpuint (in_note, >, 0);
        }
      g_assert_cmpuint (in_labels, ==, 0);
      cairo_surface_destroy (a);
      cairo_surface_destroy (b);
    }
}

/* Issue 32: two threads, the first `levels` deep (calls of 1 ms nested
 * 10 µs inside each other), the second flat; with `flow`, an arrow from the
 * deepest slice of the first call to the second thread's first call. */
static TslSnapshot *
deep_snapshot (guint    levels,
               gboolean flow)
{
  g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_TIME, 64, 1);
  g_autoptr(GString) label = g_string_new (NULL);
  guint deep = tsl_trace_ensure_track (trace, TSL_TRACK_THREAD, 1, 1, NULL);
  guint flat = tsl_trace_ensure_track (trace, TSL_TRACK_THREAD, 1, 2, NULL);

  tsl_trace_record_exact (trace, TSL_EXACT_PER_TRACK, TSL_EXACT_TOTAL);
  tsl_trace_track_set_unit (trace, deep, "ns");
  tsl_trace_track_set_unit (trace, flat, "ns");
  for (gint64 c = 0; c < 4; c++)
    {
      g_string_truncate (label, 0);
      for (guint d = 0; d < levels; d++)
        {
          g_string_append_printf (label, "%sf%u", d ? ";" : "", d);
          if (tsl_trace_offer (trace, deep, c * 1000000 + d * 10000, 1000000 - 20000.0 * d - 1))
            tsl_trace_set_label (trace, deep, label->str);
        }
      if (tsl_trace_offer (trace, flat, c * 1000000 + 500000, 100000))
        tsl_trace_set_label (trace, flat, "leaf");
    }
  if (flow)
    {
      tsl_trace_record_flow (trace, deep, 7, (levels - 1) * 10000, levels - 1, TSL_FLOW_BIND_SLICE, TSL_FLOW_OUT);
      tsl_trace_record_flow (trace, flat, 7, 500000, 0, TSL_FLOW_BIND_SLICE, TSL_FLOW_IN);
    }
  return tsl_snapshot_new (trace);
}

/* Issue 32: no level is clamped away. A thread 12 levels deep is 12 rows
 * tall and draws its 12th level; hit tests find slices there; a flow
 * leaves its slice's own row. Capped with max_rows, the track says how
 * many levels it hides and marks where. */
static void
test_every_level (void)
{
  g_autoptr(TslSnapshot) snapshot = deep_snapshot (12, FALSE);
  g_autoptr(TslSnapshot) flows = deep_snapshot (12, TRUE);
  const TslSnapshotTrack *track = tsl_snapshot_get_track (snapshot, 0);
  cairo_surface_t *surface, *with;
  TslRenderOptions options;
  TslRenderHit hit;
  double x = 0, tail_x;
  guint n_flows = 0;

  g_assert_true (track->exact);
  g_assert_cmpuint (track->max_depth, ==, 12);
  tsl_render_options_init (&options, snapshot, WIDTH, HEIGHT);
  options.view_start_ns = 0;
  options.view_end_ns = 2000000;
  options.flows = TSL_RENDER_FLOWS_ALL;
  g_assert_cmpfloat (tsl_render_track_height (snapshot, &options, 0), ==, 12 * 15 + 6);
  g_assert_cmpfloat (tsl_render_track_top (snapshot, &options, 1), ==, 24 + 12 * 15 + 6);

  surface = paint (snapshot, &options);
  for (int d = 0; d < 12; d++)
    {
      /* Inside every level of the first call, and of the second. */
      x = tsl_render_time_to_x (&options, 500000.0);
      g_assert_false (is_background (pixel (surface, (int) x, ROW_Y (d))));
      g_assert_false (is_background (pixel (surface, (int) tsl_render_time_to_x (&options, 1500000.0), ROW_Y (d))));
    }
  g_assert_true (tsl_render_hit_test (snapshot, &options, x, ROW_Y (11), &hit));
  g_assert_nonnull (hit.slice);
  g_assert_cmpuint (hit.slice->depth, ==, 11);
  g_assert_cmpstr (tsl_snapshot_get_frame_name (snapshot, hit.slice->frame), ==, "f11");

  /* The flow leaves the 12th row, where its slice is, not the 8th. */
  tsl_snapshot_get_flows (flows, &n_flows);
  g_assert_cmpuint (n_flows, ==, 1);
  with = paint (flows, &options);
  /* It leaves where its slice ends. */
  tail_x = tsl_render_time_to_x (&options, (double) tsl_snapshot_get_flows (flows, &n_flows)[0].from_ns);
  g_assert_cmpuint (count_changed (surface, with, (int) tail_x - 3, (int) tail_x + 4,
                                   ROW_Y (11) - 3, ROW_Y (11) + 4), >, 0);
  g_assert_cmpuint (count_changed (surface, with, (int) tail_x - 3, (int) tail_x + 4,
                                   ROW_Y (7) - 5, ROW_Y (7) + 6), ==, 0);
  cairo_surface_destroy (with);
  cairo_surface_destroy (surface);

  /* Capped to 4 rows: a fifth row marks the 8 hidden levels where they
   * lie, holds no slice for the pointer, and the flow starts from it. */
  options.max_rows = 4;
  g_assert_cmpfloat (tsl_render_track_height (snapshot, &options, 0), ==, 5 * 15 + 6);
  surface = paint (snapshot, &options);
  with = paint (flows, &options);
  g_assert_false (is_background (pixel (surface, (int) x, ROW_Y (3))));
  g_assert_false (is_background (pixel (surface, (int) x, ROW_Y (4))));
  /* Between two calls' deepest levels the hidden row is empty. */
  g_assert_true (is_background (pixel (surface, (int) tsl_render_time_to_x (&options, 999000.0), ROW_Y (4))));
  /* "+8 levels" in the label column. */
  {
    guint ink = 0;

    for (int y = ROW_Y (4) - 7; y < ROW_Y (4) + 7; y++)
      for (int px = 20; px < 120; px++)
        ink += !is_background (pixel (surface, px, y));
    g_assert_cmpuint (ink, >, 10);
  }
  g_assert_true (tsl_render_hit_test (snapshot, &options, x, ROW_Y (4), &hit));
  g_assert_null (hit.slice);
  g_assert_cmpuint (count_changed (surface, with, (int) tail_x - 3, (int) tail_x + 4,
                                   ROW_Y (4) - 3, ROW_Y (4) + 4), >, 0);
  cairo_surface_destroy (with);
  cairo_surface_destroy (surface);
}

/* Issue 32: two `B` never closed, around 100 tasks, read as the window's
 * zoom detail read does (a time filter far from where they began, exact
 * slices): both are slices of the zoomed snapshot, open, to the trace's
 * end, drawn across the view in rows 0 and 1, and a task's details nest it
 * in them. */
static void
test_open_spans_zoomed (void)
{
  g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_TIME, 64, 0x5EED);
  g_autoptr(TslReader) reader = tsl_reader_new (trace, "open.json");
  g_autoptr(GString) json = g_string_new ("[\n"
    "{\"ph\":\"B\",\"name\":\"RunLoop::Run\",\"pid\":1,\"tid\":1,\"ts\":0},\n"
    "{\"ph\":\"B\",\"name\":\"ThreadController active\",\"pid\":1,\"tid\":1,\"ts\":10}");
  g_autoptr(TslSnapshot) snapshot = NULL;
  g_autoptr(GError) error = NULL;
  const TslSnapshotTrack *track;
  cairo_surface_t *surface;
  TslRenderOptions options;
  guint task = G_MAXUINT, parent, root;

  for (int i = 0; i < 100; i++)
    g_string_append_printf (json, ",\n{\"ph\":\"X\",\"name\":\"Task\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":50}",
                            100 + i * 100);
  g_string_append (json, "\n]\n");

  /* 6.0–6.5 ms: long after both began. */
  tsl_trace_set_time_filter (trace, 6000000, 6500000);
  tsl_trace_record_exact (trace, TSL_EXACT_PER_TRACK, TSL_EXACT_TOTAL);
  g_assert_true (tsl_reader_feed (reader, (const guint8 *) json->str, json->len, &error));
  g_assert_true (tsl_reader_finish (reader, &error));
  g_assert_no_error (error);
  snapshot = tsl_snapshot_new (trace);
  track = tsl_snapshot_get_track (snapshot, 0);
  g_assert_true (track->exact);
  g_assert_cmpuint (track->max_depth, ==, 3);

  for (guint i = 0; i < track->n_slices; i++)
    {
      const TslSnapshotSlice *sl = &track->slices[i];
      const char *name = tsl_snapshot_get_frame_name (snapshot, sl->frame);

      if (g_str_equal (name, "Task"))
        {
          g_assert_false (sl->open);
          g_assert_cmpuint (sl->depth, ==, 2);
          if (task == G_MAXUINT)
            task = i;
        }
      else
        {
          g_assert_true (sl->open);
          g_assert_cmpint (sl->end_ns, ==, 10050000);   /* the last task's end */
        }
    }
  g_assert_cmpuint (task, !=, G_MAXUINT);
  parent = tsl_snapshot_slice_parent (track, task);
  g_assert_cmpuint (parent, !=, G_MAXUINT);
  g_assert_cmpstr (tsl_snapshot_get_frame_name (snapshot, track->slices[parent].frame), ==, "ThreadController active");
  g_assert_cmpint (track->slices[parent].start_ns, ==, 10000);
  root = tsl_snapshot_slice_parent (track, parent);
  g_assert_cmpuint (root, !=, G_MAXUINT);
  g_assert_cmpstr (tsl_snapshot_get_frame_name (snapshot, track->slices[root].frame), ==, "RunLoop::Run");
  g_assert_cmpuint (tsl_snapshot_slice_parent (track, root), ==, G_MAXUINT);

  tsl_render_options_init (&options, snapshot, WIDTH, HEIGHT);
  options.view_start_ns = 6000000;
  options.view_end_ns = 6500000;
  surface = paint (snapshot, &options);
  for (int x = (int) tsl_render_label_width (&options) + 2; x < WIDTH - 2; x += 50)
    {
      g_assert_false (is_background (pixel (surface, x, ROW_Y (0))));
      g_assert_false (is_background (pixel (surface, x, ROW_Y (1))));
    }
  cairo_surface_destroy (surface);
}

/* Issue 18: a NaN view start became INT64_MIN..INT64_MIN and the grid's
 * `t += step` never ended. The painter refuses an empty or reversed view,
 * and its tick loops count instead of stepping, so views far from zero,
 * where a step is below a double's resolution, end too. */
static void
test_degenerate_views (void)
{
  if (g_test_subprocess ())
    {
      g_autoptr(TslTrace) trace = read_nested (FALSE);
      g_autoptr(TslSnapshot) snapshot = tsl_snapshot_new (trace);
      const gint64 views[][2] = {
        { G_MININT64, G_MININT64 }, { 5, 5 }, { 10, 5 },
        { G_GINT64_CONSTANT (9000000000000000000), G_GINT64_CONSTANT (9000000000000001000) },
        { G_MININT64, G_MAXINT64 }, { -G_GINT64_CONSTANT (9000000000000001000), -G_GINT64_CONSTANT (9000000000000000000) },
      };
      const gboolean valid[] = { FALSE, FALSE, FALSE, TRUE, TRUE, TRUE };

      for (guint i = 0; i < G_N_ELEMENTS (views); i++)
        {
          TslRenderOptions options;
          cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, WIDTH, HEIGHT);
          cairo_t *cr = cairo_create (surface);

          tsl_render_options_init (&options, snapshot, WIDTH, HEIGHT);
          options.view_start_ns = views[i][0];
          options.view_end_ns = views[i][1];
          g_assert_cmpint (tsl_render_view_is_valid (&options), ==, valid[i]);
          g_assert_cmpint (tsl_render_paint (cr, snapshot, &options), ==, valid[i]);
          cairo_destroy (cr);
          cairo_surface_destroy (surface);
        }
      {
        TslRenderOptions options;

        tsl_render_options_init (&options, snapshot, NAN, HEIGHT);
        g_assert_false (tsl_render_view_is_valid (&options));
      }
      return;
    }

  g_test_trap_subprocess (NULL, 20 * G_USEC_PER_SEC, 0);
  g_test_trap_assert_passed ();
}

static TslTrace *
read_text (const char *name,
           const char *text)
{
  g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_TIME, 2000, 0x5EED);
  g_autoptr(TslReader) reader = tsl_reader_new (trace, name);
  g_autoptr(GError) error = NULL;

  g_assert_true (tsl_reader_feed (reader, (const guint8 *) text, strlen (text), &error));
  g_assert_true (tsl_reader_finish (reader, &error));
  g_assert_no_error (error);
  return g_steal_pointer (&trace);
}

/* Issue 18: labels that say which track is which. */
static void
test_labels (void)
{
  /* Two threads of one process with one name get their tids. */
  {
    g_autoptr(TslTrace) trace = read_text ("same.json", "["
      "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":7,\"args\":{\"name\":\"java\"}},"
      "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":9,\"args\":{\"name\":\"java\"}},"
      "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":11,\"args\":{\"name\":\"gc\"}},"
      "{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":7,\"ts\":0,\"dur\":5},"
      "{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":9,\"ts\":1,\"dur\":5},"
      "{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":11,\"ts\":2,\"dur\":5}]");
    g_autoptr(TslSnapshot) snapshot = tsl_snapshot_new (trace);

    g_assert_cmpuint (tsl_snapshot_get_n_tracks (snapshot), ==, 3);
    g_assert_cmpstr (tsl_snapshot_get_track (snapshot, 0)->name, ==, "java (tid 7)");
    g_assert_cmpstr (tsl_snapshot_get_track (snapshot, 1)->name, ==, "java (tid 9)");
    g_assert_cmpstr (tsl_snapshot_get_track (snapshot, 2)->name, ==, "gc");
  }

  /* perf's pid 0 is the kernel's swapper, not a group titled "perf-script". */
  {
    g_autoptr(TslTrace) trace = read_text ("perf.txt",
      "swapper     0/0 [000] 10.000000:     1000 cycles: \n"
      "\tffffffff810a1b2c native_safe_halt+0x1c ([kernel.kallsyms])\n\n"
      "worker 100/100 [001] 10.000500:     2000 cycles: \n"
      "\t55d0c0de0001 compute+0x11 (/usr/bin/worker)\n\n");

    g_assert_cmpstr (tsl_trace_get_process_name (trace, 0), ==, "swapper");
    g_assert_cmpstr (tsl_trace_get_process_name (trace, 100), ==, "worker");
  }

  /* A sampled profile's instants stay samples (drawn across their slices)
   * even when every event is recorded: exact is for spans. */
  {
    g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_TIME, 2000, 0x5EED);
    g_autoptr(TslReader) reader = tsl_reader_new (trace, "perf.txt");
    g_autoptr(TslSnapshot) snapshot = NULL;
    const char *text = "worker 100/100 [001] 10.000500:     2000 cycles: \n"
                       "\t55d0c0de0001 compute+0x11 (/usr/bin/worker)\n\n";

    tsl_trace_record_exact (trace, 100, 1000);
    g_assert_true (tsl_reader_feed (reader, (const guint8 *) text, strlen (text), NULL));
    g_assert_true (tsl_reader_finish (reader, NULL));
    snapshot = tsl_snapshot_new (trace);
    g_assert_false (tsl_snapshot_get_exact (snapshot, NULL, NULL));
    g_assert_false (tsl_snapshot_get_track (snapshot, 0)->exact);
    g_assert_cmpuint (tsl_snapshot_get_track (snapshot, 0)->n_samples, ==, 1);
  }
}

/* Issue 18: a counter with a single sample still shows its value. */
static void
test_one_point_counter (void)
{
  g_autoptr(TslTrace) trace = read_text ("one.json", "["
    "{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1000},"
    "{\"ph\":\"C\",\"name\":\"heap\",\"pid\":1,\"ts\":500,\"args\":{\"mb\":42}}]");
  g_autoptr(TslSnapshot) snapshot = tsl_snapshot_new (trace);
  cairo_surface_t *surface;
  TslRenderOptions options;
  int x, top, inked = 0;

  g_assert_cmpuint (tsl_snapshot_get_n_tracks (snapshot), ==, 2);
  g_assert_cmpint (tsl_snapshot_get_track (snapshot, 1)->kind, ==, TSL_TRACK_COUNTER);
  tsl_render_options_init (&options, snapshot, WIDTH, HEIGHT);
  surface = paint (snapshot, &options);

  /* Counter track: below the group header and the one-row thread. */
  top = TSL_RENDER_RULER_HEIGHT + 24 + 15 + 6;
  x = (int) tsl_render_time_to_x (&options, 500000.0);
  for (int dx = 0; dx < 200; dx += 20)
    inked += topmost_ink (surface, x + dx, top + 2, top + 54) < top + 54;
  g_assert_cmpint (inked, ==, 10);
  cairo_surface_destroy (surface);
}

/* Issue 18 item 5: a counter's axis has gridlines, its height follows the
 * option, and a crosshair shows the value held at the pointer. */
static void
test_counter_axis (void)
{
  g_autoptr(TslTrace) trace = read_text ("axis.json", "["
    "{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1000},"
    "{\"ph\":\"C\",\"name\":\"heap\",\"pid\":1,\"ts\":500,\"args\":{\"mb\":10}},"
    "{\"ph\":\"C\",\"name\":\"heap\",\"pid\":1,\"ts\":600,\"args\":{\"mb\":30}},"
    "{\"ph\":\"C\",\"name\":\"heap\",\"pid\":1,\"ts\":900,\"args\":{\"mb\":20}}]");
  g_autoptr(TslSnapshot) snapshot = tsl_snapshot_new (trace);
  const TslSnapshotTrack *heap = tsl_snapshot_get_track (snapshot, 1);
  cairo_surface_t *plain, *crossed;
  TslRenderOptions options;
  TslRenderHit hit;
  int top = TSL_RENDER_RULER_HEIGHT + 24 + 15 + 6, x, grid_y, differ = 0;
  double value = 0, base;

  g_assert_cmpint (heap->kind, ==, TSL_TRACK_COUNTER);
  g_assert_false (tsl_render_series_value_at (heap, 400000, &value));
  g_assert_true (tsl_render_series_value_at (heap, 700000, &value));
  g_assert_cmpfloat (value, ==, 30);
  g_assert_true (tsl_render_series_value_at (heap, 5000000, &value));
  g_assert_cmpfloat (value, ==, 20);

  tsl_render_options_init (&options, snapshot, WIDTH, HEIGHT);
  plain = paint (snapshot, &options);
  /* Before the first point only the gridlines cross the track: the middle
   * one differs from the rows beside it. */
  x = (int) tsl_render_time_to_x (&options, 100000.0);
  grid_y = top + 4 + (TSL_RENDER_COUNTER_HEIGHT - 8) / 2;
  g_assert_cmpuint (pixel (plain, x, grid_y), !=, pixel (plain, x, grid_y + 3));
  g_assert_cmpuint (pixel (plain, x, grid_y + 3), ==, pixel (plain, x, grid_y - 3));

  /* A taller track: the content grows by the difference, and a point near
   * its new bottom is on it. */
  base = tsl_render_content_height (snapshot, &options);
  options.counter_height = 150;
  g_assert_cmpfloat (tsl_render_content_height (snapshot, &options), ==, base + 150 - TSL_RENDER_COUNTER_HEIGHT);
  g_assert_true (tsl_render_hit_test (snapshot, &options, x, top + 140, &hit));
  g_assert_cmpint (hit.track, ==, 1);
  options.counter_height = 0;
  g_assert_true (!tsl_render_hit_test (snapshot, &options, x, top + 140, &hit) || hit.track != 1);

  /* The crosshair: a line down the column, a dot on the value held there. */
  options.has_crosshair = TRUE;
  options.crosshair_x = tsl_render_time_to_x (&options, 700000.0);
  crossed = paint (snapshot, &options);
  for (int y = TSL_RENDER_RULER_HEIGHT + 24; y < top; y++)
    differ += pixel (plain, (int) options.crosshair_x, y) != pixel (crossed, (int) options.crosshair_x, y);
  g_assert_cmpint (differ, >, 10);
  /* At 30 (the max) the dot sits at the top of the plot. */
  g_assert_cmpuint (pixel (plain, (int) options.crosshair_x + 2, top + 5), !=,
                    pixel (crossed, (int) options.crosshair_x + 2, top + 5));
  cairo_surface_destroy (plain);
  cairo_surface_destroy (crossed);
}

/* Issue 18 item 5: files with absolute times get a wall-clock ruler (local
 * time; TZ is UTC here), elapsed time otherwise. */
static void
test_wall_clock_ticks (void)
{
  TslRenderOptions o = { 0 };
  g_autofree char *elapsed = NULL, *seconds = NULL, *fraction = NULL, *day = NULL;

  elapsed = tsl_render_format_tick (&o, 1.5e9, 5e8);
  g_assert_cmpstr (elapsed, ==, "1.5 s");
  /* 2026-12-01 05:00:00 UTC */
  o.wall_clock_ns = G_GINT64_CONSTANT (1796101200) * 1000000000;
  seconds = tsl_render_format_tick (&o, 90e9, 10e9);
  g_assert_cmpstr (seconds, ==, "05:01:30");
  fraction = tsl_render_format_tick (&o, 1.25e9, 2.5e8);
  g_assert_cmpstr (fraction, ==, "05:00:01.250");
  day = tsl_render_format_tick (&o, 86400e9, 86400e9);
  g_assert_cmpstr (day, ==, "2026-12-02");
}

static int
brightness (guint32 p)
{
  return ((p >> 16) & 0xFF) + ((p >> 8) & 0xFF) + (p & 0xFF);
}

/* Issue 18: a compare row highlights its function on its own thread only,
 * by the whole name; the search box matches whole names everywhere, or a
 * pattern when it holds '*' or '?'. */
static void
test_scoped_highlight (void)
{
  g_autoptr(TslTrace) trace = read_text ("two.json", "["
    "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"a\"}},"
    "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":2,\"args\":{\"name\":\"b\"}},"
    "{\"ph\":\"X\",\"name\":\"parse\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1000},"
    "{\"ph\":\"X\",\"name\":\"parse\",\"pid\":1,\"tid\":2,\"ts\":0,\"dur\":1000}]");
  g_autoptr(TslSnapshot) snapshot = tsl_snapshot_new (trace);
  const struct { const char *text; gboolean exact; const char *track; int a_lit, b_lit; } cases[] = {
    { NULL, FALSE, NULL, 1, 1 },
    { "pars", FALSE, NULL, 0, 0 },      /* search: not a part of a name */
    { "parse", FALSE, NULL, 1, 1 },     /* the whole name, every thread */
    { "pa*e", FALSE, NULL, 1, 1 },      /* a pattern */
    { "p?rse", FALSE, NULL, 1, 1 },
    { "pars", TRUE, NULL, 0, 0 },       /* whole names only */
    { "parse", TRUE, "a", 1, 0 },       /* a compare row: a's parse only */
  };
  int x = 0, ya = ROW_Y (0), yb = ROW_Y (0) + 21, lit = 0, dim = 0;

  g_assert_cmpstr (tsl_snapshot_get_track (snapshot, 0)->name, ==, "a");
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      TslRenderOptions options;
      cairo_surface_t *surface;

      tsl_render_options_init (&options, snapshot, WIDTH, HEIGHT);
      options.highlight = cases[i].text;
      options.highlight_exact = cases[i].exact;
      options.highlight_track = cases[i].track;
      options.highlight_pid = 1;
      x = (int) tsl_render_time_to_x (&options, 500000.0);
      surface = paint (snapshot, &options);
      if (i == 0)
        {
          lit = brightness (pixel (surface, x, ya));
          dim = (lit + 3 * 255) / 2;  /* halfway to white */
        }
      g_assert_cmpint (brightness (pixel (surface, x, ya)) < dim, ==, cases[i].a_lit);
      g_assert_cmpint (brightness (pixel (surface, x, yb)) < dim, ==, cases[i].b_lit);
      cairo_surface_destroy (surface);
    }
}

/* Issue 21: merged files. A compare row of two runs highlights its
 * function on the thread of that name in every file (TSL_RENDER_ANY_PID),
 * or in one group; a range lying in one file shades that file's group only. */
static void
test_merged (void)
{
  static const char run[] = "["
    "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":7,\"tid\":1,\"args\":{\"name\":\"a\"}},"
    "{\"ph\":\"X\",\"name\":\"parse\",\"pid\":7,\"tid\":1,\"ts\":0,\"dur\":1000}]";
  g_autoptr(TslTrace) t1 = read_text ("one.json", run);
  g_autoptr(TslTrace) t2 = read_text ("two.json", run);
  g_autoptr(TslSnapshot) s1 = tsl_snapshot_new (t1);
  g_autoptr(TslSnapshot) s2 = tsl_snapshot_new (t2);
  TslSnapshot *parts[] = { s1, s2 };
  const char *names[] = { "one.json", "two.json" };
  const gint64 positions[] = { 0, 0 };
  g_autoptr(TslSnapshot) merged = tsl_snapshot_new_merged (parts, names, positions, 2);
  const struct { gint64 pid; int first_lit, second_lit; } cases[] = {
    { TSL_RENDER_ANY_PID, 1, 1 },
    { 1, 1, 0 },
    { 2, 0, 1 },
  };
  TslRenderOptions options;
  int x, y[2], lit, dim;
  cairo_surface_t *surface;

  tsl_render_options_init (&options, merged, WIDTH, HEIGHT);
  for (guint g = 0; g < 2; g++)
    y[g] = (int) (tsl_render_header_height (&options) + tsl_render_track_top (merged, &options, g)) + 7;
  x = (int) tsl_render_time_to_x (&options, 500000.0);
  surface = paint (merged, &options);
  lit = brightness (pixel (surface, x, y[0]));
  dim = (lit + 3 * 255) / 2;
  g_assert_cmpint (brightness (pixel (surface, x, y[1])), ==, lit);
  cairo_surface_destroy (surface);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      tsl_render_options_init (&options, merged, WIDTH, HEIGHT);
      options.highlight = "parse";
      options.highlight_exact = TRUE;
      options.highlight_track = "a";
      options.highlight_pid = cases[i].pid;
      surface = paint (merged, &options);
      g_assert_cmpint (brightness (pixel (surface, x, y[0])) < dim, ==, cases[i].first_lit);
      g_assert_cmpint (brightness (pixel (surface, x, y[1])) < dim, ==, cases[i].second_lit);
      cairo_surface_destroy (surface);
    }

  /* Range A over the empty end of the view, in the second file: tinted
   * there, not in the first file's group. */
  {
    guint32 before[2], after[2];
    int ex = WIDTH - 20;

    tsl_render_options_init (&options, merged, WIDTH, HEIGHT);
    options.view_end_ns = 4000000;
    surface = paint (merged, &options);
    for (guint g = 0; g < 2; g++)
      before[g] = pixel (surface, ex, y[g]);
    cairo_surface_destroy (surface);
    options.has_a = TRUE;
    options.a_start_ns = 3000000;
    options.a_end_ns = 4000000;
    options.a_group = 2;
    surface = paint (merged, &options);
    for (guint g = 0; g < 2; g++)
      after[g] = pixel (surface, ex, y[g]);
    cairo_surface_destroy (surface);
    g_assert_cmphex (after[0], ==, before[0]);
    g_assert_cmphex (after[1], !=, before[1]);
  }
}

/* Issue 18 item 4: the search lists every call whose whole name matches
 * (or a pattern), in time order, and the current one is outlined. */
static void
test_search (void)
{
  g_autoptr(TslTrace) trace = read_text ("search.json", "["
    "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"a\"}},"
    "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":2,\"args\":{\"name\":\"b\"}},"
    "{\"ph\":\"X\",\"name\":\"main\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":3000},"
    "{\"ph\":\"X\",\"name\":\"parse\",\"pid\":1,\"tid\":1,\"ts\":2000,\"dur\":500},"
    "{\"ph\":\"X\",\"name\":\"parse_header\",\"pid\":1,\"tid\":1,\"ts\":100,\"dur\":500},"
    "{\"ph\":\"X\",\"name\":\"parse\",\"pid\":1,\"tid\":2,\"ts\":1000,\"dur\":1000}]");
  g_autoptr(TslSnapshot) snapshot = tsl_snapshot_new (trace);
  g_autoptr(GArray) exact = tsl_search_find (snapshot, "parse");
  g_autoptr(GArray) pattern = tsl_search_find (snapshot, "parse*");
  g_autoptr(GArray) part = tsl_search_find (snapshot, "pars");
  const TslSearchMatch *m;
  TslRenderOptions options;
  cairo_surface_t *plain, *marked;
  int x, y;

  g_assert_false (tsl_search_is_pattern ("parse"));
  g_assert_true (tsl_search_is_pattern ("p?rse"));
  g_assert_cmpuint (exact->len, ==, 2);
  g_assert_cmpuint (pattern->len, ==, 3);
  g_assert_cmpuint (part->len, ==, 0);
  /* By start: b's parse at 1 ms, then a's at 2 ms (a level down). */
  m = &g_array_index (exact, TslSearchMatch, 0);
  g_assert_cmpstr (tsl_snapshot_get_track (snapshot, m->track)->name, ==, "b");
  /* Sampled here: a sample's slice holds the call's start. */
  g_assert_cmpint (llabs (m->start_ns - 1000000), <, 1000);
  m = &g_array_index (exact, TslSearchMatch, 1);
  g_assert_cmpstr (tsl_snapshot_get_track (snapshot, m->track)->name, ==, "a");
  g_assert_cmpuint (m->depth, ==, 1);
  g_assert_cmpint (llabs (m->end_ns - m->start_ns - 500000), <, 2000);
  g_assert_cmpint (tsl_search_first_from (exact, 1500000), ==, 1);
  g_assert_cmpint (tsl_search_first_from (exact, 5000000), ==, 0);
  g_assert_cmpint (tsl_search_first_from (part, 0), ==, -1);

  /* The outline: pixels just left of a's parse change when it is marked. */
  tsl_render_options_init (&options, snapshot, WIDTH, HEIGHT);
  plain = paint (snapshot, &options);
  options.has_mark = TRUE;
  options.mark_track = "a";
  options.mark_pid = 1;
  options.mark_depth = m->depth;
  options.mark_start_ns = m->start_ns;
  options.mark_end_ns = m->end_ns;
  marked = paint (snapshot, &options);
  x = (int) tsl_render_time_to_x (&options, (double) m->start_ns) - 2;
  y = ROW_Y (1);  /* a, one level down */
  g_assert_cmpuint (pixel (plain, x, y), !=, pixel (marked, x, y));
  cairo_surface_destroy (plain);
  cairo_surface_destroy (marked);
}

int
main (int   argc,
      char *argv[])
{
  /* Wall-clock labels are local time: make it known. */
  g_setenv ("TZ", "UTC", TRUE);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/render/spike-survives-zoom-out", test_spike_survives);
  g_test_add_func ("/render/ranges-and-stacks", test_ranges_and_stacks);
  g_test_add_func ("/render/base-and-overlay", test_base_and_overlay);
  g_test_add_func ("/render/nested-sampled", test_nested_sampled);
  g_test_add_func ("/render/nested-exact", test_nested_exact);
  g_test_add_func ("/render/flow-arrows", test_flow_arrows);
  g_test_add_func ("/render/flows-on-demand", test_flows_on_demand);
  g_test_add_func ("/render/flows-of-same-time-instants", test_flows_of_same_time_instants);
  g_test_add_func ("/render/flows-cap", test_flows_cap);
  g_test_add_func ("/render/filtered-snapshot", test_filtered_snapshot);
  g_test_add_func ("/render/every-level", test_every_level);
  g_test_add_func ("/render/open-spans-zoomed", test_open_spans_zoomed);
  g_test_add_func ("/render/degenerate-views", test_degenerate_views);
  g_test_add_func ("/render/labels", test_labels);
  g_test_add_func ("/render/search", test_search);
  g_test_add_func ("/render/one-point-counter", test_one_point_counter);
  g_test_add_func ("/render/scoped-highlight", test_scoped_highlight);
  g_test_add_func ("/render/merged", test_merged);
  g_test_add_func ("/render/counter-axis", test_counter_axis);
  g_test_add_func ("/render/wall-clock-ticks", test_wall_clock_ticks);
  return g_test_run ();
}
