/* tsl-trace-tracks.c: a trace's tracks: made, folded past the budget, and described
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One sampler per track. Thread tracks are keyed by (pid, tid), counters and
 * async tracks by name within a process too; past the memory budget new
 * tracks of a kind fold into one "other …" track of that kind.
 */
#define G_LOG_DOMAIN "tsl-trace"

#include <stdio.h>
#include <string.h>

#include "tsl-trace-private.h"

static const char *const fold_names[] = {
  [TSL_TRACK_THREAD] = "other threads",
  [TSL_TRACK_COUNTER] = "other counters",
  [TSL_TRACK_METRIC] = "other series",
  [TSL_TRACK_ASYNC] = "other async spans",
};

const char *
tsl_track_kind_to_string (TslTrackKind kind)
{
  static const char *names[] = { "thread", "counter", "metric", "async" };

  return (guint) kind < G_N_ELEMENTS (names) ? names[kind] : "unknown";
}

static TslSampler *
new_sampler (TslTrace       *self,
             const TrackKey *key)
{
  TslSampler *sampler;

  if (self->mode == TSL_SAMPLER_TIME)
    sampler = tsl_sampler_new_time (self->grid, self->seed);
  else
    sampler = tsl_sampler_new_count (self->k, self->seed, _tsl_trace_first_index (self, key));
  tsl_sampler_set_budget (sampler, self->budget);
  return sampler;
}

static guint
add_track (TslTrace       *self,
           const TrackKey *key)
{
  Track *track = g_new0 (Track, 1);

  track->key = *key;
  track->sampler = new_sampler (self, key);
  g_ptr_array_add (self->tracks, track);
  return self->tracks->len - 1;
}

guint
_tsl_trace_add_track (TslTrace       *self,
                      const TrackKey *key,
                      TslSampler     *sampler,
                      gboolean        folded)
{
  Track *track = g_new0 (Track, 1);

  track->key = *key;
  track->sampler = sampler;
  tsl_budget_take (self->budget, TRACK_COST);
  g_ptr_array_add (self->tracks, track);
  if (folded)
    self->fold_tracks[MIN ((guint) key->kind, TSL_TRACE_N_KINDS - 1)] = self->tracks->len;
  else
    g_hash_table_insert (self->track_ids, &track->key, GUINT_TO_POINTER (self->tracks->len));
  return self->tracks->len - 1;
}

const char *
_tsl_trace_fold_name (TslTrackKind kind)
{
  return fold_names[MIN ((guint) kind, G_N_ELEMENTS (fold_names) - 1)];
}

/* The track everything of `kind` goes to once the budget is spent; made
 * whatever the budget (one per kind at most), outside track_ids. */
static guint
fold_track (TslTrace     *self,
            TslTrackKind  kind)
{
  TrackKey key = { kind, FOLD_PID, 0, 0 };
  g_autoptr(TslBudget) reserve = NULL;
  guint track;

  if ((guint) kind >= G_N_ELEMENTS (fold_names))
    kind = TSL_TRACK_THREAD;
  if (self->fold_tracks[kind] != 0)
    return self->fold_tracks[kind] - 1;

  tsl_budget_take (self->budget, TRACK_COST);
  key.name = tsl_trace_intern (self, fold_names[kind]);
  track = add_track (self, &key);
  /* The budget is spent by now: a reserve of its own, enough for K..2K
   * samples unless K is huge, so what folds is still drawn evenly. */
  reserve = tsl_budget_new (tsl_budget_get_limit (self->budget) / 16);
  tsl_sampler_set_budget (((Track *) g_ptr_array_index (self->tracks, track))->sampler, reserve);
  self->fold_tracks[kind] = track + 1;
  if (tsl_trace_get_process_name (self, FOLD_PID) == NULL)
    {
      tsl_trace_set_process_name (self, FOLD_PID, "folded (memory budget)");
      tsl_trace_set_process_sort_index (self, FOLD_PID, G_MAXINT);
    }
  return track;
}

static guint ensure_key (TslTrace       *self,
                         const TrackKey *key);

/* Thread tracks are keyed by (pid, tid); counters and async tracks by
 * (pid, name); metrics by name alone. Returns the track's index. */
guint
tsl_trace_ensure_track (TslTrace     *self,
                        TslTrackKind  kind,
                        gint64        pid,
                        gint64        tid,
                        const char   *name)
{
  TrackKey key = { kind, pid, tid, 0 };

  g_return_val_if_fail (TSL_IS_TRACE (self), 0);

  switch (kind)
    {
    case TSL_TRACK_THREAD:
      /* The thread's own; its parts are tsl_trace_ensure_thread_part()'s. */
      break;
    case TSL_TRACK_METRIC:
      key.pid = 0;
      G_GNUC_FALLTHROUGH;
    case TSL_TRACK_COUNTER:
    case TSL_TRACK_ASYNC:
    default:
      key.tid = 0;
      if (name == NULL)
        name = "";
      /* A folded series' name is not kept: a name never seen has no track. */
      if (self->folding && !_tsl_trace_lookup_string (self, name, &key.name))
        return fold_track (self, kind);
      key.name = tsl_trace_intern (self, name);
      break;
    }
  return ensure_key (self, &key);
}

guint
tsl_trace_ensure_thread_part (TslTrace   *self,
                              gint64      pid,
                              gint64      tid,
                              const char *part)
{
  TrackKey key = { TSL_TRACK_THREAD, pid, tid, 0 };

  g_return_val_if_fail (TSL_IS_TRACE (self), 0);
  g_return_val_if_fail (part != NULL && *part != '\0', 0);

  if (self->folding && !_tsl_trace_lookup_string (self, part, &key.name))
    return fold_track (self, TSL_TRACK_THREAD);
  key.name = tsl_trace_intern (self, part);
  return ensure_key (self, &key);
}

/* The track of a key made above, found or added. */
static guint
ensure_key (TslTrace       *self,
            const TrackKey *key_in)
{
  TrackKey key = *key_in;
  gpointer found;
  Track *track;

  found = g_hash_table_lookup (self->track_ids, &key);
  if (found != NULL)
    return GPOINTER_TO_UINT (found) - 1;

  self->changes++;

  /* Tracks take at most half the budget, so there is room left for the
   * samples of those that grow. */
  if (self->folding ||
      !tsl_budget_try_take_below (self->budget, TRACK_COST, tsl_budget_get_limit (self->budget) / 2))
    {
      self->folding = TRUE;
      return fold_track (self, key.kind);
    }

  add_track (self, &key);
  track = g_ptr_array_index (self->tracks, self->tracks->len - 1);
  g_hash_table_insert (self->track_ids, &track->key, GUINT_TO_POINTER (self->tracks->len));
  return self->tracks->len - 1;
}

/* TRUE for the "other …" tracks that hold what the budget folded: readers
 * do not remember per-thread or per-series state for what maps there. */
gboolean
tsl_trace_track_is_folded (TslTrace *self,
                           guint     track)
{
  g_return_val_if_fail (TSL_IS_TRACE (self), FALSE);

  for (guint i = 0; i < G_N_ELEMENTS (self->fold_tracks); i++)
    if (self->fold_tracks[i] == track + 1)
      return TRUE;
  return FALSE;
}

guint
tsl_trace_get_n_tracks (TslTrace *self)
{
  g_return_val_if_fail (TSL_IS_TRACE (self), 0);

  return self->tracks->len;
}

#define CHECK_TRACK(self, track, val) \
  G_STMT_START { \
    g_return_val_if_fail (TSL_IS_TRACE (self), val); \
    g_return_val_if_fail (track < self->tracks->len, val); \
  } G_STMT_END

TslTrackKind
tsl_trace_track_get_kind (TslTrace *self,
                          guint     track)
{
  CHECK_TRACK (self, track, TSL_TRACK_THREAD);

  return get_track (self, track)->key.kind;
}

/**
 * tsl_trace_track_get_name:
 *
 * Returns: (transfer none): the thread name from metadata, else the track's
 *   name, else "Thread TID"; valid as long as the trace.
 */
const char *
tsl_trace_track_get_name (TslTrace *self,
                          guint     track)
{
  Track *t;
  Meta *meta;

  CHECK_TRACK (self, track, NULL);

  t = get_track (self, track);
  if (t->title != 0)
    return tsl_trace_lookup (self, t->title);
  /* Thread keys have no name but the fold track's and a thread part's. */
  if (t->key.kind != TSL_TRACK_THREAD || (t->key.name != 0 && t->key.pid == FOLD_PID))
    return tsl_trace_lookup (self, t->key.name);

  meta = _tsl_trace_lookup_thread (self, t->key.pid, t->key.tid);
  if (t->key.name != 0)
    {
      /* "THREAD PART": the thread's name may come after the track. */
      g_autofree char *name = NULL;

      if (meta != NULL && meta->name != 0)
        name = g_strdup_printf ("%s %s", tsl_trace_lookup (self, meta->name),
                                tsl_trace_lookup (self, t->key.name));
      else
        name = g_strdup_printf ("Thread %" G_GINT64_FORMAT " %s", t->key.tid,
                                tsl_trace_lookup (self, t->key.name));
      return tsl_trace_lookup (self, tsl_trace_intern (self, name));
    }
  if (meta != NULL && meta->name != 0)
    return tsl_trace_lookup (self, meta->name);

  if (t->display == 0)
    {
      char buf[64];

      g_snprintf (buf, sizeof buf, "Thread %" G_GINT64_FORMAT, t->key.tid);
      t->display = tsl_trace_intern (self, buf);
    }

  return tsl_trace_lookup (self, t->display);
}

gint64
tsl_trace_track_get_pid (TslTrace *self,
                         guint     track)
{
  CHECK_TRACK (self, track, 0);

  return get_track (self, track)->key.pid;
}

gint64
tsl_trace_track_get_tid (TslTrace *self,
                         guint     track)
{
  CHECK_TRACK (self, track, 0);

  return get_track (self, track)->key.tid;
}

/**
 * tsl_trace_track_get_unit:
 *
 * Returns: (transfer none) (nullable): the unit of the track's values.
 */
const char *
tsl_trace_track_get_unit (TslTrace *self,
                          guint     track)
{
  CHECK_TRACK (self, track, NULL);

  return tsl_trace_lookup (self, get_track (self, track)->unit);
}

void
tsl_trace_track_set_unit (TslTrace   *self,
                          guint       track,
                          const char *unit)
{
  Track *t;

  g_return_if_fail (TSL_IS_TRACE (self));
  self->changes++;
  g_return_if_fail (track < self->tracks->len);

  t = get_track (self, track);
  t->unit = tsl_trace_intern (self, unit);
  t->spans = (t->key.kind == TSL_TRACK_THREAD || t->key.kind == TSL_TRACK_ASYNC) &&
             g_strcmp0 (unit, "ns") == 0;
}

void
tsl_trace_track_set_sampled (TslTrace *self,
                             guint     track,
                             gboolean  sampled)
{
  g_return_if_fail (TSL_IS_TRACE (self));
  g_return_if_fail (track < self->tracks->len);

  get_track (self, track)->sampled = sampled;
}

gboolean
tsl_trace_track_get_sampled (TslTrace *self,
                             guint     track)
{
  CHECK_TRACK (self, track, FALSE);

  return get_track (self, track)->sampled;
}

/* Threads: their thread_sort_index, else 0 (order by process first, see
 * tsl_trace_get_process_sort_index()). Other tracks: 0. */
int
tsl_trace_track_get_sort_index (TslTrace *self,
                                guint     track)
{
  Track *t;
  Meta *meta;

  CHECK_TRACK (self, track, 0);

  t = get_track (self, track);
  if (t->key.kind != TSL_TRACK_THREAD)
    return 0;

  meta = _tsl_trace_lookup_thread (self, t->key.pid, t->key.tid);
  return meta != NULL && meta->has_sort_index ? meta->sort_index : 0;
}

/**
 * tsl_trace_track_get_sampler:
 *
 * Returns: (transfer none): the track's sampler; use it with the trace locked.
 */
TslSampler *
tsl_trace_track_get_sampler (TslTrace *self,
                             guint     track)
{
  CHECK_TRACK (self, track, NULL);

  return get_track (self, track)->sampler;
}

static void
recorder_clear (gpointer data)
{
  tsl_series_recorder_clear (data);
}

void
tsl_trace_record_series_ends (TslTrace *self)
{
  g_return_if_fail (TSL_IS_TRACE (self));

  g_clear_pointer (&self->series_recorders, g_array_unref);
  self->series_recorders = g_array_new (FALSE, TRUE, sizeof (TslSeriesRecorder));
  g_array_set_clear_func (self->series_recorders, recorder_clear);
}

void
_tsl_trace_grow_series_recorders (TslTrace *self,
                                  guint     track)
{
  g_array_set_size (self->series_recorders, MAX (track + 1, self->tracks->len));
}

TslSeriesEnds *
tsl_trace_get_series_ends (TslTrace *self,
                           gboolean  stop)
{
  TslSeriesEnds *ends;

  g_return_val_if_fail (TSL_IS_TRACE (self), NULL);

  if (self->series_recorders == NULL)
    return NULL;
  ends = tsl_series_ends_new ();
  for (guint i = 0; i < self->series_recorders->len; i++)
    {
      TslSeriesRecorder *rec = &g_array_index (self->series_recorders, TslSeriesRecorder, i);
      const TrackKey *key = &get_track (self, i)->key;
      TslSeriesEnd end;

      if (!rec->offered || tsl_trace_track_is_folded (self, i))
        continue;
      tsl_series_recorder_finish (rec, &end);
      tsl_series_ends_add (ends, key->kind, key->pid, key->tid, tsl_trace_lookup (self, key->name), &end);
    }
  if (stop)
    g_clear_pointer (&self->series_recorders, g_array_unref);
  return ends;
}

void
tsl_trace_set_file_series_ends (TslTrace      *self,
                                TslSeriesEnds *ends)
{
  g_return_if_fail (TSL_IS_TRACE (self));

  if (ends != NULL)
    tsl_series_ends_ref (ends);
  g_clear_pointer (&self->file_series_ends, tsl_series_ends_unref);
  self->file_series_ends = ends;
}

const TslSeriesEnd *
tsl_trace_get_file_series_end (TslTrace *self,
                               guint     track)
{
  const TrackKey *key;

  CHECK_TRACK (self, track, NULL);

  if (self->file_series_ends == NULL || tsl_trace_track_is_folded (self, track))
    return NULL;
  key = &get_track (self, track)->key;
  return tsl_series_ends_lookup (self->file_series_ends, key->kind, key->pid, key->tid,
                                 tsl_trace_lookup (self, key->name));
}
