/* tsl-first-view.h: where a trace's activity is, for the view it opens on
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A recording whose last dozen events come seconds after the rest opened
 * mostly blank (issue 32, item 6). The first view is the smallest time
 * range holding `fraction` of the events (TSL_FIRST_VIEW_FRACTION), from
 * the snapshot's exact slice counts (tsl-sampler.h), not its samples.
 */
#pragma once

#include "tsl-snapshot.h"

G_BEGIN_DECLS

#define TSL_FIRST_VIEW_FRACTION 0.999

/* FALSE when the whole span is the better view: the range would be more
 * than TSL_FIRST_VIEW_MIN_SHRINK of it, or there are no events. Else
 * [start_ns, end_ns) from the trace start, with a little room each side,
 * and how many events lie outside it. */
#define TSL_FIRST_VIEW_MIN_SHRINK 0.75

gboolean          tsl_first_view_find           (TslSnapshot    *snapshot,
                                                 double          fraction,
                                                 gint64         *start_ns,
                                                 gint64         *end_ns,
                                                 guint64        *outside);

G_END_DECLS
