/* tsl-reader.h: streaming readers — bytes in, events into a TslTrace
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A TslReader is a push parser: feed it bytes as they arrive (a file, a pipe,
 * a growing file in follow mode) and it routes complete events to the trace.
 * It sniffs the format from the content, never from the name; gzip (by magic
 * bytes), a UTF-8 BOM and UTF-16 with a BOM are decoded before the format sees
 * the bytes. Nothing per event is kept.
 *
 * Threading: one thread calls a reader's functions. feed(), settle() and
 * finish() write to the trace without locking it; a caller whose trace other
 * threads read holds tsl_trace_lock() around each call (tsl_read_stream()
 * does). A format's second thread (read/chrome/) runs only inside those
 * calls, so it is covered by the same lock.
 */
#pragma once

#include <gio/gio.h>

#include "tsl-trace.h"

G_BEGIN_DECLS

#define TSL_READER_ERROR (tsl_reader_error_quark ())

typedef enum {
  TSL_READER_ERROR_UNKNOWN_FORMAT,
  TSL_READER_ERROR_SYNTAX,      /* message is "FILE:LINE:COLUMN: what was expected" */
  TSL_READER_ERROR_EMPTY,
  TSL_READER_ERROR_TOO_LARGE,   /* a single record larger than the reader's limit */
  TSL_READER_ERROR_CHANGED,     /* the file changed while it was read (tsl-read-job.h) */
} TslReaderError;

GQuark            tsl_reader_error_quark        (void);

typedef struct _TslReader TslReader;

/* display_name is used in error messages ("trace.json", or "-" for stdin). */
TslReader        *tsl_reader_new                (TslTrace       *trace,
                                                 const char     *display_name);
void              tsl_reader_free               (TslReader      *self);
gboolean          tsl_reader_feed               (TslReader      *self,
                                                 const guint8   *data,
                                                 gsize           len,
                                                 GError        **error);
/* The input paused (follow mode waits at the end of a growing file): decide
 * the format from what has arrived instead of waiting for 64 KiB. */
gboolean          tsl_reader_settle             (TslReader      *self,
                                                 GError        **error);
/* End of input: flushes the last record, closes open spans, and turns a
 * truncated document into a warning on the trace (what was read is kept). */
gboolean          tsl_reader_finish             (TslReader      *self,
                                                 GError        **error);
guint64           tsl_reader_get_bytes_in       (TslReader      *self);
/* The largest record a format may hold back (default 256 MiB); beyond it
 * feed() fails with TSL_READER_ERROR_TOO_LARGE. For tests and fuzzing. */
void              tsl_reader_set_max_record     (TslReader      *self,
                                                 gsize           max_record);
/* NULL until sniffed. */
const char       *tsl_reader_get_format         (TslReader      *self);

/* Whether a format may work on more threads than the caller's (Chrome
 * JSON: a regular file's buffers tokenized on every core and modelled in
 * order on the caller's; other input tokenized on the caller's and
 * modelled on a second). The result is the same either way. The default
 * comes from TSL_READER_THREADS: "0" or "1" never, N (up to 256) N threads,
 * "eager" two from the first event (for tests), "pipe" the two-thread
 * reader also for regular files (benchmarks), otherwise auto: once several
 * MiB of events came, on every online core when there is more than one.
 * Callers that already keep every core busy (two reads at once) ask for
 * never. */
typedef enum {
  TSL_READER_THREADS_DEFAULT,   /* the environment's choice, as above */
  TSL_READER_THREADS_AUTO,
  TSL_READER_THREADS_NEVER,
  TSL_READER_THREADS_EAGER,
} TslReaderThreads;

void              tsl_reader_set_threads        (TslReader        *self,
                                                 TslReaderThreads  threads);
/* Whether gzip and zstd may be decompressed on a thread of their own,
 * ahead of the parser (whole reads; never with TSL_READER_THREADS_NEVER or
 * one thread). Before the first feed. Same result either way. */
void              tsl_reader_set_decompress_ahead (TslReader      *self,
                                                 gboolean          ahead);

/* Work the reading thread may do while a format waits for its other thread
 * (tsl_read_stream() reads the next feed ahead): TRUE if it did some, FALSE
 * when there is none left for now. Called with the trace locked, only
 * inside a feed() call, one call at a time, but not always on the caller's
 * thread: the Chrome reader's scanner threads take it off the modelling
 * one (so it must touch only what the caller leaves alone during feed()). */
typedef gboolean (*TslReaderIdleFunc)           (gpointer          user_data);

void              tsl_reader_set_idle_func      (TslReader        *self,
                                                 TslReaderIdleFunc func,
                                                 gpointer          user_data);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TslReader, tsl_reader_free)

G_END_DECLS
