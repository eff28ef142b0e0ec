/* test-cancel.c: cancel or drop a load and a compare part-way; export failures
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Meant for the sanitizer and valgrind runs (build-aux/dev asan / valgrind):
 * every cancellation point must end cleanly, with nothing leaked and nothing
 * touched after it is freed. Cancel points are drawn from a seeded GRand, so
 * a failure can be replayed.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <gio/gio.h>

#include "tsl-compare.h"
#include "tsl-document-loader.h"
#include "tsl-export.h"
#include "tsl-read-stream.h"
#include "tsl-snapshot.h"

#define N_EVENTS 60000

static char *trace_path;
static GBytes *trace_bytes;

/* A few MB of Chrome JSON: several feeds, so there is room to cancel. */
static void
make_trace (void)
{
  g_autoptr(GError) error = NULL;
  GString *s = g_string_new ("[");
  int fd;

  for (guint i = 0; i < N_EVENTS; i++)
    g_string_append_printf (s, "%s{\"ph\":\"X\",\"ts\":%u,\"dur\":3,\"name\":\"f%u\",\"pid\":1,\"tid\":%u,"
                            "\"args\":{\"n\":[1,2,{\"x\":\"padding padding\"}]}}",
                            i > 0 ? ",\n" : "", i * 5, i % 37, i % 3);
  g_string_append (s, "]\n");
  trace_bytes = g_string_free_to_bytes (s);

  fd = g_file_open_tmp ("tsl-cancel-XXXXXX.json", &trace_path, &error);
  g_assert_no_error (error);
  close (fd);
  g_file_set_contents (trace_path, g_bytes_get_data (trace_bytes, NULL),
                       g_bytes_get_size (trace_bytes), &error);
  g_assert_no_error (error);
}

typedef struct {
  GCancellable *cancellable;
  guint         cancel_after;
  guint         calls;
} CancelAt;

static void
progress_cancel (guint64  bytes_read,
                 guint64  bytes_total,
                 guint64  events,
                 gpointer user_data)
{
  CancelAt *at = user_data;

  if (++at->calls == at->cancel_after)
    g_cancellable_cancel (at->cancellable);
}

static void
test_read_stream (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (8);
  guint n_chunks = g_bytes_get_size (trace_bytes) / TSL_READ_FEED_BYTES + 1;

  for (guint round = 0; round < 20; round++)
    {
      g_autoptr(TslTrace) trace = tsl_trace_new (round % 2 ? TSL_SAMPLER_TIME : TSL_SAMPLER_COUNT, 50, round);
      g_autoptr(GInputStream) stream = g_memory_input_stream_new_from_bytes (trace_bytes);
      g_autoptr(GCancellable) cancellable = g_cancellable_new ();
      g_autoptr(GError) error = NULL;
      CancelAt at = { cancellable, g_rand_int_range (rand, 0, n_chunks + 2), 0 };
      gboolean ok;

      if (at.cancel_after == 0)
        g_cancellable_cancel (cancellable);
      ok = tsl_read_stream (trace, stream, "cancel.json", g_bytes_get_size (trace_bytes),
                            progress_cancel, &at, cancellable, &error);
      if (at.cancel_after <= n_chunks - 1)
        {
          g_assert_false (ok);
          g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
        }
      else
        g_assert_true (ok || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED));

      /* What was read before the cancel is still a consistent trace. */
      tsl_snapshot_unref (tsl_snapshot_new (trace));
      g_assert_finalize_object (g_steal_pointer (&trace));
    }
}

typedef struct {
  gboolean  done;
  gboolean  ok;
  GError   *error;
} Result;

static void
load_done (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  Result *r = user_data;

  r->ok = tsl_document_loader_load_finish (TSL_DOCUMENT_LOADER (object), result, &r->error);
  r->done = TRUE;
}

static gboolean
cancel_cb (gpointer data)
{
  g_cancellable_cancel (data);
  return G_SOURCE_REMOVE;
}

typedef struct {
  GThread *main_thread;
  guint    n_events;
  guint    n_fraction;
  guint    n_message;
  gboolean off_thread;
} Notified;

static void
notified_cb (GObject    *object,
             GParamSpec *pspec,
             gpointer    user_data)
{
  Notified *n = user_data;

  n->off_thread |= g_thread_self () != n->main_thread;
  if (g_str_equal (pspec->name, "events"))
    n->n_events++;
  else if (g_str_equal (pspec->name, "fraction"))
    n->n_fraction++;
  else if (g_str_equal (pspec->name, "message"))
    n->n_message++;
}

/* What the window binds to: fraction, events and message, notified on the
 * caller's main context (never on the worker), together, and throttled. */
static void
test_loader_notify (void)
{
  g_autoptr(GFile) file = g_file_new_for_path (trace_path);
  g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_TIME, 50, 1);
  g_autoptr(TslDocumentLoader) loader = tsl_document_loader_new (file, trace);
  g_autofree char *message = NULL;
  g_autofree char *expected = NULL;
  Notified n = { g_thread_self (), 0, 0, 0, FALSE };
  Result r = { FALSE, FALSE, NULL };
  guint64 events = 0;
  double fraction = 0;
  guint n_feeds = g_bytes_get_size (trace_bytes) / TSL_READ_FEED_BYTES + 1;

  g_assert_cmpuint (n_feeds, >=, 3);
  g_signal_connect (loader, "notify", G_CALLBACK (notified_cb), &n);
  tsl_document_loader_load_async (loader, NULL, load_done, &r);
  while (!r.done)
    g_main_context_iteration (NULL, TRUE);
  g_assert_no_error (r.error);
  g_assert_true (r.ok);

  g_assert_false (n.off_thread);
  /* At least the final batch from load_finish(); never one per feed and more. */
  g_assert_cmpuint (n.n_events, >=, 1);
  g_assert_cmpuint (n.n_events, <=, n_feeds + 1);
  g_assert_cmpuint (n.n_fraction, ==, n.n_events);
  g_assert_cmpuint (n.n_message, ==, n.n_events);

  g_object_get (loader, "events", &events, "fraction", &fraction, "message", &message, NULL);
  g_assert_cmpuint (events, ==, N_EVENTS);
  g_assert_cmpfloat (fraction, ==, 1.0);
  expected = g_strdup_printf ("%u", N_EVENTS);
  g_assert_nonnull (strstr (message, expected));

  g_signal_handlers_disconnect_by_data (loader, &n);
}

static void
test_loader (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (9);
  g_autoptr(GFile) file = g_file_new_for_path (trace_path);

  for (guint round = 0; round < 24; round++)
    {
      TslTrace *trace = tsl_trace_new (TSL_SAMPLER_TIME, 50, round);
      TslDocumentLoader *loader = tsl_document_loader_new (file, trace);
      g_autoptr(GCancellable) cancellable = g_cancellable_new ();
      gpointer weak_loader = loader;
      gpointer weak_trace = trace;
      Result r = { FALSE, FALSE, NULL };
      guint delay_us = g_rand_int_range (rand, 0, 60000);
      guint source = 0;

      g_object_add_weak_pointer (G_OBJECT (loader), &weak_loader);
      g_object_add_weak_pointer (G_OBJECT (trace), &weak_trace);
      g_object_unref (trace);

      if (round % 6 == 0)
        g_cancellable_cancel (cancellable);
      else
        source = g_timeout_add_full (G_PRIORITY_HIGH, delay_us / 1000, cancel_cb,
                                     g_object_ref (cancellable), g_object_unref);
      tsl_document_loader_load_async (loader, cancellable, load_done, &r);

      /* Every third round the owner goes away mid-load, as a closed window does. */
      if (round % 3 == 1)
        g_clear_object (&loader);

      while (!r.done)
        g_main_context_iteration (NULL, TRUE);
      g_assert_true (r.ok || g_error_matches (r.error, G_IO_ERROR, G_IO_ERROR_CANCELLED));
      if (round % 6 == 0)
        g_assert_error (r.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
      g_clear_error (&r.error);
      if (source != 0 && !g_cancellable_is_cancelled (cancellable))
        g_source_remove (source);

      g_clear_object (&loader);
      /* Pending progress notifications hold the loader; let them run. */
      for (guint i = 0; (weak_loader != NULL || weak_trace != NULL) && i < 500; i++)
        {
          while (g_main_context_iteration (NULL, FALSE))
            ;
          g_usleep (1000);
        }
      g_assert_null (weak_loader);
      g_assert_null (weak_trace);
    }
}

static void
compare_done (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  Result *r = user_data;
  g_autoptr(GPtrArray) rows = NULL;
  g_auto(GStrv) warnings = NULL;

  rows = tsl_compare_run_finish (result, &warnings, &r->error);
  r->ok = rows != NULL;
  r->done = TRUE;
}

static void
test_compare (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (10);

  for (guint round = 0; round < 12; round++)
    {
      g_autoptr(TslCompareRequest) request = tsl_compare_request_new ();
      g_autoptr(GCancellable) cancellable = g_cancellable_new ();
      Result r = { FALSE, FALSE, NULL };
      guint delay_ms = g_rand_int_range (rand, 0, 400);

      request->path = g_strdup (trace_path);
      request->rounds = 2000;
      request->k = 100;
      request->n_threads = round % 2 ? 2 : 1;
      g_assert_true (tsl_range_spec_parse ("0%..50%", &request->a, NULL));
      g_assert_true (tsl_range_spec_parse ("50%..100%", &request->b, NULL));

      if (round % 4 == 0)
        g_cancellable_cancel (cancellable);
      else
        g_timeout_add_full (G_PRIORITY_HIGH, delay_ms, cancel_cb,
                            g_object_ref (cancellable), g_object_unref);
      tsl_compare_run_async (request, cancellable, compare_done, &r);
      /* The request is copied: freeing it now must be safe. */
      g_clear_pointer (&request, tsl_compare_request_free);

      while (!r.done)
        g_main_context_iteration (NULL, TRUE);
      g_assert_true (r.ok || g_error_matches (r.error, G_IO_ERROR, G_IO_ERROR_CANCELLED));
      if (round % 4 == 0)
        g_assert_false (r.ok);
      g_clear_error (&r.error);
      /* Let the remaining cancel timeouts run. */
      g_cancellable_cancel (cancellable);
      while (g_main_context_iteration (NULL, FALSE))
        ;
    }
}

static TslSnapshot *
small_snapshot (void)
{
  g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_TIME, 50, 1);
  g_autoptr(GInputStream) stream = g_memory_input_stream_new_from_bytes (trace_bytes);
  g_autoptr(GError) error = NULL;

  tsl_read_stream (trace, stream, "t.json", 0, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  return tsl_snapshot_new (trace);
}

static void
test_export_unwritable (void)
{
  g_autoptr(TslSnapshot) snapshot = small_snapshot ();
  g_autoptr(GFile) file = g_file_new_for_path ("/nonexistent-dir/tsl/timeline.png");
  g_autoptr(GError) error = NULL;
  TslRenderOptions options;

  tsl_render_options_init (&options, snapshot, 400, 300);
  g_assert_false (tsl_export_timeline (snapshot, &options, TSL_EXPORT_PNG, file, NULL, &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "/nonexistent-dir/tsl/timeline.png"));
}

static gboolean
run (const char *command)
{
  int status = -1;

  return g_spawn_command_line_sync (command, NULL, NULL, &status, NULL) &&
         g_spawn_check_wait_status (status, NULL);
}

static void
test_export_full_disk (void)
{
  g_autoptr(TslSnapshot) snapshot = small_snapshot ();
  g_autofree char *dir = NULL;
  g_autofree char *mount = NULL;
  g_autofree char *umount = NULL;
  g_autofree char *existing = NULL;
  g_autofree char *filler = NULL;
  const char *old = "the report from last time\n";
  const TslExportFormat formats[] = { TSL_EXPORT_PNG, TSL_EXPORT_SVG, TSL_EXPORT_PDF };
  TslRenderOptions options;
  g_autoptr(GDir) listing = NULL;
  const char *name;
  FILE *f;

  if (geteuid () != 0)
    {
      g_test_skip ("a full disk needs root to mount a 64 KiB tmpfs (CI runs as root, so it runs there)");
      return;
    }

  dir = g_dir_make_tmp ("tsl-full-XXXXXX", NULL);
  mount = g_strdup_printf ("mount -t tmpfs -o size=64k tmpfs %s", dir);
  umount = g_strdup_printf ("umount %s", dir);
  g_assert_true (run (mount));

  existing = g_build_filename (dir, "timeline.png", NULL);
  g_assert_true (g_file_set_contents (existing, old, -1, NULL));
  /* Fill what is left. */
  filler = g_build_filename (dir, "filler", NULL);
  f = fopen (filler, "wb");
  g_assert_nonnull (f);
  for (char block[4096] = { 0 }; fwrite (block, 1, sizeof block, f) == sizeof block && fflush (f) == 0;)
    ;
  fclose (f);

  tsl_render_options_init (&options, snapshot, 2000, 1500);
  for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
    {
      g_autoptr(GFile) file = g_file_new_for_path (existing);
      g_autoptr(GError) error = NULL;
      g_autofree char *contents = NULL;

      g_assert_false (tsl_export_timeline (snapshot, &options, formats[i], file, NULL, &error));
      g_assert_nonnull (error);
      g_test_message ("%s", error->message);
      g_assert_nonnull (strstr (error->message, existing));
      g_assert_true (g_file_get_contents (existing, &contents, NULL, NULL));
      g_assert_cmpstr (contents, ==, old);
    }

  /* No temporary left beside it. */
  listing = g_dir_open (dir, 0, NULL);
  while ((name = g_dir_read_name (listing)) != NULL)
    g_assert_true (g_str_equal (name, "timeline.png") || g_str_equal (name, "filler"));
  g_clear_pointer (&listing, g_dir_close);

  g_assert_true (run (umount));
  g_rmdir (dir);
}

/* The window passes a follow callback to every load (follow may be turned on
 * mid-read): a load that is not following still reopens an unchanged file
 * from the state cache, and saves it there. */
static void
test_loader_state_cache (void)
{
  g_autoptr(GFile) file = g_file_new_for_path (trace_path);
  g_autofree char *old_max = g_strdup (g_getenv ("TSL_CACHE_MAX_BYTES"));
  guint64 events[2];

  g_setenv ("TSL_CACHE_MAX_BYTES", "1000000000", TRUE);
  for (guint i = 0; i < 2; i++)
    {
      g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_COUNT, 50, 1);
      g_autoptr(TslDocumentLoader) loader = tsl_document_loader_new (file, trace);
      Result r = { FALSE, FALSE, NULL };

      if (i == 1)
        g_test_expect_message ("tsl-state-cache", G_LOG_LEVEL_DEBUG, "*bytes of state from the cache");
      tsl_document_loader_load_async (loader, NULL, load_done, &r);
      while (!r.done)
        g_main_context_iteration (NULL, TRUE);
      g_assert_no_error (r.error);
      g_assert_true (r.ok);
      g_assert_false (tsl_document_loader_get_follow (loader));
      events[i] = tsl_trace_get_events (trace);
    }
  g_test_assert_expected_messages ();
  g_assert_cmpuint (events[0], ==, N_EVENTS);
  g_assert_cmpuint (events[1], ==, events[0]);

  if (old_max != NULL)
    g_setenv ("TSL_CACHE_MAX_BYTES", old_max, TRUE);
  else
    g_unsetenv ("TSL_CACHE_MAX_BYTES");
}

int
main (int    argc,
      char **argv)
{
  int status;

  g_test_init (&argc, &argv, NULL);
  make_trace ();

  g_test_add_func ("/cancel/read-stream", test_read_stream);
  g_test_add_func ("/cancel/document-loader", test_loader);
  g_test_add_func ("/document-loader/notify", test_loader_notify);
  g_test_add_func ("/document-loader/state-cache", test_loader_state_cache);
  g_test_add_func ("/cancel/compare", test_compare);
  g_test_add_func ("/export/unwritable", test_export_unwritable);
  g_test_add_func ("/export/full-disk", test_export_full_disk);

  status = g_test_run ();

  g_unlink (trace_path);
  g_free (trace_path);
  g_bytes_unref (trace_bytes);
  return status;
}
