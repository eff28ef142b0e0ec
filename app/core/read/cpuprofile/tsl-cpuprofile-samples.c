/* tsl-cpuprofile-samples.c: samples placed at startTime + Σ timeDeltas
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A sample is a node id in "samples"; its time is startTime plus the sum of
 * "timeDeltas" up to its own, and the two arrays come one after the other
 * (V8 writes the samples first). Whichever comes first is spooled as
 * varints, in memory up to SPOOL_BYTES and past that in an unlinked
 * temporary file, then read back one per element of the other: memory
 * stays flat however many samples there are. Until the tree and startTime
 * are known (a file that puts them last) both arrays are spooled. A
 * temporary file that cannot be made or written keeps the rest in memory.
 * TSL_CPUPROFILE_SPOOL_BYTES=N spills past N bytes instead (tests and the
 * fuzz harness, whose inputs are small).
 */
#define G_LOG_DOMAIN "tsl-cpuprofile-reader"

#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <unistd.h>

#include "tsl-cpuprofile-private.h"
#include "tsl-time-math.h"

/* Bytes in memory per spool, and per block read back from its file. */
#define SPOOL_BYTES (4 * 1024 * 1024)
/* The longest varint of 64 bits. */
#define VARINT_MAX 10

static void
spool_init (TslCpuprofileSpool *s)
{
  const char *limit = g_getenv ("TSL_CPUPROFILE_SPOOL_BYTES");

  memset (s, 0, sizeof *s);
  s->limit = limit != NULL ? CLAMP (g_ascii_strtoull (limit, NULL, 10), 1, SPOOL_BYTES) : SPOOL_BYTES;
}

static void
spool_clear (TslCpuprofileSpool *s)
{
  g_clear_pointer (&s->mem, g_free);
  g_clear_pointer (&s->file, fclose);
  g_clear_pointer (&s->block, g_free);
}

/* The bytes in memory go to the end of the file (made the first time);
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
  if (fwrite (s->mem, 1, s->mem_len, s->file) != s->mem_len)
    {
      s->failed = TRUE;
      return;
    }
  s->in_file += s->mem_len;
  s->mem_len = 0;
}

static void
spool_push (TslCpuprofileSpool *s,
            gint64              v)
{
  guint64 z = ((guint64) v << 1) ^ (guint64) (v >> 63);
  guint8 *p;

  /* Written in place: this runs once per sample. */
  if (G_UNLIKELY (s->mem_len + VARINT_MAX > s->mem_size))
    {
      s->mem_size = MAX (s->mem_size * 2, 4096);
      s->mem = g_realloc (s->mem, s->mem_size);
    }
  p = s->mem + s->mem_len;
  while (z >= 0x80)
    {
      *p++ = (guint8) (z | 0x80);
      z >>= 7;
    }
  *p++ = (guint8) z;
  s->mem_len = p - s->mem;
  s->n_pushed++;
  if (!s->failed && s->mem_len >= s->limit)
    spill (s);
}

/* A varint of p..end (the writer's, so whole unless the file failed). */
static gboolean
decode (const guint8  *p,
        const guint8  *end,
        gint64        *v,
        gsize         *used)
{
  guint64 z = 0;

  for (guint i = 0; i < VARINT_MAX && p + i < end; i++)
    {
      z |= (guint64) (p[i] & 0x7f) << (7 * i);
      if (p[i] < 0x80)
        {
          *v = (gint64) (z >> 1) ^ -(gint64) (z & 1);
          *used = i + 1;
          return TRUE;
        }
    }
  return FALSE;
}

/* The next value, in the order pushed; FALSE when none is left. */
static gboolean
spool_pop (TslCpuprofileSpool *s,
           gint64             *v)
{
  gsize used;

  if (s->n_popped == s->n_pushed)
    return FALSE;
  if (!s->reading)
    {
      s->reading = TRUE;
      if (s->file != NULL && fseek (s->file, 0, SEEK_SET) != 0)
        s->in_file = 0;   /* unreadable: what memory holds is all there is */
    }
  if (s->block_at < s->block_len || s->file_read < s->in_file)
    {
      /* A whole varint in the block: its tail moved to the front, then more. */
      if (s->block_len - s->block_at < VARINT_MAX && s->file_read < s->in_file)
        {
          gsize kept = s->block_len - s->block_at;
          gsize want = (gsize) MIN ((guint64) SPOOL_BYTES, s->in_file - s->file_read);
          gsize got;

          if (s->block == NULL)
            s->block = g_malloc (SPOOL_BYTES + VARINT_MAX);
          memmove (s->block, s->block + s->block_at, kept);
          got = fread (s->block + kept, 1, want, s->file);
          s->file_read += got;
          if (got < want)
            s->in_file = s->file_read;   /* unreadable: the rest of the file is lost */
          s->block_len = kept + got;
          s->block_at = 0;
        }
      if (decode (s->block + s->block_at, s->block + s->block_len, v, &used))
        {
          s->block_at += used;
          s->n_popped++;
          return TRUE;
        }
      s->block_at = s->block_len;
    }
  if (s->mem == NULL || !decode (s->mem + s->mem_at, s->mem + s->mem_len, v, &used))
    {
      s->n_popped = s->n_pushed;
      return FALSE;
    }
  s->mem_at += used;
  s->n_popped++;
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

/* Sample number n_emitted, of `node`, `delta_ns` after the one before. */
static void
emit (TslCpuprofile *self,
      guint32        node,
      gint64         delta_ns)
{
  self->t_ns = tsl_time_add (self->t_ns, delta_ns);
  if (tsl_trace_offer (self->trace, self->track,
                       tsl_cpuprofile_clamp_time (tsl_time_add (self->start_ns, self->t_ns), &self->clamped), 1))
    tsl_cpuprofile_label_node (self, node);
  self->n_events++;
  self->n_emitted++;
}

void
tsl_cpuprofile_push_sample (TslCpuprofile *self,
                            gint64         id,
                            gsize          offset)
{
  gint64 value = id, delta = 0;

  self->n_samples++;
  if (self->samples_checked)
    {
      value = tsl_cpuprofile_find_node (self, id);
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
      spool_push (&self->spool_samples, value);
      return;
    }
  /* Past the last delta: at the time of the sample before. */
  if (!spool_pop (&self->spool_deltas, &delta))
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
      spool_push (&self->spool_deltas, delta_ns);
      return;
    }
  /* Deltas past the last sample place nothing. */
  if (spool_pop (&self->spool_samples, &id))
    emit (self, node_of (self, id), delta_ns);
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
      emit (self, node_of (self, id), delta);
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
