/* tsl-text-guess.h: what the first bytes of an input say about its encoding
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Only for the sniffing stage: text without a byte order mark that is
 * UTF-16 (every other byte NUL), and bytes that are not text at all.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* How many leading bytes the guesses look at. */
#define TSL_TEXT_GUESS_BYTES 4096

typedef enum {
  TSL_TEXT_GUESS_TEXT,     /* not UTF-16 (UTF-8 or plain ASCII, maybe damaged) */
  TSL_TEXT_GUESS_UTF16LE,
  TSL_TEXT_GUESS_UTF16BE,
} TslTextGuess;

/* From the first TSL_TEXT_GUESS_BYTES of `head` (the reader gives 64). */
TslTextGuess      tsl_text_guess_utf16          (const guint8 *head,
                                                 gsize         len);
/* Whether the first TSL_TEXT_GUESS_BYTES look like binary data: a quarter
 * or more of them control bytes or bytes of invalid UTF-8 sequences, at
 * least 2 % control bytes. Text with a few NULs or a damaged character, or
 * in Latin-1 or another 8-bit encoding, stays text. */
gboolean          tsl_text_looks_binary         (const guint8 *head,
                                                 gsize         len);

G_END_DECLS
