/* tsl-render.c: the timeline painter: groups, tracks, title and ruler; then ranges and crosshair; then the note
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "tsl-render"

#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "tsl-duration.h"
#include "tsl-render.h"
#include "tsl-render-private.h"
#include "tsl-time-math.h"

/* GNOME palette (blue, green, yellow, orange, red, purple, brown) */
static const Rgb palette[] = {
  { 0.384, 0.627, 0.918 }, { 0.341, 0.890, 0.537 }, { 0.973, 0.894, 0.361 },
  { 1.000, 0.639, 0.282 }, { 0.929, 0.200, 0.231 }, { 0.753, 0.380, 0.796 },
  { 0.710, 0.514, 0.353 }, { 0.208, 0.518, 0.894 }, { 0.200, 0.820, 0.478 },
  { 0.965, 0.827, 0.176 }, { 1.000, 0.471, 0.000 }, { 0.569, 0.255, 0.675 },
};

static const Rgb color_a = { 0.208, 0.518, 0.894 };
static const Rgb color_b = { 1.000, 0.471, 0.000 };

void
_tsl_render_theme_init (TslRenderTheme *theme,
                        gboolean        dark)
{
  if (dark)
    *theme = (TslRenderTheme) {
      .bg = { 0.141, 0.141, 0.141 }, .fg = { 1, 1, 1 }, .dim = { 0.6, 0.6, 0.6 },
      .grid = { 0.25, 0.25, 0.25 }, .gutter = { 0.188, 0.188, 0.188 }, .group = { 0.22, 0.22, 0.22 },
    };
  else
    *theme = (TslRenderTheme) {
      .bg = { 1, 1, 1 }, .fg = { 0.14, 0.12, 0.19 }, .dim = { 0.4, 0.4, 0.43 },
      .grid = { 0.9, 0.9, 0.9 }, .gutter = { 0.98, 0.98, 0.98 }, .group = { 0.93, 0.93, 0.94 },
    };
}

void
tsl_render_name_color (const char *name,
                       gboolean    dark,
                       double     *rgb)
{
  guint h = g_str_hash (name ? name : "");
  const Rgb *c = &palette[h % G_N_ELEMENTS (palette)];
  /* A little lightness jitter so neighbours with the same hue stay apart. */
  double shade = 0.78 + 0.22 * ((h >> 8) % 16) / 15.0;

  if (dark)
    shade *= 0.8;

  rgb[0] = c->r * shade;
  rgb[1] = c->g * shade;
  rgb[2] = c->b * shade;
}

/* Where group `pid`'s header and tracks lie on screen (below `top`). */
static gboolean
group_extent (TslSnapshot            *snapshot,
              const TslRenderOptions *o,
              gint64                  pid,
              double                  top,
              double                 *y0,
              double                 *y1)
{
  double h = 0;
  gboolean found = FALSE;

  for (guint i = 0; i < tsl_snapshot_get_n_tracks (snapshot); i++)
    {
      const TslSnapshotTrack *track = tsl_snapshot_get_track (snapshot, i);

      if (_tsl_render_starts_group (snapshot, i))
        {
          if (track->pid == pid)
            {
              *y0 = top + h - o->scroll_y;
              found = TRUE;
            }
          h += TSL_RENDER_GROUP_HEIGHT;
        }
      if (!_tsl_render_is_collapsed (o, track->pid))
        h += _tsl_render_height_of (o, track);
      if (track->pid == pid)
        *y1 = top + h - o->scroll_y;
    }
  if (found)
    {
      *y0 = MAX (*y0, top);
      *y1 = MIN (*y1, o->height);
    }
  return found && *y1 > *y0;
}

/* Returns the right edge of the range's tab; the tab starts at tab_min
 * when that lies inside the range (B's beside A's where both start at
 * one time, as two merged files' ranges do). */
static double
draw_range (cairo_t                *cr,
            TslSnapshot            *snapshot,
            const TslRenderOptions *o,
            const TslRenderTheme   *theme,
            const Rgb              *color,
            const char             *name,
            gint64                  start,
            gint64                  end,
            gint64                  group,
            double                  top,
            double                  tab_min)
{
  double band0 = top, band1 = o->height;
  double x0 = MAX (tsl_render_time_to_x (o, (double) start), tsl_render_label_width (o));
  double x1 = MIN (tsl_render_time_to_x (o, (double) end), o->width);
  g_autofree char *s = tsl_duration_format ((double) start);
  g_autofree char *e = tsl_duration_format ((double) end);
  g_autofree char *d = tsl_duration_format ((double) tsl_time_sub (end, start));
  g_autofree char *label = g_strdup_printf ("%s  %s – %s  (%s)", name, s, e, d);

  if (x1 <= x0)
    return 0;

  /* A range of one merged file shades that file's group only. */
  if (group != 0 && !group_extent (snapshot, o, group, top, &band0, &band1))
    band0 = band1 = top;

  _tsl_render_set_rgb (cr, color, 0.14);
  cairo_rectangle (cr, x0, band0, x1 - x0, band1 - band0);
  cairo_fill (cr);

  _tsl_render_set_rgb (cr, color, 0.9);
  cairo_rectangle (cr, floor (x0), band0, 1.5, band1 - band0);
  cairo_rectangle (cr, floor (x1) - 1, band0, 1.5, band1 - band0);
  cairo_fill (cr);

  /* Tab with the range's name, times and duration, on the ruler. */
  {
    cairo_text_extents_t ext;
    double tab_w, tab_x;

    cairo_set_font_size (cr, 10.5);
    cairo_text_extents (cr, label, &ext);
    tab_x = tab_min > x0 && tab_min < x1 - 16 ? tab_min : x0;
    tab_w = MIN (ext.x_advance + 10, MAX (x1 - tab_x, 16));
    _tsl_render_set_rgb (cr, color, 0.95);
    cairo_rectangle (cr, tab_x, top - 14, tab_w, 14);
    cairo_fill (cr);
    cairo_set_source_rgb (cr, 1, 1, 1);
    _tsl_render_show_text (cr, tab_x + 4, top - 3.5, tab_w - 6, label);
    (void) theme;
    return tab_x + tab_w;
  }
}

/* Where each track starts on screen (NAN: collapsed), as the painter lays
 * them out: a group header before each group's first track. */
static double *
layout_tops (TslSnapshot            *snapshot,
             const TslRenderOptions *o,
             double                  header)
{
  guint n = tsl_snapshot_get_n_tracks (snapshot);
  double *tops = g_new (double, MAX (n, 1));
  double y = header - o->scroll_y;

  for (guint i = 0; i < n; i++)
    {
      const TslSnapshotTrack *track = tsl_snapshot_get_track (snapshot, i);

      if (_tsl_render_starts_group (snapshot, i))
        y += TSL_RENDER_GROUP_HEIGHT;
      if (_tsl_render_is_collapsed (o, track->pid))
        {
          tops[i] = NAN;
          continue;
        }
      tops[i] = y;
      y += _tsl_render_height_of (o, track);
    }
  return tops;
}

static void paint_note (cairo_t                *cr,
                        TslSnapshot            *snapshot,
                        const TslRenderOptions *o);

/* Everything but ranges A and B and the crosshair, which draw over it. */

/* Tracks of pid 0 with no process name: in a trace of processes (Chrome's
 * global async tracks, Linux's swapper), tracks of no process; in a format
 * without processes, what the file holds. Never the format's code name. */
static const char *
group_of_no_process (TslSnapshot *snapshot)
{
  const char *format = tsl_snapshot_get_format (snapshot);

  if (g_strcmp0 (format, "chrome-json") == 0 || g_strcmp0 (format, "perfetto-proto") == 0 ||
      g_strcmp0 (format, "perf-script") == 0)
    return "Global (no process)";
  if (g_strcmp0 (format, "csv") == 0)
    return "Metrics";
  if (g_strcmp0 (format, "collapsed") == 0 || g_strcmp0 (format, "speedscope") == 0 ||
      g_strcmp0 (format, "cpuprofile") == 0 || g_strcmp0 (format, "pprof") == 0)
    return "Profiles";
  return format != NULL ? format : "";
}
static void
paint_title (cairo_t                *cr,
             const TslRenderOptions *o,
             const TslRenderTheme   *theme)
{
  if (o->title == NULL)
    return;
  _tsl_render_set_rgb (cr, &theme->bg, 1);
  cairo_rectangle (cr, 0, 0, o->width, TSL_RENDER_TITLE_HEIGHT);
  cairo_fill (cr);
  _tsl_render_set_rgb (cr, &theme->fg, 1);
  cairo_select_font_face (cr, "Cantarell", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
  cairo_set_font_size (cr, 15);
  _tsl_render_show_text (cr, 12, 22, o->width - 24, o->title);
  cairo_select_font_face (cr, "Cantarell", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
}

char *
_tsl_render_empty_text (guint64 events)
{
  g_autofree char *n = g_strdup_printf ("%'" G_GUINT64_FORMAT, events);

  /* Translators: %s is a count of events, none of which can be drawn */
  return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s event read, none with a place on the timeline",
                                       "%s events read, none with a place on the timeline",
                                       (gulong) MIN (events, G_MAXULONG)), n);
}

/* Centred in the area below the header: what the blank means. */
static void
paint_empty (cairo_t                *cr,
             TslSnapshot            *snapshot,
             const TslRenderOptions *o,
             const TslRenderTheme   *theme,
             double                  header)
{
  const char *heading = o->empty_heading != NULL ? o->empty_heading : _("Nothing to draw");
  g_autofree char *text = NULL;
  cairo_text_extents_t ext;
  double middle = header + (o->height - header) / 2;
  double max_width = MAX (o->width - 48, 1);

  if (o->empty_text != NULL)
    text = g_strdup (o->empty_text);
  else
    text = _tsl_render_empty_text (tsl_snapshot_get_events (snapshot));

  cairo_select_font_face (cr, "Cantarell", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
  cairo_set_font_size (cr, 15);
  cairo_text_extents (cr, heading, &ext);
  _tsl_render_set_rgb (cr, &theme->fg, 1);
  _tsl_render_show_text (cr, MAX ((o->width - ext.x_advance) / 2, 24), middle - 4, max_width, heading);

  cairo_select_font_face (cr, "Cantarell", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size (cr, 12);
  cairo_text_extents (cr, text, &ext);
  _tsl_render_set_rgb (cr, &theme->dim, 1);
  _tsl_render_show_text (cr, MAX ((o->width - ext.x_advance) / 2, 24), middle + 18, max_width, text);
}

static gboolean
paint_base (cairo_t                *cr,
            TslSnapshot            *snapshot,
            const TslRenderOptions *o)
{
  TslRenderCanvas canvas;
  TslRenderTheme theme;
  double header = tsl_render_header_height (o);
  double y;
  gint64 last_pid = G_MININT64;
  g_autofree double *tops = NULL;

  g_return_val_if_fail (cr != NULL, FALSE);
  g_return_val_if_fail (o != NULL, FALSE);

  _tsl_render_theme_init (&theme, o->dark);

  cairo_save (cr);
  cairo_select_font_face (cr, "Cantarell", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);

  _tsl_render_set_rgb (cr, &theme.bg, 1);
  cairo_paint (cr);

  if (!tsl_render_view_is_valid (o))
    {
      cairo_restore (cr);
      return FALSE;
    }
  if (snapshot == NULL)
    {
      cairo_restore (cr);
      return TRUE;
    }

  /* A trace of metadata only: no time axis to rule, so say why it is blank. */
  if (tsl_snapshot_get_n_tracks (snapshot) == 0)
    {
      paint_empty (cr, snapshot, o, &theme, header);
      paint_title (cr, o, &theme);
      cairo_restore (cr);
      return TRUE;
    }

  _tsl_render_grid (cr, o, &theme, header);

  /* Tracks, clipped below the header so scrolled tracks slide under it. */
  cairo_save (cr);
  cairo_rectangle (cr, 0, header, o->width, o->height - header);
  cairo_clip (cr);
  _tsl_render_canvas_init (&canvas, cr, header, o->width, o->height);

  _tsl_render_set_rgb (cr, &theme.gutter, 1);
  cairo_rectangle (cr, 0, header, tsl_render_label_width (o), o->height - header);
  cairo_fill (cr);

  y = header - o->scroll_y;
  tops = g_new (double, MAX (tsl_snapshot_get_n_tracks (snapshot), 1));
  for (guint i = 0; i < tsl_snapshot_get_n_tracks (snapshot); i++)
    {
      tops[i] = NAN;
      const TslSnapshotTrack *track = tsl_snapshot_get_track (snapshot, i);
      double th = _tsl_render_height_of (o, track);

      if (track->pid != last_pid || i == 0)
        {
          g_autofree char *group = NULL;

          last_pid = track->pid;
          if (y + TSL_RENDER_GROUP_HEIGHT > header && y < o->height)
            {
              const char *marker = _tsl_render_is_collapsed (o, track->pid) ? "▸" : "▾";

              /* pid 0 without a name is a format without processes (CSV,
               * collapsed stacks); below 0, threads whose file gave no pid. */
              /* A merged snapshot's groups are files: their names alone. */
              group = track->process && tsl_snapshot_get_n_parts (snapshot) > 0
                ? g_strdup_printf ("%s %s", marker, track->process)
                : track->process
                ? g_strdup_printf ("%s %s  (pid %" G_GINT64_FORMAT ")", marker, track->process, track->pid)
                : track->pid > 0 ? g_strdup_printf ("%s Process %" G_GINT64_FORMAT, marker, track->pid)
                : track->pid < 0 ? g_strdup_printf ("%s Threads (the file gives no process ids)", marker)
                : g_strdup_printf ("%s %s", marker, group_of_no_process (snapshot));
              _tsl_render_set_rgb (cr, &theme.group, 1);
              cairo_rectangle (cr, 0, y, o->width, TSL_RENDER_GROUP_HEIGHT - 2);
              cairo_fill (cr);
              _tsl_render_set_rgb (cr, &theme.fg, 1);
              cairo_select_font_face (cr, "Cantarell", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
              cairo_set_font_size (cr, 11);
              _tsl_render_show_text (cr, 8, y + 15, o->width - 16, group);
              cairo_select_font_face (cr, "Cantarell", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
            }
          y += TSL_RENDER_GROUP_HEIGHT;
        }

      if (_tsl_render_is_collapsed (o, track->pid))
        continue;
      tops[i] = y;

      if (y + th > header && y < o->height)
        {
          double rgb[3];

          tsl_render_name_color (track->name, o->dark, rgb);
          cairo_set_font_size (cr, 11);
          _tsl_render_set_rgb (cr, &theme.fg, _tsl_render_matches (o, track->name) ? 1 : 0.9);
          _tsl_render_show_text (cr, 12, y + 13, tsl_render_label_width (o) - (track->kind == TSL_TRACK_THREAD ? 20 : 80), track->name);

          if (track->exact)
            _tsl_render_slices (cr, &canvas, snapshot, track, o, y);
          else if (track->kind == TSL_TRACK_THREAD || track->kind == TSL_TRACK_ASYNC)
            _tsl_render_stacks (cr, &canvas, snapshot, track, o, y);
          else
            _tsl_render_series (cr, track, o, &theme, y);
          if (o->has_mark && track->pid == o->mark_pid && g_strcmp0 (track->name, o->mark_track) == 0)
            _tsl_render_mark (cr, o, &theme, track, y);
          /* The selected slice, whose flows are drawn, outlined the same way. */
          if (o->has_selection && track->pid == o->selection_pid &&
              g_strcmp0 (track->name, o->selection_track) == 0)
            {
              TslRenderOptions sel = *o;

              sel.mark_depth = o->selection_depth;
              sel.mark_start_ns = o->selection_start_ns;
              sel.mark_end_ns = o->selection_end_ns;
              _tsl_render_mark (cr, &sel, &theme, track, y);
            }

          _tsl_render_set_rgb (cr, &theme.grid, 1);
          cairo_rectangle (cr, 0, floor (y + th - 1), o->width, 1);
          cairo_fill (cr);
        }

      y += th;
    }

  _tsl_render_flows (cr, &canvas, snapshot, o, &theme, tops);

  cairo_restore (cr);

  paint_title (cr, o, &theme);

  _tsl_render_ruler (cr, o, &theme, o->title ? TSL_RENDER_TITLE_HEIGHT : 0);

  cairo_restore (cr);
  return TRUE;
}

/* Ranges A and B and the crosshair (its line and each series' value on
 * it), over a base painted with the same options. */
static void
paint_overlay (cairo_t                *cr,
               TslSnapshot            *snapshot,
               const TslRenderOptions *o)
{
  TslRenderTheme theme;
  double header = tsl_render_header_height (o);
  gboolean crosshair = o->has_crosshair && o->crosshair_x >= tsl_render_label_width (o) &&
                       o->crosshair_x < o->width;

  if (snapshot == NULL || !tsl_render_view_is_valid (o) || (!o->has_a && !o->has_b && !crosshair) ||
      tsl_snapshot_get_n_tracks (snapshot) == 0)
    return;

  _tsl_render_theme_init (&theme, o->dark);
  cairo_save (cr);
  cairo_select_font_face (cr, "Cantarell", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);

  cairo_save (cr);
  cairo_rectangle (cr, 0, header, o->width, o->height - header);
  cairo_clip (cr);
  if (crosshair)
    {
      g_autofree double *tops = layout_tops (snapshot, o, header);

      for (guint i = 0; i < tsl_snapshot_get_n_tracks (snapshot); i++)
        {
          const TslSnapshotTrack *track = tsl_snapshot_get_track (snapshot, i);

          if (!isnan (tops[i]) && !track->exact && track->kind != TSL_TRACK_THREAD &&
              track->kind != TSL_TRACK_ASYNC && tops[i] + _tsl_render_height_of (o, track) > header &&
              tops[i] < o->height)
            _tsl_render_series_crosshair (cr, track, o, &theme, tops[i]);
        }
    }
  if (o->has_a)
    draw_range (cr, snapshot, o, &theme, &color_a, "A", o->a_start_ns, o->a_end_ns, o->a_group, header, 0);
  if (o->has_b)
    draw_range (cr, snapshot, o, &theme, &color_b, "B", o->b_start_ns, o->b_end_ns, o->b_group, header, 0);
  if (crosshair)
    {
      _tsl_render_set_rgb (cr, &theme.dim, 0.7);
      cairo_rectangle (cr, floor (o->crosshair_x), header, 1, o->height - header);
      cairo_fill (cr);
    }
  cairo_restore (cr);

  /* Range tabs sit on the ruler's bottom edge, above the tracks. */
  if (o->has_a || o->has_b)
    {
      double a_tab = 0;

      cairo_save (cr);
      cairo_rectangle (cr, 0, header - 14, o->width, 14);
      cairo_clip (cr);
      if (o->has_a)
        a_tab = draw_range (cr, snapshot, o, &theme, &color_a, "A", o->a_start_ns, o->a_end_ns, o->a_group, header, 0);
      if (o->has_b)
        draw_range (cr, snapshot, o, &theme, &color_b, "B", o->b_start_ns, o->b_end_ns, o->b_group, header,
                    o->has_a && o->b_start_ns >= o->a_start_ns ? a_tab + 2 : 0);
      cairo_restore (cr);
    }
  cairo_restore (cr);
}

gboolean
tsl_render_paint (cairo_t                *cr,
                  TslSnapshot            *snapshot,
                  const TslRenderOptions *o)
{
  g_return_val_if_fail (cr != NULL, FALSE);
  g_return_val_if_fail (o != NULL, FALSE);

  if (!paint_base (cr, snapshot, o))
    return FALSE;
  paint_overlay (cr, snapshot, o);
  paint_note (cr, snapshot, o);
  return TRUE;
}

gboolean
tsl_render_paint_base (cairo_t                *cr,
                       TslSnapshot            *snapshot,
                       const TslRenderOptions *o)
{
  TslRenderOptions base;

  g_return_val_if_fail (cr != NULL, FALSE);
  g_return_val_if_fail (o != NULL, FALSE);

  base = *o;
  base.has_a = base.has_b = base.has_crosshair = FALSE;
  if (!paint_base (cr, snapshot, &base))
    return FALSE;
  paint_note (cr, snapshot, &base);
  return TRUE;
}

gboolean
tsl_render_options_same_base (const TslRenderOptions *a,
                              const TslRenderOptions *b)
{
  g_return_val_if_fail (a != NULL && b != NULL, FALSE);

  return a->view_start_ns == b->view_start_ns && a->view_end_ns == b->view_end_ns &&
         a->width == b->width && a->label_width == b->label_width && a->height == b->height &&
         a->scroll_y == b->scroll_y && !a->dark == !b->dark &&
         g_strcmp0 (a->highlight, b->highlight) == 0 && !a->highlight_exact == !b->highlight_exact &&
         g_strcmp0 (a->highlight_track, b->highlight_track) == 0 && a->highlight_pid == b->highlight_pid &&
         !a->has_mark == !b->has_mark && g_strcmp0 (a->mark_track, b->mark_track) == 0 &&
         a->mark_pid == b->mark_pid && a->mark_depth == b->mark_depth &&
         a->mark_start_ns == b->mark_start_ns && a->mark_end_ns == b->mark_end_ns &&
         g_strcmp0 (a->title, b->title) == 0 && g_strcmp0 (a->empty_heading, b->empty_heading) == 0 &&
         g_strcmp0 (a->empty_text, b->empty_text) == 0 && a->n_collapsed == b->n_collapsed &&
         (a->n_collapsed == 0 || memcmp (a->collapsed, b->collapsed, a->n_collapsed * sizeof (gint64)) == 0) &&
         !a->draw_note == !b->draw_note && a->counter_height == b->counter_height &&
         a->max_rows == b->max_rows &&
         a->wall_clock_ns == b->wall_clock_ns && a->flows == b->flows &&
         !a->has_selection == !b->has_selection &&
         g_strcmp0 (a->selection_track, b->selection_track) == 0 &&
         a->selection_pid == b->selection_pid && a->selection_depth == b->selection_depth &&
         a->selection_start_ns == b->selection_start_ns && a->selection_end_ns == b->selection_end_ns &&
         g_strcmp0 (a->selection_name, b->selection_name) == 0;
}

void
tsl_render_paint_overlay (cairo_t                *cr,
                          TslSnapshot            *snapshot,
                          const TslRenderOptions *o)
{
  g_return_if_fail (cr != NULL);
  g_return_if_fail (o != NULL);

  paint_overlay (cr, snapshot, o);
}

/* What the export's note says of how the view was drawn. Counts are of the
 * view: a window's trace reads the whole file but offers the samplers only
 * the window's events. A sampled profile's events are themselves samples,
 * drawn all but where two fall in one of the K slots: "Sampled view … about
 * 37 events per sample" said of it was false twice over. */
static char *
dup_note (TslSnapshot *snapshot)
{
  guint64 events = 0, samples = 0;
  gboolean profiles_only = FALSE, other = FALSE;

  if (tsl_snapshot_get_exact (snapshot, NULL, NULL))
    return g_strdup_printf ("Exact view: every slice of the view (%" G_GUINT64_FORMAT " events read)",
                            tsl_snapshot_get_events (snapshot));

  for (guint i = 0; i < tsl_snapshot_get_n_tracks (snapshot); i++)
    {
      const TslSnapshotTrack *track = tsl_snapshot_get_track (snapshot, i);

      samples += track->n_samples;
      events += track->events;
      if (track->sampled)
        profiles_only = TRUE;
      else if (track->events > 0)
        other = TRUE;
    }
  profiles_only = profiles_only && !other;
  if (profiles_only && events == 0)
    return g_strdup ("Profile view: no profile sample in view");
  if (profiles_only && samples >= events)
    return g_strdup_printf ("Profile view: every profile sample in view (%" G_GUINT64_FORMAT ")", events);
  if (profiles_only)
    return g_strdup_printf ("Profile view: %" G_GUINT64_FORMAT " of the %" G_GUINT64_FORMAT
                            " profile samples in view (K = %u per track)",
                            samples, events, tsl_snapshot_get_k (snapshot));
  return g_strdup_printf ("Sampled view: K = %u samples per track, %" G_GUINT64_FORMAT
                          " samples of %" G_GUINT64_FORMAT " events in view (about %.0f events per sample)",
                          tsl_snapshot_get_k (snapshot), samples, events,
                          samples ? (double) events / (double) samples : 0.0);
}

/* The export's note of how the view was drawn, at the bottom, over everything. */
static void
paint_note (cairo_t                *cr,
            TslSnapshot            *snapshot,
            const TslRenderOptions *o)
{
  TslRenderTheme theme;

  if (snapshot == NULL || !o->draw_note)
    return;
  _tsl_render_theme_init (&theme, o->dark);
  cairo_save (cr);
  cairo_select_font_face (cr, "Cantarell", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    {
      g_autofree char *note = dup_note (snapshot);

      _tsl_render_set_rgb (cr, &theme.gutter, 0.95);
      cairo_rectangle (cr, 0, o->height - TSL_RENDER_NOTE_HEIGHT, o->width, TSL_RENDER_NOTE_HEIGHT);
      cairo_fill (cr);
      _tsl_render_set_rgb (cr, &theme.dim, 1);
      cairo_set_font_size (cr, 10.5);
      _tsl_render_show_text (cr, 12, o->height - 7, o->width - 24, note);
    }

  cairo_restore (cr);
}
