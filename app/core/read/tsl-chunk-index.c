/* tsl-chunk-index.c: checkpoints of a file's first read, for range reads
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "tsl-chunk-index"

#include "config.h"

#include "tsl-chunk-index.h"

/* Indexes kept for the process: a few files' worth, the oldest dropped. */
#define REMEMBER_MAX 8

struct _TslChunkIndex
{
  gint     ref_count;
  gboolean valid;
  gboolean closed;
  GArray  *chunks;        /* TslChunk; the last is open until closed */
  guint64  stride;        /* bytes between checkpoints at least */
  guint64  size;
  guint64  changes;       /* the trace's change count at the open chunk's start */
  gint64   span_start;
  gint64   span_end;
  char    *format;
};

typedef struct {
  TslFileKey     key;
  TslChunkIndex *index;
} Remembered;

static GMutex      remembered_lock;
static GQueue      remembered = G_QUEUE_INIT;
static guint64     bytes_read;

gboolean
tsl_file_key_query (GFileInputStream *stream,
                    TslFileKey       *key)
{
  g_autoptr(GFileInfo) info = NULL;

  info = g_file_input_stream_query_info (stream,
                                         G_FILE_ATTRIBUTE_STANDARD_TYPE ","
                                         G_FILE_ATTRIBUTE_STANDARD_SIZE ","
                                         G_FILE_ATTRIBUTE_UNIX_DEVICE ","
                                         G_FILE_ATTRIBUTE_UNIX_INODE ","
                                         G_FILE_ATTRIBUTE_TIME_MODIFIED ","
                                         G_FILE_ATTRIBUTE_TIME_MODIFIED_USEC,
                                         NULL, NULL);
  if (info == NULL || g_file_info_get_file_type (info) != G_FILE_TYPE_REGULAR ||
      !g_file_info_has_attribute (info, G_FILE_ATTRIBUTE_UNIX_INODE))
    return FALSE;

  key->dev = g_file_info_get_attribute_uint32 (info, G_FILE_ATTRIBUTE_UNIX_DEVICE);
  key->inode = g_file_info_get_attribute_uint64 (info, G_FILE_ATTRIBUTE_UNIX_INODE);
  key->size = g_file_info_get_size (info);
  key->mtime_us = g_file_info_get_attribute_uint64 (info, G_FILE_ATTRIBUTE_TIME_MODIFIED) * G_USEC_PER_SEC +
                  g_file_info_get_attribute_uint32 (info, G_FILE_ATTRIBUTE_TIME_MODIFIED_USEC);
  return TRUE;
}

static void
chunk_clear (gpointer data)
{
  TslChunk *chunk = data;

  g_clear_pointer (&chunk->state, g_bytes_unref);
}

TslChunkIndex *
tsl_chunk_index_new (void)
{
  TslChunkIndex *self = g_new0 (TslChunkIndex, 1);

  self->ref_count = 1;
  self->valid = TRUE;
  self->chunks = g_array_new (FALSE, TRUE, sizeof (TslChunk));
  g_array_set_clear_func (self->chunks, chunk_clear);
  self->stride = TSL_CHUNK_BYTES;
  /* Tests index small files in many chunks. */
  if (g_getenv ("TSL_INDEX_CHUNK_BYTES") != NULL)
    self->stride = MAX (g_ascii_strtoull (g_getenv ("TSL_INDEX_CHUNK_BYTES"), NULL, 10), 1);
  return self;
}

TslChunkIndex *
tsl_chunk_index_ref (TslChunkIndex *self)
{
  g_atomic_int_inc (&self->ref_count);
  return self;
}

void
tsl_chunk_index_unref (TslChunkIndex *self)
{
  if (self == NULL || !g_atomic_int_dec_and_test (&self->ref_count))
    return;
  g_array_unref (self->chunks);
  g_free (self->format);
  g_free (self);
}

/* Over the cap: neighbouring closed chunks become one, and checkpoints
 * come half as often from now on. Memory stays O(TSL_CHUNK_INDEX_MAX). */
static void
halve (TslChunkIndex *self)
{
  guint closed = self->chunks->len - 1;
  GArray *merged = g_array_sized_new (FALSE, TRUE, sizeof (TslChunk), closed / 2 + 2);

  g_array_set_clear_func (merged, chunk_clear);
  for (guint i = 0; i <= closed; i++)
    {
      TslChunk *chunk = &g_array_index (self->chunks, TslChunk, i);

      /* Pairs of closed chunks; the open one stays as it is. */
      if (i % 2 == 1 && i < closed)
        {
          TslChunk *into = &g_array_index (merged, TslChunk, merged->len - 1);

          into->min_ns = MIN (into->min_ns, chunk->min_ns);
          into->max_ns = MAX (into->max_ns, chunk->max_ns);
          into->must_read |= chunk->must_read;
          continue;
        }
      g_array_append_val (merged, *chunk);
      chunk->state = NULL;   /* moved */
    }
  g_array_unref (self->chunks);
  self->chunks = merged;
  self->stride *= 2;
}

static void
close_open_chunk (TslChunkIndex *self,
                  TslTrace      *trace,
                  gboolean       last)
{
  TslChunk *open = &g_array_index (self->chunks, TslChunk, self->chunks->len - 1);
  guint64 changes;

  tsl_trace_take_window (trace, &open->min_ns, &open->max_ns, &changes);
  /* The first chunk holds the header; the last the end of the document. */
  open->must_read = self->chunks->len == 1 || last || changes != self->changes;
  self->changes = changes;
}

void
tsl_chunk_index_add (TslChunkIndex *self,
                     TslTrace      *trace,
                     guint64        offset,
                     const guint8  *state,
                     gsize          state_len)
{
  TslChunk chunk = { offset, G_MAXINT64, G_MININT64, FALSE, NULL };

  g_return_if_fail (!self->closed);

  if (!self->valid)
    return;
  if (self->chunks->len == 0)
    {
      gint64 min_ns, max_ns;

      tsl_trace_take_window (trace, &min_ns, &max_ns, &self->changes);
    }
  else
    close_open_chunk (self, trace, FALSE);
  if (state_len > 0)
    chunk.state = g_bytes_new (state, state_len);
  g_array_append_val (self->chunks, chunk);
  if (self->chunks->len > TSL_CHUNK_INDEX_MAX)
    halve (self);
}

void
tsl_chunk_index_close (TslChunkIndex *self,
                       TslTrace      *trace,
                       guint64        size)
{
  if (self->closed)
    return;
  self->closed = TRUE;
  self->size = size;
  if (self->chunks->len == 0)
    self->valid = FALSE;
  else
    close_open_chunk (self, trace, TRUE);
}

void
tsl_chunk_index_invalidate (TslChunkIndex *self)
{
  self->valid = FALSE;
  g_array_set_size (self->chunks, 0);
}

gboolean
tsl_chunk_index_is_valid (TslChunkIndex *self)
{
  return self->valid;
}

guint64
tsl_chunk_index_get_last_offset (TslChunkIndex *self)
{
  if (self->chunks->len == 0)
    return 0;
  return g_array_index (self->chunks, TslChunk, self->chunks->len - 1).offset;
}

gboolean
tsl_chunk_index_due (TslChunkIndex *self,
                     guint64        offset)
{
  return self->valid && !self->closed && self->chunks->len > 0 &&
         offset >= tsl_chunk_index_get_last_offset (self) + self->stride;
}

guint64
tsl_chunk_index_get_stride (TslChunkIndex *self)
{
  return self->stride;
}

guint
tsl_chunk_index_get_n_chunks (TslChunkIndex *self)
{
  return self->valid ? self->chunks->len : 0;
}

const TslChunk *
tsl_chunk_index_get_chunk (TslChunkIndex *self,
                           guint          i)
{
  g_return_val_if_fail (i < self->chunks->len, NULL);

  return &g_array_index (self->chunks, TslChunk, i);
}

guint64
tsl_chunk_index_get_chunk_end (TslChunkIndex *self,
                               guint          i)
{
  if (i + 1 < self->chunks->len)
    return g_array_index (self->chunks, TslChunk, i + 1).offset;
  return self->size;
}

gboolean
tsl_chunk_index_wants (TslChunkIndex *self,
                       guint          i,
                       gint64         lo,
                       gint64         hi)
{
  const TslChunk *chunk = tsl_chunk_index_get_chunk (self, i);

  return chunk->must_read || (chunk->min_ns < hi && chunk->max_ns >= lo);
}

void
tsl_chunk_index_get_span (TslChunkIndex *self,
                          gint64        *start_ns,
                          gint64        *end_ns)
{
  *start_ns = self->span_start;
  *end_ns = self->span_end;
}

void
tsl_chunk_index_set_span (TslChunkIndex *self,
                          gint64         start_ns,
                          gint64         end_ns)
{
  self->span_start = start_ns;
  self->span_end = end_ns;
}

const char *
tsl_chunk_index_get_format (TslChunkIndex *self)
{
  return self->format;
}

void
tsl_chunk_index_set_format (TslChunkIndex *self,
                            const char    *format)
{
  g_free (self->format);
  self->format = g_strdup (format);
}

static gboolean
key_equal (const TslFileKey *a,
           const TslFileKey *b)
{
  return a->dev == b->dev && a->inode == b->inode && a->size == b->size &&
         a->mtime_us == b->mtime_us;
}

static void
remembered_free (Remembered *r)
{
  tsl_chunk_index_unref (r->index);
  g_free (r);
}

void
tsl_chunk_index_remember (const TslFileKey *key,
                          TslChunkIndex    *index)
{
  Remembered *r;

  g_return_if_fail (index->closed && index->valid);

  g_mutex_lock (&remembered_lock);
  for (GList *l = remembered.head; l != NULL; l = l->next)
    {
      r = l->data;
      if (r->key.dev == key->dev && r->key.inode == key->inode)
        {
          g_queue_delete_link (&remembered, l);
          remembered_free (r);
          break;
        }
    }
  r = g_new0 (Remembered, 1);
  r->key = *key;
  r->index = tsl_chunk_index_ref (index);
  g_queue_push_head (&remembered, r);
  while (remembered.length > REMEMBER_MAX)
    remembered_free (g_queue_pop_tail (&remembered));
  g_mutex_unlock (&remembered_lock);
}

TslChunkIndex *
tsl_chunk_index_lookup (const TslFileKey *key)
{
  TslChunkIndex *found = NULL;

  g_mutex_lock (&remembered_lock);
  for (GList *l = remembered.head; l != NULL; l = l->next)
    {
      Remembered *r = l->data;

      if (key_equal (&r->key, key))
        {
          found = tsl_chunk_index_ref (r->index);
          break;
        }
    }
  g_mutex_unlock (&remembered_lock);
  return found;
}

gboolean
tsl_chunk_index_disabled (void)
{
  const char *env = g_getenv ("TSL_NO_INDEX");

  return env != NULL && *env != '\0' && !g_str_equal (env, "0");
}

guint64
tsl_chunk_index_get_bytes_read (void)
{
  return __atomic_load_n (&bytes_read, __ATOMIC_RELAXED);
}

void
tsl_chunk_index_count_read (guint64 bytes)
{
  __atomic_fetch_add (&bytes_read, bytes, __ATOMIC_RELAXED);
}
