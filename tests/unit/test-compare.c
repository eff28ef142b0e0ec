/* test-compare.c: the compare engine's calibration and `timeslice compare`
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Calibration runs many simulated datasets with fixed seeds, so every
 * figure is deterministic; tolerances are stated as binomial Monte-Carlo
 * errors of the rate being measured (SE = √(r(1−r)/trials)). Rounds are
 * 999 here (10000 in the tool) to keep the suite fast; that adds a little
 * noise to each p-value but does not bias the rates.
 */
#include <math.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <utime.h>
#include <glib/gstdio.h>

#include <json-glib/json-glib.h>

#include "tsl-budget.h"
#include "tsl-compare.h"
#include "tsl-compare-private.h"
#include "tsl-csv-writer.h"
#include "tsl-read-stream.h"
#include "tsl-trace.h"
#include "tsl-rng.h"

#include "test-stats.h"

#define ROUNDS 999

/* Gamma (4, mean / 4) as a sum of four exponentials: CV 0.5, right skew. */
static double
gamma4 (TslRng *rng,
        double  mean)
{
  double s = 0;

  for (guint i = 0; i < 4; i++)
    s -= log1p (-tsl_rng_double (rng));

  return s * mean / 4;
}

static guint64
poisson (TslRng *rng,
         double  mean)
{
  double t = 0;
  guint64 k = 0;

  /* Arrivals of a unit-rate process until time `mean`. */
  for (;;)
    {
      t -= log1p (-tsl_rng_double (rng));
      if (t > mean)
        return k;
      k++;
    }
}

static TslCompareRequest *
make_request (guint64 seed)
{
  TslCompareRequest *request = tsl_compare_request_new ();

  request->rounds = ROUNDS;
  request->seed = seed;
  request->n_threads = 1;
  return request;
}

static TslCompareRow *
compare_one (TslStat                  stat,
             const double            *a,
             gsize                    n_a,
             double                   sec_a,
             const double            *b,
             gsize                    n_b,
             double                   sec_b,
             const TslCompareRequest *request)
{
  TslCompareSeries series = {
    "s", stat, { a, n_a, sec_a, n_a, 1 }, { b, n_b, sec_b, n_b, 1 },
  };
  g_autoptr(GPtrArray) rows = tsl_compare_series (&series, 1, request, "test", NULL, NULL);

  g_assert_nonnull (rows);
  g_assert_cmpuint (rows->len, ==, 1);
  return g_ptr_array_steal_index (rows, 0);
}

static void
fill_gamma (TslRng *rng,
            double *x,
            gsize   n,
            double  mean)
{
  for (gsize i = 0; i < n; i++)
    x[i] = gamma4 (rng, mean);
}

static void
fill_ar1 (TslRng *rng,
          double *x,
          gsize   n,
          double  phi)
{
  /* Start in the stationary distribution so A and B are alike. */
  double prev = normal (rng) / sqrt (1 - phi * phi);

  for (gsize i = 0; i < n; i++)
    {
      prev = phi * prev + normal (rng);
      x[i] = 10 + prev;
    }
}

/* Nothing changed, equal lengths, mean of skewed data: FPR of the default
 * method against the seed's on the very same datasets. */
static void
test_null_equal (void)
{
  enum { TRIALS = 1000, N = 100 };
  g_autoptr(TslCompareRequest) request = make_request (0);
  g_autoptr(TslCompareRequest) seed_request = make_request (0);
  double a[N], b[N];
  guint ours = 0, seed = 0;
  TslRng rng;

  seed_request->method = TSL_COMPARE_SEED;
  tsl_rng_init (&rng, 1001, 0);

  for (guint t = 0; t < TRIALS; t++)
    {
      g_autoptr(TslCompareRow) row = NULL;
      g_autoptr(TslCompareRow) seed_row = NULL;

      fill_gamma (&rng, a, N, 5);
      fill_gamma (&rng, b, N, 5);
      request->seed = seed_request->seed = t;
      row = compare_one (TSL_STAT_MEAN, a, N, 1, b, N, 1, request);
      seed_row = compare_one (TSL_STAT_MEAN, a, N, 1, b, N, 1, seed_request);
      ours += row->significant;
      seed += seed_row->significant;
    }

  g_test_message ("null, equal lengths (mean, n=100, %d datasets): FPR %.3f two-sample, %.3f seed method",
                  TRIALS, (double) ours / TRIALS, (double) seed / TRIALS);
  /* 0.05 ± 0.02 (SE 0.007 at 1000 trials; the bootstrap's own small-n
   * undercoverage may add up to ~0.01). */
  g_assert_cmpfloat ((double) ours / TRIALS, >=, 0.03);
  g_assert_cmpfloat ((double) ours / TRIALS, <=, 0.07);
  /* The seed's test was measured at 0.17: it ignores B's spread. */
  g_assert_cmpfloat ((double) seed / TRIALS, >=, 0.12);
  g_assert_cmpuint (seed, >, 2 * ours);
}

/* Sums when B is 10% longer: compared per second, still calibrated. */
static void
test_null_longer (void)
{
  enum { TRIALS = 1000, N_A = 100, N_B = 110 };
  g_autoptr(TslCompareRequest) request = make_request (0);
  double a[N_A], b[N_B];
  guint flagged = 0;
  TslRng rng;

  tsl_rng_init (&rng, 1002, 0);
  for (guint t = 0; t < TRIALS; t++)
    {
      g_autoptr(TslCompareRow) row = NULL;

      /* One slice per second: A lasts 100 s, B 110 s, the same rate. */
      fill_gamma (&rng, a, N_A, 5);
      fill_gamma (&rng, b, N_B, 5);
      request->seed = t;
      row = compare_one (TSL_STAT_SUM, a, N_A, 100, b, N_B, 110, request);
      g_assert_cmpstr (row->stat, ==, "sum_per_s");
      flagged += row->significant;
    }

  g_test_message ("null, B 10%% longer (sum_per_s): FPR %.3f", (double) flagged / TRIALS);
  g_assert_cmpfloat ((double) flagged / TRIALS, >=, 0.03);
  g_assert_cmpfloat ((double) flagged / TRIALS, <=, 0.07);
}

/* Poisson counts over 10 s and 11 s at the same rate: the exact test. */
static void
test_null_counts (void)
{
  enum { TRIALS = 2000 };
  g_autoptr(TslCompareRequest) request = make_request (0);
  guint flagged = 0;
  TslRng rng;

  tsl_rng_init (&rng, 1003, 0);
  for (guint t = 0; t < TRIALS; t++)
    {
      TslCompareSeries series = { "c", TSL_STAT_COUNT };
      g_autoptr(GPtrArray) rows = NULL;
      TslCompareRow *row;

      series.a = (TslCompareSide) { NULL, 0, 10, poisson (&rng, 30 * 10), 1 };
      series.b = (TslCompareSide) { NULL, 0, 11, poisson (&rng, 30 * 11), 1 };
      rows = tsl_compare_series (&series, 1, request, "counts", NULL, NULL);
      row = g_ptr_array_index (rows, 0);
      g_assert_cmpstr (row->stat, ==, "count_per_s");
      g_assert_cmpint (row->test, ==, TSL_COMPARE_TEST_BINOMIAL);
      flagged += row->significant;
    }

  g_test_message ("null, counts (count_per_s, binomial test): FPR %.4f", (double) flagged / TRIALS);
  /* The exact test is at most 0.05; discreteness makes it a little less.
   * SE 0.005 at 2000 trials. */
  g_assert_cmpfloat ((double) flagged / TRIALS, >=, 0.025);
  g_assert_cmpfloat ((double) flagged / TRIALS, <=, 0.06);
}

/* AR(1), φ = 0.6: the i.i.d. bootstrap over-rejects, blocks do not. */
static void
test_null_ar1 (void)
{
  enum { TRIALS = 400, N = 400 };
  g_autoptr(TslCompareRequest) request = make_request (0);
  double a[N], b[N], effects[ROUNDS];
  guint block = 0, iid = 0, used_block = 0;
  TslRng rng;

  tsl_rng_init (&rng, 1004, 0);
  for (guint t = 0; t < TRIALS; t++)
    {
      g_autoptr(TslCompareRow) row = NULL;
      TslBootstrapSample sa = { a, N, 1, 0 }, sb = { b, N, 1, 0 };
      TslBootstrapConfig config = { TSL_STAT_MEAN, ROUNDS, t, 1 };

      fill_ar1 (&rng, a, N, 0.6);
      fill_ar1 (&rng, b, N, 0.6);
      request->seed = t;
      row = compare_one (TSL_STAT_MEAN, a, N, 1, b, N, 1, request);
      block += row->significant;
      used_block += row->test == TSL_COMPARE_TEST_BLOCK;

      /* The same data through a forced i.i.d. bootstrap. */
      g_assert_true (tsl_bootstrap_two_sample (&sa, &sb, &config, effects, NULL, NULL));
      iid += tsl_bootstrap_p_value (effects, ROUNDS) < 0.05;
    }

  g_test_message ("null, AR(1) φ=0.6, n=%d: FPR %.3f with blocks (chosen %u/%u), %.3f i.i.d.",
                  N, (double) block / TRIALS, used_block, TRIALS, (double) iid / TRIALS);
  g_assert_cmpuint (used_block, >=, TRIALS * 95 / 100);
  /* SE 0.015 at 400 trials. */
  g_assert_cmpfloat ((double) block / TRIALS, <=, 0.10);
  g_assert_cmpfloat ((double) iid / TRIALS, >=, 0.2);
}

/* A planted +20% shift of the mean, n = 200 a side, CV 0.5. */
static void
test_power (void)
{
  enum { TRIALS = 300, N = 200 };
  g_autoptr(TslCompareRequest) request = make_request (0);
  double a[N], b[N];
  guint found = 0;
  TslRng rng;

  tsl_rng_init (&rng, 1005, 0);
  for (guint t = 0; t < TRIALS; t++)
    {
      g_autoptr(TslCompareRow) row = NULL;

      fill_gamma (&rng, a, N, 5);
      fill_gamma (&rng, b, N, 6);
      request->seed = t;
      row = compare_one (TSL_STAT_MEAN, a, N, 1, b, N, 1, request);
      found += row->significant && row->change > 0;
    }

  g_test_message ("power, +20%% mean, n=200, CV 0.5: %.3f detected", (double) found / TRIALS);
  /* Expected ≈ 0.95 (the difference is 3.6 standard errors); 0.9 is 3 SE
   * below that at 300 trials. */
  g_assert_cmpfloat ((double) found / TRIALS, >=, 0.9);
}

/* Coverage of the 95% interval of the change in means on scipy's generator
 * (Exp(1), n_a = 30, n_b = 40, no change), against scipy's own coverage. */
static void
test_coverage (void)
{
  enum { TRIALS = 1000, N_A = 30, N_B = 40 };
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "bootstrap", "vectors.json", NULL);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(TslCompareRequest) request = make_request (0);
  g_autoptr(GError) error = NULL;
  JsonObject *ref;
  double a[N_A], b[N_B], scipy_cover, scipy_trials, ours, tol;
  guint covered = 0;
  TslRng rng;

  json_parser_load_from_file (parser, path, &error);
  g_assert_no_error (error);
  ref = json_object_get_object_member (json_node_get_object (json_parser_get_root (parser)), "coverage");
  scipy_cover = json_object_get_double_member (ref, "bca");
  scipy_trials = json_object_get_double_member (ref, "trials");

  tsl_rng_init (&rng, 1006, 0);
  for (guint t = 0; t < TRIALS; t++)
    {
      g_autoptr(TslCompareRow) row = NULL;

      for (guint i = 0; i < N_A; i++)
        a[i] = -log1p (-tsl_rng_double (&rng));
      for (guint i = 0; i < N_B; i++)
        b[i] = -log1p (-tsl_rng_double (&rng));
      request->seed = t;
      row = compare_one (TSL_STAT_MEAN, a, N_A, 1, b, N_B, 1, request);
      covered += row->ci_low <= 0 && 0 <= row->ci_high;
    }

  ours = (double) covered / TRIALS;
  /* Three standard errors of the difference of two binomial proportions. */
  tol = 3 * sqrt (0.95 * 0.05 / TRIALS + 0.95 * 0.05 / scipy_trials);
  g_test_message ("coverage of the 95%% interval: ours %.3f (%d trials), scipy BCa %.3f (%.0f trials), "
                  "tolerance %.3f", ours, TRIALS, scipy_cover, scipy_trials, tol);
  g_assert_cmpfloat (fabs (ours - scipy_cover), <=, tol);
}

/* The seed post's own examples (seeds/002): a spike in A gives a large
 * change that is not significant; a small steady shift is significant. */
static void
test_seed_examples (void)
{
  enum { N = 50, N_SHIFT = 200 };
  g_autoptr(TslCompareRequest) request = make_request (7);
  g_autoptr(TslCompareRow) spike = NULL;
  g_autoptr(TslCompareRow) shift = NULL;
  double a[N_SHIFT], b[N_SHIFT];
  TslRng rng;

  request->rounds = 10000;
  tsl_rng_init (&rng, 1007, 0);

  /* Math.random()-style values around 3, and 80 at index 25 of A. */
  for (guint i = 0; i < N; i++)
    {
      a[i] = 6 * tsl_rng_double (&rng);
      b[i] = 6 * tsl_rng_double (&rng);
    }
  a[25] = 80;
  spike = compare_one (TSL_STAT_SUM, a, N, 1, b, N, 1, request);
  g_test_message ("spike in A: change %.1f%%, CI [%.1f%%, %.1f%%], p %.3g",
                  100 * spike->change, 100 * spike->ci_low, 100 * spike->ci_high, spike->p_value);
  g_assert_cmpfloat (spike->change, <, -0.25);
  g_assert_false (spike->significant);

  /* The same generator, B shifted up by 0.6 (+20%). */
  for (guint i = 0; i < N_SHIFT; i++)
    {
      a[i] = 6 * tsl_rng_double (&rng);
      b[i] = 6 * tsl_rng_double (&rng) + 0.6;
    }
  shift = compare_one (TSL_STAT_SUM, a, N_SHIFT, 1, b, N_SHIFT, 1, request);
  g_test_message ("steady shift: change %.1f%%, CI [%.1f%%, %.1f%%], p %.3g",
                  100 * shift->change, 100 * shift->ci_low, 100 * shift->ci_high, shift->p_value);
  g_assert_true (shift->significant);
}

/* 200 unchanged series in one table: BH keeps the table almost clean. */
static void
test_many_null (void)
{
  enum { SERIES = 200, N = 100 };
  g_autoptr(TslCompareRequest) request = make_request (8);
  g_autofree TslCompareSeries *series = g_new0 (TslCompareSeries, SERIES);
  g_autofree double *data = g_new (double, SERIES * 2 * N);
  g_autoptr(GPtrArray) rows = NULL;
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  guint flagged = 0, raw = 0;
  TslRng rng;

  tsl_rng_init (&rng, 1008, 0);
  fill_gamma (&rng, data, SERIES * 2 * N, 5);
  for (guint i = 0; i < SERIES; i++)
    {
      char *name = g_strdup_printf ("series-%u", i);

      g_ptr_array_add (names, name);
      series[i] = (TslCompareSeries) {
        name, TSL_STAT_MEAN,
        { data + 2 * i * N, N, 1, N, 1 }, { data + (2 * i + 1) * N, N, 1, N, 1 },
      };
    }

  rows = tsl_compare_series (series, SERIES, request, "many", NULL, NULL);
  for (guint i = 0; i < rows->len; i++)
    {
      TslCompareRow *row = g_ptr_array_index (rows, i);

      flagged += row->significant;
      raw += row->p_value < 0.05;
      g_assert_cmpfloat (row->q_value, >=, row->p_value);
    }

  g_test_message ("200 unchanged series: %u with p < 0.05, %u significant after BH", raw, flagged);
  /* BH controls the family-wise rate under the global null: P(any) ≤ 0.05. */
  g_assert_cmpuint (flagged, <=, 2);
  g_assert_cmpuint (raw, >=, 3);
}

/* stat NULL: the first row of the series. */
static const TslCompareRow *
find_row_stat (GPtrArray  *rows,
               const char *series,
               const char *stat)
{
  for (guint i = 0; i < rows->len; i++)
    {
      const TslCompareRow *row = g_ptr_array_index (rows, i);

      if (g_str_equal (row->series, series) && (stat == NULL || g_str_equal (row->stat, stat)))
        return row;
    }

  g_error ("no %s row for %s", stat ? stat : "", series);
  return NULL;
}

static const TslCompareRow *
find_row (GPtrArray  *rows,
          const char *series)
{
  return find_row_stat (rows, series, NULL);
}

static GPtrArray *
run_fixture (const char *name,
             guint       n_threads,
             GStrv      *warnings)
{
  g_autoptr(TslCompareRequest) request = tsl_compare_request_new ();
  g_autoptr(GError) error = NULL;
  GPtrArray *rows;

  request->path = g_test_build_filename (G_TEST_DIST, "data", "compare", name, NULL);
  request->rounds = 2000;
  request->n_threads = n_threads;
  g_assert_true (tsl_range_spec_parse ("0%..50%", &request->a, NULL));
  g_assert_true (tsl_range_spec_parse ("50%..100%", &request->b, NULL));

  rows = tsl_compare_run (request, NULL, warnings, &error);
  g_assert_no_error (error);
  return rows;
}

static void
assert_same_rows (GPtrArray *x,
                  GPtrArray *y)
{
  g_assert_cmpuint (x->len, ==, y->len);
  for (guint i = 0; i < x->len; i++)
    {
      const TslCompareRow *rx = g_ptr_array_index (x, i), *ry = g_ptr_array_index (y, i);

      g_assert_cmpstr (rx->series, ==, ry->series);
      /* a_value … q_value: seven adjacent doubles, compared bit for bit. */
      g_assert_cmpmem (&rx->a_value, 7 * sizeof (double), &ry->a_value, 7 * sizeof (double));
      g_assert_cmpint (rx->significant, ==, ry->significant);
    }
}

static void
test_fixture_metrics (void)
{
  g_auto(GStrv) warnings = NULL;
  g_autoptr(GPtrArray) rows = run_fixture ("metrics.csv", 1, &warnings);
  g_autoptr(GPtrArray) again = run_fixture ("metrics.csv", 2, NULL);
  const TslCompareRow *planted = find_row (rows, "planted");
  const TslCompareRow *steady = find_row (rows, "steady");

  g_assert_cmpuint (g_strv_length (warnings), ==, 0);
  /* A gauge: its mean over time by default. */
  g_assert_cmpstr (planted->stat, ==, "time_mean");
  g_assert_cmpint (planted->test, ==, TSL_COMPARE_TEST_BLOCKS_T);
  /* Full resolution: each range re-read holds all 200 of its rows. */
  g_assert_cmpuint (planted->n_a, ==, 200);
  g_assert_cmpuint (planted->n_b, ==, 200);
  g_assert_true (planted->significant);
  g_assert_cmpfloat (planted->change, >, 0.1);
  g_assert_false (steady->significant);

  /* Same seed, any thread count: the same table. */
  assert_same_rows (rows, again);
}

static void
test_fixture_trace (void)
{
  g_autoptr(GPtrArray) rows = run_fixture ("trace.json", 0, NULL);
  const TslCompareRow *parse = find_row_stat (rows, "worker-1/parse", "share");
  const TslCompareRow *io = find_row_stat (rows, "worker-1/io", "share");
  /* Spans also get a row comparing their durations. */
  const TslCompareRow *parse_time = find_row_stat (rows, "worker-1/parse", "mean");

  g_assert_cmpuint (parse_time->n_a, >, 0);
  g_assert_cmpuint (parse_time->n_b, >, 0);
  g_assert_cmpstr (parse->stat, ==, "share");
  /* n counts the calls each value comes from: all 1000 of A's spans. */
  g_assert_cmpuint (parse->n_a + io->n_a + find_row_stat (rows, "worker-1/compute", "share")->n_a, ==, 1000);
  g_assert_true (parse->significant);
  g_assert_false (io->significant);
}

/* The window runs a range summary, a compare and a flame graph of the same
 * ranges at once, all on its loaded trace's budget: what one of them holds
 * must not change what another computes (it used to take half of what was
 * left, so a second one could get nothing and fold its threads). */
static void
test_budget_held_elsewhere (void)
{
  g_autoptr(TslCompareRequest) request = tsl_compare_request_new ();
  g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_COUNT, request->k, request->seed);
  g_autoptr(TslBudget) budget = tsl_budget_new_for_process (TSL_BUDGET_DEFAULT_PROCESS);
  g_autoptr(GPtrArray) alone = NULL;
  g_autoptr(GPtrArray) crowded = NULL;
  g_autoptr(GError) error = NULL;
  guint64 held;

  request->path = g_test_build_filename (G_TEST_DIST, "data", "compare", "trace.json", NULL);
  request->rounds = 500;
  g_assert_true (tsl_range_spec_parse ("0%..50%", &request->a, NULL));
  g_assert_true (tsl_range_spec_parse ("50%..100%", &request->b, NULL));
  tsl_trace_set_budget (trace, budget);
  g_assert_true (tsl_read_path (trace, request->path, NULL, NULL, NULL, &error));
  g_assert_no_error (error);
  request->trace = g_object_ref (trace);

  alone = tsl_compare_run (request, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (alone->len, >, 4);

  /* Another operation in flight holds all that is left; the ranges are
   * read again, not taken from the cache of range reads. */
  _tsl_compare_forget_reads ();
  held = tsl_budget_get_limit (budget) - tsl_budget_get_used (budget);
  tsl_budget_take (budget, held);
  crowded = tsl_compare_run (request, NULL, NULL, &error);
  tsl_budget_give (budget, held);
  g_assert_no_error (error);
  assert_same_rows (alone, crowded);
}

static void
count_parallel_reads (const char     *domain,
                      GLogLevelFlags  level,
                      const char     *message,
                      gpointer        data)
{
  if (strstr (message, "segments scanned on 3 threads") != NULL)
    (*(guint *) data)++;
}

/* A range read again with the same file, range and parameters comes from
 * the cache of range reads, with the same rows; a file that changed, or
 * another range, is read again. */
static void
test_read_cache (void)
{
  g_autoptr(TslCompareRequest) request = tsl_compare_request_new ();
  g_autofree char *fixture = g_test_build_filename (G_TEST_DIST, "data", "compare", "trace.json", NULL);
  g_autofree char *text = NULL;
  g_autofree char *path = NULL;
  g_autoptr(GPtrArray) first = NULL;
  g_autoptr(GPtrArray) again = NULL;
  g_autoptr(GPtrArray) touched = NULL;
  g_autoptr(GPtrArray) other_b = NULL;
  g_autoptr(GPtrArray) fresh = NULL;
  g_autoptr(GError) error = NULL;
  struct utimbuf times;
  guint64 hits;
  guint n_parallel = 0, handler;
  gsize len;
  int fd;

  g_assert_true (g_file_get_contents (fixture, &text, &len, NULL));
  fd = g_file_open_tmp ("tsl-read-cache-XXXXXX.json", &path, NULL);
  g_assert_cmpint (fd, >=, 0);
  close (fd);
  g_assert_true (g_file_set_contents (path, text, len, NULL));
  request->path = g_strdup (path);
  request->rounds = 200;
  g_assert_true (tsl_range_spec_parse ("0%..50%", &request->a, NULL));
  g_assert_true (tsl_range_spec_parse ("50%..100%", &request->b, NULL));
  /* Chunks small enough that a range read reads ahead, as on large files. */
  g_setenv ("TSL_INDEX_CHUNK_BYTES", "16384", TRUE);

  _tsl_compare_forget_reads ();
  hits = _tsl_compare_get_read_hits ();
  first = tsl_compare_run (request, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (_tsl_compare_get_read_hits (), ==, hits);
  again = tsl_compare_run (request, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (_tsl_compare_get_read_hits (), ==, hits + 2);
  assert_same_rows (first, again);

  /* Another mtime: both ranges are read again. */
  times.actime = times.modtime = time (NULL) - 3600;
  g_assert_cmpint (g_utime (path, &times), ==, 0);
  touched = tsl_compare_run (request, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (_tsl_compare_get_read_hits (), ==, hits + 2);
  assert_same_rows (first, touched);

  /* Another B: only A is taken from the cache, and B, read alone, scans
   * on every core (3 threads here), giving what two one-thread reads do. */
  g_assert_true (tsl_range_spec_parse ("60%..100%", &request->b, NULL));
  g_setenv ("TSL_READER_THREADS", "3", TRUE);
  /* Random cuts from the first event, as small reads are not split. */
  g_setenv ("TSL_READER_SPLIT_SEED", "7", TRUE);
  handler = g_log_set_handler ("tsl-reader", G_LOG_LEVEL_DEBUG, count_parallel_reads, &n_parallel);
  other_b = tsl_compare_run (request, NULL, NULL, &error);
  g_log_remove_handler ("tsl-reader", handler);
  g_unsetenv ("TSL_READER_SPLIT_SEED");
  g_unsetenv ("TSL_READER_THREADS");
  g_assert_no_error (error);
  g_assert_cmpuint (_tsl_compare_get_read_hits (), ==, hits + 3);
  g_assert_cmpuint (n_parallel, ==, 1);
  _tsl_compare_forget_reads ();
  fresh = tsl_compare_run (request, NULL, NULL, &error);
  g_assert_no_error (error);
  assert_same_rows (other_b, fresh);
  g_unlink (path);
  g_unsetenv ("TSL_INDEX_CHUNK_BYTES");
  _tsl_compare_forget_reads ();
}

static void
on_compared (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  GAsyncResult **out = user_data;

  *out = g_object_ref (result);
}

static void
test_async (void)
{
  g_autoptr(TslCompareRequest) request = tsl_compare_request_new ();
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GAsyncResult) cancelled = NULL;
  g_autoptr(GPtrArray) rows = NULL;
  g_autoptr(GPtrArray) none = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) warnings = NULL;

  request->path = g_test_build_filename (G_TEST_DIST, "data", "compare", "metrics.csv", NULL);
  request->rounds = 500;
  tsl_compare_run_async (request, NULL, on_compared, &result);
  g_cancellable_cancel (cancellable);
  tsl_compare_run_async (request, cancellable, on_compared, &cancelled);

  while (result == NULL || cancelled == NULL)
    g_main_context_iteration (NULL, TRUE);

  rows = tsl_compare_run_finish (result, &warnings, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (rows->len, ==, 2);
  g_assert_nonnull (warnings);

  none = tsl_compare_run_finish (cancelled, NULL, &error);
  g_assert_null (none);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}

static int
run_cli (const char * const *args,
         const char         *stdin_path,
         char              **out,
         char              **err)
{
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                                                      G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GSubprocess) proc = NULL;
  g_autoptr(GError) error = NULL;
  const char *exe = g_getenv ("TSL_TIMESLICE");

  g_ptr_array_add (argv, (gpointer) exe);
  g_ptr_array_add (argv, (gpointer) "compare");
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);

  if (stdin_path != NULL)
    g_subprocess_launcher_set_stdin_file_path (launcher, stdin_path);
  proc = g_subprocess_launcher_spawnv (launcher, (const char * const *) argv->pdata, &error);
  g_assert_no_error (error);
  g_subprocess_communicate_utf8 (proc, NULL, NULL, out, err, &error);
  g_assert_no_error (error);
  g_subprocess_wait (proc, NULL, NULL);

  return g_subprocess_get_exit_status (proc);
}

static char *
csv_line_for (const char *csv,
              const char *series)
{
  g_auto(GStrv) lines = g_strsplit (csv, "\n", -1);
  g_autofree char *prefix = g_strdup_printf ("%s,", series);

  for (guint i = 0; lines[i] != NULL; i++)
    if (g_str_has_prefix (lines[i], prefix))
      return g_strdup (lines[i]);

  return NULL;
}

static void
test_cli (void)
{
  g_autofree char *csv = g_test_build_filename (G_TEST_DIST, "data", "compare", "metrics.csv", NULL);
  const char *ok_args[] = { "--a", "0s..100s", "--b", "100s..200s", "--rounds", "2000", csv, NULL };
  g_autofree char *out = NULL, *err = NULL, *out2 = NULL, *err2 = NULL, *piped = NULL, *perr = NULL;
  g_autofree char *planted = NULL, *steady = NULL;
  char *discard_out = NULL, *discard_err = NULL;
  const char *bad[][8] = {
    { "--a", "1s..x", "--b", "1s..2s", NULL },
    { "--a", "0s..1s", "--b", "1s..2s", "--stat", "average", NULL },
    { "--a", "0s..1s", "--b", "1s..2s", "--method", "magic", NULL },
    { "--a", "0s..1s", "--b", "1s..2s", "--confidence", "1.5", NULL },
    /* --a alone is a summary of A (test-range-summary.py); --b alone is not. */
    { "--b", "1s..2s", NULL },
  };

  if (g_getenv ("TSL_TIMESLICE") == NULL)
    {
      g_test_skip ("TSL_TIMESLICE is not set");
      return;
    }

  g_assert_cmpint (run_cli (ok_args, NULL, &out, &err), ==, 0);
  g_assert_true (g_str_has_prefix (out, "series,stat,a_value,b_value,change_pct,ci_low_pct,"
                                        "ci_high_pct,p_value,q_value,significant,a_n,b_n,method,unit,note\n"));
  planted = csv_line_for (out, "planted");
  steady = csv_line_for (out, "steady");
  g_assert_nonnull (planted);
  g_assert_nonnull (steady);
  g_assert_true (g_str_has_suffix (planted, ",true,200,200,blocks-t,,"));
  g_assert_true (g_str_has_suffix (steady, ",false,200,200,blocks-t,,"));

  /* Same seed, same bytes. */
  g_assert_cmpint (run_cli (ok_args, NULL, &out2, &err2), ==, 0);
  g_assert_cmpstr (out, ==, out2);

  /* From a pipe: the one pass's samples, and a warning saying so. */
  {
    const char *pipe_args[] = { "--a", "0s..100s", "--b", "100s..200s", "--rounds", "2000", "-", NULL };

    g_autofree char *piped_planted = NULL;

    g_assert_cmpint (run_cli (pipe_args, csv, &piped, &perr), ==, 0);
    g_assert_nonnull (strstr (perr, "not a seekable file"));
    piped_planted = csv_line_for (piped, "planted");
    g_assert_nonnull (strstr (piped_planted, ",true,"));
  }

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GPtrArray) args = g_ptr_array_new ();

      for (guint j = 0; bad[i][j] != NULL; j++)
        g_ptr_array_add (args, (gpointer) bad[i][j]);
      g_ptr_array_add (args, csv);
      g_ptr_array_add (args, NULL);
      g_assert_cmpint (run_cli ((const char * const *) args->pdata, NULL, &discard_out, &discard_err), ==, 2);
      g_assert_true (g_str_has_prefix (discard_err, "timeslice: "));
      g_clear_pointer (&discard_out, g_free);
      g_clear_pointer (&discard_err, g_free);
    }

  /* A range past the end of the trace is a usage error too. */
  {
    const char *late[] = { "--a", "0s..1s", "--b", "500s..600s", csv, NULL };

    g_assert_cmpint (run_cli (late, NULL, &discard_out, &discard_err), ==, 2);
    g_clear_pointer (&discard_out, g_free);
    g_clear_pointer (&discard_err, g_free);
  }

  /* Unreadable input: exit 1 naming the file. */
  {
    const char *missing[] = { "--a", "0s..1s", "--b", "1s..2s", "/nonexistent/trace.json", NULL };

    g_assert_cmpint (run_cli (missing, NULL, &discard_out, &discard_err), ==, 1);
    g_assert_nonnull (strstr (discard_err, "/nonexistent/trace.json"));
    g_clear_pointer (&discard_out, g_free);
    g_clear_pointer (&discard_err, g_free);
  }
}

/* The CSV's numbers: the shortest %.Ng (N >= 6) that reads back as the same
 * double, as a search of every N from 6 up finds it, for doubles of every
 * magnitude and for short decimals. */
static void
test_csv_number (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (42);
  const double special[] = { 0.0, -0.0, 0.5, 1.0 / 3.0, 1e300, -1e-300, 4.9e-324, INFINITY, -INFINITY,
                             G_MAXDOUBLE, 100.0, 123456789.0, 0.1 + 0.2 };

  for (guint i = 0; i < 40000 + G_N_ELEMENTS (special); i++)
    {
      double v;
      char want[G_ASCII_DTOSTR_BUF_SIZE];
      g_autofree char *got = NULL;

      if (i < G_N_ELEMENTS (special))
        v = special[i];
      else if (i % 3 == 0)   /* a short decimal: few digits */
        v = g_rand_int_range (rand, -100000, 100000) / pow (10, g_rand_int_range (rand, 0, 6));
      else
        v = (g_rand_boolean (rand) ? 1 : -1) * g_rand_double (rand) * pow (10, g_rand_int_range (rand, -30, 30));
      for (int precision = 6; precision <= 17; precision++)
        {
          char fmt[8];

          g_snprintf (fmt, sizeof fmt, "%%.%dg", precision);
          g_ascii_formatd (want, sizeof want, fmt, v);
          if (g_ascii_strtod (want, NULL) == v)
            break;
        }
      got = tsl_csv_format_double (v);
      g_assert_cmpstr (got, ==, want);
    }
}

/* A too-few row says the rule that applied: the count's (4 a side), the
 * blocks' (8 for counts in bursts), or no variation. */
static void
test_too_few_text (void)
{
  TslCompareRow row = { .test = TSL_COMPARE_TEST_TOO_FEW, .unit = "fraction", .n_a = 1, .n_b = 1 };
  g_autofree char *count = NULL;
  g_autofree char *blocks = NULL;
  g_autofree char *constant = NULL;
  g_autofree char *points = NULL;

  count = tsl_compare_row_dup_too_few (&row);
  g_assert_cmpstr (count, ==, "too few calls (1 vs 1)");

  row.n_a = 20;
  row.n_b = 24;
  row.units_a = 5;
  row.units_b = 6;
  row.min_units = TSL_COMPARE_MIN_BURSTY_UNITS;
  blocks = tsl_compare_row_dup_too_few (&row);
  g_assert_cmpstr (blocks, ==, "too few independent calls (20 vs 24, in 5 vs 6 time blocks; at least 8 a side)");

  row.min_units = 0;
  constant = tsl_compare_row_dup_too_few (&row);
  g_assert_cmpstr (constant, ==, "no variation to test (20 vs 24 calls)");

  row.unit = "";
  row.n_b = 2;
  points = tsl_compare_row_dup_too_few (&row);
  g_assert_cmpstr (points, ==, "too few points (20 vs 2)");

  row.test = TSL_COMPARE_TEST_BLOCKS_T;
  g_assert_null (tsl_compare_row_dup_too_few (&row));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/compare/calibration/null-equal", test_null_equal);
  g_test_add_func ("/compare/calibration/null-longer-b", test_null_longer);
  g_test_add_func ("/compare/calibration/null-counts", test_null_counts);
  g_test_add_func ("/compare/calibration/null-ar1", test_null_ar1);
  g_test_add_func ("/compare/calibration/power", test_power);
  g_test_add_func ("/compare/calibration/coverage", test_coverage);
  g_test_add_func ("/compare/seed-examples", test_seed_examples);
  g_test_add_func ("/compare/many-null-series", test_many_null);
  g_test_add_func ("/compare/fixture/metrics", test_fixture_metrics);
  g_test_add_func ("/compare/fixture/trace", test_fixture_trace);
  g_test_add_func ("/compare/budget-held-elsewhere", test_budget_held_elsewhere);
  g_test_add_func ("/compare/async", test_async);
  g_test_add_func ("/compare/read-cache", test_read_cache);
  g_test_add_func ("/compare/cli", test_cli);
  g_test_add_func ("/compare/csv-number", test_csv_number);
  g_test_add_func ("/compare/too-few-text", test_too_few_text);

  return g_test_run ();
}
