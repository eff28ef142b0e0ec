/* test-inflate-ahead.c: decompression on its own thread gives what it gives inline
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The same input pushed the same way must give the same output buffers
 * (bytes, lengths, access points and their saved form) and the same
 * damage after the same bytes, whether the TslInflate runs on the caller's
 * thread or ahead of it (tsl-inflate-ahead.h): gzip with members and
 * garbage, zstd in frames, one frame, damaged and cut. The thread waits
 * for a free buffer when the caller does not take them (back-pressure),
 * and stops when freed with input queued and the ring full. Through a
 * whole reader: gzip and zstd Chrome traces, whole, cut and damaged, read
 * on one thread and with the decompression thread give the same events,
 * warnings and errors (FILE:LINE:COLUMN positions included), a read
 * cancelled midway stops, the thread never waits for input between
 * feeds that each decompress to more than the ring holds, a small
 * compressed trace is scanned on the pool from its start, and on one
 * thread more than the cores when their count is left to the machine.
 */
#include <string.h>
#include <glib/gstdio.h>

#include <zlib.h>
#include <zstd.h>

#include "tsl-inflate-ahead.h"
#include "tsl-read-stream.h"
#include "tsl-reader.h"

static GByteArray *
make_text (gsize    size,
           guint32  seed)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (seed);
  GByteArray *text = g_byte_array_new ();

  g_byte_array_append (text, (const guint8 *) "[\n", 2);
  while (text->len < size)
    {
      g_autofree char *line = g_strdup_printf ("{\"ph\": \"X\", \"ts\": %u, \"dur\": %u, \"pid\": 1, "
                                               "\"name\": \"f%u\", \"tid\": %u},\n",
                                               text->len, g_rand_int_range (rand, 0, 1000),
                                               g_rand_int_range (rand, 0, 64), g_rand_int_range (rand, 1, 9));

      g_byte_array_append (text, (const guint8 *) line, strlen (line));
    }
  g_byte_array_append (text, (const guint8 *) "{\"ph\": \"i\", \"ts\": 1, \"pid\": 1, \"tid\": 1, \"name\": \"end\"}]\n", 57);
  return text;
}

static void
gzip_member (GByteArray   *out,
             const guint8 *data,
             gsize         len)
{
  z_stream z = { 0 };
  gsize base = out->len;

  g_assert_cmpint (deflateInit2 (&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), ==, Z_OK);
  g_byte_array_set_size (out, base + deflateBound (&z, len) + 64);
  z.next_in = (Bytef *) data;
  z.avail_in = len;
  z.next_out = out->data + base;
  z.avail_out = out->len - base;
  g_assert_cmpint (deflate (&z, Z_FINISH), ==, Z_STREAM_END);
  g_byte_array_set_size (out, base + z.total_out);
  deflateEnd (&z);
}

/* Two members and zero padding; *second: where the second member starts. */
static GByteArray *
gzip_input_members (GByteArray *text,
                    gsize      *second)
{
  GByteArray *input = g_byte_array_new ();
  gsize cut = text->len / 3;

  gzip_member (input, text->data, cut);
  *second = input->len;
  gzip_member (input, text->data + cut, text->len - cut);
  g_byte_array_append (input, (const guint8 *) "\0\0\0\0", 4);
  return input;
}

static GByteArray *
gzip_input (GByteArray *text)
{
  gsize second;

  return gzip_input_members (text, &second);
}

static GByteArray *
zstd_input (GByteArray *text,
            gsize       frame)
{
  GByteArray *input = g_byte_array_new ();

  for (gsize at = 0; at < text->len; at += frame)
    {
      gsize base = input->len, len = MIN (frame, text->len - at), n;

      g_byte_array_set_size (input, base + ZSTD_compressBound (len));
      n = ZSTD_compress (input->data + base, input->len - base, text->data + at, len, 3);
      g_assert_false (ZSTD_isError (n));
      g_byte_array_set_size (input, base + n);
    }
  return input;
}

/* What came out, one line a buffer: its length, the point it ends at
 * (saved), and a last line with the status and message; the bytes. */
typedef struct {
  GString    *log;
  GByteArray *out;
  TslInflate *inflate;
} Record;

static void
record_buffer (Record                *rec,
               const guint8          *out,
               gsize                  len,
               const TslInflatePoint *point)
{
  g_byte_array_append (rec->out, out, len);
  g_string_append_printf (rec->log, "%" G_GSIZE_FORMAT, len);
  if (point != NULL)
    {
      g_autoptr(GByteArray) saved = g_byte_array_new ();
      g_autofree char *hex = NULL;

      tsl_inflate_save_point (rec->inflate, point, saved);
      hex = g_compute_checksum_for_data (G_CHECKSUM_SHA256, saved->data, saved->len);
      g_string_append_printf (rec->log, " point %" G_GUINT64_FORMAT " %s", point->out, hex);
    }
  g_string_append_c (rec->log, '\n');
}

static gboolean
record_output (gpointer               user_data,
               const guint8          *out,
               gsize                  len,
               const TslInflatePoint *point,
               GError               **error)
{
  record_buffer (user_data, out, len, point);
  return TRUE;
}

/* The pieces `input` is pushed in: random lengths up to 300 KiB. */
static GArray *
pieces (GByteArray *input,
        guint32     seed)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (seed);
  GArray *cuts = g_array_new (FALSE, FALSE, sizeof (gsize));

  for (gsize at = 0; at < input->len;)
    {
      /* Drawn once: MIN() evaluates its arguments twice. */
      gsize r = (gsize) g_rand_int_range (rand, 1, 300 * 1024);
      gsize n = MIN (input->len - at, r);

      g_array_append_val (cuts, n);
      at += n;
    }
  return cuts;
}

static void
run_inline (TslInflateKind  kind,
            GByteArray     *input,
            GArray         *cuts,
            Record         *rec)
{
  gsize at = 0;

  rec->inflate = tsl_inflate_new (kind);
  tsl_inflate_record_points (rec->inflate, 1536 * 1024);
  for (guint i = 0; i < cuts->len; i++)
    {
      gsize n = g_array_index (cuts, gsize, i);
      g_autofree char *message = NULL;
      gboolean ok;
      TslInflateStatus status = tsl_inflate_push (rec->inflate, input->data + at, n, record_output, rec,
                                                  &ok, &message, NULL);

      g_assert_true (ok);
      at += n;
      if (status != TSL_INFLATE_OK)
        {
          g_string_append_printf (rec->log, "status %d %s\n", status, message);
          break;
        }
    }
  tsl_inflate_free (rec->inflate);
}

static void
run_ahead (TslInflateKind  kind,
           GByteArray     *input,
           GArray         *cuts,
           Record         *rec)
{
  TslInflateAhead *ahead;
  gsize at = 0;

  rec->inflate = tsl_inflate_new (kind);
  tsl_inflate_record_points (rec->inflate, 1536 * 1024);
  ahead = tsl_inflate_ahead_new (rec->inflate);
  for (guint i = 0; i < cuts->len; i++)
    {
      tsl_inflate_ahead_push (ahead, input->data + at, g_array_index (cuts, gsize, i));
      at += g_array_index (cuts, gsize, i);
    }
  tsl_inflate_ahead_close (ahead);
  for (;;)
    {
      const TslInflateAheadOut *out = tsl_inflate_ahead_next (ahead, 0, TRUE);
      gboolean end;

      g_assert_nonnull (out);
      if (out->len > 0 || out->point != NULL)
        record_buffer (rec, out->data, out->len, out->point);
      if (out->status != TSL_INFLATE_OK)
        g_string_append_printf (rec->log, "status %d %s\n", out->status, out->message);
      end = out->end;
      tsl_inflate_ahead_release (ahead);
      if (end)
        break;
    }
  tsl_inflate_ahead_free (ahead);
  tsl_inflate_free (rec->inflate);
}

static void
check_same (TslInflateKind  kind,
            GByteArray     *input,
            GByteArray     *text,
            guint32         seed)
{
  g_autoptr(GArray) cuts = pieces (input, seed);
  Record a = { g_string_new (NULL), g_byte_array_new () };
  Record b = { g_string_new (NULL), g_byte_array_new () };

  run_inline (kind, input, cuts, &a);
  run_ahead (kind, input, cuts, &b);
  g_assert_cmpstr (a.log->str, ==, b.log->str);
  g_assert_cmpmem (a.out->data, a.out->len, b.out->data, b.out->len);
  if (text != NULL)
    {
      g_assert_cmpmem (a.out->data, a.out->len, text->data, text->len);
      /* Buffers of up to 1 MiB, and points on the way. */
      g_assert_nonnull (strstr (a.log->str, "1048576\n"));
      g_assert_nonnull (strstr (a.log->str, " point "));
    }
  g_string_free (a.log, TRUE);
  g_string_free (b.log, TRUE);
  g_byte_array_unref (a.out);
  g_byte_array_unref (b.out);
}

static void
test_same_buffers (void)
{
  g_autoptr(GByteArray) text = make_text (6 * 1024 * 1024, 1);
  g_autoptr(GByteArray) gz = gzip_input (text);
  g_autoptr(GByteArray) zst = zstd_input (text, 700 * 1024);
  g_autoptr(GByteArray) one = zstd_input (text, text->len);

  check_same (TSL_INFLATE_GZIP, gz, text, 1);
  check_same (TSL_INFLATE_ZSTD, zst, text, 2);
  g_assert_cmpuint (one->len, >, 0);
  check_same (TSL_INFLATE_ZSTD, one, NULL, 3);
}

/* Damaged at random bytes, and cut short: the same buffers, then the same
 * status after them. */
static void
test_same_damage (void)
{
  g_autoptr(GByteArray) text = make_text (3 * 1024 * 1024, 2);
  g_autoptr(GRand) rand = g_rand_new_with_seed (7);

  for (guint kind = 0; kind < 2; kind++)
    {
      g_autoptr(GByteArray) input = kind == 0 ? gzip_input (text) : zstd_input (text, 500 * 1024);

      for (guint trial = 0; trial < 12; trial++)
        {
          g_autoptr(GByteArray) bad = g_byte_array_new ();
          gsize at = g_rand_int_range (rand, 0, input->len);

          g_byte_array_append (bad, input->data, trial % 3 == 2 ? at : input->len);
          if (trial % 3 != 2)
            bad->data[at] ^= 1u << g_rand_int_range (rand, 0, 8);
          check_same (kind == 0 ? TSL_INFLATE_GZIP : TSL_INFLATE_ZSTD, bad, NULL, trial);
        }
    }
}

/* Nobody takes the buffers: the thread waits for a free one, with at most
 * the ring's buffers of output decompressed; then everything comes, in
 * order. */
static void
test_back_pressure (void)
{
  g_autoptr(GByteArray) text = make_text (12 * 1024 * 1024, 3);
  g_autoptr(GByteArray) input = zstd_input (text, 1024 * 1024);
  g_autoptr(GByteArray) out = g_byte_array_new ();
  TslInflate *inflate = tsl_inflate_new (TSL_INFLATE_ZSTD);
  TslInflateAhead *ahead = tsl_inflate_ahead_new (inflate);
  gint64 deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;

  tsl_inflate_ahead_push (ahead, input->data, input->len);
  tsl_inflate_ahead_close (ahead);
  while (tsl_inflate_ahead_get_full_waits (ahead) == 0 && g_get_monotonic_time () < deadline)
    g_usleep (1000);
  g_assert_cmpuint (tsl_inflate_ahead_get_full_waits (ahead), >=, 1);
  /* Stopped at a full ring: the output so far is the ring's. */
  g_assert_cmpuint (tsl_inflate_get_out (inflate), <=,
                    (guint64) TSL_INFLATE_AHEAD_RING * TSL_INFLATE_BUFFER_BYTES);
  for (;;)
    {
      const TslInflateAheadOut *o = tsl_inflate_ahead_next (ahead, 0, TRUE);
      gboolean end = o->end;

      g_byte_array_append (out, o->data, o->len);
      tsl_inflate_ahead_release (ahead);
      if (end)
        break;
    }
  g_assert_cmpmem (out->data, out->len, text->data, text->len);
  g_assert_cmpuint (tsl_inflate_ahead_get_full_waits (ahead), >=, 1);
  tsl_inflate_ahead_free (ahead);
  tsl_inflate_free (inflate);
}

/* Freed with input queued and the ring full, with a buffer held, or
 * before any input: it stops, and the inflater is usable again. */
static void
test_free_midway (void)
{
  g_autoptr(GByteArray) text = make_text (12 * 1024 * 1024, 4);
  g_autoptr(GByteArray) input = zstd_input (text, 1024 * 1024);

  for (guint held = 0; held < 3; held++)
    {
      TslInflate *inflate = tsl_inflate_new (TSL_INFLATE_ZSTD);
      TslInflateAhead *ahead = tsl_inflate_ahead_new (inflate);

      if (held < 2)
        {
          tsl_inflate_ahead_push (ahead, input->data, input->len / 2);
          tsl_inflate_ahead_push (ahead, input->data + input->len / 2, input->len - input->len / 2);
        }
      if (held == 1)
        g_assert_nonnull (tsl_inflate_ahead_next (ahead, 0, TRUE));
      tsl_inflate_ahead_free (ahead);
      tsl_inflate_free (inflate);
    }
}

/* A whole read of `path` on one thread or with the decompression thread:
 * a line of what it gave. */
static char *
read_file (const char *path,
           gboolean    ahead)
{
  g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_COUNT, 50, 1);
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) warnings = NULL;
  g_autofree char *joined = NULL;
  gint64 start = 0, end = 0;
  gboolean ok;

  ok = tsl_read_path_full (trace, path, ahead ? TSL_READER_THREADS_AUTO : TSL_READER_THREADS_NEVER,
                           NULL, NULL, NULL, &error);
  tsl_trace_get_span (trace, &start, &end);
  warnings = tsl_trace_dup_warnings (trace);
  joined = g_strjoinv (" | ", warnings);
  return g_strdup_printf ("ok %d, error %s, %" G_GUINT64_FORMAT " events, span %" G_GINT64_FORMAT
                          "..%" G_GINT64_FORMAT ", warnings %s", ok, error ? error->message : "none",
                          tsl_trace_get_events (trace), start, end, joined);
}

static guint ahead_logs;

static void
count_ahead (const gchar    *domain,
             GLogLevelFlags  level,
             const gchar    *message,
             gpointer        data)
{
  if (strstr (message, "decompressed on its own thread") != NULL)
    ahead_logs++;
}

static void
test_reader (void)
{
  g_autoptr(GByteArray) text = make_text (5 * 1024 * 1024, 5);
  g_autoptr(GRand) rand = g_rand_new_with_seed (11);
  g_autofree char *dir = g_dir_make_tmp ("tsl-ahead-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "trace.json.z", NULL);
  guint handler = g_log_set_handler ("tsl-reader", G_LOG_LEVEL_DEBUG, count_ahead, NULL);
  guint reads = 0, invalid = 0;

  for (guint kind = 0; kind < 2; kind++)
    {
      gsize second = 0;
      g_autoptr(GByteArray) input = kind == 0 ? gzip_input_members (text, &second)
                                              : zstd_input (text, 400 * 1024);

      for (guint trial = 0; trial < 7; trial++)
        {
          g_autoptr(GByteArray) bad = g_byte_array_new ();
          gsize at = g_rand_int_range (rand, 16, input->len);
          g_autofree char *one = NULL, *two = NULL;

          /* Whole, cut short, damaged. */
          g_byte_array_append (bad, input->data, trial > 0 && trial < 4 ? at : input->len);
          if (trial >= 4)
            bad->data[at] ^= 1u << g_rand_int_range (rand, 0, 8);
          /* A second member zlib calls invalid (its method byte): the
           * error comes after the first member's text, at its end. */
          if (trial == 6 && kind == 0)
            bad->data[second + 2] = 7;
          g_assert_true (g_file_set_contents (path, (const char *) bad->data, bad->len, NULL));
          one = read_file (path, FALSE);
          two = read_file (path, TRUE);
          g_test_message ("%s", two);
          g_assert_cmpstr (one, ==, two);
          if (strstr (one, "invalid gzip data") != NULL)
            invalid++;
          if (trial == 0)
            g_assert_nonnull (strstr (one, "ok 1, error none"));
          reads++;
        }
    }
  g_log_remove_handler ("tsl-reader", handler);
  g_assert_cmpuint (invalid, >=, 1);
  /* Every read with the thread used it. */
  g_assert_cmpuint (ahead_logs, ==, reads);
  g_unlink (path);
  g_rmdir (dir);
}

typedef struct {
  GCancellable *cancellable;
  guint         calls;
  guint         cancel_after;
} CancelAt;

static void
progress_cancel (guint64  bytes_read,
                 guint64  bytes_total,
                 guint64  events,
                 gpointer user_data)
{
  CancelAt *at = user_data;

  /* From the given report on, once events reached the trace: compressed
   * input is scanned on the pool from its first buffer, so an early
   * report may come before any event is modelled (under ASan a cancel at
   * the first left an empty trace). */
  if (++at->calls >= at->cancel_after && events > 0 && !g_cancellable_is_cancelled (at->cancellable))
    g_cancellable_cancel (at->cancellable);
}

static guint64 input_waits = G_MAXUINT64;

static void
note_input_waits (const gchar    *domain,
                  GLogLevelFlags  level,
                  const gchar    *message,
                  gpointer        data)
{
  const char *at = strstr (message, " times for the parser and ");

  if (strstr (message, "decompressed on its own thread") != NULL && at != NULL)
    input_waits = g_ascii_strtoull (at + strlen (" times for the parser and "), NULL, 10);
}

/* The parser (slower than zstd here, on one thread) must not leave the
 * thread without input at a feed's end: the reading thread pushes the
 * next feed as soon as the thread has taken the last one. Each feed
 * decompresses to more buffers than the ring holds, so the thread cannot
 * finish a feed before the parser has taken a buffer of it, and then the
 * next feed is queued: no wait for input but (at most) one after the 4
 * magic bytes, whatever the timing. */
static void
test_no_input_waits (void)
{
  g_autoptr(GByteArray) text = make_text (24 * 1024 * 1024, 6);
  g_autoptr(GByteArray) input = zstd_input (text, text->len);
  g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_COUNT, 50, 1);
  g_autoptr(GError) error = NULL;
  TslReader *reader = tsl_reader_new (trace, "trace.json.zst");
  guint handler = g_log_set_handler ("tsl-reader", G_LOG_LEVEL_DEBUG, note_input_waits, NULL);
  /* Feeds of (RING + 2) MiB of text each. */
  guint n_feeds = text->len / ((TSL_INFLATE_AHEAD_RING + 2) * TSL_INFLATE_BUFFER_BYTES);
  gsize feed = input->len / n_feeds;

  g_assert_cmpuint (n_feeds, >=, 4);
  tsl_reader_set_decompress_ahead (reader, TRUE);
  for (guint i = 0; i < n_feeds; i++)
    g_assert_true (tsl_reader_feed (reader, input->data + i * feed,
                                    i + 1 < n_feeds ? feed : input->len - i * feed, &error));
  g_assert_true (tsl_reader_finish (reader, &error));
  g_assert_no_error (error);
  tsl_reader_free (reader);
  g_log_remove_handler ("tsl-reader", handler);
  g_test_message ("%" G_GUINT64_FORMAT " waits for input over %u feeds", input_waits, n_feeds);
  g_assert_cmpuint (tsl_trace_get_events (trace), >, 0);
  g_assert_cmpuint (input_waits, <=, 1);
}

static guint64 segments;

static void
note_segments (const gchar    *domain,
               GLogLevelFlags  level,
               const gchar    *message,
               gpointer        data)
{
  const char *at = strstr (message, ": ");

  if (strstr (message, " segments scanned on ") != NULL && at != NULL)
    segments += g_ascii_strtoull (at + 2, NULL, 10);
}

/* A compressed trace smaller than the one-thread start of a plain read
 * (the Chrome reader's PIPE_AFTER_BYTES) is scanned on the pool from its
 * first buffer: the decompression thread is there anyway. The same
 * result as one thread. */
static void
test_small_on_pool (void)
{
  g_autoptr(GByteArray) text = make_text (3 * 1024 * 1024, 8);
  g_autoptr(GByteArray) input = zstd_input (text, 1024 * 1024);
  g_autofree char *dir = g_dir_make_tmp ("tsl-ahead-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "trace.json.zst", NULL);
  guint handler = g_log_set_handler ("tsl-reader", G_LOG_LEVEL_DEBUG, note_segments, NULL);
  g_autofree char *one = NULL, *two = NULL;

  g_assert_true (g_file_set_contents (path, (const char *) input->data, input->len, NULL));
  segments = 0;
  one = read_file (path, FALSE);
  g_assert_cmpuint (segments, ==, 0);
  two = read_file (path, TRUE);
  g_log_remove_handler ("tsl-reader", handler);
  g_assert_cmpstr (one, ==, two);
  g_assert_nonnull (strstr (one, "ok 1, error none"));
  /* 3 MiB in segments of about 64 KiB. */
  g_assert_cmpuint (segments, >=, 32);
  g_unlink (path);
  g_rmdir (dir);
}

static guint scan_threads;

static void
note_scan_threads (const gchar    *domain,
                   GLogLevelFlags  level,
                   const gchar    *message,
                   gpointer        data)
{
  const char *at = strstr (message, " segments scanned on ");

  if (at != NULL)
    scan_threads = (guint) g_ascii_strtoull (at + strlen (" segments scanned on "), NULL, 10);
}

/* With the thread count left to the online cores, a compressed read scans
 * on one thread more than the cores (the decompression thread leaves part
 * of its core idle); a count asked for (TSL_READER_THREADS=2) is kept.
 * The same result as one thread either way. */
static void
test_scan_threads (void)
{
  g_autoptr(GByteArray) text = make_text (6 * 1024 * 1024, 9);
  g_autoptr(GByteArray) input = zstd_input (text, 1024 * 1024);
  g_autofree char *dir = g_dir_make_tmp ("tsl-ahead-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "trace.json.zst", NULL);
  guint handler = g_log_set_handler ("tsl-reader", G_LOG_LEVEL_DEBUG, note_scan_threads, NULL);
  guint cores = g_get_num_processors ();
  g_autofree char *one = NULL, *asked = NULL, *unasked = NULL;

  g_assert_true (g_file_set_contents (path, (const char *) input->data, input->len, NULL));
  one = read_file (path, FALSE);
  scan_threads = 0;
  asked = read_file (path, TRUE);
  g_assert_cmpuint (scan_threads, ==, 2);
  /* Not governed, so every buffer goes on the pool. */
  g_unsetenv ("TSL_READER_THREADS");
  g_setenv ("TSL_READER_ADAPT", "0", TRUE);
  scan_threads = 0;
  unasked = read_file (path, TRUE);
  g_setenv ("TSL_READER_THREADS", "2", TRUE);
  g_unsetenv ("TSL_READER_ADAPT");
  g_log_remove_handler ("tsl-reader", handler);
  /* One core: one thread, decompressing inline. */
  g_assert_cmpuint (scan_threads, ==, cores > 1 ? cores + 1 : 0);
  g_assert_cmpstr (asked, ==, one);
  g_assert_cmpstr (unasked, ==, one);
  g_assert_nonnull (strstr (one, "ok 1, error none"));
  g_unlink (path);
  g_rmdir (dir);
}

/* Cancelled a few progress reports after the first events: the read
 * stops with G_IO_ERROR_CANCELLED and the trace keeps what it had. */
static void
test_cancel (void)
{
  /* About 6 MiB compressed: a report a MiB, so the cancel comes well
   * before the end. */
  g_autoptr(GByteArray) text = make_text (48 * 1024 * 1024, 6);
  g_autoptr(GByteArray) input = zstd_input (text, 256 * 1024);
  g_autofree char *dir = g_dir_make_tmp ("tsl-ahead-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "trace.json.zst", NULL);

  g_assert_true (g_file_set_contents (path, (const char *) input->data, input->len, NULL));
  for (guint after = 1; after <= 3; after++)
    {
      g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_COUNT, 50, 1);
      g_autoptr(GCancellable) cancellable = g_cancellable_new ();
      g_autoptr(GError) error = NULL;
      CancelAt at = { cancellable, 0, after };

      g_assert_false (tsl_read_path_full (trace, path, TSL_READER_THREADS_AUTO, progress_cancel, &at,
                                          cancellable, &error));
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
      g_assert_cmpuint (tsl_trace_get_events (trace), >, 0);
    }
  g_unlink (path);
  g_rmdir (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  /* The reads with the thread need two of them, whatever the machine. */
  g_setenv ("TSL_READER_THREADS", "2", TRUE);
  g_setenv ("TSL_NO_INDEX", "1", TRUE);
  g_test_add_func ("/inflate-ahead/same-buffers", test_same_buffers);
  g_test_add_func ("/inflate-ahead/same-damage", test_same_damage);
  g_test_add_func ("/inflate-ahead/back-pressure", test_back_pressure);
  g_test_add_func ("/inflate-ahead/free-midway", test_free_midway);
  g_test_add_func ("/inflate-ahead/reader", test_reader);
  g_test_add_func ("/inflate-ahead/cancel", test_cancel);
  g_test_add_func ("/inflate-ahead/no-input-waits", test_no_input_waits);
  g_test_add_func ("/inflate-ahead/small-on-pool", test_small_on_pool);
  g_test_add_func ("/inflate-ahead/scan-threads", test_scan_threads);
  return g_test_run ();
}
