/* tsl-cpuprofile-samples.c: samples placed at startTime + Σ timeDeltas
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A sample is a node id in "samples"; its time is startTime plus the sum of
 * "timeDeltas" up to its own, and the two arrays come one after the other
 * (V8 writes the samples first). Whichever comes first is spooled
 * (tsl-spool.c), then read back one per element of the other: memory
 * stays flat however many samples there are. Until the tree and startTime
 * are known (a file that puts them last) both arrays are spooled.
 * TSL_CPUPROFILE_SPOOL_BYTES=N spills past N bytes instead (tests and the
 * fuzz harness, whose inputs are small).
 */
#define G_LOG_DOMAIN "tsl-cpuprofile-reader"

#include <glib/gi18n-lib.h>

#include "tsl-cpuprofile-private.h"
#include "tsl-time-math.h"

/* Bytes in memory per spool, and per block read back from its file. */
#define SPOOL_BYTES (4 * 1024 * 1024)

void
tsl_cpuprofile_samples_init (TslCpuprofile *self)
{
  tsl_spool_init (&self->spool_samples, "cpuprofile", SPOOL_BYTES, "TSL_CPUPROFILE_SPOOL_BYTES");
  tsl_spool_init (&self->spool_deltas, "cpuprofile", SPOOL_BYTES, "TSL_CPUPROFILE_SPOOL_BYTES");
}

void
tsl_cpuprofile_samples_clear (TslCpuprofile *self)
{
  tsl_spool_clear (&self->spool_samples);
  tsl_spool_clear (&self->spool_deltas);
}

static gboolean
ready (TslCpuprofile *self)
{
  return self->nodes_done && self->have_start;
}

/* A spooled sample as a node (index + 1, 0: unknown): it was spooled as
 * its node when the tree was known as "samples" began (and checked then,
 * with its position), else as its id. */
static guint32
node_of (TslCpuprofile *self,
         gint64         v)
{
  guint32 node;

  if (self->samples_checked)
    return (guint32) v;
  node = tsl_cpuprofile_find_node (self, v);
  if (node == 0 && v != TSL_CPUPROFILE_NOT_AN_ID && tsl_cpuprofile_may_warn (self, WARN_UNKNOWN_NODE))
    tsl_trace_add_warning (self->trace, _("%s: sample %llu names node %lld, which is not in \"nodes\"; "
                                          "shown as (unknown node)"),
                           tsl_reader_context_get_name (self->ctx), (unsigned long long) self->n_emitted,
                           (long long) v);
  return node;
}

void
tsl_cpuprofile_place (TslCpuprofile *self,
                      guint32        node,
                      gint64         at)
{
  if (tsl_trace_offer (self->trace, self->track, at, 1))
    tsl_cpuprofile_label_node (self, node);
  self->n_events++;
  self->n_emitted++;
}

/* Sample number n_emitted, of `node`, `delta_ns` after the one before. */
static void
emit (TslCpuprofile *self,
      guint32        node,
      gint64         delta_ns)
{
  self->t_ns = tsl_time_add (self->t_ns, delta_ns);
  tsl_cpuprofile_place (self, node,
                        tsl_cpuprofile_clamp_time (tsl_time_add (self->start_ns, self->t_ns), &self->clamped));
}

void
tsl_cpuprofile_push_sample (TslCpuprofile *self,
                            gint64         id,
                            gsize          offset)
{
  tsl_cpuprofile_push_found (self, id, self->samples_checked ? tsl_cpuprofile_find_node (self, id) : id, offset);
}

void
tsl_cpuprofile_push_found (TslCpuprofile *self,
                           gint64         id,
                           gint64         value,
                           gsize          offset)
{
  gint64 delta = 0;

  self->n_samples++;
  if (self->samples_checked)
    {
      if (value == 0 && id != TSL_CPUPROFILE_NOT_AN_ID && tsl_cpuprofile_may_warn (self, WARN_UNKNOWN_NODE))
        {
          g_autofree char *position = tsl_reader_context_position (self->ctx, offset);

          tsl_trace_add_warning (self->trace, _("%s: sample %llu names node %lld, which is not in \"nodes\"; "
                                                "shown as (unknown node)"),
                                 position, (unsigned long long) self->n_samples - 1, (long long) id);
        }
    }
  if (!ready (self) || !self->deltas_done)
    {
      tsl_spool_push (&self->spool_samples, value);
      return;
    }
  /* Past the last delta: at the time of the sample before. */
  if (!tsl_spool_pop (&self->spool_deltas, &delta))
    delta = 0;
  emit (self, node_of (self, value), delta);
}

void
tsl_cpuprofile_push_delta (TslCpuprofile *self,
                           gint64         delta_ns,
                           gsize          offset)
{
  gint64 id;

  self->n_deltas++;
  if (delta_ns < 0 && tsl_cpuprofile_may_warn (self, WARN_NEGATIVE_DELTA))
    {
      g_autofree char *position = tsl_reader_context_position (self->ctx, offset);

      tsl_trace_add_warning (self->trace, _("%s: time delta %llu is negative; its sample "
                                            "is placed before the one ahead of it"),
                             position, (unsigned long long) self->n_deltas - 1);
    }
  if (!ready (self) || !self->samples_done)
    {
      tsl_spool_push (&self->spool_deltas, delta_ns);
      return;
    }
  /* Deltas past the last sample place nothing. */
  if (tsl_spool_pop (&self->spool_samples, &id))
    emit (self, node_of (self, id), delta_ns);
}

void
tsl_cpuprofile_drain (TslCpuprofile *self)
{
  gint64 id, delta;

  if (!ready (self) || !self->samples_done || !self->deltas_done)
    return;
  while (tsl_spool_pop (&self->spool_samples, &id))
    {
      if (!tsl_spool_pop (&self->spool_deltas, &delta))
        delta = 0;
      emit (self, node_of (self, id), delta);
    }
  while (tsl_spool_pop (&self->spool_deltas, &delta))
    ;
}

void
tsl_cpuprofile_finish (TslCpuprofile *self)
{
  const char *name = tsl_reader_context_get_name (self->ctx);

  if (self->n_samples > 0 && !self->nodes_done)
    tsl_trace_add_warning (self->trace, _("%s: no \"nodes\" array; every sample is shown as (unknown node)"),
                           name);
  if (self->n_samples > 0 && !self->have_start)
    tsl_trace_add_warning (self->trace, _("%s: no \"startTime\"; the samples' times start at 0"), name);
  self->nodes_done = TRUE;
  self->have_start = TRUE;
  self->samples_done = TRUE;
  self->deltas_done = TRUE;
  tsl_cpuprofile_drain (self);
  if (self->n_samples != self->n_deltas)
    tsl_trace_add_warning (self->trace, _("%s: \"samples\" and \"timeDeltas\" differ in length (%llu and "
                                          "%llu); a sample without a delta is placed at the time "
                                          "of the one before it, a delta without a sample is ignored"),
                           name, (unsigned long long) self->n_samples, (unsigned long long) self->n_deltas);
  if (self->clamped)
    tsl_trace_add_warning (self->trace, _("%s: times more than 146 years from 0 are shown at that bound"), name);
  if (self->warned[WARN_UNKNOWN_NODE] > TSL_CPUPROFILE_POS_WARNINGS)
    tsl_trace_add_warning (self->trace, _("%s: %llu more samples name nodes that are not in "
                                          "\"nodes\""), name,
                           (unsigned long long) (self->warned[WARN_UNKNOWN_NODE] - TSL_CPUPROFILE_POS_WARNINGS));
  if (self->warned[WARN_NEGATIVE_DELTA] > TSL_CPUPROFILE_POS_WARNINGS)
    tsl_trace_add_warning (self->trace, _("%s: %llu more negative time deltas"), name,
                           (unsigned long long) (self->warned[WARN_NEGATIVE_DELTA] - TSL_CPUPROFILE_POS_WARNINGS));
  if (self->warned[WARN_NOT_INTEGER] > TSL_CPUPROFILE_POS_WARNINGS)
    tsl_trace_add_warning (self->trace, _("%s: %llu more values that are not integers"), name,
                           (unsigned long long) (self->warned[WARN_NOT_INTEGER] - TSL_CPUPROFILE_POS_WARNINGS));
  if (self->warned[WARN_BAD_NODE] > TSL_CPUPROFILE_POS_WARNINGS)
    tsl_trace_add_warning (self->trace, _("%s: %llu more damaged nodes or links"), name,
                           (unsigned long long) (self->warned[WARN_BAD_NODE] - TSL_CPUPROFILE_POS_WARNINGS));
}
