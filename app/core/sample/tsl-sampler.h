/* tsl-sampler.h: timesliced reservoir sampler with exact slice summaries
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One sampler per track. It keeps one sample per slice and between K and 2K
 * slices (fewer only while the track has fewer than K events), plus exact
 * count/sum/min/max per slice. See docs/ARCHITECTURE.md, "The sampler":
 * priorities are "permanent random numbers" u = tsl_mix64 (seed, key), so two
 * samplers over consecutive parts of a stream merge into exactly the
 * single-pass result.
 *
 * Not thread-safe: a sampler belongs to its trace and is guarded by the
 * trace's lock (tsl_trace_lock()) whenever a reader may be feeding it.
 */
#pragma once

#include <glib.h>

#include "tsl-budget.h"
#include "tsl-time-grid.h"

G_BEGIN_DECLS

typedef enum {
  TSL_SAMPLER_COUNT, /* slices of T consecutive events (the seed's algorithm) */
  TSL_SAMPLER_TIME,  /* slices of equal duration on a grid shared by a trace */
} TslSamplerMode;

/* count includes events whose value is NAN (no value); sum, min and max skip
 * them, and min/max are NAN when the slice has no value at all.
 *
 * The sum is exact: sum + sum_lo is the exact sum of the slice's values, sum
 * its correct rounding and sum_lo the rest (+0 when none), so it does not
 * depend on the order events or parts were added in. sum_lo is NAN once the
 * exact sum no longer fits two doubles (values more than ~2^100 apart in one
 * slice, infinities, overflow): sum is then a plain running sum. */
typedef struct {
  guint64 count;
  double  sum;
  double  min;
  double  max;
  double  sum_lo;
} TslSummary;

typedef struct {
  gint64     slice;     /* slice number at the sampler's current level */
  guint64    index;     /* the kept event's ordinal in its track, 0-based */
  gint64     time_ns;   /* the kept event's time */
  double     value;     /* the kept event's value (NAN when none) */
  guint32    label;     /* caller's id for the payload (0 = none yet) */
  guint64    priority;  /* smaller wins */
  TslSummary summary;   /* exact over every event of the slice */
} TslSample;

typedef struct _TslSampler TslSampler;

/* Everything of a sampler but its samples. */
typedef struct {
  TslSamplerMode mode;
  guint          k;          /* as now (lowered by a budget, or not) */
  guint          k_asked;
  guint          level;
  guint          shift;      /* time mode: levels above the grid's */
  guint64        seed;
  guint64        first_index;
  guint64        n_events;
} TslSamplerState;

TslSampler       *tsl_sampler_new_count        (guint                 k,
                                                guint64               seed,
                                                guint64               first_index);
TslSampler       *tsl_sampler_new_time         (TslTimeGrid          *grid,
                                                guint64               seed);
void              tsl_sampler_free             (TslSampler           *self);
void              tsl_sampler_set_budget       (TslSampler           *self,
                                                TslBudget            *budget);
/* TRUE once the budget lowered K below what the sampler was made with. */
gboolean          tsl_sampler_get_k_lowered    (const TslSampler     *self);
TslSamplerMode    tsl_sampler_get_mode         (const TslSampler     *self);
guint             tsl_sampler_get_k            (const TslSampler     *self);
guint64           tsl_sampler_get_seed         (const TslSampler     *self);
guint64           tsl_sampler_get_first_index  (const TslSampler     *self);

/* The hot path. Counts the event into its slice's summary and returns TRUE when
 * it becomes its slice's kept sample; only then does the caller parse the
 * payload and attach it with tsl_sampler_set_label(). */
gboolean          tsl_sampler_offer            (TslSampler           *self,
                                                gint64                time_ns,
                                                double                value);
/* tsl_sampler_offer(), and tsl_sampler_set_label() if it keeps the event. */
gboolean          tsl_sampler_offer_labelled   (TslSampler           *self,
                                                gint64                time_ns,
                                                double                value,
                                                guint32               label);
void              tsl_sampler_set_label        (TslSampler           *self,
                                                guint32               label);

guint64           tsl_sampler_get_events       (const TslSampler     *self);
/* Count mode: events per slice (T). Time mode: slice width in ns. */
gint64            tsl_sampler_get_slice_size   (const TslSampler     *self);
/* Samples in slice order; valid until the next offer. */
const TslSample  *tsl_sampler_peek_samples     (TslSampler           *self,
                                                guint                *n_samples);
gsize             tsl_sampler_get_peak_bytes   (const TslSampler     *self);

/* Rewrites the label of every held sample (for collecting unused labels). */
typedef guint32 (*TslLabelRemap)                (guint32               label,
                                                 gpointer              data);
void              tsl_sampler_remap_labels      (TslSampler           *self,
                                                 TslLabelRemap         remap,
                                                 gpointer              data);

/* `other` covers the events right after `self`'s. Count mode: `other`'s
 * first index is where `self` ends. Time mode: both on grids whose times
 * `self`'s grid already holds (tsl_time_grid_merge()); `other`'s ordinals
 * are counted after `self`'s. Either way the result is what one sampler fed
 * both parts would hold, bit for bit (see tsl-sampler.c). */
gboolean          tsl_sampler_merge            (TslSampler           *self,
                                                const TslSampler     *other,
                                                GError              **error);

/* In time mode this first catches up with the grid's width. */
void              tsl_sampler_get_state        (TslSampler             *self,
                                                TslSamplerState        *state);
/* A sampler holding `samples` (their priorities are recomputed; labels are
 * kept as given). (transfer full) (nullable): NULL, with `error` set, when
 * the state or samples are not what a sampler could hold. */
TslSampler       *tsl_sampler_new_from_state   (const TslSamplerState  *state,
                                                TslTimeGrid            *grid,
                                                const TslSample        *samples,
                                                guint                   n_samples,
                                                GError                **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TslSampler, tsl_sampler_free)

G_END_DECLS
