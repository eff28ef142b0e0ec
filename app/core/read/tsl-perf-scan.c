/* tsl-perf-scan.c: one line of `perf script` text, tokenised
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A sample header is anchored on its time token (comm may hold spaces and
 * digits), or, in old perf output without times, on its event token; a
 * frame line's symbol is cut out of "ip sym+off (dso)".
 */
#define G_LOG_DOMAIN "tsl-perf-reader"

#include "config.h"

#include <string.h>

#include "tsl-perf-private.h"
#include "tsl-text-private.h"

#define MAX_TOKENS        48

static gboolean
is_digits (const char *p,
           gsize       len)
{
  if (len == 0)
    return FALSE;
  for (gsize i = 0; i < len; i++)
    if ((unsigned char) (p[i] - '0') > 9)
      return FALSE;
  return TRUE;
}

/* "123.456:" */
static gboolean
is_time_token (const Span *t)
{
  const char *dot;

  if (t->len < 4 || t->p[t->len - 1] != ':')
    return FALSE;
  dot = memchr (t->p, '.', t->len - 1);
  return dot != NULL && is_digits (t->p, dot - t->p) &&
         is_digits (dot + 1, t->p + t->len - 1 - (dot + 1));
}

static gboolean
is_cpu_token (const Span *t)
{
  return t->len >= 3 && t->p[0] == '[' && t->p[t->len - 1] == ']' && is_digits (t->p + 1, t->len - 2);
}

static gboolean
parse_tid_token (const Span *t,
                 gint64     *pid,
                 gint64     *tid)
{
  const char *slash = memchr (t->p, '/', t->len);
  guint64 a, b;

  if (slash == NULL)
    {
      if (!tsl_text_parse_uint (t->p, t->len, &b))
        return FALSE;
      *pid = -1;
      *tid = (gint64) b;
      return TRUE;
    }

  if (!tsl_text_parse_uint (t->p, slash - t->p, &a) ||
      !tsl_text_parse_uint (slash + 1, t->p + t->len - slash - 1, &b))
    return FALSE;
  *pid = (gint64) a;
  *tid = (gint64) b;
  return TRUE;
}

gboolean
_tsl_perf_parse_header (const char *line,
                        gsize       len,
                        Header     *h)
{
  Span tok[MAX_TOKENS];
  const char *p = line;
  const char *end = line + len;
  guint n = 0;
  int i_time = -1;
  int i_event = -1;
  int i_tid;
  int k;

  memset (h, 0, sizeof *h);

  /* Tokens up to and including the event (which ends with ':'). */
  while (p < end && n < MAX_TOKENS)
    {
      const char *s;

      while (p < end && is_blank (*p))
        p++;
      if (p == end)
        break;
      s = p;
      while (p < end && !is_blank (*p))
        p++;
      tok[n].p = s;
      tok[n].len = p - s;
      n++;

      if (i_time < 0 && n >= 3 && is_time_token (&tok[n - 1]))
        i_time = n - 1;
      else if (i_time >= 0 && tok[n - 1].p[tok[n - 1].len - 1] == ':')
        {
          i_event = n - 1;
          break;
        }
      else if (i_time < 0 && n >= 3 && tok[n - 1].p[tok[n - 1].len - 1] == ':')
        {
          /* No time (old perf): the event follows "[cpu]" or the tid. */
          int j = n - 2;
          gint64 pid, tid;

          if (is_cpu_token (&tok[j]))
            j--;
          if (j >= 1 && parse_tid_token (&tok[j], &pid, &tid))
            {
              i_event = n - 1;
              break;
            }
        }
    }

  if (i_event < 0)
    return FALSE;

  k = i_time >= 0 ? i_time : i_event;
  i_tid = k - 1;
  if (is_cpu_token (&tok[i_tid]))
    i_tid--;
  if (i_tid < 1 || !parse_tid_token (&tok[i_tid], &h->pid, &h->tid))
    return FALSE;

  h->comm = tok[0].p;
  h->comm_len = tok[i_tid - 1].p + tok[i_tid - 1].len - tok[0].p;

  if (i_time >= 0)
    {
      if (!tsl_text_parse_seconds_ns (tok[i_time].p, tok[i_time].len - 1, &h->time_ns))
        return FALSE;
      h->has_time = TRUE;

      /* Anything between the time and the event is the period. */
      if (i_event == i_time + 2 && is_digits (tok[i_time + 1].p, tok[i_time + 1].len))
        h->has_period = tsl_text_parse_uint (tok[i_time + 1].p, tok[i_time + 1].len, &h->period);
      else if (i_event != i_time + 1)
        return FALSE;
    }

  h->event.p = tok[i_event].p;
  h->event.len = tok[i_event].len - (tok[i_event].p[tok[i_event].len - 1] == ':');

  p = tok[i_event].p + tok[i_event].len;
  while (p < end && is_blank (*p))
    p++;
  h->inline_frame.p = p;
  h->inline_frame.len = end - p;

  return TRUE;
}

/* "ip sym+0x1f (dso)" → Span of the symbol; [unknown] becomes "[dso]". */
Span
_tsl_perf_frame_symbol (const char *p,
                        gsize       len,
                        gboolean   *bracket_dso)
{
  const char *end = p + len;
  const char *sym;
  const char *sym_end;
  Span dso = { NULL, 0 };
  Span out;

  *bracket_dso = FALSE;

  while (p < end && is_blank (*p))
    p++;
  while (p < end && g_ascii_isxdigit (*p))
    p++;
  while (p < end && is_blank (*p))
    p++;
  while (end > p && tsl_text_is_space (end[-1]))
    end--;

  sym = p;
  sym_end = end;
  if (end > p && end[-1] == ')')
    {
      /* The dso is the last parenthesised group; symbols may hold parentheses too. */
      for (const char *q = end - 1; q > p; q--)
        {
          if (*q == '(' && is_blank (q[-1]))
            {
              dso.p = q + 1;
              dso.len = end - 1 - dso.p;
              sym_end = q - 1;
              break;
            }
        }
    }
  while (sym_end > sym && is_blank (sym_end[-1]))
    sym_end--;

  /* Strip "+0x1a". */
  for (const char *q = sym_end; q > sym + 1; q--)
    {
      if (q[-1] == '+')
        {
          if (sym_end - q > 2 && q[0] == '0' && q[1] == 'x')
            sym_end = q - 1;
          break;
        }
      if (!g_ascii_isxdigit (q[-1]) && q[-1] != 'x')
        break;
    }

  out.p = sym;
  out.len = sym_end - sym;

  if ((out.len == 9 && memcmp (sym, "[unknown]", 9) == 0) || out.len == 0)
    {
      if (dso.len > 0 && !(dso.len == 9 && memcmp (dso.p, "[unknown]", 9) == 0))
        {
          const char *slash = NULL;

          for (const char *q = dso.p; q < dso.p + dso.len; q++)
            if (*q == '/')
              slash = q;
          if (slash != NULL)
            {
              dso.len -= slash + 1 - dso.p;
              dso.p = slash + 1;
            }
          *bracket_dso = dso.p[0] != '[';
          return dso;
        }
      out.p = "[unknown]";
      out.len = 9;
    }

  return out;
}
