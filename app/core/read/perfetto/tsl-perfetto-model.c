/* tsl-perfetto-model.c: Perfetto TracePackets into a TslTrace
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Field numbers are those of the public perfetto_trace.proto. Each packet is
 * decoded in place, once: the TracePacket's fields first (timestamp, clock,
 * sequence, flags, where its interned data, defaults and payload are), then
 * the payload. Nothing is allocated per event: interned ids resolve through
 * open-addressing maps of the packet's sequence, slices nest on per-track
 * stacks, and names and stacks are only looked up for the events the
 * sampler keeps.
 *
 * The model proper: packets in order, track events onto per-track stacks
 * of open slices, counters, flows and the counts that become warnings. Its
 * parts: sequences and interned data (tsl-perfetto-intern.c, on the maps
 * of tsl-perfetto-id-map.c), clocks (tsl-perfetto-clocks.c), the track
 * table (tsl-perfetto-track-table.c) and the descriptors that fill it
 * (tsl-perfetto-tracks.c), sampled stacks (tsl-perfetto-profiles.c) and
 * compressed bundles (tsl-perfetto-inflate.c); none of them calls back
 * into this file. Slices on thread tracks are labelled with their stack of
 * open slices, on async tracks with their own name. The trace is read as a
 * stream, so a packet on a clock no snapshot has yet related to the trace
 * clock is skipped and counted.
 */
#define G_LOG_DOMAIN "tsl-perfetto"

#define _GNU_SOURCE   /* memrchr */

#include <math.h>
#include <string.h>

#include "tsl-perfetto-clocks.h"
#include "tsl-perfetto-inflate.h"
#include "tsl-perfetto-intern.h"
#include "tsl-perfetto-profiles.h"
#include "tsl-perfetto-track-table.h"
#include "tsl-perfetto-tracks.h"
#include "tsl-proto.h"
#include "tsl-rng.h"

TslPerfettoModel *
tsl_perfetto_model_new (TslTrace *trace)
{
  TslPerfettoModel *self = g_new0 (TslPerfettoModel, 1);

  self->trace = trace;
  self->packet_offset = -1;
  self->event_thread_ns = NO_THREAD_TIME;
  self->trace_clock = BUILTIN_BOOTTIME;
  self->clock_epoch = 1;
  self->legacy_uuid = G_GUINT64_CONSTANT (1) << 63;
  self->user_clock_list = g_array_new (FALSE, TRUE, sizeof (Clock));
  for (guint i = 0; i < MAX_NESTING; i++)
    self->inflated[i] = g_byte_array_new ();
  self->label = g_string_new (NULL);
  self->unnamed = tsl_trace_intern (trace, "(unnamed)");
  self->before_trace = tsl_trace_intern (trace, "(begun before the trace)");
  return self;
}

void
tsl_perfetto_model_free (TslPerfettoModel *self)
{
  if (self == NULL)
    return;

  for (gsize i = 0; self->sequences.keys != NULL && i <= self->sequences.mask; i++)
    if (self->sequences.used[i])
      _tsl_perfetto_sequence_free (GSIZE_TO_POINTER (self->sequences.values[i]));
  for (gsize i = 0; self->tracks.keys != NULL && i <= self->tracks.mask; i++)
    if (self->tracks.used[i])
      {
        Track *track = GSIZE_TO_POINTER (self->tracks.values[i]);

        g_free (track->open);
        g_free (track->early);
        g_free (track);
      }
  _tsl_perfetto_id_map_free (&self->sequences);
  _tsl_perfetto_id_map_free (&self->tracks);
  _tsl_perfetto_id_map_free (&self->legacy_threads);
  _tsl_perfetto_id_map_free (&self->user_clocks);
  _tsl_perfetto_id_map_free (&self->paths);
  g_array_unref (self->user_clock_list);
  g_clear_object (&self->inflate);
  for (guint i = 0; i < MAX_NESTING; i++)
    g_byte_array_unref (self->inflated[i]);
  if (self->zstd != NULL)
    ZSTD_freeDStream (self->zstd);
  if (self->packer != NULL)
    ZSTD_freeCCtx (self->packer);
  g_string_free (self->label, TRUE);
  g_free (self);
}

guint64
tsl_perfetto_model_take_events (TslPerfettoModel *self)
{
  guint64 n = self->events;

  self->events = 0;
  return n;
}

/* Track events */

static guint32
event_name_slow (TslPerfettoModel *self,
                 Sequence         *seq,
                 const Event      *ev)
{
  guint64 id;

  if (ev->name != NULL)
    return ev->name_len > 0
      ? tsl_trace_intern_len (self->trace, (const char *) ev->name, ev->name_len)
      : self->unnamed;
  if (!ev->has_name_iid)
    return self->unnamed;
  if (G_LIKELY (ev->name_iid < N_DIRECT_NAMES && seq->names[ev->name_iid] != 0))
    return seq->names[ev->name_iid] - 1;
  if (id_map_lookup (&seq->maps[MAP_NAMES], ev->name_iid, &id))
    return (guint32) id;
  self->counts.n_undefined_iid++;
  return self->unnamed;
}

/* Most names are small interned ids: inline. */
static inline guint32
event_name (TslPerfettoModel *self,
            Sequence         *seq,
            const Event      *ev)
{
  if (G_LIKELY (ev->name == NULL && ev->has_name_iid && ev->name_iid < N_DIRECT_NAMES &&
                seq->names[ev->name_iid] != 0))
    return seq->names[ev->name_iid] - 1;
  return event_name_slow (self, seq, ev);
}

/* "parent;name" as a label id, from a map of the stacks seen: a kept
 * slice's label is then found, not joined and hashed again (that was a
 * third of the time of small packets). A new path is a join whose text is
 * made only if a sampler keeps a sample of it to the end or someone reads
 * it (tsl_trace_join_later()). The map is capped, and long stacks are
 * left to the joined labels, so memory stays bounded. 0: not kept.
 * new_path() for one the caller looked up and did not find. */
static G_GNUC_NO_INLINE guint32
new_path (TslPerfettoModel *self,
          guint32           parent,
          guint32           name)
{
  guint32 found;

  if (self->paths.n >= MAX_PATHS)
    return 0;
  if (parent == 0)
    found = name;
  else if ((found = tsl_trace_join_later (self->trace, parent, name, MAX_PATH_LEN)) == 0)
    return 0;
  _tsl_perfetto_id_map_insert (&self->paths, (guint64) parent << 32 | name, found);
  return found;
}

static guint32
stack_path (TslPerfettoModel *self,
            guint32           parent,
            guint32           name)
{
  guint64 found;

  if (id_map_lookup (&self->paths, (guint64) parent << 32 | name, &found))
    return (guint32) found;
  return new_path (self, parent, name);
}

/* The path of the open slices [0, depth), or 0. */
static guint32
open_path (TslPerfettoModel *self,
           Track            *track,
           guint             depth)
{
  guint i = depth;

  if (depth == 0)
    return 0;
  /* Down to the deepest slice whose path is known, then back up. */
  while (i > 0 && track->open[i - 1].path == 0)
    i--;
  for (; i < depth; i++)
    {
      guint32 parent = i > 0 ? track->open[i - 1].path : 0;

      track->open[i].path = stack_path (self, parent, track->open[i].name);
      if (track->open[i].path == 0)
        return 0;
    }
  return track->open[depth - 1].path;
}

static void set_stack_label (TslPerfettoModel *self,
                             Track            *track,
                             guint             depth,
                             guint32           leaf);

/* The path of a slice begun on a thread track under its open slices: a
 * lookup now (a new path is only a join, tsl_trace_join_later()), so that
 * kept ends and instants find their stack's path and never walk it. 0 when
 * the path above is not kept (capped, too long). */
static inline guint32
begin_path (TslPerfettoModel *self,
            Track            *track,
            guint32           name)
{
  guint32 parent;
  guint64 found;

  if (G_UNLIKELY (!track->is_thread))
    return 0;
  if (track->n_open == 0)
    return name;
  parent = track->open[track->n_open - 1].path;
  if (parent == 0)
    return 0;
  if (G_LIKELY (id_map_lookup (&self->paths, (guint64) parent << 32 | name, &found)))
    return (guint32) found;
  return new_path (self, parent, name);
}

/* The label of a kept event at depth (leaf: its name, 0 for a slice that
 * ends there), inline for the common case (a thread track, the path above
 * it known, its own seen before), else 0: set_stack_label() then does the
 * rest. */
static inline guint32
kept_path (TslPerfettoModel *self,
           Track            *track,
           guint             depth,
           guint32           leaf)
{
  guint32 parent, name;
  guint64 found;

  if (G_UNLIKELY (!track->is_thread))
    return 0;
  if (leaf == 0)
    {
      OpenSlice *o = &track->open[depth - 1];

      if (o->path != 0)
        return o->path;
      parent = depth > 1 ? o[-1].path : 0;
      if (depth > 1 && parent == 0)
        return 0;
      if (!id_map_lookup (&self->paths, (guint64) parent << 32 | o->name, &found))
        return 0;
      return o->path = (guint32) found;
    }
  parent = depth > 0 ? track->open[depth - 1].path : 0;
  name = leaf;
  if ((depth > 0 && parent == 0) ||
      !id_map_lookup (&self->paths, (guint64) parent << 32 | name, &found))
    return 0;
  return (guint32) found;
}

/* A kept event's label: kept_path(), or the slow way. */
static inline void
label_kept (TslPerfettoModel *self,
            Track            *track,
            guint             depth,
            guint32           leaf)
{
  guint32 path = kept_path (self, track, depth, leaf);

  if (G_LIKELY (path != 0))
    tsl_trace_set_label_id (self->trace, track->ts_track, path);
  else
    set_stack_label (self, track, depth, leaf);
}

static void
set_stack_label (TslPerfettoModel *self,
                 Track            *track,
                 guint             depth,
                 guint32           leaf)
{
  GString *label = self->label;
  guint32 path;

  if (!track->is_thread)
    {
      tsl_trace_set_label_id (self->trace, track->ts_track,
                              leaf != 0 ? leaf : depth > 0 ? track->open[depth - 1].name : self->unnamed);
      return;
    }
  /* Most often a slice ends whose parent's path is known already. */
  if (leaf == 0 && depth > 0 && (depth == 1 || track->open[depth - 2].path != 0))
    {
      OpenSlice *o = &track->open[depth - 1];

      if (o->path == 0)
        o->path = stack_path (self, depth > 1 ? o[-1].path : 0, o->name);
      if (o->path != 0)
        {
          tsl_trace_set_label_id (self->trace, track->ts_track, o->path);
          return;
        }
    }
  path = open_path (self, track, depth);
  if (path != 0 || depth == 0)
    {
      if (leaf != 0)
        path = stack_path (self, path, leaf);
      if (path != 0)
        {
          tsl_trace_set_label_id (self->trace, track->ts_track, path);
          return;
        }
    }
  g_string_truncate (label, 0);
  for (guint i = 0; i < depth; i++)
    {
      if (i > 0)
        g_string_append_c (label, ';');
      g_string_append (label, tsl_trace_lookup (self->trace, track->open[i].name));
    }
  if (leaf != 0)
    {
      if (depth > 0)
        g_string_append_c (label, ';');
      g_string_append (label, tsl_trace_lookup (self->trace, leaf));
    }
  tsl_trace_set_label_joined (self->trace, track->ts_track, label->str, label->len);
}

static void
counter_value_slow (TslPerfettoModel *self,
                    Track            *track,
                    gint64            ts,
                    double            value)
{
  if (track->kind != TRACK_COUNTER)
    {
      if (track->kind != TRACK_UNDESCRIBED)
        {
          self->counts.n_bad_counter_track++;
          return;
        }
      track->kind = TRACK_COUNTER;
      note_change (self);
    }
  /* Chrome snapshots each thread's CPU time at every slice begin and end,
   * for slice CPU durations: as tracks, they would double the thread count.
   * The CPU time goes to the event's slice instead, kept even when no one
   * wants it: a checkpoint saves it, so a range read gives a slice open
   * there the CPU time a whole read gives it. */
  if (track->thread_time)
    {
      self->counts.n_thread_time++;
      if (track->thread_ns)
        {
          value *= track->mult;
          if (track->incremental)
            value = track->last_value += value;
          if (value >= 0 && value < 9.0e18)
            self->event_thread_ns = (gint64) value;
        }
      return;
    }
  value *= track->mult;
  if (track->incremental)
    value = track->last_value += value;
  tsl_trace_offer (self->trace, ts_track (self, track), ts, value);
}

/* Chrome's thread time, a value on every slice begin and end: inline. */
static inline void
counter_value (TslPerfettoModel *self,
               Track            *track,
               gint64            ts,
               double            value)
{
  if (G_LIKELY (track->kind == TRACK_COUNTER && track->thread_ns))
    {
      self->counts.n_thread_time++;
      value *= track->mult;
      if (track->incremental)
        value = track->last_value += value;
      if (value >= 0 && value < 9.0e18)
        self->event_thread_ns = (gint64) value;
      return;
    }
  counter_value_slow (self, track, ts, value);
}

/* The track of an event's extra counter value i: the sequence keeps the
 * last one for each i (its uuid checked), where most events name the same. */
static inline Track *
extra_track (TslPerfettoModel *self,
             Sequence         *seq,
             guint             i,
             guint64           uuid)
{
  Track *track = seq->extra_tracks[i];

  if (G_LIKELY (track != NULL && track->uuid == uuid))
    return track;
  return seq->extra_tracks[i] = lookup_track (self, uuid, TRUE);
}

static inline gint64
packet_offset (TslPerfettoModel *self)
{
  return self->nesting == 0 ? self->packet_offset : -1;
}

/* An event's flow ids bind to the slice it begins (or is): a flow id seen
 * before continues there, a terminating one ends there (Perfetto's
 * flow_ids are global within a trace). */
static void
record_flows (TslPerfettoModel *self,
              guint             t,
              gint64            ts,
              guint             depth,
              const Event      *ev)
{
  tsl_trace_count_flow (self->trace, TSL_FLOW_COUNT_FLOW_IDS, ev->flows_seen[0]);
  tsl_trace_count_flow (self->trace, TSL_FLOW_COUNT_TERMINATING, ev->flows_seen[1]);
  if (G_LIKELY (!tsl_trace_wants_flows (self->trace)))
    return;
  for (guint i = 0; i < ev->n_flow_ids; i++)
    tsl_trace_record_flow (self->trace, t, tsl_mix64 (0x9f10, ev->flow_ids[i]), ts, depth,
                           TSL_FLOW_BIND_SLICE, TSL_FLOW_IN | TSL_FLOW_OUT);
  for (guint i = 0; i < ev->n_term_flow_ids; i++)
    tsl_trace_record_flow (self->trace, t, tsl_mix64 (0x9f10, ev->term_flow_ids[i]), ts, depth,
                           TSL_FLOW_BIND_SLICE, TSL_FLOW_IN);
}

/* Most events have no flows: no call for them. */
static inline void
event_flows (TslPerfettoModel *self,
             guint             t,
             gint64            ts,
             guint             depth,
             const Event      *ev)
{
  if (G_UNLIKELY (ev->has_flows))
    record_flows (self, t, ts, depth, ev);
}

/* A slice end that found its track's stack empty (EarlyEnd in
 * tsl-perfetto-model-types.h). One before any begin on its track makes its
 * chunk a change: the slice it ends is shown from the trace's start, so
 * every view before its end needs that chunk. */
static void
early_end (TslPerfettoModel *self,
           Track            *track,
           gint64            ts)
{
  if (track->n_early == MAX_EARLY)
    {
      self->counts.n_misplaced_end++;
      return;
    }
  if (track->early == NULL)
    track->early = g_new (EarlyEnd, MAX_EARLY);
  if (!track->had_begin)
    note_change (self);
  track->early[track->n_early++] = (EarlyEnd) { ts, packet_offset (self), !track->had_begin };
  if (track->n_early == 1 || ts > track->early_max)
    track->early_max = ts;
}

/* A begin at ts whose end came earlier in the file (another sequence's
 * packets, written out later): the earliest end not before it, as
 * Perfetto pairs them once sorted by time. FALSE if there is none. */
static gboolean
pair_early_end (TslPerfettoModel *self,
                Track            *track,
                guint             t,
                gint64            ts,
                guint32           name)
{
  guint best = track->n_early;

  for (guint i = 0; i < track->n_early; i++)
    if (track->early[i].end_ns >= ts &&
        (best == track->n_early || track->early[i].end_ns < track->early[best].end_ns))
      best = i;
  if (best == track->n_early)
    return FALSE;
  tsl_trace_set_event_offset (self->trace, packet_offset (self));
  if (tsl_trace_offer (self->trace, t, ts, (double) (track->early[best].end_ns - ts)))
    set_stack_label (self, track, track->n_open, name);
  track->early[best] = track->early[--track->n_early];
  track->early_max = G_MININT64;
  for (guint i = 0; i < track->n_early; i++)
    track->early_max = MAX (track->early_max, track->early[i].end_ns);
  return TRUE;
}

static void
track_event (TslPerfettoModel *self,
             Sequence         *seq,
             gboolean          has_time,
             gint64            ts,
             const Event      *ev)
{
  Track *track;
  guint t;

  if (ev->has_tid_override)
    track = _tsl_perfetto_thread_track (self, ev->has_pid_override ? ev->pid_override : seq->pid,
                          ev->tid_override);
  else if (ev->has_track)
    track = lookup_track (self, ev->track, TRUE);
  else if (seq->has_track)
    {
      /* Tracks live as long as the model. */
      if (G_UNLIKELY (seq->default_track == NULL))
        seq->default_track = lookup_track (self, seq->track, TRUE);
      track = seq->default_track;
    }
  else if (seq->thread_track != NULL)
    track = seq->thread_track;
  else
    track = lookup_track (self, 0, TRUE);

  if (!has_time)
    {
      /* Legacy: microseconds on BUILTIN_MONOTONIC, deltas from the
       * sequence's ThreadDescriptor. */
      gint64 us;

      if (ev->has_absolute_us)
        us = ev->absolute_us;
      else if (ev->has_delta_us && seq->has_thread)
        us = seq->ts_us += ev->delta_us;
      else
        {
          self->counts.n_bad_clock++;
          return;
        }
      if (us < 0 || us > G_MAXINT64 / 1000 ||
          !to_trace_time (self, seq, BUILTIN_MONOTONIC, (guint64) us * 1000, &ts))
        return;
    }

  /* Extra counter values share the event's time. */
  self->event_thread_ns = NO_THREAD_TIME;
  for (guint i = 0; i < ev->n_extra_values; i++)
    {
      const guint64 *uuids = ev->has_extra_uuids ? ev->extra_uuids : seq->extra_uuids;
      guint n = ev->has_extra_uuids ? ev->n_extra_uuids : seq->n_extra_uuids;

      if (i < n)
        counter_value (self, extra_track (self, seq, i, uuids[i]), ts, (double) ev->extra_values[i]);
    }
  for (guint i = 0; i < ev->n_extra_double_values; i++)
    {
      const guint64 *uuids = ev->has_extra_double_uuids ? ev->extra_double_uuids
                                                        : seq->extra_double_uuids;
      guint n = ev->has_extra_double_uuids ? ev->n_extra_double_uuids : seq->n_extra_double_uuids;

      if (i < n)
        counter_value (self, lookup_track (self, uuids[i], TRUE), ts, ev->extra_double_values[i]);
    }

  switch (ev->type)
    {
    case TYPE_SLICE_BEGIN:
      {
        guint32 name = event_name (self, seq, ev);

        t = ts_track (self, track);
        if (G_UNLIKELY (!track->titled))
          _tsl_perfetto_title_track (self, track, t, name);
        tsl_trace_note_time (self->trace, ts);
        event_flows (self, t, ts, track->n_open, ev);
        if (G_UNLIKELY (!track->had_begin))
          {
            track->had_begin = TRUE;
            note_change (self);
          }
        if (G_UNLIKELY (track->n_early > 0) && ts <= track->early_max &&
            pair_early_end (self, track, t, ts, name))
          break;
        if (track->n_open >= MAX_DEPTH)
          {
            track->overflow++;
            self->counts.n_deep++;
            if (tsl_trace_offer (self->trace, t, ts, NAN))
              set_stack_label (self, track, track->n_open, name);
            break;
          }
        if (track->n_open == track->n_alloc)
          {
            track->n_alloc = MAX (8, track->n_alloc * 2);
            track->open = g_renew (OpenSlice, track->open, track->n_alloc);
          }
        track->open[track->n_open] = (OpenSlice) { ts, packet_offset (self), name,
                                                   begin_path (self, track, name),
                                                   self->event_thread_ns };
        track->n_open++;
        break;
      }

    case TYPE_SLICE_END:
      {
        const OpenSlice *open;
        guint i;

        t = ts_track (self, track);
        tsl_trace_note_time (self->trace, ts);
        if (track->overflow > 0)
          {
            track->overflow--;
            break;
          }
        /* The innermost slice begun by then, as Perfetto pairs them once
         * sorted by time: the top, but on a track several sequences write
         * their begins and ends come in batches, out of time order. */
        i = track->n_open;
        while (i > 0 && G_UNLIKELY (track->open[i - 1].start_ns > ts))
          i--;
        if (i == 0)
          {
            early_end (self, track, ts);
            break;
          }
        open = &track->open[i - 1];
        /* Offered now, at the slice's start, so it carries its duration. */
        tsl_trace_set_event_offset (self->trace, open->offset);
        /* Its CPU time: the thread's at its end less at its begin. */
        if (G_UNLIKELY (self->event_thread_ns != NO_THREAD_TIME) &&
            open->thread_ns != NO_THREAD_TIME && self->event_thread_ns >= open->thread_ns)
          tsl_trace_set_event_cpu (self->trace, (double) (self->event_thread_ns - open->thread_ns));
        /* Its path is nearly always known (begin_path()): offered with it. */
        if (G_LIKELY (open->path != 0 && track->is_thread))
          tsl_trace_offer_labelled (self->trace, t, open->start_ns, (double) (ts - open->start_ns),
                                    open->path);
        else if (tsl_trace_offer (self->trace, t, open->start_ns, (double) (ts - open->start_ns)))
          label_kept (self, track, i, 0);
        if (G_UNLIKELY (i < track->n_open))
          {
            /* Those above it were under it: their stacks change. */
            memmove (&track->open[i - 1], &track->open[i], (track->n_open - i) * sizeof (OpenSlice));
            for (guint j = i - 1; j < track->n_open - 1; j++)
              track->open[j].path = 0;
          }
        track->n_open--;
        break;
      }

    case TYPE_COMPLETE:
      {
        gint64 dur = ev->duration_us >= 0 && ev->duration_us <= G_MAXINT64 / 1000
                     ? ev->duration_us * 1000 : -1;
        guint32 name = 0;

        t = ts_track (self, track);
        if (G_UNLIKELY (!track->titled))
          _tsl_perfetto_title_track (self, track, t, name = event_name (self, seq, ev));
        event_flows (self, t, ts, track->n_open, ev);
        tsl_trace_set_event_offset (self->trace, packet_offset (self));
        if (tsl_trace_offer (self->trace, t, ts, dur >= 0 ? (double) dur : NAN))
          label_kept (self, track, track->n_open, name != 0 ? name : event_name (self, seq, ev));
        if (dur > 0 && ts <= G_MAXINT64 - dur)
          tsl_trace_note_time (self->trace, ts + dur);
        break;
      }

    case TYPE_COUNTER:
      if (ev->has_counter)
        counter_value (self, track, ts, ev->counter);
      break;

    default:  /* instants, and types this reader does not know */
      {
        guint32 name = 0;

        t = ts_track (self, track);
        if (G_UNLIKELY (!track->titled))
          _tsl_perfetto_title_track (self, track, t, name = event_name (self, seq, ev));
        event_flows (self, t, ts, track->n_open, ev);
        tsl_trace_set_event_offset (self->trace, packet_offset (self));
        if (tsl_trace_offer (self->trace, t, ts, NAN))
          label_kept (self, track, track->n_open, name != 0 ? name : event_name (self, seq, ev));
        break;
      }
    }
}

/* Packets */

static gboolean model_bytes (TslPerfettoModel *self, const guint8 *data, gsize len);

/* compressed_packets or zstd_compressed_packets: a Trace, read like the
 * outer one. */
static void
compressed_packets (TslPerfettoModel *self,
                    const guint8     *data,
                    gsize             len,
                    gboolean          zstd)
{
  GByteArray *out;

  if (self->nesting >= MAX_NESTING)
    {
      self->counts.n_bad_compressed++;
      return;
    }
  out = self->inflated[self->nesting];
  if (!_tsl_perfetto_inflate (self, out, data, len, zstd))
    self->counts.n_bad_compressed++;
  /* What inflated before any damage is read. */
  self->nesting++;
  if (!model_bytes (self, out->data, out->len))
    self->counts.n_bad_inner++;
  self->nesting--;
}

void
tsl_perfetto_model_set_offset (TslPerfettoModel *self,
                               gint64            offset)
{
  self->packet_offset = offset;
}

/* The packet clock of a packet whose time is not used. */
static inline guint32
packet_clock (const Sequence *seq,
              const Packet   *pk)
{
  return pk->has_clock ? pk->clock_id : seq->clock_id != 0 ? seq->clock_id : BUILTIN_BOOTTIME;
}

/* A packet whose time is not used still moves an incremental clock, as in
 * Perfetto, which converts every packet's timestamp: Chrome stamps its
 * TrackDescriptors with deltas, and skipping them put every later time of
 * their sequence early (by 63 ms in one recording). */
static inline void
skip_time (TslPerfettoModel *self,
           Sequence         *seq,
           const Packet     *pk)
{
  Clock *c;

  if (G_LIKELY (!pk->has_time))
    return;
  c = _tsl_perfetto_get_clock (self, seq, packet_clock (seq, pk), FALSE);
  if (c != NULL && c->incremental)
    c->last += pk->timestamp;
}

gboolean
tsl_perfetto_model_apply (TslPerfettoModel        *self,
                          const TslPerfettoRecord *rec,
                          const char             **what)
{
  const Packet *pk = &rec->pk;
  Sequence *seq;
  gint64 ts = 0;
  gboolean has_time = FALSE;

  if (!rec->ok)
    {
      *what = rec->what;
      return FALSE;
    }

  if (pk->kind == PKT_TRACK_EVENT)
    self->events++;

  seq = get_sequence (self, pk->seq_id);
  if (pk->dropped && seq->valid)
    {
      self->counts.n_data_loss++;
      seq->valid = FALSE;
    }
  if ((pk->cleared || (pk->flags & SEQ_INCREMENTAL_STATE_CLEARED) != 0) &&
      _tsl_perfetto_clear_incremental_state (seq))
    note_change (self);
  if ((pk->flags & SEQ_NEEDS_INCREMENTAL_STATE) != 0 && !seq->valid)
    {
      self->counts.n_needs_state++;
      return TRUE;
    }
  if (pk->defaults != NULL)
    _tsl_perfetto_packet_defaults (seq, pk->defaults, pk->defaults_len);
  if (pk->interned != NULL)
    _tsl_perfetto_interned_data (self, seq, pk->interned, pk->interned_len);

  /* Nearly every packet is a track event: one test, not two switches. */
  if (pk->kind != PKT_TRACK_EVENT)
    {
      switch (pk->kind)
        {
        case PKT_CLOCK_SNAPSHOT:
          _tsl_perfetto_clock_snapshot (self, seq, rec->payload.data, rec->payload.len);
          return TRUE;
        case PKT_COMPRESSED_PACKETS:
        case PKT_ZSTD_COMPRESSED_PACKETS:
          compressed_packets (self, rec->payload.data, rec->payload.len,
                              pk->kind == PKT_ZSTD_COMPRESSED_PACKETS);
          return TRUE;
        case PKT_TRACK_DESCRIPTOR:
          skip_time (self, seq, pk);
          _tsl_perfetto_track_descriptor (self, rec->payload.data, rec->payload.len);
          return TRUE;
        case PKT_PROCESS_DESCRIPTOR:
          skip_time (self, seq, pk);
          _tsl_perfetto_process_descriptor (self, rec->payload.data, rec->payload.len, NULL);
          return TRUE;
        case PKT_THREAD_DESCRIPTOR:
          skip_time (self, seq, pk);
          _tsl_perfetto_legacy_thread (self, seq, rec->payload.data, rec->payload.len);
          return TRUE;
        case PKT_PROCESS_TREE:
          skip_time (self, seq, pk);
          _tsl_perfetto_process_tree (self, rec->payload.data, rec->payload.len);
          return TRUE;
        case 0:
          skip_time (self, seq, pk);
          return TRUE;
        default:
          break;
        }
    }

  if (pk->has_time)
    {
      if (!to_trace_time (self, seq, packet_clock (seq, pk), pk->timestamp, &ts))
        return TRUE;
      has_time = TRUE;
    }

  if (G_LIKELY (pk->kind == PKT_TRACK_EVENT))
    {
      if (!rec->event_ok)
        {
          *what = "its TrackEvent is not a well-formed message";
          return FALSE;
        }
      track_event (self, seq, has_time, ts, &rec->ev);
      return TRUE;
    }
  switch (pk->kind)
    {
    case PKT_STREAMING_PROFILE:
      _tsl_perfetto_streaming_profile (self, seq, rec->payload.data, rec->payload.len);
      break;
    case PKT_PERF_SAMPLE:
      if (has_time)
        _tsl_perfetto_perf_sample (self, seq, ts, rec->payload.data, rec->payload.len);
      break;
    default:
      self->counts.kinds[MIN (pk->kind, MAX_KIND)]++;
      break;
    }
  return TRUE;
}

gboolean
tsl_perfetto_model_packet (TslPerfettoModel *self,
                           const guint8     *data,
                           gsize             len,
                           const char      **what)
{
  TslPerfettoRecord rec;

  tsl_perfetto_decode (&rec, data, len);
  return tsl_perfetto_model_apply (self, &rec, what);
}

/* A Trace in memory: the inside of compressed packets. FALSE if its framing
 * is broken (what came before is read). */
static gboolean
model_bytes (TslPerfettoModel *self,
             const guint8     *data,
             gsize             len)
{
  TslProtoCursor c;
  TslProtoField f;
  TslProtoStatus st;
  const char *what;

  tsl_proto_cursor_init (&c, data, len);
  while ((st = tsl_proto_next (&c, &f)) == TSL_PROTO_OK)
    {
      if (f.number != 1 || f.wire != TSL_PROTO_LEN)
        continue;
      if (!tsl_perfetto_model_packet (self, f.data, f.len, &what))
        self->counts.n_bad_inner++;
    }
  return st == TSL_PROTO_END;
}

/* Packet kinds this reader skips, by field number of TracePacket. */
static const char *
kind_name (guint32 kind)
{
  static const struct { guint32 number; const char *name; } names[] = {
    { 1, "ftrace_events" }, { 4, "inode_file_map" }, { 5, "chrome_events" },
    { 7, "sys_stats" }, { 9, "process_stats" }, { 33, "trace_config" },
    { 34, "ftrace_stats" }, { 35, "trace_stats" }, { 36, "synchronization_marker" },
    { 37, "profile_packet" }, { 38, "battery" }, { 39, "android_log" },
    { 40, "power_rails" }, { 45, "system_info" }, { 46, "trigger" },
    { 47, "packages_list" }, { 48, "chrome_benchmark_metadata" },
    { 49, "perfetto_metatrace" }, { 51, "chrome_metadata" },
    { 52, "gpu_counter_event" }, { 53, "gpu_render_stage_event" }, { 56, "heap_graph" },
    { 57, "graphics_frame_event" }, { 61, "module_symbols" }, { 62, "vulkan_memory_event" },
    { 63, "gpu_log" }, { 64, "deobfuscation_mapping" }, { 65, "vulkan_api_event" },
    { 67, "cpu_info" }, { 68, "smaps_packet" }, { 69, "service_event" },
    { 70, "initial_display_state" }, { 71, "gpu_mem_total_event" },
    { 72, "extension_descriptor" }, { 73, "memory_tracker_snapshot" },
    { 74, "streaming_allocation" }, { 75, "streaming_free" },
    { 76, "frame_timeline_event" }, { 84, "statsd_atom" }, { 89, "trace_uuid" },
    { 90, "track_event_range_of_interest" }, { 91, "entity_state_residency" },
    { 95, "etw_events" }, { 109, "chrome_trigger" }, { 900, "for_testing" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (names[i].number == kind)
      return names[i].name;
  return NULL;
}

/* The counts so far become the trace's tallies, and counting starts again. */
static void
report_counts (TslPerfettoModel *self,
               guint64           unclosed,
               guint64           unopened)
{
  TslTrace *trace = self->trace;
  const PerfettoCounts *c = &self->counts;

  /* Service bookkeeping (config, stats, markers) holds nothing to show. */
  for (guint kind = 0; kind <= MAX_KIND; kind++)
    {
      const char *name = kind_name (kind);
      g_autofree char *what = NULL;

      if (c->kinds[kind] == 0 || kind == 33 || kind == 35 || kind == 36 || kind == 89 ||
          kind == 69 || kind == 45)
        continue;
      if (name != NULL)
        what = g_strdup_printf ("%s packets not shown", name);
      else if (kind == MAX_KIND)
        what = g_strdup_printf ("packets of kinds numbered %u or more not shown", MAX_KIND);
      else
        what = g_strdup_printf ("packets of kind %u (TracePacket field %u) not shown", kind, kind);
      tsl_trace_add_tally (trace, c->kinds[kind], what);
    }

  tsl_trace_add_tally (trace, unclosed, "slices had no end and were closed at the end of the trace");
  tsl_trace_add_tally (trace, unopened,
                       "slice ends came before any begin on their track: slices begun before the trace, "
                       "shown from its start");
  tsl_trace_add_tally (trace, c->n_misplaced_end,
                       "slice ends without a begin, on tracks whose earlier slices had all ended, were "
                       "ignored (misplaced ends)");
  tsl_trace_add_tally (trace, c->n_deep, "slices nested deeper than 512 levels were shown flat");
  tsl_trace_add_tally (trace, c->n_needs_state,
                       "packets needing incremental state that their sequence had not set up "
                       "(or lost to dropped packets) were skipped");
  tsl_trace_add_tally (trace, c->n_data_loss, "times a sequence reported dropped packets");
  tsl_trace_add_tally (trace, c->n_undefined_iid,
                       "events referred to an interned name or stack never defined on their sequence "
                       "(shown as \"(unnamed)\")");
  tsl_trace_add_tally (trace, c->n_bad_clock,
                       "packets were skipped: their clock was not related to the trace clock by any "
                       "ClockSnapshot before them");
  tsl_trace_add_tally (trace, c->n_bad_time, "packets were skipped: timestamp out of range");
  tsl_trace_add_tally (trace, c->n_late_descriptor,
                       "tracks had events before their TrackDescriptor (or none) and are named by uuid");
  tsl_trace_add_tally (trace, c->n_no_thread,
                       "StreamingProfilePackets on a sequence without a ThreadDescriptor were skipped");
  tsl_trace_add_tally (trace, c->n_thread_time,
                       "thread CPU time and instruction count values (taken at slice begins and ends): "
                       "thread time in exact views and the compare, instruction counts not shown");
  tsl_trace_add_tally (trace, c->n_bad_counter_track, "counter values on tracks that are not counters were ignored");
  tsl_trace_add_tally (trace, c->n_bad_compressed,
                       "compressed packet bundles were damaged, too large or nested too deep; what inflated was read");
  tsl_trace_add_tally (trace, c->n_bad_inner, "malformed packets inside compressed bundles were skipped");
  memset (&self->counts, 0, sizeof self->counts);
}

void
tsl_perfetto_model_flush_counts (TslPerfettoModel *self,
                                 gboolean          keep)
{
  if (keep)
    report_counts (self, 0, 0);
  memset (&self->counts, 0, sizeof self->counts);
}

static int
compare_early (gconstpointer a,
               gconstpointer b)
{
  const EarlyEnd *x = a, *y = b;

  if (x->end_ns != y->end_ns)
    return (x->end_ns > y->end_ns) - (x->end_ns < y->end_ns);
  return (x->offset > y->offset) - (x->offset < y->offset);
}

/* The ends no begin paired: slices begun before the trace, shown from its
 * start, or misplaced. Those before the trace nest: the last to end is the
 * outermost (what was inside them before they ended was labelled without
 * them: nothing said they were open). Returns how many were shown. */
static guint
finish_early_ends (TslPerfettoModel *self,
                   Track            *track)
{
  guint n = 0, shown = 0;

  for (guint j = 0; j < track->n_early; j++)
    if (track->early[j].before_begin)
      track->early[n++] = track->early[j];
    else
      self->counts.n_misplaced_end++;
  if (n > 1)
    qsort (track->early, n, sizeof (EarlyEnd), compare_early);
  for (guint j = 0; j < n; j++)
    {
      guint depth = n - 1 - j;

      tsl_trace_set_event_offset (self->trace, track->early[j].offset);
      shown++;
      if (!tsl_trace_offer_open_start (self->trace, ts_track (self, track), track->early[j].end_ns))
        continue;
      if (!track->is_thread)
        tsl_trace_set_label_id (self->trace, track->ts_track, self->before_trace);
      else
        {
          const char *name = tsl_trace_lookup (self->trace, self->before_trace);

          g_string_truncate (self->label, 0);
          for (guint k = 0; k <= depth; k++)
            {
              if (k > 0)
                g_string_append_c (self->label, ';');
              g_string_append (self->label, name);
            }
          tsl_trace_set_label_joined (self->trace, track->ts_track, self->label->str, self->label->len);
        }
    }
  track->n_early = 0;
  return shown;
}

void
tsl_perfetto_model_finish (TslPerfettoModel *self)
{
  guint64 unclosed = 0, unopened = 0;

  for (gsize i = 0; self->tracks.keys != NULL && i <= self->tracks.mask; i++)
    {
      Track *track;

      if (!self->tracks.used[i])
        continue;
      track = GSIZE_TO_POINTER (self->tracks.values[i]);
      while (track->n_open > 0)
        {
          unclosed++;
          /* To the end of the trace, as the warning says. */
          tsl_trace_set_event_offset (self->trace, track->open[track->n_open - 1].offset);
          if (tsl_trace_offer_open (self->trace, track->ts_track, track->open[track->n_open - 1].start_ns))
            set_stack_label (self, track, track->n_open, 0);
          track->n_open--;
        }
      unopened += finish_early_ends (self, track);
    }

  report_counts (self, unclosed, unopened);
}
