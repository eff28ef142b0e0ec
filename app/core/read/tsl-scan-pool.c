/* tsl-scan-pool.c: one buffer's records tokenized on every core
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Segments are claimed in order under one mutex (a claim per tens of
 * kilobytes of input, so the lock is cold), scanned without it, and marked
 * done with an atomic store. The caller claims too whenever the segment it
 * wants next is still being scanned, so the threads balance themselves: the
 * one that also models scans fewer segments. The caller's idle work
 * (reading the next feed ahead, counting newlines) is done by whichever
 * thread is free first, one at a time, and only between start() and
 * finish(): the modelling thread is the bottleneck, and a scanner thread
 * can take that work off it. Either side spins briefly (a few µs)
 * before it sleeps: 2000 rounds cost more CPU than the wake-ups they saved
 * on a busy 2-core machine (1 GB: 3.1–3.6 s of CPU on 2 threads against
 * 2.5–3.4 s with 200).
 *
 * The lock and the condition variables are POSIX ones rather than GMutex
 * and GCond (futexes that ThreadSanitizer cannot see), so that a TSan build
 * checks this file.
 */
#define G_LOG_DOMAIN "tsl-reader"

#include "config.h"

#include <pthread.h>
#include <string.h>

#include "tsl-scan-pool.h"

#include "tsl-format-private.h"

#define SPIN_ROUNDS 200

/* The idle work (see TslReaderIdleFunc): one thread at a time, and only
 * while a buffer is scanned. */
enum {
  IDLE_CLOSED,
  IDLE_OPEN,
  IDLE_BUSY,
};

enum {
  SEG_FREE,
  SEG_CLAIMED,
  SEG_DONE,
};

typedef struct {
  TslScanSegment seg;
  gint           state;
} Slot;

struct _TslScanPool
{
  pthread_mutex_t mutex;
  pthread_cond_t  work_cond;
  pthread_cond_t  done_cond;
  GPtrArray *threads;
  const TslScanFuncs *funcs;
  gpointer   data;
  gboolean (*idle) (gpointer data);
  gpointer   idle_data;

  /* Under the mutex. */
  GArray    *slots;        /* Slot; n_slots of them in use */
  guint      n_slots;
  guint      next;         /* the first unclaimed */
  guint      ahead;        /* 0, or how many segments past the wanted one may be claimed */
  guint      limit;        /* claims stop here */
  gint       generation;   /* bumped at every start and raised limit (also read atomically) */
  gint       quit;
  gint       workers_sleeping;
  gint       caller_sleeping;
  gint       idle_state;
  guint64    by_caller;    /* segments the caller scanned */
  guint64    worker_sleeps;
};

static inline void
cpu_relax (void)
{
#if defined (__x86_64__) || defined (__i386__)
  __builtin_ia32_pause ();
#endif
}

/* The next unclaimed slot, or NULL. */
static Slot *
claim (TslScanPool *self)
{
  Slot *slot = NULL;

  pthread_mutex_lock (&self->mutex);
  if (self->next < self->limit)
    {
      slot = &g_array_index (self->slots, Slot, self->next++);
      g_atomic_int_set (&slot->state, SEG_CLAIMED);
    }
  pthread_mutex_unlock (&self->mutex);
  return slot;
}

/* One step of the idle work, if no other thread is at it; FALSE when
 * there is none (or another thread has it). */
static gboolean
run_idle (TslScanPool *self)
{
  gboolean more;

  if (self->idle == NULL || !g_atomic_int_compare_and_exchange (&self->idle_state, IDLE_OPEN, IDLE_BUSY))
    return FALSE;
  more = self->idle (self->idle_data);
  g_atomic_int_set (&self->idle_state, more ? IDLE_OPEN : IDLE_CLOSED);
  return more;
}

static void
scan (TslScanPool *self,
      Slot        *slot,
      gpointer     scratch)
{
  self->funcs->scan (self->data, &slot->seg, scratch);
  g_atomic_int_set (&slot->state, SEG_DONE);
  if (g_atomic_int_get (&self->caller_sleeping))
    {
      pthread_mutex_lock (&self->mutex);
      pthread_cond_broadcast (&self->done_cond);
      pthread_mutex_unlock (&self->mutex);
    }
}

static gpointer
worker (gpointer data)
{
  TslScanPool *self = data;
  gpointer scratch = self->funcs->scratch_new != NULL ? self->funcs->scratch_new (self->data) : NULL;
  gint seen = 0;

  for (;;)
    {
      Slot *slot;
      guint i;

      for (i = 0; i < SPIN_ROUNDS; i++)
        {
          if (g_atomic_int_get (&self->generation) != seen || g_atomic_int_get (&self->quit))
            break;
          cpu_relax ();
        }
      if (i == SPIN_ROUNDS)
        {
          pthread_mutex_lock (&self->mutex);
          self->workers_sleeping++;
          self->worker_sleeps++;
          while (g_atomic_int_get (&self->generation) == seen && !g_atomic_int_get (&self->quit))
            pthread_cond_wait (&self->work_cond, &self->mutex);
          self->workers_sleeping--;
          pthread_mutex_unlock (&self->mutex);
        }
      if (g_atomic_int_get (&self->quit))
        break;
      seen = g_atomic_int_get (&self->generation);
      for (;;)
        {
          if (run_idle (self))
            continue;
          if ((slot = claim (self)) == NULL)
            break;
          scan (self, slot, scratch);
        }
    }

  if (self->funcs->scratch_free != NULL)
    self->funcs->scratch_free (scratch);
  return NULL;
}

static gpointer
items_new (gsize item_size)
{
  TslScanItems *items = g_new0 (TslScanItems, 1);

  items->items = g_array_new (FALSE, FALSE, item_size);
  return items;
}

static void
items_free (gpointer result)
{
  TslScanItems *items = result;

  g_array_unref (items->items);
  g_free (items);
}

TslScanPool *
tsl_scan_pool_new (guint               n_threads,
                   const TslScanFuncs *funcs,
                   gpointer            data,
                   gboolean          (*idle) (gpointer data),
                   gpointer            idle_data)
{
  TslScanPool *self = g_new0 (TslScanPool, 1);

  self->funcs = funcs;
  self->data = data;
  pthread_mutex_init (&self->mutex, NULL);
  pthread_cond_init (&self->work_cond, NULL);
  pthread_cond_init (&self->done_cond, NULL);
  self->idle = idle;
  self->idle_data = idle_data;
  self->slots = g_array_new (FALSE, TRUE, sizeof (Slot));
  self->threads = g_ptr_array_new ();
  for (guint i = 1; i < n_threads; i++)
    g_ptr_array_add (self->threads, g_thread_new ("tsl-scan", worker, self));
  return self;
}

void
tsl_scan_pool_free (TslScanPool *self)
{
  if (self == NULL)
    return;

  tsl_scan_pool_finish (self);
  pthread_mutex_lock (&self->mutex);
  g_atomic_int_set (&self->quit, 1);
  pthread_cond_broadcast (&self->work_cond);
  pthread_mutex_unlock (&self->mutex);
  for (guint i = 0; i < self->threads->len; i++)
    g_thread_join (g_ptr_array_index (self->threads, i));
  g_ptr_array_unref (self->threads);
  for (guint i = 0; i < self->slots->len; i++)
    {
      gpointer result = g_array_index (self->slots, Slot, i).seg.result;

      if (self->funcs->result_free != NULL)
        self->funcs->result_free (result);
      else
        items_free (result);
    }
  g_array_unref (self->slots);
  pthread_mutex_destroy (&self->mutex);
  pthread_cond_destroy (&self->work_cond);
  pthread_cond_destroy (&self->done_cond);
  g_free (self);
}

void
tsl_scan_pool_start (TslScanPool       *self,
                     const char *const *cuts,
                     guint              n_cuts,
                     const char        *end,
                     gboolean           need_first)
{
  g_return_if_fail (n_cuts > 0);

  pthread_mutex_lock (&self->mutex);
  g_assert (self->next == self->n_slots);
  if (self->slots->len < n_cuts)
    {
      guint old = self->slots->len;

      g_array_set_size (self->slots, n_cuts);
      for (guint i = old; i < n_cuts; i++)
        g_array_index (self->slots, Slot, i).seg.result =
          self->funcs->result_new != NULL ? self->funcs->result_new (self->data)
                                          : items_new (self->funcs->item_size);
    }
  for (guint i = 0; i < n_cuts; i++)
    {
      Slot *slot = &g_array_index (self->slots, Slot, i);

      slot->seg.start = cuts[i];
      slot->seg.end = i + 1 < n_cuts ? cuts[i + 1] : end;
      slot->seg.need_in = i == 0 && need_first;
      slot->state = SEG_FREE;
    }
  self->n_slots = n_cuts;
  self->next = 0;
  self->limit = self->ahead > 0 ? MIN (self->ahead, n_cuts) : n_cuts;
  g_atomic_int_set (&self->idle_state, IDLE_OPEN);
  g_atomic_int_inc (&self->generation);
  if (self->workers_sleeping > 0)
    pthread_cond_broadcast (&self->work_cond);
  pthread_mutex_unlock (&self->mutex);
}

/* Until the slot is done: spinning, then asleep. */
static void
wait_done (TslScanPool *self,
           Slot        *slot)
{
  for (guint i = 0; i < SPIN_ROUNDS; i++)
    {
      if (g_atomic_int_get (&slot->state) == SEG_DONE)
        return;
      cpu_relax ();
    }
  pthread_mutex_lock (&self->mutex);
  g_atomic_int_set (&self->caller_sleeping, 1);
  while (g_atomic_int_get (&slot->state) != SEG_DONE)
    pthread_cond_wait (&self->done_cond, &self->mutex);
  g_atomic_int_set (&self->caller_sleeping, 0);
  pthread_mutex_unlock (&self->mutex);
}

const TslScanSegment *
tsl_scan_pool_get (TslScanPool *self,
                   guint        i,
                   gpointer     scratch)
{
  Slot *want;

  g_return_val_if_fail (i < self->n_slots, NULL);

  /* The limit rises by half the window at a time, not by one segment: a
   * scanner faster than the model waits at the limit, and a rise per
   * segment woke it for every segment (1 GB of Perfetto on 2 cores: 63,182
   * voluntary context switches, 19,907 with half-window steps). */
  if (self->ahead > 0 && self->limit < self->n_slots &&
      i + self->ahead >= self->limit + MAX (self->ahead / 2, 1))
    {
      pthread_mutex_lock (&self->mutex);
      self->limit = MIN (i + self->ahead, self->n_slots);
      g_atomic_int_inc (&self->generation);
      if (self->workers_sleeping > 0)
        pthread_cond_broadcast (&self->work_cond);
      pthread_mutex_unlock (&self->mutex);
    }

  /* The caller's own work first (reading the next feed ahead): no other
   * thread can do it, while any can scan. */
  want = &g_array_index (self->slots, Slot, i);
  while (g_atomic_int_get (&want->state) != SEG_DONE)
    {
      Slot *slot;

      if (run_idle (self))
        continue;
      if ((slot = claim (self)) != NULL)
        {
          scan (self, slot, scratch);
          self->by_caller++;
        }
      else
        wait_done (self, want);
    }
  return &want->seg;
}

void
tsl_scan_pool_set_ahead (TslScanPool *self,
                         guint        ahead)
{
  pthread_mutex_lock (&self->mutex);
  g_assert (self->next == self->n_slots);
  self->ahead = ahead;
  pthread_mutex_unlock (&self->mutex);
}

void
tsl_scan_pool_finish (TslScanPool *self)
{
  pthread_mutex_lock (&self->mutex);
  self->next = self->limit = self->n_slots;
  pthread_mutex_unlock (&self->mutex);
  /* Closed once no thread is at it. */
  while (!g_atomic_int_compare_and_exchange (&self->idle_state, IDLE_OPEN, IDLE_CLOSED) &&
         g_atomic_int_get (&self->idle_state) != IDLE_CLOSED)
    cpu_relax ();
  for (guint i = 0; i < self->n_slots; i++)
    {
      Slot *slot = &g_array_index (self->slots, Slot, i);

      if (g_atomic_int_get (&slot->state) == SEG_CLAIMED)
        wait_done (self, slot);
    }
}

guint64
tsl_scan_pool_get_by_caller (TslScanPool *self)
{
  return self->by_caller;
}

guint64
tsl_scan_pool_get_worker_sleeps (TslScanPool *self)
{
  guint64 n;

  pthread_mutex_lock (&self->mutex);
  n = self->worker_sleeps;
  pthread_mutex_unlock (&self->mutex);
  return n;
}

struct _TslScanCutter
{
  TslReaderContext *ctx;
  TslScanFindFunc find;
  TslScanFindFunc find_other;
  GRand     *rand;     /* TSL_READER_SPLIT_SEED */
  GPtrArray *cuts;
};

gboolean
tsl_scan_pool_wanted (TslReaderContext *ctx)
{
  /* TSL_READER_THREADS=pipe: the two-thread reader a pipe gets (Chrome),
   * for the benchmarks; one thread for the other formats. */
  return tsl_reader_context_reads_ahead (ctx) &&
         g_strcmp0 (g_getenv ("TSL_READER_THREADS"), "pipe") != 0 &&
         tsl_reader_context_get_threads (ctx) == TSL_READER_THREADS_AUTO &&
         tsl_reader_context_get_n_threads (ctx) > 1;
}

TslScanCutter *
tsl_scan_cutter_new (TslReaderContext *ctx,
                     TslScanFindFunc   find,
                     TslScanFindFunc   find_other)
{
  TslScanCutter *self;
  const char *seed;

  if (!tsl_scan_pool_wanted (ctx))
    return NULL;
  self = g_new0 (TslScanCutter, 1);
  self->ctx = ctx;
  self->find = find;
  self->find_other = find_other;
  self->cuts = g_ptr_array_new ();
  seed = g_getenv ("TSL_READER_SPLIT_SEED");
  if (seed != NULL)
    self->rand = g_rand_new_with_seed (g_ascii_strtoull (seed, NULL, 10));
  return self;
}

void
tsl_scan_cutter_free (TslScanCutter *self)
{
  if (self == NULL)
    return;
  g_clear_pointer (&self->rand, g_rand_free);
  g_ptr_array_unref (self->cuts);
  g_free (self);
}

gboolean
tsl_scan_cutter_is_random (const TslScanCutter *self)
{
  return self->rand != NULL;
}

/* The tests' cuts: the random draws (and so the cuts of a seed) are the
 * ones each reader made before the cutter was shared. */
static void
cut_randomly (TslScanCutter *self,
              const char    *p,
              const char    *end)
{
  const char *at = p;

  while (end - at > 1)
    {
      const char *cut;
      int roll;

      at += g_rand_int_range (self->rand, 1, MIN (end - at, TSL_SCAN_RANDOM_BYTES));
      roll = g_rand_int_range (self->rand, 0, self->find_other != NULL ? 6 : 4);
      if (self->find_other != NULL && roll == 0)
        cut = self->find_other (at, end);
      else if (roll == (self->find_other != NULL ? 1 : 0))
        cut = self->find (at, end);
      else
        cut = at;
      if (cut == NULL || cut >= end)
        break;
      g_ptr_array_add (self->cuts, (gpointer) cut);
      at = cut;
    }
}

const char *const *
tsl_scan_cutter_cut (TslScanCutter *self,
                     const char    *p,
                     const char    *end,
                     guint         *n_cuts)
{
  GPtrArray *cuts = self->cuts;

  g_ptr_array_set_size (cuts, 0);
  g_ptr_array_add (cuts, (gpointer) p);
  if (self->rand != NULL)
    cut_randomly (self, p, end);
  else if (!tsl_reader_context_scan_now (self->ctx, end - p))
    ;   /* one cut: the caller's one-thread loop reads it */
  else
    for (gsize k = (end - p) / TSL_SCAN_SEGMENT_BYTES, i = 1; i < k; i++)
      {
        const char *cut = self->find (p + (end - p) / k * i, end);

        if (cut != NULL && cut < end && cut > (const char *) cuts->pdata[cuts->len - 1])
          g_ptr_array_add (cuts, (gpointer) cut);
      }
  *n_cuts = cuts->len;
  return (const char *const *) cuts->pdata;
}

const char *
tsl_scan_find_line_start (const char *at,
                          const char *end)
{
  const char *nl = memchr (at, '\n', end - at);

  return nl != NULL ? nl + 1 : NULL;
}

struct _TslScanDriver {
  TslReaderContext        *ctx;
  TslScanCutter           *cutter;
  TslScanPool             *pool;        /* made at the first cut buffer */
  const TslScanFuncs      *scan;
  gpointer                 scan_data;
  const TslScanDriveFuncs *drive;
  gpointer                 data;
  gpointer                 scratch;
  guint64                  n_segments;
  guint64                  n_wrong;     /* not started where the model was */
};

TslScanDriver *
tsl_scan_driver_new (TslReaderContext        *ctx,
                     TslScanFindFunc          find,
                     TslScanFindFunc          find_other,
                     const TslScanFuncs      *scan,
                     gpointer                 scan_data,
                     const TslScanDriveFuncs *drive,
                     gpointer                 data,
                     gpointer                 scratch)
{
  TslScanCutter *cutter = tsl_scan_cutter_new (ctx, find, find_other);
  TslScanDriver *self;

  if (cutter == NULL)
    return NULL;
  self = g_new0 (TslScanDriver, 1);
  self->ctx = ctx;
  self->cutter = cutter;
  self->scan = scan;
  self->scan_data = scan_data;
  self->drive = drive;
  self->data = data;
  self->scratch = scratch;
  return self;
}

void
tsl_scan_driver_free (TslScanDriver *self)
{
  if (self == NULL)
    return;
  if (self->n_segments > 0)
    g_debug ("%s: %" G_GUINT64_FORMAT " segments scanned on %u threads (%"
             G_GUINT64_FORMAT " by the modelling one), %" G_GUINT64_FORMAT " of them cut at a wrong guess",
             tsl_reader_context_get_name (self->ctx), self->n_segments,
             tsl_reader_context_get_n_threads (self->ctx),
             tsl_scan_pool_get_by_caller (self->pool), self->n_wrong);
  g_clear_pointer (&self->pool, tsl_scan_pool_free);
  tsl_scan_cutter_free (self->cutter);
  g_free (self);
}

gboolean
tsl_scan_driver_is_random (const TslScanDriver *self)
{
  return tsl_scan_cutter_is_random (self->cutter);
}

gboolean
tsl_scan_driver_worth (const TslScanDriver *self,
                       gsize                len)
{
  return self != NULL &&
         (tsl_scan_cutter_is_random (self->cutter) || len >= 2 * TSL_SCAN_SEGMENT_BYTES);
}

static gboolean
context_idle (gpointer ctx)
{
  return tsl_reader_context_idle (ctx);
}

const char *
tsl_scan_driver_run (TslScanDriver       *self,
                     const TslScanBuffer *buf,
                     const char          *p,
                     gboolean             need_first,
                     gboolean            *blocked)
{
  const TslScanDriveFuncs *drive = self->drive;
  gpointer data = self->data;
  const char *end = buf->end;
  const char *const *cuts;
  guint n;

  cuts = tsl_scan_cutter_cut (self->cutter, p, end, &n);
  if (n < 2)
    return p;
  if (self->pool == NULL)
    self->pool = tsl_scan_pool_new (tsl_reader_context_get_n_threads (self->ctx),
                                    self->scan, self->scan_data, context_idle, self->ctx);
  if (drive->plan != NULL)
    drive->plan (data, buf);
  tsl_scan_pool_start (self->pool, cuts, n, end, need_first);
  self->n_segments += n;

  for (guint i = 0; i < n && !*blocked; i++)
    {
      const char *target = i + 1 < n ? cuts[i + 1] : end;

      if (cuts[i] != p || (drive->usable != NULL && !drive->usable (data)))
        {
          self->n_wrong++;
          if (p < target)
            p = drive->serial (data, buf, p, target, blocked);
          continue;
        }
      p = drive->apply (data, buf, tsl_scan_pool_get (self->pool, i, self->scratch));
      if (p < target)
        p = drive->serial (data, buf, p, target, blocked);
    }

  tsl_scan_pool_finish (self->pool);
  return p;
}

const char *
tsl_scan_driver_parse (TslScanDriver           *self,
                       const TslScanDriveFuncs *drive,
                       gpointer                 data,
                       const TslScanBuffer     *buf,
                       gboolean                 cut)
{
  const char *p = buf->base;
  gboolean blocked = FALSE;

  if (cut)
    p = tsl_scan_driver_run (self, buf, p, FALSE, &blocked);
  if (!blocked)
    p = drive->serial (data, buf, p, buf->end, &blocked);
  return p;
}
