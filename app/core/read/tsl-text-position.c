/* tsl-text-position.c: line and column of a byte in a stream of buffers
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "tsl-reader"

#define _GNU_SOURCE   /* memrchr */

#include "config.h"

#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "tsl-text-position.h"

/* Newlines counted per tsl_text_position_count_ahead() */
#define COUNT_AHEAD_BYTES (64 * 1024)

/* The '\n's in [p, p + n) and the last of them. Every byte a reader
 * consumes passes through here once, on the reading thread while the
 * other one may wait: a memchr() per line cost 4% of a Chrome ingest, a
 * count sixteen bytes at a time a quarter of that. */
static guint64
count_newlines (const guint8  *p,
                gsize          n,
                const guint8 **last)
{
  const guint8 *end = p + n;
  guint64 count = 0;

#ifdef __SSE2__
  const __m128i nl = _mm_set1_epi8 ('\n');

  /* Byte counters: each compare adds 0 or -1; summed every 255 rounds. */
  while (end - p >= 16)
    {
      __m128i acc = _mm_setzero_si128 ();
      gsize rounds = MIN ((gsize) (end - p) / 16, 255);

      for (gsize i = 0; i < rounds; i++, p += 16)
        acc = _mm_sub_epi8 (acc, _mm_cmpeq_epi8 (_mm_loadu_si128 ((const __m128i *) p), nl));
      acc = _mm_sad_epu8 (acc, _mm_setzero_si128 ());
      count += (guint64) _mm_cvtsi128_si32 (acc) + (guint64) _mm_extract_epi16 (acc, 4);
    }
#endif
  for (; p < end; p++)
    count += *p == '\n';
  *last = count > 0 ? memrchr (end - n, '\n', n) : NULL;
  return count;
}

void
tsl_text_position_init (TslTextPosition *self)
{
  memset (self, 0, sizeof *self);
  self->line = 1;
  self->column = 1;
  self->memo_offset = G_MAXSIZE;
}

void
tsl_text_position_jump (TslTextPosition *self,
                        guint64          line,
                        guint64          column)
{
  tsl_text_position_init (self);
  self->line = line;
  self->column = column;
}

void
tsl_text_position_set_buffer (TslTextPosition *self,
                              const guint8    *buf,
                              gsize            len)
{
  self->buf = buf;
  self->len = len;
  self->buf_column = self->column;
  self->consumed = 0;
  self->counted = 0;
  self->counted_lines = 0;
  self->memo_offset = G_MAXSIZE;
}

void
tsl_text_position_locate (TslTextPosition *self,
                          gsize            offset,
                          guint64         *line,
                          guint64         *column)
{
  const guint8 *p;
  const guint8 *end = self->buf + offset;
  guint64 l, c;

  if (self->memo_offset <= offset && self->memo_offset != G_MAXSIZE)
    {
      p = self->buf + self->memo_offset;
      l = self->memo_line;
      c = self->memo_column;
    }
  else
    {
      p = self->buf;
      l = self->line;
      c = self->column;
    }

  if (p < end)
    {
      const guint8 *last = NULL;
      guint64 lines = count_newlines (p, end - p, &last);

      if (lines > 0)
        {
          l += lines;
          c = 1;
          p = last + 1;
        }
    }
  c += end - p;

  self->memo_offset = offset;
  self->memo_line = l;
  self->memo_column = c;
  *line = l;
  *column = c;
}

gboolean
tsl_text_position_count_ahead (TslTextPosition *self)
{
  const guint8 *last;
  gsize n;
  guint64 lines;

  if (self->counted >= self->len)
    return FALSE;
  n = MIN (self->len - self->counted, COUNT_AHEAD_BYTES);
  lines = count_newlines (self->buf + self->counted, n, &last);
  if (lines > 0)
    {
      self->counted_lines += lines;
      self->counted_line_start = last + 1 - self->buf;
    }
  self->counted += n;
  return TRUE;
}

void
tsl_text_position_advance (TslTextPosition *self,
                           gsize            consumed)
{
  const guint8 *buf = self->buf;
  const guint8 *last = NULL;
  guint64 lines;
  gsize line_start = 0;

  /* Whatever was counted ahead, then the rest; or, when that went past
   * what was consumed (the start of an unfinished record), less that. */
  if (self->counted <= consumed)
    {
      lines = self->counted_lines + count_newlines (buf + self->counted, consumed - self->counted, &last);
      if (last != NULL)
        line_start = last + 1 - buf;
      else if (self->counted_lines > 0)
        line_start = self->counted_line_start;
    }
  else
    {
      lines = self->counted_lines - count_newlines (buf + consumed, self->counted - consumed, &last);
      if (lines > 0)
        line_start = (const guint8 *) memrchr (buf, '\n', consumed) + 1 - buf;
    }

  if (lines > 0)
    {
      self->line += lines;
      self->column = 1 + (consumed - line_start);
    }
  else
    self->column += consumed;
  self->consumed = consumed;
}

void
tsl_text_position_advance_bytes (TslTextPosition *self,
                                 gsize            consumed)
{
  self->column += consumed;
  self->consumed = consumed;
}

void
tsl_text_position_locate_back (TslTextPosition *self,
                               gsize            back,
                               guint64         *line,
                               guint64         *column)
{
  const guint8 *at = self->buf + self->consumed - back;
  const guint8 *end = self->buf + self->consumed;
  const guint8 *nl;
  guint64 k = 0;

  g_return_if_fail (back <= self->consumed);

  for (const guint8 *p = at; (p = memchr (p, '\n', end - p)) != NULL; p++)
    k++;
  *line = self->line - k;
  if (k == 0)
    {
      *column = self->column - back;
      return;
    }
  nl = at > self->buf ? memrchr (self->buf, '\n', at - self->buf) : NULL;
  *column = nl != NULL ? (guint64) (at - nl) : self->buf_column + (at - self->buf);
}
