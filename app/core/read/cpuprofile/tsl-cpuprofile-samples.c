/* tsl-cpuprofile-samples.c: samples placed at startTime + Σ timeDeltas
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A sample is a node id in "samples"; its time is startTime plus the sum of
 * "timeDeltas" up to its own, and the two arrays come one after the other
 * (V8 writes the samples first). Whichever comes first is spooled as
 * integers, in memory up to SPOOL_VALUES and past that in an unlinked
 * temporary file, then read back one per element of the other: memory
 * stays flat however many samples there are. Until the tree and startTime
 * are known (a file that puts them last) both arrays are spooled. A
 * temporary file that cannot be made or written keeps the rest in memory.
 */
#define G_LOG_DOMAIN "tsl-cpuprofile-reader"

#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <unistd.h>

#include "tsl-cpuprofile-private.h"
#include "tsl-time-math.h"

/* 4 MiB of values in memory per spool. */
#define SPOOL_VALUES (512 * 1024)

static void
spool_init (TslCpuprofileSpool *s)
{
  memset (s, 0, sizeof *s);
  s->mem = g_array_new (FALSE, FALSE, sizeof (gint64));
}

static void
spool_clear (TslCpuprofileSpool *s)
{
  g_clear_pointer (&s->mem, g_array_unref);
  g_clear_pointer (&s->file, fclose);
  g_clear_pointer (&s->block, g_free);
}

/* The values in memory go to the end of the file (made the first time);
 * when it cannot be made or written they stay in memory from then on. */
static void
spill (TslCpuprofileSpool *s)
{
  if (s->file == NULL)
    {
      g_autofree char *path = NULL;
      int fd = g_file_open_tmp ("timeslice-cpuprofile-XXXXXX", &path, NULL);

      if (fd < 0)
        {
          s->failed = TRUE;
          return;
        }
      /* Nothing left behind, even by a crash. */
      g_unlink (path);
      s->file = fdopen (fd, "w+b");
      if (s->file == NULL)
        {
          close (fd);
          s->failed = TRUE;
          return;
        }
      setvbuf (s->file, NULL, _IONBF, 0);
    }
  /* A short write (a full disk): the whole blocks before are read back
   * from the file, this one from memory. */
  if (fwrite (s->mem->data, sizeof (gint64), s->mem->len, s->file) != s->mem->len)
    {
      s->failed = TRUE;
      return;
    }
  s->in_file += s->mem->len;
  g_array_set_size (s->mem, 0);
}

static void
spool_push (TslCpuprofileSpool *s,
            gint64              v)
{
  g_array_append_val (s->mem, v);
  if (!s->failed && s->mem->len >= SPOOL_VALUES)
    spill (s);
}

/* The next value, in the order pushed; FALSE when none is left. */
static gboolean
spool_pop (TslCpuprofileSpool *s,
           gint64             *v)
{
  if (!s->reading)
    {
      s->reading = TRUE;
      if (s->file != NULL && fseek (s->file, 0, SEEK_SET) != 0)
        s->in_file = 0;
    }
  if (s->read < s->in_file)
    {
      if (s->block_at == s->block_len)
        {
          gsize want = (gsize) MIN ((guint64) SPOOL_VALUES, s->in_file - s->read);

          if (s->block == NULL)
            s->block = g_new (gint64, SPOOL_VALUES);
          s->block_len = fread (s->block, sizeof (gint64), want, s->file);
          s->block_at = 0;
          if (s->block_len == 0)
            s->in_file = s->read;   /* unreadable: the rest is what memory holds */
        }
      if (s->block_at < s->block_len)
        {
          *v = s->block[s->block_at++];
          s->read++;
          return TRUE;
        }
    }
  if (s->read - s->in_file >= s->mem->len)
    return FALSE;
  *v = g_array_index (s->mem, gint64, s->read - s->in_file);
  s->read++;
  return TRUE;
}

void
tsl_cpuprofile_samples_init (TslCpuprofile *self)
{
  spool_init (&self->spool_samples);
  spool_init (&self->spool_deltas);
}

void
tsl_cpuprofile_samples_clear (TslCpuprofile *self)
{
  spool_clear (&self->spool_samples);
  spool_clear (&self->spool_deltas);
}

static gboolean
ready (TslCpuprofile *self)
{
  return self->nodes_done && self->have_start;
}

/* Sample number n_emitted, of node `id`, `delta_ns` after the one before. */
static void
emit (TslCpuprofile *self,
      gint64         id,
      gint64         delta_ns)
{
  guint32 node = tsl_cpuprofile_find_node (self, id);
  gint64 at_ns;

  /* Checked with its position when the tree was known before the samples. */
  if (node == 0 && !self->samples_checked && id != TSL_CPUPROFILE_NOT_AN_ID &&
      tsl_cpuprofile_may_warn (self, WARN_UNKNOWN_NODE))
    tsl_trace_add_warning (self->trace, _("%s: sample %llu names node %lld, which is not in \"nodes\"; "
                                          "shown as (unknown node)"),
                           tsl_reader_context_get_name (self->ctx), (unsigned long long) self->n_emitted,
                           (long long) id);
  self->t_ns = tsl_time_add (self->t_ns, delta_ns);
  at_ns = tsl_time_add (self->start_ns, self->t_ns);
  if (tsl_trace_offer (self->trace, self->track, at_ns, 1))
    tsl_cpuprofile_label_node (self, node);
  self->n_events++;
  self->n_emitted++;
}

void
tsl_cpuprofile_push_sample (TslCpuprofile *self,
                            gint64         id,
                            gsize          offset)
{
  gint64 delta = 0;

  self->n_samples++;
  if (self->samples_checked && id != TSL_CPUPROFILE_NOT_AN_ID && tsl_cpuprofile_find_node (self, id) == 0 &&
      tsl_cpuprofile_may_warn (self, WARN_UNKNOWN_NODE))
    {
      g_autofree char *position = tsl_reader_context_position (self->ctx, offset);

      tsl_trace_add_warning (self->trace, _("%s: sample %llu names node %lld, which is not in \"nodes\"; "
                                            "shown as (unknown node)"),
                             position, (unsigned long long) self->n_samples - 1, (long long) id);
    }
  if (!ready (self) || !self->deltas_done)
    {
      spool_push (&self->spool_samples, id);
      return;
    }
  /* Past the last delta: at the time of the sample before. */
  if (!spool_pop (&self->spool_deltas, &delta))
    delta = 0;
  emit (self, id, delta);
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
      spool_push (&self->spool_deltas, delta_ns);
      return;
    }
  /* Deltas past the last sample place nothing. */
  if (spool_pop (&self->spool_samples, &id))
    emit (self, id, delta_ns);
}

void
tsl_cpuprofile_drain (TslCpuprofile *self)
{
  gint64 id, delta;

  if (!ready (self) || !self->samples_done || !self->deltas_done)
    return;
  while (spool_pop (&self->spool_samples, &id))
    {
      if (!spool_pop (&self->spool_deltas, &delta))
        delta = 0;
      emit (self, id, delta);
    }
  while (spool_pop (&self->spool_deltas, &delta))
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
  if (!self->nodes_done)
    self->samples_checked = FALSE;
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
