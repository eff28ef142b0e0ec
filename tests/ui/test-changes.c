/* test-changes.c: change points marked on the overview, chosen by a click and by ]
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A generated metrics file (seeded): 20 series of 600 points a second,
 * level 10 and σ 1, where s7 rises by 1 σ at 300 s. Once it is read the
 * window finds its change points; a real click (xdotool) on the mark on
 * the overview strip sets A to the stretch before the change and B to the
 * stretch after it, and the compare table's top row is s7 (a drag that
 * starts on the mark chooses nothing). Escape clears
 * the ranges and ] (a real key press) sets them again. Two such files
 * merged are searched each on its own (test_changes_merged()).
 * TSL_CHANGES_SHOT=PATH
 * saves a screenshot of the window.
 */
#include "config.h"

#include <math.h>

#include <glib/gstdio.h>

#include "tsl-application.h"
#include "tsl-snapshot.h"
#include "tsl-window-private.h"
#include "test-ui-input.h"
#include "test-ui-util.h"

#define SERIES  20
#define POINTS  600
#define CHANGED 7
#define SHIFT_S 300

static TslApplication *app;

static gboolean
changes_found (gpointer window)
{
  return _tsl_window_changes_get_rows (window) != NULL;
}

static gboolean
has_ranges (gpointer window)
{
  TslWindow *self = window;

  return tsl_timeline_view_get_range (self->timeline, TSL_RANGE_A, NULL, NULL) &&
         tsl_timeline_view_get_range (self->timeline, TSL_RANGE_B, NULL, NULL);
}

/* Done, and B ends somewhere. */
static gboolean
compare_done_with_b (gpointer data)
{
  TslWindow *window = data;

  return compare_done (window) &&
         tsl_compare_panel_get_request (window->compare_panel) != NULL &&
         tsl_compare_panel_get_request (window->compare_panel)->b.end > 0;
}

/* SERIES series of POINTS points, level 10 and σ 1; series `changed` rises
 * by 1 σ at `shift_s`. */
static char *
write_file (const char *dir,
            const char *name,
            guint       changed,
            guint       shift_s,
            guint32     seed)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (seed);
  g_autoptr(GString) text = g_string_new ("ts");
  char *path = g_build_filename (dir, name, NULL);
  g_autoptr(GError) error = NULL;

  for (guint s = 0; s < SERIES; s++)
    g_string_append_printf (text, ",s%u", s);
  g_string_append_c (text, '\n');
  for (guint t = 0; t < POINTS; t++)
    {
      g_string_append_printf (text, "%u", t);
      for (guint s = 0; s < SERIES; s++)
        {
          /* Box–Muller: one normal draw per cell. */
          double u = g_rand_double (rand), v = g_rand_double (rand);
          double z = sqrt (-2 * log (1 - u)) * cos (2 * G_PI * v);
          char buf[G_ASCII_DTOSTR_BUF_SIZE];

          z += 10 + (s == changed && t >= shift_s ? 1 : 0);
          g_string_append_printf (text, ",%s", g_ascii_formatd (buf, sizeof buf, "%.6f", z));
        }
      g_string_append_c (text, '\n');
    }
  g_assert_true (g_file_set_contents (path, text->str, (gssize) text->len, &error));
  g_assert_no_error (error);
  return path;
}

static void
save_shot (const char *suffix)
{
  const char *path = g_getenv ("TSL_CHANGES_SHOT");
  g_autofree char *command = NULL;

  if (path == NULL)
    return;
  settle (300);
  command = g_strdup_printf ("import -window root %s-%s.png", path, suffix);
  g_assert_true (g_spawn_command_line_sync (command, NULL, NULL, NULL, NULL));
}

/* A and B either side of the change, each reaching the file's end, and the
 * compare table's top row the changed series. */
static void
assert_around_change (TslWindow *window,
                      gint64     change_ns,
                      gint64     span)
{
  g_autoptr(TslCompareItem) top = NULL;
  gint64 a0, a1, b0, b1;

  g_assert_true (tsl_timeline_view_get_range (window->timeline, TSL_RANGE_A, &a0, &a1));
  g_assert_true (tsl_timeline_view_get_range (window->timeline, TSL_RANGE_B, &b0, &b1));
  g_assert_cmpint (a0, ==, 0);
  g_assert_cmpint (a1, ==, change_ns);
  g_assert_cmpint (b0, ==, change_ns);
  g_assert_cmpint (b1, ==, span);
  g_assert_cmpint (_tsl_window_changes_get_current (window), ==, 0);

  iterate_until (compare_done_with_b, window, 120000);
  top = g_list_model_get_item (tsl_compare_panel_get_model (window->compare_panel), 0);
  g_assert_cmpstr (tsl_compare_item_get_row (top)->series, ==, "s7");
  g_assert_true (tsl_compare_item_get_row (top)->significant);
}

static void
test_changes_window (void)
{
  TslWindow *window = tsl_window_new (app);
  g_autofree char *dir = g_dir_make_tmp ("tsl-changes-XXXXXX", NULL);
  g_autofree char *path = write_file (dir, "shift.csv", CHANGED, SHIFT_S, 37);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  const TslChangeRow *row;
  GPtrArray *rows;
  gint64 change_ns, span;
  double x, y;

  gtk_window_set_default_size (GTK_WINDOW (window), 1400, 900);
  gtk_window_present (GTK_WINDOW (window));
  iterate_until (is_mapped, window, 10000);

  tsl_window_open (window, file);
  iterate_until (is_done_loading, window, 60000);
  iterate_until (changes_found, window, 60000);
  span = tsl_snapshot_get_span (tsl_timeline_view_get_snapshot (window->timeline));

  /* s7's shift is found, first, within ±2 % of the span of its time. */
  rows = _tsl_window_changes_get_rows (window);
  g_assert_cmpuint (rows->len, >=, 1);
  row = g_ptr_array_index (rows, 0);
  g_assert_cmpstr (row->series, ==, "s7");
  g_assert_true (row->significant);
  g_assert_cmpfloat (fabs (row->time_s - SHIFT_S), <=, 0.02 * POINTS);
  change_ns = (gint64) llround (row->time_s * 1e9);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (window->changes_button)));
  g_assert_false (has_ranges (window));
  settle (300);
  save_shot ("found");

  /* A drag that starts on the mark pans (the view shows everything, so it
   * stays) and chooses nothing. */
  x = tsl_overview_time_to_x (window->overview, (double) change_ns);
  y = gtk_widget_get_height (GTK_WIDGET (window->overview)) / 2.0;
  pointer_to (window, GTK_WIDGET (window->overview), x + 1, y);
  xdo ("mousedown 1");
  settle (50);
  for (int i = 1; i <= 4; i++)
    pointer_to (window, GTK_WIDGET (window->overview), x + 1 + 15 * i, y);
  xdo ("mouseup 1");
  settle (200);
  g_assert_false (has_ranges (window));
  g_assert_cmpint (_tsl_window_changes_get_current (window), ==, -1);

  /* A click on the mark on the overview strip. */
  pointer_to (window, GTK_WIDGET (window->overview), x + 1, y);
  xdo ("click 1");
  iterate_until (has_ranges, window, 10000);
  assert_around_change (window, change_ns, span);
  save_shot ("chosen");

  /* Escape clears the ranges; ] chooses the first change again. */
  gtk_widget_grab_focus (GTK_WIDGET (window->timeline));
  xdo ("key Escape");
  settle (300);
  g_assert_false (has_ranges (window));
  xdo ("key bracketright");
  iterate_until (has_ranges, window, 10000);
  assert_around_change (window, change_ns, span);

  gtk_window_destroy (GTK_WINDOW (window));
  g_assert_cmpint (g_unlink (path), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

/* A label under `widget` that starts with `prefix`. */
static gboolean
has_label (GtkWidget  *widget,
           const char *prefix)
{
  if (GTK_IS_LABEL (widget) && g_str_has_prefix (gtk_label_get_label (GTK_LABEL (widget)), prefix))
    return TRUE;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL; child = gtk_widget_get_next_sibling (child))
    if (has_label (child, prefix))
      return TRUE;
  return FALSE;
}

static int wanted_change;

static gboolean
is_wanted_change (gpointer window)
{
  return _tsl_window_changes_get_current (window) == wanted_change;
}

/* A real click on listed change `index`'s mark on the overview; A and B are
 * then within file `file`, either side of the change, and the compare reads
 * that file and puts its changed series first. */
static void
click_merged_mark (TslWindow  *window,
                   guint       index,
                   guint       file,
                   const char *path,
                   const char *series)
{
  const TslChangeRow *row = g_ptr_array_index (_tsl_window_changes_get_rows (window), index);
  const TslCompareRequest *request;
  g_autoptr(TslCompareItem) top = NULL;
  gint64 position, span, change_ns, a0, a1, b0, b1;
  double x, y;

  g_assert_true (tsl_snapshot_get_part (tsl_timeline_view_get_snapshot (window->timeline), file, NULL, &position, &span));
  change_ns = position + (gint64) llround (row->time_s * 1e9);
  x = tsl_overview_time_to_x (window->overview, (double) change_ns);
  y = gtk_widget_get_height (GTK_WIDGET (window->overview)) / 2.0;
  pointer_to (window, GTK_WIDGET (window->overview), x + 1, y);
  wanted_change = (int) index;
  xdo ("click 1");
  iterate_until (is_wanted_change, window, 10000);

  g_assert_true (tsl_timeline_view_get_range (window->timeline, TSL_RANGE_A, &a0, &a1));
  g_assert_true (tsl_timeline_view_get_range (window->timeline, TSL_RANGE_B, &b0, &b1));
  g_assert_cmpint (tsl_timeline_view_get_range_group (window->timeline, TSL_RANGE_A), ==, file + 1);
  g_assert_cmpint (tsl_timeline_view_get_range_group (window->timeline, TSL_RANGE_B), ==, file + 1);
  g_assert_cmpint (a0, ==, position);
  g_assert_cmpint (a1, ==, change_ns);
  g_assert_cmpint (b0, ==, change_ns);
  g_assert_cmpint (ABS (b1 - (position + span)), <=, 1);

  iterate_until (compare_done_with_b, window, 120000);
  request = tsl_compare_panel_get_request (window->compare_panel);
  g_assert_cmpstr (request->path, ==, path);
  g_assert_true (request->path_b == NULL || g_str_equal (request->path_b, path));
  top = g_list_model_get_item (tsl_compare_panel_get_model (window->compare_panel), 0);
  g_assert_cmpstr (tsl_compare_item_get_row (top)->series, ==, series);
  g_assert_true (tsl_compare_item_get_row (top)->significant);
}

/* Two files merged, 700 s apart: first.csv's s3 rises at 200 s and
 * second.csv's s12 at 400 s. Each file is searched on its own: every
 * significant change is its file's shifted series, at its time in that
 * file, listed with the file's name; a click on a mark sets A and B within
 * that file, and after the file moves its mark moves with it. */
static void
test_changes_merged (void)
{
  TslWindow *window = tsl_window_new (app);
  g_autofree char *dir = g_dir_make_tmp ("tsl-changes-XXXXXX", NULL);
  g_autofree char *first = write_file (dir, "first.csv", 3, 200, 41);
  g_autofree char *second = write_file (dir, "second.csv", 12, 400, 43);
  const char *paths[] = { first, second };
  const char *series[] = { "s3", "s12" };
  const guint shift_s[] = { 200, 400 };
  g_autoptr(GFile) file_a = g_file_new_for_path (first);
  g_autoptr(GFile) file_b = g_file_new_for_path (second);
  GFile *files[] = { file_a, file_b };
  const gint64 offsets[] = { 0, G_GINT64_CONSTANT (700000000000) };
  int listed[2] = { -1, -1 };
  GPtrArray *rows;

  gtk_window_set_default_size (GTK_WINDOW (window), 1400, 900);
  gtk_window_present (GTK_WINDOW (window));
  iterate_until (is_mapped, window, 10000);

  tsl_window_open_merged (window, files, 2, offsets);
  iterate_until (is_done_loading, window, 60000);
  iterate_until (changes_found, window, 120000);

  rows = _tsl_window_changes_get_rows (window);
  for (guint i = 0; i < rows->len; i++)
    {
      const TslChangeRow *row = g_ptr_array_index (rows, i);
      guint file = _tsl_window_changes_get_file (window, i);

      g_assert_cmpuint (file, <, 2);
      g_assert_cmpstr (row->series, ==, series[file]);
      g_assert_true (row->significant);
      g_assert_cmpfloat (fabs (row->time_s - shift_s[file]), <=, 0.02 * POINTS);
      if (listed[file] < 0)
        listed[file] = (int) i;
    }
  g_assert_cmpint (listed[0], >=, 0);
  g_assert_cmpint (listed[1], >=, 0);
  g_assert_true (has_label (GTK_WIDGET (window->changes_list), "first.csv: s3 · "));
  g_assert_true (has_label (GTK_WIDGET (window->changes_list), "second.csv: s12 · "));
  settle (300);
  save_shot ("merged");

  click_merged_mark (window, (guint) listed[1], 1, second, "s12");
  save_shot ("merged-chosen");
  click_merged_mark (window, (guint) listed[0], 0, first, "s3");

  /* second.csv moves 100 s later: its mark and ranges follow. */
  tsl_window_set_file_offset (window, 1, G_GINT64_CONSTANT (800000000000));
  settle (300);
  click_merged_mark (window, (guint) listed[1], 1, second, "s12");

  gtk_window_destroy (GTK_WINDOW (window));
  for (guint i = 0; i < G_N_ELEMENTS (paths); i++)
    g_assert_cmpint (g_unlink (paths[i]), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
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

  g_test_add_func ("/changes/window", test_changes_window);
  g_test_add_func ("/changes/merged", test_changes_merged);

  ret = g_test_run ();
  g_clear_object (&app);
  return ret;
}
