/* tsl-read-job.c: where a read starts (caches, index) and how it ends (changes)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "tsl-read-stream"

#include "config.h"

#include <glib/gi18n-lib.h>

#include "tsl-read-job.h"
#include "tsl-state-cache.h"

/* Reads are 64 KiB, each after a cancellation check; they are fed to the
 * reader up to 1 MiB at a time, so that a format working on two threads
 * meets at the end of a feed rarely. A short read (a pipe with nothing more
 * for now) is fed at once, so live input is not held back. */
#define READ_BYTES       (64 * 1024)
#define FEED_BYTES       TSL_READ_FEED_BYTES

/* One read into the feed; FALSE when it is complete. */
static gboolean
feed_read (TslReadFeed *feed)
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
  TslReadFeed *feed = data;

  if (feed->done || feed->n == FEED_BYTES || feed->left == 0)
    return FALSE;
  feed_read (feed);
  return TRUE;
}

gboolean
tsl_read_feed_fill (TslReadFeed  *feed,
                    GError      **error)
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

const guint8 *
tsl_read_feed_take (TslReadFeed *feed,
                    gsize       *n)
{
  const guint8 *chunk = feed->buf;

  *n = feed->n;
  feed->buf = chunk == feed->bufs ? feed->bufs + FEED_BYTES : feed->bufs;
  feed->n = 0;
  feed->done = FALSE;
  return chunk;
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

void
tsl_read_feed_init (TslReadFeed  *feed,
                    GInputStream *stream,
                    GCancellable *cancellable)
{
  *feed = (TslReadFeed) { .stream = stream, .cancellable = cancellable, .left = G_MAXUINT64 };
  feed->bufs = g_malloc (2 * FEED_BYTES);
  feed->buf = feed->bufs;
}

void
tsl_read_feed_attach (TslReadFeed *feed,
                      TslReader   *reader)
{
  if (is_regular_file (feed->stream, feed->cancellable))
    tsl_reader_set_idle_func (reader, read_ahead, feed);
}

void
tsl_read_feed_clear (TslReadFeed *feed)
{
  feed->left = 0;
  feed->buf = NULL;
  g_clear_pointer (&feed->bufs, g_free);
  g_clear_error (&feed->error);
}

void
tsl_read_job_start (TslReadJob *job)
{
  GFileInputStream *file;
  gint64 lo, hi;

  job->plan = TSL_READ_WHOLE;
  job->regular = G_IS_FILE_INPUT_STREAM (job->stream) && G_IS_SEEKABLE (job->stream) &&
                 g_seekable_tell (G_SEEKABLE (job->stream)) == 0 &&
                 tsl_file_key_query (G_FILE_INPUT_STREAM (job->stream), &job->key);
  job->keyed = job->regular && !tsl_chunk_index_disabled ();
  if (!job->keyed)
    return;
  file = G_FILE_INPUT_STREAM (job->stream);

  /* A range of a file read before: through its index. */
  if (tsl_trace_get_time_filter (job->trace, &lo, &hi) &&
      (job->index = tsl_chunk_index_find (file, &job->key)) != NULL)
    {
      job->plan = TSL_READ_INDEXED;
      return;
    }
  /* A whole read of a file read before, unchanged: its state from the
   * cache. The window always passes `follow` (it may be turned on
   * mid-read), so what counts is whether it asks to follow now. */
  if ((job->follow == NULL || !job->follow (job->user_data)) && !job->must_parse &&
      tsl_state_cache_load (job->trace, file, &job->key, job->display_name))
    {
      job->plan = TSL_READ_CACHED;
      tsl_read_job_progress (job, job->key.size, job->key.size);
      return;
    }
  /* Any other read records one. */
  job->index = tsl_chunk_index_new ();
}

gboolean
tsl_read_job_end (TslReadJob  *job,
                  guint64      bytes_read,
                  gboolean     followed,
                  GError     **error)
{
  TslFileKey now;
  gboolean same, shrank, grew;

  if (!job->regular || !tsl_file_key_query (G_FILE_INPUT_STREAM (job->stream), &now))
    return TRUE;
  same = now.size == job->key.size && now.mtime_us == job->key.mtime_us;
  if (job->plan == TSL_READ_INDEXED)
    {
      /* The index's offsets are of the file as it was: any change and the
       * chunks read may be of two versions. */
      if (same)
        return TRUE;
      shrank = TRUE;
      grew = FALSE;
    }
  else
    {
      /* Followed, the file is expected to grow; a whole read may have read
       * past the size it began with into what was appended. */
      shrank = now.size < bytes_read || (!followed && bytes_read < job->key.size);
      grew = !shrank && now.size > job->key.size;
      /* The same size, modified: rewritten in place under the read. */
      shrank = shrank || (!followed && !grew && !same);
    }
  if (shrank)
    {
      g_set_error (error, TSL_READER_ERROR, TSL_READER_ERROR_CHANGED,
                   _("%s: the file changed while it was read (%llu bytes when the read began, "
                     "%llu now); what was read could mix two versions of it: read it again"),
                   job->display_name, (unsigned long long) job->key.size,
                   (unsigned long long) now.size);
      return FALSE;
    }
  if (grew && !followed)
    {
      tsl_trace_lock (job->trace);
      tsl_trace_add_warning (job->trace,
                             _("%s: the file grew while it was read (%llu bytes when the read "
                               "began, %llu now); its first %llu bytes are shown"),
                             job->display_name, (unsigned long long) job->key.size,
                             (unsigned long long) now.size, (unsigned long long) bytes_read);
      tsl_trace_unlock (job->trace);
    }
  return TRUE;
}

void
tsl_read_job_clear (TslReadJob *job)
{
  g_clear_pointer (&job->index, tsl_chunk_index_unref);
  tsl_read_feed_clear (&job->feed);
}

void
tsl_read_job_progress (TslReadJob *job,
                       guint64     done,
                       guint64     total)
{
  if (job->progress != NULL)
    job->progress (done, total, tsl_trace_get_events (job->trace), job->user_data);
}

void
tsl_read_job_prefix_error (TslReadJob  *job,
                           GError     **error)
{
  if (error != NULL && *error != NULL && (*error)->domain != TSL_READER_ERROR &&
      !g_error_matches (*error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    g_prefix_error (error, "%s: ", job->display_name);
}
