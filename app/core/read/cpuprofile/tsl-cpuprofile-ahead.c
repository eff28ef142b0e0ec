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
 * and that sample's time. The reading thread applies them in order, as
 * fast_integers() would have: warnings, spools and the trace see the same
 * calls, so the output is the same byte for byte. The thread stops at the
 * first element of any other shape, and the reading goes on from there.
 */
#define G_LOG_DOMAIN "tsl-cpuprofile-reader"

#include "tsl-cpuprofile-private.h"

#define BLOCK_RECORDS   4096

typedef struct {
  gint64  value;    /* a sample's node (or id), a delta's ns */
  gint64  at;       /* a placed sample's time; a sample's id */
  guint32 offset;   /* of the element's first digit in the buffer */
  guint32 node;     /* a placed sample's node; G_MAXUINT32: none was left */
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
  gboolean samples = self->stage == ST_SAMPLES;
  guint n = 0;

  while (n < max)
    {
      guint64 v;
      guint len;

      if (end - p < 9 || (len = tsl_cpuprofile_swar (p, &v)) == 0)
        {
          *done = TRUE;
          break;
        }
      r[n].offset = (guint32) (p + 1 - (const char *) self->job_buf);
      if (samples)
        {
          r[n].at = (gint64) v;
          r[n].value = self->samples_checked ? tsl_cpuprofile_find_node (self, (gint64) v) : (gint64) v;
        }
      else
        {
          r[n].value = (gint64) v * 1000;
          r[n].node = G_MAXUINT32;
          if (self->job_place &&
              !tsl_cpuprofile_next_place (self, r[n].value, &r[n].node, &r[n].at, &self->job_clamped))
            r[n].node = G_MAXUINT32;
        }
      p += 1 + len;
      n++;
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
  /* Off unless forced: a V8 element is ~9 bytes, so the thread hands over
   * a block every ~36 KiB, and on 2 quiet cores the pair measured 1.1-1.3x
   * the wall time of one thread (1 GB, release build). Offsets in the
   * buffer are kept in 32 bits. */
  return tsl_scan_ahead_forced () && end - p >= (gssize) tsl_scan_ahead_min_bytes () && end - (const char *) buf < (gssize) G_MAXUINT32 &&
         tsl_reader_context_get_threads (self->ctx) != TSL_READER_THREADS_NEVER &&
         tsl_reader_context_get_n_threads (self->ctx) > 1 &&
         tsl_reader_context_scan_now (self->ctx, end - p);
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
    self->ahead = tsl_scan_ahead_new (sizeof (Record), BLOCK_RECORDS);
  self->job_buf = buf;
  self->job_p = p;
  self->job_end = end;
  /* As tsl_cpuprofile_push_delta() decides, for the whole array: nothing
   * the elements do changes it. Deltas that would spool are only decoded. */
  self->job_place = !samples && self->nodes_done && self->have_start && self->samples_done &&
                    self->samples_checked;
  self->job_clamped = FALSE;
  tsl_scan_ahead_start (self->ahead, fill, self);
  while ((n = tsl_scan_ahead_next (self->ahead, &records, (TslScanAheadIdle) tsl_reader_context_idle, self->ctx)) > 0)
    {
      const Record *r = records;

      for (guint i = 0; i < n; i++)
        {
          if (samples)
            tsl_cpuprofile_push_found (self, r[i].at, r[i].value, r[i].offset);
          else if (!self->job_place)
            tsl_cpuprofile_push_delta (self, r[i].value, r[i].offset);
          else
            {
              /* push_delta()'s path for a delta that is not negative. */
              self->n_deltas++;
              if (r[i].node != G_MAXUINT32)
                tsl_cpuprofile_place (self, r[i].node, r[i].at);
            }
        }
    }
  self->clamped |= self->job_clamped;
  return self->job_p;
}

void
tsl_cpuprofile_ahead_clear (TslCpuprofile *self)
{
  g_clear_pointer (&self->ahead, tsl_scan_ahead_free);
}
