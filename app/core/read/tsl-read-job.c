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

/* What this process last read whole at each path: a range read of a file
 * that is now another one there (replaced) or shorter would be of another
 * version than the reads before it, as compare's range reads after its
 * first pass; one modified in place at the same size is read whole (its
 * index no longer fits) and warned about. Growth is not a change here: a
 * followed file grows, and what was read is a prefix of it. */
typedef enum {
  SEEN_SAME,
  SEEN_MODIFIED,
  SEEN_REPLACED,
} SeenChange;

static GMutex seen_lock;
static GHashTable *seen;   /* path → TslFileKey */

void
tsl_read_job_remember (TslReadJob       *job,
                       const TslFileKey *key)
{
  g_mutex_lock (&seen_lock);
  if (seen == NULL)
    seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_hash_table_replace (seen, g_strdup (job->display_name), g_memdup2 (key, sizeof *key));
  g_mutex_unlock (&seen_lock);
}

static SeenChange
changed_since_seen (TslReadJob *job)
{
  const TslFileKey *before;
  const TslFileKey *now = &job->key;
  SeenChange change = SEEN_SAME;

  g_mutex_lock (&seen_lock);
  before = seen != NULL ? g_hash_table_lookup (seen, job->display_name) : NULL;
  if (before == NULL)
    ;
  else if (now->dev != before->dev || now->inode != before->inode || now->size < before->size)
    change = SEEN_REPLACED;
  else if (now->size == before->size && now->mtime_us != before->mtime_us)
    change = SEEN_MODIFIED;
  g_mutex_unlock (&seen_lock);
  return change;
}

gboolean
tsl_read_job_start (TslReadJob  *job,
                    GError     **error)
{
  GFileInputStream *file;
  SeenChange change = SEEN_SAME;
  gboolean ranged;
  gint64 lo, hi;

  job->plan = TSL_READ_WHOLE;
  job->regular = G_IS_FILE_INPUT_STREAM (job->stream) && G_IS_SEEKABLE (job->stream) &&
                 g_seekable_tell (G_SEEKABLE (job->stream)) == 0 &&
                 tsl_file_key_query (G_FILE_INPUT_STREAM (job->stream), &job->key);
  ranged = tsl_trace_get_time_filter (job->trace, &lo, &hi);
  if (job->regular && ranged)
    change = changed_since_seen (job);
  if (change == SEEN_REPLACED)
    {
      g_set_error (error, TSL_READER_ERROR, TSL_READER_ERROR_CHANGED,
                   _("%s: the file changed since it was first read (it has %llu bytes now); "
                     "a range of it would not be of the version read before: read it again"),
                   job->display_name, (unsigned long long) job->key.size);
      return FALSE;
    }
  if (change == SEEN_MODIFIED)
    {
      tsl_trace_lock (job->trace);
      tsl_trace_add_warning (job->trace,
                             _("%s: the file was modified since it was first read; this range is of "
                               "the file as it is now"), job->display_name);
      tsl_trace_unlock (job->trace);
    }
  job->keyed = job->regular && !tsl_chunk_index_disabled ();
  if (!job->keyed)
    {
      if (job->regular)
        g_debug ("%s: read without a chunk index", job->display_name);
      return TRUE;
    }
  file = G_FILE_INPUT_STREAM (job->stream);

  /* A range of a file read before: through its index. */
  if (ranged && (job->index = tsl_chunk_index_find (file, &job->key)) != NULL)
    {
      job->plan = TSL_READ_INDEXED;
      return TRUE;
    }
  /* A whole read of a file read before, unchanged: its state from the
   * cache. The window always passes `follow` (it may be turned on
   * mid-read), so what counts is whether it asks to follow now. */
  if ((job->follow == NULL || !job->follow (job->user_data)) && !job->must_parse &&
      tsl_state_cache_load (job->trace, file, &job->key, job->display_name))
    {
      job->plan = TSL_READ_CACHED;
      tsl_read_job_remember (job, &job->key);
      tsl_read_job_progress (job, job->key.size, job->key.size);
      return TRUE;
    }
  /* Any other read records one. */
  job->index = tsl_chunk_index_new ();
  return TRUE;
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
  if (job->plan == TSL_READ_WHOLE)
    tsl_read_job_remember (job, &now);
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
