/* tsl-sampler-private.h: a sampler's insides, for its state files' code
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "tsl-sampler.h"
#include "tsl-time-grid-private.h"

G_BEGIN_DECLS

struct _TslSampler
{
  TslSamplerMode  mode;
  guint           k;            /* lowered when the budget refuses more room */
  guint           max_held;     /* 2K */
  guint           n_held;
  guint           level;        /* T = 1 << level (count), or grid level + shift */
  guint           hint;         /* time mode: block the previous event went to */
  guint64         seed;
  guint64         seed_hash;
  guint64         first_index;
  guint64         n_events;
  guint64         cur_end;      /* count mode: first index after the last block */
  TslSample      *last;         /* block the previous offer made its kept sample */
  TslTimeGrid    *grid;
  TslSample      *held;         /* `cap` slots, grown as blocks are kept */
  /* Off the per-event path: */
  guint           cap;          /* 2j + 1, up to max_held + 1 */
  guint           shift;        /* time mode: levels above the grid's once K was lowered */
  guint           k_asked;
  TslBudget      *budget;       /* (nullable) what `held` grows from */
  gsize           taken;        /* bytes taken from `budget` */
};

/* Slots a sampler starts with: tracks of a few events (most of them when a
 * trace has thousands of threads) never need more. */
#define FIRST_SLOTS 9

TslSampler *_tsl_sampler_new             (TslSamplerMode  mode,
                                          guint           k,
                                          guint64         seed);
/* Time mode: coarsens until the sampler's level is the grid's (plus its shift). */
void        _tsl_sampler_time_sync_level (TslSampler     *self);
/* Count mode: where the held blocks end. */
void        _tsl_sampler_update_cur_end  (TslSampler     *self);

G_END_DECLS
