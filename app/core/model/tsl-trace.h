/* tsl-trace.h: the streaming trace model — tracks, strings and their samplers
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Readers feed events into a TslTrace; it never keeps anything per event, only
 * one TslSampler per track (K..2K samples plus slice summaries) and the
 * distinct strings. Memory is O(tracks × K + distinct strings), and tracks
 * and samples stay within a TslBudget: past it, K is lowered for the tracks
 * that grow and new tracks fold into one "other …" track per kind.
 *
 * Threading: nothing in this header locks by itself, so the per-event path
 * costs no atomics. A reader on a worker thread holds tsl_trace_lock() while
 * it feeds one chunk of input; a viewer takes the same lock to copy a
 * consistent view (tsl_snapshot_new()). Any other caller that shares the
 * trace with a reading thread holds the lock around every call here and
 * while it uses what a getter returned (names, samplers, warnings). The
 * lock is a plain GMutex: not recursive. A trace no other thread feeds (the
 * command line after tsl_read_path() returned) needs no lock.
 */
#pragma once

#include <glib-object.h>

#include "tsl-exact.h"
#include "tsl-sampler.h"
#include "tsl-series-ends.h"

G_BEGIN_DECLS

typedef enum {
  TSL_TRACK_THREAD,   /* stacks / spans of one thread; label = stack, root first, ';'-joined */
  TSL_TRACK_COUNTER,  /* a numeric series from the trace (Chrome "C" events) */
  TSL_TRACK_METRIC,   /* a numeric series from a metric file (CSV/TSV) */
  TSL_TRACK_ASYNC,    /* async spans (b/e, S/F); label = span name */
} TslTrackKind;

const char *tsl_track_kind_to_string (TslTrackKind kind);

#define TSL_TYPE_TRACE (tsl_trace_get_type ())
G_DECLARE_FINAL_TYPE (TslTrace, tsl_trace, TSL, TRACE, GObject)

TslTrace         *tsl_trace_new                 (TslSamplerMode  mode,
                                                 guint           k,
                                                 guint64         seed);
void              tsl_trace_set_budget          (TslTrace       *self,
                                                 TslBudget      *budget);
TslBudget        *tsl_trace_get_budget          (TslTrace       *self);
void              tsl_trace_lock                (TslTrace       *self);
void              tsl_trace_unlock              (TslTrace       *self);

TslSamplerMode    tsl_trace_get_mode            (TslTrace       *self);
guint             tsl_trace_get_k               (TslTrace       *self);
guint64           tsl_trace_get_seed            (TslTrace       *self);
/* The grid every track shares in time mode; NULL in count mode. */
TslTimeGrid      *tsl_trace_get_time_grid       (TslTrace       *self);

/* Format name as sniffed by the reader, e.g. "chrome-json". */
void              tsl_trace_set_format          (TslTrace       *self,
                                                 const char     *format);
const char       *tsl_trace_get_format          (TslTrace       *self);

/* Strings: interned once, id 0 is "no string". */
guint32           tsl_trace_intern              (TslTrace       *self,
                                                 const char     *str);
guint32           tsl_trace_intern_len          (TslTrace       *self,
                                                 const char     *str,
                                                 gssize          len);
/* "head;tail" of two interned strings (ids, not 0), as tsl_trace_intern()
 * would intern it: both are repaired already, so it is not checked again.
 * 0 if either id is unknown or the result would be longer than max_len. */
guint32           tsl_trace_intern_joined       (TslTrace       *self,
                                                 guint32         head,
                                                 guint32         tail,
                                                 gsize           max_len);
/* Ids carrying this bit stand for a join made later (tsl_trace_join_later()). */
#define TSL_JOIN_TAG 0x40000000u
/* "head;tail" of two labels, its text made only when tsl_trace_lookup()
 * first reads it (most stack paths a reader meets label samples that no
 * sampler keeps): an id with TSL_JOIN_TAG. `head` is an interned string or
 * such an id, `tail` an interned string; 0 if either is unknown or the
 * text would be longer than max_len. Such an id reads as the text
 * tsl_trace_intern_joined() would intern, but is not that string's id:
 * labels are compared and written as text. */
guint32           tsl_trace_join_later          (TslTrace       *self,
                                                 guint32         head,
                                                 guint32         tail,
                                                 gsize           max_len);
/* A join's text is made at its first lookup, under a lock of its own, so
 * that threads reading a trace no one feeds may still look up at once. */
const char       *tsl_trace_lookup              (TslTrace       *self,
                                                 guint32         id);

/* Tracks are found or created by (kind, pid, tid, name); for thread tracks the
 * name is ignored in the key (it comes from metadata, see set_thread_name). */
guint             tsl_trace_ensure_track        (TslTrace       *self,
                                                 TslTrackKind    kind,
                                                 gint64          pid,
                                                 gint64          tid,
                                                 const char     *name);
/* A second track of a thread, told apart by `part` (a sampled profile
 * beside the thread's spans): keyed by (pid, tid, part), named "THREAD
 * PART". */
guint             tsl_trace_ensure_thread_part  (TslTrace       *self,
                                                 gint64          pid,
                                                 gint64          tid,
                                                 const char     *part);
guint             tsl_trace_get_n_tracks        (TslTrace       *self);
/* The "other threads" / "other series" tracks of what the budget folded. */
gboolean          tsl_trace_track_is_folded     (TslTrace       *self,
                                                 guint           track);
TslTrackKind      tsl_trace_track_get_kind      (TslTrace       *self,
                                                 guint           track);
/* Display name: thread name from metadata, else the title, else "NAME" or
 * "Thread TID". */
const char       *tsl_trace_track_get_name      (TslTrace       *self,
                                                 guint           track);
/* A name to show for a track whose key names it by an id (a Perfetto async
 * track no descriptor named): its key, and so its identity, stays. Not for
 * thread tracks or the fold tracks; NULL or "" clears it. */
void              tsl_trace_track_set_title     (TslTrace       *self,
                                                 guint           track,
                                                 const char     *title);
/* (nullable): the title, if one was set. */
const char       *tsl_trace_track_get_title     (TslTrace       *self,
                                                 guint           track);
gint64            tsl_trace_track_get_pid       (TslTrace       *self,
                                                 guint           track);
gint64            tsl_trace_track_get_tid       (TslTrace       *self,
                                                 guint           track);
const char       *tsl_trace_track_get_unit      (TslTrace       *self,
                                                 guint           track);
void              tsl_trace_track_set_unit      (TslTrace       *self,
                                                 guint           track,
                                                 const char     *unit);
/* A thread whose events are samples of its whole stack (perhaps weighted
 * by a duration), not spans of their innermost frame: a sampled profile. */
void              tsl_trace_track_set_sampled   (TslTrace       *self,
                                                 guint           track,
                                                 gboolean        sampled);
gboolean          tsl_trace_track_get_sampled   (TslTrace       *self,
                                                 guint           track);
int               tsl_trace_track_get_sort_index(TslTrace       *self,
                                                 guint           track);
TslSampler       *tsl_trace_track_get_sampler   (TslTrace       *self,
                                                 guint           track);

/* Metadata: may arrive before or after the track's first event. */
void              tsl_trace_set_process_name    (TslTrace       *self,
                                                 gint64          pid,
                                                 const char     *name);
const char       *tsl_trace_get_process_name    (TslTrace       *self,
                                                 gint64          pid);
void              tsl_trace_set_thread_name     (TslTrace       *self,
                                                 gint64          pid,
                                                 gint64          tid,
                                                 const char     *name);
const char       *tsl_trace_get_thread_name     (TslTrace       *self,
                                                 gint64          pid,
                                                 gint64          tid);
void              tsl_trace_set_process_sort_index (TslTrace    *self,
                                                 gint64          pid,
                                                 int             index);
int               tsl_trace_get_process_sort_index (TslTrace    *self,
                                                 gint64          pid);
void              tsl_trace_set_thread_sort_index  (TslTrace    *self,
                                                 gint64          pid,
                                                 gint64          tid,
                                                 int             index);

/* The hot path: counts the event into its track's sampler (and the trace's
 * time span) and returns TRUE when the reader should parse the payload and
 * call tsl_trace_set_label() for it. */
gboolean          tsl_trace_offer               (TslTrace       *self,
                                                 guint           track,
                                                 gint64          time_ns,
                                                 double          value);
/* tsl_trace_offer() and, if it returns TRUE, tsl_trace_set_label_id() of
 * a label the reader knows before the offer (a slice end's stack path): one
 * call for the two. */
gboolean          tsl_trace_offer_labelled      (TslTrace       *self,
                                                 guint           track,
                                                 gint64          time_ns,
                                                 double          value,
                                                 guint32         label);
/* Samples only events in [start_ns, end_ns) (absolute, as the reader gives
 * them); the others still extend the span, so times stay relative to the
 * same trace start. For re-reading one range of a file at full resolution. */
void              tsl_trace_set_time_filter     (TslTrace       *self,
                                                 gint64          start_ns,
                                                 gint64          end_ns);
/* Sees every event offered, for exact per-range figures: events outside the
 * time filter at once without a label (in_range FALSE), events inside it
 * with the label the reader attaches. While set, tsl_trace_offer() returns
 * TRUE for every event inside the filter so that the reader builds its
 * label; the samplers still keep only their own. Call
 * tsl_trace_flush_events() after the last event. */
typedef void    (*TslTraceEventFunc)            (guint           track,
                                                 gint64          time_ns,
                                                 double          value,
                                                 const char     *label,
                                                 gboolean        in_range,
                                                 gpointer        user_data);
void              tsl_trace_set_event_func      (TslTrace       *self,
                                                 TslTraceEventFunc func,
                                                 gpointer        user_data);
void              tsl_trace_flush_events        (TslTrace       *self);
/* While observing: an observer that can take a thread event's stack as
 * interned name ids (root first) takes it here, before a reader builds the
 * label (which then only a sampler that kept the event needs). TRUE:
 * taken, FALSE: the observer wants the label as usual. Set after the
 * event function, which clears it. */
typedef gboolean (*TslTraceNamesFunc)           (guint           track,
                                                 gint64          time_ns,
                                                 double          value,
                                                 const guint32  *names,
                                                 guint           n_names,
                                                 gpointer        user_data);
void              tsl_trace_set_names_func      (TslTrace       *self,
                                                 TslTraceNamesFunc func);
/* For readers, after an offer returned TRUE: whether to call
 * tsl_trace_set_label_names() before building the label. */
gboolean          tsl_trace_wants_names         (TslTrace       *self);
/* Offers the pending event's stack; TRUE when the label must still be set
 * (tsl_trace_set_label_joined() and friends), FALSE when nobody needs it.
 * A stack with a name holding a ';' is not taken: its label turns it into
 * ':', so names equal by id would no longer be all the names equal in text. */
gboolean          tsl_trace_set_label_names     (TslTrace       *self,
                                                 guint           track,
                                                 const guint32  *names,
                                                 guint           n_names);
/* While observing: samples only counters and metrics, whose kept values
 * give a range's median or p95. A range read for exact figures needs no
 * samples of spans or stacks, and keeping them (their labels interned,
 * collected, snapshotted) cost it a third of its CPU. */
void              tsl_trace_set_observe_metrics_only (TslTrace  *self,
                                                 gboolean        only);
/* Also records every slice of span tracks (thread and async tracks whose
 * values are durations, unit "ns": not a sampled profile's instants) in the time filter's
 * window (set it first; without one, the whole input), while no track holds
 * more than `per_track` and all no more than `total` (tsl-exact.h); past
 * that, only samples are kept. */
void              tsl_trace_record_exact        (TslTrace       *self,
                                                 guint           per_track,
                                                 guint           total);
/* The limits tsl_trace_record_exact() was given; FALSE if it was not called. */
gboolean          tsl_trace_get_exact_request   (TslTrace       *self,
                                                 guint          *per_track,
                                                 guint          *total);
/* TRUE while every slice of the window [start, end) is held. */
gboolean          tsl_trace_get_exact           (TslTrace       *self,
                                                 gint64         *start_ns,
                                                 gint64         *end_ns);
/* The exact recorder (its slices, labels and flows: tsl-exact.h), NULL
 * when none records. (transfer none) */
TslExact         *tsl_trace_get_exact_recorder  (TslTrace       *self);
/* A span the input never closed (a Chrome `B` without `E`, a Perfetto
 * slice without an end), offered at the end of the input: it lasts from
 * start_ns to the end of the trace's span so far (its value is that
 * duration), and the exact recorder marks it TSL_EXACT_OPEN. Returns what
 * tsl_trace_offer() returns. */
gboolean          tsl_trace_offer_open          (TslTrace       *self,
                                                 guint           track,
                                                 gint64          start_ns);
/* A span whose begin the input lacks (a Perfetto slice begun before the
 * trace started), offered at the end of the input: it lasts from the
 * start of the trace's span so far to end_ns, and the exact recorder
 * marks it TSL_EXACT_OPEN_START. */
gboolean          tsl_trace_offer_open_start    (TslTrace       *self,
                                                 guint           track,
                                                 gint64          end_ns);
/* Readers that know where an event sits in the input say so before
 * offering it, when tsl_trace_wants_offsets() (for reading its details). */
gboolean          tsl_trace_wants_offsets       (TslTrace       *self);
void              tsl_trace_set_event_offset    (TslTrace       *self,
                                                 gint64          offset);
/* Thread (CPU) time: readers whose input has it say so before offering a
 * span, when tsl_trace_wants_cpu() (an exact view or an observer wants
 * it); the exact recorder keeps it beside the slice, and an observer reads
 * it with tsl_trace_get_event_cpu() during its TslTraceEventFunc call. */
gboolean          tsl_trace_wants_cpu           (TslTrace       *self);
/* An observer or the exact recorder needs every event of the input: a
 * saved sampler state cannot stand in for reading it. */
gboolean          tsl_trace_wants_events        (TslTrace       *self);
void              tsl_trace_set_event_cpu       (TslTrace       *self,
                                                 double          cpu_ns);
/* Within a TslTraceEventFunc call for an event in range: that event's
 * thread time in ns, NAN when the input has none. */
double            tsl_trace_get_event_cpu       (TslTrace       *self);
void              tsl_trace_clear_time_filter   (TslTrace       *self);
/* Forgets the events, flows, span and warnings counted so far (not the
 * tracks, names or samples): after reading a file's head only for the
 * header a later part of it needs (tsl_read_path_part()). */
void              tsl_trace_forget_counts       (TslTrace       *self);
/* The filter set, if any. */
gboolean          tsl_trace_get_time_filter     (TslTrace       *self,
                                                 gint64         *start_ns,
                                                 gint64         *end_ns);
/* For a chunk index: the earliest and latest time offered (filtered or
 * not; the latest counts where a span ends, as a view it overlaps draws
 * it) since the last call, and a counter of every other change readers
 * make (new tracks, names, units, sort indices, warnings), so that a chunk
 * whose reading changed more than samples is always read again. Resets the
 * window; FALSE when nothing was offered since the last call. */
gboolean          tsl_trace_take_window         (TslTrace       *self,
                                                 gint64         *min_ns,
                                                 gint64         *max_ns,
                                                 guint64        *changes);
/* For a chunk index: from now on (afresh), where each metric series ends
 * (tsl-series-ends.h), from every point offered, filtered or not. */
void              tsl_trace_record_series_ends  (TslTrace       *self);
/* What was recorded, by series identity, without the tracks the budget
 * folded (what they merge depends on the budget); `stop` ends recording.
 * NULL when not recording. (transfer full) (nullable) */
TslSeriesEnds    *tsl_trace_get_series_ends     (TslTrace       *self,
                                                 gboolean        stop);
/* A range read through an index: the whole file's series ends, which its
 * range stats take instead of what the chunks read show. */
void              tsl_trace_set_file_series_ends (TslTrace      *self,
                                                 TslSeriesEnds  *ends);
/* The whole file's end of a metric track's series: NULL when no table was
 * set, the track is folded or the table lacks it. (transfer none) */
const TslSeriesEnd *tsl_trace_get_file_series_end (TslTrace     *self,
                                                 guint           track);
/* A reader's own state that later events depend on changed (Perfetto: an
 * interned name, a track descriptor, a clock): counted as a change above,
 * so the chunk that made it is always read. */
void              tsl_trace_note_change         (TslTrace       *self);
void              tsl_trace_set_label           (TslTrace       *self,
                                                 guint           track,
                                                 const char     *label);
/* `label` need not be NUL-terminated; NUL bytes within `len` become
 * U+FFFD (so do tsl_trace_intern_len()'s), with a warning. */
void              tsl_trace_set_label_len       (TslTrace       *self,
                                                 guint           track,
                                                 const char     *label,
                                                 gsize           len);
/* A label joined from interned names (so already valid UTF-8), `len`
 * bytes at a NUL: the stack labels of the readers' hot path, which skip
 * the validation and length scan. */
void              tsl_trace_set_label_joined    (TslTrace       *self,
                                                 guint           track,
                                                 const char     *label,
                                                 gsize           len);
/* How many distinct labels are stored now (bounded by tracks × K). */
guint             tsl_trace_get_n_labels        (TslTrace       *self);
/* For labels that are names (bounded in number): an id from tsl_trace_intern(). */
void              tsl_trace_set_label_id        (TslTrace       *self,
                                                 guint           track,
                                                 guint32         label);

/* Events as the format counts them (issue 4), independent of tracks:
 * e.g. Chrome metadata events count here but feed no sampler. */
void              tsl_trace_add_events          (TslTrace       *self,
                                                 guint64         n);
guint64           tsl_trace_get_events          (TslTrace       *self);
/* Flow events and bindings, counted for `info` (drawn from the exact
 * recorder's endpoints, tsl_trace_record_flow()). */
typedef enum {
  TSL_FLOW_COUNT_START,        /* Chrome 's' */
  TSL_FLOW_COUNT_STEP,         /* 't' */
  TSL_FLOW_COUNT_END,          /* 'f' */
  TSL_FLOW_COUNT_BIND_ID,      /* events with "bind_id" */
  TSL_FLOW_COUNT_FLOW_IN,      /* … "flow_in": true */
  TSL_FLOW_COUNT_FLOW_OUT,     /* … "flow_out": true */
  TSL_FLOW_COUNT_FLOW_IDS,     /* Perfetto TrackEvent flow_ids */
  TSL_FLOW_COUNT_TERMINATING,  /* … terminating_flow_ids */
  TSL_FLOW_COUNT_N,
} TslFlowCount;

void              tsl_trace_count_flow          (TslTrace       *self,
                                                 TslFlowCount    kind,
                                                 guint64         n);
guint64           tsl_trace_get_flow_count      (TslTrace       *self,
                                                 TslFlowCount    kind);
/* While exact slices are recorded (tsl_trace_record_exact()): TRUE when
 * the reader should report flow endpoints. */
gboolean          tsl_trace_wants_flows         (TslTrace       *self);
/* A flow endpoint of `track` (see TslExactFlow); past the view's flow
 * budget it is dropped, with a warning. */
void              tsl_trace_record_flow         (TslTrace       *self,
                                                 guint           track,
                                                 guint64         key,
                                                 gint64          time_ns,
                                                 guint           depth,
                                                 TslFlowBind     bind,
                                                 guint           dir);
/* Earliest and latest event time seen (ns); FALSE when no timed event yet. */
gboolean          tsl_trace_get_span            (TslTrace       *self,
                                                 gint64         *start_ns,
                                                 gint64         *end_ns);
/* Extends the span without an event (e.g. the end of an X event). */
void              tsl_trace_note_time           (TslTrace       *self,
                                                 gint64          time_ns);
/* FALSE for formats without a time axis (collapsed stacks). */
void              tsl_trace_set_has_time        (TslTrace       *self,
                                                 gboolean        has_time);
gboolean          tsl_trace_get_has_time        (TslTrace       *self);
/* Some span read so far had a thread (CPU) time (tsl_trace_set_event_cpu()). */
gboolean          tsl_trace_get_has_cpu         (TslTrace       *self);

/* Warnings are grouped by message: the same message twice is counted. */
void              tsl_trace_add_warning         (TslTrace       *self,
                                                 const char     *format,
                                                 ...) G_GNUC_PRINTF (2, 3);
/* A fact about the input, said once however often it is seen (and once in
 * a merge of parts that each saw it). */
void              tsl_trace_add_warning_once    (TslTrace       *self,
                                                 const char     *format,
                                                 ...) G_GNUC_PRINTF (2, 3);
/* `n` more of what a reader tallies until the end ("packets not shown"),
 * shown as "12,345 what"; the tallies of parts merged add up. */
void              tsl_trace_add_tally           (TslTrace       *self,
                                                 guint64         n,
                                                 const char     *what);
/* (transfer full): "message" or "message (N times)", in first-seen order. */
GStrv             tsl_trace_dup_warnings        (TslTrace       *self);
/* (transfer full): the messages alone, their counts (guint64) in `counts`. */
GStrv             tsl_trace_dup_warnings_counted (TslTrace      *self,
                                                 GArray         *counts);

G_END_DECLS
