/* test-state.c: sampler state files — round trip, merge == one pass, damage
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <math.h>
#include <string.h>

#include "tsl-rng.h"
#include "tsl-trace-state.h"

/* A generated stream: tracks of every kind, unsorted times (time mode must
 * not depend on order), fractional values whose sums are not exact in
 * doubles, NANs, equal times, labels, metadata and warnings along the way. */
typedef struct {
  guint   kind;
  gint64  pid;
  gint64  tid;
  gint64  time;
  double  value;
  guint   label;
  guint   meta;     /* 1: a thread name, 2: a process name, 3: a warning */
} Event;

static Event *
make_stream (guint64  seed,
             guint    n,
             gboolean wide)
{
  Event *events = g_new0 (Event, n);
  TslRng rng;

  tsl_rng_init (&rng, seed, 0);
  for (guint i = 0; i < n; i++)
    {
      Event *e = &events[i];
      guint r = tsl_rng_bounded (&rng, 100);

      e->kind = tsl_rng_bounded (&rng, 4);
      e->pid = 1 + tsl_rng_bounded (&rng, 2);
      e->tid = 10 + tsl_rng_bounded (&rng, 3 + (i > n / 2 ? 2 : 0));   /* new tracks late */
      /* Roughly increasing with jitter; "wide" spans hours, so widths pass 2^32 ns. */
      e->time = (gint64) i * (wide ? G_GINT64_CONSTANT (4000000000) : 1000) +
                (gint64) tsl_rng_bounded (&rng, wide ? 900000000 : 5000) -
                (r == 0 ? (gint64) tsl_rng_bounded (&rng, 100000) : 0);
      if (r < 5)
        e->time = events[i > 0 ? i - 1 : 0].time;
      e->value = r < 8 ? NAN : tsl_rng_double (&rng) * 100.0 - 20.0;
      if (r == 9)
        e->value = r & 1 ? -0.0 : 0.0;
      e->label = tsl_rng_bounded (&rng, 7);
      e->meta = r == 97 ? 1 : r == 98 ? 2 : r == 99 ? 3 : 0;
    }
  return events;
}

static void
feed (TslTrace    *trace,
      const Event *events,
      guint        from,
      guint        to)
{
  static const char *names[] = { "main", "worker", "io", "gc", "render", "net", "idle" };
  static const TslTrackKind kinds[] = { TSL_TRACK_THREAD, TSL_TRACK_COUNTER, TSL_TRACK_METRIC, TSL_TRACK_ASYNC };

  for (guint i = from; i < to; i++)
    {
      const Event *e = &events[i];
      char label[64];
      guint track;

      if (e->meta == 1)
        tsl_trace_set_thread_name (trace, e->pid, e->tid, names[e->label]);
      else if (e->meta == 2)
        tsl_trace_set_process_name (trace, e->pid, names[e->label]);
      else if (e->meta == 3)
        tsl_trace_add_warning (trace, "warning %u", e->label);

      track = tsl_trace_ensure_track (trace, kinds[e->kind], e->pid, e->tid, names[e->tid % 7]);
      if (e->kind == TSL_TRACK_METRIC)
        tsl_trace_track_set_unit (trace, track, "ms");
      tsl_trace_add_events (trace, 1);
      if (tsl_trace_offer (trace, track, e->time, e->value))
        {
          g_snprintf (label, sizeof label, "root;%s;leaf%u", names[e->label], e->label);
          tsl_trace_set_label (trace, track, label);
        }
    }
}

static GBytes *
state_of_range (TslSamplerMode  mode,
                guint           k,
                const Event    *events,
                guint           from,
                guint           to,
                GPtrArray      *earlier)
{
  g_autoptr(TslTrace) trace = tsl_trace_new (mode, k, 0x5EED);

  for (guint i = 0; earlier != NULL && i < earlier->len; i++)
    tsl_trace_count_after (trace, g_ptr_array_index (earlier, i));
  feed (trace, events, from, to);
  return tsl_trace_save_state (trace);
}

static TslTrace *
load_as (GBytes         *bytes,
         TslSamplerMode  mode,
         guint           k)
{
  g_autoptr(TslTrace) trace = tsl_trace_new (mode, k, 0x5EED);
  g_autoptr(GError) error = NULL;

  if (!tsl_trace_load_state (trace, bytes, "part.tss", &error))
    g_error ("%s", error->message);
  return g_steal_pointer (&trace);
}

static guint
first_difference (GBytes *a,
                  GBytes *b)
{
  gsize la, lb;
  const guint8 *da = g_bytes_get_data (a, &la), *db = g_bytes_get_data (b, &lb);
  guint i = 0;

  while (i < la && i < lb && da[i] == db[i])
    i++;
  return i;
}

/* Random cuts into 2..5 parts, in both modes, K small enough that slices
 * coarsen many times: the merged state's bytes are the one pass's. */
static void
check_merges (gboolean wide)
{
  guint runs = 0;

  for (guint64 seed = 1; seed <= 40; seed++)
    for (guint m = 0; m < 2; m++)
      {
        TslSamplerMode mode = m == 0 ? TSL_SAMPLER_COUNT : TSL_SAMPLER_TIME;
        const guint n = 3000 + (guint) seed * 37;
        g_autofree Event *events = make_stream (seed, n, wide);
        g_autoptr(GBytes) whole = state_of_range (mode, 8 + (guint) seed % 5, events, 0, n, NULL);
        g_autoptr(GPtrArray) parts = g_ptr_array_new_with_free_func (g_object_unref);
        g_autoptr(TslTrace) merged = NULL;
        g_autoptr(GBytes) bytes = NULL;
        guint cuts[6], n_parts;
        TslRng rng;

        tsl_rng_init (&rng, seed, m + 1);
        n_parts = 2 + tsl_rng_bounded (&rng, 4);
        cuts[0] = 0;
        cuts[n_parts] = n;
        for (guint p = 1; p < n_parts; p++)
          cuts[p] = tsl_rng_bounded (&rng, n + 1);
        /* Sorted; empty parts allowed. */
        for (guint a = 1; a < n_parts; a++)
          for (guint b = a + 1; b < n_parts; b++)
            if (cuts[b] < cuts[a])
              {
                guint t = cuts[a];

                cuts[a] = cuts[b];
                cuts[b] = t;
              }

        for (guint p = 0; p < n_parts; p++)
          {
            g_autoptr(GBytes) state = state_of_range (mode, 8 + (guint) seed % 5, events, cuts[p], cuts[p + 1],
                                                      mode == TSL_SAMPLER_COUNT ? parts : NULL);

            g_ptr_array_add (parts, load_as (state, mode, 8 + (guint) seed % 5));
          }

        merged = g_object_ref (g_ptr_array_index (parts, 0));
        for (guint p = 1; p < n_parts; p++)
          {
            g_autoptr(GError) error = NULL;

            g_assert_true (tsl_trace_merge (merged, g_ptr_array_index (parts, p), NULL, 0, &error));
            g_assert_no_error (error);
          }
        bytes = tsl_trace_save_state (merged);
        if (!g_bytes_equal (bytes, whole) && g_getenv ("TSL_TEST_DUMP") != NULL)
          {
            g_file_set_contents ("/tmp/merged.tss", g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes), NULL);
            g_file_set_contents ("/tmp/whole.tss", g_bytes_get_data (whole, NULL), g_bytes_get_size (whole), NULL);
          }
        if (!g_bytes_equal (bytes, whole))
          g_error ("seed %" G_GUINT64_FORMAT ", %s mode, %u parts: merged state differs at byte %u",
                   seed, m == 0 ? "count" : "time", n_parts, first_difference (bytes, whole));
        runs++;
      }
  g_test_message ("%u random cut sets (%s spans), both modes: merged == one pass, byte for byte",
                  runs, wide ? "hour-long" : "ms");
}

static void
test_merge_equals_one_pass (void)
{
  check_merges (FALSE);
}

/* Spans of hours: time-mode slices wider than 2^32 ns still line up. */
static void
test_merge_wide (void)
{
  check_merges (TRUE);
}

static void
test_round_trip (void)
{
  for (guint m = 0; m < 2; m++)
    {
      TslSamplerMode mode = m ? TSL_SAMPLER_TIME : TSL_SAMPLER_COUNT;
      g_autofree Event *events = make_stream (99, 5000, FALSE);
      g_autoptr(GBytes) first = state_of_range (mode, 16, events, 0, 5000, NULL);
      g_autoptr(TslTrace) trace = load_as (first, mode, 16);
      g_autoptr(TslTrace) other = load_as (first, m ? TSL_SAMPLER_COUNT : TSL_SAMPLER_TIME, 4);
      g_autoptr(GBytes) again = tsl_trace_save_state (trace);
      g_auto(GStrv) warnings = tsl_trace_dup_warnings (other);
      gint64 start, end;
      guint n;

      g_assert_true (g_bytes_equal (first, again));
      g_assert_cmpint (tsl_trace_get_mode (trace), ==, mode);
      g_assert_cmpuint (tsl_trace_get_k (trace), ==, 16);
      g_assert_cmpuint (tsl_trace_get_events (trace), ==, 5000);
      g_assert_true (tsl_trace_get_span (trace, &start, &end));
      g_assert_cmpint (start, <=, end);
      g_assert_cmpuint (tsl_trace_get_n_tracks (trace), >, 8);
      /* Asked for another mode and K, the loader keeps the state's and says so. */
      g_assert_cmpint (tsl_trace_get_mode (other), ==, mode);
      g_assert_cmpuint (tsl_trace_get_k (other), ==, 16);
      n = 0;
      for (guint i = 0; warnings[i] != NULL; i++)
        n += strstr (warnings[i], "part.tss is a sampler state of") != NULL;
      g_assert_cmpuint (n, ==, 1);
    }
}

/* A span's thread time marks the trace (the flame graph by CPU time is
 * offered on it), through a state and a merge of states too. */
static void
test_has_cpu (void)
{
  g_autoptr(TslTrace) plain = tsl_trace_new (TSL_SAMPLER_COUNT, 16, 0x5EED);
  g_autoptr(TslTrace) cpu = tsl_trace_new (TSL_SAMPLER_COUNT, 16, 0x5EED);
  g_autoptr(TslTrace) merged = tsl_trace_new (TSL_SAMPLER_COUNT, 16, 0x5EED);
  g_autoptr(GBytes) plain_state = NULL;
  g_autoptr(GBytes) cpu_state = NULL;
  g_autoptr(GError) error = NULL;
  guint t;

  t = tsl_trace_ensure_track (plain, TSL_TRACK_THREAD, 1, 1, NULL);
  tsl_trace_track_set_unit (plain, t, "ns");
  tsl_trace_offer (plain, t, 10, 5);
  t = tsl_trace_ensure_track (cpu, TSL_TRACK_THREAD, 1, 1, NULL);
  tsl_trace_track_set_unit (cpu, t, "ns");
  tsl_trace_set_event_cpu (cpu, NAN);
  tsl_trace_offer (cpu, t, 10, 5);
  g_assert_false (tsl_trace_get_has_cpu (cpu));
  tsl_trace_set_event_cpu (cpu, 3);
  tsl_trace_offer (cpu, t, 20, 5);
  g_assert_false (tsl_trace_get_has_cpu (plain));
  g_assert_true (tsl_trace_get_has_cpu (cpu));

  plain_state = tsl_trace_save_state (plain);
  cpu_state = tsl_trace_save_state (cpu);
  {
    g_autoptr(TslTrace) a = load_as (plain_state, TSL_SAMPLER_COUNT, 16);
    g_autoptr(TslTrace) b = load_as (cpu_state, TSL_SAMPLER_COUNT, 16);

    g_assert_false (tsl_trace_get_has_cpu (a));
    g_assert_true (tsl_trace_get_has_cpu (b));
  }
  g_assert_true (tsl_trace_merge (merged, plain, "plain", 0, &error));
  g_assert_no_error (error);
  g_assert_false (tsl_trace_get_has_cpu (merged));
  g_assert_true (tsl_trace_merge (merged, cpu, "cpu", 1, &error));
  g_assert_no_error (error);
  g_assert_true (tsl_trace_get_has_cpu (merged));
}

/* Written to a stream in pieces, the state is the bytes tsl_trace_save_state()
 * gives, of the size announced; a stream that fills up (a full disk) fails
 * the write with its error, at any point. */
static void
test_stream (void)
{
  for (guint m = 0; m < 2; m++)
    {
      TslSamplerMode mode = m ? TSL_SAMPLER_TIME : TSL_SAMPLER_COUNT;
      g_autofree Event *events = make_stream (7 + m, 20000, FALSE);
      g_autoptr(TslTrace) trace = tsl_trace_new (mode, 64, 0x5EED);
      g_autoptr(GBytes) bytes = NULL;
      g_autoptr(TslStateWriter) writer = NULL;
      g_autoptr(GOutputStream) out = g_memory_output_stream_new_resizable ();
      g_autoptr(GBytes) written = NULL;
      g_autoptr(GError) error = NULL;
      gsize size;

      feed (trace, events, 0, 20000);
      bytes = tsl_trace_save_state (trace);
      size = g_bytes_get_size (bytes);
      g_assert_cmpuint (size, >, 2 * 64 * 1024);   /* more than two pieces */
      writer = tsl_state_writer_new (trace);
      g_assert_cmpuint (tsl_state_writer_get_size (writer), ==, size);
      g_assert_true (tsl_state_writer_write (writer, out, NULL, &error));
      g_assert_no_error (error);
      g_assert_true (g_output_stream_close (out, NULL, NULL));
      written = g_memory_output_stream_steal_as_bytes (G_MEMORY_OUTPUT_STREAM (out));
      g_assert_true (g_bytes_equal (bytes, written));

      for (gsize room = 0; room < size; room += size / 7 + 1)
        {
          g_autofree guint8 *buf = g_malloc (MAX (room, 1));
          g_autoptr(GOutputStream) full = g_memory_output_stream_new (buf, room, NULL, NULL);
          g_autoptr(GError) full_error = NULL;

          g_assert_false (tsl_state_writer_write (writer, full, NULL, &full_error));
          g_assert_error (full_error, G_IO_ERROR, G_IO_ERROR_NO_SPACE);
        }
    }
}

/* The exact sums: any order and grouping gives the same bits. */
static void
test_exact_sums (void)
{
  g_autoptr(TslTimeGrid) grid = tsl_time_grid_new (4);
  g_autoptr(TslSampler) forward = tsl_sampler_new_time (grid, 1);
  g_autoptr(TslSampler) backward = tsl_sampler_new_time (grid, 1);
  double values[1000];
  double naive = 0;
  const TslSample *a, *b;
  guint na, nb;
  TslRng rng;

  tsl_rng_init (&rng, 5, 0);
  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    values[i] = (tsl_rng_double (&rng) - 0.5) * pow (10, tsl_rng_bounded (&rng, 8));
  /* One instant, so one slice holds every event, added in opposite orders. */
  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    {
      tsl_sampler_offer (forward, 0, values[i]);
      naive += values[i];
    }
  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    tsl_sampler_offer (backward, 0, values[G_N_ELEMENTS (values) - 1 - i]);
  a = tsl_sampler_peek_samples (forward, &na);
  b = tsl_sampler_peek_samples (backward, &nb);
  g_assert_cmpuint (na, ==, 1);
  g_assert_cmpuint (nb, ==, 1);
  g_assert_true (memcmp (&a[0].summary.sum, &b[0].summary.sum, sizeof (double)) == 0);
  g_assert_true (memcmp (&a[0].summary.sum_lo, &b[0].summary.sum_lo, sizeof (double)) == 0);
  g_assert_false (isnan (a[0].summary.sum_lo));
  g_assert_cmpfloat (fabs (a[0].summary.sum - naive), <=, fabs (naive) * 1e-12 + 1e-6);
}

static GBytes *
small_state (void)
{
  g_autofree Event *events = make_stream (3, 400, FALSE);

  return state_of_range (TSL_SAMPLER_TIME, 8, events, 0, 400, NULL);
}

static void
expect_error (GBytes       *bytes,
              TslStateError code,
              const char   *needle)
{
  g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_COUNT, 4, 0);
  g_autoptr(GError) error = NULL;

  g_assert_false (tsl_trace_load_state (trace, bytes, "bad.tss", &error));
  g_assert_error (error, TSL_STATE_ERROR, (gint) code);
  g_assert_true (g_str_has_prefix (error->message, "bad.tss: byte "));
  if (needle != NULL && strstr (error->message, needle) == NULL)
    g_error ("“%s” does not say “%s”", error->message, needle);
}

static GBytes *
patched (GBytes *bytes,
         gsize   at,
         guint8  value)
{
  gsize len = g_bytes_get_size (bytes);
  guint8 *copy = g_memdup2 (g_bytes_get_data (bytes, NULL), len);

  copy[at] = value;
  return g_bytes_new_take (copy, len);
}

static void
test_damage (void)
{
  g_autoptr(GBytes) good = small_state ();
  gsize len = g_bytes_get_size (good);
  g_autoptr(GBytes) future = patched (good, 8, TSL_STATE_VERSION + 1);
  g_autoptr(GBytes) foreign = g_bytes_new_static ("{\"traceEvents\": []}", 19);
  guint n_cuts = 0;

  /* Every truncation is refused as truncated (or, inside the magic, foreign). */
  for (gsize cut = 0; cut < len; cut += 1 + cut / 16)
    {
      g_autoptr(GBytes) part = g_bytes_new_from_bytes (good, 0, cut);

      expect_error (part, cut < TSL_STATE_MAGIC_LEN ? TSL_STATE_ERROR_FOREIGN : TSL_STATE_ERROR_TRUNCATED,
                    cut < TSL_STATE_MAGIC_LEN ? "not a Timeslice sampler state" : "truncated");
      n_cuts++;
    }
  /* Any flipped byte of the body or checksum is caught. */
  for (gsize at = TSL_STATE_HEADER_LEN; at < len; at += 7)
    {
      g_autoptr(GBytes) bad = patched (good, at, ((const guint8 *) g_bytes_get_data (good, NULL))[at] ^ 0x10);

      expect_error (bad, TSL_STATE_ERROR_CORRUPT, "checksum");
    }
  /* A body length too long is a truncation; too short leaves bytes over. */
  {
    g_autoptr(GBytes) longer = patched (good, 17, ((const guint8 *) g_bytes_get_data (good, NULL))[17] + 1);
    g_autoptr(GBytes) shorter = patched (good, 17, ((const guint8 *) g_bytes_get_data (good, NULL))[17] - 1);
    g_autoptr(GBytes) reserved = patched (good, 12, 1);

    expect_error (longer, TSL_STATE_ERROR_TRUNCATED, "truncated");
    expect_error (shorter, TSL_STATE_ERROR_CORRUPT, "bytes after the end");
    expect_error (reserved, TSL_STATE_ERROR_CORRUPT, "flags");
  }
  expect_error (future, TSL_STATE_ERROR_VERSION, "newer");
  expect_error (foreign, TSL_STATE_ERROR_FOREIGN, "byte 0: not a Timeslice sampler state");
  g_test_message ("%u truncations refused", n_cuts);
}

/* Count-mode parts read without --after cannot merge: said so, unchanged. */
static void
test_merge_errors (void)
{
  g_autofree Event *events = make_stream (4, 1000, FALSE);
  g_autoptr(GBytes) a = state_of_range (TSL_SAMPLER_COUNT, 8, events, 0, 500, NULL);
  g_autoptr(GBytes) b = state_of_range (TSL_SAMPLER_COUNT, 8, events, 500, 1000, NULL);
  g_autoptr(GBytes) t = state_of_range (TSL_SAMPLER_TIME, 8, events, 500, 1000, NULL);
  g_autoptr(TslTrace) ta = load_as (a, TSL_SAMPLER_COUNT, 8);
  g_autoptr(TslTrace) tb = load_as (b, TSL_SAMPLER_COUNT, 8);
  g_autoptr(TslTrace) tt = load_as (t, TSL_SAMPLER_TIME, 8);
  g_autoptr(GBytes) before = tsl_trace_save_state (ta);
  g_autoptr(GBytes) after = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_false (tsl_trace_merge (ta, tb, NULL, 0, &error));
  g_assert_error (error, TSL_STATE_ERROR, TSL_STATE_ERROR_MERGE);
  g_assert_nonnull (strstr (error->message, "--after"));
  g_clear_error (&error);
  g_assert_false (tsl_trace_merge (ta, tt, NULL, 0, &error));
  g_assert_error (error, TSL_STATE_ERROR, TSL_STATE_ERROR_MERGE);
  after = tsl_trace_save_state (ta);
  g_assert_true (g_bytes_equal (before, after));
}

/* Different sources: their tracks stay apart, in groups named after them. */
static void
test_merge_sources (void)
{
  g_autofree Event *events = make_stream (6, 800, FALSE);
  g_autoptr(GBytes) a = state_of_range (TSL_SAMPLER_TIME, 8, events, 0, 800, NULL);
  g_autoptr(TslTrace) one = load_as (a, TSL_SAMPLER_TIME, 8);
  g_autoptr(TslTrace) two = load_as (a, TSL_SAMPLER_TIME, 8);
  g_autoptr(TslTrace) all = tsl_trace_new (TSL_SAMPLER_TIME, 8, 0x5EED);
  g_autoptr(GError) error = NULL;
  guint named = 0;

  g_assert_true (tsl_trace_merge (all, one, "before", 0, &error));
  g_assert_true (tsl_trace_merge (all, two, "after", 1, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (tsl_trace_get_n_tracks (all), ==, 2 * tsl_trace_get_n_tracks (one));
  g_assert_cmpuint (tsl_trace_get_events (all), ==, 1600);
  for (guint i = 0; i < tsl_trace_get_n_tracks (all); i++)
    {
      const char *process = tsl_trace_get_process_name (all, tsl_trace_track_get_pid (all, i));

      g_assert_nonnull (process);
      g_assert_true (g_str_has_prefix (process, i < tsl_trace_get_n_tracks (one) ? "before" : "after"));
      named++;
    }
  g_assert_cmpuint (named, ==, tsl_trace_get_n_tracks (all));
}

/* Pids are 64-bit and may be negative: a source's pid of 2^40 (or one
 * below 0) must not land on another source's pid moved by 2^40. */
static void
test_merge_sources_pids (void)
{
  static const gint64 pids[][2] = {
    { G_GINT64_CONSTANT (1) << 40, 0 },
    { 0, -(G_GINT64_CONSTANT (1) << 40) },
    { G_MAXINT64, G_MININT64 },
  };

  for (guint c = 0; c < G_N_ELEMENTS (pids); c++)
    {
      g_autoptr(TslTrace) all = tsl_trace_new (TSL_SAMPLER_TIME, 8, 0x5EED);
      const char *groups[2] = { "first", "second" };

      for (guint s = 0; s < 2; s++)
        {
          g_autoptr(TslTrace) src = tsl_trace_new (TSL_SAMPLER_TIME, 8, 0x5EED);
          g_autoptr(GBytes) bytes = NULL;
          g_autoptr(TslTrace) loaded = NULL;
          g_autoptr(GError) error = NULL;
          guint track = tsl_trace_ensure_track (src, TSL_TRACK_THREAD, pids[c][s], 7, NULL);

          tsl_trace_set_process_name (src, pids[c][s], "app");
          tsl_trace_add_events (src, 1);
          if (tsl_trace_offer (src, track, 1000, 1.0))
            tsl_trace_set_label (src, track, s == 0 ? "main;a" : "main;b");
          bytes = tsl_trace_save_state (src);
          loaded = load_as (bytes, TSL_SAMPLER_TIME, 8);
          g_assert_true (tsl_trace_merge (all, loaded, groups[s], s, &error));
          g_assert_no_error (error);
        }
      /* Two tracks, each under its own source's process. */
      g_assert_cmpuint (tsl_trace_get_n_tracks (all), ==, 2);
      for (guint i = 0; i < 2; i++)
        {
          const char *process = tsl_trace_get_process_name (all, tsl_trace_track_get_pid (all, i));
          g_autofree char *want = g_strdup_printf ("%s: app", groups[i]);

          g_assert_cmpstr (process, ==, want);
        }
      g_assert_cmpint (tsl_trace_track_get_pid (all, 0), !=, tsl_trace_track_get_pid (all, 1));
    }
}

/* Recomputes a state's checksum after a test changed its body. */
static GBytes *
resealed (guint8 *data,
          gsize   len)
{
  g_autoptr(GChecksum) sum = g_checksum_new (G_CHECKSUM_SHA256);
  gsize digest_len = TSL_STATE_CHECKSUM_LEN;

  g_checksum_update (sum, data, len - TSL_STATE_CHECKSUM_LEN);
  g_checksum_get_digest (sum, data + len - TSL_STATE_CHECKSUM_LEN, &digest_len);
  return g_bytes_new_take (data, len);
}

static void
put_u64_at (guint8 *at,
            guint64 v)
{
  v = GUINT64_TO_LE (v);
  memcpy (at, &v, 8);
}

/* Counts of 2^63 twice: what only informs saturates, a track's events
 * (which its slices must add up to) refuse the merge; either way merge
 * never writes a state that reading then calls damaged. */
static void
test_merge_wraps (void)
{
  const guint64 half = G_GUINT64_CONSTANT (1) << 63;
  const double value = 1234.5;   /* finds the sample in the bytes */
  g_autoptr(TslTrace) src = tsl_trace_new (TSL_SAMPLER_TIME, 8, 0x5EED);
  g_autoptr(TslTrace) all = tsl_trace_new (TSL_SAMPLER_TIME, 8, 0x5EED);
  g_autoptr(TslTrace) reread = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GBytes) merged = NULL;
  g_autoptr(GBytes) many = NULL;
  g_autoptr(GArray) counts = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_auto(GStrv) messages = NULL;
  g_autoptr(GError) error = NULL;
  guint track = tsl_trace_ensure_track (src, TSL_TRACK_COUNTER, 1, 0, "c");
  guint64 bits;
  gsize len;
  guint8 *data;
  guint8 *at = NULL;

  tsl_trace_add_events (src, half);
  tsl_trace_count_flow (src, TSL_FLOW_COUNT_START, half);
  tsl_trace_add_tally (src, half, "boom");
  g_assert_true (tsl_trace_offer (src, track, 1000, value));
  bytes = tsl_trace_save_state (src);

  for (guint i = 0; i < 2; i++)
    {
      g_autoptr(TslTrace) part = load_as (bytes, TSL_SAMPLER_TIME, 8);

      g_assert_true (tsl_trace_merge (all, part, NULL, 0, &error));
      g_assert_no_error (error);
    }
  merged = tsl_trace_save_state (all);
  reread = tsl_trace_new (TSL_SAMPLER_TIME, 8, 0x5EED);
  g_assert_true (tsl_trace_load_state (reread, merged, "merged.tss", &error));
  g_assert_no_error (error);
  g_assert_cmpuint (tsl_trace_get_events (reread), ==, G_MAXUINT64);
  g_assert_cmpuint (tsl_trace_get_flow_count (reread, TSL_FLOW_COUNT_START), ==, G_MAXUINT64);
  messages = tsl_trace_dup_warnings_counted (reread, counts);
  g_assert_cmpuint (g_strv_length (messages), ==, 1);
  g_assert_cmpuint (g_array_index (counts, guint64, 0), ==, G_MAXUINT64);

  /* The track's one slice made to count 2^63 events. */
  data = g_bytes_unref_to_data (g_bytes_ref (bytes), &len);
  memcpy (&bits, &value, 8);
  bits = GUINT64_TO_LE (bits);
  for (gsize i = TSL_STATE_HEADER_LEN; i + 8 <= len; i++)
    if (memcmp (data + i, &bits, 8) == 0)
      {
        at = data + i;
        break;
      }
  g_assert_nonnull (at);
  put_u64_at (at - 24 - 4 - 8, half);   /* the sampler's events, before n samples and the slice */
  put_u64_at (at + 8 + 4, half);        /* the slice's count, after the value and the label */
  many = resealed (data, len);
  {
    g_autoptr(TslTrace) one = load_as (many, TSL_SAMPLER_TIME, 8);
    g_autoptr(TslTrace) two = load_as (many, TSL_SAMPLER_TIME, 8);
    g_autoptr(GBytes) before = NULL;
    g_autoptr(GBytes) after = NULL;

    g_assert_false (tsl_trace_merge (one, two, NULL, 0, &error));
    g_assert_error (error, TSL_STATE_ERROR, TSL_STATE_ERROR_MERGE);
    g_assert_nonnull (strstr (error->message, "“c”"));
    g_clear_error (&error);
    /* Refused before anything changed. */
    before = tsl_trace_save_state (two);
    after = tsl_trace_save_state (one);
    g_assert_true (g_bytes_equal (before, after));
  }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/state/round-trip", test_round_trip);
  g_test_add_func ("/state/has-cpu", test_has_cpu);
  g_test_add_func ("/state/exact-sums", test_exact_sums);
  g_test_add_func ("/state/stream", test_stream);
  g_test_add_func ("/state/merge-equals-one-pass", test_merge_equals_one_pass);
  g_test_add_func ("/state/merge-wide", test_merge_wide);
  g_test_add_func ("/state/merge-errors", test_merge_errors);
  g_test_add_func ("/state/merge-sources", test_merge_sources);
  g_test_add_func ("/state/merge-sources-pids", test_merge_sources_pids);
  g_test_add_func ("/state/merge-wraps", test_merge_wraps);
  g_test_add_func ("/state/damage", test_damage);

  return g_test_run ();
}
