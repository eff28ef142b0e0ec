/* tsl-flame-private.h: what the tree builder shares with the diff test
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "tsl-flame.h"
#include "tsl-track-names.h"

G_BEGIN_DECLS

typedef struct _Node Node;

struct _Node
{
  TslFlameNode  pub;          /* first, so a TslFlameNode * is a Node * */
  GPtrArray    *kids;         /* Node *, while building */
  double        sum[2];       /* Σ weight of samples whose stack ends here, per side */
  double        total_side[2];
  guint64       events_side[2];
  double       *blocks[2];    /* exact trees: own weight per time block, per side (nullable) */
  guint32       pre;          /* pre-order number; a subtree is [pre, post) */
  guint32       post;
};

/* Event counts saturate at G_MAXINT64, the largest count a collapsed-stack
 * line says (more is read as that), so a .folded export reads back. */
#define TSL_FLAME_MAX_EVENTS ((guint64) G_MAXINT64)

static inline guint64
_tsl_flame_events_add (guint64 a,
                       guint64 b)
{
  guint64 r;

  if (__builtin_add_overflow (a, b, &r) || r > TSL_FLAME_MAX_EVENTS)
    return TSL_FLAME_MAX_EVENTS;
  return r;
}

/* `events` lines of `count` samples each (a collapsed line's count). */
static inline guint64
_tsl_flame_events_mul (guint64 events,
                       double  count)
{
  guint64 r;

  if (count >= 0x1p63 ||
      __builtin_mul_overflow (events, (guint64) count, &r) || r > TSL_FLAME_MAX_EVENTS)
    return TSL_FLAME_MAX_EVENTS;
  return r;
}

/* One kept sample of a side, for the test. */
typedef struct {
  gint64  time_ns;
  Node   *leaf;
  double  weight;
} TslFlameItem;

struct _TslFlame
{
  gatomicrefcount  ref_count;
  TslFlameWeight   weight;
  gboolean         diff;
  Node            *root;
  GPtrArray       *nodes;       /* every Node, owned */
  GHashTable      *names;       /* interned frame names */
  GHashTable      *index;       /* (parent, name) → Node */
  guint            max_depth;
  guint            top_depth;   /* depth of the first real frame: 1, or 2 under thread frames */
  guint            n_only_a;
  double           confidence;  /* of the test (differential trees) */
  guint64          n_samples;
  guint64          events;
  GArray          *items[2];    /* TslFlameItem per side (differential trees) */
  gboolean         exact;       /* from every event of the range reads */
};

/* TIME and CPU weigh spans: a span's weight holds its callees'. */
static inline gboolean
_tsl_flame_weight_is_span (TslFlameWeight weight)
{
  return weight == TSL_FLAME_WEIGHT_TIME || weight == TSL_FLAME_WEIGHT_CPU;
}

/* An empty tree; selection->weight must already be resolved. */
TslFlame         *_tsl_flame_new_empty          (TslFlameWeight           weight,
                                                 gboolean                 diff);
/* The child of `parent` named `name`, created when new. */
Node             *_tsl_flame_child              (TslFlame                *self,
                                                 Node                    *parent,
                                                 const char              *name);
/* Adds the samples of the selected tracks in [start, end) as `side`. */
void              _tsl_flame_add_side           (TslFlame                *self,
                                                 guint                    side,
                                                 TslSnapshot             *snapshot,
                                                 const TslFlameSelection *selection,
                                                 const TslSnapshotTrack  *const *tracks,
                                                 guint                    n_tracks,
                                                 gint64                   start_ns,
                                                 gint64                   end_ns,
                                                 TslTrackNames           *names);
/* What _tsl_flame_thread_names() names a track by, from a track of
 * either kind the flame graphs draw from (TslSnapshotTrack, TslRangeTrack). */
typedef void    (*TslFlameTrackKey)             (gconstpointer            track,
                                                 TslTrackKind            *kind,
                                                 gint64                  *pid,
                                                 gint64                  *tid,
                                                 const char             **name);
/* The threads' top frames of both sides, or NULL for none. */
TslTrackNames    *_tsl_flame_thread_names       (const TslFlameSelection *selection,
                                                 GPtrArray               *tracks_a,
                                                 GPtrArray               *tracks_b,
                                                 TslFlameTrackKey         key);
void              _tsl_flame_snapshot_track_key (gconstpointer            track,
                                                 TslTrackKind            *kind,
                                                 gint64                  *pid,
                                                 gint64                  *tid,
                                                 const char             **name);
/* Children in layout order, totals, self weights, layout and numbering,
 * from side `layout_side`. */
void              _tsl_flame_finish             (TslFlame                *self,
                                                 guint                    layout_side);
/* The selected tracks of `snapshot` (every thread track when none are
 * named), matched by key against `reference` when it is another snapshot.
 * (transfer container) */
GPtrArray        *_tsl_flame_select_tracks      (TslSnapshot             *reference,
                                                 TslSnapshot             *snapshot,
                                                 const TslFlameSelection *selection);
/* Fills every node's diff->a_width and b_width (diffs, once tested). */
void              _tsl_flame_set_widths         (TslFlame                *self);
TslFlameWeight    _tsl_flame_resolve_weight     (TslFlameWeight           weight,
                                                 TslSnapshot             *snapshot,
                                                 GPtrArray               *tracks);

G_END_DECLS
