/* test-compare-cells.c: what the compare table's cells say beyond their text
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * An interval with an infinite end (Fieller's, where range A's value is not
 * told from 0) says why in its tooltip; a bounded one has none, also in a
 * cell that showed an unbounded one before.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "tsl-application.h"
#include "tsl-compare-item.h"
#include "tsl-window-private.h"
#include "test-ui-input.h"
#include "test-ui-util.h"

static TslApplication *app;

static gboolean
compare_shown (gpointer data)
{
  TslWindow *window = data;
  GtkWidget *view = GTK_WIDGET (tsl_compare_panel_get_column_view (window->compare_panel));

  return compare_done (window) && gtk_widget_get_mapped (view) && gtk_widget_get_height (view) > 0;
}

/* The mapped labels under `widget` that show an interval ("a … b"). */
static void
collect_intervals (GtkWidget *widget,
                   GPtrArray *labels)
{
  if (GTK_IS_LABEL (widget) && gtk_widget_get_mapped (widget) &&
      strstr (gtk_label_get_label (GTK_LABEL (widget)), " … ") != NULL)
    g_ptr_array_add (labels, widget);
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child; child = gtk_widget_get_next_sibling (child))
    collect_intervals (child, labels);
}

/* Shows the rows whose series holds `filter`; counts their interval cells
 * with an infinite end and the bounded ones, checking each one's tooltip. */
static void
check_tooltips (TslWindow  *window,
                const char *filter,
                guint      *unbounded,
                guint      *bounded)
{
  GtkWidget *view = GTK_WIDGET (tsl_compare_panel_get_column_view (window->compare_panel));
  g_autoptr(GPtrArray) labels = g_ptr_array_new ();

  tsl_compare_panel_set_filter (window->compare_panel, filter);
  settle (300);
  collect_intervals (view, labels);
  *unbounded = *bounded = 0;
  for (guint i = 0; i < labels->len; i++)
    {
      GtkWidget *label = g_ptr_array_index (labels, i);
      const char *text = gtk_label_get_label (GTK_LABEL (label));
      const char *tooltip = gtk_widget_get_tooltip_text (label);

      g_test_message ("“%s”: %s", text, tooltip != NULL ? tooltip : "(no tooltip)");
      if (strstr (text, "∞") != NULL)
        {
          (*unbounded)++;
          g_assert_nonnull (tooltip);
          g_assert_true (g_str_has_prefix (tooltip, "Unbounded: range A’s value cannot be told apart from zero"));
          g_assert_nonnull (strstr (tooltip, g_str_has_suffix (text, "… +∞") && !g_str_has_prefix (text, "−∞")
                                             ? "no upper limit at 95 % confidence"
                                             : "at 95 % confidence"));
        }
      else
        {
          (*bounded)++;
          g_assert_null (tooltip);
        }
    }
}

/* A Chromium recording's second half against its first: rows whose A is
 * a few slow calls have intervals "−99.8 % … +∞". */
static void
test_unbounded_interval (void)
{
  TslWindow *window = tsl_window_new (app);
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "perfetto",
                                                 "chromium-startup.pftrace.zst", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  GListModel *model;
  g_autofree char *series = NULL;
  guint unbounded, bounded, n_infinite = 0;
  gint64 span;

  gtk_window_present (GTK_WINDOW (window));
  iterate_until (is_mapped, window, 10000);
  tsl_window_open (window, file);
  iterate_until (is_done_loading, window, 60000);
  span = tsl_snapshot_get_span (tsl_timeline_view_get_snapshot (window->timeline));
  tsl_timeline_view_set_range (window->timeline, TSL_RANGE_A, 0, span / 2);
  tsl_timeline_view_set_range (window->timeline, TSL_RANGE_B, span / 2, span);
  iterate_until (compare_shown, window, 120000);
  settle (300);

  /* The item says why for exactly the rows with an infinite end. */
  model = tsl_compare_panel_get_model (window->compare_panel);
  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr(TslCompareItem) item = g_list_model_get_item (model, i);
      const TslCompareRow *row = tsl_compare_item_get_row (item);
      g_autofree char *why = tsl_compare_item_dup_unbounded (item);

      g_assert_true ((why != NULL) == (isinf (row->ci_low) || isinf (row->ci_high)));
      if (isinf (row->ci_high) && !isinf (row->ci_low) && series == NULL)
        series = g_strdup (row->series);
      n_infinite += why != NULL;
    }
  g_test_message ("%u of %u rows unbounded", n_infinite, g_list_model_get_n_items (model));
  g_assert_nonnull (series);

  /* Its rows: the unbounded interval's cell has the tooltip. */
  check_tooltips (window, series, &unbounded, &bounded);
  g_assert_cmpuint (unbounded, >=, 1);

  /* Every row: the cells, reused, keep no stale tooltip. */
  check_tooltips (window, "", &unbounded, &bounded);
  g_assert_cmpuint (bounded, >=, 1);

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
  g_test_add_func ("/compare-cells/unbounded-interval", test_unbounded_interval);

  ret = g_test_run ();
  g_clear_object (&app);
  return ret;
}
