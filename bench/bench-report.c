/* bench-report.c: time to draw the report once the compare is done
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 *   bench-report FILE [RUNS]
 *
 * Reads FILE (time mode, K = 2000, as `export --report` does), runs the
 * compare of 0%..50% against 50%..100% once (the baseline: what the user
 * already waited for) and once as `export --report` runs it, keeping the call
 * paths of its range reads for the exact differential flame graph
 * (tsl_flame_compare_run(): the flame graph's cost is the difference), then
 * times, median of RUNS (default 3), what the report adds after it:
 * tsl_report_write() to PDF (with and without the flame graph page) and to
 * HTML (in /tmp). Prints each as ms and as a ratio to the compare of the same
 * run, then one "result<TAB>name<TAB>median_ms" line per case. Inputs:
 * bench/gen-chrome.py --mb 100 > trace.json.
 */
#include <stdio.h>
#include <stdlib.h>

#include <glib/gstdio.h>

#include "tsl-read-stream.h"
#include "tsl-report.h"
#include "tsl-snapshot.h"

static double
now_ms (void)
{
  return g_get_monotonic_time () / 1000.0;
}

static int
cmp_double (const void *a,
            const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_TIME, 2000, 0x5EED);
  g_autoptr(TslCompareRequest) request = tsl_compare_request_new ();
  g_autoptr(TslSnapshot) snapshot = NULL;
  g_autoptr(GPtrArray) rows = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("bench-report-XXXXXX", NULL);
  TslRenderOptions options;
  TslReport report = { 0 };
  guint runs = argc > 2 ? (guint) atoi (argv[2]) : 3;
  TslFlameSelection selection = { NULL, 0, TRUE, TSL_FLAME_WEIGHT_AUTO };
  g_autoptr(TslFlame) flame = NULL;
  double compare_ms, with_flame_ms, t, pdf_ms[32], html_ms[32], bare_ms[32];
  gint64 span;

  if (argc < 2 || runs < 1 || runs > 32)
    {
      fprintf (stderr, "usage: bench-report FILE [RUNS ≤ 32]\n");
      return 2;
    }
  if (!tsl_read_path (trace, argv[1], NULL, NULL, NULL, &error))
    {
      fprintf (stderr, "%s\n", error->message);
      return 1;
    }

  request->path = g_strdup (argv[1]);
  request->keep_effects = TRUE;
  t = now_ms ();
  rows = tsl_compare_run (request, NULL, NULL, &error);
  compare_ms = now_ms () - t;
  if (rows == NULL)
    {
      fprintf (stderr, "%s\n", error->message);
      return 1;
    }
  g_clear_pointer (&rows, g_ptr_array_unref);
  t = now_ms ();
  rows = tsl_flame_compare_run (request, &selection, &flame, NULL, NULL, &error);
  with_flame_ms = now_ms () - t;
  if (rows == NULL || flame == NULL)
    {
      fprintf (stderr, "%s\n", error != NULL ? error->message : "no exact flame graph: not a regular file");
      return 1;
    }

  snapshot = tsl_snapshot_new (trace);
  span = tsl_snapshot_get_span (snapshot);
  tsl_render_options_init (&options, snapshot, 1000, 100);
  options.has_a = options.has_b = TRUE;
  options.a_end_ns = options.b_start_ns = span / 2;
  options.b_end_ns = span;
  report.path = argv[1];
  report.sha256 = "-";
  report.trace = trace;
  report.snapshot = snapshot;
  report.timeline = &options;
  report.request = request;
  report.rows = (const TslCompareRow * const *) rows->pdata;
  report.n_rows = rows->len;

  for (guint r = 0; r < runs; r++)
    {
      g_autofree char *pdf = g_build_filename (dir, "r.pdf", NULL);
      g_autofree char *html = g_build_filename (dir, "r.html", NULL);
      g_autoptr(GFile) pdf_file = g_file_new_for_path (pdf);
      g_autoptr(GFile) html_file = g_file_new_for_path (html);

      report.flame = flame;

      t = now_ms ();
      if (!tsl_report_write (&report, TSL_REPORT_PDF, pdf_file, NULL, &error))
        return 1;
      pdf_ms[r] = now_ms () - t;
      /* The same PDF without its flame graph page: what that page costs. */
      report.flame = NULL;
      t = now_ms ();
      if (!tsl_report_write (&report, TSL_REPORT_PDF, pdf_file, NULL, &error))
        return 1;
      bare_ms[r] = now_ms () - t;
      report.flame = flame;
      t = now_ms ();
      if (!tsl_report_write (&report, TSL_REPORT_HTML, html_file, NULL, &error))
        return 1;
      html_ms[r] = now_ms () - t;
      g_unlink (pdf);
      g_unlink (html);
    }
  g_rmdir (dir);

  qsort (pdf_ms, runs, sizeof (double), cmp_double);
  qsort (html_ms, runs, sizeof (double), cmp_double);
  qsort (bare_ms, runs, sizeof (double), cmp_double);
  printf ("%u rows, %u tracks, %" G_GUINT64_FORMAT " events\n", rows->len,
          tsl_trace_get_n_tracks (trace), tsl_trace_get_events (trace));
  printf ("%-28s %10.1f ms  1.000\n", "compare (baseline)", compare_ms);
  printf ("%-28s %10.1f ms  %.3f\n", "compare + exact flame graph", with_flame_ms, with_flame_ms / compare_ms);
  printf ("%-28s %10.1f ms  %.3f\n", "report PDF", pdf_ms[runs / 2], pdf_ms[runs / 2] / compare_ms);
  printf ("%-28s %10.1f ms  %.3f\n", "report PDF, no flame graph", bare_ms[runs / 2], bare_ms[runs / 2] / compare_ms);
  printf ("%-28s %10.1f ms  %.3f\n", "report HTML", html_ms[runs / 2], html_ms[runs / 2] / compare_ms);
  printf ("result\tcompare\t%.1f\nresult\tcompare_flame\t%.1f\nresult\tpdf\t%.1f\nresult\tpdf_no_flame\t%.1f\n"
          "result\thtml\t%.1f\n", compare_ms, with_flame_ms, pdf_ms[runs / 2], bare_ms[runs / 2],
          html_ms[runs / 2]);
  return 0;
}
