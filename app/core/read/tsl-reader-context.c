/* tsl-reader-context.c: what a format's parse() may ask of its reader
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Positions for messages, errors, the threads a format may use, the
 * caller's idle work, and small helpers every format shares.
 */
#define G_LOG_DOMAIN "tsl-reader"
#define _GNU_SOURCE   /* memmem */

#include "config.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <glib/gi18n-lib.h>

#include "tsl-reader-private.h"

gint64
tsl_reader_context_get_input_offset (TslReaderContext *ctx)
{
  TslReader *self;

  g_return_val_if_fail (ctx != NULL, -1);

  self = ctx->reader;
  /* gzip and zstd: an offset of the decompressed text, which
   * tsl_event_details_read() decompresses to. */
  if (self->encoding != ENC_UTF8)
    return -1;
  /* text_offset counts from after a stripped BOM. */
  return (gint64) self->text_offset + (self->skipped_bom ? 3 : 0);
}

char *
tsl_reader_context_position (TslReaderContext *ctx,
                             gsize             offset)
{
  guint64 line, column;

  g_return_val_if_fail (ctx != NULL, NULL);

  tsl_text_position_locate (&ctx->pos, offset, &line, &column);
  /* Binary input has no lines: its column counts bytes from 1, and a byte
   * offset is what its own errors give ("FILE:BYTE: ..."). */
  if (ctx->reader->format != NULL && ctx->reader->format->binary)
    return g_strdup_printf ("%s:%" G_GUINT64_FORMAT, ctx->reader->name, column - 1);
  return g_strdup_printf ("%s:%" G_GUINT64_FORMAT ":%" G_GUINT64_FORMAT,
                          ctx->reader->name, line, column);
}

void
tsl_reader_context_set_error (TslReaderContext  *ctx,
                              GError           **error,
                              gsize              offset,
                              const char        *format,
                              ...)
{
  g_autofree char *position = NULL;
  g_autofree char *message = NULL;
  va_list args;

  g_return_if_fail (ctx != NULL);

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);

  position = tsl_reader_context_position (ctx, offset);
  g_set_error (error, TSL_READER_ERROR, TSL_READER_ERROR_SYNTAX, "%s: %s", position, message);
}

const char *
tsl_reader_context_get_name (TslReaderContext *ctx)
{
  g_return_val_if_fail (ctx != NULL, NULL);

  return ctx->reader->name;
}

TslReaderThreads
tsl_reader_context_get_threads (TslReaderContext *ctx)
{
  g_return_val_if_fail (ctx != NULL, TSL_READER_THREADS_NEVER);

  return ctx->reader->threads;
}

guint
tsl_reader_context_get_n_threads (TslReaderContext *ctx)
{
  TslReader *self;

  g_return_val_if_fail (ctx != NULL, 1);

  self = ctx->reader;
  if (self->threads == TSL_READER_THREADS_NEVER)
    return 1;
  /* The decompression thread leaves part of its core idle (it waits for
   * a free buffer, then for the next feed): one scanner more than the
   * cores fills it. */
  if (self->ahead_used && self->n_threads_cores && self->close_ways)
    return MAX (self->n_threads, 2) + 1;
  return MAX (self->n_threads, 2);
}

/* The caller's idle work first (reading the next feed), then the newlines
 * of this parse call's buffer, which run_format() would otherwise count
 * after the call, while the format's other thread has nothing to do. */
gboolean
tsl_reader_context_idle (TslReaderContext *ctx)
{
  TslReader *reader = ctx->reader;

  if (reader->idle != NULL && reader->idle (reader->idle_data))
    return TRUE;
  if (reader->format != NULL && reader->format->binary)
    return FALSE;
  return tsl_text_position_count_ahead (&ctx->pos);
}

void
tsl_format_set_stack_label (TslTrace         *trace,
                            guint             track,
                            GString          *scratch,
                            guint             depth,
                            TslFrameNameFunc  name,
                            gpointer          data,
                            const char       *leaf)
{
  g_string_truncate (scratch, 0);
  /* Every kept slice or sample comes here: each frame is copied once, its
   * ';' made ':' as tsl_frames_append() does. */
  for (guint i = 0; i < depth + (leaf != NULL); i++)
    {
      const char *part = i < depth ? name (data, i) : leaf;
      gsize len = strlen (part);
      gsize at = scratch->len + (i > 0);
      char *p, *end;

      g_string_set_size (scratch, at + len);
      if (i > 0)
        scratch->str[at - 1] = ';';
      memcpy (scratch->str + at, part, len);
      for (p = scratch->str + at, end = p + len; (p = memchr (p, ';', end - p)) != NULL; p++)
        *p = ':';
    }
  tsl_trace_set_label_joined (trace, track, scratch->str, scratch->len);
}

gboolean
tsl_sniff_contains (const char *s,
                    gsize       len,
                    const char *needle)
{
  return memmem (s, strnlen (s, len), needle, strlen (needle)) != NULL;
}

gboolean
tsl_reader_context_reads_ahead (TslReaderContext *ctx)
{
  return ctx->reader->idle != NULL;
}

gboolean
tsl_reader_context_decompresses_ahead (TslReaderContext *ctx)
{
  return ctx->reader->ahead_used;
}

void
tsl_reader_context_set_close_ways (TslReaderContext *ctx)
{
  ctx->reader->close_ways = TRUE;
}

/* The calling thread's time waiting for a core so far, in ns (the second
 * field of Linux's schedstat), or -1 without it. */
static gint64
thread_wait_ns (gpointer data)
{
  char buf[128];
  ssize_t n;
  int fd = open ("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
  const char *p;
  char *end;
  gint64 waited;

  if (fd < 0)
    return -1;
  n = read (fd, buf, sizeof buf - 1);
  close (fd);
  if (n <= 0)
    return -1;
  buf[n] = '\0';
  p = strchr (buf, ' ');
  if (p == NULL)
    return -1;
  waited = g_ascii_strtoll (p + 1, &end, 10);
  return end != p + 1 && waited >= 0 ? waited : -1;
}

gboolean
tsl_reader_context_scan_now (TslReaderContext *ctx,
                             gsize             len)
{
  TslReader *self = ctx->reader;

  if (!self->governed)
    return TRUE;
  if (self->governor == NULL)
    {
      /* The tests' small probes and short stretches. */
      const char *probe = g_getenv ("TSL_READER_ADAPT_BYTES");
      const char *ratio = g_getenv ("TSL_READER_ADAPT_RATIO");

      self->governor = tsl_scan_governor_new (NULL, NULL,
                                              probe != NULL ? g_ascii_strtoull (probe, NULL, 10) : 0,
                                              ratio != NULL ? (guint) g_ascii_strtoull (ratio, NULL, 10) : 0);
      /* Compressed input on the machine's cores, in a format whose two
       * ways are too close for the probes (tsl-scan-governor.c): the time
       * this thread waits for a core says when the other is busy. */
      if (self->ahead_used && self->n_threads_cores && self->close_ways && thread_wait_ns (NULL) >= 0)
        tsl_scan_governor_set_wait_clock (self->governor, thread_wait_ns, NULL);
    }
  return tsl_scan_governor_decide (self->governor, len);
}

void
tsl_reader_context_set_nothing_to_show (TslReaderContext  *ctx,
                                        GError           **error,
                                        gsize              offset)
{
  TslReader *self = ctx->reader;
  g_autoptr(GString) reasons = NULL;
  g_autofree char *position = NULL;
  g_auto(GStrv) warnings = NULL;
  gsize prefix = strlen (self->name) + 2;
  guint shown = 0;

  reasons = g_string_new (NULL);
  warnings = tsl_trace_dup_warnings (self->trace);
  for (guint i = 0; warnings[i] != NULL && shown < 3; i++)
    {
      const char *w = warnings[i];

      /* Said once, at the front of the message. */
      if (g_str_has_prefix (w, self->name) && g_str_has_prefix (w + prefix - 2, ": "))
        w += prefix;
      g_string_append_printf (reasons, "%s%s", shown++ > 0 ? "; " : "", w);
    }
  position = tsl_reader_context_position (ctx, offset);
  g_set_error (error, TSL_READER_ERROR, TSL_READER_ERROR_EMPTY,
               _("%s: nothing to show: %s"), position,
               shown > 0 ? reasons->str : _("the file holds no events"));
}

TslCheckpoint
tsl_format_checkpoint_never (gpointer      state,
                             const guint8 *buf,
                             gsize         consumed,
                             gsize        *back,
                             GByteArray   *saved)
{
  return TSL_CHECKPOINT_NEVER;
}
