/* tsl-trace-exact.c: a trace's exact view and flows, recorded beside its samplers
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * tsl_trace_record_exact() makes the trace record every slice of a window
 * (tsl-exact.h) as well as sampling; the snapshot reads the recorder
 * (tsl_trace_get_exact_recorder()). Readers count flow endpoints always,
 * and record them while the exact view wants them.
 */
#define G_LOG_DOMAIN "tsl-trace"

#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "tsl-trace-private.h"

void
tsl_trace_record_exact (TslTrace *self,
                        guint     per_track,
                        guint     total)
{
  gint64 start = self->has_filter ? self->filter_start : G_MININT64;
  gint64 end = self->has_filter ? self->filter_end : G_MAXINT64;

  g_return_if_fail (TSL_IS_TRACE (self));

  g_clear_pointer (&self->exact, tsl_exact_free);
  self->exact = tsl_exact_new (start, end, per_track, total);
  self->exact_per_track = per_track;
  self->exact_total = total;
  self->event_offset = -1;
  self->event_cpu = NAN;
}

gboolean
tsl_trace_get_exact_request (TslTrace *self,
                             guint    *per_track,
                             guint    *total)
{
  g_return_val_if_fail (TSL_IS_TRACE (self), FALSE);

  *per_track = self->exact_per_track;
  *total = self->exact_total;
  return self->exact_per_track != 0 || self->exact_total != 0;
}

void
tsl_trace_set_event_offset (TslTrace *self,
                            gint64    offset)
{
  self->event_offset = offset;
}

gboolean
tsl_trace_wants_offsets (TslTrace *self)
{
  return self->exact != NULL;
}

/* Recording every slice of a window as well as sampling: the payload is
 * parsed when either wants it, and the label goes where it is wanted. */
gboolean
_tsl_trace_offer_exact (TslTrace *self,
                        guint     track,
                        gint64    time_ns,
                        double    value)
{
  Track *t = get_track (self, track);

  self->label_sampler = !(self->has_filter &&
                          (time_ns < self->filter_start || time_ns >= self->filter_end)) &&
                        tsl_sampler_offer (t->sampler, time_ns, value);
  self->label_exact = FALSE;

  /* Span tracks only (their values are durations, unit "ns"): a sampled
   * profile's instants are better drawn as the samples' slices. */
  if ((t->key.kind == TSL_TRACK_THREAD || t->key.kind == TSL_TRACK_ASYNC) &&
      t->unit != 0 && g_str_equal (tsl_trace_lookup (self, t->unit), "ns"))
    {
      gint64 end = time_ns;

      if (value > 0 && value < 9.0e18 && time_ns <= G_MAXINT64 - (gint64) value)
        end = time_ns + (gint64) value;
      self->label_exact = tsl_exact_record (self->exact, track, time_ns, end, self->event_offset,
                                            self->event_open);
      if (self->label_exact && !isnan (self->event_cpu))
        tsl_exact_set_cpu (self->exact, track, (gint64) self->event_cpu);
      if (!tsl_exact_is_complete (self->exact))
        g_clear_pointer (&self->exact, tsl_exact_free);
    }
  self->event_offset = -1;
  self->event_cpu = NAN;

  return self->label_sampler || self->label_exact;
}

gboolean
tsl_trace_wants_cpu (TslTrace *self)
{
  return self->exact != NULL || self->event_func != NULL;
}

gboolean
tsl_trace_wants_events (TslTrace *self)
{
  g_return_val_if_fail (TSL_IS_TRACE (self), FALSE);

  return self->exact != NULL || self->event_func != NULL;
}

void
tsl_trace_set_event_cpu (TslTrace *self,
                         double    cpu_ns)
{
  self->event_cpu = cpu_ns;
  if (!isnan (cpu_ns))
    self->has_cpu = TRUE;
}

double
tsl_trace_get_event_cpu (TslTrace *self)
{
  return self->pending_cpu;
}

gboolean
tsl_trace_get_exact (TslTrace *self,
                     gint64   *start_ns,
                     gint64   *end_ns)
{
  g_return_val_if_fail (TSL_IS_TRACE (self), FALSE);

  if (self->exact == NULL)
    return FALSE;
  tsl_exact_get_window (self->exact, start_ns, end_ns);
  return TRUE;
}

TslExact *
tsl_trace_get_exact_recorder (TslTrace *self)
{
  g_return_val_if_fail (TSL_IS_TRACE (self), NULL);

  return self->exact;
}

void
tsl_trace_count_flow (TslTrace     *self,
                      TslFlowCount  kind,
                      guint64       n)
{
  g_return_if_fail (TSL_IS_TRACE (self));
  g_return_if_fail (kind < TSL_FLOW_COUNT_N);

  self->flows[kind] += n;
}

guint64
tsl_trace_get_flow_count (TslTrace     *self,
                          TslFlowCount  kind)
{
  g_return_val_if_fail (TSL_IS_TRACE (self), 0);
  g_return_val_if_fail (kind < TSL_FLOW_COUNT_N, 0);

  return self->flows[kind];
}

gboolean
tsl_trace_wants_flows (TslTrace *self)
{
  return self->exact != NULL && self->event_func == NULL;
}

void
tsl_trace_record_flow (TslTrace    *self,
                       guint        track,
                       guint64      key,
                       gint64       time_ns,
                       guint        depth,
                       TslFlowBind  bind,
                       guint        dir)
{
  g_return_if_fail (TSL_IS_TRACE (self));

  if (self->exact == NULL || self->event_func != NULL)
    return;
  if (!tsl_exact_record_flow (self->exact, track, key, time_ns, depth, bind, dir) &&
      tsl_exact_get_flows_dropped (self->exact) == 1)
    tsl_trace_add_warning (self, _("flow arrows past %u endpoints in the view are not drawn"),
                           (guint) TSL_EXACT_FLOWS);
}
