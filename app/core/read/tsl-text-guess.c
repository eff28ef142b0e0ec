/* tsl-text-guess.c: UTF-16 without a byte order mark, and binary data
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Random bytes are about 11 % control bytes and 40 % bytes of broken UTF-8
 * sequences; the damaged text files we read (a NUL in a name, one invalid
 * character) stay far below a quarter, and text in a legacy 8-bit encoding
 * has no control bytes. ASCII text in UTF-16 has a NUL in
 * (nearly) every other byte, on the odd offsets for little endian.
 */
#define G_LOG_DOMAIN "tsl-reader"

#include "config.h"

#include "tsl-text-guess.h"

TslTextGuess
tsl_text_guess_utf16 (const guint8 *head,
                      gsize         len)
{
  gsize n = MIN (len, TSL_TEXT_GUESS_BYTES) & ~(gsize) 1;
  gsize pairs = n / 2;
  gsize even = 0, odd = 0;

  if (pairs < 2)
    return TSL_TEXT_GUESS_TEXT;

  for (gsize i = 0; i < n; i += 2)
    {
      even += head[i] == 0;
      odd += head[i + 1] == 0;
    }
  /* Mostly ASCII in one byte order: NULs in at least 3 of 4 high bytes,
   * hardly any in the low ones. */
  if (odd * 4 >= pairs * 3 && even * 10 <= pairs)
    return TSL_TEXT_GUESS_UTF16LE;
  if (even * 4 >= pairs * 3 && odd * 10 <= pairs)
    return TSL_TEXT_GUESS_UTF16BE;
  return TSL_TEXT_GUESS_TEXT;
}

/* The length of the valid UTF-8 sequence at p, 0 if there is none. A
 * sequence cut by the end of the head counts as valid. */
static gsize
utf8_sequence (const guint8 *p,
               gsize         len)
{
  guint need;

  if (p[0] < 0x80)
    return 1;
  if (p[0] >= 0xC2 && p[0] <= 0xDF)
    need = 1;
  else if (p[0] >= 0xE0 && p[0] <= 0xEF)
    need = 2;
  else if (p[0] >= 0xF0 && p[0] <= 0xF4)
    need = 3;
  else
    return 0;
  for (guint i = 1; i <= need; i++)
    {
      if (i >= len)
        return len;
      if ((p[i] & 0xC0) != 0x80)
        return 0;
    }
  return need + 1;
}

gboolean
tsl_text_looks_binary (const guint8 *head,
                       gsize         len)
{
  gsize n = MIN (len, TSL_TEXT_GUESS_BYTES);
  gsize control = 0;
  gsize broken = 0;

  for (gsize i = 0; i < n;)
    {
      guint8 c = head[i];
      gsize seq;

      if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f') || c == 0x7F)
        {
          control++;
          i++;
          continue;
        }
      seq = utf8_sequence (head + i, n - i);
      if (seq == 0)
        {
          broken++;
          seq = 1;
        }
      i += seq;
    }
  /* Some control bytes too: text in a legacy 8-bit encoding (every letter
   * broken UTF-8, but no control bytes) is read, with U+FFFD. */
  return n > 0 && control * 50 >= n && (control + broken) * 4 >= n;
}
