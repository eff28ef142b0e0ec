/* tsl-collapsed-reader.c: collapsed ("folded") stacks, `a;b;c 12`
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Frames are already root first and ';'-joined; the count follows the LAST
 * space (frame names may hold spaces). A line of that shape whose count is
 * no sample count ("-4", "1.5", "1e3") is skipped with a warning; a whole
 * number over G_MAXINT64 counts as G_MAXINT64, with a warning (the weights
 * downstream are doubles, and a .folded export must read back). There is
 * no time axis, so every line goes to one track at its ordinal: the
 * timeline shows the file's order.
 *
 * The chunk index resumes at any line start with the ordinal and the
 * count of skipped lines (the warnings' cap) saved there. A regular file's
 * big buffers are cut at line starts (TslScanCutter) and split into lines
 * and counts on every core (tsl-scan-pool.h); this thread models the lines
 * in order, so the result is the one-thread one.
 */
#define G_LOG_DOMAIN "tsl-collapsed-reader"

#include "config.h"

#include <string.h>
#include <glib/gi18n-lib.h>

#include "tsl-format-private.h"
#include "tsl-scan-pool.h"
#include "tsl-text-private.h"

#define MAX_POS_WARNINGS 10
/* What a checkpoint saves: n_stacks and n_invalid, little-endian. */
#define SAVED_BYTES 16

/* A stack line as a scanner thread found it. */
typedef struct {
  const char *line;
  gsize       stack_len;
  guint64     count;
} Stack;

/* What the scanners read as of the current parse call. */
typedef struct {
  const char *end;       /* the buffer's */
} Plan;

typedef struct {
  TslTrace         *trace;
  TslReaderContext *ctx;
  guint             track;
  guint64           n_stacks;    /* the next stack's ordinal: its time */
  guint64           n_invalid;

  /* Splitting on every core (a regular file). */
  TslScanDriver    *driver;      /* NULL: one thread */
  Plan              plan;
} CollapsedState;

typedef enum {
  LINE_STACK,       /* "stack count" */
  LINE_BIG_COUNT,   /* one whose count is over G_MAXINT64: counted as that */
  LINE_BAD_COUNT,   /* the shape of one, but the count is no sample count */
  LINE_OTHER,
} LineKind;

/* A token that is meant as a number: "-4", "1.5", "1e3". */
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
  for (sp = num; sp < end && g_ascii_isdigit (*sp); sp++)
    ;
  if (sp < end)
    return looks_numeric (num, end - num) ? LINE_BAD_COUNT : LINE_OTHER;

  /* Digits only: a whole number, however long. */
  while (end - num > 1 && num[0] == '0')
    num++;
  if (tsl_text_parse_uint (num, end - num, count) && *count <= G_MAXINT64)
    return LINE_STACK;
  *count = G_MAXINT64;
  return LINE_BIG_COUNT;
}

/* The line at p, ending at eol (its '\n' or the text's end): trailing
 * white space off, then its kind; LINE_OTHER with *line_len 0 for a blank
 * or '#' line. */
static inline LineKind
read_line (const char *p,
           const char *eol,
           gsize      *line_len,
           gsize      *stack_len,
           gsize      *count_at,
           guint64    *count)
{
  gsize len = eol - p;

  while (len > 0 && tsl_text_is_space (p[len - 1]))
    len--;
  *line_len = len;
  if (len == 0 || p[0] == '#')
    return LINE_OTHER;
  return split_line (p, len, stack_len, count_at, count);
}

static inline void
model_stack (CollapsedState *self,
             const char     *line,
             gsize           stack_len,
             guint64         count)
{
  if (tsl_trace_offer (self->trace, self->track, (gint64) self->n_stacks, (double) count))
    tsl_trace_set_label_len (self->trace, self->track, line, stack_len);
  self->n_stacks++;
}

static void
scan_segment (gpointer        data,
              TslScanSegment *seg,
              gpointer        scratch)
{
  const Plan *plan = data;
  TslScanItems *out = seg->result;   /* Stack; stop: a line left to the modelling thread */
  const char *end = plan->end;
  const char *p = seg->start;

  g_array_set_size (out->items, 0);
  while (p < seg->end)
    {
      const char *nl = memchr (p, '\n', end - p);
      gsize line_len, count_at;
      Stack st;

      if (nl == NULL)
        break;   /* the modelling thread's: at the end, or a cut line */
      if (read_line (p, nl, &line_len, &st.stack_len, &count_at, &st.count) != LINE_STACK)
        {
          if (line_len != 0 && p[0] != '#')
            break;   /* a warning, made in order by the modelling thread */
        }
      else
        {
          st.line = p;
          g_array_append_val (out->items, st);
        }
      p = nl + 1;
    }
  out->stop = p;
}

static const TslScanFuncs collapsed_scan_funcs = {
  .scan = scan_segment,
  .item_size = sizeof (Stack),
};

static const TslScanDriveFuncs collapsed_drive_funcs;

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
  self->driver = tsl_scan_driver_new (ctx, tsl_scan_find_line_start, NULL, &collapsed_scan_funcs,
                                      &self->plan, &collapsed_drive_funcs, self, NULL);
  return self;
}

static void
collapsed_destroy (gpointer data)
{
  CollapsedState *self = data;

  /* Logs in the reader's log domain, as the Chrome reader (test-parallel.py). */
  tsl_scan_driver_free (self->driver);
  g_free (self);
}

/* The lines starting in [p, limit) of the buffer, on this thread: the
 * whole buffer, or from where a segment's scan stopped (a line to warn
 * about, a line the buffer's end cuts) and over a segment cut at a wrong
 * guess (the tests' random cuts). Stops early at a line with no '\n'
 * before the end unless at_eof (*blocked). Returns where it stopped. */
static const char *
parse_lines (gpointer             data,
             const TslScanBuffer *buf,
             const char          *p,
             const char          *limit,
             gboolean            *blocked)
{
  CollapsedState *self = data;
  const char *base = buf->base;
  const char *end = buf->end;
  gboolean at_eof = buf->at_eof;

  while (p < limit)
    {
      const char *nl = memchr (p, '\n', end - p);
      gsize line_len;
      gsize stack_len;
      gsize count_at;
      guint64 count;
      LineKind kind;

      if (nl == NULL && !at_eof)
        {
          *blocked = TRUE;
          break;
        }
      kind = read_line (p, nl ? nl : end, &line_len, &stack_len, &count_at, &count);
      if (kind == LINE_STACK)
        model_stack (self, p, stack_len, count);
      else if (kind == LINE_BIG_COUNT)
        {
          tsl_trace_add_warning (self->trace,
                                 _("a count over 9223372036854775807 samples was counted as 9223372036854775807"));
          model_stack (self, p, stack_len, count);
        }
      else if (line_len == 0 || p[0] == '#')
        ;
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
  return p;
}

static void
drive_plan (gpointer             data,
            const TslScanBuffer *buf)
{
  CollapsedState *self = data;

  self->plan.end = buf->end;
}

/* A segment's lines are the ones the one-thread loop would read where it
 * starts (a line's kind, stack and count depend on its bytes alone). */
static const char *
drive_apply (gpointer              data,
             const TslScanBuffer  *buf,
             const TslScanSegment *seg)
{
  const TslScanItems *stacks = seg->result;

  for (guint j = 0; j < stacks->items->len; j++)
    {
      const Stack *st = &g_array_index (stacks->items, Stack, j);

      model_stack (data, st->line, st->stack_len, st->count);
    }
  return stacks->stop;
}

/* A regular file's buffer split into lines on every core and modelled on
 * this thread in order (tsl_scan_driver_run()). */
static const TslScanDriveFuncs collapsed_drive_funcs = {
  .plan = drive_plan,
  .apply = drive_apply,
  .serial = parse_lines,
};

static gssize
collapsed_parse (gpointer       data,
                 const guint8  *buf,
                 gsize          len,
                 gboolean       at_eof,
                 GError       **error)
{
  CollapsedState *self = data;
  const char *base = (const char *) buf;
  TslScanBuffer scan = { base, base + len, at_eof, NULL };
  guint64 stacks_before = self->n_stacks;
  const char *p;

  p = tsl_scan_driver_parse (self->driver, &collapsed_drive_funcs, self, &scan,
                             tsl_scan_driver_worth (self->driver, len));

  tsl_trace_add_events (self->trace, self->n_stacks - stacks_before);

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

/* Any line start: a later read starts there with the ordinal and the
 * count of skipped lines (for the warnings' cap and the total at the end). */
static TslCheckpoint
collapsed_checkpoint (gpointer      state,
                      const guint8 *buf,
                      gsize         consumed,
                      gsize        *back,
                      GByteArray   *saved)
{
  CollapsedState *self = state;
  guint64 le[2] = { GUINT64_TO_LE (self->n_stacks), GUINT64_TO_LE (self->n_invalid) };

  if (consumed == 0 || buf[consumed - 1] != '\n')
    return TSL_CHECKPOINT_NOT_HERE;
  g_byte_array_append (saved, (const guint8 *) le, SAVED_BYTES);
  *back = 0;
  return TSL_CHECKPOINT_HERE;
}

static gboolean
collapsed_restore (gpointer      state,
                   const guint8 *saved,
                   gsize         len)
{
  CollapsedState *self = state;
  guint64 le[2] = { 0, 0 };

  if (len != 0 && len != SAVED_BYTES)
    return FALSE;
  if (len != 0)
    memcpy (le, saved, SAVED_BYTES);
  self->n_stacks = GUINT64_FROM_LE (le[0]);
  self->n_invalid = GUINT64_FROM_LE (le[1]);
  return TRUE;
}

const TslFormat tsl_format_collapsed = {
  .name = "collapsed",
  .sniff = collapsed_sniff,
  .create = collapsed_create,
  .parse = collapsed_parse,
  .destroy = collapsed_destroy,
  .checkpoint = collapsed_checkpoint,
  .restore = collapsed_restore,
};
