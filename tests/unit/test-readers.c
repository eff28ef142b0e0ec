/* test-readers.c: the reader driver and the text formats (perf, collapsed, CSV)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <math.h>
#include <string.h>

#include <gio/gio.h>

#include "tsl-read-stream.h"

#include "test-warnings.h"

#define K 1000  /* larger than any fixture: every event is a kept sample */

typedef enum {
  FEED_WHOLE,
  FEED_BYTES,    /* one byte per tsl_reader_feed() */
  FEED_RANDOM,   /* random sizes, 1..97 bytes */
} FeedMode;

static char *
fixture_path (const char *name)
{
  return g_test_build_filename (G_TEST_DIST, "data", name, NULL);
}

static GBytes *
load_fixture (const char *name)
{
  g_autofree char *path = fixture_path (name);
  g_autoptr(GError) error = NULL;
  char *contents = NULL;
  gsize len = 0;

  g_file_get_contents (path, &contents, &len, &error);
  g_assert_no_error (error);
  return g_bytes_new_take (contents, len);
}

static TslTrace *
read_bytes (const char  *name,
            GBytes      *bytes,
            FeedMode     mode,
            GError     **error)
{
  g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_COUNT, K, 1);
  g_autoptr(TslReader) reader = tsl_reader_new (trace, name);
  g_autoptr(GRand) rand = g_rand_new_with_seed (42);
  gsize len;
  const guint8 *data = g_bytes_get_data (bytes, &len);
  gsize off = 0;

  while (off < len)
    {
      gsize n = len - off;

      if (mode == FEED_BYTES)
        n = 1;
      else if (mode == FEED_RANDOM)
        {
          gsize r = g_rand_int_range (rand, 1, 98);

          n = MIN (n, r);
        }
      if (!tsl_reader_feed (reader, data + off, n, error))
        return NULL;
      off += n;
    }
  if (!tsl_reader_finish (reader, error))
    return NULL;

  g_assert_cmpuint (tsl_reader_get_bytes_in (reader), ==, len);
  return g_steal_pointer (&trace);
}

static TslTrace *
read_fixture (const char *name)
{
  g_autoptr(GBytes) bytes = load_fixture (name);
  g_autoptr(GError) error = NULL;
  TslTrace *trace = read_bytes (name, bytes, FEED_WHOLE, &error);

  g_assert_no_error (error);
  return trace;
}

static GBytes *
gzip_bytes (const guint8 *data,
            gsize         len)
{
  g_autoptr(GConverter) gz = G_CONVERTER (g_zlib_compressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP, 9));
  g_autoptr(GByteArray) out = g_byte_array_new ();
  guint8 buf[4096];
  gsize off = 0;

  for (;;)
    {
      g_autoptr(GError) error = NULL;
      gsize r = 0, w = 0;
      GConverterResult res;

      res = g_converter_convert (gz, data + off, len - off, buf, sizeof buf,
                                 G_CONVERTER_INPUT_AT_END, &r, &w, &error);
      g_assert_no_error (error);
      off += r;
      g_byte_array_append (out, buf, w);
      if (res == G_CONVERTER_FINISHED)
        break;
    }

  return g_byte_array_free_to_bytes (g_steal_pointer (&out));
}

/* Everything a reader produced, as text, to compare two readings. */
static char *
describe (TslTrace *trace)
{
  GString *s = g_string_new (NULL);
  g_auto(GStrv) warnings = tsl_trace_dup_warnings (trace);
  gint64 start = 0, end = 0;

  tsl_trace_get_span (trace, &start, &end);
  g_string_append_printf (s, "format=%s events=%" G_GUINT64_FORMAT " time=%d span=%" G_GINT64_FORMAT
                          "..%" G_GINT64_FORMAT "\n",
                          tsl_trace_get_format (trace), tsl_trace_get_events (trace),
                          tsl_trace_get_has_time (trace), start, end);
  for (guint t = 0; t < tsl_trace_get_n_tracks (trace); t++)
    {
      TslSampler *sampler = tsl_trace_track_get_sampler (trace, t);
      const TslSample *samples;
      guint n;

      samples = tsl_sampler_peek_samples (sampler, &n);
      g_string_append_printf (s, "track %s %s\n", tsl_track_kind_to_string (tsl_trace_track_get_kind (trace, t)),
                              tsl_trace_track_get_name (trace, t));
      for (guint i = 0; i < n; i++)
        g_string_append_printf (s, "  %" G_GINT64_FORMAT " %g %s\n", samples[i].time_ns, samples[i].value,
                                samples[i].label ? tsl_trace_lookup (trace, samples[i].label) : "-");
    }
  for (guint i = 0; warnings[i] != NULL; i++)
    g_string_append_printf (s, "warning %s\n", warnings[i]);

  return g_string_free (s, FALSE);
}

static guint
find_track (TslTrace   *trace,
            const char *name)
{
  for (guint t = 0; t < tsl_trace_get_n_tracks (trace); t++)
    if (g_strcmp0 (tsl_trace_track_get_name (trace, t), name) == 0)
      return t;
  g_error ("no track named “%s”", name);
}

static const TslSample *
track_samples (TslTrace   *trace,
               const char *name,
               guint      *n)
{
  return tsl_sampler_peek_samples (tsl_trace_track_get_sampler (trace, find_track (trace, name)), n);
}

/* The same events whole, byte by byte, in random chunks, gzip-compressed
 * and as two concatenated gzip members. */
static void
test_chunking (gconstpointer data)
{
  const char *name = data;
  g_autoptr(GBytes) bytes = load_fixture (name);
  g_autoptr(TslTrace) whole = read_fixture (name);
  g_autofree char *expected = describe (whole);
  const guint8 *raw;
  gsize len;
  g_autoptr(GBytes) gz = NULL;
  g_autoptr(GByteArray) members = g_byte_array_new ();

  raw = g_bytes_get_data (bytes, &len);
  gz = gzip_bytes (raw, len);
  {
    g_autoptr(GBytes) a = gzip_bytes (raw, len / 2);
    g_autoptr(GBytes) b = gzip_bytes (raw + len / 2, len - len / 2);

    g_byte_array_append (members, g_bytes_get_data (a, NULL), g_bytes_get_size (a));
    g_byte_array_append (members, g_bytes_get_data (b, NULL), g_bytes_get_size (b));
  }

  for (FeedMode mode = FEED_WHOLE; mode <= FEED_RANDOM; mode++)
    {
      g_autoptr(GBytes) concat = g_bytes_new (members->data, members->len);
      GBytes *inputs[] = { bytes, gz, concat };

      for (guint i = 0; i < G_N_ELEMENTS (inputs); i++)
        {
          g_autoptr(GError) error = NULL;
          g_autoptr(TslTrace) trace = read_bytes (name, inputs[i], mode, &error);
          g_autofree char *got = NULL;

          g_assert_no_error (error);
          got = describe (trace);
          g_assert_cmpstr (got, ==, expected);
        }
    }
}

static void
test_perf_callchain (void)
{
  g_autoptr(TslTrace) trace = read_fixture ("perf-callchain.txt");
  const TslSample *s;
  guint n;
  gint64 start, end;

  g_assert_cmpstr (tsl_trace_get_format (trace), ==, "perf-script");
  g_assert_cmpuint (tsl_trace_get_events (trace), ==, 4);
  g_assert_cmpuint (tsl_trace_get_n_tracks (trace), ==, 2);
  g_assert_true (tsl_trace_get_span (trace, &start, &end));
  g_assert_cmpint (start, ==, G_GINT64_CONSTANT (10000000000));
  g_assert_cmpint (end, ==, G_GINT64_CONSTANT (10002000000));

  s = track_samples (trace, "worker", &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpint (tsl_trace_track_get_pid (trace, find_track (trace, "worker")), ==, 100);
  g_assert_cmpint (tsl_trace_track_get_tid (trace, find_track (trace, "worker")), ==, 101);
  g_assert_cmpfloat (s[0].value, ==, 1000);
  g_assert_cmpstr (tsl_trace_lookup (trace, s[0].label), ==,
                   "__libc_start_main;main;compute;native_write_msr");
  g_assert_cmpstr (tsl_trace_lookup (trace, s[1].label), ==, "main;compute");

  /* comm with a space; [unknown] frames named after their dso's basename. */
  s = track_samples (trace, "Web Content", &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpfloat (s[0].value, ==, 2000);
  g_assert_cmpstr (tsl_trace_lookup (trace, s[0].label), ==,
                   "[unknown];js::RunScript(JSContext*, js::RunState&);[libxul.so]");
  g_assert_true (has_warning (trace, "several event types"));
}

static void
test_perf_variants (void)
{
  g_autoptr(TslTrace) plain = read_fixture ("perf-no-callchain.txt");
  g_autoptr(TslTrace) old = read_fixture ("perf-no-time.txt");
  g_autoptr(TslTrace) bad = read_fixture ("perf-bad-header.txt");
  const TslSample *s;
  guint n;

  /* No pid, cpu or period; the frame is on the header line. */
  s = track_samples (plain, "sleep", &n);
  g_assert_cmpuint (n, ==, 3);
  g_assert_cmpint (tsl_trace_track_get_tid (plain, find_track (plain, "sleep")), ==, 4242);
  g_assert_true (isnan (s[0].value));
  g_assert_cmpint (s[1].time_ns, ==, G_GINT64_CONSTANT (5251000000));
  g_assert_cmpstr (tsl_trace_lookup (plain, s[0].label), ==, "do_nanosleep");
  g_assert_cmpstr (tsl_trace_lookup (plain, s[1].label), ==, "nanosleep");
  g_assert_cmpstr (tsl_trace_lookup (plain, s[2].label), ==, "[libc.so.6]");

  /* Old perf without timestamps: file order, said in a warning. */
  g_assert_false (tsl_trace_get_has_time (old));
  g_assert_cmpuint (tsl_trace_get_events (old), ==, 2);
  s = track_samples (old, "func_ab", &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpstr (tsl_trace_lookup (old, s[1].label), ==, "main;func_b");
  g_assert_true (has_warning (old, "no timestamps"));

  g_assert_cmpuint (tsl_trace_get_events (bad), ==, 2);
  g_assert_true (has_warning (bad, "perf-bad-header.txt:4:1: not a perf script sample header"));
}

static void
test_collapsed (void)
{
  g_autoptr(TslTrace) lf = read_fixture ("collapsed.txt");
  g_autoptr(TslTrace) crlf = read_fixture ("collapsed-crlf.txt");
  const TslSample *s;
  guint n;

  g_assert_cmpstr (tsl_trace_get_format (lf), ==, "collapsed");
  g_assert_cmpuint (tsl_trace_get_events (lf), ==, 6);
  g_assert_false (tsl_trace_get_has_time (lf));
  g_assert_cmpuint (tsl_trace_get_n_tracks (lf), ==, 1);
  g_assert_cmpint (tsl_trace_track_get_kind (lf, 0), ==, TSL_TRACK_THREAD);
  s = track_samples (lf, "stacks", &n);
  g_assert_cmpuint (n, ==, 6);
  for (guint i = 0; i < n; i++)
    g_assert_cmpint (s[i].time_ns, ==, i);
  g_assert_cmpfloat (s[2].value, ==, 4);
  g_assert_cmpstr (tsl_trace_lookup (lf, s[2].label), ==, "a;b;d");
  /* Split on the last space: frame names may hold spaces. */
  g_assert_cmpstr (tsl_trace_lookup (lf, s[5].label), ==, "frame with space;leaf");
  g_assert_true (has_warning (lf, "collapsed stacks have no time axis; shown in file order"));
  g_assert_true (has_warning (lf, "collapsed.txt:5:1: not a collapsed stack line"));

  s = track_samples (crlf, "stacks", &n);
  g_assert_cmpuint (n, ==, 6);
  g_assert_cmpstr (tsl_trace_lookup (crlf, s[5].label), ==, "frame with space;leaf");
  g_assert_true (has_warning (crlf, "collapsed-crlf.txt:5:1: not a collapsed stack line"));
}

static void
test_collapsed_utf16 (void)
{
  const char *names[] = { "collapsed-utf16le.txt", "collapsed-utf16be.txt" };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autoptr(GBytes) bytes = load_fixture (names[i]);

      /* Byte by byte splits code units and the emoji's surrogate pair. */
      for (FeedMode mode = FEED_WHOLE; mode <= FEED_RANDOM; mode++)
        {
          g_autoptr(GError) error = NULL;
          g_autoptr(TslTrace) trace = read_bytes (names[i], bytes, mode, &error);
          const TslSample *s;
          guint n;

          g_assert_no_error (error);
          g_assert_cmpstr (tsl_trace_get_format (trace), ==, "collapsed");
          s = track_samples (trace, "stacks", &n);
          g_assert_cmpuint (n, ==, 2);
          g_assert_cmpstr (tsl_trace_lookup (trace, s[0].label), ==, "main;😀 draw;ünïcode");
          g_assert_cmpfloat (s[0].value, ==, 7);
          g_assert_cmpstr (tsl_trace_lookup (trace, s[1].label), ==, "main");
        }
    }
}

static void
test_csv_wide (void)
{
  g_autoptr(TslTrace) trace = read_fixture ("metrics-wide.csv");
  const TslSample *s;
  guint n;

  g_assert_cmpstr (tsl_trace_get_format (trace), ==, "csv");
  g_assert_cmpuint (tsl_trace_get_events (trace), ==, 4);
  /* The BOM is not part of "time"; "host" is text and no series. */
  g_assert_cmpuint (tsl_trace_get_n_tracks (trace), ==, 2);
  s = track_samples (trace, "cpu", &n);
  g_assert_cmpint (tsl_trace_track_get_kind (trace, find_track (trace, "cpu")), ==, TSL_TRACK_METRIC);
  g_assert_cmpuint (n, ==, 3);
  g_assert_cmpint (s[0].time_ns, ==, 500000000);
  g_assert_cmpfloat (s[2].value, ==, 30);
  s = track_samples (trace, "mem", &n);
  g_assert_cmpuint (n, ==, 3);  /* the empty cell is no value */
  g_assert_cmpfloat (s[2].value, ==, 400);
  g_assert_true (has_warning (trace, "metrics-wide.csv:5:1: 1 cells are not numbers"));
}

/* Rows of 64 fields (the 16-byte splitter's limit) with CRLF, one of 65
 * (past it), an empty cell, a quoted cell (see the fixture's maker in the
 * commit that added it). */
static void
test_csv_wide_crlf (void)
{
  g_autoptr(TslTrace) trace = read_fixture ("metrics-wide-crlf.csv");
  const TslSample *s;
  guint n;

  g_assert_cmpstr (tsl_trace_get_format (trace), ==, "csv");
  g_assert_cmpuint (tsl_trace_get_events (trace), ==, 13);
  g_assert_cmpuint (tsl_trace_get_n_tracks (trace), ==, 63);
  /* The last column's name ("m62", found by track_samples()) and cells end
   * before the '\r'. */
  s = track_samples (trace, "m62", &n);
  g_assert_cmpuint (n, ==, 12);
  g_assert_cmpint (s[0].time_ns, ==, G_GINT64_CONSTANT (100000000000));
  g_assert_cmpfloat (s[0].value, ==, 2.2);
  g_assert_cmpint (s[11].time_ns, ==, G_GINT64_CONSTANT (200000000000));
  g_assert_cmpfloat (s[11].value, ==, 1);
  /* The quoted cell is read, the empty one is no value. */
  s = track_samples (trace, "m0", &n);
  g_assert_cmpuint (n, ==, 12);
  g_assert_cmpfloat (s[6].value, ==, 4.5);
  track_samples (trace, "m5", &n);
  g_assert_cmpuint (n, ==, 11);
  g_assert_true (has_warning (trace, "metrics-wide-crlf.csv:7:1: 1 rows have a different number of fields"));
}

static void
test_csv_long (void)
{
  g_autoptr(TslTrace) trace = read_fixture ("metrics-long.csv");
  const TslSample *s;
  guint n;
  gint64 start, end;

  g_assert_cmpuint (tsl_trace_get_events (trace), ==, 4);
  g_assert_cmpuint (tsl_trace_get_n_tracks (trace), ==, 2);
  g_assert_true (tsl_trace_get_span (trace, &start, &end));
  /* 2024-01-01T00:00:00Z */
  g_assert_cmpint (start, ==, G_GINT64_CONSTANT (1704067200) * 1000000000);
  g_assert_cmpint (end - start, ==, G_GINT64_CONSTANT (2000000000));
  s = track_samples (trace, "rps", &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpint (s[1].time_ns - start, ==, 1500000000);
  s = track_samples (trace, "latency", &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpfloat (s[1].value, ==, 0.5);
  /* 02:00:02+02:00 is 00:00:02 UTC. */
  g_assert_cmpint (s[1].time_ns - start, ==, 2000000000);
}

static void
test_csv_variants (void)
{
  g_autoptr(TslTrace) semi = read_fixture ("metrics-semicolon.csv");
  g_autoptr(TslTrace) quoted = read_fixture ("metrics-quoted.csv");
  g_autoptr(TslTrace) tsv = read_fixture ("metrics.tsv");
  g_autoptr(TslTrace) sadf = read_fixture ("metrics-sadf.csv");
  g_autoptr(GDateTime) dt = g_date_time_new_utc (2014, 7, 1, 0, 0, 0);
  const TslSample *s;
  guint n;

  s = track_samples (semi, "load", &n);
  g_assert_cmpuint (n, ==, 3);
  g_assert_cmpint (s[0].time_ns, ==, g_date_time_to_unix (dt) * G_GINT64_CONSTANT (1000000000));
  g_assert_cmpfloat (s[2].value, ==, -300);

  /* Doubled quotes in a name, a newline inside quotes, ragged rows skipped. */
  g_assert_cmpuint (tsl_trace_get_events (quoted), ==, 5);
  s = track_samples (quoted, "requests \"ok\"", &n);
  g_assert_cmpuint (n, ==, 3);
  g_assert_cmpfloat (s[1].value, ==, 6);
  g_assert_cmpfloat (s[2].value, ==, 9);
  g_assert_true (has_warning (quoted, "metrics-quoted.csv:5:1: 2 rows have a different number of fields"));

  g_assert_cmpuint (tsl_trace_get_n_tracks (tsv), ==, 2);
  s = track_samples (tsv, "B", &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpfloat (s[1].value, ==, 4);

  /* A header and no rows: nothing to show is an error that says why. */
  {
    g_autoptr(GBytes) bytes = load_fixture ("metrics-header-only.csv");
    g_autoptr(GError) error = NULL;
    g_autoptr(TslTrace) header_only = read_bytes ("metrics-header-only.csv", bytes, FEED_WHOLE, &error);

    g_assert_null (header_only);
    g_assert_error (error, TSL_READER_ERROR, TSL_READER_ERROR_EMPTY);
    g_assert_nonnull (strstr (error->message, "nothing to show: the header has no data rows"));
  }

  /* sysstat: '#' headers per section, CPU keys the rows, a restart marker. */
  g_assert_cmpuint (tsl_trace_get_events (sadf), ==, 3);
  s = track_samples (sadf, "%usr{CPU=0}", &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpfloat (s[0].value, ==, 5);
  s = track_samples (sadf, "kbmemfree", &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_true (has_warning (sadf, "metrics-sadf.csv:4:1: 1 LINUX-RESTART marker rows"));
}

static void
test_errors (void)
{
  g_autoptr(GBytes) empty = g_bytes_new_static ("", 0);
  g_autoptr(GBytes) bom_only = g_bytes_new_static ("\xef\xbb\xbf", 3);
  g_autoptr(GBytes) unknown = load_fixture ("unknown.bin");
  g_autoptr(GError) error = NULL;
  g_autoptr(TslTrace) trace = NULL;

  trace = read_bytes ("empty.txt", empty, FEED_WHOLE, &error);
  g_assert_null (trace);
  g_assert_error (error, TSL_READER_ERROR, TSL_READER_ERROR_EMPTY);
  g_assert_cmpstr (error->message, ==, "empty.txt:1:1: the file is empty");
  g_clear_error (&error);

  trace = read_bytes ("bom.txt", bom_only, FEED_BYTES, &error);
  g_assert_error (error, TSL_READER_ERROR, TSL_READER_ERROR_EMPTY);
  g_clear_error (&error);

  trace = read_bytes ("unknown.bin", unknown, FEED_RANDOM, &error);
  g_assert_null (trace);
  g_assert_error (error, TSL_READER_ERROR, TSL_READER_ERROR_UNKNOWN_FORMAT);
  g_assert_true (g_str_has_prefix (error->message, "unknown.bin:1:1: "));
  g_assert_nonnull (strstr (error->message, "perf script"));
  g_assert_nonnull (strstr (error->message, "CSV"));
}

static void
test_too_large (void)
{
  g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_COUNT, K, 1);
  g_autoptr(TslReader) reader = tsl_reader_new (trace, "big.txt");
  g_autoptr(GError) error = NULL;
  g_autofree char *line = g_strnfill (4096, 'x');
  gboolean ok = TRUE;

  tsl_reader_set_max_record (reader, 10000);
  ok = tsl_reader_feed (reader, (const guint8 *) "a;b 1\na;b 2\n", 12, &error);
  g_assert_no_error (error);
  for (guint i = 0; ok && i < 100; i++)
    ok = tsl_reader_feed (reader, (const guint8 *) line, 4096, &error);
  g_assert_false (ok);
  g_assert_error (error, TSL_READER_ERROR, TSL_READER_ERROR_TOO_LARGE);
  /* The record starts at line 3, column 1. */
  g_assert_true (g_str_has_prefix (error->message, "big.txt:3:1: "));
}

/* Feeds `bytes` in pieces of 4 KiB: what a file's reads look like to a
 * sniffer waiting for a line's end. */
static TslTrace *
read_pieces (const char  *name,
             GBytes      *bytes,
             GError     **error)
{
  g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_COUNT, K, 1);
  g_autoptr(TslReader) reader = tsl_reader_new (trace, name);
  gsize len;
  const guint8 *data = g_bytes_get_data (bytes, &len);

  for (gsize off = 0; off < len; off += 4096)
    if (!tsl_reader_feed (reader, data + off, MIN (4096, len - off), error))
      return NULL;
  if (!tsl_reader_finish (reader, error))
    return NULL;
  return g_steal_pointer (&trace);
}

/* A first line longer than the sniffer's 64 KiB head: a collapsed stack
 * with a 1.1 MB frame and a CSV with 100,000 columns are told by the whole
 * line, not refused as an unknown format. */
static void
test_long_first_line (void)
{
  g_autoptr(GString) stacks = g_string_new ("main;");
  g_autoptr(GString) csv = g_string_new ("time");
  g_autoptr(GBytes) stacks_bytes = NULL;
  g_autoptr(GBytes) csv_bytes = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(TslTrace) trace = NULL;
  const TslSample *s;
  guint n;

  for (guint i = 0; i < 110000; i++)
    g_string_append (stacks, "frame_long");
  g_string_append (stacks, ";leaf 3\nmain;other 2\n");
  stacks_bytes = g_bytes_new (stacks->str, stacks->len);
  trace = read_pieces ("long-frame.folded", stacks_bytes, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (tsl_trace_get_format (trace), ==, "collapsed");
  g_assert_cmpuint (tsl_trace_get_events (trace), ==, 2);
  s = track_samples (trace, "stacks", &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpfloat (s[0].value, ==, 3);
  g_assert_true (g_str_has_prefix (tsl_trace_lookup (trace, s[0].label), "main;frame_longframe_long"));
  g_clear_pointer (&trace, g_object_unref);

  for (guint i = 0; i < 100000; i++)
    g_string_append_printf (csv, ",column_%06u", i);
  g_string_append_c (csv, '\n');
  g_assert_cmpuint (csv->len, >, 1024 * 1024);
  for (guint row = 0; row < 3; row++)
    {
      g_string_append_printf (csv, "%u", row);
      for (guint i = 0; i < 100000; i++)
        g_string_append_printf (csv, ",%u", (row + i) % 10);
      g_string_append_c (csv, '\n');
    }
  csv_bytes = g_bytes_new (csv->str, csv->len);
  trace = read_pieces ("wide.csv", csv_bytes, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (tsl_trace_get_format (trace), ==, "csv");
  g_assert_cmpuint (tsl_trace_get_events (trace), ==, 3);
  /* Past the memory budget's 16,384 tracks the rest fold into one. */
  g_assert_cmpuint (tsl_trace_get_n_tracks (trace), >=, 16384);
  s = track_samples (trace, "column_009999", &n);
  g_assert_cmpuint (n, ==, 3);
  g_assert_cmpfloat (s[2].value, ==, (2 + 9999) % 10);
}

/* A first line longer than the reader's largest record, with no format
 * told from its start: said so, at the line it is on. */
static void
test_first_line_too_long (void)
{
  g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_COUNT, K, 1);
  g_autoptr(TslReader) reader = tsl_reader_new (trace, "endless.txt");
  g_autoptr(GError) error = NULL;
  g_autofree char *piece = g_strnfill (4096, 'x');
  gboolean ok;

  tsl_reader_set_max_record (reader, 1024 * 1024);
  ok = tsl_reader_feed (reader, (const guint8 *) "# a comment\n", 12, &error);
  for (guint i = 0; ok && i < 2 * 256; i++)
    ok = tsl_reader_feed (reader, (const guint8 *) piece, 4096, &error);
  g_assert_false (ok);
  g_assert_error (error, TSL_READER_ERROR, TSL_READER_ERROR_TOO_LARGE);
  g_assert_true (g_str_has_prefix (error->message, "endless.txt:2:1: the first line is longer than 1 MiB"));
}

static void
test_truncated_gzip (void)
{
  g_autoptr(GBytes) bytes = load_fixture ("collapsed.txt");
  g_autoptr(GBytes) gz = gzip_bytes (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));
  g_autoptr(GBytes) cut = g_bytes_new_from_bytes (gz, 0, g_bytes_get_size (gz) - 6);
  g_autoptr(GError) error = NULL;
  g_autoptr(TslTrace) trace = read_bytes ("cut.gz", cut, FEED_RANDOM, &error);

  g_assert_no_error (error);
  g_assert_cmpuint (tsl_trace_get_events (trace), ==, 6);
  g_assert_true (has_warning (trace, "cut.gz: the gzip data is truncated"));
}

typedef struct {
  guint   calls;
  guint64 last_bytes;
  guint64 last_total;
  guint64 last_events;
} Progress;

static void
progress_cb (guint64  bytes_read,
             guint64  bytes_total,
             guint64  events,
             gpointer user_data)
{
  Progress *p = user_data;

  g_assert_cmpuint (bytes_read, >=, p->last_bytes);
  p->calls++;
  p->last_bytes = bytes_read;
  p->last_total = bytes_total;
  p->last_events = events;
}

static void
test_stream (void)
{
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GInputStream) stream = NULL;
  g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_COUNT, 16, 1);
  g_autoptr(GError) error = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autofree char *path = fixture_path ("perf-callchain.txt");
  Progress progress = { 0 };

  /* A million collapsed lines: over ten feeds. */
  for (guint i = 0; i < 1000000; i++)
    g_string_append_printf (text, "main;f%u %u\n", i % 7, i % 13 + 1);
  bytes = g_string_free_to_bytes (g_steal_pointer (&text));

  stream = g_memory_input_stream_new_from_bytes (bytes);
  g_assert_true (tsl_read_stream (trace, stream, "mem", g_bytes_get_size (bytes),
                                  progress_cb, &progress, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (tsl_trace_get_events (trace), ==, 1000000);
  g_assert_cmpuint (progress.calls, >, 10);
  g_assert_cmpuint (progress.last_bytes, ==, g_bytes_get_size (bytes));
  g_assert_cmpuint (progress.last_events, ==, 1000000);

  g_clear_object (&trace);
  g_clear_object (&stream);
  trace = tsl_trace_new (TSL_SAMPLER_COUNT, 16, 1);
  stream = g_memory_input_stream_new_from_bytes (bytes);
  g_cancellable_cancel (cancellable);
  g_assert_false (tsl_read_stream (trace, stream, "mem", 0, NULL, NULL, cancellable, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&error);

  /* tsl_read_path: the fixture by its path. */
  g_clear_object (&trace);
  trace = tsl_trace_new (TSL_SAMPLER_COUNT, K, 1);
  g_assert_true (tsl_read_path (trace, path, NULL, NULL, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (tsl_trace_get_events (trace), ==, 4);

  g_clear_object (&trace);
  trace = tsl_trace_new (TSL_SAMPLER_COUNT, K, 1);
  g_assert_false (tsl_read_path (trace, "/nonexistent/trace.json", NULL, NULL, NULL, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "/nonexistent/trace.json"));
}

int
main (int    argc,
      char **argv)
{
  static const char *chunked[] = {
    "perf-callchain.txt", "perf-no-callchain.txt", "perf-no-time.txt", "perf-bad-header.txt",
    "collapsed.txt", "collapsed-crlf.txt", "collapsed-utf16le.txt", "collapsed-utf16be.txt",
    "metrics-wide.csv", "metrics-long.csv", "metrics-semicolon.csv", "metrics-quoted.csv",
    "metrics.tsv", "metrics-sadf.csv", "metrics-wide-crlf.csv",
  };

  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/readers/perf/callchain", test_perf_callchain);
  g_test_add_func ("/readers/perf/variants", test_perf_variants);
  g_test_add_func ("/readers/collapsed/basic", test_collapsed);
  g_test_add_func ("/readers/collapsed/utf16", test_collapsed_utf16);
  g_test_add_func ("/readers/csv/wide", test_csv_wide);
  g_test_add_func ("/readers/csv/wide-crlf", test_csv_wide_crlf);
  g_test_add_func ("/readers/csv/long", test_csv_long);
  g_test_add_func ("/readers/csv/variants", test_csv_variants);
  g_test_add_func ("/readers/driver/errors", test_errors);
  g_test_add_func ("/readers/driver/too-large", test_too_large);
  g_test_add_func ("/readers/driver/truncated-gzip", test_truncated_gzip);
  g_test_add_func ("/readers/driver/long-first-line", test_long_first_line);
  g_test_add_func ("/readers/driver/first-line-too-long", test_first_line_too_long);
  g_test_add_func ("/readers/driver/stream", test_stream);
  for (guint i = 0; i < G_N_ELEMENTS (chunked); i++)
    {
      g_autofree char *path = g_strdup_printf ("/readers/chunking/%s", chunked[i]);

      g_test_add_data_func (path, chunked[i], test_chunking);
    }

  return g_test_run ();
}
