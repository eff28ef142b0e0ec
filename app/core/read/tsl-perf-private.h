/* tsl-perf-private.h: what the perf script reader's files share
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * tsl-perf-reader.c is the TslFormat glue and the records' model;
 * tsl-perf-scan.c tokenises one line: a sample header, a frame's symbol.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  const char *p;
  gsize       len;
} Span;

typedef struct {
  const char *p;
  gsize       len;
  gboolean    bracket;      /* a dso basename standing in for [unknown] */
} Frame;

typedef struct {
  const char *comm;
  gsize       comm_len;
  gint64      pid;          /* -1 when the header has no pid/ */
  gint64      tid;
  gboolean    has_time;
  gint64      time_ns;
  gboolean    has_period;
  guint64     period;
  Span        event;
  Span        inline_frame; /* frame on the header line (no call chains) */
} Header;

static inline gboolean
is_blank (char c)
{
  return c == ' ' || c == '\t';
}

/* Frame lines start with blanks and then a hex instruction pointer.
 * Inline: called for every line of every record. */
static inline gboolean
_tsl_perf_is_frame_line (const char *p,
                         gsize       len)
{
  gsize i = 0;
  gsize start;

  if (len == 0 || !is_blank (p[0]))
    return FALSE;
  while (i < len && is_blank (p[i]))
    i++;
  start = i;
  while (i < len && g_ascii_isxdigit (p[i]))
    i++;
  return i > start && (i == len || is_blank (p[i]));
}

/* "comm [pid/]tid [cpu] time: [period] event: [ip sym (dso)]" → *h;
 * FALSE when the line is not a sample header. */
gboolean          _tsl_perf_parse_header        (const char       *line,
                                                 gsize             len,
                                                 Header           *h);
/* "ip sym+0x1f (dso)" → Span of the symbol; [unknown] becomes "[dso]"
 * (*bracket_dso: the dso's basename stands in for it). */
Span              _tsl_perf_frame_symbol        (const char       *p,
                                                 gsize             len,
                                                 gboolean         *bracket_dso);

G_END_DECLS
