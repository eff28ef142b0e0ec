/* tsl-time-grid-private.h: a time grid's insides, for the samplers on it
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "tsl-time-grid.h"

G_BEGIN_DECLS

struct _TslTimeGrid
{
  gatomicrefcount ref_count;
  guint           k;
  guint           level;
  gboolean        has_time;
  /* Smallest and largest slice any track has seen, at `level`. */
  gint64          min_slice;
  gint64          max_slice;
};

/* Doubles the width while more than 2K slices are spanned (tsl-time-grid.c). */
void _tsl_time_grid_widen (TslTimeGrid *grid);

static inline gint64
floor_half (gint64 s)
{
  return (s - (s < 0)) / 2;
}

/* Floor division by 2^shift: GCC and Clang shift signed values arithmetically. */
static inline gint64
floor_shift (gint64 s,
             guint  shift)
{
  return shift >= 63 ? (s < 0 ? -1 : 0) : s >> shift;
}

/* Widens the grid's slice range to hold `time_ns`, doubling the width while
 * more than 2K slices are spanned. Returns the event's slice. */
static inline gint64
grid_note_time (TslTimeGrid *grid,
                gint64       time_ns)
{
  gint64 slice;

  if (G_UNLIKELY (!grid->has_time))
    {
      grid->has_time = TRUE;
      grid->min_slice = grid->max_slice = floor_shift (time_ns, grid->level);
    }

  slice = floor_shift (time_ns, grid->level);
  if (G_LIKELY (slice >= grid->min_slice && slice <= grid->max_slice))
    return slice;

  grid->min_slice = MIN (grid->min_slice, slice);
  grid->max_slice = MAX (grid->max_slice, slice);
  _tsl_time_grid_widen (grid);

  return floor_shift (time_ns, grid->level);
}

G_END_DECLS
