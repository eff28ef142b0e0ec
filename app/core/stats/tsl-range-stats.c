/* tsl-range-stats.c: exact per-range figures, in time blocks
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Spans arrive at their start with their duration and a stack label whose
 * last name is the span's own: it gets the call, its inclusive time (not
 * again when an outer call of the same name is open) and its self time,
 * which its parent loses. Async spans of one name overlap each other: their
 * inclusive time is the union of what they cover (tsl-busy.h), spread over
 * the blocks once the read is done, so a share never passes 100 %. Events
 * without a duration are samples: each name on the stack counts once per
 * sample.
 */
#define G_LOG_DOMAIN "tsl-compare"

#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tsl-hash.h"
#include "tsl-range-stats-private.h"
#include "tsl-rng.h"
#include "tsl-time-math.h"

/* A median gap in ns as a time step; gaps beyond what a gint64 holds
 * (times at both ends of the range) saturate instead of overflowing. */
static inline gint64
gap_ns (double gap)
{
  return gap < 9.2e18 ? (gint64) gap : G_MAXINT64;
}

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
  g_clear_pointer (&f->busy, tsl_busy_free);
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
  g_free (t->leaf_slots);
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
      return _tsl_range_stats_regrow (self, t);
    }
  return block_of_fixed (self, t);
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

/* Twice the room, each slot placed again by its stored hash. */
static void
grow_slots (FuncSlot **slots,
            guint     *mask)
{
  guint grown_mask = *mask * 2 + 1;
  FuncSlot *old = *slots, *grown = g_new0 (FuncSlot, grown_mask + 1);

  for (guint i = 0; i <= *mask; i++)
    if (old[i].func != NULL)
      {
        guint j = (guint) old[i].hash & grown_mask;

        while (grown[j].func != NULL)
          j = (j + 1) & grown_mask;
        grown[j] = old[i];
      }
  g_free (old);
  *slots = grown;
  *mask = grown_mask;
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
    grow_slots ((FuncSlot **) &t->func_slots, &t->func_mask);
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
  if (self->no_durations)
    return;
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
           double        inside_ns,
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
      /* Of a span outlasting the range, at most its wall time inside. */
      f->cpu->total_ns += MIN (cpu_ns, inside_ns);
      f->cpu->block_total[j] += MIN (cpu_ns, inside_ns);
    }
}

/* A span's counts once its function and whether an outer call of the
 * same name is open are known. */
static void
count_span (TslRangeTrack *t,
            TslRangeFunc  *f,
            guint          j,
            gint64         time_ns,
            double         ns,
            double         inside,
            gboolean       recursive)
{
  f->calls++;
  f->block_calls[j]++;
  f->self_ns += ns;
  f->duration_ns += ns;
  f->block_duration[j] += ns;
  /* Async spans of one name may overlap: their union is the time. */
  if (t->kind == TSL_TRACK_ASYNC)
    {
      if (f->busy == NULL)
        f->busy = tsl_busy_new (TSL_RANGE_MAX_BUSY);
      tsl_busy_add (f->busy, time_ns, tsl_time_add (time_ns, (gint64) ns));
    }
  /* An outer call of the same name already counts this time. */
  else if (!recursive)
    {
      f->total_ns += inside;
      f->block_total[j] += inside;
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
  /* Inclusive time inside the range: a span outlasting it would give a
   * share over 100 %. Durations (the mean) stay whole. */
  double inside = self->grow ? ns : MIN (ns, (double) tsl_time_sub (self->hi, time_ns));

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
  count_span (t, f, j, time_ns, ns, inside, recursive);
  /* Growing blocks are for the change search, which needs none of these. */
  if (self->grow)
    return;
  add_duration (self, f, ns);
  if (!isnan (cpu_ns))
    cpu_event (self, f, j, ns, cpu_ns, inside, recursive);

  if (parent != NULL)
    get_func (self, t, parent, parent_len)->self_ns -= ns;
}

/* The function of an interned name: the name ids of a trace never change,
 * so a table by id skips hashing the name's bytes on every span. */
static TslRangeFunc *
get_func_by_id (TslRangeStats *self,
               TslRangeTrack *t,
               guint32        leaf)
{
  /* The slot keeps the id as its length and a mixed id as its hash. */
  guint32 hash = leaf * 0x9E3779B1u;
  FuncSlot *slots = t->leaf_slots;
  const char *name;
  TslRangeFunc *f;
  guint i;

  if (slots == NULL)
    {
      t->leaf_mask = 63;
      slots = t->leaf_slots = g_new0 (FuncSlot, t->leaf_mask + 1);
    }
  for (i = hash & t->leaf_mask; slots[i].func != NULL; i = (i + 1) & t->leaf_mask)
    if (slots[i].len == leaf)
      return slots[i].func;

  name = tsl_trace_lookup (self->trace, leaf);
  f = get_func (self, t, name, strlen (name));
  slots[i] = (FuncSlot) { hash, f, leaf };
  /* At most half full. */
  if (2 * ++t->n_leaves > t->leaf_mask)
    grow_slots ((FuncSlot **) &t->leaf_slots, &t->leaf_mask);
  return f;
}

/* An event taken by its stack's name ids (tsl_trace_set_names_func()):
 * what span_event() counts with growing blocks, or sample_event(). */
static gboolean
on_names (guint          track,
          gint64         time_ns,
          double         value,
          const guint32 *names,
          guint          n_names,
          gpointer       user_data)
{
  TslRangeStats *self = user_data;
  TslRangeTrack *t = get_track (self, track);
  guint j;

  if (is_metric (t->kind))
    return FALSE;
  j = block_of (self, time_ns);
  self->n_name_events++;
  if (t->spans && !isnan (value))
    {
      guint32 leaf = names[n_names - 1];
      gboolean recursive = FALSE;

      for (guint i = 0; i + 1 < n_names && !recursive; i++)
        recursive = names[i] == leaf;
      count_span (t, get_func_by_id (self, t, leaf), j, time_ns, value, value, recursive);
      return TRUE;
    }
  t->points++;
  t->block_points[j]++;
  self->stamp++;
  for (guint i = 0; i < n_names; i++)
    {
      TslRangeFunc *f = get_func_by_id (self, t, names[i]);

      /* A recursive stack holds a name twice: one sample. */
      if (f->stamp != self->stamp)
        {
          f->stamp = self->stamp;
          f->samples++;
          f->block_samples[j]++;
        }
    }
  return TRUE;
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

void
_tsl_range_stats_on_event (guint       track,
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
  tsl_trace_set_event_func (trace, _tsl_range_stats_on_event, self);

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
      self->shift = _tsl_range_stats_fitting_shift (start, end, 0);
      self->base = start >> self->shift;
      self->seen_lo = start;
      self->seen_hi = end;
    }
  self->tracks = g_ptr_array_new_with_free_func (track_free);
  self->folded_paths = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  tsl_rng_init (&self->rng, 0x5EED, 17);
  tsl_trace_set_event_func (trace, _tsl_range_stats_on_event, self);
  /* The change search needs of a stack only its names: a reader need not
   * build the label. */
  tsl_trace_set_names_func (trace, on_names);

  return self;
}

static int
compare_funcs (gconstpointer a,
               gconstpointer b)
{
  const TslRangeFunc *fa = *(TslRangeFunc * const *) a;
  const TslRangeFunc *fb = *(TslRangeFunc * const *) b;

  return strcmp (fa->name, fb->name);
}

/* Async tracks' inclusive time: the union of their spans, clipped to the
 * blocks, which end where the data does (or the range, if sooner). */
static void
finish_busy (TslRangeStats *self)
{
  guint n = self->n_blocks;
  g_autofree gint64 *edges = NULL;

  if (n == 0)
    return;
  edges = g_new (gint64, n + 1);
  for (guint j = 0; j < n; j++)
    edges[j] = tsl_range_stats_block_start (self, j);
  edges[n] = MAX (self->grow ? self->data_end : MIN (self->hi, self->data_end), edges[n - 1]);

  for (guint i = 0; i < self->tracks->len; i++)
    {
      TslRangeTrack *t = g_ptr_array_index (self->tracks, i);

      for (guint k = 0; t != NULL && k < t->funcs->len; k++)
        {
          TslRangeFunc *f = g_ptr_array_index (t->funcs, k);

          if (f->busy == NULL)
            continue;
          f->total_ns = tsl_busy_spread (f->busy, edges, n, f->block_total);
          /* Σ durations less the children's, of overlapping spans: at most
           * the time they cover. */
          f->self_ns = MIN (f->self_ns, f->total_ns);
          g_clear_pointer (&f->busy, tsl_busy_free);
        }
    }
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
    _tsl_range_stats_finish_growing (self, start, end);
  finish_busy (self);
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
  if (max_paths > 0 && self->trace != NULL)
    tsl_trace_set_names_func (self->trace, NULL);
}

guint64
_tsl_range_stats_get_n_name_events (TslRangeStats *self)
{
  return self->n_name_events;
}

void
_tsl_range_stats_take_labels (TslRangeStats *self)
{
  if (self->trace != NULL)
    tsl_trace_set_names_func (self->trace, NULL);
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
