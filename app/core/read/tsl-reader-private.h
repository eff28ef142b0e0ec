/* tsl-reader-private.h: TslReader's fields, shared by its files
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * TslReader is one type in five files, one concern each: tsl-reader.c (the
 * public entry points: feed, settle, finish), tsl-reader-stages.c (the byte
 * stages: decompression, encoding, the pending buffer), tsl-reader-sniff.c
 * (the formats and the sniffer), tsl-reader-checkpoint.c (the chunk index's
 * hooks) and tsl-reader-context.c (the API formats see).
 */
#pragma once

#include "tsl-chunk-index.h"
#include "tsl-format-private.h"
#include "tsl-inflate.h"
#include "tsl-inflate-ahead.h"
#include "tsl-scan-governor.h"
#include "tsl-text-position.h"

G_BEGIN_DECLS

#define SNIFF_BYTES     (64 * 1024)
#define MAX_RECORD      ((gsize) 256 * 1024 * 1024)
#define ENC_HEAD_BYTES  64
/* Leading comment lines the sniffer holds beyond SNIFF_BYTES. */
#define MAX_COMMENT_HEAD ((gsize) 16 * 1024 * 1024)

typedef enum {
  ENC_UNKNOWN,
  ENC_UTF8,
  ENC_UTF16LE,
  ENC_UTF16BE,
} Encoding;

struct _TslReaderContext
{
  TslReader       *reader;
  /* The buffer of the current parse() call and where it starts. */
  TslTextPosition  pos;
};

struct _TslReader
{
  TslTrace         *trace;
  char             *name;

  guint64           bytes_in;
  guint64           bytes_decoded;
  gsize             max_record;

  /* Stage 1: gzip or zstd. */
  gboolean          magic_checked;
  guint8            magic[4];
  guint             n_magic;
  TslInflate       *inflate;    /* NULL: not compressed */
  /* Decompressing on a thread of its own (whole reads on several cores,
   * tsl_reader_set_decompress_ahead()); NULL: on the reading thread. */
  gboolean          ahead_allowed;
  TslInflateAhead  *ahead;
  gboolean          ahead_used;
  guint64           ahead_waits;   /* for a full ring, when stopped */
  guint64           ahead_input_waits;   /* for input, when stopped */
  guint64           inflated_out;  /* decompressed bytes taken so far */
  /* The access point a checkpoint may follow (tsl-reader-checkpoint.c):
   * the last one noted at least point_stride past the one before. */
  TslInflatePoint  *point;
  gboolean          has_point;
  guint64           last_point;
  guint64           point_stride;
  /* A range read of compressed input (tsl_reader_resume_input()): output
   * before skip_to and from text_end on is dropped. */
  guint64           skip_to;
  guint64           text_end;
  gboolean          at_text_end;

  /* Stage 2: encoding. */
  Encoding          encoding;
  /* Enough to tell UTF-16 without a BOM by its NULs. */
  guint8            enc_head[ENC_HEAD_BYTES];
  guint             n_enc_head;
  guint8            utf16_carry;
  gboolean          has_utf16_carry;
  gunichar2         high_surrogate;
  GByteArray       *transcoded;

  /* Stage 3: format. */
  const TslFormat  *format;
  gboolean          settled;  /* sniff without waiting for 64 KiB (follow mode) */
  gpointer          state;
  GByteArray       *pending;
  gsize             pending_wait;  /* see push_text() */
  gsize             comment_end;   /* see comment_prefix() */
  gboolean          comments_done;
  gsize             line_scanned;  /* see first_line_complete() */
  gboolean          line_complete;
  gboolean          awaiting_line;
  TslReaderContext  ctx;
  /* NULs at the end of what has arrived, held as a count: only text after
   * them shows they were not trailing padding (see push_text()). */
  guint64           nul_run;
  gboolean          failed;
  gboolean          finished;
  TslReaderThreads  threads;
  guint             n_threads;
  gboolean          n_threads_cores;   /* n_threads is the online cores */
  gboolean          close_ways;   /* tsl_reader_context_set_close_ways() */
  TslReaderIdleFunc idle;
  gpointer          idle_data;
  /* Whether scanning on every core is measured against one thread
   * (tsl_reader_context_scan_now()); made at the first buffer asked. */
  gboolean          governed;
  TslScanGovernor  *governor;

  /* Chunk index being recorded (see tsl_reader_set_index()). */
  TslChunkIndex    *index;
  GByteArray       *index_state;
  GByteArray       *index_point;
  guint64           text_offset;   /* decoded bytes the format consumed */
  gboolean          skipped_bom;
  gsize             sniffed_len;   /* bytes the format was told from */
};

/* Stage 1, raw bytes in (tsl-reader-stages.c). */
gboolean          _tsl_reader_push_raw          (TslReader        *self,
                                                 const guint8     *data,
                                                 gsize             len,
                                                 GError          **error);
/* Decompression ahead: stops the thread (finish, free). */
void              _tsl_reader_stop_ahead        (TslReader        *self);
/* Decompression ahead: everything queued is taken (settle, finish). */
gboolean          _tsl_reader_drain_ahead       (TslReader        *self,
                                                 GError          **error);
/* gzip: 1f 8b; zstd: 28 b5 2f fd. Then the held bytes go through. */
gboolean          _tsl_reader_check_magic       (TslReader        *self,
                                                 GError          **error);
/* Stage 2: bytes after gzip in, UTF-8 out. */
gboolean          _tsl_reader_push_decoded      (TslReader        *self,
                                                 const guint8     *data,
                                                 gsize             len,
                                                 gboolean          at_eof,
                                                 GError          **error);
/* Stage 3: decoded UTF-8 in (trailing NULs counted, not held). */
gboolean          _tsl_reader_push_text         (TslReader        *self,
                                                 const guint8     *data,
                                                 gsize             len,
                                                 gboolean          at_eof,
                                                 GError          **error);
/* Picks a format from the held head, or waits for more (TRUE, format still
 * NULL); FALSE with an error when none fits (tsl-reader-sniff.c). */
gboolean          _tsl_reader_sniff             (TslReader        *self,
                                                 const guint8     *head,
                                                 gsize             len,
                                                 gboolean          at_eof,
                                                 GError          **error);
/* After each parse() call, with an index being recorded
 * (tsl-reader-checkpoint.c). */
void              _tsl_reader_note_checkpoint   (TslReader        *self,
                                                 const guint8     *buf,
                                                 gsize             consumed,
                                                 gboolean          at_eof);

G_END_DECLS
