/* test-window.c: the main window under a real display
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <glib/gstdio.h>

#include "tsl-application.h"
#include "tsl-snapshot.h"
#include "tsl-window-private.h"
#include "test-ui-util.h"

static TslApplication *app;

static gboolean
is_mapped (gpointer widget)
{
  return gtk_widget_get_mapped (widget);
}

static gboolean
is_done_loading (gpointer window)
{
  return !tsl_window_is_loading (window);
}

static GFile *
test_file (const char *name)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "..", "data", name, NULL);
  return g_file_new_for_path (path);
}

static TslWindow *
new_shown_window (void)
{
  TslWindow *window = tsl_window_new (app);

  gtk_window_present (GTK_WINDOW (window));
  iterate_until (is_mapped, window, 10000);
  return window;
}

static void
test_empty_state (void)
{
  TslWindow *window = new_shown_window ();

  g_assert_true (tsl_window_is_empty (window));
  g_assert_cmpstr (gtk_stack_get_visible_child_name (window->stack), ==, "empty");
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, "Timeslice");
  g_assert_true (gtk_widget_get_visible (gtk_stack_get_visible_child (window->stack)));

  g_assert_false (tsl_window_is_loading (window));
  g_assert_nonnull (gtk_application_window_get_help_overlay (GTK_APPLICATION_WINDOW (window)));

  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_accels (void)
{
  static const struct { const char *action; const char *accel; } expected[] = {
    { "win.open", "<Control>o" },
    { "app.quit", "<Control>q" },
    { "window.close", "<Control>w" },
    { "win.show-help-overlay", "<Control>question" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    {
      g_auto(GStrv) accels = gtk_application_get_accels_for_action (GTK_APPLICATION (app), expected[i].action);

      g_assert_nonnull (accels);
      g_assert_true (g_strv_contains ((const char * const *) accels, expected[i].accel));
    }
}

static void
test_open_example (void)
{
  TslWindow *window = new_shown_window ();
  g_autoptr(GFile) example = tsl_application_dup_example (app);
  g_autofree char *uri = NULL;
  const char *title;

  g_assert_nonnull (example);
  uri = g_file_get_uri (example);

  tsl_window_open (window, example);
  g_assert_false (tsl_window_is_empty (window));
  g_assert_cmpstr (gtk_stack_get_visible_child_name (window->stack), ==, "document");

  iterate_until (is_done_loading, window, 60000);

  title = gtk_window_get_title (GTK_WINDOW (window));
  g_assert_nonnull (strstr (title, "example-trace.json"));
  g_assert_cmpstr (adw_view_switcher_title_get_title (window->window_title), ==, "example-trace.json");
  /* The example has a main thread, four workers, a GC thread and two counters. */
  g_assert_nonnull (tsl_timeline_view_get_snapshot (window->timeline));
  g_assert_cmpuint (tsl_snapshot_get_n_tracks (tsl_timeline_view_get_snapshot (window->timeline)), >=, 8);
  g_assert_nonnull (strstr (gtk_label_get_label (window->status_label), "events"));
  g_assert_false (gtk_revealer_get_reveal_child (window->progress_revealer));
  g_assert_true (gtk_recent_manager_has_item (gtk_recent_manager_get_default (), uri));

  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_timeline_navigation (void)
{
  TslWindow *window = new_shown_window ();
  g_autoptr(GFile) example = tsl_application_dup_example (app);
  GtkWidget *timeline;
  gint64 span, start, end, a0, a1;

  tsl_window_open (window, example);
  iterate_until (is_done_loading, window, 60000);
  timeline = GTK_WIDGET (window->timeline);
  span = tsl_snapshot_get_span (tsl_timeline_view_get_snapshot (window->timeline));
  g_assert_cmpint (span, >, 0);

  tsl_timeline_view_get_visible_time (window->timeline, &start, &end);
  g_assert_cmpint (start, ==, 0);
  g_assert_cmpint (end, >=, span);

  /* Zoom in through the same action the + key triggers, then pan, then show all. */
  g_assert_true (gtk_widget_activate_action (timeline, "timeline.zoom", "d", 2.0));
  tsl_timeline_view_get_visible_time (window->timeline, &start, &end);
  g_assert_cmpint (end - start, <=, span / 2 + 2);
  g_assert_cmpint (start, >, 0);

  g_assert_true (gtk_widget_activate_action (timeline, "timeline.pan", "d", -10.0));
  tsl_timeline_view_get_visible_time (window->timeline, &start, &end);
  g_assert_cmpint (start, ==, 0);

  g_assert_true (gtk_widget_activate_action (timeline, "timeline.zoom-all", NULL));
  tsl_timeline_view_get_visible_time (window->timeline, &start, &end);
  g_assert_cmpint (end - start, >=, span);

  /* Collapsing the example's one process leaves only its header. */
  {
    GtkAdjustment *adj = tsl_timeline_view_get_vadjustment (window->timeline);
    double expanded = gtk_adjustment_get_upper (adj);

    tsl_timeline_view_toggle_group (window->timeline, 4242);
    g_assert_true (tsl_timeline_view_is_group_collapsed (window->timeline, 4242));
    g_assert_cmpfloat (gtk_adjustment_get_upper (adj), <, expanded);
    tsl_timeline_view_toggle_group (window->timeline, 4242);
    g_assert_false (tsl_timeline_view_is_group_collapsed (window->timeline, 4242));
  }

  /* Ranges: set A and B, zoom to them, clear with the Escape action. */
  tsl_timeline_view_set_range (window->timeline, TSL_RANGE_A, span / 10, span / 5);
  tsl_timeline_view_set_range (window->timeline, TSL_RANGE_B, span / 2, span * 3 / 5);
  g_assert_true (tsl_timeline_view_get_range (window->timeline, TSL_RANGE_A, &a0, &a1));
  g_assert_cmpint (a0, ==, span / 10);
  g_assert_cmpint (a1, ==, span / 5);
  g_assert_true (gtk_widget_activate_action (timeline, "timeline.zoom-selection", NULL));
  tsl_timeline_view_get_visible_time (window->timeline, &start, &end);
  g_assert_cmpint (start, <=, span / 10);
  g_assert_cmpint (end, >=, span * 3 / 5);
  g_assert_cmpint (end - start, <, span);

  /* The status bar names both ranges; its popover edits them exactly. */
  g_assert_nonnull (strstr (gtk_menu_button_get_label (window->ranges_button), "A: "));
  g_assert_nonnull (strstr (gtk_menu_button_get_label (window->ranges_button), "B: "));
  gtk_editable_set_text (GTK_EDITABLE (window->a_start_entry), "100ms");
  gtk_editable_set_text (GTK_EDITABLE (window->a_end_entry), "0.25 s");
  g_signal_emit_by_name (window->a_end_entry, "activate");
  g_assert_true (tsl_timeline_view_get_range (window->timeline, TSL_RANGE_A, &a0, &a1));
  g_assert_cmpint (a0, ==, 100000000);
  g_assert_cmpint (a1, ==, 250000000);
  gtk_editable_set_text (GTK_EDITABLE (window->b_start_entry), "nonsense");
  g_signal_emit_by_name (window->b_start_entry, "activate");
  g_assert_true (gtk_widget_has_css_class (GTK_WIDGET (window->b_start_entry), "error"));
  g_assert_true (tsl_timeline_view_get_range (window->timeline, TSL_RANGE_B, &a0, &a1));
  g_assert_cmpint (a0, ==, span / 2);

  g_assert_true (gtk_widget_activate_action (timeline, "timeline.clear-ranges", NULL));
  g_assert_false (tsl_timeline_view_get_range (window->timeline, TSL_RANGE_A, NULL, NULL));
  g_assert_false (tsl_timeline_view_get_range (window->timeline, TSL_RANGE_B, NULL, NULL));

  gtk_window_destroy (GTK_WINDOW (window));
}

static gboolean
file_has_content (gpointer file)
{
  g_autoptr(GFileInfo) info = g_file_query_info (file, G_FILE_ATTRIBUTE_STANDARD_SIZE,
                                                 G_FILE_QUERY_INFO_NONE, NULL, NULL);
  return info != NULL && g_file_info_get_size (info) > 0;
}

static void
test_export (void)
{
  TslWindow *window = new_shown_window ();
  g_autoptr(GFile) example = tsl_application_dup_example (app);
  g_autofree char *dir = g_dir_make_tmp ("timeslice-ui-XXXXXX", NULL);
  const char *names[] = { "t.png", "t.svg", "t.pdf", "t.csv" };
  const char *magic[] = { "\x89PNG", "<?xml", "%PDF-", "track,index" };

  tsl_window_open (window, example);
  iterate_until (is_done_loading, window, 60000);

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *path = g_build_filename (dir, names[i], NULL);
      g_autoptr(GFile) file = g_file_new_for_path (path);
      g_autofree char *contents = NULL;
      gsize len = 0;

      _tsl_window_export_to (window, file, FALSE);
      iterate_until (file_has_content, file, 30000);
      g_assert_true (g_file_get_contents (path, &contents, &len, NULL));
      if (len <= 100) g_printerr ("%s: %zu bytes: %.*s\n", names[i], len, (int) len, contents);
      g_assert_cmpuint (len, >, 100);
      g_assert_true (g_str_has_prefix (contents, magic[i]));
      g_unlink (path);
    }

  g_rmdir (dir);
  gtk_window_destroy (GTK_WINDOW (window));
}

typedef struct {
  TslWindow *window;
  guint64    events;
} EventsAtLeast;

static gboolean
has_events (gpointer data)
{
  EventsAtLeast *e = data;

  return e->window->loader != NULL &&
         tsl_document_loader_get_events (e->window->loader) >= e->events;
}

static gboolean
shows_events (gpointer data)
{
  EventsAtLeast *e = data;
  TslSnapshot *snapshot = tsl_timeline_view_get_snapshot (e->window->timeline);

  return snapshot != NULL && tsl_snapshot_get_events (snapshot) >= e->events;
}

static void
test_follow (void)
{
  TslWindow *window = new_shown_window ();
  g_autofree char *dir = g_dir_make_tmp ("timeslice-follow-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "growing.csv", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GString) rows = g_string_new ("time,cpu\n");
  EventsAtLeast wait = { window, 100 };
  FILE *fp;

  for (guint i = 0; i < 100; i++)
    g_string_append_printf (rows, "%u,%u\n", i, i % 7);
  g_assert_true (g_file_set_contents (path, rows->str, -1, NULL));

  tsl_window_set_follow (window, TRUE);
  tsl_window_open (window, file);
  iterate_until (has_events, &wait, 30000);

  /* Still reading at the end of the file: it may grow. */
  g_assert_true (tsl_window_is_loading (window));

  fp = fopen (path, "a");
  g_assert_nonnull (fp);
  for (guint i = 100; i < 250; i++)
    fprintf (fp, "%u,%u\n", i, i % 7);
  fclose (fp);

  wait.events = 250;
  iterate_until (has_events, &wait, 30000);
  g_assert_true (tsl_window_is_loading (window));

  /* No timer: the loader's throttled notifications bring the new rows to the
   * timeline, and its message is bound to the progress label. */
  iterate_until (shows_events, &wait, 30000);
  g_assert_nonnull (window->progress_binding);
  {
    g_autofree char *message = tsl_document_loader_dup_message (window->loader);

    g_assert_cmpstr (gtk_label_get_label (window->progress_label), ==, message);
  }

  /* Switching follow off finishes the load at the current end. */
  tsl_window_set_follow (window, FALSE);
  iterate_until (is_done_loading, window, 30000);
  g_assert_cmpuint (tsl_trace_get_events (tsl_document_loader_get_trace (window->loader)), ==, 250);
  g_assert_null (window->progress_binding);

  gtk_window_destroy (GTK_WINDOW (window));
  g_unlink (path);
  g_rmdir (dir);
}

static gboolean
compare_done (gpointer data)
{
  TslWindow *window = data;

  return !tsl_compare_panel_is_busy (window->compare_panel) &&
         g_list_model_get_n_items (tsl_compare_panel_get_model (window->compare_panel)) > 0;
}

/* The Statistic drop-down: the one with "Default" and the TslStat values. */
static GtkDropDown *
find_stat_dropdown (GtkWidget *widget)
{
  if (GTK_IS_DROP_DOWN (widget) &&
      g_list_model_get_n_items (gtk_drop_down_get_model (GTK_DROP_DOWN (widget))) == 1 + TSL_N_STATS)
    return GTK_DROP_DOWN (widget);
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child; child = gtk_widget_get_next_sibling (child))
    {
      GtkDropDown *found = find_stat_dropdown (child);

      if (found != NULL)
        return found;
    }
  return NULL;
}

typedef struct {
  TslWindow *window;
  TslStat    stat;
} StatWait;

static gboolean
rows_use_stat (gpointer data)
{
  StatWait *wait = data;
  GListModel *model = tsl_compare_panel_get_model (wait->window->compare_panel);
  guint n = g_list_model_get_n_items (model);

  guint n_stat = 0;

  if (tsl_compare_panel_is_busy (wait->window->compare_panel) || n == 0)
    return FALSE;
  /* Metrics take the chosen statistic (their default is the sum); threads
   * keep theirs (share) when it does not apply. */
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(TslCompareItem) item = g_list_model_get_item (model, i);
      TslStat stat = tsl_compare_item_get_row (item)->stat_id;

      if (stat == TSL_STAT_SUM)
        return FALSE;
      n_stat += stat == wait->stat;
    }
  return n_stat > 0;
}

static gboolean
close_enough (double x,
              double y)
{
  return (isnan (x) && isnan (y)) || x == y || fabs (x - y) <= 1e-12 * MAX (fabs (x), fabs (y));
}

static double
cell_number (const char *text)
{
  return text[0] == '\0' ? NAN : g_ascii_strtod (text, NULL);
}

/* The window's table and `timeslice compare` on the same ranges give the
 * same values, counts and (for the block tests, which do not resample)
 * p-values. */
static void
assert_same_as_cli (GListModel *model,
                    GFile      *file,
                    gint64      a0,
                    gint64      a1,
                    gint64      b0,
                    gint64      b1)
{
  g_autofree char *path = g_file_get_path (file);
  g_autofree char *a = g_strdup_printf ("%" G_GINT64_FORMAT "ns..%" G_GINT64_FORMAT "ns", a0, a1);
  g_autofree char *b = g_strdup_printf ("%" G_GINT64_FORMAT "ns..%" G_GINT64_FORMAT "ns", b0, b1);
  const char *argv[] = { g_getenv ("TSL_TIMESLICE"), "compare", "--a", a, "--b", b, path, NULL };
  g_autofree char *out = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) lines = NULL;
  guint checked = 0;

  g_assert_nonnull (argv[0]);
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL,
                               &out, NULL, NULL, &error));
  g_assert_no_error (error);
  lines = g_strsplit (out, "\n", -1);
  for (guint i = 1; lines[i] != NULL && lines[i][0] != '\0'; i++)
    {
      /* series may hold commas only quoted; the example's names do not. */
      g_auto(GStrv) cells = g_strsplit (lines[i], ",", -1);
      gboolean found = FALSE;

      g_assert_cmpuint (g_strv_length (cells), ==, 14);
      for (guint j = 0; j < g_list_model_get_n_items (model) && !found; j++)
        {
          g_autoptr(TslCompareItem) item = g_list_model_get_item (model, j);
          const TslCompareRow *row = tsl_compare_item_get_row (item);

          if (!g_str_equal (row->series, cells[0]) || !g_str_equal (row->stat, cells[1]))
            continue;
          found = TRUE;
          g_assert_true (close_enough (row->a_value, cell_number (cells[2])));
          g_assert_true (close_enough (row->b_value, cell_number (cells[3])));
          g_assert_cmpuint (row->n_a, ==, g_ascii_strtoull (cells[10], NULL, 10));
          g_assert_cmpuint (row->n_b, ==, g_ascii_strtoull (cells[11], NULL, 10));
          if (row->test == TSL_COMPARE_TEST_BLOCKS_T)
            g_assert_true (close_enough (row->p_value, cell_number (cells[7])));
        }
      g_assert_true (found);
      checked++;
    }
  g_assert_cmpuint (checked, ==, g_list_model_get_n_items (model));
}

static void
test_compare_panel (void)
{
  TslWindow *window = new_shown_window ();
  g_autoptr(GFile) example = tsl_application_dup_example (app);
  GListModel *model;
  TslCompareItem *first;
  gint64 span;
  guint n, n_memory = 0;

  tsl_window_open (window, example);
  iterate_until (is_done_loading, window, 60000);
  span = tsl_snapshot_get_span (tsl_timeline_view_get_snapshot (window->timeline));

  /* Ranges set through the timeline fill the table. */
  tsl_timeline_view_set_range (window->timeline, TSL_RANGE_A, span * 17 / 100, span * 35 / 100);
  tsl_timeline_view_set_range (window->timeline, TSL_RANGE_B, span * 55 / 100, span * 74 / 100);
  iterate_until (compare_done, window, 120000);

  model = tsl_compare_panel_get_model (window->compare_panel);
  n = g_list_model_get_n_items (model);
  g_assert_cmpuint (n, >=, 10);

  assert_same_as_cli (model, example, span * 17 / 100, span * 35 / 100, span * 55 / 100, span * 74 / 100);

  /* Default order: significant rows first, then by |change|. */
  first = g_list_model_get_item (model, 0);
  g_assert_true (tsl_compare_item_get_significant (first));
  for (guint i = 1; i < n; i++)
    {
      g_autoptr(TslCompareItem) prev = g_list_model_get_item (model, i - 1);
      g_autoptr(TslCompareItem) item = g_list_model_get_item (model, i);

      g_assert_true (tsl_compare_item_get_significant (prev) >= tsl_compare_item_get_significant (item));
      if (tsl_compare_item_get_significant (prev) == tsl_compare_item_get_significant (item))
        g_assert_cmpfloat (tsl_compare_item_get_magnitude (prev), >=, tsl_compare_item_get_magnitude (item));
    }
  g_object_unref (first);

  /* Filtering keeps only matching series. */
  tsl_compare_panel_set_filter (window->compare_panel, "memory");
  n = g_list_model_get_n_items (model);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(TslCompareItem) item = g_list_model_get_item (model, i);

      g_assert_nonnull (strstr (tsl_compare_item_get_series (item), "memory"));
      n_memory++;
    }
  g_assert_cmpuint (n_memory, ==, 1);
  tsl_compare_panel_set_filter (window->compare_panel, NULL);

  /* Sorting by the Series column orders by name. */
  {
    GtkColumnView *view = tsl_compare_panel_get_column_view (window->compare_panel);
    GListModel *columns = gtk_column_view_get_columns (view);
    g_autoptr(GtkColumnViewColumn) series_column = g_list_model_get_item (columns, 1);

    gtk_column_view_sort_by_column (view, series_column, GTK_SORT_ASCENDING);
    for (guint i = 1; i < g_list_model_get_n_items (model); i++)
      {
        g_autoptr(TslCompareItem) prev = g_list_model_get_item (model, i - 1);
        g_autoptr(TslCompareItem) item = g_list_model_get_item (model, i);

        g_assert_cmpint (g_utf8_collate (tsl_compare_item_get_series (prev),
                                         tsl_compare_item_get_series (item)), <=, 0);
      }
  }

  /* The table exports as CSV, in the order shown. */
  {
    g_autofree char *dir = g_dir_make_tmp ("timeslice-table-XXXXXX", NULL);
    g_autofree char *path = g_build_filename (dir, "table.csv", NULL);
    g_autoptr(GFile) file = g_file_new_for_path (path);
    g_autofree char *contents = NULL;
    g_auto(GStrv) lines = NULL;

    _tsl_window_export_to (window, file, TRUE);
    iterate_until (file_has_content, file, 30000);
    g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
    lines = g_strsplit (contents, "\n", -1);
    g_assert_cmpstr (lines[0], ==, "series,stat,a_value,b_value,change_pct,ci_low_pct,ci_high_pct,p_value,q_value,significant,"
                                   "a_n,b_n,method,unit");
    /* header + one line per row + the empty string after the last newline */
    g_assert_cmpuint (g_strv_length (lines), ==, g_list_model_get_n_items (model) + 2);
    g_unlink (path);
    g_rmdir (dir);
  }

  /* The Statistic drop-down shows translated names; its positions pick the
   * statistic itself, here the maximum instead of the metrics' sum. */
  {
    GtkDropDown *stat = find_stat_dropdown (GTK_WIDGET (window->compare_panel));
    StatWait wait = { window, TSL_STAT_MAX };

    g_assert_nonnull (stat);
    gtk_drop_down_set_selected (stat, 1 + TSL_STAT_MAX);
    iterate_until (rows_use_stat, &wait, 120000);
    gtk_drop_down_set_selected (stat, 0);
  }

  /* One range only: the table gives way to a hint. */
  tsl_timeline_view_clear_ranges (window->timeline);
  g_assert_false (tsl_compare_panel_is_busy (window->compare_panel));

  gtk_window_destroy (GTK_WINDOW (window));
}

static gboolean
shows_detail (gpointer data)
{
  TslWindow *window = data;

  return tsl_timeline_view_get_shown_snapshot (window->timeline) !=
         tsl_timeline_view_get_snapshot (window->timeline);
}

static guint
samples_between (TslSnapshot *snapshot,
                 const char  *track_name,
                 gint64       start,
                 gint64       end)
{
  guint n = 0;

  for (guint i = 0; i < tsl_snapshot_get_n_tracks (snapshot); i++)
    {
      const TslSnapshotTrack *track = tsl_snapshot_get_track (snapshot, i);

      if (!g_str_equal (track->name, track_name))
        continue;
      for (guint j = 0; j < track->n_samples; j++)
        n += track->samples[j].time_ns >= start && track->samples[j].time_ns < end;
    }

  return n;
}

static void
test_zoom_detail (void)
{
  GSettings *settings = tsl_application_get_settings (app);
  g_autoptr(GFile) example = tsl_application_dup_example (app);
  TslWindow *window;
  TslSnapshot *base, *detail;
  gint64 start, end;
  guint n_base, n_detail;

  /* A small K, so the whole-trace view is coarse. */
  g_settings_set_uint (settings, "sampler-k", 40);
  window = new_shown_window ();
  tsl_window_open (window, example);
  iterate_until (is_done_loading, window, 60000);

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window->timeline), "timeline.zoom", "d", 8.0));
  iterate_until (shows_detail, window, 60000);

  base = tsl_timeline_view_get_snapshot (window->timeline);
  detail = tsl_timeline_view_get_shown_snapshot (window->timeline);
  tsl_timeline_view_get_visible_time (window->timeline, &start, &end);
  n_base = samples_between (base, "worker-1", start, end);
  n_detail = samples_between (detail, "worker-1", start, end);
  /* The zoomed window (with a margin of a quarter view each side) gets its
   * own K..2K samples, instead of an eighth of the whole trace's. */
  g_assert_cmpuint (n_detail, >=, 40 * 2 / 3);
  g_assert_cmpuint (n_detail, >, 2 * n_base);

  /* Showing everything again draws the whole trace's samples. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window->timeline), "timeline.zoom-all", NULL));
  g_assert_true (tsl_timeline_view_get_shown_snapshot (window->timeline) == base);

  g_settings_reset (settings, "sampler-k");
  gtk_window_destroy (GTK_WINDOW (window));
}

static gboolean
flame_ready (gpointer data)
{
  TslWindow *window = data;

  return !tsl_flame_view_get_busy (window->flame_view) &&
         tsl_flame_view_get_flame (window->flame_view) != NULL;
}

static void
test_flame_page (void)
{
  TslWindow *window = new_shown_window ();
  g_autoptr(GFile) example = tsl_application_dup_example (app);
  gint64 span;

  tsl_window_open (window, example);
  iterate_until (is_done_loading, window, 60000);
  span = tsl_snapshot_get_span (tsl_timeline_view_get_snapshot (window->timeline));

  adw_view_stack_set_visible_child_name (window->view_stack, "flame");
  iterate_until (flame_ready, window, 60000);
  g_assert_cmpint (tsl_flame_view_get_mode (window->flame_view), ==, TSL_FLAME_MODE_WHOLE);
  g_assert_nonnull (tsl_call_tree_get_flame (window->call_tree));

  /* Ranges made on the timeline drive the graph: both give the differential. */
  tsl_timeline_view_set_range (window->timeline, TSL_RANGE_A, span * 17 / 100, span * 35 / 100);
  g_assert_cmpint (tsl_flame_view_get_mode (window->flame_view), ==, TSL_FLAME_MODE_A);
  tsl_timeline_view_set_range (window->timeline, TSL_RANGE_B, span * 55 / 100, span * 74 / 100);
  g_assert_cmpint (tsl_flame_view_get_mode (window->flame_view), ==, TSL_FLAME_MODE_DIFF);
  g_assert_cmpuint (gtk_drop_down_get_selected (window->flame_mode_dropdown), ==, TSL_FLAME_MODE_DIFF);
  iterate_until (flame_ready, window, 120000);

  /* The user's choice in the drop-down wins. */
  gtk_drop_down_set_selected (window->flame_mode_dropdown, TSL_FLAME_MODE_B);
  g_assert_cmpint (tsl_flame_view_get_mode (window->flame_view), ==, TSL_FLAME_MODE_B);

  gtk_window_destroy (GTK_WINDOW (window));
}

static gboolean
has_message_dialog (gpointer data)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GObject) item = g_list_model_get_item (toplevels, i);

      if (ADW_IS_MESSAGE_DIALOG (item))
        return TRUE;
    }
  return FALSE;
}

static void
close_message_dialogs (void)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = g_list_model_get_n_items (toplevels); i > 0; i--)
    {
      g_autoptr(GObject) item = g_list_model_get_item (toplevels, i - 1);

      if (ADW_IS_MESSAGE_DIALOG (item))
        gtk_window_destroy (GTK_WINDOW (item));
    }
}

static void
test_open_bad_file (void)
{
  TslWindow *window = new_shown_window ();
  g_autoptr(GFile) missing = test_file ("does-not-exist.json");

  tsl_window_open (window, missing);
  iterate_until (is_done_loading, window, 30000);
  iterate_until (has_message_dialog, NULL, 10000);

  /* Nothing was read, so the window is empty again and names no file. */
  g_assert_true (tsl_window_is_empty (window));
  g_assert_cmpstr (gtk_stack_get_visible_child_name (window->stack), ==, "empty");
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, "Timeslice");

  close_message_dialogs ();
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_close_while_loading (void)
{
  TslWindow *window = new_shown_window ();
  g_autoptr(GFile) example = tsl_application_dup_example (app);

  tsl_window_open (window, example);
  /* Closing at once cancels the worker; its late result must be dropped safely. */
  gtk_window_destroy (GTK_WINDOW (window));
  for (guint i = 0; i < 200; i++)
    {
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GError) error = NULL;
  int ret;

  g_test_init (&argc, &argv, NULL);

  if (!ui_test_init ())
    return 77;

  app = tsl_application_new ();
  g_application_set_flags (G_APPLICATION (app), G_APPLICATION_NON_UNIQUE);
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, &error));
  g_assert_no_error (error);

  g_test_add_func ("/window/empty-state", test_empty_state);
  g_test_add_func ("/window/accels", test_accels);
  g_test_add_func ("/window/open-example", test_open_example);
  g_test_add_func ("/window/open-bad-file", test_open_bad_file);
  g_test_add_func ("/window/timeline-navigation", test_timeline_navigation);
  g_test_add_func ("/window/export", test_export);
  g_test_add_func ("/window/follow", test_follow);
  g_test_add_func ("/window/compare-panel", test_compare_panel);
  g_test_add_func ("/window/zoom-detail", test_zoom_detail);
  g_test_add_func ("/window/flame-page", test_flame_page);
  g_test_add_func ("/window/close-while-loading", test_close_while_loading);

  ret = g_test_run ();
  g_clear_object (&app);
  return ret;
}
