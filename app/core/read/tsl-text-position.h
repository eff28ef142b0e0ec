/* tsl-text-position.h: line and column of a byte in a stream of buffers
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Where a reader is: 1-based line and column (in bytes) of the start of the
 * current buffer, with what is known of the buffer's newlines so far. Every
 * byte a reader consumes is counted once; positions inside the buffer are
 * only computed when a message needs one. */
typedef struct {
  guint64       line;
  guint64       column;
  /* The current buffer, the column of its first byte, what was consumed. */
  const guint8 *buf;
  gsize         len;
  guint64       buf_column;
  gsize         consumed;
  /* Newlines of buf[0, counted), counted ahead in idle time: how many, and
   * the offset after the last. */
  gsize         counted;
  guint64       counted_lines;
  gsize         counted_line_start;
  /* Memo of the last position asked for, so a run of warnings in one buffer
   * does not rescan it from the start each time. */
  gsize         memo_offset;
  guint64       memo_line;
  guint64       memo_column;
} TslTextPosition;

void      tsl_text_position_init        (TslTextPosition *self);
/* A new buffer starts at the current position. */
void      tsl_text_position_set_buffer  (TslTextPosition *self,
                                         const guint8    *buf,
                                         gsize            len);
/* Line and column of buf[offset]. */
void      tsl_text_position_locate      (TslTextPosition *self,
                                         gsize            offset,
                                         guint64         *line,
                                         guint64         *column);
/* Counts up to 64 KiB more of the buffer's newlines; FALSE when all are. */
gboolean  tsl_text_position_count_ahead (TslTextPosition *self);
/* Between buffers: the next one starts at this line and column (a jump to
 * a checkpoint of the chunk index). */
void      tsl_text_position_jump        (TslTextPosition *self,
                                         guint64          line,
                                         guint64          column);
/* The first `consumed` bytes of the buffer are done with. */
void      tsl_text_position_advance     (TslTextPosition *self,
                                         gsize            consumed);
/* The same for binary input, which has no lines: the column counts its
 * bytes, and none is scanned for a newline. */
void      tsl_text_position_advance_bytes (TslTextPosition *self,
                                         gsize            consumed);
/* After advance(): line and column `back` bytes before the current
 * position, counting only those bytes (a checkpoint a little before the
 * end of what a parse call consumed). */
void      tsl_text_position_locate_back (TslTextPosition *self,
                                         gsize            back,
                                         guint64         *line,
                                         guint64         *column);

G_END_DECLS
