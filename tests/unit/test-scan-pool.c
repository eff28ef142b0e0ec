/* test-scan-pool.c: segments scanned once, in a window ahead of the caller
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * With a window of `ahead` segments (the Perfetto reader's ring of
 * records), no scanner may start a segment `ahead` or more past the one
 * the caller last asked for; every segment is scanned once and handed back
 * in order, whatever the window, the pauses and who scans. A scanner
 * faster than the caller waits at the window's edge: it must sleep once
 * per half window, not once per segment (a rise of the limit per segment
 * woke it for each). Seeds are fixed; the bounds hold whatever the
 * scheduling.
 */
#include "tsl-scan-pool.h"

#define N_SEGMENTS 400

typedef struct {
  const char *base;
  gint        caller_at;     /* the segment the caller asked for last */
  guint       ahead;
  gint        scanned[N_SEGMENTS];
  gint        too_far;       /* segments started outside the window */
  guint       scan_pause_us;
} Run;

static void
scan (gpointer        data,
      TslScanSegment *seg,
      gpointer        scratch)
{
  Run *run = data;
  guint i = (guint) (seg->start - run->base);

  if (run->ahead > 0 && (gint) i >= g_atomic_int_get (&run->caller_at) + (gint) run->ahead)
    g_atomic_int_inc (&run->too_far);
  g_atomic_int_inc (&run->scanned[i]);
  if (run->scan_pause_us > 0)
    g_usleep (run->scan_pause_us);
  *(guint *) seg->result = i;
}

static gpointer
result_new (gpointer data)
{
  return g_new0 (guint, 1);
}

static const TslScanFuncs funcs = {
  .scan = scan,
  .result_new = result_new,
  .result_free = g_free,
};

/* One buffer of N_SEGMENTS one-byte segments through a pool of n_threads;
 * the caller pauses up to caller_pause_us per segment. Returns the pool's
 * scanner sleeps. */
static guint64
run_pool (guint    n_threads,
          guint    ahead,
          guint    caller_pause_us,
          guint    scan_pause_us,
          guint32  seed)
{
  static char buffer[N_SEGMENTS];
  const char *cuts[N_SEGMENTS];
  g_autoptr(GRand) rand = g_rand_new_with_seed (seed);
  Run run = { .base = buffer, .ahead = ahead, .scan_pause_us = scan_pause_us };
  TslScanPool *pool = tsl_scan_pool_new (n_threads, &funcs, &run, NULL, NULL);
  guint64 sleeps;

  for (guint i = 0; i < N_SEGMENTS; i++)
    cuts[i] = buffer + i;
  tsl_scan_pool_set_ahead (pool, ahead);
  tsl_scan_pool_start (pool, cuts, N_SEGMENTS, buffer + N_SEGMENTS, FALSE);
  for (guint i = 0; i < N_SEGMENTS; i++)
    {
      const TslScanSegment *seg;

      g_atomic_int_set (&run.caller_at, (gint) i);
      seg = tsl_scan_pool_get (pool, i, NULL);
      g_assert_cmpuint (*(guint *) seg->result, ==, i);
      g_assert_cmpint (g_atomic_int_get (&run.scanned[i]), ==, 1);
      if (caller_pause_us > 0)
        g_usleep (g_rand_int_range (rand, 0, caller_pause_us + 1));
    }
  tsl_scan_pool_finish (pool);
  for (guint i = 0; i < N_SEGMENTS; i++)
    g_assert_cmpint (run.scanned[i], ==, 1);
  g_assert_cmpint (run.too_far, ==, 0);
  sleeps = tsl_scan_pool_get_worker_sleeps (pool);
  tsl_scan_pool_free (pool);
  return sleeps;
}

static void
test_window (void)
{
  for (guint32 seed = 1; seed <= 6; seed++)
    for (guint ahead = 1; ahead <= 9; ahead += 4)
      for (guint threads = 2; threads <= 3; threads++)
        {
          run_pool (threads, ahead, seed % 2 ? 50 : 0, seed % 2 ? 0 : 20, seed);
          run_pool (threads, ahead, 0, 0, seed);
        }
}

/* The scanner outruns a caller that works 100-300 µs a segment. */
static void
test_sleeps (void)
{
  const guint ahead = 8;
  guint64 sleeps = run_pool (2, ahead, 300, 0, 7);

  g_test_message ("%" G_GUINT64_FORMAT " scanner sleeps for %u segments", sleeps, N_SEGMENTS);
  g_assert_cmpuint (sleeps, <=, N_SEGMENTS / (ahead / 2) + 2);
  g_assert_cmpuint (sleeps, >=, 1);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/scan-pool/window", test_window);
  g_test_add_func ("/scan-pool/sleeps", test_sleeps);
  return g_test_run ();
}
