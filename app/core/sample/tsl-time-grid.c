/* tsl-time-grid.c: the time slices shared by a trace's time-mode samplers
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Slices are absolute: slice s at level L covers [s·2^L, (s+1)·2^L) ns, so
 * grids of two parts of a stream line up at any width and merge. The grid
 * widens (the level grows) while more than 2K slices are spanned; the check
 * on every event is inline in tsl-time-grid-private.h.
 */
#define G_LOG_DOMAIN "tsl-sampler"

#include <gio/gio.h>

#include "tsl-time-grid-private.h"

TslTimeGrid *
tsl_time_grid_new (guint k)
{
  TslTimeGrid *grid;

  g_return_val_if_fail (k > 0, NULL);

  grid = g_new0 (TslTimeGrid, 1);
  g_atomic_ref_count_init (&grid->ref_count);
  grid->k = k;
  return grid;
}

TslTimeGrid *
tsl_time_grid_ref (TslTimeGrid *grid)
{
  g_return_val_if_fail (grid != NULL, NULL);

  g_atomic_ref_count_inc (&grid->ref_count);
  return grid;
}

void
tsl_time_grid_unref (TslTimeGrid *grid)
{
  g_return_if_fail (grid != NULL);

  if (g_atomic_ref_count_dec (&grid->ref_count))
    g_free (grid);
}

gint64
tsl_time_grid_get_width (const TslTimeGrid *grid)
{
  g_return_val_if_fail (grid != NULL, 0);

  return G_GINT64_CONSTANT (1) << grid->level;
}

/* Slices are absolute: the origin is 0. */
gint64
tsl_time_grid_get_origin (const TslTimeGrid *grid)
{
  g_return_val_if_fail (grid != NULL, 0);

  return 0;
}

guint
tsl_time_grid_get_level (const TslTimeGrid *grid)
{
  g_return_val_if_fail (grid != NULL, 0);

  return grid->level;
}

gint64
tsl_time_grid_get_slice (const TslTimeGrid *grid,
                         gint64             time_ns)
{
  g_return_val_if_fail (grid != NULL, 0);

  return floor_shift (time_ns, grid->level);
}

/* Doubles the width while more than 2K slices are spanned. The span in
 * slices never grows with the level, so the level reached is the smallest
 * that holds every time seen, whatever their order. (Unsigned: a broken
 * file's times may span the whole of gint64.) */
void
_tsl_time_grid_widen (TslTimeGrid *grid)
{
  while ((guint64) grid->max_slice - (guint64) grid->min_slice >= (guint64) grid->k * 2)
    {
      grid->level++;
      grid->min_slice = floor_half (grid->min_slice);
      grid->max_slice = floor_half (grid->max_slice);
    }
}

void
tsl_time_grid_get_state (const TslTimeGrid *grid,
                         TslTimeGridState  *state)
{
  g_return_if_fail (grid != NULL);
  g_return_if_fail (state != NULL);

  state->k = grid->k;
  state->level = grid->level;
  state->has_time = grid->has_time;
  state->min_slice = grid->has_time ? grid->min_slice : 0;
  state->max_slice = grid->has_time ? grid->max_slice : 0;
}

TslTimeGrid *
tsl_time_grid_new_from_state (const TslTimeGridState  *state,
                              GError                 **error)
{
  TslTimeGrid *grid;

  g_return_val_if_fail (state != NULL, NULL);

  if (state->k == 0 || state->k > G_MAXINT / 4 || state->level > 62 ||
      (state->has_time &&
       ((guint64) state->max_slice - (guint64) state->min_slice >= (guint64) state->k * 2 ||
        state->max_slice < state->min_slice)) ||
      (!state->has_time && state->level != 0))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                           "the time grid is not one a sampler could make");
      return NULL;
    }

  grid = tsl_time_grid_new (state->k);
  grid->level = state->level;
  grid->has_time = state->has_time;
  grid->min_slice = state->min_slice;
  grid->max_slice = state->max_slice;
  return grid;
}

void
tsl_time_grid_merge (TslTimeGrid       *self,
                     const TslTimeGrid *other)
{
  gint64 lo, hi;

  g_return_if_fail (self != NULL);
  g_return_if_fail (other != NULL);

  if (!other->has_time)
    return;
  lo = other->min_slice;
  hi = other->max_slice;
  if (!self->has_time)
    {
      self->has_time = TRUE;
      self->level = other->level;
      self->min_slice = lo;
      self->max_slice = hi;
      return;
    }
  while (self->level < other->level)
    {
      self->level++;
      self->min_slice = floor_half (self->min_slice);
      self->max_slice = floor_half (self->max_slice);
    }
  lo = floor_shift (lo, self->level - other->level);
  hi = floor_shift (hi, self->level - other->level);
  self->min_slice = MIN (self->min_slice, lo);
  self->max_slice = MAX (self->max_slice, hi);
  _tsl_time_grid_widen (self);
}
