/* tsl-chunk-index-cache.c: a file's chunk index kept on disk between runs
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
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
 * CACHE_MAX_FILES entries, the oldest removed first.
 */
#define G_LOG_DOMAIN "tsl-chunk-index"

#include "config.h"

#include <fcntl.h>
#include <string.h>
#include <glib/gstdio.h>
#include <gio/gunixoutputstream.h>

#include "tsl-byte-cursor.h"
#include "tsl-cache-entry.h"
#include "tsl-chunk-index-private.h"

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
          _tsl_chunk_clear (&chunk);
          return NULL;
        }
      index->state_bytes += _tsl_chunk_bytes (&chunk);
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
