/* tsl-render-private.h: what the cairo painters share
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <cairo.h>
#include <glib.h>

#include "tsl-render.h"

G_BEGIN_DECLS

typedef struct { double r, g, b; } Rgb;

/* The timeline's layout (tsl-render-layout.c): a stack track's rows, and
 * the bands above, between and below the tracks. A stack track has a row
 * per level it holds, unless options->max_rows caps it (see
 * _tsl_render_rows()). */
#define TSL_RENDER_ROW_HEIGHT   15
#define TSL_RENDER_TITLE_HEIGHT 34
#define TSL_RENDER_GROUP_HEIGHT 24
#define TSL_RENDER_TRACK_GAP    6
#define TSL_RENDER_NOTE_HEIGHT  22

typedef struct {
  Rgb bg;
  Rgb fg;
  Rgb dim;
  Rgb grid;
  Rgb gutter;
  Rgb group;
} TslRenderTheme;

/* The empty picture's line: how many events were read, none drawable. */
char             *_tsl_render_empty_text        (guint64              events);
void              _tsl_render_theme_init        (TslRenderTheme      *theme,
                                                 gboolean             dark);

static inline void
_tsl_render_set_rgb (cairo_t   *cr,
                     const Rgb *c,
                     double     alpha)
{
  cairo_set_source_rgba (cr, c->r, c->g, c->b, alpha);
}

/* tsl-render-layout.c */
double            _tsl_render_counter_height    (const TslRenderOptions *o);
/* A thread or async track's levels drawn as rows: all of them (the deepest
 * nesting of its slices or kept samples), or o->max_rows when that is
 * fewer; *hidden (nullable) gets how many levels lie below, which a
 * "+N levels" row under the others marks. */
guint             _tsl_render_rows              (const TslRenderOptions *o,
                                                 const TslSnapshotTrack *track,
                                                 guint                  *hidden);
/* The middle of the row of `depth` (a hidden level: the "+N levels" row). */
double            _tsl_render_row_middle        (const TslRenderOptions *o,
                                                 const TslSnapshotTrack *track,
                                                 guint                   depth,
                                                 double                  top);
/* A track's height on screen, the gap below it included. */
double            _tsl_render_height_of         (const TslRenderOptions *o,
                                                 const TslSnapshotTrack *track);
gboolean          _tsl_render_starts_group      (TslSnapshot            *snapshot,
                                                 guint                   i);
gboolean          _tsl_render_is_collapsed      (const TslRenderOptions *o,
                                                 gint64                  pid);

/* tsl-render-ruler.c: the ruler's band at `top`, and the ticks' lines from
 * `top` down. */
void              _tsl_render_ruler             (cairo_t                *cr,
                                                 const TslRenderOptions *o,
                                                 const TslRenderTheme   *theme,
                                                 double                  top);
void              _tsl_render_grid              (cairo_t                *cr,
                                                 const TslRenderOptions *o,
                                                 const TslRenderTheme   *theme,
                                                 double                  top);

/* Draws `text` at (x, y), ellipsized to `max_width`; text that cairo would
 * refuse (invalid UTF-8, noncharacters) is drawn with U+FFFD instead. */
void              _tsl_render_show_text         (cairo_t             *cr,
                                                 double               x,
                                                 double               y,
                                                 double               max_width,
                                                 const char          *text);

/* A cairo target the painter may write pixels into directly (docs/ARCHITECTURE.md, "Painters"):
 * pixels is NULL when it may not, and drawing goes through cairo. */
typedef struct {
  guint32 *pixels;       /* NULL: draw with cairo */
  int      stride;       /* in pixels */
  int      width;
  int      height;
  int      ox;           /* user to device translation */
  int      oy;
  double   clip_top;     /* the tracks' area starts here (user space) */
} TslRenderCanvas;

void              _tsl_render_canvas_init       (TslRenderCanvas     *c,
                                                 cairo_t             *cr,
                                                 double               clip_top,
                                                 double               clip_right,
                                                 double               clip_bottom);
/* Fills [x0, x1) × [y0, y1) (user space, whole pixels) with rgb at alpha. */
void              _tsl_render_canvas_fill       (TslRenderCanvas     *c,
                                                 double               x0,
                                                 double               y0,
                                                 double               x1,
                                                 double               y1,
                                                 const double        *rgb,
                                                 double               alpha);

/* A one-pixel line from (x0, y0) to (x1, y1) (user space), rgb at alpha
 * "over", only where x >= min_x inside the tracks' clip. */
void              _tsl_render_canvas_line       (TslRenderCanvas     *c,
                                                 double               x0,
                                                 double               y0,
                                                 double               x1,
                                                 double               y1,
                                                 double               min_x,
                                                 const double        *rgb,
                                                 double               alpha);

/* tsl-render-flows.c: the exact view's flow arrows, over the tracks;
 * tops[i] is track i's top (NAN when not drawn). */
void              _tsl_render_flows             (cairo_t                *cr,
                                                 TslRenderCanvas        *canvas,
                                                 TslSnapshot            *snapshot,
                                                 const TslRenderOptions *o,
                                                 const TslRenderTheme   *theme,
                                                 const double           *tops);

/* tsl-render-tracks.c: one track's content, its top at `top`. */
gboolean          _tsl_render_matches           (const TslRenderOptions *o,
                                                 const char             *name);
void              _tsl_render_stacks            (cairo_t                *cr,
                                                 TslRenderCanvas        *canvas,
                                                 TslSnapshot            *snapshot,
                                                 const TslSnapshotTrack *track,
                                                 const TslRenderOptions *o,
                                                 double                  top);
void              _tsl_render_slices            (cairo_t                *cr,
                                                 TslRenderCanvas        *canvas,
                                                 TslSnapshot            *snapshot,
                                                 const TslSnapshotTrack *track,
                                                 const TslRenderOptions *o,
                                                 double                  top);
void              _tsl_render_series            (cairo_t                *cr,
                                                 const TslSnapshotTrack *track,
                                                 const TslRenderOptions *o,
                                                 const TslRenderTheme   *theme,
                                                 double                  top);
/* The crosshair's dot and value on a series track (an overlay). */
void              _tsl_render_series_crosshair  (cairo_t                *cr,
                                                 const TslSnapshotTrack *track,
                                                 const TslRenderOptions *o,
                                                 const TslRenderTheme   *theme,
                                                 double                  top);
void              _tsl_render_mark              (cairo_t                *cr,
                                                 const TslRenderOptions *o,
                                                 const TslRenderTheme   *theme,
                                                 const TslSnapshotTrack *track,
                                                 double                  top);

G_END_DECLS
