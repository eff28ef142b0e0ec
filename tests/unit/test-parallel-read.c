/* test-parallel-read.c: a regular file's Chrome events, CSV rows, perf records and collapsed stacks scanned on N threads
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The Chrome reader scans a regular file's buffers on every core, cut at
 * guessed event starts, and models them in order. With
 * TSL_READER_SPLIT_SEED every buffer is cut at random places (mostly not
 * event starts), so that wrong guesses are frequent. For N = 2, 3 and 4
 * threads and several seeds, feeds of random sizes and both sampler modes,
 * the sampler state (tsl_trace_save_state(), canonical bytes: every sample,
 * summary, name and warning), the event count and the chunk index (every
 * checkpoint's offset, time bounds and saved state) must be the one-thread
 * read's. Generated traces hold what misleads a guess: '},{' inside nested
 * arrays and strings, non-object entries, an error, a cut end. The CSV
 * and perf script readers are checked the same way (tsl-csv-reader.c,
 * tsl-perf-reader.c): rows with quoted fields holding newlines, CRLF,
 * comments, bad cells and ragged rows; records with blank lines, bad
 * headers and frame lines outside records; collapsed stacks
 * (tsl-collapsed-reader.c) with comments, blank lines, CRLF, bad counts
 * and lines of no kind past the warnings' cap.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>

#include "tsl-chunk-index.h"
#include "tsl-reader.h"
#include "tsl-trace-state.h"

typedef enum {
  FORM_ARRAY,
  FORM_OBJECT,     /* with samples and stackFrames after traceEvents */
  FORM_ODD,        /* non-objects among the events, a trailing ',' */
  FORM_ERROR,      /* a malformed event three quarters in */
  FORM_CUT,        /* ends inside an event */
} Form;

static void
append_event (GString *s,
              GRand   *rand,
              guint    i,
              gint64  *ts,
              guint   *depth)
{
  double r = g_rand_double (rand);
  guint tid = g_rand_int_range (rand, 1, 4);

  *ts += g_rand_int_range (rand, 1, 50);
  if (r < 0.2)
    g_string_append_printf (s, "{\"ph\": \"X\", \"ts\": %" G_GINT64_FORMAT ", \"dur\": %d, \"pid\": 1, "
                            "\"tid\": %u, \"name\": \"n%u\", \"args\": {\"frames\": [{\"a\": %u},%s{\"b\": "
                            "[{\"c\": 2},{\"d\": \"x},{y\"}]}],\n \"s\": \"}, {\\\"q\\\": 1}\"}}",
                            *ts, g_rand_int_range (rand, 0, 40), tid, i % 9, i,
                            g_rand_boolean (rand) ? " " : "\n");
  else if (r < 0.45 && *depth < 6)
    {
      (*depth)++;
      g_string_append_printf (s, "{\"ph\": \"B\", \"ts\": %" G_GINT64_FORMAT ", \"pid\": 1, \"tid\": 1, "
                              "\"name\": \"s%u\"}", *ts, i % 5);
    }
  else if (r < 0.6 && *depth > 0)
    {
      (*depth)--;
      g_string_append_printf (s, "{\"ph\": \"E\", \"ts\": %" G_GINT64_FORMAT ", \"pid\": 1, \"tid\": 1}", *ts);
    }
  else if (r < 0.7)
    g_string_append_printf (s, "{\"ph\": \"C\", \"ts\": %" G_GINT64_FORMAT ", \"pid\": 2, \"name\": \"mem\", "
                            "\"args\": {\"a\": %d, \"b\": %u}}", *ts, g_rand_int_range (rand, 0, 99), i);
  else if (r < 0.75)
    /* An async span closed at once: an open one allows no checkpoint. */
    g_string_append_printf (s, "{\"ph\": \"b\", \"ts\": %" G_GINT64_FORMAT ", \"pid\": 1, \"tid\": %u, "
                            "\"cat\": \"io\", \"name\": \"load\", \"id\": \"0x%x\"},\n"
                            "{\"ph\": \"e\", \"ts\": %" G_GINT64_FORMAT ", \"pid\": 1, \"tid\": %u, "
                            "\"cat\": \"io\", \"name\": \"load\", \"id\": \"0x%x\"}",
                            *ts, tid, i % 7, *ts + 3, tid, i % 7);
  else
    {
      /* Drawn once: MAX() evaluates its arguments twice. */
      gint64 tick = *ts + g_rand_int_range (rand, -3000, 3000);

      g_string_append_printf (s, "{\"ph\": \"i\", \"ts\": %" G_GINT64_FORMAT ", \"pid\": 1, \"tid\": %u, "
                              "\"name\": \"tick\", \"s\": \"t\"}", MAX (0, tick), tid);
    }
}

static char *
write_trace (Form   form,
             guint  n,
             guint  seed)
{
  static const char *const seps[] = { ",", ",\n", " , ", ",\n\n  " };
  g_autoptr(GString) s = g_string_new (form == FORM_OBJECT ? "{\"traceEvents\": [" : "[");
  g_autoptr(GRand) rand = g_rand_new_with_seed (seed);
  gint64 ts = 0;
  guint depth = 0;
  char *path = NULL;
  int fd = g_file_open_tmp ("tsl-parallel-XXXXXX.json", &path, NULL);

  g_assert_cmpint (fd, >=, 0);
  close (fd);
  for (guint i = 0; i < n; i++)
    {
      if (i > 0)
        g_string_append (s, seps[g_rand_int_range (rand, 0, G_N_ELEMENTS (seps))]);
      if (form == FORM_ODD && i % 997 == 500)
        g_string_append (s, "1, \"x\", null, [{\"ph\": \"i\"}], ");
      if (form == FORM_ERROR && i == n * 3 / 4)
        g_string_append (s, "{\"ph\": \"X\", \"ts\": }, ");
      append_event (s, rand, i, &ts, &depth);
    }
  switch (form)
    {
    case FORM_OBJECT:
      g_string_append (s, "], \"samples\": [{\"cpu\": 0, \"tid\": 1, \"ts\": 5, \"sf\": 1}],"
                          " \"stackFrames\": {\"1\": {\"name\": \"root\"}}}");
      break;
    case FORM_ODD:
      g_string_append (s, ",]");
      break;
    case FORM_CUT:
      g_string_truncate (s, s->len - 20);
      break;
    case FORM_ARRAY:
    case FORM_ERROR:
    default:
      g_string_append (s, "]\n");
      break;
    }
  g_assert_true (g_file_set_contents (path, s->str, s->len, NULL));
  return path;
}

static char *
write_text (const char *suffix,
            GString    *s)
{
  g_autofree char *template = g_strdup_printf ("tsl-parallel-XXXXXX%s", suffix);
  char *path = NULL;
  int fd = g_file_open_tmp (template, &path, NULL);

  g_assert_cmpint (fd, >=, 0);
  close (fd);
  g_assert_true (g_file_set_contents (path, s->str, s->len, NULL));
  return path;
}

/* A CSV file whose newlines inside quoted fields mislead a cut after a
 * newline, with CRLF rows, blank and '#' lines, bad cells, bad times and
 * ragged rows. */
static char *
write_csv (guint n,
           guint seed)
{
  static const char *const notes[] = { "x", "\"line\nbreak\"", "\"two\n\nbreaks, \"\"q\"\"\"",
                                       "", "\"a,b\"", "\"\n12,13\n\"" };
  g_autoptr(GString) s = g_string_new ("timestamp,\"a,\nb\",c,note,d\n");
  g_autoptr(GRand) rand = g_rand_new_with_seed (seed);
  gint64 t = 1500000000;

  for (guint i = 0; i < n; i++)
    {
      double r = g_rand_double (rand);
      const char *eol = g_rand_int_range (rand, 0, 5) == 0 ? "\r\n" : "\n";

      t += g_rand_int_range (rand, 0, 5);
      if (r < 0.02)
        g_string_append_printf (s, "%" G_GINT64_FORMAT ",1%s", t, eol);
      else if (r < 0.04)
        g_string_append_printf (s, "soon,1,2,x,3%s", eol);
      else if (r < 0.05)
        g_string_append_printf (s, "# a comment%s%s", eol, eol);
      else
        g_string_append_printf (s, "%" G_GINT64_FORMAT ",%s,%d,%s,%.3f%s", t,
                                r < 0.08 ? "n/a" : "1.5", g_rand_int_range (rand, -5, 5),
                                notes[g_rand_int_range (rand, 0, G_N_ELEMENTS (notes))],
                                g_rand_double (rand), eol);
    }
  return write_text (".csv", s);
}

/* perf script records with blank lines, CRLF, '#' lines, bad headers and
 * frame lines outside any record. */
static char *
write_perf (guint n,
            guint seed)
{
  g_autoptr(GString) s = g_string_new ("# ========\n# captured on: test\n");
  g_autoptr(GRand) rand = g_rand_new_with_seed (seed);
  double t = 100.0;

  for (guint i = 0; i < n; i++)
    {
      double r = g_rand_double (rand);
      const char *eol = g_rand_int_range (rand, 0, 5) == 0 ? "\r\n" : "\n";
      guint depth = g_rand_int_range (rand, 0, 12);

      t += g_rand_double (rand) * 0.01;
      if (r < 0.03)
        g_string_append_printf (s, "garbage line %u%s", i, eol);
      else if (r < 0.05)
        g_string_append_printf (s, "\t    ffff orphan (/lib/x.so)%s", eol);
      else if (r < 0.07)
        g_string_append_printf (s, "# comment%s", eol);
      g_string_append_printf (s, "app 100/%d [%03d] %.6f: %d cycles: %s", 100 + (int) (i % 4),
                              (int) (i % 4), t, g_rand_int_range (rand, 1, 9999), eol);
      for (guint d = 0; d < depth; d++)
        g_string_append_printf (s, "\t%12x fn_%d+0x%x (/usr/lib/lib%d.so)%s",
                                g_rand_int (rand), g_rand_int_range (rand, 0, 50),
                                g_rand_int_range (rand, 0, 99), g_rand_int_range (rand, 0, 3), eol);
      if (g_rand_int_range (rand, 0, 10) != 0)
        g_string_append (s, eol);
    }
  return write_text (".txt", s);
}

/* Collapsed stacks with '#' and blank lines, CRLF, counts that are no
 * sample counts and lines of no kind (more than the reader names). */
static char *
write_collapsed (guint n,
                 guint seed)
{
  static const char *const frames[] = { "main", "fn a", "x;", "std::map<int, int>::find", "[k]\tsys" };
  g_autoptr(GString) s = g_string_new ("# folded\n");
  g_autoptr(GRand) rand = g_rand_new_with_seed (seed);

  for (guint i = 0; i < n; i++)
    {
      double r = g_rand_double (rand);
      const char *eol = g_rand_int_range (rand, 0, 5) == 0 ? "\r\n" : "\n";
      guint depth = g_rand_int_range (rand, 1, 10);

      if (r < 0.02)
        g_string_append (s, eol);
      else if (r < 0.04)
        g_string_append_printf (s, "# note %u%s", i, eol);
      else if (r < 0.06)
        g_string_append_printf (s, "main;bad %s%s", r < 0.05 ? "1.5" : "-4", eol);
      else if (r < 0.08)
        g_string_append_printf (s, "no count %s", eol);
      else
        {
          for (guint d = 0; d < depth; d++)
            g_string_append_printf (s, "%s%s", d > 0 ? ";" : "",
                                    frames[g_rand_int_range (rand, 0, G_N_ELEMENTS (frames))]);
          g_string_append_printf (s, " %d%s", g_rand_int_range (rand, 0, 999), eol);
        }
    }
  return write_text (".folded", s);
}

/* The driver's idle work (reading ahead): plain, unlocked state that the
 * reader must only touch inside feed() and from one thread at a time (a
 * TSan build of this test sees any overlap). */
static gboolean in_feed;
static guint idle_calls;

static gboolean
idle_work (gpointer data)
{
  g_assert_true (in_feed);
  idle_calls++;
  return idle_calls % 16 != 0;
}

typedef struct {
  GBytes        *state;
  guint64        events;
  gboolean       ok;
  char          *message;
  TslChunkIndex *index;
} Result;

static void
result_clear (Result *r)
{
  g_clear_pointer (&r->state, g_bytes_unref);
  g_clear_pointer (&r->message, g_free);
  g_clear_pointer (&r->index, tsl_chunk_index_unref);
}

/* Reads `data` as a regular file's feeds of random sizes (a reader with an
 * idle function is what tsl_read_stream() makes of a regular file). */
static void
read_with (const guint8   *data,
           gsize           len,
           TslSamplerMode  mode,
           guint           n_threads,
           guint           split_seed,
           guint           feed_seed,
           Result         *r)
{
  g_autofree char *threads = g_strdup_printf ("%u", n_threads);
  g_autofree char *split = g_strdup_printf ("%u", split_seed);
  g_autoptr(TslTrace) trace = tsl_trace_new (mode, 20, 3);
  g_autoptr(GRand) rand = g_rand_new_with_seed (feed_seed);
  g_autoptr(GError) error = NULL;
  TslReader *reader;
  gsize at = 0;

  g_setenv ("TSL_READER_THREADS", threads, TRUE);
  if (n_threads > 1)
    g_setenv ("TSL_READER_SPLIT_SEED", split, TRUE);
  else
    g_unsetenv ("TSL_READER_SPLIT_SEED");
  g_setenv ("TSL_INDEX_CHUNK_BYTES", "20000", TRUE);
  reader = tsl_reader_new (trace, "gen.json");
  tsl_reader_set_idle_func (reader, idle_work, NULL);
  r->index = tsl_chunk_index_new ();
  tsl_reader_set_index (reader, r->index);
  r->ok = TRUE;
  tsl_trace_lock (trace);
  while (r->ok && at < len)
    {
      gsize n = g_rand_int_range (rand, 1, 300000);

      n = MIN (n, len - at);

      in_feed = TRUE;
      r->ok = tsl_reader_feed (reader, data + at, n, &error);
      in_feed = FALSE;
      at += n;
    }
  in_feed = TRUE;
  if (r->ok)
    r->ok = tsl_reader_finish (reader, &error);
  in_feed = FALSE;
  tsl_trace_unlock (trace);
  tsl_reader_free (reader);
  r->message = error != NULL ? g_strdup (error->message) : NULL;
  r->events = tsl_trace_get_events (trace);
  r->state = tsl_trace_save_state (trace);
  g_unsetenv ("TSL_READER_THREADS");
  g_unsetenv ("TSL_READER_SPLIT_SEED");
  g_unsetenv ("TSL_INDEX_CHUNK_BYTES");
}

static void
assert_same_index (TslChunkIndex *a,
                   TslChunkIndex *b)
{
  g_assert_cmpint (tsl_chunk_index_is_valid (a), ==, tsl_chunk_index_is_valid (b));
  g_assert_cmpuint (tsl_chunk_index_get_n_chunks (a), ==, tsl_chunk_index_get_n_chunks (b));
  for (guint i = 0; i < tsl_chunk_index_get_n_chunks (a); i++)
    {
      const TslChunk *ca = tsl_chunk_index_get_chunk (a, i);
      const TslChunk *cb = tsl_chunk_index_get_chunk (b, i);

      g_assert_cmpuint (ca->offset, ==, cb->offset);
      g_assert_cmpint (ca->min_ns, ==, cb->min_ns);
      g_assert_cmpint (ca->max_ns, ==, cb->max_ns);
      g_assert_cmpint (ca->must_read, ==, cb->must_read);
      g_assert_true ((ca->state == NULL) == (cb->state == NULL));
      if (ca->state != NULL)
        g_assert_true (g_bytes_equal (ca->state, cb->state));
    }
}

/* Chunks of a valid index, checked on the reads that have one. */
static guint checked_chunks;
/* From the reader's debug message: segments scanned, and those cut at a
 * wrong guess, which must happen for the test to test anything. */
static guint64 n_segments, n_wrong;

static void
count_segments (const char     *domain,
                GLogLevelFlags  level,
                const char     *message,
                gpointer        data)
{
  const char *s = strstr (message, ": ");
  const char *w = strstr (message, "), ");
  guint64 segments, wrong;

  if (s != NULL && w != NULL && sscanf (s + 2, "%" G_GUINT64_FORMAT " segments", &segments) == 1 &&
      sscanf (w + 3, "%" G_GUINT64_FORMAT " of them", &wrong) == 1)
    {
      n_segments += segments;
      n_wrong += wrong;
    }
}

static void
check_file (const char *path,
            gboolean    expect_ok)
{
  g_autofree char *data = NULL;
  guint64 segments = n_segments, wrong = n_wrong;
  gsize len;

  g_assert_true (g_file_get_contents (path, &data, &len, NULL));
  for (TslSamplerMode mode = TSL_SAMPLER_COUNT; mode <= TSL_SAMPLER_TIME; mode++)
    for (guint seed = 1; seed <= 3; seed++)
      {
        Result one = { 0 };

        /* Checkpoints follow the feeds: the same feeds for every N. */
        read_with ((const guint8 *) data, len, mode, 1, 0, seed, &one);
        if (tsl_chunk_index_is_valid (one.index))
          checked_chunks += tsl_chunk_index_get_n_chunks (one.index);
        for (guint n = 2; n <= 4; n++)
          {
            Result many = { 0 };

            read_with ((const guint8 *) data, len, mode, n, seed * 7 + n, seed, &many);
            g_assert_cmpint (many.ok, ==, one.ok);
            g_assert_cmpstr (many.message, ==, one.message);
            g_assert_cmpuint (many.events, ==, one.events);
            g_assert_true (g_bytes_equal (many.state, one.state));
            assert_same_index (one.index, many.index);
            result_clear (&many);
          }
        g_assert_cmpint (one.ok, ==, expect_ok);
        result_clear (&one);
      }
  g_unlink (path);
  /* Random cuts: most are wrong guesses, some are right. */
  g_test_message ("%" G_GUINT64_FORMAT " segments, %" G_GUINT64_FORMAT " cut at a wrong guess",
                  n_segments - segments, n_wrong - wrong);
  g_assert_cmpuint (n_wrong - wrong, >, 100);
  g_assert_cmpuint (n_segments - segments - (n_wrong - wrong), >, 100);
}

static void
check_form (Form form)
{
  g_autofree char *path = write_trace (form, 15000, 11 + form);

  check_file (path, form != FORM_ERROR);
}

static void
test_array (void)
{
  check_form (FORM_ARRAY);
  /* Every checkpoint compared is a chance to differ. */
  g_assert_cmpuint (checked_chunks, >, 50);
}

static void
test_object (void)
{
  check_form (FORM_OBJECT);
}

static void
test_odd (void)
{
  check_form (FORM_ODD);
}

static void
test_error (void)
{
  check_form (FORM_ERROR);
}

static void
test_cut (void)
{
  check_form (FORM_CUT);
}

static void
test_csv (void)
{
  g_autofree char *path = write_csv (20000, 5);

  check_file (path, TRUE);
}

static void
test_perf (void)
{
  g_autofree char *path = write_perf (5000, 6);

  check_file (path, TRUE);
}

static void
test_collapsed (void)
{
  g_autofree char *path = write_collapsed (30000, 7);

  check_file (path, TRUE);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_log_set_handler ("tsl-reader", G_LOG_LEVEL_DEBUG, count_segments, NULL);
  g_test_add_func ("/parallel-read/array", test_array);
  g_test_add_func ("/parallel-read/object", test_object);
  g_test_add_func ("/parallel-read/odd", test_odd);
  g_test_add_func ("/parallel-read/error", test_error);
  g_test_add_func ("/parallel-read/cut", test_cut);
  g_test_add_func ("/parallel-read/csv", test_csv);
  g_test_add_func ("/parallel-read/perf", test_perf);
  g_test_add_func ("/parallel-read/collapsed", test_collapsed);
  return g_test_run ();
}
