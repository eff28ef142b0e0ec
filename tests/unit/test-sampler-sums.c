/* test-sampler-sums.c: a sampler's exact sums against quad precision
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A slice's (sum, sum_lo) is the exact sum of its values in canonical form:
 * sum its correct rounding, sum_lo the rest, +0 when there is none. The
 * sampler has a fast path for adding to and merging sums with no rest (one
 * TwoSum) and a slow one for the others; small K coarsens often, so blocks
 * are merged with and without rests on either side. The reference sums the
 * same values in __float128 (113 bits: exact for the values drawn here,
 * which span 2^-7..2^20 with 53 bits each, over at most 2^15 of them).
 */
#include <math.h>
#include <string.h>

#include <glib.h>

#include "tsl-rng.h"
#include "tsl-sampler.h"
#include "tsl-time-grid.h"

static gboolean
same_double (double a,
             double b)
{
  return memcmp (&a, &b, sizeof a) == 0;
}

/* Whole runs of zeros of one sign (sums that stay -0 or +0), integers
 * (no rest) and fractions (a rest once two are added), no value (NAN). */
static double
draw (TslRng  *rng,
      guint64  i)
{
  guint64 run = i / 64;

  if (run % 7 == 3)
    return run % 2 == 0 ? -0.0 : 0.0;
  switch (tsl_rng_bounded (rng, 8))
    {
    case 0:
      return NAN;
    case 1:
    case 2:
      return (double) tsl_rng_bounded (rng, 2000001) - 1000000.0;
    default:
      return (tsl_rng_double (rng) - 0.4) * ldexp (1.0, (int) tsl_rng_bounded (rng, 28) - 8);
    }
}

static void
check_sample (const TslSample *s,
              const double    *values,
              const gint64    *keys,
              guint64          n_events,
              gint64           start,
              gint64           end)
{
  __float128 q = 0;
  gboolean any = FALSE, all_neg_zero = TRUE;
  guint64 count = 0;
  double hi, lo;

  for (guint64 i = 0; i < n_events; i++)
    {
      if (keys[i] < start || keys[i] >= end)
        continue;
      count++;
      if (isnan (values[i]))
        continue;
      any = TRUE;
      all_neg_zero &= values[i] == 0 && signbit (values[i]);
      q += values[i];
    }
  hi = (double) q;
  lo = (double) (q - (__float128) hi) + 0.0;
  /* An exact 0 is -0 only when every value was (or there was none). */
  if (hi == 0)
    hi = !any || all_neg_zero ? -0.0 : 0.0;

  g_assert_cmpuint (s->summary.count, ==, count);
  g_assert_false (isnan (s->summary.sum_lo));
  g_assert_true (same_double (s->summary.sum, hi));
  g_assert_true (same_double (s->summary.sum_lo, lo));
}

static void
test_count (void)
{
  const guint64 n_events = 30011;
  g_autofree double *values = g_new (double, n_events);
  g_autofree gint64 *keys = g_new (gint64, n_events);
  g_autoptr(TslSampler) sampler = tsl_sampler_new_count (4, 7, 0);
  const TslSample *samples;
  gint64 t;
  TslRng rng;
  guint n;

  tsl_rng_init (&rng, 11, 0);
  for (guint64 i = 0; i < n_events; i++)
    {
      values[i] = draw (&rng, i);
      keys[i] = (gint64) i;
      tsl_sampler_offer (sampler, (gint64) i, values[i]);
    }

  samples = tsl_sampler_peek_samples (sampler, &n);
  t = tsl_sampler_get_slice_size (sampler);
  g_assert_cmpuint (n, >=, 4);
  for (guint j = 0; j < n; j++)
    check_sample (&samples[j], values, keys, n_events, samples[j].slice * t, (samples[j].slice + 1) * t);
}

static void
test_time (void)
{
  const guint64 n_events = 20011;
  g_autofree double *values = g_new (double, n_events);
  g_autofree gint64 *keys = g_new (gint64, n_events);
  g_autoptr(TslTimeGrid) grid = tsl_time_grid_new (4);
  g_autoptr(TslSampler) sampler = tsl_sampler_new_time (grid, 7);
  const TslSample *samples;
  gint64 width;
  TslRng rng;
  guint n;

  tsl_rng_init (&rng, 12, 0);
  for (guint64 i = 0; i < n_events; i++)
    {
      values[i] = draw (&rng, i);
      /* Out of order, with repeats: blocks inserted between others too. */
      keys[i] = (gint64) tsl_rng_bounded (&rng, 1000000) - 200000;
      tsl_sampler_offer (sampler, keys[i], values[i]);
    }

  samples = tsl_sampler_peek_samples (sampler, &n);
  width = tsl_sampler_get_slice_size (sampler);
  g_assert_cmpuint (n, >=, 4);
  for (guint j = 0; j < n; j++)
    check_sample (&samples[j], values, keys, n_events, samples[j].slice * width,
                  (samples[j].slice + 1) * width);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/sampler-sums/count", test_count);
  g_test_add_func ("/sampler-sums/time", test_time);

  return g_test_run ();
}
