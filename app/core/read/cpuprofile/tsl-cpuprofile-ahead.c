/* tsl-cpuprofile-ahead.c: a V8 profile's arrays decoded on a second thread
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Neither array can be cut between scanners (a sample's time is the sum of
 * every delta before it), but each element's text can be read ahead of
 * the thread that models it. Per parse call, the elements V8 writes
 * (",123") from where the reading is are decoded on a thread of its own
 * (tsl-scan-ahead.c): a sample with its node looked up (the tree is
 * whole and no longer changes), a delta with the spooled sample it places
 * popped. The reading thread applies them in order, as fast_integers()
 * would have: warnings, spools and the trace see the same calls, so the
 * output is the same byte for byte. The thread stops at the first element
 * of any other shape, and the reading goes on from there.
 *
 * A record is two 32-bit words (an element has at most 7 digits), so a
 * block of 8,192 covers ~40 KiB of input in 64 KiB, and the ring of 8
 * (512 KiB) stays in the caches; while one side waits, the other wakes
 * it once per 4 blocks.
 */
#define G_LOG_DOMAIN "tsl-cpuprofile-reader"

#include "tsl-cpuprofile-private.h"
#include "tsl-time-math.h"

#define BLOCK_RECORDS   8192
#define RING_BLOCKS     8

typedef struct {
  /* A sample: its offset and its node (checked) or id; a delta that does
   * not place: its offset and µs; a delta that places: the node of the
   * sample (G_MAXUINT32: none was left) and µs. */
  guint32 a;
  guint32 b;
} Record;

static guint
fill (gpointer  data,
      gpointer  records,
      guint     max,
      gboolean *done)
{
  TslCpuprofile *self = data;
  Record *r = records;
  const char *p = self->job_p, *end = self->job_end;
  const char *buf = (const char *) self->job_buf;
  /* Locals: the records' stores could alias them. */
  const guint32 *dense = (const guint32 *) (gpointer) self->dense->data;
  guint n_dense = self->dense->len;
  gboolean checked = self->samples_checked;
  guint n = 0;

  if (self->stage == ST_SAMPLES)
    for (; n < max; n++)
      {
        guint64 v;
        guint len;

        if (end - p < 9 || (len = tsl_cpuprofile_swar (p, &v)) == 0)
          {
            *done = TRUE;
            break;
          }
        r[n].a = (guint32) (p + 1 - buf);
        r[n].b = !checked ? (guint32) v : v < n_dense ? dense[v] : tsl_cpuprofile_find_node_slow (self, (gint64) v);
        p += 1 + len;
      }
  else
    for (; n < max; n++)
      {
        guint64 v;
        gint64 id;
        guint len;

        if (end - p < 9 || (len = tsl_cpuprofile_swar (p, &v)) == 0)
          {
            *done = TRUE;
            break;
          }
        /* The sample it places, as tsl_cpuprofile_push_delta() pops it. */
        if (self->job_place)
          r[n].a = tsl_spool_pop (&self->spool_samples, &id) ? (guint32) id : G_MAXUINT32;
        else
          r[n].a = (guint32) (p + 1 - buf);
        r[n].b = (guint32) v;
        p += 1 + len;
      }
  self->job_p = p;
  return n;
}

static gboolean
wanted (TslCpuprofile *self,
        const guint8  *buf,
        const char    *p,
        const char    *end)
{
  /* Offsets in the buffer are kept in 32 bits. */
  return end - p >= (gssize) tsl_scan_ahead_min_bytes () && end - (const char *) buf < (gssize) G_MAXUINT32 &&
         tsl_reader_context_get_threads (self->ctx) != TSL_READER_THREADS_NEVER &&
         tsl_reader_context_get_n_threads (self->ctx) > 1 &&
         tsl_reader_context_scan_now (self->ctx, end - p);
}

/* push_found()'s path for samples that are spooled: all of them, or none
 * of a job (nothing in "samples" changes it). */
static void
apply_samples (TslCpuprofile *self,
               const Record  *r,
               guint          n)
{
  gboolean spooling = !self->nodes_done || !self->have_start || !self->deltas_done;

  for (guint i = 0; i < n; i++)
    {
      if (!spooling || (self->samples_checked && r[i].b == 0))
        {
          guint64 id = r[i].b;

          /* An unknown node: its id is read again for the warning. */
          if (self->samples_checked && r[i].b == 0)
            tsl_cpuprofile_swar ((const char *) self->job_buf + r[i].a - 1, &id);
          tsl_cpuprofile_push_found (self, (gint64) id, r[i].b, r[i].a);
          continue;
        }
      self->n_samples++;
      tsl_spool_push (&self->spool_samples, r[i].b);
    }
}

static void
apply_deltas (TslCpuprofile *self,
              const Record  *r,
              guint          n)
{
  if (!self->job_place)
    {
      for (guint i = 0; i < n; i++)
        tsl_cpuprofile_push_delta (self, (gint64) r[i].b * 1000, r[i].a);
      return;
    }
  /* push_delta()'s path for a delta that is not negative. */
  self->n_deltas += n;
  for (guint i = 0; i < n; i++)
    if (r[i].a != G_MAXUINT32)
      {
        self->t_ns = tsl_time_add (self->t_ns, (gint64) r[i].b * 1000);
        tsl_cpuprofile_place (self, r[i].a,
                              tsl_cpuprofile_clamp_time (tsl_time_add (self->start_ns, self->t_ns), &self->clamped));
      }
}

const char *
tsl_cpuprofile_ahead (TslCpuprofile *self,
                      const guint8  *buf,
                      const char    *p,
                      const char    *end)
{
  gboolean samples = self->stage == ST_SAMPLES;
  gpointer records;
  guint n;

  if (!wanted (self, buf, p, end))
    return p;
  if (self->ahead == NULL)
    self->ahead = tsl_scan_ahead_new_ring (sizeof (Record), BLOCK_RECORDS, RING_BLOCKS);
  self->job_buf = buf;
  self->job_p = p;
  self->job_end = end;
  /* As tsl_cpuprofile_push_delta() decides, for the whole array: nothing
   * the elements do changes it. Deltas that would spool are only decoded.
   * Placing pops only the samples' spool, which the reading thread leaves
   * alone until the job's end. */
  self->job_place = !samples && self->nodes_done && self->have_start && self->samples_done &&
                    self->samples_checked;
  tsl_scan_ahead_start (self->ahead, fill, self);
  while ((n = tsl_scan_ahead_next (self->ahead, &records, (TslScanAheadIdle) tsl_reader_context_idle, self->ctx)) > 0)
    {
      if (samples)
        apply_samples (self, records, n);
      else
        apply_deltas (self, records, n);
    }
  return self->job_p;
}

void
tsl_cpuprofile_ahead_clear (TslCpuprofile *self)
{
  g_clear_pointer (&self->ahead, tsl_scan_ahead_free);
}
