/* tsl-range-stats-group.c: the exact figures of several ranges in one read
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The compare's shifted comparisons (tsl-compare-shifts.c) need the same
 * figures for many disjoint ranges next to each other. Read one by one,
 * each read pays for the chunks around its range again (on an unsorted
 * file a 1 % range reads ~10 % of it); read together, the chunks of their
 * whole extent are read once. Each stats object sees exactly what its own
 * read would give it: every metric point (they tell where a series ends)
 * and, inside its range only, the other events with their labels.
 */
#define G_LOG_DOMAIN "tsl-range-stats"

#include "config.h"

#include <string.h>

#include "tsl-range-stats-private.h"

struct _TslRangeStatsGroup {
  TslTrace       *trace;
  guint           n;
  gint64         *lo;      /* in time order, disjoint */
  gint64         *hi;
  TslRangeStats **stats;   /* in time order */
  guint          *at;      /* the caller's i → its place in time order */
  GByteArray     *seen;    /* by track: some event of it came */
};

/* The range holding t, or n. */
static guint
find_range (const TslRangeStatsGroup *self,
            gint64                    t)
{
  guint a = 0, b = self->n;

  while (a < b)
    {
      guint m = (a + b) / 2;

      if (self->hi[m] <= t)
        a = m + 1;
      else
        b = m;
    }
  return a < self->n && self->lo[a] <= t ? a : self->n;
}

static void
group_event (guint       track,
             gint64      time_ns,
             double      value,
             const char *label,
             gboolean    in_range,
             gpointer    user_data)
{
  TslRangeStatsGroup *self = user_data;
  TslTrackKind kind = tsl_trace_track_get_kind (self->trace, track);
  guint at = in_range ? find_range (self, time_ns) : self->n;

  /* Every metric point tells each range where its series ends. */
  if (kind == TSL_TRACK_COUNTER || kind == TSL_TRACK_METRIC)
    {
      for (guint i = 0; i < self->n; i++)
        _tsl_range_stats_on_event (track, time_ns, value, label, i == at, self->stats[i]);
      return;
    }
  /* Any event makes its track known to a read, in its range or not: so
   * here, to every range, once. */
  if (track >= self->seen->len)
    {
      guint was = self->seen->len;

      /* New bytes are not cleared. */
      g_byte_array_set_size (self->seen, track + 1);
      memset (self->seen->data + was, 0, track + 1 - was);
    }
  if (!self->seen->data[track])
    {
      self->seen->data[track] = 1;
      for (guint i = 0; i < self->n; i++)
        if (i != at)
          _tsl_range_stats_on_event (track, time_ns, value, NULL, FALSE, self->stats[i]);
    }
  if (at < self->n)
    _tsl_range_stats_on_event (track, time_ns, value, label, TRUE, self->stats[at]);
}

static int
compare_lo (gconstpointer a,
            gconstpointer b,
            gpointer      data)
{
  const gint64 *lo = data;
  gint64 x = lo[*(const guint *) a], y = lo[*(const guint *) b];

  return (x > y) - (x < y);
}

/**
 * tsl_range_stats_group_new:
 * @lo, @hi, @grid_hi: (array length=n): each range as for
 *   tsl_range_stats_new(); the ranges must not overlap
 *
 * Observes @trace (set its time filter to cover every range first) for
 * @n ranges at once.
 */
TslRangeStatsGroup *
tsl_range_stats_group_new (TslTrace     *trace,
                           guint         n,
                           const gint64 *lo,
                           const gint64 *hi,
                           const gint64 *grid_hi)
{
  TslRangeStatsGroup *self;
  g_autofree guint *order = NULL;

  g_return_val_if_fail (TSL_IS_TRACE (trace), NULL);
  g_return_val_if_fail (n > 0, NULL);

  self = g_new0 (TslRangeStatsGroup, 1);
  self->trace = g_object_ref (trace);
  self->n = n;
  self->lo = g_new (gint64, n);
  self->hi = g_new (gint64, n);
  self->stats = g_new0 (TslRangeStats *, n);
  self->at = g_new (guint, n);
  self->seen = g_byte_array_new ();
  order = g_new (guint, n);
  for (guint i = 0; i < n; i++)
    order[i] = i;
  g_qsort_with_data (order, n, sizeof (guint), compare_lo, (gpointer) lo);
  for (guint i = 0; i < n; i++)
    {
      guint c = order[i];

      g_warn_if_fail (i == 0 || lo[c] >= self->hi[i - 1]);
      self->lo[i] = lo[c];
      self->hi[i] = hi[c];
      self->at[c] = i;
      self->stats[i] = tsl_range_stats_new (trace, lo[c], hi[c], grid_hi[c]);
      /* Only quantile rows read the durations, and the shifted comparisons
       * make none: not keeping them bounds the group's memory. */
      self->stats[i]->no_durations = TRUE;
    }
  /* Each new stats observed the trace in turn: the group does now. */
  tsl_trace_set_event_func (trace, group_event, self);
  return self;
}

void
tsl_range_stats_group_finish (TslRangeStatsGroup *self)
{
  g_return_if_fail (self != NULL);

  /* The first flushes the trace's last event to the group, then stops
   * the observing; each stats copies out what it needs. */
  for (guint i = 0; i < self->n; i++)
    tsl_range_stats_finish (self->stats[i]);
}

/* (transfer none): the i-th range as the caller gave them. */
TslRangeStats *
tsl_range_stats_group_get (TslRangeStatsGroup *self,
                           guint               i)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (i < self->n, NULL);

  return self->stats[self->at[i]];
}

void
tsl_range_stats_group_free (TslRangeStatsGroup *self)
{
  if (self == NULL)
    return;
  for (guint i = 0; i < self->n; i++)
    tsl_range_stats_unref (self->stats[i]);
  g_clear_object (&self->trace);
  g_free (self->stats);
  g_free (self->lo);
  g_free (self->hi);
  g_free (self->at);
  g_byte_array_unref (self->seen);
  g_free (self);
}
