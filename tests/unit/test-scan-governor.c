/* test-scan-governor.c: the governor reads each stretch the faster way
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A simulated read: 1 MiB buffers whose wall time is the way's cost per
 * byte (serial 1.0; parallel 0.65 on idle cores, 1.6 with the other core
 * busy, as measured on 2 cores) times a seeded noise factor. The governed
 * read must take at most 1.05 times the better way's time (3 % on idle
 * cores, where the probes of the slower way are the only loss), also when
 * the load changes halfway (less a cycle's adaptation), and the result of
 * each seed is given.
 */
#include <glib.h>

#include "tsl-scan-governor.h"

#define MIB      (1024 * 1024)

typedef struct {
  gint64  now;
} Clock;

static gint64
clock_now (gpointer data)
{
  return ((Clock *) data)->now;
}

/* Governed time over the time of the better way (chosen per half), for
 * `n` buffers whose costs per byte are serial 1 and parallel p1 (first
 * half), p2 (second half); noise is uniform in [1 - noise, 1 + noise]. */
static double
governed_ratio_tail (double   p1,
                     double   p2,
                     double   noise,
                     guint    n,
                     guint32  seed,
                     guint64 *parallel_bytes,
                     guint    tail_from,
                     double  *tail_ratio)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (seed);
  Clock clock = { 0 };
  TslScanGovernor *gov = tsl_scan_governor_new (clock_now, &clock, 0, 0);
  double best = 0, tail_best = 0;
  gint64 tail_start = 0;
  guint64 serial_bytes;
  guint switches;

  for (guint i = 0; i < n; i++)
    {
      double p = i < n / 2 ? p1 : p2;
      double f = 1 + noise * (2 * g_rand_double (rand) - 1);
      gboolean parallel = tsl_scan_governor_decide (gov, MIB);

      if (i == tail_from)
        tail_start = clock.now;
      clock.now += (gint64) (MIB * (parallel ? p : 1.0) * f);
      best += MIB * MIN (p, 1.0);
      if (i >= tail_from)
        tail_best += MIB * MIN (p, 1.0);
    }
  if (tail_ratio != NULL)
    *tail_ratio = (clock.now - tail_start) / tail_best;
  tsl_scan_governor_get_counts (gov, parallel_bytes, &serial_bytes, &switches);
  g_assert_cmpuint (*parallel_bytes + serial_bytes, ==, (guint64) n * MIB);
  tsl_scan_governor_free (gov);
  return clock.now / best;
}

static double
governed_ratio (double   p1,
                double   p2,
                double   noise,
                guint    n,
                guint32  seed,
                guint64 *parallel_bytes)
{
  return governed_ratio_tail (p1, p2, noise, n, seed, parallel_bytes, n, NULL);
}

static void
test_idle (void)
{
  guint64 parallel;
  double ratio = governed_ratio (0.65, 0.65, 0, 1000, 1, &parallel);

  g_test_message ("idle: %.4f of every core's time, %.3f on every core",
                  ratio, parallel / (1000.0 * MIB));
  g_assert_cmpfloat (ratio, <=, 1.03);
  g_assert_cmpuint (parallel, >=, 950 * (guint64) MIB);
}

static void
test_busy (void)
{
  guint64 parallel;
  double ratio = governed_ratio (1.6, 1.6, 0, 1000, 1, &parallel);

  g_test_message ("busy: %.4f of one thread's time, %.3f on every core",
                  ratio, parallel / (1000.0 * MIB));
  g_assert_cmpfloat (ratio, <=, 1.05);
  g_assert_cmpuint (parallel, <=, 50 * (guint64) MIB);
}

/* The other core gets busy halfway, or becomes free: a cycle (two probes
 * and a stretch, 136 MiB) after the change the governor reads the faster
 * way again; the whole read loses at most that cycle at the slower way. */
static void
test_change (void)
{
  const double cases[][2] = { { 0.65, 1.6 }, { 1.6, 0.65 } };

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      guint64 parallel;
      double tail;
      double whole = governed_ratio_tail (cases[c][0], cases[c][1], 0, 1200, 1, &parallel,
                                          600 + 136, &tail);

      g_test_message ("parallel %.2f then %.2f: %.4f of the better way's time, %.4f after a cycle",
                      cases[c][0], cases[c][1], whole, tail);
      g_assert_cmpfloat (tail, <=, 1.05);
      g_assert_cmpfloat (whole, <=, 1.05 + 136 * 0.6 / 1200 * 2);
    }
}

/* Noisy buffers (±30 % each): over 20 seeds, each read (from a cycle
 * after the change, where the load changes) within 1.08 of the better
 * way and their mean within 1.05. */
static void
test_noise (void)
{
  const double cases[][2] = { { 0.65, 0.65 }, { 1.6, 1.6 }, { 0.65, 1.6 }, { 1.6, 0.65 } };

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      gboolean steady = cases[c][0] == cases[c][1];
      double sum = 0, worst = 0;

      for (guint32 seed = 1; seed <= 20; seed++)
        {
          guint64 parallel;
          double tail;
          double ratio = governed_ratio_tail (cases[c][0], cases[c][1], 0.3, 800, seed, &parallel,
                                              400 + 136, &tail);

          if (!steady)
            ratio = tail;
          sum += ratio;
          worst = MAX (worst, ratio);
        }
      g_test_message ("noisy, parallel %.2f then %.2f: mean %.4f, worst %.4f",
                      cases[c][0], cases[c][1], sum / 20, worst);
      g_assert_cmpfloat (worst, <=, 1.08);
      g_assert_cmpfloat (sum / 20, <=, 1.05);
    }
}

/* Probes of the given size, and the way counted per buffer. */
static void
test_counts (void)
{
  Clock clock = { 0 };
  TslScanGovernor *gov = tsl_scan_governor_new (clock_now, &clock, 100, 2);
  guint64 parallel, serial;
  guint switches;
  GString *ways = g_string_new (NULL);

  /* Parallel costs 1 ns a byte, serial 2: probe P, probe S, run P (2
   * probes' worth), probe P, probe S, ... */
  for (guint i = 0; i < 12; i++)
    {
      gboolean p = tsl_scan_governor_decide (gov, 100);

      g_string_append_c (ways, p ? 'P' : 'S');
      clock.now += p ? 100 : 200;
    }
  g_assert_cmpstr (ways->str, ==, "PSPPPSPPPSPP");
  tsl_scan_governor_get_counts (gov, &parallel, &serial, &switches);
  g_assert_cmpuint (parallel, ==, 900);
  g_assert_cmpuint (serial, ==, 300);
  g_assert_cmpuint (switches, ==, 6);
  g_string_free (ways, TRUE);
  tsl_scan_governor_free (gov);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/scan-governor/counts", test_counts);
  g_test_add_func ("/scan-governor/idle", test_idle);
  g_test_add_func ("/scan-governor/busy", test_busy);
  g_test_add_func ("/scan-governor/change", test_change);
  g_test_add_func ("/scan-governor/noise", test_noise);
  return g_test_run ();
}
