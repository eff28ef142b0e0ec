/* tsl-range-stats-private.h: what the range statistics' files share
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "tsl-range-stats.h"
#include "tsl-rng.h"

G_BEGIN_DECLS

struct _TslRangeStats {
  gint        ref_count;
  TslTrace   *trace;
  gint64      lo;
  gint64      hi;
  gint64      grid_hi;
  GPtrArray  *tracks;     /* TslRangeTrack *, by the trace's track index (NULL: none yet) */
  guint64     stamp;
  TslRng      rng;
  gint64      data_end;
  gboolean    finished;
  gboolean    collapsed;    /* an event's value is its line's count */
  guint       max_paths;    /* 0: no paths */
  guint       n_paths;
  guint64     folded;
  GHashTable *folded_paths; /* distinct paths folded (counted up to a bound) */
  guint       n_slots;      /* the length of every block array */
  guint       n_blocks;     /* of them in use */
  /* Growing blocks (tsl_range_stats_new_growing()): 2^shift ns wide, the
   * first being the base-th such width from time 0; the events' extent. */
  gboolean    grow;
  gboolean    seen;
  guint       shift;
  gint64      base;
  gint64      seen_lo;
  gint64      seen_hi;
  gint64     *edges;        /* (n_blocks + 1) where each starts, once finished */
  gboolean    no_durations; /* keeps no durations (tsl-range-stats-group.c) */
  guint64     n_name_events; /* events taken by their names' ids, without a label */
};

/* The observer tsl_range_stats_new() sets on its trace (user_data: the
 * stats), for a group of stats sharing one read. */
void  _tsl_range_stats_on_event        (guint          track,
                                        gint64         time_ns,
                                        double         value,
                                        const char    *label,
                                        gboolean       in_range,
                                        gpointer       user_data);

/* For tests: events taken by their names' ids, without their label. */
guint64 _tsl_range_stats_get_n_name_events (TslRangeStats *self);
/* For tests: every event through its label, as before names were taken
 * (call before the read). */
void    _tsl_range_stats_take_labels   (TslRangeStats *self);

/* Growing blocks (tsl-range-stats-grow.c). */
guint _tsl_range_stats_fitting_shift   (gint64         lo,
                                        gint64         hi,
                                        guint          shift);
guint _tsl_range_stats_regrow          (TslRangeStats *self,
                                        gint64         t);
void  _tsl_range_stats_finish_growing  (TslRangeStats *self,
                                        gint64         start,
                                        gint64         end);

G_END_DECLS
