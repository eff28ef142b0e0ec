/* tsl-perfetto-track-table.c: the model's tracks by uuid and by legacy thread, and the trace track each becomes
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Tracks: a TrackDescriptor with a thread is a thread track (pid, tid); with
 * a counter, a counter track; any other (process-scoped or global async
 * tracks) an async track named after the descriptor, in the process of its
 * nearest ancestor that has one. The descriptors themselves are read in
 * tsl-perfetto-tracks.c; the lookups on every event are inline in
 * tsl-perfetto-track-table.h.
 */
#define G_LOG_DOMAIN "tsl-perfetto"

#include "tsl-perfetto-track-table.h"

Track *
_tsl_perfetto_lookup_track (TslPerfettoModel *self,
                            guint64           uuid,
                            gboolean          create)
{
  Track *track;
  guint64 found;

  for (guint i = 0; i < 2; i++)
    if (self->last_track[i] != NULL && self->last_track[i]->uuid == uuid)
      return self->last_track[i];
  if (id_map_lookup (&self->tracks, uuid, &found))
    track = GSIZE_TO_POINTER (found);
  else if (create)
    {
      track = g_new0 (Track, 1);
      track->uuid = uuid;
      track->mult = 1;
      _tsl_perfetto_id_map_insert (&self->tracks, uuid, GPOINTER_TO_SIZE (track));
      note_change (self);
    }
  else
    return NULL;
  self->last_track[1] = self->last_track[0];
  self->last_track[0] = track;
  return track;
}

/* The pid of the nearest ancestor (or the track itself) that has one. */
static gint64
track_pid (TslPerfettoModel *self,
           Track            *track)
{
  for (guint depth = 0; track != NULL && depth < 32; depth++)
    {
      if (track->kind == TRACK_THREAD || track->kind == TRACK_PROCESS)
        return track->pid;
      if (!track->has_parent)
        break;
      track = lookup_track (self, track->parent, FALSE);
    }
  return 0;
}

/* The thread a counter belongs to (Chrome's per-thread CPU time), if any. */
static Track *
thread_ancestor (TslPerfettoModel *self,
                 Track            *track)
{
  for (guint depth = 0; track->has_parent && depth < 32; depth++)
    {
      track = lookup_track (self, track->parent, FALSE);
      if (track == NULL || track->kind == TRACK_PROCESS)
        return NULL;
      if (track->kind == TRACK_THREAD)
        return track;
    }
  return NULL;
}

guint
_tsl_perfetto_make_ts_track (TslPerfettoModel *self,
                             Track            *track)
{
  const char *name;

  if (track->kind == TRACK_UNDESCRIBED && track->uuid != 0)
    self->counts.n_late_descriptor++;
  if (track->kind == TRACK_THREAD)
    {
      track->ts_track = tsl_trace_ensure_track (self->trace, TSL_TRACK_THREAD,
                                                track->pid, track->tid, NULL);
      track->is_thread = TRUE;
      tsl_trace_track_set_unit (self->trace, track->ts_track, "ns");
    }
  else
    {
      g_autofree char *fallback = NULL;

      track->is_thread = FALSE;
      name = track->name != 0 ? tsl_trace_lookup (self->trace, track->name) : NULL;
      if (name == NULL)
        name = fallback = track->uuid == 0 ? g_strdup ("Global")
                                           : g_strdup_printf ("Track %" G_GUINT64_FORMAT, track->uuid);
      if (track->kind == TRACK_COUNTER)
        {
          Track *thread = thread_ancestor (self, track);
          g_autofree char *full = NULL;

          /* Counter tracks are told apart by name within a process. */
          if (thread != NULL && thread->thread_name != 0)
            name = full = g_strdup_printf ("%s (%s %" G_GINT64_FORMAT ")", name,
                                           tsl_trace_lookup (self->trace, thread->thread_name),
                                           thread->tid);
          else if (thread != NULL)
            name = full = g_strdup_printf ("%s (thread %" G_GINT64_FORMAT ")", name, thread->tid);
          track->ts_track = tsl_trace_ensure_track (self->trace, TSL_TRACK_COUNTER,
                                                    track_pid (self, track), 0, name);
          if (track->unit != 0)
            tsl_trace_track_set_unit (self->trace, track->ts_track,
                                      tsl_trace_lookup (self->trace, track->unit));
        }
      else
        {
          track->ts_track = tsl_trace_ensure_track (self->trace, TSL_TRACK_ASYNC,
                                                    track_pid (self, track), 0, name);
          tsl_trace_track_set_unit (self->trace, track->ts_track, "ns");
        }
    }
  track->has_ts_track = TRUE;
  note_change (self);
  return track->ts_track;
}

Track *
_tsl_perfetto_thread_track (TslPerfettoModel *self,
                            gint64            pid,
                            gint64            tid)
{
  guint64 key = (guint64) pid << 32 ^ (guint64) tid;
  guint64 found;
  Track *track;

  if (id_map_lookup (&self->legacy_threads, key, &found))
    return GSIZE_TO_POINTER (found);
  track = lookup_track (self, self->legacy_uuid++, TRUE);
  track->kind = TRACK_THREAD;
  track->pid = pid;
  track->tid = tid;
  _tsl_perfetto_id_map_insert (&self->legacy_threads, key, GPOINTER_TO_SIZE (track));
  return track;
}
