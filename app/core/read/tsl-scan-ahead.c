/* tsl-scan-ahead.c: records decoded on a second thread, applied in order
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The ring's blocks are used in turn: the thread fills block `tail` and
 * hands it on (`count` ready or held from `head`), waiting while every
 * block is; the calling thread takes block `head` and gives it back at its
 * next call. A block's records cross threads under the mutex's order.
 */
#define G_LOG_DOMAIN "tsl-reader"

#include "config.h"

#include "tsl-scan-ahead.h"

typedef struct {
  guint    n;
  gboolean end;    /* the job's last block */
} Block;

struct _TslScanAhead
{
  GThread          *thread;
  gsize             record_size;
  guint             block_records;
  guint8           *records;       /* TSL_SCAN_AHEAD_RING blocks */
  Block             blocks[TSL_SCAN_AHEAD_RING];

  GMutex            mutex;
  GCond             cond;          /* any change: one condition, few waits */
  /* Under the mutex. */
  TslScanAheadFill  fill;          /* NULL: no job */
  gpointer          data;
  guint             head;
  guint             tail;
  guint             count;         /* ready, or held by the calling thread */
  gboolean          quit;

  /* The calling thread's. */
  gboolean          holding;       /* block `head` was taken */
  gboolean          running;       /* a job's end is still to be taken */
  guint64           n_jobs;
  guint64           n_records;
};

/* TSL_SCAN_AHEAD_BYTES, read once: 0 when unset. */
static gsize
forced_bytes (void)
{
  static gsize bytes;

  if (g_once_init_enter (&bytes))
    {
      const char *env = g_getenv ("TSL_SCAN_AHEAD_BYTES");
      guint64 n = 0;

      if (env != NULL && !g_ascii_string_to_unsigned (env, 10, 1, G_MAXSIZE / 2, &n, NULL))
        n = TSL_SCAN_AHEAD_MIN_BYTES;
      /* g_once_init_leave() takes no 0: one more than the value. */
      g_once_init_leave (&bytes, (gsize) n + 1);
    }
  return bytes - 1;
}

gsize
tsl_scan_ahead_min_bytes (void)
{
  gsize forced = forced_bytes ();

  return forced > 0 ? forced : TSL_SCAN_AHEAD_MIN_BYTES;
}

gboolean
tsl_scan_ahead_forced (void)
{
  return forced_bytes () > 0;
}

static gpointer
run (gpointer user_data)
{
  TslScanAhead *self = user_data;

  g_mutex_lock (&self->mutex);
  for (;;)
    {
      gboolean done = FALSE;

      while (self->fill == NULL && !self->quit)
        g_cond_wait (&self->cond, &self->mutex);
      if (self->quit)
        break;
      while (!done)
        {
          guint tail;
          Block *block;

          while (self->count == TSL_SCAN_AHEAD_RING && !self->quit)
            g_cond_wait (&self->cond, &self->mutex);
          if (self->quit)
            break;
          tail = self->tail;
          block = &self->blocks[tail];
          g_mutex_unlock (&self->mutex);
          block->n = self->fill (self->data, self->records + (gsize) tail * self->block_records * self->record_size,
                                 self->block_records, &done);
          block->end = done;
          g_mutex_lock (&self->mutex);
          self->tail = (tail + 1) % TSL_SCAN_AHEAD_RING;
          self->count++;
          g_cond_broadcast (&self->cond);
        }
      self->fill = NULL;
      self->data = NULL;
      g_cond_broadcast (&self->cond);
    }
  g_mutex_unlock (&self->mutex);
  return NULL;
}

TslScanAhead *
tsl_scan_ahead_new (gsize record_size,
                    guint block_records)
{
  TslScanAhead *self = g_new0 (TslScanAhead, 1);

  g_return_val_if_fail (record_size > 0 && block_records > 0, NULL);

  self->record_size = record_size;
  self->block_records = block_records;
  self->records = g_malloc ((gsize) TSL_SCAN_AHEAD_RING * block_records * record_size);
  g_mutex_init (&self->mutex);
  g_cond_init (&self->cond);
  self->thread = g_thread_new ("tsl-scan-ahead", run, self);
  return self;
}

void
tsl_scan_ahead_free (TslScanAhead *self)
{
  if (self == NULL)
    return;
  g_debug ("%" G_GUINT64_FORMAT " jobs, %" G_GUINT64_FORMAT " records decoded on a second thread",
           self->n_jobs, self->n_records);
  g_mutex_lock (&self->mutex);
  self->quit = TRUE;
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->mutex);
  g_thread_join (self->thread);
  g_mutex_clear (&self->mutex);
  g_cond_clear (&self->cond);
  g_free (self->records);
  g_free (self);
}

void
tsl_scan_ahead_start (TslScanAhead     *self,
                      TslScanAheadFill  fill,
                      gpointer          data)
{
  g_return_if_fail (self != NULL && fill != NULL);
  g_return_if_fail (!self->running);

  g_mutex_lock (&self->mutex);
  self->head = self->tail = self->count = 0;
  self->fill = fill;
  self->data = data;
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->mutex);
  self->running = TRUE;
  self->holding = FALSE;
  self->n_jobs++;
}

guint
tsl_scan_ahead_next (TslScanAhead     *self,
                     gpointer         *records,
                     TslScanAheadIdle  idle,
                     gpointer          idle_data)
{
  Block *block;

  g_return_val_if_fail (self != NULL && records != NULL, 0);

  *records = NULL;
  if (!self->running)
    return 0;
  g_mutex_lock (&self->mutex);
  if (self->holding)
    {
      gboolean end = self->blocks[self->head].end;

      self->head = (self->head + 1) % TSL_SCAN_AHEAD_RING;
      self->count--;
      self->holding = FALSE;
      g_cond_broadcast (&self->cond);
      if (end)
        {
          /* The thread clears fill once past the last block: then the
           * data is the caller's again. */
          while (self->fill != NULL)
            g_cond_wait (&self->cond, &self->mutex);
          g_mutex_unlock (&self->mutex);
          self->running = FALSE;
          return 0;
        }
    }
  while (self->count == 0)
    {
      gboolean more;

      if (idle == NULL)
        {
          g_cond_wait (&self->cond, &self->mutex);
          continue;
        }
      g_mutex_unlock (&self->mutex);
      more = idle (idle_data);
      g_mutex_lock (&self->mutex);
      if (!more)
        idle = NULL;
    }
  g_mutex_unlock (&self->mutex);
  block = &self->blocks[self->head];
  self->holding = TRUE;
  self->n_records += block->n;
  *records = self->records + (gsize) self->head * self->block_records * self->record_size;
  return block->n > 0 ? block->n : tsl_scan_ahead_next (self, records, idle, idle_data);
}
