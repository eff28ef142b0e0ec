/* test-chrome.c: the Chrome trace event and speedscope JSON readers
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <math.h>
#include <string.h>

#include "tsl-format-private.h"
#include "tsl-json-scan.h"
#include "tsl-reader.h"
#include "tsl-trace.h"

#define K 64

static char *
fixture_path (const char *dir,
              const char *name)
{
  return g_test_build_filename (G_TEST_DIST, "data", dir, name, NULL);
}

/* Feeds `data` in chunks of `chunk` bytes (0: all at once). */
static TslTrace *
read_bytes (const char  *display_name,
            const char  *data,
            gsize        len,
            gsize        chunk,
            GError     **error)
{
  g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_COUNT, K, 42);
  g_autoptr(TslReader) reader = tsl_reader_new (trace, display_name);
  gsize step = chunk > 0 ? chunk : MAX (len, 1);

  for (gsize off = 0; off < len; off += step)
    if (!tsl_reader_feed (reader, (const guint8 *) data + off, MIN (step, len - off), error))
      return NULL;
  if (!tsl_reader_finish (reader, error))
    return NULL;
  return g_steal_pointer (&trace);
}

static TslTrace *
read_fixture (const char  *dir,
              const char  *name,
              gsize        chunk,
              GError     **error)
{
  g_autofree char *path = fixture_path (dir, name);
  g_autofree char *data = NULL;
  gsize len;

  g_assert_true (g_file_get_contents (path, &data, &len, NULL));
  return read_bytes (name, data, len, chunk, error);
}

static TslTrace *
read_ok (const char *dir,
         const char *name)
{
  g_autoptr(GError) error = NULL;
  TslTrace *trace = read_fixture (dir, name, 0, &error);

  g_assert_no_error (error);
  g_assert_nonnull (trace);
  return trace;
}

static guint
find_track (TslTrace     *trace,
            TslTrackKind  kind,
            const char   *name)
{
  for (guint i = 0; i < tsl_trace_get_n_tracks (trace); i++)
    if (tsl_trace_track_get_kind (trace, i) == kind &&
        g_strcmp0 (tsl_trace_track_get_name (trace, i), name) == 0)
      return i;
  g_error ("no %s track named \"%s\"", tsl_track_kind_to_string (kind), name);
  return 0;
}

/* "label@time_ns=value|..." for every kept sample, in slice order. */
static char *
dump_track (TslTrace *trace,
            guint     track)
{
  GString *out = g_string_new (NULL);
  guint n;
  const TslSample *samples = tsl_sampler_peek_samples (tsl_trace_track_get_sampler (trace, track), &n);

  for (guint i = 0; i < n; i++)
    {
      const char *label = tsl_trace_lookup (trace, samples[i].label);

      g_string_append_printf (out, "%s%s@%" G_GINT64_FORMAT, i > 0 ? "|" : "",
                              label != NULL ? label : "", samples[i].time_ns);
      if (!isnan (samples[i].value))
        g_string_append_printf (out, "=%g", samples[i].value);
    }
  return g_string_free (out, FALSE);
}

static TslSummary
track_summary (TslTrace *trace,
               guint     track)
{
  TslSummary total = { 0, 0, INFINITY, -INFINITY };
  guint n;
  const TslSample *samples = tsl_sampler_peek_samples (tsl_trace_track_get_sampler (trace, track), &n);

  for (guint i = 0; i < n; i++)
    {
      total.count += samples[i].summary.count;
      total.sum += samples[i].summary.sum;
      total.min = MIN (total.min, samples[i].summary.min);
      total.max = MAX (total.max, samples[i].summary.max);
    }
  return total;
}

static char *
dump_warnings (TslTrace *trace)
{
  g_auto(GStrv) warnings = tsl_trace_dup_warnings (trace);

  return g_strjoinv ("\n", warnings);
}

/* Everything a reader produced, to compare two ways of feeding it. */
static char *
dump_trace (TslTrace *trace)
{
  GString *out = g_string_new (NULL);
  g_autofree char *warnings = dump_warnings (trace);
  gint64 start = 0, end = 0;

  tsl_trace_get_span (trace, &start, &end);
  g_string_append_printf (out, "events %" G_GUINT64_FORMAT " span %" G_GINT64_FORMAT "..%" G_GINT64_FORMAT "\n",
                          tsl_trace_get_events (trace), start, end);
  for (guint i = 0; i < tsl_trace_get_n_tracks (trace); i++)
    {
      g_autofree char *samples = dump_track (trace, i);
      TslSummary sum = track_summary (trace, i);

      g_string_append_printf (out, "%s %s: %s [%" G_GUINT64_FORMAT " %g]\n",
                              tsl_track_kind_to_string (tsl_trace_track_get_kind (trace, i)),
                              tsl_trace_track_get_name (trace, i), samples, sum.count, sum.sum);
    }
  g_string_append_printf (out, "warnings: %s\n", warnings);
  return g_string_free (out, FALSE);
}

static void
assert_track (TslTrace     *trace,
              TslTrackKind  kind,
              const char   *name,
              const char   *expected)
{
  g_autofree char *dump = dump_track (trace, find_track (trace, kind, name));

  g_assert_cmpstr (dump, ==, expected);
}

static void
test_array_form (void)
{
  g_autoptr(TslTrace) trace = read_ok ("chrome", "array-basic.json");
  g_autofree char *warnings = dump_warnings (trace);
  guint main_track = find_track (trace, TSL_TRACK_THREAD, "Main");
  gint64 start, end;

  g_assert_cmpstr (tsl_trace_get_format (trace), ==, "chrome-json");
  g_assert_cmpuint (tsl_trace_get_events (trace), ==, 12);
  g_assert_cmpstr (warnings, ==, "");
  g_assert_cmpstr (tsl_trace_get_process_name (trace, 1), ==, "Browser");
  g_assert_cmpint (tsl_trace_track_get_sort_index (trace, main_track), ==, -3);
  /* B spans are offered at their E, at their start, with their duration;
   * X spans nest by time and stop containing events after their end. */
  assert_track (trace, TSL_TRACK_THREAD, "Main",
                "main;parse;lex@12000=3000|main;parse;lex;mark@14000|main;parse;mark2@16000|"
                "main;parse@10000=10000|main;layout@25000=5000|main@0=40000");
  assert_track (trace, TSL_TRACK_THREAD, "Thread 3", "other@5000=1000");
  g_assert_true (tsl_trace_get_span (trace, &start, &end));
  g_assert_cmpint (start, ==, 0);
  g_assert_cmpint (end, ==, 40000);
}

static void
test_object_form (void)
{
  g_autoptr(TslTrace) trace = read_ok ("chrome", "object-form.json");
  g_autofree char *warnings = dump_warnings (trace);

  /* 4 trace events + 2 entries of the top-level samples array. */
  g_assert_cmpuint (tsl_trace_get_events (trace), ==, 6);
  g_assert_cmpstr (warnings, ==, "");
  /* String pid/tid/ts, fractional µs; "sf" before stackFrames falls back to
   * the name; the samples array waited for stackFrames; samples without a
   * pid find it from their tid. */
  assert_track (trace, TSL_TRACK_THREAD, "Worker \xc3\xa9\xf0\x9f\x98\x80",
                "work@100500=2250|f@103000|root;mid;leaf@104000|main;run@105000|main@106000");
}

static void
test_unterminated (void)
{
  g_autoptr(TslTrace) trace = read_ok ("chrome", "unterminated.json");
  g_autofree char *warnings = dump_warnings (trace);

  g_assert_cmpuint (tsl_trace_get_events (trace), ==, 3);
  g_assert_cmpstr (warnings, ==, "");
  assert_track (trace, TSL_TRACK_THREAD, "Thread 0", "a@0=5000|b@6000=1000");
}

static void
test_truncated (void)
{
  g_autoptr(TslTrace) trace = read_ok ("chrome", "truncated.json");
  g_autofree char *warnings = dump_warnings (trace);

  g_assert_cmpuint (tsl_trace_get_events (trace), ==, 1);
  g_assert_cmpstr (warnings, ==, "truncated.json:2:1: the trace ends inside an event; that event was dropped");
  assert_track (trace, TSL_TRACK_THREAD, "Thread 1", "a@1000=1000");
}

static void
test_counters (void)
{
  g_autoptr(TslTrace) trace = read_ok ("chrome", "counters.json");
  g_autofree char *warnings = dump_warnings (trace);
  TslSummary mem, sys;

  g_assert_cmpuint (tsl_trace_get_events (trace), ==, 5);
  g_assert_cmpstr (warnings, ==, "ignored a non-numeric counter value (2 times)");
  mem = track_summary (trace, find_track (trace, TSL_TRACK_COUNTER, "mem"));
  g_assert_cmpuint (mem.count, ==, 2);
  g_assert_cmpfloat (mem.sum, ==, 40);
  g_assert_cmpfloat (mem.min, ==, 10);
  g_assert_cmpfloat (mem.max, ==, 30);
  sys = track_summary (trace, find_track (trace, TSL_TRACK_COUNTER, "cpu.sys"));
  g_assert_cmpfloat (sys.sum, ==, -98);
  g_assert_cmpfloat (sys.min, ==, -100);
  assert_track (trace, TSL_TRACK_COUNTER, "cpu.user", "@0=1.5|@2000=2.5");
  assert_track (trace, TSL_TRACK_COUNTER, "ctr[7]", "@3000=4");
}

static void
test_unbalanced (void)
{
  g_autoptr(TslTrace) trace = read_ok ("chrome", "unbalanced.json");
  g_autofree char *warnings = dump_warnings (trace);

  g_assert_cmpuint (tsl_trace_get_events (trace), ==, 5);
  g_assert_cmpstr (warnings, ==,
                   "ignored an 'E' event without a matching 'B'\n"
                   "2 'B' spans had no 'E' and were closed at the end of the trace");
  /* The open spans last to the end of the trace (4000 µs), as the warning
   * says: c began there, a lasts 3 ms (issue 32: no duration before). */
  assert_track (trace, TSL_TRACK_THREAD, "Thread 1", "a;b@2000=1000|a;c@4000=0|a@1000=3000");
}

static void
test_async (void)
{
  g_autoptr(TslTrace) trace = read_ok ("chrome", "async.json");
  g_autofree char *warnings = dump_warnings (trace);

  g_assert_cmpuint (tsl_trace_get_events (trace), ==, 11);
  g_assert_cmpstr (warnings, ==, "unknown phase 'Q' (3 times)");
  assert_track (trace, TSL_TRACK_ASYNC, "net", "step@15000|req@10000=20000");
  assert_track (trace, TSL_TRACK_ASYNC, "old", "old@5000|old@0=50000");
}

static void
test_invalid_numbers (void)
{
  g_autoptr(TslTrace) trace = read_ok ("chrome", "invalid-numbers.json");
  g_autofree char *warnings = dump_warnings (trace);

  g_assert_cmpuint (tsl_trace_get_events (trace), ==, 6);
  g_assert_cmpstr (warnings, ==,
                   "ignored an event whose \"ts\" is not a number in range (4 times)\n"
                   "ignored the \"dur\" of an 'X' event: not a number in range");
  assert_track (trace, TSL_TRACK_THREAD, "Thread 1", "e@5000|f@6001=1000");
}

static void
assert_syntax_error (const char *text,
                     const char *expected)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TslTrace) trace = read_bytes ("t.json", text, strlen (text), 0, &error);

  g_assert_null (trace);
  g_assert_error (error, TSL_READER_ERROR, TSL_READER_ERROR_SYNTAX);
  g_assert_cmpstr (error->message, ==, expected);
}

static void
test_syntax_errors (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TslTrace) trace = read_fixture ("chrome", "bad-syntax.json", 0, &error);

  g_assert_null (trace);
  g_assert_error (error, TSL_READER_ERROR, TSL_READER_ERROR_SYNTAX);
  g_assert_cmpstr (error->message, ==, "bad-syntax.json:3:3: expected ',' or ']' after an event");

  assert_syntax_error ("[{\"ph\" \"X\"}]", "t.json:1:8: expected ':' after a member name");
  assert_syntax_error ("[{\"ph\": \"X\",}]", "t.json:1:13: expected a member name in double quotes");
  assert_syntax_error ("[{\"ph\": }]", "t.json:1:9: expected a value");
  assert_syntax_error ("{\"traceEvents\": [], \"x\": 1 \"y\": 2}",
                       "t.json:1:28: expected ',' or '}' after a top-level member");
  assert_syntax_error ("[{}, ,{}]", "t.json:1:6: expected an event object or ']'");
}

static void
test_deep_nesting (void)
{
  const guint depth = 100000;
  g_autoptr(GString) text = g_string_new ("[{\"ph\": \"X\", \"name\": \"deep\", \"pid\": 1, \"tid\": 1, "
                                          "\"ts\": 1, \"dur\": 1, \"args\": ");
  g_autoptr(GError) error = NULL;
  g_autoptr(TslTrace) trace = NULL;
  g_autoptr(TslTrace) truncated = NULL;
  g_autofree char *warnings = NULL;

  for (guint i = 0; i < depth; i++)
    g_string_append_c (text, i % 2 ? '[' : '{');
  /* Unterminated at EOF: must say so, not recurse or hang; the only event
   * was dropped, which leaves nothing to show. */
  truncated = read_bytes ("deep.json", text->str, text->len, 4096, &error);
  g_assert_null (truncated);
  g_assert_error (error, TSL_READER_ERROR, TSL_READER_ERROR_EMPTY);
  g_assert_nonnull (strstr (error->message, "the trace ends inside an event"));
  g_clear_error (&error);

  g_string_truncate (text, text->len - depth);
  for (guint i = 0; i < depth; i++)
    g_string_append_c (text, '[');
  for (guint i = 0; i < depth; i++)
    g_string_append_c (text, ']');
  g_string_append (text, "}]");
  trace = read_bytes ("deep.json", text->str, text->len, 4096, &error);
  g_assert_no_error (error);
  warnings = dump_warnings (trace);
  g_assert_cmpstr (warnings, ==, "");
  g_assert_cmpuint (tsl_trace_get_events (trace), ==, 1);
  assert_track (trace, TSL_TRACK_THREAD, "Thread 1", "deep@1000=1000");
}

static void
test_speedscope (void)
{
  g_autoptr(TslTrace) trace = read_ok ("speedscope", "two-profiles.speedscope.json");
  g_autofree char *warnings = dump_warnings (trace);

  g_assert_cmpstr (tsl_trace_get_format (trace), ==, "speedscope");
  /* 5 evented events + 3 samples. */
  g_assert_cmpuint (tsl_trace_get_events (trace), ==, 8);
  g_assert_cmpstr (warnings, ==, "profile \"main thread\": 1 frames were still open at its end");
  assert_track (trace, TSL_TRACK_THREAD, "main thread",
                "main;a@1000000=2e+06|main;b\xc3\xa9@4000000=1e+06|main@0=1e+07");
  assert_track (trace, TSL_TRACK_THREAD, "worker",
                "main;a@100000=2000|main;b\xc3\xa9@102000=3000|main@105000=5000");
}

static void
test_speedscope_unit_none (void)
{
  g_autoptr(TslTrace) trace = read_ok ("speedscope", "unit-none.speedscope.json");
  g_autofree char *warnings = dump_warnings (trace);

  g_assert_cmpuint (tsl_trace_get_events (trace), ==, 3);
  g_assert_cmpstr (warnings, ==,
                   "profile \"p\" has unit \"none\", not a time: its values are shown as nanoseconds");
  assert_track (trace, TSL_TRACK_THREAD, "p", "x;y@2=5|x@0=7");
}

static void
test_speedscope_error (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TslTrace) trace = read_fixture ("speedscope", "bad-syntax.speedscope.json", 0, &error);

  g_assert_null (trace);
  g_assert_error (error, TSL_READER_ERROR, TSL_READER_ERROR_SYNTAX);
  g_assert_cmpstr (error->message, ==, "bad-syntax.speedscope.json:5:24: expected ',' or '}'");
}

static void
test_sniff (void)
{
  static const struct { const char *dir; const char *name; const char *format; } cases[] = {
    { "chrome", "array-basic.json", "chrome-json" },
    { "chrome", "object-form.json", "chrome-json" },
    { "speedscope", "two-profiles.speedscope.json", "speedscope" },
    { "speedscope", "unit-none.speedscope.json", "speedscope" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = fixture_path (cases[i].dir, cases[i].name);
      g_autofree char *data = NULL;
      gsize len;
      int chrome, speedscope;

      g_assert_true (g_file_get_contents (path, &data, &len, NULL));
      chrome = tsl_format_chrome_json.sniff ((const guint8 *) data, len, TRUE);
      speedscope = tsl_format_speedscope.sniff ((const guint8 *) data, len, TRUE);
      if (g_str_equal (cases[i].format, "speedscope"))
        g_assert_cmpint (speedscope, >, chrome);
      else
        g_assert_cmpint (chrome, >, speedscope);
    }
}

/* A record split anywhere must give the very same result. */
static void
test_one_byte_chunks (void)
{
  const char *dirs[] = { "chrome", "speedscope" };

  for (guint d = 0; d < G_N_ELEMENTS (dirs); d++)
    {
      g_autofree char *dir_path = g_test_build_filename (G_TEST_DIST, "data", dirs[d], NULL);
      g_autoptr(GDir) dir = g_dir_open (dir_path, 0, NULL);
      const char *name;

      g_assert_nonnull (dir);
      while ((name = g_dir_read_name (dir)) != NULL)
        {
          g_autoptr(GError) error_whole = NULL;
          g_autoptr(GError) error_bytes = NULL;
          g_autoptr(TslTrace) whole = read_fixture (dirs[d], name, 0, &error_whole);
          g_autoptr(TslTrace) bytes = read_fixture (dirs[d], name, 1, &error_bytes);

          if (whole == NULL)
            {
              g_assert_nonnull (error_bytes);
              g_assert_cmpstr (error_whole->message, ==, error_bytes->message);
            }
          else
            {
              g_autofree char *a = dump_trace (whole);
              g_autofree char *b = dump_trace (bytes);

              g_assert_no_error (error_bytes);
              g_assert_cmpstr (a, ==, b);
            }
        }
    }
}

static void
test_numbers (void)
{
  static const struct { const char *text; double value; } doubles[] = {
    { "0", 0 }, { "-0.5", -0.5 }, { "123.25", 123.25 }, { "1e3", 1000 }, { "2.5E-1", 0.25 },
    { "12345678901234567890", 12345678901234567890.0 }, { "0.1", 0.1 },
  };
  static const char *bad[] = { "", "-", "01", "1.", ".5", "1e", "NaN", "Infinity", "1e400", "0x10", "1 " };

  for (guint i = 0; i < G_N_ELEMENTS (doubles); i++)
    {
      double d = -1;

      g_assert_true (tsl_json_parse_double (doubles[i].text, strlen (doubles[i].text), &d));
      g_assert_cmpfloat (d, ==, doubles[i].value);
    }
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      double d;

      g_assert_false (tsl_json_parse_double (bad[i], strlen (bad[i]), &d));
    }
}

/* Events per kind of track, over every track of that kind. */
static guint64
kind_events (TslTrace     *trace,
             TslTrackKind  kind)
{
  guint64 n = 0;

  for (guint i = 0; i < tsl_trace_get_n_tracks (trace); i++)
    if (tsl_trace_track_get_kind (trace, i) == kind)
      n += tsl_sampler_get_events (tsl_trace_track_get_sampler (trace, i));
  return n;
}

static TslTrace *
read_with_budget (const GString *json,
                  guint64        process_mib)
{
  g_autoptr(TslBudget) budget = tsl_budget_new_for_process (process_mib << 20);
  g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_COUNT, K, 42);
  g_autoptr(TslReader) reader = tsl_reader_new (trace, "many-threads.json");
  g_autoptr(GError) error = NULL;

  tsl_trace_set_budget (trace, budget);
  for (gsize off = 0; off < json->len; off += 4096)
    g_assert_true (tsl_reader_feed (reader, (const guint8 *) json->str + off,
                                    MIN (4096, json->len - off), &error));
  g_assert_true (tsl_reader_finish (reader, &error));
  g_assert_no_error (error);
  return g_steal_pointer (&trace);
}

/* Issue 16 D01: thousands of threads, counters and async groups past the
 * budget fold into one track per kind, with nothing kept per folded thread,
 * and every event still counted where it was. */
static void
test_budget_folds (void)
{
  g_autoptr(GString) json = g_string_new ("[\n");
  g_autoptr(TslTrace) whole = NULL;
  g_autoptr(TslTrace) folded = NULL;
  const guint n = 6000;
  g_auto(GStrv) warnings = NULL;

  for (guint i = 1; i <= n; i++)
    {
      g_string_append_printf (json, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":%u,"
                              "\"args\":{\"name\":\"w%u\"}},\n", i, i);
      g_string_append_printf (json, "{\"ph\":\"B\",\"pid\":1,\"tid\":%u,\"ts\":%u,\"name\":\"outer\"},\n", i, i);
      g_string_append_printf (json, "{\"ph\":\"X\",\"pid\":1,\"tid\":%u,\"ts\":%u,\"dur\":1,\"name\":\"x\"},\n", i, i);
      if (i % 3 != 0)
        g_string_append_printf (json, "{\"ph\":\"E\",\"pid\":1,\"tid\":%u,\"ts\":%u},\n", i, i + 2);
      g_string_append_printf (json, "{\"ph\":\"C\",\"pid\":1,\"ts\":%u,\"name\":\"c%u\",\"args\":{\"v\":1}},\n", i, i);
      g_string_append_printf (json, "{\"ph\":\"b\",\"pid\":1,\"ts\":%u,\"cat\":\"g%u\",\"name\":\"a\",\"id\":%u},\n", i, i, i);
      g_string_append_printf (json, "{\"ph\":\"e\",\"pid\":1,\"ts\":%u,\"cat\":\"g%u\",\"name\":\"a\",\"id\":%u},\n", i + 1, i, i);
    }
  g_string_append (json, "{\"ph\":\"i\",\"pid\":1,\"tid\":1,\"ts\":0,\"name\":\"end\"}]\n");

  whole = read_with_budget (json, 1024);
  folded = read_with_budget (json, 64);

  /* 64 MiB has room for 4096 tracks; 1 GiB for all of them. */
  g_assert_cmpuint (tsl_trace_get_n_tracks (whole), ==, 3 * n);
  g_assert_cmpuint (tsl_trace_get_n_tracks (folded), <=, 4096 + 3);
  /* find_track() fails the test when there is no such track. */
  g_assert_true (tsl_trace_track_is_folded (folded, find_track (folded, TSL_TRACK_THREAD, "other threads")));
  g_assert_true (tsl_trace_track_is_folded (folded, find_track (folded, TSL_TRACK_COUNTER, "other counters")));
  g_assert_true (tsl_trace_track_is_folded (folded, find_track (folded, TSL_TRACK_ASYNC, "other async spans")));
  g_assert_cmpstr (tsl_trace_track_get_name (folded, find_track (folded, TSL_TRACK_THREAD, "w1")), ==, "w1");

  for (TslTrackKind kind = TSL_TRACK_THREAD; kind <= TSL_TRACK_ASYNC; kind++)
    g_assert_cmpuint (kind_events (folded, kind), ==, kind_events (whole, kind));
  g_assert_cmpuint (tsl_trace_get_events (folded), ==, tsl_trace_get_events (whole));

  warnings = tsl_trace_dup_warnings (folded);
  g_assert_true (g_strv_contains ((const char *const *) warnings,
                                  "memory budget of 64 MiB: 1904 thread or process names and sort "
                                  "indices of folded threads were not kept"));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/chrome/array-form", test_array_form);
  g_test_add_func ("/chrome/object-form", test_object_form);
  g_test_add_func ("/chrome/unterminated", test_unterminated);
  g_test_add_func ("/chrome/truncated", test_truncated);
  g_test_add_func ("/chrome/counters", test_counters);
  g_test_add_func ("/chrome/unbalanced", test_unbalanced);
  g_test_add_func ("/chrome/async", test_async);
  g_test_add_func ("/chrome/invalid-numbers", test_invalid_numbers);
  g_test_add_func ("/chrome/syntax-errors", test_syntax_errors);
  g_test_add_func ("/chrome/deep-nesting", test_deep_nesting);
  g_test_add_func ("/chrome/numbers", test_numbers);
  g_test_add_func ("/chrome/budget-folds", test_budget_folds);
  g_test_add_func ("/speedscope/profiles", test_speedscope);
  g_test_add_func ("/speedscope/unit-none", test_speedscope_unit_none);
  g_test_add_func ("/speedscope/syntax-error", test_speedscope_error);
  g_test_add_func ("/json/sniff", test_sniff);
  g_test_add_func ("/json/one-byte-chunks", test_one_byte_chunks);

  return g_test_run ();
}
