/* tsl-flame.h: call-path trees of a range's samples, and A against B
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Built from a TslSnapshot's kept samples (never from raw events), so a tree
 * holds at most tracks × 2K stacks. Frames merge by call path; children are
 * laid out alphabetically, as flamegraph.pl does, so two trees of the same
 * program line up and a frame keeps its place when the range moves.
 *
 * Weights (TslFlameWeight): a sample stands for summary.count events, so a
 * node's weight in SAMPLES mode is the events whose stack starts with its
 * path (collapsed stacks: each line's count). Instrumented traces (span tracks, unit "ns") weigh by TIME instead:
 * a kept span stands for count × its duration, and a node's weight is the
 * time spent in spans at exactly its path (inclusive of their callees), so a
 * slower function's share grows though its number of spans does not. CPU
 * weighs the same spans by their thread time (Chrome's tdur, tts; Perfetto's
 * thread-time counters) instead of their duration: a span without one
 * weighs nothing. Only exact trees have it (kept samples hold no thread
 * time).
 *
 * Differential trees hold the frames of both ranges and are laid out from B,
 * as flamegraph.pl's difffolded does: a frame seen only in A has no width in
 * B and is not drawn (tsl_flame_get_n_only_a() counts them), but it is still
 * tested. See tsl-flame-diff.c for the test.
 */
#pragma once

#include <gio/gio.h>

#include "tsl-compare.h"
#include "tsl-snapshot.h"

G_BEGIN_DECLS

typedef enum {
  TSL_FLAME_WEIGHT_AUTO,      /* TIME for Chrome traces' span tracks (unit "ns"), else SAMPLES */
  TSL_FLAME_WEIGHT_SAMPLES,   /* events: Σ summary.count */
  TSL_FLAME_WEIGHT_TIME,      /* ns: Σ summary.count × span duration */
  TSL_FLAME_WEIGHT_CPU,       /* ns: Σ span thread time (exact trees only) */
} TslFlameWeight;

/* Which stacks go into a tree. */
typedef struct {
  const guint    *tracks;          /* indices into the snapshot; NULL: every thread track */
  guint           n_tracks;
  gboolean        merge_threads;   /* FALSE: one top frame per thread, named after it */
  TslFlameWeight  weight;
  const char * const *thread_names; /* exact trees: threads by name; NULL: every thread */
} TslFlameSelection;

typedef struct _TslFlameNode TslFlameNode;

typedef struct {
  double   a_share;      /* of each side's root weight */
  double   b_share;
  double   change;       /* b_share / a_share − 1; ±INFINITY from 0 */
  double   ci_low;       /* interval of change, fractions */
  double   ci_high;
  double   p_value;      /* NAN when untested */
  double   q_value;
  gboolean tested;
  gboolean significant;
  /* Each side's weight at the path over its root's: the width a layout of
   * that side draws (b_width is the node's Total share; the diff is laid
   * out from B). a_share/b_share are the test's shares, which count a
   * span's own time only, so they differ from these in time weight. 0 on
   * a side the path is absent from. */
  double   a_width;
  double   b_width;
} TslFlameDiff;

struct _TslFlameNode
{
  const char     *name;        /* "all" for the root */
  TslFlameNode   *parent;
  TslFlameNode  **children;    /* layout order: alphabetical */
  guint           n_children;
  guint           depth;       /* 0 for the root */
  gboolean        is_thread;   /* a thread's top frame (threads not merged) */
  double          total;       /* weight of the call path (B's in a diff) */
  double          self;        /* total minus the children's, never below 0 */
  guint64         events;      /* Σ summary.count of samples in the subtree */
  guint64         self_events; /* … of samples whose stack ends here */
  guint64         n_samples;   /* kept samples in the subtree */
  double          x;           /* layout: left edge and width, fractions of the root */
  double          width;
  TslFlameDiff   *diff;        /* (nullable) set in differential trees */
};

typedef struct _TslFlame TslFlame;

#define TSL_TYPE_FLAME (tsl_flame_get_type ())
GType               tsl_flame_get_type           (void) G_GNUC_CONST;

/* The samples of the selected tracks with time in [start_ns, end_ns).
 * Not in CPU weight (NULL): kept samples carry no thread time. */
TslFlame           *tsl_flame_new                (TslSnapshot             *snapshot,
                                                  const TslFlameSelection *selection,
                                                  gint64                   start_ns,
                                                  gint64                   end_ns);
/* A tree of B's range with A's shares and, per call path, the compare
 * engine's two-sample test of the share change (request: rounds,
 * confidence, seed, threads). The two snapshots may be the same; tracks
 * are matched by kind, pid, tid and name. G_IO_ERROR_NOT_SUPPORTED in CPU
 * weight. */
TslFlame           *tsl_flame_new_diff           (TslSnapshot             *snapshot_a,
                                                  gint64                   a_start_ns,
                                                  gint64                   a_end_ns,
                                                  TslSnapshot             *snapshot_b,
                                                  gint64                   b_start_ns,
                                                  gint64                   b_end_ns,
                                                  const TslFlameSelection *selection,
                                                  const TslCompareRequest *request,
                                                  GCancellable            *cancellable,
                                                  GError                 **error);
/* The same on a worker thread (selection and request are copied). */
void                tsl_flame_new_diff_async     (TslSnapshot             *snapshot_a,
                                                  gint64                   a_start_ns,
                                                  gint64                   a_end_ns,
                                                  TslSnapshot             *snapshot_b,
                                                  gint64                   b_start_ns,
                                                  gint64                   b_end_ns,
                                                  const TslFlameSelection *selection,
                                                  const TslCompareRequest *request,
                                                  GCancellable            *cancellable,
                                                  GAsyncReadyCallback      callback,
                                                  gpointer                 user_data);
/* (transfer full) */
TslFlame           *tsl_flame_new_diff_finish    (GAsyncResult            *result,
                                                  GError                 **error);

 /* Exact trees (tsl-flame-exact.c): request->path re-read for range A
 * (has_a), B (has_b) or both (A against B), keeping every call path of
 * every event in the range (at most TSL_FLAME_MAX_PATHS a range, the rest
 * under "(other)" with a warning). Weights are exact: time of the spans at a
 * path, or events (samples; collapsed stacks: their counts). A
 * differential tree tests each frame's share with the compare table's block
 * method (tsl_compare_exact), q-values across frames. Uses request's path,
 * trace (first pass, nullable), a, b, k, seed, budget and confidence.
 * G_IO_ERROR_NOT_SUPPORTED when the path is not a seekable file, or in CPU
 * weight when no span of the selected threads in the ranges has a thread
 * time. */
#define TSL_FLAME_MAX_PATHS 16384

TslFlame           *tsl_flame_new_exact          (const TslCompareRequest *request,
                                                  gboolean                 has_a,
                                                  gboolean                 has_b,
                                                  const TslFlameSelection *selection,
                                                  GStrv                   *warnings,
                                                  GCancellable            *cancellable,
                                                  GError                 **error);
/* One pass over the request's ranges for both the compare table, as
 * tsl_compare_run() makes it, and the exact differential flame graph of the
 * selection, as tsl_flame_new_exact() makes it. *flame is NULL (and the rows
 * the kept samples') when the file cannot be re-read by range. */
GPtrArray          *tsl_flame_compare_run        (const TslCompareRequest *request,
                                                  const TslFlameSelection *selection,
                                                  TslFlame               **flame,
                                                  GStrv                   *warnings,
                                                  GCancellable            *cancellable,
                                                  GError                 **error);
/* The same on a worker thread (request and selection are copied). */
void                tsl_flame_new_exact_async    (const TslCompareRequest *request,
                                                  gboolean                 has_a,
                                                  gboolean                 has_b,
                                                  const TslFlameSelection *selection,
                                                  GCancellable            *cancellable,
                                                  GAsyncReadyCallback      callback,
                                                  gpointer                 user_data);
/* (transfer full) */
TslFlame           *tsl_flame_new_exact_finish   (GAsyncResult            *result,
                                                  GStrv                   *warnings,
                                                  GError                 **error);
/* Built from every event of the ranges, not from kept samples. */
gboolean            tsl_flame_is_exact           (TslFlame                *self);

TslFlame           *tsl_flame_ref                (TslFlame                *self);
void                tsl_flame_unref              (TslFlame                *self);

/* (transfer none) */
const TslFlameNode *tsl_flame_get_root           (TslFlame                *self);
gboolean            tsl_flame_is_diff            (TslFlame                *self);
/* SAMPLES, TIME or CPU: AUTO resolved against the tracks. */
TslFlameWeight      tsl_flame_get_weight         (TslFlame                *self);
guint               tsl_flame_get_max_depth      (TslFlame                *self);
guint               tsl_flame_get_n_nodes        (TslFlame                *self);
/* Frames only in A (no width in a differential tree). */
guint               tsl_flame_get_n_only_a       (TslFlame                *self);
/* The confidence of a differential tree's test (0 otherwise). */
double              tsl_flame_get_confidence     (TslFlame                *self);
/* Kept samples and the events they stand for, of the (B) range. */
guint64             tsl_flame_get_n_samples      (TslFlame                *self);
guint64             tsl_flame_get_events         (TslFlame                *self);

/* The node at a call path (frames root first, without "all"); (nullable). */
const TslFlameNode *tsl_flame_find               (TslFlame                *self,
                                                  const char * const      *path,
                                                  guint                    n_path);
/* Share of the root's weight, and of `zoom`'s when zoomed. */
double              tsl_flame_node_share         (const TslFlameNode      *node);
/* (transfer full) frames joined by `separator`, root first, without "all". */
char               *tsl_flame_node_get_path      (const TslFlameNode      *node,
                                                  const char              *separator);
gboolean            tsl_flame_node_is_ancestor   (const TslFlameNode      *ancestor,
                                                  const TslFlameNode      *node);
/* Whether a frame's name holds `needle` (case-insensitive, ASCII). */
gboolean            tsl_flame_name_matches       (const char              *name,
                                                  const char              *needle);
/* Share of the root's weight under frames matching `needle`, counting
 * nested matches once (flamegraph.pl's "Matched"). */
double              tsl_flame_search_share       (TslFlame                *self,
                                                  const char              *needle);

/* Collapsed stacks, `a;b;c 12`: one line per distinct stack, the count in
 * events (summary.count), or by CPU time the stack's own CPU time in ns (what
 * the graph draws; a stack of less than 0.5 ns has no line), in layout order. Threads not merged lead with
 * their thread frame, as stackcollapse-perf.pl --tid does. The format has
 * no escape: a ';' in a frame name was stored as ':' by the reader, and a
 * newline is written as a space, so every name reads back as one frame. */
gboolean            tsl_flame_write_folded       (TslFlame                *self,
                                                  GOutputStream           *out,
                                                  GCancellable            *cancellable,
                                                  GError                 **error);
/* call_path,self_share,total_share,self_weight,total_weight (ns of span
 * time or of CPU time, or events);
 * a differential tree adds a_share,b_share,change_pct,ci_low_pct,
 * ci_high_pct,p_value,q_value,significant. */
gboolean            tsl_flame_write_tree_csv     (TslFlame                *self,
                                                  GOutputStream           *out,
                                                  GCancellable            *cancellable,
                                                  GError                 **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TslFlame, tsl_flame_unref)

G_END_DECLS
