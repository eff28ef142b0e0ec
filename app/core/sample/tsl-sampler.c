/* tsl-sampler.c: timesliced reservoir sampling with permanent random numbers
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every event gets a priority u = tsl_mix64 (seed, key), key being its index
 * (count mode) or its time (time mode). A slice is a dyadic block of keys
 * [b·T, (b+1)·T) and keeps the event of smallest u, so the kept event is a
 * function of the block's contents alone: halving the number of slices
 * (T doubles) keeps the smaller u of each pair, and two samplers over
 * consecutive parts merge into exactly what one pass would hold. Each event
 * of a block wins with probability 1/(events in block), which is the fairness
 * merges need (a side wins in proportion to its events).
 *
 * Summaries: count includes events whose value is NAN ("no value"); sum, min
 * and max skip them, and min/max stay NAN while a slice has no value. None
 * of them depends on the order of additions, so a merge is bit-identical to
 * one pass: min prefers -0 and max +0 when both zeros are seen, and the sum
 * is held exactly as two doubles (sum, sum_lo: the correctly rounded exact
 * sum and the rest, Knuth's TwoSum), which is a function of the values
 * alone. A slice whose exact sum needs more than two doubles (values ~2^100
 * apart, infinities) marks sum_lo NAN and keeps a plain running sum, which
 * is order-dependent again.
 *
 * Time mode slices are absolute: slice s at level L covers
 * [s·2^L, (s+1)·2^L) ns, so grids of two parts of a stream line up at any
 * width and merge (tsl_time_grid_merge(), tsl_sampler_merge()). The grid
 * is in tsl-time-grid.c, a sampler's state for state files in
 * tsl-sampler-state.c.
 */
#define G_LOG_DOMAIN "tsl-sampler"

#include <math.h>
#include <string.h>

#include <gio/gio.h>

#include "tsl-budget.h"
#include "tsl-rng.h"
#include "tsl-sampler-private.h"

TslSampler *
_tsl_sampler_new (TslSamplerMode mode,
             guint          k,
             guint64        seed)
{
  TslSampler *self = g_new0 (TslSampler, 1);

  self->mode = mode;
  self->k = self->k_asked = k;
  self->max_held = 2 * k;
  self->cap = MIN (self->max_held + 1, FIRST_SLOTS);
  self->seed = seed;
  self->seed_hash = tsl_mix64_seed (seed);
  self->held = g_new0 (TslSample, self->cap);
  return self;
}

/**
 * tsl_sampler_new_count:
 * @first_index: index of this sampler's first event in the whole stream; 0
 *   unless it samples a later part that will be merged after another sampler
 *
 * Returns: (transfer full): a count-mode sampler keeping K..2K slices.
 */
TslSampler *
tsl_sampler_new_count (guint   k,
                       guint64 seed,
                       guint64 first_index)
{
  TslSampler *self;

  g_return_val_if_fail (k > 0 && k <= G_MAXINT / 4, NULL);

  self = _tsl_sampler_new (TSL_SAMPLER_COUNT, k, seed);
  self->first_index = first_index;
  return self;
}

/**
 * tsl_sampler_new_time:
 * @grid: the trace's shared grid; the sampler takes a reference
 *
 * Returns: (transfer full): a time-mode sampler on @grid.
 */
TslSampler *
tsl_sampler_new_time (TslTimeGrid *grid,
                      guint64      seed)
{
  TslSampler *self;

  g_return_val_if_fail (grid != NULL, NULL);

  self = _tsl_sampler_new (TSL_SAMPLER_TIME, grid->k, seed);
  self->grid = tsl_time_grid_ref (grid);
  return self;
}

void
tsl_sampler_free (TslSampler *self)
{
  if (self == NULL)
    return;

  g_clear_pointer (&self->grid, tsl_time_grid_unref);
  if (self->budget != NULL)
    {
      tsl_budget_give (self->budget, self->taken);
      tsl_budget_unref (self->budget);
    }
  g_free (self->held);
  g_free (self);
}

/**
 * tsl_sampler_set_budget:
 * @budget: (nullable): where room beyond the first few slots comes from
 *
 * Without a budget the sampler grows to 2K + 1 slots as needed. With one, a
 * growth the budget refuses lowers K to what the sampler holds room for
 * (so it keeps K'..2K' samples from then on; see tsl_sampler_get_k()).
 * Call before the first offer.
 */
void
tsl_sampler_set_budget (TslSampler *self,
                        TslBudget  *budget)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (self->taken == 0);

  if (budget != NULL)
    tsl_budget_ref (budget);
  g_clear_pointer (&self->budget, tsl_budget_unref);
  self->budget = budget;
}

TslSamplerMode
tsl_sampler_get_mode (const TslSampler *self)
{
  g_return_val_if_fail (self != NULL, TSL_SAMPLER_COUNT);

  return self->mode;
}

/* K as asked at construction, unless the budget lowered it. */
guint
tsl_sampler_get_k (const TslSampler *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->k;
}

gboolean
tsl_sampler_get_k_lowered (const TslSampler *self)
{
  g_return_val_if_fail (self != NULL, FALSE);

  return self->k < self->k_asked;
}

guint64
tsl_sampler_get_seed (const TslSampler *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->seed;
}

guint64
tsl_sampler_get_first_index (const TslSampler *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->first_index;
}

/* Knuth's TwoSum: a + b == *s + *e exactly (round to nearest; no
 * -ffast-math, no x87 excess precision). */
static inline void
two_sum (double  a,
         double  b,
         double *s,
         double *e)
{
  double x = a + b;
  double bb = x - a;

  *e = (a - (x - bb)) + (b - bb);
  *s = x;
}

/* Adds `v` exactly to the pair (hi, lo) = (fl(x), x - fl(x)), keeping that
 * canonical form (lo +0 when x is a double); FALSE when the exact sum does
 * not fit two doubles. */
static gboolean
exact_add (double *hi,
           double *lo,
           double  v)
{
  double s, e, t, f, s0;

  two_sum (*hi, v, &s, &e);
  s0 = s;
  two_sum (e, *lo, &t, &f);
  /* x = s + t + f; fold f in while it is not 0. */
  for (guint round = 0; round < 3; round++)
    {
      double h, l;

      two_sum (s, t, &h, &l);
      if (f == 0)
        {
          /* An exact 0 takes IEEE's sign of hi + v (-0 only if both were):
           * then lo was 0 and hi + v is exact. */
          *hi = h != 0 ? h : s0;
          *lo = l + 0.0;   /* -0 → +0 */
          return TRUE;
        }
      s = h;
      two_sum (l, f, &t, &f);
    }
  return FALSE;
}

/* The sum x + e (x = fl(sum + value), e its exact error) with the old
 * remainder lo still to add: x + e + lo, renormalised, else marked inexact. */
static G_GNUC_NO_INLINE void
summary_add_sum_slow (TslSummary *s,
                      double      value,
                      double      x,
                      double      e)
{
  double hi = s->sum, lo = s->sum_lo, t, f;

  if (G_LIKELY (!isnan (lo) && !isnan (e)))
    {
      two_sum (e, lo, &t, &f);
      if (G_LIKELY (f == 0))
        {
          double h, l;

          /* FastTwoSum when |x| >= |t| (the usual case), TwoSum else. */
          if (fabs (x) >= fabs (t))
            {
              h = x + t;
              l = t - (h - x);
            }
          else
            two_sum (x, t, &h, &l);
          s->sum = h != 0 ? h : x;
          s->sum_lo = l + 0.0;
          return;
        }
      if (exact_add (&hi, &lo, value))
        {
          s->sum = hi;
          s->sum_lo = lo;
          return;
        }
    }
  s->sum += value;
  s->sum_lo = NAN;
}

/* min prefers -0 and max +0 when both zeros come, so the result does not
 * depend on which came first. */
static inline void
summary_add (TslSummary *s,
             double      value)
{
  double x, bb, e;

  s->count++;
  if (G_UNLIKELY (isnan (value)))
    return;

  /* One TwoSum: with no remainder before, (x, e) is already the exact sum
   * in canonical form (x = fl(sum + value), |e| <= ulp(x) / 2). */
  x = s->sum + value;
  bb = x - s->sum;
  e = (s->sum - (x - bb)) + (value - bb);
  if (G_LIKELY (s->sum_lo == 0 && e == e))
    {
      s->sum = x;
      s->sum_lo = e + 0.0;
    }
  else
    summary_add_sum_slow (s, value, x, e);

  /* Negated tests so that a NAN min/max (no value yet) is replaced. */
  if (!(value > s->min) && (!(value >= s->min) || signbit (value)))
    s->min = value;
  if (!(value < s->max) && (!(value <= s->max) || !signbit (value)))
    s->max = value;
}

static G_GNUC_NO_INLINE void
summary_merge_sum_slow (TslSummary       *a,
                        const TslSummary *b)
{
  double hi = a->sum, lo = a->sum_lo;

  if (!isnan (lo) && !isnan (b->sum_lo) &&
      exact_add (&hi, &lo, b->sum) && (b->sum_lo == 0 || exact_add (&hi, &lo, b->sum_lo)))
    {
      a->sum = hi;
      a->sum_lo = lo;
    }
  else
    {
      a->sum += b->sum;
      a->sum_lo = NAN;
    }
}

static inline void
summary_merge (TslSummary       *a,
               const TslSummary *b)
{
  a->count += b->count;
  /* Two sums with no remainder (the usual case): one TwoSum is the exact
   * sum in canonical form, as in summary_add(). */
  if (G_LIKELY (a->sum_lo == 0 && b->sum_lo == 0))
    {
      double x = a->sum + b->sum;
      double bb = x - a->sum;
      double e = (a->sum - (x - bb)) + (b->sum - bb);

      if (G_LIKELY (e == e))
        {
          a->sum = x;
          a->sum_lo = e + 0.0;
        }
      else
        summary_merge_sum_slow (a, b);
    }
  else
    summary_merge_sum_slow (a, b);
  if (!isnan (b->min) && (!(b->min >= a->min) || (b->min == a->min && signbit (b->min))))
    a->min = b->min;
  if (!isnan (b->max) && (!(b->max <= a->max) || (b->max == a->max && !signbit (b->max))))
    a->max = b->max;
}

static inline void
sample_init (TslSample *s,
             gint64     slice,
             guint64    index,
             gint64     time_ns,
             double     value,
             guint64    priority)
{
  s->slice = slice;
  s->index = index;
  s->time_ns = time_ns;
  s->value = value;
  s->label = 0;
  s->priority = priority;
  s->summary.count = 1;
  if (G_LIKELY (isfinite (value)))
    {
      s->summary.sum = value;
      s->summary.sum_lo = 0.0;
    }
  else
    {
      /* -0 is the identity of addition: an empty sum stays what its values
       * add to. An infinity's sum is not exact. */
      s->summary.sum = isnan (value) ? -0.0 : value;
      s->summary.sum_lo = isnan (value) ? 0.0 : NAN;
    }
  s->summary.min = value;
  s->summary.max = value;
}

/* Folds block b (the later one) into a: the smaller (priority, index) wins. */
static inline void
sample_combine (TslSample       *a,
                const TslSample *b)
{
  if (b->priority < a->priority ||
      (b->priority == a->priority && b->index < a->index))
    {
      a->index = b->index;
      a->time_ns = b->time_ns;
      a->value = b->value;
      a->label = b->label;
      a->priority = b->priority;
    }

  summary_merge (&a->summary, &b->summary);
}

/* Doubles T: neighbouring blocks 2j and 2j+1 become block j. */
static void
coarsen (TslSampler *self)
{
  guint out = 0;

  self->level++;
  /* Blocks are sorted and distinct, so only a block and the next one can
   * share a half. */
  for (guint j = 0; j < self->n_held; out++)
    {
      gint64 slice = floor_half (self->held[j].slice);

      if (out != j)
        self->held[out] = self->held[j];
      self->held[out].slice = slice;
      j++;
      if (j < self->n_held && floor_half (self->held[j].slice) == slice)
        sample_combine (&self->held[out], &self->held[j++]);
    }

  self->n_held = out;
  self->last = NULL;
  self->hint = 0;
}

/* Grows the room (doubling it, up to 2K + 1 slots), or when the budget
 * refuses, lowers K to the room there is: K' = (cap - 1) / 2. Count mode
 * calls it before the append that would fill the last slot, so from then on
 * it holds exactly what a sampler made with K' would (blocks are dyadic).
 * Time mode calls it when every slot is taken: the sampler goes one level
 * above the grid's. */
static G_GNUC_NO_INLINE void
make_room (TslSampler *self)
{
  guint want = MIN (2 * (self->cap - 1) + 1, self->max_held + 1);
  gsize extra = (gsize) (want - self->cap) * sizeof (TslSample);

  if (want > self->cap &&
      (self->budget == NULL || tsl_budget_try_take (self->budget, extra)))
    {
      self->held = g_renew (TslSample, self->held, want);
      self->taken += self->budget != NULL ? extra : 0;
      self->cap = want;
      self->last = NULL;
      return;
    }

  self->max_held = self->cap - 1;
  self->k = self->max_held / 2;
  if (self->mode == TSL_SAMPLER_TIME)
    {
      self->shift++;
      coarsen (self);
    }
}

static void
update_cur_end (TslSampler *self)
{
  if (self->n_held == 0)
    self->cur_end = 0;
  else
    self->cur_end = ((guint64) self->held[self->n_held - 1].slice + 1) << self->level;
}

/* Counts an event into an existing block; it becomes the kept one if its
 * priority is smaller (a later ordinal loses a tie, so equal times in time
 * mode keep the first arrival). */
static inline gboolean
block_add (TslSampler *self,
           TslSample  *block,
           guint64     ordinal,
           gint64      time_ns,
           double      value,
           guint64     priority)
{
  summary_add (&block->summary, value);

  if (priority < block->priority)
    {
      block->priority = priority;
      block->index = ordinal;
      block->time_ns = time_ns;
      block->value = value;
      block->label = 0;
      self->last = block;
      return TRUE;
    }

  self->last = NULL;
  return FALSE;
}

static G_GNUC_NO_INLINE gboolean
count_start_block (TslSampler *self,
                   guint64     index,
                   gint64      time_ns,
                   double      value,
                   guint64     priority)
{
  TslSample *cur;

  if (self->n_held + 1 == self->cap && self->cap <= self->max_held)
    make_room (self);

  sample_init (&self->held[self->n_held++], (gint64) (index >> self->level),
               index, time_ns, value, priority);
  if (self->n_held > self->max_held)
    coarsen (self);
  update_cur_end (self);

  cur = &self->held[self->n_held - 1];
  self->last = cur->index == index ? cur : NULL;
  return self->last != NULL;
}

static void
time_sync_level (TslSampler *self)
{
  while (self->level < self->grid->level + self->shift)
    coarsen (self);
}

/* The grid widened, or the sampler sits above it (K lowered): catch up and
 * return the slice at the sampler's level. */
static G_GNUC_NO_INLINE gint64
time_sync_slice (TslSampler *self,
                 gint64      grid_slice)
{
  time_sync_level (self);
  return floor_shift (grid_slice, self->shift);
}

/* First block whose slice is >= `slice`. */
static guint
find_block (const TslSampler *self,
            gint64            slice)
{
  guint lo = 0, hi = self->n_held;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (self->held[mid].slice < slice)
        lo = mid + 1;
      else
        hi = mid;
    }

  return lo;
}

/* Out of line: the count mode's offer then saves no registers. */
static G_GNUC_NO_INLINE gboolean
offer_time (TslSampler *self,
            gint64      time_ns,
            double      value)
{
  guint64 ordinal = self->n_events++;
  guint64 priority = tsl_mix64_keyed (self->seed_hash, (guint64) time_ns);
  gint64 grid_slice = grid_note_time (self->grid, time_ns);
  gint64 slice = grid_slice;
  TslSample *block;
  guint pos;

  if (G_UNLIKELY (self->level != self->grid->level))
    slice = time_sync_slice (self, grid_slice);

again:
  pos = self->hint;
  if (G_LIKELY (pos < self->n_held && self->held[pos].slice == slice))
    {
      block = &self->held[pos];
    }
  else
    {
      /* Sorted input appends; out-of-order input searches. */
      if (self->n_held > 0 && self->held[self->n_held - 1].slice < slice)
        pos = self->n_held;
      else
        pos = find_block (self, slice);

      if (pos == self->n_held || self->held[pos].slice != slice)
        {
          /* The grid spans at most 2K + 1 slices, and so does every track on
           * it; the room may still have to grow, or K be lowered. */
          if (G_UNLIKELY (self->n_held == self->cap))
            {
              make_room (self);
              slice = floor_shift (grid_slice, self->shift);
              goto again;
            }
          memmove (&self->held[pos + 1], &self->held[pos],
                   (self->n_held - pos) * sizeof (TslSample));
          self->n_held++;
          self->hint = pos;
          sample_init (&self->held[pos], slice, ordinal, time_ns, value, priority);
          self->last = &self->held[pos];
          return TRUE;
        }

      block = &self->held[pos];
    }

  self->hint = pos;
  return block_add (self, block, ordinal, time_ns, value, priority);
}

static G_ALWAYS_INLINE inline gboolean
offer (TslSampler *self,
       gint64      time_ns,
       double      value)
{
  guint64 index;
  guint64 priority;

  if (G_UNLIKELY (self->mode != TSL_SAMPLER_COUNT))
    return offer_time (self, time_ns, value);

  index = self->first_index + self->n_events++;
  priority = tsl_mix64_keyed (self->seed_hash, index);

  if (G_UNLIKELY (index >= self->cur_end))
    {
      /* A new block with room to spare (no growth, no coarsening) is the
       * event alone, and its kept sample: inline, it costs a few stores. */
      if (G_LIKELY (self->n_held + 1 < self->cap && self->n_held < self->max_held))
        {
          TslSample *block = &self->held[self->n_held++];
          guint64 slice = index >> self->level;

          sample_init (block, (gint64) slice, index, time_ns, value, priority);
          self->cur_end = (slice + 1) << self->level;
          self->last = block;
          return TRUE;
        }
      return count_start_block (self, index, time_ns, value, priority);
    }

  return block_add (self, &self->held[self->n_held - 1], index, time_ns, value, priority);
}

gboolean
tsl_sampler_offer (TslSampler *self,
                   gint64      time_ns,
                   double      value)
{
  return offer (self, time_ns, value);
}

gboolean
tsl_sampler_offer_labelled (TslSampler *self,
                            gint64      time_ns,
                            double      value,
                            guint32     label)
{
  if (!offer (self, time_ns, value))
    return FALSE;
  self->last->label = label;
  return TRUE;
}

/* Attaches the caller's payload id to the sample the previous offer kept;
 * ignored when that offer returned FALSE. */
void
tsl_sampler_set_label (TslSampler *self,
                       guint32     label)
{
  g_return_if_fail (self != NULL);

  if (self->last != NULL)
    self->last->label = label;
}

void
tsl_sampler_remap_labels (TslSampler    *self,
                          TslLabelRemap  remap,
                          gpointer       data)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (remap != NULL);

  for (guint i = 0; i < self->n_held; i++)
    self->held[i].label = remap (self->held[i].label, data);
}

guint64
tsl_sampler_get_events (const TslSampler *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->n_events;
}

gint64
tsl_sampler_get_slice_size (const TslSampler *self)
{
  g_return_val_if_fail (self != NULL, 0);

  if (self->mode == TSL_SAMPLER_TIME)
    return tsl_time_grid_get_width (self->grid) << self->shift;

  return G_GINT64_CONSTANT (1) << self->level;
}

/**
 * tsl_sampler_peek_samples:
 * @n_samples: (out): number of samples
 *
 * In time mode this first catches up with the grid's width, so slices of all
 * tracks of a trace line up.
 *
 * Returns: (transfer none) (array length=n_samples): the samples in slice
 *   order, valid until the next offer or merge.
 */
const TslSample *
tsl_sampler_peek_samples (TslSampler *self,
                          guint      *n_samples)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (n_samples != NULL, NULL);

  if (self->mode == TSL_SAMPLER_TIME)
    {
      time_sync_level (self);
      self->last = NULL;
    }

  *n_samples = self->n_held;
  return self->held;
}

gsize
tsl_sampler_get_peak_bytes (const TslSampler *self)
{
  g_return_val_if_fail (self != NULL, 0);

  /* The room never shrinks: what it has now is its peak. */
  return sizeof *self + self->cap * sizeof (TslSample);
}

/* Time mode: other's blocks, lifted to self's level, merged into self's by
 * slice. Ordinals of other's events come after self's. */
static void
merge_time (TslSampler       *self,
            const TslSampler *other)
{
  guint shift, n = 0, i = 0, j = 0;
  guint room = self->n_held + other->n_held;
  g_autofree TslSample *out = g_new (TslSample, MAX (room, 1));

  time_sync_level (self);
  shift = self->level - other->level;
  while (i < self->n_held || j < other->n_held)
    {
      TslSample b, o = { 0 };

      if (j < other->n_held)
        {
          o = other->held[j];
          o.slice = floor_shift (o.slice, shift);
          o.index += self->n_events;
        }
      /* Self's block first where both have one: it holds the earlier ordinals. */
      if (j == other->n_held || (i < self->n_held && self->held[i].slice <= o.slice))
        b = self->held[i++];
      else
        {
          b = o;
          j++;
        }

      if (n > 0 && out[n - 1].slice == b.slice)
        sample_combine (&out[n - 1], &b);
      else
        out[n++] = b;
    }

  /* A grid spanning at most 2K slices needs no more room than the budget
   * gave the two parts; take what exceeds this sampler's own. */
  if (n > self->cap)
    {
      if (self->budget != NULL)
        {
          tsl_budget_take (self->budget, (gsize) (n - self->cap) * sizeof (TslSample));
          self->taken += (gsize) (n - self->cap) * sizeof (TslSample);
        }
      self->held = g_renew (TslSample, self->held, n);
      self->cap = n;
    }
  memcpy (self->held, out, n * sizeof (TslSample));
  self->n_held = n;
  self->hint = 0;
}

gboolean
tsl_sampler_merge (TslSampler        *self,
                   const TslSampler  *other,
                   GError           **error)
{
  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (other != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (self->mode != other->mode)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                           "Cannot merge a count-mode sampler with a time-mode one");
      return FALSE;
    }

  if (self->k != other->k || self->seed != other->seed)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "Cannot merge samplers with different K or seed (%u/%u, %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT ")",
                   self->k, other->k, self->seed, other->seed);
      return FALSE;
    }

  /* A state whose counts wrapped would be refused on reading (slice
   * counts must add up to the events): no sum past 2^64 - 1. */
  if (other->n_events > G_MAXUINT64 - self->first_index - self->n_events)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                           "The merged sampler would count more than 2^64 - 1 events");
      return FALSE;
    }

  if (self->mode == TSL_SAMPLER_TIME)
    {
      if (self->grid->level + self->shift < other->level)
        {
          g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                               "The second sampler's grid is wider: merge the grids first");
          return FALSE;
        }
      merge_time (self, other);
      self->n_events += other->n_events;
      self->last = NULL;
      return TRUE;
    }

  if (other->first_index != self->first_index + self->n_events)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "The second sampler starts at event %" G_GUINT64_FORMAT ", expected %" G_GUINT64_FORMAT,
                   other->first_index, self->first_index + self->n_events);
      return FALSE;
    }

  while (self->level < other->level)
    coarsen (self);

  /* Append other's blocks lifted to our level; at most one (the block the cut
   * falls in) coincides with our last block. Doubling as soon as 2K is
   * exceeded reaches the same level as one pass, which only ever doubles
   * when the blocks covering the stream so far exceed 2K. */
  for (guint j = 0; j < other->n_held; j++)
    {
      TslSample b = other->held[j];

      b.slice = floor_shift (b.slice, self->level - other->level);
      if (self->n_held > 0 && self->held[self->n_held - 1].slice == b.slice)
        {
          sample_combine (&self->held[self->n_held - 1], &b);
        }
      else
        {
          if (self->n_held + 1 == self->cap && self->cap <= self->max_held)
            make_room (self);
          self->held[self->n_held++] = b;
          if (self->n_held > self->max_held)
            coarsen (self);
        }
    }

  self->n_events += other->n_events;
  self->last = NULL;
  update_cur_end (self);
  return TRUE;
}

/* For tsl-sampler-state.c: the sampler's own calls stay static, and inlined. */

void
_tsl_sampler_update_cur_end (TslSampler *self)
{
  update_cur_end (self);
}

void
_tsl_sampler_time_sync_level (TslSampler *self)
{
  time_sync_level (self);
}
