/* tsl-json-scan.h: a small non-allocating JSON tokenizer for the hot path
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The JSON readers scan each event object once, pick out the few members they
 * route on and skip everything else without building a DOM. Values are
 * slices of the caller's buffer. Nested values are skipped with a depth
 * counter, never by recursion, so hostile nesting cannot exhaust the stack.
 * Every scan stops with TSL_JSON_INCOMPLETE at the end of the buffer, so the
 * caller can wait for more bytes and rescan.
 */
#pragma once

#include <string.h>

#include <glib.h>

/* x86-64's baseline has SSE2: the scanners look at 16 bytes a step there.
 * Elsewhere they fall back to eight-byte words or bytes. */
#ifdef __SSE2__
#include <emmintrin.h>
#endif

G_BEGIN_DECLS

typedef enum {
  TSL_JSON_NONE = 0,   /* member absent */
  TSL_JSON_STRING,     /* p/len: the contents, without the quotes */
  TSL_JSON_NUMBER,
  TSL_JSON_OBJECT,     /* p/len: the whole value, braces included */
  TSL_JSON_ARRAY,
  TSL_JSON_TRUE,
  TSL_JSON_FALSE,
  TSL_JSON_NULL,
  TSL_JSON_BAREWORD,   /* NaN, Infinity and other non-JSON words */
} TslJsonType;

/* 16 bytes: a Chrome event holds 13 of these, and the two-thread reader
 * queues events by value. A value is never longer than a record, and
 * records are capped far below 4 GiB (TslReader's max_record). */
typedef struct {
  const char *p;
  guint32     len;
  guint8      type;
  guint8      escaped;  /* a string containing a backslash */
} TslJsonValue;

typedef enum {
  TSL_JSON_OK,
  TSL_JSON_DONE,        /* iterators: the closing bracket was reached */
  TSL_JSON_INCOMPLETE,  /* the buffer ended first */
  TSL_JSON_ERROR,
} TslJsonStatus;

/* Where and what: "expected ..." messages for the caller's GError, marked
 * with N_() and translated where they are shown. */
typedef struct {
  const char *pos;
  const char *message;
} TslJsonError;

/* Iterates the members of an object or the elements of an array. */
typedef struct {
  const char *p;
  const char *end;
  gboolean    first;
} TslJsonIter;

/* Most calls meet no whitespace or one space: one comparison rules out
 * every byte above ' '. */
static inline const char *
tsl_json_skip_ws (const char *p,
                  const char *end)
{
  while (p < end && (guchar) *p <= ' ' &&
         (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
    p++;
  return p;
}

/* p is at an opening quote. One pass finds the closing quote and notes
 * escapes; a backslash always skips the byte after it. */
static inline TslJsonStatus
tsl_json_scan_string (const char    *p,
                      const char    *end,
                      TslJsonValue  *value,
                      const char   **after)
{
  const char *q = p + 1;
  guint8 escaped = 0;

#if defined (__SSE2__)
  /* Sixteen bytes at a time up to the first quote or backslash. */
  while (end - q >= 16)
    {
      __m128i v = _mm_loadu_si128 ((const __m128i *) q);
      int hit = _mm_movemask_epi8 (_mm_or_si128 (_mm_cmpeq_epi8 (v, _mm_set1_epi8 ('"')),
                                                 _mm_cmpeq_epi8 (v, _mm_set1_epi8 ('\\'))));

      if (hit != 0)
        {
          q += __builtin_ctz (hit);
          break;
        }
      q += 16;
    }
#elif G_BYTE_ORDER == G_LITTLE_ENDIAN && defined (__GNUC__)
  /* Eight bytes at a time up to the first quote or backslash. */
  while (end - q >= 8)
    {
      guint64 v, quote, backslash, hit;

      memcpy (&v, q, 8);
      quote = v ^ G_GUINT64_CONSTANT (0x2222222222222222);
      backslash = v ^ G_GUINT64_CONSTANT (0x5c5c5c5c5c5c5c5c);
      hit = ((quote - G_GUINT64_CONSTANT (0x0101010101010101)) & ~quote) |
            ((backslash - G_GUINT64_CONSTANT (0x0101010101010101)) & ~backslash);
      hit &= G_GUINT64_CONSTANT (0x8080808080808080);
      if (hit != 0)
        {
          q += __builtin_ctzll (hit) >> 3;
          break;
        }
      q += 8;
    }
#endif

  for (;;)
    {
      if (G_UNLIKELY (q >= end))
        return TSL_JSON_INCOMPLETE;
      if (*q == '"')
        break;
      if (G_UNLIKELY (*q == '\\'))
        {
          escaped = 1;
          q++;
        }
      q++;
    }
  value->type = TSL_JSON_STRING;
  value->p = p + 1;
  value->len = q - (p + 1);
  value->escaped = escaped;
  *after = q + 1;
  return TSL_JSON_OK;
}

/* Bytes that end a scalar: , } ] : " { [ and JSON whitespace. */
extern const guint8 tsl_json_delimiter[256];

/* The hot case of tsl_json_scan_value(), inline: p at a digit. Same result;
 * FALSE (nothing set) when the generic scan must decide. */
static inline gboolean
tsl_json_scan_number (const char    *p,
                      const char    *end,
                      TslJsonValue  *value,
                      const char   **after)
{
  const char *q = p + 1;

#if defined (__SSE2__)
  /* Digits and '.' sixteen at a time; anything else is settled below. */
  while (end - q >= 16)
    {
      __m128i v = _mm_loadu_si128 ((const __m128i *) q);
      __m128i d = _mm_sub_epi8 (v, _mm_set1_epi8 ('0'));
      __m128i digit = _mm_cmpeq_epi8 (_mm_min_epu8 (d, _mm_set1_epi8 (9)), d);
      int other = ~_mm_movemask_epi8 (_mm_or_si128 (digit, _mm_cmpeq_epi8 (v, _mm_set1_epi8 ('.'))))
                  & 0xffff;

      if (other != 0)
        {
          q += __builtin_ctz (other);
          goto settled;
        }
      q += 16;
    }
#endif
  while (q < end && ((guchar) (*q - '0') < 10 || *q == '.'))
    q++;
#if defined (__SSE2__)
settled:
#endif
  while (q < end && !tsl_json_delimiter[(guchar) *q])
    q++;
  if (q >= end)
    return FALSE;   /* the number may go on in the next buffer */
  value->type = TSL_JSON_NUMBER;
  value->p = p;
  value->len = q - p;
  value->escaped = 0;
  *after = q;
  return TRUE;
}

TslJsonStatus     tsl_json_scan_value           (const char          *p,
                                                 const char          *end,
                                                 TslJsonValue        *value,
                                                 const char         **after,
                                                 TslJsonError        *error);
/* `container` must be an object or array value (or its start in a buffer). */
void              tsl_json_iter_init            (TslJsonIter         *iter,
                                                 const char          *p,
                                                 const char          *end);
TslJsonStatus     tsl_json_iter_next_member     (TslJsonIter         *iter,
                                                 TslJsonValue        *key,
                                                 TslJsonValue        *value,
                                                 TslJsonError        *error);
TslJsonStatus     tsl_json_iter_next_element    (TslJsonIter         *iter,
                                                 TslJsonValue        *value,
                                                 TslJsonError        *error);

static inline gboolean
tsl_json_key_is (const TslJsonValue *key,
                 const char         *literal,
                 gsize               len)
{
  return key->len == len && !key->escaped && memcmp (key->p, literal, len) == 0;
}
#define TSL_JSON_KEY_IS(key, lit) tsl_json_key_is ((key), (lit), sizeof (lit) - 1)

/* The value of member `name` of an object value (the first one). */
gboolean          tsl_json_find_member          (const TslJsonValue  *object,
                                                 const char          *name,
                                                 TslJsonValue        *out);

/* Numbers: exact JSON syntax, or the same inside a string ("123.5"). */
gboolean          tsl_json_parse_double         (const char          *p,
                                                 gsize                len,
                                                 double              *out);
gboolean          tsl_json_value_get_double     (const TslJsonValue  *value,
                                                 double              *out);
gboolean          tsl_json_value_get_int64      (const TslJsonValue  *value,
                                                 gint64              *out);
/* Microseconds (possibly fractional) to integer nanoseconds, rounded. */
gboolean          tsl_json_value_get_us_as_ns   (const TslJsonValue  *value,
                                                 gint64              *out_ns);

/* A string value as valid UTF-8: the buffer itself when it needs no work,
 * else unescaped / repaired into `scratch`. Not NUL-terminated. */
const char       *tsl_json_value_get_string     (const TslJsonValue  *value,
                                                 GString             *scratch,
                                                 gsize               *len);

/* Resumable skipping of one value across buffers (top-level members that are
 * not needed, however large). */
typedef struct {
  guint    depth;
  gboolean started;
  gboolean in_string;
  gboolean escape;
  gboolean scalar;
} TslJsonSkip;

/* Consumes bytes of the value; returns TRUE when it has ended (the byte after
 * it is at *after). With at_eof, a pending scalar ends at `end`. */
gboolean          tsl_json_skip_feed            (TslJsonSkip         *skip,
                                                 const char          *p,
                                                 const char          *end,
                                                 gboolean             at_eof,
                                                 const char         **after);

G_END_DECLS
