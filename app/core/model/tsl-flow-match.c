/* tsl-flow-match.c: flow endpoints to arrows between exact slices
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "tsl-flow-match"

#include "config.h"

#include <stdlib.h>

#include "tsl-flow-match.h"
#include "tsl-time-math.h"

typedef struct {
  const TslExactFlow *end;
  guint               track;  /* display index */
  guint               slice;  /* G_MAXUINT: not bound */
  gint64              time;   /* from the trace start */
} Bound;

/* The first slice starting at or after t. */
static guint
lower_bound (const TslSnapshotTrack *track,
             gint64                  t)
{
  guint lo = 0, hi = track->n_slices;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (track->slices[mid].start_ns < t)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

static guint
bind_slice (const TslSnapshotTrack *track,
            gint64                  t,
            guint                   depth)
{
  for (guint i = lower_bound (track, t); i < track->n_slices && track->slices[i].start_ns == t; i++)
    if (track->slices[i].depth == depth)
      return i;
  return G_MAXUINT;
}

static int
compare_by_time (const void *a,
                 const void *b)
{
  const Bound *x = *(const Bound *const *) a, *y = *(const Bound *const *) b;

  if (x->track != y->track)
    return x->track < y->track ? -1 : 1;
  if (x->time != y->time)
    return x->time < y->time ? -1 : 1;
  return x->end->seq < y->end->seq ? -1 : x->end->seq > y->end->seq;
}

/* Enclosing slices of one track's queries in time order, by a sweep that
 * keeps the stack of slices open at the query time: slices are sorted by
 * start then depth, so the top of that stack is the deepest one. */
static void
bind_enclosing (const TslSnapshotTrack *track,
                Bound                 **queries,
                guint                   n,
                GArray                 *stack)
{
  guint next = 0;

  g_array_set_size (stack, 0);
  for (guint q = 0; q < n; q++)
    {
      gint64 t = queries[q]->time;

      while (next < track->n_slices && track->slices[next].start_ns <= t)
        {
          const TslSnapshotSlice *s = &track->slices[next];

          while (stack->len > 0 &&
                 track->slices[g_array_index (stack, guint, stack->len - 1)].depth >= s->depth)
            g_array_set_size (stack, stack->len - 1);
          g_array_append_val (stack, next);
          next++;
        }
      queries[q]->slice = G_MAXUINT;
      for (guint k = stack->len; k > 0; k--)
        {
          const TslSnapshotSlice *s = &track->slices[g_array_index (stack, guint, k - 1)];

          if (t < s->end_ns || (t == s->end_ns && s->start_ns == s->end_ns))
            {
              queries[q]->slice = g_array_index (stack, guint, k - 1);
              break;
            }
        }
    }
}

static int
compare_by_flow (const void *a,
                 const void *b)
{
  const Bound *x = a, *y = b;

  if (x->end->key != y->end->key)
    return x->end->key < y->end->key ? -1 : 1;
  if (x->time != y->time)
    return x->time < y->time ? -1 : 1;
  return x->end->seq < y->end->seq ? -1 : x->end->seq > y->end->seq;
}

/* Where on its slice an endpoint sits: a flow event's own time inside the
 * slice that encloses it; a slice's end when the slice itself sends, its
 * start when it receives. */
static gint64
point_of (const TslSnapshotTrack *tracks,
          const Bound            *b,
          gboolean                sending)
{
  const TslSnapshotSlice *s = &tracks[b->track].slices[b->slice];

  if (b->end->bind == TSL_FLOW_BIND_ENCLOSING)
    return CLAMP (b->time, s->start_ns, s->end_ns);
  return sending ? s->end_ns : s->start_ns;
}

TslSnapshotFlow *
tsl_flow_match (const TslSnapshotTrack *tracks,
                const guint            *track_of,
                guint                   n_trace_tracks,
                const TslExactFlow     *ends,
                guint                   n_ends,
                gint64                  start_ns,
                guint                  *n_flows)
{
  g_autoptr(GArray) flows = g_array_new (FALSE, FALSE, sizeof (TslSnapshotFlow));
  g_autoptr(GArray) stack = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autofree Bound *bound = g_new0 (Bound, MAX (n_ends, 1));
  g_autofree Bound **enclosing = g_new0 (Bound *, MAX (n_ends, 1));
  guint n_enclosing = 0;
  const Bound *open = NULL;

  for (guint i = 0; i < n_ends; i++)
    {
      Bound *b = &bound[i];
      guint t = ends[i].track < n_trace_tracks ? track_of[ends[i].track] : G_MAXUINT;

      b->end = &ends[i];
      b->track = t;
      b->slice = G_MAXUINT;
      b->time = tsl_time_sub (ends[i].time_ns, start_ns);
      if (t == G_MAXUINT || !tracks[t].exact)
        continue;
      switch (ends[i].bind)
        {
        case TSL_FLOW_BIND_SLICE:
          b->slice = bind_slice (&tracks[t], b->time, ends[i].depth);
          break;
        case TSL_FLOW_BIND_NEXT:
          b->slice = lower_bound (&tracks[t], b->time);
          if (b->slice >= tracks[t].n_slices)
            b->slice = G_MAXUINT;
          break;
        default:
          enclosing[n_enclosing++] = b;
          break;
        }
    }

  qsort (enclosing, n_enclosing, sizeof *enclosing, compare_by_time);
  for (guint i = 0, j; i < n_enclosing; i = j)
    {
      for (j = i + 1; j < n_enclosing && enclosing[j]->track == enclosing[i]->track; j++)
        ;
      bind_enclosing (&tracks[enclosing[i]->track], enclosing + i, j - i, stack);
    }

  qsort (bound, n_ends, sizeof *bound, compare_by_flow);
  for (guint i = 0; i < n_ends; i++)
    {
      const Bound *b = &bound[i];

      if (i > 0 && b->end->key != bound[i - 1].end->key)
        open = NULL;
      if (b->slice == G_MAXUINT)
        {
          open = NULL;
          continue;
        }
      if ((b->end->dir & TSL_FLOW_IN) && open != NULL &&
          !(open->track == b->track && open->slice == b->slice))
        {
          TslSnapshotFlow flow = {
            open->track, open->slice, b->track, b->slice,
            point_of (tracks, open, TRUE), point_of (tracks, b, FALSE),
            tracks[open->track].slices[open->slice].depth, tracks[b->track].slices[b->slice].depth,
          };

          g_array_append_val (flows, flow);
        }
      if (b->end->dir & TSL_FLOW_OUT)
        open = b;
      else if (b->end->dir & TSL_FLOW_IN)
        open = NULL;
    }

  *n_flows = flows->len;
  return (TslSnapshotFlow *) (gpointer) g_array_free (g_steal_pointer (&flows), FALSE);
}
