/* tsl-trace-meta.c: the names and sort indices of processes and threads
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Metadata a reader gives apart from events (Chrome "M" events, Perfetto
 * descriptors), kept per process and per thread whether or not a track of
 * them exists yet; and the titles of tracks whose key is an id.
 */
#define G_LOG_DOMAIN "tsl-trace"

#include "tsl-trace-private.h"

Meta *
_tsl_trace_lookup_thread (TslTrace *self,
                          gint64    pid,
                          gint64    tid)
{
  TrackKey key = { TSL_TRACK_THREAD, pid, tid, 0 };

  return g_hash_table_lookup (self->threads, &key);
}

/* Names and sort indices may come for a million threads that will have no
 * track of their own: past as many as the budget has room for tracks, only
 * those of threads with a track are kept. */
static gboolean
meta_has_room (TslTrace   *self,
               GHashTable *table)
{
  if (g_hash_table_size (table) < tsl_budget_get_limit (self->budget) / 2 / TRACK_COST)
    return TRUE;
  self->dropped_meta++;
  return FALSE;
}

static Meta *
ensure_process (TslTrace *self,
                gint64    pid)
{
  Meta *meta = g_hash_table_lookup (self->processes, &pid);

  if (meta == NULL)
    {
      if (pid != FOLD_PID && !meta_has_room (self, self->processes))
        return NULL;
      meta = g_new0 (Meta, 1);
      g_hash_table_insert (self->processes, g_memdup2 (&pid, sizeof pid), meta);
    }

  return meta;
}

static Meta *
ensure_thread (TslTrace *self,
               gint64    pid,
               gint64    tid)
{
  Meta *meta = _tsl_trace_lookup_thread (self, pid, tid);

  if (meta == NULL)
    {
      TrackKey key = { TSL_TRACK_THREAD, pid, tid, 0 };

      if (!g_hash_table_contains (self->track_ids, &key) &&
          !meta_has_room (self, self->threads))
        return NULL;

      meta = g_new0 (Meta, 1);
      g_hash_table_insert (self->threads, g_memdup2 (&key, sizeof key), meta);
    }

  return meta;
}

void
tsl_trace_set_process_name (TslTrace   *self,
                            gint64      pid,
                            const char *name)
{
  Meta *meta;

  g_return_if_fail (TSL_IS_TRACE (self));
  self->changes++;

  if ((meta = ensure_process (self, pid)) != NULL)
    meta->name = tsl_trace_intern (self, name);
}

/**
 * tsl_trace_get_process_name:
 *
 * Returns: (transfer none) (nullable): the name from metadata.
 */
const char *
tsl_trace_get_process_name (TslTrace *self,
                            gint64    pid)
{
  Meta *meta;

  g_return_val_if_fail (TSL_IS_TRACE (self), NULL);

  meta = g_hash_table_lookup (self->processes, &pid);
  return meta != NULL ? tsl_trace_lookup (self, meta->name) : NULL;
}

void
tsl_trace_set_thread_name (TslTrace   *self,
                           gint64      pid,
                           gint64      tid,
                           const char *name)
{
  Meta *meta;

  g_return_if_fail (TSL_IS_TRACE (self));
  self->changes++;

  if ((meta = ensure_thread (self, pid, tid)) != NULL)
    meta->name = tsl_trace_intern (self, name);
}

/**
 * tsl_trace_get_thread_name:
 *
 * Returns: (transfer none) (nullable): the name from metadata.
 */
const char *
tsl_trace_get_thread_name (TslTrace *self,
                           gint64    pid,
                           gint64    tid)
{
  Meta *meta;

  g_return_val_if_fail (TSL_IS_TRACE (self), NULL);

  meta = _tsl_trace_lookup_thread (self, pid, tid);
  return meta != NULL ? tsl_trace_lookup (self, meta->name) : NULL;
}

void
tsl_trace_set_process_sort_index (TslTrace *self,
                                  gint64    pid,
                                  int       index)
{
  Meta *meta;

  g_return_if_fail (TSL_IS_TRACE (self));
  self->changes++;

  if ((meta = ensure_process (self, pid)) == NULL)
    return;
  meta->has_sort_index = TRUE;
  meta->sort_index = index;
}

/* The process_sort_index from metadata, 0 when none was given. */
int
tsl_trace_get_process_sort_index (TslTrace *self,
                                  gint64    pid)
{
  Meta *meta;

  g_return_val_if_fail (TSL_IS_TRACE (self), 0);

  meta = g_hash_table_lookup (self->processes, &pid);
  return meta != NULL && meta->has_sort_index ? meta->sort_index : 0;
}

void
tsl_trace_set_thread_sort_index (TslTrace *self,
                                 gint64    pid,
                                 gint64    tid,
                                 int       index)
{
  Meta *meta;

  g_return_if_fail (TSL_IS_TRACE (self));
  self->changes++;

  if ((meta = ensure_thread (self, pid, tid)) == NULL)
    return;
  meta->has_sort_index = TRUE;
  meta->sort_index = index;
}

void
tsl_trace_track_set_title (TslTrace   *self,
                           guint       track,
                           const char *title)
{
  Track *t;
  guint32 id;

  g_return_if_fail (TSL_IS_TRACE (self));
  g_return_if_fail (track < self->tracks->len);

  t = g_ptr_array_index (self->tracks, track);
  g_return_if_fail (t->key.kind != TSL_TRACK_THREAD);
  if (tsl_trace_track_is_folded (self, track))
    return;
  id = title != NULL && title[0] != '\0' ? tsl_trace_intern (self, title) : 0;
  if (id == t->title)
    return;
  /* A name: the chunk that sets it is read by every range read. */
  self->changes++;
  t->title = id;
}

/**
 * tsl_trace_track_get_title:
 *
 * Returns: (transfer none) (nullable): the title tsl_trace_track_set_title()
 *   gave the track.
 */
const char *
tsl_trace_track_get_title (TslTrace *self,
                           guint     track)
{
  g_return_val_if_fail (TSL_IS_TRACE (self), NULL);
  g_return_val_if_fail (track < self->tracks->len, NULL);

  return tsl_trace_lookup (self, ((Track *) g_ptr_array_index (self->tracks, track))->title);
}
