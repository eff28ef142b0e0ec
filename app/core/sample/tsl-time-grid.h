/* tsl-time-grid.h: the time slices shared by a trace's time-mode samplers (tsl-time-grid.c)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Not thread-safe: like its samplers, a grid is guarded by its trace's lock.
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* Shared time grid for TSL_SAMPLER_TIME: slice s covers
 * [origin + s * width, origin + (s + 1) * width) with width = 1 << level ns.
 * Every sampler of one trace points at the same grid so slices line up. */
typedef struct _TslTimeGrid TslTimeGrid;

/* Everything of a time grid but its samplers, for sampler states
 * (model/tsl-trace-state.c). */
typedef struct {
  guint    k;
  guint    level;
  gboolean has_time;    /* a time was noted: min_slice..max_slice is set */
  gint64   min_slice;
  gint64   max_slice;
} TslTimeGridState;

TslTimeGrid      *tsl_time_grid_new            (guint                 k);
TslTimeGrid      *tsl_time_grid_ref            (TslTimeGrid          *grid);
void              tsl_time_grid_unref          (TslTimeGrid          *grid);
gint64            tsl_time_grid_get_width      (const TslTimeGrid    *grid);
gint64            tsl_time_grid_get_origin     (const TslTimeGrid    *grid);
/* width == 1 << level */
guint             tsl_time_grid_get_level      (const TslTimeGrid    *grid);
/* The slice holding time_ns at the grid's current width. */
gint64            tsl_time_grid_get_slice      (const TslTimeGrid    *grid,
                                                gint64                time_ns);

void              tsl_time_grid_get_state      (const TslTimeGrid      *grid,
                                                TslTimeGridState       *state);
/* (transfer full) (nullable): NULL, with `error` set, for a state no grid has. */
TslTimeGrid      *tsl_time_grid_new_from_state (const TslTimeGridState *state,
                                                GError                **error);
/* Widens `self` to hold every time `other` holds, as if it had seen them. */
void              tsl_time_grid_merge          (TslTimeGrid            *self,
                                                const TslTimeGrid      *other);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TslTimeGrid, tsl_time_grid_unref)

G_END_DECLS
