/* tsl-compare.c: one table row per series, then q-values across the table
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Per row (docs/ARCHITECTURE.md, "Compare statistics"): counts take the conditional binomial test; max
 * takes the exact permutation test for its p-value; everything else takes
 * the bootstrap p-value of the relative change. The bootstrap is i.i.d.
 * unless either range's lag-1 autocorrelation exceeds AUTOCORR_LIMIT, then
 * circular blocks of the Politis–White length. The interval is BCa (with an
 * O(n) or O(n log n) jackknife) up to BCA_MAX_N points a side, beyond which
 * the percentile interval is as good and the jackknife's noise not worth it;
 * block resamples always use the percentile interval (the item jackknife
 * does not describe them).
 */
#define G_LOG_DOMAIN "tsl-compare"

#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "tsl-block-test.h"
#include "tsl-compare-private.h"
#include "tsl-csv-writer.h"
#include "tsl-rng.h"

#define AUTOCORR_LIMIT 0.2
#define BCA_MAX_N      1000

G_DEFINE_QUARK (tsl-compare-error-quark, tsl_compare_error)

const char *
tsl_compare_test_to_string (TslCompareTest test)
{
  static const char *names[] = {
    "bootstrap", "block-bootstrap", "poisson", "permutation", "seed", "none", "blocks-t",
    "too-few", "too-dependent",
  };

  return (guint) test < G_N_ELEMENTS (names) ? names[test] : "unknown";
}

gboolean
tsl_compare_method_from_string (const char       *text,
                                TslCompareMethod *method)
{
  if (g_strcmp0 (text, "two-sample") == 0)
    *method = TSL_COMPARE_TWO_SAMPLE;
  else if (g_strcmp0 (text, "seed") == 0)
    *method = TSL_COMPARE_SEED;
  else
    return FALSE;

  return TRUE;
}

TslCompareRequest *
tsl_compare_request_new (void)
{
  TslCompareRequest *request = g_new0 (TslCompareRequest, 1);

  request->stat = TSL_STAT_SUM;
  request->method = TSL_COMPARE_TWO_SAMPLE;
  request->rounds = 10000;
  request->confidence = 0.95;
  request->seed = 0x5EED;
  request->k = 2000;
  request->a = (TslRangeSpec) { 0, 0.5, TRUE };
  request->b = (TslRangeSpec) { 0.5, 1, TRUE };

  return request;
}

TslCompareRequest *
tsl_compare_request_copy (const TslCompareRequest *request)
{
  TslCompareRequest *copy;

  g_return_val_if_fail (request != NULL, NULL);

  copy = g_memdup2 (request, sizeof *request);
  copy->path = g_strdup (request->path);
  copy->path_b = g_strdup (request->path_b);
  if (request->trace != NULL)
    g_object_ref (request->trace);
  if (request->budget != NULL)
    tsl_budget_ref (request->budget);

  return copy;
}

void
tsl_compare_request_free (TslCompareRequest *request)
{
  if (request == NULL)
    return;

  g_free (request->path);
  g_free (request->path_b);
  g_clear_object (&request->trace);
  g_clear_pointer (&request->budget, tsl_budget_unref);
  g_free (request);
}

void
tsl_compare_row_free (TslCompareRow *row)
{
  if (row == NULL)
    return;

  g_free (row->series);
  g_free (row->stat);
  g_free (row->effects);
  g_free (row);
}

/* Calls for a function's rows, points for a metric's. */
static gboolean
counts_calls (const TslCompareRow *row)
{
  const char *unit = row->unit != NULL ? row->unit : "";

  return row->duration || g_str_has_prefix (unit, "ns") || g_strcmp0 (unit, "fraction") == 0;
}

const char *
tsl_compare_row_stat_label (const TslCompareRow *row)
{
  static const struct { const char *stat; const char *label; } labels[] = {
    { "share", N_("share") },
    { "cpu_share", N_("CPU share") },
    { "cpu_mean", N_("mean CPU time") },
    { "time_mean", N_("mean over time") },
    { "rate_per_s", N_("rate") },
    { "sum_per_s", N_("sum per second") },
    { "sum", N_("sum") },
    { "median", N_("median") },
    { "p95", N_("95th percentile") },
    { "max", N_("maximum") },
    { "count", N_("count") },
    { "count_per_s", N_("count per second") },
  };

  g_return_val_if_fail (row != NULL, "");

  if (g_strcmp0 (row->stat, "mean") == 0)
    return row->duration ? _("mean duration") : _("mean");
  for (guint i = 0; i < G_N_ELEMENTS (labels); i++)
    if (g_strcmp0 (row->stat, labels[i].stat) == 0)
      return _(labels[i].label);
  return row->stat != NULL ? row->stat : "";
}

char *
tsl_compare_row_dup_too_few (const TslCompareRow *row)
{
  char a[24], b[24], ua[16], ub[16], least[16];
  gboolean calls;

  g_return_val_if_fail (row != NULL, NULL);

  if (row->test != TSL_COMPARE_TEST_TOO_FEW)
    return NULL;
  calls = counts_calls (row);
  g_snprintf (a, sizeof a, "%" G_GUINT64_FORMAT, row->n_a);
  g_snprintf (b, sizeof b, "%" G_GUINT64_FORMAT, row->n_b);
  if (row->min_units == 0)
    {
      /* Translators: a compare row that was not tested, e.g. "too few calls (1 vs 1)" */
      if (MIN (row->n_a, row->n_b) < TSL_BLOCK_MIN_OBSERVATIONS)
        return g_strdup_printf (calls ? _("too few calls (%s vs %s)") : _("too few points (%s vs %s)"), a, b);
      /* Translators: a compare row not tested: every value is the same on both sides */
      return g_strdup_printf (calls ? _("no variation to test (%s vs %s calls)")
                                    : _("no variation to test (%s vs %s points)"), a, b);
    }
  g_snprintf (ua, sizeof ua, "%u", row->units_a);
  g_snprintf (ub, sizeof ub, "%u", row->units_b);
  g_snprintf (least, sizeof least, "%u", row->min_units);
  /* Translators: a compare row not tested: its calls (or points) fall in too
   * few of the range's time blocks, e.g. "too few independent calls (20 vs
   * 25, in 5 vs 6 time blocks; at least 8 a side)" */
  return g_strdup_printf (calls ? _("too few independent calls (%s vs %s, in %s vs %s time blocks; at least %s a side)")
                                : _("too few independent points (%s vs %s, in %s vs %s time blocks; at least %s a side)"),
                          a, b, ua, ub, least);
}

/* FNV-1a: a stable string hash, so a row's seed is the same on every run
 * and platform (g_str_hash makes no such promise). */
static guint64
hash_string (guint64     h,
             const char *text)
{
  for (const guchar *p = (const guchar *) text; *p != '\0'; p++)
    h = (h ^ *p) * G_GUINT64_CONSTANT (0x100000001B3);

  return (h ^ 0x1F) * G_GUINT64_CONSTANT (0x100000001B3);
}

static guint64
row_seed (const TslCompareRequest *request,
          const char              *range_key,
          const char              *series,
          const char              *stat)
{
  guint64 h = G_GUINT64_CONSTANT (0xCBF29CE484222325);

  h = hash_string (h, series);
  h = hash_string (h, range_key != NULL ? range_key : "");
  h = hash_string (h, stat);
  return tsl_mix64 (request->seed, h);
}

/* About 0.2, but never below the noise of the estimate
 * (2 / √n, Bartlett's band): at n = 30 chance alone passes 0.2 one time in
 * seven, and blocks would then widen an i.i.d. interval for nothing. */
static double
autocorr_limit (gsize n)
{
  return MAX (AUTOCORR_LIMIT, 2 / sqrt ((double) MAX (n, 1)));
}

static gboolean
lengths_differ (double a,
                double b)
{
  return fabs (a - b) > 1e-9 * MAX (fabs (a), fabs (b));
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
compute_count (const TslCompareSeries  *s,
               const TslCompareRequest *request,
               gboolean                 rates,
               TslCompareRow           *row)
{
  double est_a = (double) s->a.events * MAX (s->a.thinning, 1.0);
  double est_b = (double) s->b.events * MAX (s->b.thinning, 1.0);
  double z = tsl_ndtri (1 - (1 - request->confidence) / 2), ea, eb, log_rr, se;

  row->test = TSL_COMPARE_TEST_BINOMIAL;
  row->n_a = s->a.events;
  row->n_b = s->b.events;
  row->a_value = rates ? est_a / s->a.seconds : est_a;
  row->b_value = rates ? est_b / s->b.seconds : est_b;
  row->change = tsl_relative_change (row->a_value, row->b_value);

  /* Each counted item stands for `thinning` events: hits ~ Poisson (λ ·
   * seconds / thinning), so that is each side's exposure. */
  row->p_value = tsl_rate_test (s->a.events, s->a.seconds / MAX (s->a.thinning, 1.0),
                                s->b.events, s->b.seconds / MAX (s->b.thinning, 1.0));

  /* Wald interval of the log rate ratio, with ½ added to empty counts;
   * the exact test above decides significance together with it. */
  ea = s->a.events > 0 ? (double) s->a.events : 0.5;
  eb = s->b.events > 0 ? (double) s->b.events : 0.5;
  log_rr = log ((eb * MAX (s->b.thinning, 1.0) / s->b.seconds) /
                (ea * MAX (s->a.thinning, 1.0) / s->a.seconds));
  se = sqrt (1 / ea + 1 / eb);
  if (!rates)
    log_rr += log (s->b.seconds / s->a.seconds);
  row->ci_low = expm1 (log_rr - z * se);
  row->ci_high = expm1 (log_rr + z * se);
}

static void
seed_band (const double            *sorted,
           const TslCompareRequest *request,
           TslCompareRow           *row)
{
  double low, high;
  guint64 le = 0, ge = 0;

  tsl_percentile_interval (sorted, request->rounds, request->confidence, &low, &high);
  row->ci_low = tsl_relative_change (row->a_value, low);
  row->ci_high = tsl_relative_change (row->a_value, high);
  row->significant = row->b_value < low || row->b_value > high;

  for (guint i = 0; i < request->rounds; i++)
    {
      le += sorted[i] <= row->b_value;
      ge += sorted[i] >= row->b_value;
    }
  row->p_value = MIN (1.0, 2.0 * (double) (MIN (le, ge) + 1) / (double) (request->rounds + 1));
}

static void
two_sample_interval (const TslCompareSeries   *s,
                     const TslBootstrapSample *a,
                     const TslBootstrapSample *b,
                     const double             *sorted,
                     const TslCompareRequest  *request,
                     TslCompareRow            *row)
{
  g_autofree double *jack_a = NULL;
  g_autofree double *jack_b = NULL;
  double theta_a = row->a_value, theta_b = row->b_value;

  row->bca = FALSE;
  if (a->block <= 1 && b->block <= 1 && s->stat != TSL_STAT_MAX &&
      s->a.n <= BCA_MAX_N && s->b.n <= BCA_MAX_N && isfinite (row->change))
    {
      const double *jack[2];
      gsize n_jack[2] = { s->a.n, s->b.n };

      jack_a = g_new (double, s->a.n);
      jack_b = g_new (double, s->b.n);
      tsl_jackknife (s->stat, s->a.x, s->a.n, jack_a);
      tsl_jackknife (s->stat, s->b.x, s->b.n, jack_b);
      for (gsize i = 0; i < s->a.n; i++)
        jack_a[i] = tsl_relative_change (jack_a[i] * a->scale, theta_b);
      for (gsize i = 0; i < s->b.n; i++)
        jack_b[i] = tsl_relative_change (theta_a, jack_b[i] * b->scale);
      jack[0] = jack_a;
      jack[1] = jack_b;

      row->bca = tsl_bca_interval (row->change, sorted, request->rounds,
                                   jack, n_jack, 2, request->confidence,
                                   &row->ci_low, &row->ci_high);
    }

  if (!row->bca)
    tsl_percentile_interval (sorted, request->rounds, request->confidence,
                             &row->ci_low, &row->ci_high);
}

static gboolean
compute_row (const TslCompareSeries  *s,
             const TslCompareRequest *request,
             const char              *range_key,
             TslCompareRow           *row,
             GCancellable            *cancellable,
             GError                 **error)
{
  gboolean rates = lengths_differ (s->a.seconds, s->b.seconds) &&
                   (s->stat == TSL_STAT_SUM || s->stat == TSL_STAT_COUNT);
  gboolean seed = request->method == TSL_COMPARE_SEED;
  TslBootstrapSample a = { s->a.x, s->a.n, 1, 0 };
  TslBootstrapSample b = { s->b.x, s->b.n, 1, 0 };
  TslBootstrapConfig config = { s->stat, request->rounds, 0, request->n_threads };
  g_autofree double *boot = NULL;
  gboolean ok;

  row->series = g_strdup (s->name);
  row->stat = rates ? g_strdup_printf ("%s_per_s", tsl_stat_to_string (s->stat))
                    : g_strdup (tsl_stat_to_string (s->stat));
  row->stat_id = s->stat;
  row->unit = rates ? "/s" : s->stat == TSL_STAT_SHARE ? "fraction" : "";
  row->n_a = s->a.n;
  row->n_b = s->b.n;
  row->change = row->ci_low = row->ci_high = row->p_value = row->q_value = NAN;

  /* Counts are exact Poisson tests whatever the method: resampling a
   * count would give it no spread at all. */
  if (s->stat == TSL_STAT_COUNT)
    {
      compute_count (s, request, rates, row);
      return TRUE;
    }

  if (rates)
    {
      a.scale = 1 / s->a.seconds;
      b.scale = 1 / s->b.seconds;
    }
  row->a_value = tsl_stat_compute (s->stat, a.x, a.n) * a.scale;
  row->b_value = tsl_stat_compute (s->stat, b.x, b.n) * b.scale;
  row->change = tsl_relative_change (row->a_value, row->b_value);

  if (s->a.n < 2 || (!seed && s->b.n < 2) || request->rounds == 0)
    {
      row->test = TSL_COMPARE_TEST_NONE;
      return TRUE;
    }
  /* A resampled statistic of a handful of points has no distribution to
   * speak of; said, not tested (TSL_BLOCK_MIN_OBSERVATIONS). */
  if (s->a.n < TSL_BLOCK_MIN_OBSERVATIONS || (!seed && s->b.n < TSL_BLOCK_MIN_OBSERVATIONS))
    {
      row->test = TSL_COMPARE_TEST_TOO_FEW;
      return TRUE;
    }

  config.seed = row_seed (request, range_key, row->series, row->stat);
  boot = g_new (double, request->rounds);

  if (seed)
    {
      row->test = TSL_COMPARE_TEST_SEED;
      ok = tsl_bootstrap_one_sample (&a, &config, 0, boot, cancellable, error);
      if (!ok)
        return FALSE;
      qsort (boot, request->rounds, sizeof (double), compare_doubles);
      seed_band (boot, request, row);
    }
  else
    {
      row->test = TSL_COMPARE_TEST_IID;
      if (tsl_lag1_autocorrelation (a.x, a.n) > autocorr_limit (a.n) ||
          tsl_lag1_autocorrelation (b.x, b.n) > autocorr_limit (b.n))
        {
          row->test = TSL_COMPARE_TEST_BLOCK;
          a.block = (guint) lround (tsl_block_length (a.x, a.n));
          b.block = (guint) lround (tsl_block_length (b.x, b.n));
        }

      ok = tsl_bootstrap_two_sample (&a, &b, &config, boot, cancellable, error);
      if (!ok)
        return FALSE;
      qsort (boot, request->rounds, sizeof (double), compare_doubles);

      if (s->stat == TSL_STAT_MAX)
        {
          row->test = TSL_COMPARE_TEST_PERMUTATION;
          row->p_value = tsl_permutation_test_max (a.x, a.n, b.x, b.n);
        }
      else
        row->p_value = tsl_bootstrap_p_value (boot, request->rounds);

      two_sample_interval (s, &a, &b, boot, request, row);
    }

  if (request->keep_effects)
    {
      row->n_effects = request->rounds;
      row->effects = g_steal_pointer (&boot);
    }

  return TRUE;
}

TslCompareRow *
_tsl_compare_row_new (const TslCompareSeries  *series,
                      const TslCompareRequest *request,
                      const char              *range_key,
                      GCancellable            *cancellable,
                      GError                 **error)
{
  g_autoptr(TslCompareRow) row = g_new0 (TslCompareRow, 1);

  if (g_cancellable_set_error_if_cancelled (cancellable, error) ||
      !compute_row (series, request, range_key, row, cancellable, error))
    return NULL;

  /* Seen in one range only: said in words, not as an infinite change. */
  if (row->a_value == 0 && row->b_value != 0 && !isnan (row->b_value))
    row->presence = TSL_COMPARE_NEW_IN_B;
  else if (row->b_value == 0 && row->a_value != 0 && !isnan (row->a_value) && series->b.events == 0)
    row->presence = TSL_COMPARE_GONE_IN_B;
  if (row->presence != TSL_COMPARE_IN_BOTH)
    row->change = row->ci_low = row->ci_high = NAN;

  return g_steal_pointer (&row);
}

/* A statistic that cannot be negative (a duration, a share of time, a
 * count or rate of events) cannot fall by more than 100 %. */
static gboolean
is_nonnegative (const TslCompareRow *row)
{
  const char *unit = row->unit != NULL ? row->unit : "";

  return row->duration || row->stat_id == TSL_STAT_SHARE || row->stat_id == TSL_STAT_COUNT ||
         strcmp (unit, "ns") == 0 || strcmp (unit, "ns/s") == 0 || strcmp (unit, "fraction") == 0;
}

void
_tsl_compare_finish_table (GPtrArray               *rows,
                           const TslCompareRequest *request)
{
  g_autofree double *p = g_new (double, MAX (rows->len, 1));
  g_autofree double *q = g_new (double, MAX (rows->len, 1));
  double alpha = 1 - request->confidence;

  for (guint i = 0; i < rows->len; i++)
    p[i] = ((TslCompareRow *) g_ptr_array_index (rows, i))->p_value;

  /* Benjamini–Hochberg across every row of the table. */
  tsl_bh_qvalues (p, rows->len, q);

  for (guint i = 0; i < rows->len; i++)
    {
      TslCompareRow *row = g_ptr_array_index (rows, i);

      row->q_value = q[i];
      /* A t interval is symmetric about the change: for such a statistic
       * its part below −100 % holds no possible value (a share of 70 %
       * falling to 5 % read "[−112 %, −73 %]"). */
      if (row->ci_low < -1 && is_nonnegative (row))
        row->ci_low = -1;
      /* The seed's rule is its own: B outside A's band. */
      if (row->presence != TSL_COMPARE_IN_BOTH)
        row->significant = row->q_value < alpha;
      else if (row->test != TSL_COMPARE_TEST_SEED)
        row->significant = row->q_value < alpha &&
                           (row->ci_low > 0 || row->ci_high < 0);
    }
  tsl_compare_mark_waiting (rows);
}

/* The wall row a CPU row is the twin of: "cpu_mean" of "mean". */
static TslCompareRow *
wall_twin (GHashTable          *by_key,
           const TslCompareRow *cpu)
{
  g_autofree char *key = g_strconcat (cpu->stat + strlen ("cpu_"), "\n", cpu->series, NULL);

  return g_hash_table_lookup (by_key, key);
}

void
tsl_compare_mark_waiting (GPtrArray *rows)
{
  g_autoptr(GHashTable) by_key = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  g_return_if_fail (rows != NULL);

  for (guint i = 0; i < rows->len; i++)
    {
      TslCompareRow *row = g_ptr_array_index (rows, i);

      if (strcmp (row->stat, "mean") == 0 || strcmp (row->stat, "share") == 0)
        g_hash_table_insert (by_key, g_strconcat (row->stat, "\n", row->series, NULL), row);
    }
  for (guint i = 0; i < rows->len; i++)
    {
      TslCompareRow *cpu = g_ptr_array_index (rows, i);
      TslCompareRow *wall;

      if (strcmp (cpu->stat, "cpu_mean") != 0 && strcmp (cpu->stat, "cpu_share") != 0)
        continue;
      wall = wall_twin (by_key, cpu);
      if (wall == NULL || !wall->significant || !(wall->change > 0) ||
          (cpu->significant && cpu->change > 0) || !(cpu->change < wall->change / 2))
        continue;
      /* The CPU change must also be below the wall change beyond both
       * intervals: a small, noisy CPU time that grew with the wall time is
       * often not significant and, by chance, under half of it (11 % of
       * such rows were marked before this test, docs/statistics.md). */
      if (!(cpu->ci_high < wall->ci_low))
        continue;
      wall->waiting = cpu->waiting = TRUE;
      wall->wall_change = cpu->wall_change = wall->change;
      wall->cpu_change = cpu->cpu_change = cpu->change;
    }
}

GPtrArray *
tsl_compare_series (const TslCompareSeries  *series,
                    guint                    n_series,
                    const TslCompareRequest *request,
                    const char              *range_key,
                    GCancellable            *cancellable,
                    GError                 **error)
{
  g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func ((GDestroyNotify) tsl_compare_row_free);

  g_return_val_if_fail (n_series == 0 || series != NULL, NULL);
  g_return_val_if_fail (request != NULL, NULL);

  for (guint i = 0; i < n_series; i++)
    {
      TslCompareRow *row = _tsl_compare_row_new (&series[i], request, range_key, cancellable, error);

      if (row == NULL)
        return NULL;
      g_ptr_array_add (rows, row);
    }

  _tsl_compare_finish_table (rows, request);
  return g_steal_pointer (&rows);
}

static double
zero_if_nan (double v)
{
  return isfinite (v) ? v : 0;
}

static void
set_impact (TslCompareRow *row,
            const double  *seconds)
{
  double a = zero_if_nan (row->a_value), b = zero_if_nan (row->b_value);
  double sa = seconds[0] > 0 ? seconds[0] : 1, sb = seconds[1] > 0 ? seconds[1] : 1;
  const char *unit = row->unit != NULL ? row->unit : "";
  gboolean total = row->stat_id == TSL_STAT_SUM || row->stat_id == TSL_STAT_COUNT;

  row->impact_is_time = TRUE;
  if (strcmp (unit, "fraction") == 0)
    row->impact = fabs (b - a);
  else if (strcmp (unit, "ns/s") == 0)
    row->impact = fabs (b - a) / 1e9;
  else if (strcmp (unit, "ns") == 0 && total)
    row->impact = fabs (b / sb - a / sa) / 1e9;
  else if (strcmp (unit, "ns") == 0)
    /* A duration costs its change once per call. */
    row->impact = fabs (b - a) * ((double) row->n_a / sa + (double) row->n_b / sb) / 2 / 1e9;
  else
    {
      row->impact_is_time = FALSE;
      row->impact = total && unit[0] != '/' ? fabs (b / sb - a / sa) : fabs (b - a);
    }
}

static int
compare_impact (gconstpointer pa,
                gconstpointer pb)
{
  const TslCompareRow *a = *(const TslCompareRow * const *) pa;
  const TslCompareRow *b = *(const TslCompareRow * const *) pb;
  double qa = isnan (a->q_value) ? 2 : a->q_value, qb = isnan (b->q_value) ? 2 : b->q_value;
  int c;

  /* A row that could not be tested (one call against one, dependence
   * outlasting the ranges) cannot say whether its change is real: however
   * large, it comes after every tested row. */
  if (isnan (a->p_value) != isnan (b->p_value))
    return isnan (a->p_value) ? 1 : -1;
  if (a->impact_is_time != b->impact_is_time)
    return a->impact_is_time ? -1 : 1;
  if (a->impact != b->impact)
    return a->impact > b->impact ? -1 : 1;
  if (a->significant != b->significant)
    return a->significant ? -1 : 1;
  if (qa != qb)
    return qa < qb ? -1 : 1;
  c = strcmp (a->series, b->series);
  return c != 0 ? c : strcmp (a->stat, b->stat);
}

void
tsl_compare_sort_by_impact (GPtrArray    *rows,
                            const double *seconds)
{
  g_return_if_fail (rows != NULL && seconds != NULL);

  for (guint i = 0; i < rows->len; i++)
    set_impact (g_ptr_array_index (rows, i), seconds);
  g_ptr_array_sort (rows, compare_impact);
}

void
tsl_compare_append_csv_cells (GString             *buf,
                              const TslCompareRow *row)
{
  if (row->presence == TSL_COMPARE_IN_BOTH)
    tsl_csv_append_change (buf, row->a_value, row->b_value, row->change, row->ci_low,
                           row->ci_high, row->p_value, row->q_value, row->significant);
  else
    {
      tsl_csv_append_number (buf, row->a_value);
      tsl_csv_append_number (buf, row->b_value);
      g_string_append (buf, row->presence == TSL_COMPARE_NEW_IN_B ? ",new in B" : ",gone in B");
      tsl_csv_append_number (buf, row->ci_low * 100);
      tsl_csv_append_number (buf, row->ci_high * 100);
      tsl_csv_append_number (buf, row->p_value);
      tsl_csv_append_number (buf, row->q_value);
      g_string_append (buf, row->significant ? ",true" : ",false");
    }
  g_string_append_printf (buf, ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%s%s,",
                          row->n_a, row->n_b, tsl_compare_test_to_string (row->test),
                          row->few_blocks ? "-few" : "");
  tsl_csv_append_field (buf, row->unit != NULL ? row->unit : "");
  g_string_append (buf, row->waiting ? ",waiting" : ",");
}

char *
tsl_compare_format_csv (const TslCompareRow * const *rows,
                        guint                         n_rows)
{
  GString *buf = g_string_new ("series,stat,a_value,b_value,change_pct,ci_low_pct,ci_high_pct,"
                               "p_value,q_value,significant,a_n,b_n,method,unit,note\n");

  for (guint i = 0; i < n_rows; i++)
    {
      tsl_csv_append_field (buf, rows[i]->series);
      g_string_append_c (buf, ',');
      tsl_csv_append_field (buf, rows[i]->stat);
      tsl_compare_append_csv_cells (buf, rows[i]);
      g_string_append_c (buf, '\n');
    }

  return g_string_free (buf, FALSE);
}
