/* tsl-export.h: reports — the timeline as PNG/SVG/PDF, the samples as CSV
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every writer replaces its file atomically (a temporary file beside it,
 * renamed when complete): a failure never leaves a half-written file or
 * damages the one already there.
 */
#pragma once

#include <gio/gio.h>

#include "tsl-render-flame.h"
#include "tsl-render.h"

G_BEGIN_DECLS

typedef enum {
  TSL_EXPORT_PNG,
  TSL_EXPORT_SVG,
  TSL_EXPORT_PDF,
  TSL_EXPORT_CSV,
} TslExportFormat;

/* From the file name's extension; FALSE (with an error naming the accepted
 * extensions) for anything else. */
gboolean          tsl_export_format_from_name   (const char              *name,
                                                 TslExportFormat         *format,
                                                 GError                 **error);
/* The height that shows every track at `width`, with header and note. */
double            tsl_export_natural_height     (TslSnapshot             *snapshot,
                                                 const TslRenderOptions  *options);
/* The note line's height at the bottom of an exported timeline. */
#define TSL_EXPORT_NOTE_HEIGHT 22
/* The locale's paper (LC_PAPER: A4, Letter…), landscape, in points. */
void              tsl_export_paper_size         (double                 *width_pt,
                                                 double                 *height_pt);
/* PNG, SVG or PDF of the timeline drawn by the same painter as the window:
 * options->height × options->width, or in a PDF on pages of the locale's
 * paper, the tracks cut at their boundaries (tsl_export_paper_size()). */
gboolean          tsl_export_timeline           (TslSnapshot             *snapshot,
                                                 const TslRenderOptions  *options,
                                                 TslExportFormat          format,
                                                 GFile                   *file,
                                                 GCancellable            *cancellable,
                                                 GError                 **error);
/* PNG, SVG or PDF of a flame graph, by the flame view's painter. */
gboolean          tsl_export_flame              (TslFlame                    *flame,
                                                 const TslFlameRenderOptions *options,
                                                 TslExportFormat              format,
                                                 GFile                       *file,
                                                 GCancellable                *cancellable,
                                                 GError                     **error);
/* track,index,time_s,weight,value,label — one row per kept sample. Reads the
 * trace without locking it: hold tsl_trace_lock() around the call while
 * another thread may feed the trace (the window's loader). */
gboolean          tsl_export_write_samples      (TslTrace                *trace,
                                                 GOutputStream           *out,
                                                 GCancellable            *cancellable,
                                                 GError                 **error);
/* track,depth,start_s,end_s,name,exact,open — one row per slice that the
 * timeline draws for the view [start, end) (from the trace start) on the
 * thread and async tracks whose name matches the glob `tracks` (NULL: all);
 * `open`: a span the file never closed, ending at the trace's end. */
gboolean          tsl_export_write_view         (TslSnapshot             *snapshot,
                                                 gint64                   view_start_ns,
                                                 gint64                   view_end_ns,
                                                 const char              *tracks,
                                                 GOutputStream           *out,
                                                 GCancellable            *cancellable,
                                                 GError                 **error);
/* from_track,from_depth,from_name,from_s,to_track,to_depth,to_name,to_s —
 * one row per flow arrow of the exact view (tsl_snapshot_get_flows()) that
 * the view [start, end) reaches, one of whose tracks matches `tracks`. */
gboolean          tsl_export_write_flows        (TslSnapshot             *snapshot,
                                                 gint64                   view_start_ns,
                                                 gint64                   view_end_ns,
                                                 const char              *tracks,
                                                 GOutputStream           *out,
                                                 GCancellable            *cancellable,
                                                 GError                 **error);
/* Atomically writes `contents` to `file`. */
gboolean          tsl_export_replace_contents   (GFile                   *file,
                                                 const char              *contents,
                                                 gsize                    length,
                                                 GCancellable            *cancellable,
                                                 GError                 **error);

G_END_DECLS
