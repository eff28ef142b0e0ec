/* tsl-sampler-state.c: a sampler saved without its samples, and made again from them
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * For sampler state files (model/tsl-trace-state.c): a restored sampler is
 * checked against what the sampler's invariants allow, so that a damaged
 * file is refused, never trusted.
 */
#define G_LOG_DOMAIN "tsl-sampler"

#include <gio/gio.h>

#include "tsl-rng.h"
#include "tsl-sampler-private.h"

void
tsl_sampler_get_state (TslSampler      *self,
                       TslSamplerState *state)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (state != NULL);

  if (self->mode == TSL_SAMPLER_TIME)
    {
      _tsl_sampler_time_sync_level (self);
      self->last = NULL;
    }
  state->mode = self->mode;
  state->k = self->k;
  state->k_asked = self->k_asked;
  state->level = self->level;
  state->shift = self->shift;
  state->seed = self->seed;
  state->first_index = self->first_index;
  state->n_events = self->n_events;
}

static gboolean
bad_state (GError    **error,
           const char *what)
{
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
               "a sampler's %s is not one a sampler could hold", what);
  return FALSE;
}

/* What a sampler's invariants say of a restored one (so that a damaged
 * file cannot make a sampler that later misbehaves). */
static gboolean
check_samples (const TslSamplerState *state,
               const TslTimeGrid     *grid,
               const TslSample       *samples,
               guint                  n,
               GError               **error)
{
  guint64 total = 0;

  if (state->mode == TSL_SAMPLER_COUNT && n > 2 * (guint64) state->k)
    return bad_state (error, "number of samples");
  if (state->mode == TSL_SAMPLER_TIME && n > 2 * (guint64) state->k + 1)
    return bad_state (error, "number of samples");
  for (guint i = 0; i < n; i++)
    {
      const TslSample *s = &samples[i];

      if (s->summary.count == 0 || s->summary.count > state->n_events - total)
        return bad_state (error, "slice count");
      total += s->summary.count;
      if (i > 0 && samples[i - 1].slice >= s->slice)
        return bad_state (error, "slice order");
      if (state->mode == TSL_SAMPLER_COUNT)
        {
          if (s->index < state->first_index || s->index - state->first_index >= state->n_events ||
              (gint64) (s->index >> state->level) != s->slice)
            return bad_state (error, "kept event");
        }
      else
        {
          if (s->index >= state->n_events || floor_shift (s->time_ns, state->level) != s->slice)
            return bad_state (error, "kept event");
          if (grid->has_time &&
              (floor_shift (s->slice, state->shift) < grid->min_slice ||
               floor_shift (s->slice, state->shift) > grid->max_slice))
            return bad_state (error, "slice");
        }
    }
  if (total != state->n_events)
    return bad_state (error, "event count");
  if (state->mode == TSL_SAMPLER_COUNT && n > 0 &&
      ((guint64) samples[n - 1].slice - (guint64) samples[0].slice + 1 > 2 * (guint64) state->k ||
       ((guint64) samples[n - 1].slice + 1) << state->level <= state->first_index + state->n_events - 1))
    return bad_state (error, "slices");
  return TRUE;
}

TslSampler *
tsl_sampler_new_from_state (const TslSamplerState  *state,
                            TslTimeGrid            *grid,
                            const TslSample        *samples,
                            guint                   n_samples,
                            GError                **error)
{
  TslSampler *self;

  g_return_val_if_fail (state != NULL, NULL);
  g_return_val_if_fail (n_samples == 0 || samples != NULL, NULL);

  if (state->k == 0 || state->k > state->k_asked || state->k_asked > G_MAXINT / 4 ||
      state->level > 62 || state->shift > 62)
    return bad_state (error, "K or level"), NULL;
  if (state->mode == TSL_SAMPLER_TIME)
    {
      if (grid == NULL || state->level != grid->level + state->shift ||
          state->k_asked != grid->k || state->first_index != 0 ||
          (state->shift == 0) != (state->k == state->k_asked))
        return bad_state (error, "grid"), NULL;
    }
  else if (state->mode != TSL_SAMPLER_COUNT || state->shift != 0 ||
           state->first_index > G_MAXUINT64 - state->n_events)
    return bad_state (error, "mode"), NULL;
  if (!check_samples (state, grid, samples, n_samples, error))
    return NULL;

  self = _tsl_sampler_new (state->mode, state->k_asked, state->seed);
  self->k = state->k;
  self->max_held = 2 * state->k;
  self->level = state->level;
  self->shift = state->shift;
  self->first_index = state->first_index;
  self->n_events = state->n_events;
  if (state->mode == TSL_SAMPLER_TIME)
    self->grid = tsl_time_grid_ref (grid);
  if (n_samples + 1 > self->cap)
    {
      self->cap = MIN (self->max_held + 1, MAX (n_samples + 1, self->cap));
      self->cap = MAX (self->cap, n_samples);
      self->held = g_renew (TslSample, self->held, self->cap);
    }
  for (guint i = 0; i < n_samples; i++)
    {
      TslSample *s = &self->held[i];

      *s = samples[i];
      s->priority = tsl_mix64_keyed (self->seed_hash,
                                     state->mode == TSL_SAMPLER_COUNT ? s->index : (guint64) s->time_ns);
    }
  self->n_held = n_samples;
  if (state->mode == TSL_SAMPLER_COUNT)
    _tsl_sampler_update_cur_end (self);
  return self;
}
