/* bench-bootstrap.c: resampling draws per second, and scipy's in the same run
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One-sample bootstrap of the mean of N items, ROUNDS rounds (N × ROUNDS
 * draws: index, gather, add), best of three, on one thread and on every
 * processor; then the two-sample effect and the median kernel on every
 * processor. Finally runs bench-bootstrap-scipy.py on the same N and ROUNDS
 * and prints the ratio (the README's figure; issue 5 targets ≥ 1e9 draws/s
 * and ≥ 10× scipy).
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gio/gio.h>

#include "tsl-bootstrap.h"
#include "tsl-rng.h"

#define N      10000
#define ROUNDS 20000
#define RUNS   3

/* Processor seconds per wall second of the best run: shows whether the
 * threads really had their cores (a busy machine skews the figures). */
static double last_cpu_use;

static double
best_draws_per_s (TslStat  stat,
                  gboolean two_sample,
                  guint    n_threads,
                  double  *x,
                  double  *out)
{
  TslBootstrapSample a = { x, N, 1, 0 }, b = { x, N, 1, 0 };
  TslBootstrapConfig config = { stat, ROUNDS, 1, n_threads };
  double best = INFINITY, draws = (double) N * ROUNDS * (two_sample ? 2 : 1);

  for (guint run = 0; run < RUNS; run++)
    {
      gint64 start = g_get_monotonic_time ();
      clock_t cpu = clock ();
      double wall;

      if (two_sample)
        tsl_bootstrap_two_sample (&a, &b, &config, out, NULL, NULL);
      else
        tsl_bootstrap_one_sample (&a, &config, 0, out, NULL, NULL);
      wall = (double) (g_get_monotonic_time () - start) / 1e6;
      if (wall < best)
        {
          best = wall;
          last_cpu_use = (double) (clock () - cpu) / CLOCKS_PER_SEC / wall;
        }
    }

  return draws / best;
}

static double
scipy_draws_per_s (void)
{
  g_autofree char *script = g_build_filename (BENCH_SOURCE_DIR, "bench-bootstrap-scipy.py", NULL);
  g_autofree char *n = g_strdup_printf ("%d", N);
  g_autofree char *rounds = g_strdup_printf ("%d", ROUNDS);
  g_autofree char *out = NULL;
  g_autoptr(GError) error = NULL;
  const char *argv[] = { BENCH_PYTHON, script, n, rounds, NULL };
  const char *line;
  int status = 0;

  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL,
                     &out, NULL, &status, &error) ||
      !g_spawn_check_wait_status (status, NULL) ||
      (line = strstr (out, "scipy_draws_per_s ")) == NULL)
    return NAN;

  return g_ascii_strtod (line + strlen ("scipy_draws_per_s "), NULL);
}

int
main (void)
{
  g_autofree double *x = g_new (double, N);
  g_autofree double *out = g_new (double, ROUNDS);
  guint cores = g_get_num_processors ();
  double one, all, all_use, two, median, scipy;
  TslRng rng;

  tsl_rng_init (&rng, 7, 0);
  for (guint i = 0; i < N; i++)
    x[i] = -log1p (-tsl_rng_double (&rng));

  one = best_draws_per_s (TSL_STAT_MEAN, FALSE, 1, x, out);
  all = best_draws_per_s (TSL_STAT_MEAN, FALSE, cores, x, out);
  all_use = last_cpu_use;
  two = best_draws_per_s (TSL_STAT_MEAN, TRUE, cores, x, out);
  median = best_draws_per_s (TSL_STAT_MEDIAN, FALSE, cores, x, out);
  scipy = scipy_draws_per_s ();

  printf ("bootstrap, mean of %d items × %d rounds (best of %d)\n", N, ROUNDS, RUNS);
  printf ("  one thread         %.3g draws/s\n", one);
  printf ("  %u threads          %.3g draws/s (%.2f cores busy: %.3g per core-second)\n",
          cores, all, all_use, all / MAX (all_use, 1e-9));
  printf ("  two-sample effect  %.3g draws/s (%u threads)\n", two, cores);
  printf ("  median (select)    %.3g draws/s (%u threads)\n", median, cores);
  if (isnan (scipy))
    printf ("  scipy.stats.bootstrap: not available (needs python3-scipy)\n");
  else
    printf ("  scipy.stats.bootstrap %.3g draws/s → ours %.1f× faster\n", scipy, all / scipy);

  return EXIT_SUCCESS;
}
