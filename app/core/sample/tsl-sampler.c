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
 * width and merge (tsl_time_grid_merge(), tsl_sampler_merge()).
 */
#define G_LOG_DOMAIN "tsl-sampler"

#include <math.h>
#include <string.h>

#include <gio/gio.h>

#include "tsl-budget.h"
#include "tsl-rng.h"
#include "tsl-sampler.h"

struct _TslTimeGrid
{
  gatomicrefcount ref_count;
  guint           k;
  guint           level;
  gboolean        has_time;
  /* Smallest and largest slice any track has seen, at `level`. */
  gint64          min_slice;
  gint64          max_slice;
};

struct _TslSampler
{
  TslSamplerMode  mode;
  guint           k;            /* lowered when the budget refuses more room */
  guint           max_held;     /* 2K */
  guint           n_held;
  guint           level;        /* T = 1 << level (count), or grid level + shift */
  guint           hint;         /* time mode: block the previous event went to */
  guint64         seed;
  guint64         seed_hash;
  guint64         first_index;
  guint64         n_events;
  guint64         cur_end;      /* count mode: first index after the last block */
  TslSample      *last;         /* block the previous offer made its kept sample */
  TslTimeGrid    *grid;
  TslSample      *held;         /* `cap` slots, grown as blocks are kept */
  /* Off the per-event path: */
  guint           cap;          /* 2j + 1, up to max_held + 1 */
  guint           shift;        /* time mode: levels above the grid's once K was lowered */
  guint           k_asked;
  TslBudget      *budget;       /* (nullable) what `held` grows from */
  gsize           taken;        /* bytes taken from `budget` */
};

/* Slots a sampler starts with: tracks of a few events (most of them when a
 * trace has thousands of threads) never need more. */
#define FIRST_SLOTS 9

static inline gint64
floor_half (gint64 s)
{
  return (s - (s < 0)) / 2;
}

/* Floor division by 2^shift: GCC and Clang shift signed values arithmetically. */
static inline gint64
floor_shift (gint64 s,
             guint  shift)
{
  return shift >= 63 ? (s < 0 ? -1 : 0) : s >> shift;
}


TslTimeGrid *
tsl_time_grid_new (guint k)
{
  TslTimeGrid *grid;

  g_return_val_if_fail (k > 0, NULL);

  grid = g_new0 (TslTimeGrid, 1);
  g_atomic_ref_count_init (&grid->ref_count);
  grid->k = k;
  return grid;
}

TslTimeGrid *
tsl_time_grid_ref (TslTimeGrid *grid)
{
  g_return_val_if_fail (grid != NULL, NULL);

  g_atomic_ref_count_inc (&grid->ref_count);
  return grid;
}

void
tsl_time_grid_unref (TslTimeGrid *grid)
{
  g_return_if_fail (grid != NULL);

  if (g_atomic_ref_count_dec (&grid->ref_count))
    g_free (grid);
}

gint64
tsl_time_grid_get_width (const TslTimeGrid *grid)
{
  g_return_val_if_fail (grid != NULL, 0);

  return G_GINT64_CONSTANT (1) << grid->level;
}

/* Slices are absolute (see the top of this file): the origin is 0. */
gint64
tsl_time_grid_get_origin (const TslTimeGrid *grid)
{
  g_return_val_if_fail (grid != NULL, 0);

  return 0;
}

guint
tsl_time_grid_get_level (const TslTimeGrid *grid)
{
  g_return_val_if_fail (grid != NULL, 0);

  return grid->level;
}

gint64
tsl_time_grid_get_slice (const TslTimeGrid *grid,
                         gint64             time_ns)
{
  g_return_val_if_fail (grid != NULL, 0);

  return floor_shift (time_ns, grid->level);
}

/* Doubles the width while more than 2K slices are spanned. The span in
 * slices never grows with the level, so the level reached is the smallest
 * that holds every time seen, whatever their order. (Unsigned: a broken
 * file's times may span the whole of gint64.) */
static void
grid_widen (TslTimeGrid *grid)
{
  while ((guint64) grid->max_slice - (guint64) grid->min_slice >= (guint64) grid->k * 2)
    {
      grid->level++;
      grid->min_slice = floor_half (grid->min_slice);
      grid->max_slice = floor_half (grid->max_slice);
    }
}

/* Widens the grid's slice range to hold `time_ns`, doubling the width while
 * more than 2K slices are spanned. Returns the event's slice. */
static gint64
grid_note_time (TslTimeGrid *grid,
                gint64       time_ns)
{
  gint64 slice;

  if (G_UNLIKELY (!grid->has_time))
    {
      grid->has_time = TRUE;
      grid->min_slice = grid->max_slice = floor_shift (time_ns, grid->level);
    }

  slice = floor_shift (time_ns, grid->level);
  if (G_LIKELY (slice >= grid->min_slice && slice <= grid->max_slice))
    return slice;

  grid->min_slice = MIN (grid->min_slice, slice);
  grid->max_slice = MAX (grid->max_slice, slice);
  grid_widen (grid);

  return floor_shift (time_ns, grid->level);
}

static TslSampler *
sampler_new (TslSamplerMode mode,
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

  self = sampler_new (TSL_SAMPLER_COUNT, k, seed);
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

  self = sampler_new (TSL_SAMPLER_TIME, grid->k, seed);
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

static void
summary_merge (TslSummary       *a,
               const TslSummary *b)
{
  double hi = a->sum, lo = a->sum_lo;

  a->count += b->count;
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
  /* -0 is the identity of addition: an empty sum stays what its values add to. */
  s->summary.sum = isnan (value) ? -0.0 : value;
  s->summary.sum_lo = isnan (value) || isfinite (value) ? 0.0 : NAN;
  s->summary.min = value;
  s->summary.max = value;
}

/* Folds block b (the later one) into a: the smaller (priority, index) wins. */
static void
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
  for (guint j = 0; j < self->n_held; j++)
    {
      gint64 slice = floor_half (self->held[j].slice);

      if (out > 0 && self->held[out - 1].slice == slice)
        {
          sample_combine (&self->held[out - 1], &self->held[j]);
        }
      else
        {
          if (out != j)
            self->held[out] = self->held[j];
          self->held[out].slice = slice;
          out++;
        }
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

static gboolean
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

gboolean
tsl_sampler_offer (TslSampler *self,
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
    return count_start_block (self, index, time_ns, value, priority);

  return block_add (self, &self->held[self->n_held - 1], index, time_ns, value, priority);
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

void
tsl_time_grid_get_state (const TslTimeGrid *grid,
                         TslTimeGridState  *state)
{
  g_return_if_fail (grid != NULL);
  g_return_if_fail (state != NULL);

  state->k = grid->k;
  state->level = grid->level;
  state->has_time = grid->has_time;
  state->min_slice = grid->has_time ? grid->min_slice : 0;
  state->max_slice = grid->has_time ? grid->max_slice : 0;
}

TslTimeGrid *
tsl_time_grid_new_from_state (const TslTimeGridState  *state,
                              GError                 **error)
{
  TslTimeGrid *grid;

  g_return_val_if_fail (state != NULL, NULL);

  if (state->k == 0 || state->k > G_MAXINT / 4 || state->level > 62 ||
      (state->has_time &&
       ((guint64) state->max_slice - (guint64) state->min_slice >= (guint64) state->k * 2 ||
        state->max_slice < state->min_slice)) ||
      (!state->has_time && state->level != 0))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                           "the time grid is not one a sampler could make");
      return NULL;
    }

  grid = tsl_time_grid_new (state->k);
  grid->level = state->level;
  grid->has_time = state->has_time;
  grid->min_slice = state->min_slice;
  grid->max_slice = state->max_slice;
  return grid;
}

void
tsl_time_grid_merge (TslTimeGrid       *self,
                     const TslTimeGrid *other)
{
  gint64 lo, hi;

  g_return_if_fail (self != NULL);
  g_return_if_fail (other != NULL);

  if (!other->has_time)
    return;
  lo = other->min_slice;
  hi = other->max_slice;
  if (!self->has_time)
    {
      self->has_time = TRUE;
      self->level = other->level;
      self->min_slice = lo;
      self->max_slice = hi;
      return;
    }
  while (self->level < other->level)
    {
      self->level++;
      self->min_slice = floor_half (self->min_slice);
      self->max_slice = floor_half (self->max_slice);
    }
  lo = floor_shift (lo, self->level - other->level);
  hi = floor_shift (hi, self->level - other->level);
  self->min_slice = MIN (self->min_slice, lo);
  self->max_slice = MAX (self->max_slice, hi);
  grid_widen (self);
}

void
tsl_sampler_get_state (TslSampler      *self,
                       TslSamplerState *state)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (state != NULL);

  if (self->mode == TSL_SAMPLER_TIME)
    {
      time_sync_level (self);
      self->last = NULL;
    }
  state->mode = self->mode;
  state->k = self->k;
  state->k_asked = self->k_asked;
  state->level = self->level;
  state->shift = self->shift;
  state->seed = self->seed;
  state->first_index = self->first_index;
  state->n_events = self->n_events;
}

static gboolean
bad_state (GError    **error,
           const char *what)
{
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
               "a sampler's %s is not one a sampler could hold", what);
  return FALSE;
}

/* What a sampler's invariants say of a restored one (so that a damaged
 * file cannot make a sampler that later misbehaves). */
static gboolean
check_samples (const TslSamplerState *state,
               const TslTimeGrid     *grid,
               const TslSample       *samples,
               guint                  n,
               GError               **error)
{
  guint64 total = 0;

  if (state->mode == TSL_SAMPLER_COUNT && n > 2 * (guint64) state->k)
    return bad_state (error, "number of samples");
  if (state->mode == TSL_SAMPLER_TIME && n > 2 * (guint64) state->k + 1)
    return bad_state (error, "number of samples");
  for (guint i = 0; i < n; i++)
    {
      const TslSample *s = &samples[i];

      if (s->summary.count == 0 || s->summary.count > state->n_events - total)
        return bad_state (error, "slice count");
      total += s->summary.count;
      if (i > 0 && samples[i - 1].slice >= s->slice)
        return bad_state (error, "slice order");
      if (state->mode == TSL_SAMPLER_COUNT)
        {
          if (s->index < state->first_index || s->index - state->first_index >= state->n_events ||
              (gint64) (s->index >> state->level) != s->slice)
            return bad_state (error, "kept event");
        }
      else
        {
          if (s->index >= state->n_events || floor_shift (s->time_ns, state->level) != s->slice)
            return bad_state (error, "kept event");
          if (grid->has_time &&
              (floor_shift (s->slice, state->shift) < grid->min_slice ||
               floor_shift (s->slice, state->shift) > grid->max_slice))
            return bad_state (error, "slice");
        }
    }
  if (total != state->n_events)
    return bad_state (error, "event count");
  if (state->mode == TSL_SAMPLER_COUNT && n > 0 &&
      ((guint64) samples[n - 1].slice - (guint64) samples[0].slice + 1 > 2 * (guint64) state->k ||
       ((guint64) samples[n - 1].slice + 1) << state->level <= state->first_index + state->n_events - 1))
    return bad_state (error, "slices");
  return TRUE;
}

TslSampler *
tsl_sampler_new_from_state (const TslSamplerState  *state,
                            TslTimeGrid            *grid,
                            const TslSample        *samples,
                            guint                   n_samples,
                            GError                **error)
{
  TslSampler *self;

  g_return_val_if_fail (state != NULL, NULL);
  g_return_val_if_fail (n_samples == 0 || samples != NULL, NULL);

  if (state->k == 0 || state->k > state->k_asked || state->k_asked > G_MAXINT / 4 ||
      state->level > 62 || state->shift > 62)
    return bad_state (error, "K or level"), NULL;
  if (state->mode == TSL_SAMPLER_TIME)
    {
      if (grid == NULL || state->level != grid->level + state->shift ||
          state->k_asked != grid->k || state->first_index != 0 ||
          (state->shift == 0) != (state->k == state->k_asked))
        return bad_state (error, "grid"), NULL;
    }
  else if (state->mode != TSL_SAMPLER_COUNT || state->shift != 0 ||
           state->first_index > G_MAXUINT64 - state->n_events)
    return bad_state (error, "mode"), NULL;
  if (!check_samples (state, grid, samples, n_samples, error))
    return NULL;

  self = sampler_new (state->mode, state->k_asked, state->seed);
  self->k = state->k;
  self->max_held = 2 * state->k;
  self->level = state->level;
  self->shift = state->shift;
  self->first_index = state->first_index;
  self->n_events = state->n_events;
  if (state->mode == TSL_SAMPLER_TIME)
    self->grid = tsl_time_grid_ref (grid);
  if (n_samples + 1 > self->cap)
    {
      self->cap = MIN (self->max_held + 1, MAX (n_samples + 1, self->cap));
      self->cap = MAX (self->cap, n_samples);
      self->held = g_renew (TslSample, self->held, self->cap);
    }
  for (guint i = 0; i < n_samples; i++)
    {
      TslSample *s = &self->held[i];

      *s = samples[i];
      s->priority = tsl_mix64_keyed (self->seed_hash,
                                     state->mode == TSL_SAMPLER_COUNT ? s->index : (guint64) s->time_ns);
    }
  self->n_held = n_samples;
  if (state->mode == TSL_SAMPLER_COUNT)
    update_cur_end (self);
  return self;
}
