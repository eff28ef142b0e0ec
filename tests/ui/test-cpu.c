/* test-cpu.c: the window's thread (CPU) time: the flame page by CPU time and
 * the compare panel's CPU statistics
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A Chromium recording with thread time (tests/data/chrome/chromium-cpu.json)
 * against the bundled example, which has none. The flame page switches to
 * CPU time by its button's mnemonic (Alt+P) and back by the graph's key (c),
 * pressed through the X server.
 */
#include "config.h"

#include <string.h>

#include "tsl-application.h"
#include "tsl-window-private.h"
#include "test-ui-input.h"
#include "test-ui-util.h"

static TslApplication *app;

static gboolean
flame_is_cpu (gpointer data)
{
  TslWindow *window = data;

  return flame_ready (window) &&
         tsl_flame_get_weight (tsl_flame_view_get_flame (window->flame_view)) == TSL_FLAME_WEIGHT_CPU;
}

static gboolean
flame_is_wall (gpointer data)
{
  TslWindow *window = data;

  return flame_ready (window) &&
         tsl_flame_get_weight (tsl_flame_view_get_flame (window->flame_view)) == TSL_FLAME_WEIGHT_TIME;
}

static TslWindow *
open_window (GFile *file)
{
  TslWindow *window = tsl_window_new (app);

  gtk_window_set_default_size (GTK_WINDOW (window), 1400, 900);
  gtk_window_present (GTK_WINDOW (window));
  iterate_until (is_laid_out, window, 10000);
  tsl_window_open (window, file);
  iterate_until (is_done_loading, window, 60000);
  return window;
}

static GFile *
chromium_file (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "chrome", "chromium-cpu.json", NULL);

  return g_file_new_for_path (path);
}

/* The title of the call tree's column `index` (0: the call path). */
static const char *
column_title (TslWindow *window,
              guint      index)
{
  GtkColumnView *view = NULL;
  g_autoptr(GtkColumnViewColumn) column = NULL;

  for (GtkWidget *w = gtk_widget_get_first_child (GTK_WIDGET (window->call_tree)); w != NULL && view == NULL;
       w = gtk_widget_get_first_child (w))
    if (GTK_IS_COLUMN_VIEW (w))
      view = GTK_COLUMN_VIEW (w);
    else if (GTK_IS_SCROLLED_WINDOW (w))
      view = GTK_COLUMN_VIEW (gtk_scrolled_window_get_child (GTK_SCROLLED_WINDOW (w)));
  g_assert_nonnull (view);
  column = g_list_model_get_item (gtk_column_view_get_columns (view), index);
  return gtk_column_view_column_get_title (column);
}

static void
test_flame_cpu (void)
{
  g_autoptr(GFile) file = chromium_file ();
  TslWindow *window = open_window (file);
  TslFlame *flame;
  double wall, cpu;
  g_autofree char *wall_path = NULL;

  g_assert_true (tsl_snapshot_get_has_cpu (tsl_timeline_view_get_snapshot (window->timeline)));
  adw_view_stack_set_visible_child_name (window->view_stack, "flame");
  iterate_until (flame_is_wall, window, 30000);
  settle (300);
  g_assert_true (gtk_widget_get_sensitive (GTK_WIDGET (window->cpu_button)));
  flame = tsl_flame_view_get_flame (window->flame_view);
  wall = tsl_flame_get_root (flame)->total;
  wall_path = g_strdup (tsl_flame_get_root (flame)->children[0]->name);
  g_assert_cmpstr (column_title (window, 2), ==, "Total");

  /* Alt+P, the button's mnemonic: the whole trace by CPU time, re-read. */
  pointer_to (window, GTK_WIDGET (window->flame_view), 300, 100);
  xdo ("key alt+p");
  settle (200);
  g_assert_true (gtk_toggle_button_get_active (window->cpu_button));
  iterate_until (flame_is_cpu, window, 30000);
  flame = tsl_flame_view_get_flame (window->flame_view);
  g_assert_true (tsl_flame_is_exact (flame));
  cpu = tsl_flame_get_root (flame)->total;
  /* 113 of the 200 slices carry a tdur, never above their dur. */
  g_assert_cmpfloat (cpu, >, 0);
  g_assert_cmpfloat (cpu, <, wall);
  g_assert_cmpstr (column_title (window, 1), ==, "Self CPU");
  g_assert_cmpstr (column_title (window, 2), ==, "Total CPU");
  g_assert_true (tsl_call_tree_get_flame (window->call_tree) == flame);

  /* c on the graph: back to wall time. */
  gtk_widget_grab_focus (GTK_WIDGET (window->flame_view));
  settle (100);
  xdo ("key c");
  settle (200);
  g_assert_false (gtk_toggle_button_get_active (window->cpu_button));
  iterate_until (flame_is_wall, window, 30000);
  g_assert_cmpfloat (tsl_flame_get_root (tsl_flame_view_get_flame (window->flame_view))->total, ==, wall);
  g_assert_cmpstr (column_title (window, 2), ==, "Total");

  /* Range A and B by CPU time: the differential, exact. */
  {
    gint64 span = tsl_snapshot_get_span (tsl_timeline_view_get_snapshot (window->timeline));

    tsl_timeline_view_set_range (window->timeline, TSL_RANGE_A, 0, span / 2);
    tsl_timeline_view_set_range (window->timeline, TSL_RANGE_B, span / 2, span);
  }
  xdo ("key c");
  settle (200);
  iterate_until (flame_is_cpu, window, 60000);
  flame = tsl_flame_view_get_flame (window->flame_view);
  g_assert_true (tsl_flame_is_diff (flame));
  g_assert_cmpstr (column_title (window, 3), ==, "CPU in A");

  gtk_window_destroy (GTK_WINDOW (window));
}

/* Without thread time the button is insensitive and c does nothing. */
static void
test_flame_no_cpu (void)
{
  g_autoptr(GFile) example = tsl_application_dup_example (app);
  TslWindow *window = open_window (example);

  g_assert_false (tsl_snapshot_get_has_cpu (tsl_timeline_view_get_snapshot (window->timeline)));
  adw_view_stack_set_visible_child_name (window->view_stack, "flame");
  iterate_until (flame_ready, window, 30000);
  settle (300);
  g_assert_false (gtk_widget_get_sensitive (GTK_WIDGET (window->cpu_button)));
  gtk_widget_grab_focus (GTK_WIDGET (window->flame_view));
  settle (100);
  xdo ("key c");
  settle (300);
  g_assert_false (tsl_flame_view_get_cpu (window->flame_view));

  gtk_window_destroy (GTK_WINDOW (window));
}

static GtkDropDown *
stat_dropdown (TslWindow *window)
{
  return GTK_DROP_DOWN (gtk_widget_get_template_child (GTK_WIDGET (window->compare_panel),
                                                       TSL_TYPE_COMPARE_PANEL, "stat_dropdown"));
}

static guint
n_stats (TslWindow *window)
{
  return g_list_model_get_n_items (gtk_drop_down_get_model (stat_dropdown (window)));
}

/* The Statistic list holds CPU share and mean CPU time where the trace has
 * thread time; choosing one gives those rows only. */
static void
test_compare_stats (void)
{
  g_autoptr(GFile) file = chromium_file ();
  g_autoptr(GFile) example = tsl_application_dup_example (app);
  TslWindow *window = open_window (file);
  GtkDropDown *dropdown = stat_dropdown (window);
  GListModel *rows;
  gint64 span = tsl_snapshot_get_span (tsl_timeline_view_get_snapshot (window->timeline));
  const char *wanted[] = { "cpu_share", "cpu_mean" };

  g_assert_cmpuint (n_stats (window), ==, 10);
  g_assert_cmpstr (gtk_string_list_get_string (GTK_STRING_LIST (gtk_drop_down_get_model (dropdown)), 8), ==,
                   "CPU share");
  tsl_timeline_view_set_range (window->timeline, TSL_RANGE_A, 0, span / 2);
  tsl_timeline_view_set_range (window->timeline, TSL_RANGE_B, span / 2, span);

  for (guint i = 0; i < 2; i++)
    {
      gtk_drop_down_set_selected (dropdown, 8 + i);
      tsl_compare_panel_flush (window->compare_panel);
      iterate_until (compare_done, window, 60000);
      rows = tsl_compare_panel_get_model (window->compare_panel);
      g_assert_cmpuint (g_list_model_get_n_items (rows), >, 3);
      for (guint r = 0; r < g_list_model_get_n_items (rows); r++)
        {
          g_autoptr(TslCompareItem) item = g_list_model_get_item (rows, r);

          g_assert_cmpstr (tsl_compare_item_get_row (item)->stat, ==, wanted[i]);
        }
    }

  /* A trace without thread time: the CPU entries go, the choice with them. */
  tsl_window_open (window, example);
  iterate_until (is_done_loading, window, 60000);
  settle (300);
  g_assert_cmpuint (n_stats (window), ==, 8);
  g_assert_cmpuint (gtk_drop_down_get_selected (dropdown), ==, 0);

  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int   argc,
      char *argv[])
{
  int status;

  g_test_init (&argc, &argv, NULL);

  if (!ui_test_init ())
    return 77;
  app = ui_test_app_new ();

  g_test_add_func ("/cpu/flame", test_flame_cpu);
  g_test_add_func ("/cpu/flame-no-cpu", test_flame_no_cpu);
  g_test_add_func ("/cpu/compare-stats", test_compare_stats);

  status = g_test_run ();
  g_object_unref (app);
  return status;
}
