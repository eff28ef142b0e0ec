/* test-bootstrap.c: resampling kernels, intervals and exact tests (issue 5)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Reference values come from tests/data/bootstrap/vectors.json, written by
 * make-vectors.py with scipy 1.10. Intervals are Monte-Carlo estimates on
 * both sides, so they agree within a tolerance stated as a fraction of the
 * interval's width; exact quantities (binomial p-values, permutation
 * p-values, q-values) agree to rounding.
 */
#include <math.h>
#include <string.h>

#include <json-glib/json-glib.h>

#include "tsl-bootstrap.h"
#include "tsl-rng.h"

/* Our rounds for the scipy comparisons (scipy used 100000). The quantile
 * error at 2.5% with 20000 rounds is about 1% of a normal interval's width,
 * so 6% (percentile) and 8% (BCa, whose ends move with z0's own noise)
 * are ~5 standard errors. */
#define SCIPY_ROUNDS        20000
#define TOL_PERCENTILE      0.06
#define TOL_BCA             0.08

static JsonObject *
load_vectors (JsonParser **parser)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "bootstrap", "vectors.json", NULL);
  g_autoptr(GError) error = NULL;

  *parser = json_parser_new ();
  json_parser_load_from_file (*parser, path, &error);
  g_assert_no_error (error);

  return json_node_get_object (json_parser_get_root (*parser));
}

static double *
array_to_doubles (JsonArray *array,
                  gsize     *n)
{
  double *x;

  *n = json_array_get_length (array);
  x = g_new (double, MAX (*n, 1));
  for (guint i = 0; i < *n; i++)
    x[i] = json_array_get_double_element (array, i);

  return x;
}

static int
compare_doubles (const void *pa,
                 const void *pb)
{
  double a = *(const double *) pa;
  double b = *(const double *) pb;

  return (a > b) - (a < b);
}

static void
test_stat_compute (void)
{
  double x[20];
  double odd[] = { 5, 1, 3 };
  double even[] = { 4, 1, 3, 2 };
  double bits[] = { 1, 0, 0, 1, 1 };
  TslStat stat;

  for (guint i = 0; i < 20; i++)
    x[i] = 20 - i;

  g_assert_cmpfloat (tsl_stat_compute (TSL_STAT_SUM, x, 20), ==, 210);
  g_assert_cmpfloat (tsl_stat_compute (TSL_STAT_MEAN, x, 20), ==, 10.5);
  /* numpy.percentile (x, 95) for 1..20: 1 + 0.95 · 19 */
  g_assert_cmpfloat_with_epsilon (tsl_stat_compute (TSL_STAT_P95, x, 20), 19.05, 1e-12);
  g_assert_cmpfloat (tsl_stat_compute (TSL_STAT_MAX, x, 20), ==, 20);
  g_assert_cmpfloat (tsl_stat_compute (TSL_STAT_COUNT, x, 20), ==, 20);
  g_assert_cmpfloat (tsl_stat_compute (TSL_STAT_MEDIAN, odd, 3), ==, 3);
  g_assert_cmpfloat (tsl_stat_compute (TSL_STAT_MEDIAN, even, 4), ==, 2.5);
  g_assert_cmpfloat (tsl_stat_compute (TSL_STAT_SHARE, bits, 5), ==, 0.6);
  g_assert_true (isnan (tsl_stat_compute (TSL_STAT_MEAN, x, 0)));

  g_assert_true (tsl_stat_from_string ("p95", &stat));
  g_assert_cmpint (stat, ==, TSL_STAT_P95);
  g_assert_cmpstr (tsl_stat_to_string (TSL_STAT_SHARE), ==, "share");
  g_assert_false (tsl_stat_from_string ("average", &stat));

  g_assert_cmpfloat (tsl_relative_change (2, 3), ==, 0.5);
  g_assert_cmpfloat (tsl_relative_change (0, 0), ==, 0);
  g_assert_true (isinf (tsl_relative_change (0, 1)));

  g_assert_cmpfloat_with_epsilon (tsl_ndtri (0.975), 1.959963984540054, 1e-14);
  g_assert_cmpfloat_with_epsilon (tsl_ndtri (1e-10), -6.361340902404056, 1e-12);
  g_assert_cmpfloat_with_epsilon (tsl_ndtr (tsl_ndtri (0.3)), 0.3, 1e-15);
}

/* Fast leave-one-out values against recomputing the statistic n times. */
static void
test_jackknife (void)
{
  TslRng rng;
  double x[31], without[30], fast[31];

  tsl_rng_init (&rng, 7, 0);
  for (guint i = 0; i < G_N_ELEMENTS (x); i++)
    x[i] = (double) tsl_rng_bounded (&rng, 12);   /* many ties */

  for (TslStat stat = 0; stat < TSL_N_STATS; stat++)
    {
      tsl_jackknife (stat, x, G_N_ELEMENTS (x), fast);
      for (guint i = 0; i < G_N_ELEMENTS (x); i++)
        {
          guint m = 0;

          for (guint j = 0; j < G_N_ELEMENTS (x); j++)
            if (j != i)
              without[m++] = x[j];
          g_assert_cmpfloat_with_epsilon (fast[i], tsl_stat_compute (stat, without, m), 1e-9);
        }
    }
}

static void
check_interval (const char *what,
                double      low,
                double      high,
                double      ref_low,
                double      ref_high,
                double      tolerance,
                double     *worst)
{
  double width = ref_high - ref_low;
  double delta = MAX (fabs (low - ref_low), fabs (high - ref_high)) / width;

  g_test_message ("%s: ours [%.6g, %.6g] scipy [%.6g, %.6g] delta %.3f of width",
                  what, low, high, ref_low, ref_high, delta);
  *worst = MAX (*worst, delta);
  g_assert_cmpfloat (delta, <=, tolerance);
}

static void
test_scipy_one_sample (void)
{
  g_autoptr(JsonParser) parser = NULL;
  JsonArray *cases = json_object_get_array_member (load_vectors (&parser), "one");
  g_autofree double *boot = g_new (double, SCIPY_ROUNDS);
  double worst[2] = { 0, 0 };

  for (guint c = 0; c < json_array_get_length (cases); c++)
    {
      JsonObject *v = json_array_get_object_element (cases, c);
      TslStat stat;
      gsize n;
      g_autofree double *x = array_to_doubles (json_object_get_array_member (v, "x"), &n);
      g_autofree double *jack = g_new (double, n);
      gboolean bca = g_str_equal (json_object_get_string_member (v, "method"), "bca");
      double confidence = json_object_get_double_member (v, "confidence");
      TslBootstrapSample sample = { x, n, 1, 0 };
      TslBootstrapConfig config = { 0, SCIPY_ROUNDS, 100 + c, 0 };
      double low, high;
      g_autofree char *what = NULL;

      g_assert_true (tsl_stat_from_string (json_object_get_string_member (v, "stat"), &stat));
      config.stat = stat;
      g_assert_true (tsl_bootstrap_one_sample (&sample, &config, 0, boot, NULL, NULL));
      qsort (boot, SCIPY_ROUNDS, sizeof (double), compare_doubles);

      if (bca)
        {
          const double *groups[1] = { jack };

          tsl_jackknife (stat, x, n, jack);
          g_assert_true (tsl_bca_interval (tsl_stat_compute (stat, x, n), boot, SCIPY_ROUNDS,
                                           groups, &n, 1, confidence, &low, &high));
        }
      else
        tsl_percentile_interval (boot, SCIPY_ROUNDS, confidence, &low, &high);

      what = g_strdup_printf ("one-sample %s n=%zu %s %.2f", tsl_stat_to_string (stat), n,
                              bca ? "bca" : "percentile", confidence);
      check_interval (what, low, high,
                      json_object_get_double_member (v, "low"), json_object_get_double_member (v, "high"),
                      bca ? TOL_BCA : TOL_PERCENTILE, &worst[bca]);
    }

  g_test_message ("one-sample worst delta: percentile %.3f, bca %.3f of width", worst[0], worst[1]);
}

static void
test_scipy_two_sample (void)
{
  g_autoptr(JsonParser) parser = NULL;
  JsonArray *cases = json_object_get_array_member (load_vectors (&parser), "two");
  g_autofree double *boot = g_new (double, SCIPY_ROUNDS);
  double worst[2] = { 0, 0 };

  for (guint c = 0; c < json_array_get_length (cases); c++)
    {
      JsonObject *v = json_array_get_object_element (cases, c);
      TslStat stat;
      gsize n[2];
      g_autofree double *a = array_to_doubles (json_object_get_array_member (v, "a"), &n[0]);
      g_autofree double *b = array_to_doubles (json_object_get_array_member (v, "b"), &n[1]);
      g_autofree double *jack_a = g_new (double, n[0]);
      g_autofree double *jack_b = g_new (double, n[1]);
      gboolean bca = g_str_equal (json_object_get_string_member (v, "method"), "bca");
      TslBootstrapSample sa = { a, n[0], 1, 0 }, sb = { b, n[1], 1, 0 };
      TslBootstrapConfig config = { 0, SCIPY_ROUNDS, 200 + c, 0 };
      double theta_a, theta_b, low, high;
      g_autofree char *what = NULL;

      g_assert_true (tsl_stat_from_string (json_object_get_string_member (v, "stat"), &stat));
      config.stat = stat;
      g_assert_true (tsl_bootstrap_two_sample (&sa, &sb, &config, boot, NULL, NULL));
      qsort (boot, SCIPY_ROUNDS, sizeof (double), compare_doubles);
      theta_a = tsl_stat_compute (stat, a, n[0]);
      theta_b = tsl_stat_compute (stat, b, n[1]);

      if (bca)
        {
          const double *groups[2] = { jack_a, jack_b };

          /* scipy's multi-sample jackknife: leave one out of A, then of B. */
          tsl_jackknife (stat, a, n[0], jack_a);
          tsl_jackknife (stat, b, n[1], jack_b);
          for (gsize i = 0; i < n[0]; i++)
            jack_a[i] = tsl_relative_change (jack_a[i], theta_b);
          for (gsize i = 0; i < n[1]; i++)
            jack_b[i] = tsl_relative_change (theta_a, jack_b[i]);
          g_assert_true (tsl_bca_interval (tsl_relative_change (theta_a, theta_b), boot, SCIPY_ROUNDS,
                                           groups, n, 2, 0.95, &low, &high));
        }
      else
        tsl_percentile_interval (boot, SCIPY_ROUNDS, 0.95, &low, &high);

      what = g_strdup_printf ("two-sample %s n=%zu/%zu %s", tsl_stat_to_string (stat), n[0], n[1],
                              bca ? "bca" : "percentile");
      check_interval (what, low, high,
                      json_object_get_double_member (v, "low"), json_object_get_double_member (v, "high"),
                      bca ? TOL_BCA : TOL_PERCENTILE, &worst[bca]);
    }

  g_test_message ("two-sample worst delta: percentile %.3f, bca %.3f of width", worst[0], worst[1]);
}

static void
test_binomial (void)
{
  g_autoptr(JsonParser) parser = NULL;
  JsonArray *cases = json_object_get_array_member (load_vectors (&parser), "binom");

  for (guint c = 0; c < json_array_get_length (cases); c++)
    {
      JsonObject *v = json_array_get_object_element (cases, c);
      guint64 k = json_object_get_int_member (v, "k");
      guint64 n = json_object_get_int_member (v, "n");
      double p = json_object_get_double_member (v, "p");
      double expected = json_object_get_double_member (v, "pvalue");
      double got = tsl_binomial_test (k, n, p);

      g_test_message ("binomtest (%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT ", %g): %.12g, scipy %.12g",
                      k, n, p, got, expected);
      g_assert_cmpfloat (fabs (got - expected), <=, 1e-9 * expected + 1e-15);
    }

  /* Rates: 10 events in 1 s against 30 in 3 s is no change at all. */
  g_assert_cmpfloat (tsl_rate_test (10, 1, 30, 3), ==, 1.0);
  g_assert_cmpfloat (tsl_rate_test (10, 1, 90, 3), <, 0.001);
}

/* Every split of the pooled items into groups of n_a and n_b, by bit mask. */
static double
brute_force_max_p (const double *a,
                   guint         n_a,
                   const double *b,
                   guint         n_b)
{
  double z[16], max_a = -INFINITY, max_b = -INFINITY, d_obs;
  guint total = n_a + n_b, hits = 0, splits = 0;

  /* Assigned apart: MAX() evaluates its arguments twice. */
  for (guint i = 0; i < n_a; i++)
    {
      z[i] = a[i];
      max_a = MAX (max_a, z[i]);
    }
  for (guint i = 0; i < n_b; i++)
    {
      z[n_a + i] = b[i];
      max_b = MAX (max_b, z[n_a + i]);
    }
  d_obs = fabs (max_b - max_a);

  for (guint mask = 0; mask < (1u << total); mask++)
    {
      double ma = -INFINITY, mb = -INFINITY;

      if ((guint) __builtin_popcount (mask) != n_b)
        continue;
      for (guint i = 0; i < total; i++)
        {
          if (mask & (1u << i))
            mb = MAX (mb, z[i]);
          else
            ma = MAX (ma, z[i]);
        }
      splits++;
      hits += fabs (mb - ma) >= d_obs - 1e-12;
    }

  return (double) hits / splits;
}

static void
test_permutation_max (void)
{
  TslRng rng;

  tsl_rng_init (&rng, 11, 0);
  for (guint trial = 0; trial < 50; trial++)
    {
      double a[6], b[7];
      guint n_a = 2 + trial % 5, n_b = 3 + trial % 5;

      for (guint i = 0; i < n_a; i++)
        a[i] = (double) tsl_rng_bounded (&rng, 8);
      for (guint i = 0; i < n_b; i++)
        b[i] = (double) tsl_rng_bounded (&rng, 8) + (trial % 3 == 0 ? 4 : 0);

      g_assert_cmpfloat_with_epsilon (tsl_permutation_test_max (a, n_a, b, n_b),
                                      brute_force_max_p (a, n_a, b, n_b), 1e-12);
    }

  g_assert_true (isnan (tsl_permutation_test_max (NULL, 0, (double[]) { 1 }, 1)));
}

static void
test_bh (void)
{
  /* By hand: sorted 0.005 0.01 0.03 0.04 0.5, m = 5 → p·m/rank 0.025 0.025
   * 0.05 0.05 0.5, already non-decreasing from the top. */
  double p[] = { 0.01, 0.04, 0.03, 0.005, 0.5, NAN };
  double expected[] = { 0.025, 0.05, 0.05, 0.025, 0.5 };
  /* A step that needs the running minimum: 0.02·3/2 = 0.03 > 0.025·3/3. */
  double p2[] = { 0.02, 0.025, 0.001 };
  double expected2[] = { 0.025, 0.025, 0.003 };
  double q[6];

  tsl_bh_qvalues (p, 6, q);
  for (guint i = 0; i < 5; i++)
    g_assert_cmpfloat_with_epsilon (q[i], expected[i], 1e-15);
  g_assert_true (isnan (q[5]));

  tsl_bh_qvalues (p2, 3, q);
  for (guint i = 0; i < 3; i++)
    g_assert_cmpfloat_with_epsilon (q[i], expected2[i], 1e-15);
}

static void
make_data (double  *x,
           gsize    n,
           guint64  seed)
{
  TslRng rng;

  tsl_rng_init (&rng, seed, 0);
  for (gsize i = 0; i < n; i++)
    x[i] = -log1p (-tsl_rng_double (&rng));
}

static void
test_reproducible (void)
{
  static const TslStat stats[] = { TSL_STAT_MEAN, TSL_STAT_MEDIAN, TSL_STAT_P95, TSL_STAT_MAX };
  enum { N = 3000, ROUNDS = 1000 };
  g_autofree double *a = g_new (double, N);
  g_autofree double *b = g_new (double, N);
  g_autofree double *ref = g_new (double, ROUNDS);
  g_autofree double *out = g_new (double, ROUNDS);

  make_data (a, N, 1);
  make_data (b, N, 2);

  for (guint s = 0; s < G_N_ELEMENTS (stats); s++)
    for (guint block = 0; block <= 7; block += 7)
      {
        TslBootstrapSample sa = { a, N, 1, block }, sb = { b, N - 17, 2, block };
        TslBootstrapConfig config = { stats[s], ROUNDS, 42, 1 };

        g_assert_true (tsl_bootstrap_two_sample (&sa, &sb, &config, ref, NULL, NULL));
        /* Rounds × draws is past the threading threshold: 2 and 3 threads. */
        for (guint threads = 2; threads <= 3; threads++)
          {
            config.n_threads = threads;
            g_assert_true (tsl_bootstrap_two_sample (&sa, &sb, &config, out, NULL, NULL));
            g_assert_cmpmem (ref, ROUNDS * sizeof (double), out, ROUNDS * sizeof (double));
          }

        config.seed = 43;
        g_assert_true (tsl_bootstrap_two_sample (&sa, &sb, &config, out, NULL, NULL));
        g_assert_true (memcmp (ref, out, ROUNDS * sizeof (double)) != 0);
      }
}

static void
test_cancel (void)
{
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  double x[100], out[1000];
  TslBootstrapSample s = { x, 100, 1, 0 };
  TslBootstrapConfig config = { TSL_STAT_MEAN, 1000, 1, 0 };

  make_data (x, 100, 3);
  g_cancellable_cancel (cancellable);
  g_assert_false (tsl_bootstrap_one_sample (&s, &config, 0, out, cancellable, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}

static void
test_block_length (void)
{
  enum { N = 2000 };
  g_autofree double *x = g_new (double, N);
  g_autofree double *iid = g_new (double, N);
  TslRng rng;
  double prev = 0, b_ar, b_iid;

  tsl_rng_init (&rng, 5, 0);
  for (guint i = 0; i < N; i++)
    {
      /* AR(1), φ = 0.6, with a crude but adequate symmetric innovation. */
      double e = tsl_rng_double (&rng) + tsl_rng_double (&rng) + tsl_rng_double (&rng) - 1.5;

      prev = 0.6 * prev + e;
      x[i] = prev;
      iid[i] = e;
    }

  g_assert_cmpfloat_with_epsilon (tsl_lag1_autocorrelation (x, N), 0.6, 0.05);
  g_assert_cmpfloat (fabs (tsl_lag1_autocorrelation (iid, N)), <, 0.06);

  b_ar = tsl_block_length (x, N);
  b_iid = tsl_block_length (iid, N);
  g_test_message ("Politis–White circular block length: AR(1) 0.6 → %.2f, iid → %.2f", b_ar, b_iid);
  /* For AR(1) the optimal circular block length is
   * (6φ² / (1 − φ²)²)^(1/3) · n^(1/3) ≈ 22 at n = 2000; the estimate is
   * noisy, so a wide band. iid data needs no blocks. */
  g_assert_cmpfloat (b_ar, >=, 8);
  g_assert_cmpfloat (b_ar, <=, 45);
  g_assert_cmpfloat (b_iid, <, 4);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/bootstrap/stat", test_stat_compute);
  g_test_add_func ("/bootstrap/jackknife", test_jackknife);
  g_test_add_func ("/bootstrap/scipy/one-sample", test_scipy_one_sample);
  g_test_add_func ("/bootstrap/scipy/two-sample", test_scipy_two_sample);
  g_test_add_func ("/bootstrap/binomial", test_binomial);
  g_test_add_func ("/bootstrap/permutation-max", test_permutation_max);
  g_test_add_func ("/bootstrap/bh", test_bh);
  g_test_add_func ("/bootstrap/reproducible", test_reproducible);
  g_test_add_func ("/bootstrap/cancel", test_cancel);
  g_test_add_func ("/bootstrap/block-length", test_block_length);

  return g_test_run ();
}
