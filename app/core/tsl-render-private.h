/* tsl-render-private.h: what the cairo painters share
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <cairo.h>
#include <glib.h>

G_BEGIN_DECLS

typedef struct { double r, g, b; } Rgb;

typedef struct {
  Rgb bg;
  Rgb fg;
  Rgb dim;
  Rgb grid;
  Rgb gutter;
  Rgb group;
} TslRenderTheme;

void              _tsl_render_theme_init        (TslRenderTheme      *theme,
                                                 gboolean             dark);
/* Draws `text` at (x, y), ellipsized to `max_width`; text that cairo would
 * refuse (invalid UTF-8, noncharacters) is drawn with U+FFFD instead. */
void              _tsl_render_show_text         (cairo_t             *cr,
                                                 double               x,
                                                 double               y,
                                                 double               max_width,
                                                 const char          *text);

G_END_DECLS
