/* test-read-changes.c: a file that changes while it is read
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A read that notices its file changed under it (by size, modification
 * time, or an index that no longer fits) fails or warns, and never gives a
 * mixture of two versions as its result: a file cut short during a whole
 * read or a range read fails, one that grew warns. Following a file that
 * is truncated (a copytruncate rotation) says so and reads the new
 * contents from the start, as `tail -F` does.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>

#include "tsl-chunk-index.h"
#include "tsl-read-stream.h"

#include "test-follow.h"
#include "test-warnings.h"

/* `n` complete events named `name`, one a line, in a JSON array that is
 * left open when `open` (a tracer still writing). */
static GString *
chrome_events (const char *name,
               guint       n,
               gboolean    open)
{
  GString *s = g_string_new ("[\n");

  for (guint i = 0; i < n; i++)
    g_string_append_printf (s, "{\"ph\": \"X\", \"ts\": %u, \"dur\": 5, \"pid\": 1, \"tid\": %u, "
                            "\"name\": \"%s%u\"}%s\n", i * 10, 1 + i % 3, name, i % 7,
                            open || i + 1 < n ? "," : "");
  if (!open)
    g_string_append (s, "]\n");
  return s;
}

static char *
write_temp (const GString *s)
{
  char *path = NULL;
  int fd = g_file_open_tmp ("tsl-changes-XXXXXX.json", &path, NULL);

  g_assert_cmpint (fd, >=, 0);
  close (fd);
  g_assert_true (g_file_set_contents (path, s->str, s->len, NULL));
  return path;
}

/* What a progress callback does to the file after the first feed. */
typedef struct {
  const char *path;
  gint64      truncate_to;   /* -1: append instead */
  const char *append;
  guint       calls;
} Change;

static void
change_once (guint64  bytes_read,
             guint64  bytes_total,
             guint64  events,
             gpointer user_data)
{
  Change *c = user_data;

  if (c->calls++ > 0)
    return;
  g_usleep (20 * 1000);   /* another mtime on any file system */
  if (c->truncate_to >= 0)
    g_assert_cmpint (truncate (c->path, c->truncate_to), ==, 0);
  else
    {
      FILE *f = fopen (c->path, "ab");

      g_assert_nonnull (f);
      fputs (c->append, f);
      g_assert_cmpint (fclose (f), ==, 0);
    }
}

/* Cut short after the first MiB was fed: the read ended at the new end,
 * with the first MiB of one version and nothing of the other. */
static void
test_truncated_whole (void)
{
  g_autoptr(GString) s = chrome_events ("a", 60000, FALSE);
  g_autofree char *path = write_temp (s);
  g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_COUNT, 16, 1);
  g_autoptr(GError) error = NULL;
  Change c = { path, 512 * 1024, NULL, 0 };

  g_assert_cmpuint (s->len, >, 3 * TSL_READ_FEED_BYTES);
  g_assert_false (tsl_read_path (trace, path, change_once, &c, NULL, &error));
  g_assert_error (error, TSL_READER_ERROR, TSL_READER_ERROR_CHANGED);
  g_assert_nonnull (strstr (error->message, "changed while it was read"));
  g_assert_true (g_str_has_prefix (error->message, path));
  g_unlink (path);
}

/* Cut short during a range read through the index made of the whole file:
 * the chunks after the cut are gone. */
static void
test_truncated_range (void)
{
  g_autoptr(GString) s = chrome_events ("a", 60000, FALSE);
  g_autofree char *path = write_temp (s);
  g_autoptr(TslTrace) whole = tsl_trace_new (TSL_SAMPLER_COUNT, 16, 1);
  g_autoptr(TslTrace) range = tsl_trace_new (TSL_SAMPLER_COUNT, 16, 1);
  g_autoptr(GError) error = NULL;
  Change c = { path, 512 * 1024, NULL, 0 };
  gint64 start, end;

  g_setenv ("TSL_INDEX_CHUNK_BYTES", "65536", TRUE);
  g_assert_true (tsl_read_path (whole, path, NULL, NULL, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (tsl_chunk_index_get_file_span (path, &start, &end));
  /* The middle third: chunks on both sides of the cut. */
  tsl_trace_set_time_filter (range, start + (end - start) / 3, start + 2 * (end - start) / 3);
  g_assert_false (tsl_read_path (range, path, change_once, &c, NULL, &error));
  g_assert_error (error, TSL_READER_ERROR, TSL_READER_ERROR_CHANGED);
  g_assert_cmpuint (c.calls, >, 0);
  g_unsetenv ("TSL_INDEX_CHUNK_BYTES");
  g_unlink (path);
}

/* Cut short between two reads of one command (compare's first pass, then
 * its range reads): the range read would be of another version than the
 * first, so it fails; a whole read of the new version is then fine. */
static void
test_truncated_between_reads (void)
{
  g_autoptr(GString) s = chrome_events ("a", 60000, FALSE);
  g_autoptr(GString) shorter = chrome_events ("b", 30000, FALSE);
  g_autofree char *path = write_temp (s);
  g_autoptr(TslTrace) first = tsl_trace_new (TSL_SAMPLER_COUNT, 16, 1);
  g_autoptr(TslTrace) range = tsl_trace_new (TSL_SAMPLER_COUNT, 16, 1);
  g_autoptr(TslTrace) again = tsl_trace_new (TSL_SAMPLER_COUNT, 16, 1);
  g_autoptr(GError) error = NULL;
  gint64 start, end;

  g_assert_true (tsl_read_path (first, path, NULL, NULL, NULL, &error));
  g_assert_no_error (error);
  tsl_trace_get_span (first, &start, &end);
  g_usleep (20 * 1000);
  g_assert_true (g_file_set_contents (path, shorter->str, shorter->len, NULL));
  tsl_trace_set_time_filter (range, start + (end - start) / 3, start + 2 * (end - start) / 3);
  g_assert_false (tsl_read_path (range, path, NULL, NULL, NULL, &error));
  g_assert_error (error, TSL_READER_ERROR, TSL_READER_ERROR_CHANGED);
  g_assert_nonnull (strstr (error->message, "since it was first read"));
  g_clear_error (&error);
  g_assert_true (tsl_read_path (again, path, NULL, NULL, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (tsl_trace_get_events (again), ==, 30000);
  g_unlink (path);
}

/* Modified in place at the same size since the first read: the range is
 * read whole from the file as it is (its index no longer fits), and says
 * so. */
static void
test_modified_between_reads (void)
{
  g_autoptr(GString) s = chrome_events ("a", 60000, FALSE);
  g_autofree char *path = write_temp (s);
  g_autoptr(TslTrace) first = tsl_trace_new (TSL_SAMPLER_COUNT, 16, 1);
  g_autoptr(TslTrace) range = tsl_trace_new (TSL_SAMPLER_COUNT, 16, 1);
  g_autoptr(GError) error = NULL;
  gint64 start, end;
  FILE *f;

  g_assert_true (tsl_read_path (first, path, NULL, NULL, NULL, &error));
  g_assert_no_error (error);
  g_assert_false (has_warning (first, "modified since"));
  tsl_trace_get_span (first, &start, &end);
  g_usleep (20 * 1000);
  f = fopen (path, "r+b");
  g_assert_nonnull (f);
  g_assert_cmpint (fputs ("[\n{\"ph\": \"X\", \"ts\": 1,", f), >=, 0);
  g_assert_cmpint (fclose (f), ==, 0);
  tsl_trace_set_time_filter (range, start, end);
  g_assert_true (tsl_read_path (range, path, NULL, NULL, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (has_warning (range, "modified since it was first read"));
  g_unlink (path);
}

/* Grown by appended events: what was read is the file up to some point,
 * a whole prefix; it is kept, with a warning. */
static void
test_grew (void)
{
  g_autoptr(GString) s = chrome_events ("a", 60000, TRUE);
  g_autofree char *path = write_temp (s);
  g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_COUNT, 16, 1);
  g_autoptr(GError) error = NULL;
  Change c = { path, -1, "{\"ph\": \"X\", \"ts\": 1, \"dur\": 1, \"pid\": 1, \"tid\": 1, \"name\": \"z\"},\n", 0 };

  g_assert_true (tsl_read_path (trace, path, change_once, &c, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (has_warning (trace, "grew while it was read"));
  g_assert_cmpuint (tsl_trace_get_events (trace), ==, 60001);
  g_unlink (path);
}

/* Waits up to 10 s for the follower to have read `n` events. */
static guint64
wait_for_events (TslTrace *trace,
                 guint64   n)
{
  guint64 events = 0;

  for (guint tries = 0; tries < 100 && events < n; tries++)
    {
      g_usleep (100 * 1000);
      tsl_trace_lock (trace);
      events = tsl_trace_get_events (trace);
      tsl_trace_unlock (trace);
    }
  return events;
}

/* `: > w.json` and new events after it: the new events are read, from
 * the file's start, with a warning; following goes on. */
static void
test_follow_truncated (void)
{
  g_autoptr(GString) before = chrome_events ("old", 2000, TRUE);
  g_autoptr(GString) after = chrome_events ("new", 300, TRUE);
  g_autofree char *path = write_temp (before);
  g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_COUNT, 16, 1);
  Follower f = { path, trace, TRUE, FALSE };
  GThread *thread;
  FILE *out;

  thread = g_thread_new ("follow", follow_thread, &f);
  g_assert_cmpuint (wait_for_events (trace, 2000), ==, 2000);
  /* What copytruncate does: the same file, emptied, then written anew
   * (shorter than before, so an offset past its end reads nothing). */
  out = fopen (path, "wb");
  g_assert_nonnull (out);
  g_assert_cmpint (fclose (out), ==, 0);
  g_usleep (500 * 1000);   /* the follower sees it empty at least once */
  out = fopen (path, "ab");
  g_assert_nonnull (out);
  g_assert_cmpuint (fwrite (after->str, 1, after->len, out), ==, after->len);
  g_assert_cmpint (fclose (out), ==, 0);
  g_assert_cmpuint (wait_for_events (trace, 2300), ==, 2300);

  g_atomic_int_set (&f.following, FALSE);
  g_thread_join (thread);
  g_assert_true (f.ok);
  g_assert_true (has_warning (trace, "truncated"));
  g_unlink (path);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/read-changes/truncated-whole", test_truncated_whole);
  g_test_add_func ("/read-changes/truncated-range", test_truncated_range);
  g_test_add_func ("/read-changes/truncated-between-reads", test_truncated_between_reads);
  g_test_add_func ("/read-changes/modified-between-reads", test_modified_between_reads);
  g_test_add_func ("/read-changes/grew", test_grew);
  g_test_add_func ("/read-changes/follow-truncated", test_follow_truncated);
  return g_test_run ();
}
