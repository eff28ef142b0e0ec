/* tsl-cli-view.c: `timeslice export --view START..END`, what the window draws
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * As the window does when zoomed in: a first pass finds the trace's start
 * and span, a second re-reads only the view's events, keeping every slice
 * of it while they fit the exact budget (else K..2K samples per track).
 * A file indexed before needs no first pass, and the second reads only the
 * chunks whose times overlap the view (tsl-chunk-index.h).
 */
#define G_LOG_DOMAIN "tsl-cli-export"

#include "config.h"

#include "tsl-cli-private.h"
#include "tsl-export.h"
#include "tsl-range.h"
#include "tsl-read-stream.h"
#include "tsl-snapshot.h"
#include "tsl-time-math.h"

/* K of the span-only first pass: it needs times, not samples. */
#define SPAN_PASS_K 16
#define MAX_SIDE    20000

gboolean
tsl_cli_resolve_view (const char  *text,
                      gint64       span_ns,
                      gint64      *start_ns,
                      gint64      *end_ns,
                      GError     **error)
{
  TslRangeSpec spec;

  if (!tsl_range_spec_parse (text, &spec, error))
    return FALSE;
  tsl_range_spec_resolve (&spec, span_ns, start_ns, end_ns);
  if (*end_ns <= *start_ns)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--view “%s” is empty", text);
      return FALSE;
    }
  return TRUE;
}

int
tsl_cli_export_view (const TslCliViewOptions *o)
{
  g_autoptr(TslTrace) span_trace = NULL;
  g_autoptr(TslTrace) trace = NULL;
  g_autoptr(TslSnapshot) snapshot = NULL;
  g_autoptr(GError) error = NULL;
  gint64 origin = 0, last = 0, vs, ve;

  if (g_str_equal (o->path, "-"))
    return tsl_cli_fail (TSL_EXIT_USAGE, "export: --view reads the file twice, so it needs a file, not standard input");

  /* An indexed file knows its span: only the view's chunks are read. */
  span_trace = tsl_cli_load_span (o->path, TSL_SAMPLER_TIME, SPAN_PASS_K, o->seed, NULL, &error);
  if (span_trace == NULL)
    return tsl_cli_fail (TSL_EXIT_INPUT, "%s", error->message);
  tsl_trace_get_span (span_trace, &origin, &last);
  /* A span over 2^63 ns saturates, as the snapshot's does: the view is
   * resolved on the axis the snapshot draws. */
  if (!tsl_cli_resolve_view (o->view, MAX (tsl_time_sub (last, origin), 1), &vs, &ve, &error))
    return tsl_cli_fail (TSL_EXIT_USAGE, "export: %s", error->message);

  trace = tsl_trace_new (TSL_SAMPLER_TIME, o->k, o->seed);
  tsl_trace_set_time_filter (trace, tsl_time_add (origin, vs), tsl_time_add (origin, ve));
  tsl_trace_record_exact (trace, TSL_EXACT_PER_TRACK, TSL_EXACT_TOTAL);
  if (!tsl_read_path (trace, o->path, NULL, NULL, NULL, &error))
    return tsl_cli_fail (TSL_EXIT_INPUT, "%s", error->message);
  snapshot = tsl_snapshot_new (trace);

  if (o->format == TSL_EXPORT_CSV)
    {
      g_autoptr(GOutputStream) out = tsl_cli_open_output (o->output, &error);

      if (out == NULL ||
          !(o->flows ? tsl_export_write_flows (snapshot, vs, ve, o->tracks, out, NULL, &error)
                     : tsl_export_write_view (snapshot, vs, ve, o->tracks, out, NULL, &error)) ||
          !g_output_stream_close (out, NULL, &error))
        return tsl_cli_fail (TSL_EXIT_INPUT, "%s", error->message);
      return TSL_EXIT_OK;
    }

  /* The tracks asked for, laid out as if the file held nothing else. */
  if (o->tracks != NULL)
    {
      TslSnapshot *filtered = tsl_snapshot_new_filtered (snapshot, o->tracks);

      tsl_snapshot_unref (snapshot);
      snapshot = filtered;
      if (tsl_snapshot_get_n_tracks (snapshot) == 0)
        return tsl_cli_fail (TSL_EXIT_USAGE, "export: --tracks “%s” matches no track of the view", o->tracks);
    }

  {
    g_autoptr(GFile) file = g_file_new_for_commandline_arg (o->output);
    g_autofree char *title = g_path_get_basename (o->path);
    TslRenderOptions options;

    tsl_render_options_init (&options, snapshot, o->width, 100);
    options.view_start_ns = vs;
    options.view_end_ns = ve;
    options.title = title;
    options.draw_note = TRUE;
    options.dark = o->dark;
    /* No slice is selected here: none, or every flow in view, under the
     * window's one cap and note. */
    options.flows = o->flows ? TSL_RENDER_FLOWS_ALL : TSL_RENDER_FLOWS_SELECTED;
    options.height = o->height > 0 ? o->height
                                   : MIN (tsl_export_natural_height (snapshot, &options), MAX_SIDE);
    if (!tsl_export_timeline (snapshot, &options, o->format, file, NULL, &error))
      return tsl_cli_fail (TSL_EXIT_INPUT, "%s", error->message);
  }

  return TSL_EXIT_OK;
}
