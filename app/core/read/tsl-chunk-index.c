/* tsl-chunk-index.c: checkpoints of a file's first read, for range reads
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "tsl-chunk-index"

#include "config.h"

#include "tsl-chunk-index-private.h"

/* Indexes kept for the process: a few files' worth, the oldest dropped. */
#define REMEMBER_MAX 8

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

TslChunkIndex *
tsl_chunk_index_new (void)
{
  TslChunkIndex *self = g_new0 (TslChunkIndex, 1);

  self->ref_count = 1;
  self->valid = TRUE;
  self->chunks = g_array_new (FALSE, TRUE, sizeof (TslChunk));
  g_array_set_clear_func (self->chunks, _tsl_chunk_clear);
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
  tsl_chunk_records_free (self->records);
  g_free (self->format);
  tsl_series_ends_unref (self->ends);
  g_free (self);
}

GBytes *
tsl_chunk_get_state (const TslChunk *chunk)
{
  if (chunk->records != NULL)
    return tsl_chunk_records_state_at (chunk->records, chunk->offset, chunk->state);
  return chunk->state != NULL ? g_bytes_ref (chunk->state) : NULL;
}

/* Records part of no checkpoint left go. */
static void
prune_records (TslChunkIndex *self)
{
  g_autofree guint64 *offsets = NULL;

  if (self->records == NULL)
    return;
  offsets = g_new (guint64, MAX (self->chunks->len, 1));
  for (guint i = 0; i < self->chunks->len; i++)
    offsets[i] = g_array_index (self->chunks, TslChunk, i).offset;
  tsl_chunk_records_prune (self->records, offsets, self->chunks->len);
}

void
tsl_chunk_index_use_records (TslChunkIndex *self)
{
  if (self->records == NULL && self->valid)
    self->records = tsl_chunk_records_new ();
}

void
tsl_chunk_index_note_records (TslChunkIndex *self,
                              guint64        offset,
                              const guint8  *state,
                              gsize          state_len)
{
  const guint8 *own;
  gsize own_len;

  if (self->records == NULL || !self->valid || self->closed)
    return;
  /* Deltas that do not chain would restore the wrong spans: no index. */
  if (!tsl_chunk_records_apply (self->records, offset, state, state_len, &own, &own_len))
    tsl_chunk_index_invalidate (self);
}

/* Over a cap: neighbouring closed chunks become one, and checkpoints
 * come half as often from now on. Memory stays O(TSL_CHUNK_INDEX_MAX) and
 * about TSL_CHUNK_INDEX_BYTES. */
static void
halve (TslChunkIndex *self)
{
  guint closed = self->chunks->len - 1;
  GArray *merged = g_array_sized_new (FALSE, TRUE, sizeof (TslChunk), closed / 2 + 2);

  g_array_set_clear_func (merged, _tsl_chunk_clear);
  self->state_bytes = 0;
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
      self->state_bytes += _tsl_chunk_bytes (chunk);
      chunk->state = NULL;   /* moved */
      chunk->point = NULL;
    }
  g_array_unref (self->chunks);
  self->chunks = merged;
  self->stride *= 2;
  prune_records (self);
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
                     guint64        line,
                     guint64        column,
                     const guint8  *state,
                     gsize          state_len,
                     const guint8  *point,
                     gsize          point_len)
{
  TslChunk chunk = { offset, G_MAXINT64, G_MININT64, FALSE, line, column, NULL, NULL, self->records };

  g_return_if_fail (!self->closed);

  if (!self->valid)
    return;
  if (self->records != NULL && state_len > 0)
    {
      if (!tsl_chunk_records_apply (self->records, offset, state, state_len, &state, &state_len))
        {
          tsl_chunk_index_invalidate (self);
          return;
        }
      /* What is left is this checkpoint's own state, kept as any other. */
      if (state_len > TSL_CHUNK_STATE_MAX)
        return;
    }
  if (self->chunks->len == 0)
    {
      gint64 min_ns, max_ns;

      tsl_trace_take_window (trace, &min_ns, &max_ns, &self->changes);
      /* A range read's stats need them of the whole file. */
      tsl_trace_record_series_ends (trace);
    }
  else
    close_open_chunk (self, trace, FALSE);
  if (state_len > 0)
    chunk.state = g_bytes_new (state, state_len);
  if (point_len > 0)
    chunk.point = g_bytes_new (point, point_len);
  self->state_bytes += _tsl_chunk_bytes (&chunk);
  g_array_append_val (self->chunks, chunk);
  if (self->chunks->len > TSL_CHUNK_INDEX_MAX ||
      (self->state_bytes > TSL_CHUNK_INDEX_BYTES && self->chunks->len > 2))
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
    {
      close_open_chunk (self, trace, TRUE);
      self->ends = tsl_trace_get_series_ends (trace, TRUE);
    }
}

TslChunkIndex *
tsl_chunk_index_snapshot (TslChunkIndex *self,
                          guint64        size,
                          gint64         start_ns,
                          gint64         end_ns,
                          const char    *format,
                          TslSeriesEnds *ends)
{
  TslChunkIndex *copy;

  if (!self->valid || self->closed || self->chunks->len == 0 ||
      size < tsl_chunk_index_get_last_offset (self))
    return NULL;
  copy = tsl_chunk_index_new ();
  copy->stride = self->stride;
  copy->compressed = self->compressed;
  copy->state_bytes = self->state_bytes;
  /* The reader goes on adding to the original's. */
  copy->records = self->records != NULL ? tsl_chunk_records_copy (self->records) : NULL;
  for (guint i = 0; i < self->chunks->len; i++)
    {
      TslChunk chunk = g_array_index (self->chunks, TslChunk, i);

      if (chunk.state != NULL)
        g_bytes_ref (chunk.state);
      if (chunk.point != NULL)
        g_bytes_ref (chunk.point);
      chunk.records = copy->records;
      g_array_append_val (copy->chunks, chunk);
    }
  /* The open chunk: its bounds are not known yet, and it ends the text. */
  g_array_index (copy->chunks, TslChunk, copy->chunks->len - 1).must_read = TRUE;
  copy->size = size;
  copy->closed = TRUE;
  copy->span_start = start_ns;
  copy->span_end = end_ns;
  copy->format = g_strdup (format);
  copy->ends = ends != NULL ? tsl_series_ends_ref (ends) : NULL;
  return copy;
}

void
tsl_chunk_index_invalidate (TslChunkIndex *self)
{
  self->valid = FALSE;
  g_array_set_size (self->chunks, 0);
  g_clear_pointer (&self->records, tsl_chunk_records_free);
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
  if (!self->valid || self->closed || self->chunks->len == 0)
    return FALSE;
  /* Past the records' budget the rest is one chunk, read always. */
  if (self->records != NULL && tsl_chunk_records_get_bytes (self->records) > TSL_CHUNK_RECORD_BYTES)
    return FALSE;
  /* Every range read reads the first chunk: it is kept short. */
  if (self->chunks->len == 1)
    return offset >= MIN (self->stride, TSL_CHUNK_FIRST_BYTES);
  return offset >= tsl_chunk_index_get_last_offset (self) + self->stride;
}

guint64
tsl_chunk_index_get_stride (TslChunkIndex *self)
{
  return self->stride;
}

gboolean
tsl_chunk_index_is_compressed (TslChunkIndex *self)
{
  return self->compressed;
}

void
tsl_chunk_index_set_compressed (TslChunkIndex *self,
                                gboolean       compressed)
{
  self->compressed = compressed;
}

gsize
tsl_chunk_index_get_state_bytes (TslChunkIndex *self)
{
  return self->state_bytes + (self->records != NULL ? tsl_chunk_records_get_bytes (self->records) : 0);
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

TslSeriesEnds *
tsl_chunk_index_get_series_ends (TslChunkIndex *self)
{
  return self->ends;
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

/* Set by a process that will read no range of what it reads, with no
 * cache to keep an index in (`info --no-cache`). */
static gint unwanted;

gboolean
tsl_chunk_index_disabled (void)
{
  const char *env = g_getenv ("TSL_NO_INDEX");

  if (g_atomic_int_get (&unwanted))
    return TRUE;
  return env != NULL && *env != '\0' && !g_str_equal (env, "0");
}

void
tsl_chunk_index_set_unwanted (gboolean unwanted_)
{
  g_atomic_int_set (&unwanted, unwanted_);
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
