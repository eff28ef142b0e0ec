/* tsl-perfetto-model-types.h: the Perfetto model's types, shared by its parts and its checkpoints
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * tsl-perfetto-model.c and its parts (listed at its top) decode packets
 * into the model; tsl-perfetto-checkpoint.c saves and restores what a
 * checkpoint of the chunk index needs. Types only: each part declares its
 * functions in its own header.
 */
#pragma once

#include <gio/gio.h>
#include <zlib.h>
#include <zstd.h>

#include "tsl-perfetto-id-map.h"
#include "tsl-perfetto-scan.h"
#include "tsl-perfetto-private.h"

G_BEGIN_DECLS

typedef TslPerfettoEvent Event;
typedef TslPerfettoPacket Packet;

#define MAX_DEPTH       512       /* deeper slices are offered flat */
#define MAX_INFLATED    ((gsize) 32 * 1024 * 1024)  /* a bundle holds at most 512 KiB */
#define MAX_NESTING     2         /* compressed packets inside compressed packets */
#define MAX_KIND        1024      /* packet kinds counted by field number */
#define MAX_PATHS       16384     /* stack paths kept (as joins: tsl_trace_join_later()) */
#define MAX_PATH_LEN    512
#define N_DIRECT_NAMES  256       /* interned event names looked up without hashing */

#define SEQ_INCREMENTAL_STATE_CLEARED 1
#define SEQ_NEEDS_INCREMENTAL_STATE   2

#define BUILTIN_REALTIME  1
#define BUILTIN_MONOTONIC 3
#define BUILTIN_BOOTTIME  6

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
  gint64  thread_ns; /* the thread's CPU time at its begin, NO_THREAD_TIME if not given */
} OpenSlice;

#define NO_THREAD_TIME G_MININT64

/* A slice end that found its track's stack empty. Kept until a begin that
 * comes later in the file but not later in time pairs with it (tracks
 * written by several sequences: Perfetto sorts by time, this reader reads
 * in file order), or until the end of the input: an end before any begin
 * on its track is a slice begun before the trace started, shown from the
 * trace's start; one after is counted as misplaced and not shown. */
typedef struct {
  gint64  end_ns;
  gint64  offset;       /* of its SLICE_END packet, -1 if unknown */
  guint8  before_begin; /* its track had no begin before it */
} EarlyEnd;

#define MAX_EARLY 64    /* per track: more are counted as misplaced at once */

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
  gboolean   thread_ns;    /* … its CPU time in ns (COUNTER_THREAD_TIME_NS) */
  double     mult;
  double     last_value;
  guint32    unit;
  /* The TslTrace track, once an event needed it. */
  guint      ts_track;
  gboolean   has_ts_track;
  gboolean   is_thread;   /* ts_track is a thread track: labels are stacks */
  gboolean   titled;      /* asked _tsl_perfetto_title_track() already */
  OpenSlice *open;
  guint      n_open;
  guint      n_alloc;
  guint      overflow;
  gboolean   had_begin;   /* a slice began on it (a change, not saved) */
  EarlyEnd  *early;       /* MAX_EARLY once needed */
  guint      n_early;
  gint64     early_max;   /* the latest end_ns of early */
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
  /* The same, kept across resets: after one the same names come again
   * under the same iids, and a name equal to the one seen is not
   * interned again. */
  guint32  seen_names[N_DIRECT_NAMES];
  GArray  *stack_frames;   /* guint64: count, then frame iids */
  /* TracePacketDefaults */
  guint32  clock_id;
  gboolean has_track;
  guint64  track;
  Track   *default_track;  /* track's, once looked up */
  guint64  extra_uuids[MAX_EXTRA];
  guint    n_extra_uuids;
  Track   *extra_tracks[MAX_EXTRA]; /* the last track of each extra counter value, checked by uuid */
  guint64  extra_double_uuids[MAX_EXTRA];
  guint    n_extra_double_uuids;
  Clock   *clocks;         /* ids 64..127, or NULL */
  guint64  clocks_used;    /* bit i: clocks[i] handed out (perhaps set) */
  Clock   *spare_clocks;   /* all zeros: the room of clocks before a reset */
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

typedef struct {
  guint64       kinds[MAX_KIND + 1];
  guint64       n_needs_state;
  guint64       n_data_loss;
  guint64       n_undefined_iid;
  guint64       n_bad_clock;
  guint64       n_bad_time;
  guint64       n_misplaced_end;
  guint64       n_deep;
  guint64       n_late_descriptor;
  guint64       n_no_thread;
  guint64       n_bad_inner;
  guint64       n_bad_compressed;
  guint64       n_bad_counter_track;
  guint64       n_thread_time;
} PerfettoCounts;

struct _TslPerfettoModel
{
  TslTrace     *trace;
  guint64       events;

  IdMap         sequences;     /* trusted_packet_sequence_id → Sequence * */
  Sequence     *last_seq;
  IdMap         tracks;        /* uuid → Track * */
  Track        *last_track[2];  /* the two last looked up: an event's and its counter's */
  gint64        event_thread_ns; /* the thread CPU time an event carries, NO_THREAD_TIME if none */
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
  ZSTD_CCtx    *packer;        /* checkpoints' (kept: its set-up cost more than the state) */
  guint         nesting;
  gint64        packet_offset; /* tsl_perfetto_model_set_offset(), -1: none */

  GString      *label;
  guint32       unnamed;
  guint32       before_trace;  /* the name of a slice begun before the trace */
  IdMap         paths;         /* parent path << 32 | name → path (strings) */

  /* Counted, and reported at the end (or of a part) as tallies. */
  PerfettoCounts counts;
};

/* What later packets depend on changed (a track, an interned name, a
 * clock, ...): the chunk index reads this chunk always, so a range read
 * rebuilds that state from the chunks that made it, and a checkpoint saves
 * only what events change (tsl_perfetto_model_save()). */
static inline void
note_change (TslPerfettoModel *self)
{
  tsl_trace_note_change (self->trace);
}

G_END_DECLS
