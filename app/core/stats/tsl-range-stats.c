/* tsl-range-stats.c: exact per-range figures, in time blocks
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Spans arrive at their start with their duration and a stack label whose
 * last name is the span's own: it gets the call, its inclusive time (not
 * again when an outer call of the same name is open) and its self time,
 * which its parent loses. Events without a duration are samples: each name
 * on the stack counts once per sample.
 */
#define G_LOG_DOMAIN "tsl-compare"

#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tsl-hash.h"
#include "tsl-range-stats.h"
#include "tsl-rng.h"
#include "tsl-time-math.h"

/* A median gap in ns as a time step; gaps beyond what a gint64 holds
 * (times at both ends of the range) saturate instead of overflowing. */
static inline gint64
gap_ns (double gap)
{
  return gap < 9.2e18 ? (gint64) gap : G_MAXINT64;
}

struct _TslRangeStats {
  gint        ref_count;
  TslTrace   *trace;
  gint64      lo;
  gint64      hi;
  gint64      grid_hi;
  GPtrArray  *tracks;     /* TslRangeTrack *, by the trace's track index (NULL: none yet) */
  guint64     stamp;
  TslRng      rng;
  gint64      data_end;
  gboolean    finished;
  gboolean    collapsed;    /* an event's value is its line's count */
  guint       max_paths;    /* 0: no paths */
  guint       n_paths;
  guint64     folded;
  GHashTable *folded_paths; /* distinct paths folded (counted up to a bound) */
  guint       n_slots;      /* the length of every block array */
  guint       n_blocks;     /* of them in use */
  /* Growing blocks (tsl_range_stats_new_growing()): 2^shift ns wide, the
   * first being the base-th such width from time 0; the events' extent. */
  gboolean    grow;
  gboolean    seen;
  guint       shift;
  gint64      base;
  gint64      seen_lo;
  gint64      seen_hi;
  gint64     *edges;        /* (n_blocks + 1) where each starts, once finished */
};

/* A function's slot in its track's table: every span looks up its own
 * name and its parent's, so the lookup hashes the name's bytes in place
 * (no copy to terminate it) and compares them only on a full hash match. */
typedef struct {
  guint64       hash;
  TslRangeFunc *func;   /* NULL: empty */
  gsize         len;
} FuncSlot;

static void
func_free (gpointer data)
{
  TslRangeFunc *f = data;

  g_free (f->name);
  g_array_unref (f->durations);
  g_free (f->cpu);
  g_free (f);
}

static void
path_free (gpointer data)
{
  TslRangePath *p = data;

  g_free (p->path);
  g_free (p);
}

static void
track_free (gpointer data)
{
  TslRangeTrack *t = data;

  if (t == NULL)
    return;
  g_free (t->name);
  g_free (t->process);
  g_clear_pointer (&t->paths, g_ptr_array_unref);
  g_clear_pointer (&t->path_ids, g_hash_table_unref);
  g_ptr_array_unref (t->funcs);
  g_hash_table_unref (t->func_ids);
  g_free (t->func_slots);
  tsl_series_recorder_clear (&t->series);
  g_free (t);
}

/* An object of `size` bytes, zeroed, with n_arrays × n_slots doubles
 * after it for its block arrays. */
static gpointer
alloc_with_blocks (gsize    size,
                   guint    n_slots,
                   guint    n_arrays,
                   double **blocks)
{
  char *object = g_malloc0 (size + (gsize) n_arrays * n_slots * sizeof (double));

  *blocks = (double *) (object + size);
  return object;
}

static guint
block_of_fixed (TslRangeStats *self,
                gint64         t)
{
  double width = (double) MAX (tsl_time_sub (self->grid_hi, self->lo), 1);
  double j = floor ((double) tsl_time_sub (t, self->lo) * TSL_RANGE_BLOCKS / width);

  return (guint) CLAMP (j, 0, TSL_RANGE_BLOCKS - 1);
}

static guint regrow (TslRangeStats *self,
                     gint64         t);

static inline guint
block_of (TslRangeStats *self,
          gint64         t)
{
  if (self->grow)
    {
      /* Unsigned: an event before the blocks is a large j, and times
       * near ±2^63 do not overflow. */
      guint64 j = (guint64) (t >> self->shift) - (guint64) self->base;

      if (t < self->seen_lo)
        self->seen_lo = t;
      if (t > self->seen_hi)
        self->seen_hi = t;
      if (G_LIKELY (self->seen && j < TSL_RANGE_MAX_BLOCKS))
        return (guint) j;
      return regrow (self, t);
    }
  return block_of_fixed (self, t);
}

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
static guint
fitting_shift (gint64 lo,
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
static guint
regrow (TslRangeStats *self,
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
  shift = fitting_shift (self->seen_lo, self->seen_hi, shift);
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

static TslRangeTrack *
get_track (TslRangeStats *self,
           guint          index)
{
  TslRangeTrack *t;

  if (index >= self->tracks->len)
    g_ptr_array_set_size (self->tracks, index + 1);
  t = g_ptr_array_index (self->tracks, index);
  if (t != NULL)
    return t;

  {
    const guint n = self->n_slots;
    double *b;

    t = alloc_with_blocks (sizeof *t, n, 7, &b);
    t->block_n = b;
    t->block_sum = b + n;
    t->block_weighted = b + 2 * n;
    t->block_held = b + 3 * n;
    t->block_rise = b + 4 * n;
    t->block_rise_ns = b + 5 * n;
    t->block_points = b + 6 * n;
  }
  t->kind = tsl_trace_track_get_kind (self->trace, index);
  t->min = INFINITY;
  t->max = -INFINITY;
  t->funcs = g_ptr_array_new_with_free_func (func_free);
  t->func_ids = g_hash_table_new (g_str_hash, g_str_equal);
  t->func_mask = 63;
  t->func_slots = g_new0 (FuncSlot, t->func_mask + 1);
  /* The reader names the format before its first event. */
  self->collapsed = g_strcmp0 (tsl_trace_get_format (self->trace), "collapsed") == 0;
  if (self->max_paths > 0)
    {
      t->paths = g_ptr_array_new_with_free_func (path_free);
      t->path_ids = g_hash_table_new (g_str_hash, g_str_equal);
    }
  t->spans = g_strcmp0 (tsl_trace_track_get_unit (self->trace, index), "ns") == 0 &&
             !tsl_trace_track_get_sampled (self->trace, index);
  self->tracks->pdata[index] = t;
  return t;
}

static void
grow_funcs (TslRangeTrack *t)
{
  guint mask = t->func_mask * 2 + 1;
  FuncSlot *old = t->func_slots, *slots = g_new0 (FuncSlot, mask + 1);

  for (guint i = 0; i <= t->func_mask; i++)
    if (old[i].func != NULL)
      {
        guint j = (guint) old[i].hash & mask;

        while (slots[j].func != NULL)
          j = (j + 1) & mask;
        slots[j] = old[i];
      }
  g_free (old);
  t->func_slots = slots;
  t->func_mask = mask;
}

static TslRangeFunc *
get_func (TslRangeStats *self,
          TslRangeTrack *t,
          const char    *name,
          gsize          len)
{
  guint64 hash = tsl_hash_bytes (name, len);
  FuncSlot *slots = t->func_slots;
  TslRangeFunc *f;
  guint i;

  for (i = (guint) hash & t->func_mask; slots[i].func != NULL; i = (i + 1) & t->func_mask)
    if (slots[i].hash == hash && slots[i].len == len && memcmp (slots[i].func->name, name, len) == 0)
      return slots[i].func;

  {
    const guint n = self->n_slots;
    double *b;

    f = alloc_with_blocks (sizeof *f, n, 4, &b);
    f->block_calls = b;
    f->block_total = b + n;
    f->block_duration = b + 2 * n;
    f->block_samples = b + 3 * n;
  }
  f->name = g_strndup (name, len);
  f->durations = g_array_new (FALSE, FALSE, sizeof (double));
  g_ptr_array_add (t->funcs, f);
  g_hash_table_insert (t->func_ids, f->name, f);
  slots[i] = (FuncSlot) { hash, f, len };
  /* At most half full. */
  if (2 * t->funcs->len > t->func_mask)
    grow_funcs (t);
  return f;
}

static gboolean
is_metric (TslTrackKind kind)
{
  return kind == TSL_TRACK_COUNTER || kind == TSL_TRACK_METRIC;
}

/* The previous point holds until `until`. */
static void
hold_previous (TslRangeTrack *t,
               gint64         until)
{
  double held = (double) tsl_time_sub (until, t->prev_ns);

  if (held <= 0)
    return;
  t->weighted_sum += t->prev_value * held;
  t->held_ns += held;
  t->block_weighted[t->prev_block] += t->prev_value * held;
  t->block_held[t->prev_block] += held;
}

static void
metric_point (TslRangeStats *self,
              TslRangeTrack *t,
              gint64         time_ns,
              double         value)
{
  guint j = block_of (self, time_ns);

  t->n++;
  t->sum += value;
  t->min = MIN (t->min, value);
  t->max = MAX (t->max, value);
  t->block_n[j]++;
  t->block_sum[j] += value;

  if (t->has_prev)
    {
      hold_previous (t, time_ns);
      if (value < t->prev_value)
        t->decreased = TRUE;
      else if (value > t->prev_value)
        t->increased = TRUE;
      t->block_rise[j] += value - t->prev_value;
      t->block_rise_ns[j] += (double) tsl_time_sub (time_ns, t->prev_ns);
    }
  t->has_prev = TRUE;
  t->prev_ns = time_ns;
  t->prev_value = value;
  t->prev_block = j;
}

static void
add_duration (TslRangeStats *self,
              TslRangeFunc  *f,
              double         ns)
{
  /* Algorithm R: every duration has the same chance to be kept. */
  f->seen++;
  if (f->durations->len < TSL_RANGE_MAX_DURATIONS)
    g_array_append_val (f->durations, ns);
  else
    {
      guint64 k = tsl_rng_bounded (&self->rng, f->seen);

      if (k < TSL_RANGE_MAX_DURATIONS)
        g_array_index (f->durations, double, k) = ns;
    }
}

static void
cpu_event (TslRangeStats *self,
           TslRangeFunc *f,
           guint         j,
           double        wall_ns,
           double        cpu_ns,
           gboolean      recursive)
{
  if (f->cpu == NULL)
    {
      const guint n = self->n_slots;
      double *b;

      f->cpu = alloc_with_blocks (sizeof *f->cpu, n, 3, &b);
      f->cpu->block_calls = b;
      f->cpu->block_cpu = b + n;
      f->cpu->block_total = b + 2 * n;
    }
  f->cpu->calls++;
  f->cpu->cpu_ns += cpu_ns;
  f->cpu->wall_ns += wall_ns;
  f->cpu->block_calls[j]++;
  f->cpu->block_cpu[j] += cpu_ns;
  if (!recursive)
    {
      f->cpu->total_ns += cpu_ns;
      f->cpu->block_total[j] += cpu_ns;
    }
}

static void
span_event (TslRangeStats *self,
            TslRangeTrack *t,
            gint64         time_ns,
            double         ns,
            double         cpu_ns,
            const char    *label)
{
  const char *leaf = strrchr (label, ';'), *parent = NULL;
  gsize leaf_len, parent_len = 0;
  gboolean recursive = FALSE;
  TslRangeFunc *f;
  guint j = block_of (self, time_ns);

  leaf = leaf != NULL ? leaf + 1 : label;
  leaf_len = strlen (leaf);
  if (leaf > label)
    {
      const char *end = leaf - 1, *p = end;

      while (p > label && p[-1] != ';')
        p--;
      parent = p;
      parent_len = end - p;
    }
  /* An outer call of the same name already counts this time. */
  for (const char *p = label; p < leaf;)
    {
      const char *semi = strchr (p, ';');

      if ((gsize) (semi - p) == leaf_len && memcmp (p, leaf, leaf_len) == 0)
        {
          recursive = TRUE;
          break;
        }
      p = semi + 1;
    }

  f = get_func (self, t, leaf, leaf_len);
  f->calls++;
  f->block_calls[j]++;
  f->self_ns += ns;
  f->duration_ns += ns;
  f->block_duration[j] += ns;
  if (!recursive)
    {
      f->total_ns += ns;
      f->block_total[j] += ns;
    }
  /* Growing blocks are for the change search, which needs none of these. */
  if (self->grow)
    return;
  add_duration (self, f, ns);
  if (!isnan (cpu_ns))
    cpu_event (self, f, j, ns, cpu_ns, recursive);

  if (parent != NULL)
    get_func (self, t, parent, parent_len)->self_ns -= ns;
}

static void
sample_event (TslRangeStats *self,
              TslRangeTrack *t,
              gint64         time_ns,
              const char    *label)
{
  guint j = block_of (self, time_ns);

  t->points++;
  t->block_points[j]++;
  self->stamp++;
  for (const char *p = label; p != NULL && *p != '\0';)
    {
      const char *semi = strchr (p, ';');
      gsize len = semi != NULL ? (gsize) (semi - p) : strlen (p);
      TslRangeFunc *f = get_func (self, t, p, len);

      /* A recursive stack holds a name twice: one sample. */
      if (f->stamp != self->stamp)
        {
          f->stamp = self->stamp;
          f->samples++;
          f->block_samples[j]++;
        }
      p = semi != NULL ? semi + 1 : NULL;
    }
}

#define MAX_FOLDED_NAMES 100000

static TslRangePath *
get_path (TslRangeStats *self,
          TslRangeTrack *t,
          const char    *label)
{
  TslRangePath *p = g_hash_table_lookup (t->path_ids, label);

  if (p != NULL)
    return p;

  if (self->n_paths >= self->max_paths)
    {
      /* Over the bound: the event still counts, under "(other)". */
      self->folded++;
      if (g_hash_table_size (self->folded_paths) < MAX_FOLDED_NAMES)
        g_hash_table_add (self->folded_paths, g_strdup (label));
      p = g_hash_table_lookup (t->path_ids, TSL_RANGE_OTHER_PATH);
      if (p != NULL)
        return p;
      label = TSL_RANGE_OTHER_PATH;
    }
  else
    self->n_paths++;

  {
    const guint n = self->n_slots;
    double *b;

    p = alloc_with_blocks (sizeof *p, n, 3, &b);
    p->block_weight = b;
    p->block_time = b + n;
    p->block_cpu = b + 2 * n;
  }
  p->path = g_strdup (label);
  g_ptr_array_add (t->paths, p);
  g_hash_table_insert (t->path_ids, p->path, p);
  return p;
}

/* A span weighs its duration, and its thread time when it has one, at its
 * own path (and one event); a sample one event, or its line's count in
 * collapsed stacks. */
static void
path_event (TslRangeStats *self,
            TslRangeTrack *t,
            gint64         time_ns,
            double         value,
            double         cpu_ns,
            const char    *label,
            gboolean       span)
{
  TslRangePath *p = get_path (self, t, label);
  guint j = block_of (self, time_ns);
  double events = 1;

  if (span)
    {
      p->time_ns += value;
      p->block_time[j] += value;
      if (!isnan (cpu_ns))
        {
          p->cpu_spans++;
          p->cpu_ns += cpu_ns;
          p->block_cpu[j] += cpu_ns;
        }
    }
  else if (self->collapsed && value >= 1)
    events = value;   /* up to 2^63: the reader saturates */
  p->weight += events;
  p->block_weight[j] += events;
}

static void
on_event (guint       track,
          gint64      time_ns,
          double      value,
          const char *label,
          gboolean    in_range,
          gpointer    user_data)
{
  TslRangeStats *self = user_data;
  TslRangeTrack *t = get_track (self, track);

  if (is_metric (t->kind))
    {
      /* Every point of the file tells where the series ends. */
      tsl_series_recorder_add (&t->series, time_ns, value);
      if (in_range && !isnan (value))
        metric_point (self, t, time_ns, value);
      return;
    }

  if (!in_range)
    return;
  if (t->paths != NULL && label != NULL && *label != '\0')
    path_event (self, t, time_ns, value, tsl_trace_get_event_cpu (self->trace), label,
                t->spans && !isnan (value));
  if (t->spans && !isnan (value) && label != NULL)
    span_event (self, t, time_ns, value, tsl_trace_get_event_cpu (self->trace), label);
  else
    sample_event (self, t, time_ns, label);
}

TslRangeStats *
tsl_range_stats_new (TslTrace *trace,
                     gint64    lo,
                     gint64    hi,
                     gint64    grid_hi)
{
  TslRangeStats *self = g_new0 (TslRangeStats, 1);

  self->ref_count = 1;
  self->trace = g_object_ref (trace);
  self->lo = lo;
  self->hi = hi;
  self->grid_hi = MAX (grid_hi, lo + 1);
  self->n_slots = self->n_blocks = TSL_RANGE_BLOCKS;
  self->tracks = g_ptr_array_new_with_free_func (track_free);
  self->folded_paths = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  tsl_rng_init (&self->rng, 0x5EED, 17);
  tsl_trace_set_event_func (trace, on_event, self);

  return self;
}

TslRangeStats *
tsl_range_stats_new_growing (TslTrace *trace,
                             gint64    start,
                             gint64    end)
{
  TslRangeStats *self = g_new0 (TslRangeStats, 1);

  self->ref_count = 1;
  self->trace = g_object_ref (trace);
  self->lo = G_MININT64;
  self->hi = self->grid_hi = G_MAXINT64;
  self->grow = TRUE;
  self->n_slots = self->n_blocks = TSL_RANGE_MAX_BLOCKS;
  self->seen_lo = G_MAXINT64;
  self->seen_hi = G_MININT64;
  /* A known span: the blocks it gives from the start, never regrown. */
  if (start <= end)
    {
      self->seen = TRUE;
      self->shift = fitting_shift (start, end, 0);
      self->base = start >> self->shift;
      self->seen_lo = start;
      self->seen_hi = end;
    }
  self->tracks = g_ptr_array_new_with_free_func (track_free);
  self->folded_paths = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  tsl_rng_init (&self->rng, 0x5EED, 17);
  tsl_trace_set_event_func (trace, on_event, self);

  return self;
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
static void
finish_growing (TslRangeStats *self,
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
  shift = fitting_shift (start, end, self->shift);
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

static int
compare_funcs (gconstpointer a,
               gconstpointer b)
{
  const TslRangeFunc *fa = *(TslRangeFunc * const *) a;
  const TslRangeFunc *fb = *(TslRangeFunc * const *) b;

  return strcmp (fa->name, fb->name);
}

void
tsl_range_stats_finish (TslRangeStats *self)
{
  gint64 start = 0, end = 0;

  g_return_if_fail (self != NULL);
  if (self->finished)
    return;
  self->finished = TRUE;

  tsl_trace_flush_events (self->trace);
  tsl_trace_set_event_func (self->trace, NULL, NULL);
  tsl_trace_get_span (self->trace, &start, &end);
  self->data_end = end;

  /* Through the index: a series a whole read sees only outside the chunks
   * read is still one of the range's. */
  for (guint i = 0; i < tsl_trace_get_n_tracks (self->trace); i++)
    if (is_metric (tsl_trace_track_get_kind (self->trace, i)) &&
        tsl_trace_get_file_series_end (self->trace, i) != NULL)
      get_track (self, i);

  for (guint i = 0; i < self->tracks->len; i++)
    {
      TslRangeTrack *t = g_ptr_array_index (self->tracks, i);
      const TslSeriesEnd *file_end;
      TslSeriesEnd own;

      if (t == NULL)
        continue;
      t->name = g_strdup (tsl_trace_track_get_name (self->trace, i));
      t->pid = tsl_trace_track_get_pid (self->trace, i);
      t->tid = tsl_trace_track_get_tid (self->trace, i);
      t->process = g_strdup (tsl_trace_get_process_name (self->trace, t->pid));
      g_ptr_array_sort (t->funcs, compare_funcs);

      if (!is_metric (t->kind))
        continue;
      /* A read through the index saw only some of the file's points. */
      tsl_series_recorder_finish (&t->series, &own);
      file_end = tsl_trace_get_file_series_end (self->trace, i);
      if (file_end == NULL)
        file_end = &own;
      t->last_ns = file_end->last_ns;
      t->median_gap_ns = file_end->median_gap_ns;
      if (file_end->n_gaps > 0)
        self->data_end = MAX (self->data_end, tsl_time_add (t->last_ns, gap_ns (t->median_gap_ns)));
      /* The last point of the range holds to the range's end, or to the
       * end of its own data when that comes first. */
      if (t->has_prev)
        hold_previous (t, MIN (self->hi, tsl_time_add (t->last_ns, gap_ns (t->median_gap_ns))));
    }
  if (self->grow)
    finish_growing (self, start, end);
  /* Everything is copied out: the range's samples need not outlive it. */
  g_clear_object (&self->trace);
}

TslRangeStats *
tsl_range_stats_ref (TslRangeStats *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  g_atomic_int_inc (&self->ref_count);
  return self;
}

void
tsl_range_stats_unref (TslRangeStats *self)
{
  if (self == NULL || !g_atomic_int_dec_and_test (&self->ref_count))
    return;
  if (!self->finished)
    tsl_trace_set_event_func (self->trace, NULL, NULL);
  g_clear_object (&self->trace);
  g_ptr_array_unref (self->tracks);
  g_hash_table_unref (self->folded_paths);
  g_free (self->edges);
  g_free (self);
}

void
tsl_range_stats_keep_paths (TslRangeStats *self,
                            guint          max_paths)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (self->tracks->len == 0);

  self->max_paths = max_paths;
}

guint64
tsl_range_stats_get_folded (TslRangeStats *self,
                            guint64       *n_paths)
{
  g_return_val_if_fail (self != NULL, 0);

  if (n_paths != NULL)
    *n_paths = g_hash_table_size (self->folded_paths);
  return self->folded;
}

guint
tsl_range_stats_get_n_tracks (TslRangeStats *self)
{
  return self->tracks->len;
}

const TslRangeTrack *
tsl_range_stats_get_track (TslRangeStats *self,
                           guint          i)
{
  g_return_val_if_fail (i < self->tracks->len, NULL);

  return g_ptr_array_index (self->tracks, i);
}

gint64
tsl_range_stats_get_data_end (TslRangeStats *self)
{
  return self->data_end;
}

guint
tsl_range_stats_get_n_blocks (TslRangeStats *self)
{
  return self->n_blocks;
}

gint64
tsl_range_stats_block_start (TslRangeStats *self,
                             guint          i)
{
  g_return_val_if_fail (i <= self->n_blocks, 0);

  if (self->edges != NULL)
    return self->edges[i];
  return tsl_time_add (self->lo, (gint64) ((double) tsl_time_sub (self->grid_hi, self->lo) / TSL_RANGE_BLOCKS * i));
}

double
tsl_range_stats_block_ns (TslRangeStats *self,
                          guint          i,
                          gint64         end)
{
  if (self->edges != NULL)
    {
      if (i + 1 < self->n_blocks)
        return (double) tsl_time_sub (self->edges[i + 1], self->edges[i]);
      return MAX ((double) tsl_time_sub (MAX (end, self->edges[i + 1]), self->edges[i]), 0);
    }
  double width = (double) tsl_time_sub (self->grid_hi, self->lo) / TSL_RANGE_BLOCKS;

  if (i + 1 < TSL_RANGE_BLOCKS)
    return width;
  return MAX (width + (double) tsl_time_sub (end, self->grid_hi), 0);
}
