/* test-flows.c: flow arrows on demand, driven by real clicks and keys
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Issue 32, item 3: a browser trace has tens of thousands of flows, so the
 * window draws only the selected slice's chain by default and every flow
 * in view on demand ("v", or Show All Flows in the main menu), with the
 * painter's one cap and note.
 */
#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "tsl-application.h"
#include "tsl-render.h"
#include "tsl-snapshot.h"
#include "tsl-window-private.h"
#include "test-ui-input.h"
#include "test-ui-util.h"

static TslApplication *app;

/* A chain A → B → C (one flow v2 id through three threads) and an
 * unrelated flow D → E, all far enough apart to click on. */
static const char trace_json[] =
  "{\"traceEvents\": [\n"
  "{\"ph\": \"X\", \"name\": \"A\", \"pid\": 1, \"tid\": 1, \"ts\": 0, \"dur\": 100, \"bind_id\": \"0xa\", \"flow_out\": true},\n"
  "{\"ph\": \"X\", \"name\": \"B\", \"pid\": 1, \"tid\": 2, \"ts\": 150, \"dur\": 200, \"bind_id\": \"0xa\", \"flow_in\": true, \"flow_out\": true},\n"
  "{\"ph\": \"X\", \"name\": \"C\", \"pid\": 1, \"tid\": 3, \"ts\": 400, \"dur\": 100, \"bind_id\": \"0xa\", \"flow_in\": true},\n"
  "{\"ph\": \"X\", \"name\": \"D\", \"pid\": 1, \"tid\": 1, \"ts\": 600, \"dur\": 100, \"bind_id\": \"0xb\", \"flow_out\": true},\n"
  "{\"ph\": \"X\", \"name\": \"E\", \"pid\": 1, \"tid\": 2, \"ts\": 750, \"dur\": 100, \"bind_id\": \"0xb\", \"flow_in\": true}\n"
  "]}\n";

static gboolean
has_selection (gpointer window)
{
  TslRenderOptions o;

  tsl_timeline_view_get_render_options (TSL_WINDOW (window)->timeline, &o);
  return o.has_selection;
}

static int
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return g_strcmp0 (*(char *const *) a, *(char *const *) b);
}

/* The names of the slices the window's flow arrows join, as "A>B" each,
 * sorted: what tsl_render_flows_shown() picks with the window's options. */
static char *
drawn_flows (TslWindow *window)
{
  TslSnapshot *shown = tsl_timeline_view_get_shown_snapshot (window->timeline);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GArray) picked = NULL;
  g_autofree char *note = NULL;
  const TslSnapshotFlow *flows;
  TslRenderOptions o;
  guint n = 0;

  tsl_timeline_view_get_render_options (window->timeline, &o);
  picked = tsl_render_flows_shown (shown, &o, &note);
  g_assert_null (note);
  flows = tsl_snapshot_get_flows (shown, &n);
  for (guint i = 0; i < picked->len; i++)
    {
      const TslSnapshotFlow *f = &flows[g_array_index (picked, guint, i)];
      const TslSnapshotTrack *from = tsl_snapshot_get_track (shown, f->from_track);
      const TslSnapshotTrack *to = tsl_snapshot_get_track (shown, f->to_track);

      g_ptr_array_add (names, g_strdup_printf ("%s>%s",
                                               tsl_snapshot_get_frame_name (shown, from->slices[f->from_slice].frame),
                                               tsl_snapshot_get_frame_name (shown, to->slices[f->to_slice].frame)));
    }
  g_ptr_array_sort (names, compare_strings);
  g_ptr_array_add (names, NULL);
  return g_strjoinv (" ", (char **) names->pdata);
}

/* Clicks the middle of the slice named `name`, found by hit tests. */
static void
click_slice (TslWindow  *window,
             const char *name)
{
  TslSnapshot *shown = tsl_timeline_view_get_shown_snapshot (window->timeline);
  TslRenderOptions o;
  TslRenderHit hit = { 0 };
  gboolean found = FALSE;
  double x, y;

  tsl_timeline_view_get_render_options (window->timeline, &o);
  for (y = tsl_render_header_height (&o) + 2; y < o.height && !found; y += 3)
    for (x = tsl_render_label_width (&o) + 2; x < o.width - 2 && !found; x += 4)
      found = tsl_render_hit_test (shown, &o, x, y, &hit) && hit.slice != NULL &&
              g_strcmp0 (tsl_snapshot_get_frame_name (shown, hit.slice->frame), name) == 0;
  g_assert_true (found);
  y -= 3;
  x = (tsl_render_time_to_x (&o, (double) hit.slice->start_ns) +
       tsl_render_time_to_x (&o, (double) hit.slice->end_ns)) / 2;
  pointer_to (window, GTK_WIDGET (window->timeline), x, y + 1);
  xdo ("click 1");
}

static void
test_flows_on_demand (void)
{
  TslWindow *window = tsl_window_new (app);
  g_autofree char *dir = g_dir_make_tmp ("flows-ui-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "flows.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  GVariant *state;
  char *text;

  g_assert_true (g_file_set_contents (path, trace_json, -1, NULL));
  gtk_window_set_default_size (GTK_WINDOW (window), 1200, 700);
  gtk_window_present (GTK_WINDOW (window));
  iterate_until (is_mapped, window, 10000);
  tsl_window_open (window, file);
  iterate_until (is_done_loading, window, 60000);
  settle (300);
  g_assert_true (tsl_snapshot_get_exact (tsl_timeline_view_get_shown_snapshot (window->timeline), NULL, NULL));

  /* Nothing selected: no arrow, and the menu's check item is off. */
  text = drawn_flows (window);
  g_assert_cmpstr (text, ==, "");
  g_free (text);
  state = g_action_group_get_action_state (G_ACTION_GROUP (window), "all-flows");
  g_assert_false (g_variant_get_boolean (state));
  g_variant_unref (state);

  /* A click on the middle of the chain: the whole chain, both ways. */
  click_slice (window, "B");
  iterate_until (has_selection, window, 10000);
  settle (200);
  text = drawn_flows (window);
  g_assert_cmpstr (text, ==, "A>B B>C");
  g_free (text);

  /* "v": every flow in view; the menu item follows. Again: back. */
  xdo ("key v");
  settle (300);
  text = drawn_flows (window);
  g_assert_cmpstr (text, ==, "A>B B>C D>E");
  g_free (text);
  state = g_action_group_get_action_state (G_ACTION_GROUP (window), "all-flows");
  g_assert_true (g_variant_get_boolean (state));
  g_variant_unref (state);
  xdo ("key v");
  settle (300);
  text = drawn_flows (window);
  g_assert_cmpstr (text, ==, "A>B B>C");
  g_free (text);

  /* A click on the other flow's end selects it instead. */
  click_slice (window, "E");
  settle (300);
  text = drawn_flows (window);
  g_assert_cmpstr (text, ==, "D>E");
  g_free (text);

  /* Closing the details ends the selection. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.close-slice", NULL));
  text = drawn_flows (window);
  g_assert_cmpstr (text, ==, "");
  g_free (text);

  /* The menu's item turns them all on too. */
  g_action_group_activate_action (G_ACTION_GROUP (window), "all-flows", NULL);
  g_assert_true (tsl_timeline_view_get_all_flows (window->timeline));

  gtk_window_destroy (GTK_WINDOW (window));
  g_unlink (path);
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

  g_test_add_func ("/flows/on-demand", test_flows_on_demand);

  ret = g_test_run ();
  g_clear_object (&app);
  return ret;
}
