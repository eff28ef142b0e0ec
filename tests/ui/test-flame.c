/* test-flame.c: the flame graph view and call tree under a real display
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <adwaita.h>
#include <glib/gstdio.h>
#include <math.h>
#include <unistd.h>

#include "tsl-call-tree.h"
#include "tsl-flame-view.h"
#include "tsl-read-stream.h"
#include "tsl-snapshot.h"
#include "test-ui-input.h"
#include "test-ui-util.h"

static gboolean
is_idle (gpointer view)
{
  return !tsl_flame_view_get_busy (view);
}

static TslSnapshot *
example_snapshot (void)
{
  g_autofree char *path = g_build_filename (g_getenv ("TSL_EXAMPLES_DIR"), "example-trace.json", NULL);
  g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_TIME, 2000, 0x5EED);
  g_autoptr(GError) error = NULL;

  g_assert_true (tsl_read_path (trace, path, NULL, NULL, NULL, &error));
  g_assert_no_error (error);
  return tsl_snapshot_new (trace);
}

/* Where a frame is drawn: scans the view's column at the frame's centre. */
static gboolean
find_frame (TslFlameView       *view,
            const TslFlameNode *node,
            double             *x,
            double             *y)
{
  TslFlameRenderOptions o;

  tsl_flame_view_get_render_options (view, &o);
  *x = 10 + (node->x + node->width / 2) * (o.width - 20);
  for (*y = 0; *y < o.height; *y += 2)
    if (tsl_render_flame_hit_test (tsl_flame_view_get_flame (view), &o, *x, *y) == node)
      return TRUE;
  return FALSE;
}

static void
test_range_zoom_diff (void)
{
  g_autoptr(TslSnapshot) snapshot = example_snapshot ();
  GtkWidget *window = gtk_window_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *scroller = gtk_scrolled_window_new ();
  TslFlameView *view = TSL_FLAME_VIEW (tsl_flame_view_new ());
  TslCallTree *tree = TSL_CALL_TREE (tsl_call_tree_new ());
  gint64 span = tsl_snapshot_get_span (snapshot);
  const TslFlameNode *root, *widest = NULL, *resize;
  TslFlame *flame;
  GListModel *rows;
  guint n_rows;
  double x, y;

  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 700);
  gtk_widget_set_vexpand (scroller, TRUE);
  gtk_widget_set_size_request (GTK_WIDGET (tree), -1, 200);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), GTK_WIDGET (view));
  gtk_box_append (GTK_BOX (box), scroller);
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (tree));
  gtk_window_set_child (GTK_WINDOW (window), box);

  /* Range A selected: its flame graph, every worker merged. */
  tsl_flame_view_set_snapshot (view, snapshot);
  tsl_flame_view_set_ranges (view, TRUE, span * 17 / 100, span * 35 / 100, TRUE, span * 55 / 100, span * 74 / 100);
  tsl_flame_view_set_mode (view, TSL_FLAME_MODE_A);
  gtk_window_present (GTK_WINDOW (window));
  iterate_until (is_laid_out, view, 10000);
  iterate_until (is_idle, view, 10000);

  flame = tsl_flame_view_get_flame (view);
  g_assert_nonnull (flame);
  g_assert_false (tsl_flame_is_diff (flame));
  root = tsl_flame_get_root (flame);
  g_assert_cmpfloat (root->total, >, 0);
  for (guint i = 0; i < root->n_children; i++)
    if (widest == NULL || root->children[i]->total > widest->total)
      widest = root->children[i];
  g_assert_cmpstr (widest->name, ==, "process_tile");

  /* The call tree lists the same top frames, heaviest first, and expands;
   * the heaviest is the row selected (the first appended stayed selected,
   * and in view, as heavier rows sorted in above it). */
  tsl_call_tree_set_flame (tree, flame);
  rows = tsl_call_tree_get_model (tree);
  n_rows = g_list_model_get_n_items (rows);
  g_assert_cmpuint (n_rows, >=, 2);
  g_assert_cmpuint (gtk_single_selection_get_selected (GTK_SINGLE_SELECTION (rows)), ==, 0);
  {
    g_autoptr(GtkTreeListRow) first = g_list_model_get_item (rows, 0);
    g_autoptr(GObject) item = gtk_tree_list_row_get_item (first);

    g_assert_nonnull (item);
    g_assert_true (gtk_tree_list_row_is_expandable (first));
    gtk_tree_list_row_set_expanded (first, TRUE);
    g_assert_cmpuint (g_list_model_get_n_items (rows), >, n_rows);
  }

  /* A click on process_tile zooms into it; Backspace's action zooms out. */
  g_assert_true (find_frame (view, widest, &x, &y));
  g_assert_true (tsl_flame_view_click (view, x, y));
  g_assert_true (tsl_flame_view_get_zoom (view) == widest);
  gtk_widget_activate_action (GTK_WIDGET (view), "flame.zoom-out", NULL);
  g_assert_null (tsl_flame_view_get_zoom (view));

  /* Zoom survives a rebuild (B's tree has the same path). */
  tsl_flame_view_zoom_to (view, widest);
  tsl_flame_view_set_mode (view, TSL_FLAME_MODE_B);
  g_assert_cmpstr (tsl_flame_view_get_zoom (view)->name, ==, "process_tile");

  /* Both ranges: the differential graph, computed off the main thread. */
  gtk_widget_activate_action (GTK_WIDGET (view), "flame.set-mode", "s", "diff");
  g_assert_cmpint (tsl_flame_view_get_mode (view), ==, TSL_FLAME_MODE_DIFF);
  g_assert_true (tsl_flame_view_get_busy (view));
  iterate_until (is_idle, view, 60000);
  flame = tsl_flame_view_get_flame (view);
  g_assert_nonnull (flame);
  g_assert_true (tsl_flame_is_diff (flame));
  resize = tsl_flame_find (flame, (const char *[]) { "process_tile", "resize" }, 2);
  g_assert_nonnull (resize);
  g_assert_true (resize->diff->tested);
  g_assert_cmpfloat (resize->diff->change, >, 0);
  g_assert_true (resize->diff->significant);
  tsl_call_tree_set_flame (tree, flame);

  /* Icicle and merge toggles are actions too. */
  gtk_widget_activate_action (GTK_WIDGET (view), "flame.icicle", NULL);
  g_assert_true (tsl_flame_view_get_icicle (view));
  gtk_widget_activate_action (GTK_WIDGET (view), "flame.merge-threads", NULL);
  g_assert_false (tsl_flame_view_get_merge_threads (view));
  tsl_flame_view_set_mode (view, TSL_FLAME_MODE_WHOLE);
  iterate_until (is_idle, view, 10000);
  root = tsl_flame_get_root (tsl_flame_view_get_flame (view));
  g_assert_true (root->children[0]->is_thread);

  /* Without ranges the differential mode says what it needs. */
  tsl_flame_view_set_mode (view, TSL_FLAME_MODE_DIFF);
  tsl_flame_view_set_ranges (view, FALSE, 0, 0, FALSE, 0, 0);
  iterate_until (is_idle, view, 10000);
  g_assert_null (tsl_flame_view_get_flame (view));

  gtk_window_destroy (GTK_WINDOW (window));
}

static GtkWidget *
find_column_view (GtkWidget *widget)
{
  if (GTK_IS_COLUMN_VIEW (widget))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child; child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_column_view (child);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static gboolean
column_shown (TslCallTree *tree,
              const char  *title)
{
  GtkWidget *view = find_column_view (GTK_WIDGET (tree));
  GListModel *columns = gtk_column_view_get_columns (GTK_COLUMN_VIEW (view));

  for (guint c = 0; c < g_list_model_get_n_items (columns); c++)
    {
      g_autoptr(GtkColumnViewColumn) column = g_list_model_get_item (columns, c);

      if (gtk_column_view_column_get_visible (column) &&
          g_strcmp0 (gtk_column_view_column_get_title (column), title) == 0)
        return TRUE;
    }
  return FALSE;
}

/* Issue 31: the differential tree's columns are the layout's shares, named
 * for what they are, and a frame absent from A reads "new in B". */
static void
test_diff_columns (void)
{
  g_autoptr(TslSnapshot) snapshot = example_snapshot ();
  g_autoptr(TslCompareRequest) request = tsl_compare_request_new ();
  g_autoptr(TslFlame) flame = NULL;
  g_autoptr(GPtrArray) texts = g_ptr_array_new ();
  GtkWidget *window = gtk_window_new ();
  TslCallTree *tree = TSL_CALL_TREE (tsl_call_tree_new ());
  TslFlameSelection selection = { NULL, 0, TRUE, TSL_FLAME_WEIGHT_AUTO };
  gint64 span = tsl_snapshot_get_span (snapshot);
  const TslFlameNode *root, *only_b = NULL;

  request->rounds = 200;
  /* A short range A misses some top frames that B, longer, holds. */
  for (guint k = 10; k < 40 && only_b == NULL; k++)
    {
      g_clear_pointer (&flame, tsl_flame_unref);
      flame = tsl_flame_new_diff (snapshot, span * k / 100, span * k / 100 + span / 400, snapshot,
                                  span * 55 / 100, span * 74 / 100, &selection, request, NULL, NULL);
      g_assert_nonnull (flame);
      root = tsl_flame_get_root (flame);
      for (guint i = 0; i < root->n_children && only_b == NULL; i++)
        if (root->children[i]->diff->a_width == 0 && root->children[i]->diff->b_width > 0)
          only_b = root->children[i];
    }
  g_assert_nonnull (only_b);

  gtk_window_set_default_size (GTK_WINDOW (window), 900, 600);
  gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (tree));
  tsl_call_tree_set_flame (tree, flame);
  gtk_window_present (GTK_WINDOW (window));
  iterate_until (is_laid_out, tree, 10000);
  for (guint i = 0; i < 50; i++)
    g_main_context_iteration (NULL, FALSE);

  g_assert_true (column_shown (tree, "Self in B"));
  g_assert_true (column_shown (tree, "Total in A"));
  g_assert_true (column_shown (tree, "Total in B"));
  g_assert_true (column_shown (tree, "Change A → B"));
  /* Total is B's: shown once, as "Total in B". */
  g_assert_false (column_shown (tree, "Total"));

  collect_labels (GTK_WIDGET (tree), texts);
  g_assert_true (has_text (texts, only_b->name));
  g_assert_true (has_text (texts, "new in B"));
  g_assert_false (has_text (texts, "new"));

  gtk_window_destroy (GTK_WINDOW (window));
}

static gboolean
focus_in (GtkWidget *window,
          GtkWidget *widget)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (window));

  return focus != NULL && (focus == widget || gtk_widget_is_ancestor (focus, widget));
}

/* The call tree is one stop of the Tab chain, however many rows it has:
 * real key presses between a button before it and one after. */
static void
test_call_tree_tab (void)
{
  g_autoptr(TslSnapshot) snapshot = example_snapshot ();
  TslFlameSelection selection = { NULL, 0, TRUE, TSL_FLAME_WEIGHT_AUTO };
  GtkWidget *window = gtk_window_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *before = gtk_button_new_with_label ("before");
  GtkWidget *after = gtk_button_new_with_label ("after");
  TslCallTree *tree = TSL_CALL_TREE (tsl_call_tree_new ());
  TslFlame *flame = tsl_flame_new (snapshot, &selection, 0, tsl_snapshot_get_span (snapshot));
  guint stops = 0;

  gtk_window_set_default_size (GTK_WINDOW (window), 900, 600);
  gtk_widget_set_vexpand (GTK_WIDGET (tree), TRUE);
  gtk_box_append (GTK_BOX (box), before);
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (tree));
  gtk_box_append (GTK_BOX (box), after);
  gtk_window_set_child (GTK_WINDOW (window), box);
  tsl_call_tree_set_flame (tree, flame);
  gtk_window_present (GTK_WINDOW (window));
  iterate_until (is_laid_out, tree, 10000);
  settle (300);
  g_assert_cmpuint (g_list_model_get_n_items (tsl_call_tree_get_model (tree)), >, 3);

  gtk_widget_grab_focus (before);
  settle (100);
  xdo ("key Tab");
  settle (150);
  g_assert_true (focus_in (window, GTK_WIDGET (tree)));
  for (guint i = 0; focus_in (window, GTK_WIDGET (tree)) && i < 50; i++)
    {
      stops++;
      xdo ("key Tab");
      settle (150);
    }
  g_assert_cmpuint (stops, ==, 1);
  g_assert_true (focus_in (window, after));
  xdo ("key shift+Tab");
  settle (150);
  g_assert_true (focus_in (window, GTK_WIDGET (tree)));
  xdo ("key shift+Tab");
  settle (150);
  g_assert_true (focus_in (window, before));

  gtk_window_destroy (GTK_WINDOW (window));
  tsl_flame_unref (flame);
}

/* A graph deeper than its page opens at its root: the bottom, or the top
 * of an icicle. It opened at the top, a Chromium recording's 30 levels of
 * V8 frames leaving the page empty above them. */
static void
test_deep_opens_at_root (void)
{
  g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_TIME, 2000, 0x5EED);
  g_autoptr(TslSnapshot) snapshot = NULL;
  g_autoptr(GString) json = g_string_new ("[");
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;
  GtkWidget *window = gtk_window_new ();
  GtkWidget *scroller = gtk_scrolled_window_new ();
  TslFlameView *view = TSL_FLAME_VIEW (tsl_flame_view_new ());
  GtkAdjustment *adj;
  int fd;

  /* 60 nested calls, twice. */
  for (guint r = 0; r < 2; r++)
    for (guint d = 0; d < 60; d++)
      g_string_append_printf (json, "%s{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":%u,\"dur\":%u,\"name\":\"f%u\"}",
                              r + d == 0 ? "" : ",", r * 1000 + d, 900 - 10 * d, d);
  g_string_append (json, "]");
  fd = g_file_open_tmp ("tsl-deep-XXXXXX.json", &path, &error);
  g_assert_no_error (error);
  close (fd);
  g_assert_true (g_file_set_contents (path, json->str, json->len, &error));
  g_assert_true (tsl_read_path (trace, path, NULL, NULL, NULL, &error));
  g_assert_no_error (error);
  snapshot = tsl_snapshot_new (trace);

  gtk_window_set_default_size (GTK_WINDOW (window), 700, 300);
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroller), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), GTK_WIDGET (view));
  gtk_window_set_child (GTK_WINDOW (window), scroller);
  tsl_flame_view_set_snapshot (view, snapshot);
  gtk_window_present (GTK_WINDOW (window));
  iterate_until (is_laid_out, view, 10000);
  iterate_until (is_idle, view, 10000);
  settle (300);

  adj = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scroller));
  g_assert_cmpfloat (gtk_adjustment_get_upper (adj), >, 2 * gtk_adjustment_get_page_size (adj));
  g_assert_cmpfloat (fabs (gtk_adjustment_get_value (adj) -
                           (gtk_adjustment_get_upper (adj) - gtk_adjustment_get_page_size (adj))), <, 1);

  /* An icicle's root is at the top: the view stays where the user is. */
  gtk_adjustment_set_value (adj, 0);
  tsl_flame_view_set_icicle (view, TRUE);
  settle (200);
  g_assert_cmpfloat (gtk_adjustment_get_value (adj), ==, 0);
  /* Back to a flame graph: back to its root. */
  tsl_flame_view_set_icicle (view, FALSE);
  settle (200);
  g_assert_cmpfloat (fabs (gtk_adjustment_get_value (adj) -
                           (gtk_adjustment_get_upper (adj) - gtk_adjustment_get_page_size (adj))), <, 1);

  gtk_window_destroy (GTK_WINDOW (window));
  g_unlink (path);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  if (!ui_test_init ())
    return 77;

  g_test_add_func ("/flame/range-zoom-diff", test_range_zoom_diff);
  g_test_add_func ("/flame/diff-columns", test_diff_columns);
  g_test_add_func ("/flame/call-tree-tab", test_call_tree_tab);
  g_test_add_func ("/flame/deep-opens-at-root", test_deep_opens_at_root);

  return g_test_run ();
}
