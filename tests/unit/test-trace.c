/* test-trace.c: the trace model — strings, tracks, metadata, warnings
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <math.h>
#include <string.h>

#include "tsl-label-store.h"
#include "tsl-snapshot.h"
#include "tsl-trace.h"

#include "test-warnings.h"

static void
test_intern (void)
{
  g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_COUNT, 4, 1);
  const char buffer[] = "main;parse;lex";
  guint32 a, b, c;

  g_assert_cmpuint (tsl_trace_intern (trace, NULL), ==, 0);
  g_assert_null (tsl_trace_lookup (trace, 0));
  g_assert_null (tsl_trace_lookup (trace, 12345));

  a = tsl_trace_intern (trace, "main");
  b = tsl_trace_intern (trace, "parse");
  g_assert_cmpuint (a, !=, 0);
  g_assert_cmpuint (b, !=, 0);
  g_assert_cmpuint (a, !=, b);
  g_assert_cmpuint (tsl_trace_intern (trace, "main"), ==, a);
  g_assert_cmpstr (tsl_trace_lookup (trace, a), ==, "main");
  g_assert_cmpstr (tsl_trace_lookup (trace, b), ==, "parse");

  /* A slice of a buffer, not NUL-terminated where it ends. */
  g_assert_cmpuint (tsl_trace_intern_len (trace, buffer, 4), ==, a);
  g_assert_cmpuint (tsl_trace_intern_len (trace, buffer + 5, 5), ==, b);
  c = tsl_trace_intern_len (trace, buffer, -1);
  g_assert_cmpstr (tsl_trace_lookup (trace, c), ==, buffer);

  /* Longer than the stack buffer used for short slices. */
  {
    g_autofree char *long_str = g_strnfill (1000, 'x');
    guint32 id = tsl_trace_intern_len (trace, long_str, 600);

    g_assert_cmpuint (strlen (tsl_trace_lookup (trace, id)), ==, 600);
    g_assert_cmpuint (tsl_trace_intern_len (trace, long_str, 600), ==, id);
  }

  /* Empty is a real string, distinct from "none". */
  g_assert_cmpuint (tsl_trace_intern (trace, ""), !=, 0);
  g_assert_cmpstr (tsl_trace_lookup (trace, tsl_trace_intern (trace, "")), ==, "");
}

/* Two repaired names joined give the id interning the joined text gives,
 * repaired names (bad UTF-8, NULs, cut parts) and labels included. */
static void
test_intern_joined (void)
{
  g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_COUNT, 4, 1);
  g_autofree char *huge = g_strnfill (20000, 'y');
  const char *names[] = { "main", "a;b", "bad \xff byte", "", "\xc3", huge };
  guint32 ids[G_N_ELEMENTS (names) + 1];
  guint32 label;

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    ids[i] = tsl_trace_intern (trace, names[i]);
  ids[G_N_ELEMENTS (names)] = tsl_trace_intern_len (trace, "nul\0inside", 10);
  for (guint i = 0; i < G_N_ELEMENTS (ids); i++)
    for (guint j = 0; j < G_N_ELEMENTS (ids); j++)
      {
        g_autofree char *text = g_strconcat (tsl_trace_lookup (trace, ids[i]), ";",
                                             tsl_trace_lookup (trace, ids[j]), NULL);
        guint32 joined = tsl_trace_intern_joined (trace, ids[i], ids[j], G_MAXSIZE);

        /* Before and after the joined text was interned some other way. */
        g_assert_cmpuint (joined, ==, tsl_trace_intern (trace, text));
        g_assert_cmpuint (tsl_trace_intern_joined (trace, ids[i], ids[j], G_MAXSIZE), ==, joined);
        g_assert_cmpstr (tsl_trace_lookup (trace, joined), ==, text);
        g_assert_cmpuint (tsl_trace_intern_joined (trace, ids[i], ids[j], strlen (text) - 1), ==, 0);
      }
  /* No id, unknown ids and label ids are not strings to join. */
  label = tsl_trace_ensure_track (trace, TSL_TRACK_THREAD, 1, 1, NULL);
  g_assert_true (tsl_trace_offer (trace, label, 0, 1.0));
  tsl_trace_set_label (trace, label, "x;y");
  g_assert_cmpuint (tsl_trace_intern_joined (trace, 0, ids[0], G_MAXSIZE), ==, 0);
  g_assert_cmpuint (tsl_trace_intern_joined (trace, ids[0], 1u << 20, G_MAXSIZE), ==, 0);
  g_assert_cmpuint (tsl_trace_intern_joined (trace, TSL_LABEL_TAG | 1, ids[0], G_MAXSIZE), ==, 0);
}

/* Issue 16 D12: a huge name is cut, part by part, before it is stored. */
static void
test_long_names (void)
{
  g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_COUNT, 4, 1);
  g_autofree char *huge = g_strnfill (1000 * 1000, 'x');
  g_autoptr(GString) stack = g_string_new ("main;");
  const char *name;
  const TslSample *samples;
  g_auto(GStrv) parts = NULL;
  guint track, n;

  name = tsl_trace_lookup (trace, tsl_trace_intern_len (trace, huge, strlen (huge)));
  g_assert_cmpuint (strlen (name), ==, 16384);
  g_assert_true (g_str_has_suffix (name, "…"));
  g_assert_cmpint (memcmp (name, huge, 16381), ==, 0);
  {
    g_auto(GStrv) warnings = tsl_trace_dup_warnings (trace);
    g_autofree char *all = g_strjoinv ("\n", warnings);

    g_assert_nonnull (strstr (all, "names longer than 16384 bytes were cut"));
  }
  /* Interned again: the same cut name. */
  g_assert_cmpstr (tsl_trace_lookup (trace, tsl_trace_intern (trace, huge)), ==, name);

  /* A stack label keeps its short frames whole, around the cut one; a cut
   * never splits a UTF-8 character. */
  for (guint i = 0; i < 100000; i++)
    g_string_append (stack, "é");   /* two bytes: the cut at an odd byte backs off */
  g_string_append (stack, ";leaf");
  track = tsl_trace_ensure_track (trace, TSL_TRACK_THREAD, 1, 1, NULL);
  g_assert_true (tsl_trace_offer (trace, track, 0, 1));
  tsl_trace_set_label_len (trace, track, stack->str, stack->len);
  samples = tsl_sampler_peek_samples (tsl_trace_track_get_sampler (trace, track), &n);
  g_assert_cmpuint (n, ==, 1);
  parts = g_strsplit (tsl_trace_lookup (trace, samples[0].label), ";", -1);
  g_assert_cmpuint (g_strv_length (parts), ==, 3);
  g_assert_cmpstr (parts[0], ==, "main");
  g_assert_cmpuint (strlen (parts[1]), <=, 16384);
  g_assert_cmpuint (strlen (parts[1]), >=, 16384 - 4);
  g_assert_true (g_str_has_suffix (parts[1], "éé…"));
  g_assert_true (g_utf8_validate (parts[1], -1, NULL));
  g_assert_cmpstr (parts[2], ==, "leaf");
}

/* NUL bytes in a name are U+FFFD, so its length and its C string agree
 * (a collapsed stack "main;a\0b;c" once lost "b;c" and fed the snapshot a
 * name shorter than its hash said); a frame whose 32-bit hash equals the
 * empty name's keeps its own name. */
static void
test_nul_names (void)
{
  g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_COUNT, 4, 1);
  g_autoptr(TslSnapshot) snapshot = NULL;
  static const char stack[] = "main;a\0b;c";
  const TslSnapshotTrack *t;
  g_auto(GStrv) warnings = NULL;
  guint track;

  g_assert_cmpstr (tsl_trace_lookup (trace, tsl_trace_intern_len (trace, "x\0y", 3)), ==, "x\xef\xbf\xbdy");
  track = tsl_trace_ensure_track (trace, TSL_TRACK_THREAD, 1, 1, NULL);
  g_assert_true (tsl_trace_offer (trace, track, 0, 1));
  tsl_trace_set_label_len (trace, track, stack, sizeof stack - 1);
  /* "v\u01cc'" hashes to the empty name's 32 bits. */
  g_assert_true (tsl_trace_offer (trace, track, 1, 1));
  tsl_trace_set_label_len (trace, track, "main;v\xc7\x8c'", 9);
  g_assert_true (tsl_trace_offer (trace, track, 2, 1));
  tsl_trace_set_label (trace, track, "main;;");

  snapshot = tsl_snapshot_new (trace);
  t = tsl_snapshot_get_track (snapshot, 0);
  g_assert_cmpuint (t->n_samples, ==, 3);
  g_assert_cmpuint (t->samples[0].n_frames, ==, 3);
  g_assert_cmpstr (tsl_snapshot_get_frame_name (snapshot, t->samples[0].frames[1]), ==, "a\xef\xbf\xbd" "b");
  g_assert_cmpstr (tsl_snapshot_get_frame_name (snapshot, t->samples[0].frames[2]), ==, "c");
  g_assert_cmpuint (t->samples[1].n_frames, ==, 2);
  g_assert_cmpstr (tsl_snapshot_get_frame_name (snapshot, t->samples[1].frames[1]), ==, "v\xc7\x8c'");
  g_assert_cmpuint (t->samples[2].n_frames, ==, 3);
  g_assert_cmpstr (tsl_snapshot_get_frame_name (snapshot, t->samples[2].frames[1]), ==, "");
  g_assert_cmpstr (tsl_snapshot_get_frame_name (snapshot, t->samples[2].frames[2]), ==, "");
  warnings = tsl_trace_dup_warnings (trace);
  g_assert_true (g_strv_contains ((const char * const *) warnings,
                                  "names holding NUL bytes were read; each NUL is shown as U+FFFD"));
}

static void
test_track_keys (void)
{
  g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_COUNT, 4, 1);
  guint t1, t2, c1, c2, m1, a1;

  t1 = tsl_trace_ensure_track (trace, TSL_TRACK_THREAD, 1, 10, "ignored");
  g_assert_cmpuint (tsl_trace_ensure_track (trace, TSL_TRACK_THREAD, 1, 10, NULL), ==, t1);
  t2 = tsl_trace_ensure_track (trace, TSL_TRACK_THREAD, 2, 10, NULL);
  g_assert_cmpuint (t2, !=, t1);
  g_assert_cmpuint (tsl_trace_ensure_track (trace, TSL_TRACK_THREAD, 1, 11, NULL), !=, t1);

  c1 = tsl_trace_ensure_track (trace, TSL_TRACK_COUNTER, 1, 10, "heap");
  g_assert_cmpuint (c1, !=, t1);
  /* Counters: (pid, name), tid ignored. */
  g_assert_cmpuint (tsl_trace_ensure_track (trace, TSL_TRACK_COUNTER, 1, 99, "heap"), ==, c1);
  c2 = tsl_trace_ensure_track (trace, TSL_TRACK_COUNTER, 2, 10, "heap");
  g_assert_cmpuint (c2, !=, c1);
  g_assert_cmpuint (tsl_trace_ensure_track (trace, TSL_TRACK_COUNTER, 1, 10, "rss"), !=, c1);

  /* Metrics: by name alone. */
  m1 = tsl_trace_ensure_track (trace, TSL_TRACK_METRIC, 0, 0, "cpu");
  g_assert_cmpuint (tsl_trace_ensure_track (trace, TSL_TRACK_METRIC, 5, 6, "cpu"), ==, m1);
  g_assert_cmpuint (tsl_trace_ensure_track (trace, TSL_TRACK_METRIC, 0, 0, "heap"), !=, c1);

  /* Async: (pid, name), distinct from a counter of the same name. */
  a1 = tsl_trace_ensure_track (trace, TSL_TRACK_ASYNC, 1, 0, "heap");
  g_assert_cmpuint (a1, !=, c1);
  g_assert_cmpuint (tsl_trace_ensure_track (trace, TSL_TRACK_ASYNC, 1, 3, "heap"), ==, a1);

  g_assert_cmpuint (tsl_trace_get_n_tracks (trace), ==, 9);
  g_assert_cmpint (tsl_trace_track_get_kind (trace, c1), ==, TSL_TRACK_COUNTER);
  g_assert_cmpint (tsl_trace_track_get_kind (trace, a1), ==, TSL_TRACK_ASYNC);
  g_assert_cmpint (tsl_trace_track_get_pid (trace, t2), ==, 2);
  g_assert_cmpint (tsl_trace_track_get_tid (trace, t2), ==, 10);
  g_assert_cmpstr (tsl_trace_track_get_name (trace, c1), ==, "heap");
  g_assert_cmpstr (tsl_trace_track_get_name (trace, m1), ==, "cpu");
  g_assert_cmpstr (tsl_track_kind_to_string (TSL_TRACK_METRIC), ==, "metric");

  g_assert_null (tsl_trace_track_get_unit (trace, m1));
  tsl_trace_track_set_unit (trace, m1, "%");
  g_assert_cmpstr (tsl_trace_track_get_unit (trace, m1), ==, "%");

  /* One sampler per track, all with the trace's K and seed. */
  g_assert_true (tsl_trace_track_get_sampler (trace, t1) != tsl_trace_track_get_sampler (trace, t2));
  g_assert_cmpuint (tsl_sampler_get_k (tsl_trace_track_get_sampler (trace, c2)), ==, 4);
  g_assert_cmpuint (tsl_sampler_get_seed (tsl_trace_track_get_sampler (trace, c2)), ==, 1);
}

static void
test_metadata (void)
{
  g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_COUNT, 4, 1);
  guint before, after, unnamed;

  /* Name and sort index before the track exists... */
  tsl_trace_set_thread_name (trace, 1, 10, "main");
  tsl_trace_set_thread_sort_index (trace, 1, 10, -3);
  before = tsl_trace_ensure_track (trace, TSL_TRACK_THREAD, 1, 10, NULL);
  g_assert_cmpstr (tsl_trace_track_get_name (trace, before), ==, "main");
  g_assert_cmpint (tsl_trace_track_get_sort_index (trace, before), ==, -3);

  /* ...and after it. */
  after = tsl_trace_ensure_track (trace, TSL_TRACK_THREAD, 1, 11, NULL);
  g_assert_cmpstr (tsl_trace_track_get_name (trace, after), ==, "Thread 11");
  g_assert_cmpint (tsl_trace_track_get_sort_index (trace, after), ==, 0);
  tsl_trace_set_thread_name (trace, 1, 11, "worker");
  tsl_trace_set_thread_sort_index (trace, 1, 11, 7);
  g_assert_cmpstr (tsl_trace_track_get_name (trace, after), ==, "worker");
  g_assert_cmpint (tsl_trace_track_get_sort_index (trace, after), ==, 7);

  /* Same tid in another process is another thread. */
  unnamed = tsl_trace_ensure_track (trace, TSL_TRACK_THREAD, 2, 10, NULL);
  g_assert_cmpstr (tsl_trace_track_get_name (trace, unnamed), ==, "Thread 10");

  g_assert_null (tsl_trace_get_process_name (trace, 1));
  tsl_trace_set_process_name (trace, 1, "browser");
  tsl_trace_set_process_sort_index (trace, 2, 5);
  g_assert_cmpstr (tsl_trace_get_process_name (trace, 1), ==, "browser");
  g_assert_null (tsl_trace_get_process_name (trace, 2));
  g_assert_cmpint (tsl_trace_get_process_sort_index (trace, 2), ==, 5);
  g_assert_cmpint (tsl_trace_get_process_sort_index (trace, 1), ==, 0);

  tsl_trace_set_format (trace, "chrome-json");
  g_assert_cmpstr (tsl_trace_get_format (trace), ==, "chrome-json");
}

static void
test_warnings (void)
{
  g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_COUNT, 4, 1);
  g_auto(GStrv) warnings = NULL;
  g_auto(GStrv) many = NULL;

  tsl_trace_add_warning (trace, "unknown phase “%s”", "Q");
  tsl_trace_add_warning (trace, "truncated file");
  tsl_trace_add_warning (trace, "unknown phase “%s”", "Q");
  tsl_trace_add_warning (trace, "unknown phase “%s”", "Z");
  tsl_trace_add_warning (trace, "unknown phase “%s”", "Q");

  warnings = tsl_trace_dup_warnings (trace);
  g_assert_cmpuint (g_strv_length (warnings), ==, 3);
  g_assert_cmpstr (warnings[0], ==, "unknown phase “Q” (3 times)");
  g_assert_cmpstr (warnings[1], ==, "truncated file");
  g_assert_cmpstr (warnings[2], ==, "unknown phase “Z”");

  /* Distinct messages are bounded; the rest are counted in one line. */
  for (guint i = 0; i < 1000; i++)
    tsl_trace_add_warning (trace, "bad line %u", i);
  many = tsl_trace_dup_warnings (trace);
  g_assert_cmpuint (g_strv_length (many), <=, 201);
  g_assert_true (g_str_has_suffix (many[g_strv_length (many) - 1], "more warnings of other kinds"));
}

/* A reader's tallies add up ("N what"), and sit after the other warnings
 * by message, whichever part reported them first. */
static void
test_tallies (void)
{
  g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_COUNT, 4, 1);
  g_autoptr(GArray) counts = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_auto(GStrv) warnings = NULL;
  g_auto(GStrv) messages = NULL;

  tsl_trace_add_tally (trace, 1200, "packets not shown");
  tsl_trace_add_tally (trace, 0, "nothing at all");
  tsl_trace_add_warning (trace, "truncated file");
  tsl_trace_add_tally (trace, 3, "events were skipped");
  tsl_trace_add_tally (trace, 1234567, "packets not shown");
  tsl_trace_add_warning (trace, "bad line");

  warnings = tsl_trace_dup_warnings (trace);
  g_assert_cmpuint (g_strv_length (warnings), ==, 4);
  g_assert_cmpstr (warnings[0], ==, "truncated file");
  g_assert_cmpstr (warnings[1], ==, "bad line");
  g_assert_cmpstr (warnings[2], ==, "3 events were skipped");
  g_assert_cmpstr (warnings[3], ==, "1,235,767 packets not shown");

  messages = tsl_trace_dup_warnings_counted (trace, counts);
  g_assert_cmpstr (messages[3], ==, "packets not shown");
  g_assert_cmpuint (g_array_index (counts, guint64, 3), ==, 1235767);
}

static void
test_offer_and_span (void)
{
  g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_COUNT, 2, 9);
  const TslSample *samples;
  gint64 start = -1, end = -1;
  guint a, b, n_a, n_b;

  g_assert_false (tsl_trace_get_span (trace, &start, &end));
  g_assert_true (tsl_trace_get_has_time (trace));
  tsl_trace_set_has_time (trace, FALSE);
  g_assert_false (tsl_trace_get_has_time (trace));

  a = tsl_trace_ensure_track (trace, TSL_TRACK_THREAD, 1, 1, NULL);
  b = tsl_trace_ensure_track (trace, TSL_TRACK_THREAD, 1, 2, NULL);
  for (guint i = 0; i < 100; i++)
    {
      /* Threads that tick together keep the same indices (shared seed). */
      if (tsl_trace_offer (trace, a, 5000 + i * 10, NAN))
        tsl_trace_set_label (trace, a, "main;a");
      if (tsl_trace_offer (trace, b, 5000 + i * 10, NAN))
        tsl_trace_set_label_id (trace, b, tsl_trace_intern (trace, "main;b"));
    }
  tsl_trace_add_events (trace, 200);
  tsl_trace_note_time (trace, 10000);
  tsl_trace_note_time (trace, 4000);

  g_assert_cmpuint (tsl_trace_get_events (trace), ==, 200);
  g_assert_true (tsl_trace_get_span (trace, &start, &end));
  g_assert_cmpint (start, ==, 4000);
  g_assert_cmpint (end, ==, 10000);

  samples = tsl_sampler_peek_samples (tsl_trace_track_get_sampler (trace, a), &n_a);
  g_assert_cmpuint (n_a, >=, 2);
  for (guint j = 0; j < n_a; j++)
    g_assert_cmpstr (tsl_trace_lookup (trace, samples[j].label), ==, "main;a");
  {
    const TslSample *sb = tsl_sampler_peek_samples (tsl_trace_track_get_sampler (trace, b), &n_b);

    g_assert_cmpuint (n_a, ==, n_b);
    for (guint j = 0; j < n_a; j++)
      {
        g_assert_cmpuint (samples[j].index, ==, sb[j].index);
        g_assert_cmpstr (tsl_trace_lookup (trace, sb[j].label), ==, "main;b");
      }
  }
}

typedef struct {
  guint   events[2];
  guint   labelled;
} Observed;

static void
on_observed (guint       track,
             gint64      time_ns,
             double      value,
             const char *label,
             gboolean    in_range,
             gpointer    user_data)
{
  Observed *o = user_data;

  if (!in_range)
    return;
  o->events[track]++;
  if (label != NULL && g_str_equal (label, "main;a"))
    o->labelled++;
}

/* A range read for exact figures keeps no samples of spans, only of
 * metrics, and still hands every event its label. */
static void
test_observe_metrics_only (void)
{
  for (guint only = 0; only < 2; only++)
    {
      g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_COUNT, 4, 9);
      Observed o = { { 0, 0 }, 0 };
      guint spans, counter, n_spans, n_counter;

      spans = tsl_trace_ensure_track (trace, TSL_TRACK_THREAD, 1, 1, NULL);
      counter = tsl_trace_ensure_track (trace, TSL_TRACK_COUNTER, 1, 0, "heap");
      tsl_trace_set_time_filter (trace, 1000, 2000);
      tsl_trace_set_event_func (trace, on_observed, &o);
      tsl_trace_set_observe_metrics_only (trace, only);
      for (guint i = 0; i < 300; i++)
        {
          if (tsl_trace_offer (trace, spans, i * 10, 5))
            tsl_trace_set_label (trace, spans, "main;a");
          tsl_trace_offer (trace, counter, i * 10, i);
        }
      tsl_trace_flush_events (trace);

      /* [1000, 2000): 100 events of each track, every span labelled. */
      g_assert_cmpuint (o.events[spans], ==, 100);
      g_assert_cmpuint (o.events[counter], ==, 100);
      g_assert_cmpuint (o.labelled, ==, 100);
      tsl_sampler_peek_samples (tsl_trace_track_get_sampler (trace, spans), &n_spans);
      tsl_sampler_peek_samples (tsl_trace_track_get_sampler (trace, counter), &n_counter);
      g_assert_cmpuint (n_counter, >=, 4);
      if (only)
        {
          g_assert_cmpuint (n_spans, ==, 0);
          g_assert_cmpuint (tsl_trace_get_n_labels (trace), <=, 1);
        }
      else
        g_assert_cmpuint (n_spans, >=, 4);
    }
}

static void
test_time_mode (void)
{
  g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_TIME, 4, 3);
  TslTimeGrid *grid = tsl_trace_get_time_grid (trace);
  guint a, b;

  g_assert_nonnull (grid);
  a = tsl_trace_ensure_track (trace, TSL_TRACK_COUNTER, 1, 0, "x");
  b = tsl_trace_ensure_track (trace, TSL_TRACK_COUNTER, 1, 0, "y");
  g_assert_cmpint (tsl_sampler_get_mode (tsl_trace_track_get_sampler (trace, a)), ==, TSL_SAMPLER_TIME);

  /* Only track a widens the grid; b, on the same grid, follows. */
  tsl_trace_offer (trace, b, 0, 1);
  for (guint i = 0; i < 1000; i++)
    tsl_trace_offer (trace, a, i * 1000, 1);
  g_assert_cmpint (tsl_sampler_get_slice_size (tsl_trace_track_get_sampler (trace, b)), ==,
                   tsl_time_grid_get_width (grid));
  g_assert_cmpint (tsl_time_grid_get_width (grid), >=, 999000 / 8);

  {
    g_autoptr(TslTrace) counted = tsl_trace_new (TSL_SAMPLER_COUNT, 4, 3);

    g_assert_null (tsl_trace_get_time_grid (counted));
  }
}

/* Issue 16 D01: past the budget, new tracks fold into one "other" track per
 * kind, and their names and metadata are not kept one by one. */
static void
test_budget_folds (void)
{
  /* 64 MiB for the process: 16 MiB for tracks and samples, 4096 tracks. */
  g_autoptr(TslBudget) budget = tsl_budget_new_for_process (G_GUINT64_CONSTANT (64) << 20);
  g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_TIME, 2000, 1);
  const guint n_threads = 20000, n_series = 20000;
  guint64 events = 0;
  guint folded_thread, folded_series, first;
  guint n_tracks;

  tsl_trace_set_budget (trace, budget);
  g_assert_true (tsl_trace_get_budget (trace) == budget);
  for (guint i = 0; i < n_threads; i++)
    tsl_trace_set_thread_name (trace, 1, i, "worker");
  first = tsl_trace_ensure_track (trace, TSL_TRACK_THREAD, 1, 0, NULL);
  for (guint i = 0; i < n_threads; i++)
    {
      guint track = tsl_trace_ensure_track (trace, TSL_TRACK_THREAD, 1, i, NULL);

      tsl_trace_offer (trace, track, i * 1000, NAN);
      tsl_trace_offer (trace, track, i * 1000 + 500, NAN);
    }
  for (guint i = 0; i < n_series; i++)
    {
      g_autofree char *name = g_strdup_printf ("series %u", i);

      tsl_trace_offer (trace, tsl_trace_ensure_track (trace, TSL_TRACK_METRIC, 0, 0, name), i * 1000, i);
    }

  n_tracks = tsl_trace_get_n_tracks (trace);
  g_assert_cmpuint (n_tracks, <=, 4096 + 2);
  g_assert_cmpuint (n_tracks, >=, 4000);
  g_assert_cmpuint (tsl_budget_get_used (budget), <=, tsl_budget_get_limit (budget));

  /* One fold track per kind, and a folded key keeps going there. */
  folded_thread = tsl_trace_ensure_track (trace, TSL_TRACK_THREAD, 1, n_threads - 1, NULL);
  folded_series = tsl_trace_ensure_track (trace, TSL_TRACK_METRIC, 0, 0, "series 19999");
  g_assert_true (tsl_trace_track_is_folded (trace, folded_thread));
  g_assert_true (tsl_trace_track_is_folded (trace, folded_series));
  g_assert_cmpuint (folded_thread, !=, folded_series);
  g_assert_cmpuint (tsl_trace_ensure_track (trace, TSL_TRACK_THREAD, 7, 12345678, NULL), ==, folded_thread);
  g_assert_cmpstr (tsl_trace_track_get_name (trace, folded_thread), ==, "other threads");
  g_assert_cmpstr (tsl_trace_track_get_name (trace, folded_series), ==, "other series");
  /* Tracks made before the budget ran out keep theirs. */
  g_assert_cmpuint (tsl_trace_ensure_track (trace, TSL_TRACK_THREAD, 1, 0, NULL), ==, first);
  g_assert_false (tsl_trace_track_is_folded (trace, first));
  g_assert_cmpstr (tsl_trace_track_get_name (trace, first), ==, "worker");

  /* Nothing is lost from the counts. */
  for (guint i = 0; i < n_tracks; i++)
    events += tsl_sampler_get_events (tsl_trace_track_get_sampler (trace, i));
  g_assert_cmpuint (events, ==, 2 * n_threads + n_series);
  g_assert_cmpuint (tsl_sampler_get_events (tsl_trace_track_get_sampler (trace, folded_thread)), >, 0);

  g_assert_true (has_warning (trace, "memory budget of 64 MiB"));
  g_assert_true (has_warning (trace, "folded into the track \"other threads\""));
  g_assert_true (has_warning (trace, "folded into the track \"other series\""));
  g_assert_true (has_warning (trace, "names and sort indices of folded threads were not kept"));

  /* A trace gives its tracks' room back when it goes. */
  g_clear_object (&trace);
  g_assert_cmpuint (tsl_budget_get_used (budget), ==, 0);
}

/* Past the budget, busy tracks keep fewer samples (K lowered), still K'..2K'. */
static void
test_budget_lowers_k (void)
{
  for (guint mode = 0; mode < 2; mode++)
    {
      g_autoptr(TslBudget) budget = tsl_budget_new (4 << 20);
      g_autoptr(TslTrace) trace = tsl_trace_new (mode == 0 ? TSL_SAMPLER_COUNT : TSL_SAMPLER_TIME, 2000, 1);
      const guint n_tracks = 40;
      guint lowered = 0;

      tsl_trace_set_budget (trace, budget);
      for (guint t = 0; t < n_tracks; t++)
        tsl_trace_ensure_track (trace, TSL_TRACK_THREAD, 1, t, NULL);
      for (guint i = 0; i < 20000; i++)
        for (guint t = 0; t < n_tracks; t++)
          tsl_trace_offer (trace, t, (gint64) i * 1000 + t, NAN);

      g_assert_cmpuint (tsl_trace_get_n_tracks (trace), ==, n_tracks);
      g_assert_cmpuint (tsl_budget_get_used (budget), <=, tsl_budget_get_limit (budget));
      for (guint t = 0; t < n_tracks; t++)
        {
          TslSampler *sampler = tsl_trace_track_get_sampler (trace, t);
          guint k = tsl_sampler_get_k (sampler), n;

          tsl_sampler_peek_samples (sampler, &n);
          lowered += tsl_sampler_get_k_lowered (sampler);
          g_assert_cmpuint (tsl_sampler_get_events (sampler), ==, 20000);
          /* Time mode spreads over the grid's slices: at least half of K'. */
          g_assert_cmpuint (n, >=, mode == 0 ? k : k / 2);
          g_assert_cmpuint (n, <=, 2 * k + 1);
        }
      g_assert_cmpuint (lowered, >, 0);
      g_assert_true (has_warning (trace, "K lowered to as little as"));
    }
}

static void
test_lock (void)
{
  g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_COUNT, 4, 1);

  tsl_trace_lock (trace);
  tsl_trace_unlock (trace);
  g_assert_cmpint (tsl_trace_get_mode (trace), ==, TSL_SAMPLER_COUNT);
  g_assert_cmpuint (tsl_trace_get_k (trace), ==, 4);
  g_assert_cmpuint (tsl_trace_get_seed (trace), ==, 1);
  g_assert_finalize_object (g_steal_pointer (&trace));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/trace/intern", test_intern);
  g_test_add_func ("/trace/intern-joined", test_intern_joined);
  g_test_add_func ("/trace/long-names", test_long_names);
  g_test_add_func ("/trace/nul-names", test_nul_names);
  g_test_add_func ("/trace/track-keys", test_track_keys);
  g_test_add_func ("/trace/metadata", test_metadata);
  g_test_add_func ("/trace/warnings", test_warnings);
  g_test_add_func ("/trace/tallies", test_tallies);
  g_test_add_func ("/trace/offer-and-span", test_offer_and_span);
  g_test_add_func ("/trace/observe-metrics-only", test_observe_metrics_only);
  g_test_add_func ("/trace/time-mode", test_time_mode);
  g_test_add_func ("/trace/lock", test_lock);
  g_test_add_func ("/trace/budget-folds", test_budget_folds);
  g_test_add_func ("/trace/budget-lowers-k", test_budget_lowers_k);

  return g_test_run ();
}
