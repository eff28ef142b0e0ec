/* tsl-read-stream.h: whole streams and files read through a TslReader
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The loop around a TslReader: reads, cancellation, progress, follow mode,
 * and reading ahead while a format's second thread is busy. The trace is
 * locked while a feed is parsed and unlocked between feeds.
 */
#pragma once

#include "tsl-reader.h"

G_BEGIN_DECLS

typedef void    (*TslReadProgress)              (guint64         bytes_read,
                                                 guint64         bytes_total,
                                                 guint64         events,
                                                 gpointer        user_data);

/* What tsl_read_stream() hands the reader at most at a time. */
#define TSL_READ_FEED_BYTES (1024 * 1024)

/* Reads a whole stream in 64 KiB reads, checking `cancellable` before each,
 * and feeds them to a reader up to TSL_READ_FEED_BYTES at a time (a short
 * read, as from a quiet pipe, is fed at once), calling `progress` (if not
 * NULL) after each feed, with the trace unlocked between feeds. bytes_total
 * is 0 when unknown. */
gboolean          tsl_read_stream               (TslTrace       *trace,
                                                 GInputStream   *stream,
                                                 const char     *display_name,
                                                 guint64         bytes_total,
                                                 TslReadProgress progress,
                                                 gpointer        user_data,
                                                 GCancellable   *cancellable,
                                                 GError        **error);
/* Asked at the end of the input: TRUE to wait for more (follow mode). */
typedef gboolean (*TslReadFollow)                (gpointer        user_data);

/* tsl_read_stream() that, while `follow` says so, waits at the end of the
 * stream for it to grow instead of finishing. */
gboolean          tsl_read_stream_full          (TslTrace       *trace,
                                                 GInputStream   *stream,
                                                 const char     *display_name,
                                                 guint64         bytes_total,
                                                 TslReadProgress progress,
                                                 TslReadFollow   follow,
                                                 gpointer        user_data,
                                                 GCancellable   *cancellable,
                                                 GError        **error);
/* Opens `path` ("-" is stdin) and calls tsl_read_stream(). */
gboolean          tsl_read_path                 (TslTrace       *trace,
                                                 const char     *path,
                                                 TslReadProgress progress,
                                                 gpointer        user_data,
                                                 GCancellable   *cancellable,
                                                 GError        **error);
/* tsl_read_path() with the reader's use of threads set. */
gboolean          tsl_read_path_full            (TslTrace       *trace,
                                                 const char     *path,
                                                 TslReaderThreads threads,
                                                 TslReadProgress progress,
                                                 gpointer        user_data,
                                                 GCancellable   *cancellable,
                                                 GError        **error);

/* Reads part `part` (1-based) of `n_parts` equal byte ranges of the regular
 * file `path`, for a sampler state that `merge` joins to the other parts'.
 * A part starts at the first event boundary of the file's chunk index at or
 * after its first byte, with the format's state there put back (Chrome: the
 * spans open on each thread); it reads the file's first chunk only for its
 * header, counting nothing of it. Without an index (this process's or the
 * cache's) the file is first read once to make one. Fails for input no
 * index can be made of (a pipe, gzip, a format without event boundaries). */
gboolean          tsl_read_path_part            (TslTrace       *trace,
                                                 const char     *path,
                                                 guint           part,
                                                 guint           n_parts,
                                                 GError        **error);

G_END_DECLS
