/* test-merge.c: several files as one timeline, and compare across them
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * tests/data/compare/before.json and after.json are two runs of one
 * program (make-runs.py, seed 1): AFTER's worker/layout takes 1.5× as
 * long. Merged, they are two groups named after the files; by default A is
 * all of the first and B all of the second, and the compare panel flags
 * that function alone, with the numbers `timeslice compare BEFORE AFTER`
 * gives, and highlights it on the worker thread of both files. A Ctrl+drag
 * on a file's header (real pointer input, xdotool) moves that file and
 * range B with it. TSL_MERGE_SHOT=PATH saves a screenshot of the window.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gstdio.h>

#include "tsl-application.h"
#include "tsl-render.h"
#include "tsl-snapshot.h"
#include "tsl-window-private.h"
#include "test-ui-input.h"
#include "test-ui-util.h"

static TslApplication *app;

static char *
data_path (const char *name)
{
  return g_test_build_filename (G_TEST_DIST, "data", "compare", name, NULL);
}

/* The CSV `timeslice compare BEFORE AFTER` writes, by (series, stat). */
static GHashTable *
cli_rows (const char *before,
          const char *after)
{
  const char *timeslice = g_getenv ("TSL_TIMESLICE");
  g_autofree char *out = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) lines = NULL;
  GHashTable *rows = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) g_strfreev);
  const char *argv[] = { timeslice, "compare", before, after, NULL };
  int status = 0;

  g_assert_nonnull (timeslice);
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL,
                               &out, NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  lines = g_strsplit (out, "\n", -1);
  for (guint i = 1; lines[i] != NULL && lines[i][0] != '\0'; i++)
    {
      GStrv cells = g_strsplit (lines[i], ",", -1);

      g_assert_cmpuint (g_strv_length (cells), >=, 10);
      g_hash_table_insert (rows, g_strdup_printf ("%s/%s", cells[0], cells[1]), cells);
    }
  return rows;
}

static void
save_shot (TslWindow  *window,
           const char *suffix)
{
  const char *path = g_getenv ("TSL_MERGE_SHOT");
  g_autofree char *target = NULL;
  g_autofree char *command = NULL;

  if (path == NULL)
    return;
  settle (300);
  target = g_strdup_printf ("%s-%s.png", path, suffix);
  command = g_strdup_printf ("import -window root %s", target);
  g_assert_true (g_spawn_command_line_sync (command, NULL, NULL, NULL, NULL));
}

static void
test_merged_compare (void)
{
  TslWindow *window = tsl_window_new (app);
  g_autofree char *before = data_path ("before.json");
  g_autofree char *after = data_path ("after.json");
  g_autoptr(GFile) file_a = g_file_new_for_path (before);
  g_autoptr(GFile) file_b = g_file_new_for_path (after);
  GFile *files[] = { file_a, file_b };
  g_autoptr(GHashTable) cli = cli_rows (before, after);
  TslSnapshot *merged;
  GListModel *model;
  const char *name = NULL;
  gint64 position, span, a0, a1, b0, b1;
  guint significant = 0, matched = 0, first_after = G_MAXUINT;
  TslRenderOptions o;

  gtk_window_set_default_size (GTK_WINDOW (window), 1400, 900);
  gtk_window_present (GTK_WINDOW (window));
  iterate_until (is_mapped, window, 10000);

  tsl_window_open_merged (window, files, 2, NULL);
  g_assert_true (tsl_window_is_loading (window));
  iterate_until (is_done_loading, window, 60000);
  iterate_until (compare_done, window, 120000);

  /* Two groups named after the files; two runs minutes apart on one
   * clock each start at 0. */
  merged = tsl_timeline_view_get_snapshot (window->timeline);
  g_assert_cmpuint (tsl_snapshot_get_n_parts (merged), ==, 2);
  g_assert_cmpuint (tsl_window_get_n_files (window), ==, 2);
  g_assert_true (tsl_snapshot_get_part (merged, 1, &name, &position, &span));
  g_assert_cmpstr (name, ==, "after.json");
  g_assert_cmpint (position, ==, 0);
  for (guint i = 0; i < tsl_snapshot_get_n_tracks (merged); i++)
    {
      const TslSnapshotTrack *t = tsl_snapshot_get_track (merged, i);

      g_assert_cmpstr (t->process, ==, t->pid == 1 ? "before.json" : "after.json");
      if (t->pid == 2 && first_after == G_MAXUINT)
        first_after = i;
    }
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, "before.json + after.json");

  /* By default A is all of the first file and B all of the second. */
  g_assert_true (tsl_timeline_view_get_range (window->timeline, TSL_RANGE_A, &a0, &a1));
  g_assert_true (tsl_timeline_view_get_range (window->timeline, TSL_RANGE_B, &b0, &b1));
  g_assert_cmpint (tsl_timeline_view_get_range_group (window->timeline, TSL_RANGE_A), ==, 1);
  g_assert_cmpint (tsl_timeline_view_get_range_group (window->timeline, TSL_RANGE_B), ==, 2);
  g_assert_cmpint (b1 - b0, ==, span);

  /* The matched series, with the command line's numbers; worker/layout
   * alone is significant. */
  model = tsl_compare_panel_get_model (window->compare_panel);
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, g_hash_table_size (cli));
  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr(TslCompareItem) item = g_list_model_get_item (model, i);
      const TslCompareRow *row = tsl_compare_item_get_row (item);
      g_autofree char *key = g_strdup_printf ("%s/%s", row->series, row->stat);
      GStrv cells = g_hash_table_lookup (cli, key);

      g_assert_nonnull (cells);
      g_assert_cmpfloat (fabs (row->a_value - g_ascii_strtod (cells[2], NULL)), <=, 1e-9 * fabs (row->a_value));
      g_assert_cmpfloat (fabs (row->b_value - g_ascii_strtod (cells[3], NULL)), <=, 1e-9 * fabs (row->b_value));
      g_assert_cmpstr (cells[9], ==, row->significant ? "true" : "false");
      g_assert_cmpint (row->presence, ==, TSL_COMPARE_IN_BOTH);
      matched++;
      if (row->significant)
        {
          g_assert_cmpstr (row->series, ==, "worker/layout");
          significant++;
        }
    }
  g_assert_cmpuint (matched, ==, 22);
  g_assert_cmpuint (significant, ==, 2);

  /* The first row (significant first) is selected: its function is
   * highlighted on the worker thread of every file. */
  tsl_timeline_view_get_render_options (window->timeline, &o);
  g_assert_cmpstr (o.highlight, ==, "layout");
  g_assert_cmpstr (o.highlight_track, ==, "worker");
  g_assert_cmpint (o.highlight_pid, ==, TSL_RENDER_ANY_PID);
  save_shot (window, "compare");

  /* Ctrl+drag on after.json's header, 200 px to the right: the file and
   * range B move by 200 px of time; A stays. */
  {
    GtkWidget *view = GTK_WIDGET (window->timeline);
    double header_y, x0, ns_per_px;
    gint64 offset, c0, c1, d0, d1;
    TslRenderHit hit;

    /* Where the header is once the window has settled (the filled compare
     * panel may still move the timeline on a loaded machine). */
    header_y = -1;
    for (int i = 0; i < 30; i++)
      {
        double y;

        settle (300);
        merged = tsl_timeline_view_get_snapshot (window->timeline);
        tsl_timeline_view_get_render_options (window->timeline, &o);
        y = tsl_render_header_height (&o) + tsl_render_track_top (merged, &o, first_after) - 12 - o.scroll_y;
        /* The compare panel takes 45 % of the height: scroll the header
         * into view when it is below the timeline's bottom. */
        if (y > gtk_widget_get_height (view) - 20)
          {
            GtkAdjustment *vadj = tsl_timeline_view_get_vadjustment (window->timeline);

            gtk_adjustment_set_value (vadj, gtk_adjustment_get_value (vadj) + y - gtk_widget_get_height (view) / 2.0);
            header_y = -1;
            continue;
          }
        /* The same place twice in a row, the panel idle: settled. */
        if (y == header_y && !tsl_compare_panel_is_busy (window->compare_panel))
          break;
        header_y = y;
      }
    x0 = tsl_render_label_width (&o) + 100;
    ns_per_px = (double) (o.view_end_ns - o.view_start_ns) / (o.width - tsl_render_label_width (&o));
    g_assert_true (tsl_render_hit_test (merged, &o, x0, header_y, &hit));
    g_assert_true (hit.on_group);
    g_assert_cmpint (hit.group_pid, ==, 2);

    pointer_to (window, view, x0, header_y);
    xdo ("keydown ctrl mousedown 1");
    settle (50);
    for (int i = 1; i <= 4; i++)
      {
        pointer_to (window, view, x0 + 50 * i, header_y);
        settle (30);
      }
    xdo ("mouseup 1 keyup ctrl");
    /* A loaded machine may take a while to hand the events over. */
    for (int i = 0; i < 100 && fabs ((double) tsl_window_get_file_offset (window, 1) - 200 * ns_per_px) >= 4 * ns_per_px; i++)
      settle (100);
    settle (100);

    offset = tsl_window_get_file_offset (window, 1);
    g_assert_cmpfloat (fabs ((double) offset - 200 * ns_per_px), <, 4 * ns_per_px);
    g_assert_cmpint (tsl_window_get_file_offset (window, 0), ==, 0);
    merged = tsl_timeline_view_get_snapshot (window->timeline);
    g_assert_true (tsl_snapshot_get_part (merged, 1, NULL, &position, NULL));
    g_assert_cmpint (position, ==, offset);
    g_assert_true (tsl_timeline_view_get_range (window->timeline, TSL_RANGE_A, &c0, &c1));
    g_assert_true (tsl_timeline_view_get_range (window->timeline, TSL_RANGE_B, &d0, &d1));
    g_assert_cmpint (c0, ==, a0);
    g_assert_cmpint (d0, ==, b0 + offset);
    g_assert_cmpint (d1 - d0, ==, b1 - b0);
    /* The group did not collapse: a drag is not a click. */
    g_assert_false (tsl_timeline_view_is_group_collapsed (window->timeline, 2));
  }

  /* The same table after the move: B is still all of after.json. */
  iterate_until (compare_done, window, 120000);
  significant = 0;
  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr(TslCompareItem) item = g_list_model_get_item (model, i);

      significant += tsl_compare_item_get_significant (item);
    }
  g_assert_cmpuint (significant, ==, 2);
  save_shot (window, "moved");

  /* Typed offsets do the same, and a plain open ends the merge. */
  tsl_window_set_file_offset (window, 1, -250000000);
  g_assert_true (tsl_snapshot_get_part (tsl_timeline_view_get_snapshot (window->timeline), 1, NULL, &position, NULL));
  g_assert_cmpint (position, ==, 0);   /* the smallest position becomes 0 */
  g_assert_true (tsl_snapshot_get_part (tsl_timeline_view_get_snapshot (window->timeline), 0, NULL, &position, NULL));
  g_assert_cmpint (position, ==, 250000000);
  tsl_window_open (window, file_a);
  iterate_until (is_done_loading, window, 60000);
  g_assert_cmpuint (tsl_window_get_n_files (window), ==, 1);
  g_assert_cmpuint (tsl_snapshot_get_n_parts (tsl_timeline_view_get_snapshot (window->timeline)), ==, 0);

  gtk_window_destroy (GTK_WINDOW (window));
}

/* The first label of each row of the warnings list. */
static GPtrArray *
warning_rows (TslWindow *window)
{
  GPtrArray *rows = g_ptr_array_new ();

  for (GtkWidget *row = gtk_widget_get_first_child (GTK_WIDGET (window->warnings_list)); row != NULL;
       row = gtk_widget_get_next_sibling (row))
    {
      GtkWidget *box = gtk_list_box_row_get_child (GTK_LIST_BOX_ROW (row));

      g_ptr_array_add (rows, (gpointer) gtk_label_get_label (GTK_LABEL (gtk_widget_get_first_child (box))));
    }
  return rows;
}

/* Issue 32 item 8: merged, the window listed only the first file's
 * warnings, and its header named no file. */
static void
test_merged_warnings (void)
{
  g_autofree char *dir = g_dir_make_tmp ("timeslice-warn-XXXXXX", NULL);
  g_autofree char *first = g_build_filename (dir, "first.json", NULL);
  g_autofree char *second = g_build_filename (dir, "second.json", NULL);
  g_autoptr(GFile) file_a = g_file_new_for_path (first);
  g_autoptr(GFile) file_b = g_file_new_for_path (second);
  GFile *files[] = { file_a, file_b };
  g_autoptr(GPtrArray) rows = NULL;
  TslWindow *window = tsl_window_new (app);
  gboolean seen_a = FALSE, seen_b = FALSE;

  /* Each file an 'E' with no 'B' before it. */
  g_assert_true (g_file_set_contents (first, "[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":5},"
                                      "{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":9}]", -1, NULL));
  g_assert_true (g_file_set_contents (second, "[{\"ph\":\"X\",\"name\":\"b\",\"pid\":2,\"tid\":1,\"ts\":0,\"dur\":5},"
                                      "{\"ph\":\"E\",\"pid\":2,\"tid\":1,\"ts\":9}]", -1, NULL));
  gtk_window_set_default_size (GTK_WINDOW (window), 1400, 900);
  gtk_window_present (GTK_WINDOW (window));
  iterate_until (is_mapped, window, 10000);
  tsl_window_open_merged (window, files, 2, NULL);
  iterate_until (is_done_loading, window, 60000);
  settle (300);

  rows = warning_rows (window);
  for (guint i = 0; i < rows->len; i++)
    {
      seen_a |= g_str_has_prefix (g_ptr_array_index (rows, i), "first.json: ");
      seen_b |= g_str_has_prefix (g_ptr_array_index (rows, i), "second.json: ");
    }
  g_assert_true (seen_a);
  g_assert_true (seen_b);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (window->file_label)));
  g_assert_cmpstr (gtk_label_get_label (window->file_label), ==, "first.json + second.json");
  g_assert_nonnull (strstr (gtk_window_get_title (GTK_WINDOW (window)), "first.json + second.json"));

  gtk_window_destroy (GTK_WINDOW (window));
  g_unlink (first);
  g_unlink (second);
  g_rmdir (dir);
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

  g_test_add_func ("/merge/compare", test_merged_compare);
  g_test_add_func ("/merge/warnings", test_merged_warnings);

  ret = g_test_run ();
  g_clear_object (&app);
  return ret;
}
