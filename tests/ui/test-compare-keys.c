/* test-compare-keys.c: the compare panel from the keyboard, with real key presses
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The table is one stop of the Tab chain whatever its length: Tab leaves it
 * for the next widget, Shift+Tab comes back and goes on to the one before,
 * and the arrow keys move between its rows.
 */
#include "config.h"

#include "tsl-application.h"
#include "tsl-window-private.h"
#include "test-ui-input.h"
#include "test-ui-util.h"

static TslApplication *app;

static gboolean
compare_shown (gpointer data)
{
  TslWindow *window = data;
  GtkWidget *view = GTK_WIDGET (tsl_compare_panel_get_column_view (window->compare_panel));

  return !tsl_compare_panel_is_busy (window->compare_panel) &&
         g_list_model_get_n_items (tsl_compare_panel_get_model (window->compare_panel)) > 20 &&
         gtk_widget_get_mapped (view) && gtk_widget_get_height (view) > 0;
}

static GtkWidget *
focus_of (TslWindow *window)
{
  return gtk_root_get_focus (GTK_ROOT (window));
}

static gboolean
in_table (TslWindow *window)
{
  GtkWidget *focus = focus_of (window);
  GtkWidget *view = GTK_WIDGET (tsl_compare_panel_get_column_view (window->compare_panel));

  return focus != NULL && (focus == view || gtk_widget_is_ancestor (focus, view));
}

/* The selected row: the arrows move it with the focus. */
static guint
selected_row (TslWindow *window)
{
  GListModel *model = G_LIST_MODEL (gtk_column_view_get_model (tsl_compare_panel_get_column_view (window->compare_panel)));

  return gtk_single_selection_get_selected (GTK_SINGLE_SELECTION (model));
}

static void
press (const char *key)
{
  g_autofree char *args = g_strdup_printf ("key %s", key);

  xdo (args);
  settle (150);
}

static void
test_tab_order (void)
{
  TslWindow *window = tsl_window_new (app);
  g_autoptr(GFile) example = tsl_application_dup_example (app);
  GtkColumnView *view = tsl_compare_panel_get_column_view (window->compare_panel);
  guint rows, stops_in_table = 0, tabs_to_leave = 0;
  GtkWidget *before, *after;
  gint64 span;

  gtk_window_present (GTK_WINDOW (window));
  iterate_until (is_mapped, window, 10000);
  tsl_window_open (window, example);
  iterate_until (is_done_loading, window, 60000);
  span = tsl_snapshot_get_span (tsl_timeline_view_get_snapshot (window->timeline));
  tsl_timeline_view_set_range (window->timeline, TSL_RANGE_A, span * 17 / 100, span * 22 / 100);
  tsl_timeline_view_set_range (window->timeline, TSL_RANGE_B, span * 55 / 100, span * 60 / 100);
  iterate_until (compare_shown, window, 120000);
  settle (500);
  rows = g_list_model_get_n_items (tsl_compare_panel_get_model (window->compare_panel));
  g_assert_cmpuint (rows, >, 20);

  /* The keyboard's way in: click the table's first row, then walk out. */
  pointer_to (window, GTK_WIDGET (view), 200, 40);
  xdo ("click 1");
  settle (300);
  g_assert_true (in_table (window));

  /* Tab: out of the table at once, whatever its length. */
  press ("Tab");
  after = focus_of (window);
  g_assert_nonnull (after);
  g_assert_false (in_table (window));

  /* Shift+Tab: back into the table, then out to the widget before it. */
  press ("shift+Tab");
  g_assert_true (in_table (window));
  press ("shift+Tab");
  before = focus_of (window);
  g_assert_nonnull (before);
  g_assert_false (in_table (window));
  g_assert_true (before != after);

  /* Tab from the widget before: the table is one stop, the next Tab leaves
   * it for the same widget as before. Counted over at most rows + 10 Tabs,
   * which is what the table took when every row was a stop. */
  press ("Tab");
  g_assert_true (in_table (window));
  for (tabs_to_leave = 1; in_table (window) && tabs_to_leave < rows + 10; tabs_to_leave++)
    {
      stops_in_table++;
      press ("Tab");
    }
  g_assert_cmpuint (stops_in_table, ==, 1);
  g_assert_true (focus_of (window) == after);

  /* The arrows move inside the table: Down from the first row selects the
   * next, and focus stays in the table. */
  press ("shift+Tab");
  g_assert_true (in_table (window));
  {
    guint row = selected_row (window);

    press ("Down");
    g_assert_true (in_table (window));
    g_assert_cmpuint (selected_row (window), ==, row + 1);
  }

  gtk_window_destroy (GTK_WINDOW (window));
}

static gboolean
summary_shown (gpointer data)
{
  TslWindow *window = data;
  GtkColumnView *view = tsl_summary_view_get_column_view (tsl_compare_panel_get_summary_view (window->compare_panel));
  GListModel *model = G_LIST_MODEL (gtk_column_view_get_model (view));

  return model != NULL && g_list_model_get_n_items (model) > 5 &&
         gtk_widget_get_mapped (GTK_WIDGET (view)) && gtk_widget_get_height (GTK_WIDGET (view)) > 0;
}

static gboolean
in_view (TslWindow *window,
         GtkWidget *view)
{
  GtkWidget *focus = focus_of (window);

  return focus != NULL && (focus == view || gtk_widget_is_ancestor (focus, view));
}

/* Range A alone: its summary table is one Tab stop too. */
static void
test_summary_tab_order (void)
{
  TslWindow *window = tsl_window_new (app);
  g_autoptr(GFile) example = tsl_application_dup_example (app);
  GtkWidget *view = GTK_WIDGET (tsl_summary_view_get_column_view (
                                  tsl_compare_panel_get_summary_view (window->compare_panel)));
  GtkWidget *after;
  guint rows, stops = 0;
  gint64 span;

  gtk_window_present (GTK_WINDOW (window));
  iterate_until (is_mapped, window, 10000);
  tsl_window_open (window, example);
  iterate_until (is_done_loading, window, 60000);
  span = tsl_snapshot_get_span (tsl_timeline_view_get_snapshot (window->timeline));
  tsl_timeline_view_set_range (window->timeline, TSL_RANGE_A, span * 17 / 100, span * 60 / 100);
  iterate_until (summary_shown, window, 120000);
  settle (500);
  rows = g_list_model_get_n_items (G_LIST_MODEL (gtk_column_view_get_model (GTK_COLUMN_VIEW (view))));

  pointer_to (window, view, 200, 40);
  xdo ("click 1");
  settle (300);
  g_assert_true (in_view (window, view));

  press ("Tab");
  after = focus_of (window);
  g_assert_nonnull (after);
  g_assert_false (in_view (window, view));

  press ("shift+Tab");
  g_assert_true (in_view (window, view));
  for (guint i = 0; in_view (window, view) && i < rows + 10; i++)
    {
      stops++;
      press ("Tab");
    }
  g_assert_cmpuint (stops, ==, 1);
  g_assert_true (focus_of (window) == after);

  gtk_window_destroy (GTK_WINDOW (window));
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
  g_test_add_func ("/compare-keys/tab-order", test_tab_order);
  g_test_add_func ("/compare-keys/summary-tab-order", test_summary_tab_order);

  ret = g_test_run ();
  g_clear_object (&app);
  return ret;
}
