/* tsl-reader-sniff.c: which format the input is, from its first bytes
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every format scores the held head (0..100); the sniffer decides once one
 * is certain, or 64 KiB past any leading '#' lines (or the end) have
 * arrived. Binary data is refused here unless the best format is binary.
 */
#define G_LOG_DOMAIN "tsl-reader"

#include "config.h"

#include <string.h>
#include <glib/gi18n-lib.h>

#include "tsl-reader-private.h"
#include "tsl-text-guess.h"

static const TslFormat *formats[] = {
  &tsl_format_chrome_json,
  &tsl_format_speedscope,
  &tsl_format_perf_script,
  &tsl_format_collapsed,
  &tsl_format_csv,
  &tsl_format_perfetto_proto,
  &tsl_format_cpuprofile,
  &tsl_format_pprof,
  &tsl_format_gecko,
};

gboolean
tsl_reader_set_format (TslReader  *self,
                       const char *name)
{
  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (name != NULL, FALSE);
  g_return_val_if_fail (self->format == NULL && self->bytes_in == 0, FALSE);

  for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
    {
      if (g_str_equal (formats[i]->name, name))
        {
          self->format = formats[i];
          self->state = self->format->create (self->trace, &self->ctx);
          tsl_trace_set_format (self->trace, self->format->name);
          return TRUE;
        }
    }

  return FALSE;
}

/* Leading '#' lines (`perf script --header` writes tens of KiB of them) do
 * not count toward the SNIFF_BYTES a format has to show itself in. Scanned
 * once, as the head grows. */
static gsize
comment_prefix (TslReader    *self,
                const guint8 *head,
                gsize         len)
{
  while (!self->comments_done && self->comment_end < len)
    {
      const guint8 *p = head + self->comment_end;
      const guint8 *nl;

      if (*p != '#')
        {
          self->comments_done = TRUE;
          break;
        }
      nl = memchr (p, '\n', len - self->comment_end);
      if (nl == NULL)
        break;
      self->comment_end = nl + 1 - head;
      self->comments_done = self->comment_end >= MAX_COMMENT_HEAD;
    }
  return self->comment_end;
}

/* Whether the first line after the comments has ended in the head.
 * Scanned once, as the head grows. */
static gboolean
first_line_complete (TslReader    *self,
                     const guint8 *head,
                     gsize         len)
{
  gsize from = MAX (self->line_scanned, self->comment_end);

  if (!self->line_complete && from < len && memchr (head + from, '\n', len - from) != NULL)
    self->line_complete = TRUE;
  self->line_scanned = len;
  return self->line_complete;
}

/* No format told from the head, whose first line is still open: the line
 * formats (collapsed stacks; CSV, by its header) need a whole line, so the
 * sniffer waits for its end (TRUE), up to the reader's largest record
 * (then FALSE, the line is too long). Text only: binary data is refused
 * at SNIFF_BYTES as before. */
static gboolean
wait_for_first_line (TslReader     *self,
                     const guint8  *head,
                     gsize          len,
                     GError       **error)
{
  guint64 line = 1;

  if (len - self->comment_end <= self->max_record)
    {
      self->awaiting_line = TRUE;
      return TRUE;
    }
  for (const guint8 *p = head, *end = head + self->comment_end;
       (p = memchr (p, '\n', end - p)) != NULL; p++)
    line++;
  g_set_error (error, TSL_READER_ERROR, TSL_READER_ERROR_TOO_LARGE,
               _("%s:%llu:1: the first line is longer than %llu MiB, and no format could be told "
                 "from its start (collapsed stacks and CSV are told from a whole line, JSON from "
                 "its first '{' or '[')"),
               self->name, (unsigned long long) line,
               (unsigned long long) (self->max_record / (1024 * 1024)));
  return FALSE;
}

gboolean
_tsl_reader_sniff (TslReader     *self,
                   const guint8  *head,
                   gsize          len,
                   gboolean       at_eof,
                   GError       **error)
{
  const TslFormat *best = NULL;
  int best_score = 0;

  if (len == 0 && at_eof)
    {
      if (self->inflate != NULL && tsl_inflate_get_kind (self->inflate) == TSL_INFLATE_ZSTD &&
          (!tsl_inflate_is_complete (self->inflate) || tsl_inflate_has_failed (self->inflate)))
        g_set_error (error, TSL_READER_ERROR, TSL_READER_ERROR_EMPTY,
                     "%s:1:1: the zstd data is truncated or damaged before any content", self->name);
      else if (self->inflate != NULL && tsl_inflate_get_kind (self->inflate) == TSL_INFLATE_GZIP &&
               !tsl_inflate_is_complete (self->inflate))
        g_set_error (error, TSL_READER_ERROR, TSL_READER_ERROR_EMPTY,
                     _("%s:1:1: the gzip data is truncated before any content"), self->name);
      else
        g_set_error (error, TSL_READER_ERROR, TSL_READER_ERROR_EMPTY,
                     _("%s:1:1: the file is empty"), self->name);
      return FALSE;
    }
  /* Nothing decoded yet (a held UTF-16 byte): nothing to look at. */
  if (len == 0)
    return TRUE;
  /* Waiting for a long first line's end: sniffed again once it came. */
  if (self->awaiting_line && !at_eof && !self->settled && !first_line_complete (self, head, len))
    return wait_for_first_line (self, head, len, error);

  for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
    {
      int score = formats[i]->sniff (head, len, at_eof);

      if (score > best_score)
        {
          best = formats[i];
          best_score = score;
        }
    }

  /* Wait for more unless a format is certain or no more is coming (soon). */
  if (best_score < 100 && !at_eof && !self->settled &&
      len < SNIFF_BYTES + comment_prefix (self, head, len))
    return TRUE;

  if (best == NULL && !at_eof && !self->settled && !first_line_complete (self, head, len) &&
      !tsl_text_looks_binary (head, len))
    return wait_for_first_line (self, head, len, error);

  /* Random bytes split into "lines" and "fields" that some sniffer likes. */
  if (best == NULL || (!best->binary && tsl_text_looks_binary (head, len)))
    {
      g_set_error (error, TSL_READER_ERROR, TSL_READER_ERROR_UNKNOWN_FORMAT,
                   _("%s:1:1: unrecognised file format (supported: Chrome trace event JSON, "
                   "speedscope JSON, perf script text, collapsed stacks, CSV/TSV metrics, "
                   "Perfetto protobuf, V8 CPU profiles, pprof, Firefox Profiler profiles; optionally gzip- or zstd-compressed)"),
                   self->name);
      return FALSE;
    }

  self->format = best;
  self->sniffed_len = len;
  self->state = best->create (self->trace, &self->ctx);
  tsl_trace_set_format (self->trace, best->name);
  return TRUE;
}
