/* tsl-render-layout.c: where tracks lie: heights, tops, time to x, hit tests
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "tsl-render"

#include "config.h"

#include <math.h>
#include <string.h>

#include "tsl-render.h"
#include "tsl-render-private.h"

double
_tsl_render_counter_height (const TslRenderOptions *o)
{
  if (!(o->counter_height > 0))
    return TSL_RENDER_COUNTER_HEIGHT;
  return CLAMP (o->counter_height, TSL_RENDER_MIN_COUNTER_HEIGHT, TSL_RENDER_MAX_COUNTER_HEIGHT);
}

guint
_tsl_render_rows (const TslRenderOptions *o,
                  const TslSnapshotTrack *track,
                  guint                  *hidden)
{
  guint levels = MAX (track->max_depth, 1);
  guint rows = o->max_rows > 0 ? MIN (levels, o->max_rows) : levels;

  if (hidden != NULL)
    *hidden = levels - rows;
  return rows;
}

double
_tsl_render_row_middle (const TslRenderOptions *o,
                        const TslSnapshotTrack *track,
                        guint                   depth,
                        double                  top)
{
  return top + MIN (depth, _tsl_render_rows (o, track, NULL)) * TSL_RENDER_ROW_HEIGHT +
         TSL_RENDER_ROW_HEIGHT / 2.0;
}

double
_tsl_render_height_of (const TslRenderOptions *o,
              const TslSnapshotTrack *track)
{
  if (track->kind == TSL_TRACK_THREAD || track->kind == TSL_TRACK_ASYNC)
    {
      guint hidden;
      guint rows = _tsl_render_rows (o, track, &hidden);

      return (rows + (hidden > 0)) * TSL_RENDER_ROW_HEIGHT + TSL_RENDER_TRACK_GAP;
    }
  return _tsl_render_counter_height (o) + TSL_RENDER_TRACK_GAP;
}

gboolean
_tsl_render_starts_group (TslSnapshot *snapshot,
              guint        i)
{
  const TslSnapshotTrack *track = tsl_snapshot_get_track (snapshot, i);

  if (i == 0)
    return TRUE;
  return tsl_snapshot_get_track (snapshot, i - 1)->pid != track->pid;
}

gboolean
_tsl_render_is_collapsed (const TslRenderOptions *o,
              gint64                  pid)
{
  for (guint i = 0; i < o->n_collapsed; i++)
    if (o->collapsed[i] == pid)
      return TRUE;
  return FALSE;
}

double
tsl_render_content_height (TslSnapshot            *snapshot,
                           const TslRenderOptions *o)
{
  double h = 0;

  for (guint i = 0; i < tsl_snapshot_get_n_tracks (snapshot); i++)
    {
      const TslSnapshotTrack *track = tsl_snapshot_get_track (snapshot, i);

      if (_tsl_render_starts_group (snapshot, i))
        h += TSL_RENDER_GROUP_HEIGHT;
      if (!_tsl_render_is_collapsed (o, track->pid))
        h += _tsl_render_height_of (o, track);
    }

  return h;
}

double
tsl_render_track_height (TslSnapshot            *snapshot,
                         const TslRenderOptions *o,
                         guint                   track)
{
  g_return_val_if_fail (track < tsl_snapshot_get_n_tracks (snapshot), 0);

  return _tsl_render_height_of (o, tsl_snapshot_get_track (snapshot, track));
}

double
tsl_render_track_top (TslSnapshot            *snapshot,
                      const TslRenderOptions *o,
                      guint                   track)
{
  double h = 0;

  for (guint i = 0; i <= track && i < tsl_snapshot_get_n_tracks (snapshot); i++)
    {
      if (_tsl_render_starts_group (snapshot, i))
        h += TSL_RENDER_GROUP_HEIGHT;
      if (i < track && !_tsl_render_is_collapsed (o, tsl_snapshot_get_track (snapshot, i)->pid))
        h += _tsl_render_height_of (o, tsl_snapshot_get_track (snapshot, i));
    }
  return h;
}

double
tsl_render_row_top (TslSnapshot            *snapshot,
                    const TslRenderOptions *o,
                    guint                   track,
                    guint                   depth)
{
  g_return_val_if_fail (track < tsl_snapshot_get_n_tracks (snapshot), 0);

  return _tsl_render_row_middle (o, tsl_snapshot_get_track (snapshot, track), depth,
                                 tsl_render_track_top (snapshot, o, track)) - TSL_RENDER_ROW_HEIGHT / 2.0;
}

double
tsl_render_header_height (const TslRenderOptions *options)
{
  return TSL_RENDER_RULER_HEIGHT + (options->title ? TSL_RENDER_TITLE_HEIGHT : 0);
}

double
tsl_render_label_width (const TslRenderOptions *o)
{
  if (!(o->label_width > 0) || !isfinite (o->label_width))
    return TSL_RENDER_LABEL_WIDTH;
  return CLAMP (o->label_width, TSL_RENDER_MIN_LABEL_WIDTH, MAX (o->width - 100, TSL_RENDER_MIN_LABEL_WIDTH));
}

gboolean
tsl_render_view_is_valid (const TslRenderOptions *o)
{
  return o->view_end_ns > o->view_start_ns &&
         isfinite (o->width) && isfinite (o->height) && o->width >= 1 && o->height >= 1 &&
         isfinite (o->scroll_y);
}

void
tsl_render_options_init (TslRenderOptions *options,
                         TslSnapshot      *snapshot,
                         double            width,
                         double            height)
{
  memset (options, 0, sizeof *options);
  options->view_start_ns = 0;
  options->view_end_ns = snapshot ? MAX (tsl_snapshot_get_span (snapshot), 1) : 1;
  options->width = width;
  options->height = height;
  options->label_width = TSL_RENDER_LABEL_WIDTH;
}

double
tsl_render_time_to_x (const TslRenderOptions *o,
                      double                  time_ns)
{
  double plot = MAX (o->width - tsl_render_label_width (o), 1);
  double span = MAX ((double) o->view_end_ns - (double) o->view_start_ns, 1);

  return tsl_render_label_width (o) + (time_ns - (double) o->view_start_ns) / span * plot;
}

double
tsl_render_x_to_time (const TslRenderOptions *o,
                      double                  x)
{
  double plot = MAX (o->width - tsl_render_label_width (o), 1);
  double span = (double) o->view_end_ns - (double) o->view_start_ns;

  return (double) o->view_start_ns + (x - tsl_render_label_width (o)) / plot * span;
}

gboolean
tsl_render_hit_test (TslSnapshot            *snapshot,
                     const TslRenderOptions *o,
                     double                  x,
                     double                  y,
                     TslRenderHit           *hit)
{
  double top = tsl_render_header_height (o) - o->scroll_y;
  double t;

  hit->on_group = FALSE;
  hit->group_pid = 0;
  hit->track = -1;
  hit->sample = NULL;
  hit->slice = NULL;
  hit->depth = -1;

  if (snapshot == NULL || y < tsl_render_header_height (o))
    return FALSE;

  t = tsl_render_x_to_time (o, x);

  for (guint i = 0; i < tsl_snapshot_get_n_tracks (snapshot); i++)
    {
      const TslSnapshotTrack *track = tsl_snapshot_get_track (snapshot, i);
      double th = _tsl_render_height_of (o, track);

      if (_tsl_render_starts_group (snapshot, i))
        {
          if (y >= top && y < top + TSL_RENDER_GROUP_HEIGHT)
            {
              hit->on_group = TRUE;
              hit->group_pid = track->pid;
              return TRUE;
            }
          top += TSL_RENDER_GROUP_HEIGHT;
        }

      if (_tsl_render_is_collapsed (o, track->pid))
        continue;

      if (x >= tsl_render_label_width (o) && y >= top && y < top + th)
        {
          hit->track = i;
          /* The "+N levels" row below a capped track holds no slice. */
          int rows = (int) _tsl_render_rows (o, track, NULL);

          if (track->exact)
            {
              int d = (int) ((y - top) / TSL_RENDER_ROW_HEIGHT);
              /* A slice narrower than a pixel is hit across its pixel. */
              double px = tsl_render_x_to_time (o, x + 1) - t;

              for (guint s = 0; s < track->n_slices; s++)
                {
                  const TslSnapshotSlice *slice = &track->slices[s];

                  if ((double) slice->start_ns > t + px)
                    break;
                  if ((int) slice->depth == d && d < rows && t < (double) slice->end_ns + px)
                    hit->slice = slice;
                }
              hit->depth = hit->slice ? d : -1;
              return TRUE;
            }
          for (guint s = 0; s < track->n_samples; s++)
            {
              const TslSnapshotSample *sample = &track->samples[s];

              if (t >= (double) sample->start_ns && t < (double) MAX (sample->end_ns, sample->start_ns + 1))
                {
                  hit->sample = sample;
                  if (track->kind == TSL_TRACK_THREAD || track->kind == TSL_TRACK_ASYNC)
                    {
                      int d = (int) ((y - top) / TSL_RENDER_ROW_HEIGHT);
                      hit->depth = d < (int) sample->n_frames && d < rows ? d : -1;
                    }
                  break;
                }
            }
          return TRUE;
        }
      top += th;
    }

  return FALSE;
}
