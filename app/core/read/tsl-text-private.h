/* tsl-text-private.h: small, fast scanners shared by the text formats
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Cells and fields live inside the reader's buffer and are not NUL-terminated,
 * so these take (pointer, length). The common cases (plain decimals, ISO dates)
 * are parsed by hand: strtod needs a terminated copy and is several times
 * slower than the whole rest of a line's work.
 */
#pragma once

#include <math.h>
#include <string.h>

#include <glib.h>

G_BEGIN_DECLS

static inline gboolean
tsl_text_is_space (char c)
{
  return c == ' ' || c == '\t' || c == '\r';
}

/* The exact path of both decimal parsers (this file's and the JSON
 * scanner's): mant × 10^exp10 is correctly rounded by one multiplication or
 * division when the mantissa and the power of ten are both exact doubles.
 * FALSE when they are not: parse with tsl_decimal_parse_slow(). */
static inline gboolean
tsl_decimal_to_double (guint64   mant,
                       int       exp10,
                       gboolean  neg,
                       double   *out)
{
  static const double pow10[] = {
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12,
    1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
  };
  double d;

  if (mant > (G_GUINT64_CONSTANT (1) << 53) || exp10 < -22 || exp10 > 22)
    return FALSE;
  d = (double) mant;
  d = exp10 < 0 ? d / pow10[-exp10] : d * pow10[exp10];
  *out = neg ? -d : d;
  return TRUE;
}

/* Exponents, long mantissas, "inf" and friends: g_ascii_strtod on a
 * terminated copy, which must consume all of [p, p + len). */
static inline gboolean
tsl_decimal_parse_slow (const char *p,
                        gsize       len,
                        double     *out)
{
  char tmp[128];
  char *tail = NULL;
  double v;

  if (len == 0 || len >= sizeof tmp)
    return FALSE;
  memcpy (tmp, p, len);
  tmp[len] = '\0';
  v = g_ascii_strtod (tmp, &tail);
  if (tail != tmp + len)
    return FALSE;
  *out = v;
  return TRUE;
}

/* Parses an unsigned decimal integer filling all of [p, p + len). */
static inline gboolean
tsl_text_parse_uint (const char *p,
                     gsize       len,
                     guint64    *out)
{
  guint64 v = 0;

  if (len == 0 || len > 19)
    return FALSE;

  for (gsize i = 0; i < len; i++)
    {
      unsigned d = (unsigned char) p[i] - '0';

      if (d > 9)
        return FALSE;
      v = v * 10 + d;
    }

  *out = v;
  return TRUE;
}

/* Parses "[+-]DIGITS[.DIGITS]" exactly into nanoseconds of seconds, e.g.
 * "36556.170907" → 36556170907000. */
static inline gboolean
tsl_text_parse_seconds_ns (const char *p,
                           gsize       len,
                           gint64     *out)
{
  const char *end = p + len;
  gboolean neg = FALSE;
  guint64 whole = 0;
  guint64 frac = 0;
  int frac_digits = 0;
  gsize n_whole = 0;

  if (p < end && (*p == '-' || *p == '+'))
    neg = (*p++ == '-');

  for (; p < end && (unsigned char) (*p - '0') <= 9; p++, n_whole++)
    {
      if (n_whole >= 10)
        return FALSE;  /* beyond ~300 years of ns in a gint64 */
      whole = whole * 10 + (guint64) (*p - '0');
    }

  if (p < end && *p == '.')
    {
      p++;
      for (; p < end && (unsigned char) (*p - '0') <= 9; p++)
        {
          if (frac_digits < 9)
            {
              frac = frac * 10 + (guint64) (*p - '0');
              frac_digits++;
            }
        }
    }

  if (p != end || (n_whole == 0 && frac_digits == 0))
    return FALSE;

  for (int i = frac_digits; i < 9; i++)
    frac *= 10;

  *out = (gint64) (whole * G_GUINT64_CONSTANT (1000000000) + frac) * (neg ? -1 : 1);
  return TRUE;
}

/* Parses a whole cell as a double. Plain decimals whose digits fit in 2^53
 * are exact (mantissa and power of ten are both exact doubles, and one
 * division rounds correctly); the rest (exponents, long mantissas, inf/nan)
 * go through g_ascii_strtod. */
static inline gboolean
tsl_text_parse_double (const char *p,
                       gsize       len,
                       double     *out)
{
  const char *s = p;
  const char *end = p + len;
  gboolean neg = FALSE;
  gboolean dot = FALSE;
  guint64 mant = 0;
  int digits = 0;
  int scale = 0;

  if (len == 0)
    return FALSE;
  if (G_UNLIKELY (tsl_text_is_space (*s) || tsl_text_is_space (end[-1])))
    {
      while (s < end && tsl_text_is_space (*s))
        s++;
      while (end > s && tsl_text_is_space (end[-1]))
        end--;
    }
  p = s;

  if (s < end && (*s == '-' || *s == '+'))
    neg = (*s++ == '-');

  for (; s < end; s++)
    {
      unsigned d = (unsigned char) *s - '0';

      if (d <= 9)
        {
          mant = mant * 10 + d;
          scale += dot;
          if (++digits > 18)
            break;
        }
      else if (*s == '.' && !dot)
        dot = TRUE;
      else
        break;
    }

  if (s == end && digits > 0 && tsl_decimal_to_double (mant, -scale, neg, out))
    return TRUE;

  return tsl_decimal_parse_slow (p, end - p, out);
}

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm). */
static inline gint64
tsl_text_days_from_civil (gint64 y,
                          unsigned m,
                          unsigned d)
{
  gint64 era;
  unsigned yoe, doy, doe;

  y -= m <= 2;
  era = (y >= 0 ? y : y - 399) / 400;
  yoe = (unsigned) (y - era * 400);
  doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + (gint64) doe - 719468;
}

static inline gboolean
tsl_text_digits (const char *p,
                 int         n,
                 unsigned   *out)
{
  unsigned v = 0;

  for (int i = 0; i < n; i++)
    {
      unsigned d = (unsigned char) p[i] - '0';

      if (d > 9)
        return FALSE;
      v = v * 10 + d;
    }
  *out = v;
  return TRUE;
}

/* "YYYY-MM-DD", then 'T' or ' ' and "HH:MM[:SS[.fraction]]", then an optional
 * "Z", "±HH[:MM]" or " UTC". Without a zone the time is taken as UTC. */
static inline gboolean
tsl_text_parse_iso8601_ns (const char *p,
                           gsize       len,
                           gint64     *out)
{
  const char *end = p + len;
  unsigned y, mo, d, h = 0, mi = 0, sec = 0;
  gint64 frac_ns = 0;
  gint64 offset_s = 0;
  gint64 days;
  gint64 seconds;

  while (end > p && tsl_text_is_space (end[-1]))
    end--;
  len = end - p;

  if (len < 10 || p[4] != '-' || p[7] != '-' ||
      !tsl_text_digits (p, 4, &y) || !tsl_text_digits (p + 5, 2, &mo) ||
      !tsl_text_digits (p + 8, 2, &d) || mo < 1 || mo > 12 || d < 1 || d > 31)
    return FALSE;
  p += 10;

  if (p < end && (*p == 'T' || *p == ' ') && end - p >= 6 && p[3] == ':')
    {
      if (!tsl_text_digits (p + 1, 2, &h) || !tsl_text_digits (p + 4, 2, &mi))
        return FALSE;
      p += 6;
      if (p < end && *p == ':')
        {
          if (end - p < 3 || !tsl_text_digits (p + 1, 2, &sec))
            return FALSE;
          p += 3;
          if (p < end && (*p == '.' || *p == ','))
            {
              gint64 scale = 100000000;

              for (p++; p < end && (unsigned char) (*p - '0') <= 9; p++)
                {
                  frac_ns += (*p - '0') * scale;
                  scale /= 10;
                }
            }
        }
      if (h > 24 || mi > 59 || sec > 60)
        return FALSE;
    }

  if (p < end && *p == ' ')
    p++;
  if (p < end && (*p == 'Z' || *p == 'z') && p + 1 == end)
    p++;
  else if (end - p == 3 && memcmp (p, "UTC", 3) == 0)
    p = end;
  else if (p < end && (*p == '+' || *p == '-'))
    {
      gint64 sign = *p == '-' ? -1 : 1;
      unsigned oh, om = 0;

      if (end - p < 3 || !tsl_text_digits (p + 1, 2, &oh))
        return FALSE;
      p += 3;
      if (p < end && *p == ':')
        p++;
      if (end - p == 2 && tsl_text_digits (p, 2, &om))
        p += 2;
      offset_s = sign * (gint64) (oh * 3600 + om * 60);
    }

  if (p != end)
    return FALSE;

  days = tsl_text_days_from_civil (y, mo, d);
  seconds = (days * 86400 + h * 3600 + mi * 60 + sec) - offset_s;
  /* gint64 nanoseconds reach only years 1677..2262. */
  if (seconds <= G_MININT64 / G_GINT64_CONSTANT (1000000000) ||
      seconds >= G_MAXINT64 / G_GINT64_CONSTANT (1000000000))
    return FALSE;
  *out = seconds * G_GINT64_CONSTANT (1000000000) + frac_ns;
  return TRUE;
}

G_END_DECLS
