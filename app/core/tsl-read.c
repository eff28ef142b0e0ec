/* tsl-read.c: reading whole streams and files through a TslReader
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "tsl-reader"
#define _GNU_SOURCE   /* F_SETPIPE_SZ */

#include "config.h"

#include <fcntl.h>

#include <gio/gunixinputstream.h>

#include "tsl-reader.h"

/* How often follow mode looks for new bytes at the end of a file. */
#define FOLLOW_POLL_USEC (200 * 1000)
/* Reads are 64 KiB, each after a cancellation check; they are fed to the
 * reader up to 1 MiB at a time, so that a format working on two threads
 * meets at the end of a feed rarely. A short read (a pipe with nothing more
 * for now) is fed at once, so live input is not held back. */
#define READ_BYTES       (64 * 1024)
#define FEED_BYTES       TSL_READ_FEED_BYTES
#define PIPE_BYTES       (1024 * 1024)

/* Up to FEED_BYTES into buf: *n_read bytes, 0 at the (current) end. */
static gboolean
read_feed (GInputStream  *stream,
           guint8        *buf,
           gsize         *n_read,
           GCancellable  *cancellable,
           GError       **error)
{
  gsize n = 0;

  for (;;)
    {
      gsize want = MIN (READ_BYTES, FEED_BYTES - n);
      gssize got;

      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return FALSE;
      got = g_input_stream_read (stream, buf + n, want, cancellable, error);
      if (got < 0)
        return FALSE;
      n += got;
      if ((gsize) got < want || n == FEED_BYTES)
        break;
    }
  *n_read = n;
  return TRUE;
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
  g_autofree guint8 *chunk = NULL;
  guint64 bytes_read = 0;
  gboolean ok = TRUE;

  reader = tsl_reader_new (trace, display_name);
  if (threads != TSL_READER_THREADS_DEFAULT)
    tsl_reader_set_threads (reader, threads);
  chunk = g_malloc (FEED_BYTES);

  for (;;)
    {
      g_autoptr(GError) local_error = NULL;
      gsize n;

      if (!read_feed (stream, chunk, &n, cancellable, &local_error))
        {
          if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
            g_propagate_error (error, g_steal_pointer (&local_error));
          else
            g_propagate_prefixed_error (error, g_steal_pointer (&local_error), "%s: ", display_name);
          ok = FALSE;
          break;
        }
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

  file = g_file_new_for_commandline_arg (path);
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
