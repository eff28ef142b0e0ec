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
 * Tracks: a TrackDescriptor with a thread is a thread track (pid, tid); with
 * a counter, a counter track; any other (process-scoped or global async
 * tracks) an async track named after the descriptor, in the process of its
 * nearest ancestor that has one. Slices on thread tracks are labelled with
 * their stack of open slices, on async tracks with their own name.
 *
 * Clocks: every timestamp is put on the trace clock (BOOTTIME unless the
 * first ClockSnapshot names another) through the offsets that the latest
 * ClockSnapshot relating the two gave, possibly through a third clock;
 * sequence-scoped clocks (ids 64..127) and incremental (delta) clocks are
 * kept per sequence. The trace is read as a stream, so a packet on a clock
 * no snapshot has yet related to the trace clock is skipped and counted.
 */
#define G_LOG_DOMAIN "tsl-perfetto"

#define _GNU_SOURCE   /* memrchr */

#include <math.h>
#include <string.h>

#include "tsl-perfetto-model-private.h"
#include "tsl-proto.h"
#include "tsl-rng.h"

/* IdMap */

static void id_map_insert (IdMap *map, guint64 key, guint64 value);


static void
id_map_grow (IdMap *map)
{
  IdMap old = *map;
  gsize cap = old.keys != NULL ? (old.mask + 1) * 2 : 16;

  map->keys = g_new (guint64, cap);
  map->values = g_new (guint64, cap);
  map->used = g_new0 (guint8, cap);
  map->mask = cap - 1;
  map->n = 0;
  for (gsize i = 0; old.keys != NULL && i <= old.mask; i++)
    if (old.used[i])
      id_map_insert (map, old.keys[i], old.values[i]);
  g_free (old.keys);
  g_free (old.values);
  g_free (old.used);
}

static void
id_map_insert (IdMap   *map,
               guint64  key,
               guint64  value)
{
  gsize i;

  if (map->keys == NULL || (map->n + 1) * 4 > (map->mask + 1) * 3)
    id_map_grow (map);
  for (i = id_slot (key, map->mask); map->used[i]; i = (i + 1) & map->mask)
    if (map->keys[i] == key)
      {
        map->values[i] = value;
        return;
      }
  map->used[i] = 1;
  map->keys[i] = key;
  map->values[i] = value;
  map->n++;
}

static void
id_map_clear (IdMap *map)
{
  if (map->n > 0)
    memset (map->used, 0, map->mask + 1);
  map->n = 0;
}

static void
id_map_free (IdMap *map)
{
  g_clear_pointer (&map->keys, g_free);
  g_clear_pointer (&map->values, g_free);
  g_clear_pointer (&map->used, g_free);
  map->n = 0;
}
/* Model */

TslPerfettoModel *
tsl_perfetto_model_new (TslTrace *trace)
{
  TslPerfettoModel *self = g_new0 (TslPerfettoModel, 1);

  self->trace = trace;
  self->packet_offset = -1;
  self->trace_clock = BUILTIN_BOOTTIME;
  self->clock_epoch = 1;
  self->legacy_uuid = G_GUINT64_CONSTANT (1) << 63;
  self->user_clock_list = g_array_new (FALSE, TRUE, sizeof (Clock));
  for (guint i = 0; i < MAX_NESTING; i++)
    self->inflated[i] = g_byte_array_new ();
  self->label = g_string_new (NULL);
  self->unnamed = tsl_trace_intern (trace, "(unnamed)");
  return self;
}

static void
sequence_free (Sequence *seq)
{
  for (guint i = 0; i < N_MAPS; i++)
    id_map_free (&seq->maps[i]);
  g_clear_pointer (&seq->stack_frames, g_array_unref);
  g_free (seq->clocks);
  g_free (seq);
}

void
tsl_perfetto_model_free (TslPerfettoModel *self)
{
  if (self == NULL)
    return;

  for (gsize i = 0; self->sequences.keys != NULL && i <= self->sequences.mask; i++)
    if (self->sequences.used[i])
      sequence_free (GSIZE_TO_POINTER (self->sequences.values[i]));
  for (gsize i = 0; self->tracks.keys != NULL && i <= self->tracks.mask; i++)
    if (self->tracks.used[i])
      {
        Track *track = GSIZE_TO_POINTER (self->tracks.values[i]);

        g_free (track->open);
        g_free (track);
      }
  id_map_free (&self->sequences);
  id_map_free (&self->tracks);
  id_map_free (&self->legacy_threads);
  id_map_free (&self->user_clocks);
  id_map_free (&self->paths);
  g_array_unref (self->user_clock_list);
  g_clear_object (&self->inflate);
  for (guint i = 0; i < MAX_NESTING; i++)
    g_byte_array_unref (self->inflated[i]);
  if (self->zstd != NULL)
    ZSTD_freeDStream (self->zstd);
  if (self->deflater != NULL)
    {
      deflateEnd (self->deflater);
      g_free (self->deflater);
    }
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


static Sequence *
get_sequence (TslPerfettoModel *self,
              guint32           id)
{
  Sequence *seq = self->last_seq;
  guint64 found;

  if (seq != NULL && seq->id == id)
    return seq;
  if (id_map_lookup (&self->sequences, id, &found))
    seq = GSIZE_TO_POINTER (found);
  else
    {
      seq = g_new0 (Sequence, 1);
      seq->id = id;
      seq->stack_frames = g_array_new (FALSE, FALSE, sizeof (guint64));
      id_map_insert (&self->sequences, id, GPOINTER_TO_SIZE (seq));
    }
  self->last_seq = seq;
  return seq;
}

/* TRUE if it held interned stacks, which checkpoints do not save. */
static gboolean
clear_incremental_state (Sequence *seq)
{
  gboolean held = seq->stack_frames->len > 0 || seq->maps[MAP_FRAMES].n > 0 ||
                  seq->maps[MAP_CALLSTACKS].n > 0 || seq->maps[MAP_STACK_LABELS].n > 0;

  for (guint i = 0; i < N_MAPS; i++)
    id_map_clear (&seq->maps[i]);
  g_array_set_size (seq->stack_frames, 0);
  seq->clock_id = 0;
  seq->has_track = FALSE;
  seq->default_track = NULL;
  memset (seq->names, 0, sizeof seq->names);
  seq->n_extra_uuids = 0;
  seq->n_extra_double_uuids = 0;
  g_clear_pointer (&seq->clocks, g_free);
  seq->cache_epoch = 0;
  seq->valid = TRUE;
  seq->was_cleared = TRUE;
  return held;
}

/* Tracks */

static Track *
lookup_track (TslPerfettoModel *self,
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
      id_map_insert (&self->tracks, uuid, GPOINTER_TO_SIZE (track));
      note_change (self);
    }
  else
    return NULL;
  self->last_track[1] = self->last_track[0];
  self->last_track[0] = track;
  return track;
}

Track *
_tsl_perfetto_lookup_track (TslPerfettoModel *self,
                            guint64           uuid,
                            gboolean          create)
{
  return lookup_track (self, uuid, create);
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

static guint
ts_track (TslPerfettoModel *self,
          Track            *track)
{
  const char *name;

  if (G_LIKELY (track->has_ts_track))
    return track->ts_track;

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

/* Clocks */

/* GLib 2.74 has no checked signed addition. */
static inline gboolean
add_overflows (gint64  a,
               gint64  b,
               gint64 *out)
{
  return __builtin_add_overflow (a, b, out);
}

static Clock *
get_clock (TslPerfettoModel *self,
           Sequence         *seq,
           guint32           id,
           gboolean          create)
{
  guint64 index;

  if (id < 64)
    return &self->builtin[id];
  if (id < 128)
    {
      if (seq->clocks == NULL)
        {
          if (!create)
            return NULL;
          seq->clocks = g_new0 (Clock, 64);
        }
      return &seq->clocks[id - 64];
    }
  if (id_map_lookup (&self->user_clocks, id, &index))
    return &g_array_index (self->user_clock_list, Clock, index);
  if (!create)
    return NULL;
  g_array_set_size (self->user_clock_list, self->user_clock_list->len + 1);
  id_map_insert (&self->user_clocks, id, self->user_clock_list->len - 1);
  return &g_array_index (self->user_clock_list, Clock, self->user_clock_list->len - 1);
}

static gboolean
clock_offset (TslPerfettoModel *self,
              Sequence         *seq,
              guint32           id,
              gint64           *offset)
{
  gint64 sum = 0;

  for (guint hops = 0; hops < 8; hops++)
    {
      const Clock *c;

      if (id == self->trace_clock)
        {
          *offset = sum;
          return TRUE;
        }
      c = get_clock (self, seq, id, FALSE);
      if (c == NULL)
        return FALSE;
      if (c->known)
        return !add_overflows (sum, c->offset, offset);
      if (!c->has_link || add_overflows (sum, c->link_offset, &sum))
        return FALSE;
      id = c->link;
    }
  return FALSE;
}

/* The clock `id` and its offset to the trace clock, into the sequence's
 * cache; FALSE (and counted) when no snapshot relates it. */
static gboolean
cache_clock (TslPerfettoModel *self,
             Sequence         *seq,
             guint32           id)
{
  Clock *c = get_clock (self, seq, id, FALSE);
  gint64 offset;

  if (c == NULL || !clock_offset (self, seq, id, &offset))
    {
      self->counts.n_bad_clock++;
      return FALSE;
    }
  seq->cache_epoch = self->clock_epoch;
  seq->cache_id = id;
  seq->cache_clock = c;
  seq->cache_offset = offset;
  return TRUE;
}

/* `value` on clock `id` as trace time in ns; FALSE (and counted) when it
 * cannot be converted or is out of range. Inline: every packet has one. */
static inline gboolean
to_trace_time (TslPerfettoModel *self,
               Sequence         *seq,
               guint32           id,
               guint64           value,
               gint64           *out)
{
  Clock *c;
  guint64 ns;

  self->clock_used = TRUE;
  if (G_LIKELY (id == self->trace_clock && id < 64 && !self->builtin[id].incremental &&
                self->builtin[id].mult <= 1))
    {
      if (value > G_MAXINT64)
        {
          self->counts.n_bad_time++;
          return FALSE;
        }
      *out = (gint64) value;
      return TRUE;
    }

  /* The sequence's last clock and its offset, until a snapshot (or a reset
   * of the sequence) changes any. */
  if (G_UNLIKELY (seq->cache_epoch != self->clock_epoch || seq->cache_id != id) &&
      !cache_clock (self, seq, id))
    return FALSE;
  c = seq->cache_clock;
  if (c->incremental)
    {
      c->last += value;
      value = c->last;
    }
  if (G_UNLIKELY (__builtin_mul_overflow (value, MAX (c->mult, 1), &ns) || ns > G_MAXINT64 ||
                  add_overflows ((gint64) ns, seq->cache_offset, out)))
    {
      self->counts.n_bad_time++;
      return FALSE;
    }
  return TRUE;
}

typedef struct {
  guint32 id;
  gint64  ns;
} Reading;

static gboolean
clock_snapshot (TslPerfettoModel *self,
                Sequence         *seq,
                const guint8     *data,
                gsize             len)
{
  Reading readings[32];
  guint n = 0;

  self->clock_epoch++;
  TslProtoCursor c, cc;
  TslProtoField f, g;
  gint64 anchor = 0;
  gboolean have_anchor = FALSE;

  tsl_proto_cursor_init (&c, data, len);
  while (tsl_proto_next (&c, &f) == TSL_PROTO_OK)
    {
      guint32 id = 0;
      guint64 ts = 0, mult = 1;
      gboolean incremental = FALSE;
      Clock *clock;

      if (f.number == 2 && f.wire == TSL_PROTO_VARINT && !self->clock_used &&
          f.value > 0 && f.value < 64)
        self->trace_clock = (guint32) f.value;
      if (f.number != 1 || f.wire != TSL_PROTO_LEN)
        continue;
      tsl_proto_cursor_init (&cc, f.data, f.len);
      while (tsl_proto_next (&cc, &g) == TSL_PROTO_OK)
        {
          if (g.wire != TSL_PROTO_VARINT)
            continue;
          if (g.number == 1)
            id = (guint32) MIN (g.value, G_MAXUINT32);
          else if (g.number == 2)
            ts = g.value;
          else if (g.number == 3)
            incremental = g.value != 0;
          else if (g.number == 4)
            mult = MAX (g.value, 1);
        }
      if (id == 0 || n == G_N_ELEMENTS (readings))
        continue;
      clock = get_clock (self, seq, id, TRUE);
      clock->mult = mult;
      clock->incremental = incremental;
      if (incremental)
        clock->last = ts;
      if (__builtin_mul_overflow (ts, mult, &ts) || ts > G_MAXINT64)
        continue;
      readings[n++] = (Reading) { id, (gint64) ts };
    }

  /* The trace time of this instant: from the trace clock, else from any
   * clock already related to it. */
  for (guint i = 0; i < n && !have_anchor; i++)
    if (readings[i].id == self->trace_clock)
      {
        anchor = readings[i].ns;
        have_anchor = TRUE;
      }
  for (guint i = 0; i < n && !have_anchor; i++)
    {
      gint64 offset;

      if (clock_offset (self, seq, readings[i].id, &offset) &&
          !add_overflows (readings[i].ns, offset, &anchor))
        have_anchor = TRUE;
    }

  for (guint i = 0; i < n; i++)
    {
      Clock *clock = get_clock (self, seq, readings[i].id, TRUE);

      if (readings[i].id == self->trace_clock)
        continue;
      if (have_anchor)
        {
          clock->known = !add_overflows (anchor, -readings[i].ns, &clock->offset);
        }
      else if (i > 0 || n > 1)
        {
          /* Related to another clock of the snapshot, which a later
           * snapshot may relate to the trace clock. */
          guint j = i > 0 ? 0 : 1;

          clock->known = FALSE;
          clock->link = readings[j].id;
          clock->has_link = !add_overflows (readings[j].ns, -readings[i].ns,
                                                 &clock->link_offset);
        }
    }
  return TRUE;
}

/* Interned data */

/* Into `map`, and into `direct` (N_DIRECT_NAMES entries) if not NULL. */
static void
intern_string_entries (TslPerfettoModel *self,
                       IdMap            *map,
                       guint32          *direct,
                       const guint8     *data,
                       gsize             len)
{
  guint64 iid;
  const guint8 *str;
  gsize str_len;
  guint32 id;

  tsl_perfetto_interned_entry (data, len, &iid, &str, &str_len);
  if (str == NULL || str_len == 0)
    id = self->unnamed;
  else
    id = tsl_trace_intern_len (self->trace, (const char *) str, str_len);
  id_map_insert (map, iid, id);
  if (direct != NULL && iid < N_DIRECT_NAMES)
    direct[iid] = id + 1;
}

static void
intern_frame (TslPerfettoModel *self,
              Sequence         *seq,
              const guint8     *data,
              gsize             len)
{
  TslProtoCursor c;
  TslProtoField f;
  guint64 iid = 0, function = 0, old;

  tsl_proto_cursor_init (&c, data, len);
  while (tsl_proto_next (&c, &f) == TSL_PROTO_OK)
    if (f.wire == TSL_PROTO_VARINT && f.number == 1)
      iid = f.value;
    else if (f.wire == TSL_PROTO_VARINT && f.number == 2)
      function = f.value;
  if (id_map_lookup (&seq->maps[MAP_FRAMES], iid, &old) && old == function)
    return;
  note_change (self);
  id_map_insert (&seq->maps[MAP_FRAMES], iid, function);
}

static void
intern_callstack (TslPerfettoModel *self,
                  Sequence         *seq,
                  const guint8     *data,
                  gsize             len)
{
  TslProtoCursor c;
  TslProtoField f;
  guint64 iid = 0;
  guint start = seq->stack_frames->len;
  guint64 count = 0;

  g_array_append_val (seq->stack_frames, count);
  tsl_proto_cursor_init (&c, data, len);
  while (tsl_proto_next (&c, &f) == TSL_PROTO_OK)
    {
      if (f.number == 1 && f.wire == TSL_PROTO_VARINT)
        iid = f.value;
      else if (f.number == 2 && f.wire == TSL_PROTO_VARINT)
        {
          g_array_append_val (seq->stack_frames, f.value);
          count++;
        }
      else if (f.number == 2 && f.wire == TSL_PROTO_LEN)
        {
          const guint8 *p = f.data, *end = f.data + f.len;
          guint64 v;

          while (p < end && tsl_proto_packed_next (&p, end, TSL_PROTO_VARINT, &v))
            {
              g_array_append_val (seq->stack_frames, v);
              count++;
            }
        }
    }
  g_array_index (seq->stack_frames, guint64, start) = count;
  note_change (self);
  id_map_insert (&seq->maps[MAP_CALLSTACKS], iid, start);
  id_map_insert (&seq->maps[MAP_STACK_LABELS], iid, 0);
}

static void
interned_data (TslPerfettoModel *self,
               Sequence         *seq,
               const guint8     *data,
               gsize             len)
{
  TslProtoCursor c;
  TslProtoField f;

  tsl_proto_cursor_init (&c, data, len);
  while (tsl_proto_next (&c, &f) == TSL_PROTO_OK)
    {
      if (f.wire != TSL_PROTO_LEN)
        continue;
      switch (f.number)
        {
        case 2:   /* event_names */
          intern_string_entries (self, &seq->maps[MAP_NAMES], seq->names, f.data, f.len);
          break;
        case 5:   /* function_names */
          intern_string_entries (self, &seq->maps[MAP_FUNCTIONS], NULL, f.data, f.len);
          break;
        case 6:   /* frames */
          intern_frame (self, seq, f.data, f.len);
          break;
        case 7:   /* callstacks */
          intern_callstack (self, seq, f.data, f.len);
          break;
        default:  /* categories, annotation names, source locations, ...: unused */
          break;
        }
    }
}

static void
packet_defaults (Sequence     *seq,
                 const guint8 *data,
                 gsize         len)
{
  TslProtoCursor c, cc;
  TslProtoField f, g;

  tsl_proto_cursor_init (&c, data, len);
  while (tsl_proto_next (&c, &f) == TSL_PROTO_OK)
    {
      if (f.number == 58 && f.wire == TSL_PROTO_VARINT)
        seq->clock_id = (guint32) MIN (f.value, G_MAXUINT32);
      else if (f.number == 11 && f.wire == TSL_PROTO_LEN)
        {
          seq->n_extra_uuids = 0;
          seq->n_extra_double_uuids = 0;
          tsl_proto_cursor_init (&cc, f.data, f.len);
          while (tsl_proto_next (&cc, &g) == TSL_PROTO_OK)
            {
              if (g.number == 11 && g.wire == TSL_PROTO_VARINT)
                {
                  seq->has_track = TRUE;
                  seq->track = g.value;
                  seq->default_track = NULL;
                }
              else if (g.number == 31)
                tsl_perfetto_uuid_list (&g, seq->extra_uuids, &seq->n_extra_uuids);
              else if (g.number == 45)
                tsl_perfetto_uuid_list (&g, seq->extra_double_uuids, &seq->n_extra_double_uuids);
            }
        }
    }
}

static Track *
thread_track (TslPerfettoModel *self,
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
  id_map_insert (&self->legacy_threads, key, GPOINTER_TO_SIZE (track));
  return track;
}

/* Track events */

static guint32
event_name (TslPerfettoModel *self,
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

/* "parent;name" as a string id, from a map of the stacks seen: a kept
 * slice's label is then found, not joined and hashed again (that was a
 * third of the time of small packets). The map is capped, and long stacks
 * are left to the joined labels, so memory stays bounded. 0: not kept. */
static guint32
stack_path (TslPerfettoModel *self,
            guint32           parent,
            guint32           name)
{
  guint64 key = (guint64) parent << 32 | name;
  guint64 found;
  const char *head, *tail;
  gsize head_len, tail_len;

  if (id_map_lookup (&self->paths, key, &found))
    return (guint32) found;
  if (self->paths.n >= MAX_PATHS)
    return 0;
  tail = tsl_trace_lookup (self->trace, name);
  tail_len = strlen (tail);
  if (parent == 0)
    found = name;
  else
    {
      head = tsl_trace_lookup (self->trace, parent);
      head_len = strlen (head);
      if (head_len + 1 + tail_len > MAX_PATH_LEN)
        return 0;
      g_string_truncate (self->label, 0);
      g_string_append_len (self->label, head, head_len);
      g_string_append_c (self->label, ';');
      g_string_append_len (self->label, tail, tail_len);
      found = tsl_trace_intern_len (self->trace, self->label->str, self->label->len);
    }
  id_map_insert (&self->paths, key, found);
  return (guint32) found;
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
counter_value (TslPerfettoModel *self,
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
   * for slice CPU durations: as tracks, they would double the thread count. */
  if (track->thread_time)
    {
      self->counts.n_thread_time++;
      return;
    }
  value *= track->mult;
  if (track->incremental)
    value = track->last_value += value;
  tsl_trace_offer (self->trace, ts_track (self, track), ts, value);
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
  if (G_UNLIKELY (ev->flows_seen[0] + ev->flows_seen[1] != 0))
    record_flows (self, t, ts, depth, ev);
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
    track = thread_track (self, ev->has_pid_override ? ev->pid_override : seq->pid,
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
  for (guint i = 0; i < ev->n_extra_values; i++)
    {
      const guint64 *uuids = ev->has_extra_uuids ? ev->extra_uuids : seq->extra_uuids;
      guint n = ev->has_extra_uuids ? ev->n_extra_uuids : seq->n_extra_uuids;

      if (i < n)
        counter_value (self, lookup_track (self, uuids[i], TRUE), ts, (double) ev->extra_values[i]);
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
        track->open[track->n_open++] = (OpenSlice) { ts, packet_offset (self), name, 0 };
        break;
      }

    case TYPE_SLICE_END:
      {
        gint64 dur;

        t = ts_track (self, track);
        tsl_trace_note_time (self->trace, ts);
        if (track->overflow > 0)
          {
            track->overflow--;
            break;
          }
        if (track->n_open == 0)
          {
            self->counts.n_unmatched_end++;
            break;
          }
        /* Offered now, at the slice's start, so it carries its duration. */
        dur = ts - track->open[track->n_open - 1].start_ns;
        tsl_trace_set_event_offset (self->trace, track->open[track->n_open - 1].offset);
        if (tsl_trace_offer (self->trace, t, track->open[track->n_open - 1].start_ns,
                             dur >= 0 ? (double) dur : NAN))
          set_stack_label (self, track, track->n_open, 0);
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
          set_stack_label (self, track, track->n_open, name != 0 ? name : event_name (self, seq, ev));
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
          set_stack_label (self, track, track->n_open, name != 0 ? name : event_name (self, seq, ev));
        break;
      }
    }
}

/* Sampled stacks */

static guint32
stack_label (TslPerfettoModel *self,
             Sequence         *seq,
             guint64           iid)
{
  guint64 label, start, count, function, name;
  GString *s = self->label;

  if (id_map_lookup (&seq->maps[MAP_STACK_LABELS], iid, &label) && label != 0)
    return (guint32) label;
  if (!id_map_lookup (&seq->maps[MAP_CALLSTACKS], iid, &start))
    {
      self->counts.n_undefined_iid++;
      return self->unnamed;
    }
  count = g_array_index (seq->stack_frames, guint64, start);
  g_string_truncate (s, 0);
  /* Bottom (outermost) frame first, as the stack labels want. */
  for (guint64 i = 0; i < count; i++)
    {
      guint64 frame = g_array_index (seq->stack_frames, guint64, start + 1 + i);

      if (i > 0)
        g_string_append_c (s, ';');
      if (id_map_lookup (&seq->maps[MAP_FRAMES], frame, &function) &&
          id_map_lookup (&seq->maps[MAP_FUNCTIONS], function, &name))
        g_string_append (s, tsl_trace_lookup (self->trace, (guint32) name));
      else
        g_string_append (s, "(unknown)");
    }
  label = s->len > 0 ? tsl_trace_intern_len (self->trace, s->str, s->len) : self->unnamed;
  /* The label of the frames as they are now, kept while they change. */
  note_change (self);
  id_map_insert (&seq->maps[MAP_STACK_LABELS], iid, label);
  return (guint32) label;
}

static void
stack_sample (TslPerfettoModel *self,
              Sequence         *seq,
              Track            *track,
              gint64            ts,
              guint64           callstack)
{
  guint t = ts_track (self, track);

  if (tsl_trace_offer (self->trace, t, ts, NAN))
    tsl_trace_set_label_id (self->trace, t, stack_label (self, seq, callstack));
}

static void
streaming_profile (TslPerfettoModel *self,
                   Sequence         *seq,
                   const guint8     *data,
                   gsize             len)
{
  TslProtoCursor c, stacks, deltas;
  TslProtoField f;
  guint64 callstack, delta;

  if (!seq->has_thread)
    {
      self->counts.n_no_thread++;
      return;
    }
  /* Both are packed repeated fields of the same length: walked together. */
  tsl_proto_cursor_init (&stacks, NULL, 0);
  tsl_proto_cursor_init (&deltas, NULL, 0);
  tsl_proto_cursor_init (&c, data, len);
  while (tsl_proto_next (&c, &f) == TSL_PROTO_OK)
    if (f.wire == TSL_PROTO_LEN && f.number == 1)
      tsl_proto_cursor_init (&stacks, f.data, f.len);
    else if (f.wire == TSL_PROTO_LEN && f.number == 2)
      tsl_proto_cursor_init (&deltas, f.data, f.len);

  while (stacks.p < stacks.end && deltas.p < deltas.end &&
         tsl_proto_packed_next (&stacks.p, stacks.end, TSL_PROTO_VARINT, &callstack) &&
         tsl_proto_packed_next (&deltas.p, deltas.end, TSL_PROTO_VARINT, &delta))
    {
      gint64 us, ts;

      if (add_overflows (seq->profile_ts_us, (gint64) delta, &us))
        {
          self->counts.n_bad_time++;
          break;
        }
      seq->profile_ts_us = us;
      if (us < 0 || us > G_MAXINT64 / 1000 ||
          !to_trace_time (self, seq, BUILTIN_MONOTONIC, (guint64) us * 1000, &ts))
        continue;
      stack_sample (self, seq, seq->thread_track, ts, callstack);
    }
}

static void
perf_sample (TslPerfettoModel *self,
             Sequence         *seq,
             gint64            ts,
             const guint8     *data,
             gsize             len)
{
  TslProtoCursor c;
  TslProtoField f;
  gint64 pid = 0, tid = 0;
  guint64 callstack = 0;

  tsl_proto_cursor_init (&c, data, len);
  while (tsl_proto_next (&c, &f) == TSL_PROTO_OK)
    {
      if (f.wire != TSL_PROTO_VARINT)
        continue;
      if (f.number == 2)
        pid = (guint32) f.value;
      else if (f.number == 3)
        tid = (guint32) f.value;
      else if (f.number == 4)
        callstack = f.value;
    }
  /* Samples without a stack report lost records or unwinding errors. */
  if (callstack != 0)
    stack_sample (self, seq, thread_track (self, pid, tid), ts, callstack);
}

/* Packets */

static gboolean model_bytes (TslPerfettoModel *self, const guint8 *data, gsize len);

/* compressed_packets (deflate, with a zlib or gzip header) or
 * zstd_compressed_packets: a Trace, read like the outer one. */
static void
compressed_packets (TslPerfettoModel *self,
                    const guint8     *data,
                    gsize             len,
                    gboolean          zstd)
{
  GByteArray *out;
  gboolean ok = TRUE;

  if (self->nesting >= MAX_NESTING)
    {
      self->counts.n_bad_compressed++;
      return;
    }
  out = self->inflated[self->nesting];
  g_byte_array_set_size (out, MAX (64 * 1024, MIN (len * 8, MAX_INFLATED)));

  if (zstd)
    {
      ZSTD_inBuffer in = { data, len, 0 };
      ZSTD_outBuffer ob = { out->data, out->len, 0 };
      gsize ret = 1;

      if (self->zstd == NULL)
        self->zstd = ZSTD_createDStream ();
      ZSTD_initDStream (self->zstd);
      while (ret != 0)
        {
          ret = ZSTD_decompressStream (self->zstd, &ob, &in);
          if (ZSTD_isError (ret) || (in.pos == in.size && ob.pos < ob.size && ret != 0))
            {
              ok = FALSE;
              break;
            }
          if (ob.pos == ob.size)
            {
              if (out->len >= MAX_INFLATED)
                {
                  ok = FALSE;
                  break;
                }
              g_byte_array_set_size (out, MIN (out->len * 2, MAX_INFLATED));
              ob.dst = out->data;
              ob.size = out->len;
            }
        }
      g_byte_array_set_size (out, ob.pos);
    }
  else
    {
      GConverterResult result = G_CONVERTER_CONVERTED;
      gsize in_pos = 0, out_pos = 0;
      GZlibCompressorFormat format = len >= 2 && data[0] == 0x1f && data[1] == 0x8b
                                     ? G_ZLIB_COMPRESSOR_FORMAT_GZIP : G_ZLIB_COMPRESSOR_FORMAT_ZLIB;

      g_clear_object (&self->inflate);
      self->inflate = G_CONVERTER (g_zlib_decompressor_new (format));
      while (result != G_CONVERTER_FINISHED)
        {
          gsize read = 0, written = 0;

          if (out_pos == out->len)
            {
              if (out->len >= MAX_INFLATED)
                {
                  ok = FALSE;
                  break;
                }
              g_byte_array_set_size (out, MIN (out->len * 2, MAX_INFLATED));
            }
          result = g_converter_convert (self->inflate, data + in_pos, len - in_pos,
                                        out->data + out_pos, out->len - out_pos,
                                        G_CONVERTER_INPUT_AT_END, &read, &written, NULL);
          if (result == G_CONVERTER_ERROR)
            {
              ok = FALSE;
              break;
            }
          in_pos += read;
          out_pos += written;
        }
      g_byte_array_set_size (out, out_pos);
    }

  if (!ok)
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
      clear_incremental_state (seq))
    note_change (self);
  if ((pk->flags & SEQ_NEEDS_INCREMENTAL_STATE) != 0 && !seq->valid)
    {
      self->counts.n_needs_state++;
      return TRUE;
    }
  if (pk->defaults != NULL)
    packet_defaults (seq, pk->defaults, pk->defaults_len);
  if (pk->interned != NULL)
    interned_data (self, seq, pk->interned, pk->interned_len);

  switch (pk->kind)
    {
    case PKT_CLOCK_SNAPSHOT:
      clock_snapshot (self, seq, pk->payload.data, pk->payload.len);
      return TRUE;
    case PKT_COMPRESSED_PACKETS:
    case PKT_ZSTD_COMPRESSED_PACKETS:
      compressed_packets (self, pk->payload.data, pk->payload.len,
                          pk->kind == PKT_ZSTD_COMPRESSED_PACKETS);
      return TRUE;
    case PKT_TRACK_DESCRIPTOR:
      _tsl_perfetto_track_descriptor (self, pk->payload.data, pk->payload.len);
      return TRUE;
    case PKT_PROCESS_DESCRIPTOR:
      _tsl_perfetto_process_descriptor (self, pk->payload.data, pk->payload.len, NULL);
      return TRUE;
    case PKT_THREAD_DESCRIPTOR:
      _tsl_perfetto_legacy_thread (self, seq, pk->payload.data, pk->payload.len);
      return TRUE;
    case PKT_PROCESS_TREE:
      _tsl_perfetto_process_tree (self, pk->payload.data, pk->payload.len);
      return TRUE;
    case 0:
      return TRUE;
    default:
      break;
    }

  if (pk->has_time)
    {
      guint32 clock = pk->has_clock ? pk->clock_id
                      : seq->clock_id != 0 ? seq->clock_id : BUILTIN_BOOTTIME;

      if (!to_trace_time (self, seq, clock, pk->timestamp, &ts))
        return TRUE;
      has_time = TRUE;
    }

  switch (pk->kind)
    {
    case PKT_TRACK_EVENT:
      if (!rec->event_ok)
        {
          *what = "its TrackEvent is not a well-formed message";
          return FALSE;
        }
      track_event (self, seq, has_time, ts, &rec->ev);
      break;
    case PKT_STREAMING_PROFILE:
      streaming_profile (self, seq, pk->payload.data, pk->payload.len);
      break;
    case PKT_PERF_SAMPLE:
      if (has_time)
        perf_sample (self, seq, ts, pk->payload.data, pk->payload.len);
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
               guint64           unclosed)
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
  tsl_trace_add_tally (trace, c->n_unmatched_end, "slice ends without a begin on their track were ignored");
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
                       "thread CPU time and instruction count values (taken at slice begins and ends) "
                       "not shown");
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
    report_counts (self, 0);
  memset (&self->counts, 0, sizeof self->counts);
}

void
tsl_perfetto_model_finish (TslPerfettoModel *self)
{
  guint64 unclosed = 0;

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
    }

  report_counts (self, unclosed);
}

/* For tsl-perfetto-state.c: the model's own calls stay static, and inlined. */

void
_tsl_perfetto_id_map_insert (IdMap   *map,
                             guint64  key,
                             guint64  value)
{
  id_map_insert (map, key, value);
}

void
_tsl_perfetto_id_map_clear (IdMap *map)
{
  id_map_clear (map);
}

void
_tsl_perfetto_id_map_free (IdMap *map)
{
  id_map_free (map);
}

Sequence *
_tsl_perfetto_model_get_sequence (TslPerfettoModel *self,
                                  guint32           id)
{
  return get_sequence (self, id);
}

Clock *
_tsl_perfetto_model_get_clock (TslPerfettoModel *self,
                               Sequence         *seq,
                               guint32           id,
                               gboolean          create)
{
  return get_clock (self, seq, id, create);
}
