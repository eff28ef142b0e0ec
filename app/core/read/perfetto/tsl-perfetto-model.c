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
#define _GNU_SOURCE   /* memrchr */

#include <math.h>
#include <string.h>

#include <gio/gio.h>
#include <zlib.h>
#include <zstd.h>

#include "tsl-perfetto-decode.h"
#include "tsl-perfetto-private.h"
#include "tsl-proto.h"
#include "tsl-rng.h"

typedef TslPerfettoEvent Event;
typedef TslPerfettoPacket Packet;

#define MAX_DEPTH       512       /* deeper slices are offered flat */
#define MAX_INFLATED    ((gsize) 32 * 1024 * 1024)  /* a bundle holds at most 512 KiB */
#define MAX_NESTING     2         /* compressed packets inside compressed packets */
#define MAX_KIND        1024      /* packet kinds counted by field number */
#define MAX_PATHS       8192      /* stack labels kept as strings */
#define MAX_PATH_LEN    512
#define N_DIRECT_NAMES  256       /* interned event names looked up without hashing */

#define SEQ_INCREMENTAL_STATE_CLEARED 1
#define SEQ_NEEDS_INCREMENTAL_STATE   2

#define BUILTIN_REALTIME  1
#define BUILTIN_MONOTONIC 3
#define BUILTIN_BOOTTIME  6

/* guint64 → guint64, open addressing: interned ids, uuids, sequence ids. */
typedef struct {
  guint64 *keys;
  guint64 *values;
  guint8  *used;
  gsize    mask;
  gsize    n;
} IdMap;

typedef struct {
  gint64  offset;       /* trace time = this clock's ns + offset */
  guint64 mult;         /* ns per unit */
  guint64 last;         /* incremental clocks: the last value, in units */
  guint32 link;         /* clock related by a snapshot without the trace clock */
  gint64  link_offset;  /* link's ns = this clock's ns + link_offset */
  guint8  known;
  guint8  has_link;
  guint8  incremental;
} Clock;

typedef struct {
  gint64  start_ns;
  gint64  offset; /* of its SLICE_BEGIN packet, -1 if unknown */
  guint32 name;
  guint32 path;   /* the stack down to here as a string, once asked for; 0: not yet */
} OpenSlice;

typedef enum {
  TRACK_UNDESCRIBED,
  TRACK_THREAD,
  TRACK_PROCESS,
  TRACK_COUNTER,
  TRACK_ASYNC,
} TrackKind;

typedef struct {
  guint64    uuid;
  guint64    parent;
  gboolean   has_parent;
  TrackKind  kind;
  gint64     pid;
  gint64     tid;
  guint32    name;
  guint32    thread_name;
  guint32    process_name;
  /* Counters. */
  gboolean   incremental;
  gboolean   thread_time;  /* a thread's CPU time or instruction count */
  double     mult;
  double     last_value;
  guint32    unit;
  /* The TslTrace track, once an event needed it. */
  guint      ts_track;
  gboolean   has_ts_track;
  gboolean   is_thread;   /* ts_track is a thread track: labels are stacks */
  OpenSlice *open;
  guint      n_open;
  guint      n_alloc;
  guint      overflow;
} Track;

typedef enum {
  MAP_NAMES,          /* EventName iid → trace string */
  MAP_FUNCTIONS,      /* InternedString iid → trace string */
  MAP_FRAMES,         /* Frame iid → function_name_id */
  MAP_CALLSTACKS,     /* Callstack iid → index into stack_frames */
  MAP_STACK_LABELS,   /* Callstack iid → trace string of the joined label */
  N_MAPS,
} MapKind;

typedef struct {
  guint32  id;
  gboolean valid;          /* incremental state usable */
  gboolean was_cleared;    /* ever */
  IdMap    maps[N_MAPS];   /* interned data, by MapKind */
  /* MAP_NAMES for small iids, as trace string + 1 (0: look in the map). */
  guint32  names[N_DIRECT_NAMES];
  GArray  *stack_frames;   /* guint64: count, then frame iids */
  /* TracePacketDefaults */
  guint32  clock_id;
  gboolean has_track;
  guint64  track;
  Track   *default_track;  /* track's, once looked up */
  guint64  extra_uuids[MAX_EXTRA];
  guint    n_extra_uuids;
  guint64  extra_double_uuids[MAX_EXTRA];
  guint    n_extra_double_uuids;
  Clock   *clocks;         /* ids 64..127, or NULL */
  /* Legacy ThreadDescriptor packet: the sequence's thread and the base of
   * delta-encoded microsecond timestamps. */
  gboolean has_thread;
  gint64   pid;
  gint64   tid;
  gint64   ts_us;
  gint64   profile_ts_us;
  Track   *thread_track;
  /* to_trace_time()'s cache: valid while cache_epoch is the model's. */
  guint64  cache_epoch;
  guint32  cache_id;
  Clock   *cache_clock;
  gint64   cache_offset;
} Sequence;

struct _TslPerfettoModel
{
  TslTrace     *trace;
  guint64       events;

  IdMap         sequences;     /* trusted_packet_sequence_id → Sequence * */
  Sequence     *last_seq;
  IdMap         tracks;        /* uuid → Track * */
  Track        *last_track[2];  /* the two last looked up: an event's and its counter's */
  guint64       legacy_uuid;   /* next uuid of a legacy thread's track */
  IdMap         legacy_threads;/* pid << 32 ^ tid → Track * */

  guint32       trace_clock;
  gboolean      clock_used;
  guint64       clock_epoch;   /* counts changes to clocks; starts at 1 */
  Clock         builtin[64];
  IdMap         user_clocks;   /* ids ≥ 128 → index into user_clock_list */
  GArray       *user_clock_list;

  GConverter   *inflate;
  GByteArray   *inflated[MAX_NESTING];
  ZSTD_DStream *zstd;
  z_stream     *deflater;      /* checkpoints' (kept: its set-up cost more than the state) */
  guint         nesting;
  gint64        packet_offset; /* tsl_perfetto_model_set_offset(), -1: none */

  GString      *label;
  guint32       unnamed;
  IdMap         paths;         /* parent path << 32 | name → path (strings) */

  /* Counted, and reported at the end. */
  guint64       kinds[MAX_KIND + 1];
  guint64       n_needs_state;
  guint64       n_data_loss;
  guint64       n_undefined_iid;
  guint64       n_bad_clock;
  guint64       n_bad_time;
  guint64       n_unmatched_end;
  guint64       n_deep;
  guint64       n_late_descriptor;
  guint64       n_no_thread;
  guint64       n_bad_inner;
  guint64       n_bad_compressed;
  guint64       n_bad_counter_track;
  guint64       n_thread_time;
};

/* IdMap */

static inline gsize
id_slot (guint64 key,
         gsize   mask)
{
  key *= G_GUINT64_CONSTANT (0x9E3779B97F4A7C15);
  return (gsize) (key ^ (key >> 29)) & mask;
}

static inline gboolean
id_map_lookup (const IdMap *map,
               guint64      key,
               guint64     *value)
{
  if (map->n == 0)
    return FALSE;
  for (gsize i = id_slot (key, map->mask);; i = (i + 1) & map->mask)
    {
      if (!map->used[i])
        return FALSE;
      if (map->keys[i] == key)
        {
          *value = map->values[i];
          return TRUE;
        }
    }
}

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

/* What later packets depend on changed (a track, an interned name, a
 * clock, ...): the chunk index reads this chunk always, so a range read
 * rebuilds that state from the chunks that made it, and a checkpoint saves
 * only what events change (tsl_perfetto_model_save()). */
static inline void
note_change (TslPerfettoModel *self)
{
  tsl_trace_note_change (self->trace);
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
    self->n_late_descriptor++;
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
      self->n_bad_clock++;
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
          self->n_bad_time++;
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
      self->n_bad_time++;
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

/* Descriptors */

static guint32
intern_field (TslPerfettoModel    *self,
              const TslProtoField *f)
{
  if (f->wire != TSL_PROTO_LEN || f->len == 0)
    return 0;
  return tsl_trace_intern_len (self->trace, (const char *) f->data, f->len);
}

/* The last path component of a command line's first word (Chrome writes
 * the whole command line as one string). */
static guint32
intern_cmdline (TslPerfettoModel    *self,
                const TslProtoField *f)
{
  const char *s = (const char *) f->data;
  gsize len = f->len;
  const char *slash, *space;

  if (f->wire != TSL_PROTO_LEN || len == 0)
    return 0;
  space = memchr (s, ' ', len);
  if (space != NULL && space > s)
    len = space - s;
  slash = memrchr (s, '/', len);
  if (slash != NULL && slash + 1 < s + len)
    {
      len -= slash + 1 - s;
      s = slash + 1;
    }
  return tsl_trace_intern_len (self->trace, s, len);
}

static void
set_process_name (TslPerfettoModel *self,
                  gint64            pid,
                  guint32           name)
{
  const char *old;

  if (name == 0)
    return;
  old = tsl_trace_get_process_name (self->trace, pid);
  if (old == NULL || strcmp (old, tsl_trace_lookup (self->trace, name)) != 0)
    tsl_trace_set_process_name (self->trace, pid, tsl_trace_lookup (self->trace, name));
}

/* Descriptors are written again after every incremental-state reset: the
 * same name again is no change. */
static void
set_thread_name (TslPerfettoModel *self,
                 gint64            pid,
                 gint64            tid,
                 guint32           name)
{
  const char *old = tsl_trace_get_thread_name (self->trace, pid, tid);
  const char *now = tsl_trace_lookup (self->trace, name);

  if (old == NULL || strcmp (old, now) != 0)
    tsl_trace_set_thread_name (self->trace, pid, tid, now);
}

static void
process_descriptor (TslPerfettoModel *self,
                    const guint8     *data,
                    gsize             len,
                    gint64           *pid_out)
{
  /* Chrome's process types, named as its JSON export names them. */
  static const char *const chrome_types[] = {
    NULL, "Browser", "Renderer", "Utility", "Zygote", "SandboxHelper", "GPU Process",
    "PPAPI Plugin", "PPAPI Broker",
  };
  TslProtoCursor c;
  TslProtoField f;
  gint64 pid = 0;
  guint32 name = 0, cmdline = 0, type = 0;

  tsl_proto_cursor_init (&c, data, len);
  while (tsl_proto_next (&c, &f) == TSL_PROTO_OK)
    {
      if (f.number == 1 && f.wire == TSL_PROTO_VARINT)
        pid = (gint32) f.value;
      else if (f.number == 6)
        name = intern_field (self, &f);
      else if (f.number == 2 && cmdline == 0)
        cmdline = intern_cmdline (self, &f);
      else if (f.number == 4 && f.wire == TSL_PROTO_VARINT && f.value < G_N_ELEMENTS (chrome_types) &&
               chrome_types[f.value] != NULL)
        type = tsl_trace_intern (self->trace, chrome_types[f.value]);
    }
  set_process_name (self, pid, name != 0 ? name : type != 0 ? type : cmdline);
  if (pid_out != NULL)
    *pid_out = pid;
}

static guint32
thread_descriptor (TslPerfettoModel *self,
                   const guint8     *data,
                   gsize             len,
                   gint64           *pid,
                   gint64           *tid,
                   gint64           *ref_us)
{
  TslProtoCursor c;
  TslProtoField f;
  guint32 name = 0;

  *pid = *tid = 0;
  tsl_proto_cursor_init (&c, data, len);
  while (tsl_proto_next (&c, &f) == TSL_PROTO_OK)
    {
      if (f.number == 1 && f.wire == TSL_PROTO_VARINT)
        *pid = (gint32) f.value;
      else if (f.number == 2 && f.wire == TSL_PROTO_VARINT)
        *tid = (gint64) f.value;
      else if (f.number == 5)
        name = intern_field (self, &f);
      else if (f.number == 6 && f.wire == TSL_PROTO_VARINT && ref_us != NULL)
        *ref_us = (gint64) f.value;
    }
  if (name != 0)
    set_thread_name (self, *pid, *tid, name);
  return name;
}

static void
counter_descriptor (TslPerfettoModel *self,
                    Track            *track,
                    const guint8     *data,
                    gsize             len)
{
  static const char *const units[] = { NULL, "ns", "count", "bytes" };
  TslProtoCursor c;
  TslProtoField f;

  tsl_proto_cursor_init (&c, data, len);
  while (tsl_proto_next (&c, &f) == TSL_PROTO_OK)
    {
      if (f.number == 3 && f.wire == TSL_PROTO_VARINT && f.value < G_N_ELEMENTS (units) &&
          units[f.value] != NULL)
        track->unit = tsl_trace_intern (self->trace, units[f.value]);
      else if (f.number == 6 && f.wire == TSL_PROTO_LEN)
        track->unit = intern_field (self, &f);
      else if (f.number == 4 && f.wire == TSL_PROTO_VARINT && (gint64) f.value != 0)
        track->mult = (double) (gint64) f.value;
      else if (f.number == 5 && f.wire == TSL_PROTO_VARINT)
        track->incremental = f.value != 0;
      else if (f.number == 1 && f.wire == TSL_PROTO_VARINT)
        track->thread_time = f.value == 1 || f.value == 2;
    }
}

/* What a descriptor sets (not the open slices or a counter's value). */
static gboolean
same_track (const Track *a,
            const Track *b)
{
  return a->parent == b->parent && a->has_parent == b->has_parent && a->kind == b->kind &&
         a->pid == b->pid && a->tid == b->tid && a->name == b->name &&
         a->thread_name == b->thread_name && a->process_name == b->process_name &&
         a->incremental == b->incremental && a->thread_time == b->thread_time &&
         a->mult == b->mult && a->unit == b->unit && a->has_ts_track == b->has_ts_track;
}

static void
track_descriptor (TslPerfettoModel *self,
                  const guint8     *data,
                  gsize             len)
{
  TslProtoCursor c;
  TslProtoField f;
  Track *track;
  guint64 uuid = 0;
  const guint8 *process = NULL, *thread = NULL, *counter = NULL;
  gsize process_len = 0, thread_len = 0, counter_len = 0;
  guint32 name = 0;
  gboolean has_parent = FALSE;
  guint64 parent = 0;
  Track before;

  tsl_proto_cursor_init (&c, data, len);
  while (tsl_proto_next (&c, &f) == TSL_PROTO_OK)
    {
      switch (f.number)
        {
        case 1:
          if (f.wire == TSL_PROTO_VARINT)
            uuid = f.value;
          break;
        case 5:
          if (f.wire == TSL_PROTO_VARINT)
            {
              has_parent = TRUE;
              parent = f.value;
            }
          break;
        case 2: case 10: case 13:
          name = intern_field (self, &f);
          break;
        case 3:
          if (f.wire == TSL_PROTO_LEN)
            process = f.data, process_len = f.len;
          break;
        case 4:
          if (f.wire == TSL_PROTO_LEN)
            thread = f.data, thread_len = f.len;
          break;
        case 8:
          if (f.wire == TSL_PROTO_LEN)
            counter = f.data, counter_len = f.len;
          break;
        default:
          break;
        }
    }

  track = lookup_track (self, uuid, TRUE);
  before = *track;
  track->has_parent = has_parent && parent != uuid;
  track->parent = parent;
  if (name != 0)
    track->name = name;
  if (thread != NULL)
    {
      gint64 pid, tid;

      guint32 thread_name = thread_descriptor (self, thread, thread_len, &pid, &tid, NULL);

      if (thread_name != 0)
        track->thread_name = thread_name;
      else if (name != 0 && track->thread_name == 0)
        set_thread_name (self, pid, tid, name);
      /* Described again, as another thread, or only now: later events go
       * to the thread's track. */
      if (track->kind != TRACK_THREAD || track->pid != pid || track->tid != tid)
        track->has_ts_track = FALSE;
      track->kind = TRACK_THREAD;
      track->pid = pid;
      track->tid = tid;
    }
  else if (process != NULL)
    {
      track->kind = TRACK_PROCESS;
      process_descriptor (self, process, process_len, &track->pid);
      if (name != 0 && tsl_trace_get_process_name (self->trace, track->pid) == NULL)
        set_process_name (self, track->pid, name);
    }
  else if (counter != NULL)
    {
      if (track->kind != TRACK_COUNTER)
        track->has_ts_track = FALSE;
      track->kind = TRACK_COUNTER;
      counter_descriptor (self, track, counter, counter_len);
      if (track->has_ts_track && track->unit != 0 && track->unit != before.unit)
        tsl_trace_track_set_unit (self->trace, track->ts_track,
                                  tsl_trace_lookup (self->trace, track->unit));
    }
  else if (track->kind == TRACK_UNDESCRIBED)
    {
      track->kind = TRACK_ASYNC;
      track->has_ts_track = FALSE;
    }
  if (!same_track (&before, track))
    note_change (self);
}

/* A legacy ThreadDescriptor packet: the sequence's thread. */
static void
legacy_thread (TslPerfettoModel *self,
               Sequence         *seq,
               const guint8     *data,
               gsize             len)
{
  guint64 key, found;
  gint64 ref_us = 0;
  Track *track;

  note_change (self);
  thread_descriptor (self, data, len, &seq->pid, &seq->tid, &ref_us);
  seq->has_thread = TRUE;
  seq->ts_us = seq->profile_ts_us = ref_us;
  key = (guint64) seq->pid << 32 ^ (guint64) seq->tid;
  if (id_map_lookup (&self->legacy_threads, key, &found))
    track = GSIZE_TO_POINTER (found);
  else
    {
      track = lookup_track (self, self->legacy_uuid++, TRUE);
      track->kind = TRACK_THREAD;
      track->pid = seq->pid;
      track->tid = seq->tid;
      id_map_insert (&self->legacy_threads, key, GPOINTER_TO_SIZE (track));
    }
  seq->thread_track = track;
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

static void
process_tree (TslPerfettoModel *self,
              const guint8     *data,
              gsize             len)
{
  TslProtoCursor c, cc;
  TslProtoField f, g;

  tsl_proto_cursor_init (&c, data, len);
  while (tsl_proto_next (&c, &f) == TSL_PROTO_OK)
    {
      gint64 pid = 0, tid = 0;
      guint32 name = 0;

      if (f.wire != TSL_PROTO_LEN || (f.number != 1 && f.number != 2))
        continue;
      tsl_proto_cursor_init (&cc, f.data, f.len);
      while (tsl_proto_next (&cc, &g) == TSL_PROTO_OK)
        {
          if (f.number == 1 && g.number == 1 && g.wire == TSL_PROTO_VARINT)
            pid = (gint32) g.value;
          else if (f.number == 1 && g.number == 3 && name == 0)
            name = intern_cmdline (self, &g);
          else if (f.number == 2 && g.number == 1 && g.wire == TSL_PROTO_VARINT)
            tid = (gint32) g.value;
          else if (f.number == 2 && g.number == 3 && g.wire == TSL_PROTO_VARINT)
            pid = (gint32) g.value;
          else if (f.number == 2 && g.number == 2)
            name = intern_field (self, &g);
        }
      if (f.number == 1)
        set_process_name (self, pid, name);
      else if (name != 0)
        set_thread_name (self, pid != 0 ? pid : tid, tid, name);
    }
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
  self->n_undefined_iid++;
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
          self->n_bad_counter_track++;
          return;
        }
      track->kind = TRACK_COUNTER;
      note_change (self);
    }
  /* Chrome snapshots each thread's CPU time at every slice begin and end,
   * for slice CPU durations: as tracks, they would double the thread count. */
  if (track->thread_time)
    {
      self->n_thread_time++;
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
          self->n_bad_clock++;
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
        tsl_trace_note_time (self->trace, ts);
        event_flows (self, t, ts, track->n_open, ev);
        if (track->n_open >= MAX_DEPTH)
          {
            track->overflow++;
            self->n_deep++;
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
            self->n_unmatched_end++;
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

        t = ts_track (self, track);
        event_flows (self, t, ts, track->n_open, ev);
        tsl_trace_set_event_offset (self->trace, packet_offset (self));
        if (tsl_trace_offer (self->trace, t, ts, dur >= 0 ? (double) dur : NAN))
          set_stack_label (self, track, track->n_open, event_name (self, seq, ev));
        if (dur > 0 && ts <= G_MAXINT64 - dur)
          tsl_trace_note_time (self->trace, ts + dur);
        break;
      }

    case TYPE_COUNTER:
      if (ev->has_counter)
        counter_value (self, track, ts, ev->counter);
      break;

    default:  /* instants, and types this reader does not know */
      t = ts_track (self, track);
      event_flows (self, t, ts, track->n_open, ev);
      tsl_trace_set_event_offset (self->trace, packet_offset (self));
      if (tsl_trace_offer (self->trace, t, ts, NAN))
        set_stack_label (self, track, track->n_open, event_name (self, seq, ev));
      break;
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
      self->n_undefined_iid++;
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
      self->n_no_thread++;
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
          self->n_bad_time++;
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
      self->n_bad_compressed++;
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
    self->n_bad_compressed++;
  /* What inflated before any damage is read. */
  self->nesting++;
  if (!model_bytes (self, out->data, out->len))
    self->n_bad_inner++;
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
      self->n_data_loss++;
      seq->valid = FALSE;
    }
  if ((pk->cleared || (pk->flags & SEQ_INCREMENTAL_STATE_CLEARED) != 0) &&
      clear_incremental_state (seq))
    note_change (self);
  if ((pk->flags & SEQ_NEEDS_INCREMENTAL_STATE) != 0 && !seq->valid)
    {
      self->n_needs_state++;
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
      track_descriptor (self, pk->payload.data, pk->payload.len);
      return TRUE;
    case PKT_PROCESS_DESCRIPTOR:
      process_descriptor (self, pk->payload.data, pk->payload.len, NULL);
      return TRUE;
    case PKT_THREAD_DESCRIPTOR:
      legacy_thread (self, seq, pk->payload.data, pk->payload.len);
      return TRUE;
    case PKT_PROCESS_TREE:
      process_tree (self, pk->payload.data, pk->payload.len);
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
      self->kinds[MIN (pk->kind, MAX_KIND)]++;
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
        self->n_bad_inner++;
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

/* "12,345" */
static char *
format_count (guint64 n)
{
  g_autofree char *digits = g_strdup_printf ("%" G_GUINT64_FORMAT, n);
  GString *out = g_string_new (NULL);
  gsize len = strlen (digits);

  for (gsize i = 0; i < len; i++)
    {
      if (i > 0 && (len - i) % 3 == 0)
        g_string_append_c (out, ',');
      g_string_append_c (out, digits[i]);
    }
  return g_string_free (out, FALSE);
}

static void
warn_count (TslPerfettoModel *self,
            guint64           n,
            const char       *what)
{
  g_autofree char *count = NULL;

  if (n == 0)
    return;
  count = format_count (n);
  tsl_trace_add_warning (self->trace, "%s %s", count, what);
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
          if (tsl_trace_offer (self->trace, track->ts_track, track->open[track->n_open - 1].start_ns, NAN))
            set_stack_label (self, track, track->n_open, 0);
          track->n_open--;
        }
    }

  /* Service bookkeeping (config, stats, markers) holds nothing to show. */
  for (guint kind = 0; kind <= MAX_KIND; kind++)
    {
      const char *name = kind_name (kind);
      g_autofree char *what = NULL;

      if (self->kinds[kind] == 0 || kind == 33 || kind == 35 || kind == 36 || kind == 89 ||
          kind == 69 || kind == 45)
        continue;
      if (name != NULL)
        what = g_strdup_printf ("%s packets not shown", name);
      else if (kind == MAX_KIND)
        what = g_strdup_printf ("packets of kinds numbered %u or more not shown", MAX_KIND);
      else
        what = g_strdup_printf ("packets of kind %u (TracePacket field %u) not shown", kind, kind);
      warn_count (self, self->kinds[kind], what);
    }

  warn_count (self, unclosed, "slices had no end and were closed at the end of the trace");
  warn_count (self, self->n_unmatched_end, "slice ends without a begin on their track were ignored");
  warn_count (self, self->n_deep, "slices nested deeper than 512 levels were shown flat");
  warn_count (self, self->n_needs_state,
              "packets needing incremental state that their sequence had not set up "
              "(or lost to dropped packets) were skipped");
  warn_count (self, self->n_data_loss, "times a sequence reported dropped packets");
  warn_count (self, self->n_undefined_iid,
              "events referred to an interned name or stack never defined on their sequence "
              "(shown as \"(unnamed)\")");
  warn_count (self, self->n_bad_clock,
              "packets were skipped: their clock was not related to the trace clock by any "
              "ClockSnapshot before them");
  warn_count (self, self->n_bad_time, "packets were skipped: timestamp out of range");
  warn_count (self, self->n_late_descriptor,
              "tracks had events before their TrackDescriptor (or none) and are named by uuid");
  warn_count (self, self->n_no_thread,
              "StreamingProfilePackets on a sequence without a ThreadDescriptor were skipped");
  warn_count (self, self->n_thread_time,
              "thread CPU time and instruction count values (taken at slice begins and ends) "
              "not shown");
  warn_count (self, self->n_bad_counter_track, "counter values on tracks that are not counters were ignored");
  warn_count (self, self->n_bad_compressed,
              "compressed packet bundles were damaged, too large or nested too deep; what inflated was read");
  warn_count (self, self->n_bad_inner, "malformed packets inside compressed bundles were skipped");
}

/* Checkpoints (the chunk index's, tsl-chunk-index.h)
 *
 * A checkpoint saves what a read resuming there needs and packets change
 * often: every sequence's incremental state (the interned event and function
 * names since its last reset, TracePacketDefaults, its clocks, whether it is
 * valid), the trace's clocks, the open slices of each track, incremental
 * counters' last values and legacy delta timestamps. Chrome resets each
 * sequence's state about twice a second, so these change in every chunk;
 * saved whole (strings once, deflated) they take a few KiB. What changes
 * rarely — tracks and their descriptors, legacy thread descriptors,
 * interned frames and callstacks — is not saved: the chunk that changes it
 * is read always (note_change()), so a resuming read has it as the whole
 * read had it there. */

#define SAVE_MAGIC   0x51                /* version 2 (1 kept no sequences) */
#define SAVE_RAW_MAX (4 * 1024 * 1024)   /* before deflating */

typedef struct {
  GByteArray *out;
  IdMap       strings;   /* trace string → index in the saved table */
  GArray     *names;     /* guint32 trace strings, in saved order */
} Saver;

static void
put (GByteArray *out,
     const void *data,
     gsize       len)
{
  g_byte_array_append (out, data, len);
}

static void
put_u8 (GByteArray *out,
        guint8      v)
{
  put (out, &v, 1);
}

/* Integers as varints: most are small, and deflate does the rest. */
static void
put_u64 (GByteArray *out,
         guint64     v)
{
  guint8 tmp[10];
  guint n = 0;

  while (v >= 0x80)
    {
      tmp[n++] = (guint8) (v | 0x80);
      v >>= 7;
    }
  tmp[n++] = (guint8) v;
  put (out, tmp, n);
}

static void
put_u32 (GByteArray *out,
         guint32     v)
{
  put_u64 (out, v);
}

static guint32
saved_string (Saver   *sv,
              guint32  id)
{
  guint64 index;

  if (id_map_lookup (&sv->strings, id, &index))
    return (guint32) index;
  index = sv->names->len;
  g_array_append_val (sv->names, id);
  id_map_insert (&sv->strings, id, index);
  return (guint32) index;
}

static gboolean
clock_is_set (const Clock *c)
{
  return c->offset != 0 || c->mult != 0 || c->last != 0 || c->link != 0 || c->link_offset != 0 ||
         c->known || c->has_link || c->incremental;
}

static void
put_clock (GByteArray  *out,
           guint32      id,
           const Clock *c)
{
  put_u32 (out, id);
  put_u64 (out, (guint64) c->offset);
  put_u64 (out, c->mult);
  put_u64 (out, c->last);
  put_u32 (out, c->link);
  put_u64 (out, (guint64) c->link_offset);
  put_u8 (out, c->known);
  put_u8 (out, c->has_link);
  put_u8 (out, c->incremental);
}

/* The (iid, name) entries of a string map. */
static void
put_names (Saver       *sv,
           GByteArray  *out,
           const IdMap *map)
{
  put_u32 (out, (guint32) map->n);
  for (gsize i = 0; map->n > 0 && i <= map->mask; i++)
    if (map->used[i])
      {
        put_u64 (out, map->keys[i]);
        put_u32 (out, saved_string (sv, (guint32) map->values[i]));
      }
}

static void
put_sequence (Saver          *sv,
              GByteArray     *out,
              const Sequence *seq)
{
  guint n_clocks = 0;

  put_u32 (out, seq->id);
  put_u8 (out, seq->valid);
  put_u32 (out, seq->clock_id);
  put_u8 (out, seq->has_track);
  put_u64 (out, seq->track);
  put_u32 (out, seq->n_extra_uuids);
  put (out, seq->extra_uuids, seq->n_extra_uuids * sizeof (guint64));
  put_u32 (out, seq->n_extra_double_uuids);
  put (out, seq->extra_double_uuids, seq->n_extra_double_uuids * sizeof (guint64));
  for (guint i = 0; seq->clocks != NULL && i < 64; i++)
    n_clocks += clock_is_set (&seq->clocks[i]);
  put_u8 (out, seq->clocks != NULL);
  put_u32 (out, n_clocks);
  for (guint i = 0; seq->clocks != NULL && i < 64; i++)
    if (clock_is_set (&seq->clocks[i]))
      put_clock (out, 64 + i, &seq->clocks[i]);
  put_names (sv, out, &seq->maps[MAP_NAMES]);
  put_names (sv, out, &seq->maps[MAP_FUNCTIONS]);
  put_u8 (out, seq->has_thread);
  put_u64 (out, (guint64) seq->ts_us);
  put_u64 (out, (guint64) seq->profile_ts_us);
}

static inline gboolean
counter_is_incremental (const Track *track)
{
  return track->kind == TRACK_COUNTER && track->incremental && !track->thread_time;
}

gboolean
tsl_perfetto_model_save (TslPerfettoModel *self,
                         GByteArray       *saved,
                         gsize             max_len)
{
  g_autoptr(GByteArray) body = g_byte_array_new ();
  g_autoptr(GByteArray) raw = g_byte_array_new ();
  g_autoptr(GArray) names = g_array_new (FALSE, FALSE, sizeof (guint32));
  Saver sv = { NULL, { 0 }, names };
  guint n = 0;
  uLongf packed_len;
  guint32 raw_len;
  gsize at;

  /* Clocks */
  put_u8 (body, self->clock_used);
  put_u32 (body, self->trace_clock);
  for (guint i = 0; i < 64; i++)
    n += clock_is_set (&self->builtin[i]);
  put_u32 (body, n);
  for (guint i = 0; i < 64; i++)
    if (clock_is_set (&self->builtin[i]))
      put_clock (body, i, &self->builtin[i]);
  put_u32 (body, (guint32) self->user_clocks.n);
  for (gsize i = 0; self->user_clocks.n > 0 && i <= self->user_clocks.mask; i++)
    if (self->user_clocks.used[i])
      put_clock (body, (guint32) self->user_clocks.keys[i],
                 &g_array_index (self->user_clock_list, Clock, self->user_clocks.values[i]));

  /* Sequences */
  put_u32 (body, (guint32) self->sequences.n);
  for (gsize i = 0; self->sequences.n > 0 && i <= self->sequences.mask; i++)
    if (self->sequences.used[i])
      put_sequence (&sv, body, GSIZE_TO_POINTER (self->sequences.values[i]));

  /* Tracks: open slices, incremental counters */
  n = 0;
  for (gsize i = 0; self->tracks.n > 0 && i <= self->tracks.mask; i++)
    if (self->tracks.used[i])
      {
        const Track *track = GSIZE_TO_POINTER (self->tracks.values[i]);

        n += track->n_open > 0 || track->overflow > 0 || counter_is_incremental (track);
      }
  put_u32 (body, n);
  for (gsize i = 0; self->tracks.n > 0 && i <= self->tracks.mask; i++)
    {
      const Track *track;

      if (!self->tracks.used[i])
        continue;
      track = GSIZE_TO_POINTER (self->tracks.values[i]);
      if (track->n_open == 0 && track->overflow == 0 && !counter_is_incremental (track))
        continue;
      put_u64 (body, track->uuid);
      put (body, &track->last_value, sizeof track->last_value);
      put_u32 (body, track->n_open);
      put_u32 (body, track->overflow);
      for (guint j = 0; j < track->n_open; j++)
        {
          put_u64 (body, (guint64) track->open[j].start_ns);
          put_u64 (body, (guint64) track->open[j].offset);
          put_u32 (body, saved_string (&sv, track->open[j].name));
        }
      if (body->len > SAVE_RAW_MAX)
        break;
    }
  id_map_free (&sv.strings);

  /* The strings first, then the body; deflated. */
  put_u32 (raw, names->len);
  for (guint i = 0; i < names->len && raw->len <= SAVE_RAW_MAX; i++)
    {
      const char *name = tsl_trace_lookup (self->trace, g_array_index (names, guint32, i));
      guint32 len = name != NULL ? strlen (name) : 0;

      put_u32 (raw, len);
      put (raw, name, len);
    }
  put (raw, body->data, body->len);
  if (raw->len > SAVE_RAW_MAX)
    return FALSE;

  raw_len = raw->len;
  at = saved->len;
  put_u8 (saved, SAVE_MAGIC);
  put (saved, &raw_len, sizeof raw_len);
  if (self->deflater == NULL)
    {
      self->deflater = g_new0 (z_stream, 1);
      if (deflateInit2 (self->deflater, 1, Z_DEFLATED, 15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        {
          g_clear_pointer (&self->deflater, g_free);
          g_byte_array_set_size (saved, at);
          return FALSE;
        }
    }
  else
    deflateReset (self->deflater);
  packed_len = deflateBound (self->deflater, raw_len);
  g_byte_array_set_size (saved, at + 5 + packed_len);
  self->deflater->next_in = raw->data;
  self->deflater->avail_in = raw_len;
  self->deflater->next_out = saved->data + at + 5;
  self->deflater->avail_out = packed_len;
  if (deflate (self->deflater, Z_FINISH) != Z_STREAM_END)
    {
      g_byte_array_set_size (saved, at);
      return FALSE;
    }
  packed_len = self->deflater->total_out;
  g_byte_array_set_size (saved, at + 5 + packed_len);
  return saved->len <= max_len;
}

typedef struct {
  const guint8 *p;
  const guint8 *end;
  gboolean      bad;
} Taker;

static gboolean
take (Taker *tk,
      void  *out,
      gsize  len)
{
  if (tk->bad || (gsize) (tk->end - tk->p) < len)
    {
      tk->bad = TRUE;
      return FALSE;
    }
  if (out != NULL)
    memcpy (out, tk->p, len);
  tk->p += len;
  return TRUE;
}

static guint8
take_u8 (Taker *tk)
{
  guint8 v = 0;

  take (tk, &v, 1);
  return v;
}

static guint64
take_u64 (Taker *tk)
{
  guint64 v = 0;

  if (tk->bad || tsl_proto_varint (&tk->p, tk->end, &v) != TSL_PROTO_OK)
    {
      tk->bad = TRUE;
      return 0;
    }
  return v;
}

static guint32
take_u32 (Taker *tk)
{
  guint64 v = take_u64 (tk);

  if (v > G_MAXUINT32)
    tk->bad = TRUE;
  return (guint32) v;
}

static void
take_clock (Taker   *tk,
            guint32 *id,
            Clock   *c)
{
  *id = take_u32 (tk);
  c->offset = (gint64) take_u64 (tk);
  c->mult = take_u64 (tk);
  c->last = take_u64 (tk);
  c->link = take_u32 (tk);
  c->link_offset = (gint64) take_u64 (tk);
  c->known = take_u8 (tk) != 0;
  c->has_link = take_u8 (tk) != 0;
  c->incremental = take_u8 (tk) != 0;
}

static void
take_names (Taker     *tk,
            GPtrArray *strings,
            IdMap     *map,
            guint32   *direct)
{
  guint32 n = take_u32 (tk);

  for (guint32 i = 0; i < n && !tk->bad; i++)
    {
      guint64 iid = take_u64 (tk);
      guint32 index = take_u32 (tk);
      guint32 id;

      if (tk->bad || index >= strings->len)
        {
          tk->bad = TRUE;
          return;
        }
      id = GPOINTER_TO_UINT (g_ptr_array_index (strings, index));
      if (map != NULL)
        {
          id_map_insert (map, iid, id);
          if (direct != NULL && iid < N_DIRECT_NAMES)
            direct[iid] = id + 1;
        }
    }
}

static void
reset_sequence (Sequence *seq)
{
  id_map_clear (&seq->maps[MAP_NAMES]);
  id_map_clear (&seq->maps[MAP_FUNCTIONS]);
  memset (seq->names, 0, sizeof seq->names);
  seq->valid = FALSE;
  seq->clock_id = 0;
  seq->has_track = FALSE;
  seq->track = 0;
  seq->default_track = NULL;
  seq->n_extra_uuids = 0;
  seq->n_extra_double_uuids = 0;
  g_clear_pointer (&seq->clocks, g_free);
  seq->cache_epoch = 0;
}

/* Reads `raw` against the model (pass 0) before changing anything (pass
 * 1): a state that does not fit leaves the model as it was. */
static gboolean
restore_pass (TslPerfettoModel *self,
              const guint8     *raw,
              gsize             len,
              guint             pass,
              GPtrArray        *strings)
{
  Taker tk = { raw, raw + len, FALSE };
  gboolean apply = pass == 1;
  guint32 n, trace_clock;
  guint8 clock_used;

  n = take_u32 (&tk);
  for (guint32 i = 0; i < n && !tk.bad; i++)
    {
      guint32 slen = take_u32 (&tk);
      const guint8 *s = tk.p;

      if (take (&tk, NULL, slen) && !apply)
        g_ptr_array_add (strings, GUINT_TO_POINTER (slen > 0 ? tsl_trace_intern_len (self->trace, (const char *) s, slen)
                                                             : self->unnamed));
    }

  /* Clocks */
  clock_used = take_u8 (&tk);
  trace_clock = take_u32 (&tk);
  if (tk.bad || trace_clock == 0 || trace_clock >= 64 || clock_used > 1)
    return FALSE;
  if (apply)
    {
      self->clock_used = clock_used;
      self->trace_clock = trace_clock;
      self->clock_epoch++;
      memset (self->builtin, 0, sizeof self->builtin);
      id_map_clear (&self->user_clocks);
      g_array_set_size (self->user_clock_list, 0);
    }
  n = take_u32 (&tk);
  for (guint32 i = 0; i < n && !tk.bad; i++)
    {
      Clock c;
      guint32 id;

      take_clock (&tk, &id, &c);
      if (id >= 64)
        return FALSE;
      if (apply)
        self->builtin[id] = c;
    }
  n = take_u32 (&tk);
  for (guint32 i = 0; i < n && !tk.bad; i++)
    {
      Clock c;
      guint32 id;

      take_clock (&tk, &id, &c);
      if (id < 128)
        return FALSE;
      if (apply)
        *get_clock (self, NULL, id, TRUE) = c;
    }

  /* Sequences: those not saved were not there, or are as new. */
  if (apply)
    for (gsize i = 0; self->sequences.n > 0 && i <= self->sequences.mask; i++)
      if (self->sequences.used[i])
        reset_sequence (GSIZE_TO_POINTER (self->sequences.values[i]));
  n = take_u32 (&tk);
  for (guint32 i = 0; i < n && !tk.bad; i++)
    {
      guint32 id = take_u32 (&tk), n_extra, n_clocks;
      Sequence *seq = NULL;
      guint64 found;
      gboolean has_clocks, has_thread, valid, has_track;
      guint32 clock_id;
      guint64 track, ts_us, profile_ts_us;

      if (apply)
        seq = get_sequence (self, id);
      else if (id_map_lookup (&self->sequences, id, &found))
        seq = GSIZE_TO_POINTER (found);
      valid = take_u8 (&tk) != 0;
      clock_id = take_u32 (&tk);
      has_track = take_u8 (&tk) != 0;
      track = take_u64 (&tk);
      if (apply)
        {
          seq->valid = valid;
          seq->clock_id = clock_id;
          seq->has_track = has_track;
          seq->track = track;
        }
      n_extra = take_u32 (&tk);
      if (n_extra > MAX_EXTRA)
        return FALSE;
      take (&tk, apply ? seq->extra_uuids : NULL, n_extra * sizeof (guint64));
      if (apply)
        seq->n_extra_uuids = n_extra;
      n_extra = take_u32 (&tk);
      if (n_extra > MAX_EXTRA)
        return FALSE;
      take (&tk, apply ? seq->extra_double_uuids : NULL, n_extra * sizeof (guint64));
      if (apply)
        seq->n_extra_double_uuids = n_extra;
      has_clocks = take_u8 (&tk) != 0;
      if (apply && has_clocks)
        seq->clocks = g_new0 (Clock, 64);
      n_clocks = take_u32 (&tk);
      for (guint32 j = 0; j < n_clocks && !tk.bad; j++)
        {
          Clock c;
          guint32 cid;

          take_clock (&tk, &cid, &c);
          if (!has_clocks || cid < 64 || cid >= 128)
            return FALSE;
          if (apply)
            seq->clocks[cid - 64] = c;
        }
      take_names (&tk, strings, apply ? &seq->maps[MAP_NAMES] : NULL, apply ? seq->names : NULL);
      take_names (&tk, strings, apply ? &seq->maps[MAP_FUNCTIONS] : NULL, NULL);
      /* Legacy thread descriptors are not saved: they are read always. */
      has_thread = take_u8 (&tk) != 0;
      if (!apply && has_thread != (seq != NULL && seq->has_thread))
        return FALSE;
      ts_us = take_u64 (&tk);
      profile_ts_us = take_u64 (&tk);
      if (apply)
        {
          seq->ts_us = (gint64) ts_us;
          seq->profile_ts_us = (gint64) profile_ts_us;
        }
    }

  /* Tracks */
  if (apply)
    for (gsize i = 0; self->tracks.n > 0 && i <= self->tracks.mask; i++)
      if (self->tracks.used[i])
        {
          Track *track = GSIZE_TO_POINTER (self->tracks.values[i]);

          track->n_open = 0;
          track->overflow = 0;
          if (counter_is_incremental (track))
            track->last_value = 0;
        }
  n = take_u32 (&tk);
  for (guint32 i = 0; i < n && !tk.bad; i++)
    {
      guint64 uuid = take_u64 (&tk), found;
      double last_value = 0;
      guint32 n_open, overflow;
      Track *track;

      take (&tk, &last_value, sizeof last_value);
      n_open = take_u32 (&tk);
      overflow = take_u32 (&tk);
      if (tk.bad || n_open > MAX_DEPTH || !id_map_lookup (&self->tracks, uuid, &found))
        return FALSE;
      track = GSIZE_TO_POINTER (found);
      if (apply)
        {
          track->overflow = overflow;
          if (counter_is_incremental (track))
            track->last_value = last_value;
          if (track->n_alloc < n_open)
            {
              track->n_alloc = MAX (8, n_open);
              track->open = g_renew (OpenSlice, track->open, track->n_alloc);
            }
        }
      for (guint32 j = 0; j < n_open && !tk.bad; j++)
        {
          gint64 start_ns = (gint64) take_u64 (&tk);
          gint64 offset = (gint64) take_u64 (&tk);
          guint32 name = take_u32 (&tk);

          if (tk.bad || name >= strings->len)
            return FALSE;
          if (apply)
            track->open[j] = (OpenSlice) { start_ns, offset,
                                           GPOINTER_TO_UINT (g_ptr_array_index (strings, name)), 0 };
        }
      if (apply)
        track->n_open = n_open;
    }
  return !tk.bad && tk.p == tk.end;
}

gboolean
tsl_perfetto_model_restore (TslPerfettoModel *self,
                            const guint8     *saved,
                            gsize             len)
{
  g_autoptr(GPtrArray) strings = g_ptr_array_new ();
  g_autofree guint8 *raw = NULL;
  guint32 raw_len;
  uLongf got;

  if (len < 5 || saved[0] != SAVE_MAGIC)
    return FALSE;
  memcpy (&raw_len, saved + 1, sizeof raw_len);
  if (raw_len > SAVE_RAW_MAX)
    return FALSE;
  raw = g_malloc (MAX (raw_len, 1));
  got = raw_len;
  if (uncompress (raw, &got, saved + 5, len - 5) != Z_OK || got != raw_len)
    return FALSE;
  self->last_seq = NULL;
  return restore_pass (self, raw, raw_len, 0, strings) &&
         restore_pass (self, raw, raw_len, 1, strings);
}
