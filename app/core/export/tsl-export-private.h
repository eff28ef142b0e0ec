/* tsl-export-private.h: shared by the writers of app/core/export/
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <cairo.h>

#include "tsl-export.h"

G_BEGIN_DECLS

typedef void (*TslExportPaintFunc) (cairo_t *cr, gconstpointer data);

/* Draws with `paint` on a width × height surface of `format` and replaces
 * `file` atomically; `paint` may call cairo_show_page() for more PDF pages. */
gboolean          _tsl_export_picture           (TslExportPaintFunc  paint,
                                                 gconstpointer       data,
                                                 double              width,
                                                 double              height,
                                                 const char         *title,
                                                 TslExportFormat     format,
                                                 GFile              *file,
                                                 GCancellable       *cancellable,
                                                 GError            **error);
/* The timeline of `o` (its content from o->scroll_y, o->height tall) on
 * pages of page_width × page_height pt, scaled to the page's width and cut
 * at track boundaries; the number of pages (tsl-export-pages.c). */
guint             _tsl_export_paint_pages       (cairo_t                *cr,
                                                 TslSnapshot            *snapshot,
                                                 const TslRenderOptions *o,
                                                 double                  page_width,
                                                 double                  page_height);

G_END_DECLS
