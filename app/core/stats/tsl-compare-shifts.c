/* tsl-compare-shifts.c: the same comparison made elsewhere in the trace
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A block test weighs the difference of A and B against how much the
 * ranges vary inside. Dependence slower than the ranges (long memory, a
 * slow drift) moves A against B without showing inside either, and the
 * test runs hot; inside two ranges nothing tells those rows apart from
 * i.i.d. ones (docs/statistics.md). The trace around them can: the
 * comparison is made again with A and B shifted together by whole
 * multiples of their span, as many shifts as fit in the trace (the nearest
 * first, up to SHIFTS_MAX), each an exact re-read. On a stationary series
 * every shifted change has the variance the row's change has, whatever the
 * dependence, so their mean square estimates it on m degrees of freedom.
 * A block-tested row whose variance it contradicts (F = mean square over
 * the row's squared standard error, P(F) < SHIFTS_ALPHA on m and the
 * row's degrees of freedom) is too dependent to test at this length; the
 * others are tested on the two variances pooled. Rows are matched by
 * series and statistic; the rows' own change is relative (B / A − 1), and
 * so are the shifted ones.
 */
#define G_LOG_DOMAIN "tsl-compare"

#include "config.h"

#include <math.h>
#include <stdlib.h>

#include "tsl-block-test.h"
#include "tsl-compare-private.h"
#include "tsl-time-math.h"

/* Fewer shifted comparisons than this fit in the trace: no check (an F
 * test on fewer mean squares has little power; the within-range rule of
 * tsl_block_memory_excess() still holds). Up to SHIFTS_MAX are read: a
 * bound on the cost, each shift two ranges. */
#define SHIFTS_MIN   8
#define SHIFTS_MAX   16
#define SHIFTS_ALPHA 0.01
/* Shifts read together: neighbours on one side of A and B (k = 1 … 4,
 * 5 … 8, -1 … -4, …) lie side by side, so one read takes their chunks
 * once, where a read each took the chunks around its range again (an
 * unsorted file's chunks reach far past a small range: a 1 % range reads
 * ~10 % of the file). More at once would hold more ranges' blocks in
 * memory. */
#define SHIFTS_PER_READ 4

typedef struct {
  double sum_sq;   /* Σ shifted change² */
  guint  m;        /* shifts where the row had a change */
} Acc;

static char *
row_key (const TslCompareRow *row)
{
  return g_strconcat (row->stat, "\n", row->series, NULL);
}

/* Shifts k × span (k = 1, −1, 2, −2, …) that keep both ranges within
 * [0, length]; returns how many went to `out`. */
static guint
pick_shifts (const gint64 *lo,
             const gint64 *hi,
             gint64        length,
             gint64       *out)
{
  gint64 g0 = MIN (lo[0], lo[1]), g1 = MAX (hi[0], hi[1]), span;
  guint n = 0;

  /* Times near ±2^63 are allowed: a shift that would overflow does not fit. */
  if (__builtin_sub_overflow (g1, g0, &span) || span <= 0)
    return 0;
  for (gint64 k = 1; n < SHIFTS_MAX; k++)
    {
      gint64 d, right, left;
      gboolean right_fits, left_fits;

      if (__builtin_mul_overflow (k, span, &d))
        break;
      right_fits = !__builtin_add_overflow (g1, d, &right) && right <= length;
      left_fits = !__builtin_sub_overflow (g0, d, &left) && left >= 0;
      /* Once neither side fits, no farther shift does. */
      if (!right_fits && !left_fits)
        break;
      if (right_fits)
        out[n++] = d;
      if (left_fits && n < SHIFTS_MAX)
        out[n++] = -d;
    }
  return n;
}

/* One shifted comparison, from its two ranges' stats: each row's change
 * into acc. */
static gboolean
add_shift (TslCompareTable *table,
           const gint64    *starts,
           const gint64    *lo,
           const gint64    *hi,
           TslRangeStats   *a,
           TslRangeStats   *b,
           GHashTable      *index,
           Acc             *acc)
{
  g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func ((GDestroyNotify) tsl_compare_row_free);
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GHashTable) none = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GError) error = NULL;
  GHashTable *keys[2] = { none, none };
  TslCompareTable scratch = { table->request, table->range_key, { 0, 0 }, rows, table->cancellable, &error };
  TslRangeRead reads[2] = { { 0 } };
  gint64 data_end[2], ends[2];

  reads[0].stats = a;
  reads[1].stats = b;
  data_end[0] = data_end[1] = MAX (tsl_range_stats_get_data_end (a), tsl_range_stats_get_data_end (b));
  _tsl_compare_measure_ranges (table->request, starts, lo, hi, data_end, ends, scratch.seconds, notes);
  if (!_tsl_compare_exact_rows (&scratch, reads, ends, keys, FALSE))
    return FALSE;

  for (guint i = 0; i < rows->len; i++)
    {
      const TslCompareRow *row = g_ptr_array_index (rows, i);
      g_autofree char *key = row_key (row);
      gpointer at;

      if (isfinite (row->change) && g_hash_table_lookup_extended (index, key, NULL, &at))
        {
          Acc *acc_row = &acc[GPOINTER_TO_UINT (at)];

          acc_row->sum_sq += row->change * row->change;
          acc_row->m++;
        }
    }
  return TRUE;
}

static int
compare_shifts (const void *a,
                const void *b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return (x > y) - (x < y);
}

/* n shifts, their ranges read together: both sides in one read, or a
 * read a side when A and B overlap (a group's ranges must not). */
static void
add_shifts (TslCompareTable *table,
            TslTrace        *trace,
            const char      *path,
            gint64           start,
            gint64           end,
            const gint64    *lo,
            const gint64    *hi,
            const gint64    *shifts,
            guint            n,
            GHashTable      *index,
            Acc             *acc)
{
  g_autoptr(TslRangeStatsGroup) group_a = NULL;
  g_autoptr(TslRangeStatsGroup) group_b = NULL;
  gint64 slo[2 * SHIFTS_PER_READ], shi[2 * SHIFTS_PER_READ];
  const gint64 starts[2] = { start, start };
  gboolean overlap = lo[0] < hi[1] && lo[1] < hi[0];

  /* Side s of shift k at s × n + k. */
  for (guint s = 0; s < 2; s++)
    for (guint k = 0; k < n; k++)
      {
        slo[s * n + k] = lo[s] + shifts[k];
        shi[s * n + k] = hi[s] + shifts[k];
      }
  /* Shifts that cannot be read (the file changed) tell nothing: skipped. */
  if (!overlap)
    group_a = _tsl_compare_read_group (table->request, trace, path, start, end, 2 * n, slo, shi,
                                       table->cancellable, NULL);
  else
    {
      group_a = _tsl_compare_read_group (table->request, trace, path, start, end, n, slo, shi,
                                         table->cancellable, NULL);
      group_b = _tsl_compare_read_group (table->request, trace, path, start, end, n, &slo[n], &shi[n],
                                         table->cancellable, NULL);
    }
  if (group_a == NULL || (overlap && group_b == NULL))
    return;
  for (guint k = 0; k < n; k++)
    {
      const gint64 klo[2] = { slo[k], slo[n + k] }, khi[2] = { shi[k], shi[n + k] };
      TslRangeStats *a = tsl_range_stats_group_get (group_a, k);
      TslRangeStats *b = overlap ? tsl_range_stats_group_get (group_b, k)
                                 : tsl_range_stats_group_get (group_a, n + k);

      add_shift (table, starts, klo, khi, a, b, index, acc);
    }
}

gboolean
_tsl_compare_check_shifts (TslCompareTable *table,
                           TslTrace        *trace,
                           const char      *path,
                           gint64           start,
                           gint64           end,
                           const gint64    *lo,
                           const gint64    *hi,
                           GCancellable    *cancellable,
                           GError         **error)
{
  g_autoptr(GHashTable) index = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autofree Acc *acc = NULL;
  gint64 shifts[SHIFTS_MAX];
  guint n_shifts, tested = 0;

  n_shifts = pick_shifts (lo, hi, tsl_time_sub (end, start), shifts);
  if (n_shifts < SHIFTS_MIN)
    return TRUE;
  for (guint i = 0; i < table->rows->len; i++)
    {
      const TslCompareRow *row = g_ptr_array_index (table->rows, i);

      if (row->test == TSL_COMPARE_TEST_BLOCKS_T && row->t_se > 0 && row->t_df > 0)
        {
          g_hash_table_insert (index, row_key (row), GUINT_TO_POINTER (i));
          tested++;
        }
    }
  if (tested == 0)
    return TRUE;

  acc = g_new0 (Acc, table->rows->len);
  /* In time order, a read for each run of neighbours on one side of A
   * and B: a read's time filter spans its ranges and what lies between. */
  qsort (shifts, n_shifts, sizeof (gint64), compare_shifts);
  for (guint k = 0, n; k < n_shifts; k += n)
    {
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return FALSE;
      for (n = 1; n < SHIFTS_PER_READ && k + n < n_shifts && (shifts[k + n] > 0) == (shifts[k] > 0); n++)
        ;
      add_shifts (table, trace, path, start, end, lo, hi, &shifts[k], n, index, acc);
    }
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return FALSE;

  for (guint i = 0; i < table->rows->len; i++)
    {
      TslCompareRow *row = g_ptr_array_index (table->rows, i);
      double shifted, se2, df, pooled, half;

      if (acc[i].m < SHIFTS_MIN || row->test != TSL_COMPARE_TEST_BLOCKS_T)
        continue;
      shifted = acc[i].sum_sq / acc[i].m;
      se2 = row->t_se * row->t_se;
      if (tsl_f_sf (shifted / se2, acc[i].m, row->t_df) < SHIFTS_ALPHA)
        {
          row->test = TSL_COMPARE_TEST_TOO_DEPENDENT;
          row->p_value = row->ci_low = row->ci_high = NAN;
          row->few_blocks = FALSE;
          row->t_df = row->t_se = 0;
          continue;
        }
      /* Not contradicted: both estimate one variance, pooled on their
       * degrees of freedom (long memory too mild to refute the blocks
       * still widens it). */
      df = row->t_df + acc[i].m;
      pooled = (row->t_df * se2 + acc[i].m * shifted) / df;
      half = tsl_t_isf ((1 - table->request->confidence) / 2, df) * sqrt (pooled);
      row->p_value = MIN (1, 2 * tsl_t_sf (fabs (row->change) / sqrt (pooled), df));
      row->ci_low = row->change - half;
      row->ci_high = row->change + half;
      row->t_df = df;
      row->t_se = sqrt (pooled);
    }
  return TRUE;
}
