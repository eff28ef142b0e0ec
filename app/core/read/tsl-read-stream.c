/* tsl-read-stream.c: reading whole streams and files through a TslReader
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "tsl-read-stream"
#define _GNU_SOURCE   /* F_SETPIPE_SZ */

#include "config.h"

#include <fcntl.h>
#include <string.h>

#include <gio/gunixinputstream.h>

#include "tsl-chunk-index.h"
#include "tsl-read-stream.h"
#include "tsl-state-cache.h"
#include "tsl-trace-state.h"

/* How often follow mode looks for new bytes at the end of a file. */
#define FOLLOW_POLL_USEC (200 * 1000)
/* Reads are 64 KiB, each after a cancellation check; they are fed to the
 * reader up to 1 MiB at a time, so that a format working on two threads
 * meets at the end of a feed rarely. A short read (a pipe with nothing more
 * for now) is fed at once, so live input is not held back. */
#define READ_BYTES       (64 * 1024)
#define FEED_BYTES       TSL_READ_FEED_BYTES
#define PIPE_BYTES       (1024 * 1024)
/* What a range read of compressed input reads at a time. */
#define COMPRESSED_READ_BYTES (128 * 1024)

/* The next feed, filled by the read loop and, while a format's reading
 * thread would wait for its other thread, by read_ahead(). */
typedef struct {
  GInputStream *stream;
  GCancellable *cancellable;
  guint8       *buf;
  gsize         n;
  gboolean      done;     /* a short read, an error or a cancellation */
  GError       *error;
  guint64       left;     /* what may still be read: a range read's run of chunks */
  guint8       *bufs;     /* a range read's two feeds */
} Feed;

/* One read into the feed; FALSE when it is complete. */
static gboolean
feed_read (Feed *feed)
{
  gsize want = MIN (MIN (READ_BYTES, FEED_BYTES - feed->n), feed->left);
  gssize got;

  if (feed->done || want == 0)
    return FALSE;
  if (g_cancellable_set_error_if_cancelled (feed->cancellable, &feed->error))
    {
      feed->done = TRUE;
      return FALSE;
    }
  got = g_input_stream_read (feed->stream, feed->buf + feed->n, want, feed->cancellable,
                             &feed->error);
  if (got < 0)
    {
      feed->done = TRUE;
      return FALSE;
    }
  feed->n += got;
  feed->left -= got;
  if ((gsize) got < want)
    feed->done = TRUE;
  return !feed->done && feed->n < FEED_BYTES;
}

/* A TslReaderIdleFunc: while the Chrome reader's thread waits for its
 * worker, the next feed is read, so the copy out of the page cache does not
 * hold both threads up between feeds. */
static gboolean
read_ahead (gpointer data)
{
  Feed *feed = data;

  if (feed->done || feed->n == FEED_BYTES || feed->left == 0)
    return FALSE;
  feed_read (feed);
  return TRUE;
}

/* The feed in full: up to FEED_BYTES, fewer at the (current) end. */
static gboolean
feed_fill (Feed    *feed,
           GError **error)
{
  while (feed_read (feed))
    ;
  if (feed->error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&feed->error));
      return FALSE;
    }
  return TRUE;
}

/* Reading ahead holds the trace lock during the read: only for regular
 * files, where a read does not wait for a writer. */
static gboolean
is_regular_file (GInputStream *stream,
                 GCancellable *cancellable)
{
  g_autoptr(GFileInfo) info = NULL;

  if (!G_IS_FILE_INPUT_STREAM (stream))
    return FALSE;
  info = g_file_input_stream_query_info (G_FILE_INPUT_STREAM (stream),
                                         G_FILE_ATTRIBUTE_STANDARD_TYPE, cancellable, NULL);
  return info != NULL && g_file_info_get_file_type (info) == G_FILE_TYPE_REGULAR;
}

gboolean
tsl_read_stream (TslTrace         *trace,
                 GInputStream     *stream,
                 const char       *display_name,
                 guint64           bytes_total,
                 TslReadProgress   progress,
                 gpointer          user_data,
                 GCancellable     *cancellable,
                 GError          **error)
{
  return tsl_read_stream_full (trace, stream, display_name, bytes_total, progress,
                               NULL, user_data, cancellable, error);
}

/* Reads up to `want` bytes and feeds them under the trace lock; *got is 0
 * at the end of the file. */
static gboolean
read_and_feed (TslReader    *reader,
               TslTrace     *trace,
               GInputStream *stream,
               guint8       *buf,
               gsize         want,
               gsize        *got,
               GCancellable *cancellable,
               GError      **error)
{
  gboolean ok;

  *got = 0;
  if (!g_input_stream_read_all (stream, buf, want, got, cancellable, error))
    return FALSE;
  if (*got == 0)
    return TRUE;
  tsl_chunk_index_count_read (*got);
  tsl_trace_lock (trace);
  ok = tsl_reader_feed (reader, buf, *got, error);
  tsl_trace_unlock (trace);
  return ok;
}

/* Chunks of an indexed file from `offset` to `end`, fed as they are read;
 * on a regular file the next feed is read ahead (read_ahead()) while the
 * format works on the last, as in a whole read. */
static gboolean
feed_range (TslReader *reader,
            TslTrace  *trace,
            Feed      *feed,
            guint64    offset,
            guint64    end,
            GError   **error)
{
  if (!g_seekable_seek (G_SEEKABLE (feed->stream), offset, G_SEEK_SET, feed->cancellable, error))
    return FALSE;
  feed->n = 0;
  feed->done = FALSE;
  feed->left = end - offset;
  for (;;)
    {
      const guint8 *chunk;
      gsize n;
      gboolean ok;

      if (!feed_fill (feed, error))
        {
          feed->left = 0;
          return FALSE;
        }
      chunk = feed->buf;
      n = feed->n;
      if (n == 0)
        break;   /* the run's end, or shorter than indexed: the caller checked it had not changed */
      feed->buf = chunk == feed->bufs ? feed->bufs + FEED_BYTES : feed->bufs;
      feed->n = 0;
      feed->done = FALSE;
      tsl_chunk_index_count_read (n);
      tsl_trace_lock (trace);
      ok = tsl_reader_feed (reader, chunk, n, error);
      tsl_trace_unlock (trace);
      if (!ok)
        {
          feed->left = 0;
          return FALSE;
        }
    }
  feed->left = 0;
  return TRUE;
}

/* A range read's feeds, two of FEED_BYTES; read ahead only into plain
 * text of a regular file, where a read does not wait for a writer
 * (compressed input is read in runs of its own, read_compressed_run()). */
static void
range_feed_init (Feed         *feed,
                 TslReader    *reader,
                 GInputStream *stream,
                 gboolean      ahead,
                 GCancellable *cancellable)
{
  *feed = (Feed) { .stream = stream, .cancellable = cancellable };
  feed->bufs = g_malloc (2 * FEED_BYTES);
  feed->buf = feed->bufs;
  if (ahead && is_regular_file (stream, cancellable))
    tsl_reader_set_idle_func (reader, read_ahead, feed);
}

static void
range_feed_clear (Feed *feed)
{
  feed->left = 0;
  feed->buf = NULL;
  g_clear_pointer (&feed->bufs, g_free);
  g_clear_error (&feed->error);
}

/* Compressed input from `offset` until the reader has the text it was
 * asked for (tsl_reader_set_text_end()) or the file ends. */
static gboolean
feed_compressed (TslReader    *reader,
                 TslTrace     *trace,
                 GInputStream *stream,
                 guint8       *buf,
                 guint64       offset,
                 guint64      *bytes,
                 GCancellable *cancellable,
                 GError      **error)
{
  if (!g_seekable_seek (G_SEEKABLE (stream), offset, G_SEEK_SET, cancellable, error))
    return FALSE;
  while (!tsl_reader_reached_text_end (reader))
    {
      gsize got;

      /* Small reads: the decompressor stops at the run's end. */
      if (!read_and_feed (reader, trace, stream, buf, COMPRESSED_READ_BYTES, &got, cancellable, error))
        return FALSE;
      if (got == 0)
        break;
      *bytes += got;
    }
  return TRUE;
}

/* Compressed input: the run of wanted chunks from `first`, decompressed
 * from the access point saved with it (or, when the format cannot resume
 * there, with the chunk the reader is at). */
static gboolean
read_compressed_run (TslReader     *reader,
                     TslTrace      *trace,
                     GInputStream  *stream,
                     guint8        *buf,
                     TslChunkIndex *index,
                     const char    *display_name,
                     guint          first,
                     guint          at,
                     gint64         lo,
                     gint64         hi,
                     guint         *next,
                     guint64       *done,
                     guint64       *bytes,
                     GCancellable  *cancellable,
                     GError       **error)
{
  guint n = tsl_chunk_index_get_n_chunks (index);
  guint last = first, from = first;
  guint64 in_offset = 0;

  while (last + 1 < n && tsl_chunk_index_wants (index, last + 1, lo, hi))
    last++;
  if (first != at)
    {
      const TslChunk *chunk = tsl_chunk_index_get_chunk (index, first);

      if (!tsl_reader_restore (reader, chunk))
        {
          g_debug ("%s: cannot resume at chunk %u; reading on from chunk %u", display_name, first, at);
          from = at;
        }
      chunk = tsl_chunk_index_get_chunk (index, from);
      if (chunk->point == NULL ||
          !tsl_reader_resume_input (reader, g_bytes_get_data (chunk->point, NULL),
                                    g_bytes_get_size (chunk->point), chunk->offset, &in_offset))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       "%s: the index does not fit the file at chunk %u", display_name, from);
          return FALSE;
        }
    }
  /* The last chunk is read to the end of the input (trailers, warnings). */
  tsl_reader_set_text_end (reader, last + 1 < n ? tsl_chunk_index_get_chunk_end (index, last) : G_MAXUINT64);
  if (!feed_compressed (reader, trace, stream, buf, in_offset, bytes, cancellable, error))
    {
      if (error != NULL && *error != NULL && (*error)->domain != TSL_READER_ERROR)
        g_prefix_error (error, "%s: ", display_name);
      return FALSE;
    }
  *done += tsl_chunk_index_get_chunk_end (index, last) - tsl_chunk_index_get_chunk (index, from)->offset;
  *next = last + 1;
  return TRUE;
}

/* A filtered read of an indexed file: only the chunks the filter needs
 * (tsl-chunk-index.h), each after the format's state at its start is put
 * back. Where that cannot be done the chunks between are read too, so the
 * samples are always those of a whole read. */
static gboolean
read_indexed (TslTrace         *trace,
              GInputStream     *stream,
              const char       *display_name,
              TslChunkIndex    *index,
              TslReaderThreads  threads,
              TslReadProgress   progress,
              gpointer          user_data,
              GCancellable     *cancellable,
              GError          **error)
{
  g_autoptr(TslReader) reader = tsl_reader_new (trace, display_name);
  Feed feed;
  guint n = tsl_chunk_index_get_n_chunks (index);
  guint64 total = tsl_chunk_index_get_chunk_end (index, n - 1);
  guint64 done = 0, compressed_read = 0;
  gboolean compressed = tsl_chunk_index_is_compressed (index);
  gint64 lo, hi, start, end;
  guint next = 0;   /* the chunk the reader is at the start of */
  guint n_read = 0;
  gboolean ok;

  if (threads != TSL_READER_THREADS_DEFAULT)
    tsl_reader_set_threads (reader, threads);
  range_feed_init (&feed, reader, stream, !compressed, cancellable);
  tsl_trace_get_time_filter (trace, &lo, &hi);
  /* Times are relative to the whole file's start, as in a whole read. */
  tsl_chunk_index_get_span (index, &start, &end);
  tsl_trace_lock (trace);
  tsl_trace_note_time (trace, start);
  tsl_trace_note_time (trace, end);
  tsl_trace_unlock (trace);

  for (guint i = 0; i < n; i++)
    {
      const TslChunk *chunk = tsl_chunk_index_get_chunk (index, i);

      if (!tsl_chunk_index_wants (index, i, lo, hi))
        continue;
      if (compressed)
        {
          if (!read_compressed_run (reader, trace, stream, feed.bufs, index, display_name, i, next, lo, hi,
                                    &next, &done, &compressed_read, cancellable, error))
            {
              range_feed_clear (&feed);
              return FALSE;
            }
          i = next - 1;
          if (progress != NULL)
            progress (done, total, tsl_trace_get_events (trace), user_data);
          continue;
        }
      if (i != next &&
          !tsl_reader_restore (reader, chunk))
        {
          g_debug ("%s: cannot resume at byte %" G_GUINT64_FORMAT "; reading on from %" G_GUINT64_FORMAT,
                   display_name, chunk->offset, tsl_chunk_index_get_chunk (index, next)->offset);
          chunk = tsl_chunk_index_get_chunk (index, next);
        }
      if (!feed_range (reader, trace, &feed, chunk->offset, tsl_chunk_index_get_chunk_end (index, i), error))
        {
          range_feed_clear (&feed);
          if (error != NULL && *error != NULL && (*error)->domain != TSL_READER_ERROR)
            g_prefix_error (error, "%s: ", display_name);
          return FALSE;
        }
      done += tsl_chunk_index_get_chunk_end (index, i) - chunk->offset;
      n_read += i + 1 - (guint) (chunk - tsl_chunk_index_get_chunk (index, 0));
      next = i + 1;
      if (progress != NULL)
        progress (done, total, tsl_trace_get_events (trace), user_data);
    }

  range_feed_clear (&feed);
  tsl_trace_lock (trace);
  ok = tsl_reader_finish (reader, error);
  tsl_trace_unlock (trace);
  /* G_MESSAGES_DEBUG=tsl-read-stream: what bench/bench-index.py counts. */
  if (compressed)
    g_debug ("%s: read %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " bytes of text, %" G_GUINT64_FORMAT
             " compressed bytes, through the index", display_name, done, total, compressed_read);
  else
    g_debug ("%s: read %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " bytes (%u of %u chunks) through the index",
             display_name, done, total, n_read, n);
  return ok;
}

/* A sampler state (sniffed by its magic in the first feed): read whole,
 * then loaded into the trace instead of parsed. */
#define READ_STATE_MAX (G_GUINT64_CONSTANT (4) << 30)
static gboolean
read_state (TslTrace        *trace,
            Feed            *feed,
            const char      *display_name,
            guint64          bytes_total,
            TslReadProgress  progress,
            gpointer         user_data,
            GError         **error)
{
  g_autoptr(GByteArray) all = g_byte_array_sized_new (MAX (bytes_total, feed->n));
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) local_error = NULL;
  gboolean ok;

  g_byte_array_append (all, feed->buf, feed->n);
  for (;;)
    {
      feed->n = 0;
      feed->done = FALSE;
      if (!feed_fill (feed, &local_error))
        {
          if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
            g_propagate_error (error, g_steal_pointer (&local_error));
          else
            g_propagate_prefixed_error (error, g_steal_pointer (&local_error), "%s: ", display_name);
          return FALSE;
        }
      if (feed->n == 0)
        break;
      /* A state is tracks × 2K samples; past this it is not one to hold. */
      if ((guint64) all->len + feed->n > READ_STATE_MAX)
        {
          g_set_error (error, TSL_READER_ERROR, TSL_READER_ERROR_TOO_LARGE,
                       "%s: byte %u: larger than a sampler state can be (%u GiB)",
                       display_name, all->len, (guint) (READ_STATE_MAX >> 30));
          return FALSE;
        }
      g_byte_array_append (all, feed->buf, feed->n);
      if (progress != NULL)
        progress (all->len, MAX (bytes_total, all->len), 0, user_data);
    }

  bytes = g_byte_array_free_to_bytes (g_steal_pointer (&all));
  tsl_trace_lock (trace);
  ok = tsl_trace_load_state (trace, bytes, display_name, error);
  tsl_trace_unlock (trace);
  if (ok && progress != NULL)
    progress (g_bytes_get_size (bytes), g_bytes_get_size (bytes), tsl_trace_get_events (trace), user_data);
  return ok;
}

static gboolean
read_stream_cached (TslTrace         *trace,
                    GInputStream     *stream,
                    const char       *display_name,
                    guint64           bytes_total,
                    TslReaderThreads  threads,
                    TslReadProgress   progress,
                    TslReadFollow     follow,
                    gpointer          user_data,
                    gboolean          state_cache,
                    GCancellable     *cancellable,
                    GError          **error);

static gboolean
read_stream (TslTrace         *trace,
             GInputStream     *stream,
             const char       *display_name,
             guint64           bytes_total,
             TslReaderThreads  threads,
             TslReadProgress   progress,
             TslReadFollow     follow,
             gpointer          user_data,
             GCancellable     *cancellable,
             GError          **error)
{
  return read_stream_cached (trace, stream, display_name, bytes_total, threads, progress, follow,
                             user_data, TRUE, cancellable, error);
}

/* Follow mode, at the current end of the file: the index of what was read
 * so far, kept in this process under the file's identity now, so range
 * reads of the growing file (the window's zoom detail, compare) go through
 * it. Only when the file is still the size that was read: one that grew
 * meanwhile gets it at the next end. Returns the size published, or 0. */
static guint64
publish_index (TslReader        *reader,
               GInputStream     *stream,
               const TslFileKey *key,
               guint64           bytes_read)
{
  g_autoptr(TslChunkIndex) snapshot = NULL;
  TslFileKey now;

  if (!tsl_file_key_query (G_FILE_INPUT_STREAM (stream), &now) ||
      now.dev != key->dev || now.inode != key->inode || now.size != bytes_read)
    return 0;
  snapshot = tsl_reader_snapshot_index (reader);
  if (snapshot == NULL)
    return 0;
  tsl_chunk_index_remember (&now, snapshot);
  return bytes_read;
}

/* `state_cache` FALSE: a read that must really read (to make an index). */
static gboolean
read_stream_cached (TslTrace         *trace,
                    GInputStream     *stream,
                    const char       *display_name,
                    guint64           bytes_total,
                    TslReaderThreads  threads,
                    TslReadProgress   progress,
                    TslReadFollow     follow,
                    gpointer          user_data,
                    gboolean          state_cache,
                    GCancellable     *cancellable,
                    GError          **error)
{
  g_autoptr(TslReader) reader = NULL;
  g_autoptr(TslChunkIndex) index = NULL;
  g_autofree guint8 *chunks = NULL;
  Feed feed = { .stream = stream, .cancellable = cancellable, .left = G_MAXUINT64 };
  guint64 bytes_read = 0;
  gboolean ok = TRUE;
  gboolean first_feed = FALSE;
  guint64 published = 0;   /* follow mode: the size of the last index published */
  gboolean followed = FALSE;   /* waited at the end for the file to grow */
  TslFileKey key;
  gboolean keyed;
  gint64 lo, hi;

  /* A regular file: a range of one read before is read through its index;
   * any other read records one. */
  keyed = !tsl_chunk_index_disabled () && G_IS_FILE_INPUT_STREAM (stream) &&
          G_IS_SEEKABLE (stream) && g_seekable_tell (G_SEEKABLE (stream)) == 0 &&
          tsl_file_key_query (G_FILE_INPUT_STREAM (stream), &key);
  if (keyed && tsl_trace_get_time_filter (trace, &lo, &hi) &&
      (index = tsl_chunk_index_find (G_FILE_INPUT_STREAM (stream), &key)) != NULL)
    return read_indexed (trace, stream, display_name, index, threads, progress, user_data,
                         cancellable, error);
  /* A whole read of a file read before, unchanged: its state from the cache.
   * The window always passes `follow` (it may be turned on mid-read), so
   * what counts is whether it asks to follow now. */
  if (keyed && (follow == NULL || !follow (user_data)) && state_cache &&
      tsl_state_cache_load (trace, G_FILE_INPUT_STREAM (stream), &key, display_name))
    {
      if (progress != NULL)
        progress (key.size, key.size, tsl_trace_get_events (trace), user_data);
      return TRUE;
    }

  reader = tsl_reader_new (trace, display_name);
  if (keyed)
    {
      index = tsl_chunk_index_new ();
      tsl_reader_set_index (reader, index);
    }
  if (threads != TSL_READER_THREADS_DEFAULT)
    tsl_reader_set_threads (reader, threads);
  /* Two feeds: one with the reader, the next being read. */
  chunks = g_malloc (2 * FEED_BYTES);
  feed.buf = chunks;
  if (is_regular_file (stream, cancellable))
    tsl_reader_set_idle_func (reader, read_ahead, &feed);

  /* The first feed decides: a sampler state is loaded, not parsed. */
  {
    g_autoptr(GError) local_error = NULL;

    if (!feed_fill (&feed, &local_error))
      {
        if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
          g_propagate_error (error, g_steal_pointer (&local_error));
        else
          g_propagate_prefixed_error (error, g_steal_pointer (&local_error), "%s: ", display_name);
        return FALSE;
      }
    if (tsl_state_sniff (feed.buf, feed.n))
      return read_state (trace, &feed, display_name, bytes_total, progress, user_data, error);
    first_feed = TRUE;
  }

  for (;;)
    {
      g_autoptr(GError) local_error = NULL;
      const guint8 *chunk;
      gsize n;

      if (!first_feed && !feed_fill (&feed, &local_error))
        {
          if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
            g_propagate_error (error, g_steal_pointer (&local_error));
          else
            g_propagate_prefixed_error (error, g_steal_pointer (&local_error), "%s: ", display_name);
          ok = FALSE;
          break;
        }
      first_feed = FALSE;
      chunk = feed.buf;
      n = feed.n;
      feed.buf = chunk == chunks ? chunks + FEED_BYTES : chunks;
      feed.n = 0;
      feed.done = FALSE;
      if (n == 0)
        {
          /* Follow mode: a growing file's end is only where it is now. */
          if (follow != NULL && follow (user_data))
            {
              followed = TRUE;
              tsl_trace_lock (trace);
              ok = tsl_reader_settle (reader, error);
              if (ok && index != NULL && bytes_read != published)
                published = publish_index (reader, stream, &key, bytes_read);
              tsl_trace_unlock (trace);
              if (!ok)
                break;
              if (progress != NULL)
                progress (bytes_read, bytes_total, tsl_trace_get_events (trace), user_data);
              g_usleep (FOLLOW_POLL_USEC);
              continue;
            }
          break;
        }

      bytes_read += n;
      bytes_total = MAX (bytes_total, bytes_read);
      tsl_trace_lock (trace);
      ok = tsl_reader_feed (reader, chunk, n, error);
      tsl_trace_unlock (trace);
      if (!ok)
        break;

      if (progress != NULL)
        progress (bytes_read, bytes_total, tsl_trace_get_events (trace), user_data);
    }
  if (!ok)
    return FALSE;

  tsl_trace_lock (trace);
  ok = tsl_reader_finish (reader, error);
  tsl_trace_unlock (trace);

  /* Kept only if the file did not change while it was read. */
  if (ok && index != NULL && tsl_chunk_index_is_valid (index))
    {
      TslFileKey after;

      /* Followed: the file grew as it was read (the same file); its state
       * is kept only for an unchanged file. */
      if (tsl_file_key_query (G_FILE_INPUT_STREAM (stream), &after) && after.size == bytes_read &&
          (memcmp (&after, &key, sizeof key) == 0 ||
           (followed && after.dev == key.dev && after.inode == key.inode)))
        {
          tsl_chunk_index_store (G_FILE_INPUT_STREAM (stream), &after, index);
          if (memcmp (&after, &key, sizeof key) == 0 && (follow == NULL || !follow (user_data)))
            tsl_state_cache_save (trace, G_FILE_INPUT_STREAM (stream), &key);
        }
    }

  if (ok && progress != NULL)
    progress (bytes_read, MAX (bytes_total, bytes_read), tsl_trace_get_events (trace), user_data);

  return ok;
}

gboolean
tsl_read_stream_full (TslTrace         *trace,
                      GInputStream     *stream,
                      const char       *display_name,
                      guint64           bytes_total,
                      TslReadProgress   progress,
                      TslReadFollow     follow,
                      gpointer          user_data,
                      GCancellable     *cancellable,
                      GError          **error)
{
  g_return_val_if_fail (TSL_IS_TRACE (trace), FALSE);
  g_return_val_if_fail (G_IS_INPUT_STREAM (stream), FALSE);

  return read_stream (trace, stream, display_name, bytes_total, TSL_READER_THREADS_DEFAULT,
                      progress, follow, user_data, cancellable, error);
}

gboolean
tsl_read_path (TslTrace         *trace,
               const char       *path,
               TslReadProgress   progress,
               gpointer          user_data,
               GCancellable     *cancellable,
               GError          **error)
{
  return tsl_read_path_full (trace, path, TSL_READER_THREADS_DEFAULT, progress, user_data,
                             cancellable, error);
}

gboolean
tsl_read_path_full (TslTrace         *trace,
                    const char       *path,
                    TslReaderThreads  threads,
                    TslReadProgress   progress,
                    gpointer          user_data,
                    GCancellable     *cancellable,
                    GError          **error)
{
  g_autoptr(GInputStream) stream = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GFileInfo) info = NULL;
  g_autoptr(GError) local_error = NULL;
  guint64 total = 0;

  g_return_val_if_fail (TSL_IS_TRACE (trace), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  if (g_str_equal (path, "-"))
    {
      /* A pipe's default 64 KiB buffer makes the writer and this reader
       * take turns every 64 KiB; a bigger one lets both run (Linux; the
       * limit is /proc/sys/fs/pipe-max-size, 1 MiB by default). */
#ifdef F_SETPIPE_SZ
      fcntl (0, F_SETPIPE_SZ, PIPE_BYTES);
#endif
      stream = g_unix_input_stream_new (0, FALSE);
      return read_stream (trace, stream, "-", 0, threads, progress, NULL, user_data,
                          cancellable, error);
    }

  /* A path, never a URI: "trace-2024-01-01T12:30:00.json" has a colon. */
  file = g_file_new_for_path (path);
  stream = G_INPUT_STREAM (g_file_read (file, cancellable, &local_error));
  if (stream == NULL)
    {
      g_propagate_prefixed_error (error, g_steal_pointer (&local_error), "%s: ", path);
      return FALSE;
    }

  info = g_file_input_stream_query_info (G_FILE_INPUT_STREAM (stream),
                                         G_FILE_ATTRIBUTE_STANDARD_SIZE, cancellable, NULL);
  if (info != NULL && g_file_info_has_attribute (info, G_FILE_ATTRIBUTE_STANDARD_SIZE))
    total = g_file_info_get_size (info);

  return read_stream (trace, stream, path, total, threads, progress, NULL, user_data,
                      cancellable, error);
}

/* The file's index, made by a read of it if there is none yet. */
static TslChunkIndex *
index_of (GFileInputStream *stream,
          const char       *path,
          const TslFileKey *key,
          GError          **error)
{
  TslChunkIndex *index = tsl_chunk_index_find (stream, key);
  g_autoptr(TslTrace) scratch = NULL;

  if (index != NULL)
    return index;
  scratch = tsl_trace_new (TSL_SAMPLER_COUNT, 1, 0);
  if (!g_seekable_seek (G_SEEKABLE (stream), 0, G_SEEK_SET, NULL, error) ||
      !read_stream_cached (scratch, G_INPUT_STREAM (stream), path, key->size, TSL_READER_THREADS_DEFAULT,
                           NULL, NULL, NULL, FALSE, NULL, error))
    return NULL;
  index = tsl_chunk_index_find (stream, key);
  if (index == NULL)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                 "%s: cannot be read in parts: no event boundaries to start a part at "
                 "(parts need an uncompressed UTF-8 Chrome JSON, perf script or CSV file)",
                 path);
  return index;
}

/* Puts the reader, at the start of chunk `next`, at the start of chunk `i`. */
static gboolean
resume_at (TslReader     *reader,
           TslChunkIndex *index,
           guint          i,
           guint          next,
           const char    *path,
           GError       **error)
{
  const TslChunk *chunk = tsl_chunk_index_get_chunk (index, i);

  if (i == next ||
      tsl_reader_restore (reader, chunk))
    return TRUE;
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
               "%s: byte %" G_GUINT64_FORMAT ": cannot start a part here (the file's index does not fit it)",
               path, chunk->offset);
  return FALSE;
}

gboolean
tsl_read_path_part (TslTrace    *trace,
                    const char  *path,
                    guint        part,
                    guint        n_parts,
                    GError     **error)
{
  g_autoptr(GFile) file = NULL;
  g_autoptr(GFileInputStream) stream = NULL;
  g_autoptr(TslChunkIndex) index = NULL;
  g_autoptr(TslReader) reader = NULL;
  g_autoptr(GError) local_error = NULL;
  Feed feed;
  guint64 lo, hi;
  guint first = G_MAXUINT, last = 0, next = 0, n;
  TslFileKey key;
  gboolean ok = TRUE;

  g_return_val_if_fail (TSL_IS_TRACE (trace), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (part >= 1 && part <= n_parts, FALSE);

  file = g_file_new_for_path (path);
  stream = g_file_read (file, NULL, &local_error);
  if (stream == NULL)
    {
      g_propagate_prefixed_error (error, g_steal_pointer (&local_error), "%s: ", path);
      return FALSE;
    }
  if (tsl_chunk_index_disabled () || !tsl_file_key_query (stream, &key))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   "%s: only a regular file can be read in parts (and not with TSL_NO_INDEX)", path);
      return FALSE;
    }
  index = index_of (stream, path, &key, error);
  if (index == NULL)
    return FALSE;
  /* A part is a byte range of the file, the index's offsets are of the
   * decompressed text: they do not meet. */
  if (tsl_chunk_index_is_compressed (index))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   "%s: cannot be read in parts: it is compressed (gzip or zstd); "
                   "decompress it first, or sample it whole", path);
      return FALSE;
    }

  /* The chunks that start inside this part's bytes; the first part has the
   * first chunk, whose offset is 0. */
  lo = (guint64) ((unsigned __int128) key.size * (part - 1) / n_parts);
  hi = (guint64) ((unsigned __int128) key.size * part / n_parts);
  n = tsl_chunk_index_get_n_chunks (index);
  for (guint i = 0; i < n; i++)
    {
      guint64 offset = tsl_chunk_index_get_chunk (index, i)->offset;

      if (offset >= lo && (offset < hi || part == n_parts))
        {
          first = MIN (first, i);
          last = i;
        }
    }
  if (first == G_MAXUINT)
    return TRUE;   /* more parts than chunks: this one is empty */

  reader = tsl_reader_new (trace, path);
  range_feed_init (&feed, reader, G_INPUT_STREAM (stream), TRUE, NULL);
  if (first > 0)
    {
      /* Before the part: the head for its header, and every chunk that made
       * a track or a name (as a range read does), for what the format's
       * state at the part's start refers to. Nothing of them is sampled or
       * counted. */
      tsl_trace_set_time_filter (trace, G_MAXINT64, G_MAXINT64);
      for (guint i = 0; ok && i < first; i++)
        {
          if (i > 0 && !tsl_chunk_index_get_chunk (index, i)->must_read)
            continue;
          ok = resume_at (reader, index, i, next, path, error) &&
               feed_range (reader, trace, &feed, tsl_chunk_index_get_chunk (index, i)->offset,
                           tsl_chunk_index_get_chunk_end (index, i), error);
          next = i + 1;
          /* A format not yet certain waits for 64 KiB: decide it now. */
          if (ok && i == 0)
            {
              tsl_trace_lock (trace);
              ok = tsl_reader_settle (reader, error);
              tsl_trace_unlock (trace);
            }
        }
      tsl_trace_clear_time_filter (trace);
      tsl_trace_forget_counts (trace);
      tsl_reader_flush_counts (reader, FALSE);
      ok = ok && resume_at (reader, index, first, next, path, error);
    }
  if (ok)
    ok = feed_range (reader, trace, &feed, tsl_chunk_index_get_chunk (index, first)->offset,
                     tsl_chunk_index_get_chunk_end (index, last), error);
  /* Only the part with the last chunk ends the document (later parts are
   * empty): the others stop between events, their open spans closed by the
   * parts after them. */
  if (ok && last == n - 1)
    {
      tsl_trace_lock (trace);
      ok = tsl_reader_finish (reader, error);
      tsl_trace_unlock (trace);
    }
  else if (ok)
    {
      /* Its counts, which the last part's end would otherwise not see. */
      tsl_trace_lock (trace);
      tsl_reader_flush_counts (reader, TRUE);
      tsl_trace_unlock (trace);
    }
  range_feed_clear (&feed);
  if (!ok && error != NULL && *error != NULL && (*error)->domain != TSL_READER_ERROR &&
      !g_str_has_prefix ((*error)->message, path))
    g_prefix_error (error, "%s: ", path);
  return ok;
}
