/* tsl-snapshot.h: an immutable copy of a trace's samples, for drawing
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The reader keeps filling the trace on a worker; painters and the compare
 * engine work on a snapshot copied under the trace's lock, so they never race
 * with ingest and never hold the lock while drawing. A snapshot is small:
 * tracks × (K..2K) samples plus the frame names they use.
 */
#pragma once

#include "tsl-trace.h"

G_BEGIN_DECLS

typedef struct {
  gint64         start_ns;   /* extent of the sample's slice, from the trace start */
  gint64         end_ns;
  gint64         time_ns;    /* the kept event's time, from the trace start */
  double         value;
  TslSummary     summary;
  guint64        index;
  guint          n_frames;   /* stack depth; frames[0] is the root */
  const guint32 *frames;     /* ids for tsl_snapshot_get_frame_name() */
} TslSnapshotSample;

/* One span or instant exactly as the file has it (exact view, tsl-exact.h). */
typedef struct {
  gint64         start_ns;   /* from the trace start */
  gint64         end_ns;     /* == start_ns for an instant */
  gint64         offset;     /* byte position of the event in the file, -1 if unknown */
  guint32        frame;      /* its name, for tsl_snapshot_get_frame_name() */
  guint32        depth : 30; /* 0 for a root span */
  guint32        open : 1;   /* never closed in the input: ends at the trace's end */
  guint32        open_start : 1; /* never opened in the input: starts at the trace's start */
} TslSnapshotSlice;

/* An arrow of a flow between two exact slices (tsl-flow-match.h): track
 * and slice indices of the snapshot, the times (from the trace start)
 * where it leaves and arrives, and the slices' depths (copied, so that a
 * painter need not reach into a million slices). */
typedef struct {
  guint          from_track;
  guint          from_slice;
  guint          to_track;
  guint          to_slice;
  gint64         from_ns;
  gint64         to_ns;
  guint32        from_depth;
  guint32        to_depth;
} TslSnapshotFlow;

typedef struct {
  char              *name;
  char              *process;
  char              *unit;
  TslTrackKind       kind;
  gint64             pid;
  gint64             tid;
  int                process_sort;
  int                sort;
  guint64            events;
  guint              max_depth;
  double             value_min;  /* over the slice summaries (exact), NAN if none */
  double             value_max;
  guint              n_samples;
  TslSnapshotSample *samples;   /* in time order */
  /* Exact view: every slice of the snapshot's exact window, by start, then
   * depth; when `exact` is FALSE the track is drawn from its samples. */
  gboolean           exact;
  guint              n_slices;
  TslSnapshotSlice  *slices;
  gint64            *slice_cpu;    /* (nullable) each slice's thread time in ns, -1 where
                                    * unknown; NULL when the track has none */
  guint              trace_index;  /* the track's index in its TslTrace */
  gboolean           sampled;      /* a sampled profile: `events` counts its samples
                                    * (tsl_trace_track_set_sampled()) */
} TslSnapshotTrack;

typedef struct _TslSnapshot TslSnapshot;

/* Takes the trace's lock while copying: do not call it with the lock held.
 * A snapshot never changes once made and its reference count is atomic, so
 * it can be read from any thread without a lock. */
TslSnapshot            *tsl_snapshot_new              (TslTrace          *trace);
TslSnapshot            *tsl_snapshot_ref              (TslSnapshot       *self);
void                    tsl_snapshot_unref            (TslSnapshot       *self);
/* Tracks in display order: by process, then kind, then sort index and name. */
guint                   tsl_snapshot_get_n_tracks     (TslSnapshot       *self);
const TslSnapshotTrack *tsl_snapshot_get_track        (TslSnapshot       *self,
                                                       guint              i);
const char             *tsl_snapshot_get_frame_name   (TslSnapshot       *self,
                                                       guint32            id);
/* Looks a frame name up; 0 if no sample uses it. */
guint32                 tsl_snapshot_find_frame       (TslSnapshot       *self,
                                                       const char        *name);
gint64                  tsl_snapshot_get_span         (TslSnapshot       *self);
gint64                  tsl_snapshot_get_start        (TslSnapshot       *self);
guint64                 tsl_snapshot_get_events       (TslSnapshot       *self);
guint                   tsl_snapshot_get_k            (TslSnapshot       *self);
gboolean                tsl_snapshot_get_has_time     (TslSnapshot       *self);
/* Some span of the trace had a thread (CPU) time (tsl_trace_get_has_cpu()). */
gboolean                tsl_snapshot_get_has_cpu      (TslSnapshot       *self);
const char             *tsl_snapshot_get_format       (TslSnapshot       *self);
/* Of an exact track's slice `index`: its duration less its direct
 * children's, and the index of the slice it is nested in (G_MAXUINT for a
 * root). */
gint64                  tsl_snapshot_slice_self_time  (const TslSnapshotTrack *track,
                                                       guint              index);
guint                   tsl_snapshot_slice_parent     (const TslSnapshotTrack *track,
                                                       guint              index);
/* An exact slice's thread (CPU) time in ns, -1 when the input has none;
 * and its self CPU time: less its direct children's CPU time (-1 when a
 * direct child's is unknown). */
gint64                  tsl_snapshot_slice_cpu        (const TslSnapshotTrack *track,
                                                       guint              index);
gint64                  tsl_snapshot_slice_self_cpu   (const TslSnapshotTrack *track,
                                                       guint              index);
/* TRUE when the thread and async tracks hold every slice of [start, end)
 * (from the trace start), not samples. */
gboolean                tsl_snapshot_get_exact        (TslSnapshot       *self,
                                                       gint64            *start_ns,
                                                       gint64            *end_ns);

/* Exact view: the flow arrows between its slices, by flow then time. */
const TslSnapshotFlow  *tsl_snapshot_get_flows        (TslSnapshot       *self,
                                                       guint             *n);

/* (transfer full): a copy holding only the tracks whose name matches the
 * glob `pattern` ('worker*'), and the flows between two of them
 * (tsl-snapshot-filter.c). */
TslSnapshot            *tsl_snapshot_new_filtered     (TslSnapshot       *source,
                                                       const char        *pattern);
/* Several files on one time axis (tsl-snapshot-merge.c): a copy of each
 * part with its times moved by positions[i] (ns; the smallest becomes 0)
 * and its tracks in one group per file, pid i + 1, process names[i]. A
 * thread name that several processes of one file have reads "name
 * [process]", as compare names it. */
TslSnapshot            *tsl_snapshot_new_merged       (TslSnapshot * const *parts,
                                                       const char * const  *names,
                                                       const gint64        *positions,
                                                       guint                n_parts);
/* Where files start on the merged axis by their own clocks: wall-clock
 * times (since the epoch) are always shared; other clocks (a host's
 * monotonic or boot time) only when every file's range overlaps another's.
 * Otherwise every file starts at 0. TRUE when aligned by clock. */
gboolean                tsl_snapshot_align            (const gint64      *starts,
                                                       const gint64      *spans,
                                                       guint              n,
                                                       gint64            *positions);
/* 0 unless merged. */
guint                   tsl_snapshot_get_n_parts      (TslSnapshot       *self);
/* Part i: its name, position on the merged axis and span. */
gboolean                tsl_snapshot_get_part         (TslSnapshot       *self,
                                                       guint              i,
                                                       const char       **name,
                                                       gint64            *position,
                                                       gint64            *span);
/* The part [start, end) overlaps most, G_MAXUINT for none. */
guint                   tsl_snapshot_find_part        (TslSnapshot       *self,
                                                       gint64             start_ns,
                                                       gint64             end_ns);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TslSnapshot, tsl_snapshot_unref)

G_END_DECLS
