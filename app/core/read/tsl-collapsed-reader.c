/* tsl-collapsed-reader.c: collapsed ("folded") stacks, `a;b;c 12`
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Frames are already root first and ';'-joined; the count follows the LAST
 * space (frame names may hold spaces). A line of that shape whose count is
 * no sample count ("-4", "1.5", "1e3", 2^64) is skipped with a warning. There is no time axis, so every line
 * goes to one track at its ordinal: the timeline shows the file's order.
 */
#define G_LOG_DOMAIN "tsl-collapsed-reader"

#include "config.h"

#include <string.h>
#include <glib/gi18n-lib.h>

#include "tsl-format-private.h"
#include "tsl-text-private.h"

#define MAX_POS_WARNINGS 10

typedef struct {
  TslTrace         *trace;
  TslReaderContext *ctx;
  guint             track;
  guint64           n_stacks;
  guint64           n_invalid;
} CollapsedState;

typedef enum {
  LINE_STACK,       /* "stack count" */
  LINE_BAD_COUNT,   /* the shape of one, but the count is no sample count */
  LINE_OTHER,
} LineKind;

/* A token that is meant as a number: "-4", "1.5", "1e3", 2^64. */
static gboolean
looks_numeric (const char *p,
               gsize       len)
{
  gsize i = p[0] == '-' || p[0] == '+';

  if (i >= len || !(g_ascii_isdigit (p[i]) || p[i] == '.'))
    return FALSE;
  for (; i < len; i++)
    if (!(g_ascii_isdigit (p[i]) || p[i] == '.' || p[i] == 'e' || p[i] == 'E' ||
          p[i] == '-' || p[i] == '+'))
      return FALSE;
  return TRUE;
}

/* Splits "stack count" on the last space or tab. The shape decides the
 * kind, so a bad count is a bad line of this format, not another format. */
static LineKind
split_line (const char  *p,
            gsize        len,
            gsize       *stack_len,
            gsize       *count_at,
            guint64     *count)
{
  const char *end = p + len;
  const char *sp = end;
  const char *num;

  while (sp > p && !(sp[-1] == ' ' || sp[-1] == '\t'))
    sp--;
  if (sp == p || sp == end)
    return LINE_OTHER;
  num = sp;

  sp--;
  while (sp > p && (sp[-1] == ' ' || sp[-1] == '\t'))
    sp--;
  if (sp == p)
    return LINE_OTHER;
  *stack_len = sp - p;
  *count_at = num - p;
  if (tsl_text_parse_uint (num, end - num, count))
    return LINE_STACK;
  return looks_numeric (num, end - num) ? LINE_BAD_COUNT : LINE_OTHER;
}

static gpointer
collapsed_create (TslTrace         *trace,
                  TslReaderContext *ctx)
{
  CollapsedState *self = g_new0 (CollapsedState, 1);

  self->trace = trace;
  self->ctx = ctx;
  self->track = tsl_trace_ensure_track (trace, TSL_TRACK_THREAD, 0, 0, "stacks");
  tsl_trace_set_thread_name (trace, 0, 0, "stacks");
  tsl_trace_set_has_time (trace, FALSE);
  tsl_trace_add_warning_once (trace, _("collapsed stacks have no time axis; shown in file order"));
  return self;
}

static void
collapsed_destroy (gpointer data)
{
  g_free (data);
}

static gssize
collapsed_parse (gpointer       data,
                 const guint8  *buf,
                 gsize          len,
                 gboolean       at_eof,
                 GError       **error)
{
  CollapsedState *self = data;
  const char *base = (const char *) buf;
  const char *end = base + len;
  const char *p = base;
  guint64 events = 0;

  while (p < end)
    {
      const char *nl = memchr (p, '\n', end - p);
      gsize line_len;
      gsize stack_len;
      gsize count_at;
      guint64 count;
      LineKind kind;

      if (nl == NULL && !at_eof)
        break;
      line_len = (nl ? nl : end) - p;
      while (line_len > 0 && tsl_text_is_space (p[line_len - 1]))
        line_len--;

      if (line_len == 0 || p[0] == '#')
        ;
      else if ((kind = split_line (p, line_len, &stack_len, &count_at, &count)) == LINE_STACK)
        {
          if (tsl_trace_offer (self->trace, self->track, (gint64) self->n_stacks, (double) count))
            tsl_trace_set_label_len (self->trace, self->track, (const char *) p, stack_len);
          self->n_stacks++;
          events++;
        }
      else if (self->n_invalid++ < MAX_POS_WARNINGS && kind == LINE_BAD_COUNT)
        {
          g_autofree char *position = tsl_reader_context_position (self->ctx, p + count_at - base);

          tsl_trace_add_warning (self->trace,
                                 _("%s: the count “%.*s” is not a whole number of samples; "
                                   "line skipped"),
                                 position, (int) MIN (line_len - count_at, 40), p + count_at);
        }
      else if (self->n_invalid <= MAX_POS_WARNINGS)
        {
          g_autofree char *position = tsl_reader_context_position (self->ctx, p - base);

          tsl_trace_add_warning (self->trace,
                                 _("%s: not a collapsed stack line (expected “frame;frame;… count”); skipped"),
                                 position);
        }

      p = nl ? nl + 1 : end;
    }

  tsl_trace_add_events (self->trace, events);

  if (at_eof && self->n_invalid > MAX_POS_WARNINGS)
    tsl_trace_add_warning (self->trace,
                           _("%s: %llu lines in all were not collapsed stack lines and were skipped"),
                           tsl_reader_context_get_name (self->ctx), (unsigned long long) self->n_invalid);

  return p - base;
}

static int
collapsed_sniff (const guint8 *head,
                 gsize         len,
                 gboolean      at_eof)
{
  const char *p = (const char *) head;
  const char *end = p + len;
  guint good = 0;
  guint bad = 0;
  guint with_semicolon = 0;

  if (len > 0 && (p[0] == '{' || p[0] == '['))
    return 0;

  /* Comment lines do not count against the limit. */
  for (guint lines = 0; p < end && lines < 100;)
    {
      const char *nl = memchr (p, '\n', end - p);
      gsize line_len;
      gsize stack_len;
      gsize count_at;
      guint64 count;

      lines += p[0] != '#';

      if (nl == NULL && !at_eof)
        break;
      line_len = (nl ? nl : end) - p;
      while (line_len > 0 && tsl_text_is_space (p[line_len - 1]))
        line_len--;

      if (line_len == 0 || p[0] == '#')
        ;
      else if (!tsl_text_is_space (p[0]) &&
               split_line (p, line_len, &stack_len, &count_at, &count) != LINE_OTHER)
        {
          good++;
          if (memchr (p, ';', stack_len) != NULL)
            with_semicolon++;
        }
      else if (nl != NULL)
        bad++;
      /* else: a last line cut short by truncation says nothing about the format. */

      p = nl ? nl + 1 : end;
    }

  if (good == 0 || bad * 2 > good)
    return 0;
  /* Most lines a stack of several frames: above a CSV split on spaces. */
  if (with_semicolon * 2 >= good)
    return bad == 0 ? 85 : 70;
  return bad == 0 ? 65 : 50;
}

const TslFormat tsl_format_collapsed = {
  .name = "collapsed",
  .sniff = collapsed_sniff,
  .create = collapsed_create,
  .parse = collapsed_parse,
  .destroy = collapsed_destroy,
};
