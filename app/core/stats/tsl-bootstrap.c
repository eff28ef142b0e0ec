/* tsl-bootstrap.c: statistics, resampling kernels and intervals
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Rounds are cut into blocks of BLOCK_ROUNDS; block j draws from the stream
 * tsl_rng_init (seed, stream << 32 | j) and writes out[j·BLOCK_ROUNDS …], so
 * workers may take blocks in any order and the result is the same for any
 * thread count. Cancellation is checked between blocks.
 *
 * The kernels for sum-like statistics (sum, mean, share) never materialise
 * a resample: i.i.d. rounds gather and add, block rounds add one difference
 * of circular prefix sums per block. Order statistics gather into a worker
 * buffer and select in O(n).
 */
#define G_LOG_DOMAIN "tsl-bootstrap"

#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tsl-bootstrap.h"
#include "tsl-rng.h"

#define BLOCK_ROUNDS 64
/* Below this many draws a second thread costs more than it saves. */
#define MIN_THREADED_DRAWS (1 << 18)

static const char * const stat_names[TSL_N_STATS] = {
  "sum", "mean", "median", "p95", "max", "count", "share",
};

const char *
tsl_stat_to_string (TslStat stat)
{
  return (guint) stat < TSL_N_STATS ? stat_names[stat] : "unknown";
}

gboolean
tsl_stat_from_string (const char *text,
                      TslStat    *stat)
{
  g_return_val_if_fail (stat != NULL, FALSE);

  if (text == NULL)
    return FALSE;

  for (guint i = 0; i < TSL_N_STATS; i++)
    {
      if (g_ascii_strcasecmp (text, stat_names[i]) == 0)
        {
          *stat = (TslStat) i;
          return TRUE;
        }
    }

  return FALSE;
}

double
tsl_quantile_sorted (const double *sorted,
                     gsize         n,
                     double        q)
{
  double h, frac;
  gsize lo;

  if (n == 0 || isnan (q))
    return NAN;

  h = CLAMP (q, 0.0, 1.0) * (double) (n - 1);
  lo = (gsize) floor (h);
  frac = h - (double) lo;
  /* Also avoids inf − inf when resampled effects hold infinities. */
  if (lo + 1 >= n || frac == 0 || sorted[lo] == sorted[lo + 1])
    return sorted[lo];

  return sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]);
}

/* Moves the k-th smallest of x[0..n) to x[k], smaller ones before it and
 * larger ones after (Wirth's selection, median-of-three pivot). */
static void
select_nth (double *x,
            gsize   n,
            gsize   k)
{
  gssize lo = 0, hi = (gssize) n - 1, kk = (gssize) k;

  while (lo < hi)
    {
      double a = x[lo], b = x[kk], c = x[hi], pivot;
      gssize i = lo, j = hi;

      /* Median of three keeps sorted and constant inputs linear. */
      pivot = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));

      do
        {
          while (x[i] < pivot)
            i++;
          while (pivot < x[j])
            j--;
          if (i <= j)
            {
              double t = x[i];

              x[i] = x[j];
              x[j] = t;
              i++;
              j--;
            }
        }
      while (i <= j);

      if (j < kk)
        lo = i;
      if (kk < i)
        hi = j;
    }
}

/* Quantile of an unsorted buffer, reordering it. */
static double
select_quantile (double *x,
                 gsize   n,
                 double  q)
{
  double h = q * (double) (n - 1), frac, v, next;
  gsize lo;

  lo = (gsize) floor (h);
  frac = h - (double) lo;
  select_nth (x, n, lo);
  v = x[lo];
  if (frac == 0 || lo + 1 >= n)
    return v;

  next = x[lo + 1];
  for (gsize i = lo + 2; i < n; i++)
    next = MIN (next, x[i]);

  return next == v ? v : v + frac * (next - v);
}

static double
stat_quantile (TslStat stat)
{
  return stat == TSL_STAT_MEDIAN ? 0.5 : 0.95;
}

double
tsl_stat_compute (TslStat       stat,
                  const double *x,
                  gsize         n)
{
  g_autofree double *copy = NULL;
  double acc = 0;

  if (stat == TSL_STAT_COUNT)
    return (double) n;
  if (n == 0)
    return NAN;

  switch (stat)
    {
    case TSL_STAT_SUM:
    case TSL_STAT_MEAN:
    case TSL_STAT_SHARE:
      for (gsize i = 0; i < n; i++)
        acc += x[i];
      return stat == TSL_STAT_SUM ? acc : acc / (double) n;

    case TSL_STAT_MAX:
      acc = x[0];
      for (gsize i = 1; i < n; i++)
        acc = MAX (acc, x[i]);
      return acc;

    case TSL_STAT_MEDIAN:
    case TSL_STAT_P95:
      copy = g_memdup2 (x, n * sizeof (double));
      return select_quantile (copy, n, stat_quantile (stat));

    case TSL_STAT_COUNT:
    default:
      g_return_val_if_reached (NAN);
    }
}

double
tsl_relative_change (double theta_a,
                     double theta_b)
{
  if (isnan (theta_a) || isnan (theta_b))
    return NAN;
  if (theta_a == 0)
    return theta_b == 0 ? 0 : copysign (INFINITY, theta_b);

  return theta_b / theta_a - 1;
}

/* ---- kernels ---- */

typedef struct {
  const TslBootstrapSample *sample;
  double                   *prefix;   /* 2n + 1 circular prefix sums, block sums only */
} Side;

typedef struct {
  Side          side[2];
  guint         n_sides;
  TslStat       stat;
  guint         rounds;
  guint64       seed;
  guint64       stream;
  double       *out;
  gsize         max_n;
  GCancellable *cancellable;
  gint          next_block;
  gint          cancelled;
} Job;

static gboolean
stat_is_sum_like (TslStat stat)
{
  return stat == TSL_STAT_SUM || stat == TSL_STAT_MEAN || stat == TSL_STAT_SHARE;
}

/* Lemire's bounded draw on 32 bits, so one 64-bit output gives two
 * indices; the rare rejection draws afresh. Unbiased, like
 * tsl_rng_bounded(), for any n < 2^32. */
static inline guint32
bounded32 (guint32  r,
           guint32  n,
           TslRng  *rng)
{
  guint64 m = (guint64) r * n;
  guint32 low = (guint32) m;

  if (G_UNLIKELY (low < n))
    {
      guint32 threshold = -n % n;

      while (low < threshold)
        {
          m = (guint64) (guint32) (tsl_rng_next (rng) >> 32) * n;
          low = (guint32) m;
        }
    }

  return (guint32) (m >> 32);
}

static inline double
sum_iid (const double *x,
         gsize         n,
         TslRng       *rng)
{
  double acc0 = 0, acc1 = 0;
  gsize i = 0;

  if (G_UNLIKELY (n > G_MAXUINT32))
    {
      for (; i < n; i++)
        acc0 += x[tsl_rng_bounded (rng, n)];
      return acc0;
    }

  /* Two accumulators let the adds overlap the next draw. */
  for (; i + 2 <= n; i += 2)
    {
      guint64 r = tsl_rng_next (rng);

      acc0 += x[bounded32 ((guint32) r, (guint32) n, rng)];
      acc1 += x[bounded32 ((guint32) (r >> 32), (guint32) n, rng)];
    }
  if (i < n)
    acc0 += x[tsl_rng_bounded (rng, n)];

  return acc0 + acc1;
}

static inline double
sum_blocks (const double *prefix,
            gsize         n,
            gsize         block,
            TslRng       *rng)
{
  double acc = 0;

  for (gsize done = 0; done < n;)
    {
      gsize start = tsl_rng_bounded (rng, n);
      gsize len = MIN (block, n - done);

      acc += prefix[start + len] - prefix[start];
      done += len;
    }

  return acc;
}

static void
gather (const TslBootstrapSample *s,
        TslRng                   *rng,
        double                   *buf)
{
  gsize n = s->n, block = s->block;

  if (block <= 1 && n <= G_MAXUINT32)
    {
      gsize i = 0;

      for (; i + 2 <= n; i += 2)
        {
          guint64 r = tsl_rng_next (rng);

          buf[i] = s->x[bounded32 ((guint32) r, (guint32) n, rng)];
          buf[i + 1] = s->x[bounded32 ((guint32) (r >> 32), (guint32) n, rng)];
        }
      if (i < n)
        buf[i] = s->x[tsl_rng_bounded (rng, n)];
      return;
    }

  if (block <= 1)
    {
      for (gsize i = 0; i < n; i++)
        buf[i] = s->x[tsl_rng_bounded (rng, n)];
      return;
    }

  for (gsize done = 0; done < n;)
    {
      gsize start = tsl_rng_bounded (rng, n);
      gsize len = MIN (block, n - done);

      for (gsize i = 0; i < len; i++)
        buf[done + i] = s->x[(start + i) % n];
      done += len;
    }
}

static double
resample_stat (const Job  *job,
               const Side *side,
               TslRng     *rng,
               double     *buf)
{
  const TslBootstrapSample *s = side->sample;
  gsize n = s->n;
  double theta;

  if (job->stat == TSL_STAT_COUNT)
    return (double) n * s->scale;
  if (n == 0)
    return NAN;

  if (stat_is_sum_like (job->stat))
    {
      theta = side->prefix != NULL ? sum_blocks (side->prefix, n, s->block, rng)
                                   : sum_iid (s->x, n, rng);
      if (job->stat != TSL_STAT_SUM)
        theta /= (double) n;
    }
  else
    {
      gather (s, rng, buf);
      if (job->stat == TSL_STAT_MAX)
        {
          theta = buf[0];
          for (gsize i = 1; i < n; i++)
            theta = MAX (theta, buf[i]);
        }
      else
        theta = select_quantile (buf, n, stat_quantile (job->stat));
    }

  return theta * s->scale;
}

static void
run_block (Job    *job,
           guint   block,
           double *buf)
{
  guint first = block * BLOCK_ROUNDS;
  guint last = MIN (first + BLOCK_ROUNDS, job->rounds);
  TslRng rng;

  tsl_rng_init (&rng, job->seed, (job->stream << 32) | block);

  for (guint r = first; r < last; r++)
    {
      double theta_a = resample_stat (job, &job->side[0], &rng, buf);

      if (job->n_sides == 1)
        job->out[r] = theta_a;
      else
        job->out[r] = tsl_relative_change (theta_a, resample_stat (job, &job->side[1], &rng, buf));
    }
}

static gpointer
job_worker (gpointer data)
{
  Job *job = data;
  guint n_blocks = (job->rounds + BLOCK_ROUNDS - 1) / BLOCK_ROUNDS;
  g_autofree double *buf = g_new (double, MAX (job->max_n, 1));

  for (;;)
    {
      guint block = (guint) g_atomic_int_add (&job->next_block, 1);

      if (block >= n_blocks || g_atomic_int_get (&job->cancelled))
        break;

      if (g_cancellable_is_cancelled (job->cancellable))
        {
          g_atomic_int_set (&job->cancelled, TRUE);
          break;
        }

      run_block (job, block, buf);
    }

  return NULL;
}

static double *
circular_prefix (const TslBootstrapSample *s)
{
  double *prefix = g_new (double, 2 * s->n + 1);

  prefix[0] = 0;
  for (gsize i = 0; i < 2 * s->n; i++)
    prefix[i + 1] = prefix[i] + s->x[i % s->n];

  return prefix;
}

static gboolean
job_run (Job                      *job,
         const TslBootstrapConfig *config,
         GError                  **error)
{
  guint n_blocks = (job->rounds + BLOCK_ROUNDS - 1) / BLOCK_ROUNDS;
  guint n_threads = config->n_threads != 0 ? config->n_threads : g_get_num_processors ();
  g_autoptr(GPtrArray) threads = g_ptr_array_new ();
  gsize draws = 0;

  for (guint i = 0; i < job->n_sides; i++)
    {
      const TslBootstrapSample *s = job->side[i].sample;

      job->max_n = MAX (job->max_n, s->n);
      draws += s->n;
      if (s->block > 1 && s->n > 0 && stat_is_sum_like (job->stat))
        job->side[i].prefix = circular_prefix (s);
    }

  draws *= job->rounds;
  n_threads = MIN (n_threads, n_blocks);
  if (draws < MIN_THREADED_DRAWS)
    n_threads = 1;

  for (guint i = 1; i < n_threads; i++)
    {
      GThread *thread = g_thread_try_new ("tsl-bootstrap", job_worker, job, NULL);

      /* Without another thread the calling thread simply does all blocks. */
      if (thread == NULL)
        break;
      g_ptr_array_add (threads, thread);
    }

  job_worker (job);

  for (guint i = 0; i < threads->len; i++)
    g_thread_join (g_ptr_array_index (threads, i));

  for (guint i = 0; i < job->n_sides; i++)
    g_clear_pointer (&job->side[i].prefix, g_free);

  if (job->cancelled)
    return !g_cancellable_set_error_if_cancelled (job->cancellable, error);

  return TRUE;
}

gboolean
tsl_bootstrap_one_sample (const TslBootstrapSample *x,
                          const TslBootstrapConfig *config,
                          guint64                   stream,
                          double                   *out,
                          GCancellable             *cancellable,
                          GError                  **error)
{
  Job job = { 0 };

  g_return_val_if_fail (x != NULL && config != NULL && out != NULL, FALSE);

  job.side[0].sample = x;
  job.n_sides = 1;
  job.stat = config->stat;
  job.rounds = config->rounds;
  job.seed = config->seed;
  job.stream = stream;
  job.out = out;
  job.cancellable = cancellable;

  return job_run (&job, config, error);
}

gboolean
tsl_bootstrap_two_sample (const TslBootstrapSample *a,
                          const TslBootstrapSample *b,
                          const TslBootstrapConfig *config,
                          double                   *out,
                          GCancellable             *cancellable,
                          GError                  **error)
{
  Job job = { 0 };

  g_return_val_if_fail (a != NULL && b != NULL && config != NULL && out != NULL, FALSE);

  job.side[0].sample = a;
  job.side[1].sample = b;
  job.n_sides = 2;
  job.stat = config->stat;
  job.rounds = config->rounds;
  job.seed = config->seed;
  /* Keeps the two-sample streams apart from one-sample stream 0. */
  job.stream = 0xB;
  job.out = out;
  job.cancellable = cancellable;

  return job_run (&job, config, error);
}

/* ---- jackknife ---- */

typedef struct {
  double value;
  gsize  index;
} Ranked;

static int
compare_ranked (const void *pa,
                const void *pb)
{
  const Ranked *a = pa, *b = pb;

  if (a->value != b->value)
    return a->value < b->value ? -1 : 1;
  return (a->index > b->index) - (a->index < b->index);
}

/* The q-quantile of the n − 1 sorted values left when rank `gone` is removed. */
static double
quantile_without (const Ranked *sorted,
                  gsize         n,
                  gsize         gone,
                  double        q)
{
  double h = q * (double) (n - 2), frac, v, next;
  gsize lo = (gsize) floor (h);

  frac = h - (double) lo;
  v = sorted[lo < gone ? lo : lo + 1].value;
  if (frac == 0 || lo + 1 >= n - 1)
    return v;

  next = sorted[lo + 1 < gone ? lo + 1 : lo + 2].value;
  return v + frac * (next - v);
}

void
tsl_jackknife (TslStat       stat,
               const double *x,
               gsize         n,
               double       *out)
{
  g_autofree Ranked *ranked = NULL;
  double total = 0, first = -INFINITY, second = -INFINITY;
  gsize arg_first = 0;

  g_return_if_fail (n == 0 || (x != NULL && out != NULL));

  if (n < 2)
    {
      for (gsize i = 0; i < n; i++)
        out[i] = stat == TSL_STAT_COUNT ? 0 : NAN;
      return;
    }

  switch (stat)
    {
    case TSL_STAT_SUM:
    case TSL_STAT_MEAN:
    case TSL_STAT_SHARE:
      for (gsize i = 0; i < n; i++)
        total += x[i];
      for (gsize i = 0; i < n; i++)
        out[i] = stat == TSL_STAT_SUM ? total - x[i] : (total - x[i]) / (double) (n - 1);
      break;

    case TSL_STAT_COUNT:
      for (gsize i = 0; i < n; i++)
        out[i] = (double) (n - 1);
      break;

    case TSL_STAT_MAX:
      for (gsize i = 0; i < n; i++)
        {
          if (x[i] > first)
            {
              second = first;
              first = x[i];
              arg_first = i;
            }
          else if (x[i] > second)
            second = x[i];
        }
      for (gsize i = 0; i < n; i++)
        out[i] = i == arg_first ? second : first;
      break;

    case TSL_STAT_MEDIAN:
    case TSL_STAT_P95:
      ranked = g_new (Ranked, n);
      for (gsize i = 0; i < n; i++)
        ranked[i] = (Ranked) { x[i], i };
      qsort (ranked, n, sizeof (Ranked), compare_ranked);
      for (gsize r = 0; r < n; r++)
        out[ranked[r].index] = quantile_without (ranked, n, r, stat_quantile (stat));
      break;

    default:
      g_return_if_reached ();
    }
}

/* ---- intervals and p-values ---- */

void
tsl_percentile_interval (const double *sorted,
                         guint         rounds,
                         double        confidence,
                         double       *low,
                         double       *high)
{
  double alpha = (1 - confidence) / 2;

  *low = tsl_quantile_sorted (sorted, rounds, alpha);
  *high = tsl_quantile_sorted (sorted, rounds, 1 - alpha);
}

/* Index of the first element not less than (strict) / greater than value. */
static gsize
lower_bound (const double *sorted,
             gsize         n,
             double        value,
             gboolean      or_equal)
{
  gsize lo = 0, hi = n;

  while (lo < hi)
    {
      gsize mid = lo + (hi - lo) / 2;

      if (sorted[mid] < value || (or_equal && sorted[mid] == value))
        lo = mid + 1;
      else
        hi = mid;
    }

  return lo;
}

gboolean
tsl_bca_interval (double               theta_hat,
                  const double        *sorted,
                  guint                rounds,
                  const double * const *jack,
                  const gsize         *n_jack,
                  guint                n_groups,
                  double               confidence,
                  double              *low,
                  double              *high)
{
  double alpha = (1 - confidence) / 2;
  double pct, z0, a_hat, num = 0, den = 0, z_alpha, n1, n2;

  if (rounds == 0 || isnan (theta_hat))
    return FALSE;

  /* scipy's _percentile_of_score, 'mean' kind. */
  pct = (double) (lower_bound (sorted, rounds, theta_hat, FALSE) +
                  lower_bound (sorted, rounds, theta_hat, TRUE)) / (2.0 * rounds);
  if (pct <= 0 || pct >= 1)
    return FALSE;
  z0 = tsl_ndtri (pct);

  for (guint j = 0; j < n_groups; j++)
    {
      double mean = 0, sum2 = 0, sum3 = 0, n = (double) n_jack[j];

      if (n_jack[j] < 2)
        continue;
      for (gsize i = 0; i < n_jack[j]; i++)
        mean += jack[j][i];
      mean /= n;
      for (gsize i = 0; i < n_jack[j]; i++)
        {
          double u = (n - 1) * (mean - jack[j][i]);

          sum2 += u * u;
          sum3 += u * u * u;
        }
      num += sum3 / (n * n * n);
      den += sum2 / (n * n);
    }

  a_hat = den > 0 && isfinite (num) && isfinite (den) ? num / (6 * pow (den, 1.5)) : 0;

  z_alpha = tsl_ndtri (alpha);
  n1 = z0 + z_alpha;
  n2 = z0 - z_alpha;
  *low = tsl_quantile_sorted (sorted, rounds, tsl_ndtr (z0 + n1 / (1 - a_hat * n1)));
  *high = tsl_quantile_sorted (sorted, rounds, tsl_ndtr (z0 + n2 / (1 - a_hat * n2)));

  return !isnan (*low) && !isnan (*high);
}

double
tsl_bootstrap_p_value (const double *effects,
                       guint         rounds)
{
  guint64 le = 0, ge = 0;

  if (rounds == 0)
    return NAN;

  for (guint i = 0; i < rounds; i++)
    {
      le += effects[i] <= 0;
      ge += effects[i] >= 0;
    }

  return MIN (1.0, 2.0 * (double) (MIN (le, ge) + 1) / (double) (rounds + 1));
}

void
tsl_bh_qvalues (const double *p,
                gsize         n,
                double       *q)
{
  g_autofree Ranked *order = g_new (Ranked, MAX (n, 1));
  gsize m = 0;
  double running = 1.0;

  for (gsize i = 0; i < n; i++)
    {
      q[i] = NAN;
      if (!isnan (p[i]))
        order[m++] = (Ranked) { p[i], i };
    }

  qsort (order, m, sizeof (Ranked), compare_ranked);

  /* q_(i) = min over j ≥ i of p_(j) · m / j, walking down from the largest. */
  for (gsize r = m; r > 0; r--)
    {
      running = MIN (running, order[r - 1].value * (double) m / (double) r);
      q[order[r - 1].index] = running;
    }
}
