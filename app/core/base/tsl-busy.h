/* tsl-busy.h: the union of overlapping spans, as busy time
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Async spans of one name overlap each other, so the sum of their
 * durations can exceed the time they cover (a range's "share" read 2269 %).
 * This keeps the disjoint stretches they cover, in any order of arrival.
 * Memory: at most `max_stretches` stretches of 16 bytes; past that the
 * shortest half of the gaps between them count as busy (the union only
 * grows, so a share stays within 100 %), and tsl_busy_get_folded() says so.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _TslBusy TslBusy;

TslBusy  *tsl_busy_new          (guint          max_stretches);
void      tsl_busy_free         (TslBusy       *self);
/* Adds [start, end); empty or reversed spans are ignored. */
void      tsl_busy_add          (TslBusy       *self,
                                 gint64         start,
                                 gint64         end);
guint     tsl_busy_get_n        (TslBusy       *self);
/* TRUE when gaps were folded in to stay within max_stretches. */
gboolean  tsl_busy_get_folded   (TslBusy       *self);
/* Adds to out[j] the busy time inside [edges[j], edges[j + 1]) for each
 * j < n (edges ascending); returns the busy time inside [edges[0],
 * edges[n]). */
double    tsl_busy_spread       (TslBusy       *self,
                                 const gint64  *edges,
                                 guint          n,
                                 double        *out);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TslBusy, tsl_busy_free)

G_END_DECLS
