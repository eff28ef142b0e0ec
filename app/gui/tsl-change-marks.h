/* tsl-change-marks.h: change points drawn as marks on the overview and the ruler
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Half the width a mark answers a click in, in pixels. */
#define TSL_CHANGE_MARK_REACH 5.0

/* Draws a mark at each of `xs` from `top` to `bottom`, a flag at the top,
 * in the accent colour the compare table marks significant rows with; the
 * current one (-1: none) stronger. */
void              tsl_change_marks_draw         (GtkWidget    *widget,
                                                 cairo_t      *cr,
                                                 const double *xs,
                                                 guint         n,
                                                 int           current,
                                                 double        top,
                                                 double        bottom);
/* The mark nearest `x` within TSL_CHANGE_MARK_REACH, else -1. */
int               tsl_change_marks_hit          (const double *xs,
                                                 guint         n,
                                                 double        x);

G_END_DECLS
