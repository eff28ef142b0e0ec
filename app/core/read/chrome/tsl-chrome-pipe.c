/* tsl-chrome-pipe.c: Chrome events tokenized on one core, modelled on the other
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A single-producer single-consumer ring of event batches, plus at most one
 * speculative scan per parse call. Either side spins briefly before it
 * sleeps on the condition variable: a batch takes tens of microseconds,
 * about what a futex wake-up costs, so sleeping at every batch boundary
 * would eat the gain.
 *
 * A split (see tsl_chrome_pipe_split()) comes first in a parse call: the
 * worker scans and models the head of the buffer itself while the reading
 * thread scans the rest, from a guessed event boundary, into the ring. If the
 * worker's scan does not end exactly at the guess, the ring's batches up to
 * the reading thread's acknowledgement are dropped unmodelled.
 */
#define G_LOG_DOMAIN "tsl-reader"

#include "config.h"

#include <string.h>

#include "tsl-chrome-pipe.h"

#define BATCH_EVENTS 128
#define RING_BATCHES 64
#define SPIN_ROUNDS  1000

typedef struct {
  guint          n;
  guint8         sample[BATCH_EVENTS];
  TslChromeEvent events[BATCH_EVENTS];
} Batch;

/* The two threads' counters sit on cache lines of their own, and the
 * reading thread's per-event count on a third: sharing one, every event it
 * committed had to take the line back from a worker polling for the next
 * batch. */
#define CACHE_LINE 64

struct _TslChromePipe
{
  TslChromeModel  *model;
  GThread         *thread;
  GMutex           mutex;
  GCond            cond;
  gboolean       (*idle) (gpointer data);
  gpointer         idle_data;

  /* The reading thread's own. */
  _Alignas (CACHE_LINE)
  guint            fill;              /* events in ring[head] */

  /* Written by the reading thread, once a batch. */
  _Alignas (CACHE_LINE)
  gint             head;              /* batches published */
  gint             posted;            /* bumped at every post: the worker's wake-up */
  gint             producer_sleeping;

  /* Written by the worker. */
  _Alignas (CACHE_LINE)
  gint             tail;              /* batches modelled */
  gint             completed;         /* bumped at every batch done or dropped and split */
  gint             worker_sleeping;

  _Alignas (CACHE_LINE)
  gint             quit;
  /* The split: written by the producer before posting, by the worker
   * before it sets split_state. */
  gint             split_state;       /* TslChromeSplit */
  TslChromeRunFunc split_run;
  const char      *split_start;
  const char      *split_guess;
  gboolean         split_need_separator;
  GArray          *split_events;      /* TslChromeEvent */
  TslChromeShape   shape;             /* the worker's scanner's */
  const char      *split_stop;
  gint             discard_to;        /* 0, or 1 + the head up to which to drop */
  /* Since the last tsl_chrome_pipe_take_waits(), at waits_since; and the
   * worker's idle time also before it (between parse calls). */
  gint64           worker_idle_us;
  gint64           worker_idle_all_us;
  gint64           producer_wait_us;
  gint64           waits_since;

  _Alignas (CACHE_LINE)
  Batch            ring[RING_BATCHES];
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
             gboolean       quit,
             gint64        *waited_us,
             gint64        *waited_all_us)
{
  gint64 now, since;
  gint64 start = g_get_monotonic_time ();

  for (guint i = 0; i < SPIN_ROUNDS; i++)
    {
      if (g_atomic_int_get (counter) != value || (quit && g_atomic_int_get (&self->quit)))
        goto out;
      cpu_relax ();
    }

  g_mutex_lock (&self->mutex);
  g_atomic_int_set (sleeping, 1);
  while (g_atomic_int_get (counter) == value && !(quit && g_atomic_int_get (&self->quit)))
    g_cond_wait (&self->cond, &self->mutex);
  g_atomic_int_set (sleeping, 0);
  g_mutex_unlock (&self->mutex);

out:
  /* Relaxed atomics: the worker's count is taken by the other thread.
   * Only the part since the counts were last taken: a worker idle between
   * two parse calls (the reading thread reading a pipe) is no sign of
   * either thread waiting for the other. */
  now = g_get_monotonic_time ();
  if (waited_all_us != NULL)
    __atomic_fetch_add (waited_all_us, now - start, __ATOMIC_RELAXED);
  /* Loaded once: MAX() evaluates its arguments twice, and the other
   * thread may move it between two loads. */
  since = __atomic_load_n (&self->waits_since, __ATOMIC_RELAXED);
  start = MAX (start, since);
  __atomic_fetch_add (waited_us, MAX (now - start, 0), __ATOMIC_RELAXED);
}

/* The reading thread's work instead of a wait, while there is some. */
static inline gboolean
producer_idle (TslChromePipe *self)
{
  return self->idle != NULL && self->idle (self->idle_data);
}

static void
complete (TslChromePipe *self)
{
  g_atomic_int_inc (&self->completed);
  wake (self, &self->producer_sleeping);
}

static void
model_batch (TslChromePipe *self,
             Batch         *batch)
{
  for (guint i = 0; i < batch->n; i++)
    {
      if (batch->sample[i])
        tsl_chrome_model_sample (self->model, &batch->events[i]);
      else
        tsl_chrome_model_event (self->model, &batch->events[i]);
    }
}

static void
run_split (TslChromePipe *self)
{
  gboolean need = self->split_need_separator;
  gboolean valid;

  g_array_set_size (self->split_events, 0);
  self->split_stop = self->split_run (self->split_start, self->split_guess,
                                      self->split_events, &self->shape, &need);
  for (guint i = 0; i < self->split_events->len; i++)
    tsl_chrome_model_event (self->model, &g_array_index (self->split_events, TslChromeEvent, i));
  self->split_need_separator = need;
  valid = self->split_stop == self->split_guess && !need;
  g_atomic_int_set (&self->split_state, valid ? TSL_CHROME_SPLIT_VALID : TSL_CHROME_SPLIT_INVALID);
  complete (self);
}

static gpointer
worker (gpointer data)
{
  TslChromePipe *self = data;
  gint tail = 0;

  for (;;)
    {
      gint posted = g_atomic_int_get (&self->posted);
      gint state = g_atomic_int_get (&self->split_state);
      gint discard_to;

      if (state == TSL_CHROME_SPLIT_PENDING)
        {
          run_split (self);
          continue;
        }

      /* A wrong guess: what the reading thread scanned from it is dropped,
       * up to where it learnt so. */
      if (state == TSL_CHROME_SPLIT_INVALID)
        {
          discard_to = g_atomic_int_get (&self->discard_to);
          if (discard_to != 0 && tail < discard_to - 1)
            {
              g_atomic_int_set (&self->tail, ++tail);
              complete (self);
              continue;
            }
        }

      if (state != TSL_CHROME_SPLIT_INVALID && g_atomic_int_get (&self->head) != tail)
        {
          model_batch (self, &self->ring[tail % RING_BATCHES]);
          g_atomic_int_set (&self->tail, ++tail);
          complete (self);
          continue;
        }

      if (g_atomic_int_get (&self->quit))
        break;

      wait_change (self, &self->posted, posted, &self->worker_sleeping, TRUE, &self->worker_idle_us,
                   &self->worker_idle_all_us);
    }

  return NULL;
}

TslChromePipe *
tsl_chrome_pipe_new (TslChromeModel *model)
{
  TslChromePipe *self = g_aligned_alloc0 (1, sizeof (TslChromePipe), CACHE_LINE);

  self->model = model;
  self->split_events = g_array_new (FALSE, FALSE, sizeof (TslChromeEvent));
  g_mutex_init (&self->mutex);
  g_cond_init (&self->cond);
  self->thread = g_thread_new ("tsl-chrome-model", worker, self);
  return self;
}

void
tsl_chrome_pipe_set_idle (TslChromePipe  *self,
                          gboolean      (*idle) (gpointer data),
                          gpointer        data)
{
  self->idle = idle;
  self->idle_data = data;
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
  g_array_unref (self->split_events);
  g_aligned_free (self);
}

static void
post (TslChromePipe *self)
{
  g_atomic_int_inc (&self->posted);
  wake (self, &self->worker_sleeping);
}

static void
publish (TslChromePipe *self)
{
  self->ring[self->head % RING_BATCHES].n = self->fill;
  self->fill = 0;
  g_atomic_int_set (&self->head, self->head + 1);
  post (self);
}

TslChromeEvent *
tsl_chrome_pipe_slot (TslChromePipe *self)
{
  gint head = self->head;   /* only this thread writes it */

  /* The batch being filled must not be one the worker still reads: asked
   * when it is started. */
  while (self->fill == 0)
    {
      gint completed = g_atomic_int_get (&self->completed);

      if (head - g_atomic_int_get (&self->tail) < RING_BATCHES)
        break;
      /* The worker holds the ring until a wrong guess is resolved. */
      if (g_atomic_int_get (&self->split_state) == TSL_CHROME_SPLIT_INVALID)
        return NULL;
      if (producer_idle (self))
        continue;
      wait_change (self, &self->completed, completed, &self->producer_sleeping, FALSE,
                   &self->producer_wait_us, NULL);
    }

  return &self->ring[head % RING_BATCHES].events[self->fill];
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
  if (self->fill > 0)
    publish (self);

  for (;;)
    {
      gint completed = g_atomic_int_get (&self->completed);

      if (g_atomic_int_get (&self->tail) == self->head &&
          g_atomic_int_get (&self->split_state) != TSL_CHROME_SPLIT_PENDING)
        return;
      if (producer_idle (self))
        continue;
      wait_change (self, &self->completed, completed, &self->producer_sleeping, FALSE,
                   &self->producer_wait_us, NULL);
    }
}

void
tsl_chrome_pipe_split (TslChromePipe    *self,
                       const char       *start,
                       const char       *guess,
                       gboolean          need_separator,
                       TslChromeRunFunc  run)
{
  g_return_if_fail (g_atomic_int_get (&self->split_state) == TSL_CHROME_SPLIT_NONE);
  g_return_if_fail (self->fill == 0 && self->head == g_atomic_int_get (&self->tail));

  self->split_run = run;
  self->split_start = start;
  self->split_guess = guess;
  self->split_need_separator = need_separator;
  g_atomic_int_set (&self->discard_to, 0);
  g_atomic_int_set (&self->split_state, TSL_CHROME_SPLIT_PENDING);
  post (self);
}

TslChromeSplit
tsl_chrome_pipe_get_split (TslChromePipe *self)
{
  return g_atomic_int_get (&self->split_state);
}

TslChromeSplit
tsl_chrome_pipe_resolve (TslChromePipe  *self,
                         guint          *n_events,
                         const char    **stop,
                         gboolean       *need_separator)
{
  gint state;

  for (;;)
    {
      gint completed = g_atomic_int_get (&self->completed);

      if ((state = g_atomic_int_get (&self->split_state)) != TSL_CHROME_SPLIT_PENDING)
        break;
      if (producer_idle (self))
        continue;
      wait_change (self, &self->completed, completed, &self->producer_sleeping, FALSE,
                   &self->producer_wait_us, NULL);
    }

  *stop = self->split_stop;
  *need_separator = self->split_need_separator;
  *n_events = self->split_events->len;

  if (state == TSL_CHROME_SPLIT_INVALID)
    {
      /* Drop the batch being filled; the worker drops the published ones. */
      self->fill = 0;
      g_atomic_int_set (&self->discard_to, self->head + 1);
      post (self);
      tsl_chrome_pipe_drain (self);
    }
  g_atomic_int_set (&self->split_state, TSL_CHROME_SPLIT_NONE);
  post (self);
  return state;
}

void
tsl_chrome_pipe_take_waits (TslChromePipe *self,
                            gint64        *worker_idle_us,
                            gint64        *worker_idle_all_us,
                            gint64        *producer_wait_us)
{
  __atomic_store_n (&self->waits_since, g_get_monotonic_time (), __ATOMIC_RELAXED);
  *worker_idle_us = __atomic_exchange_n (&self->worker_idle_us, 0, __ATOMIC_RELAXED);
  *worker_idle_all_us = __atomic_exchange_n (&self->worker_idle_all_us, 0, __ATOMIC_RELAXED);
  *producer_wait_us = __atomic_exchange_n (&self->producer_wait_us, 0, __ATOMIC_RELAXED);
}
