/* tsl-inflate-ahead.c: gzip and zstd decompressed on a thread of their own
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The ring's slots are used in turn: the thread fills slot `tail` (the
 * inflater writes into its buffer), hands it on (`count` ready ones from
 * `head`) and waits while every slot is ready or held by the reading
 * thread. Only the buffers' bytes cross threads, under the mutex's order.
 */
#define G_LOG_DOMAIN "tsl-inflate"

#include "config.h"

#include <string.h>

#include "tsl-inflate-ahead.h"

typedef struct {
  guint8           *buf;
  gsize             len;
  TslInflatePoint  *point;       /* made when first needed */
  gboolean          has_point;
  TslInflateStatus  status;
  char             *message;
  gboolean          end;
} Slot;

typedef struct {
  guint8  *data;   /* NULL: the input's end */
  gsize    len;
} Input;

struct _TslInflateAhead
{
  TslInflate *inflate;
  GThread    *thread;
  GMutex      mutex;
  GCond       cond;          /* any change: one condition, few waits */
  Slot        ring[TSL_INFLATE_AHEAD_RING];

  /* Under the mutex. */
  GQueue      inputs;        /* Input, not yet taken by the thread */
  guint       n_inputs;      /* queued or being decompressed */
  guint       head;
  guint       tail;
  guint       count;         /* ready or held by the reading thread */
  gboolean    quit;
  gboolean    closed;        /* the end is queued */
  gboolean    started;       /* the first input was taken */
  guint64     full_waits;
  guint64     input_waits;

  /* The thread's. */
  gboolean    stopped;       /* after damage: the rest of the input is dropped */

  /* The reading thread's. */
  TslInflateAheadOut out;
};

/* The filled slot `tail` goes to the reading thread; then waits for the
 * next to be free and writes there. FALSE when asked to quit. */
static gboolean
publish (TslInflateAhead *self)
{
  Slot *next;

  g_mutex_lock (&self->mutex);
  self->count++;
  self->tail = (self->tail + 1) % TSL_INFLATE_AHEAD_RING;
  g_cond_broadcast (&self->cond);
  if (self->count == TSL_INFLATE_AHEAD_RING && !self->quit)
    self->full_waits++;
  while (self->count == TSL_INFLATE_AHEAD_RING && !self->quit)
    g_cond_wait (&self->cond, &self->mutex);
  next = &self->ring[self->tail];
  if (self->quit)
    {
      g_mutex_unlock (&self->mutex);
      return FALSE;
    }
  g_mutex_unlock (&self->mutex);
  tsl_inflate_set_buffer (self->inflate, next->buf, TSL_INFLATE_BUFFER_BYTES);
  return TRUE;
}

static gboolean
output (gpointer               user_data,
        const guint8          *out,
        gsize                  len,
        const TslInflatePoint *point,
        GError               **error)
{
  TslInflateAhead *self = user_data;
  Slot *slot = &self->ring[self->tail];

  g_assert (out == slot->buf);
  slot->len = len;
  slot->has_point = point != NULL;
  if (point != NULL)
    {
      if (slot->point == NULL)
        slot->point = g_new (TslInflatePoint, 1);
      /* The window only as far as it is used. */
      memcpy (slot->point, point, G_STRUCT_OFFSET (TslInflatePoint, window) + point->window_len);
    }
  slot->status = TSL_INFLATE_OK;
  slot->end = FALSE;
  return publish (self);
}

/* A last buffer, empty: damage, or the end of the input. */
static gboolean
publish_marker (TslInflateAhead  *self,
                TslInflateStatus  status,
                char             *message,
                gboolean          end)
{
  Slot *slot = &self->ring[self->tail];

  slot->len = 0;
  slot->has_point = FALSE;
  slot->status = status;
  g_free (slot->message);
  slot->message = message;
  slot->end = end;
  return publish (self);
}

static gpointer
run (gpointer data)
{
  TslInflateAhead *self = data;

  for (;;)
    {
      Input *input;
      gboolean go_on = TRUE;

      g_mutex_lock (&self->mutex);
      /* Starved: the reading thread had not queued the next input yet. */
      if (g_queue_is_empty (&self->inputs) && !self->quit && self->started && !self->closed)
        self->input_waits++;
      while (g_queue_is_empty (&self->inputs) && !self->quit)
        g_cond_wait (&self->cond, &self->mutex);
      input = self->quit ? NULL : g_queue_pop_head (&self->inputs);
      self->started = TRUE;
      g_mutex_unlock (&self->mutex);
      if (input == NULL)
        break;

      if (input->data == NULL)
        {
          publish_marker (self, TSL_INFLATE_OK, NULL, TRUE);
          go_on = FALSE;   /* nothing comes after the end */
        }
      else if (!self->stopped)
        {
          char *message = NULL;
          gboolean ok;
          TslInflateStatus status = tsl_inflate_push (self->inflate, input->data, input->len, output,
                                                      self, &ok, &message, NULL);

          if (!ok)
            go_on = FALSE;   /* asked to quit */
          else if (status != TSL_INFLATE_OK)
            {
              self->stopped = TRUE;
              go_on = publish_marker (self, status, g_steal_pointer (&message), FALSE);
            }
          g_free (message);
        }
      g_free (input->data);
      g_free (input);

      g_mutex_lock (&self->mutex);
      self->n_inputs--;
      g_cond_broadcast (&self->cond);
      g_mutex_unlock (&self->mutex);
      if (!go_on)
        break;
    }
  return NULL;
}

TslInflateAhead *
tsl_inflate_ahead_new (TslInflate *inflate)
{
  TslInflateAhead *self = g_new0 (TslInflateAhead, 1);

  self->inflate = inflate;
  g_mutex_init (&self->mutex);
  g_cond_init (&self->cond);
  g_queue_init (&self->inputs);
  for (guint i = 0; i < TSL_INFLATE_AHEAD_RING; i++)
    self->ring[i].buf = g_malloc (TSL_INFLATE_BUFFER_BYTES);
  tsl_inflate_set_buffer (inflate, self->ring[0].buf, TSL_INFLATE_BUFFER_BYTES);
  self->thread = g_thread_new ("tsl-inflate", run, self);
  return self;
}

static void
input_free (gpointer data)
{
  Input *input = data;

  g_free (input->data);
  g_free (input);
}

void
tsl_inflate_ahead_free (TslInflateAhead *self)
{
  if (self == NULL)
    return;

  g_mutex_lock (&self->mutex);
  self->quit = TRUE;
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->mutex);
  g_thread_join (self->thread);

  /* The inflater writes into its own buffer again. */
  tsl_inflate_set_buffer (self->inflate, NULL, 0);
  g_queue_clear_full (&self->inputs, input_free);
  for (guint i = 0; i < TSL_INFLATE_AHEAD_RING; i++)
    {
      g_free (self->ring[i].buf);
      g_free (self->ring[i].point);
      g_free (self->ring[i].message);
    }
  g_mutex_clear (&self->mutex);
  g_cond_clear (&self->cond);
  g_free (self);
}

static void
queue_input (TslInflateAhead *self,
             guint8          *data,
             gsize            len)
{
  Input *input = g_new (Input, 1);

  input->data = data;
  input->len = len;
  g_mutex_lock (&self->mutex);
  if (data == NULL)
    self->closed = TRUE;
  g_queue_push_tail (&self->inputs, input);
  self->n_inputs++;
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->mutex);
}

void
tsl_inflate_ahead_push (TslInflateAhead *self,
                        const guint8    *data,
                        gsize            len)
{
  if (len > 0)
    queue_input (self, g_memdup2 (data, len), len);
}

void
tsl_inflate_ahead_close (TslInflateAhead *self)
{
  queue_input (self, NULL, 0);
}

const TslInflateAheadOut *
tsl_inflate_ahead_next (TslInflateAhead *self,
                        guint            queued,
                        gboolean         wait)
{
  Slot *slot;

  g_mutex_lock (&self->mutex);
  while (self->count == 0 && self->n_inputs > queued && wait)
    g_cond_wait (&self->cond, &self->mutex);
  if (self->count == 0)
    {
      g_mutex_unlock (&self->mutex);
      return NULL;
    }
  slot = &self->ring[self->head];
  g_mutex_unlock (&self->mutex);

  self->out = (TslInflateAheadOut) {
    .data = slot->buf, .len = slot->len, .point = slot->has_point ? slot->point : NULL,
    .status = slot->status, .message = slot->message, .end = slot->end,
  };
  return &self->out;
}

void
tsl_inflate_ahead_release (TslInflateAhead *self)
{
  g_mutex_lock (&self->mutex);
  g_assert (self->count > 0);
  self->count--;
  self->head = (self->head + 1) % TSL_INFLATE_AHEAD_RING;
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->mutex);
}

gboolean
tsl_inflate_ahead_wants_input (TslInflateAhead *self)
{
  gboolean wants;

  g_mutex_lock (&self->mutex);
  wants = g_queue_is_empty (&self->inputs) && !self->closed;
  g_mutex_unlock (&self->mutex);
  return wants;
}

guint64
tsl_inflate_ahead_get_input_waits (TslInflateAhead *self)
{
  guint64 n;

  g_mutex_lock (&self->mutex);
  n = self->input_waits;
  g_mutex_unlock (&self->mutex);
  return n;
}

guint64
tsl_inflate_ahead_get_full_waits (TslInflateAhead *self)
{
  guint64 n;

  g_mutex_lock (&self->mutex);
  n = self->full_waits;
  g_mutex_unlock (&self->mutex);
  return n;
}
