/* tsl-timeline-base.h: the timeline's tracks, painted once while only ranges or the crosshair change
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "tsl-render.h"

G_BEGIN_DECLS

typedef struct _TslTimelineBase TslTimelineBase;

TslTimelineBase  *tsl_timeline_base_new         (void);
void              tsl_timeline_base_free        (TslTimelineBase        *self);
/* (transfer none): the base of `options` over `snapshot` (see
 * tsl_render_paint_base()) at `scale` device pixels per pixel, painted
 * again only when it would differ from the one kept. NULL for an empty size. */
GdkTexture       *tsl_timeline_base_get         (TslTimelineBase        *self,
                                                 TslSnapshot            *snapshot,
                                                 const TslRenderOptions *options,
                                                 int                     scale);
/* Drops the kept base (and the snapshot it holds). */
void              tsl_timeline_base_clear       (TslTimelineBase        *self);
/* How many times a base was painted: tests check that a range alone paints none. */
guint             tsl_timeline_base_get_n_paints (TslTimelineBase       *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TslTimelineBase, tsl_timeline_base_free)

G_END_DECLS
