/* tsl-export-view.c: the slices a view of the timeline draws, as CSV
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One row per slice, `track,depth,start_s,end_s,name,exact,open`: on a track
 * that holds every slice of the view (tsl-exact.h) those slices, exact; on a
 * sampled track, what the painter draws of each kept sample, level by level.
 * `open` is true for a span the file never closed: its end_s is the end of
 * the trace; `start` for one whose begin the file lacks (a Perfetto slice
 * begun before the trace): its start_s is the start of the trace (sampled
 * rows cannot tell, and say false).
 * And the view's flow arrows, one row per arrow.
 */
#define G_LOG_DOMAIN "tsl-export"

#include "config.h"

#include <math.h>

#include "tsl-csv-writer.h"
#include "tsl-export.h"

static void
append_row (GString    *buf,
            const char *track,
            guint       depth,
            gint64      start_ns,
            gint64      end_ns,
            const char *name,
            gboolean    exact,
            const char *open)
{
  g_autofree char *start = tsl_csv_format_double ((double) start_ns / 1e9);
  g_autofree char *end = tsl_csv_format_double ((double) end_ns / 1e9);

  tsl_csv_append_field (buf, track);
  g_string_append_printf (buf, ",%u,%s,%s,", depth, start, end);
  tsl_csv_append_field (buf, name);
  g_string_append (buf, exact ? ",true" : ",false");
  g_string_append_c (buf, ',');
  g_string_append (buf, open);
  g_string_append_c (buf, '\n');
}

/* [start, end) overlaps [vs, ve); an instant counts where it is. */
static gboolean
in_view (gint64 start,
         gint64 end,
         gint64 vs,
         gint64 ve)
{
  return start < ve && (end > vs || (end == start && start >= vs));
}

static void
append_sampled (GString                *buf,
                TslSnapshot            *snapshot,
                const TslSnapshotTrack *track,
                gint64                  vs,
                gint64                  ve)
{
  gboolean durations = g_strcmp0 (track->unit, "ns") == 0;

  for (guint i = 0; i < track->n_samples; i++)
    {
      const TslSnapshotSample *s = &track->samples[i];
      gboolean span = durations && !isnan (s->value) && s->value >= 0;
      gint64 end = s->end_ns;

      if (span && (double) s->time_ns + s->value > (double) end)
        end = (gint64) MIN ((double) s->time_ns + s->value, 9.0e18);
      for (guint d = 0; d < s->n_frames; d++)
        {
          /* As the painter: the leaf of a span from where the call starts. */
          gint64 start = span && d + 1 == s->n_frames ? s->time_ns : s->start_ns;

          if (in_view (start, end, vs, ve))
            append_row (buf, track->name, d, start, end,
                        tsl_snapshot_get_frame_name (snapshot, s->frames[d]), FALSE, "false");
        }
    }
}

gboolean
tsl_export_write_view (TslSnapshot   *snapshot,
                       gint64         view_start_ns,
                       gint64         view_end_ns,
                       const char    *tracks,
                       GOutputStream *out,
                       GCancellable  *cancellable,
                       GError       **error)
{
  g_autoptr(GString) buf = g_string_new ("track,depth,start_s,end_s,name,exact,open\n");
  g_autoptr(GPatternSpec) pattern = tracks ? g_pattern_spec_new (tracks) : NULL;

  for (guint t = 0; t < tsl_snapshot_get_n_tracks (snapshot); t++)
    {
      const TslSnapshotTrack *track = tsl_snapshot_get_track (snapshot, t);

      if (track->kind != TSL_TRACK_THREAD && track->kind != TSL_TRACK_ASYNC)
        continue;
      if (pattern && !g_pattern_spec_match_string (pattern, track->name))
        continue;

      if (!track->exact)
        append_sampled (buf, snapshot, track, view_start_ns, view_end_ns);
      else
        for (guint i = 0; i < track->n_slices; i++)
          {
            const TslSnapshotSlice *s = &track->slices[i];

            if (in_view (s->start_ns, s->end_ns, view_start_ns, view_end_ns))
              append_row (buf, track->name, s->depth, s->start_ns, s->end_ns,
                          tsl_snapshot_get_frame_name (snapshot, s->frame), TRUE,
                          s->open ? "true" : s->open_start ? "start" : "false");
          }

      if (buf->len >= 64 * 1024)
        {
          if (!g_output_stream_write_all (out, buf->str, buf->len, NULL, cancellable, error))
            return FALSE;
          g_string_truncate (buf, 0);
        }
    }

  return g_output_stream_write_all (out, buf->str, buf->len, NULL, cancellable, error);
}

static void
append_end (GString                *buf,
            TslSnapshot            *snapshot,
            const TslSnapshotTrack *track,
            guint                   slice,
            gint64                  time_ns)
{
  g_autofree char *time = tsl_csv_format_double ((double) time_ns / 1e9);

  tsl_csv_append_field (buf, track->name);
  g_string_append_printf (buf, ",%u,", track->slices[slice].depth);
  tsl_csv_append_field (buf, tsl_snapshot_get_frame_name (snapshot, track->slices[slice].frame));
  g_string_append_printf (buf, ",%s", time);
}

gboolean
tsl_export_write_flows (TslSnapshot   *snapshot,
                        gint64         view_start_ns,
                        gint64         view_end_ns,
                        const char    *tracks,
                        GOutputStream *out,
                        GCancellable  *cancellable,
                        GError       **error)
{
  g_autoptr(GString) buf = g_string_new ("from_track,from_depth,from_name,from_s,"
                                         "to_track,to_depth,to_name,to_s\n");
  g_autoptr(GPatternSpec) pattern = tracks ? g_pattern_spec_new (tracks) : NULL;
  const TslSnapshotFlow *flows;
  guint n = 0;

  flows = tsl_snapshot_get_flows (snapshot, &n);
  for (guint i = 0; i < n; i++)
    {
      const TslSnapshotFlow *f = &flows[i];
      const TslSnapshotTrack *from = tsl_snapshot_get_track (snapshot, f->from_track);
      const TslSnapshotTrack *to = tsl_snapshot_get_track (snapshot, f->to_track);

      if (MAX (f->from_ns, f->to_ns) < view_start_ns || MIN (f->from_ns, f->to_ns) >= view_end_ns)
        continue;
      if (pattern && !g_pattern_spec_match_string (pattern, from->name) &&
          !g_pattern_spec_match_string (pattern, to->name))
        continue;
      append_end (buf, snapshot, from, f->from_slice, f->from_ns);
      g_string_append_c (buf, ',');
      append_end (buf, snapshot, to, f->to_slice, f->to_ns);
      g_string_append_c (buf, '\n');
      if (buf->len >= 64 * 1024)
        {
          if (!g_output_stream_write_all (out, buf->str, buf->len, NULL, cancellable, error))
            return FALSE;
          g_string_truncate (buf, 0);
        }
    }

  return g_output_stream_write_all (out, buf->str, buf->len, NULL, cancellable, error);
}
