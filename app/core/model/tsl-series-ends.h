/* tsl-series-ends.h: where each metric series of a whole file ends
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The span-end rule (docs/statistics.md): a metric's last point holds for
 * the series' median sampling gap. Both facts are of the whole file: its
 * latest time, and the median of the first TSL_SERIES_MAX_GAPS steps by
 * which a point's time passed the latest one before it, in the order the
 * reader offers them (the file is not sorted). A TslSeriesRecorder finds
 * them from every point; a range read through the chunk index sees only
 * some chunks, so the read that records the index keeps them in a
 * TslSeriesEnds table (by series identity) that range reads look up
 * (tsl_trace_get_file_series_end()).
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define TSL_SERIES_MAX_GAPS 2049

typedef struct {
  gboolean has_last;       /* a point that is not NaN */
  gint64   last_ns;
  guint    n_gaps;
  double   median_gap_ns;  /* 0 without gaps */
} TslSeriesEnd;

typedef struct {
  gboolean offered;        /* any point, NaN too */
  gboolean has_last;
  gint64   last_ns;
  GArray  *gaps;           /* double ns, NULL until the first */
} TslSeriesRecorder;

void              _tsl_series_recorder_add_gap  (TslSeriesRecorder *self,
                                                 gint64             time_ns);

/* Every point offered, NaN ones too (they are skipped). Inline: a whole
 * read that records an index passes every metric point here. */
static inline void
tsl_series_recorder_add (TslSeriesRecorder *self,
                         gint64             time_ns,
                         double             value)
{
  self->offered = TRUE;
  if (value != value)   /* NaN */
    return;
  if (G_LIKELY (self->has_last))
    {
      if (time_ns <= self->last_ns)
        return;
      if (self->gaps == NULL || self->gaps->len < TSL_SERIES_MAX_GAPS)
        _tsl_series_recorder_add_gap (self, time_ns);
    }
  self->last_ns = time_ns;
  self->has_last = TRUE;
}
/* Sorts the gaps (the recorder takes no more after). */
void              tsl_series_recorder_finish    (TslSeriesRecorder *self,
                                                 TslSeriesEnd      *end);
void              tsl_series_recorder_clear     (TslSeriesRecorder *self);

/* Immutable once made: shared by an index and the traces read through it. */
typedef struct _TslSeriesEnds TslSeriesEnds;

TslSeriesEnds    *tsl_series_ends_new           (void);
TslSeriesEnds    *tsl_series_ends_ref           (TslSeriesEnds     *self);
void              tsl_series_ends_unref         (TslSeriesEnds     *self);
/* A series (`kind` a TslTrackKind) with a point offered, possibly NaN;
 * the last one of an identity counts. */
void              tsl_series_ends_add           (TslSeriesEnds     *self,
                                                 guint              kind,
                                                 gint64             pid,
                                                 gint64             tid,
                                                 const char        *name,
                                                 const TslSeriesEnd *end);
/* NULL when the series had no point. */
const TslSeriesEnd *tsl_series_ends_lookup      (TslSeriesEnds     *self,
                                                 guint              kind,
                                                 gint64             pid,
                                                 gint64             tid,
                                                 const char        *name);
guint             tsl_series_ends_get_n         (TslSeriesEnds     *self);
/* Series i, in the order added. (transfer none) */
const TslSeriesEnd *tsl_series_ends_get         (TslSeriesEnds     *self,
                                                 guint              i,
                                                 guint             *kind,
                                                 gint64            *pid,
                                                 gint64            *tid,
                                                 const char       **name);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TslSeriesEnds, tsl_series_ends_unref)

G_END_DECLS
