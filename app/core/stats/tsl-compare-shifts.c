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

#include "tsl-block-test.h"
#include "tsl-compare-private.h"
#include "tsl-time-math.h"

/* Fewer shifted comparisons than this fit in the trace: no check (an F
 * test on fewer mean squares has little power; the within-range rule of
 * tsl_block_memory_excess() still holds). Up to SHIFTS_MAX are read: a
 * bound on the cost, each shift two range reads. */
#define SHIFTS_MIN   8
#define SHIFTS_MAX   16
#define SHIFTS_ALPHA 0.01

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

/* One shifted comparison: each row's change into acc. */
static gboolean
add_shift (TslCompareTable *table,
           TslTrace        *trace,
           const char      *path,
           gint64           start,
           gint64           end,
           const gint64    *lo,
           const gint64    *hi,
           GHashTable      *index,
           Acc             *acc,
           GCancellable    *cancellable)
{
  g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func ((GDestroyNotify) tsl_compare_row_free);
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GHashTable) none = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GError) error = NULL;
  const char *paths[2] = { path, path };
  const gint64 starts[2] = { start, start }, ends_in[2] = { end, end };
  GHashTable *keys[2] = { none, none };
  TslCompareTable scratch = { table->request, table->range_key, { 0, 0 }, rows, cancellable, &error };
  TslRangeRead reads[2] = { { 0 } };
  gint64 data_end[2], ends[2];
  gboolean ok;

  _tsl_compare_read_ranges_once (table->request, trace, paths, starts, ends_in, lo, hi, reads, cancellable);
  ok = reads[0].stats != NULL && reads[1].stats != NULL && reads[0].error == NULL && reads[1].error == NULL;
  if (ok)
    {
      data_end[0] = data_end[1] = MAX (tsl_range_stats_get_data_end (reads[0].stats),
                                       tsl_range_stats_get_data_end (reads[1].stats));
      _tsl_compare_measure_ranges (table->request, starts, lo, hi, data_end, ends, scratch.seconds, notes);
      ok = _tsl_compare_exact_rows (&scratch, reads, ends, keys, FALSE);
    }
  for (guint s = 0; s < 2; s++)
    {
      g_clear_error (&reads[s].error);
      g_clear_pointer (&reads[s].stats, tsl_range_stats_unref);
      g_clear_pointer (&reads[s].snapshot, tsl_snapshot_unref);
    }
  if (!ok)
    return FALSE;

  for (guint i = 0; i < rows->len; i++)
    {
      const TslCompareRow *row = g_ptr_array_index (rows, i);
      g_autofree char *key = row_key (row);
      gpointer at;

      if (isfinite (row->change) && g_hash_table_lookup_extended (index, key, NULL, &at))
        {
          Acc *a = &acc[GPOINTER_TO_UINT (at)];

          a->sum_sq += row->change * row->change;
          a->m++;
        }
    }
  return TRUE;
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
  for (guint k = 0; k < n_shifts; k++)
    {
      const gint64 slo[2] = { lo[0] + shifts[k], lo[1] + shifts[k] };
      const gint64 shi[2] = { hi[0] + shifts[k], hi[1] + shifts[k] };

      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return FALSE;
      /* A shift that cannot be read (the file changed) tells nothing: skip it. */
      add_shift (table, trace, path, start, end, slo, shi, index, acc, cancellable);
    }

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
