/* test-flame.c: call-path trees, the differential test, collapsed export
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gstdio.h>

#include "tsl-flame.h"
#include "tsl-read-stream.h"
#include "tsl-render-flame.h"
#include "tsl-snapshot.h"

#define EPS 1e-12

static const TslFlameNode *
find (TslFlame   *flame,
      const char *path)
{
  g_auto(GStrv) frames = g_strsplit (path, ";", -1);

  return tsl_flame_find (flame, (const char * const *) frames, g_strv_length (frames));
}

static char *
write_temp (const char *name,
            const char *contents)
{
  g_autofree char *dir = g_dir_make_tmp ("test-flame-XXXXXX", NULL);
  char *path = g_build_filename (dir, name, NULL);

  g_assert_true (g_file_set_contents (path, contents, -1, NULL));
  return path;
}

static TslSnapshot *
read_snapshot (const char *path,
               guint       k)
{
  g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_COUNT, k, 0x5EED);
  g_autoptr(GError) error = NULL;

  g_assert_true (tsl_read_path (trace, path, NULL, NULL, NULL, &error));
  g_assert_no_error (error);
  return tsl_snapshot_new (trace);
}

/* Hand-written stacks: shares are exact and children are alphabetical. */
static void
test_merge (void)
{
  g_autofree char *path = write_temp ("stacks.folded",
                                      "main;c 4\nmain;a;b 3\nother 2\nmain;a 1\n");
  g_autoptr(TslSnapshot) snapshot = read_snapshot (path, 1000);
  g_autoptr(TslFlame) flame = tsl_flame_new (snapshot, NULL, G_MININT64, G_MAXINT64);
  const TslFlameNode *root = tsl_flame_get_root (flame);
  const TslFlameNode *main_ = find (flame, "main");
  const TslFlameNode *a = find (flame, "main;a");

  g_assert_cmpint (tsl_flame_get_weight (flame), ==, TSL_FLAME_WEIGHT_SAMPLES);
  g_assert_cmpuint (tsl_flame_get_events (flame), ==, 10);
  g_assert_cmpfloat_with_epsilon (root->total, 10, EPS);
  g_assert_cmpuint (root->n_children, ==, 2);
  g_assert_cmpstr (root->children[0]->name, ==, "main");
  g_assert_cmpstr (root->children[1]->name, ==, "other");
  g_assert_cmpfloat_with_epsilon (tsl_flame_node_share (main_), 0.8, EPS);
  g_assert_cmpfloat_with_epsilon (main_->self, 0, EPS);
  g_assert_cmpfloat_with_epsilon (tsl_flame_node_share (a), 0.4, EPS);
  g_assert_cmpfloat_with_epsilon (a->self, 1, EPS);
  g_assert_cmpfloat_with_epsilon (tsl_flame_node_share (find (flame, "main;a;b")), 0.3, EPS);
  g_assert_cmpfloat_with_epsilon (tsl_flame_node_share (find (flame, "main;c")), 0.4, EPS);
  g_assert_cmpfloat_with_epsilon (tsl_flame_node_share (find (flame, "other")), 0.2, EPS);
  g_assert_null (find (flame, "main;b"));

  /* Layout: alphabetical, widths are shares. */
  g_assert_cmpstr (main_->children[0]->name, ==, "a");
  g_assert_cmpfloat_with_epsilon (main_->children[1]->x, 0.4, EPS);
  g_assert_cmpfloat_with_epsilon (root->children[1]->x, 0.8, EPS);
  g_assert_cmpfloat_with_epsilon (root->children[1]->width, 0.2, EPS);
  g_assert_cmpuint (tsl_flame_get_max_depth (flame), ==, 3);

  /* Search: nested matches count once ("a" is in "main" and "main;a"). */
  g_assert_cmpfloat_with_epsilon (tsl_flame_search_share (flame, "B"), 0.3, EPS);
  g_assert_cmpfloat_with_epsilon (tsl_flame_search_share (flame, "a"), 0.8, EPS);
  g_assert_true (tsl_flame_node_is_ancestor (main_, find (flame, "main;a;b")));

  {
    g_autofree char *p = tsl_flame_node_get_path (find (flame, "main;a;b"), ";");
    g_assert_cmpstr (p, ==, "main;a;b");
  }

  g_unlink (path);
}

/* Summary weights: 50 events, K = 4, slices of 8 (the seed's table); every
 * event of a slice has the same stack, so the shares are exact. */
static void
test_weights (void)
{
  g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_COUNT, 4, 1);
  g_autoptr(TslSnapshot) snapshot = NULL;
  g_autoptr(TslFlame) flame = NULL;
  guint track = tsl_trace_ensure_track (trace, TSL_TRACK_THREAD, 1, 1, NULL);
  guint tracks[] = { 0 };
  TslFlameSelection selection = { tracks, 1, TRUE, TSL_FLAME_WEIGHT_SAMPLES };

  for (guint i = 0; i < 50; i++)
    if (tsl_trace_offer (trace, track, (gint64) i * 1000, NAN))
      tsl_trace_set_label (trace, track, i < 16 ? "main;x" : i < 48 ? "main;y" : "main;z");
  tsl_trace_add_events (trace, 50);

  snapshot = tsl_snapshot_new (trace);
  g_assert_cmpuint (tsl_snapshot_get_track (snapshot, 0)->n_samples, ==, 7);
  flame = tsl_flame_new (snapshot, &selection, G_MININT64, G_MAXINT64);
  g_assert_cmpuint (tsl_flame_get_n_samples (flame), ==, 7);
  g_assert_cmpuint (tsl_flame_get_events (flame), ==, 50);
  g_assert_cmpfloat_with_epsilon (tsl_flame_node_share (find (flame, "main;x")), 16 / 50.0, EPS);
  g_assert_cmpfloat_with_epsilon (tsl_flame_node_share (find (flame, "main;y")), 32 / 50.0, EPS);
  g_assert_cmpfloat_with_epsilon (tsl_flame_node_share (find (flame, "main;z")), 2 / 50.0, EPS);

  /* A range: [16 µs, 48 µs) holds only y's slices. */
  g_clear_pointer (&flame, tsl_flame_unref);
  flame = tsl_flame_new (snapshot, &selection, 16000, 48000);
  g_assert_cmpfloat_with_epsilon (tsl_flame_node_share (find (flame, "main;y")), 1, EPS);
}

/* Stacks drawn from `shares` (f, g, h under main) at 1 ms steps: the first
 * n events from shares_a, the next n from shares_b. Two threads. */
static TslSnapshot *
planted_snapshot (guint32        seed,
                  guint          n,
                  const double  *shares_a,
                  const double  *shares_b)
{
  g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_COUNT, 4 * n, seed);
  g_autoptr(GRand) rand = g_rand_new_with_seed (seed);
  static const char *stacks[] = { "main;f", "main;g", "main;g;leaf", "main;h" };

  for (guint t = 0; t < 2; t++)
    {
      guint track = tsl_trace_ensure_track (trace, TSL_TRACK_THREAD, 1, 10 + t, NULL);

      for (guint i = 0; i < 2 * n; i++)
        {
          const double *shares = i < n ? shares_a : shares_b;
          double u = g_rand_double (rand);
          guint which = u < shares[0] ? 0 : u < shares[0] + shares[1] ? (u < shares[0] + shares[1] / 2 ? 1 : 2) : 3;

          if (tsl_trace_offer (trace, track, (gint64) i * 1000000, NAN))
            tsl_trace_set_label (trace, track, stacks[which]);
        }
    }

  return tsl_snapshot_new (trace);
}

static TslFlame *
diff_of (TslSnapshot *snapshot,
         guint        n,
         guint64      seed)
{
  g_autoptr(TslCompareRequest) request = tsl_compare_request_new ();
  g_autoptr(GError) error = NULL;
  TslFlameSelection selection = { NULL, 0, TRUE, TSL_FLAME_WEIGHT_AUTO };
  TslFlame *flame;
  gint64 half = (gint64) n * 1000000;

  request->rounds = 2000;
  request->seed = seed;
  flame = tsl_flame_new_diff (snapshot, 0, half, snapshot, half, 2 * half,
                              &selection, request, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (flame);
  return flame;
}

/* A side whose range holds no sample: its item array was never grown, and
 * sorting it was qsort (NULL, 0), undefined (UBSan in the ASan build). The
 * other side keeps its shares; nothing is significant. */
static void
test_diff_empty_side (void)
{
  static const double shares[] = { 0.3, 0.3, 0.4 };
  g_autoptr(TslSnapshot) snapshot = planted_snapshot (7, 200, shares, shares);
  g_autoptr(TslCompareRequest) request = tsl_compare_request_new ();
  g_autoptr(GError) error = NULL;
  TslFlameSelection selection = { NULL, 0, TRUE, TSL_FLAME_WEIGHT_AUTO };
  gint64 end = 400 * (gint64) 1000000;

  request->rounds = 200;
  for (guint empty = 0; empty < 2; empty++)
    {
      g_autoptr(TslFlame) flame = NULL;
      const TslFlameNode *f;
      gint64 gap = 2 * end;  /* after every sample */

      flame = empty == 0
        ? tsl_flame_new_diff (snapshot, gap, gap + end, snapshot, 0, end, &selection, request, NULL, &error)
        : tsl_flame_new_diff (snapshot, 0, end, snapshot, gap, gap + end, &selection, request, NULL, &error);
      g_assert_no_error (error);
      g_assert_nonnull (flame);
      g_assert_true (tsl_flame_is_diff (flame));
      f = find (flame, "main;f");
      g_assert_nonnull (f);
      /* Planted at 0.3; 400 events per thread, so well within 0.2..0.4. */
      g_assert_cmpfloat (empty == 0 ? f->diff->b_share : f->diff->a_share, >, 0.2);
      g_assert_cmpfloat (empty == 0 ? f->diff->b_share : f->diff->a_share, <, 0.4);
      g_assert_false (f->diff->significant);
      /* The empty side draws nothing: the table says "new in B" / "gone in B". */
      g_assert_cmpfloat (empty == 0 ? f->diff->a_width : f->diff->b_width, ==, 0);
      g_assert_cmpfloat (empty == 0 ? f->diff->b_width : f->diff->a_width, >, 0.2);
    }
}

static void
test_diff_planted (void)
{
  static const double a[] = { 0.2, 0.3, 0.5 };
  static const double b[] = { 0.4, 0.3, 0.3 };
  g_autoptr(TslSnapshot) snapshot = planted_snapshot (7, 500, a, b);
  g_autoptr(TslFlame) flame = diff_of (snapshot, 500, 0x5EED);
  const TslFlameNode *f = find (flame, "main;f");
  const TslFlameNode *g = find (flame, "main;g");
  g_autoptr(TslFlame) again = diff_of (snapshot, 500, 0x5EED);

  g_assert_true (tsl_flame_is_diff (flame));
  g_assert_true (f->diff->tested);
  g_assert_true (f->diff->significant);
  g_assert_cmpfloat (f->diff->change, >, 0.5);
  g_assert_cmpfloat (f->diff->ci_low, >, 0);
  g_assert_cmpfloat (f->diff->q_value, <, 0.05);
  g_assert_true (find (flame, "main;h")->diff->significant);
  g_assert_cmpfloat (find (flame, "main;h")->diff->change, <, 0);
  g_assert_false (find (flame, "main")->diff->significant);
  g_assert_false (g->diff->significant);
  g_assert_cmpfloat (g->diff->q_value, >=, 0.05);

  /* Seeded: the same request gives the same interval. */
  g_assert_cmpfloat (find (again, "main;f")->diff->ci_low, ==, f->diff->ci_low);
  g_assert_cmpfloat (find (again, "main;f")->diff->q_value, ==, f->diff->q_value);
}

/* Equal distributions on both sides, 40 data and bootstrap seeds: BH at
 * q < 0.05 over the 4 tested paths should flag a seed about 5% of the time
 * at most; we allow 5 of 40 (12.5%), a bound the binomial (40, 0.05) passes
 * with probability 0.99. */
static void
test_diff_null (void)
{
  static const double same[] = { 0.2, 0.3, 0.5 };
  guint flagged = 0;

  for (guint seed = 1; seed <= 40; seed++)
    {
      g_autoptr(TslSnapshot) snapshot = planted_snapshot (seed, 300, same, same);
      g_autoptr(TslFlame) flame = diff_of (snapshot, 300, seed);
      static const char *paths[] = { "main;f", "main;g", "main;g;leaf", "main;h" };
      gboolean any = FALSE;

      for (guint i = 0; i < G_N_ELEMENTS (paths); i++)
        {
          const TslFlameNode *node = find (flame, paths[i]);

          g_assert_true (node->diff->tested);
          any |= node->diff->significant;
        }
      flagged += any;
    }

  g_test_message ("seeds with a false positive: %u of 40", flagged);
  g_assert_cmpuint (flagged, <=, 5);
}

/* A Chrome trace of `tile` spans holding `resize` and `blur`; resize is
 * 1.6× slower in the second half. Time weight sees resize's share grow;
 * sample weight cannot (the number of spans does not change). */
static void
test_diff_time_weight (void)
{
  g_autoptr(GString) json = g_string_new ("{\"traceEvents\":[");
  g_autoptr(GRand) rand = g_rand_new_with_seed (3);
  g_autofree char *path = NULL;
  g_autoptr(TslSnapshot) snapshot = NULL;
  g_autoptr(TslCompareRequest) request = tsl_compare_request_new ();
  TslFlameSelection selection = { NULL, 0, TRUE, TSL_FLAME_WEIGHT_AUTO };
  g_autoptr(TslFlame) time = NULL;
  g_autoptr(TslFlame) samples = NULL;
  double t = 0, half = 0;

  for (guint i = 0; i < 800; i++)
    {
      double resize = g_rand_double_range (rand, 800, 1000) * (i >= 400 ? 1.6 : 1.0);
      double blur = g_rand_double_range (rand, 1300, 1500);

      if (i == 400)
        half = t;
      g_string_append_printf (json, "%s{\"ph\":\"X\",\"name\":\"tile\",\"pid\":1,\"tid\":1,\"ts\":%.1f,\"dur\":%.1f},"
                              "{\"ph\":\"X\",\"name\":\"resize\",\"pid\":1,\"tid\":1,\"ts\":%.1f,\"dur\":%.1f},"
                              "{\"ph\":\"X\",\"name\":\"blur\",\"pid\":1,\"tid\":1,\"ts\":%.1f,\"dur\":%.1f}",
                              i ? "," : "", t, resize + blur + 20, t + 5, resize, t + 10 + resize, blur);
      t += resize + blur + 100;
    }
  g_string_append (json, "]}");
  path = write_temp ("tiles.json", json->str);
  snapshot = read_snapshot (path, 4000);

  request->rounds = 2000;
  time = tsl_flame_new_diff (snapshot, 0, (gint64) (half * 1000), snapshot, (gint64) (half * 1000),
                             (gint64) (t * 1000), &selection, request, NULL, NULL);
  g_assert_cmpint (tsl_flame_get_weight (time), ==, TSL_FLAME_WEIGHT_TIME);
  g_assert_true (find (time, "tile;resize")->diff->significant);
  g_assert_cmpfloat (find (time, "tile;resize")->diff->change, >, 0.2);
  g_assert_cmpfloat_with_epsilon (find (time, "tile;resize")->diff->a_share, 0.9 / 2.32, 0.03);
  /* The widths are the layout's: B's is each path's Total share, and the
   * top frame holds all of each side. */
  {
    static const char *paths[] = { "tile", "tile;resize", "tile;blur" };
    const TslFlameNode *root = tsl_flame_get_root (time);

    for (guint i = 0; i < G_N_ELEMENTS (paths); i++)
      {
        const TslFlameNode *node = find (time, paths[i]);

        g_assert_cmpfloat_with_epsilon (node->diff->b_width, node->total / root->total, EPS);
        g_assert_cmpfloat (node->diff->a_width, >, 0);
        g_assert_cmpfloat (node->diff->a_width, <=, 1 + EPS);
      }
    g_assert_cmpfloat_with_epsilon (find (time, "tile")->diff->a_width, 1, EPS);
  }

  selection.weight = TSL_FLAME_WEIGHT_SAMPLES;
  samples = tsl_flame_new_diff (snapshot, 0, (gint64) (half * 1000), snapshot, (gint64) (half * 1000),
                                (gint64) (t * 1000), &selection, request, NULL, NULL);
  g_assert_false (find (samples, "tile;resize")->diff->significant);

  g_unlink (path);
}

static void
assert_same_events (TslFlame           *other,
                    const TslFlameNode *node)
{
  g_autofree char *path = tsl_flame_node_get_path (node, ";");

  if (node->parent != NULL)
    {
      const TslFlameNode *twin = find (other, path);

      g_assert_nonnull (twin);
      g_assert_cmpuint (twin->events, ==, node->events);
    }
  for (guint i = 0; i < node->n_children; i++)
    assert_same_events (other, node->children[i]);
}

/* Folded output read back by the collapsed reader gives the same tree. */
static void
test_folded_round_trip (void)
{
  g_autofree char *example = g_test_build_filename (G_TEST_DIST, "..", "data", "examples",
                                                    "example-trace.json", NULL);
  g_autoptr(TslSnapshot) snapshot = read_snapshot (example, 500);
  TslFlameSelection selection = { NULL, 0, FALSE, TSL_FLAME_WEIGHT_SAMPLES };
  g_autoptr(TslFlame) flame = tsl_flame_new (snapshot, &selection, 0, tsl_snapshot_get_span (snapshot) / 2);
  g_autoptr(GOutputStream) out = g_memory_output_stream_new_resizable ();
  g_autoptr(TslSnapshot) back = NULL;
  g_autoptr(TslFlame) reread = NULL;
  g_autofree char *text = NULL;
  g_autofree char *path = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_true (tsl_flame_write_folded (flame, out, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (g_output_stream_write_all (out, "", 1, NULL, NULL, NULL));
  g_output_stream_close (out, NULL, NULL);
  text = g_memory_output_stream_steal_data (G_MEMORY_OUTPUT_STREAM (out));
  g_assert_true (g_str_has_prefix (text, "gc;") || g_str_has_prefix (text, "main;"));
  g_assert_nonnull (strstr (text, "worker-1;process_tile;resize "));

  path = write_temp ("round-trip.folded", text);
  back = read_snapshot (path, 100000);
  g_assert_cmpstr (tsl_snapshot_get_format (back), ==, "collapsed");
  reread = tsl_flame_new (back, NULL, G_MININT64, G_MAXINT64);

  g_assert_cmpuint (tsl_flame_get_events (reread), ==, tsl_flame_get_events (flame));
  g_assert_cmpuint (tsl_flame_get_n_nodes (reread), ==, tsl_flame_get_n_nodes (flame));
  assert_same_events (reread, tsl_flame_get_root (flame));
  g_unlink (path);
}

static void
test_tree_csv (void)
{
  g_autofree char *path = write_temp ("stacks.folded", "main;c 4\nmain;a;b 3\nother 2\nmain;a 1\n");
  g_autoptr(TslSnapshot) snapshot = read_snapshot (path, 1000);
  g_autoptr(TslFlame) flame = tsl_flame_new (snapshot, NULL, G_MININT64, G_MAXINT64);
  g_autoptr(GOutputStream) out = g_memory_output_stream_new_resizable ();
  g_autofree char *text = NULL;

  g_assert_true (tsl_flame_write_tree_csv (flame, out, NULL, NULL));
  g_output_stream_write_all (out, "", 1, NULL, NULL, NULL);
  g_output_stream_close (out, NULL, NULL);
  text = g_memory_output_stream_steal_data (G_MEMORY_OUTPUT_STREAM (out));
  g_assert_cmpstr (text, ==,
                   "call_path,self_share,total_share,self_weight,total_weight\n"
                   "main,0,0.8,0,8\n"
                   "main;a,0.1,0.4,1,4\n"
                   "main;a;b,0.3,0.3,3,3\n"
                   "main;c,0.4,0.4,4,4\n"
                   "other,0.2,0.2,2,2\n");
  g_unlink (path);
}

/* Red grew, blue shrank, grey unchanged; only significance saturates. */
static void
test_colours (void)
{
  TslFlameDiff grew = { 0.1, 0.15, 0.5, 0.2, 0.8, 0.001, 0.002, TRUE, TRUE };
  TslFlameDiff shrank = grew, pale = grew, same = grew;
  double rgb[3], chroma_sig, chroma_pale;

  shrank.change = -0.4;
  pale.change = 3.0;           /* ×4, but not significant */
  pale.significant = FALSE;
  same.change = 0;
  same.significant = FALSE;

  tsl_render_flame_diff_color (&grew, FALSE, rgb);
  g_assert_cmpfloat (rgb[0], >, rgb[2] + 0.3);
  chroma_sig = MAX (rgb[0], MAX (rgb[1], rgb[2])) - MIN (rgb[0], MIN (rgb[1], rgb[2]));
  tsl_render_flame_diff_color (&shrank, FALSE, rgb);
  g_assert_cmpfloat (rgb[2], >, rgb[0] + 0.3);
  tsl_render_flame_diff_color (&pale, FALSE, rgb);
  chroma_pale = MAX (rgb[0], MAX (rgb[1], rgb[2])) - MIN (rgb[0], MIN (rgb[1], rgb[2]));
  g_assert_cmpfloat (rgb[0], >, rgb[2]);
  g_assert_cmpfloat (chroma_pale, <, 0.2);
  g_assert_cmpfloat (chroma_sig, >, 2 * chroma_pale);
  tsl_render_flame_diff_color (&same, FALSE, rgb);
  g_assert_cmpfloat (fabs (rgb[0] - rgb[2]), <, 0.02);
}

/* The painter draws and hit-tests what the model lays out. */
static void
test_paint_hit (void)
{
  g_autofree char *path = write_temp ("stacks.folded", "main;c 4\nmain;a;b 3\nother 2\nmain;a 1\n");
  g_autoptr(TslSnapshot) snapshot = read_snapshot (path, 1000);
  g_autoptr(TslFlame) flame = tsl_flame_new (snapshot, NULL, G_MININT64, G_MAXINT64);
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 1000, 300);
  cairo_t *cr = cairo_create (surface);
  TslFlameRenderOptions o;
  const TslFlameNode *hit;
  g_autofree char *text = NULL;
  double bottom;

  tsl_render_flame_options_init (&o, 1000, 300);
  o.highlight = "b";
  tsl_render_flame_paint (cr, flame, &o);
  g_assert_cmpint (cairo_status (cr), ==, CAIRO_STATUS_SUCCESS);

  /* Root at the bottom: the row above the root holds main and other. */
  bottom = 300 - 24 - 10;
  hit = tsl_render_flame_hit_test (flame, &o, 500, bottom - 5);
  g_assert_true (hit == tsl_flame_get_root (flame));
  hit = tsl_render_flame_hit_test (flame, &o, 900, bottom - TSL_RENDER_FLAME_ROW_HEIGHT - 5);
  g_assert_cmpstr (hit->name, ==, "other");
  hit = tsl_render_flame_hit_test (flame, &o, 100, bottom - 3 * TSL_RENDER_FLAME_ROW_HEIGHT - 5);
  g_assert_cmpstr (hit->name, ==, "b");
  text = tsl_render_flame_describe (flame, hit, FALSE);
  g_assert_nonnull (strstr (text, "main › a › b"));
  g_assert_nonnull (strstr (text, "30.00%"));

  /* Zoomed on main;a: its row spans the width, b fills it. */
  o.zoom = find (flame, "main;a");
  hit = tsl_render_flame_hit_test (flame, &o, 500, bottom - 3 * TSL_RENDER_FLAME_ROW_HEIGHT - 5);
  g_assert_cmpstr (hit->name, ==, "b");
  o.icicle = TRUE;
  hit = tsl_render_flame_hit_test (flame, &o, 20, 26 + 10 + 5);
  g_assert_true (hit == tsl_flame_get_root (flame));

  cairo_destroy (cr);
  cairo_surface_destroy (surface);
  g_unlink (path);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/flame/merge", test_merge);
  g_test_add_func ("/flame/weights", test_weights);
  g_test_add_func ("/flame/tree-csv", test_tree_csv);
  g_test_add_func ("/flame/folded-round-trip", test_folded_round_trip);
  g_test_add_func ("/flame/diff/planted", test_diff_planted);
  g_test_add_func ("/flame/diff/null", test_diff_null);
  g_test_add_func ("/flame/diff/empty-side", test_diff_empty_side);
  g_test_add_func ("/flame/diff/time-weight", test_diff_time_weight);
  g_test_add_func ("/flame/colours", test_colours);
  g_test_add_func ("/flame/paint-hit", test_paint_hit);

  return g_test_run ();
}
