/* tsl-render-flame.c: the cairo painter of flame graphs
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Frames narrower than half a pixel are skipped with their subtrees (their
 * children are narrower still), so a big profile costs what is visible.
 * Colours: range trees reuse the timeline's per-name colours; differential
 * trees mix a hue into grey by the size of the change, up to CHANGE_FULL,
 * saturated only when significant.
 */
#define G_LOG_DOMAIN "tsl-render"

#include "config.h"

#include <math.h>
#include <string.h>

#include "tsl-range.h"
#include "tsl-render-flame.h"
#include "tsl-render-private.h"
#include "tsl-render.h"

#define TITLE_HEIGHT    34
#define SUBTITLE_HEIGHT 20
#define BAR_HEIGHT      26
#define LEGEND_HEIGHT   24
#define FOOTER_HEIGHT   24
#define ROW             TSL_RENDER_FLAME_ROW_HEIGHT
#define MARGIN          10
#define MIN_LABEL_WIDTH 28
#define CHANGE_FULL     1.0   /* |log2 (B / A)| at which the hue is full: 2× */

static const Rgb grew = { 0.878, 0.106, 0.141 };
static const Rgb shrank = { 0.110, 0.443, 0.847 };
static const Rgb match = { 0.757, 0.157, 0.773 };

static void
set_source (cairo_t   *cr,
            const Rgb *c,
            double     alpha)
{
  cairo_set_source_rgba (cr, c->r, c->g, c->b, alpha);
}

void
tsl_render_flame_options_init (TslFlameRenderOptions *options,
                               double                 width,
                               double                 height)
{
  memset (options, 0, sizeof *options);
  options->width = width;
  options->height = height;
}

/* Exports (with a title) show the bar only when it says something. */
static gboolean
has_bar (const TslFlameRenderOptions *o)
{
  return o->title == NULL || o->zoom != NULL || (o->highlight != NULL && *o->highlight != '\0');
}

static double
header_height (TslFlame                    *flame,
               const TslFlameRenderOptions *o)
{
  double h = has_bar (o) ? BAR_HEIGHT : 0;

  if (o->title)
    h += TITLE_HEIGHT;
  if (o->subtitle)
    h += SUBTITLE_HEIGHT;
  if (o->legend && flame != NULL && tsl_flame_is_diff (flame))
    h += LEGEND_HEIGHT;
  return h;
}

double
tsl_render_flame_natural_height (TslFlame                    *flame,
                                 const TslFlameRenderOptions *o)
{
  guint levels = flame ? tsl_flame_get_max_depth (flame) + 1 : 1;

  return header_height (flame, o) + levels * ROW + 2 * MARGIN + FOOTER_HEIGHT;
}

static const TslFlameNode *
zoom_of (TslFlame                    *flame,
         const TslFlameRenderOptions *o)
{
  return o->zoom != NULL ? o->zoom : tsl_flame_get_root (flame);
}

/* Top of the row of `depth`. */
static double
row_y (TslFlame                    *flame,
       const TslFlameRenderOptions *o,
       guint                        depth)
{
  double top = header_height (flame, o) + MARGIN;
  double bottom = o->height - FOOTER_HEIGHT - MARGIN;

  if (o->icicle)
    return top + depth * ROW;
  return bottom - (depth + 1) * ROW;
}

static void
node_span (const TslFlameNode          *node,
           const TslFlameNode          *zoom,
           const TslFlameRenderOptions *o,
           double                      *x0,
           double                      *x1)
{
  double plot = o->width - 2 * MARGIN;

  /* Ancestors of the zoomed frame span the width, as flamegraph.pl's zoom. */
  if (node->depth <= zoom->depth || zoom->width <= 0)
    {
      *x0 = MARGIN;
      *x1 = MARGIN + plot;
      return;
    }
  *x0 = MARGIN + (node->x - zoom->x) / zoom->width * plot;
  *x1 = MARGIN + (node->x + node->width - zoom->x) / zoom->width * plot;
}

static void
mix (const Rgb *a,
     const Rgb *b,
     double     t,
     double    *rgb)
{
  rgb[0] = a->r + (b->r - a->r) * t;
  rgb[1] = a->g + (b->g - a->g) * t;
  rgb[2] = a->b + (b->b - a->b) * t;
}

void
tsl_render_flame_diff_color (const TslFlameDiff *d,
                             gboolean            dark,
                             double             *rgb)
{
  Rgb grey = dark ? (Rgb) { 0.36, 0.36, 0.38 } : (Rgb) { 0.84, 0.84, 0.85 };
  double magnitude, t;

  if (d == NULL || isnan (d->change) || d->change == 0)
    {
      mix (&grey, &grey, 0, rgb);
      return;
    }

  magnitude = MIN (fabs (log2 (MAX (1 + d->change, 1e-9))) / CHANGE_FULL, 1);
  /* Pale however large when not significant: the eye should not chase noise. */
  t = d->significant ? 0.55 + 0.45 * magnitude : 0.08 + 0.14 * magnitude;
  mix (&grey, d->change > 0 ? &grew : &shrank, t, rgb);
}

static void
node_color (TslFlame                    *flame,
            const TslFlameNode          *node,
            const TslFlameRenderOptions *o,
            double                      *rgb)
{
  if (node->parent == NULL || node->is_thread)
    {
      double v = o->dark ? 0.32 : 0.80;

      rgb[0] = rgb[1] = v;
      rgb[2] = v + 0.02;
      return;
    }
  if (tsl_flame_is_diff (flame))
    tsl_render_flame_diff_color (node->diff, o->dark, rgb);
  else
    tsl_render_name_color (node->name, o->dark, rgb);
}

static char *
change_label (const TslFlameDiff *d)
{
  if (isinf (d->change))
    return g_strdup (d->change > 0 ? "new" : "gone");
  return g_strdup_printf ("%+.0f%%", d->change * 100);
}

typedef struct {
  cairo_t                     *cr;
  TslFlame                    *flame;
  const TslFlameRenderOptions *o;
  const TslFlameNode          *zoom;
  gboolean                     searching;
  gboolean                     diff;
} Paint;

static void
draw_node (Paint              *p,
           const TslFlameNode *node,
           gboolean            ancestor)
{
  cairo_t *cr = p->cr;
  double x0, x1, y, w, rgb[3], alpha = 1, text_x;
  gboolean hit = p->searching && tsl_flame_name_matches (node->name, p->o->highlight);
  gboolean marked = p->diff && node->diff != NULL && node->diff->significant && node->parent != NULL;

  node_span (node, p->zoom, p->o, &x0, &x1);
  w = x1 - x0;
  if (w < 0.5)
    return;

  y = row_y (p->flame, p->o, node->depth);
  node_color (p->flame, node, p->o, rgb);
  if (hit)
    mix (&match, &match, 0, rgb);
  else if (p->searching || ancestor)
    alpha = 0.45;

  cairo_set_source_rgba (cr, rgb[0], rgb[1], rgb[2], alpha);
  cairo_rectangle (cr, x0, y, MAX (w - (w > 3 ? 1 : 0), 0.5), ROW - 1);
  cairo_fill (cr);

  text_x = x0 + 4;
  if (marked && w > 8)
    {
      const Rgb *hue = node->diff->change > 0 ? &grew : &shrank;

      /* Outline and dot: significance must read without colour vision. */
      cairo_set_source_rgba (cr, hue->r * 0.6, hue->g * 0.6, hue->b * 0.6, alpha);
      cairo_set_line_width (cr, 1.5);
      cairo_rectangle (cr, x0 + 0.75, y + 0.75, MAX (w - (w > 3 ? 1 : 0) - 1.5, 0.5), ROW - 2.5);
      cairo_stroke (cr);
      if (w > 14)
        {
          cairo_set_source_rgba (cr, 1, 1, 1, alpha);
          cairo_arc (cr, x0 + 7, y + ROW / 2.0 - 0.5, 3, 0, 2 * G_PI);
          cairo_fill_preserve (cr);
          cairo_set_source_rgba (cr, 0.1, 0.1, 0.12, alpha);
          cairo_set_line_width (cr, 1);
          cairo_stroke (cr);
          text_x = x0 + 13;
        }
    }

  if (x1 - text_x > MIN_LABEL_WIDTH)
    {
      double lum = 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2];
      g_autofree char *label = NULL;

      if (node->parent == NULL)
        label = g_strdup_printf ("all · %.1f%%", 100 * tsl_flame_node_share (p->zoom));
      else if (marked && x1 - text_x > 110)
        {
          g_autofree char *change = change_label (node->diff);
          label = g_strdup_printf ("%s  %s", node->name, change);
        }

      if (lum < 0.45 && alpha == 1)
        cairo_set_source_rgb (cr, 1, 1, 1);
      else
        cairo_set_source_rgba (cr, 0.08, 0.08, 0.1, alpha == 1 ? 0.92 : 0.6);
      _tsl_render_show_text (cr, text_x, y + ROW - 5, x1 - text_x - 4, label ? label : node->name);
    }
}

static void
draw_subtree (Paint              *p,
              const TslFlameNode *node)
{
  double x0, x1;

  node_span (node, p->zoom, p->o, &x0, &x1);
  if (x1 - x0 < 0.5 || x1 < 0 || x0 > p->o->width)
    return;

  draw_node (p, node, FALSE);
  for (guint i = 0; i < node->n_children; i++)
    draw_subtree (p, node->children[i]);
}

static void
draw_breadcrumb (Paint                *p,
                 const TslRenderTheme *theme,
                 double                top)
{
  cairo_t *cr = p->cr;
  g_autofree char *path = tsl_flame_node_get_path (p->zoom, " › ");
  g_autofree char *crumb = NULL;
  g_autofree char *right = NULL;
  cairo_text_extents_t ext = { 0 };

  if (p->searching)
    right = g_strdup_printf ("Matched “%s”: %.1f%%", p->o->highlight,
                             100 * tsl_flame_search_share (p->flame, p->o->highlight));

  crumb = p->zoom->parent == NULL
    ? g_strdup ("all")
    : g_strdup_printf ("all › %s   (%.1f%% of all)", path, 100 * tsl_flame_node_share (p->zoom));

  set_source (cr, &theme->gutter, 1);
  cairo_rectangle (cr, 0, top, p->o->width, BAR_HEIGHT);
  cairo_fill (cr);

  cairo_set_font_size (cr, 11.5);
  if (right != NULL)
    {
      cairo_text_extents (cr, right, &ext);
      set_source (cr, &match, 1);
      _tsl_render_show_text (cr, p->o->width - MARGIN - ext.x_advance, top + 17, p->o->width / 2, right);
    }
  set_source (cr, &theme->fg, 0.9);
  _tsl_render_show_text (cr, MARGIN, top + 17, p->o->width - 3 * MARGIN - ext.x_advance, crumb);
}

static void
legend_swatch (cairo_t    *cr,
               double     *x,
               double      y,
               const double *rgb,
               gboolean    marked,
               const char *text,
               const Rgb  *fg)
{
  cairo_text_extents_t ext;

  cairo_set_source_rgb (cr, rgb[0], rgb[1], rgb[2]);
  cairo_rectangle (cr, *x, y - 10, 22, 13);
  cairo_fill (cr);
  if (marked)
    {
      cairo_set_source_rgb (cr, 1, 1, 1);
      cairo_arc (cr, *x + 7, y - 3.5, 3, 0, 2 * G_PI);
      cairo_fill_preserve (cr);
      cairo_set_source_rgb (cr, 0.1, 0.1, 0.12);
      cairo_set_line_width (cr, 1);
      cairo_stroke (cr);
    }
  cairo_set_source_rgb (cr, fg->r, fg->g, fg->b);
  cairo_move_to (cr, *x + 28, y);
  cairo_show_text (cr, text);
  cairo_text_extents (cr, text, &ext);
  *x += 28 + ext.x_advance + 18;
}

static void
draw_legend (Paint                *p,
             const TslRenderTheme *theme,
             double                top)
{
  static const struct { double change; gboolean significant; const char *text; } keys[] = {
    { 0.6, TRUE, "grew, significant" }, { 0.6, FALSE, "grew, not significant" },
    { -0.4, TRUE, "shrank, significant" }, { -0.4, FALSE, "shrank, not significant" },
    { 0, FALSE, "unchanged or not tested" },
  };
  double x = MARGIN, y = top + 16;
  g_autofree char *rule = g_strdup_printf ("significant: q < %.2g and the %.0f%% interval of the change excludes 0",
                                           1 - tsl_flame_get_confidence (p->flame),
                                           100 * tsl_flame_get_confidence (p->flame));

  cairo_set_font_size (p->cr, 11);
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      TslFlameDiff d = { 0 };
      double rgb[3];

      d.change = keys[i].change;
      d.significant = keys[i].significant;
      tsl_render_flame_diff_color (&d, p->o->dark, rgb);
      legend_swatch (p->cr, &x, y, rgb, keys[i].significant, keys[i].text, &theme->fg);
    }
  set_source (p->cr, &theme->dim, 1);
  _tsl_render_show_text (p->cr, x, y, p->o->width - x - MARGIN, rule);
}

static char *
footer_text (TslFlame *flame)
{
  gboolean time = tsl_flame_get_weight (flame) == TSL_FLAME_WEIGHT_TIME;
  gboolean cpu = tsl_flame_get_weight (flame) == TSL_FLAME_WEIGHT_CPU;
  GString *text = g_string_new (NULL);

  if (tsl_flame_is_exact (flame))
    g_string_append_printf (text, "%" G_GUINT64_FORMAT " events, every one of the range",
                            tsl_flame_get_events (flame));
  else
    g_string_append_printf (text, "%" G_GUINT64_FORMAT " samples standing for %" G_GUINT64_FORMAT " events",
                            tsl_flame_get_n_samples (flame), tsl_flame_get_events (flame));
  if (tsl_flame_is_diff (flame))
    g_string_append (text, " in B");
  if (cpu)
    g_string_append (text, " · width: share of CPU time in spans (Σ thread times)");
  else if (tsl_flame_is_exact (flame))
    g_string_append (text, time ? " · width: share of time in spans (Σ durations)"
                                : " · width: share of events");
  else
    g_string_append (text, time ? " · width: share of time in spans (count × duration)"
                                : " · width: share of events");
  if (tsl_flame_is_diff (flame))
    {
      g_string_append (text, " · laid out from B, colour: change of share A → B");
      if (tsl_flame_get_n_only_a (flame) > 0)
        g_string_append_printf (text, " · %u call paths only in A not drawn", tsl_flame_get_n_only_a (flame));
    }
  return g_string_free (text, FALSE);
}

void
tsl_render_flame_paint (cairo_t                     *cr,
                        TslFlame                    *flame,
                        const TslFlameRenderOptions *o)
{
  TslRenderTheme theme;
  Paint p = { cr, flame, o, NULL, FALSE, FALSE };
  double top = 0;

  g_return_if_fail (cr != NULL);
  g_return_if_fail (o != NULL);

  _tsl_render_theme_init (&theme, o->dark);
  cairo_save (cr);
  cairo_select_font_face (cr, "Cantarell", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  set_source (cr, &theme.bg, 1);
  cairo_paint (cr);

  if (o->title)
    {
      set_source (cr, &theme.fg, 1);
      cairo_select_font_face (cr, "Cantarell", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
      cairo_set_font_size (cr, 15);
      _tsl_render_show_text (cr, MARGIN + 2, 23, o->width - 2 * MARGIN, o->title);
      cairo_select_font_face (cr, "Cantarell", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
      top += TITLE_HEIGHT;
    }
  if (o->subtitle)
    {
      set_source (cr, &theme.dim, 1);
      cairo_set_font_size (cr, 11.5);
      _tsl_render_show_text (cr, MARGIN + 2, top + 12, o->width - 2 * MARGIN, o->subtitle);
      top += SUBTITLE_HEIGHT;
    }

  if (flame == NULL || tsl_flame_get_root (flame)->total <= 0)
    {
      set_source (cr, &theme.dim, 1);
      cairo_set_font_size (cr, 13);
      _tsl_render_show_text (cr, MARGIN, top + 40, o->width - 2 * MARGIN,
                             o->empty_text ? o->empty_text
                             : flame == NULL ? "No flame graph" : "No stack samples in this range");
      cairo_restore (cr);
      return;
    }

  p.zoom = zoom_of (flame, o);
  p.searching = o->highlight != NULL && *o->highlight != '\0';
  p.diff = tsl_flame_is_diff (flame);

  if (has_bar (o))
    {
      draw_breadcrumb (&p, &theme, top);
      top += BAR_HEIGHT;
    }
  if (o->legend && p.diff)
    {
      draw_legend (&p, &theme, top);
      top += LEGEND_HEIGHT;
    }

  cairo_save (cr);
  cairo_rectangle (cr, 0, top, o->width, o->height - top - FOOTER_HEIGHT);
  cairo_clip (cr);
  cairo_set_font_size (cr, 11);
  for (const TslFlameNode *a = p.zoom->parent; a != NULL; a = a->parent)
    draw_node (&p, a, TRUE);
  draw_subtree (&p, p.zoom);
  cairo_restore (cr);

  {
    g_autofree char *footer = footer_text (flame);

    set_source (cr, &theme.gutter, 1);
    cairo_rectangle (cr, 0, o->height - FOOTER_HEIGHT, o->width, FOOTER_HEIGHT);
    cairo_fill (cr);
    set_source (cr, &theme.dim, 1);
    cairo_set_font_size (cr, 10.5);
    _tsl_render_show_text (cr, MARGIN, o->height - 8, o->width - 2 * MARGIN, footer);
  }

  cairo_restore (cr);
}

const TslFlameNode *
tsl_render_flame_hit_test (TslFlame                    *flame,
                           const TslFlameRenderOptions *o,
                           double                       x,
                           double                       y)
{
  const TslFlameNode *zoom, *node;
  double y0, x0, x1;
  guint depth;

  if (flame == NULL || tsl_flame_get_root (flame)->total <= 0 ||
      x < MARGIN || x >= o->width - MARGIN)
    return NULL;

  y0 = row_y (flame, o, 0);
  if (o->icicle)
    {
      if (y < y0)
        return NULL;
      depth = (guint) ((y - y0) / ROW);
    }
  else
    {
      if (y >= y0 + ROW)
        return NULL;
      depth = (guint) ((y0 + ROW - y) / ROW);
    }
  if (depth > tsl_flame_get_max_depth (flame) || y < header_height (flame, o) || y >= o->height - FOOTER_HEIGHT)
    return NULL;

  zoom = zoom_of (flame, o);
  if (depth <= zoom->depth)
    {
      for (node = zoom; node->depth > depth; node = node->parent)
        ;
      return node;
    }

  node = zoom;
  while (node->depth < depth)
    {
      const TslFlameNode *next = NULL;

      for (guint i = 0; i < node->n_children && next == NULL; i++)
        {
          node_span (node->children[i], zoom, o, &x0, &x1);
          if (x >= x0 && x < x1)
            next = node->children[i];
        }
      if (next == NULL)
        return NULL;
      node = next;
    }
  return node;
}

static char *
format_weight (TslFlame *flame,
               double    weight)
{
  if (tsl_flame_get_weight (flame) != TSL_FLAME_WEIGHT_SAMPLES)
    return tsl_duration_format (weight);
  return g_strdup_printf ("%.0f events", weight);
}

char *
tsl_render_flame_describe (TslFlame           *flame,
                           const TslFlameNode *node,
                           gboolean            markup)
{
  g_autofree char *path = tsl_flame_node_get_path (node, " › ");
  g_autofree char *name = markup ? g_markup_escape_text (node->name, -1) : g_strdup (node->name);
  g_autofree char *total = format_weight (flame, node->total);
  g_autofree char *self = format_weight (flame, node->self);
  const char *of = tsl_flame_get_weight (flame) == TSL_FLAME_WEIGHT_TIME ? "of span time"
                 : tsl_flame_get_weight (flame) == TSL_FLAME_WEIGHT_CPU ? "of CPU time"
                 : "of events";
  GString *text = g_string_new (NULL);

  g_return_val_if_fail (flame != NULL && node != NULL, NULL);

  g_string_append_printf (text, markup ? "<b>%s</b>\n" : "%s\n", name);
  if (node->parent != NULL && node->depth > 1)
    {
      g_autofree char *escaped = markup ? g_markup_escape_text (path, -1) : g_strdup (path);
      g_string_append_printf (text, "%s\n", escaped);
    }

  if (!tsl_flame_is_diff (flame) || node->diff == NULL)
    {
      g_string_append_printf (text, "%.2f%% %s (self %.2f%%) · %s, self %s\n",
                              100 * tsl_flame_node_share (node), of,
                              100 * (node->total > 0 ? node->self / node->total * tsl_flame_node_share (node) : 0),
                              total, self);
      g_string_append_printf (text, "%" G_GUINT64_FORMAT " samples", node->n_samples);
    }
  else
    {
      const TslFlameDiff *d = node->diff;
      g_autofree char *change = change_label (d);

      g_string_append_printf (text, "A %.2f%% → B %.2f%% %s · change %s", 100 * d->a_share,
                              100 * d->b_share, of, change);
      if (d->tested)
        {
          /* An unbounded end (Fieller's interval, A not told from 0): +∞. */
          g_autofree char *high = isinf (d->ci_high) ? g_strdup ("+∞") : g_strdup_printf ("%+.0f%%", 100 * d->ci_high);

          g_string_append_printf (text, " [%+.0f%%, %s%s\nq = %.3g · %s", 100 * d->ci_low, high,
                                  isinf (d->ci_high) ? ")" : "]", d->q_value,
                                  d->significant ? "significant" : "not significant");
        }
      else
        g_string_append (text, "\nnot tested (under 0.5% of both ranges)");
      g_string_append_printf (text, "\n%" G_GUINT64_FORMAT " samples in B", node->n_samples);
    }

  return g_string_free (text, FALSE);
}
