/* tsl-first-view.c: where a trace's activity is, for the view it opens on
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "tsl-snapshot"

#include "config.h"

#include <math.h>

#include "tsl-first-view.h"

typedef struct {
  gint64  start;
  gint64  end;
  guint64 weight;
} Point;

static int
compare_points (gconstpointer a,
                gconstpointer b)
{
  const Point *x = a, *y = b;

  return (x->start > y->start) - (x->start < y->start);
}

/* Each exact slice is one event; a sampled track's slices of time count
 * every event they stand for. */
static GArray *
collect_points (TslSnapshot *snapshot,
                guint64     *total)
{
  GArray *points = g_array_new (FALSE, FALSE, sizeof (Point));

  *total = 0;
  for (guint t = 0; t < tsl_snapshot_get_n_tracks (snapshot); t++)
    {
      const TslSnapshotTrack *track = tsl_snapshot_get_track (snapshot, t);

      if (track->exact)
        for (guint i = 0; i < track->n_slices; i++)
          {
            /* Where it starts: a span open to the end is not activity there. */
            Point p = { track->slices[i].start_ns, track->slices[i].start_ns, 1 };

            g_array_append_val (points, p);
            *total += 1;
          }
      else
        for (guint i = 0; i < track->n_samples; i++)
          {
            const TslSnapshotSample *s = &track->samples[i];
            Point p = { s->start_ns, MAX (s->end_ns, s->start_ns), s->summary.count };

            if (p.weight == 0)
              continue;
            g_array_append_val (points, p);
            *total += p.weight;
          }
    }
  g_array_sort (points, compare_points);
  return points;
}

gboolean
tsl_first_view_find (TslSnapshot *snapshot,
                     double       fraction,
                     gint64      *start_ns,
                     gint64      *end_ns,
                     guint64     *outside)
{
  g_autoptr(GArray) points = NULL;
  guint64 total, target, sum = 0, best_sum = 0;
  gint64 span, best_start = 0, best_end = G_MAXINT64, room;
  guint j = 0;
  gint64 reach = G_MININT64;   /* the furthest end of points[0..j) */

  g_return_val_if_fail (snapshot != NULL, FALSE);

  span = tsl_snapshot_get_span (snapshot);
  points = collect_points (snapshot, &total);
  if (total == 0 || span <= 0)
    return FALSE;
  target = (guint64) ceil (fraction * (double) total);
  target = CLAMP (target, 1, total);

  /* Two pointers over points by start: for each first point, the fewest
   * next ones that reach the target. The furthest end is a running
   * maximum over every point taken so far: as they go by start and a
   * point ends at most one sampler slice after it starts, that
   * over-estimates the range by a slice at most. */
  for (guint i = 0; i < points->len; i++)
    {
      const Point *first = &g_array_index (points, Point, i);

      while (sum < target && j < points->len)
        {
          const Point *p = &g_array_index (points, Point, j++);

          sum += p->weight;
          reach = MAX (reach, p->end);
        }
      if (sum < target)
        break;
      if (reach - first->start < best_end - best_start)
        {
          best_start = first->start;
          best_end = reach;
          best_sum = sum;
        }
      sum -= first->weight;
    }

  if (best_end == G_MAXINT64)
    return FALSE;
  /* The fraction left out is the sparse tail, not the busy range's own
   * edges: neighbours closer than a twentieth of the range join it. */
  {
    gint64 gap = MAX ((best_end - best_start) / 20, 1);
    guint lo = 0, hi;

    while (lo < points->len && g_array_index (points, Point, lo).start < best_start)
      lo++;
    while (lo > 0 && best_start - g_array_index (points, Point, lo - 1).start <= gap)
      best_start = g_array_index (points, Point, --lo).start;
    best_sum = 0;
    for (hi = lo; hi < points->len; hi++)
      {
        const Point *p = &g_array_index (points, Point, hi);

        if (p->start > best_end && p->start - best_end > gap)
          break;
        best_end = MAX (best_end, p->end);
        best_sum += p->weight;
      }
  }
  if ((double) (best_end - best_start) > TSL_FIRST_VIEW_MIN_SHRINK * (double) span)
    return FALSE;
  /* A little room, so that the first and last calls are not on the edge. */
  room = MAX ((best_end - best_start) / 50, 1000);
  *start_ns = MAX (best_start - room, 0);
  *end_ns = MIN (best_end + room, span);
  *outside = total - best_sum;
  return TRUE;
}
