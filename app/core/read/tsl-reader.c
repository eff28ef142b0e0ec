/* tsl-reader.c: the push parser that turns bytes into events
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Bytes go through three stages before a format sees them: gzip or zstd
 * (detected by their magic at the start of the input, members or frames may
 * be concatenated), the
 * text encoding (UTF-8 BOM stripped, UTF-16 with a BOM, or whose first 64
 * bytes are every other one NUL, transcoded), and the
 * sniffer, which holds the first bytes until one format is certain or 64 KiB
 * past any leading '#' lines (or the end) have arrived; binary data is
 * refused there. After that, decoded bytes are handed straight to
 * the format; only a record split by a chunk boundary is copied.
 *
 * Positions in messages are 1-based lines and 1-based columns counted in
 * bytes of the decoded UTF-8 text (tsl-text-position.c).
 */
#define G_LOG_DOMAIN "tsl-reader"
#define _GNU_SOURCE   /* memmem */

#include "config.h"

#include <string.h>
#include <glib/gi18n-lib.h>

#include "tsl-chunk-index.h"
#include "tsl-format-private.h"
#include "tsl-frames.h"
#include "tsl-inflate.h"
#include "tsl-text-guess.h"
#include "tsl-text-position.h"

#define SNIFF_BYTES     (64 * 1024)
#define MAX_RECORD      ((gsize) 256 * 1024 * 1024)
#define ENC_HEAD_BYTES  64
/* Leading comment lines the sniffer holds beyond SNIFF_BYTES. */
#define MAX_COMMENT_HEAD ((gsize) 16 * 1024 * 1024)

G_DEFINE_QUARK (tsl-reader-error-quark, tsl_reader_error)

typedef enum {
  ENC_UNKNOWN,
  ENC_UTF8,
  ENC_UTF16LE,
  ENC_UTF16BE,
} Encoding;

struct _TslReaderContext
{
  TslReader       *reader;
  /* The buffer of the current parse() call and where it starts. */
  TslTextPosition  pos;
};

struct _TslReader
{
  TslTrace         *trace;
  char             *name;

  guint64           bytes_in;
  guint64           bytes_decoded;
  gsize             max_record;

  /* Stage 1: gzip or zstd. */
  gboolean          magic_checked;
  guint8            magic[4];
  guint             n_magic;
  TslInflate       *inflate;    /* NULL: not compressed */
  /* A range read of compressed input (tsl_reader_resume_input()): output
   * before skip_to and from text_end on is dropped. */
  guint64           skip_to;
  guint64           text_end;
  gboolean          at_text_end;

  /* Stage 2: encoding. */
  Encoding          encoding;
  /* Enough to tell UTF-16 without a BOM by its NULs. */
  guint8            enc_head[ENC_HEAD_BYTES];
  guint             n_enc_head;
  guint8            utf16_carry;
  gboolean          has_utf16_carry;
  gunichar2         high_surrogate;
  GByteArray       *transcoded;

  /* Stage 3: format. */
  const TslFormat  *format;
  gboolean          settled;  /* sniff without waiting for 64 KiB (follow mode) */
  gpointer          state;
  GByteArray       *pending;
  gsize             pending_wait;  /* see push_text() */
  gsize             comment_end;   /* see comment_prefix() */
  gboolean          comments_done;
  TslReaderContext  ctx;
  /* NULs at the end of what has arrived, held as a count: only text after
   * them shows they were not trailing padding (see push_text()). */
  guint64           nul_run;
  gboolean          failed;
  gboolean          finished;
  TslReaderThreads  threads;
  guint             n_threads;
  TslReaderIdleFunc idle;
  gpointer          idle_data;

  /* Chunk index being recorded (see tsl_reader_set_index()). */
  TslChunkIndex    *index;
  GByteArray       *index_state;
  GByteArray       *index_point;
  guint64           text_offset;   /* decoded bytes the format consumed */
  gboolean          skipped_bom;
  gsize             sniffed_len;   /* bytes the format was told from */
};

static const TslFormat *formats[] = {
  &tsl_format_chrome_json,
  &tsl_format_speedscope,
  &tsl_format_perf_script,
  &tsl_format_collapsed,
  &tsl_format_csv,
  &tsl_format_perfetto_proto,
  &tsl_format_cpuprofile,
  &tsl_format_pprof,
};

gint64
tsl_reader_context_get_input_offset (TslReaderContext *ctx)
{
  TslReader *self;

  g_return_val_if_fail (ctx != NULL, -1);

  self = ctx->reader;
  /* gzip and zstd: an offset of the decompressed text, which
   * tsl_event_details_read() decompresses to. */
  if (self->encoding != ENC_UTF8)
    return -1;
  /* text_offset counts from after a stripped BOM. */
  return (gint64) self->text_offset + (self->skipped_bom ? 3 : 0);
}

char *
tsl_reader_context_position (TslReaderContext *ctx,
                             gsize             offset)
{
  guint64 line, column;

  g_return_val_if_fail (ctx != NULL, NULL);

  tsl_text_position_locate (&ctx->pos, offset, &line, &column);
  return g_strdup_printf ("%s:%" G_GUINT64_FORMAT ":%" G_GUINT64_FORMAT,
                          ctx->reader->name, line, column);
}

void
tsl_reader_context_set_error (TslReaderContext  *ctx,
                              GError           **error,
                              gsize              offset,
                              const char        *format,
                              ...)
{
  g_autofree char *position = NULL;
  g_autofree char *message = NULL;
  va_list args;

  g_return_if_fail (ctx != NULL);

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);

  position = tsl_reader_context_position (ctx, offset);
  g_set_error (error, TSL_READER_ERROR, TSL_READER_ERROR_SYNTAX, "%s: %s", position, message);
}

const char *
tsl_reader_context_get_name (TslReaderContext *ctx)
{
  g_return_val_if_fail (ctx != NULL, NULL);

  return ctx->reader->name;
}

TslReaderThreads
tsl_reader_context_get_threads (TslReaderContext *ctx)
{
  g_return_val_if_fail (ctx != NULL, TSL_READER_THREADS_NEVER);

  return ctx->reader->threads;
}

guint
tsl_reader_context_get_n_threads (TslReaderContext *ctx)
{
  g_return_val_if_fail (ctx != NULL, 1);

  return ctx->reader->threads == TSL_READER_THREADS_NEVER ? 1 : MAX (ctx->reader->n_threads, 2);
}

/* The caller's idle work first (reading the next feed), then the newlines
 * of this parse call's buffer, which run_format() would otherwise count
 * after the call, while the format's other thread has nothing to do. */
gboolean
tsl_reader_context_idle (TslReaderContext *ctx)
{
  TslReader *reader = ctx->reader;

  if (reader->idle != NULL && reader->idle (reader->idle_data))
    return TRUE;
  return tsl_text_position_count_ahead (&ctx->pos);
}

void
tsl_format_set_stack_label (TslTrace         *trace,
                            guint             track,
                            GString          *scratch,
                            guint             depth,
                            TslFrameNameFunc  name,
                            gpointer          data,
                            const char       *leaf)
{
  g_string_truncate (scratch, 0);
  /* Every kept slice or sample comes here: each frame is copied once, its
   * ';' made ':' as tsl_frames_append() does. */
  for (guint i = 0; i < depth + (leaf != NULL); i++)
    {
      const char *part = i < depth ? name (data, i) : leaf;
      gsize len = strlen (part);
      gsize at = scratch->len + (i > 0);
      char *p, *end;

      g_string_set_size (scratch, at + len);
      if (i > 0)
        scratch->str[at - 1] = ';';
      memcpy (scratch->str + at, part, len);
      for (p = scratch->str + at, end = p + len; (p = memchr (p, ';', end - p)) != NULL; p++)
        *p = ':';
    }
  tsl_trace_set_label_joined (trace, track, scratch->str, scratch->len);
}

gboolean
tsl_sniff_contains (const char *s,
                    gsize       len,
                    const char *needle)
{
  return memmem (s, strnlen (s, len), needle, strlen (needle)) != NULL;
}

gboolean
tsl_reader_context_reads_ahead (TslReaderContext *ctx)
{
  return ctx->reader->idle != NULL;
}

/* TSL_READER_THREADS: "0" or "1" one thread, "eager" two from the first
 * event (tests), N (2 to 256) that many; otherwise every online core. */
static guint
default_n_threads (void)
{
  const char *env = g_getenv ("TSL_READER_THREADS");
  guint64 n;

  if (env != NULL && g_ascii_string_to_unsigned (env, 10, 0, 256, &n, NULL))
    return MAX (n, 1);
  return g_get_num_processors ();
}

static TslReaderThreads
default_threads (void)
{
  const char *env = g_getenv ("TSL_READER_THREADS");

  if (g_strcmp0 (env, "eager") == 0)
    return TSL_READER_THREADS_EAGER;
  return default_n_threads () > 1 ? TSL_READER_THREADS_AUTO : TSL_READER_THREADS_NEVER;
}

TslReader *
tsl_reader_new (TslTrace   *trace,
                const char *display_name)
{
  TslReader *self;

  g_return_val_if_fail (TSL_IS_TRACE (trace), NULL);

  self = g_new0 (TslReader, 1);
  self->trace = g_object_ref (trace);
  self->name = g_strdup (display_name ? display_name : "-");
  self->max_record = MAX_RECORD;
  self->pending = g_byte_array_new ();
  self->transcoded = g_byte_array_new ();
  self->ctx.reader = self;
  tsl_text_position_init (&self->ctx.pos);
  self->threads = default_threads ();
  self->n_threads = default_n_threads ();
  self->text_end = G_MAXUINT64;

  return self;
}

void
tsl_reader_set_threads (TslReader        *self,
                        TslReaderThreads  threads)
{
  g_return_if_fail (self != NULL);

  self->threads = threads != TSL_READER_THREADS_DEFAULT ? threads : default_threads ();
}

void
tsl_reader_set_idle_func (TslReader         *self,
                          TslReaderIdleFunc  func,
                          gpointer           user_data)
{
  g_return_if_fail (self != NULL);

  self->idle = func;
  self->idle_data = user_data;
}

void
tsl_reader_free (TslReader *self)
{
  if (self == NULL)
    return;

  if (self->state != NULL)
    self->format->destroy (self->state);
  g_clear_pointer (&self->inflate, tsl_inflate_free);
  g_clear_pointer (&self->pending, g_byte_array_unref);
  g_clear_pointer (&self->transcoded, g_byte_array_unref);
  g_clear_object (&self->trace);
  g_clear_pointer (&self->index, tsl_chunk_index_unref);
  g_clear_pointer (&self->index_state, g_byte_array_unref);
  g_clear_pointer (&self->index_point, g_byte_array_unref);
  g_free (self->name);
  g_free (self);
}

void
tsl_reader_set_index (TslReader     *self,
                      TslChunkIndex *index)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (self->bytes_in == 0 && self->index == NULL);

  self->index = tsl_chunk_index_ref (index);
  self->index_state = g_byte_array_new ();
  self->index_point = g_byte_array_new ();
  tsl_chunk_index_add (index, self->trace, 0, 1, 1, NULL, 0, NULL, 0);
}

gboolean
tsl_reader_restore (TslReader      *self,
                    const TslChunk *chunk)
{
  const guint8 *saved = chunk->state != NULL ? g_bytes_get_data (chunk->state, NULL) : NULL;
  gsize len = chunk->state != NULL ? g_bytes_get_size (chunk->state) : 0;

  g_return_val_if_fail (self != NULL, FALSE);

  /* Only between whole records of a plain text. */
  if (self->format == NULL || self->failed || self->pending->len > 0 || self->nul_run > 0 ||
      self->encoding != ENC_UTF8)
    return FALSE;
  if (self->format->checkpoint == NULL)
    return FALSE;
  if (self->format->restore != NULL && !self->format->restore (self->state, saved, len))
    return FALSE;
  /* Compressed input: tsl_reader_resume_input() sets the offset. */
  if (self->inflate == NULL)
    self->text_offset = chunk->offset;
  tsl_text_position_jump (&self->ctx.pos, chunk->line, chunk->column);
  return TRUE;
}

void
tsl_reader_flush_counts (TslReader *self,
                         gboolean   keep)
{
  g_return_if_fail (self != NULL);

  if (self->format != NULL && self->state != NULL && self->format->flush_counts != NULL)
    self->format->flush_counts (self->state, keep);
}

gboolean
tsl_reader_is_compressed (TslReader *self)
{
  g_return_val_if_fail (self != NULL, FALSE);

  return self->inflate != NULL;
}

gboolean
tsl_reader_resume_input (TslReader    *self,
                         const guint8 *point,
                         gsize         len,
                         guint64       text_offset,
                         guint64      *in_offset)
{
  guint64 out_offset;

  g_return_val_if_fail (self != NULL, FALSE);

  if (self->inflate == NULL || self->failed ||
      !tsl_inflate_resume (self->inflate, point, len, in_offset, &out_offset) ||
      out_offset > text_offset)
    return FALSE;
  self->skip_to = text_offset;
  self->text_offset = text_offset;
  self->at_text_end = FALSE;
  return TRUE;
}

void
tsl_reader_set_text_end (TslReader *self,
                         guint64    text_end)
{
  g_return_if_fail (self != NULL);

  self->text_end = text_end;
  self->at_text_end = FALSE;
}

gboolean
tsl_reader_reached_text_end (TslReader *self)
{
  g_return_val_if_fail (self != NULL, FALSE);

  return self->at_text_end;
}

void
tsl_reader_set_max_record (TslReader *self,
                           gsize      max_record)
{
  g_return_if_fail (self != NULL);

  self->max_record = max_record > 0 ? max_record : MAX_RECORD;
}

guint64
tsl_reader_get_bytes_in (TslReader *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->bytes_in;
}

const char *
tsl_reader_get_format (TslReader *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return self->format ? self->format->name : NULL;
}

gboolean
tsl_reader_set_format (TslReader  *self,
                       const char *name)
{
  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (name != NULL, FALSE);
  g_return_val_if_fail (self->format == NULL && self->bytes_in == 0, FALSE);

  for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
    {
      if (g_str_equal (formats[i]->name, name))
        {
          self->format = formats[i];
          self->state = self->format->create (self->trace, &self->ctx);
          tsl_trace_set_format (self->trace, self->format->name);
          return TRUE;
        }
    }

  return FALSE;
}

/* Leading '#' lines (`perf script --header` writes tens of KiB of them) do
 * not count toward the SNIFF_BYTES a format has to show itself in. Scanned
 * once, as the head grows. */
static gsize
comment_prefix (TslReader    *self,
                const guint8 *head,
                gsize         len)
{
  while (!self->comments_done && self->comment_end < len)
    {
      const guint8 *p = head + self->comment_end;
      const guint8 *nl;

      if (*p != '#')
        {
          self->comments_done = TRUE;
          break;
        }
      nl = memchr (p, '\n', len - self->comment_end);
      if (nl == NULL)
        break;
      self->comment_end = nl + 1 - head;
      self->comments_done = self->comment_end >= MAX_COMMENT_HEAD;
    }
  return self->comment_end;
}

static gboolean
sniff (TslReader     *self,
       const guint8  *head,
       gsize          len,
       gboolean       at_eof,
       GError       **error)
{
  const TslFormat *best = NULL;
  int best_score = 0;

  if (len == 0 && at_eof)
    {
      if (self->inflate != NULL && tsl_inflate_get_kind (self->inflate) == TSL_INFLATE_ZSTD &&
          (!tsl_inflate_is_complete (self->inflate) || tsl_inflate_has_failed (self->inflate)))
        g_set_error (error, TSL_READER_ERROR, TSL_READER_ERROR_EMPTY,
                     "%s:1:1: the zstd data is truncated or damaged before any content", self->name);
      else if (self->inflate != NULL && tsl_inflate_get_kind (self->inflate) == TSL_INFLATE_GZIP &&
               !tsl_inflate_is_complete (self->inflate))
        g_set_error (error, TSL_READER_ERROR, TSL_READER_ERROR_EMPTY,
                     _("%s:1:1: the gzip data is truncated before any content"), self->name);
      else
        g_set_error (error, TSL_READER_ERROR, TSL_READER_ERROR_EMPTY,
                     _("%s:1:1: the file is empty"), self->name);
      return FALSE;
    }
  /* Nothing decoded yet (a held UTF-16 byte): nothing to look at. */
  if (len == 0)
    return TRUE;

  for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
    {
      int score = formats[i]->sniff (head, len, at_eof);

      if (score > best_score)
        {
          best = formats[i];
          best_score = score;
        }
    }

  /* Wait for more unless a format is certain or no more is coming (soon). */
  if (best_score < 100 && !at_eof && !self->settled &&
      len < SNIFF_BYTES + comment_prefix (self, head, len))
    return TRUE;

  /* Random bytes split into "lines" and "fields" that some sniffer likes. */
  if (best == NULL || (!best->binary && tsl_text_looks_binary (head, len)))
    {
      g_set_error (error, TSL_READER_ERROR, TSL_READER_ERROR_UNKNOWN_FORMAT,
                   _("%s:1:1: unrecognised file format (supported: Chrome trace event JSON, "
                   "speedscope JSON, perf script text, collapsed stacks, CSV/TSV metrics, "
                   "Perfetto protobuf, V8 CPU profiles, pprof; optionally gzip- or zstd-compressed)"),
                   self->name);
      return FALSE;
    }

  self->format = best;
  self->sniffed_len = len;
  self->state = best->create (self->trace, &self->ctx);
  tsl_trace_set_format (self->trace, best->name);
  return TRUE;
}

/* After each parse() call: a checkpoint once a chunk's worth was consumed.
 * Offsets are in decoded UTF-8 text (UTF-16 and a BOM get no index). Plain
 * text is resumed at any offset; compressed input only at an access point
 * of its decompressor, so a checkpoint there follows the point. */
static void
note_checkpoint (TslReader    *self,
                 const guint8 *buf,
                 gsize         consumed,
                 gboolean      at_eof)
{
  TslCheckpoint answer;
  guint64 line, column;
  gsize back = 0;
  guint64 point_out = 0;

  if (!tsl_chunk_index_is_valid (self->index))
    return;
  if (self->encoding != ENC_UTF8 || self->skipped_bom || self->format->checkpoint == NULL)
    {
      tsl_chunk_index_invalidate (self->index);
      return;
    }
  if (at_eof)
    ;
  else if (self->inflate != NULL)
    {
      if (!tsl_inflate_peek_point (self->inflate, &point_out) || self->text_offset < point_out ||
          self->text_offset < self->sniffed_len)
        return;
    }
  /* A later read must see as much as the sniffer did before the first jump. */
  else if (!tsl_chunk_index_due (self->index, self->text_offset) ||
           self->text_offset < self->sniffed_len)
    return;

  g_byte_array_set_size (self->index_state, 0);
  answer = self->format->checkpoint (self->state, buf, consumed, &back, self->index_state);
  if (answer == TSL_CHECKPOINT_NEVER)
    tsl_chunk_index_invalidate (self->index);
  else if (answer == TSL_CHECKPOINT_HERE && !at_eof && back <= consumed &&
           self->index_state->len <= TSL_CHUNK_STATE_MAX &&
           self->text_offset - back >= point_out)
    {
      g_byte_array_set_size (self->index_point, 0);
      if (self->inflate != NULL)
        {
          tsl_inflate_take_point (self->inflate, self->index_point);
          if (self->index_point->len == 0)
            return;
        }
      tsl_text_position_locate_back (&self->ctx.pos, back, &line, &column);
      tsl_chunk_index_add (self->index, self->trace, self->text_offset - back, line, column,
                           self->index_state->data, self->index_state->len,
                           self->index_point->data, self->index_point->len);
      /* The index may have doubled its stride. */
      if (self->inflate != NULL)
        tsl_inflate_record_points (self->inflate, tsl_chunk_index_get_stride (self->index));
    }
}

TslChunkIndex *
tsl_reader_snapshot_index (TslReader *self)
{
  gint64 start = 0, end = 0;

  g_return_val_if_fail (self != NULL, NULL);

  /* Compressed text has no end to stop at until the stream's. */
  if (self->index == NULL || self->format == NULL || self->format->checkpoint == NULL ||
      self->inflate != NULL || self->encoding != ENC_UTF8 || self->skipped_bom ||
      self->bytes_in < self->sniffed_len)
    return NULL;
  tsl_trace_get_span (self->trace, &start, &end);
  return tsl_chunk_index_snapshot (self->index, self->bytes_in, start, end, self->format->name);
}

static gboolean
run_format (TslReader     *self,
            const guint8  *buf,
            gsize          len,
            gboolean       at_eof,
            gssize        *consumed,
            GError       **error)
{
  /* An empty GByteArray has a NULL data pointer; formats do arithmetic on buf. */
  if (buf == NULL)
    buf = (const guint8 *) "";
  tsl_text_position_set_buffer (&self->ctx.pos, buf, len);
  *consumed = self->format->parse (self->state, buf, len, at_eof, error);
  if (*consumed < 0)
    {
      g_assert (error == NULL || *error != NULL);
      return FALSE;
    }
  g_assert ((gsize) *consumed <= len);
  tsl_text_position_advance (&self->ctx.pos, *consumed);
  self->text_offset += *consumed;
  if (self->index != NULL)
    note_checkpoint (self, buf, *consumed, at_eof);
  return TRUE;
}

/* Stage 3: decoded UTF-8 in, records out. */
static gboolean
push_text_now (TslReader     *self,
               const guint8  *data,
               gsize          len,
               gboolean       at_eof,
               GError       **error)
{
  g_autoptr(GByteArray) head = NULL;
  gssize consumed;

  /* Empty transcoded or sniffed buffers have a NULL data pointer. */
  if (data == NULL)
    data = (const guint8 *) "";
  self->bytes_decoded += len;

  if (self->format == NULL)
    {
      if (len > 0)
        g_byte_array_append (self->pending, data, len);
      if (!sniff (self, self->pending->data, self->pending->len, at_eof, error))
        return FALSE;
      if (self->format == NULL)
        return TRUE;
      /* Parse the sniffed head as if it had just arrived. */
      head = g_steal_pointer (&self->pending);
      self->pending = g_byte_array_new ();
      data = head->data;
      len = head->len;
    }

  /* A record split by the previous chunk: complete it in the pending buffer,
   * appending in growing steps, until the format has consumed every held
   * byte; then rewind to the caller's bytes it has not consumed. So only
   * about one record per chunk is copied, and a huge record is still
   * re-scanned only a logarithmic number of times. */
  while (self->pending->len > 0 && len > 0)
    {
      gsize held = self->pending->len;
      gsize take = MIN (len, MAX (held, 4096));
      gsize left;

      /* Across calls too: a big record still incomplete at the last scan is
       * scanned again only once the buffer has doubled, not for each chunk
       * (a 20 MB record fed in 4 KiB chunks took a minute). */
      if (!at_eof && held + len < self->pending_wait)
        {
          g_byte_array_append (self->pending, data, len);
          goto check_size;
        }

      g_byte_array_append (self->pending, data, take);
      data += take;
      len -= take;
      if (!run_format (self, self->pending->data, self->pending->len, at_eof && len == 0,
                       &consumed, error))
        return FALSE;
      self->pending_wait = consumed == 0 && self->pending->len >= SNIFF_BYTES
                           ? self->pending->len * 2 : 0;
      if ((gsize) consumed < held)
        {
          g_byte_array_remove_range (self->pending, 0, consumed);
          continue;
        }
      left = self->pending->len - consumed;
      data -= left;
      len += left;
      g_byte_array_set_size (self->pending, 0);
      if (at_eof && len == left)
        {
          /* The at_eof call above consumed everything already. */
          g_assert (left == 0);
          return TRUE;
        }
    }

  /* Nothing held back: parse the caller's bytes in place. */
  if (self->pending->len == 0 && (len > 0 || at_eof))
    {
      if (!run_format (self, data, len, at_eof, &consumed, error))
        return FALSE;
      data += consumed;
      len -= consumed;
      if (len > 0)
        g_byte_array_append (self->pending, data, len);
      goto check_size;
    }

  /* Only at the end, with bytes still held. */
  if (at_eof)
    {
      if (!run_format (self, self->pending->data, self->pending->len, TRUE, &consumed, error))
        return FALSE;
      g_byte_array_set_size (self->pending, 0);
    }

check_size:
  if (self->pending->len > self->max_record)
    {
      g_autofree char *position = tsl_reader_context_position (&self->ctx, 0);

      g_set_error (error, TSL_READER_ERROR, TSL_READER_ERROR_TOO_LARGE,
                   _("%s: a single record is larger than %llu MiB"),
                   position, (unsigned long long) (self->max_record / (1024 * 1024)));
      return FALSE;
    }

  return TRUE;
}

/* Hands `n` NULs to the format, as if they had just arrived. */
static gboolean
release_nuls (TslReader  *self,
              guint64     n,
              GError    **error)
{
  static const guint8 zeros[4096];

  while (n > 0)
    {
      gsize take = MIN (n, sizeof zeros);

      if (!push_text_now (self, zeros, take, FALSE, error))
        return FALSE;
      n -= take;
    }
  return TRUE;
}

/* NULs at the end of the input (preallocated or crashed writers pad files
 * with them) are counted, not held or parsed: ignored with a warning at the
 * end, or handed on when text follows them. */
static gboolean
push_text (TslReader     *self,
           const guint8  *data,
           gsize          len,
           gboolean       at_eof,
           GError       **error)
{
  gsize run = 0;

  /* In a binary format a NUL is data like any other byte. */
  if (self->format != NULL && self->format->binary)
    {
      guint64 held = self->nul_run;

      self->nul_run = 0;
      return release_nuls (self, held, error) && push_text_now (self, data, len, at_eof, error);
    }

  if (len == 0 && !at_eof)
    return push_text_now (self, data, 0, FALSE, error);

  while (run < len && data[len - 1 - run] == 0)
    run++;
  if (run < len)
    {
      guint64 held = self->nul_run;

      self->nul_run = 0;
      if (!release_nuls (self, held, error) ||
          !push_text_now (self, data, len - run, FALSE, error))
        return FALSE;
    }
  self->nul_run += run;
  if (!at_eof)
    return TRUE;

  /* Only NULs: the sniffer must see some to call them binary. */
  if (self->format == NULL && self->pending->len == 0 && self->nul_run > 0)
    {
      guint64 some = MIN (self->nul_run, TSL_TEXT_GUESS_BYTES);

      self->nul_run = 0;
      if (!release_nuls (self, some, error))
        return FALSE;
    }
  if (!push_text_now (self, NULL, 0, TRUE, error))
    return FALSE;
  if (self->nul_run > 0)
    {
      g_autofree char *position = tsl_reader_context_position (&self->ctx, 0);

      tsl_trace_add_warning (self->trace, _("%s: %llu NUL bytes at the end of the input were ignored"),
                             position, (unsigned long long) self->nul_run);
      self->nul_run = 0;
    }
  return TRUE;
}

static void
append_utf8 (GByteArray *out,
             gunichar    c)
{
  guint8 tmp[6];
  int n = g_unichar_to_utf8 (c, (char *) tmp);

  g_byte_array_append (out, tmp, n);
}

/* UTF-16 → UTF-8 by hand: chunk boundaries may split a code unit (carried as
 * one byte) or a surrogate pair (the high half is carried). */
static void
transcode_utf16 (TslReader    *self,
                 const guint8 *data,
                 gsize         len)
{
  GByteArray *out = self->transcoded;
  gboolean be = self->encoding == ENC_UTF16BE;
  gsize i = 0;

  g_byte_array_set_size (out, 0);

  while (i < len)
    {
      guint8 b0, b1;
      gunichar2 u;

      if (self->has_utf16_carry)
        {
          b0 = self->utf16_carry;
          b1 = data[i++];
          self->has_utf16_carry = FALSE;
        }
      else if (i + 1 < len)
        {
          b0 = data[i];
          b1 = data[i + 1];
          i += 2;
        }
      else
        {
          self->utf16_carry = data[i++];
          self->has_utf16_carry = TRUE;
          break;
        }

      u = be ? (gunichar2) (b0 << 8 | b1) : (gunichar2) (b1 << 8 | b0);

      if (self->high_surrogate != 0)
        {
          gunichar2 hi = self->high_surrogate;

          self->high_surrogate = 0;
          if (u >= 0xDC00 && u <= 0xDFFF)
            {
              append_utf8 (out, 0x10000 + (((gunichar) hi - 0xD800) << 10) + (u - 0xDC00));
              continue;
            }
          append_utf8 (out, 0xFFFD);
        }

      if (u >= 0xD800 && u <= 0xDBFF)
        self->high_surrogate = u;
      else if (u >= 0xDC00 && u <= 0xDFFF)
        append_utf8 (out, 0xFFFD);
      else
        append_utf8 (out, u);
    }
}

static gboolean
push_known_encoding (TslReader     *self,
                     const guint8  *data,
                     gsize          len,
                     gboolean       at_eof,
                     GError       **error)
{
  if (self->encoding == ENC_UTF8)
    return push_text (self, data, len, at_eof, error);

  transcode_utf16 (self, data, len);
  if (at_eof && (self->has_utf16_carry || self->high_surrogate != 0))
    {
      tsl_trace_add_warning (self->trace, _("%s: the UTF-16 text ends in the middle of a character"),
                             self->name);
      self->has_utf16_carry = FALSE;
      self->high_surrogate = 0;
    }
  return push_text (self, self->transcoded->data, self->transcoded->len, at_eof, error);
}

/* Stage 2: bytes after gzip in, UTF-8 out. */
static gboolean
push_decoded (TslReader     *self,
              const guint8  *data,
              gsize          len,
              gboolean       at_eof,
              GError       **error)
{
  if (self->encoding == ENC_UNKNOWN)
    {
      const guint8 *h = self->enc_head;
      guint n = MIN (len, ENC_HEAD_BYTES - self->n_enc_head);
      guint skip = 0;
      gboolean guessed = FALSE;
      TslTextGuess guess;

      if (n > 0)
        memcpy (self->enc_head + self->n_enc_head, data, n);
      self->n_enc_head += n;
      data += n;
      len -= n;

      /* A growing file that paused (follow mode) is judged on what it has. */
      if (self->n_enc_head < ENC_HEAD_BYTES && !at_eof &&
          !(self->settled && self->n_enc_head >= 3))
        return TRUE;

      self->encoding = ENC_UTF8;
      if (self->n_enc_head >= 3 && h[0] == 0xEF && h[1] == 0xBB && h[2] == 0xBF)
        {
          skip = 3;
          self->skipped_bom = TRUE;
        }
      else if (self->n_enc_head >= 2 && h[0] == 0xFF && h[1] == 0xFE)
        self->encoding = ENC_UTF16LE;
      else if (self->n_enc_head >= 2 && h[0] == 0xFE && h[1] == 0xFF)
        self->encoding = ENC_UTF16BE;
      else if ((guess = tsl_text_guess_utf16 (h, self->n_enc_head)) != TSL_TEXT_GUESS_TEXT)
        {
          guessed = TRUE;
          self->encoding = guess == TSL_TEXT_GUESS_UTF16LE ? ENC_UTF16LE : ENC_UTF16BE;
          tsl_trace_add_warning (self->trace, self->encoding == ENC_UTF16LE
                                 ? _("%s: UTF-16LE text without a byte order mark; read as such")
                                 : _("%s: UTF-16BE text without a byte order mark; read as such"),
                                 self->name);
        }
      if (self->encoding != ENC_UTF8 && !guessed)
        skip = 2;

      /* Replay the held head bytes, minus the BOM, before the rest. */
      if (!push_known_encoding (self, h + skip, self->n_enc_head - skip, at_eof && len == 0, error))
        return FALSE;
      if (len == 0)
        return TRUE;
    }

  return push_known_encoding (self, data, len, at_eof, error);
}

/* Stage 1's output: what a range read does not want is dropped here. */
static gboolean
inflated (gpointer      user_data,
          const guint8 *out,
          gsize         len,
          GError      **error)
{
  TslReader *self = user_data;
  guint64 at = tsl_inflate_get_out (self->inflate) - len;

  if (at < self->skip_to)
    {
      gsize drop = MIN (len, self->skip_to - at);

      out += drop;
      len -= drop;
      at += drop;
    }
  if (at + len > self->text_end)
    {
      len = at < self->text_end ? self->text_end - at : 0;
      self->at_text_end = TRUE;
    }
  if (len > 0 && !push_decoded (self, out, len, FALSE, error))
    return FALSE;
  /* Stops the decompressor: the rest is not wanted. */
  return !self->at_text_end;
}

/* Stage 1: raw bytes in. */
static gboolean
push_raw (TslReader     *self,
          const guint8  *data,
          gsize          len,
          GError       **error)
{
  g_autofree char *message = NULL;
  g_autoptr(GError) local_error = NULL;
  TslInflateStatus status;
  gboolean ok;

  if (self->inflate == NULL)
    return push_decoded (self, data, len, FALSE, error);
  if (self->at_text_end)
    return TRUE;

  status = tsl_inflate_push (self->inflate, data, len, inflated, self, &ok, &message, &local_error);
  if (!ok)
    {
      if (local_error == NULL && self->at_text_end)
        return TRUE;
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }
  if (status == TSL_INFLATE_DAMAGED)
    tsl_trace_add_warning (self->trace, "%s: the zstd data is damaged after %" G_GUINT64_FORMAT
                           " decompressed bytes (%s); what came before was read",
                           self->name, self->bytes_decoded, message);
  else if (status == TSL_INFLATE_INVALID)
    {
      /* Where the damage is, as a position in the text decoded so far. */
      g_set_error (error, TSL_READER_ERROR, TSL_READER_ERROR_SYNTAX,
                   _("%s:%llu:%llu: invalid gzip data: %s"),
                   self->name, (unsigned long long) self->ctx.pos.line,
                   (unsigned long long) self->ctx.pos.column, message);
      return FALSE;
    }
  return TRUE;
}

/* gzip: 1f 8b; zstd: 28 b5 2f fd. Then the held bytes go through. */
static gboolean
check_magic (TslReader  *self,
             GError    **error)
{
  static const guint8 zstd_magic[4] = { 0x28, 0xb5, 0x2f, 0xfd };

  self->magic_checked = TRUE;
  if (self->n_magic >= 2 && self->magic[0] == 0x1f && self->magic[1] == 0x8b)
    self->inflate = tsl_inflate_new (TSL_INFLATE_GZIP);
  else if (self->n_magic == 4 && memcmp (self->magic, zstd_magic, 4) == 0)
    self->inflate = tsl_inflate_new (TSL_INFLATE_ZSTD);
  if (self->inflate != NULL && self->index != NULL)
    tsl_inflate_record_points (self->inflate, tsl_chunk_index_get_stride (self->index));
  return push_raw (self, self->magic, self->n_magic, error);
}

gboolean
tsl_reader_feed (TslReader     *self,
                 const guint8  *data,
                 gsize          len,
                 GError       **error)
{
  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (data != NULL || len == 0, FALSE);
  g_return_val_if_fail (!self->finished, FALSE);

  if (self->failed)
    {
      g_set_error (error, TSL_READER_ERROR, TSL_READER_ERROR_SYNTAX,
                   _("%s: the reader already failed"), self->name);
      return FALSE;
    }

  self->bytes_in += len;

  if (!self->magic_checked)
    {
      guint n = MIN (len, sizeof self->magic - self->n_magic);

      memcpy (self->magic + self->n_magic, data, n);
      self->n_magic += n;
      data += n;
      len -= n;
      if (self->n_magic < sizeof self->magic)
        return TRUE;

      if (!check_magic (self, error))
        goto failed;
    }

  /* A format sees a checkpoint only after a parse() call: an index with
   * chunks smaller than a feed (tests) is fed a chunk at a time. */
  while (len > 0)
    {
      gsize piece = len;

      if (self->index != NULL && tsl_chunk_index_is_valid (self->index))
        piece = MIN (len, MAX (tsl_chunk_index_get_stride (self->index), 4096));
      if (!push_raw (self, data, piece, error))
        goto failed;
      data += piece;
      len -= piece;
    }

  return TRUE;

failed:
  self->failed = TRUE;
  return FALSE;
}

gboolean
tsl_reader_settle (TslReader  *self,
                   GError    **error)
{
  g_return_val_if_fail (self != NULL, FALSE);

  if (self->settled)
    return TRUE;
  self->settled = TRUE;

  /* A short head that no format was sure of is sniffed now, as at the end. */
  if (self->encoding == ENC_UNKNOWN)
    return push_decoded (self, (const guint8 *) "", 0, FALSE, error);
  return push_text (self, NULL, 0, FALSE, error);
}

void
tsl_reader_context_set_nothing_to_show (TslReaderContext  *ctx,
                                        GError           **error,
                                        gsize              offset)
{
  TslReader *self = ctx->reader;
  g_autoptr(GString) reasons = NULL;
  g_autofree char *position = NULL;
  g_auto(GStrv) warnings = NULL;
  gsize prefix = strlen (self->name) + 2;
  guint shown = 0;

  reasons = g_string_new (NULL);
  warnings = tsl_trace_dup_warnings (self->trace);
  for (guint i = 0; warnings[i] != NULL && shown < 3; i++)
    {
      const char *w = warnings[i];

      /* Said once, at the front of the message. */
      if (g_str_has_prefix (w, self->name) && g_str_has_prefix (w + prefix - 2, ": "))
        w += prefix;
      g_string_append_printf (reasons, "%s%s", shown++ > 0 ? "; " : "", w);
    }
  position = tsl_reader_context_position (ctx, offset);
  g_set_error (error, TSL_READER_ERROR, TSL_READER_ERROR_EMPTY,
               _("%s: nothing to show: %s"), position,
               shown > 0 ? reasons->str : _("the file holds no events"));
}

/* A file that was read but holds no event is an error, not an empty
 * window. (Tracks are not asked for: a Chrome trace of metadata and
 * object snapshots is a trace.) */
static gboolean
check_something_to_show (TslReader  *self,
                         GError    **error)
{
  if (tsl_trace_get_events (self->trace) > 0)
    return TRUE;
  tsl_reader_context_set_nothing_to_show (&self->ctx, error, 0);
  return FALSE;
}

gboolean
tsl_reader_finish (TslReader  *self,
                   GError    **error)
{
  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (!self->finished, FALSE);

  self->finished = TRUE;

  if (self->failed)
    {
      g_set_error (error, TSL_READER_ERROR, TSL_READER_ERROR_SYNTAX,
                   _("%s: the reader already failed"), self->name);
      return FALSE;
    }

  /* A few bytes that never became a magic number. */
  if (!self->magic_checked && self->n_magic > 0 && !check_magic (self, error))
    return FALSE;

  if (self->inflate != NULL && tsl_inflate_get_kind (self->inflate) == TSL_INFLATE_ZSTD &&
      !tsl_inflate_is_complete (self->inflate))
    tsl_trace_add_warning (self->trace, "%s: the zstd data is truncated; what it held was read",
                           self->name);

  if (self->inflate != NULL && tsl_inflate_get_kind (self->inflate) == TSL_INFLATE_GZIP &&
      !tsl_inflate_is_complete (self->inflate))
    tsl_trace_add_warning (self->trace, _("%s: the gzip data is truncated; what it held was read"),
                           self->name);
  if (self->inflate != NULL && tsl_inflate_had_trailing_garbage (self->inflate))
    tsl_trace_add_warning (self->trace, _("%s: bytes after the end of the gzip data were ignored"),
                           self->name);

  /* An empty buffer, not NULL: the stages and formats do pointer arithmetic
   * on it, which is undefined on NULL even for an offset of 0. */
  if (!push_decoded (self, (const guint8 *) "", 0, TRUE, error))
    return FALSE;

  /* sniff() at the end either picked a format or failed. */
  g_assert (self->format != NULL);

  if (self->index != NULL)
    {
      gint64 start = 0, end = 0;

      /* Offsets are in the text: a compressed file's is longer. */
      tsl_chunk_index_close (self->index, self->trace,
                             self->inflate != NULL ? tsl_inflate_get_out (self->inflate) : self->bytes_in);
      tsl_chunk_index_set_compressed (self->index, self->inflate != NULL);
      tsl_trace_get_span (self->trace, &start, &end);
      tsl_chunk_index_set_span (self->index, start, end);
      tsl_chunk_index_set_format (self->index, self->format->name);
    }

  return check_something_to_show (self, error);
}
