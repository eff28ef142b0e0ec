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
 * too. Count mode, one reader thread, K = 2000, as compare's range reads;
 * then the window's zoom detail read of a view that wide (time mode, every
 * slice recorded, a quarter view of margin each side, reader threads as
 * the window's). Also prints what the index holds (chunks, saved state
 * and access points). FILE may be gzip or zstd.
 *
 * BENCH_INDEXED_ONLY=1 leaves out the whole-file reads and BENCH_DETAIL_ONLY=1
 * the compare reads, for profiling, e.g. the detail reads' instructions:
 *   BENCH_INDEXED_ONLY=1 BENCH_DETAIL_ONLY=1 TSL_READER_THREADS=0 valgrind --tool=callgrind \
 *     --toggle-collect=tsl_read_path_full _build-bench/bench/bench-range-read FILE
 */
#include <stdlib.h>
#include <string.h>
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
            gboolean    detail,
            double     *cpu,
            double     *wall)
{
  g_autoptr(TslTrace) trace = tsl_trace_new (detail ? TSL_SAMPLER_TIME : TSL_SAMPLER_COUNT, 2000, 1);
  g_autoptr(GError) error = NULL;
  double c0 = cpu_now ();
  gint64 w0 = g_get_monotonic_time ();

  if (!indexed)
    g_setenv ("TSL_NO_INDEX", "1", TRUE);
  tsl_trace_set_time_filter (trace, lo, hi);
  if (detail)
    tsl_trace_record_exact (trace, TSL_EXACT_PER_TRACK, TSL_EXACT_TOTAL);
  if (!tsl_read_path_full (trace, path, detail ? TSL_READER_THREADS_DEFAULT : TSL_READER_THREADS_NEVER,
                           NULL, NULL, NULL, &error))
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
  /* For profiling the range reads alone. */
  gboolean indexed_only = g_getenv ("BENCH_INDEXED_ONLY") != NULL;
  /* For profiling the zoom detail reads alone. */
  gboolean detail_only = g_getenv ("BENCH_DETAIL_ONLY") != NULL;

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

  g_print ("First read (records the index): %.2f CPU-s\n", first_cpu);
  {
    g_autoptr(GFile) file = g_file_new_for_path (argv[1]);
    g_autoptr(GFileInputStream) stream = g_file_read (file, NULL, NULL);
    g_autoptr(TslChunkIndex) index = NULL;
    TslFileKey key;

    if (stream != NULL && tsl_file_key_query (stream, &key) && (index = tsl_chunk_index_lookup (&key)) != NULL)
      {
        guint n = tsl_chunk_index_get_n_chunks (index);

        g_print ("Index: %u chunks of %s text, %" G_GSIZE_FORMAT " bytes of state and access points, "
                 "%.2f MiB with the chunk table\n", n,
                 tsl_chunk_index_is_compressed (index) ? "decompressed" : "plain",
                 tsl_chunk_index_get_state_bytes (index),
                 (tsl_chunk_index_get_state_bytes (index) + n * (sizeof (TslChunk) + 2 * 32)) / 1048576.0);
      }
    else
      g_print ("Index: none\n");
  }
  g_print ("\n| read | range | CPU with index | CPU whole file | ratio | wall with / whole | bytes read with index |\n");
  g_print ("|---|---|---|---|---|---|---|\n");
  for (guint r = 0; r < 2 * G_N_ELEMENTS (at); r++)
    {
      gboolean detail = r >= G_N_ELEMENTS (at);
      double where = at[r % G_N_ELEMENTS (at)];
      /* The detail read: the view and a quarter view each side. */
      gint64 lo = start + (gint64) ((where - (detail ? width / 4 : 0)) * span);
      gint64 hi = start + (gint64) ((where + width + (detail ? width / 4 : 0)) * span);
      double cpu[2][3], wall[2][3];
      guint64 bytes = 0;

      if (detail_only && !detail)
        continue;
      for (guint run = 0; run < 3; run++)
        for (guint i = 0; i < (indexed_only ? 1 : 2); i++)
          {
            guint64 before = tsl_chunk_index_get_bytes_read ();

            range_read (argv[1], lo, hi, i == 0, detail, &cpu[i][run], &wall[i][run]);
            if (i == 0)
              bytes = tsl_chunk_index_get_bytes_read () - before;
          }
      if (indexed_only)
        memcpy (cpu[1], cpu[0], sizeof cpu[0]), memcpy (wall[1], wall[0], sizeof wall[0]);
      for (guint i = 0; i < 2; i++)
        {
          qsort (cpu[i], 3, sizeof (double), cmp_double);
          qsort (wall[i], 3, sizeof (double), cmp_double);
        }
      g_print ("| %s | %g%%..%g%% | %.3f s | %.3f s | %.3f | %.3f / %.3f s | %.1f MB |\n",
               detail ? "zoom detail (view +- 1/4)" : "compare range", where * 100, (where + width) * 100,
               cpu[0][1], cpu[1][1], cpu[0][1] / cpu[1][1],
               wall[0][1], wall[1][1], bytes / 1e6);
    }
  return 0;
}
