/* tsl-render-flows.c: flow arrows between exact slices
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Drawn over the tracks, under the ranges: a curve from where the flow
 * leaves its slice to where it arrives, with a dot at the tail and a head
 * at the arrival, when the view reaches either end and both tracks are
 * shown. The flows come matched with the snapshot (tsl-flow-match.h).
 *
 * Which arrows is decided once, in tsl_render_flows_shown(), for the
 * window and every export: a real browser trace has tens of thousands of
 * flows, a black mass over every track when all are drawn, so by default
 * only the selected slice's chain is (Perfetto's choice), and every flow
 * in view on demand, up to one cap with one note.
 */
#define G_LOG_DOMAIN "tsl-render"

#include "config.h"

#include <math.h>
#include <stdlib.h>

#include <glib/gi18n-lib.h>

#include "tsl-render-private.h"

#define HEAD 6.0

/* Past this many arrows in view the curves, dots and heads become straight
 * half-transparent lines, written into the pixels when the target allows:
 * an antialiased curve costs cairo 20–40 µs, a line ~1.5 µs, and a
 * hairball of curves reads no better (bench/bench-render). */
#define MAX_DETAILED 300
/* Past TSL_RENDER_MAX_FLOWS, none: a note says how many and to zoom in
 * (at the flow budget, 26,000 lines in view took 40–75 ms a paint). */

typedef struct {
  double x0, y0, x1, y1;
} Arrow;

/* By row, then column: neighbouring lines then share cache lines of the
 * surface (drawn in surface order, a line a column, they missed the cache
 * on every pixel: 350 ms for 26,000 arrows). */
static int
compare_arrows (const void *a,
                const void *b)
{
  const Arrow *x = a, *y = b;
  int ry = (int) floor (x->y0) - (int) floor (y->y0);

  if (ry != 0)
    return ry;
  return (x->x0 > y->x0) - (x->x0 < y->x0);
}

static inline guint64
endpoint (guint track,
          guint slice)
{
  return ((guint64) track << 32) | slice;
}

/* The selected slice in this snapshot: its track by name and pid, then the
 * slice by start and depth (a track's slices are by start, then depth),
 * then by end and name: Chrome writes several instants at one microsecond
 * and depth ("SequenceManager PostTask", then "ScheduleWork" with the
 * flows), and the first of them is not always the one clicked. */
static gboolean
find_selection (TslSnapshot            *snapshot,
                const TslRenderOptions *o,
                guint64                *key)
{
  gboolean found = FALSE;

  for (guint t = 0; t < tsl_snapshot_get_n_tracks (snapshot); t++)
    {
      const TslSnapshotTrack *track = tsl_snapshot_get_track (snapshot, t);
      guint lo = 0, hi;

      if (!track->exact || track->pid != o->selection_pid ||
          g_strcmp0 (track->name, o->selection_track) != 0)
        continue;
      hi = track->n_slices;
      while (lo < hi)
        {
          guint mid = lo + (hi - lo) / 2;

          if (track->slices[mid].start_ns < o->selection_start_ns)
            lo = mid + 1;
          else
            hi = mid;
        }
      for (; lo < track->n_slices && track->slices[lo].start_ns == o->selection_start_ns; lo++)
        {
          const TslSnapshotSlice *slice = &track->slices[lo];

          if (slice->depth != o->selection_depth)
            continue;
          if (slice->end_ns == o->selection_end_ns &&
              (o->selection_name == NULL ||
               g_strcmp0 (tsl_snapshot_get_frame_name (snapshot, slice->frame), o->selection_name) == 0))
            {
              *key = endpoint (t, lo);
              return TRUE;
            }
          /* None alike in end and name: the first of the start and depth. */
          if (!found)
            *key = endpoint (t, lo);
          found = TRUE;
        }
      if (found)
        return TRUE;
    }
  return FALSE;
}

/* Marks in `taken` every flow reached from slice `key` through flows in
 * either direction, slice to slice: what led to it and what it led to.
 * Passes until nothing new is reached; flows come by flow then time, so a
 * chain is usually whole after two. */
static void
take_chain (const TslSnapshotFlow *flows,
            guint                  n,
            guint64                key,
            guint8                *taken)
{
  g_autoptr(GHashTable) reached = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  gboolean changed = TRUE;

  g_hash_table_add (reached, g_memdup2 (&key, sizeof key));
  while (changed)
    {
      changed = FALSE;
      for (guint i = 0; i < n; i++)
        {
          guint64 a = endpoint (flows[i].from_track, flows[i].from_slice);
          guint64 b = endpoint (flows[i].to_track, flows[i].to_slice);
          gboolean has_a, has_b;

          if (taken[i])
            continue;
          has_a = g_hash_table_contains (reached, &a);
          has_b = g_hash_table_contains (reached, &b);
          if (!has_a && !has_b)
            continue;
          taken[i] = TRUE;
          changed = TRUE;
          if (!has_a)
            g_hash_table_add (reached, g_memdup2 (&a, sizeof a));
          if (!has_b)
            g_hash_table_add (reached, g_memdup2 (&b, sizeof b));
        }
    }
}

GArray *
tsl_render_flows_shown (TslSnapshot            *snapshot,
                        const TslRenderOptions *o,
                        char                  **note)
{
  g_autoptr(GArray) shown = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autofree guint8 *taken = NULL;
  const TslSnapshotFlow *flows;
  guint n = 0;

  g_return_val_if_fail (o != NULL, NULL);
  g_return_val_if_fail (note != NULL, NULL);

  *note = NULL;
  if (snapshot == NULL)
    return g_steal_pointer (&shown);
  flows = tsl_snapshot_get_flows (snapshot, &n);
  if (n == 0)
    return g_steal_pointer (&shown);
  if (o->flows == TSL_RENDER_FLOWS_SELECTED)
    {
      guint64 key;

      if (!o->has_selection || !find_selection (snapshot, o, &key))
        return g_steal_pointer (&shown);
      taken = g_new0 (guint8, n);
      take_chain (flows, n, key, taken);
    }

  for (guint i = 0; i < n; i++)
    {
      const TslSnapshotFlow *f = &flows[i];

      if (taken != NULL && !taken[i])
        continue;
      if (MAX (f->from_ns, f->to_ns) < o->view_start_ns || MIN (f->from_ns, f->to_ns) > o->view_end_ns)
        continue;
      if (_tsl_render_is_collapsed (o, tsl_snapshot_get_track (snapshot, f->from_track)->pid) ||
          _tsl_render_is_collapsed (o, tsl_snapshot_get_track (snapshot, f->to_track)->pid))
        continue;
      g_array_append_val (shown, i);
    }
  if (shown->len > TSL_RENDER_MAX_FLOWS)
    {
      *note = g_strdup_printf (dngettext (GETTEXT_PACKAGE,
                                          "%u flow arrow in view, more than %u: zoom in to draw them",
                                          "%u flow arrows in view, more than %u: zoom in to draw them",
                                          shown->len),
                               shown->len, (guint) TSL_RENDER_MAX_FLOWS);
      g_array_set_size (shown, 0);
    }
  return g_steal_pointer (&shown);
}

void
_tsl_render_flows (cairo_t                *cr,
                   TslRenderCanvas        *canvas,
                   TslSnapshot            *snapshot,
                   const TslRenderOptions *o,
                   const TslRenderTheme   *theme,
                   const double           *tops)
{
  const TslSnapshotFlow *flows;
  guint n = 0;
  double left = tsl_render_label_width (o);
  double header = tsl_render_header_height (o);
  g_autoptr(GArray) arrows = NULL;
  g_autoptr(GArray) shown = NULL;
  g_autofree char *note = NULL;

  flows = tsl_snapshot_get_flows (snapshot, &n);
  if (n == 0)
    return;
  shown = tsl_render_flows_shown (snapshot, o, &note);

  if (note != NULL)
    {
      cairo_text_extents_t ext;

      cairo_save (cr);
      cairo_rectangle (cr, left, header, MAX (o->width - left, 0), MAX (o->height - header, 0));
      cairo_clip (cr);
      cairo_set_font_size (cr, 11);
      cairo_text_extents (cr, note, &ext);
      cairo_set_source_rgba (cr, theme->gutter.r, theme->gutter.g, theme->gutter.b, 0.9);
      cairo_rectangle (cr, o->width - ext.x_advance - 24, header + 4, ext.x_advance + 16, 18);
      cairo_fill (cr);
      cairo_set_source_rgb (cr, theme->dim.r, theme->dim.g, theme->dim.b);
      _tsl_render_show_text (cr, o->width - ext.x_advance - 16, header + 17, ext.x_advance + 8, note);
      cairo_restore (cr);
      return;
    }

  arrows = g_array_new (FALSE, FALSE, sizeof (Arrow));
  for (guint j = 0; j < shown->len; j++)
    {
      const TslSnapshotFlow *f = &flows[g_array_index (shown, guint, j)];
      Arrow a;

      if (isnan (tops[f->from_track]) || isnan (tops[f->to_track]))
        continue;
      a.x0 = tsl_render_time_to_x (o, (double) f->from_ns);
      a.x1 = tsl_render_time_to_x (o, (double) f->to_ns);
      if ((a.x0 < left && a.x1 < left) || (a.x0 > o->width && a.x1 > o->width))
        continue;
      /* At the slice's own row; a level a capped track hides, at its
       * "+N levels" row. */
      a.y0 = _tsl_render_row_middle (o, tsl_snapshot_get_track (snapshot, f->from_track),
                                     f->from_depth, tops[f->from_track]);
      a.y1 = _tsl_render_row_middle (o, tsl_snapshot_get_track (snapshot, f->to_track),
                                     f->to_depth, tops[f->to_track]);
      if ((a.y0 < header && a.y1 < header) || (a.y0 > o->height && a.y1 > o->height))
        continue;
      g_array_append_val (arrows, a);
    }
  if (arrows->len == 0)
    return;

  cairo_save (cr);
  cairo_rectangle (cr, left, header, MAX (o->width - left, 0), MAX (o->height - header, 0));
  cairo_clip (cr);
  cairo_set_line_width (cr, 1.25);
  cairo_set_source_rgba (cr, theme->fg.r, theme->fg.g, theme->fg.b, 0.8);

  if (arrows->len > MAX_DETAILED && canvas->pixels != NULL)
    {
      double rgb[3] = { theme->fg.r, theme->fg.g, theme->fg.b };

      qsort (arrows->data, arrows->len, sizeof (Arrow), compare_arrows);
      cairo_surface_flush (cairo_get_target (cr));
      for (guint i = 0; i < arrows->len; i++)
        {
          const Arrow *a = &g_array_index (arrows, Arrow, i);

          _tsl_render_canvas_line (canvas, a->x0, a->y0, a->x1, a->y1, left, rgb, 0.5);
        }
      cairo_surface_mark_dirty (cairo_get_target (cr));
      cairo_restore (cr);
      return;
    }
  if (arrows->len > MAX_DETAILED)
    {
      cairo_set_line_width (cr, 1);
      cairo_set_source_rgba (cr, theme->fg.r, theme->fg.g, theme->fg.b, 0.5);
      for (guint i = 0; i < arrows->len; i++)
        {
          const Arrow *a = &g_array_index (arrows, Arrow, i);

          cairo_move_to (cr, a->x0, a->y0);
          cairo_line_to (cr, a->x1, a->y1);
        }
      cairo_stroke (cr);
      cairo_restore (cr);
      return;
    }

  for (guint i = 0; i < arrows->len; i++)
    {
      const Arrow *a = &g_array_index (arrows, Arrow, i);
      /* Leaves and arrives horizontally: a flow to a later slice bows
       * forward, one to the same time bows out to the right. */
      double bend = MAX (fabs (a->x1 - a->x0) / 2, 16);

      /* One stroke each: cairo's stroker took 75× longer on one path of
       * 1,600 overlapping curves than on the curves one by one. */
      cairo_move_to (cr, a->x0, a->y0);
      cairo_curve_to (cr, a->x0 + bend, a->y0, a->x1 - bend, a->y1, a->x1 - HEAD * 0.6, a->y1);
      cairo_stroke (cr);
    }
  for (guint i = 0; i < arrows->len; i++)
    {
      const Arrow *a = &g_array_index (arrows, Arrow, i);

      /* A dot at the tail, a head pointing right at the arrival (the
       * curve's tangent there is horizontal). */
      cairo_new_sub_path (cr);
      cairo_arc (cr, a->x0, a->y0, 2.0, 0, 2 * G_PI);
      cairo_close_path (cr);
      cairo_move_to (cr, a->x1, a->y1);
      cairo_line_to (cr, a->x1 - HEAD * cos (0.45), a->y1 - HEAD * sin (0.45));
      cairo_line_to (cr, a->x1 - HEAD * cos (0.45), a->y1 + HEAD * sin (0.45));
      cairo_close_path (cr);
    }
  cairo_fill (cr);

  cairo_restore (cr);
}
