/* test-snapshot-merge.c: several files' snapshots on one time axis
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <string.h>

#include "tsl-snapshot.h"

/* A trace with a thread "main" of process `pid` calling `name` every
 * 10 ms from `start` for `n` calls, and a counter "queue". */
static TslTrace *
make_trace (gint64      start,
            gint64      pid,
            const char *name,
            guint       n)
{
  TslTrace *trace = tsl_trace_new (TSL_SAMPLER_TIME, 16, 1);
  guint thread = tsl_trace_ensure_track (trace, TSL_TRACK_THREAD, pid, pid + 1, NULL);
  guint counter = tsl_trace_ensure_track (trace, TSL_TRACK_COUNTER, pid, 0, "queue");
  g_autofree char *label = g_strdup_printf ("main;%s", name);

  tsl_trace_set_process_name (trace, pid, "app");
  tsl_trace_set_thread_name (trace, pid, pid + 1, "main");
  for (guint i = 0; i < n; i++)
    {
      gint64 t = start + (gint64) i * 10000000;

      if (tsl_trace_offer (trace, thread, t, 1e6))
        tsl_trace_set_label (trace, thread, label);
      tsl_trace_offer (trace, counter, t, i);
    }
  return trace;
}

static const TslSnapshotTrack *
find_track (TslSnapshot *snapshot,
            gint64       pid,
            TslTrackKind kind)
{
  for (guint i = 0; i < tsl_snapshot_get_n_tracks (snapshot); i++)
    {
      const TslSnapshotTrack *t = tsl_snapshot_get_track (snapshot, i);

      if (t->pid == pid && t->kind == kind)
        return t;
    }
  return NULL;
}

static void
test_merge (void)
{
  g_autoptr(TslTrace) a = make_trace (5000000000, 10, "parse", 100);
  g_autoptr(TslTrace) b = make_trace (900000000000, 77, "layout", 50);
  g_autoptr(TslSnapshot) sa = tsl_snapshot_new (a);
  g_autoptr(TslSnapshot) sb = tsl_snapshot_new (b);
  TslSnapshot *parts[] = { sa, sb };
  const char *names[] = { "before.json", "after.json" };
  const gint64 positions[] = { 0, 1500000000 };   /* B moved by 1.5 s */
  g_autoptr(TslSnapshot) merged = tsl_snapshot_new_merged (parts, names, positions, 2);
  const TslSnapshotTrack *ta, *tb, *oa, *ob;
  const char *name = NULL;
  gint64 position = -1, span = -1;

  g_assert_cmpuint (tsl_snapshot_get_n_parts (sa), ==, 0);
  g_assert_cmpuint (tsl_snapshot_get_n_parts (merged), ==, 2);
  g_assert_cmpuint (tsl_snapshot_get_n_tracks (merged), ==,
                    tsl_snapshot_get_n_tracks (sa) + tsl_snapshot_get_n_tracks (sb));
  g_assert_cmpuint (tsl_snapshot_get_events (merged), ==,
                    tsl_snapshot_get_events (sa) + tsl_snapshot_get_events (sb));
  g_assert_true (tsl_snapshot_get_part (merged, 1, &name, &position, &span));
  g_assert_cmpstr (name, ==, "after.json");
  g_assert_cmpint (position, ==, 1500000000);
  g_assert_cmpint (span, ==, tsl_snapshot_get_span (sb));
  g_assert_false (tsl_snapshot_get_part (merged, 2, NULL, NULL, NULL));
  /* The span reaches the later end: A's 0.99 s, B's 1.5 + 0.49 s. */
  g_assert_cmpint (tsl_snapshot_get_span (merged), ==,
                   MAX (tsl_snapshot_get_span (sa), 1500000000 + tsl_snapshot_get_span (sb)));

  /* One group per file, named after it, in the order given. */
  ta = find_track (merged, 1, TSL_TRACK_THREAD);
  tb = find_track (merged, 2, TSL_TRACK_THREAD);
  g_assert_nonnull (ta);
  g_assert_nonnull (tb);
  g_assert_cmpstr (ta->process, ==, "before.json");
  g_assert_cmpstr (tb->process, ==, "after.json");
  g_assert_cmpstr (ta->name, ==, "main");
  g_assert_cmpstr (tb->name, ==, "main");
  g_assert_true (ta < tb);

  /* Samples moved by their file's position, frames by name. */
  oa = find_track (sa, 10, TSL_TRACK_THREAD);
  ob = find_track (sb, 77, TSL_TRACK_THREAD);
  g_assert_cmpuint (ta->n_samples, ==, oa->n_samples);
  g_assert_cmpuint (tb->n_samples, ==, ob->n_samples);
  for (guint i = 0; i < tb->n_samples; i++)
    {
      g_assert_cmpint (tb->samples[i].time_ns, ==, ob->samples[i].time_ns + 1500000000);
      g_assert_cmpint (tb->samples[i].start_ns, ==, ob->samples[i].start_ns + 1500000000);
      g_assert_cmpuint (tb->samples[i].n_frames, ==, 2);
      g_assert_cmpstr (tsl_snapshot_get_frame_name (merged, tb->samples[i].frames[1]), ==, "layout");
    }
  for (guint i = 0; i < ta->n_samples; i++)
    {
      g_assert_cmpint (ta->samples[i].time_ns, ==, oa->samples[i].time_ns);
      g_assert_cmpstr (tsl_snapshot_get_frame_name (merged, ta->samples[i].frames[1]), ==, "parse");
    }

  /* Which file a range lies in: the one it overlaps most. */
  g_assert_cmpuint (tsl_snapshot_find_part (merged, 0, 200000000), ==, 0);
  g_assert_cmpuint (tsl_snapshot_find_part (merged, 900000000, 1800000000), ==, 1);
  g_assert_cmpuint (tsl_snapshot_find_part (merged, 500000000, 1600000000), ==, 0);
  g_assert_cmpuint (tsl_snapshot_find_part (merged, 5000000000, 6000000000), ==, G_MAXUINT);
}

static void
test_align (void)
{
  gint64 positions[3];
  /* Two runs on one host's monotonic clock, minutes apart: each from 0. */
  const gint64 runs[] = { 5000000000, 900000000000 }, run_spans[] = { 2000000000, 2000000000 };
  /* Two processes traced at once: by their clocks. */
  const gint64 procs[] = { 5000000000, 5400000000 }, proc_spans[] = { 2000000000, 1000000000 };
  /* CSV with wall-clock times, a day apart: by the clock all the same. */
  const gint64 wall[] = { G_GINT64_CONSTANT (1700000000000000000), G_GINT64_CONSTANT (1700086400000000000) };
  const gint64 wall_spans[] = { 60000000000, 60000000000 };
  /* A chain: the third overlaps only the second. */
  const gint64 chain[] = { 0, 1500000000, 2800000000 }, chain_spans[] = { 2000000000, 2000000000, 2000000000 };

  g_assert_false (tsl_snapshot_align (runs, run_spans, 2, positions));
  g_assert_cmpint (positions[0], ==, 0);
  g_assert_cmpint (positions[1], ==, 0);

  g_assert_true (tsl_snapshot_align (procs, proc_spans, 2, positions));
  g_assert_cmpint (positions[0], ==, 0);
  g_assert_cmpint (positions[1], ==, 400000000);

  g_assert_true (tsl_snapshot_align (wall, wall_spans, 2, positions));
  g_assert_cmpint (positions[1], ==, G_GINT64_CONSTANT (86400000000000));

  g_assert_true (tsl_snapshot_align (chain, chain_spans, 3, positions));
  g_assert_cmpint (positions[2], ==, 2800000000);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/snapshot-merge/merge", test_merge);
  g_test_add_func ("/snapshot-merge/align", test_align);
  return g_test_run ();
}
