/* tsl-read-stream.c: reading whole streams and files through a TslReader
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "tsl-read-stream"
#define _GNU_SOURCE   /* F_SETPIPE_SZ */

#include "config.h"

#include <fcntl.h>

#include <gio/gunixinputstream.h>

#include "tsl-read-stream.h"

/* How often follow mode looks for new bytes at the end of a file. */
#define FOLLOW_POLL_USEC (200 * 1000)
/* Reads are 64 KiB, each after a cancellation check; they are fed to the
 * reader up to 1 MiB at a time, so that a format working on two threads
 * meets at the end of a feed rarely. A short read (a pipe with nothing more
 * for now) is fed at once, so live input is not held back. */
#define READ_BYTES       (64 * 1024)
#define FEED_BYTES       TSL_READ_FEED_BYTES
#define PIPE_BYTES       (1024 * 1024)

/* The next feed, filled by the read loop and, while a format's reading
 * thread would wait for its other thread, by read_ahead(). */
typedef struct {
  GInputStream *stream;
  GCancellable *cancellable;
  guint8       *buf;
  gsize         n;
  gboolean      done;     /* a short read, an error or a cancellation */
  GError       *error;
} Feed;

/* One read into the feed; FALSE when it is complete. */
static gboolean
feed_read (Feed *feed)
{
  gsize want = MIN (READ_BYTES, FEED_BYTES - feed->n);
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

  if (feed->done || feed->n == FEED_BYTES)
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
  g_autoptr(TslReader) reader = NULL;
  g_autofree guint8 *chunks = NULL;
  Feed feed = { stream, cancellable, NULL, 0, FALSE, NULL };
  guint64 bytes_read = 0;
  gboolean ok = TRUE;

  reader = tsl_reader_new (trace, display_name);
  if (threads != TSL_READER_THREADS_DEFAULT)
    tsl_reader_set_threads (reader, threads);
  /* Two feeds: one with the reader, the next being read. */
  chunks = g_malloc (2 * FEED_BYTES);
  feed.buf = chunks;
  if (is_regular_file (stream, cancellable))
    tsl_reader_set_idle_func (reader, read_ahead, &feed);

  for (;;)
    {
      g_autoptr(GError) local_error = NULL;
      const guint8 *chunk;
      gsize n;

      if (!feed_fill (&feed, &local_error))
        {
          if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
            g_propagate_error (error, g_steal_pointer (&local_error));
          else
            g_propagate_prefixed_error (error, g_steal_pointer (&local_error), "%s: ", display_name);
          ok = FALSE;
          break;
        }
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
              tsl_trace_lock (trace);
              ok = tsl_reader_settle (reader, error);
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
