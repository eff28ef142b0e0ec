/* tsl-render.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Cost model (docs/ARCHITECTURE.md, "Painters"): one cairo rectangle per sample is the slow path,
 * so stacks are reduced to runs — neighbouring columns with the same frame at
 * the same depth become one rectangle, and columns narrower than a pixel merge
 * into the run before them. Text is drawn only where a run is wide enough.
 */
#define G_LOG_DOMAIN "tsl-render"

#include "config.h"

#include <math.h>
#include <string.h>

#include "tsl-range.h"
#include "tsl-render.h"
#include "tsl-render-private.h"
#include "tsl-search.h"
#include "tsl-time-math.h"

#define TITLE_HEIGHT    34
#define GROUP_HEIGHT    24
#define ROW_HEIGHT      TSL_RENDER_ROW_HEIGHT
#define MAX_ROWS        TSL_RENDER_MAX_ROWS
#define TRACK_GAP       6
#define NOTE_HEIGHT     22

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

static void
set_rgb (cairo_t    *cr,
         const Rgb  *c,
         double      alpha)
{
  cairo_set_source_rgba (cr, c->r, c->g, c->b, alpha);
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

static double
counter_height (const TslRenderOptions *o)
{
  if (!(o->counter_height > 0))
    return TSL_RENDER_COUNTER_HEIGHT;
  return CLAMP (o->counter_height, TSL_RENDER_MIN_COUNTER_HEIGHT, TSL_RENDER_MAX_COUNTER_HEIGHT);
}

static double
track_height (const TslRenderOptions *o,
              const TslSnapshotTrack *track)
{
  if (track->kind == TSL_TRACK_THREAD || track->kind == TSL_TRACK_ASYNC)
    return CLAMP (track->max_depth, 1, MAX_ROWS) * ROW_HEIGHT + TRACK_GAP;
  return counter_height (o) + TRACK_GAP;
}

static gboolean
starts_group (TslSnapshot *snapshot,
              guint        i)
{
  const TslSnapshotTrack *track = tsl_snapshot_get_track (snapshot, i);

  if (i == 0)
    return TRUE;
  return tsl_snapshot_get_track (snapshot, i - 1)->pid != track->pid;
}

static gboolean
is_collapsed (const TslRenderOptions *o,
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

      if (starts_group (snapshot, i))
        h += GROUP_HEIGHT;
      if (!is_collapsed (o, track->pid))
        h += track_height (o, track);
    }

  return h;
}

double
tsl_render_track_height (TslSnapshot            *snapshot,
                         const TslRenderOptions *o,
                         guint                   track)
{
  g_return_val_if_fail (track < tsl_snapshot_get_n_tracks (snapshot), 0);

  return track_height (o, tsl_snapshot_get_track (snapshot, track));
}

double
tsl_render_track_top (TslSnapshot            *snapshot,
                      const TslRenderOptions *o,
                      guint                   track)
{
  double h = 0;

  for (guint i = 0; i <= track && i < tsl_snapshot_get_n_tracks (snapshot); i++)
    {
      if (starts_group (snapshot, i))
        h += GROUP_HEIGHT;
      if (i < track && !is_collapsed (o, tsl_snapshot_get_track (snapshot, i)->pid))
        h += track_height (o, tsl_snapshot_get_track (snapshot, i));
    }
  return h;
}

double
tsl_render_header_height (const TslRenderOptions *options)
{
  return TSL_RENDER_RULER_HEIGHT + (options->title ? TITLE_HEIGHT : 0);
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

/* cairo puts the whole context in an error state for text that is not UTF-8
 * or holds a noncharacter (U+FFFE, U+FDD0..., which GLib accepts): such text
 * is drawn with U+FFFD instead. Returns NULL when `text` is fine as it is. */
static gboolean
is_noncharacter (gunichar c)
{
  return (c >= 0xFDD0 && c <= 0xFDEF) || (c & 0xFFFE) == 0xFFFE;
}

static char *
make_cairo_safe (const char *text)
{
  g_autofree char *valid = NULL;
  const char *p;
  GString *out;

  if (!g_utf8_validate (text, -1, NULL))
    text = valid = g_utf8_make_valid (text, -1);

  for (p = text; *p != '\0'; p = g_utf8_next_char (p))
    if (is_noncharacter (g_utf8_get_char (p)))
      break;
  if (*p == '\0')
    return g_steal_pointer (&valid);

  out = g_string_new (NULL);
  for (p = text; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      g_string_append_unichar (out, is_noncharacter (c) ? 0xFFFD : c);
    }
  return g_string_free (out, FALSE);
}

void
_tsl_render_show_text (cairo_t    *cr,
                       double      x,
                       double      y,
                       double      max_width,
                       const char *text)
{
  cairo_text_extents_t ext;
  g_autofree char *copy = NULL;
  g_autofree char *bounded = NULL;
  g_autofree char *safe = NULL;
  gsize fits, too_long, len;
  /* No glyph is narrower than a unit at a legible size, so no more
   * characters than units of width can show: cairo lays text out glyph by
   * glyph (tens of bytes each), and a label may be kilobytes long. */
  gsize max_chars = (gsize) CLAMP (max_width, 0, 65536) + 2;
  const char *past = text;
  gsize chars = 0;

  /* Bytewise, as the text may not be valid UTF-8 yet: a character starts
   * at each byte that is not a continuation byte. */
  for (; *past != '\0'; past++)
    if (((guchar) *past & 0xC0) != 0x80 && ++chars > max_chars)
      break;
  if (*past != '\0')
    text = bounded = g_strndup (text, past - text);
  safe = make_cairo_safe (text);
  if (safe != NULL)
    text = safe;
  cairo_text_extents (cr, text, &ext);
  if (ext.x_advance <= max_width)
    {
      cairo_move_to (cr, x, y);
      cairo_show_text (cr, text);
      return;
    }

  /* Ellipsize: the longest prefix that fits with "…", found by bisection,
   * since a label from a damaged file can be megabytes long (one character
   * at a time took half a minute for a 20 KB name). */
  copy = g_malloc (strlen (text) + sizeof "…");
  fits = 0;
  too_long = g_utf8_strlen (text, -1);
  while (too_long - fits > 1)
    {
      gsize mid = fits + (too_long - fits) / 2;
      gsize bytes = g_utf8_offset_to_pointer (text, mid) - text;

      memcpy (copy, text, bytes);
      strcpy (copy + bytes, "…");
      cairo_text_extents (cr, copy, &ext);
      if (ext.x_advance <= max_width)
        fits = mid;
      else
        too_long = mid;
    }
  if (fits == 0)
    return;

  len = g_utf8_offset_to_pointer (text, fits) - text;
  memcpy (copy, text, len);
  strcpy (copy + len, "…");
  cairo_move_to (cr, x, y);
  cairo_show_text (cr, copy);
}

/* Tick steps a person reads easily: 1-2-5 below a second, then the clock's
 * own steps (15 s, 30 min, 6 h, a day, a week). */
static double
nice_step (double span_ns,
           double plot_px)
{
  static const double clock[] = {
    1e9, 2e9, 5e9, 10e9, 15e9, 30e9,
    60e9, 120e9, 300e9, 600e9, 900e9, 1800e9,
    3600e9, 7200e9, 3 * 3600e9, 6 * 3600e9, 12 * 3600e9,
    86400e9, 2 * 86400e9, 7 * 86400e9, 14 * 86400e9, 28 * 86400e9,
  };
  static const double mults[] = { 1, 2, 5, 10 };
  double target = span_ns * 90.0 / MAX (plot_px, 1);
  double mag;

  if (target > 1e9)
    {
      for (guint i = 0; i < G_N_ELEMENTS (clock); i++)
        if (clock[i] >= target)
          return clock[i];
      /* Beyond four weeks: whole multiples of 28 days in 1-2-5 steps. */
      mag = pow (10, floor (log10 (target / clock[G_N_ELEMENTS (clock) - 1])));
      for (guint i = 0; i < G_N_ELEMENTS (mults); i++)
        if (clock[G_N_ELEMENTS (clock) - 1] * mag * mults[i] >= target)
          return clock[G_N_ELEMENTS (clock) - 1] * mag * mults[i];
    }

  mag = pow (10, floor (log10 (MAX (target, 1e-3))));
  for (guint i = 0; i < G_N_ELEMENTS (mults); i++)
    if (mag * mults[i] >= target)
      return mag * mults[i];
  return mag * 10;
}

#define MAX_TICKS 200

/* The ticks of the view: counted, never stepped until past the end, so a
 * step below the times' resolution (1 ns at 2^63 ns is lost in a double)
 * cannot loop for ever. */
static guint
ticks (const TslRenderOptions *o,
       double                 *first,
       double                 *step)
{
  double span = (double) o->view_end_ns - (double) o->view_start_ns;
  double n;

  *step = nice_step (span, o->width - tsl_render_label_width (o));
  *first = ceil ((double) o->view_start_ns / *step) * *step;
  n = floor (((double) o->view_end_ns - *first) / *step) + 1;
  if (!isfinite (n) || n < 1 || !(*step > 0))
    return 0;
  return (guint) MIN (n, MAX_TICKS);
}

char *
tsl_render_format_tick (const TslRenderOptions *o,
                        double                  t,
                        double                  step)
{
  g_autoptr(GDateTime) when = NULL;
  g_autofree char *hms = NULL;
  gint64 ns;

  g_return_val_if_fail (o != NULL, NULL);

  if (o->wall_clock_ns <= 0)
    return t == 0 ? g_strdup ("0") : tsl_duration_format (t);

  ns = o->wall_clock_ns + (gint64) llround (t);
  when = g_date_time_new_from_unix_local (ns / 1000000000);
  if (when == NULL)
    return tsl_duration_format (t);
  hms = g_date_time_format (when, step >= 86400e9 ? "%Y-%m-%d" : "%H:%M:%S");
  /* Sub-second ticks need the fraction to tell them apart. */
  if (step < 1e9)
    return g_strdup_printf ("%s.%03d", hms, (int) ((ns / 1000000) % 1000));
  return g_steal_pointer (&hms);
}

static void
draw_ruler (cairo_t                *cr,
            const TslRenderOptions *o,
            const TslRenderTheme   *theme,
            double                  top)
{
  double first, step;
  guint n = ticks (o, &first, &step);

  set_rgb (cr, &theme->gutter, 1);
  cairo_rectangle (cr, 0, top, o->width, TSL_RENDER_RULER_HEIGHT);
  cairo_fill (cr);

  cairo_set_font_size (cr, 10.5);
  for (guint i = 0; i < n; i++)
    {
      double t = first + i * step;
      double x = floor (tsl_render_time_to_x (o, t)) + 0.5;
      g_autofree char *label = tsl_render_format_tick (o, t, step);

      set_rgb (cr, &theme->dim, 0.8);
      cairo_move_to (cr, x, top + TSL_RENDER_RULER_HEIGHT - 8);
      cairo_line_to (cr, x, top + TSL_RENDER_RULER_HEIGHT);
      cairo_set_line_width (cr, 1);
      cairo_stroke (cr);

      set_rgb (cr, &theme->fg, 0.85);
      _tsl_render_show_text (cr, x + 3, top + 14, 200, label);
    }

  set_rgb (cr, &theme->grid, 1);
  cairo_rectangle (cr, 0, top + TSL_RENDER_RULER_HEIGHT - 1, o->width, 1);
  cairo_fill (cr);
}

static void
draw_grid (cairo_t                *cr,
           const TslRenderOptions *o,
           const TslRenderTheme   *theme,
           double                  top)
{
  double first, step;
  guint n = ticks (o, &first, &step);

  set_rgb (cr, &theme->grid, 1);
  for (guint i = 0; i < n; i++)
    {
      double t = first + i * step;
      double x = floor (tsl_render_time_to_x (o, t));
      cairo_rectangle (cr, x, top, 1, o->height - top);
    }
  cairo_fill (cr);
}

static gboolean
matches (const TslRenderOptions *o,
         const char             *name)
{
  const char *needle = o->highlight;

  if (needle == NULL || *needle == '\0' || name == NULL)
    return FALSE;
  return o->highlight_exact ? strcmp (name, needle) == 0 : tsl_search_matches (needle, name);
}

/* 1 for what the highlight picks (or when there is none), else dimmed. A
 * highlight scoped to one track (a compare row: a function of one thread)
 * dims that name on every other track. */
static double
highlight_alpha (const TslRenderOptions *o,
                 const TslSnapshotTrack *track,
                 const char             *name)
{
  if (o->highlight == NULL || *o->highlight == '\0')
    return 1.0;
  if (o->highlight_track != NULL &&
      ((o->highlight_pid != TSL_RENDER_ANY_PID && track->pid != o->highlight_pid) ||
       g_strcmp0 (track->name, o->highlight_track) != 0))
    return 0.4;
  return matches (o, name) ? 1.0 : 0.4;
}

typedef struct {
  guint32 frame;
  double  x0;
  double  x1;
} Run;

typedef struct {
  double  x;
  double  y;
  double  width;
  guint32 frame;
} Label;

/* One bar of a row: [x0, x1) × [y, y + h - 1), into the pixels when it may. */
static void
fill_cell (cairo_t         *cr,
           TslRenderCanvas *canvas,
           double           x0,
           double           y,
           double           x1,
           double           h,
           const double    *rgb,
           double           alpha)
{
  if (canvas->pixels != NULL)
    _tsl_render_canvas_fill (canvas, x0, y, x1, y + h - 1, rgb, alpha);
  else
    {
      cairo_set_source_rgba (cr, rgb[0], rgb[1], rgb[2], alpha);
      cairo_rectangle (cr, x0, y, x1 - x0, h - 1);
      cairo_fill (cr);
    }
}

static void
flush_run (cairo_t                *cr,
           TslRenderCanvas        *canvas,
           GArray                 *labels,
           TslSnapshot            *snapshot,
           const TslSnapshotTrack *track,
           const TslRenderOptions *o,
           const Run              *run,
           double                  y,
           double                  h)
{
  const char *name;
  double rgb[3];
  double x0 = MAX (run->x0, tsl_render_label_width (o));
  double x1 = MIN (run->x1, o->width);
  double alpha;

  if (run->frame == 0 || x1 <= x0)
    return;

  name = tsl_snapshot_get_frame_name (snapshot, run->frame);
  tsl_render_name_color (name, o->dark, rgb);
  alpha = highlight_alpha (o, track, name);

  fill_cell (cr, canvas, x0, y, x0 + MAX (x1 - x0, 1), h, rgb, alpha);

  if (x1 - x0 > 36)
    {
      Label label = { x0 + 3, y + h - 4, x1 - x0 - 6, run->frame };

      g_array_append_val (labels, label);
    }
}

static void
draw_labels (cairo_t     *cr,
             TslSnapshot *snapshot,
             GArray      *labels)
{
  if (labels->len == 0)
    return;
  cairo_set_source_rgba (cr, 0.1, 0.1, 0.12, 0.9);
  cairo_set_font_size (cr, 10);
  for (guint i = 0; i < labels->len; i++)
    {
      const Label *l = &g_array_index (labels, Label, i);

      _tsl_render_show_text (cr, l->x, l->y, l->width, tsl_snapshot_get_frame_name (snapshot, l->frame));
    }
}

static void
draw_stacks (cairo_t                *cr,
             TslRenderCanvas        *canvas,
             TslSnapshot            *snapshot,
             const TslSnapshotTrack *track,
             const TslRenderOptions *o,
             double                  top)
{
  guint rows = CLAMP (track->max_depth, 1, MAX_ROWS);
  gboolean durations = g_strcmp0 (track->unit, "ns") == 0;
  /* tsl_render_time_to_x(), hoisted out of the per-sample loop. */
  double left = tsl_render_label_width (o);
  double vs = (double) o->view_start_ns;
  double scale = MAX (o->width - left, 1) / MAX ((double) o->view_end_ns - vs, 1);
  g_autoptr(GArray) labels = g_array_new (FALSE, FALSE, sizeof (Label));

  /* Pending cairo drawing must land before the pixels are written. */
  if (canvas->pixels != NULL)
    cairo_surface_flush (cairo_get_target (cr));

  for (guint d = 0; d < rows; d++)
    {
      double y = top + d * ROW_HEIGHT;
      Run run = { 0, 0, 0 };

      for (guint i = 0; i < track->n_samples; i++)
        {
          const TslSnapshotSample *s = &track->samples[i];
          gint64 start = s->start_ns, end = s->end_ns;
          gboolean call = FALSE;
          guint32 frame;
          double x0, x1;

          /* A sample without a frame this deep leaves the row alone: were
           * it a run of nothing stretched over its parent's span, it would
           * hide the children kept beside it. */
          if (d >= s->n_frames)
            continue;
          frame = s->frames[d];

          /* A span longer than its slice is drawn to its end: a kept 2 s span
           * must not shrink to a 1 ms column. On its own row (the leaf) it
           * is one call, drawn from where it starts. */
          if (durations && !isnan (s->value) && s->value >= 0)
            {
              if ((double) s->time_ns + s->value > (double) end)
                end = (gint64) MIN ((double) s->time_ns + s->value, 9.0e18);  /* no overflow */
              if (d + 1 == s->n_frames)
                {
                  start = s->time_ns;
                  call = TRUE;
                }
            }

          if (end < o->view_start_ns || start > o->view_end_ns)
            continue;

          /* Whole pixels: a pixel shows the first sample that reaches it, a
           * random representative since the samples are random. */
          x0 = floor (left + ((double) start - vs) * scale);
          x1 = MAX (ceil (left + ((double) end - vs) * scale), x0 + 1);

          if (x1 <= run.x1)
            continue;
          x0 = MAX (x0, run.x1);

          if (frame == run.frame && x0 <= run.x1 && !call)
            {
              run.x1 = x1;
              continue;
            }

          /* Back-to-back calls of one function stay two bars. */
          if (call && frame == run.frame && run.x1 - run.x0 >= 3 && x0 <= run.x1)
            run.x1 -= 1;
          flush_run (cr, canvas, labels, snapshot, track, o, &run, y, ROW_HEIGHT);
          run = (Run) { frame, x0, x1 };
        }

      flush_run (cr, canvas, labels, snapshot, track, o, &run, y, ROW_HEIGHT);
    }

  if (canvas->pixels != NULL)
    cairo_surface_mark_dirty (cairo_get_target (cr));

  draw_labels (cr, snapshot, labels);
}

/* Exact view: every slice where it is. Slices narrower than a pixel share
 * it with the first one that reaches it; a slice three pixels wide or more
 * ends a pixel early, so back-to-back calls stay apart. */
static void
draw_slices (cairo_t                *cr,
             TslRenderCanvas        *canvas,
             TslSnapshot            *snapshot,
             const TslSnapshotTrack *track,
             const TslRenderOptions *o,
             double                  top)
{
  guint rows = CLAMP (track->max_depth, 1, MAX_ROWS);
  double left = tsl_render_label_width (o);
  double right = o->width;
  double vs = (double) o->view_start_ns, ve = (double) o->view_end_ns;
  double scale = MAX (right - left, 1) / MAX (ve - vs, 1);
  double filled[MAX_ROWS];
  g_autoptr(GArray) labels = g_array_new (FALSE, FALSE, sizeof (Label));

  for (guint d = 0; d < MAX_ROWS; d++)
    filled[d] = left;

  if (canvas->pixels != NULL)
    cairo_surface_flush (cairo_get_target (cr));

  for (guint i = 0; i < track->n_slices; i++)
    {
      const TslSnapshotSlice *s = &track->slices[i];
      double x0, x1, y, rgb[3], alpha;
      const char *name;

      if (s->depth >= rows || (double) s->start_ns > ve || (double) s->end_ns < vs)
        continue;

      /* Most slices of a full budget share a pixel with the one before:
       * skip them before any rounding. */
      x1 = left + ((double) s->end_ns - vs) * scale;
      if (x1 < filled[s->depth] - 0.5)
        continue;
      x0 = round (left + ((double) s->start_ns - vs) * scale);
      x1 = round (x1);
      x0 = MAX (x0, left);
      x1 = MIN (x1, right);
      if (x1 - x0 >= 3)
        x1 -= 1;
      else
        x1 = MAX (x1, x0 + 1);
      if (x1 <= filled[s->depth])
        continue;
      x0 = MAX (x0, filled[s->depth]);
      filled[s->depth] = x1;

      name = tsl_snapshot_get_frame_name (snapshot, s->frame);
      tsl_render_name_color (name, o->dark, rgb);
      alpha = highlight_alpha (o, track, name);
      y = top + s->depth * ROW_HEIGHT;

      fill_cell (cr, canvas, x0, y, x1, ROW_HEIGHT, rgb, alpha);

      if (x1 - x0 > 24)
        {
          Label label = { x0 + 3, y + ROW_HEIGHT - 4, x1 - x0 - 5, s->frame };

          g_array_append_val (labels, label);
        }
    }

  if (canvas->pixels != NULL)
    cairo_surface_mark_dirty (cairo_get_target (cr));

  draw_labels (cr, snapshot, labels);
}

static void
format_value (char   *buf,
              gsize   len,
              double  value,
              const char *unit)
{
  if (fabs (value) >= 1e6 || (fabs (value) < 1e-2 && value != 0))
    g_snprintf (buf, len, "%.3g%s%s", value, unit ? " " : "", unit ? unit : "");
  else
    g_snprintf (buf, len, "%.4g%s%s", value, unit ? " " : "", unit ? unit : "");
}

gboolean
tsl_render_series_value_at (const TslSnapshotTrack *track,
                            gint64                  time_ns,
                            double                 *value)
{
  guint lo = 0, hi;

  g_return_val_if_fail (track != NULL && value != NULL, FALSE);

  /* The first sample after time_ns, by bisection (samples are in time order). */
  hi = track->n_samples;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (track->samples[mid].time_ns <= time_ns)
        lo = mid + 1;
      else
        hi = mid;
    }
  while (lo > 0)
    {
      const TslSnapshotSample *s = &track->samples[--lo];

      if (!isnan (s->value))
        {
          *value = s->value;
          return TRUE;
        }
    }
  return FALSE;
}

static void
draw_series (cairo_t                *cr,
             const TslSnapshotTrack *track,
             const TslRenderOptions *o,
             const TslRenderTheme   *theme,
             double                  top)
{
  double ch = counter_height (o);
  double h = ch - 8;
  double lo = track->value_min, hi = track->value_max;
  double rgb[3];
  gboolean started = FALSE;
  double last_x = 0, last_y = 0;
  guint n_points = 0;
  gboolean dimmed = highlight_alpha (o, track, track->name) < 1;
  char label[64];

  if (isnan (lo) || isnan (hi))
    return;
  if (hi - lo < 1e-12)
    {
      hi += 0.5;
      lo -= 0.5;
    }

  tsl_render_name_color (track->name, o->dark, rgb);

#define Y_OF(v) (top + 4 + h - ((v) - lo) / (hi - lo) * h)

  /* Gridlines at the axis' min, middle and max, the values the gutter names. */
  set_rgb (cr, &theme->grid, 1);
  /* Pixel-aligned rectangles: cairo's fast path, unlike a stroke. */
  for (guint g = 0; g < 3; g++)
    cairo_rectangle (cr, tsl_render_label_width (o), floor (Y_OF (lo + (hi - lo) * g / 2)),
                     o->width - tsl_render_label_width (o), 1);
  cairo_fill (cr);

  /* Exact envelope: every slice's min..max, so one spike survives any zoom. */
  cairo_set_source_rgba (cr, rgb[0], rgb[1], rgb[2], dimmed ? 0.08 : 0.3);
  for (guint i = 0; i < track->n_samples; i++)
    {
      const TslSnapshotSample *s = &track->samples[i];
      double x0, x1, y0, y1;

      if (s->end_ns < o->view_start_ns || s->start_ns > o->view_end_ns || isnan (s->summary.min))
        continue;
      x0 = MAX (tsl_render_time_to_x (o, (double) s->start_ns), tsl_render_label_width (o));
      x1 = MIN (tsl_render_time_to_x (o, (double) s->end_ns), o->width);
      y0 = Y_OF (s->summary.max);
      y1 = Y_OF (s->summary.min);
      cairo_rectangle (cr, x0, y0, MAX (x1 - x0, 1), MAX (y1 - y0, 1));
    }
  cairo_fill (cr);

  cairo_save (cr);
  cairo_rectangle (cr, tsl_render_label_width (o), top, o->width - tsl_render_label_width (o), ch);
  cairo_clip (cr);
  for (guint i = 0; i < track->n_samples; i++)
    {
      const TslSnapshotSample *s = &track->samples[i];
      double x;

      if (isnan (s->value))
        continue;
      x = tsl_render_time_to_x (o, (double) s->time_ns);
      if (!started)
        cairo_move_to (cr, x, Y_OF (s->value));
      else
        cairo_line_to (cr, x, Y_OF (s->value));
      started = TRUE;
      last_x = x;
      last_y = Y_OF (s->value);
      n_points++;
    }
  /* One point is no line: draw it as a dot, its value held to the end. */
  if (n_points == 1)
    {
      cairo_line_to (cr, MAX (o->width, last_x + 1), last_y);
      cairo_new_sub_path (cr);
      cairo_arc (cr, last_x, last_y, 3, 0, 2 * G_PI);
    }
  cairo_set_source_rgba (cr, rgb[0] * 0.8, rgb[1] * 0.8, rgb[2] * 0.8, dimmed ? 0.3 : 1);
  cairo_set_line_width (cr, n_points == 1 ? 2 : 1.25);
  cairo_set_line_join (cr, CAIRO_LINE_JOIN_ROUND);
  cairo_stroke (cr);
  cairo_restore (cr);

  /* y-axis labels in the gutter */
  cairo_set_font_size (cr, 9.5);
  set_rgb (cr, &theme->dim, 1);
  format_value (label, sizeof label, hi, track->unit);
  _tsl_render_show_text (cr, tsl_render_label_width (o) - 70, top + 12, 66, label);
  format_value (label, sizeof label, lo, track->unit);
  _tsl_render_show_text (cr, tsl_render_label_width (o) - 70, top + ch - 6, 66, label);
  /* A taller track has room for its middle too. */
  if (ch >= 2 * TSL_RENDER_COUNTER_HEIGHT)
    {
      format_value (label, sizeof label, (lo + hi) / 2, track->unit);
      _tsl_render_show_text (cr, tsl_render_label_width (o) - 70, Y_OF ((lo + hi) / 2) + 4, 66, label);
    }

  if (o->has_crosshair && o->crosshair_x >= tsl_render_label_width (o) && o->crosshair_x < o->width)
    {
      double value;

      if (tsl_render_series_value_at (track, (gint64) tsl_render_x_to_time (o, o->crosshair_x), &value))
        {
          double vy = Y_OF (value), tx = o->crosshair_x + 6;

          format_value (label, sizeof label, value, track->unit);
          cairo_set_source_rgba (cr, rgb[0] * 0.6, rgb[1] * 0.6, rgb[2] * 0.6, 1);
          cairo_arc (cr, o->crosshair_x, vy, 3.5, 0, 2 * G_PI);
          cairo_fill (cr);
          /* Beside the pointer, or before it near the right edge. */
          if (tx + 90 > o->width)
            tx = o->crosshair_x - 96;
          cairo_set_font_size (cr, 11);
          set_rgb (cr, &theme->fg, 1);
          _tsl_render_show_text (cr, tx, CLAMP (vy - 4, top + 12, top + ch - 2), 90, label);
        }
    }

#undef Y_OF
}

/* The current search match: an outline a few pixels wider than the bar,
 * so that even a call narrower than a pixel is seen. */
static void
draw_mark (cairo_t                *cr,
           const TslRenderOptions *o,
           const TslRenderTheme   *theme,
           const TslSnapshotTrack *track,
           double                  top)
{
  double left = tsl_render_label_width (o);
  double x0 = tsl_render_time_to_x (o, (double) o->mark_start_ns) - 2;
  double x1 = tsl_render_time_to_x (o, (double) o->mark_end_ns) + 2;
  double y = top + MIN (o->mark_depth, (guint) CLAMP (track->max_depth, 1, MAX_ROWS) - 1) * ROW_HEIGHT;

  x0 = MAX (x0, left);
  x1 = MIN (x1, o->width);
  if (x1 <= x0)
    return;
  cairo_save (cr);
  cairo_rectangle (cr, left, top, o->width - left, track_height (o, track));
  cairo_clip (cr);
  set_rgb (cr, &theme->fg, 1);
  cairo_set_line_width (cr, 2);
  cairo_rectangle (cr, x0, y - 1, x1 - x0, ROW_HEIGHT + 1);
  cairo_stroke (cr);
  cairo_restore (cr);
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

      if (starts_group (snapshot, i))
        {
          if (track->pid == pid)
            {
              *y0 = top + h - o->scroll_y;
              found = TRUE;
            }
          h += GROUP_HEIGHT;
        }
      if (!is_collapsed (o, track->pid))
        h += track_height (o, track);
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

  set_rgb (cr, color, 0.14);
  cairo_rectangle (cr, x0, band0, x1 - x0, band1 - band0);
  cairo_fill (cr);

  set_rgb (cr, color, 0.9);
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
    set_rgb (cr, color, 0.95);
    cairo_rectangle (cr, tab_x, top - 14, tab_w, 14);
    cairo_fill (cr);
    cairo_set_source_rgb (cr, 1, 1, 1);
    _tsl_render_show_text (cr, tab_x + 4, top - 3.5, tab_w - 6, label);
    (void) theme;
    return tab_x + tab_w;
  }
}

gboolean
tsl_render_paint (cairo_t                *cr,
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

  set_rgb (cr, &theme.bg, 1);
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

  draw_grid (cr, o, &theme, header);

  /* Tracks, clipped below the header so scrolled tracks slide under it. */
  cairo_save (cr);
  cairo_rectangle (cr, 0, header, o->width, o->height - header);
  cairo_clip (cr);
  _tsl_render_canvas_init (&canvas, cr, header, o->width, o->height);

  set_rgb (cr, &theme.gutter, 1);
  cairo_rectangle (cr, 0, header, tsl_render_label_width (o), o->height - header);
  cairo_fill (cr);

  y = header - o->scroll_y;
  tops = g_new (double, MAX (tsl_snapshot_get_n_tracks (snapshot), 1));
  for (guint i = 0; i < tsl_snapshot_get_n_tracks (snapshot); i++)
    {
      tops[i] = NAN;
      const TslSnapshotTrack *track = tsl_snapshot_get_track (snapshot, i);
      double th = track_height (o, track);

      if (track->pid != last_pid || i == 0)
        {
          g_autofree char *group = NULL;

          last_pid = track->pid;
          if (y + GROUP_HEIGHT > header && y < o->height)
            {
              const char *marker = is_collapsed (o, track->pid) ? "▸" : "▾";

              /* pid 0 without a name is a format without processes (CSV,
               * collapsed stacks); below 0, threads whose file gave no pid. */
              /* A merged snapshot's groups are files: their names alone. */
              group = track->process && tsl_snapshot_get_n_parts (snapshot) > 0
                ? g_strdup_printf ("%s %s", marker, track->process)
                : track->process
                ? g_strdup_printf ("%s %s  (pid %" G_GINT64_FORMAT ")", marker, track->process, track->pid)
                : track->pid > 0 ? g_strdup_printf ("%s Process %" G_GINT64_FORMAT, marker, track->pid)
                : track->pid < 0 ? g_strdup_printf ("%s Threads (the file gives no process ids)", marker)
                : g_strdup_printf ("%s %s", marker, tsl_snapshot_get_format (snapshot) ? tsl_snapshot_get_format (snapshot) : "");
              set_rgb (cr, &theme.group, 1);
              cairo_rectangle (cr, 0, y, o->width, GROUP_HEIGHT - 2);
              cairo_fill (cr);
              set_rgb (cr, &theme.fg, 1);
              cairo_select_font_face (cr, "Cantarell", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
              cairo_set_font_size (cr, 11);
              _tsl_render_show_text (cr, 8, y + 15, o->width - 16, group);
              cairo_select_font_face (cr, "Cantarell", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
            }
          y += GROUP_HEIGHT;
        }

      if (is_collapsed (o, track->pid))
        continue;
      tops[i] = y;

      if (y + th > header && y < o->height)
        {
          double rgb[3];

          tsl_render_name_color (track->name, o->dark, rgb);
          cairo_set_font_size (cr, 11);
          set_rgb (cr, &theme.fg, matches (o, track->name) ? 1 : 0.9);
          _tsl_render_show_text (cr, 12, y + 13, tsl_render_label_width (o) - (track->kind == TSL_TRACK_THREAD ? 20 : 80), track->name);

          if (track->exact)
            draw_slices (cr, &canvas, snapshot, track, o, y);
          else if (track->kind == TSL_TRACK_THREAD || track->kind == TSL_TRACK_ASYNC)
            draw_stacks (cr, &canvas, snapshot, track, o, y);
          else
            draw_series (cr, track, o, &theme, y);
          if (o->has_mark && track->pid == o->mark_pid && g_strcmp0 (track->name, o->mark_track) == 0)
            draw_mark (cr, o, &theme, track, y);

          set_rgb (cr, &theme.grid, 1);
          cairo_rectangle (cr, 0, floor (y + th - 1), o->width, 1);
          cairo_fill (cr);
        }

      y += th;
    }

  _tsl_render_flows (cr, &canvas, snapshot, o, &theme, tops);

  if (o->has_a)
    draw_range (cr, snapshot, o, &theme, &color_a, "A", o->a_start_ns, o->a_end_ns, o->a_group, header, 0);
  if (o->has_b)
    draw_range (cr, snapshot, o, &theme, &color_b, "B", o->b_start_ns, o->b_end_ns, o->b_group, header, 0);

  if (o->has_crosshair && o->crosshair_x >= tsl_render_label_width (o) && o->crosshair_x < o->width)
    {
      set_rgb (cr, &theme.dim, 0.7);
      cairo_rectangle (cr, floor (o->crosshair_x), header, 1, o->height - header);
      cairo_fill (cr);
    }

  cairo_restore (cr);

  if (o->title)
    {
      set_rgb (cr, &theme.bg, 1);
      cairo_rectangle (cr, 0, 0, o->width, TITLE_HEIGHT);
      cairo_fill (cr);
      set_rgb (cr, &theme.fg, 1);
      cairo_select_font_face (cr, "Cantarell", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
      cairo_set_font_size (cr, 15);
      _tsl_render_show_text (cr, 12, 22, o->width - 24, o->title);
      cairo_select_font_face (cr, "Cantarell", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    }

  draw_ruler (cr, o, &theme, o->title ? TITLE_HEIGHT : 0);

  /* Range tabs sit on the ruler's bottom edge, above the tracks. */
  if (o->has_a || o->has_b)
    {
      cairo_save (cr);
      cairo_rectangle (cr, 0, header - 14, o->width, 14);
      cairo_clip (cr);
      double a_tab = 0;

      if (o->has_a)
        a_tab = draw_range (cr, snapshot, o, &theme, &color_a, "A", o->a_start_ns, o->a_end_ns, o->a_group, header, 0);
      if (o->has_b)
        draw_range (cr, snapshot, o, &theme, &color_b, "B", o->b_start_ns, o->b_end_ns, o->b_group, header,
                    o->has_a && o->b_start_ns >= o->a_start_ns ? a_tab + 2 : 0);
      cairo_restore (cr);
    }

  if (o->draw_note)
    {
      guint64 events = tsl_snapshot_get_events (snapshot);
      guint64 samples = 0;
      g_autofree char *note = NULL;

      for (guint i = 0; i < tsl_snapshot_get_n_tracks (snapshot); i++)
        samples += tsl_snapshot_get_track (snapshot, i)->n_samples;
      if (tsl_snapshot_get_exact (snapshot, NULL, NULL))
        note = g_strdup_printf ("Exact view: every slice of the view (%" G_GUINT64_FORMAT " events read)",
                                events);
      else
        note = g_strdup_printf ("Sampled view: K = %u samples per track, %" G_GUINT64_FORMAT
                                " samples of %" G_GUINT64_FORMAT " events (about %.0f events per sample)",
                                tsl_snapshot_get_k (snapshot), samples, events,
                                samples ? (double) events / (double) samples : 0.0);
      set_rgb (cr, &theme.gutter, 0.95);
      cairo_rectangle (cr, 0, o->height - NOTE_HEIGHT, o->width, NOTE_HEIGHT);
      cairo_fill (cr);
      set_rgb (cr, &theme.dim, 1);
      cairo_set_font_size (cr, 10.5);
      _tsl_render_show_text (cr, 12, o->height - 7, o->width - 24, note);
    }

  cairo_restore (cr);
  return TRUE;
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
      double th = track_height (o, track);

      if (starts_group (snapshot, i))
        {
          if (y >= top && y < top + GROUP_HEIGHT)
            {
              hit->on_group = TRUE;
              hit->group_pid = track->pid;
              return TRUE;
            }
          top += GROUP_HEIGHT;
        }

      if (is_collapsed (o, track->pid))
        continue;

      if (x >= tsl_render_label_width (o) && y >= top && y < top + th)
        {
          hit->track = i;
          if (track->exact)
            {
              int d = (int) ((y - top) / ROW_HEIGHT);
              /* A slice narrower than a pixel is hit across its pixel. */
              double px = tsl_render_x_to_time (o, x + 1) - t;

              for (guint s = 0; s < track->n_slices; s++)
                {
                  const TslSnapshotSlice *slice = &track->slices[s];

                  if ((double) slice->start_ns > t + px)
                    break;
                  if ((int) slice->depth == d && t < (double) slice->end_ns + px)
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
                      int d = (int) ((y - top) / ROW_HEIGHT);
                      hit->depth = d < (int) sample->n_frames ? d : -1;
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
