/* tsl-compare-exact.c: table rows from the exact figures of each range
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Values are exact over every event of a range (tsl-range-stats); p-values
 * and intervals come from the same figures in time blocks (tsl-block-test),
 * so autocorrelated or bursty series do not look more certain than they
 * are. Counts, and shares of samples, keep the exact conditional Poisson
 * test unless their blocks vary more than Poisson counts would. Medians, p95 and max of durations
 * use the bounded sample of durations and the resampling tests.
 *
 * Default statistic by kind: a gauge is compared by its time-weighted mean,
 * a counter that never decreases by its rate of increase, a function by its
 * share of the thread's time (spans) or samples (sampled profiles), with
 * its mean duration as a second row where calls have durations.
 */
#define G_LOG_DOMAIN "tsl-compare"

#include "config.h"

#include <math.h>
#include <string.h>

#include "tsl-block-test.h"
#include "tsl-compare-private.h"

#define B TSL_RANGE_BLOCKS
/* Fewer independent batches than this a side, and the row says so (about
 * φ ≥ 0.95 at 300 points a side, README). */
#define FEW_BATCHES 6
/* Fewer units than this a side and the batch length is not estimated
 * (no batching): the lag-1 estimate of a few units is mostly noise. */
#define MIN_UNITS_FOR_PHI 16
#define MIN_BURSTY_UNITS TSL_COMPARE_MIN_BURSTY_UNITS

typedef TslBlockSide Side;

typedef struct {
  TslCompareTable *table;
  gint64           end[2];      /* absolute ends of the ranges' data */
  TslRangeStats   *stats[2];
} Ctx;

static void
side_init (Side *side)
{
  *side = (Side) { .scale = 1 };
}

/* Time blocks as exposure, in seconds. */
static void
fill_seconds (Ctx    *ctx,
              guint   s,
              double *x)
{
  for (guint j = 0; j < B; j++)
    x[j] = tsl_range_stats_block_ns (ctx->stats[s], j, ctx->end[s]) / 1e9;
}

static gboolean
lengths_differ (const TslCompareTable *table)
{
  double a = table->seconds[0], b = table->seconds[1];

  return fabs (a - b) > 1e-9 * MAX (a, b);
}

static void
set_presence (TslCompareRow *row,
              const Side    *sides)
{
  if (sides[0].n == 0 && sides[1].n > 0)
    row->presence = TSL_COMPARE_NEW_IN_B;
  else if (sides[1].n == 0 && sides[0].n > 0)
    row->presence = TSL_COMPARE_GONE_IN_B;
  if (row->presence != TSL_COMPARE_IN_BOTH)
    row->change = row->ci_low = row->ci_high = NAN;
}

/* Too few units a side to test, or nothing varies: the row is said, not
 * tested. An absent side (n 0) leaves the other to decide. `min_units`
 * (nullable) gets the least number of units the test needed when that was
 * the rule (0 when a side had fewer than TSL_BLOCK_MIN_OBSERVATIONS
 * observations), so the row can say which rule applied. */
static gboolean
too_few (const Side   *sides,
         const guint  *units,
         guint        *min_units)
{
  gboolean few = FALSE, by_count = FALSE;
  guint least = 0;

  for (guint s = 0; s < 2; s++)
    if (sides[s].n > 0 || sides[1 - s].n == 0)
      {
        guint need = MAX (sides[s].min_units, TSL_BLOCK_MIN_OBSERVATIONS);

        if (sides[s].n < TSL_BLOCK_MIN_OBSERVATIONS)
          few = by_count = TRUE;
        else if (units[s] < need)
          {
            few = TRUE;
            least = MAX (least, need);
          }
      }
  if (min_units != NULL)
    *min_units = by_count ? 0 : least;
  return few;
}

gboolean
_tsl_compare_block_row (TslCompareTable *table,
                        const char      *series,
                        const char      *stat,
                        TslStat          stat_id,
                        const char      *unit,
                        Side            *sides)
{
  const TslCompareRequest *request = table->request;
  TslBlockEstimate e[2];
  TslBlockComparison c;
  TslCompareRow *row;
  double uy[2][B], ux[2][B], uc[2][B], phi = 0;
  guint units[2], min_units = 0;
  gboolean untested, phi_units, dependent = FALSE;

  if (sides[0].n == 0 && sides[1].n == 0)
    return TRUE;

  /* Fewer points than blocks: units from the points, never more of them.
   * With as many points as blocks the blocks stay (merging the odd empty
   * one cost a share row 4 of 49 detections of a 1.5× slowdown). */
  for (guint s = 0; s < 2; s++)
    units[s] = tsl_block_units (sides[s].y, sides[s].x, sides[s].n < B ? sides[s].c : NULL, B,
                                uy[s], ux[s], uc[s]);
  untested = too_few (sides, units, &min_units);

  /* One autocorrelation for both ranges: half the noise of either's. A
   * few units cannot tell one: Welch on them as they are. */
  phi_units = MIN (units[0], units[1]) >= MIN_UNITS_FOR_PHI;
  if (phi_units)
    phi = (tsl_block_phi (uy[0], ux[0], units[0]) + tsl_block_phi (uy[1], ux[1], units[1])) / 2;
  for (guint s = 0; s < 2; s++)
    {
      tsl_block_estimate_units (uy[s], ux[s], sides[s].held && uc[s][0] > 0 ? uc[s] : NULL,
                                units[s], phi, &e[s]);
      e[s].estimate *= sides[s].scale;
      e[s].variance *= sides[s].scale * sides[s].scale;
    }
  tsl_block_compare (&e[0], &e[1], request->confidence, &c);
  /* Constant on both sides: no spread to weigh a difference against. */
  if (e[0].variance + e[1].variance <= 0)
    untested = TRUE;
  /* Dependence beyond what φ says: the ranges are too short to test. */
  if (!untested && phi_units && sides[0].n > 0 && sides[1].n > 0 &&
      tsl_block_memory_excess (uy[0], ux[0], units[0], uy[1], ux[1], units[1], phi) >
      TSL_BLOCK_MAX_MEMORY_EXCESS)
    dependent = TRUE;

  row = g_new0 (TslCompareRow, 1);
  row->series = g_strdup (series);
  row->stat = g_strdup (stat);
  row->stat_id = stat_id;
  row->unit = unit;
  row->a_value = e[0].estimate;
  row->b_value = e[1].estimate;
  /* A share of time is at most the whole range; the blocks' sums in
   * seconds may round a full one to 1 + 1e-15. */
  if (stat_id == TSL_STAT_SHARE)
    {
      /* Not MIN (): a side without data is NAN and stays so. */
      if (row->a_value > 1)
        row->a_value = 1;
      if (row->b_value > 1)
        row->b_value = 1;
    }
  row->n_a = sides[0].n;
  row->n_b = sides[1].n;
  row->test = TSL_COMPARE_TEST_BLOCKS_T;
  row->change = c.change;
  row->ci_low = c.ci_low;
  row->ci_high = c.ci_high;
  row->p_value = c.p_value;
  row->q_value = NAN;
  row->few_blocks = c.batches > 0 && c.batches < FEW_BATCHES;
  if (isfinite (c.se_change) && c.df > 0)
    {
      row->t_df = c.df;
      row->t_se = c.se_change;
    }
  row->duration = g_strcmp0 (unit, "ns") == 0;
  if (isnan (row->p_value))
    row->test = TSL_COMPARE_TEST_NONE;
  if (untested || dependent)
    {
      row->test = untested ? TSL_COMPARE_TEST_TOO_FEW : TSL_COMPARE_TEST_TOO_DEPENDENT;
      if (untested)
        {
          row->units_a = units[0];
          row->units_b = units[1];
          row->min_units = min_units;
        }
      row->p_value = row->ci_low = row->ci_high = NAN;
      row->few_blocks = FALSE;
      row->t_df = row->t_se = 0;
    }
  set_presence (row, sides);
  if (row->presence != TSL_COMPARE_IN_BOTH)
    row->t_df = row->t_se = 0;
  g_ptr_array_add (table->rows, row);
  return TRUE;
}

/* Counts over an exposure (seconds, or a thread's samples for a share of
 * samples): the exact conditional test, unless the blocks say the events
 * come in bursts (more spread than Poisson), where the blocks' own variance
 * holds. A side with fewer than TSL_BLOCK_MIN_OBSERVATIONS events, or of
 * blocks holding them, cannot show bursts: its events may be one burst,
 * not independent arrivals, and the row is too-few like a block row; in
 * bursts, fewer than MIN_BURSTY_UNITS units a side. `per_exposure`: the
 * value is count / exposure, else the count. */
gboolean
_tsl_compare_count_row (TslCompareTable *table,
                        const char      *series,
                        const char      *stat,
                        TslStat          stat_id,
                        const char      *unit,
                        Side            *sides,
                        const double    *exposure,
                        gboolean         per_exposure)
{
  gboolean bursty = FALSE, few;
  guint units[2];

  for (guint s = 0; s < 2; s++)
    {
      double uy[B], ux[B], uc[B];

      units[s] = tsl_block_units (sides[s].y, sides[s].x, sides[s].n < B ? sides[s].c : NULL, B, uy, ux, uc);
    }
  few = too_few (sides, units, NULL);

  for (guint s = 0; s < 2; s++)
    {
      TslBlockEstimate e;

      tsl_block_estimate (sides[s].y, sides[s].x, B, 0, &e);
      /* Poisson: Var(count / exposure) = count / exposure². */
      if (sides[s].n > 0 && e.variance * exposure[s] * exposure[s] > (double) sides[s].n)
        bursty = TRUE;
    }

  /* Too few already at the plain minimum: the block row says so, naming
   * that minimum, not the bursts' one. */
  if (bursty || few)
    {
      for (guint s = 0; s < 2; s++)
        {
          sides[s].scale = per_exposure ? 1 : exposure[s];
          sides[s].min_units = few ? 0 : MIN_BURSTY_UNITS;
        }
      return _tsl_compare_block_row (table, series, stat, stat_id, unit, sides);
    }
  else
    {
      TslCompareSeries cs = { series, TSL_STAT_COUNT };
      TslCompareSide *cside[2] = { &cs.a, &cs.b };
      guint before = table->rows->len;
      TslCompareRow *row;

      for (guint s = 0; s < 2; s++)
        *cside[s] = (TslCompareSide) { NULL, 0, exposure[s], sides[s].n, 1.0 };
      if (!_tsl_compare_add_row (table, &cs))
        return FALSE;
      if (table->rows->len == before)
        return TRUE;

      row = g_ptr_array_index (table->rows, before);
      /* The test's change is the ratio of rates: the same for counts or shares. */
      for (guint s = 0; s < 2; s++)
        {
          double v = per_exposure ? (exposure[s] > 0 ? (double) sides[s].n / exposure[s] : NAN)
                                  : (double) sides[s].n;

          *(s == 0 ? &row->a_value : &row->b_value) = v;
        }
      g_free (row->stat);
      row->stat = g_strdup (stat);
      row->stat_id = stat_id;
      row->unit = unit;
      set_presence (row, sides);
      return TRUE;
    }
}

static gboolean
count_rate_row (Ctx        *ctx,
                const char *series,
                Side       *sides)
{
  gboolean rates = lengths_differ (ctx->table);

  return _tsl_compare_count_row (ctx->table, series, rates ? "count_per_s" : "count", TSL_STAT_COUNT,
                    rates ? "/s" : "", sides, ctx->table->seconds, rates);
}

/* A counter rises again and again; a gauge that is mostly 0 and rose once
 * in the ranges (no decrease seen) is still a gauge: the rises must be
 * spread over TSL_BLOCK_MIN_OBSERVATIONS blocks at least. */
static gboolean
is_monotonic (const TslRangeTrack *t[2])
{
  guint rising = 0;

  for (guint s = 0; s < 2; s++)
    if (t[s] != NULL && (t[s]->decreased || t[s]->n < 2))
      return FALSE;
  for (guint s = 0; s < 2; s++)
    for (guint j = 0; t[s] != NULL && j < B; j++)
      rising += t[s]->block_rise[j] > 0;
  return rising >= TSL_BLOCK_MIN_OBSERVATIONS;
}

static gboolean
metric_rows (Ctx                 *ctx,
             const char          *name,
             const TslRangeTrack *t[2])
{
  const TslCompareRequest *request = ctx->table->request;
  gboolean rates = lengths_differ (ctx->table);
  Side sides[2];

  for (guint s = 0; s < 2; s++)
    side_init (&sides[s]);

  if (!request->has_stat)
    {
      if (is_monotonic (t))
        {
          for (guint s = 0; s < 2; s++)
            if (t[s] != NULL)
              {
                sides[s].n = t[s]->n;
                sides[s].c = t[s]->block_n;
                for (guint j = 0; j < B; j++)
                  {
                    sides[s].y[j] = t[s]->block_rise[j];
                    sides[s].x[j] = t[s]->block_rise_ns[j] / 1e9;
                  }
              }
          return _tsl_compare_block_row (ctx->table, name, "rate_per_s", TSL_STAT_SUM, "/s", sides);
        }

      /* A gauge: each value holds until the next. A lone last point holds
       * no time (no gap to go by): its plain value then. */
      for (guint s = 0; s < 2; s++)
        if (t[s] != NULL)
          {
            gboolean held = t[s]->held_ns > 0;

            sides[s].n = t[s]->n;
            sides[s].c = t[s]->block_n;
            sides[s].held = held;
            memcpy (sides[s].y, held ? t[s]->block_weighted : t[s]->block_sum, sizeof sides[s].y);
            memcpy (sides[s].x, held ? t[s]->block_held : t[s]->block_n, sizeof sides[s].x);
          }
      return _tsl_compare_block_row (ctx->table, name, "time_mean", TSL_STAT_MEAN, "", sides);
    }

  for (guint s = 0; s < 2; s++)
    if (t[s] != NULL)
      {
        sides[s].n = t[s]->n;
        sides[s].c = t[s]->block_n;
        memcpy (sides[s].y, request->stat == TSL_STAT_MEAN ? t[s]->block_sum : t[s]->block_n,
                sizeof sides[s].y);
        if (request->stat == TSL_STAT_MEAN)
          memcpy (sides[s].x, t[s]->block_n, sizeof sides[s].x);
        else
          fill_seconds (ctx, s, sides[s].x);
        if (request->stat == TSL_STAT_SUM)
          {
            memcpy (sides[s].y, t[s]->block_sum, sizeof sides[s].y);
            sides[s].scale = rates ? 1 : ctx->table->seconds[s];
          }
      }

  switch (request->stat)
    {
    case TSL_STAT_MEAN:
      return _tsl_compare_block_row (ctx->table, name, "mean", TSL_STAT_MEAN, "", sides);
    case TSL_STAT_SUM:
      return _tsl_compare_block_row (ctx->table, name, rates ? "sum_per_s" : "sum", TSL_STAT_SUM, rates ? "/s" : "", sides);
    case TSL_STAT_COUNT:
      return count_rate_row (ctx, name, sides);
    default:
      return TRUE;   /* median, p95, max: the caller's, from kept values */
    }
}

static const TslRangeFunc *
find_func (const TslRangeTrack *t,
           const char          *name)
{
  return t != NULL ? g_hash_table_lookup (t->func_ids, name) : NULL;
}

static gboolean
duration_quantile_row (Ctx                *ctx,
                       const char         *series,
                       TslStat             stat,
                       const TslRangeFunc *f[2])
{
  TslCompareSeries cs = { series, stat };
  TslCompareSide *cside[2] = { &cs.a, &cs.b };
  guint before = ctx->table->rows->len;

  for (guint s = 0; s < 2; s++)
    {
      GArray *d = f[s] != NULL ? f[s]->durations : NULL;

      *cside[s] = (TslCompareSide) {
        d != NULL ? (const double *) d->data : NULL, d != NULL ? d->len : 0,
        ctx->table->seconds[s], d != NULL ? d->len : 0, 1.0,
      };
    }
  if (!_tsl_compare_add_row (ctx->table, &cs))
    return FALSE;
  if (ctx->table->rows->len > before)
    {
      TslCompareRow *row = g_ptr_array_index (ctx->table->rows, before);

      row->duration = TRUE;
      row->unit = "ns";
      row->n_a = f[0] != NULL ? f[0]->calls : 0;
      row->n_b = f[1] != NULL ? f[1]->calls : 0;
    }
  return TRUE;
}

/* Thread (CPU) time: its mean per call and its share of the thread's time,
 * over the calls that have one, built as the wall rows are. */
static gboolean
cpu_rows (Ctx                *ctx,
          const char         *series,
          const TslRangeFunc *f[2])
{
  const TslCompareRequest *request = ctx->table->request;
  gboolean all = !request->has_stat;
  Side sides[2];

  if ((f[0] == NULL || f[0]->cpu == NULL) && (f[1] == NULL || f[1]->cpu == NULL))
    return TRUE;

  if (all || request->stat == TSL_STAT_MEAN)
    {
      for (guint s = 0; s < 2; s++)
        {
          side_init (&sides[s]);
          if (f[s] != NULL && f[s]->cpu != NULL)
            {
              sides[s].n = f[s]->cpu->calls;
              sides[s].c = f[s]->cpu->block_calls;
              memcpy (sides[s].y, f[s]->cpu->block_cpu, sizeof sides[s].y);
              memcpy (sides[s].x, f[s]->cpu->block_calls, sizeof sides[s].x);
            }
        }
      if (!_tsl_compare_block_row (ctx->table, series, "cpu_mean", TSL_STAT_MEAN, "ns", sides))
        return FALSE;
    }
  if (all || request->stat == TSL_STAT_SHARE)
    {
      for (guint s = 0; s < 2; s++)
        {
          side_init (&sides[s]);
          fill_seconds (ctx, s, sides[s].x);
          if (f[s] != NULL && f[s]->cpu != NULL)
            {
              sides[s].n = f[s]->cpu->calls;
              sides[s].c = f[s]->cpu->block_calls;
              memcpy (sides[s].y, f[s]->cpu->block_total, sizeof sides[s].y);
              sides[s].scale = 1e-9;
            }
        }
      if (!_tsl_compare_block_row (ctx->table, series, "cpu_share", TSL_STAT_SHARE, "fraction", sides))
        return FALSE;
    }
  return TRUE;
}

static gboolean
func_rows (Ctx                 *ctx,
           const char          *track_name,
           const char          *func_name,
           const TslRangeTrack *t[2])
{
  const TslCompareRequest *request = ctx->table->request;
  g_autofree char *series = g_strdup_printf ("%s/%s", track_name, func_name);
  const TslRangeFunc *f[2] = { find_func (t[0], func_name), find_func (t[1], func_name) };
  gboolean calls = (f[0] != NULL && f[0]->calls > 0) || (f[1] != NULL && f[1]->calls > 0);
  gboolean rates = lengths_differ (ctx->table);
  TslStat stat = request->has_stat ? request->stat : TSL_STAT_SHARE;
  Side sides[2];

  for (guint s = 0; s < 2; s++)
    side_init (&sides[s]);

  if (request->has_stat && request->cpu_stat)
    return cpu_rows (ctx, series, f);
  if (!request->has_stat && !cpu_rows (ctx, series, f))
    return FALSE;

  if (calls && (stat == TSL_STAT_MEDIAN || stat == TSL_STAT_P95 || stat == TSL_STAT_MAX))
    return duration_quantile_row (ctx, series, stat, f);

  /* Mean duration: beside the share by default, alone for --stat mean. */
  if (calls && (!request->has_stat || stat == TSL_STAT_MEAN))
    {
      for (guint s = 0; s < 2; s++)
        if (f[s] != NULL)
          {
            sides[s].n = f[s]->calls;
            sides[s].c = f[s]->block_calls;
            memcpy (sides[s].y, f[s]->block_duration, sizeof sides[s].y);
            memcpy (sides[s].x, f[s]->block_calls, sizeof sides[s].x);
          }
      if (!_tsl_compare_block_row (ctx->table, series, "mean", TSL_STAT_MEAN, "ns", sides))
        return FALSE;
      if (request->has_stat)
        return TRUE;
      for (guint s = 0; s < 2; s++)
        side_init (&sides[s]);
    }

  for (guint s = 0; s < 2; s++)
    {
      if (f[s] == NULL)
        {
          if (calls)
            fill_seconds (ctx, s, sides[s].x);
          else if (t[s] != NULL)
            memcpy (sides[s].x, t[s]->block_points, sizeof sides[s].x);
          continue;
        }
      switch (stat)
        {
        case TSL_STAT_COUNT:
          sides[s].n = calls ? f[s]->calls : f[s]->samples;
          sides[s].c = calls ? f[s]->block_calls : f[s]->block_samples;
          memcpy (sides[s].y, calls ? f[s]->block_calls : f[s]->block_samples, sizeof sides[s].y);
          fill_seconds (ctx, s, sides[s].x);
          break;
        case TSL_STAT_SUM:
          /* Inclusive time (or samples) per second, or in all when the ranges are as long. */
          sides[s].n = calls ? f[s]->calls : f[s]->samples;
          sides[s].c = calls ? f[s]->block_calls : f[s]->block_samples;
          memcpy (sides[s].y, calls ? f[s]->block_total : f[s]->block_samples, sizeof sides[s].y);
          fill_seconds (ctx, s, sides[s].x);
          sides[s].scale = rates ? 1 : ctx->table->seconds[s];
          break;
        default:
          /* Share of the thread's time (spans) or of its samples. */
          sides[s].n = calls ? f[s]->calls : f[s]->samples;
          sides[s].c = calls ? f[s]->block_calls : f[s]->block_samples;
          if (calls)
            {
              memcpy (sides[s].y, f[s]->block_total, sizeof sides[s].y);
              fill_seconds (ctx, s, sides[s].x);
              sides[s].scale = 1e-9;
            }
          else
            {
              memcpy (sides[s].y, f[s]->block_samples, sizeof sides[s].y);
              memcpy (sides[s].x, t[s]->block_points, sizeof sides[s].x);
            }
          break;
        }
    }

  switch (stat)
    {
    case TSL_STAT_COUNT:
      return count_rate_row (ctx, series, sides);
    case TSL_STAT_SUM:
      return _tsl_compare_block_row (ctx->table, series, rates ? "sum_per_s" : "sum", TSL_STAT_SUM,
                        calls ? (rates ? "ns/s" : "ns") : (rates ? "/s" : ""), sides);
    case TSL_STAT_MEAN:
      return TRUE;   /* sampled stacks have no durations */
    default:
      if (!calls)
        {
          /* A share of samples: k of n holding it, an exact test too. */
          double n[2] = { t[0] != NULL ? (double) t[0]->points : 0, t[1] != NULL ? (double) t[1]->points : 0 };

          return _tsl_compare_count_row (ctx->table, series, "share", TSL_STAT_SHARE, "fraction", sides, n, TRUE);
        }
      return _tsl_compare_block_row (ctx->table, series, "share", TSL_STAT_SHARE, "fraction", sides);
    }
}

static void
add_names (GPtrArray           *names,
           GHashTable          *seen,
           const TslRangeTrack *t)
{
  if (t == NULL)
    return;
  for (guint i = 0; i < t->funcs->len; i++)
    {
      const TslRangeFunc *f = g_ptr_array_index (t->funcs, i);

      if (g_hash_table_add (seen, f->name))
        g_ptr_array_add (names, f->name);
    }
}

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

gboolean
_tsl_compare_exact_track_rows (TslCompareTable     *table,
                               TslRangeStats       *stats_a,
                               TslRangeStats       *stats_b,
                               const gint64         end[2],
                               const char          *name,
                               const TslRangeTrack *a,
                               const TslRangeTrack *b)
{
  Ctx ctx = { table, { end[0], end[1] }, { stats_a, stats_b } };
  const TslRangeTrack *t[2] = { a, b };
  const TslRangeTrack *any = a != NULL ? a : b;
  g_autoptr(GPtrArray) names = NULL;
  g_autoptr(GHashTable) seen = NULL;

  if (any->kind == TSL_TRACK_COUNTER || any->kind == TSL_TRACK_METRIC)
    return metric_rows (&ctx, name, t);

  names = g_ptr_array_new ();
  seen = g_hash_table_new (g_str_hash, g_str_equal);
  add_names (names, seen, a);
  add_names (names, seen, b);
  g_ptr_array_sort (names, compare_names);

  for (guint i = 0; i < names->len; i++)
    if (!func_rows (&ctx, name, g_ptr_array_index (names, i), t))
      return FALSE;

  return TRUE;
}

gboolean
_tsl_compare_exact_rows (TslCompareTable *table,
                         TslRangeRead    *reads,
                         const gint64    *end,
                         GHashTable      *by_key[2],
                         gboolean         two_files)
{
  g_autoptr(GPtrArray) pairs = _tsl_compare_match_tracks (reads[0].stats, reads[1].stats, two_files);
  const TslCompareRequest *request = table->request;
  gboolean quantiles = request->has_stat && (request->stat == TSL_STAT_MEDIAN ||
                                             request->stat == TSL_STAT_P95 ||
                                             request->stat == TSL_STAT_MAX);

  for (guint i = 0; i < pairs->len; i++)
    {
      const TslTrackPair *pair = g_ptr_array_index (pairs, i);
      const TslRangeTrack *any = pair->t[0] != NULL ? pair->t[0] : pair->t[1];
      gboolean metric = any->kind == TSL_TRACK_COUNTER || any->kind == TSL_TRACK_METRIC;

      if (metric && quantiles)
        {
          if (!_tsl_compare_quantile_metric_rows (table, by_key, pair))
            return FALSE;
          continue;
        }
      if (!_tsl_compare_exact_track_rows (table, reads[0].stats, reads[1].stats, end, pair->name,
                                          pair->t[0], pair->t[1]))
        return FALSE;
    }

  return TRUE;
}
