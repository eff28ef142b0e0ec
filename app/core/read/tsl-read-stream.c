/* tsl-read-stream.c: reading whole streams and files through a TslReader
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The public entry points make a TslReadJob (tsl-read-job.h), which
 * decides in one place whether the read goes through an index
 * (tsl-read-range.c), comes from the state cache or is read whole here:
 * feeds of up to 1 MiB, the next read ahead while a format waits, follow
 * mode at the end of a growing file.
 */
#define G_LOG_DOMAIN "tsl-read-stream"
#define _GNU_SOURCE   /* F_SETPIPE_SZ */

#include "config.h"

#include <fcntl.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include <gio/gunixinputstream.h>

#include "tsl-read-job.h"
#include "tsl-state-cache.h"
#include "tsl-trace-state.h"

/* How often follow mode looks for new bytes at the end of a file. */
#define FOLLOW_POLL_USEC (200 * 1000)
#define PIPE_BYTES       (1024 * 1024)

/* A sampler state (sniffed by its magic in the first feed): read whole,
 * then loaded into the trace instead of parsed. */
#define READ_STATE_MAX (G_GUINT64_CONSTANT (4) << 30)
static gboolean
read_state (TslReadJob  *job,
            GError     **error)
{
  TslReadFeed *feed = &job->feed;
  g_autoptr(GByteArray) all = g_byte_array_sized_new (MAX (job->bytes_total, feed->n));
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) local_error = NULL;
  gboolean ok;

  g_byte_array_append (all, feed->buf, feed->n);
  for (;;)
    {
      feed->n = 0;
      feed->done = FALSE;
      if (!tsl_read_feed_fill (feed, &local_error))
        {
          if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
            g_propagate_error (error, g_steal_pointer (&local_error));
          else
            g_propagate_prefixed_error (error, g_steal_pointer (&local_error), "%s: ", job->display_name);
          return FALSE;
        }
      if (feed->n == 0)
        break;
      /* A state is tracks × 2K samples; past this it is not one to hold. */
      if ((guint64) all->len + feed->n > READ_STATE_MAX)
        {
          g_set_error (error, TSL_READER_ERROR, TSL_READER_ERROR_TOO_LARGE,
                       "%s: byte %u: larger than a sampler state can be (%u GiB)",
                       job->display_name, all->len, (guint) (READ_STATE_MAX >> 30));
          return FALSE;
        }
      g_byte_array_append (all, feed->buf, feed->n);
      if (job->progress != NULL)
        job->progress (all->len, MAX (job->bytes_total, all->len), 0, job->user_data);
    }

  bytes = g_byte_array_free_to_bytes (g_steal_pointer (&all));
  tsl_trace_lock (job->trace);
  ok = tsl_trace_load_state (job->trace, bytes, job->display_name, error);
  tsl_trace_unlock (job->trace);
  if (ok)
    tsl_read_job_progress (job, g_bytes_get_size (bytes), g_bytes_get_size (bytes));
  return ok;
}

/* Fills the feed; an I/O error gets the file's name in front. */
static gboolean
fill (TslReadJob  *job,
      GError     **error)
{
  g_autoptr(GError) local_error = NULL;

  if (tsl_read_feed_fill (&job->feed, &local_error))
    return TRUE;
  if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    g_propagate_error (error, g_steal_pointer (&local_error));
  else
    g_propagate_prefixed_error (error, g_steal_pointer (&local_error), "%s: ", job->display_name);
  return FALSE;
}

static TslReader *
new_reader (TslReadJob *job)
{
  TslReader *reader = tsl_reader_new (job->trace, job->display_name);

  if (job->index != NULL)
    tsl_reader_set_index (reader, job->index);
  if (job->threads != TSL_READER_THREADS_DEFAULT)
    tsl_reader_set_threads (reader, job->threads);
  tsl_reader_set_decompress_ahead (reader, TRUE);
  tsl_read_feed_attach (&job->feed, reader);
  return reader;
}

/* Follow mode, at the current end of the file: the index of what was read
 * so far, kept in this process under the file's identity now, so range
 * reads of the growing file (the window's zoom detail, compare) go through
 * it. Only when the file is still the size that was read: one that grew
 * meanwhile gets it at the next end. Returns the size published, or 0. */
static guint64
publish_index (TslReadJob *job,
               TslReader  *reader,
               guint64     bytes_read)
{
  g_autoptr(TslChunkIndex) snapshot = NULL;
  TslFileKey now;

  if (!tsl_file_key_query (G_FILE_INPUT_STREAM (job->stream), &now) ||
      now.dev != job->key.dev || now.inode != job->key.inode || now.size != bytes_read)
    return 0;
  snapshot = tsl_reader_snapshot_index (reader);
  if (snapshot == NULL)
    return 0;
  tsl_chunk_index_remember (&now, snapshot);
  return bytes_read;
}

/* Follow mode, at the current end: a file now shorter than what was read
 * was truncated (a copytruncate rotation). As `tail -F` does, say so and
 * read what it holds from its start: what was read stays in the trace,
 * the old reader's end closes what it left open, and a new reader reads
 * the new contents. No index is kept of contents that are gone. */
static void
restart_if_truncated (TslReadJob  *job,
                      TslReader  **reader,
                      guint64     *bytes_read,
                      guint64     *bytes_total)
{
  g_autoptr(GError) old_error = NULL;
  TslFileKey now;

  if (!job->regular || !tsl_file_key_query (G_FILE_INPUT_STREAM (job->stream), &now) ||
      now.size >= *bytes_read ||
      !g_seekable_seek (G_SEEKABLE (job->stream), 0, G_SEEK_SET, job->cancellable, NULL))
    return;
  tsl_trace_lock (job->trace);
  if (!tsl_reader_finish (*reader, &old_error))
    g_debug ("%s: before the truncation: %s", job->display_name, old_error->message);
  tsl_trace_add_warning (job->trace,
                         _("%s: the file was truncated to %llu bytes after %llu had been read; "
                           "it is read again from its start"),
                         job->display_name, (unsigned long long) now.size,
                         (unsigned long long) *bytes_read);
  tsl_trace_unlock (job->trace);
  tsl_reader_free (*reader);
  g_clear_pointer (&job->index, tsl_chunk_index_unref);
  job->key = now;
  tsl_read_job_remember (job, &now);
  *reader = new_reader (job);
  *bytes_read = 0;
  *bytes_total = now.size;   /* progress is of the new contents */
}

/* Kept only if the file did not change while it was read: its index, and
 * its state for the state cache. Followed, the file grew as it was read
 * (the same file); its state is kept only for an unchanged file. */
static void
keep_index_and_state (TslReadJob *job,
                      guint64     bytes_read,
                      gboolean    followed)
{
  GFileInputStream *file = G_FILE_INPUT_STREAM (job->stream);
  TslFileKey after;

  if (job->index == NULL || !tsl_chunk_index_is_valid (job->index) ||
      !tsl_file_key_query (file, &after) || after.size != bytes_read)
    return;
  if (memcmp (&after, &job->key, sizeof after) == 0 ||
      (followed && after.dev == job->key.dev && after.inode == job->key.inode))
    {
      tsl_chunk_index_store (file, &after, job->index);
      if (memcmp (&after, &job->key, sizeof after) == 0 &&
          (job->follow == NULL || !job->follow (job->user_data)))
        tsl_state_cache_save (job->trace, file, &job->key);
    }
}

/* The loop of a whole read: feeds until the end (in follow mode, waiting
 * there while asked to), then the reader's end. */
static gboolean
read_whole (TslReadJob  *job,
            GError     **error)
{
  g_autoptr(TslReader) reader = NULL;
  guint64 bytes_read = 0;
  guint64 bytes_total = job->bytes_total;
  guint64 published = 0;      /* follow mode: the size of the last index published */
  gboolean followed = FALSE;  /* waited at the end for the file to grow */
  gboolean ok = TRUE;

  reader = new_reader (job);

  /* The first feed decides: a sampler state is loaded, not parsed. */
  if (!fill (job, error))
    return FALSE;
  if (tsl_state_sniff (job->feed.buf, job->feed.n))
    return read_state (job, error);

  for (gboolean first = TRUE;; first = FALSE)
    {
      const guint8 *chunk;
      gsize n;

      if (!first && !fill (job, error))
        return FALSE;
      chunk = tsl_read_feed_take (&job->feed, &n);
      if (n == 0)
        {
          /* Follow mode: a growing file's end is only where it is now. */
          if (job->follow == NULL || !job->follow (job->user_data))
            break;
          followed = TRUE;
          restart_if_truncated (job, &reader, &bytes_read, &bytes_total);
          tsl_trace_lock (job->trace);
          ok = tsl_reader_settle (reader, error);
          if (ok && job->index != NULL && bytes_read != published)
            published = publish_index (job, reader, bytes_read);
          tsl_trace_unlock (job->trace);
          if (!ok)
            return FALSE;
          tsl_read_job_progress (job, bytes_read, bytes_total);
          g_usleep (FOLLOW_POLL_USEC);
          continue;
        }

      bytes_read += n;
      bytes_total = MAX (bytes_total, bytes_read);
      tsl_trace_lock (job->trace);
      ok = tsl_reader_feed (reader, chunk, n, error);
      tsl_trace_unlock (job->trace);
      if (!ok)
        return FALSE;
      tsl_read_job_progress (job, bytes_read, bytes_total);
    }

  tsl_trace_lock (job->trace);
  ok = tsl_reader_finish (reader, error);
  tsl_trace_unlock (job->trace);
  if (!ok || !tsl_read_job_end (job, bytes_read, followed, error))
    return FALSE;
  if (job->keyed)
    keep_index_and_state (job, bytes_read, followed);
  tsl_read_job_progress (job, bytes_read, MAX (bytes_total, bytes_read));
  return TRUE;
}

gboolean
tsl_read_job_run_whole (TslReadJob  *job,
                        GError     **error)
{
  gboolean ok;

  tsl_read_feed_init (&job->feed, job->stream, job->cancellable);
  ok = read_whole (job, error);
  tsl_read_feed_clear (&job->feed);
  return ok;
}

/* Any read: the job decides how (tsl_read_job_start()), then runs. */
static gboolean
run (TslReadJob  *job,
     GError     **error)
{
  gboolean ok = TRUE;

  if (!tsl_read_job_start (job, error))
    ok = FALSE;
  else if (job->plan == TSL_READ_INDEXED)
    ok = tsl_read_job_run_indexed (job, error);
  else if (job->plan == TSL_READ_WHOLE)
    ok = tsl_read_job_run_whole (job, error);
  tsl_read_job_clear (job);
  return ok;
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
  TslReadJob job = {
    .trace = trace, .stream = stream, .display_name = display_name, .bytes_total = bytes_total,
    .progress = progress, .follow = follow, .user_data = user_data, .cancellable = cancellable,
  };

  g_return_val_if_fail (TSL_IS_TRACE (trace), FALSE);
  g_return_val_if_fail (G_IS_INPUT_STREAM (stream), FALSE);

  return run (&job, error);
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
  TslReadJob job = {
    .trace = trace, .display_name = path, .threads = threads, .progress = progress,
    .user_data = user_data, .cancellable = cancellable,
  };

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
      job.stream = stream;
      job.display_name = "-";
      return run (&job, error);
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
    job.bytes_total = g_file_info_get_size (info);
  job.stream = stream;
  return run (&job, error);
}
