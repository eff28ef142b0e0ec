/* test-range-grow.c: range statistics whose blocks grow with the span
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One read of a file whose span is not known beforehand (the blocks double
 * and merge as events land past them, on either side when the input is
 * unsorted) must give exactly the blocks that the span, known in advance,
 * cuts; and where those blocks coincide with the fixed 64 blocks a range
 * read cuts from a known span (128 growing blocks, pairwise), exactly
 * their totals. A group of disjoint ranges filled by one read must give
 * each range exactly what its own read gives. Generated Chrome traces
 * (fixed seed): spans on two threads, a counter, integer values so that
 * sums are exact in any order. A reader hands stacks to growing statistics
 * as name ids (tsl_trace_set_names_func()): the same figures as through
 * their labels.
 */
#include "config.h"

#include <math.h>
#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>

#include "tsl-range-stats-private.h"
#include "tsl-read-stream.h"

/* Block width 2^20 ns; events from 0 to 134.1 ms: 128 blocks from 0, the
 * last 0.89 of a width (not merged), the fixed grid [0, 128 widths). */
#define SHIFT 20
#define END_US 134100

static gint64
line_time (const char *line)
{
  return g_ascii_strtoll (strstr (line, "\"ts\": ") + 6, NULL, 10);
}

static int
by_time (gconstpointer a,
         gconstpointer b)
{
  gint64 ta = line_time (*(const char * const *) a), tb = line_time (*(const char * const *) b);

  return ta < tb ? -1 : ta > tb;
}

static char *
write_trace (guint32  seed,
             gboolean shuffled,
             guint    n)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (seed);
  g_autoptr(GPtrArray) lines = g_ptr_array_new_with_free_func (g_free);
  GString *s = g_string_new ("[\n");
  char *path = NULL;
  int fd;

  g_ptr_array_add (lines, g_strdup ("{\"ph\": \"X\", \"ts\": 0, \"dur\": 3, \"pid\": 1, \"tid\": 1, \"name\": \"f0\"}"));
  g_ptr_array_add (lines, g_strdup_printf ("{\"ph\": \"X\", \"ts\": %d, \"dur\": 2, \"pid\": 1, \"tid\": 2, \"name\": \"f1\"}",
                                           END_US));
  for (guint i = 0; i < n; i++)
    {
      gint32 ts = g_rand_int_range (rand, 0, END_US + 1);

      if (i % 5 == 0)
        g_ptr_array_add (lines, g_strdup_printf ("{\"ph\": \"C\", \"ts\": %d, \"pid\": 1, \"name\": \"mem\", "
                                                 "\"args\": {\"v\": %d}}", ts, g_rand_int_range (rand, 0, 1000)));
      else
        g_ptr_array_add (lines, g_strdup_printf ("{\"ph\": \"X\", \"ts\": %d, \"dur\": %d, \"pid\": 1, \"tid\": %u, "
                                                 "\"name\": \"f%u\"}", ts, g_rand_int_range (rand, 1, 50),
                                                 1 + i % 2, g_rand_int_range (rand, 0, 6)));
    }
  /* Sorted by time, or shuffled so that the first event is mid-span. */
  if (shuffled)
    for (guint i = lines->len; i > 1; i--)
      {
        guint j = g_rand_int_range (rand, 0, i);
        gpointer tmp = lines->pdata[i - 1];

        lines->pdata[i - 1] = lines->pdata[j];
        lines->pdata[j] = tmp;
      }
  else
    g_ptr_array_sort (lines, by_time);
  for (guint i = 0; i < lines->len; i++)
    g_string_append_printf (s, "%s%s\n", (char *) lines->pdata[i], i + 1 < lines->len ? "," : "");
  g_string_append (s, "]\n");

  fd = g_file_open_tmp ("tsl-range-grow-XXXXXX.json", &path, NULL);
  g_assert_cmpint (fd, >=, 0);
  close (fd);
  g_assert_true (g_file_set_contents (path, s->str, s->len, NULL));
  g_string_free (s, TRUE);
  return path;
}

/* grow: 0 fixed [0, 128 widths), 1 growing, 2 growing from the known span. */
static TslRangeStats *
read_stats (const char *path,
            guint       grow)
{
  g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_COUNT, 100, 1);
  g_autoptr(GError) error = NULL;
  TslRangeStats *stats;

  if (grow == 0)
    {
      tsl_trace_set_time_filter (trace, G_MININT64, G_MAXINT64);
      stats = tsl_range_stats_new (trace, 0, G_MAXINT64, (gint64) 128 << SHIFT);
    }
  else if (grow == 1)
    stats = tsl_range_stats_new_growing (trace, 1, 0);
  else
    stats = tsl_range_stats_new_growing (trace, 0, (gint64) END_US * 1000);
  g_assert_true (tsl_read_path_full (trace, path, TSL_READER_THREADS_NEVER, NULL, NULL, NULL, &error));
  g_assert_no_error (error);
  tsl_range_stats_finish (stats);
  return stats;
}

/* Every series' block arrays, in one order: a track's, then its functions'. */
static GPtrArray *
all_blocks (TslRangeStats *stats)
{
  GPtrArray *out = g_ptr_array_new ();

  for (guint i = 0; i < tsl_range_stats_get_n_tracks (stats); i++)
    {
      const TslRangeTrack *t = tsl_range_stats_get_track (stats, i);

      if (t == NULL)
        continue;
      g_ptr_array_add (out, t->block_n);
      g_ptr_array_add (out, t->block_sum);
      g_ptr_array_add (out, t->block_weighted);
      g_ptr_array_add (out, t->block_held);
      g_ptr_array_add (out, t->block_rise);
      g_ptr_array_add (out, t->block_rise_ns);
      g_ptr_array_add (out, t->block_points);
      for (guint k = 0; k < t->funcs->len; k++)
        {
          const TslRangeFunc *f = g_ptr_array_index (t->funcs, k);

          g_ptr_array_add (out, f->block_calls);
          g_ptr_array_add (out, f->block_total);
          g_ptr_array_add (out, f->block_duration);
          g_ptr_array_add (out, f->block_samples);
        }
    }
  return out;
}

static void
assert_same (TslRangeStats *a,
             TslRangeStats *b)
{
  g_autoptr(GPtrArray) xa = all_blocks (a);
  g_autoptr(GPtrArray) xb = all_blocks (b);
  guint n = tsl_range_stats_get_n_blocks (a);

  g_assert_cmpuint (n, ==, tsl_range_stats_get_n_blocks (b));
  for (guint j = 0; j <= n; j++)
    g_assert_cmpint (tsl_range_stats_block_start (a, j), ==, tsl_range_stats_block_start (b, j));
  g_assert_cmpuint (xa->len, ==, xb->len);
  g_assert_cmpuint (xa->len, >, 20);
  for (guint i = 0; i < xa->len; i++)
    for (guint j = 0; j < n; j++)
      g_assert_cmpfloat (((double *) xa->pdata[i])[j], ==, ((double *) xb->pdata[i])[j]);
}

/* Growing blocks, unsorted or not, give what the known span gives; 128 of
 * them pairwise give the fixed 64 blocks' totals, every event counted. */
static void
test_same_blocks (void)
{
  for (guint seed = 1; seed <= 6; seed++)
    {
      g_autofree char *path = write_trace (seed, seed % 2 == 0, 4000);
      g_autoptr(TslRangeStats) fixed = read_stats (path, 0);
      g_autoptr(TslRangeStats) grown = read_stats (path, 1);
      g_autoptr(TslRangeStats) known = read_stats (path, 2);
      g_autoptr(GPtrArray) xf = all_blocks (fixed);
      g_autoptr(GPtrArray) xg = all_blocks (grown);
      double events = 0;

      g_assert_cmpuint (tsl_range_stats_get_n_blocks (grown), ==, 128);
      g_assert_cmpint (tsl_range_stats_block_start (grown, 0), ==, 0);
      g_assert_cmpint (tsl_range_stats_block_start (grown, 1), ==, (gint64) 1 << SHIFT);
      /* The counter's last point holds one median gap past the last event. */
      g_assert_cmpint (tsl_range_stats_block_start (grown, 128), >=, (gint64) END_US * 1000);
      assert_same (grown, known);

      g_assert_cmpuint (xf->len, ==, xg->len);
      for (guint i = 0; i < xf->len; i++)
        for (guint j = 0; j < TSL_RANGE_BLOCKS; j++)
          {
            const double *f = xf->pdata[i], *g = xg->pdata[i];

            g_assert_cmpfloat (f[j], ==, g[2 * j] + g[2 * j + 1]);
          }
      for (guint i = 0; i < tsl_range_stats_get_n_tracks (grown); i++)
        {
          const TslRangeTrack *t = tsl_range_stats_get_track (grown, i);

          for (guint k = 0; t != NULL && k < t->funcs->len; k++)
            for (guint j = 0; j < 128; j++)
              events += ((const TslRangeFunc *) g_ptr_array_index (t->funcs, k))->block_calls[j];
          for (guint j = 0; t != NULL && j < 128; j++)
            events += t->block_n[j];
        }
      g_assert_cmpfloat (events, ==, 4002);
      g_unlink (path);
    }
}

/* A first or last block shorter than half a width joins its neighbour:
 * blocks from 1.7 widths to 100.2 widths are 98, not 100. */
static void
test_edges (void)
{
  const gint64 w = (gint64) 1 << 16;
  g_autofree char *path = NULL;
  g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_COUNT, 100, 1);
  g_autoptr(TslRangeStats) stats = NULL;
  g_autoptr(GError) error = NULL;
  GString *s = g_string_new ("[\n");
  const double at[] = { 100.2, 1.7, 50, 2.1, 99.9 };
  double total = 0;
  int fd;

  for (guint i = 0; i < G_N_ELEMENTS (at); i++)
    g_string_append_printf (s, "{\"ph\": \"X\", \"ts\": %.3f, \"dur\": 1, \"pid\": 1, \"tid\": 1, \"name\": \"f\"}%s\n",
                            at[i] * w / 1000, i + 1 < G_N_ELEMENTS (at) ? "," : "");
  g_string_append (s, "]\n");
  fd = g_file_open_tmp ("tsl-range-grow-XXXXXX.json", &path, NULL);
  g_assert_cmpint (fd, >=, 0);
  close (fd);
  g_assert_true (g_file_set_contents (path, s->str, s->len, NULL));
  g_string_free (s, TRUE);

  stats = tsl_range_stats_new_growing (trace, 1, 0);
  g_assert_true (tsl_read_path_full (trace, path, TSL_READER_THREADS_NEVER, NULL, NULL, NULL, &error));
  g_assert_no_error (error);
  tsl_range_stats_finish (stats);

  g_assert_cmpuint (tsl_range_stats_get_n_blocks (stats), ==, 98);
  g_assert_cmpint (llabs (tsl_range_stats_block_start (stats, 0) - (gint64) (1.7 * w)), <=, 1000);
  g_assert_cmpint (tsl_range_stats_block_start (stats, 1), ==, 3 * w);
  g_assert_cmpint (tsl_range_stats_block_start (stats, 97), ==, 99 * w);
  for (guint j = 0; j < 98; j++)
    total += ((const TslRangeFunc *) g_ptr_array_index (tsl_range_stats_get_track (stats, 0)->funcs, 0))->block_calls[j];
  g_assert_cmpfloat (total, ==, 5);
  /* The first block holds the events at 1.7 and 2.1 widths, the last the
   * ones at 99.9 and 100.2. */
  g_assert_cmpfloat (((const TslRangeFunc *) g_ptr_array_index (tsl_range_stats_get_track (stats, 0)->funcs, 0))->block_calls[0], ==, 2);
  g_assert_cmpfloat (((const TslRangeFunc *) g_ptr_array_index (tsl_range_stats_get_track (stats, 0)->funcs, 0))->block_calls[97], ==, 2);
  g_unlink (path);
}

static TslRangeStats *
read_range (const char *path,
            gint64      lo,
            gint64      hi)
{
  g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_COUNT, 100, 1);
  g_autoptr(GError) error = NULL;
  TslRangeStats *stats;

  tsl_trace_set_time_filter (trace, lo, hi);
  stats = tsl_range_stats_new (trace, lo, hi, hi);
  g_assert_true (tsl_read_path_full (trace, path, TSL_READER_THREADS_NEVER, NULL, NULL, NULL, &error));
  g_assert_no_error (error);
  tsl_range_stats_finish (stats);
  return stats;
}

/* Each range of a group read (given out of time order, the last past every
 * event) holds exactly what reading it alone gives: blocks, totals,
 * the ends of series. */
static void
test_group (void)
{
  const gint64 lo[] = { 60000000, 10000000, 20000000, 134101000 };
  const gint64 hi[] = { 61000000, 20000000, 35000000, 140000000 };
  const guint n = G_N_ELEMENTS (lo);

  for (guint seed = 1; seed <= 4; seed++)
    {
      g_autofree char *path = write_trace (seed, seed % 2 == 0, 3000);
      g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_COUNT, 100, 1);
      g_autoptr(TslRangeStatsGroup) group = NULL;
      g_autoptr(GError) error = NULL;

      tsl_trace_set_time_filter (trace, 10000000, 140000000);
      group = tsl_range_stats_group_new (trace, n, lo, hi, hi);
      g_assert_true (tsl_read_path_full (trace, path, TSL_READER_THREADS_NEVER, NULL, NULL, NULL, &error));
      g_assert_no_error (error);
      tsl_range_stats_group_finish (group);

      for (guint r = 0; r < n; r++)
        {
          g_autoptr(TslRangeStats) alone = read_range (path, lo[r], hi[r]);
          TslRangeStats *in_group = tsl_range_stats_group_get (group, r);
          guint calls = 0;

          assert_same (alone, in_group);
          g_assert_cmpint (tsl_range_stats_get_data_end (alone), ==, tsl_range_stats_get_data_end (in_group));
          g_assert_cmpuint (tsl_range_stats_get_n_tracks (alone), ==, tsl_range_stats_get_n_tracks (in_group));
          for (guint i = 0; i < tsl_range_stats_get_n_tracks (alone); i++)
            {
              const TslRangeTrack *a = tsl_range_stats_get_track (alone, i);
              const TslRangeTrack *b = tsl_range_stats_get_track (in_group, i);

              g_assert_true ((a == NULL) == (b == NULL));
              if (a == NULL)
                continue;
              g_assert_cmpuint (a->n, ==, b->n);
              g_assert_cmpfloat (a->sum, ==, b->sum);
              g_assert_cmpfloat (a->weighted_sum, ==, b->weighted_sum);
              g_assert_cmpfloat (a->held_ns, ==, b->held_ns);
              g_assert_cmpint (a->last_ns, ==, b->last_ns);
              g_assert_cmpfloat (a->median_gap_ns, ==, b->median_gap_ns);
              g_assert_cmpuint (a->points, ==, b->points);
              g_assert_cmpuint (a->funcs->len, ==, b->funcs->len);
              for (guint k = 0; k < a->funcs->len; k++)
                {
                  const TslRangeFunc *fa = g_ptr_array_index (a->funcs, k);
                  const TslRangeFunc *fb = g_ptr_array_index (b->funcs, k);

                  g_assert_cmpstr (fa->name, ==, fb->name);
                  g_assert_cmpuint (fa->calls, ==, fb->calls);
                  g_assert_cmpfloat (fa->total_ns, ==, fb->total_ns);
                  g_assert_cmpfloat (fa->self_ns, ==, fb->self_ns);
                  g_assert_cmpfloat (fa->duration_ns, ==, fb->duration_ns);
                  /* The group keeps no durations (no quantiles of them). */
                  g_assert_cmpuint (fb->durations->len, ==, 0);
                  calls += fa->calls;
                }
            }
          /* Not vacuous: the wide ranges hold calls, the last none. */
          if (r == 1 || r == 2)
            g_assert_cmpuint (calls, >, 100);
          if (r == 3)
            g_assert_cmpuint (calls, ==, 0);
        }
      g_unlink (path);
    }
}

/* Nested spans, X and B/E, a name often inside itself, from `t` for `dur`
 * µs; an instant now and then. */
static void
nest (GRand       *rand,
      GString     *s,
      const char  *const *names,
      guint        n_names,
      guint        tid,
      gint64       t,
      gint64       dur,
      guint        depth)
{
  const char *name = names[g_rand_int_range (rand, 0, n_names)];
  gboolean pair = g_rand_boolean (rand);
  gint64 at = t + 1;

  if (pair)
    g_string_append_printf (s, "{\"ph\": \"B\", \"ts\": %" G_GINT64_FORMAT ", \"pid\": 1, \"tid\": %u, \"name\": \"%s\"},\n",
                            t, tid, name);
  else
    g_string_append_printf (s, "{\"ph\": \"X\", \"ts\": %" G_GINT64_FORMAT ", \"dur\": %" G_GINT64_FORMAT
                            ", \"pid\": 1, \"tid\": %u, \"name\": \"%s\"},\n", t, dur, tid, name);
  while (depth < 6 && at + 4 < t + dur && g_rand_int_range (rand, 0, 3) > 0)
    {
      gint64 d = g_rand_int_range (rand, 1, (gint32) MIN (t + dur - at - 2, 400));

      if (g_rand_int_range (rand, 0, 8) == 0)
        g_string_append_printf (s, "{\"ph\": \"i\", \"ts\": %" G_GINT64_FORMAT ", \"pid\": 1, \"tid\": %u, \"name\": \"%s\"},\n",
                                at, tid, names[0]);
      nest (rand, s, names, n_names, tid, at, d, depth + 1);
      at += d + 1;
    }
  if (pair)
    g_string_append_printf (s, "{\"ph\": \"E\", \"ts\": %" G_GINT64_FORMAT ", \"pid\": 1, \"tid\": %u},\n",
                            t + dur, tid);
}

static TslRangeStats *
read_growing (const char *path,
              gboolean    labels)
{
  g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_COUNT, 100, 1);
  g_autoptr(GError) error = NULL;
  TslRangeStats *stats = tsl_range_stats_new_growing (trace, 1, 0);

  if (labels)
    _tsl_range_stats_take_labels (stats);
  g_assert_true (tsl_read_path_full (trace, path, TSL_READER_THREADS_NEVER, NULL, NULL, NULL, &error));
  g_assert_no_error (error);
  tsl_range_stats_finish (stats);
  return stats;
}

/* Stacks taken as name ids count as through their labels: calls, times
 * (an outer call of the same name counts once), samples (a name twice on a
 * stack once), blocks; on a thread with spans and on one whose spans count
 * as samples (it has sampled stacks). A name with a ';' (a ':' in a label,
 * where it may equal another name) makes the reader send every label. */
static void
test_leaves (void)
{
  const char *const plain[] = { "run", "run", "a:b", "layout", "paint" };
  const char *const semi[] = { "run", "a;b", "a:b", "layout" };

  for (guint seed = 1; seed <= 4; seed++)
    {
      g_autoptr(GRand) rand = g_rand_new_with_seed (seed);
      gboolean with_semi = seed == 4;
      g_autoptr(GString) s = g_string_new ("[\n");
      g_autofree char *path = NULL;
      g_autoptr(TslRangeStats) leaves = NULL;
      g_autoptr(TslRangeStats) labels = NULL;
      guint n_funcs = 0;
      int fd;

      for (guint tid = 1; tid <= 2; tid++)
        for (gint64 t = 0; t < 200000; t += 2000)
          nest (rand, s, with_semi ? semi : plain, with_semi ? G_N_ELEMENTS (semi) : G_N_ELEMENTS (plain),
                tid, t, 1500, 0);
      g_string_append (s, "{\"ph\": \"C\", \"ts\": 5, \"pid\": 1, \"name\": \"mem\", \"args\": {\"v\": 1}}\n]\n");
      fd = g_file_open_tmp ("tsl-range-leaves-XXXXXX.json", &path, NULL);
      g_assert_cmpint (fd, >=, 0);
      close (fd);
      g_assert_true (g_file_set_contents (path, s->str, s->len, NULL));

      leaves = read_growing (path, FALSE);
      labels = read_growing (path, TRUE);
      g_assert_cmpuint (_tsl_range_stats_get_n_name_events (labels), ==, 0);
      /* With a ';' name, the stacks without one (the figures below tell
       * whether those with one were taken). */
      g_assert_cmpuint (_tsl_range_stats_get_n_name_events (leaves), >, 200);
      assert_same (leaves, labels);
      g_assert_cmpuint (tsl_range_stats_get_n_tracks (leaves), ==, tsl_range_stats_get_n_tracks (labels));
      for (guint i = 0; i < tsl_range_stats_get_n_tracks (leaves); i++)
        {
          const TslRangeTrack *a = tsl_range_stats_get_track (leaves, i);
          const TslRangeTrack *b = tsl_range_stats_get_track (labels, i);

          g_assert_true ((a == NULL) == (b == NULL));
          if (a == NULL)
            continue;
          g_assert_cmpuint (a->funcs->len, ==, b->funcs->len);
          for (guint k = 0; k < a->funcs->len; k++)
            {
              const TslRangeFunc *fa = g_ptr_array_index (a->funcs, k);
              const TslRangeFunc *fb = g_ptr_array_index (b->funcs, k);

              g_assert_cmpstr (fa->name, ==, fb->name);
              g_assert_cmpuint (fa->calls, ==, fb->calls);
              g_assert_cmpuint (fa->samples, ==, fb->samples);
              g_assert_cmpfloat (fa->total_ns, ==, fb->total_ns);
              g_assert_cmpfloat (fa->duration_ns, ==, fb->duration_ns);
              g_assert_cmpfloat (fa->self_ns, ==, fb->self_ns);
              /* Recursion seen: a name inside itself counts its time once. */
              if (strcmp (fa->name, "run") == 0 && !with_semi)
                g_assert_cmpfloat (fa->total_ns, <, fa->duration_ns);
              n_funcs++;
            }
        }
      g_assert_cmpuint (n_funcs, >=, 4);
      g_unlink (path);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *cache = g_dir_make_tmp ("tsl-range-grow-cache-XXXXXX", NULL);
  g_autofree char *rm = NULL;
  int status;

  /* With the cache on, as users have it: the first read of a file saves
   * its sampler state, which a later read that observes the events must
   * not take instead of reading them. */
  g_assert_nonnull (cache);
  g_setenv ("XDG_CACHE_HOME", cache, TRUE);
  g_setenv ("TSL_CACHE_MAX_BYTES", "67108864", TRUE);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/range-grow/same-blocks", test_same_blocks);
  g_test_add_func ("/range-grow/edges", test_edges);
  g_test_add_func ("/range-grow/group", test_group);
  g_test_add_func ("/range-grow/leaves", test_leaves);
  status = g_test_run ();
  rm = g_strdup_printf ("rm -rf '%s'", cache);
  g_assert_true (g_spawn_command_line_sync (rm, NULL, NULL, NULL, NULL));
  return status;
}
