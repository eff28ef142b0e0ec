/* bench-range-read.c: a range read with the chunk index against without, in one process
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 *   bench-range-read FILE [WIDTH_PERCENT]
 *
 * What the window does once a file is open: the file was read once (which
 * recorded its index), then compare reads two ranges and a zoom reads one.
 * Reads FILE once, then times filtered reads of ranges WIDTH (default 1) %
 * wide at 10 %, 45 % and 90 % of the span, each through the index and with
 * TSL_NO_INDEX=1, interleaved, median of 3. The measure is this process's
 * CPU time (the machine is shared) and the bytes read; wall time is shown
 * too. Count mode, one reader thread, K = 2000, as compare's range reads.
 */
#include <stdlib.h>
#include <time.h>

#include "tsl-chunk-index.h"
#include "tsl-read-stream.h"

static double
cpu_now (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int
cmp_double (const void *a,
            const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

static void
range_read (const char *path,
            gint64      lo,
            gint64      hi,
            gboolean    indexed,
            double     *cpu,
            double     *wall)
{
  g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_COUNT, 2000, 1);
  g_autoptr(GError) error = NULL;
  double c0 = cpu_now ();
  gint64 w0 = g_get_monotonic_time ();

  if (!indexed)
    g_setenv ("TSL_NO_INDEX", "1", TRUE);
  tsl_trace_set_time_filter (trace, lo, hi);
  if (!tsl_read_path_full (trace, path, TSL_READER_THREADS_NEVER, NULL, NULL, NULL, &error))
    g_error ("%s", error->message);
  g_unsetenv ("TSL_NO_INDEX");
  *cpu = cpu_now () - c0;
  *wall = (g_get_monotonic_time () - w0) / 1e6;
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(TslTrace) first = tsl_trace_new (TSL_SAMPLER_COUNT, 16, 1);
  g_autoptr(GError) error = NULL;
  const double at[] = { 0.10, 0.45, 0.90 };
  double width = argc > 2 ? g_ascii_strtod (argv[2], NULL) / 100 : 0.01;
  gint64 start, end, span;
  double first_cpu;

  if (argc < 2)
    {
      g_printerr ("usage: bench-range-read FILE [WIDTH_PERCENT]\n");
      return 2;
    }
  first_cpu = cpu_now ();
  if (!tsl_read_path (first, argv[1], NULL, NULL, NULL, &error))
    g_error ("%s", error->message);
  first_cpu = cpu_now () - first_cpu;
  tsl_trace_get_span (first, &start, &end);
  span = end - start;

  g_print ("First read (records the index): %.2f CPU-s\n\n", first_cpu);
  g_print ("| range | CPU with index | CPU whole file | ratio | wall with / whole | bytes read with index |\n");
  g_print ("|---|---|---|---|---|---|\n");
  for (guint r = 0; r < G_N_ELEMENTS (at); r++)
    {
      gint64 lo = start + (gint64) (at[r] * span);
      gint64 hi = lo + (gint64) (width * span);
      double cpu[2][3], wall[2][3];
      guint64 bytes = 0;

      for (guint run = 0; run < 3; run++)
        for (guint i = 0; i < 2; i++)
          {
            guint64 before = tsl_chunk_index_get_bytes_read ();

            range_read (argv[1], lo, hi, i == 0, &cpu[i][run], &wall[i][run]);
            if (i == 0)
              bytes = tsl_chunk_index_get_bytes_read () - before;
          }
      for (guint i = 0; i < 2; i++)
        {
          qsort (cpu[i], 3, sizeof (double), cmp_double);
          qsort (wall[i], 3, sizeof (double), cmp_double);
        }
      g_print ("| %.0f%%..%.0f%% | %.3f s | %.3f s | %.3f | %.3f / %.3f s | %.1f MB |\n",
               at[r] * 100, (at[r] + width) * 100, cpu[0][1], cpu[1][1], cpu[0][1] / cpu[1][1],
               wall[0][1], wall[1][1], bytes / 1e6);
    }
  return 0;
}
