/* tsl-scan-ahead.c: records decoded on a second thread, applied in order
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A single-producer, single-consumer ring: the thread fills block
 * `produced % ring` and publishes it by counting it in `produced`; the
 * calling thread takes block `consumed % ring` and gives it back at its
 * next call by counting it in `consumed`. Both counters are atomic, so a
 * hand-over is one store and a load of the other side's sleeping flag:
 * no lock, no system call while neither side waits. A side that runs out
 * (the thread of free blocks, the caller of ready ones) sleeps on the
 * mutex and its condition, and the other wakes it only once it has
 * something worth waking for: half the ring free, or a quarter ready (or
 * the job's end). With one side faster, it then sleeps once per half a
 * ring of blocks instead of once per block (a V8 profile measured 49,000
 * futex calls per 200 MB with a wake per block).
 *
 * No wake is lost: a sleeper sets its flag, then checks its condition
 * under the mutex before waiting; the waker changes its counter, then
 * reads the flag, and signals under the mutex (all sequentially
 * consistent: one of the two sees the other's store).
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
  guint             ring;          /* blocks */
  guint8           *records;       /* `ring` blocks */
  Block            *blocks;

  GMutex            mutex;         /* only to sleep and wake */
  GCond             thread_cond;
  GCond             caller_cond;

  /* The job, set by the caller before `job` counts it. */
  TslScanAheadFill  fill;
  gpointer          data;

  /* Atomic: written by one side, read by both. */
  guint             job;           /* jobs started */
  guint             produced;      /* blocks of the job published */
  guint             consumed;      /* blocks of the job given back */
  gint              thread_sleeps;
  gint              caller_sleeps;
  gint              quit;
  guint64           n_thread_sleeps; /* the thread's */

  /* The calling thread's. */
  gboolean          holding;       /* block `consumed % ring` was taken */
  gboolean          running;       /* a job's end is still to be taken */
  guint64           n_jobs;
  guint64           n_records;
  guint64           n_sleeps;      /* the caller's waits for a block */
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

/* Blocks ready for the caller (not yet given back). */
static inline guint
ready (TslScanAhead *self)
{
  return (guint) g_atomic_int_get (&self->produced) - (guint) g_atomic_int_get (&self->consumed);
}

/* The thread may go on: a new job, or half the ring free. */
static gboolean
thread_may_go (TslScanAhead *self,
               guint         seen_job,
               gboolean      in_job)
{
  if (g_atomic_int_get (&self->quit))
    return TRUE;
  if (!in_job)
    return (guint) g_atomic_int_get (&self->job) != seen_job;
  return ready (self) <= self->ring - MAX (self->ring / 2, 1);
}

/* The caller may go on: a quarter of the ring ready, or the job's end. */
static gboolean
caller_may_go (TslScanAhead *self)
{
  guint produced = (guint) g_atomic_int_get (&self->produced);
  guint n = produced - (guint) g_atomic_int_get (&self->consumed);

  return n >= MAX (self->ring / 4, 1) || (n > 0 && self->blocks[(produced - 1) % self->ring].end);
}

static void
thread_sleep (TslScanAhead *self,
              guint         seen_job,
              gboolean      in_job)
{
  g_mutex_lock (&self->mutex);
  self->n_thread_sleeps++;
  g_atomic_int_set (&self->thread_sleeps, 1);
  while (!thread_may_go (self, seen_job, in_job))
    g_cond_wait (&self->thread_cond, &self->mutex);
  g_atomic_int_set (&self->thread_sleeps, 0);
  g_mutex_unlock (&self->mutex);
}

static void
wake (TslScanAhead *self,
      GCond        *cond)
{
  g_mutex_lock (&self->mutex);
  g_cond_signal (cond);
  g_mutex_unlock (&self->mutex);
}

static gpointer
run (gpointer user_data)
{
  TslScanAhead *self = user_data;
  guint seen_job = 0;

  for (;;)
    {
      gboolean done = FALSE;
      guint produced = 0;

      if (!thread_may_go (self, seen_job, FALSE))
        thread_sleep (self, seen_job, FALSE);
      if (g_atomic_int_get (&self->quit))
        break;
      seen_job = (guint) g_atomic_int_get (&self->job);
      while (!done)
        {
          guint at = produced % self->ring;
          Block *block = &self->blocks[at];

          if (produced - (guint) g_atomic_int_get (&self->consumed) == self->ring)
            thread_sleep (self, seen_job, TRUE);
          if (g_atomic_int_get (&self->quit))
            return NULL;
          block->n = self->fill (self->data, self->records + (gsize) at * self->block_records * self->record_size,
                                 self->block_records, &done);
          block->end = done;
          g_atomic_int_set (&self->produced, ++produced);
          if (g_atomic_int_get (&self->caller_sleeps) && (done || caller_may_go (self)))
            wake (self, &self->caller_cond);
        }
    }
  return NULL;
}

TslScanAhead *
tsl_scan_ahead_new_ring (gsize record_size,
                         guint block_records,
                         guint ring)
{
  TslScanAhead *self;

  g_return_val_if_fail (record_size > 0 && block_records > 0 && ring > 0, NULL);

  self = g_new0 (TslScanAhead, 1);
  self->record_size = record_size;
  self->block_records = block_records;
  self->ring = ring;
  self->records = g_malloc ((gsize) ring * block_records * record_size);
  self->blocks = g_new0 (Block, ring);
  g_mutex_init (&self->mutex);
  g_cond_init (&self->thread_cond);
  g_cond_init (&self->caller_cond);
  self->thread = g_thread_new ("tsl-scan-ahead", run, self);
  return self;
}

TslScanAhead *
tsl_scan_ahead_new (gsize record_size,
                    guint block_records)
{
  return tsl_scan_ahead_new_ring (record_size, block_records, TSL_SCAN_AHEAD_RING);
}

void
tsl_scan_ahead_free (TslScanAhead *self)
{
  if (self == NULL)
    return;
  g_mutex_lock (&self->mutex);
  g_atomic_int_set (&self->quit, 1);
  g_cond_signal (&self->thread_cond);
  g_mutex_unlock (&self->mutex);
  g_thread_join (self->thread);
  g_debug ("%" G_GUINT64_FORMAT " jobs, %" G_GUINT64_FORMAT " records decoded on a second thread; "
           "it slept %" G_GUINT64_FORMAT " times, the caller %" G_GUINT64_FORMAT,
           self->n_jobs, self->n_records, self->n_thread_sleeps, self->n_sleeps);
  g_mutex_clear (&self->mutex);
  g_cond_clear (&self->thread_cond);
  g_cond_clear (&self->caller_cond);
  g_free (self->blocks);
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

  /* The thread is between jobs: it reads none of these until `job`
   * counts the new one. */
  self->fill = fill;
  self->data = data;
  g_atomic_int_set (&self->produced, 0);
  g_atomic_int_set (&self->consumed, 0);
  g_atomic_int_inc (&self->job);
  if (g_atomic_int_get (&self->thread_sleeps))
    wake (self, &self->thread_cond);
  self->running = TRUE;
  self->holding = FALSE;
  self->n_jobs++;
}

void
tsl_scan_ahead_get_sleeps (TslScanAhead *self,
                           guint64      *thread_sleeps,
                           guint64      *caller_sleeps)
{
  g_return_if_fail (self != NULL);

  /* The thread's count is read while it sleeps or between jobs: the
   * mutex orders it. */
  g_mutex_lock (&self->mutex);
  *thread_sleeps = self->n_thread_sleeps;
  g_mutex_unlock (&self->mutex);
  *caller_sleeps = self->n_sleeps;
}

guint
tsl_scan_ahead_next (TslScanAhead     *self,
                     gpointer         *records,
                     TslScanAheadIdle  idle,
                     gpointer          idle_data)
{
  guint consumed, at;

  g_return_val_if_fail (self != NULL && records != NULL, 0);

  *records = NULL;
  for (;;)
    {
      if (!self->running)
        return 0;
      consumed = (guint) g_atomic_int_get (&self->consumed);
      if (self->holding)
        {
          gboolean end = self->blocks[consumed % self->ring].end;

          g_atomic_int_set (&self->consumed, ++consumed);
          self->holding = FALSE;
          if (end)
            {
              /* The end is published after the fill's last return: the
               * data is the caller's again. */
              self->running = FALSE;
              return 0;
            }
          if (g_atomic_int_get (&self->thread_sleeps) && thread_may_go (self, 0, TRUE))
            wake (self, &self->thread_cond);
        }
      if ((guint) g_atomic_int_get (&self->produced) == consumed)
        {
          /* The caller's own work first, then sleep. */
          while (idle != NULL && (guint) g_atomic_int_get (&self->produced) == consumed)
            if (!idle (idle_data))
              idle = NULL;
          if ((guint) g_atomic_int_get (&self->produced) == consumed)
            {
              self->n_sleeps++;
              g_mutex_lock (&self->mutex);
              g_atomic_int_set (&self->caller_sleeps, 1);
              while (!caller_may_go (self))
                g_cond_wait (&self->caller_cond, &self->mutex);
              g_atomic_int_set (&self->caller_sleeps, 0);
              g_mutex_unlock (&self->mutex);
            }
        }
      at = consumed % self->ring;
      self->holding = TRUE;
      self->n_records += self->blocks[at].n;
      if (self->blocks[at].n > 0)
        {
          *records = self->records + (gsize) at * self->block_records * self->record_size;
          return self->blocks[at].n;
        }
    }
}
