/* tsl-json-scan.c: a small non-allocating JSON tokenizer for the hot path
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "tsl-json-scan"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "tsl-json-scan.h"
#include "tsl-text-private.h"

/* 1 = quote, 2 = opening bracket, 3 = closing bracket: what the container
 * skipper must look at; every other byte is passed over in a tight loop. */
/* g_ascii_isdigit() is a table lookup: a load per digit on the hottest
 * number paths. */
static inline gboolean
is_digit (char c)
{
  return (guchar) (c - '0') < 10;
}

static const guint8 skip_class[256] = {
  ['"'] = 1, ['{'] = 2, ['['] = 2, ['}'] = 3, [']'] = 3,
};

const guint8 tsl_json_delimiter[256] = {
  [','] = 1, ['}'] = 1, [']'] = 1, [':'] = 1, ['"'] = 1, ['{'] = 1, ['['] = 1,
  [' '] = 1, ['\n'] = 1, ['\r'] = 1, ['\t'] = 1,
};

static inline gboolean
is_delimiter (char c)
{
  return tsl_json_delimiter[(guchar) c];
}

#ifndef __SSE2__
/* Passes over bytes that cannot open or close anything, eight at a time:
 * '[' and ']' are '{' and '}' with bit 5 cleared. */
static inline const char *
skip_plain (const char *q,
            const char *end)
{
#if G_BYTE_ORDER == G_LITTLE_ENDIAN && defined (__GNUC__)
  const guint64 ones = G_GUINT64_CONSTANT (0x0101010101010101);
  const guint64 highs = G_GUINT64_CONSTANT (0x8080808080808080);

  while (end - q >= 8)
    {
      guint64 v, folded, open, close, quote, hit;

      memcpy (&v, q, 8);
      folded = v | G_GUINT64_CONSTANT (0x2020202020202020);
      open = folded ^ G_GUINT64_CONSTANT (0x7b7b7b7b7b7b7b7b);
      close = folded ^ G_GUINT64_CONSTANT (0x7d7d7d7d7d7d7d7d);
      quote = v ^ G_GUINT64_CONSTANT (0x2222222222222222);
      hit = (((open - ones) & ~open) | ((close - ones) & ~close) | ((quote - ones) & ~quote)) & highs;
      if (hit != 0)
        return q + (__builtin_ctzll (hit) >> 3);
      q += 8;
    }
#endif
  return q;
}
#endif

#ifdef __SSE2__
/* The closing bracket of a container whose contents start at q (depth 1),
 * or NULL if the buffer ends first. Byte for byte the same as scanning
 * strings with tsl_json_scan_string() between brackets ('{' and '[' alike),
 * but 16 bytes a step: the quotes' running XOR marks what is inside
 * strings, so only brackets outside them are visited. A block holding a
 * backslash (an escape only inside a string) goes byte by byte. */
static const char *
skip_container (const char *q,
                const char *end)
{
  const __m128i fold = _mm_set1_epi8 (0x20);
  guint depth = 1;
  gboolean in_string = FALSE;
  gboolean escape = FALSE;

  for (;;)
    {
      const char *stop;

      while (!escape && end - q >= 16)
        {
          __m128i v = _mm_loadu_si128 ((const __m128i *) q);
          __m128i f = _mm_or_si128 (v, fold);
          guint quote, open, close, inside, outside;

          if (_mm_movemask_epi8 (_mm_cmpeq_epi8 (v, _mm_set1_epi8 ('\\'))) != 0)
            break;
          quote = _mm_movemask_epi8 (_mm_cmpeq_epi8 (v, _mm_set1_epi8 ('"')));
          open = _mm_movemask_epi8 (_mm_cmpeq_epi8 (f, _mm_set1_epi8 ('{')));
          close = _mm_movemask_epi8 (_mm_cmpeq_epi8 (f, _mm_set1_epi8 ('}')));

          /* Bit i of inside: an odd number of quotes at 0..i, so within a
           * string (its opening quote in, its closing quote out). */
          inside = quote;
          inside ^= inside << 1;
          inside ^= inside << 2;
          inside ^= inside << 4;
          inside ^= inside << 8;
          if (in_string)
            inside = ~inside;
          outside = (open | close) & ~inside & 0xffff;

          for (; outside != 0; outside &= outside - 1)
            {
              int i = __builtin_ctz (outside);

              if (open & (1u << i))
                depth++;
              else if (--depth == 0)
                return q + i;
            }
          in_string = (inside >> 15) & 1;
          q += 16;
        }

      /* Byte by byte through one block (or the tail of the buffer). */
      if (q >= end)
        return NULL;
      stop = q + MIN (16, end - q);
      for (; q < stop || escape; q++)
        {
          char c;

          if (q >= end)
            return NULL;
          c = *q;
          if (in_string)
            {
              if (escape)
                escape = FALSE;
              else if (c == '\\')
                escape = TRUE;
              else if (c == '"')
                in_string = FALSE;
            }
          else if (c == '"')
            in_string = TRUE;
          else if (c == '{' || c == '[')
            depth++;
          else if ((c == '}' || c == ']') && --depth == 0)
            return q;
        }
    }
}
#endif

TslJsonStatus
tsl_json_scan_value (const char    *p,
                     const char    *end,
                     TslJsonValue  *value,
                     const char   **after,
                     TslJsonError  *error)
{
  if (p >= end)
    return TSL_JSON_INCOMPLETE;

  switch (*p)
    {
    case '"':
      return tsl_json_scan_string (p, end, value, after);

    case '{':
    case '[':
#ifdef __SSE2__
      {
        const char *q = skip_container (p + 1, end);

        if (q == NULL)
          return TSL_JSON_INCOMPLETE;
        value->type = *p == '{' ? TSL_JSON_OBJECT : TSL_JSON_ARRAY;
        value->p = p;
        value->len = q + 1 - p;
        value->escaped = FALSE;
        *after = q + 1;
        return TSL_JSON_OK;
      }
#else
      {
        const char *q = p + 1;
        guint depth = 1;

        while (q < end)
          {
            guint8 cls;

            q = skip_plain (q, end);
            while (q < end && (cls = skip_class[(guchar) *q]) == 0)
              q++;
            if (q >= end)
              break;
            if (cls == 1)
              {
                TslJsonValue str;

                if (tsl_json_scan_string (q, end, &str, &q) != TSL_JSON_OK)
                  return TSL_JSON_INCOMPLETE;
                continue;
              }
            else if (cls == 2)
              depth++;
            else if (--depth == 0)
              {
                value->type = *p == '{' ? TSL_JSON_OBJECT : TSL_JSON_ARRAY;
                value->p = p;
                value->len = q + 1 - p;
                value->escaped = FALSE;
                *after = q + 1;
                return TSL_JSON_OK;
              }
            q++;
          }
        return TSL_JSON_INCOMPLETE;
      }
#endif

    case '}': case ']': case ',': case ':':
      error->pos = p;
      error->message = N_("expected a value");
      return TSL_JSON_ERROR;

    default:
      {
        const char *q = p;
        gsize len;

        while (q < end && !is_delimiter (*q))
          q++;
        /* The scalar may go on in the next buffer. */
        if (q >= end)
          return TSL_JSON_INCOMPLETE;
        len = q - p;
        if (len == 0 || (guchar) *p < 0x20)
          {
            error->pos = p;
            error->message = N_("expected a value");
            return TSL_JSON_ERROR;
          }
        value->p = p;
        value->len = len;
        value->escaped = FALSE;
        if (is_digit (*p) || (*p == '-' && len > 1 && is_digit (p[1])))
          value->type = TSL_JSON_NUMBER;
        else if (len == 4 && memcmp (p, "true", 4) == 0)
          value->type = TSL_JSON_TRUE;
        else if (len == 5 && memcmp (p, "false", 5) == 0)
          value->type = TSL_JSON_FALSE;
        else if (len == 4 && memcmp (p, "null", 4) == 0)
          value->type = TSL_JSON_NULL;
        else
          value->type = TSL_JSON_BAREWORD;
        *after = q;
        return TSL_JSON_OK;
      }
    }
}

void
tsl_json_iter_init (TslJsonIter *iter,
                    const char  *p,
                    const char  *end)
{
  iter->p = p;
  iter->end = end;
  iter->first = TRUE;
}

/* Consumes the opening bracket or the separator before the next item;
 * returns OK with *out at the item, or DONE / INCOMPLETE / ERROR. */
static TslJsonStatus
iter_advance (TslJsonIter   *iter,
              char           open,
              char           close,
              const char   **out,
              TslJsonError  *error)
{
  const char *p = tsl_json_skip_ws (iter->p, iter->end);

  if (p >= iter->end)
    return TSL_JSON_INCOMPLETE;
  if (iter->first)
    {
      if (*p != open)
        {
          error->pos = p;
          error->message = open == '{' ? N_("expected '{'") : N_("expected '['");
          return TSL_JSON_ERROR;
        }
      p = tsl_json_skip_ws (p + 1, iter->end);
      if (p >= iter->end)
        return TSL_JSON_INCOMPLETE;
      if (*p == close)
        {
          iter->p = p + 1;
          return TSL_JSON_DONE;
        }
    }
  else
    {
      if (*p == close)
        {
          iter->p = p + 1;
          return TSL_JSON_DONE;
        }
      if (*p != ',')
        {
          error->pos = p;
          error->message = close == '}' ? N_("expected ',' or '}'") : N_("expected ',' or ']'");
          return TSL_JSON_ERROR;
        }
      p = tsl_json_skip_ws (p + 1, iter->end);
      if (p >= iter->end)
        return TSL_JSON_INCOMPLETE;
    }
  *out = p;
  return TSL_JSON_OK;
}

TslJsonStatus
tsl_json_iter_next_member (TslJsonIter  *iter,
                           TslJsonValue *key,
                           TslJsonValue *value,
                           TslJsonError *error)
{
  const char *p = NULL;
  const char *after;
  TslJsonStatus status;

  status = iter_advance (iter, '{', '}', &p, error);
  if (status != TSL_JSON_OK)
    return status;
  if (*p != '"')
    {
      error->pos = p;
      error->message = N_("expected a member name in double quotes");
      return TSL_JSON_ERROR;
    }
  status = tsl_json_scan_value (p, iter->end, key, &after, error);
  if (status != TSL_JSON_OK)
    return status;
  p = tsl_json_skip_ws (after, iter->end);
  if (p >= iter->end)
    return TSL_JSON_INCOMPLETE;
  if (*p != ':')
    {
      error->pos = p;
      error->message = N_("expected ':' after a member name");
      return TSL_JSON_ERROR;
    }
  p = tsl_json_skip_ws (p + 1, iter->end);
  status = tsl_json_scan_value (p, iter->end, value, &after, error);
  if (status != TSL_JSON_OK)
    return status;
  iter->p = after;
  iter->first = FALSE;
  return TSL_JSON_OK;
}

TslJsonStatus
tsl_json_iter_next_element (TslJsonIter  *iter,
                            TslJsonValue *value,
                            TslJsonError *error)
{
  const char *p = NULL;
  const char *after;
  TslJsonStatus status;

  status = iter_advance (iter, '[', ']', &p, error);
  if (status != TSL_JSON_OK)
    return status;
  status = tsl_json_scan_value (p, iter->end, value, &after, error);
  if (status != TSL_JSON_OK)
    return status;
  iter->p = after;
  iter->first = FALSE;
  return TSL_JSON_OK;
}

gboolean
tsl_json_find_member (const TslJsonValue *object,
                      const char         *name,
                      TslJsonValue       *out)
{
  TslJsonIter iter;
  TslJsonValue key;
  TslJsonError error;
  gsize len = strlen (name);

  if (object->type != TSL_JSON_OBJECT)
    return FALSE;
  tsl_json_iter_init (&iter, object->p, object->p + object->len);
  while (tsl_json_iter_next_member (&iter, &key, out, &error) == TSL_JSON_OK)
    if (tsl_json_key_is (&key, name, len))
      return TRUE;
  return FALSE;
}

/* Checks the JSON grammar of an exponent: [eE][+-]?[0-9]+ to the end. */
static gboolean
valid_exponent (const char *s,
                const char *e)
{
  s++;
  if (s < e && (*s == '+' || *s == '-'))
    s++;
  if (s >= e)
    return FALSE;
  for (; s < e; s++)
    if (!is_digit (*s))
      return FALSE;
  return TRUE;
}

/* JSON has no infinities: a number too large for a double is not one. */
static gboolean
parse_slow (const char *p,
            gsize       len,
            double     *out)
{
  double d;

  if (!tsl_decimal_parse_slow (p, len, &d) || !isfinite (d))
    return FALSE;
  *out = d;
  return TRUE;
}

gboolean
tsl_json_parse_double (const char *p,
                       gsize       len,
                       double     *out)
{
  const char *s = p;
  const char *e = p + len;
  gboolean neg = FALSE;
  guint64 mant = 0;
  int digits = 0;
  int exp10 = 0;

  if (s < e && *s == '-')
    {
      neg = TRUE;
      s++;
    }
  if (s >= e || !is_digit (*s))
    return FALSE;
  if (*s == '0')
    s++;
  else
    for (; s < e && is_digit (*s); s++)
      {
        if (digits < 19)
          {
            mant = mant * 10 + (guint64) (*s - '0');
            digits++;
          }
        else
          exp10++;
      }
  if (s < e && *s == '.')
    {
      s++;
      if (s >= e || !is_digit (*s))
        return FALSE;
      for (; s < e && is_digit (*s); s++)
        {
          if (digits < 19)
            {
              mant = mant * 10 + (guint64) (*s - '0');
              if (mant != 0)
                digits++;
              exp10--;
            }
        }
    }
  if (s < e && (*s == 'e' || *s == 'E'))
    return valid_exponent (s, e) && parse_slow (p, len, out);
  if (s != e)
    return FALSE;

  if (tsl_decimal_to_double (mant, exp10, neg, out))
    return TRUE;
  return parse_slow (p, len, out);
}

static gboolean
value_is_numeric (const TslJsonValue *value)
{
  return value->type == TSL_JSON_NUMBER ||
         (value->type == TSL_JSON_STRING && !value->escaped);
}

gboolean
tsl_json_value_get_double (const TslJsonValue *value,
                           double             *out)
{
  if (!value_is_numeric (value))
    return FALSE;
  return tsl_json_parse_double (value->p, value->len, out);
}

gboolean
tsl_json_value_get_int64 (const TslJsonValue *value,
                          gint64             *out)
{
  const char *s = value->p;
  const char *e = value->p + value->len;
  gboolean neg = FALSE;
  guint64 n = 0;
  double d;

  if (!value_is_numeric (value))
    return FALSE;
  if (s < e && *s == '-')
    {
      neg = TRUE;
      s++;
    }
  if (s < e && e - s <= 18)
    {
      const char *q;

      for (q = s; q < e && is_digit (*q); q++)
        n = n * 10 + (guint64) (*q - '0');
      if (q == e)
        {
          *out = neg ? -(gint64) n : (gint64) n;
          return TRUE;
        }
    }
  /* 1.0, 1e3 or a very long integer. */
  if (!tsl_json_parse_double (value->p, value->len, &d) ||
      d != floor (d) || fabs (d) > 9.0e18)
    return FALSE;
  *out = (gint64) d;
  return TRUE;
}

gboolean
tsl_json_value_get_us_as_ns (const TslJsonValue *value,
                             gint64             *out_ns)
{
  const char *s = value->p;
  const char *e = value->p + value->len;
  gboolean neg = FALSE;
  guint64 whole = 0;
  guint64 frac = 0;
  int n_whole = 0;
  int n_frac = 0;
  gboolean round_up = FALSE;
  double d;

  if (!value_is_numeric (value))
    return FALSE;
  if (s < e && *s == '-')
    {
      neg = TRUE;
      s++;
    }
  for (; s < e && is_digit (*s); s++, n_whole++)
    whole = whole * 10 + (guint64) (*s - '0');
  if (n_whole == 0 || n_whole > 15 || (n_whole > 1 && value->p[neg] == '0'))
    goto slow;
  if (s < e && *s == '.')
    {
      const char *f = ++s;

      while (s < e && is_digit (*s))
        s++;
      if ((n_frac = s - f) == 0)
        return FALSE;
      /* Nanoseconds: three digits, the fourth rounds. */
      frac = (guint64) (f[0] - '0') * 100;
      if (n_frac > 1)
        frac += (guint64) (f[1] - '0') * 10;
      if (n_frac > 2)
        frac += (guint64) (f[2] - '0');
      round_up = n_frac > 3 && f[3] >= '5';
    }
  if (s != e)
    goto slow;
  /* 15 digits of µs is below 2^63 ns, so this cannot overflow. */
  whole = whole * 1000 + frac + (round_up ? 1 : 0);
  *out_ns = neg ? -(gint64) whole : (gint64) whole;
  return TRUE;

slow:
  if (!tsl_json_value_get_double (value, &d))
    return FALSE;
  d = round (d * 1000.0);
  if (!(fabs (d) < 9.2e18))
    return FALSE;
  *out_ns = (gint64) d;
  return TRUE;
}

static void
append_unichar (GString  *out,
                gunichar  c)
{
  if (!g_unichar_validate (c))
    c = 0xFFFD;
  g_string_append_unichar (out, c);
}

static int
hex4 (const char *p)
{
  int v = 0;

  for (int i = 0; i < 4; i++)
    {
      int d = g_ascii_xdigit_value (p[i]);

      if (d < 0)
        return -1;
      v = v * 16 + d;
    }
  return v;
}

static void
unescape (GString    *out,
          const char *p,
          gsize       len)
{
  const char *e = p + len;

  while (p < e)
    {
      const char *b = memchr (p, '\\', e - p);

      if (b == NULL)
        {
          g_string_append_len (out, p, e - p);
          break;
        }
      g_string_append_len (out, p, b - p);
      p = b + 1;
      if (p >= e)
        break;
      switch (*p++)
        {
        case 'b': g_string_append_c (out, '\b'); break;
        case 'f': g_string_append_c (out, '\f'); break;
        case 'n': g_string_append_c (out, '\n'); break;
        case 'r': g_string_append_c (out, '\r'); break;
        case 't': g_string_append_c (out, '\t'); break;
        case 'u':
          {
            int hi = e - p >= 4 ? hex4 (p) : -1;
            int lo;

            if (hi < 0)
              {
                append_unichar (out, 0xFFFD);
                break;
              }
            p += 4;
            if (hi >= 0xD800 && hi < 0xDC00 && e - p >= 6 && p[0] == '\\' &&
                p[1] == 'u' && (lo = hex4 (p + 2)) >= 0xDC00 && lo < 0xE000)
              {
                append_unichar (out, 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00));
                p += 6;
              }
            else
              append_unichar (out, (gunichar) hi);
            break;
          }
        default:
          /* \" \\ \/ and, leniently, any other escaped character. */
          g_string_append_c (out, p[-1]);
          break;
        }
    }
}

static gboolean
has_high_bytes (const char *p,
                gsize       len)
{
  for (gsize i = 0; i < len; i++)
    if ((guchar) p[i] >= 0x80)
      return TRUE;
  return FALSE;
}

const char *
tsl_json_value_get_string (const TslJsonValue *value,
                           GString            *scratch,
                           gsize              *len)
{
  const char *p = value->p;
  gsize n = value->len;

  if (value->escaped)
    {
      g_string_truncate (scratch, 0);
      unescape (scratch, value->p, value->len);
      p = scratch->str;
      n = scratch->len;
    }

  if (has_high_bytes (p, n) && !g_utf8_validate_len (p, n, NULL))
    {
      g_autofree char *valid = g_utf8_make_valid (p, n);

      g_string_assign (scratch, valid);
      p = scratch->str;
      n = scratch->len;
    }

  *len = n;
  return p;
}

gboolean
tsl_json_skip_feed (TslJsonSkip  *skip,
                    const char   *p,
                    const char   *end,
                    gboolean      at_eof,
                    const char  **after)
{
  if (!skip->started)
    {
      p = tsl_json_skip_ws (p, end);
      if (p >= end)
        {
          *after = p;
          return FALSE;
        }
      skip->started = TRUE;
      if (*p == '"')
        {
          skip->in_string = TRUE;
          p++;
        }
      else if (*p == '{' || *p == '[')
        {
          skip->depth = 1;
          p++;
        }
      else
        skip->scalar = TRUE;
    }

  while (p < end)
    {
      if (skip->in_string)
        {
          for (; p < end; p++)
            {
              if (skip->escape)
                skip->escape = FALSE;
              else if (*p == '\\')
                skip->escape = TRUE;
              else if (*p == '"')
                break;
            }
          if (p >= end)
            break;
          p++;
          skip->in_string = FALSE;
          if (skip->depth == 0)
            {
              *after = p;
              return TRUE;
            }
        }
      else if (skip->scalar)
        {
          while (p < end && !is_delimiter (*p))
            p++;
          if (p < end)
            {
              *after = p;
              return TRUE;
            }
        }
      else
        {
          guint8 cls;

          while (p < end && (cls = skip_class[(guchar) *p]) == 0)
            p++;
          if (p >= end)
            break;
          p++;
          if (cls == 1)
            skip->in_string = TRUE;
          else if (cls == 2)
            skip->depth++;
          else if (--skip->depth == 0)
            {
              *after = p;
              return TRUE;
            }
        }
    }

  *after = end;
  return skip->scalar && at_eof;
}
