/* tsl-chunk-index.c: checkpoints of a file's first read, for range reads
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "tsl-chunk-index"

#include "config.h"

#include <fcntl.h>
#include <string.h>
#include <glib/gstdio.h>
#include <gio/gunixoutputstream.h>

#include "tsl-byte-cursor.h"
#include "tsl-cache-entry.h"
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
  guint64  size;          /* of the text (decompressed) */
  gboolean compressed;
  gsize    state_bytes;   /* of every chunk's state and point */
  TslChunkRecords *records;   /* state open across checkpoints, or NULL */
  guint64  changes;       /* the trace's change count at the open chunk's start */
  gint64   span_start;
  gint64   span_end;
  char    *format;
  TslSeriesEnds *ends;    /* of the whole text, once closed */
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
  g_clear_pointer (&chunk->point, g_bytes_unref);
}

static gsize
chunk_bytes (const TslChunk *chunk)
{
  return (chunk->state != NULL ? g_bytes_get_size (chunk->state) : 0) +
         (chunk->point != NULL ? g_bytes_get_size (chunk->point) : 0);
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

  g_array_set_clear_func (merged, chunk_clear);
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
      self->state_bytes += chunk_bytes (chunk);
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
  self->state_bytes += chunk_bytes (&chunk);
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

/* ── The on-disk cache ──────────────────────────────────────────────────
 *
 * $XDG_CACHE_HOME/timeslice/index-DEV-INODE.tsi holds one file's index:
 * a header (magic, cache version, program version), the file's identity
 * (device, inode, size, mtime) and a SHA-256 of its first and last 64 KiB,
 * the span and format, the text's size and whether it was compressed, the
 * chunks (with their state and access point), the records (tsl-chunk-records.h),
 * where each metric series ends (tsl-series-ends.h) and a SHA-256 of all that. Anything that
 * does not match to the byte (another version, a changed file, a truncated
 * or corrupt entry) is ignored and the file read again; a cache that cannot
 * be written (read-only, full disk) is simply not written. At most
 * CACHE_MAX_FILES entries, the oldest removed first. */

#define CACHE_MAGIC       "TSLINDEX"
#define CACHE_VERSION     6
#define CACHE_END_BYTES   (64 * 1024)
#define CACHE_MAX_FILES   64
#define CACHE_MAX_CHUNKS  (4 * TSL_CHUNK_INDEX_MAX)

char *
tsl_cache_get_dir (void)
{
  return g_build_filename (g_get_user_cache_dir (), "timeslice", NULL);
}

/* The version, and the size and mtime of the running program (the core is
 * linked in statically): a build from source keeps its version across
 * changes, and must not be served what an older reader made. */
const char *
tsl_cache_get_program_id (void)
{
  static gsize id;

  if (g_once_init_enter (&id))
    {
      GStatBuf st;
      char *made;

      if (g_stat ("/proc/self/exe", &st) == 0)
        made = g_strdup_printf ("%s+%" G_GINT64_FORMAT "+%" G_GINT64_FORMAT, PACKAGE_VERSION,
                                (gint64) st.st_size, (gint64) st.st_mtime);
      else
        made = g_strdup (PACKAGE_VERSION);
      g_once_init_leave (&id, (gsize) made);
    }
  return (const char *) id;
}

static char *
cache_path (const TslFileKey *key)
{
  g_autofree char *dir = tsl_cache_get_dir ();
  g_autofree char *name = g_strdup_printf ("index-%" G_GINT64_MODIFIER "x-%" G_GINT64_MODIFIER "x.tsi",
                                           key->dev, key->inode);

  return g_build_filename (dir, name, NULL);
}

/* SHA-256 of the first and last 64 KiB; the stream is left where it was. */
gboolean
tsl_file_hash_ends (GFileInputStream *stream,
                    guint64           size,
                    guint8            digest[32])
{
  g_autoptr(GChecksum) sum = g_checksum_new (G_CHECKSUM_SHA256);
  g_autofree guint8 *buf = g_malloc (CACHE_END_BYTES);
  goffset where = g_seekable_tell (G_SEEKABLE (stream));
  guint64 at[2] = { 0, size > CACHE_END_BYTES ? size - CACHE_END_BYTES : 0 };
  gsize len = 32;

  for (guint i = 0; i < 2; i++)
    {
      gsize got = 0;

      if (!g_seekable_seek (G_SEEKABLE (stream), at[i], G_SEEK_SET, NULL, NULL) ||
          !g_input_stream_read_all (G_INPUT_STREAM (stream), buf, CACHE_END_BYTES, &got, NULL, NULL))
        return FALSE;
      g_checksum_update (sum, buf, got);
    }
  g_checksum_get_digest (sum, digest, &len);
  return g_seekable_seek (G_SEEKABLE (stream), where, G_SEEK_SET, NULL, NULL);
}

static void
put (GByteArray *out,
     const void *data,
     gsize       len)
{
  g_byte_array_append (out, data, len);
}

/* Where each metric series ends: its identity (kind, pid, tid, name) and
 * the facts, the median as its double's bits. */
static void
save_series_ends (GByteArray    *out,
                  TslSeriesEnds *ends)
{
  guint n = ends != NULL ? tsl_series_ends_get_n (ends) : 0;

  tsl_byte_put_u64 (out, n);
  for (guint i = 0; i < n; i++)
    {
      guint kind;
      gint64 pid, tid;
      const char *name;
      const TslSeriesEnd *end = tsl_series_ends_get (ends, i, &kind, &pid, &tid, &name);
      guint64 bits;

      memcpy (&bits, &end->median_gap_ns, sizeof bits);
      tsl_byte_put_u64 (out, kind);
      tsl_byte_put_u64 (out, pid);
      tsl_byte_put_u64 (out, tid);
      tsl_byte_put_u64 (out, strlen (name));
      put (out, name, strlen (name));
      tsl_byte_put_u64 (out, end->has_last);
      tsl_byte_put_u64 (out, end->last_ns);
      tsl_byte_put_u64 (out, end->n_gaps);
      tsl_byte_put_u64 (out, bits);
    }
}

#define CACHE_MAX_SERIES_NAME (64 * 1024)

static TslSeriesEnds *
load_series_ends (TslByteCursor *r)
{
  g_autoptr(TslSeriesEnds) ends = tsl_series_ends_new ();
  guint64 n = tsl_byte_cursor_take_u64 (r);

  /* Each takes 64 bytes at least: a count beyond what is left is corrupt. */
  if (!r->ok || n > (guint64) (r->end - r->p) / 64)
    return NULL;
  for (guint64 i = 0; i < n; i++)
    {
      TslSeriesEnd end;
      guint64 kind = tsl_byte_cursor_take_u64 (r), len;
      gint64 pid = (gint64) tsl_byte_cursor_take_u64 (r), tid = (gint64) tsl_byte_cursor_take_u64 (r);
      const guint8 *name;
      g_autofree char *copy = NULL;
      guint64 bits, n_gaps;

      len = tsl_byte_cursor_take_u64 (r);
      if (len > CACHE_MAX_SERIES_NAME || (name = tsl_byte_cursor_take (r, len)) == NULL)
        return NULL;
      copy = g_strndup ((const char *) name, len);
      end.has_last = tsl_byte_cursor_take_u64 (r) != 0;
      end.last_ns = (gint64) tsl_byte_cursor_take_u64 (r);
      n_gaps = tsl_byte_cursor_take_u64 (r);
      bits = tsl_byte_cursor_take_u64 (r);
      memcpy (&end.median_gap_ns, &bits, sizeof bits);
      if (!r->ok || kind > G_MAXUINT || n_gaps > G_MAXUINT)
        return NULL;
      end.n_gaps = (guint) n_gaps;
      tsl_series_ends_add (ends, (guint) kind, pid, tid, copy, &end);
    }
  return g_steal_pointer (&ends);
}

static void
cache_evict (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  if (d == NULL)
    return;
  while ((name = g_dir_read_name (d)) != NULL)
    if (g_str_has_prefix (name, "index-") && g_str_has_suffix (name, ".tsi"))
      g_ptr_array_add (names, g_build_filename (dir, name, NULL));
    else if (g_str_has_prefix (name, "index-") && strstr (name, ".tsi.") != NULL)
      {
        /* A temporary an interrupted write left (or another's, which then
         * simply writes no entry). */
        g_autofree char *left = g_build_filename (dir, name, NULL);

        g_unlink (left);
      }
  while (names->len > CACHE_MAX_FILES)
    {
      guint oldest = 0;
      gint64 oldest_mtime = G_MAXINT64;

      for (guint i = 0; i < names->len; i++)
        {
          GStatBuf st;

          if (g_stat (g_ptr_array_index (names, i), &st) == 0 && st.st_mtime < oldest_mtime)
            {
              oldest_mtime = st.st_mtime;
              oldest = i;
            }
        }
      g_unlink (g_ptr_array_index (names, oldest));
      g_ptr_array_remove_index (names, oldest);
    }
}

/* Hands the bytes put so far to the checksum and the file: the entry is
 * written in pieces, never held whole beside the index. */
static gboolean
cache_flush (GByteArray    *out,
             GChecksum     *sum,
             GOutputStream *file)
{
  gboolean ok;

  if (sum != NULL)
    g_checksum_update (sum, out->data, out->len);
  ok = g_output_stream_write_all (file, out->data, out->len, NULL, NULL, NULL);
  g_byte_array_set_size (out, 0);
  return ok;
}

typedef struct {
  GChecksum     *sum;
  GOutputStream *file;
} CacheWrite;

static gboolean
cache_write (GByteArray *out,
             gpointer    data)
{
  CacheWrite *write = data;

  return cache_flush (out, write->sum, write->file);
}

static void
cache_save (GFileInputStream *stream,
            const TslFileKey *key,
            TslChunkIndex    *index)
{
  g_autoptr(GByteArray) out = g_byte_array_new ();
  g_autoptr(GChecksum) sum = g_checksum_new (G_CHECKSUM_SHA256);
  g_autoptr(GOutputStream) file = NULL;
  g_autofree char *dir = tsl_cache_get_dir ();
  g_autofree char *path = cache_path (key);
  g_autofree char *tmp = NULL;
  guint8 digest[32];
  gsize len = sizeof digest;
  const char *format = index->format != NULL ? index->format : "";
  gboolean ok = TRUE;
  int fd;

  if (!tsl_file_hash_ends (stream, key->size, digest))
    return;
  /* Written aside and renamed: a reader never sees half an entry. */
  tmp = g_strconcat (path, ".XXXXXX", NULL);
  if (g_mkdir_with_parents (dir, 0700) != 0 || (fd = g_mkstemp_full (tmp, O_WRONLY, 0600)) < 0)
    {
      g_debug ("cannot write the index cache %s", path);
      return;
    }
  file = g_unix_output_stream_new (fd, TRUE);
  put (out, CACHE_MAGIC, 8);
  tsl_byte_put_u64 (out, CACHE_VERSION);
  tsl_byte_put_u64 (out, strlen (tsl_cache_get_program_id ()));
  put (out, tsl_cache_get_program_id (), strlen (tsl_cache_get_program_id ()));
  tsl_byte_put_u64 (out, key->dev);
  tsl_byte_put_u64 (out, key->inode);
  tsl_byte_put_u64 (out, key->size);
  tsl_byte_put_u64 (out, key->mtime_us);
  put (out, digest, sizeof digest);
  tsl_byte_put_u64 (out, index->span_start);
  tsl_byte_put_u64 (out, index->span_end);
  tsl_byte_put_u64 (out, strlen (format));
  put (out, format, strlen (format));
  tsl_byte_put_u64 (out, index->stride);
  tsl_byte_put_u64 (out, index->size);
  tsl_byte_put_u64 (out, index->compressed);
  tsl_byte_put_u64 (out, index->chunks->len);
  for (guint i = 0; i < index->chunks->len; i++)
    {
      const TslChunk *chunk = &g_array_index (index->chunks, TslChunk, i);
      gsize state_len = chunk->state != NULL ? g_bytes_get_size (chunk->state) : 0;
      gsize point_len = chunk->point != NULL ? g_bytes_get_size (chunk->point) : 0;

      tsl_byte_put_u64 (out, chunk->offset);
      tsl_byte_put_u64 (out, chunk->min_ns);
      tsl_byte_put_u64 (out, chunk->max_ns);
      tsl_byte_put_u64 (out, chunk->must_read);
      tsl_byte_put_u64 (out, chunk->line);
      tsl_byte_put_u64 (out, chunk->column);
      tsl_byte_put_u64 (out, state_len);
      if (state_len > 0)
        put (out, g_bytes_get_data (chunk->state, NULL), state_len);
      tsl_byte_put_u64 (out, point_len);
      if (point_len > 0)
        put (out, g_bytes_get_data (chunk->point, NULL), point_len);
      if (out->len >= 64 * 1024)
        ok = ok && cache_flush (out, sum, file);
    }
  tsl_byte_put_u64 (out, index->records != NULL);
  if (index->records != NULL)
    {
      CacheWrite write = { sum, file };

      ok = ok && tsl_chunk_records_save (index->records, out, cache_write, &write);
    }
  save_series_ends (out, index->ends);
  ok = ok && cache_flush (out, sum, file);
  g_checksum_get_digest (sum, digest, &len);
  put (out, digest, sizeof digest);
  ok = ok && cache_flush (out, NULL, file) && g_output_stream_close (file, NULL, NULL) &&
       g_rename (tmp, path) == 0;
  if (!ok)
    {
      /* A full disk: no entry, the file is read again next time. */
      g_debug ("cannot write the index cache %s", path);
      g_unlink (tmp);
      return;
    }
  cache_evict (dir);
}

static TslChunkIndex *
cache_load (GFileInputStream *stream,
            const TslFileKey *key)
{
  g_autofree char *path = cache_path (key);
  g_autofree char *data = NULL;
  g_autoptr(GChecksum) sum = g_checksum_new (G_CHECKSUM_SHA256);
  g_autoptr(TslChunkIndex) index = NULL;
  guint8 digest[32], ends[32];
  gsize len = 0, dlen = sizeof digest;
  TslByteCursor r;
  const guint8 *p;
  guint64 n, vlen, flen;

  if (!tsl_cache_entry_read (path, &data, &len) || len < 8 + 32)
    return NULL;
  g_checksum_update (sum, (const guint8 *) data, len - 32);
  g_checksum_get_digest (sum, digest, &dlen);
  if (memcmp (digest, data + len - 32, 32) != 0)
    return NULL;   /* truncated or corrupt */

  r = tsl_byte_cursor (data, len - 32);
  p = tsl_byte_cursor_take (&r, 8);
  if (p == NULL || memcmp (p, CACHE_MAGIC, 8) != 0 || tsl_byte_cursor_take_u64 (&r) != CACHE_VERSION)
    return NULL;
  vlen = tsl_byte_cursor_take_u64 (&r);
  p = tsl_byte_cursor_take (&r, vlen);
  if (p == NULL || vlen != strlen (tsl_cache_get_program_id ()) ||
      memcmp (p, tsl_cache_get_program_id (), vlen) != 0)
    return NULL;
  if (tsl_byte_cursor_take_u64 (&r) != key->dev || tsl_byte_cursor_take_u64 (&r) != key->inode ||
      tsl_byte_cursor_take_u64 (&r) != key->size || tsl_byte_cursor_take_u64 (&r) != key->mtime_us)
    return NULL;
  p = tsl_byte_cursor_take (&r, 32);
  if (p == NULL || !tsl_file_hash_ends (stream, key->size, ends) || memcmp (p, ends, 32) != 0)
    return NULL;

  index = tsl_chunk_index_new ();
  index->span_start = (gint64) tsl_byte_cursor_take_u64 (&r);
  index->span_end = (gint64) tsl_byte_cursor_take_u64 (&r);
  flen = tsl_byte_cursor_take_u64 (&r);
  p = tsl_byte_cursor_take (&r, flen);
  if (p != NULL)
    index->format = g_strndup ((const char *) p, flen);
  index->stride = tsl_byte_cursor_take_u64 (&r);
  index->size = tsl_byte_cursor_take_u64 (&r);
  index->compressed = tsl_byte_cursor_take_u64 (&r) != 0;
  n = tsl_byte_cursor_take_u64 (&r);
  /* Plain text is the file; decompressed text is not shorter than its
   * gzip or zstd (to within headers). */
  if (!r.ok || n == 0 || n > CACHE_MAX_CHUNKS || index->stride == 0 ||
      (!index->compressed && index->size != key->size))
    return NULL;
  for (guint64 i = 0; i < n; i++)
    {
      TslChunk chunk = { 0 };
      guint64 state_len, point_len;

      chunk.offset = tsl_byte_cursor_take_u64 (&r);
      chunk.min_ns = (gint64) tsl_byte_cursor_take_u64 (&r);
      chunk.max_ns = (gint64) tsl_byte_cursor_take_u64 (&r);
      chunk.must_read = tsl_byte_cursor_take_u64 (&r) != 0;
      chunk.line = tsl_byte_cursor_take_u64 (&r);
      chunk.column = tsl_byte_cursor_take_u64 (&r);
      state_len = tsl_byte_cursor_take_u64 (&r);
      if (state_len > TSL_CHUNK_STATE_MAX || (p = tsl_byte_cursor_take (&r, state_len)) == NULL)
        return NULL;
      if (state_len > 0)
        chunk.state = g_bytes_new (p, state_len);
      point_len = tsl_byte_cursor_take_u64 (&r);
      if (point_len > TSL_CHUNK_INDEX_BYTES || (p = tsl_byte_cursor_take (&r, point_len)) == NULL)
        {
          g_clear_pointer (&chunk.state, g_bytes_unref);
          return NULL;
        }
      if (point_len > 0)
        chunk.point = g_bytes_new (p, point_len);
      /* Offsets rise from 0 and stay inside the text; every chunk of a
       * compressed file but the first has its access point. */
      if ((i == 0 && chunk.offset != 0) || chunk.line == 0 || chunk.column == 0 ||
          (i > 0 && chunk.offset <= g_array_index (index->chunks, TslChunk, index->chunks->len - 1).offset) ||
          chunk.offset >= index->size ||
          (index->compressed && i > 0 && chunk.point == NULL))
        {
          chunk_clear (&chunk);
          return NULL;
        }
      index->state_bytes += chunk_bytes (&chunk);
      g_array_append_val (index->chunks, chunk);
    }
  if (tsl_byte_cursor_take_u64 (&r) != 0)
    {
      if (!r.ok || (index->records = tsl_chunk_records_load (&r.p, r.end)) == NULL)
        return NULL;
      for (guint i = 0; i < index->chunks->len; i++)
        g_array_index (index->chunks, TslChunk, i).records = index->records;
    }
  if ((index->ends = load_series_ends (&r)) == NULL || !r.ok || r.p != r.end)
    return NULL;
  index->closed = TRUE;
  return g_steal_pointer (&index);
}

static gint cache_enabled = TRUE;

void
tsl_cache_set_enabled (gboolean enabled)
{
  g_atomic_int_set (&cache_enabled, !!enabled);
}

gboolean
tsl_cache_get_enabled (void)
{
  return g_atomic_int_get (&cache_enabled);
}

TslChunkIndex *
tsl_chunk_index_find (GFileInputStream *stream,
                      const TslFileKey *key)
{
  TslChunkIndex *index = tsl_chunk_index_lookup (key);

  if (index != NULL || tsl_chunk_index_disabled () || !tsl_cache_get_enabled ())
    return index;
  index = cache_load (stream, key);
  if (index != NULL)
    {
      g_debug ("index of %u chunks from the cache", index->chunks->len);
      tsl_chunk_index_remember (key, index);
    }
  return index;
}

void
tsl_chunk_index_store (GFileInputStream *stream,
                       const TslFileKey *key,
                       TslChunkIndex    *index)
{
  tsl_chunk_index_remember (key, index);
  if (tsl_cache_get_enabled ())
    cache_save (stream, key, index);
}

gboolean
tsl_chunk_index_get_file_span (const char *path,
                               gint64     *start_ns,
                               gint64     *end_ns)
{
  g_autoptr(GFile) file = NULL;
  g_autoptr(GFileInputStream) stream = NULL;
  g_autoptr(TslChunkIndex) index = NULL;
  TslFileKey key;

  if (tsl_chunk_index_disabled () || path == NULL || g_str_equal (path, "-"))
    return FALSE;
  file = g_file_new_for_path (path);
  stream = g_file_read (file, NULL, NULL);
  if (stream == NULL || !tsl_file_key_query (stream, &key) ||
      (index = tsl_chunk_index_find (stream, &key)) == NULL)
    return FALSE;
  tsl_chunk_index_get_span (index, start_ns, end_ns);
  return TRUE;
}
