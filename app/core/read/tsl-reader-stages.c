/* tsl-reader-stages.c: the byte stages between the input and a format
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Stage 1 decompresses gzip or zstd (by their magic at the start; members
 * or frames may be concatenated), dropping what a range read does not
 * want; stage 2 decodes the text (UTF-8 BOM stripped, UTF-16 with a BOM or
 * whose first 64 bytes are every other one NUL transcoded); stage 3 holds
 * the head for the sniffer, then hands decoded bytes straight to the
 * format, copying only a record split by a chunk boundary.
 */
#define G_LOG_DOMAIN "tsl-reader"

#include "config.h"

#include <string.h>
#include <glib/gi18n-lib.h>

#include "tsl-reader-private.h"
#include "tsl-text-guess.h"

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
  /* A binary format's positions are bytes: its input has no lines to count. */
  if (self->format->binary)
    tsl_text_position_advance_bytes (&self->ctx.pos, *consumed);
  else
    tsl_text_position_advance (&self->ctx.pos, *consumed);
  self->text_offset += *consumed;
  if (self->index != NULL)
    _tsl_reader_note_checkpoint (self, buf, *consumed, at_eof);
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
      if (!_tsl_reader_sniff (self, self->pending->data, self->pending->len, at_eof, error))
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
gboolean
_tsl_reader_push_text (TslReader     *self,
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
    return _tsl_reader_push_text (self, data, len, at_eof, error);

  transcode_utf16 (self, data, len);
  if (at_eof && (self->has_utf16_carry || self->high_surrogate != 0))
    {
      tsl_trace_add_warning (self->trace, _("%s: the UTF-16 text ends in the middle of a character"),
                             self->name);
      self->has_utf16_carry = FALSE;
      self->high_surrogate = 0;
    }
  return _tsl_reader_push_text (self, self->transcoded->data, self->transcoded->len, at_eof, error);
}

/* Stage 2: bytes after gzip in, UTF-8 out. */
gboolean
_tsl_reader_push_decoded (TslReader     *self,
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

/* Stage 1's output, on the reading thread in order whichever thread
 * decompressed it: the access point it ends at is noted before its bytes
 * go on (as the checkpoint after their parse call may follow it), and
 * what a range read does not want is dropped. */
static gboolean
inflated (gpointer               user_data,
          const guint8          *out,
          gsize                  len,
          const TslInflatePoint *point,
          GError               **error)
{
  TslReader *self = user_data;
  guint64 at = self->inflated_out;

  self->inflated_out += len;
  if (point != NULL && self->point_stride > 0 && point->out >= self->last_point + self->point_stride)
    {
      if (self->point == NULL)
        self->point = g_new (TslInflatePoint, 1);
      memcpy (self->point, point, G_STRUCT_OFFSET (TslInflatePoint, window) + point->window_len);
      self->has_point = TRUE;
      self->last_point = point->out;
    }
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
  if (len > 0 && !_tsl_reader_push_decoded (self, out, len, FALSE, error))
    return FALSE;
  /* Stops the decompressor: the rest is not wanted. */
  return !self->at_text_end;
}

/* Damage the decompressor found, once what came before it was read. */
static gboolean
inflate_failed (TslReader         *self,
                TslInflateStatus   status,
                const char        *message,
                GError           **error)
{
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

/* Takes the decompression thread's buffers until at most `queued` inputs
 * are still being decompressed and none is ready; while none is, the
 * caller's idle work (reading the next feed) comes first. With `queued`,
 * it also returns as soon as the thread has taken every input, for the
 * caller to push the next: the thread (the faster side) would otherwise
 * starve at every feed's end while the parser takes the ring, and the
 * parser then wait for the next feed's first buffer. */
static gboolean
take_ahead (TslReader  *self,
            guint       queued,
            GError    **error)
{
  for (;;)
    {
      const TslInflateAheadOut *out;
      gboolean ok, end;

      if (queued > 0 && tsl_inflate_ahead_wants_input (self->ahead))
        return TRUE;
      out = tsl_inflate_ahead_next (self->ahead, queued, FALSE);
      if (out == NULL)
        {
          if (self->idle != NULL && self->idle (self->idle_data))
            continue;
          out = tsl_inflate_ahead_next (self->ahead, queued, TRUE);
          if (out == NULL)
            return TRUE;
        }
      ok = (out->len == 0 && out->point == NULL) ||
           inflated (self, out->data, out->len, out->point, error);
      if (ok && out->status != TSL_INFLATE_OK)
        ok = inflate_failed (self, out->status, out->message, error);
      end = out->end;
      tsl_inflate_ahead_release (self->ahead);
      if (!ok || end)
        return ok;
    }
}

void
_tsl_reader_stop_ahead (TslReader *self)
{
  if (self->ahead == NULL)
    return;
  self->ahead_waits = tsl_inflate_ahead_get_full_waits (self->ahead);
  self->ahead_input_waits = tsl_inflate_ahead_get_input_waits (self->ahead);
  g_clear_pointer (&self->ahead, tsl_inflate_ahead_free);
}

gboolean
_tsl_reader_drain_ahead (TslReader  *self,
                         GError    **error)
{
  return self->ahead == NULL || take_ahead (self, 0, error);
}

/* Stage 1: raw bytes in. */
gboolean
_tsl_reader_push_raw (TslReader     *self,
                      const guint8  *data,
                      gsize          len,
                      GError       **error)
{
  g_autofree char *message = NULL;
  g_autoptr(GError) local_error = NULL;
  TslInflateStatus status;
  gboolean ok;

  if (self->inflate == NULL)
    return _tsl_reader_push_decoded (self, data, len, FALSE, error);
  if (self->at_text_end)
    return TRUE;

  /* On the thread: this input is decompressed while the caller reads the
   * next, and the parser takes what was decompressed of the inputs
   * before. */
  if (self->ahead != NULL)
    {
      tsl_inflate_ahead_push (self->ahead, data, len);
      return take_ahead (self, 1, error);
    }

  status = tsl_inflate_push (self->inflate, data, len, inflated, self, &ok, &message, &local_error);
  if (!ok)
    {
      if (local_error == NULL && self->at_text_end)
        return TRUE;
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }
  return inflate_failed (self, status, message, error);
}

/* gzip: 1f 8b; zstd: 28 b5 2f fd. Then the held bytes go through. */
gboolean
_tsl_reader_check_magic (TslReader  *self,
                         GError    **error)
{
  static const guint8 zstd_magic[4] = { 0x28, 0xb5, 0x2f, 0xfd };

  self->magic_checked = TRUE;
  if (self->n_magic >= 2 && self->magic[0] == 0x1f && self->magic[1] == 0x8b)
    self->inflate = tsl_inflate_new (TSL_INFLATE_GZIP);
  else if (self->n_magic == 4 && memcmp (self->magic, zstd_magic, 4) == 0)
    self->inflate = tsl_inflate_new (TSL_INFLATE_ZSTD);
  /* Points at the index's first stride; the checkpoints take those a
   * stride apart if it grows (so both threads' points are the same). */
  if (self->inflate != NULL && self->index != NULL)
    {
      self->point_stride = tsl_chunk_index_get_stride (self->index);
      tsl_inflate_record_points (self->inflate, self->point_stride);
    }
  if (self->inflate != NULL && self->ahead_allowed && self->threads != TSL_READER_THREADS_NEVER &&
      self->n_threads > 1)
    {
      self->ahead = tsl_inflate_ahead_new (self->inflate);
      self->ahead_used = TRUE;
    }
  return _tsl_reader_push_raw (self, self->magic, self->n_magic, error);
}
