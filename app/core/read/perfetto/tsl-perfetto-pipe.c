/* tsl-perfetto-pipe.c: TracePackets decoded on one core, modelled on the other
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A single-producer single-consumer ring of record batches under one mutex.
 * A batch holds a few hundred packets, tens of microseconds of modelling, so
 * the lock and an occasional futex wake-up per batch cost little; neither
 * side spins (the machine this was measured on has two cores shared with
 * other work, where spinning steals the other thread's core).
 */
#define G_LOG_DOMAIN "tsl-reader"

#include "config.h"

#include "tsl-perfetto-pipe.h"

#define BATCH_RECORDS 256
#define RING_BATCHES  16
/* Either side, once asleep, is woken only when half the ring is ready for
 * it (or at a drain): a wake-up at every batch doubled the CPU time. */
#define WAKE_BATCHES  (RING_BATCHES / 2)

typedef struct {
  guint             n;
  TslPerfettoRecord recs[BATCH_RECORDS];
} Batch;

struct _TslPerfettoPipe
{
  TslPerfettoApplyFunc apply;
  gpointer             data;
  gboolean           (*idle) (gpointer data);
  gpointer             idle_data;
  GThread             *thread;
  GMutex               mutex;
  GCond                cond;

  guint                fill;    /* records in ring[head % RING_BATCHES]; the reading thread's */
  /* Under the mutex. */
  guint                head;    /* batches published */
  guint                tail;    /* batches modelled */
  gboolean             quit;
  gboolean             flush;   /* a drain waits: model every batch */
  gboolean             worker_waiting;
  gboolean             producer_waiting;  /* for room */
  gboolean             drain_waiting;     /* for the last batch */

  Batch                ring[RING_BATCHES];
};

static gpointer
worker (gpointer data)
{
  TslPerfettoPipe *self = data;

  for (;;)
    {
      Batch *batch;

      g_mutex_lock (&self->mutex);
      while (self->tail == self->head && !self->quit)
        {
          self->worker_waiting = TRUE;
          g_cond_wait (&self->cond, &self->mutex);
        }
      self->worker_waiting = FALSE;
      if (self->tail == self->head)
        {
          g_mutex_unlock (&self->mutex);
          return NULL;
        }
      batch = &self->ring[self->tail % RING_BATCHES];
      g_mutex_unlock (&self->mutex);

      for (guint i = 0; i < batch->n; i++)
        self->apply (self->data, &batch->recs[i]);

      g_mutex_lock (&self->mutex);
      self->tail++;
      if ((self->producer_waiting && self->head - self->tail <= RING_BATCHES - WAKE_BATCHES) ||
          (self->drain_waiting && self->head == self->tail))
        g_cond_broadcast (&self->cond);
      g_mutex_unlock (&self->mutex);
    }
}

TslPerfettoPipe *
tsl_perfetto_pipe_new (TslPerfettoApplyFunc apply,
                       gpointer             data)
{
  TslPerfettoPipe *self = g_new0 (TslPerfettoPipe, 1);

  self->apply = apply;
  self->data = data;
  g_mutex_init (&self->mutex);
  g_cond_init (&self->cond);
  self->thread = g_thread_new ("tsl-perfetto", worker, self);
  return self;
}

void
tsl_perfetto_pipe_set_idle (TslPerfettoPipe *self,
                            gboolean       (*idle) (gpointer data),
                            gpointer         data)
{
  self->idle = idle;
  self->idle_data = data;
}

static void
publish (TslPerfettoPipe *self)
{
  self->ring[self->head % RING_BATCHES].n = self->fill;
  self->fill = 0;
  g_mutex_lock (&self->mutex);
  self->head++;
  if (self->worker_waiting && (self->head - self->tail >= WAKE_BATCHES || self->flush))
    g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->mutex);
}

TslPerfettoRecord *
tsl_perfetto_pipe_slot (TslPerfettoPipe *self)
{
  if (G_UNLIKELY (self->fill == 0))
    {
      /* A new batch: wait until the worker is done with its last use. */
      g_mutex_lock (&self->mutex);
      if (self->head - self->tail >= RING_BATCHES)
        while (self->head - self->tail > RING_BATCHES - WAKE_BATCHES)
          {
            self->producer_waiting = TRUE;
            g_cond_wait (&self->cond, &self->mutex);
          }
      self->producer_waiting = FALSE;
      g_mutex_unlock (&self->mutex);
    }
  return &self->ring[self->head % RING_BATCHES].recs[self->fill];
}

void
tsl_perfetto_pipe_commit (TslPerfettoPipe *self)
{
  if (++self->fill == BATCH_RECORDS)
    publish (self);
}

void
tsl_perfetto_pipe_drain (TslPerfettoPipe *self)
{
  if (self->fill > 0)
    publish (self);
  g_mutex_lock (&self->mutex);
  self->flush = TRUE;
  if (self->worker_waiting && self->head != self->tail)
    g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->mutex);
  for (;;)
    {
      gboolean done;

      g_mutex_lock (&self->mutex);
      done = self->tail == self->head;
      g_mutex_unlock (&self->mutex);
      if (done || self->idle == NULL || !self->idle (self->idle_data))
        break;
    }
  g_mutex_lock (&self->mutex);
  while (self->tail != self->head)
    {
      self->drain_waiting = TRUE;
      g_cond_wait (&self->cond, &self->mutex);
    }
  self->drain_waiting = FALSE;
  self->flush = FALSE;
  g_mutex_unlock (&self->mutex);
}

void
tsl_perfetto_pipe_free (TslPerfettoPipe *self)
{
  if (self == NULL)
    return;

  tsl_perfetto_pipe_drain (self);
  g_mutex_lock (&self->mutex);
  self->quit = TRUE;
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->mutex);
  g_thread_join (self->thread);
  g_mutex_clear (&self->mutex);
  g_cond_clear (&self->cond);
  g_free (self);
}
