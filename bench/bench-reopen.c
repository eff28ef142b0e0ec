/* bench-reopen.c: reopening an unchanged file from the state cache, against reading it
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 *   _build/bench/bench-reopen FILE [RUNS]
 *
 * Opens FILE as the window does (time mode, K = 2000, exact slices asked
 * for, then a snapshot to draw), RUNS times each, interleaved: with the
 * caches off (the baseline, a full read), with them on but emptied first
 * (a full read that also saves the state: what caching costs the first
 * open), and with them on (the reopen, loaded from the cache).
 * XDG_CACHE_HOME is a temporary folder. Prints wall times and ratios to
 * the baseline; medians of the runs, on a warm page cache.
 */
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>

#include "tsl-chunk-index.h"
#include "tsl-read-stream.h"
#include "tsl-snapshot.h"

static double
open_once (const char *path)
{
  g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_TIME, 2000, 0x5EED);
  g_autoptr(TslSnapshot) snapshot = NULL;
  g_autoptr(GError) error = NULL;
  gint64 start = g_get_monotonic_time ();

  /* The window's first read: TSL_WINDOW_EXACT_PER_TRACK, _TOTAL. */
  tsl_trace_record_exact (trace, 20000, 200000);
  if (!tsl_read_path (trace, path, NULL, NULL, NULL, &error))
    g_error ("%s", error->message);
  snapshot = tsl_snapshot_new (trace);
  return (g_get_monotonic_time () - start) / 1e6;
}

static int
compare_doubles (const void *a,
                 const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

static double
median (double *v,
        guint   n)
{
  qsort (v, n, sizeof *v, compare_doubles);
  return v[n / 2];
}

int
main (int    argc,
      char **argv)
{
  g_autofree char *dir = g_dir_make_tmp ("bench-reopen-XXXXXX", NULL);
  guint runs = argc > 2 ? (guint) atoi (argv[2]) : 5;
  g_autofree double *reopen = g_new (double, MAX (runs, 1));
  g_autofree double *full = g_new (double, MAX (runs, 1));
  g_autofree double *saving = g_new (double, MAX (runs, 1));

  if (argc < 2)
    {
      fprintf (stderr, "usage: %s FILE [RUNS]\n", argv[0]);
      return 2;
    }
  g_setenv ("XDG_CACHE_HOME", dir, TRUE);
  g_unsetenv ("TSL_CACHE_MAX_BYTES");

  /* Interleaved, so that the machine's load falls on all alike. */
  for (guint i = 0; i < runs; i++)
    {
      g_autofree char *cache = g_build_filename (dir, "timeslice", NULL);
      g_autoptr(GDir) d = NULL;
      const char *name;

      tsl_cache_set_enabled (FALSE);
      full[i] = open_once (argv[1]);
      /* Empty the cache folder: this process still knows the index, as a
       * window that read the file before would. */
      if ((d = g_dir_open (cache, 0, NULL)) != NULL)
        while ((name = g_dir_read_name (d)) != NULL)
          {
            g_autofree char *p = g_build_filename (cache, name, NULL);

            g_unlink (p);
          }
      tsl_cache_set_enabled (TRUE);
      saving[i] = open_once (argv[1]);
      reopen[i] = open_once (argv[1]);
    }
  printf ("%s: full read %.3f s, full read saving the state %.3f s (%.3f of it), "
          "reopen from the cache %.1f ms (%.4f of the full read); medians of %u\n",
          argv[1], median (full, runs), median (saving, runs), median (saving, runs) / median (full, runs),
          1e3 * median (reopen, runs), median (reopen, runs) / median (full, runs), runs);
  return 0;
}
