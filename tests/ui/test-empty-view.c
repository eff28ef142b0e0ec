/* test-empty-view.c: a trace with events but no track
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A Chrome trace of process names and object snapshots only (like
 * catapult's chromeos_system_trace.json) reads, but nothing in it has a
 * place on the timeline. The view says "Nothing to draw" once loaded (not
 * while loading), and a real drag on it (xdotool) selects no range: a range
 * there would be an empty compare.
 *
 * Such a file has nothing to compare either: the compare side and the
 * ranges button say so instead of asking for two ranges, and the report
 * and Select B rest. (A
 * file of no event at all, `{"traceEvents":[]}` or a CSV header alone, is
 * refused as unreadable and the window goes back to its start page.)
 */
#include "config.h"

#include <glib/gstdio.h>

#include "tsl-application.h"
#include "tsl-snapshot.h"
#include "tsl-window-private.h"
#include "test-ui-input.h"
#include "test-ui-util.h"

static TslApplication *app;

static const char metadata_only[] =
  "{\"traceEvents\":["
  "{\"ph\":\"M\",\"pid\":1,\"tid\":2,\"ts\":0,\"name\":\"process_name\",\"args\":{\"name\":\"GPU Process\"}},"
  "{\"ph\":\"M\",\"pid\":1,\"tid\":2,\"ts\":0,\"name\":\"thread_name\",\"args\":{\"name\":\"IO\"}},"
  "{\"ph\":\"O\",\"pid\":1,\"tid\":2,\"ts\":5443650636079,\"id\":\"0x1\",\"name\":\"cc::Picture\",\"args\":{\"snapshot\":{}}},"
  "{\"ph\":\"O\",\"pid\":1,\"tid\":2,\"ts\":5443672642443,\"id\":\"0x2\",\"name\":\"cc::Picture\",\"args\":{\"snapshot\":{}}}"
  "]}";

static void
test_metadata_only (void)
{
  TslWindow *window = tsl_window_new (app);
  g_autofree char *dir = g_dir_make_tmp ("tsl-empty-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "metadata.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  GtkWidget *timeline;
  TslRenderOptions o;
  double w, h;

  g_assert_true (g_file_set_contents (path, metadata_only, -1, &error));
  g_assert_no_error (error);

  gtk_window_set_default_size (GTK_WINDOW (window), 1200, 800);
  gtk_window_present (GTK_WINDOW (window));
  iterate_until (is_mapped, window, 10000);

  tsl_window_open (window, file);
  tsl_timeline_view_get_render_options (window->timeline, &o);
  g_assert_cmpstr (o.empty_heading, !=, NULL);
  iterate_until (is_done_loading, window, 60000);
  settle (200);

  timeline = GTK_WIDGET (window->timeline);
  g_assert_cmpuint (tsl_snapshot_get_n_tracks (tsl_timeline_view_get_snapshot (window->timeline)), ==, 0);
  g_assert_cmpuint (tsl_snapshot_get_events (tsl_timeline_view_get_snapshot (window->timeline)), ==, 4);
  /* Loaded: the renderer's own "Nothing to draw", not "Reading…". */
  tsl_timeline_view_get_render_options (window->timeline, &o);
  g_assert_null (o.empty_heading);

  /* A drag across the middle of the view, as a user would select A. */
  w = gtk_widget_get_width (timeline);
  h = gtk_widget_get_height (timeline);
  pointer_to (window, timeline, w * 0.3, h * 0.6);
  xdo ("mousedown 1");
  settle (50);
  for (int i = 1; i <= 6; i++)
    pointer_to (window, timeline, w * (0.3 + 0.05 * i), h * 0.6);
  xdo ("mouseup 1");
  settle (300);
  g_assert_false (tsl_timeline_view_get_range (window->timeline, TSL_RANGE_A, NULL, NULL));
  g_assert_false (tsl_timeline_view_get_range (window->timeline, TSL_RANGE_B, NULL, NULL));

  gtk_window_destroy (GTK_WINDOW (window));
  g_assert_cmpint (g_unlink (path), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

static void
check_nothing_to_compare (const char *name,
                          const char *contents)
{
  TslWindow *window = tsl_window_new (app);
  g_autofree char *dir = g_dir_make_tmp ("tsl-empty-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;

  GtkWidget *probe = gtk_button_new ();

  g_assert_true (g_file_set_contents (path, contents, -1, &error));
  g_assert_no_error (error);
  gtk_actionable_set_action_name (GTK_ACTIONABLE (probe), "win.export-report");
  gtk_widget_set_parent (probe, GTK_WIDGET (window->status_label));

  gtk_window_set_default_size (GTK_WINDOW (window), 1200, 800);
  gtk_window_present (GTK_WINDOW (window));
  iterate_until (is_mapped, window, 10000);
  /* Before any file: the usual invitation. */
  g_assert_cmpstr (tsl_compare_panel_get_page (window->compare_panel), ==, "no-ranges");

  tsl_window_open (window, file);
  iterate_until (is_done_loading, window, 60000);
  settle (400);

  g_assert_cmpuint (tsl_snapshot_get_n_tracks (tsl_timeline_view_get_snapshot (window->timeline)), ==, 0);
  g_assert_cmpstr (tsl_compare_panel_get_page (window->compare_panel), ==, "no-tracks");
  /* Nothing to drag over: the ranges button says why, not "drag to select A". */
  {
    g_autofree char *want = g_strdup_printf ("No tracks in %s", name);

    g_assert_cmpstr (gtk_menu_button_get_label (window->ranges_button), ==, want);
    /* Nor was every event kept: nothing was. */
    g_assert_nonnull (strstr (gtk_label_get_label (window->status_label), " · 0 tracks · nothing to draw · "));
  }
  /* A button bound to the action, as the menu's item is, follows its enablement. */
  g_assert_false (gtk_widget_get_sensitive (probe));
  g_assert_false (gtk_widget_get_sensitive (GTK_WIDGET (window->select_b_button)));
  /* Ctrl+Z brings back no range, and the page stays. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.restore-ranges", NULL);
  settle (400);
  g_assert_cmpstr (tsl_compare_panel_get_page (window->compare_panel), ==, "no-tracks");

  gtk_widget_unparent (probe);
  gtk_window_destroy (GTK_WINDOW (window));
  g_assert_cmpint (g_unlink (path), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

static void
test_metadata_nothing_to_compare (void)
{
  check_nothing_to_compare ("metadata.json", metadata_only);
}

/* One thread name, in the array form. */
static void
test_thread_name_only (void)
{
  check_nothing_to_compare ("thread-name.json",
                            "[{\"ph\":\"M\",\"pid\":1,\"tid\":2,\"ts\":0,\"name\":\"thread_name\","
                            "\"args\":{\"name\":\"IO\"}}]");
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

  g_test_add_func ("/empty-view/metadata-only", test_metadata_only);
  g_test_add_func ("/empty-view/nothing-to-compare", test_metadata_nothing_to_compare);
  g_test_add_func ("/empty-view/thread-name-only", test_thread_name_only);

  ret = g_test_run ();
  g_clear_object (&app);
  return ret;
}
