/* bench-sampler.c: events per second through the sampler's decide path
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Feeds synthetic events (no parsing) to one track with K = 2000 and prints
 * the median of three runs for count mode, time mode with sorted and with
 * jittered (out-of-order) times, and count mode through tsl_trace_offer().
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "tsl-rng.h"
#include "tsl-sampler.h"
#include "tsl-trace.h"

#define K 2000
#define RUNS 3

typedef enum {
  CASE_COUNT,
  CASE_TIME_SORTED,
  CASE_TIME_JITTER,
  CASE_TRACE_COUNT,
  N_CASES
} Case;

static const char *case_names[] = {
  "count",
  "time (sorted)",
  "time (50 us jitter)",
  "count via trace",
};

static guint64 n_kept;

static double
run_once (Case    which,
          guint64 n_events)
{
  g_autoptr(TslTimeGrid) grid = tsl_time_grid_new (K);
  g_autoptr(TslSampler) sampler = NULL;
  g_autoptr(TslTrace) trace = NULL;
  gint64 start;
  guint64 kept = 0;
  guint track = 0;

  if (which == CASE_COUNT)
    sampler = tsl_sampler_new_count (K, 0x5EED, 0);
  else if (which == CASE_TRACE_COUNT)
    {
      trace = tsl_trace_new (TSL_SAMPLER_COUNT, K, 0x5EED);
      track = tsl_trace_ensure_track (trace, TSL_TRACK_THREAD, 1, 1, NULL);
    }
  else
    sampler = tsl_sampler_new_time (grid, 0x5EED);

  start = g_get_monotonic_time ();
  switch (which)
    {
    case CASE_COUNT:
    case CASE_TIME_SORTED:
      for (guint64 i = 0; i < n_events; i++)
        kept += tsl_sampler_offer (sampler, (gint64) i * 1000, (double) (i & 1023));
      break;

    case CASE_TIME_JITTER:
      /* A cheap deterministic jitter: arrival order is not time order. */
      for (guint64 i = 0; i < n_events; i++)
        {
          gint64 jitter = (gint64) (tsl_fmix64 (i) % 100001) - 50000;

          kept += tsl_sampler_offer (sampler, (gint64) i * 1000 + jitter, (double) (i & 1023));
        }
      break;

    case CASE_TRACE_COUNT:
      for (guint64 i = 0; i < n_events; i++)
        kept += tsl_trace_offer (trace, track, (gint64) i * 1000, (double) (i & 1023));
      break;

    case N_CASES:
    default:
      g_assert_not_reached ();
    }

  n_kept += kept;
  return (g_get_monotonic_time () - start) / 1e6;
}

static int
cmp_double (const void *a,
            const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

int
main (int   argc,
      char *argv[])
{
  guint64 n_events = 100000000;

  if (argc > 1)
    n_events = g_ascii_strtoull (argv[1], NULL, 10);
  if (n_events == 0)
    {
      fprintf (stderr, "usage: %s [EVENTS]\n", argv[0]);
      return 2;
    }

  printf ("K = %d, %" G_GUINT64_FORMAT " events per run, median of %d runs\n\n", K, n_events, RUNS);
  printf ("%-22s %10s %14s\n", "mode", "seconds", "events/s");
  for (Case which = 0; which < N_CASES; which++)
    {
      double seconds[RUNS];

      for (guint r = 0; r < RUNS; r++)
        seconds[r] = run_once (which, n_events);
      qsort (seconds, RUNS, sizeof (double), cmp_double);
      printf ("%-22s %10.3f %14.3e\n", case_names[which], seconds[RUNS / 2],
              n_events / seconds[RUNS / 2]);
    }

  /* Printed so the compiler cannot drop the offers' results. */
  printf ("\n(kept-sample decisions: %" G_GUINT64_FORMAT ")\n", n_kept);
  return 0;
}
