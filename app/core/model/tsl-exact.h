/* tsl-exact.h: every slice of a time window, up to a budget
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Zoomed in, a window of a trace often holds few enough events to draw them
 * all: a re-read of that window records every span and instant of every
 * thread or async track that overlaps it (start, end, stack, byte position),
 * as long as no track holds more than `per_track` of them and all tracks
 * together no more than `total`. Past either budget the recorder gives up
 * (everything it held is freed) and the view stays sampled. Memory is
 * bounded by the budget, not by the input.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The budgets of a zoomed-in view (window and `export --view`): 32 bytes a
 * slice, so at most 32 MB. */
#define TSL_EXACT_PER_TRACK 100000
#define TSL_EXACT_TOTAL     1000000

/* TslExactSlice.flags: a span the input never closed (a Chrome `B`
 * without `E`, a Perfetto slice without its end), recorded as lasting to
 * the end of the trace; a span whose begin the input lacks (a Perfetto
 * slice begun before the trace started), recorded from the trace's start. */
#define TSL_EXACT_OPEN       1u
#define TSL_EXACT_OPEN_START 2u

typedef struct {
  gint64  start_ns;   /* absolute, as the reader gives them */
  gint64  end_ns;     /* == start_ns for an instant */
  gint64  offset;     /* byte position of the event in the input, -1 if unknown */
  guint32 label;      /* stack, root first, ';'-joined: tsl_exact_lookup() */
  guint32 flags;      /* TSL_EXACT_OPEN, TSL_EXACT_OPEN_START */
} TslExactSlice;

/* A flow endpoint (an arrow's tail or head): what binds it to a slice of
 * its track, and which way the flow goes through it. Arrows join the
 * endpoints of one flow id in time order: an endpoint with IN draws an
 * arrow from the flow's last endpoint with OUT; one without OUT ends it. */
typedef enum {
  TSL_FLOW_BIND_SLICE,      /* the slice starting at time_ns at `depth` */
  TSL_FLOW_BIND_ENCLOSING,  /* the deepest slice holding time_ns */
  TSL_FLOW_BIND_NEXT,       /* the first slice starting at or after time_ns */
} TslFlowBind;

#define TSL_FLOW_IN  1u
#define TSL_FLOW_OUT 2u

/* At most this many endpoints of a view are kept (32 bytes each): the rest
 * are counted and not drawn. */
#define TSL_EXACT_FLOWS 200000

typedef struct {
  guint64 key;        /* the flow's id, hashed with what scopes it */
  gint64  time_ns;    /* absolute */
  guint32 track;
  guint32 seq;        /* order of recording: ties in time keep file order */
  guint16 depth;      /* TSL_FLOW_BIND_SLICE */
  guint8  bind;       /* TslFlowBind */
  guint8  dir;        /* TSL_FLOW_IN | TSL_FLOW_OUT */
  guint32 pad;
} TslExactFlow;

typedef struct _TslExact TslExact;

TslExact         *tsl_exact_new                 (gint64           start_ns,
                                                 gint64           end_ns,
                                                 guint            per_track,
                                                 guint            total);
void              tsl_exact_free                (TslExact        *self);
/* Records a slice of `track` when it overlaps the window; returns TRUE when
 * it did (the next tsl_exact_set_label() names it). */
gboolean          tsl_exact_record              (TslExact        *self,
                                                 guint            track,
                                                 gint64           start_ns,
                                                 gint64           end_ns,
                                                 gint64           offset,
                                                 guint32          flags);
/* The thread (CPU) time of the slice tsl_exact_record() just recorded
 * on `track`. Tracks without any keep no CPU array (memory only where the
 * input has thread time). */
void              tsl_exact_set_cpu             (TslExact        *self,
                                                 guint            track,
                                                 gint64           cpu_ns);
/* Thread times of `track`'s slices by index, -1 where unknown; *n may be
 * less than the slices' count (the rest unknown). NULL when none. */
const gint64     *tsl_exact_get_cpu             (TslExact        *self,
                                                 guint            track,
                                                 guint           *n);
void              tsl_exact_set_label           (TslExact        *self,
                                                 const char      *label,
                                                 gsize            len);
/* FALSE once a budget was exceeded: nothing is held any more. */
gboolean          tsl_exact_is_complete         (TslExact        *self);
void              tsl_exact_get_window          (TslExact        *self,
                                                 gint64          *start_ns,
                                                 gint64          *end_ns);
const TslExactSlice *tsl_exact_get_slices       (TslExact        *self,
                                                 guint            track,
                                                 guint           *n);
const char       *tsl_exact_lookup              (TslExact        *self,
                                                 guint32          label);
guint             tsl_exact_get_n_labels        (TslExact        *self);
/* Records a flow endpoint of `track` when its time is in the window and
 * the flow budget has room; FALSE when it was dropped for the budget. */
gboolean          tsl_exact_record_flow         (TslExact        *self,
                                                 guint            track,
                                                 guint64          key,
                                                 gint64           time_ns,
                                                 guint            depth,
                                                 TslFlowBind      bind,
                                                 guint            dir);
const TslExactFlow *tsl_exact_get_flows         (TslExact        *self,
                                                 guint           *n);
/* Endpoints dropped because the flow budget was full. */
guint64           tsl_exact_get_flows_dropped   (TslExact        *self);

G_END_DECLS
