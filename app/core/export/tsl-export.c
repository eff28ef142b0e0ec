/* tsl-export.c: reports — the timeline as PNG/SVG/PDF, the samples as CSV
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "tsl-export"

#include "config.h"

#include <string.h>

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <glib/gi18n-lib.h>

#include "tsl-atomic-output-stream.h"
#include "tsl-csv-writer.h"
#include "tsl-export-private.h"
#include "tsl-time-math.h"

#define NOTE_HEIGHT TSL_EXPORT_NOTE_HEIGHT

gboolean
tsl_export_format_from_name (const char       *name,
                             TslExportFormat  *format,
                             GError          **error)
{
  static const struct { const char *ext; TslExportFormat format; } exts[] = {
    { ".png", TSL_EXPORT_PNG }, { ".svg", TSL_EXPORT_SVG },
    { ".pdf", TSL_EXPORT_PDF }, { ".csv", TSL_EXPORT_CSV },
  };
  g_autofree char *lower = g_ascii_strdown (name, -1);

  for (guint i = 0; i < G_N_ELEMENTS (exts); i++)
    {
      if (g_str_has_suffix (lower, exts[i].ext))
        {
          *format = exts[i].format;
          return TRUE;
        }
    }

  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
               _("%s: unknown report type (expected a name ending in .png, .svg, .pdf or .csv)"), name);
  return FALSE;
}

double
tsl_export_natural_height (TslSnapshot            *snapshot,
                           const TslRenderOptions *options)
{
  return tsl_render_header_height (options) + tsl_render_content_height (snapshot, options)
         + (options->draw_note ? NOTE_HEIGHT : 0) + 8;
}

/* cairo reports only CAIRO_STATUS_WRITE_ERROR; the sink keeps the stream's
 * own error ("No space left on device") for the message. */
typedef struct {
  GOutputStream *out;
  GError        *error;
} Sink;

static cairo_status_t
write_to_stream (void                *closure,
                 const unsigned char *data,
                 unsigned int         length)
{
  Sink *sink = closure;

  if (sink->error != NULL ||
      !g_output_stream_write_all (sink->out, data, length, NULL, NULL, &sink->error))
    return CAIRO_STATUS_WRITE_ERROR;
  return CAIRO_STATUS_SUCCESS;
}

static gboolean
finish (GOutputStream   *out,
        cairo_status_t   status,
        GFile           *file,
        GCancellable    *cancellable,
        GError         **error)
{
  if (status != CAIRO_STATUS_SUCCESS)
    {
      g_autofree char *name = g_file_get_parse_name (file);

      /* Not closing: the atomic stream discards its temporary on unref. */
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, _("%s: could not write the report: %s"),
                   name, cairo_status_to_string (status));
      return FALSE;
    }

  return g_output_stream_close (out, cancellable, error);
}

gboolean
_tsl_export_picture (TslExportPaintFunc  paint,
                     gconstpointer       data,
                     double              width,
                     double              height,
                     const char         *title,
                     TslExportFormat     format,
                     GFile              *file,
                     GCancellable       *cancellable,
                     GError            **error)
{
  g_autoptr(GOutputStream) out = NULL;
  Sink sink = { NULL, NULL };
  cairo_surface_t *surface;
  cairo_status_t status;
  cairo_t *cr;

  out = tsl_atomic_output_stream_new (file, cancellable, error);
  if (out == NULL)
    return FALSE;
  sink.out = out;

  switch (format)
    {
    case TSL_EXPORT_SVG:
      surface = cairo_svg_surface_create_for_stream (write_to_stream, &sink, width, height);
      break;

    case TSL_EXPORT_PDF:
      surface = cairo_pdf_surface_create_for_stream (write_to_stream, &sink, width, height);
      cairo_pdf_surface_set_metadata (surface, CAIRO_PDF_METADATA_CREATOR, "Timeslice " PACKAGE_VERSION);
      if (title)
        cairo_pdf_surface_set_metadata (surface, CAIRO_PDF_METADATA_TITLE, title);
      break;

    case TSL_EXPORT_PNG:
    case TSL_EXPORT_CSV:
    default:
      surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, (int) width, (int) height);
      break;
    }

  cr = cairo_create (surface);
  paint (cr, data);
  status = cairo_status (cr);
  cairo_destroy (cr);

  if (status == CAIRO_STATUS_SUCCESS && format == TSL_EXPORT_PNG)
    status = cairo_surface_write_to_png_stream (surface, write_to_stream, &sink);

  cairo_surface_finish (surface);
  if (status == CAIRO_STATUS_SUCCESS)
    status = cairo_surface_status (surface);
  cairo_surface_destroy (surface);

  /* cairo 1.16's PDF surface loses its stream's write error on finish and
   * reports success: the sink's own error is the one to trust. */
  if (sink.error != NULL)
    {
      /* Not closing: the atomic stream discards its temporary on unref.
       * Its errors name the file already. */
      g_propagate_error (error, sink.error);
      return FALSE;
    }

  return finish (out, status, file, cancellable, error);
}

typedef struct {
  TslSnapshot            *snapshot;
  const TslRenderOptions *options;
} TimelinePaint;

static void
paint_timeline (cairo_t       *cr,
                gconstpointer  data)
{
  const TimelinePaint *p = data;

  tsl_render_paint (cr, p->snapshot, p->options);
}

static void
paint_timeline_pages (cairo_t       *cr,
                      gconstpointer  data)
{
  const TimelinePaint *p = data;
  double w, h;

  tsl_export_paper_size (&w, &h);
  _tsl_export_paint_pages (cr, p->snapshot, p->options, w, h);
}

gboolean
tsl_export_timeline (TslSnapshot             *snapshot,
                     const TslRenderOptions  *options,
                     TslExportFormat          format,
                     GFile                   *file,
                     GCancellable            *cancellable,
                     GError                 **error)
{
  TimelinePaint p = { snapshot, options };

  g_return_val_if_fail (options != NULL, FALSE);
  g_return_val_if_fail (G_IS_FILE (file), FALSE);
  g_return_val_if_fail (format != TSL_EXPORT_CSV, FALSE);

  if (format == TSL_EXPORT_PDF)
    {
      double w, h;

      tsl_export_paper_size (&w, &h);
      return _tsl_export_picture (paint_timeline_pages, &p, w, h, options->title,
                                  format, file, cancellable, error);
    }
  return _tsl_export_picture (paint_timeline, &p, options->width, options->height, options->title,
                              format, file, cancellable, error);
}

typedef struct {
  TslFlame                    *flame;
  const TslFlameRenderOptions *options;
} FlamePaint;

static void
paint_flame (cairo_t       *cr,
             gconstpointer  data)
{
  const FlamePaint *p = data;

  tsl_render_flame_paint (cr, p->flame, p->options);
}

gboolean
tsl_export_flame (TslFlame                    *flame,
                  const TslFlameRenderOptions *options,
                  TslExportFormat              format,
                  GFile                       *file,
                  GCancellable                *cancellable,
                  GError                     **error)
{
  FlamePaint p = { flame, options };

  g_return_val_if_fail (options != NULL, FALSE);
  g_return_val_if_fail (G_IS_FILE (file), FALSE);
  g_return_val_if_fail (format != TSL_EXPORT_CSV, FALSE);

  return _tsl_export_picture (paint_flame, &p, options->width, options->height, options->title,
                              format, file, cancellable, error);
}

gboolean
tsl_export_write_samples (TslTrace       *trace,
                          GOutputStream  *out,
                          GCancellable   *cancellable,
                          GError        **error)
{
  g_autoptr(GString) buf = g_string_new ("track,index,time_s,weight,value,label\n");
  gboolean has_time = tsl_trace_get_has_time (trace);
  gint64 start_ns = 0;

  tsl_trace_get_span (trace, &start_ns, NULL);

  for (guint track = 0; track < tsl_trace_get_n_tracks (trace); track++)
    {
      TslSampler *sampler = tsl_trace_track_get_sampler (trace, track);
      const char *name = tsl_trace_track_get_name (trace, track);
      const TslSample *samples;
      guint n_samples;

      samples = tsl_sampler_peek_samples (sampler, &n_samples);
      for (guint i = 0; i < n_samples; i++)
        {
          const TslSample *s = &samples[i];
          g_autofree char *time_s = NULL;
          g_autofree char *value = tsl_csv_format_double (s->value);

          /* Formats without a time axis leave time_s empty. */
          if (has_time)
            time_s = tsl_csv_format_double (tsl_time_seconds_between (start_ns, s->time_ns));

          tsl_csv_append_field (buf, name);
          g_string_append_printf (buf, ",%" G_GUINT64_FORMAT ",%s,%" G_GUINT64_FORMAT ",%s,",
                                  s->index, time_s != NULL ? time_s : "",
                                  s->summary.count, value);
          tsl_csv_append_field (buf, tsl_trace_lookup (trace, s->label));
          g_string_append_c (buf, '\n');

          if (buf->len >= 64 * 1024)
            {
              if (!g_output_stream_write_all (out, buf->str, buf->len, NULL, cancellable, error))
                return FALSE;
              g_string_truncate (buf, 0);
            }
        }
    }

  return g_output_stream_write_all (out, buf->str, buf->len, NULL, cancellable, error);
}

gboolean
tsl_export_replace_contents (GFile         *file,
                             const char    *contents,
                             gsize          length,
                             GCancellable  *cancellable,
                             GError       **error)
{
  g_autoptr(GOutputStream) out = tsl_atomic_output_stream_new (file, cancellable, error);

  if (out == NULL ||
      !g_output_stream_write_all (out, contents, length, NULL, cancellable, error))
    return FALSE;

  return g_output_stream_close (out, cancellable, error);
}
