/* tsl-chrome-pipe.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A single-producer single-consumer ring of event batches. Either side spins
 * briefly before it sleeps on the condition variable: a batch takes tens of
 * microseconds, about what a futex wake-up costs, so sleeping at every batch
 * boundary would eat the gain.
 */
#define G_LOG_DOMAIN "tsl-reader"

#include "config.h"

#include <string.h>

#include "tsl-chrome-pipe.h"

#define BATCH_EVENTS 128
#define RING_BATCHES 8
#define SPIN_ROUNDS  4000

typedef struct {
  guint          n;
  guint8         sample[BATCH_EVENTS];
  TslChromeEvent events[BATCH_EVENTS];
} Batch;

struct _TslChromePipe
{
  TslChromeModel *model;
  GThread        *thread;
  GMutex          mutex;
  GCond           cond;
  gint            head;               /* batches published; producer writes */
  gint            tail;               /* batches modelled; worker writes */
  gint            worker_sleeping;
  gint            producer_sleeping;
  gint            quit;
  guint           fill;               /* events in ring[head]; producer's */
  Batch           ring[RING_BATCHES];
};

static inline void
cpu_relax (void)
{
#if defined (__x86_64__) || defined (__i386__)
  __builtin_ia32_pause ();
#endif
}

static void
wake (TslChromePipe *self,
      gint          *sleeping)
{
  if (g_atomic_int_get (sleeping))
    {
      g_mutex_lock (&self->mutex);
      g_cond_broadcast (&self->cond);
      g_mutex_unlock (&self->mutex);
    }
}

/* Waits until *counter differs from `value` (or, with `quit`, until quit). */
static void
wait_change (TslChromePipe *self,
             gint          *counter,
             gint           value,
             gint          *sleeping,
             gboolean       quit)
{
  for (guint i = 0; i < SPIN_ROUNDS; i++)
    {
      if (g_atomic_int_get (counter) != value || (quit && g_atomic_int_get (&self->quit)))
        return;
      cpu_relax ();
    }

  g_mutex_lock (&self->mutex);
  g_atomic_int_set (sleeping, 1);
  while (g_atomic_int_get (counter) == value && !(quit && g_atomic_int_get (&self->quit)))
    g_cond_wait (&self->cond, &self->mutex);
  g_atomic_int_set (sleeping, 0);
  g_mutex_unlock (&self->mutex);
}

static gpointer
worker (gpointer data)
{
  TslChromePipe *self = data;
  gint tail = 0;

  for (;;)
    {
      Batch *batch;

      if (g_atomic_int_get (&self->head) == tail)
        {
          wait_change (self, &self->head, tail, &self->worker_sleeping, TRUE);
          if (g_atomic_int_get (&self->head) == tail)
            break;   /* quit, with nothing left */
        }

      batch = &self->ring[tail % RING_BATCHES];
      for (guint i = 0; i < batch->n; i++)
        {
          if (batch->sample[i])
            tsl_chrome_model_sample (self->model, &batch->events[i]);
          else
            tsl_chrome_model_event (self->model, &batch->events[i]);
        }
      g_atomic_int_set (&self->tail, ++tail);
      wake (self, &self->producer_sleeping);
    }

  return NULL;
}

TslChromePipe *
tsl_chrome_pipe_new (TslChromeModel *model)
{
  TslChromePipe *self = g_new0 (TslChromePipe, 1);

  self->model = model;
  g_mutex_init (&self->mutex);
  g_cond_init (&self->cond);
  self->thread = g_thread_new ("tsl-chrome-model", worker, self);
  return self;
}

void
tsl_chrome_pipe_free (TslChromePipe *self)
{
  if (self == NULL)
    return;

  tsl_chrome_pipe_drain (self);
  g_mutex_lock (&self->mutex);
  g_atomic_int_set (&self->quit, 1);
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->mutex);
  g_thread_join (self->thread);
  g_mutex_clear (&self->mutex);
  g_cond_clear (&self->cond);
  g_free (self);
}

static void
publish (TslChromePipe *self)
{
  self->ring[self->head % RING_BATCHES].n = self->fill;
  self->fill = 0;
  g_atomic_int_set (&self->head, self->head + 1);
  wake (self, &self->worker_sleeping);
}

TslChromeEvent *
tsl_chrome_pipe_slot (TslChromePipe *self)
{
  gint head = self->head;   /* only this thread writes it */
  Batch *batch;
  gint tail;

  /* The batch being filled must not be one the worker still reads. */
  while (head - (tail = g_atomic_int_get (&self->tail)) >= RING_BATCHES)
    wait_change (self, &self->tail, tail, &self->producer_sleeping, FALSE);

  batch = &self->ring[head % RING_BATCHES];
  return &batch->events[self->fill];
}

void
tsl_chrome_pipe_commit (TslChromePipe *self,
                        gboolean       sample)
{
  Batch *batch = &self->ring[self->head % RING_BATCHES];

  batch->sample[self->fill] = sample != FALSE;
  if (++self->fill == BATCH_EVENTS)
    publish (self);
}

void
tsl_chrome_pipe_drain (TslChromePipe *self)
{
  gint head;
  gint tail;

  if (self->fill > 0)
    publish (self);

  head = self->head;
  while ((tail = g_atomic_int_get (&self->tail)) != head)
    wait_change (self, &self->tail, tail, &self->producer_sleeping, FALSE);
}
