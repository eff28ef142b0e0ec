/* window-view.c: a real recording zoomed in the window — rows drawn, and screenshots of its flows
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Usage (under Xvfb, 1600x1000, no window manager; see bench/check-chromium-view.py
 * for the export side):
 *   xvfb-run -a -s '-screen 0 1600x1000x24' _build/bench/window-view FILE START_S END_S OUTDIR
 * Opens FILE in a window, sets the view to [START_S, END_S) from the trace
 * start, waits for the exact detail read, scrolls the busiest thread to the
 * top and counts the bands of slice pixels on screen in its track (cells
 * are 14 px in rows of 15), against max depth + 1 of the exact slices in
 * view; checks that every slice open at an edge of the view is drawn to it
 * (a slice pixel in its row at that edge). Then grabs the screen with
 * ImageMagick's `import` three times: no flows (the default), the flows of
 * one slice (the view's slice with most arrows, selected; they must be the
 * arrows the window draws), and every flow in view (`v`). Prints "ok"/"not
 * ok" lines; exits 1 if one fails.
 */
#define G_LOG_DOMAIN "window-view"

#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib/gstdio.h>

#include "tsl-application.h"
#include "tsl-render.h"
#include "tsl-window-private.h"

static int failures;

static void
check (const char *what,
       gboolean    ok)
{
  printf ("%s %s\n", ok ? "ok" : "not ok", what);
  failures += !ok;
}

static void
settle (guint ms)
{
  gint64 until = g_get_monotonic_time () + ms * 1000;

  while (g_get_monotonic_time () < until)
    {
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
}

static gboolean
wait_for (gboolean (*done) (TslWindow *), TslWindow *window, guint timeout_ms)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) timeout_ms * 1000;

  while (!done (window))
    {
      if (g_get_monotonic_time () > deadline)
        return FALSE;
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
  return TRUE;
}

static gboolean
loaded (TslWindow *window)
{
  return gtk_widget_get_mapped (GTK_WIDGET (window)) && !tsl_window_is_loading (window) &&
         tsl_timeline_view_get_snapshot (window->timeline) != NULL;
}

static gboolean
exact_detail (TslWindow *window)
{
  TslSnapshot *shown = tsl_timeline_view_get_shown_snapshot (window->timeline);

  return shown != tsl_timeline_view_get_snapshot (window->timeline) && tsl_snapshot_get_exact (shown, NULL, NULL);
}

static void
grab (const char *outdir,
      const char *name)
{
  g_autofree char *path = g_build_filename (outdir, name, NULL);
  g_autofree char *command = g_strdup_printf ("import -window root %s", path);
  int status = 0;

  settle (1500);
  if (!g_spawn_command_line_sync (command, NULL, NULL, &status, NULL) || !g_spawn_check_wait_status (status, NULL))
    g_error ("%s failed", command);
  printf ("# screenshot %s\n", path);
}

/* The screen as RGB rows: ImageMagick's PPM of `import`. */
static guint8 *
grab_pixels (int *width,
             int *height)
{
  g_autofree char *out = NULL;
  int status = 0, header = 0;
  char *argv[] = { "import", "-window", "root", "-depth", "8", "ppm:-", NULL };

  if (!g_spawn_sync (NULL, argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL,
                     &out, NULL, &status, NULL))
    g_error ("import failed");
  if (sscanf (out, "P6 %d %d 255%n", width, height, &header) != 2 || header == 0)
    g_error ("not an 8-bit PPM");
  return g_memdup2 (out + header + 1, (gsize) *width * *height * 3);
}

static gboolean
saturated (const guint8 *p)
{
  int hi = MAX (p[0], MAX (p[1], p[2])), lo = MIN (p[0], MIN (p[1], p[2]));

  return hi - lo > 40;
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(TslApplication) app = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree guint8 *pixels = NULL;
  TslWindow *window;
  TslSnapshot *shown;
  const TslSnapshotTrack *busiest = NULL;
  TslRenderOptions o;
  gint64 start, end;
  guint busiest_index = 0, depth = 0, bands = 0, best_flows = 0, n_flows = 0;
  const TslSnapshotFlow *flows;
  const TslSnapshotSlice *chosen = NULL;
  double left, right, top, x0, y0, sx, sy;
  int width, height;
  gboolean inside = FALSE, edges_ok = TRUE;

  if (argc != 5)
    {
      fprintf (stderr, "usage: %s FILE START_S END_S OUTDIR\n", argv[0]);
      return 2;
    }
  gtk_init ();
  adw_init ();
  app = tsl_application_new ();
  g_application_set_flags (G_APPLICATION (app), G_APPLICATION_NON_UNIQUE);
  if (!g_application_register (G_APPLICATION (app), NULL, &error))
    g_error ("%s", error->message);
  start = (gint64) (g_ascii_strtod (argv[2], NULL) * 1e9);
  end = (gint64) (g_ascii_strtod (argv[3], NULL) * 1e9);

  window = tsl_window_new (app);
  gtk_window_set_default_size (GTK_WINDOW (window), 1600, 1000);
  gtk_window_present (GTK_WINDOW (window));
  file = g_file_new_for_commandline_arg (argv[1]);
  tsl_window_open (window, file);
  if (!wait_for (loaded, window, 300000))
    g_error ("not loaded");
  settle (500);

  /* The timeline as tall as the window allows: a browser thread is 30+ rows. */
  gtk_paned_set_position (window->paned, 900);
  tsl_timeline_view_set_visible_time (window->timeline, start, end);
  if (!wait_for (exact_detail, window, 300000))
    g_error ("no exact detail read");
  settle (500);
  shown = tsl_timeline_view_get_shown_snapshot (window->timeline);

  for (guint i = 0; i < tsl_snapshot_get_n_tracks (shown); i++)
    {
      const TslSnapshotTrack *track = tsl_snapshot_get_track (shown, i);

      if (track->kind == TSL_TRACK_THREAD && (busiest == NULL || track->events > busiest->events))
        busiest = track, busiest_index = i;
    }
  g_assert (busiest != NULL);
  for (guint s = 0; s < busiest->n_slices; s++)
    {
      const TslSnapshotSlice *slice = &busiest->slices[s];

      if (slice->end_ns > start && slice->start_ns < end)
        depth = MAX (depth, slice->depth);
    }

  tsl_timeline_view_get_render_options (window->timeline, &o);
  gtk_adjustment_set_value (tsl_timeline_view_get_vadjustment (window->timeline),
                            tsl_render_track_top (shown, &o, busiest_index) - 30);
  settle (800);
  tsl_timeline_view_get_render_options (window->timeline, &o);
  top = tsl_render_header_height (&o) - o.scroll_y + tsl_render_track_top (shown, &o, busiest_index);
  left = tsl_render_label_width (&o);
  right = o.width;

  /* Where the timeline is on the screen (no window manager: the window's
   * surface is at the root's origin). */
  if (!gtk_widget_translate_coordinates (GTK_WIDGET (window->timeline), GTK_WIDGET (window), 0, 0, &x0, &y0))
    g_error ("timeline not in the window");
  gtk_native_get_surface_transform (GTK_NATIVE (window), &sx, &sy);
  x0 += sx, y0 += sy;

  grab (argv[4], "flows-off.png");
  pixels = grab_pixels (&width, &height);
  for (int y = (int) (y0 + top) + 2; y < MIN ((int) (y0 + top) + 2 + (int) (depth + 3) * 15, (int) (y0 + o.height)); y++)
    {
      gboolean any = FALSE;

      for (int x = (int) (x0 + left) + 1; x < (int) (x0 + right) - 1 && !any; x++)
        any = saturated (pixels + ((gsize) y * width + x) * 3);
      if (any && !inside)
        bands++;
      inside = any;
    }
  printf ("# %s, track %s (pid %" G_GINT64_FORMAT "), view %s..%s s: max depth %u of the exact slices in view, "
          "%u rows of slices on screen\n", argv[1], busiest->name, busiest->pid, argv[2], argv[3], depth, bands);
  check ("window: rows drawn = max depth + 1", bands == depth + 1);

  for (guint s = 0; s < busiest->n_slices; s++)
    {
      const TslSnapshotSlice *slice = &busiest->slices[s];
      int y = (int) (y0 + top) + 2 + 7 + (int) slice->depth * 15;

      if (slice->end_ns <= start || slice->start_ns >= end || y >= height)
        continue;
      if (slice->start_ns < start && !saturated (pixels + ((gsize) y * width + (int) (x0 + left) + 2) * 3))
        edges_ok = FALSE;
      if (slice->end_ns > end && !saturated (pixels + ((gsize) y * width + (int) (x0 + right) - 3) * 3))
        edges_ok = FALSE;
    }
  check ("window: every slice open at an edge of the view is drawn to it", edges_ok);

  /* The slice of the busiest track with most flow arrows. */
  flows = tsl_snapshot_get_flows (shown, &n_flows);
  for (guint s = 0; s < busiest->n_slices; s++)
    {
      guint count = 0;

      if (busiest->slices[s].end_ns <= start || busiest->slices[s].start_ns >= end)
        continue;
      for (guint f = 0; f < n_flows; f++)
        count += (flows[f].from_track == busiest_index && flows[f].from_slice == s) ||
                 (flows[f].to_track == busiest_index && flows[f].to_slice == s);
      if (count > best_flows)
        best_flows = count, chosen = &busiest->slices[s];
    }
  printf ("# %u flow arrows in the shown snapshot; the selected slice has %u\n", n_flows, best_flows);
  for (guint f = 0; chosen != NULL && f < n_flows; f++)
    if ((flows[f].from_track == busiest_index && &busiest->slices[flows[f].from_slice] == chosen) ||
        (flows[f].to_track == busiest_index && &busiest->slices[flows[f].to_slice] == chosen))
      printf ("#   flow %s depth %u at %.6f s -> %s depth %u at %.6f s\n",
              tsl_snapshot_get_track (shown, flows[f].from_track)->name, flows[f].from_depth, flows[f].from_ns / 1e9,
              tsl_snapshot_get_track (shown, flows[f].to_track)->name, flows[f].to_depth, flows[f].to_ns / 1e9);
  if (chosen != NULL)
    {
      tsl_timeline_view_set_selection (window->timeline, busiest->name, busiest->pid, chosen->depth,
                                       chosen->start_ns, chosen->end_ns, tsl_snapshot_get_frame_name (shown, chosen->frame));
      settle (300);
      {
        g_autofree char *note = NULL;
        g_autoptr(GArray) drawn = NULL;

        tsl_timeline_view_get_render_options (window->timeline, &o);
        drawn = tsl_render_flows_shown (shown, &o, &note);
        /* Its whole chain, both ways: its own arrows and those of every
         * slice they lead to or come from. */
        printf ("# the window draws %u flow arrows for the selected slice's chain\n", drawn->len);
        check ("window: the selected slice's flows are drawn", drawn->len >= best_flows && best_flows > 0);
      }
      grab (argv[4], "flows-one-slice.png");
    }
  tsl_timeline_view_set_selection (window->timeline, NULL, 0, 0, 0, 0, NULL);
  tsl_timeline_view_set_all_flows (window->timeline, TRUE);
  grab (argv[4], "flows-all.png");

  gtk_window_destroy (GTK_WINDOW (window));
  return failures > 0;
}
