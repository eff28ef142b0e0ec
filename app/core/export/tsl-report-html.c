/* tsl-report-html.c: the report as one self-contained HTML file
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Pictures are cairo SVG written into the page itself; there are no
 * scripts, no links and no external resources, so the file reads offline
 * and prints as it shows.
 */
#define G_LOG_DOMAIN "tsl-report"

#include "config.h"

#include <string.h>

#include <cairo-svg.h>
#include <glib/gi18n-lib.h>

#include "tsl-export.h"
#include "tsl-report-private.h"

#define TIMELINE_WIDTH 1000.0
#define HISTOGRAM_W    640.0
#define HISTOGRAM_H    170.0
#define INTERVAL_H     80.0

static const char style[] =
  "body{font-family:sans-serif;max-width:1200px;margin:2em auto;color:#1a1a1a}"
  "h1{font-size:1.5em}h2{font-size:1.2em;margin-top:1.5em}"
  "table{border-collapse:collapse;font-size:.8em}"
  "td,th{padding:2px 8px;text-align:left;border-bottom:1px solid #ddd}"
  "td.series{overflow-wrap:anywhere;min-width:12em}td.num{white-space:nowrap;text-align:right;font-variant-numeric:tabular-nums}td.ci{white-space:normal}"
  "tr.significant td{font-weight:bold}tr.first-rest td{border-top:2px solid #999}"
  "dl{display:grid;grid-template-columns:9em auto;gap:2px 12px;font-size:.9em}"
  "dt{font-weight:bold}dd{margin:0;word-break:break-all}"
  "svg{max-width:100%;height:auto}p.note{color:#555;font-size:.9em}"
  "@media print{body{margin:0}figure{break-inside:avoid}}";

static cairo_status_t
append_to_string (void                *closure,
                  const unsigned char *data,
                  unsigned int         length)
{
  g_string_append_len (closure, (const char *) data, length);
  return CAIRO_STATUS_SUCCESS;
}

typedef void (*DrawFunc) (cairo_t *cr, gconstpointer data, double width, double height);

/* Appends an inline <svg> drawn by `draw`. cairo names its glyphs and clips
 * "glyph0-1", "clip1" in every SVG: `prefix` keeps those of two pictures in
 * one page apart. */
static void
append_svg (GString       *html,
            const char    *prefix,
            DrawFunc       draw,
            gconstpointer  data,
            double         width,
            double         height)
{
  g_autoptr(GString) svg = g_string_new (NULL);
  g_autofree char *id = g_strdup_printf ("id=\"%s-", prefix);
  g_autofree char *href = g_strdup_printf ("href=\"#%s-", prefix);
  g_autofree char *url = g_strdup_printf ("url(#%s-", prefix);
  cairo_surface_t *surface = cairo_svg_surface_create_for_stream (append_to_string, svg, width, height);
  cairo_t *cr = cairo_create (surface);
  const char *start;

  draw (cr, data, width, height);
  cairo_destroy (cr);
  cairo_surface_finish (surface);
  cairo_surface_destroy (surface);

  g_string_replace (svg, "id=\"", id, 0);
  g_string_replace (svg, "href=\"#", href, 0);
  g_string_replace (svg, "url(#", url, 0);
  /* Inline SVG takes no XML declaration. */
  start = strstr (svg->str, "<svg");
  g_string_append (html, start != NULL ? start : "");
}

static void
draw_timeline (cairo_t       *cr,
               gconstpointer  data,
               double         width,
               double         height)
{
  const TslReport *r = data;
  TslRenderOptions options = *r->timeline;

  options.width = width;
  options.height = height;
  options.scroll_y = 0;
  tsl_render_paint (cr, r->snapshot, &options);
}

static void
draw_plot (cairo_t       *cr,
           gconstpointer  data,
           double         width,
           double         height)
{
  _tsl_report_paint_plot (cr, data, width, height);
}

/* before, `text` escaped, after */
static void
draw_flame (cairo_t       *cr,
            gconstpointer  data,
            double         width,
            double         height)
{
  const TslReport *r = data;
  TslFlameRenderOptions options;

  if (_tsl_report_flame_options (r, width, &options))
    tsl_render_flame_paint (cr, r->flame, &options);
}

static void
append_text (GString    *html,
             const char *before,
             const char *text,
             const char *after)
{
  g_autofree char *escaped = g_markup_escape_text (text, -1);

  g_string_append (html, before);
  g_string_append (html, escaped);
  g_string_append (html, after);
}

static void
append_table (GString                *html,
              const TslReportContent *c)
{
  g_string_append (html, "<table>\n<thead><tr>");
  for (guint col = 0; col < TSL_REPORT_N_COLS; col++)
    append_text (html, "<th>", c->headings[col], "</th>");
  g_string_append (html, "</tr></thead>\n<tbody>\n");
  for (guint i = 0; i < c->lines->len; i++)
    {
      const TslReportLine *line = g_ptr_array_index (c->lines, i);

      g_string_append_printf (html, "<tr class=\"%s%s\">",
                              line->row->significant ? "significant" : "rest",
                              i == c->n_significant_shown && i > 0 ? " first-rest" : "");
      for (guint col = 0; col < TSL_REPORT_N_COLS; col++)
        {
          /* Long names wrap; the title holds the whole name wherever a reader cuts it. */
          g_autofree char *title = g_markup_escape_text (line->cells[col], -1);
          g_autofree char *series = g_strdup_printf ("<td class=\"series\" title=\"%s\">", title);

          append_text (html, col == TSL_REPORT_COL_SERIES ? series
                             : col == TSL_REPORT_COL_CI ? "<td class=\"num ci\">"
                             : col >= TSL_REPORT_COL_A ? "<td class=\"num\">" : "<td>",
                       line->cells[col], "</td>");
        }
      g_string_append (html, "</tr>\n");
    }
  g_string_append (html, "</tbody>\n</table>\n");
}

gboolean
_tsl_report_write_html (const TslReport        *r,
                        const TslReportContent *c,
                        GFile                  *file,
                        GCancellable           *cancellable,
                        GError                **error)
{
  g_autoptr(GString) html = g_string_new ("<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n");
  TslRenderOptions options = *r->timeline;

  append_text (html, "<title>", c->title, "</title>\n");
  g_string_append_printf (html, "<style>%s</style>\n</head>\n<body>\n", style);
  append_text (html, "<h1>", c->title, "</h1>\n<dl>\n");
  for (guint i = 0; i < c->facts->len; i++)
    {
      const TslReportFact *fact = g_ptr_array_index (c->facts, i);
      g_autofree char *label = g_markup_escape_text (fact->label, -1);

      g_string_append_printf (html, "<dt>%s</dt>", label);
      append_text (html, "<dd>", fact->value, "</dd>\n");
    }
  g_string_append (html, "</dl>\n");

  if (c->ranges_note != NULL)
    {
      append_text (html, "<h2>", _("Change points"), "</h2>\n");
      append_text (html, "<p class=\"changes\">", c->ranges_note, "</p>\n");
      if (c->changes->len > 0)
        {
          g_string_append (html, "<ol class=\"changes\">\n");
          for (guint i = 0; i < c->changes->len; i++)
            append_text (html, "<li>", g_ptr_array_index (c->changes, i), "</li>\n");
          g_string_append (html, "</ol>\n");
        }
    }
  append_text (html, "<h2>", _("Largest significant changes"), "</h2>\n");
  append_text (html, "<p class=\"summary\">", c->summary, "</p>\n<ol class=\"first\">\n");
  for (guint i = 0; i < c->n_first; i++)
    append_text (html, "<li>", ((const TslReportLine *) g_ptr_array_index (c->lines, i))->sentence, "</li>\n");
  g_string_append (html, "</ol>\n");

  append_text (html, "<h2>", _("Timeline"), "</h2>\n<figure>");
  options.width = TIMELINE_WIDTH;
  options.height = tsl_export_natural_height (r->snapshot, &options);
  append_svg (html, "timeline", draw_timeline, r, options.width, options.height);
  g_string_append (html, "</figure>\n");

  append_text (html, "<h2>", _("What changed"), "</h2>\n");
  append_text (html, "<p class=\"summary\">", c->summary, "</p>\n");
  append_table (html, c);

  if (c->n_significant_shown > 0)
    append_text (html, "<h2>", _("Significant changes"), "</h2>\n");
  for (guint i = 0; i < c->n_significant_shown; i++)
    {
      const TslReportLine *line = g_ptr_array_index (c->lines, i);
      g_autofree char *prefix = g_strdup_printf ("h%u", i);
      TslReportPlot kind = _tsl_report_plot_kind (line->row);

      append_text (html, "<figure>\n<p class=\"sentence\">", line->sentence, "</p>\n");
      if (kind == TSL_REPORT_PLOT_NONE)
        {
          g_autofree char *why = _tsl_report_plot_sentence (line->row);

          append_text (html, "<p class=\"note\">", why, "</p>\n");
        }
      else
        append_svg (html, prefix, draw_plot, line->row, HISTOGRAM_W,
                    kind == TSL_REPORT_PLOT_DISTRIBUTION ? HISTOGRAM_H : INTERVAL_H);
      g_string_append (html, "</figure>\n");
    }

  {
    TslFlameRenderOptions flame;

    if (_tsl_report_flame_options (r, TIMELINE_WIDTH, &flame))
      {
        append_text (html, "<h2>", flame.title, "</h2>\n");
        /* As text too: the drawing's words are glyphs in SVG. */
        append_text (html, "<p class=\"note\">", flame.subtitle, "</p>\n<figure>");
        append_svg (html, "flame", draw_flame, r, flame.width, flame.height);
        g_string_append (html, "</figure>\n");
      }
  }

  append_text (html, "<h2>", _("Warnings"), "</h2>\n<ul class=\"warnings\">\n");
  if (r->warnings == NULL || r->warnings[0] == NULL)
    append_text (html, "<li>", _("The read gave no warnings."), "</li>\n");
  for (guint i = 0; r->warnings != NULL && r->warnings[i] != NULL; i++)
    append_text (html, "<li>", r->warnings[i], "</li>\n");
  g_string_append (html, "</ul>\n</body>\n</html>\n");

  return tsl_export_replace_contents (file, html->str, html->len, cancellable, error);
}
