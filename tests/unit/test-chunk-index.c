/* test-chunk-index.c: range reads through the chunk index
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A filtered read of a file read before goes through its chunk index: it
 * must give the same snapshot as a filtered read of the whole file (every
 * track, sample, value, summary and stack), in count and in time mode (the
 * window's zoom detail reads), for seeded random ranges of generated
 * unsorted traces, while reading a small part of the file. A file that
 * changed since is read whole; the index stays capped in size. A file being
 * followed has an index of what was read so far, which grows with it.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>

#include "tsl-chunk-index.h"
#include "tsl-read-stream.h"
#include "tsl-snapshot.h"

#include "test-follow.h"

/* Threads write bursts of nested B/E and X spans with counters between;
 * bursts interleave out of time order, and a few events are far off. */
static char *
write_chrome (guint n_bursts,
              guint seed)
{
  g_autoptr(GString) s = g_string_new ("{\"traceEvents\": [\n"
                                       "{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": 1, "
                                       "\"args\": {\"name\": \"main\"}}");
  g_autoptr(GRand) rand = g_rand_new_with_seed (seed);
  gint64 clock[4] = { 0 };
  char *path = NULL;
  int fd = g_file_open_tmp ("tsl-index-XXXXXX.json", &path, NULL);

  g_assert_cmpint (fd, >=, 0);
  close (fd);
  for (guint b = 0; b < n_bursts; b++)
    {
      guint tid = g_rand_int_range (rand, 1, 4);
      gint64 ts = clock[tid] + g_rand_int_range (rand, 0, 3000);
      guint depth = 0;

      for (guint e = 0; e < 30; e++)
        {
          double r = g_rand_double (rand);

          ts += g_rand_int_range (rand, 1, 40);
          if (r < 0.3 && depth < 5)
            {
              g_string_append_printf (s, ",\n{\"ph\": \"B\", \"ts\": %" G_GINT64_FORMAT ", \"pid\": 1, "
                                      "\"tid\": %u, \"name\": \"f%d\"}", ts, tid, g_rand_int_range (rand, 0, 8));
              depth++;
            }
          else if (r < 0.5 && depth > 0)
            {
              g_string_append_printf (s, ",\n{\"ph\": \"E\", \"ts\": %" G_GINT64_FORMAT ", \"pid\": 1, "
                                      "\"tid\": %u}", ts, tid);
              depth--;
            }
          else if (r < 0.8)
            g_string_append_printf (s, ",\n{\"ph\": \"X\", \"ts\": %" G_GINT64_FORMAT ", \"dur\": %d, "
                                    "\"pid\": 1, \"tid\": %u, \"name\": \"x%d\"}",
                                    ts, g_rand_int_range (rand, 0, 30), tid, g_rand_int_range (rand, 0, 4));
          else if (r < 0.98)
            g_string_append_printf (s, ",\n{\"ph\": \"C\", \"ts\": %" G_GINT64_FORMAT ", \"pid\": 2, "
                                    "\"name\": \"mem\", \"args\": {\"heap\": %d}}", ts, g_rand_int_range (rand, 0, 1000));
          else
            {
              /* Drawn once: MAX() evaluates its arguments twice. */
              gint64 late = ts + g_rand_int_range (rand, -20000, 20000);

              g_string_append_printf (s, ",\n{\"ph\": \"i\", \"ts\": %" G_GINT64_FORMAT ", \"pid\": 1, "
                                      "\"tid\": %u, \"name\": \"late\", \"s\": \"t\"}",
                                      MAX (0, late), tid);
            }
        }
      for (; depth > 0; depth--)
        g_string_append_printf (s, ",\n{\"ph\": \"E\", \"ts\": %" G_GINT64_FORMAT ", \"pid\": 1, \"tid\": %u}",
                                ++ts, tid);
      clock[tid] = ts;
    }
  g_string_append (s, "\n]}\n");
  g_assert_true (g_file_set_contents (path, s->str, s->len, NULL));
  return path;
}

/* A long recording that leaks async spans: nestable (b/e) and legacy
 * (S/F) spans, most closed within their burst, some many chunks later,
 * some never; ends before their begins, ids reused, "local" ids; X spans
 * on two threads between. */
static char *
write_chrome_async (guint n_bursts,
                    guint seed,
                    guint *n_begins)
{
  g_autoptr(GString) s = g_string_new ("{\"traceEvents\": [\n"
                                       "{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": 1, "
                                       "\"args\": {\"name\": \"main\"}}");
  g_autoptr(GRand) rand = g_rand_new_with_seed (seed);
  g_autoptr(GArray) later = g_array_new (FALSE, FALSE, sizeof (guint));
  char *path = NULL;
  int fd = g_file_open_tmp ("tsl-index-async-XXXXXX.json", &path, NULL);
  gint64 ts = 1000;
  guint id = 0;

  g_assert_cmpint (fd, >=, 0);
  close (fd);
  *n_begins = 0;
  for (guint b = 0; b < n_bursts; b++)
    {
      for (guint e = 0; e < 20; e++)
        {
          double r = g_rand_double (rand);
          const char *cat = g_rand_boolean (rand) ? "net" : "input";

          ts += g_rand_int_range (rand, 1, 50);
          if (r < 0.25)
            {
              /* A span: closed now, much later, or never. */
              double fate = g_rand_double (rand);
              gboolean legacy = g_rand_boolean (rand);
              gint64 end = ts + g_rand_int_range (rand, 0, 400);

              id++;
              (*n_begins)++;
              g_string_append_printf (s, ",\n{\"ph\": \"%s\", \"cat\": \"%s\", \"name\": \"req%u\", \"id\": \"0x%x\", "
                                      "\"ts\": %" G_GINT64_FORMAT ", \"pid\": 1, \"tid\": 1}",
                                      legacy ? "S" : "b", cat, id % 5, id, ts);
              if (fate < 0.6)
                g_string_append_printf (s, ",\n{\"ph\": \"%s\", \"cat\": \"%s\", \"name\": \"req%u\", \"id\": \"0x%x\", "
                                        "\"ts\": %" G_GINT64_FORMAT ", \"pid\": 1, \"tid\": 1}",
                                        legacy ? "F" : "e", cat, id % 5, id, end);
              else if (fate < 0.85)
                {
                  guint pending[3] = { id, legacy, (guint) g_str_equal (cat, "net") };

                  g_array_append_vals (later, pending, 3);
                }
            }
          else if (r < 0.3 && later->len > 0 && g_rand_int_range (rand, 0, 4) == 0)
            {
              /* A span left open a few chunks ago ends (a view reads the
               * chunks a span overlaps: ends long after would make every
               * view read most of the file). */
              guint drawn = (guint) g_rand_int_range (rand, 1, 6);  /* once: MIN() evaluates twice */
              guint back = MIN (drawn, later->len / 3);
              guint at = later->len - 3 * back;
              guint *p = &g_array_index (later, guint, at);

              g_string_append_printf (s, ",\n{\"ph\": \"%s\", \"cat\": \"%s\", \"name\": \"req%u\", \"id\": \"0x%x\", "
                                      "\"ts\": %" G_GINT64_FORMAT ", \"pid\": 1, \"tid\": 1}",
                                      p[1] ? "F" : "e", p[2] ? "net" : "input", p[0] % 5, p[0], ts);
              g_array_remove_range (later, at, 3);
            }
          else if (r < 0.32)
            /* An end before its begin (the file is not sorted). */
            g_string_append_printf (s, ",\n{\"ph\": \"e\", \"cat\": \"io\", \"name\": \"early\", \"id2\": {\"local\": \"0x%x\"}, "
                                    "\"ts\": %" G_GINT64_FORMAT ", \"pid\": 2, \"tid\": 3},"
                                    "\n{\"ph\": \"b\", \"cat\": \"io\", \"name\": \"early\", \"id2\": {\"local\": \"0x%x\"}, "
                                    "\"ts\": %" G_GINT64_FORMAT ", \"pid\": 2, \"tid\": 3}",
                                    b, ts + 30, b, ts);
          else if (r < 0.34)
            /* A reused id: the begin replaces the open one. */
            g_string_append_printf (s, ",\n{\"ph\": \"b\", \"cat\": \"net\", \"name\": \"poll\", \"id\": 7, "
                                    "\"ts\": %" G_GINT64_FORMAT ", \"pid\": 1, \"tid\": 1}", ts);
          else
            g_string_append_printf (s, ",\n{\"ph\": \"X\", \"ts\": %" G_GINT64_FORMAT ", \"dur\": %d, "
                                    "\"pid\": 1, \"tid\": %d, \"name\": \"x%d\"}",
                                    ts, g_rand_int_range (rand, 0, 30), g_rand_int_range (rand, 1, 3),
                                    g_rand_int_range (rand, 0, 4));
        }
    }
  g_string_append (s, "\n]}\n");
  g_assert_true (g_file_set_contents (path, s->str, s->len, NULL));
  return path;
}

static TslSnapshot *
read_range (const char     *path,
            TslSamplerMode  mode,
            gint64          lo,
            gint64          hi,
            gboolean        indexed,
            guint64        *bytes)
{
  g_autoptr(TslTrace) trace = tsl_trace_new (mode, 32, 7);
  g_autoptr(GError) error = NULL;
  guint64 before = tsl_chunk_index_get_bytes_read ();

  if (!indexed)
    g_setenv ("TSL_NO_INDEX", "1", TRUE);
  tsl_trace_set_time_filter (trace, lo, hi);
  g_assert_true (tsl_read_path_full (trace, path, TSL_READER_THREADS_NEVER, NULL, NULL, NULL, &error));
  g_assert_no_error (error);
  g_unsetenv ("TSL_NO_INDEX");
  if (bytes != NULL)
    *bytes = tsl_chunk_index_get_bytes_read () - before;
  return tsl_snapshot_new (trace);
}

static void
assert_same (TslSnapshot *a,
             TslSnapshot *b)
{
  g_assert_cmpint (tsl_snapshot_get_start (a), ==, tsl_snapshot_get_start (b));
  g_assert_cmpint (tsl_snapshot_get_span (a), ==, tsl_snapshot_get_span (b));
  g_assert_cmpuint (tsl_snapshot_get_n_tracks (a), ==, tsl_snapshot_get_n_tracks (b));
  for (guint i = 0; i < tsl_snapshot_get_n_tracks (a); i++)
    {
      const TslSnapshotTrack *ta = tsl_snapshot_get_track (a, i);
      const TslSnapshotTrack *tb = tsl_snapshot_get_track (b, i);

      g_assert_cmpstr (ta->name, ==, tb->name);
      g_assert_cmpstr (ta->process, ==, tb->process);
      g_assert_cmpint (ta->kind, ==, tb->kind);
      g_assert_cmpuint (ta->n_samples, ==, tb->n_samples);
      for (guint j = 0; j < ta->n_samples; j++)
        {
          const TslSnapshotSample *sa = &ta->samples[j];
          const TslSnapshotSample *sb = &tb->samples[j];

          g_assert_cmpint (sa->time_ns, ==, sb->time_ns);
          g_assert_cmpint (sa->start_ns, ==, sb->start_ns);
          g_assert_cmpint (sa->end_ns, ==, sb->end_ns);
          g_assert_true (memcmp (&sa->value, &sb->value, sizeof (double)) == 0);
          g_assert_true (memcmp (&sa->summary, &sb->summary, sizeof sa->summary) == 0);
          g_assert_cmpuint (sa->n_frames, ==, sb->n_frames);
          for (guint f = 0; f < sa->n_frames; f++)
            g_assert_cmpstr (tsl_snapshot_get_frame_name (a, sa->frames[f]), ==,
                             tsl_snapshot_get_frame_name (b, sb->frames[f]));
        }
    }
}

/* The first, whole read: it records the index. */
static void
read_whole (const char *path,
            gint64     *start,
            gint64     *end)
{
  g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_COUNT, 16, 1);
  g_autoptr(GError) error = NULL;

  g_assert_true (tsl_read_path (trace, path, NULL, NULL, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (tsl_trace_get_span (trace, start, end));
}

static TslChunkIndex *
lookup (const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GFileInputStream) stream = g_file_read (file, NULL, NULL);
  TslFileKey key;

  g_assert_nonnull (stream);
  g_assert_true (tsl_file_key_query (stream, &key));
  return tsl_chunk_index_lookup (&key);
}

static void
test_same_as_whole (void)
{
  g_autofree char *path = NULL;
  g_autoptr(TslChunkIndex) index = NULL;
  g_autoptr(GRand) rand = g_rand_new_with_seed (19);
  gint64 start, end, span;
  guint64 size;

  g_setenv ("TSL_INDEX_CHUNK_BYTES", "32768", TRUE);
  path = write_chrome (6000, 3);
  read_whole (path, &start, &end);
  span = end - start;
  index = lookup (path);
  g_assert_nonnull (index);
  g_assert_cmpuint (tsl_chunk_index_get_n_chunks (index), >, 20);
  size = tsl_chunk_index_get_chunk_end (index, tsl_chunk_index_get_n_chunks (index) - 1);

  for (guint trial = 0; trial < 12; trial++)
    {
      TslSamplerMode mode = trial % 2 ? TSL_SAMPLER_TIME : TSL_SAMPLER_COUNT;
      double width = trial < 8 ? 0.01 : g_rand_double_range (rand, 0.05, 0.5);
      gint64 lo = start + (gint64) (g_rand_double_range (rand, 0, 1 - width) * span);
      gint64 hi = lo + (gint64) (width * span);
      guint64 bytes = 0;
      g_autoptr(TslSnapshot) via = read_range (path, mode, lo, hi, TRUE, &bytes);
      g_autoptr(TslSnapshot) whole = read_range (path, mode, lo, hi, FALSE, NULL);

      assert_same (via, whole);
      g_assert_cmpuint (bytes, >, 0);
      /* A 1 % range: the header chunk and a few around it. */
      if (width == 0.01)
        g_assert_cmpuint (bytes, <, size / 5);
    }
  g_unlink (path);
  g_unsetenv ("TSL_INDEX_CHUNK_BYTES");
}

/* Async spans left open pile up: checkpoints are still made (they once
 * waited for none to be pending: one chunk), each span is saved once, not
 * at every checkpoint, and range reads restore them to give what whole
 * reads give, in both modes. */
static void
test_open_async (void)
{
  g_autofree char *path = NULL;
  g_autoptr(TslChunkIndex) index = NULL;
  g_autoptr(GRand) rand = g_rand_new_with_seed (23);
  gint64 start, end, span;
  guint n_begins = 0;
  guint64 size;

  g_setenv ("TSL_INDEX_CHUNK_BYTES", "32768", TRUE);
  path = write_chrome_async (4000, 11, &n_begins);
  read_whole (path, &start, &end);
  span = end - start;
  index = lookup (path);
  g_assert_nonnull (index);
  g_assert_cmpuint (tsl_chunk_index_get_n_chunks (index), >, 50);
  /* Records and chunks, not their product: 100 bytes a span begun holds
   * each once, never each at every checkpoint (thousands stay open, over
   * about 200 chunks). */
  g_test_message ("%u chunks, %" G_GSIZE_FORMAT " bytes of state for %u async spans",
                  tsl_chunk_index_get_n_chunks (index), tsl_chunk_index_get_state_bytes (index), n_begins);
  g_assert_cmpuint (tsl_chunk_index_get_state_bytes (index), <, (gsize) n_begins * 100);
  size = tsl_chunk_index_get_chunk_end (index, tsl_chunk_index_get_n_chunks (index) - 1);

  for (guint trial = 0; trial < 10; trial++)
    {
      TslSamplerMode mode = trial % 2 ? TSL_SAMPLER_TIME : TSL_SAMPLER_COUNT;
      double width = trial < 6 ? 0.01 : g_rand_double_range (rand, 0.05, 0.5);
      gint64 lo = start + (gint64) (g_rand_double_range (rand, 0, 1 - width) * span);
      gint64 hi = lo + (gint64) (width * span);
      guint64 bytes = 0;
      g_autoptr(TslSnapshot) via = read_range (path, mode, lo, hi, TRUE, &bytes);
      g_autoptr(TslSnapshot) whole = read_range (path, mode, lo, hi, FALSE, NULL);

      assert_same (via, whole);
      if (width == 0.01)
        g_assert_cmpuint (bytes, <, size / 5);
    }
  g_unlink (path);
  g_unsetenv ("TSL_INDEX_CHUNK_BYTES");
}

static void
count_segment_messages (const char     *domain,
                        GLogLevelFlags  level,
                        const char     *message,
                        gpointer        data)
{
  if (strstr (message, "segments scanned on 3 threads") != NULL)
    (*(guint *) data)++;
}

/* A zoom's detail read: time mode, every slice kept. */
static TslSnapshot *
read_detail (const char       *path,
             gint64            lo,
             gint64            hi,
             gboolean          indexed,
             TslReaderThreads  threads)
{
  g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_TIME, 32, 7);
  g_autoptr(GError) error = NULL;

  if (!indexed)
    g_setenv ("TSL_NO_INDEX", "1", TRUE);
  tsl_trace_set_time_filter (trace, lo, hi);
  tsl_trace_record_exact (trace, TSL_EXACT_PER_TRACK, TSL_EXACT_TOTAL);
  g_assert_true (tsl_read_path_full (trace, path, threads, NULL, NULL, NULL, &error));
  g_assert_no_error (error);
  g_unsetenv ("TSL_NO_INDEX");
  return tsl_snapshot_new (trace);
}

/* A range read of a regular file scans its chunks on several threads, as
 * a whole read does (tsl-chrome-parallel.c), with the same result as one
 * thread reading the whole file: samples and every exact slice. Random
 * cuts (TSL_READER_SPLIT_SEED) make many guesses wrong. */
static void
test_threads (void)
{
  g_autofree char *path = NULL;
  g_autoptr(GRand) rand = g_rand_new_with_seed (31);
  gint64 start, end, span;
  guint n_parallel = 0;
  guint handler;

  g_setenv ("TSL_INDEX_CHUNK_BYTES", "32768", TRUE);
  path = write_chrome (6000, 5);
  read_whole (path, &start, &end);
  span = end - start;
  handler = g_log_set_handler ("tsl-reader", G_LOG_LEVEL_DEBUG, count_segment_messages, &n_parallel);
  for (guint trial = 0; trial < 8; trial++)
    {
      double width = trial < 4 ? 0.02 : g_rand_double_range (rand, 0.05, 0.5);
      gint64 lo = start + (gint64) (g_rand_double_range (rand, 0, 1 - width) * span);
      gint64 hi = lo + (gint64) (width * span);
      g_autofree char *seed = g_strdup_printf ("%u", trial + 1);
      g_autoptr(TslSnapshot) whole = read_detail (path, lo, hi, FALSE, TSL_READER_THREADS_NEVER);
      g_autoptr(TslSnapshot) via = NULL;
      gint64 wa, wb, va, vb;

      g_setenv ("TSL_READER_THREADS", "3", TRUE);
      g_setenv ("TSL_READER_SPLIT_SEED", seed, TRUE);
      via = read_detail (path, lo, hi, TRUE, TSL_READER_THREADS_DEFAULT);
      g_unsetenv ("TSL_READER_SPLIT_SEED");
      g_unsetenv ("TSL_READER_THREADS");

      assert_same (via, whole);
      g_assert_true (tsl_snapshot_get_exact (whole, &wa, &wb));
      g_assert_true (tsl_snapshot_get_exact (via, &va, &vb));
      g_assert_cmpint (wa, ==, va);
      g_assert_cmpint (wb, ==, vb);
      for (guint i = 0; i < tsl_snapshot_get_n_tracks (whole); i++)
        {
          const TslSnapshotTrack *tw = tsl_snapshot_get_track (whole, i);
          const TslSnapshotTrack *tv = tsl_snapshot_get_track (via, i);

          g_assert_cmpint (tw->exact, ==, tv->exact);
          g_assert_cmpuint (tw->n_slices, ==, tv->n_slices);
          for (guint j = 0; j < tw->n_slices; j++)
            {
              g_assert_cmpint (tw->slices[j].start_ns, ==, tv->slices[j].start_ns);
              g_assert_cmpint (tw->slices[j].end_ns, ==, tv->slices[j].end_ns);
              g_assert_cmpint (tw->slices[j].offset, ==, tv->slices[j].offset);
              g_assert_cmpuint (tw->slices[j].depth, ==, tv->slices[j].depth);
              g_assert_cmpstr (tsl_snapshot_get_frame_name (whole, tw->slices[j].frame), ==,
                               tsl_snapshot_get_frame_name (via, tv->slices[j].frame));
            }
        }
    }
  g_log_remove_handler ("tsl-reader", handler);
  /* Every indexed read went through the scanner threads. */
  g_assert_cmpuint (n_parallel, ==, 8);
  g_unlink (path);
  g_unsetenv ("TSL_INDEX_CHUNK_BYTES");
}

/* Positions after a jump: a warning names the line and column of its
 * cell, and a slice the byte offset of its event, as in a whole read. The
 * chunk a range read resumes at knows its line and column. */
static void
test_positions (void)
{
  g_autofree char *path = NULL;
  g_autoptr(GString) s = g_string_new ("ts,cpu,mem\n");
  gint64 start, end;
  const guint rows = 120000, bad = 95000;
  int fd;

  g_setenv ("TSL_INDEX_CHUNK_BYTES", "32768", TRUE);
  for (guint i = 0; i < rows; i++)
    {
      /* Some rows end in a quoted field with a newline inside: lines and
       * rows differ. */
      if (i == bad)
        g_string_append_printf (s, "%u,oops,%u\n", i, i % 97);
      else if (i % 7 == 0)
        g_string_append_printf (s, "%u,%u,\"%u\n%u\"\n", i, i % 13, i % 97, i);
      else
        g_string_append_printf (s, "%u,%u,%u\n", i, i % 13, i % 97);
    }
  fd = g_file_open_tmp ("tsl-index-XXXXXX.csv", &path, NULL);
  g_assert_cmpint (fd, >=, 0);
  close (fd);
  g_assert_true (g_file_set_contents (path, s->str, s->len, NULL));
  read_whole (path, &start, &end);

  for (guint indexed = 0; indexed < 2; indexed++)
    {
      g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_COUNT, 32, 7);
      g_autoptr(GError) error = NULL;
      g_auto(GStrv) warnings = NULL;
      guint64 before = tsl_chunk_index_get_bytes_read ();
      gboolean found = FALSE;

      if (!indexed)
        g_setenv ("TSL_NO_INDEX", "1", TRUE);
      /* Rows are seconds: the bad row's second and a few around it. */
      tsl_trace_set_time_filter (trace, (gint64) (bad - 50) * G_GINT64_CONSTANT (1000000000),
                                 (gint64) (bad + 50) * G_GINT64_CONSTANT (1000000000));
      g_assert_true (tsl_read_path_full (trace, path, TSL_READER_THREADS_NEVER, NULL, NULL, NULL, &error));
      g_assert_no_error (error);
      g_unsetenv ("TSL_NO_INDEX");
      if (indexed)
        g_assert_cmpuint (tsl_chunk_index_get_bytes_read () - before, <, s->len / 4);
      warnings = tsl_trace_dup_warnings (trace);
      for (guint i = 0; warnings[i] != NULL; i++)
        {
          g_autofree char *where = g_strdup_printf ("%s:%u:", path, bad + bad / 7 + 1 + 2);

          if (strstr (warnings[i], "oops") != NULL || strstr (warnings[i], where) != NULL)
            {
              g_assert_nonnull (strstr (warnings[i], where));
              found = TRUE;
            }
        }
      g_assert_true (found);
    }
  g_unlink (path);
  g_unsetenv ("TSL_INDEX_CHUNK_BYTES");
}

/* The file gzip-compressed: offsets are of the decompressed text, and each range read resumes the decompressor at an access point. */
static void
test_gzip (void)
{
  g_autofree char *plain = NULL;
  g_autofree char *text = NULL;
  g_autofree char *path = NULL;
  g_autoptr(GBytes) packed = NULL;
  g_autoptr(GConverter) gzip = G_CONVERTER (g_zlib_compressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP, 6));
  g_autoptr(GInputStream) in = NULL;
  g_autoptr(GOutputStream) out = g_memory_output_stream_new_resizable ();
  g_autoptr(GOutputStream) zout = NULL;
  g_autoptr(TslChunkIndex) index = NULL;
  g_autoptr(GRand) rand = g_rand_new_with_seed (23);
  g_autoptr(GError) error = NULL;
  gsize len;
  gint64 start, end;

  g_setenv ("TSL_INDEX_CHUNK_BYTES", "32768", TRUE);
  plain = write_chrome (8000, 11);
  g_assert_true (g_file_get_contents (plain, &text, &len, NULL));
  zout = g_converter_output_stream_new (out, gzip);
  g_assert_true (g_output_stream_write_all (zout, text, len, NULL, NULL, &error));
  g_assert_true (g_output_stream_close (zout, NULL, &error));
  packed = g_memory_output_stream_steal_as_bytes (G_MEMORY_OUTPUT_STREAM (out));
  path = g_strconcat (plain, ".gz", NULL);
  g_assert_true (g_file_set_contents (path, g_bytes_get_data (packed, NULL), g_bytes_get_size (packed), NULL));

  read_whole (path, &start, &end);
  index = lookup (path);
  g_assert_nonnull (index);
  g_assert_true (tsl_chunk_index_is_compressed (index));
  g_assert_cmpuint (tsl_chunk_index_get_n_chunks (index), >, 5);
  /* Offsets of the text, which is longer than the file. */
  g_assert_cmpuint (tsl_chunk_index_get_chunk_end (index, tsl_chunk_index_get_n_chunks (index) - 1), ==, len);
  for (guint i = 1; i < tsl_chunk_index_get_n_chunks (index); i++)
    g_assert_nonnull (tsl_chunk_index_get_chunk (index, i)->point);

  for (guint trial = 0; trial < 8; trial++)
    {
      TslSamplerMode mode = trial % 2 ? TSL_SAMPLER_TIME : TSL_SAMPLER_COUNT;
      double width = trial < 4 ? 0.01 : g_rand_double_range (rand, 0.05, 0.5);
      gint64 lo = start + (gint64) (g_rand_double_range (rand, 0, 1 - width) * (end - start));
      gint64 hi = lo + (gint64) (width * (end - start));
      guint64 bytes = 0;
      g_autoptr(TslSnapshot) via = read_range (path, mode, lo, hi, TRUE, &bytes);
      g_autoptr(TslSnapshot) whole = read_range (path, mode, lo, hi, FALSE, NULL);

      assert_same (via, whole);
      g_assert_cmpuint (bytes, >, 0);
      if (width == 0.01)
        g_assert_cmpuint (bytes, <, g_bytes_get_size (packed) * 3 / 4);
    }
  g_unlink (path);
  g_unlink (plain);
  g_unsetenv ("TSL_INDEX_CHUNK_BYTES");
}

/* More chunks than the cap: neighbours merge, reads stay right. */
static void
test_capped (void)
{
  g_autofree char *path = NULL;
  g_autoptr(TslChunkIndex) index = NULL;
  g_autoptr(TslSnapshot) via = NULL;
  g_autoptr(TslSnapshot) whole = NULL;
  gint64 start, end;
  guint64 bytes = 0;

  g_setenv ("TSL_INDEX_CHUNK_BYTES", "1024", TRUE);
  path = write_chrome (8000, 5);
  read_whole (path, &start, &end);
  index = lookup (path);
  g_assert_nonnull (index);
  g_assert_cmpuint (tsl_chunk_index_get_n_chunks (index), <=, TSL_CHUNK_INDEX_MAX);
  g_assert_cmpuint (tsl_chunk_index_get_n_chunks (index), >=, TSL_CHUNK_INDEX_MAX / 2);
  g_assert_cmpuint (tsl_chunk_index_get_stride (index), >, 1024);

  via = read_range (path, TSL_SAMPLER_COUNT, start + (end - start) / 2, start + (end - start) / 2 + (end - start) / 100,
                    TRUE, &bytes);
  whole = read_range (path, TSL_SAMPLER_COUNT, start + (end - start) / 2, start + (end - start) / 2 + (end - start) / 100,
                      FALSE, NULL);
  assert_same (via, whole);
  g_assert_cmpuint (bytes, >, 0);
  g_unlink (path);
  g_unsetenv ("TSL_INDEX_CHUNK_BYTES");
}

/* A file that changed after its index was made is read whole. */
static void
test_changed_file (void)
{
  g_autofree char *path = NULL;
  g_autoptr(TslSnapshot) via = NULL;
  g_autoptr(TslSnapshot) whole = NULL;
  g_autofree char *text = NULL;
  gsize len;
  gint64 start, end, lo, hi;
  guint64 bytes = 1;
  FILE *f;

  g_setenv ("TSL_INDEX_CHUNK_BYTES", "32768", TRUE);
  path = write_chrome (3000, 9);
  read_whole (path, &start, &end);
  /* Same bytes, other times: the index would pick the wrong chunks. */
  g_assert_true (g_file_get_contents (path, &text, &len, NULL));
  for (char *p = strstr (text, "\"ts\": 1"); p != NULL; p = strstr (p + 1, "\"ts\": 1"))
    p[6] = '9';
  /* In place: the same inode and size, only the mtime tells. */
  g_usleep (50 * 1000);
  f = fopen (path, "r+b");
  g_assert_nonnull (f);
  g_assert_cmpuint (fwrite (text, 1, len, f), ==, len);
  g_assert_cmpint (fclose (f), ==, 0);

  lo = start + (end - start) / 3;
  hi = lo + (end - start) / 50;
  via = read_range (path, TSL_SAMPLER_COUNT, lo, hi, TRUE, &bytes);
  whole = read_range (path, TSL_SAMPLER_COUNT, lo, hi, FALSE, NULL);
  g_assert_cmpuint (bytes, ==, 0);
  assert_same (via, whole);
  g_unlink (path);
  g_unsetenv ("TSL_INDEX_CHUNK_BYTES");
}

static void
append (const char *path,
        const char *text,
        gsize       len)
{
  FILE *f = fopen (path, "ab");

  g_assert_nonnull (f);
  g_assert_cmpuint (fwrite (text, 1, len, f), ==, len);
  g_assert_cmpint (fclose (f), ==, 0);
}

/* The follower's index of the file as it is now: it publishes one each
 * time it reaches the end. */
static TslChunkIndex *
wait_for_index (const char *path)
{
  for (guint tries = 0; tries < 300; tries++)
    {
      TslChunkIndex *index = lookup (path);

      if (index != NULL)
        return index;
      g_usleep (100 * 1000);
    }
  g_assert_not_reached ();
  return NULL;
}

/* A filtered read of the file's bytes as a stream that has no index: a
 * full scan. */
static TslSnapshot *
scan_range (const char     *path,
            TslSamplerMode  mode,
            gint64          lo,
            gint64          hi)
{
  g_autoptr(TslTrace) trace = tsl_trace_new (mode, 32, 7);
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  g_autoptr(GInputStream) stream = NULL;
  gsize len;

  g_assert_true (g_file_get_contents (path, &text, &len, NULL));
  stream = g_memory_input_stream_new_from_data (g_steal_pointer (&text), len, g_free);
  tsl_trace_set_time_filter (trace, lo, hi);
  g_assert_true (tsl_read_stream (trace, stream, path, len, NULL, NULL, NULL, &error));
  g_assert_no_error (error);
  return tsl_snapshot_new (trace);
}

/* Ranges of the part appended last: through the index (fewer bytes than the
 * file) and by a full scan, the same. */
static void
check_follow_ranges (const char *path,
                     GRand      *rand,
                     double      from,
                     double      to)
{
  g_autoptr(TslChunkIndex) index = wait_for_index (path);
  guint n = tsl_chunk_index_get_n_chunks (index);
  guint64 size = tsl_chunk_index_get_chunk_end (index, n - 1);
  gint64 start, end;
  GStatBuf st;

  /* Of the whole file as it is now. */
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpuint (size, ==, (guint64) st.st_size);
  tsl_chunk_index_get_span (index, &start, &end);
  for (guint trial = 0; trial < 4; trial++)
    {
      TslSamplerMode mode = trial % 2 ? TSL_SAMPLER_TIME : TSL_SAMPLER_COUNT;
      gint64 lo = start + (gint64) (g_rand_double_range (rand, from, to - 0.02) * (end - start));
      gint64 hi = lo + (end - start) / 50;
      guint64 bytes = 0;
      g_autoptr(TslSnapshot) via = read_range (path, mode, lo, hi, TRUE, &bytes);
      g_autoptr(TslSnapshot) whole = scan_range (path, mode, lo, hi);

      assert_same (via, whole);
      g_assert_cmpuint (bytes, >, 0);
      g_assert_cmpuint (bytes, <, size / 2);
    }
}

/* Issue 19 item 5: a followed file's index grows with it, so a range read
 * of the file as it is now reads only its chunks, and gives what a full
 * scan does. */
static void
test_follow (void)
{
  g_autofree char *path = NULL;
  g_autofree char *text = NULL;
  g_autoptr(GRand) rand = g_rand_new_with_seed (5);
  g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_COUNT, 16, 1);
  Follower f = { NULL, trace, TRUE, FALSE };
  GThread *thread;
  gsize len, cut[3];

  g_setenv ("TSL_INDEX_CHUNK_BYTES", "16384", TRUE);
  path = write_chrome (1500, 11);
  g_assert_true (g_file_get_contents (path, &text, &len, NULL));
  /* Cut at event boundaries: the file grows by whole events, as a tracer
   * writes it (the last part closes the document). */
  cut[0] = strstr (text + len / 3, ",\n") - text;
  cut[1] = strstr (text + 2 * len / 3, ",\n") - text;
  cut[2] = len;
  g_assert_true (g_file_set_contents (path, text, cut[0], NULL));
  f.path = path;
  thread = g_thread_new ("follow", follow_thread, &f);

  check_follow_ranges (path, rand, 0, 1);
  for (guint part = 1; part < 3; part++)
    {
      g_usleep (20 * 1000);   /* another mtime */
      append (path, text + cut[part - 1], cut[part] - cut[part - 1]);
      /* Now mostly in the new part: the index must have grown into it. */
      check_follow_ranges (path, rand, part == 1 ? 0.5 : 0.7, 1);
    }
  g_atomic_int_set (&f.following, FALSE);
  g_thread_join (thread);
  g_assert_true (f.ok);
  /* The whole read's index, kept when following stops. */
  check_follow_ranges (path, rand, 0, 1);
  g_unlink (path);
  g_unsetenv ("TSL_INDEX_CHUNK_BYTES");
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/chunk-index/same-as-whole", test_same_as_whole);
  g_test_add_func ("/chunk-index/capped", test_capped);
  g_test_add_func ("/chunk-index/open-async", test_open_async);
  g_test_add_func ("/chunk-index/gzip", test_gzip);
  g_test_add_func ("/chunk-index/threads", test_threads);
  g_test_add_func ("/chunk-index/positions", test_positions);
  g_test_add_func ("/chunk-index/changed-file", test_changed_file);
  g_test_add_func ("/chunk-index/follow", test_follow);
  return g_test_run ();
}
