/* tsl-render-flame.h: the cairo painter of flame graphs
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Width is share, root at the bottom (or at the top: icicle). A range's
 * frames take tsl_render_name_color(); a differential tree's take red where
 * B's share grew, blue where it shrank, grey where it did not change, with
 * significant frames saturated and marked by a dot and outline while
 * insignificant changes stay pale however large. GTK-free: the widget
 * calls it from snapshot, export on an image/SVG/PDF surface.
 */
#pragma once

#include <cairo.h>

#include "tsl-flame.h"

G_BEGIN_DECLS

#define TSL_RENDER_FLAME_ROW_HEIGHT 18

typedef struct {
  double              width;        /* logical pixels */
  double              height;
  gboolean            dark;
  gboolean            icicle;       /* root at the top */
  const TslFlameNode *zoom;         /* (nullable) drawn full width; its ancestors above/below */
  const char         *highlight;    /* search text: matching frames stand out */
  const char         *title;        /* heading line (export); NULL for none */
  const char         *subtitle;     /* one line under the title, e.g. the ranges */
  gboolean            legend;       /* key of the differential colours */
  const char         *empty_text;   /* shown without a tree; NULL for the default */
} TslFlameRenderOptions;

void                tsl_render_flame_options_init    (TslFlameRenderOptions       *options,
                                                      double                       width,
                                                      double                       height);
void                tsl_render_flame_paint           (cairo_t                     *cr,
                                                      TslFlame                    *flame,
                                                      const TslFlameRenderOptions *options);
/* Height that shows every level of the tree. */
double              tsl_render_flame_natural_height  (TslFlame                    *flame,
                                                      const TslFlameRenderOptions *options);
/* The frame under (x, y), or NULL; (transfer none). */
const TslFlameNode *tsl_render_flame_hit_test        (TslFlame                    *flame,
                                                      const TslFlameRenderOptions *options,
                                                      double                       x,
                                                      double                       y);
/* Hover text of a frame: its call path, share and samples, and for a
 * differential tree A share, B share, change, interval and q-value.
 * `markup` escapes names and emboldens the frame. (transfer full) */
char               *tsl_render_flame_describe        (TslFlame                    *flame,
                                                      const TslFlameNode          *node,
                                                      gboolean                     markup);
/* Fill colour of a differential frame (r, g, b in 0..1); exposed for tests. */
void                tsl_render_flame_diff_color      (const TslFlameDiff          *diff,
                                                      gboolean                     dark,
                                                      double                      *rgb);

G_END_DECLS
