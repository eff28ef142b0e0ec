/* test-status.c: the status bar counts a profile's samples
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A sampled profile's events are its samples, whatever the file holds them
 * in: a V8 .cpuprofile (one JSON object), a Chrome trace's Profile and
 * ProfileChunk events (hundreds of samples each), a Firefox profile, pprof,
 * perf script. The status bar says "N samples" for a file of samples only,
 * and a file holding profiles beside other events (a Chrome trace, a
 * Firefox profile's markers and counters) gives both; the numbers are those
 * of `timeslice info --json` (its thread tracks' "events"). Counts and
 * ratios take their plural forms ("1 sample", "~1.3 profile samples per
 * sample", not "~1 profile samples").
 */
#include "config.h"

#include <glib/gstdio.h>

#include "tsl-application.h"
#include "tsl-snapshot.h"
#include "tsl-window-private.h"
#include "test-ui-input.h"
#include "test-ui-util.h"

static TslApplication *app;

/* The status bar of `path` once loaded. */
static char *
status_of_path (const char *path)
{
  g_autofree char *name = g_path_get_basename (path);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  TslWindow *window = tsl_window_new (app);
  char *status;

  gtk_window_set_default_size (GTK_WINDOW (window), 1200, 800);
  gtk_window_present (GTK_WINDOW (window));
  iterate_until (is_mapped, window, 10000);
  tsl_window_open (window, file);
  iterate_until (is_done_loading, window, 60000);
  settle (200);
  status = g_strdup (gtk_label_get_label (window->status_label));
  g_test_message ("%s: %s", name, status);
  gtk_window_destroy (GTK_WINDOW (window));
  return status;
}

/* The same of a file under tests/data. */
static char *
status_of (const char *dir,
           const char *name)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", dir, name, NULL);

  return status_of_path (path);
}

static char *
count (guint64     n,
       const char *what)
{
  return g_strdup_printf ("%'" G_GUINT64_FORMAT " %s", n, what);
}

/* " · N samples · " for a file of samples only; " · N events, M profile
 * samples · " (events 0: the first form). */
static void
check_counts (const char *dir,
              const char *name,
              guint64     events,
              guint64     samples)
{
  g_autofree char *status = status_of (dir, name);
  g_autofree char *n_samples = count (samples, events > 0 ? "profile samples" : "samples");
  g_autofree char *n_events = count (events, "events, ");
  g_autofree char *expected = g_strconcat (" · ", events > 0 ? n_events : "", n_samples, " · ", NULL);

  g_assert_nonnull (strstr (status, expected));
  if (events == 0)
    g_assert_null (strstr (status, "events"));
}

static void
test_cpuprofile (void)
{
  g_autofree char *status = status_of ("cpuprofile", "node-busy.cpuprofile");

  check_counts ("cpuprofile", "node-busy.cpuprofile", 0, 662);
  /* A few of the 662 samples share a drawn sample: not "~1 profile
   * samples per sample". */
  g_assert_nonnull (strstr (status, " · nearly every sample kept (K = 2000 per track) · "));
}

/* One sample of perf script, one collapsed stack: the singular. */
static void
check_singular (const char *name,
                const char *contents,
                const char *expected)
{
  g_autofree char *dir = g_dir_make_tmp ("tsl-status-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autofree char *status = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_true (g_file_set_contents (path, contents, -1, &error));
  g_assert_no_error (error);
  status = status_of_path (path);
  g_assert_nonnull (strstr (status, expected));
  g_assert_cmpint (g_unlink (path), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

static void
test_singular (void)
{
  check_singular ("one.perf",
                  "worker 100/101 [000] 10.000000:     1000 cycles: \n"
                  "\t    55d0c0de0001 compute+0x11 (/usr/bin/worker)\n"
                  "\t    55d0c0de0002 main (/usr/bin/worker)\n\n",
                  " · 1 sample · 1 track · ");
  check_singular ("one.folded", "main;work 1\n", " · 1 event · 1 track · ");
}

/* Beside its two threads' samples (2317 and 2115), a Firefox profile holds
 * markers and counters: events of the file that are not samples. */
static void
test_gecko (void)
{
  g_autofree char *status = status_of ("gecko", "firefox-page.json.gz");

  check_counts ("gecko", "firefox-page.json.gz", 12953, 2317 + 2115);
  /* Below 10 events per sample, a decimal. */
  g_assert_true (g_regex_match_simple (" · sampled, ~[2-9]\\.[0-9] events per sample \\(K = 2000 per track\\) · ",
                                       status, 0, 0));
}

static void
test_pprof (void)
{
  check_counts ("pprof", "go-before.pprof", 0, 173);
}

static void
test_perf (void)
{
  check_counts (".", "perf-callchain.txt", 0, 4);
}

/* 698 JSON events, two of whose tracks are V8 profiles of 6145 and 697 samples. */
static void
test_chrome_profile (void)
{
  check_counts ("chrome", "chromium-v8-profile.json", 698, 6145 + 697);
}

/* No profile: events, as before. */
static void
test_chrome_spans (void)
{
  g_autofree char *status = status_of ("chrome", "deep.json");

  g_assert_nonnull (strstr (status, " events · "));
  g_assert_null (strstr (status, "samples ·"));
}

int
main (int   argc,
      char *argv[])
{
  int ret;

  g_test_init (&argc, &argv, NULL);

  if (!ui_test_init ())
    return 77;

  app = ui_test_app_new ();

  g_test_add_func ("/status/cpuprofile", test_cpuprofile);
  g_test_add_func ("/status/singular", test_singular);
  g_test_add_func ("/status/gecko", test_gecko);
  g_test_add_func ("/status/pprof", test_pprof);
  g_test_add_func ("/status/perf", test_perf);
  g_test_add_func ("/status/chrome-profile", test_chrome_profile);
  g_test_add_func ("/status/chrome-spans", test_chrome_spans);

  ret = g_test_run ();
  g_clear_object (&app);
  return ret;
}
