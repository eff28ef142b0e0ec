/* tsl-overview.h: the whole trace in miniature, the timeline's view as a window on it
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "tsl-timeline-view.h"

G_BEGIN_DECLS

#define TSL_TYPE_OVERVIEW (tsl_overview_get_type ())
G_DECLARE_FINAL_TYPE (TslOverview, tsl_overview, TSL, OVERVIEW, GtkWidget)

/* The timeline it shows and pans (the "timeline" property). */
void              tsl_overview_set_timeline     (TslOverview     *self,
                                                 TslTimelineView *timeline);
/* x of trace time t (ns from the trace start), as drawn. */
double            tsl_overview_time_to_x        (TslOverview     *self,
                                                 double           t);

/* Significant change points (ns from the trace start), marked; `current`
 * (-1: none) is the one chosen. A click on one emits "change-activated"
 * with its index. */
void              tsl_overview_set_change_marks (TslOverview     *self,
                                                 const gint64    *times_ns,
                                                 guint            n,
                                                 int              current);

G_END_DECLS
