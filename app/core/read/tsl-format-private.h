/* tsl-format-private.h: what a format reader plugs into TslReader
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * TslReader owns the byte buffer. It hands a format the unconsumed bytes
 * (already decoded to UTF-8); the format consumes whole records (lines, JSON
 * events) and returns how many bytes it consumed; the rest is handed back,
 * with more bytes appended, on the next call. At the end it is called once
 * more with at_eof = TRUE and must consume everything.
 */
#pragma once

#include "tsl-reader.h"

G_BEGIN_DECLS

typedef struct _TslReaderContext TslReaderContext;

/* Whether a chunk index (tsl-chunk-index.h) may start a later read at the
 * end of what a parse() call consumed. */
typedef enum {
  TSL_CHECKPOINT_NOT_HERE,  /* not at this boundary (a span open, say) */
  TSL_CHECKPOINT_HERE,
  TSL_CHECKPOINT_NEVER,     /* this file cannot be resumed: no index */
} TslCheckpoint;

typedef struct {
  const char *name;                      /* "chrome-json", "perf-script", ... */
  /* 0 (no) .. 100 (certain), from the first bytes of decoded input. */
  int       (*sniff)   (const guint8 *head, gsize len, gboolean at_eof);
  gpointer  (*create)  (TslTrace *trace, TslReaderContext *ctx);
  /* Returns bytes consumed (0..len), or -1 with error set. */
  gssize    (*parse)   (gpointer state, const guint8 *buf, gsize len,
                        gboolean at_eof, GError **error);
  void      (*destroy) (gpointer state);
  /* A binary format (Perfetto): its input is not refused for looking binary
   * nor guessed to be UTF-16 from its NULs. */
  gboolean    binary;
  /* Optional; without it a format gets no index. Asked after a parse() call
   * that consumed `consumed` bytes of buf: HERE sets *back to how many of
   * them (separators only) to step back to the boundary, and appends to
   * `saved` the state a later read needs to start there (at most
   * TSL_CHUNK_STATE_MAX bytes, else NOT_HERE). */
  TslCheckpoint (*checkpoint) (gpointer state, const guint8 *buf, gsize consumed,
                               gsize *back, GByteArray *saved);
  /* Optional: before a later read goes on at another checkpoint, the state
   * saved there (len 0: none was). FALSE if it cannot be restored. */
  gboolean  (*restore) (gpointer state, const guint8 *saved, gsize len);
  /* Optional: what the format counts until the end (Perfetto's "N packets
   * not shown") goes to the trace now as tallies (keep) or is dropped, and
   * counting restarts: for a part of a file that ends before the document
   * does, and for the head a part reads only for its header. */
  void      (*flush_counts) (gpointer state, gboolean keep);
  /* Its checkpoint state holds records (tsl-chunk-records.h): saved once
   * for every checkpoint they are part of. */
  gboolean    records;
} TslFormat;

/* The checkpoint of a format whose every sample waits on what comes later
 * (cpuprofile, pprof, gecko): a read cannot start but at the beginning. */
TslCheckpoint     tsl_format_checkpoint_never   (gpointer          state,
                                                 const guint8     *buf,
                                                 gsize             consumed,
                                                 gsize            *back,
                                                 GByteArray       *saved);

/* Sets a TSL_READER_ERROR_SYNTAX error whose message is
 * "FILE:LINE:COLUMN: <message>" for the byte at buf + offset of the buffer
 * passed to the current parse() call. */
void              tsl_reader_context_set_error  (TslReaderContext *ctx,
                                                 GError          **error,
                                                 gsize             offset,
                                                 const char       *format,
                                                 ...) G_GNUC_PRINTF (4, 5);
/* Fails the read at buf + offset: the file holds nothing to draw, and the
 * warnings so far say why ("FILE:LINE:COLUMN: nothing to show: ..."). The
 * driver does this itself at the end when no event was counted. */
void              tsl_reader_context_set_nothing_to_show (TslReaderContext *ctx,
                                                          GError          **error,
                                                          gsize             offset);
/* "FILE:LINE:COLUMN" for a warning about the byte at buf + offset. */
char             *tsl_reader_context_position   (TslReaderContext *ctx,
                                                 gsize             offset);
const char       *tsl_reader_context_get_name   (TslReaderContext *ctx);
/* The input's offset of the current buffer's first byte (of the file, or of
 * its decompressed text for gzip and zstd), or -1 when the input is recoded
 * (UTF-16) and its offsets are not the text's. */
gint64            tsl_reader_context_get_input_offset (TslReaderContext *ctx);
TslReaderThreads  tsl_reader_context_get_threads (TslReaderContext *ctx);
/* Threads a format may scan on, the caller's included: 1 with
 * TSL_READER_THREADS_NEVER, else TSL_READER_THREADS=N or the online cores
 * (one more for input decompressed on a thread of its own, in a format
 * that set_close_ways()). */
guint             tsl_reader_context_get_n_threads (TslReaderContext *ctx);
/* Some of the caller's work while this thread would wait: see
 * TslReaderIdleFunc. FALSE when there is none. */
gboolean          tsl_reader_context_idle       (TslReaderContext *ctx);
/* Whether the first `len` bytes of s, up to a NUL, hold `needle`: what
 * g_strstr_len() answers, at memmem()'s speed (sniffers look for several
 * needles in 64 KiB, and the byte loop took ~10 ms of every file's start). */
gboolean          tsl_sniff_contains            (const char       *s,
                                                 gsize             len,
                                                 const char       *needle);
/* Whether the caller has idle work of its own (reads the next feed). */
gboolean          tsl_reader_context_reads_ahead (TslReaderContext *ctx);
/* Whether the input is decompressed on a thread of its own (so a read
 * has more than one thread whatever its size). */
gboolean          tsl_reader_context_decompresses_ahead (TslReaderContext *ctx);
/* Called by a format whose scanning on every core and on one thread read
 * decompressed input at close speeds (Chrome JSON): then, with the thread
 * count left to the machine, the pool gets one scanner more than the cores
 * (the decompression thread leaves part of its core idle) and the governor
 * decides by the time the modelling thread waits for a core instead of by
 * probes, which cannot tell such ways apart (tsl-scan-governor.h). */
void              tsl_reader_context_set_close_ways (TslReaderContext *ctx);
/* A buffer of `len` bytes worth scanning on every core starts: whether to
 * (tsl-scan-governor.h measures which way reads faster now; always TRUE
 * with TSL_READER_THREADS=N, N > 1, or TSL_READER_ADAPT=0). Called by the
 * modelling thread. */
gboolean          tsl_reader_context_scan_now   (TslReaderContext *ctx,
                                                 gsize             len);

/* Names frame `i` (0 is the root) of a stack a format is labelling. */
typedef const char *(*TslFrameNameFunc)         (gpointer          data,
                                                 guint             i);

/* Labels `track`'s kept sample with frames 0..depth-1, then `leaf` if not
 * NULL, ';'-joined and built in `scratch`. */
void              tsl_format_set_stack_label    (TslTrace         *trace,
                                                 guint             track,
                                                 GString          *scratch,
                                                 guint             depth,
                                                 TslFrameNameFunc  name,
                                                 gpointer          data,
                                                 const char       *leaf);

/* Skips the sniffer and reads the input as the format called `name` ("chrome-json",
 * "perf-script", ...). Only before the first feed; for tests and fuzzing. */
gboolean          tsl_reader_set_format         (TslReader        *self,
                                                 const char       *name);

extern const TslFormat tsl_format_chrome_json;
extern const TslFormat tsl_format_speedscope;
extern const TslFormat tsl_format_perf_script;
extern const TslFormat tsl_format_collapsed;
extern const TslFormat tsl_format_csv;
extern const TslFormat tsl_format_perfetto_proto;
extern const TslFormat tsl_format_cpuprofile;
extern const TslFormat tsl_format_pprof;
extern const TslFormat tsl_format_gecko;

G_END_DECLS
