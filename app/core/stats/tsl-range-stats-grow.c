/* tsl-range-stats-grow.c: range statistics whose blocks grow with the span
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * For one read of a whole file whose span is not known yet: blocks 2^shift
 * ns wide, aligned on multiples of that width; an event outside them
 * doubles the width and folds neighbours pairwise, so the blocks at the end
 * depend only on the span, whatever order the events came in.
 */
#define G_LOG_DOMAIN "tsl-compare"

#include "config.h"

#include <string.h>

#include "tsl-range-stats-private.h"
#include "tsl-time-math.h"

/* Adds each block of `a` into block map[j] (map[j] ≤ n_slots − 1). */
static void
fold (double      *a,
      guint        n,
      const guint *map)
{
  double out[TSL_RANGE_MAX_BLOCKS] = { 0 };

  for (guint j = 0; j < n; j++)
    out[map[j]] += a[j];
  memcpy (a, out, n * sizeof *a);
}

/* Moves every series' blocks: old block j into block map[j]. */
static void
fold_all (TslRangeStats *self,
          const guint   *map)
{
  const guint n = self->n_slots;

  for (guint i = 0; i < self->tracks->len; i++)
    {
      TslRangeTrack *t = g_ptr_array_index (self->tracks, i);
      double *arrays[] = { t != NULL ? t->block_n : NULL, NULL, NULL, NULL, NULL, NULL, NULL };

      if (t == NULL)
        continue;
      arrays[1] = t->block_sum;
      arrays[2] = t->block_weighted;
      arrays[3] = t->block_held;
      arrays[4] = t->block_rise;
      arrays[5] = t->block_rise_ns;
      arrays[6] = t->block_points;
      for (guint k = 0; k < G_N_ELEMENTS (arrays); k++)
        fold (arrays[k], n, map);
      t->prev_block = map[t->prev_block];
      for (guint k = 0; k < t->funcs->len; k++)
        {
          TslRangeFunc *f = g_ptr_array_index (t->funcs, k);

          fold (f->block_calls, n, map);
          fold (f->block_total, n, map);
          fold (f->block_duration, n, map);
          fold (f->block_samples, n, map);
          if (f->cpu != NULL)
            {
              fold (f->cpu->block_calls, n, map);
              fold (f->cpu->block_cpu, n, map);
              fold (f->cpu->block_total, n, map);
            }
        }
      for (guint k = 0; t->paths != NULL && k < t->paths->len; k++)
        {
          TslRangePath *p = g_ptr_array_index (t->paths, k);

          fold (p->block_weight, n, map);
          fold (p->block_time, n, map);
          fold (p->block_cpu, n, map);
        }
    }
}

/* The narrowest width (as a shift) from `shift` on whose aligned blocks
 * hold [lo, hi] within TSL_RANGE_MAX_BLOCKS. */
guint
_tsl_range_stats_fitting_shift (gint64 lo,
                                gint64 hi,
                                guint  shift)
{
  while ((guint64) (hi >> shift) - (guint64) (lo >> shift) >= TSL_RANGE_MAX_BLOCKS)
    shift++;
  return shift;
}

/* Re-cuts the blocks at 2^shift ns from the base-th on: each old block
 * lies inside one new block (the width never narrows, the base never
 * passes an event), so folding loses nothing. */
static void
recut (TslRangeStats *self,
       guint          shift,
       gint64         base)
{
  guint map[TSL_RANGE_MAX_BLOCKS];
  /* Old blocks past what an event can reach are empty: not placed, so
   * that their index does not overflow. */
  guint64 room = (guint64) (G_MAXINT64 >> self->shift) - (guint64) self->base;

  for (guint j = 0; j < self->n_slots; j++)
    {
      guint64 k;

      if (j > room)
        {
          map[j] = 0;
          continue;
        }
      k = (guint64) ((self->base + (gint64) j) >> (shift - self->shift)) - (guint64) base;
      map[j] = k < self->n_slots ? (guint) k : 0;
    }
  fold_all (self, map);
  self->shift = shift;
  self->base = base;
}

/* An event outside the blocks (seen_lo and seen_hi hold it already): the
 * width doubles until every event seen fits, and the blocks move to leave
 * the most room on the side it came from. */
guint
_tsl_range_stats_regrow (TslRangeStats *self,
                         gint64         t)
{
  guint shift = self->shift;
  gint64 hi_block, base;

  if (!self->seen)
    {
      self->seen = TRUE;
      self->base = t >> self->shift;
      return 0;
    }
  shift = _tsl_range_stats_fitting_shift (self->seen_lo, self->seen_hi, shift);
  hi_block = self->seen_hi >> shift;
  if ((t >> self->shift) < self->base)
    {
      /* Before the blocks: the latest event in the last block. */
      base = hi_block < G_MININT64 + (TSL_RANGE_MAX_BLOCKS - 1) ? G_MININT64 : hi_block - (TSL_RANGE_MAX_BLOCKS - 1);
      base = MAX (base, G_MININT64 >> shift);
    }
  else
    base = self->seen_lo >> shift;
  recut (self, shift, base);
  return (guint) ((t >> shift) - base);
}

/* 2^shift × block (saturating): where a block starts. */
static gint64
block_time (gint64 block,
            guint  shift)
{
  if (block > (G_MAXINT64 >> shift))
    return G_MAXINT64;
  return block * ((gint64) 1 << shift);
}

/* Growing blocks, finished: the ones the span [start, end] gives, then a
 * first or last block shorter than half a width merged into its neighbour
 * (a sliver would weigh as much as a whole block in the search). */
void
_tsl_range_stats_finish_growing (TslRangeStats *self,
                                 gint64         start,
                                 gint64         end)
{
  g_autofree gint64 *raw = NULL;
  guint map[TSL_RANGE_MAX_BLOCKS];
  guint shift, n, first, last;
  gint64 base, half;

  if (!self->seen)
    {
      self->seen = TRUE;
      self->base = start >> self->shift;
    }
  start = MIN (start, self->seen_lo);
  end = MAX (end, self->seen_hi);
  shift = _tsl_range_stats_fitting_shift (start, end, self->shift);
  base = start >> shift;
  recut (self, shift, base);
  n = (guint) ((end >> shift) - base) + 1;
  half = shift > 0 ? (gint64) 1 << (shift - 1) : 0;

  raw = g_new (gint64, n + 1);
  raw[0] = start;
  for (guint i = 1; i < n; i++)
    raw[i] = block_time (base + i, shift);
  raw[n] = MAX (self->data_end, raw[n - 1]);
  first = n >= 2 && tsl_time_sub (raw[1], raw[0]) < half;
  last = n - first >= 2 && tsl_time_sub (raw[n], raw[n - 1]) < half;
  if (first || last)
    {
      for (guint j = 0; j < self->n_slots; j++)
        map[j] = j > first ? j - first : 0;
      if (last)
        map[n - 1] = n - 2 - first;
      fold_all (self, map);
    }
  self->n_blocks = n - first - last;
  self->edges = g_new (gint64, self->n_blocks + 1);
  self->edges[0] = start;
  for (guint i = 1; i < self->n_blocks; i++)
    self->edges[i] = raw[i + first];
  self->edges[self->n_blocks] = raw[n];
}
