/* tsl-read-range.c: reading part of a file through its chunk index
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A time range (the trace's filter) reads only the chunks the filter
 * needs, each after the format's state at its start is put back; a part
 * (tsl_read_path_part()) reads the chunks that start in its byte range.
 * Plain text is read ahead into a second feed while the format works;
 * compressed input is decompressed in runs from an access point.
 */
#define G_LOG_DOMAIN "tsl-read-stream"

#include "config.h"

#include "tsl-read-job.h"

/* What a range read of compressed input reads at a time. */
#define COMPRESSED_READ_BYTES (128 * 1024)

/* Where a range read is: what it reads with, and how far it got. */
typedef struct {
  TslReadJob *job;
  TslReader  *reader;
  gint64      lo, hi;     /* the time filter */
  guint       next;       /* the chunk the reader is at the start of */
  guint64     done;       /* bytes of text read */
  guint64     compressed; /* compressed bytes read */
  guint       n_read;     /* chunks read */
} RangeRead;

/* Chunks of an indexed file from `offset` to `end`, fed as they are read;
 * on a regular file the next feed is read ahead (tsl_read_feed_attach())
 * while the format works on the last, as in a whole read. */
static gboolean
feed_range (TslReader    *reader,
            TslTrace     *trace,
            TslReadFeed  *feed,
            guint64       offset,
            guint64       end,
            GError      **error)
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

      if (!tsl_read_feed_fill (feed, error))
        {
          feed->left = 0;
          return FALSE;
        }
      chunk = tsl_read_feed_take (feed, &n);
      if (n == 0)
        break;   /* the run's end, or shorter than indexed: tsl_read_job_end() tells */
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

/* Compressed input from `offset` until the reader has the text it was
 * asked for (tsl_reader_set_text_end()) or the file ends. Small reads: the
 * decompressor stops at the run's end. */
static gboolean
feed_compressed (RangeRead  *r,
                 guint64     offset,
                 GError    **error)
{
  TslReadJob *job = r->job;
  guint8 *buf = job->feed.bufs;

  if (!g_seekable_seek (G_SEEKABLE (job->stream), offset, G_SEEK_SET, job->cancellable, error))
    return FALSE;
  while (!tsl_reader_reached_text_end (r->reader))
    {
      gsize got = 0;
      gboolean ok;

      if (!g_input_stream_read_all (job->stream, buf, COMPRESSED_READ_BYTES, &got,
                                    job->cancellable, error))
        return FALSE;
      if (got == 0)
        break;
      tsl_chunk_index_count_read (got);
      tsl_trace_lock (job->trace);
      ok = tsl_reader_feed (r->reader, buf, got, error);
      tsl_trace_unlock (job->trace);
      if (!ok)
        return FALSE;
      r->compressed += got;
    }
  return TRUE;
}

/* Compressed input: the run of wanted chunks from `first`, decompressed
 * from the access point saved with it (or, when the format cannot resume
 * there, with the chunk the reader is at). */
static gboolean
read_compressed_run (RangeRead  *r,
                     guint       first,
                     GError    **error)
{
  TslChunkIndex *index = r->job->index;
  guint n = tsl_chunk_index_get_n_chunks (index);
  guint last = first, from = first;
  guint64 in_offset = 0;

  while (last + 1 < n && tsl_chunk_index_wants (index, last + 1, r->lo, r->hi))
    last++;
  if (first != r->next)
    {
      const TslChunk *chunk = tsl_chunk_index_get_chunk (index, first);

      if (!tsl_reader_restore (r->reader, chunk))
        {
          g_debug ("%s: cannot resume at chunk %u; reading on from chunk %u",
                   r->job->display_name, first, r->next);
          from = r->next;
        }
      chunk = tsl_chunk_index_get_chunk (index, from);
      if (chunk->point == NULL ||
          !tsl_reader_resume_input (r->reader, g_bytes_get_data (chunk->point, NULL),
                                    g_bytes_get_size (chunk->point), chunk->offset, &in_offset))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       "%s: the index does not fit the file at chunk %u", r->job->display_name, from);
          return FALSE;
        }
    }
  /* The last chunk is read to the end of the input (trailers, warnings). */
  tsl_reader_set_text_end (r->reader, last + 1 < n ? tsl_chunk_index_get_chunk_end (index, last)
                                                   : G_MAXUINT64);
  if (!feed_compressed (r, in_offset, error))
    {
      tsl_read_job_prefix_error (r->job, error);
      return FALSE;
    }
  r->done += tsl_chunk_index_get_chunk_end (index, last) - tsl_chunk_index_get_chunk (index, from)->offset;
  r->next = last + 1;
  return TRUE;
}

/* Plain text: chunk i, after the reader is put at its start (or, when the
 * format cannot resume there, from the chunk the reader is at). */
static gboolean
read_plain_chunk (RangeRead  *r,
                  guint       i,
                  GError    **error)
{
  TslChunkIndex *index = r->job->index;
  const TslChunk *chunk = tsl_chunk_index_get_chunk (index, i);

  if (i != r->next && !tsl_reader_restore (r->reader, chunk))
    {
      g_debug ("%s: cannot resume at byte %" G_GUINT64_FORMAT "; reading on from %" G_GUINT64_FORMAT,
               r->job->display_name, chunk->offset, tsl_chunk_index_get_chunk (index, r->next)->offset);
      chunk = tsl_chunk_index_get_chunk (index, r->next);
    }
  if (!feed_range (r->reader, r->job->trace, &r->job->feed, chunk->offset,
                   tsl_chunk_index_get_chunk_end (index, i), error))
    {
      tsl_read_job_prefix_error (r->job, error);
      return FALSE;
    }
  r->done += tsl_chunk_index_get_chunk_end (index, i) - chunk->offset;
  r->n_read += i + 1 - (guint) (chunk - tsl_chunk_index_get_chunk (index, 0));
  r->next = i + 1;
  return TRUE;
}

/* A filtered read of an indexed file: only the chunks the filter needs
 * (tsl-chunk-index.h), each after the format's state at its start is put
 * back. Where that cannot be done the chunks between are read too, so the
 * samples are always those of a whole read. */
gboolean
tsl_read_job_run_indexed (TslReadJob  *job,
                          GError     **error)
{
  g_autoptr(TslReader) reader = tsl_reader_new (job->trace, job->display_name);
  TslChunkIndex *index = job->index;
  guint n = tsl_chunk_index_get_n_chunks (index);
  guint64 total = tsl_chunk_index_get_chunk_end (index, n - 1);
  gboolean compressed = tsl_chunk_index_is_compressed (index);
  RangeRead r = { .job = job, .reader = reader };
  gint64 start, end;
  gboolean ok;

  if (job->threads != TSL_READER_THREADS_DEFAULT)
    tsl_reader_set_threads (reader, job->threads);
  /* Compressed input is read in runs of its own, not ahead. */
  tsl_read_feed_init (&job->feed, job->stream, job->cancellable);
  if (!compressed)
    tsl_read_feed_attach (&job->feed, reader);
  tsl_trace_get_time_filter (job->trace, &r.lo, &r.hi);
  /* Times are relative to the whole file's start, as in a whole read. */
  tsl_chunk_index_get_span (index, &start, &end);
  tsl_trace_lock (job->trace);
  tsl_trace_note_time (job->trace, start);
  tsl_trace_note_time (job->trace, end);
  /* Where each series ends in the whole file, which the chunks read may
   * not show (the span-end rule of its range stats). */
  tsl_trace_set_file_series_ends (job->trace, tsl_chunk_index_get_series_ends (index));
  tsl_trace_unlock (job->trace);

  for (guint i = 0; i < n; i++)
    {
      if (!tsl_chunk_index_wants (index, i, r.lo, r.hi))
        continue;
      if (compressed ? !read_compressed_run (&r, i, error) : !read_plain_chunk (&r, i, error))
        {
          tsl_read_feed_clear (&job->feed);
          return FALSE;
        }
      i = r.next - 1;
      tsl_read_job_progress (job, r.done, total);
    }

  tsl_read_feed_clear (&job->feed);
  tsl_trace_lock (job->trace);
  ok = tsl_reader_finish (reader, error);
  tsl_trace_unlock (job->trace);
  /* G_MESSAGES_DEBUG=tsl-read-stream: what bench/bench-index.py counts. */
  if (compressed)
    g_debug ("%s: read %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " bytes of text, %" G_GUINT64_FORMAT
             " compressed bytes, through the index", job->display_name, r.done, total, r.compressed);
  else
    g_debug ("%s: read %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " bytes (%u of %u chunks) through the index",
             job->display_name, r.done, total, r.n_read, n);
  return ok && tsl_read_job_end (job, 0, FALSE, error);
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
  gboolean ok;

  if (index != NULL)
    return index;
  scratch = tsl_trace_new (TSL_SAMPLER_COUNT, 1, 0);
  if (!g_seekable_seek (G_SEEKABLE (stream), 0, G_SEEK_SET, NULL, error))
    return NULL;
  {
    TslReadJob job = {
      .trace = scratch, .stream = G_INPUT_STREAM (stream), .display_name = path,
      .bytes_total = key->size, .must_parse = TRUE,
    };

    ok = tsl_read_job_start (&job, error) && tsl_read_job_run_whole (&job, error);
    tsl_read_job_clear (&job);
  }
  if (!ok)
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

/* Before the part: the head for its header, and every chunk that made a
 * track or a name (as a range read does), for what the format's state at
 * the part's start refers to. Nothing of them is sampled or counted. */
static gboolean
read_before_part (TslReadJob  *job,
                  TslReader   *reader,
                  guint        first,
                  GError     **error)
{
  TslChunkIndex *index = job->index;
  guint next = 0;
  gboolean ok = TRUE;

  tsl_trace_set_time_filter (job->trace, G_MAXINT64, G_MAXINT64);
  for (guint i = 0; ok && i < first; i++)
    {
      if (i > 0 && !tsl_chunk_index_get_chunk (index, i)->must_read)
        continue;
      ok = resume_at (reader, index, i, next, job->display_name, error) &&
           feed_range (reader, job->trace, &job->feed, tsl_chunk_index_get_chunk (index, i)->offset,
                       tsl_chunk_index_get_chunk_end (index, i), error);
      next = i + 1;
      /* A format not yet certain waits for 64 KiB: decide it now. */
      if (ok && i == 0)
        {
          tsl_trace_lock (job->trace);
          ok = tsl_reader_settle (reader, error);
          tsl_trace_unlock (job->trace);
        }
    }
  tsl_trace_clear_time_filter (job->trace);
  tsl_trace_forget_counts (job->trace);
  tsl_reader_flush_counts (reader, FALSE);
  return ok && resume_at (reader, index, first, next, job->display_name, error);
}

/* The part's chunks, first..last, after what comes before them. */
static gboolean
read_part (TslReadJob  *job,
           guint        first,
           guint        last,
           GError     **error)
{
  g_autoptr(TslReader) reader = tsl_reader_new (job->trace, job->display_name);
  TslChunkIndex *index = job->index;
  gboolean ok = TRUE;
  gint64 start, end;

  tsl_read_feed_init (&job->feed, job->stream, NULL);
  tsl_read_feed_attach (&job->feed, reader);
  if (first > 0)
    ok = read_before_part (job, reader, first, error);
  /* The whole file's span, as a range read knows it: what lasts from the
   * trace's start (a Perfetto slice begun before it) starts there. */
  tsl_chunk_index_get_span (index, &start, &end);
  tsl_trace_lock (job->trace);
  tsl_trace_note_time (job->trace, start);
  tsl_trace_note_time (job->trace, end);
  tsl_trace_unlock (job->trace);
  if (ok)
    ok = feed_range (reader, job->trace, &job->feed, tsl_chunk_index_get_chunk (index, first)->offset,
                     tsl_chunk_index_get_chunk_end (index, last), error);
  /* Only the part with the last chunk ends the document (later parts are
   * empty): the others stop between events, their open spans closed by the
   * parts after them. */
  tsl_trace_lock (job->trace);
  if (ok && last == tsl_chunk_index_get_n_chunks (index) - 1)
    ok = tsl_reader_finish (reader, error);
  else if (ok)
    tsl_reader_flush_counts (reader, TRUE);  /* what the last part's end would not see */
  tsl_trace_unlock (job->trace);
  tsl_read_feed_clear (&job->feed);
  return ok && tsl_read_job_end (job, 0, FALSE, error);
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
  g_autoptr(GError) local_error = NULL;
  TslReadJob job = { .trace = trace, .display_name = path, .plan = TSL_READ_INDEXED };
  guint64 lo, hi;
  guint first = G_MAXUINT, last = 0, n;
  gboolean ok;

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
  if (tsl_chunk_index_disabled () || !tsl_file_key_query (stream, &job.key))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   "%s: only a regular file can be read in parts (and not with TSL_NO_INDEX)", path);
      return FALSE;
    }
  job.stream = G_INPUT_STREAM (stream);
  job.regular = job.keyed = TRUE;
  job.index = index_of (stream, path, &job.key, error);
  if (job.index == NULL)
    return FALSE;
  /* A part is a byte range of the file, the index's offsets are of the
   * decompressed text: they do not meet. */
  if (tsl_chunk_index_is_compressed (job.index))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   "%s: cannot be read in parts: it is compressed (gzip or zstd); "
                   "decompress it first, or sample it whole", path);
      tsl_read_job_clear (&job);
      return FALSE;
    }

  /* The chunks that start inside this part's bytes; the first part has the
   * first chunk, whose offset is 0. */
  lo = (guint64) ((unsigned __int128) job.key.size * (part - 1) / n_parts);
  hi = (guint64) ((unsigned __int128) job.key.size * part / n_parts);
  n = tsl_chunk_index_get_n_chunks (job.index);
  for (guint i = 0; i < n; i++)
    {
      guint64 offset = tsl_chunk_index_get_chunk (job.index, i)->offset;

      if (offset >= lo && (offset < hi || part == n_parts))
        {
          first = MIN (first, i);
          last = i;
        }
    }
  /* More parts than chunks: this one is empty. */
  ok = first == G_MAXUINT || read_part (&job, first, last, error);
  tsl_read_job_clear (&job);
  if (!ok && error != NULL && *error != NULL && (*error)->domain != TSL_READER_ERROR &&
      !g_str_has_prefix ((*error)->message, path))
    g_prefix_error (error, "%s: ", path);
  return ok;
}
