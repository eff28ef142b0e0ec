/* test-export-view.c: the window's export is what the window shows
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Issue 32, item 7: a view's PNG/PDF was one picture of every track
 * (1570 × 9790 pt for a browser trace); it is now the window's visible
 * tracks at the window's scale and scroll, with a title and the note, and
 * a PDF is on the locale's paper.
 */
#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "tsl-application.h"
#include "tsl-export.h"
#include "tsl-render.h"
#include "tsl-window-private.h"
#include "test-ui-input.h"
#include "test-ui-util.h"

#define THREADS 80

static TslApplication *app;

static gboolean
file_has_content (gpointer file)
{
  g_autoptr(GFileInfo) info = g_file_query_info (file, G_FILE_ATTRIBUTE_STANDARD_SIZE,
                                                 G_FILE_QUERY_INFO_NONE, NULL, NULL);
  return info != NULL && g_file_info_get_size (info) > 0;
}

static gboolean
contains (const char *data,
          gsize       len,
          const char *text)
{
  gsize n = strlen (text);

  for (gsize i = 0; i + n <= len; i++)
    if (memcmp (data + i, text, n) == 0)
      return TRUE;
  return FALSE;
}

/* Exports to dir/name and waits for the file. */
static GFile *
export (TslWindow  *window,
        const char *dir,
        const char *name)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  GFile *file = g_file_new_for_path (path);

  _tsl_window_export_to (window, file, FALSE);
  iterate_until (file_has_content, file, 30000);
  settle (100);
  return file;
}

static void
test_export_shown (void)
{
  TslWindow *window = tsl_window_new (app);
  g_autofree char *dir = g_dir_make_tmp ("flows-ui-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "threads.json", NULL);
  g_autoptr(GFile) trace = g_file_new_for_path (path);
  g_autoptr(GString) json = g_string_new ("{\"traceEvents\": [");
  g_autoptr(GFile) top = NULL, scrolled = NULL, pdf = NULL;
  g_autofree char *top_path = NULL, *scrolled_path = NULL, *pdf_data = NULL;
  cairo_surface_t *a, *b;
  TslRenderOptions o, titled;
  TslSnapshot *shown;
  double want;
  gsize len = 0;
  guint pages = 0;

  for (guint t = 1; t <= THREADS; t++)
    g_string_append_printf (json, "%s{\"ph\": \"X\", \"name\": \"work%u\", \"pid\": 1, \"tid\": %u, \"ts\": %u, \"dur\": 50}",
                            t > 1 ? ", " : "", t, t, t);
  g_string_append (json, "]}\n");
  g_assert_true (g_file_set_contents (path, json->str, -1, NULL));

  gtk_window_set_default_size (GTK_WINDOW (window), 1200, 700);
  gtk_window_present (GTK_WINDOW (window));
  iterate_until (is_mapped, window, 10000);
  tsl_window_open (window, trace);
  iterate_until (is_done_loading, window, 60000);
  settle (300);

  shown = tsl_timeline_view_get_shown_snapshot (window->timeline);
  tsl_timeline_view_get_render_options (window->timeline, &o);
  titled = o;
  titled.title = "threads.json";
  titled.draw_note = TRUE;
  /* Far more tracks than the window shows. */
  g_assert_cmpfloat (tsl_render_content_height (shown, &o), >, 3 * o.height);

  /* The PNG is the window's width and its visible tracks, with a title
   * and the note: not every track. */
  top = export (window, dir, "top.png");
  top_path = g_file_get_path (top);
  a = cairo_image_surface_create_from_png (top_path);
  g_assert_cmpint (cairo_surface_status (a), ==, CAIRO_STATUS_SUCCESS);
  want = tsl_render_header_height (&titled) + (o.height - tsl_render_header_height (&o)) +
         TSL_EXPORT_NOTE_HEIGHT + 8;
  g_assert_cmpint (cairo_image_surface_get_width (a), ==, (int) o.width);
  g_assert_cmpint (ABS (cairo_image_surface_get_height (a) - (int) want), <=, 1);
  g_assert_cmpfloat (cairo_image_surface_get_height (a), <, tsl_export_natural_height (shown, &titled) / 2);

  /* Scrolled down with the wheel: the export follows the scroll. */
  pointer_to (window, GTK_WIDGET (window->timeline), o.width / 2, o.height / 2);
  xdo ("click 5 click 5 click 5 click 5 click 5");
  settle (300);
  g_assert_cmpfloat (gtk_adjustment_get_value (tsl_timeline_view_get_vadjustment (window->timeline)), >, 0);
  scrolled = export (window, dir, "scrolled.png");
  scrolled_path = g_file_get_path (scrolled);
  b = cairo_image_surface_create_from_png (scrolled_path);
  /* The window's layout may settle between the two exports (a note or the
   * panel can take or give back a few rows): each export is measured
   * against the view as it is when it is made. */
  {
    TslRenderOptions now, now_titled;
    int rows;

    tsl_timeline_view_get_render_options (window->timeline, &now);
    now_titled = now;
    now_titled.title = "threads.json";
    now_titled.draw_note = TRUE;
    want = tsl_render_header_height (&now_titled) + (now.height - tsl_render_header_height (&now)) +
           TSL_EXPORT_NOTE_HEIGHT + 8;
    g_assert_cmpint (cairo_image_surface_get_width (b), ==, (int) now.width);
    g_assert_cmpint (ABS (cairo_image_surface_get_height (b) - (int) want), <=, 1);

    /* Scrolled, the tracks drawn differ from the top's. */
    rows = MIN (cairo_image_surface_get_height (a), cairo_image_surface_get_height (b));
    cairo_surface_flush (a);
    cairo_surface_flush (b);
    g_assert_cmpint (cairo_image_surface_get_stride (a), ==, cairo_image_surface_get_stride (b));
    g_assert_true (memcmp (cairo_image_surface_get_data (a), cairo_image_surface_get_data (b),
                           (gsize) cairo_image_surface_get_stride (a) * rows) != 0);
  }
  cairo_surface_destroy (a);
  cairo_surface_destroy (b);

  /* A PDF of what is shown fits one page of the locale's paper (A4). */
  pdf = export (window, dir, "shown.pdf");
  g_assert_true (g_file_load_contents (pdf, NULL, &pdf_data, &len, NULL, NULL));
  /* Byte by byte: the streams hold NUL bytes. */
  for (gsize i = 0; i + 12 <= len; i++)
    pages += memcmp (pdf_data + i, "/Type /Page", 11) == 0 && pdf_data[i + 11] != 's';
  g_assert_cmpuint (pages, ==, 1);
  g_assert_true (contains (pdf_data, len, "/MediaBox [ 0 0 841.889764 595.275591 ]"));

  gtk_window_destroy (GTK_WINDOW (window));
  g_file_delete (top, NULL, NULL);
  g_file_delete (scrolled, NULL, NULL);
  g_file_delete (pdf, NULL, NULL);
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

  g_test_add_func ("/export-view/shown", test_export_shown);

  ret = g_test_run ();
  g_clear_object (&app);
  return ret;
}
