/* test-rng.c: xoshiro256**, SplitMix64, Lemire bounds and tsl_mix64
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Statistical checks use fixed seeds; tolerances are stated in sigmas.
 */
#include <math.h>
#include <stdlib.h>

#include "tsl-rng.h"

static void
test_splitmix_reference (void)
{
  /* Published SplitMix64 outputs for seed 1234567. */
  static const guint64 expected[] = {
    G_GUINT64_CONSTANT (6457827717110365317), G_GUINT64_CONSTANT (3203168211198807973),
    G_GUINT64_CONSTANT (9817491932198370423), G_GUINT64_CONSTANT (4593380528125082431),
    G_GUINT64_CONSTANT (16408922859458223821),
  };
  guint64 state = 1234567;

  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    g_assert_cmpuint (tsl_splitmix64_next (&state), ==, expected[i]);
}

static void
test_xoshiro_reference (void)
{
  /* xoshiro256** from state {1, 2, 3, 4}, as the reference C code gives. */
  static const guint64 expected[] = {
    0x2d00, 0x0, 0x5a007080, G_GUINT64_CONSTANT (0x10e0000000009d80),
    G_GUINT64_CONSTANT (0x10e0b61ce1009d80), G_GUINT64_CONSTANT (0x870021ce143ad00),
  };
  TslRng rng = { { 1, 2, 3, 4 } };

  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    g_assert_cmpuint (tsl_rng_next (&rng), ==, expected[i]);
}

static void
test_jump_reference (void)
{
  /* The reference jump() from state {1, 2, 3, 4}, computed independently. */
  TslRng rng = { { 1, 2, 3, 4 } };

  tsl_rng_jump (&rng);
  g_assert_cmpuint (rng.s[0], ==, G_GUINT64_CONSTANT (0x8c7a153956b5f3d1));
  g_assert_cmpuint (rng.s[1], ==, G_GUINT64_CONSTANT (0x701f1a713401d85e));
  g_assert_cmpuint (rng.s[2], ==, G_GUINT64_CONSTANT (0x6527f66a65469085));
  g_assert_cmpuint (rng.s[3], ==, G_GUINT64_CONSTANT (0x8386b786c4408050));
  g_assert_cmpuint (tsl_rng_next (&rng), ==, G_GUINT64_CONSTANT (0xbbd2f312298443d8));
}

static void
test_streams (void)
{
  TslRng a, b, c;
  double sa = 0, sb = 0, sab = 0, saa = 0, sbb = 0, r;
  const guint n = 100000;
  guint same = 0;

  tsl_rng_init (&a, 7, 0);
  tsl_rng_init (&b, 7, 0);
  for (guint i = 0; i < 1000; i++)
    g_assert_cmpuint (tsl_rng_next (&a), ==, tsl_rng_next (&b));

  tsl_rng_init (&a, 7, 0);
  tsl_rng_init (&b, 7, 1);
  tsl_rng_init (&c, 8, 0);
  for (guint i = 0; i < n; i++)
    {
      double x = tsl_rng_double (&a), y = tsl_rng_double (&b);

      same += x == y || x == tsl_rng_double (&c);
      sa += x;
      sb += y;
      sab += x * y;
      saa += x * x;
      sbb += y * y;
    }

  g_assert_cmpuint (same, ==, 0);
  r = (sab - sa * sb / n) / sqrt ((saa - sa * sa / n) * (sbb - sb * sb / n));
  g_test_message ("streams 0 and 1 of seed 7: correlation %.5f", r);
  /* Tolerance: 6 sigma of a zero correlation over 1e5 pairs (sigma = 0.0032). */
  g_assert_cmpfloat (fabs (r), <, 0.019);
}

static void
test_bounded (void)
{
  static const guint64 bounds[] = { 3, 7, 10 };
  TslRng rng;
  double mean = 0;
  guint64 big = G_GUINT64_CONSTANT (0x8000000000000001);

  tsl_rng_init (&rng, 1, 0);
  for (guint i = 0; i < 1000; i++)
    g_assert_cmpuint (tsl_rng_bounded (&rng, 1), ==, 0);

  for (guint b = 0; b < G_N_ELEMENTS (bounds); b++)
    {
      guint64 observed[10] = { 0 };
      const guint n = 10000 * bounds[b];
      double expected = n / (double) bounds[b], stat = 0;

      for (guint i = 0; i < n; i++)
        {
          guint64 x = tsl_rng_bounded (&rng, bounds[b]);

          g_assert_cmpuint (x, <, bounds[b]);
          observed[x]++;
        }
      for (guint i = 0; i < bounds[b]; i++)
        stat += (observed[i] - expected) * (observed[i] - expected) / expected;
      g_test_message ("bounded(%" G_GUINT64_FORMAT "): chi-square %.2f", bounds[b], stat);
      /* 0.999 quantiles of chi-square with 2, 6 and 9 df: 13.82, 22.46, 27.88. */
      g_assert_cmpfloat (stat, <, bounds[b] == 3 ? 13.82 : bounds[b] == 7 ? 22.46 : 27.88);
    }

  /* A bound just above 2^63 rejects half the draws: exercises the slow path. */
  for (guint i = 0; i < 100000; i++)
    {
      guint64 x = tsl_rng_bounded (&rng, big);

      g_assert_cmpuint (x, <, big);
      mean += (double) x / (double) big;
    }
  mean /= 100000;
  /* Tolerance: 5 sigma (sigma = 0.29 / sqrt(1e5) = 0.0009). */
  g_assert_cmpfloat (fabs (mean - 0.5), <, 0.0046);
}

static void
test_double (void)
{
  TslRng rng;
  double sum = 0, sum2 = 0, mean, var;
  const guint n = 1000000;

  tsl_rng_init (&rng, 99, 3);
  for (guint i = 0; i < n; i++)
    {
      double x = tsl_rng_double (&rng);

      g_assert_cmpfloat (x, >=, 0.0);
      g_assert_cmpfloat (x, <, 1.0);
      sum += x;
      sum2 += x * x;
    }

  mean = sum / n;
  var = sum2 / n - mean * mean;
  g_test_message ("double: mean %.5f, variance %.5f", mean, var);
  /* 5 sigma: mean sigma 0.00029, variance sigma sqrt ((1/80 - 1/144) / n) = 0.000075. */
  g_assert_cmpfloat (fabs (mean - 0.5), <, 0.0015);
  g_assert_cmpfloat (fabs (var - 1.0 / 12), <, 0.0004);
}

static int
cmp_u64 (const void *a,
         const void *b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;

  return x < y ? -1 : x > y;
}

static void
test_mix64 (void)
{
  const guint n_keys = 4000;
  g_autofree guint64 *values = g_new (guint64, 100000);
  guint worst_key = 0, worst_seed = 0, flips_key[64][64] = { { 0 } }, flips_seed[64][64] = { { 0 } };
  TslRng rng;

  g_assert_cmpuint (tsl_mix64 (3, 5), ==, tsl_mix64_keyed (tsl_mix64_seed (3), 5));
  g_assert_cmpuint (tsl_mix64 (3, 5), !=, tsl_mix64 (4, 5));

  /* A bijection of the key: no two of 1e5 consecutive keys collide. */
  for (guint i = 0; i < 100000; i++)
    values[i] = tsl_mix64 (0x5EED, i);
  qsort (values, 100000, sizeof (guint64), cmp_u64);
  for (guint i = 1; i < 100000; i++)
    g_assert_cmpuint (values[i - 1], !=, values[i]);

  /* Avalanche: flipping any input bit (of key or seed) flips each output bit
   * about half the time. */
  tsl_rng_init (&rng, 2, 0);
  for (guint i = 0; i < n_keys; i++)
    {
      guint64 key = tsl_rng_next (&rng), seed = tsl_rng_next (&rng);
      guint64 h = tsl_mix64 (seed, key);

      for (guint in = 0; in < 64; in++)
        {
          guint64 dk = h ^ tsl_mix64 (seed, key ^ (G_GUINT64_CONSTANT (1) << in));
          guint64 ds = h ^ tsl_mix64 (seed ^ (G_GUINT64_CONSTANT (1) << in), key);

          for (guint out = 0; out < 64; out++)
            {
              flips_key[in][out] += (dk >> out) & 1;
              flips_seed[in][out] += (ds >> out) & 1;
            }
        }
    }

  for (guint in = 0; in < 64; in++)
    for (guint out = 0; out < 64; out++)
      {
        worst_key = MAX (worst_key, (guint) abs ((int) flips_key[in][out] - (int) n_keys / 2));
        worst_seed = MAX (worst_seed, (guint) abs ((int) flips_seed[in][out] - (int) n_keys / 2));
      }

  g_test_message ("mix64 avalanche over %u keys: worst bias %.4f (key), %.4f (seed)",
                  n_keys, (double) worst_key / n_keys, (double) worst_seed / n_keys);
  /* Tolerance: 0.05 is 6.3 sigma for one of the 4096 bit pairs (sigma 0.0079). */
  g_assert_cmpfloat ((double) worst_key / n_keys, <, 0.05);
  g_assert_cmpfloat ((double) worst_seed / n_keys, <, 0.05);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/rng/splitmix-reference", test_splitmix_reference);
  g_test_add_func ("/rng/xoshiro-reference", test_xoshiro_reference);
  g_test_add_func ("/rng/jump-reference", test_jump_reference);
  g_test_add_func ("/rng/streams", test_streams);
  g_test_add_func ("/rng/bounded", test_bounded);
  g_test_add_func ("/rng/double", test_double);
  g_test_add_func ("/rng/mix64", test_mix64);

  return g_test_run ();
}
