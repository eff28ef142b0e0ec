/* test-scan-ahead.c: the decoding thread's ring, in order, waking rarely
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Jobs of numbered records, filled in blocks of random sizes (empty ones
 * included) with either side pausing at random, must come back whole and
 * in order, with the fill's data the caller's again at each job's end,
 * and the caller's idle work run while it would wait. A side that keeps
 * running out must sleep once per several blocks, not once per block:
 * the thread at most once per half a ring, the caller once per quarter.
 * Seeds are fixed; the bounds hold whatever the scheduling.
 */
#include "tsl-scan-ahead.h"

#define RING 8

typedef struct {
  guint64  next;         /* the next record's number */
  guint64  total;        /* records in the job */
  GRand   *rand;         /* the fill's */
  guint    pause_us;     /* the fill's pause per block, at most */
  gboolean random_size;
  gboolean finished;     /* set by the fill with its last block */
} Job;

static guint
fill (gpointer  data,
      gpointer  records,
      guint     max,
      gboolean *done)
{
  Job *job = data;
  guint64 *r = records;
  guint n = job->random_size ? (guint) g_rand_int_range (job->rand, 0, max + 1) : max;

  if (job->pause_us > 0)
    g_usleep (g_rand_int_range (job->rand, 0, job->pause_us + 1));
  n = (guint) MIN ((guint64) n, job->total - job->next);
  for (guint i = 0; i < n; i++)
    r[i] = job->next++;
  if (job->next == job->total)
    {
      job->finished = TRUE;
      *done = TRUE;
    }
  return n;
}

static gboolean
idle (gpointer data)
{
  guint *calls = data;

  return ++*calls % 3 != 0;
}

/* Runs `jobs` jobs of `total` records; the caller pauses up to
 * caller_pause_us per block. Returns the records seen. */
static guint64
run_jobs (TslScanAhead *ahead,
          guint         jobs,
          guint64       total,
          guint         thread_pause_us,
          guint         caller_pause_us,
          gboolean      random_size,
          guint        *idle_calls)
{
  g_autoptr(GRand) caller_rand = g_rand_new_with_seed (38);
  guint64 seen = 0;

  for (guint j = 0; j < jobs; j++)
    {
      Job job = { 0, total, g_rand_new_with_seed (j + 1), thread_pause_us, random_size, FALSE };
      guint64 expect = 0;
      gpointer records;
      guint n;

      tsl_scan_ahead_start (ahead, fill, &job);
      while ((n = tsl_scan_ahead_next (ahead, &records, idle_calls != NULL ? idle : NULL, idle_calls)) > 0)
        {
          const guint64 *r = records;

          g_assert_nonnull (records);
          for (guint i = 0; i < n; i++)
            g_assert_cmpuint (r[i], ==, expect++);
          if (caller_pause_us > 0)
            g_usleep (g_rand_int_range (caller_rand, 0, caller_pause_us + 1));
        }
      g_assert_null (records);
      /* The fill is done with the data: the caller may read and reuse it. */
      g_assert_true (job.finished);
      g_assert_cmpuint (expect, ==, total);
      g_assert_cmpuint (tsl_scan_ahead_next (ahead, &records, NULL, NULL), ==, 0);
      seen += expect;
      g_rand_free (job.rand);
    }
  return seen;
}

static void
test_order (void)
{
  g_autoptr(TslScanAhead) ahead = tsl_scan_ahead_new_ring (sizeof (guint64), 64, RING);
  guint idle_calls = 0;

  g_assert_cmpuint (run_jobs (ahead, 40, 5000, 0, 0, TRUE, &idle_calls), ==, 40 * 5000);
  g_assert_cmpuint (run_jobs (ahead, 10, 3000, 30, 0, TRUE, &idle_calls), ==, 10 * 3000);
  g_assert_cmpuint (run_jobs (ahead, 10, 3000, 0, 30, TRUE, NULL), ==, 10 * 3000);
  /* Jobs with no records, and one of exactly a ring. */
  g_assert_cmpuint (run_jobs (ahead, 5, 0, 0, 0, FALSE, NULL), ==, 0);
  g_assert_cmpuint (run_jobs (ahead, 3, 64 * RING, 0, 0, FALSE, NULL), ==, 3 * 64 * RING);
  g_assert_cmpuint (idle_calls, >, 0);
}

static void
test_default_ring (void)
{
  g_autoptr(TslScanAhead) ahead = tsl_scan_ahead_new (sizeof (guint64), 16);

  g_assert_cmpuint (run_jobs (ahead, 20, 2000, 0, 5, TRUE, NULL), ==, 20 * 2000);
}

static void
test_sleeps_slow_caller (void)
{
  g_autoptr(TslScanAhead) ahead = tsl_scan_ahead_new_ring (sizeof (guint64), 16, RING);
  guint64 thread_sleeps, caller_sleeps, blocks = 400;

  /* The thread fills the ring and waits for half of it: one sleep per 4
   * blocks, and one per job waited for. */
  run_jobs (ahead, 1, 16 * blocks, 0, 200, FALSE, NULL);
  tsl_scan_ahead_get_sleeps (ahead, &thread_sleeps, &caller_sleeps);
  g_test_message ("thread slept %" G_GUINT64_FORMAT " times for %" G_GUINT64_FORMAT " blocks",
                  thread_sleeps, blocks);
  g_assert_cmpuint (thread_sleeps, <=, blocks / (RING / 2) + 2);
}

static void
test_sleeps_slow_thread (void)
{
  g_autoptr(TslScanAhead) ahead = tsl_scan_ahead_new_ring (sizeof (guint64), 16, RING);
  guint64 thread_sleeps, caller_sleeps, blocks = 400;

  /* The caller waits for a quarter of the ring: one sleep per 2 blocks. */
  run_jobs (ahead, 1, 16 * blocks, 200, 0, FALSE, NULL);
  tsl_scan_ahead_get_sleeps (ahead, &thread_sleeps, &caller_sleeps);
  g_test_message ("caller slept %" G_GUINT64_FORMAT " times for %" G_GUINT64_FORMAT " blocks",
                  caller_sleeps, blocks);
  g_assert_cmpuint (caller_sleeps, <=, blocks / (RING / 4) + 2);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/scan-ahead/order", test_order);
  g_test_add_func ("/scan-ahead/default-ring", test_default_ring);
  g_test_add_func ("/scan-ahead/sleeps-slow-caller", test_sleeps_slow_caller);
  g_test_add_func ("/scan-ahead/sleeps-slow-thread", test_sleeps_slow_thread);
  return g_test_run ();
}
