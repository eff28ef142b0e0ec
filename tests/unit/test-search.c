/* test-search.c: the search counts and visits every call of the file
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Issue 32 item 4: the search counted the runs of a sampled snapshot
 * ("10 of 61" where the trace held 2,494 calls) and outlined where a
 * sample's slice was, not the call. A scan of the whole input finds each
 * call at its own start, end and depth.
 */
#include <string.h>

#include <glib/gstdio.h>

#include "tsl-read-stream.h"
#include "tsl-reader.h"
#include "tsl-search.h"
#include "tsl-snapshot.h"

#define N_OUTER 400

typedef struct {
  guint  tid;
  guint  depth;
  gint64 start_ns;
  gint64 end_ns;
} Call;

static int
compare_calls (gconstpointer a,
               gconstpointer b)
{
  const Call *x = a, *y = b;

  if (x->start_ns != y->start_ns)
    return x->start_ns < y->start_ns ? -1 : 1;
  return (x->depth > y->depth) - (x->depth < y->depth);
}

/* Thread 1: "outer" every 100 µs, "f" inside it and, every other time,
 * a recursive "f" inside that; thread 2: a root "f" every third step;
 * thread 3: an "f" that never ends. The calls of f, as written. */
static char *
make_trace (GArray *calls)
{
  GString *s = g_string_new ("[{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"main\"}}");

  for (guint i = 0; i < N_OUTER; i++)
    {
      gint64 t = (gint64) i * 100;
      Call c;

      g_string_append_printf (s, ",{\"ph\":\"X\",\"name\":\"outer\",\"pid\":1,\"tid\":1,\"ts\":%" G_GINT64_FORMAT ",\"dur\":90}", t);
      g_string_append_printf (s, ",{\"ph\":\"X\",\"name\":\"f\",\"pid\":1,\"tid\":1,\"ts\":%" G_GINT64_FORMAT ",\"dur\":50}", t + 10);
      c = (Call) { 1, 1, (t + 10) * 1000, (t + 60) * 1000 };
      g_array_append_val (calls, c);
      if (i % 2 == 0)
        {
          g_string_append_printf (s, ",{\"ph\":\"X\",\"name\":\"f\",\"pid\":1,\"tid\":1,\"ts\":%" G_GINT64_FORMAT ",\"dur\":20}", t + 20);
          c = (Call) { 1, 2, (t + 20) * 1000, (t + 40) * 1000 };
          g_array_append_val (calls, c);
        }
      if (i % 3 == 0)
        {
          g_string_append_printf (s, ",{\"ph\":\"X\",\"name\":\"f\",\"pid\":1,\"tid\":2,\"ts\":%" G_GINT64_FORMAT ",\"dur\":5}", t + 5);
          c = (Call) { 2, 0, (t + 5) * 1000, (t + 10) * 1000 };
          g_array_append_val (calls, c);
        }
      if (i == 7)
        g_string_append_printf (s, ",{\"ph\":\"B\",\"name\":\"f\",\"pid\":1,\"tid\":3,\"ts\":%" G_GINT64_FORMAT "}", t);
    }
  /* Open until the trace's end, the last outer's. */
  {
    Call c = { 3, 0, 700 * 1000, ((gint64) (N_OUTER - 1) * 100 + 90) * 1000 };

    g_array_append_val (calls, c);
  }
  g_string_append (s, "]");
  g_array_sort (calls, compare_calls);
  return g_string_free (s, FALSE);
}

static TslTrace *
read_text (const char *text,
           guint       k,
           const char *search,
           GArray    **matches,
           guint64    *found)
{
  TslTrace *trace = tsl_trace_new (TSL_SAMPLER_TIME, k, 0x5EED);
  g_autoptr(TslSearchScan) scan = search != NULL ? tsl_search_scan_new (trace, search, 1000000) : NULL;
  g_autoptr(TslReader) reader = tsl_reader_new (trace, "search.json");
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) sampled = NULL;

  g_assert_true (tsl_reader_feed (reader, (const guint8 *) text, strlen (text), &error));
  g_assert_true (tsl_reader_finish (reader, &error));
  g_assert_no_error (error);
  if (scan != NULL)
    {
      *matches = tsl_search_scan_finish (scan, found, &sampled);
      g_assert_cmpuint (sampled->len, ==, 0);
    }
  return trace;
}

/* Every call, in time order, at its start, end and depth, on its thread;
 * a sampled snapshot (K = 8) holds far fewer. */
static void
test_scan_counts_calls (void)
{
  g_autoptr(GArray) calls = g_array_new (FALSE, FALSE, sizeof (Call));
  g_autofree char *text = make_trace (calls);
  g_autoptr(GArray) matches = NULL;
  g_autoptr(TslTrace) trace = NULL;
  g_autoptr(TslSnapshot) snapshot = NULL;
  g_autoptr(GArray) sampled = NULL;
  guint64 found = 0;

  trace = read_text (text, 8, "f", &matches, &found);
  g_assert_cmpuint (found, ==, calls->len);
  g_assert_cmpuint (matches->len, ==, calls->len);
  for (guint i = 0; i < calls->len; i++)
    {
      const Call *c = &g_array_index (calls, Call, i);
      const TslSearchMatch *m = &g_array_index (matches, TslSearchMatch, i);

      g_assert_cmpint (m->start_ns, ==, c->start_ns);
      g_assert_cmpint (m->end_ns, ==, c->end_ns);
      g_assert_cmpuint (m->depth, ==, c->depth);
      g_assert_cmpint (tsl_trace_track_get_tid (trace, m->track), ==, c->tid);
    }

  /* What the window counted before: the runs of a sampled snapshot. */
  snapshot = tsl_snapshot_new (trace);
  sampled = tsl_search_find (snapshot, "f");
  g_assert_cmpuint (sampled->len, <, calls->len / 4);
}

/* A pattern, and a cap: everything counted, only `max` kept. */
static void
test_scan_pattern_and_cap (void)
{
  g_autoptr(GArray) calls = g_array_new (FALSE, FALSE, sizeof (Call));
  g_autofree char *text = make_trace (calls);
  g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_TIME, 8, 0x5EED);
  g_autoptr(TslSearchScan) scan = tsl_search_scan_new (trace, "?ut*", 10);
  g_autoptr(TslReader) reader = tsl_reader_new (trace, "search.json");
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) matches = NULL;
  guint64 found = 0;

  g_assert_true (tsl_reader_feed (reader, (const guint8 *) text, strlen (text), &error));
  g_assert_true (tsl_reader_finish (reader, &error));
  matches = tsl_search_scan_finish (scan, &found, NULL);
  g_assert_cmpuint (found, ==, N_OUTER);
  g_assert_cmpuint (matches->len, ==, 10);
  g_assert_cmpuint (g_array_index (matches, TslSearchMatch, 0).depth, ==, 0);
}

/* A file read before is loaded from the state cache without reading an
 * event: the scan must still see every one (the window found "No
 * matches" on the second search of a Chromium recording). */
static void
test_scan_reads_cached_file (void)
{
  g_autoptr(GArray) calls = g_array_new (FALSE, FALSE, sizeof (Call));
  g_autofree char *text = make_trace (calls);
  g_autofree char *dir = g_dir_make_tmp ("timeslice-search-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "trace.json", NULL);

  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  for (guint read = 0; read < 3; read++)
    {
      g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_COUNT, 16, 0x5EED);
      g_autoptr(TslSearchScan) scan = NULL;
      g_autoptr(GArray) matches = NULL;
      g_autoptr(GError) error = NULL;
      guint64 found = 0;

      /* The first read, plain, makes the cache entry. */
      if (read > 0)
        scan = tsl_search_scan_new (trace, "f", 1000000);
      g_assert_true (tsl_read_path_full (trace, path, TSL_READER_THREADS_NEVER, NULL, NULL, NULL, &error));
      g_assert_no_error (error);
      if (scan == NULL)
        continue;
      matches = tsl_search_scan_finish (scan, &found, NULL);
      g_assert_cmpuint (found, ==, calls->len);
      g_assert_cmpint (g_array_index (matches, TslSearchMatch, 0).start_ns, ==,
                       g_array_index (calls, Call, 0).start_ns);
    }
  g_unlink (path);
  g_rmdir (dir);
}

static void
remove_tree (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);

      if (g_file_test (child, G_FILE_TEST_IS_DIR))
        remove_tree (child);
      else
        g_unlink (child);
    }
  g_rmdir (path);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *cache = g_dir_make_tmp ("timeslice-search-cache-XXXXXX", NULL);

  /* Before GLib reads it: a cache of this test's own, and the state
   * cache on (the suite turns it off). */
  g_setenv ("XDG_CACHE_HOME", cache, TRUE);
  g_unsetenv ("TSL_CACHE_MAX_BYTES");
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/search/scan-counts-calls", test_scan_counts_calls);
  g_test_add_func ("/search/scan-pattern-and-cap", test_scan_pattern_and_cap);
  g_test_add_func ("/search/scan-reads-cached-file", test_scan_reads_cached_file);

  {
    int status = g_test_run ();

    remove_tree (cache);
    return status;
  }
}
