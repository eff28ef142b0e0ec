/* tsl-trace.c: the streaming trace model
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Nothing here locks by itself: callers hold tsl_trace_lock() (the reader per
 * chunk, the viewer while it copies), so the per-event path costs no atomics.
 *
 * Here: the trace's settings, the offer path, the time filter and the chunk
 * index's window. Its parts share tsl-trace-private.h: tracks
 * (tsl-trace-tracks.c), interned strings (tsl-trace-strings.c), labels
 * (tsl-trace-labels.c), the exact view and flows (tsl-trace-exact.c),
 * metadata (tsl-trace-meta.c), warnings (tsl-trace-warnings.c) and states
 * (tsl-trace-state*.c).
 */
#define G_LOG_DOMAIN "tsl-trace"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tsl-hash.h"
#include "tsl-time-math.h"
#include "tsl-trace-private.h"

G_DEFINE_FINAL_TYPE (TslTrace, tsl_trace, G_TYPE_OBJECT)

static guint
track_key_hash (gconstpointer data)
{
  const TrackKey *key = data;
  guint64 h = ((guint64) key->kind << 32) ^ key->name;

  h = h * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15) ^ (guint64) key->pid;
  h = h * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15) ^ (guint64) key->tid;
  h *= G_GUINT64_CONSTANT (0xBF58476D1CE4E5B9);
  return (guint) (h >> 32);
}

static gboolean
track_key_equal (gconstpointer a,
                 gconstpointer b)
{
  const TrackKey *ka = a, *kb = b;

  return ka->kind == kb->kind && ka->pid == kb->pid &&
         ka->tid == kb->tid && ka->name == kb->name;
}

static void
track_free (gpointer data)
{
  Track *track = data;

  g_clear_pointer (&track->sampler, tsl_sampler_free);
  g_free (track);
}

static void
tsl_trace_finalize (GObject *object)
{
  TslTrace *self = (TslTrace *)object;

  g_clear_pointer (&self->track_ids, g_hash_table_unref);
  if (self->tracks != NULL)
    tsl_budget_give (self->budget, (gsize) self->tracks->len * TRACK_COST);
  g_clear_pointer (&self->tracks, g_ptr_array_unref);
  g_clear_pointer (&self->budget, tsl_budget_unref);
  g_clear_pointer (&self->processes, g_hash_table_unref);
  g_clear_pointer (&self->threads, g_hash_table_unref);
  g_clear_pointer (&self->string_ids, g_hash_table_unref);
  g_clear_pointer (&self->strings, g_ptr_array_unref);
  g_clear_pointer (&self->semicolons, g_byte_array_unref);
  g_clear_pointer (&self->joins, g_free);
  g_clear_pointer (&self->join_chunk, g_string_chunk_free);
  g_clear_pointer (&self->chunk, g_string_chunk_free);
  g_clear_pointer (&self->labels, tsl_label_store_free);
  g_clear_pointer (&self->warnings, tsl_warnings_free);
  g_clear_pointer (&self->grid, tsl_time_grid_unref);
  g_clear_pointer (&self->format, g_free);
  g_clear_pointer (&self->exact, tsl_exact_free);
  g_clear_pointer (&self->first_indices, g_hash_table_unref);
  g_clear_pointer (&self->series_recorders, g_array_unref);
  g_clear_pointer (&self->file_series_ends, tsl_series_ends_unref);
  g_mutex_clear (&self->join_mutex);
  g_mutex_clear (&self->mutex);

  G_OBJECT_CLASS (tsl_trace_parent_class)->finalize (object);
}

static void
tsl_trace_class_init (TslTraceClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = tsl_trace_finalize;
}

/* Eight bytes a step: g_str_hash()'s byte loop was most of interning a new
 * stack path (hashed twice, to look it up and to insert it). Nothing walks
 * the table, so its order does not show. */
static guint
string_hash (gconstpointer key)
{
  return (guint) tsl_hash_bytes (key, strlen (key));
}

static void
tsl_trace_init (TslTrace *self)
{
  g_mutex_init (&self->mutex);
  self->has_time = TRUE;
  self->window_min = G_MAXINT64;
  self->window_max = G_MININT64;
  self->event_cpu = NAN;
  self->pending_cpu = NAN;

  self->chunk = g_string_chunk_new (64 * 1024);
  self->string_ids = g_hash_table_new (string_hash, g_str_equal);
  self->strings = g_ptr_array_new ();
  g_ptr_array_add (self->strings, NULL);
  self->semicolons = g_byte_array_new ();
  g_byte_array_append (self->semicolons, (const guint8 *) "", 1);
  self->join_chunk = g_string_chunk_new (16 * 1024);
  g_mutex_init (&self->join_mutex);
  self->labels = tsl_label_store_new ();
  self->next_label_collect = 4096;

  self->tracks = g_ptr_array_new_with_free_func (track_free);
  self->track_ids = g_hash_table_new (track_key_hash, track_key_equal);
  self->processes = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  self->threads = g_hash_table_new_full (track_key_hash, track_key_equal, g_free, g_free);

  self->warnings = tsl_warnings_new ();
}

/**
 * tsl_trace_new:
 * @mode: how every track's sampler cuts slices
 * @k: slices per track are kept between @k and 2×@k
 * @seed: shared by all tracks, so tracks that tick together keep the same
 *   indices (count mode) or instants (time mode)
 *
 * Returns: (transfer full): an empty trace.
 */
TslTrace *
tsl_trace_new (TslSamplerMode mode,
               guint          k,
               guint64        seed)
{
  TslTrace *self;

  g_return_val_if_fail (k > 0 && k <= G_MAXINT / 4, NULL);

  self = g_object_new (TSL_TYPE_TRACE, NULL);
  self->mode = mode;
  self->k = k;
  self->seed = seed;
  if (mode == TSL_SAMPLER_TIME)
    self->grid = tsl_time_grid_new (k);
  self->budget = tsl_budget_new_for_process (TSL_BUDGET_DEFAULT_PROCESS);

  return self;
}

/**
 * tsl_trace_set_budget:
 * @budget: shared with the other traces of the process (the window's zoomed
 *   re-read, compare's range reads), so together they stay within it
 *
 * Before the first track. Past the budget, samplers of growing tracks keep
 * fewer samples (K lowered) and new tracks fold into one "other" track per
 * kind; tsl_trace_dup_warnings() says so.
 */
void
tsl_trace_set_budget (TslTrace  *self,
                      TslBudget *budget)
{
  g_return_if_fail (TSL_IS_TRACE (self));
  g_return_if_fail (budget != NULL);
  g_return_if_fail (self->tracks->len == 0);

  tsl_budget_ref (budget);
  tsl_budget_unref (self->budget);
  self->budget = budget;
}

/**
 * tsl_trace_get_budget:
 *
 * Returns: (transfer none): the budget its tracks take from.
 */
TslBudget *
tsl_trace_get_budget (TslTrace *self)
{
  g_return_val_if_fail (TSL_IS_TRACE (self), NULL);

  return self->budget;
}

void
tsl_trace_lock (TslTrace *self)
{
  g_return_if_fail (TSL_IS_TRACE (self));

  g_mutex_lock (&self->mutex);
}

void
tsl_trace_unlock (TslTrace *self)
{
  g_return_if_fail (TSL_IS_TRACE (self));

  g_mutex_unlock (&self->mutex);
}

TslSamplerMode
tsl_trace_get_mode (TslTrace *self)
{
  g_return_val_if_fail (TSL_IS_TRACE (self), TSL_SAMPLER_COUNT);

  return self->mode;
}

guint
tsl_trace_get_k (TslTrace *self)
{
  g_return_val_if_fail (TSL_IS_TRACE (self), 0);

  return self->k;
}

guint64
tsl_trace_get_seed (TslTrace *self)
{
  g_return_val_if_fail (TSL_IS_TRACE (self), 0);

  return self->seed;
}

/**
 * tsl_trace_get_time_grid:
 *
 * Returns: (transfer none) (nullable): the grid all tracks share in time mode,
 *   NULL in count mode.
 */
TslTimeGrid *
tsl_trace_get_time_grid (TslTrace *self)
{
  g_return_val_if_fail (TSL_IS_TRACE (self), NULL);

  return self->grid;
}

void
tsl_trace_set_format (TslTrace   *self,
                      const char *format)
{
  g_return_if_fail (TSL_IS_TRACE (self));

  if (g_strcmp0 (self->format, format) != 0)
    {
      g_free (self->format);
      self->format = g_strdup (format);
    }
}

/**
 * tsl_trace_get_format:
 *
 * Returns: (transfer none) (nullable): the sniffed format name.
 */
const char *
tsl_trace_get_format (TslTrace *self)
{
  g_return_val_if_fail (TSL_IS_TRACE (self), NULL);

  return self->format;
}

static inline void
note_time (TslTrace *self,
           gint64    time_ns)
{
  if (G_UNLIKELY (!self->has_span))
    {
      self->has_span = TRUE;
      self->span_start = self->span_end = time_ns;
    }
  else if (time_ns < self->span_start)
    self->span_start = time_ns;
  else if (time_ns > self->span_end)
    self->span_end = time_ns;
}

static gboolean
offer_observed (TslTrace *self,
                guint     track,
                gint64    time_ns,
                double    value)
{
  Track *t;

  /* The previous event got no label (metric rows, unlabelled instants). */
  _tsl_trace_deliver_pending (self, NULL);

  if (self->has_filter && (time_ns < self->filter_start || time_ns >= self->filter_end))
    {
      self->pending_cpu = NAN;
      self->event_cpu = NAN;
      self->event_func (track, time_ns, value, NULL, FALSE, self->event_data);
      return FALSE;
    }

  t = get_track (self, track);
  self->pending_kept = self->observe_metrics_only && t->key.kind != TSL_TRACK_COUNTER &&
                                                     t->key.kind != TSL_TRACK_METRIC
                         ? FALSE
                         : tsl_sampler_offer (t->sampler, time_ns, value);
  self->has_pending = TRUE;
  self->pending_track = track;
  self->pending_time = time_ns;
  self->pending_value = value;
  self->pending_cpu = self->event_cpu;
  self->event_cpu = NAN;
  return TRUE;
}

void
tsl_trace_set_event_func (TslTrace          *self,
                          TslTraceEventFunc  func,
                          gpointer           user_data)
{
  g_return_if_fail (TSL_IS_TRACE (self));

  self->event_func = func;
  self->names_func = NULL;
  self->event_data = user_data;
  self->has_pending = FALSE;
  /* A thread time set while nobody observed must not reach the first event. */
  self->event_cpu = NAN;
  self->pending_cpu = NAN;
}

void
tsl_trace_set_names_func (TslTrace          *self,
                          TslTraceNamesFunc  func)
{
  g_return_if_fail (TSL_IS_TRACE (self));
  g_return_if_fail (func == NULL || self->event_func != NULL);

  self->names_func = func;
}

gboolean
tsl_trace_wants_names (TslTrace *self)
{
  return self->names_func != NULL && self->has_pending;
}

gboolean
tsl_trace_set_label_names (TslTrace      *self,
                           guint          track,
                           const guint32 *names,
                           guint          n_names)
{
  if (!tsl_trace_wants_names (self) || self->pending_track != track || n_names == 0)
    return TRUE;
  for (guint i = 0; i < n_names; i++)
    if (names[i] == 0 || names[i] >= self->strings->len || self->semicolons->data[names[i]])
      return TRUE;
  if (!self->names_func (track, self->pending_time, self->pending_value, names, n_names,
                         self->event_data))
    return TRUE;
  self->has_pending = FALSE;
  return self->pending_kept;
}

void
tsl_trace_set_observe_metrics_only (TslTrace *self,
                                    gboolean  only)
{
  g_return_if_fail (TSL_IS_TRACE (self));

  self->observe_metrics_only = !!only;
}

void
tsl_trace_flush_events (TslTrace *self)
{
  g_return_if_fail (TSL_IS_TRACE (self));

  if (self->event_func != NULL)
    _tsl_trace_deliver_pending (self, NULL);
}

/* Every offer but the usual one: an observer, the exact recorder, a time
 * filter, a counter's series ends, no such track. */
static G_GNUC_NO_INLINE gboolean
offer_unusual (TslTrace *self,
               guint     track,
               gint64    time_ns,
               double    value)
{
  if (G_UNLIKELY (track >= self->tracks->len))
    {
      g_critical ("%s: no track %u", "tsl_trace_offer", track);
      return FALSE;
    }

  note_time (self, time_ns);
  if (G_UNLIKELY (self->series_recorders != NULL))
    _tsl_trace_record_series_point (self, get_track (self, track), track, time_ns, value);
  if (time_ns < self->window_min)
    self->window_min = time_ns;
  if (time_ns > self->window_max)
    self->window_max = time_ns;
  /* A span reaches its end: a view it overlaps needs the chunk it is in. */
  if (get_track (self, track)->spans && value > 0 && value < 9.0e18)
    {
      gint64 end = time_ns <= G_MAXINT64 - (gint64) value ? time_ns + (gint64) value : G_MAXINT64;

      if (end > self->window_max)
        self->window_max = end;
    }
  if (G_UNLIKELY (self->event_func != NULL))
    return offer_observed (self, track, time_ns, value);
  if (G_UNLIKELY (self->exact != NULL))
    return _tsl_trace_offer_exact (self, track, time_ns, value);
  if (G_UNLIKELY (self->has_filter) &&
      (time_ns < self->filter_start || time_ns >= self->filter_end))
    return FALSE;

  return tsl_sampler_offer (get_track (self, track)->sampler, time_ns, value);
}

/* The usual offer's bookkeeping, for both offers below: the track, or
 * NULL when anything is unusual (the caller then goes out of line). Per
 * event: no type check, one bounds check, so that the usual offer saves
 * no registers and ends in a jump to the sampler's. */
static inline Track *
usual_offer (TslTrace *self,
             guint     track,
             gint64    time_ns,
             double    value)
{
  Track *t;

  if (G_UNLIKELY (track >= self->tracks->len))
    return NULL;
  t = get_track (self, track);
  if (G_UNLIKELY (self->event_func != NULL || self->exact != NULL || self->has_filter ||
                  (self->series_recorders != NULL &&
                   (t->key.kind == TSL_TRACK_COUNTER || t->key.kind == TSL_TRACK_METRIC))))
    return NULL;

  note_time (self, time_ns);
  if (time_ns < self->window_min)
    self->window_min = time_ns;
  if (time_ns > self->window_max)
    self->window_max = time_ns;
  /* A span reaches its end: a view it overlaps needs the chunk it is in. */
  if (t->spans && value > 0 && value < 9.0e18)
    {
      gint64 end = time_ns <= G_MAXINT64 - (gint64) value ? time_ns + (gint64) value : G_MAXINT64;

      if (end > self->window_max)
        self->window_max = end;
    }
  return t;
}

gboolean
tsl_trace_offer (TslTrace *self,
                 guint     track,
                 gint64    time_ns,
                 double    value)
{
  Track *t = usual_offer (self, track, time_ns, value);

  if (G_UNLIKELY (t == NULL))
    return offer_unusual (self, track, time_ns, value);
  return tsl_sampler_offer (t->sampler, time_ns, value);
}

/* The same, for a kept event's label known at once. */
static G_GNUC_NO_INLINE gboolean
offer_labelled_unusual (TslTrace *self,
                        guint     track,
                        gint64    time_ns,
                        double    value,
                        guint32   label)
{
  if (!offer_unusual (self, track, time_ns, value))
    return FALSE;
  tsl_trace_set_label_id (self, track, label);
  return TRUE;
}

gboolean
tsl_trace_offer_labelled (TslTrace *self,
                          guint     track,
                          gint64    time_ns,
                          double    value,
                          guint32   label)
{
  Track *t = usual_offer (self, track, time_ns, value);

  if (G_UNLIKELY (t == NULL))
    return offer_labelled_unusual (self, track, time_ns, value, label);
  return tsl_sampler_offer_labelled (t->sampler, time_ns, value, label);
}

gboolean
tsl_trace_offer_open (TslTrace *self,
                      guint     track,
                      gint64    start_ns)
{
  gint64 end = start_ns;
  gboolean kept;

  g_return_val_if_fail (TSL_IS_TRACE (self), FALSE);

  /* The span's real extent: a view, a range read or an aggregate past its
   * start sees it, where an instant at its start was seen by none. */
  if (self->has_span && self->span_end > start_ns)
    end = self->span_end;
  self->event_open = TSL_EXACT_OPEN;
  /* In a double: from near INT64_MIN to near INT64_MAX does not fit a
   * gint64, and the value's readers take one that large as no extent. */
  kept = tsl_trace_offer (self, track, start_ns, tsl_time_ns_between (start_ns, end));
  self->event_open = 0;
  return kept;
}

gboolean
tsl_trace_offer_open_start (TslTrace *self,
                            guint     track,
                            gint64    end_ns)
{
  gint64 start = end_ns;
  gboolean kept;

  g_return_val_if_fail (TSL_IS_TRACE (self), FALSE);

  if (self->has_span && self->span_start < end_ns)
    start = self->span_start;
  self->event_open = TSL_EXACT_OPEN_START;
  kept = tsl_trace_offer (self, track, start, tsl_time_ns_between (start, end_ns));
  self->event_open = 0;
  return kept;
}

void
tsl_trace_set_time_filter (TslTrace *self,
                           gint64    start_ns,
                           gint64    end_ns)
{
  g_return_if_fail (TSL_IS_TRACE (self));

  self->has_filter = TRUE;
  self->filter_start = start_ns;
  self->filter_end = end_ns;
}

void
tsl_trace_clear_time_filter (TslTrace *self)
{
  g_return_if_fail (TSL_IS_TRACE (self));

  self->has_filter = FALSE;
}

void
tsl_trace_forget_counts (TslTrace *self)
{
  g_return_if_fail (TSL_IS_TRACE (self));

  self->events = 0;
  memset (self->flows, 0, sizeof self->flows);
  self->has_span = FALSE;
  self->has_cpu = FALSE;
  self->span_start = self->span_end = 0;
  tsl_warnings_free (self->warnings);
  self->warnings = tsl_warnings_new ();
}

gboolean
tsl_trace_get_time_filter (TslTrace *self,
                           gint64   *start_ns,
                           gint64   *end_ns)
{
  g_return_val_if_fail (TSL_IS_TRACE (self), FALSE);

  *start_ns = self->filter_start;
  *end_ns = self->filter_end;
  return self->has_filter;
}

gboolean
tsl_trace_take_window (TslTrace *self,
                       gint64   *min_ns,
                       gint64   *max_ns,
                       guint64  *changes)
{
  gboolean any;

  g_return_val_if_fail (TSL_IS_TRACE (self), FALSE);

  any = self->window_min <= self->window_max;
  *min_ns = self->window_min;
  *max_ns = self->window_max;
  *changes = self->changes;
  self->window_min = G_MAXINT64;
  self->window_max = G_MININT64;
  return any;
}

void
tsl_trace_note_change (TslTrace *self)
{
  g_return_if_fail (TSL_IS_TRACE (self));

  self->changes++;
}

void
tsl_trace_add_events (TslTrace *self,
                      guint64   n)
{
  g_return_if_fail (TSL_IS_TRACE (self));

  self->events += n;
}

guint64
tsl_trace_get_events (TslTrace *self)
{
  g_return_val_if_fail (TSL_IS_TRACE (self), 0);

  return self->events;
}

gboolean
tsl_trace_get_span (TslTrace *self,
                    gint64   *start_ns,
                    gint64   *end_ns)
{
  g_return_val_if_fail (TSL_IS_TRACE (self), FALSE);

  if (start_ns != NULL)
    *start_ns = self->has_span ? self->span_start : 0;
  if (end_ns != NULL)
    *end_ns = self->has_span ? self->span_end : 0;

  return self->has_span;
}

void
tsl_trace_note_time (TslTrace *self,
                     gint64    time_ns)
{
  /* Per event, as tsl_trace_offer(): no type check. */
  note_time (self, time_ns);
}

void
tsl_trace_set_has_time (TslTrace *self,
                        gboolean  has_time)
{
  g_return_if_fail (TSL_IS_TRACE (self));
  self->changes++;

  self->has_time = !!has_time;
}

gboolean
tsl_trace_get_has_time (TslTrace *self)
{
  g_return_val_if_fail (TSL_IS_TRACE (self), FALSE);

  return self->has_time;
}

gboolean
tsl_trace_get_has_cpu (TslTrace *self)
{
  g_return_val_if_fail (TSL_IS_TRACE (self), FALSE);

  return self->has_cpu;
}
