/* test-sampler.c: the timesliced sampler (docs/ARCHITECTURE.md, "The sampler"; issue 3)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Statistical tests use fixed seeds, so they are deterministic; each states
 * its tolerance next to the assertion.
 */
#include <math.h>
#include <string.h>

#include <gio/gio.h>

#include "tsl-budget.h"
#include "tsl-rng.h"
#include "tsl-sampler.h"

#include "test-stats.h"

static void
test_chi_square_helper (void)
{
  /* Tabulated 0.999 quantiles: df 7 → 24.322, df 63 → 103.442. */
  g_assert_cmpfloat_with_epsilon (gamma_q (3.5, 24.322 / 2), 0.001, 1e-5);
  g_assert_cmpfloat_with_epsilon (gamma_q (31.5, 103.442 / 2), 0.001, 1e-5);
  g_assert_cmpfloat_with_epsilon (gamma_q (1, 2), exp (-2), 1e-12);
}

static gboolean
same_double (double a,
             double b)
{
  return memcmp (&a, &b, sizeof a) == 0;
}

static void
assert_samples_equal (const TslSample *a,
                      guint            n_a,
                      const TslSample *b,
                      guint            n_b)
{
  g_assert_cmpuint (n_a, ==, n_b);
  for (guint i = 0; i < n_a; i++)
    {
      g_assert_cmpint (a[i].slice, ==, b[i].slice);
      g_assert_cmpuint (a[i].index, ==, b[i].index);
      g_assert_cmpint (a[i].time_ns, ==, b[i].time_ns);
      g_assert_true (same_double (a[i].value, b[i].value));
      g_assert_cmpuint (a[i].label, ==, b[i].label);
      g_assert_cmpuint (a[i].priority, ==, b[i].priority);
      g_assert_cmpuint (a[i].summary.count, ==, b[i].summary.count);
      g_assert_true (same_double (a[i].summary.sum, b[i].summary.sum));
      g_assert_true (same_double (a[i].summary.min, b[i].summary.min));
      g_assert_true (same_double (a[i].summary.max, b[i].summary.max));
    }
}

/* The event of smallest priority in [start, end), by brute force. */
static guint64
brute_argmin (guint64 seed,
              guint64 start,
              guint64 end)
{
  guint64 best = start;

  for (guint64 i = start + 1; i < end; i++)
    if (tsl_mix64 (seed, i) < tsl_mix64 (seed, best))
      best = i;

  return best;
}

static void
test_seed_table (void)
{
  static const guint64 weights[] = { 8, 8, 8, 8, 8, 8, 2 };

  for (guint64 seed = 0; seed < 100; seed++)
    {
      g_autoptr(TslSampler) sampler = tsl_sampler_new_count (4, seed, 0);
      const TslSample *samples;
      guint n;

      for (guint i = 0; i < 50; i++)
        tsl_sampler_offer (sampler, i, i);

      samples = tsl_sampler_peek_samples (sampler, &n);
      g_assert_cmpuint (n, ==, 7);
      g_assert_cmpint (tsl_sampler_get_slice_size (sampler), ==, 8);
      g_assert_cmpuint (tsl_sampler_get_events (sampler), ==, 50);
      for (guint j = 0; j < n; j++)
        {
          g_assert_cmpint (samples[j].slice, ==, j);
          g_assert_cmpuint (samples[j].index, >=, j * 8);
          g_assert_cmpuint (samples[j].index, <, MIN (j * 8 + 8, 50));
          g_assert_cmpuint (samples[j].summary.count, ==, weights[j]);
          g_assert_cmpuint (samples[j].index, ==, brute_argmin (seed, j * 8, MIN (j * 8 + 8, 50)));
        }
    }
}

/* Every N in 1..3000 is the state after N offers of one online run. */
static void
test_invariants (void)
{
  static const guint ks[] = { 1, 2, 3, 16 };

  for (guint ki = 0; ki < G_N_ELEMENTS (ks); ki++)
    {
      guint k = ks[ki];
      g_autoptr(TslSampler) sampler = tsl_sampler_new_count (k, 1000 + k, 0);

      for (guint64 n = 1; n <= 3000; n++)
        {
          const TslSample *samples;
          guint64 t, expected_t = 1;
          guint held;

          tsl_sampler_offer (sampler, n - 1, (double) n);
          samples = tsl_sampler_peek_samples (sampler, &held);
          t = tsl_sampler_get_slice_size (sampler);

          /* The seed's T: the smallest power of two giving at most 2K slices. */
          while ((n + expected_t - 1) / expected_t > 2 * k)
            expected_t *= 2;
          g_assert_cmpuint (t, ==, expected_t);
          g_assert_cmpuint (t & (t - 1), ==, 0);
          g_assert_cmpuint (held, <=, 2 * k);
          g_assert_cmpuint (held, >=, MIN (n, k));
          g_assert_cmpuint (tsl_sampler_get_events (sampler), ==, n);

          /* One sample per slice; slices contiguous and covering [0, n). */
          for (guint j = 0; j < held; j++)
            {
              guint64 start = j * t, end = MIN (start + t, n);

              g_assert_cmpint (samples[j].slice, ==, j);
              g_assert_cmpuint (start, <, n);
              g_assert_cmpuint (samples[j].index, >=, start);
              g_assert_cmpuint (samples[j].index, <, end);
              g_assert_cmpuint (samples[j].summary.count, ==, end - start);
              g_assert_cmpint (samples[j].time_ns, ==, (gint64) samples[j].index);
              if (k <= 3)
                g_assert_cmpuint (samples[j].index, ==, brute_argmin (1000 + k, start, end));
            }
          g_assert_cmpuint ((guint64) held * t, >=, n);
        }
    }
}

/* Position of the kept event inside `slice` for each of 10,000 seeds. With
 * `merge`, the stream is cut at a random point inside that slice and the
 * two halves' samplers merged. */
static double
uniformity_p (guint    n_events,
              guint    k,
              guint    slice,
              gboolean merge,
              guint   *n_cells_out,
              double  *stat)
{
  g_autofree guint64 *observed = NULL;
  guint64 start = 0, end = 0;
  guint n_cells = 0;
  TslRng rng;

  tsl_rng_init (&rng, 42, slice);
  for (guint64 seed = 1; seed <= 10000; seed++)
    {
      g_autoptr(TslSampler) a = tsl_sampler_new_count (k, seed, 0);
      g_autoptr(TslSampler) b = NULL;
      const TslSample *samples;
      guint64 cut = n_events;
      guint n;

      if (merge)
        {
          guint64 t = 1;

          while ((n_events + t - 1) / t > 2 * k)
            t *= 2;
          cut = slice * t + 1 + tsl_rng_bounded (&rng, MIN (t, n_events - slice * t) - 1);
          b = tsl_sampler_new_count (k, seed, cut);
        }

      for (guint64 i = 0; i < n_events; i++)
        tsl_sampler_offer (i < cut ? a : b, i, NAN);
      if (b != NULL)
        g_assert_true (tsl_sampler_merge (a, b, NULL));

      samples = tsl_sampler_peek_samples (a, &n);
      g_assert_cmpuint (slice, <, n);
      if (observed == NULL)
        {
          start = slice * tsl_sampler_get_slice_size (a);
          end = MIN (start + tsl_sampler_get_slice_size (a), n_events);
          n_cells = end - start;
          observed = g_new0 (guint64, n_cells);
        }
      g_assert_cmpuint (samples[slice].summary.count, ==, n_cells);
      observed[samples[slice].index - start]++;
    }

  *n_cells_out = n_cells;
  return chi_square_uniform (observed, n_cells, stat);
}

static void
test_uniformity (void)
{
  static const struct {
    guint n, k, slice;
    gboolean merge;
    guint cells;
    const char *what;
  } cases[] = {
    { 61, 4, 1, FALSE, 8, "full slice, T = 8 after three doublings" },
    { 61, 4, 7, FALSE, 5, "last partial slice [56, 61)" },
    { 500, 4, 3, FALSE, 64, "full slice, T = 64" },
    { 500, 4, 7, FALSE, 52, "last partial slice [448, 500)" },
    { 500, 4, 3, TRUE, 64, "full slice, merged at a random cut inside it" },
    { 500, 4, 7, TRUE, 52, "last partial slice, merged at a random cut inside it" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      double stat, p;
      guint cells;

      p = uniformity_p (cases[i].n, cases[i].k, cases[i].slice, cases[i].merge, &cells, &stat);
      g_test_message ("uniformity, %s: %u positions, chi-square %.2f (df %u), p = %.4f",
                      cases[i].what, cells, stat, cells - 1, p);
      g_assert_cmpuint (cells, ==, cases[i].cells);
      /* Tolerance: reject uniformity at the 0.001 level. */
      g_assert_cmpfloat (p, >, 0.001);
    }
}

static double
gap_cv (const guint64 *indices,
        guint          n)
{
  double mean = 0, var = 0;

  g_assert_cmpuint (n, >=, 3);
  for (guint i = 1; i < n; i++)
    mean += (double) (indices[i] - indices[i - 1]);
  mean /= n - 1;
  for (guint i = 1; i < n; i++)
    {
      double d = (double) (indices[i] - indices[i - 1]) - mean;

      var += d * d;
    }
  var /= n - 2;

  return sqrt (var) / mean;
}

static int
cmp_u64 (gconstpointer a,
         gconstpointer b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;

  return x < y ? -1 : x > y;
}

static void
test_evenness (void)
{
  const guint64 n_events = 100000;
  const guint k = 100, n_seeds = 20;
  double cv_sliced = 0, cv_reservoir = 0;

  for (guint64 seed = 1; seed <= n_seeds; seed++)
    {
      g_autoptr(TslSampler) sampler = tsl_sampler_new_count (k, seed, 0);
      g_autofree guint64 *kept = NULL;
      g_autofree guint64 *reservoir = NULL;
      const TslSample *samples;
      TslRng rng;
      guint n;

      for (guint64 i = 0; i < n_events; i++)
        tsl_sampler_offer (sampler, i, NAN);
      samples = tsl_sampler_peek_samples (sampler, &n);
      kept = g_new (guint64, n);
      for (guint i = 0; i < n; i++)
        kept[i] = samples[i].index;
      cv_sliced += gap_cv (kept, n);

      /* Plain reservoir sampling (Algorithm R) with as many samples. */
      tsl_rng_init (&rng, seed, 7);
      reservoir = g_new (guint64, n);
      for (guint64 i = 0; i < n_events; i++)
        {
          if (i < n)
            reservoir[i] = i;
          else
            {
              guint64 j = tsl_rng_bounded (&rng, i + 1);

              if (j < n)
                reservoir[j] = i;
            }
        }
      qsort (reservoir, n, sizeof (guint64), cmp_u64);
      cv_reservoir += gap_cv (reservoir, n);
    }

  cv_sliced /= n_seeds;
  cv_reservoir /= n_seeds;
  g_test_message ("evenness (N = 100000, K = 100, %u seeds): gap CV %.3f sliced vs %.3f reservoir, ratio %.3f",
                  n_seeds, cv_sliced, cv_reservoir, cv_sliced / cv_reservoir);
  /* Tolerance from the issue: at most 0.6 × plain reservoir sampling. */
  g_assert_cmpfloat (cv_sliced, <=, 0.6 * cv_reservoir);
}

static double
test_value (TslRng  *rng,
            guint64  i,
            gboolean integers)
{
  /* No value for a long run (whole slices without one) and 10% elsewhere. */
  if ((i >= 5000 && i < 9000) || tsl_rng_bounded (rng, 10) == 0)
    return NAN;
  if (integers)
    return (double) tsl_rng_bounded (rng, 2000001) - 1000000.0;
  return (tsl_rng_double (rng) - 0.3) * 1e6;
}

static void
test_summaries (void)
{
  for (int integers = 1; integers >= 0; integers--)
    {
      const guint64 n_events = 20011;
      g_autoptr(TslSampler) sampler = tsl_sampler_new_count (8, 99, 0);
      g_autofree double *values = g_new (double, n_events);
      const TslSample *samples;
      gboolean saw_empty = FALSE;
      guint64 t;
      TslRng rng;
      guint n;

      tsl_rng_init (&rng, 5, integers);
      for (guint64 i = 0; i < n_events; i++)
        {
          values[i] = test_value (&rng, i, integers);
          tsl_sampler_offer (sampler, i * 10, values[i]);
        }

      samples = tsl_sampler_peek_samples (sampler, &n);
      t = tsl_sampler_get_slice_size (sampler);
      for (guint j = 0; j < n; j++)
        {
          guint64 start = j * t, end = MIN (start + t, n_events);
          /* An empty sum is -0, the identity of addition. */
          double sum = -0.0, min = NAN, max = NAN;

          for (guint64 i = start; i < end; i++)
            {
              if (isnan (values[i]))
                continue;
              sum += values[i];
              min = isnan (min) ? values[i] : MIN (min, values[i]);
              max = isnan (max) ? values[i] : MAX (max, values[i]);
            }

          g_assert_cmpuint (samples[j].summary.count, ==, end - start);
          g_assert_true (same_double (samples[j].summary.min, min));
          g_assert_true (same_double (samples[j].summary.max, max));
          g_assert_true (same_double (samples[j].value, values[samples[j].index]));
          g_assert_cmpint (samples[j].time_ns, ==, (gint64) samples[j].index * 10);
          saw_empty |= isnan (min);
          if (integers)
            g_assert_true (same_double (samples[j].summary.sum, sum));
          else /* The sampler's sum is exact, the running one here is not: 1e-9 relative. */
            g_assert_cmpfloat (fabs (samples[j].summary.sum - sum), <=, 1e-9 * (fabs (sum) + 1e6));
        }
      g_assert_true (saw_empty);
    }
}

static void
run_pieces (guint64        seed,
            guint          k,
            const double  *values,
            guint64        n_events,
            const guint64 *cuts,
            guint          n_cuts,
            TslSampler   **out)
{
  TslSampler *result = NULL;
  guint64 start = 0;

  for (guint c = 0; c <= n_cuts; c++)
    {
      guint64 end = c < n_cuts ? cuts[c] : n_events;
      TslSampler *piece = tsl_sampler_new_count (k, seed, start);
      g_autoptr(GError) error = NULL;

      for (guint64 i = start; i < end; i++)
        if (tsl_sampler_offer (piece, (gint64) i * 3, values[i]))
          tsl_sampler_set_label (piece, (guint32) (i % 1000) + 1);

      if (result == NULL)
        result = piece;
      else
        {
          g_assert_true (tsl_sampler_merge (result, piece, &error));
          g_assert_no_error (error);
          tsl_sampler_free (piece);
        }
      start = end;
    }

  *out = result;
}

static void
test_merge (void)
{
  static const guint ks[] = { 1, 2, 3, 4, 7, 16, 64 };
  guint n_cases = 0;
  TslRng rng;

  tsl_rng_init (&rng, 2024, 0);
  for (guint c = 0; c < 60; c++, n_cases++)
    {
      guint k = ks[tsl_rng_bounded (&rng, G_N_ELEMENTS (ks))];
      guint64 n_events = tsl_rng_bounded (&rng, 30000);
      guint64 seed = tsl_rng_next (&rng);
      g_autofree double *values = g_new (double, n_events + 1);
      g_autoptr(TslSampler) single = NULL;
      g_autoptr(TslSampler) merged = NULL;
      const TslSample *a, *b;
      guint64 cuts[3];
      guint n_cuts = 1 + c % 3, n_a, n_b;

      for (guint64 i = 0; i < n_events; i++)
        values[i] = test_value (&rng, i, TRUE);
      for (guint i = 0; i < n_cuts; i++)
        cuts[i] = tsl_rng_bounded (&rng, n_events + 1);
      qsort (cuts, n_cuts, sizeof (guint64), cmp_u64);

      run_pieces (seed, k, values, n_events, NULL, 0, &single);
      run_pieces (seed, k, values, n_events, cuts, n_cuts, &merged);

      a = tsl_sampler_peek_samples (single, &n_a);
      b = tsl_sampler_peek_samples (merged, &n_b);
      assert_samples_equal (a, n_a, b, n_b);
      g_assert_cmpint (tsl_sampler_get_slice_size (single), ==, tsl_sampler_get_slice_size (merged));
      g_assert_cmpuint (tsl_sampler_get_events (single), ==, tsl_sampler_get_events (merged));

      /* The merged sampler keeps going exactly like the single pass. */
      for (guint64 i = n_events; i < n_events + 100; i++)
        g_assert_cmpint (tsl_sampler_offer (single, i, 1), ==, tsl_sampler_offer (merged, i, 1));
      a = tsl_sampler_peek_samples (single, &n_a);
      b = tsl_sampler_peek_samples (merged, &n_b);
      assert_samples_equal (a, n_a, b, n_b);
    }

  g_test_message ("merge: %u random cut sets equal to a single pass, bit for bit", n_cases);
  g_assert_cmpuint (n_cases, >=, 45);
}

static void
test_merge_errors (void)
{
  g_autoptr(TslSampler) a = tsl_sampler_new_count (4, 1, 0);
  g_autoptr(TslSampler) gap = tsl_sampler_new_count (4, 1, 11);
  g_autoptr(TslSampler) other_seed = tsl_sampler_new_count (4, 2, 10);
  g_autoptr(TslTimeGrid) grid = tsl_time_grid_new (4);
  g_autoptr(TslSampler) timed = tsl_sampler_new_time (grid, 1);
  g_autoptr(GError) error = NULL;

  for (guint i = 0; i < 10; i++)
    tsl_sampler_offer (a, i, i);

  g_assert_false (tsl_sampler_merge (a, gap, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_false (tsl_sampler_merge (a, other_seed, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  /* Time mode merges too (tests/unit/test-state.c), but not with count mode. */
  g_assert_false (tsl_sampler_merge (a, timed, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  g_assert_cmpuint (tsl_sampler_get_events (a), ==, 10);
}

static void
swap_events (gint64 *times,
             double *values,
             guint   i,
             guint   j)
{
  gint64 t = times[i];
  double v = values[i];

  times[i] = times[j];
  values[i] = values[j];
  times[j] = t;
  values[j] = v;
}

static void
shuffle_events (TslRng *rng,
                gint64 *times,
                double *values,
                guint   n)
{
  for (guint i = n - 1; i > 0; i--)
    swap_events (times, values, i, tsl_rng_bounded (rng, i + 1));
}

typedef struct
{
  guint64 count;
  double  sum, min, max;
  guint64 best_u, best_ordinal;
  gint64  best_time;
} Brute;

/* Checks a time-mode track against a brute-force pass over its events with
 * the grid's final origin and the track's width (the grid's, unless the
 * budget lowered its K). Returns the lowest slice seen. */
static gint64
check_time_track (TslSampler        *sampler,
                  const TslTimeGrid *grid,
                  guint64            seed,
                  const gint64      *times,
                  const double      *values,
                  guint              n_events)
{
  g_autoptr(GHashTable) slices = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  gint64 width;
  gint64 origin = tsl_time_grid_get_origin (grid);
  gboolean lowered = tsl_sampler_get_k_lowered (sampler);
  const TslSample *samples;
  guint64 total_count = 0;
  double total_sum = 0, brute_sum = 0;
  guint n;

  samples = tsl_sampler_peek_samples (sampler, &n);
  width = tsl_sampler_get_slice_size (sampler);
  g_assert_true (lowered || width == tsl_time_grid_get_width (grid));

  for (guint i = 0; i < n_events; i++)
    {
      /* Integer floor division: times near 1.7e18 do not fit a double. */
      gint64 d = times[i] - origin;
      gint64 slice = d / width - (d % width != 0 && d < 0);
      guint64 u = tsl_mix64 (seed, (guint64) times[i]);
      Brute *b = g_hash_table_lookup (slices, &slice);

      if (!lowered)
        g_assert_cmpint (slice, ==, tsl_time_grid_get_slice (grid, times[i]));
      if (b == NULL)
        {
          b = g_new0 (Brute, 1);
          b->min = b->max = NAN;
          b->best_u = G_MAXUINT64;
          g_hash_table_insert (slices, g_memdup2 (&slice, sizeof slice), b);
        }
      b->count++;
      if (!isnan (values[i]))
        {
          b->sum += values[i];
          brute_sum += values[i];
          b->min = isnan (b->min) ? values[i] : MIN (b->min, values[i]);
          b->max = isnan (b->max) ? values[i] : MAX (b->max, values[i]);
        }
      /* Ordinal i arrives later, so it only wins with a strictly smaller u. */
      if (u < b->best_u)
        {
          b->best_u = u;
          b->best_ordinal = i;
          b->best_time = times[i];
        }
    }

  g_assert_cmpuint (n, ==, g_hash_table_size (slices));
  /* A lowered track holds at most its room, 2K' + 1 (it coarsens only when
   * that is full); otherwise the grid's 2K. */
  g_assert_cmpuint (n, <=, 2 * tsl_sampler_get_k (sampler) + lowered);
  for (guint j = 0; j < n; j++)
    {
      const Brute *b = g_hash_table_lookup (slices, &samples[j].slice);

      g_assert_nonnull (b);
      if (j > 0)
        g_assert_cmpint (samples[j - 1].slice, <, samples[j].slice);
      g_assert_cmpint (samples[j].time_ns, >=, origin + samples[j].slice * width);
      g_assert_cmpint (samples[j].time_ns, <, origin + (samples[j].slice + 1) * width);
      g_assert_cmpuint (samples[j].summary.count, ==, b->count);
      g_assert_true (same_double (samples[j].summary.sum, b->sum));
      g_assert_true (same_double (samples[j].summary.min, b->min));
      g_assert_true (same_double (samples[j].summary.max, b->max));
      g_assert_cmpuint (samples[j].index, ==, b->best_ordinal);
      g_assert_cmpint (samples[j].time_ns, ==, b->best_time);
      g_assert_cmpuint (samples[j].priority, ==, b->best_u);
      total_count += samples[j].summary.count;
      total_sum += samples[j].summary.sum;
    }

  /* No event lost from the summaries (integer values: sums are exact). */
  g_assert_cmpuint (total_count, ==, n_events);
  g_assert_true (same_double (total_sum, brute_sum));
  if (!lowered)
    g_assert_cmpint (samples[n - 1].slice - samples[0].slice, <, 2 * tsl_sampler_get_k (sampler));

  return samples[0].slice;
}

static void
test_time_shuffled (void)
{
  const guint k = 16, n_events = 5000, n_tracks = 3;
  const guint64 seed = 77;
  /* 2 ms before a 2^32 ns boundary, so events fall on both sides of the origin. */
  const gint64 boundary = G_GINT64_CONSTANT (1700000000000000000) & ~G_GINT64_CONSTANT (0xFFFFFFFF);
  const gint64 base = boundary - 2000000;
  g_autoptr(TslTimeGrid) grid = tsl_time_grid_new (k);
  TslSampler *tracks[3];
  gint64 *times[3];
  double *values[3];
  const TslSample *s0, *s1;
  guint n0, n1;
  TslRng rng;

  tsl_rng_init (&rng, 31337, 0);
  for (guint tr = 0; tr < n_tracks; tr++)
    {
      tracks[tr] = tsl_sampler_new_time (grid, seed);
      times[tr] = g_new (gint64, n_events);
      values[tr] = g_new (double, n_events);
    }

  for (guint i = 0; i < n_events; i++)
    {
      /* Tracks 0 and 1 tick at the same instants; track 2 repeats times. */
      times[0][i] = times[1][i] = base + i * 1000 + tsl_rng_bounded (&rng, 500);
      times[2][i] = base + (i / 3) * 2000;
      for (guint tr = 0; tr < n_tracks; tr++)
        values[tr][i] = i % 17 == 0 ? NAN : (double) tsl_rng_bounded (&rng, 1000);
    }

  for (guint tr = 0; tr < n_tracks; tr++)
    {
      shuffle_events (&rng, times[tr], values[tr], n_events);
      /* The first event sets the origin: make it one after the boundary. */
      for (guint i = 0; times[tr][0] < boundary + 1000000; i++)
        swap_events (times[tr], values[tr], 0, i);
    }

  for (guint i = 0; i < n_events; i++)
    for (guint tr = 0; tr < n_tracks; tr++)
      {
        guint n;

        tsl_sampler_offer (tracks[tr], times[tr][i], values[tr][i]);
        /* Peek only this track, so the others catch up lazily. */
        tsl_sampler_peek_samples (tracks[tr], &n);
        g_assert_cmpuint (n, <=, 2 * k);
      }

  /* Slices are absolute, whichever event came first: a slice edge is a
   * multiple of the width, so the 2^32 boundary is one. */
  g_assert_cmpint (tsl_time_grid_get_origin (grid), ==, 0);
  for (guint tr = 0; tr < n_tracks; tr++)
    {
      gint64 first = check_time_track (tracks[tr], grid, seed, times[tr], values[tr], n_events);

      g_assert_cmpint (first * tsl_sampler_get_slice_size (tracks[tr]), <, boundary);
      g_assert_cmpint (boundary % tsl_sampler_get_slice_size (tracks[tr]), ==, 0);
    }

  /* Same instants, same seed: the same instants are kept. */
  s0 = tsl_sampler_peek_samples (tracks[0], &n0);
  s1 = tsl_sampler_peek_samples (tracks[1], &n1);
  g_assert_cmpuint (n0, ==, n1);
  for (guint j = 0; j < n0; j++)
    {
      g_assert_cmpint (s0[j].slice, ==, s1[j].slice);
      g_assert_cmpint (s0[j].time_ns, ==, s1[j].time_ns);
    }

  for (guint tr = 0; tr < n_tracks; tr++)
    {
      tsl_sampler_free (tracks[tr]);
      g_free (times[tr]);
      g_free (values[tr]);
    }
}

/* 512 events 1 µs apart, shuffled; K = 4 gives slices of 65536 ns holding 65
 * or 66 events. Over 10,000 seeds each event of slice 2 is kept equally often. */
static void
test_time_uniformity (void)
{
  guint64 observed[66] = { 0 };
  guint n_cells = 0;
  double stat, p;
  TslRng rng;

  tsl_rng_init (&rng, 8, 0);
  for (guint64 seed = 1; seed <= 10000; seed++)
    {
      g_autoptr(TslTimeGrid) grid = tsl_time_grid_new (4);
      g_autoptr(TslSampler) sampler = tsl_sampler_new_time (grid, seed);
      gint64 times[512];
      double values[512];
      const TslSample *samples;
      gint64 first;
      guint n;

      for (guint i = 0; i < 512; i++)
        {
          times[i] = i * 1000;
          values[i] = i;
        }
      shuffle_events (&rng, times, values, 512);
      for (guint i = 0; i < 512; i++)
        tsl_sampler_offer (sampler, times[i], values[i]);

      samples = tsl_sampler_peek_samples (sampler, &n);
      g_assert_cmpint (tsl_sampler_get_slice_size (sampler), ==, 65536);
      g_assert_cmpuint (n, ==, 8);
      g_assert_cmpint (samples[2].slice, ==, 2);
      first = (2 * 65536 + 999) / 1000;
      n_cells = samples[2].summary.count;
      g_assert_cmpuint (n_cells, <=, G_N_ELEMENTS (observed));
      observed[samples[2].time_ns / 1000 - first]++;
    }

  p = chi_square_uniform (observed, n_cells, &stat);
  g_test_message ("time-mode uniformity, shuffled input: %u positions, chi-square %.2f (df %u), p = %.4f",
                  n_cells, stat, n_cells - 1, p);
  /* Tolerance: reject uniformity at the 0.001 level. */
  g_assert_cmpfloat (p, >, 0.001);
}

static TslSampler *
run_deterministic (TslSamplerMode  mode,
                   guint64         seed,
                   TslTimeGrid   **grid_out)
{
  TslSampler *sampler;
  TslRng rng;

  if (mode == TSL_SAMPLER_TIME)
    {
      *grid_out = tsl_time_grid_new (50);
      sampler = tsl_sampler_new_time (*grid_out, seed);
    }
  else
    sampler = tsl_sampler_new_count (50, seed, 0);

  tsl_rng_init (&rng, 11, 0);
  for (guint i = 0; i < 100000; i++)
    {
      gint64 t = (gint64) i * 1000 + tsl_rng_bounded (&rng, 100000);

      if (tsl_sampler_offer (sampler, t, tsl_rng_double (&rng)))
        tsl_sampler_set_label (sampler, i + 1);
    }

  return sampler;
}

static void
test_deterministic (void)
{
  for (int m = 0; m < 2; m++)
    {
      TslSamplerMode mode = m ? TSL_SAMPLER_TIME : TSL_SAMPLER_COUNT;
      g_autoptr(TslTimeGrid) g1 = NULL, g2 = NULL, g3 = NULL;
      g_autoptr(TslSampler) a = run_deterministic (mode, 0x5EED, &g1);
      g_autoptr(TslSampler) b = run_deterministic (mode, 0x5EED, &g2);
      g_autoptr(TslSampler) c = run_deterministic (mode, 0x5EEE, &g3);
      const TslSample *sa, *sb, *sc;
      guint na, nb, nc, differ = 0;

      sa = tsl_sampler_peek_samples (a, &na);
      sb = tsl_sampler_peek_samples (b, &nb);
      assert_samples_equal (sa, na, sb, nb);

      /* Another seed keeps other events (all but about 1 in T agree by chance). */
      sc = tsl_sampler_peek_samples (c, &nc);
      g_assert_cmpuint (na, ==, nc);
      for (guint j = 0; j < na; j++)
        differ += sa[j].index != sc[j].index;
      g_assert_cmpuint (differ, >, na / 2);
    }
}

static void
test_labels (void)
{
  g_autoptr(TslSampler) sampler = tsl_sampler_new_count (2, 3, 0);
  const TslSample *samples;
  guint n, i = 1;

  g_assert_true (tsl_sampler_offer (sampler, 0, 1));
  tsl_sampler_set_label (sampler, 5);
  samples = tsl_sampler_peek_samples (sampler, &n);
  g_assert_cmpuint (samples[0].label, ==, 5);

  /* An event that is not kept must not relabel the kept one. */
  while (tsl_sampler_offer (sampler, i, 1))
    i++;
  tsl_sampler_set_label (sampler, 9);
  samples = tsl_sampler_peek_samples (sampler, &n);
  for (guint j = 0; j < n; j++)
    g_assert_cmpuint (samples[j].label, !=, 9);
}

static void
test_memory (void)
{
  g_autoptr(TslSampler) small = tsl_sampler_new_count (2000, 1, 0);
  g_autoptr(TslSampler) large = tsl_sampler_new_count (2000, 1, 0);
  g_autoptr(TslTimeGrid) grid = tsl_time_grid_new (2000);
  g_autoptr(TslSampler) timed = tsl_sampler_new_time (grid, 1);
  gsize timed_before;
  gint64 start;

  for (guint64 i = 0; i < 100000; i++)
    tsl_sampler_offer (small, i, 1.0);

  start = g_get_monotonic_time ();
  for (guint64 i = 0; i < 100000000; i++)
    tsl_sampler_offer (large, i, 1.0);
  g_test_message ("memory: 1e8 offers in %.2f s; peak %" G_GSIZE_FORMAT " bytes for 1e5 and %" G_GSIZE_FORMAT " for 1e8",
                  (g_get_monotonic_time () - start) / 1e6,
                  tsl_sampler_get_peak_bytes (small), tsl_sampler_get_peak_bytes (large));

  g_assert_cmpuint (tsl_sampler_get_events (large), ==, 100000000);
  g_assert_cmpuint (tsl_sampler_get_peak_bytes (small), ==, tsl_sampler_get_peak_bytes (large));
  /* The held array (2K + 1 samples) plus a small header: O(K), not O(N). */
  g_assert_cmpuint (tsl_sampler_get_peak_bytes (large), <=, 4001 * sizeof (TslSample) + 512);

  timed_before = tsl_sampler_get_peak_bytes (timed);
  for (guint64 i = 0; i < 1000000; i++)
    tsl_sampler_offer (timed, (gint64) ((i * 7919) % 1000000) * 1000, 1.0);
  g_assert_cmpuint (tsl_sampler_get_peak_bytes (timed), >, timed_before);
  g_assert_cmpuint (tsl_sampler_get_peak_bytes (timed), <=, 4001 * sizeof (TslSample) + 512);
}

/* Issue 16 D01: room is allocated as samples are kept, not 2K + 1 up front,
 * so a trace of many small tracks is small. */
static void
test_grows_on_demand (void)
{
  for (guint mode = 0; mode < 2; mode++)
    {
      g_autoptr(TslTimeGrid) grid = tsl_time_grid_new (2000);
      g_autoptr(TslSampler) sampler = mode == 0 ? tsl_sampler_new_count (2000, 1, 0)
                                                : tsl_sampler_new_time (grid, 1);
      gsize empty = tsl_sampler_get_peak_bytes (sampler);
      const TslSample *samples;
      guint n;

      /* A few events fit in the first slots. */
      g_assert_cmpuint (empty, <=, 9 * sizeof (TslSample) + 512);
      for (guint i = 0; i < 8; i++)
        tsl_sampler_offer (sampler, i * 1000, i);
      g_assert_cmpuint (tsl_sampler_get_peak_bytes (sampler), ==, empty);

      /* Many: up to 2K + 1 slots, with every event counted once. */
      for (guint i = 8; i < 100000; i++)
        tsl_sampler_offer (sampler, (gint64) i * 1000, i);
      g_assert_cmpuint (tsl_sampler_get_peak_bytes (sampler), >, 2001 * sizeof (TslSample));
      g_assert_cmpuint (tsl_sampler_get_peak_bytes (sampler), <=, 4001 * sizeof (TslSample) + 512);
      samples = tsl_sampler_peek_samples (sampler, &n);
      g_assert_cmpuint (n, >=, 2000);
      g_assert_cmpuint (n, <=, 4000);
      for (guint j = 1; j < n; j++)
        g_assert_cmpint (samples[j - 1].slice, <, samples[j].slice);
      g_assert_false (tsl_sampler_get_k_lowered (sampler));
    }
}

/* Past its budget a count-mode sampler lowers K to the room it has, and
 * from then on holds exactly what a sampler made with that K holds. */
static void
test_budget_count (void)
{
  for (guint64 seed = 1; seed <= 40; seed++)
    {
      /* Room for 9 + 8 + 16 … slots of 80 bytes: stops somewhere below 2K + 1. */
      g_autoptr(TslBudget) budget = tsl_budget_new (40 + seed * 100);
      g_autoptr(TslSampler) sampler = tsl_sampler_new_count (1000, seed, 0);
      g_autoptr(TslSampler) plain = NULL;
      guint64 n_events = 5000 + seed * 997;
      const TslSample *a, *b;
      guint n_a, n_b, k;

      tsl_sampler_set_budget (sampler, budget);
      for (guint64 i = 0; i < n_events; i++)
        tsl_sampler_offer (sampler, (gint64) i, (double) (i % 13));

      g_assert_true (tsl_sampler_get_k_lowered (sampler));
      k = tsl_sampler_get_k (sampler);
      g_assert_cmpuint (k, <, 1000);
      g_assert_cmpuint (tsl_budget_get_used (budget), <=, tsl_budget_get_limit (budget));
      g_assert_cmpuint (tsl_sampler_get_peak_bytes (sampler), <=,
                        (2 * k + 1) * sizeof (TslSample) + 512);

      plain = tsl_sampler_new_count (k, seed, 0);
      for (guint64 i = 0; i < n_events; i++)
        tsl_sampler_offer (plain, (gint64) i, (double) (i % 13));
      a = tsl_sampler_peek_samples (sampler, &n_a);
      b = tsl_sampler_peek_samples (plain, &n_b);
      g_assert_cmpuint (n_a, >=, k);
      g_assert_cmpuint (n_a, <=, 2 * k);
      assert_samples_equal (a, n_a, b, n_b);
    }

  /* Freeing a sampler gives its room back. */
  {
    g_autoptr(TslBudget) budget = tsl_budget_new (1 << 20);
    TslSampler *sampler = tsl_sampler_new_count (1000, 1, 0);

    tsl_sampler_set_budget (sampler, budget);
    for (guint i = 0; i < 10000; i++)
      tsl_sampler_offer (sampler, i, 1);
    g_assert_cmpuint (tsl_budget_get_used (budget), >, 0);
    tsl_sampler_free (sampler);
    g_assert_cmpuint (tsl_budget_get_used (budget), ==, 0);
  }
}

/* Time mode past its budget: the track goes above the grid's level, and
 * every slice still keeps its smallest-priority event and exact summary. */
static void
test_budget_time (void)
{
  for (guint64 seed = 1; seed <= 20; seed++)
    {
      const guint n_events = 20000;
      g_autoptr(TslBudget) budget = tsl_budget_new (800 + seed * 40);
      g_autoptr(TslTimeGrid) grid = tsl_time_grid_new (256);
      g_autoptr(TslSampler) sampler = tsl_sampler_new_time (grid, seed);
      g_autoptr(TslSampler) free_one = tsl_sampler_new_time (grid, seed);
      g_autofree gint64 *times = g_new (gint64, n_events);
      g_autofree double *values = g_new (double, n_events);
      TslRng rng;

      tsl_rng_init (&rng, seed, 0);
      for (guint i = 0; i < n_events; i++)
        {
          times[i] = G_GINT64_CONSTANT (1000000000) + (gint64) tsl_rng_bounded (&rng, 1000000000);
          values[i] = (double) tsl_rng_bounded (&rng, 100);
        }

      tsl_sampler_set_budget (sampler, budget);
      for (guint i = 0; i < n_events; i++)
        {
          tsl_sampler_offer (sampler, times[i], values[i]);
          tsl_sampler_offer (free_one, times[i], values[i]);
        }

      g_assert_true (tsl_sampler_get_k_lowered (sampler));
      g_assert_false (tsl_sampler_get_k_lowered (free_one));
      g_assert_cmpint (tsl_sampler_get_slice_size (sampler), >, tsl_sampler_get_slice_size (free_one));
      g_assert_cmpuint (tsl_budget_get_used (budget), <=, tsl_budget_get_limit (budget));
      check_time_track (sampler, grid, seed, times, values, n_events);
      check_time_track (free_one, grid, seed, times, values, n_events);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/sampler/chi-square-helper", test_chi_square_helper);
  g_test_add_func ("/sampler/seed-table", test_seed_table);
  g_test_add_func ("/sampler/invariants", test_invariants);
  g_test_add_func ("/sampler/uniformity", test_uniformity);
  g_test_add_func ("/sampler/evenness", test_evenness);
  g_test_add_func ("/sampler/summaries", test_summaries);
  g_test_add_func ("/sampler/merge", test_merge);
  g_test_add_func ("/sampler/merge-errors", test_merge_errors);
  g_test_add_func ("/sampler/time/shuffled", test_time_shuffled);
  g_test_add_func ("/sampler/time/uniformity", test_time_uniformity);
  g_test_add_func ("/sampler/deterministic", test_deterministic);
  g_test_add_func ("/sampler/labels", test_labels);
  g_test_add_func ("/sampler/memory", test_memory);
  g_test_add_func ("/sampler/grows-on-demand", test_grows_on_demand);
  g_test_add_func ("/sampler/budget-count", test_budget_count);
  g_test_add_func ("/sampler/budget-time", test_budget_time);

  return g_test_run ();
}
