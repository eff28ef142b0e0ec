/* tsl-trace-private.h: TslTrace's insides, for the model's own files
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * tsl-trace.c, its parts (tsl-trace-*.c: strings, labels, the exact view,
 * metadata, warnings) and tsl-trace-state*.c (sampler state files, merges) share
 * these; nothing outside app/core/model/ includes it.
 */
#pragma once

#include "tsl-exact.h"
#include "tsl-label-store.h"
#include "tsl-trace.h"
#include "tsl-warnings.h"

G_BEGIN_DECLS

#define TSL_TRACE_N_KINDS 4
/* Past the budget, tracks of each kind fold into one of these (pid FOLD_PID). */
#define FOLD_PID G_MAXINT64

typedef struct
{
  TslTrackKind  kind;
  gint64        pid;
  gint64        tid;
  guint32       name;   /* key part for non-thread tracks, 0 for threads */
} TrackKey;

typedef struct
{
  TrackKey      key;
  guint32       unit;
  guint32       display;   /* cached "Thread TID" */
  guint32       title;     /* see tsl_trace_track_set_title(), 0 if none */
  gboolean      sampled;   /* see tsl_trace_track_set_sampled() */
  gboolean      spans;     /* values are durations (ns) of spans at their time */
  TslSampler   *sampler;
} Track;

/* What one track costs beyond its samples' growth, taken from the budget
 * when it is made: the track and its sampler with their first slots, the
 * tables that find it, a reader's state for it and a snapshot's copy. */
#define TRACK_COST 2048

/* A tsl_trace_join_later() label: "head;tail", its text made once read. */
typedef struct
{
  guint32     head;
  guint32     tail;
  gsize       len;
  const char *text;   /* in join_chunk, NULL until read */
} TslTraceJoin;

typedef struct
{
  guint32  name;
  gboolean has_sort_index;
  int      sort_index;
} Meta;

struct _TslTrace
{
  GObject         parent_instance;

  GMutex          mutex;
  TslSamplerMode  mode;
  guint           k;
  guint64         seed;
  TslTimeGrid    *grid;

  char           *format;

  GStringChunk   *chunk;
  GHashTable     *string_ids;    /* const char * (in chunk) → id */
  GPtrArray      *strings;       /* id → const char *, [0] = NULL */
  GByteArray     *semicolons;    /* id → 1 if the string holds a ';' */
  TslTraceJoin   *joins;         /* id & ~TSL_JOIN_TAG → join (tsl_trace_join_later()) */
  guint           n_joins;
  guint           n_joins_alloc;
  GStringChunk   *join_chunk;    /* their texts, made under join_mutex */
  GMutex          join_mutex;
  TslLabelStore  *labels;        /* stacks of kept samples, collected when evicted */
  guint           next_label_collect;

  GPtrArray      *tracks;        /* Track * */
  GHashTable     *track_ids;     /* TrackKey * (in tracks) → index + 1 */

  TslBudget      *budget;
  gboolean        folding;       /* the budget refused a track: new ones fold */
  guint           fold_tracks[TSL_TRACE_N_KINDS];   /* index + 1 */
  guint64         dropped_meta;  /* names of folded threads and processes not kept */

  GHashTable     *processes;     /* gint64 * → Meta */
  GHashTable     *threads;       /* TrackKey * (pid, tid) → Meta */

  guint64         events;
  guint64         flows[TSL_FLOW_COUNT_N];
  gboolean        has_span;
  gint64          span_start;
  gint64          span_end;
  gboolean        has_time;
  gboolean        has_cpu;       /* a reader gave some span a thread time */

  gboolean        has_filter;    /* see tsl_trace_set_time_filter() */
  gint64          filter_start;
  gint64          filter_end;

  TslTraceEventFunc event_func;  /* see tsl_trace_set_event_func() */
  TslTraceNamesFunc names_func;  /* see tsl_trace_set_names_func() */
  gpointer        event_data;
  gboolean        has_pending;   /* an event offered, its label not yet seen */
  gboolean        pending_kept;  /* … and its sampler kept it */
  gboolean        observe_metrics_only;   /* see tsl_trace_set_observe_metrics_only() */
  guint           pending_track;
  gint64          pending_time;
  double          pending_value;
  TslExact       *exact;         /* see tsl_trace_record_exact() */
  guint           exact_per_track;   /* as asked, 0 when not asked */
  guint           exact_total;
  gint64          event_offset;
  double          event_cpu;     /* the next offer's thread time (ns), NAN if none */
  double          pending_cpu;   /* … and the observed event's, while delivered */
  guint32         event_open;    /* the next offer's TSL_EXACT_OPEN flags: a span the input never closed or opened */
  gboolean        label_sampler; /* the last offer's label goes to its sampler */
  gboolean        label_exact;   /* … and/or to the exact recorder */
  /* For a chunk index (read/tsl-chunk-index.h): offered times since the
   * last tsl_trace_take_window(), and a count of everything else a reader
   * changed (tracks, names, units, warnings). */
  gint64          window_min;
  gint64          window_max;
  guint64         changes;
  GArray         *series_recorders;   /* TslSeriesRecorder by track, while recording */
  TslSeriesEnds  *file_series_ends;   /* see tsl_trace_set_file_series_ends() */

  TslWarnings    *warnings;
  /* Count mode, a later part of a stream: events each track had before it
   * (track key string → guint64 *), see tsl_trace_count_after(). */
  GHashTable     *first_indices;
};


/* Makes a track holding `sampler` (taken); not in track_ids when folded. */
guint             _tsl_trace_add_track          (TslTrace       *self,
                                                 const TrackKey *key,
                                                 TslSampler     *sampler,
                                                 gboolean        folded);
/* A thread's metadata, NULL if none was given (tsl-trace-meta.c). */
Meta             *_tsl_trace_lookup_thread      (TslTrace       *self,
                                                 gint64          pid,
                                                 gint64          tid);
/* The name of the fold track of `kind` ("other threads", ...). */
const char       *_tsl_trace_fold_name          (TslTrackKind    kind);
void              _tsl_trace_collect_labels     (TslTrace       *self);
/* Where a new count-mode track's events are numbered from (0 but in a
 * later part, see tsl_trace_count_after()). */
guint64           _tsl_trace_first_index        (TslTrace       *self,
                                                 const TrackKey *key);

/* tsl-trace-strings.c: `str` with every ';'-separated part longer than
 * NAME_MAX_BYTES cut at a character boundary, with a warning; NULL when
 * none is that long. */
char             *_tsl_trace_cut_long_parts     (TslTrace       *self,
                                                 const char     *str,
                                                 gsize           len);
/* A copy of `str` with each NUL byte as U+FFFD, or NULL if it has none. */
char             *_tsl_trace_replace_nuls       (TslTrace       *self,
                                                 const char     *str,
                                                 gsize           len);
/* The id of `str` if it was interned, without interning it. */
gboolean          _tsl_trace_lookup_string      (TslTrace       *self,
                                                 const char     *str,
                                                 guint32        *id);
/* tsl-trace-tracks.c: makes room for a track's recorder. */
void              _tsl_trace_grow_series_recorders (TslTrace    *self,
                                                 guint           track);
/* tsl-trace-exact.c: an offer while the exact view records. */
gboolean          _tsl_trace_offer_exact        (TslTrace       *self,
                                                 guint           track,
                                                 gint64          time_ns,
                                                 double          value);

static inline Track *
get_track (TslTrace *self,
           guint     track)
{
  return g_ptr_array_index (self->tracks, track);
}

/* The event offered before gets its label (NULL: none) and goes to the
 * observer. */
static inline void
_tsl_trace_deliver_pending (TslTrace   *self,
                            const char *label)
{
  if (!self->has_pending)
    return;
  self->has_pending = FALSE;
  self->event_func (self->pending_track, self->pending_time, self->pending_value,
                    label, TRUE, self->event_data);
}

/* A point offered while series ends are recorded (metric tracks only). */
static inline void
_tsl_trace_record_series_point (TslTrace *self,
                                Track    *t,
                                guint     track,
                                gint64    time_ns,
                                double    value)
{
  if (t->key.kind != TSL_TRACK_COUNTER && t->key.kind != TSL_TRACK_METRIC)
    return;
  if (G_UNLIKELY (track >= self->series_recorders->len))
    _tsl_trace_grow_series_recorders (self, track);
  tsl_series_recorder_add (&g_array_index (self->series_recorders, TslSeriesRecorder, track), time_ns, value);
}

G_END_DECLS
