/* tsl-read-job.h: one read of a stream, what it reads and how it ends
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The read loop's files (tsl-read-stream.c: whole reads and follow mode;
 * tsl-read-range.c: range and part reads through a chunk index) pass one
 * TslReadJob down instead of a chain of parameters. A job is a plain
 * struct on the caller's stack: it lives for one read on one thread, has
 * no signals, properties or second owner, so a GObject would only add an
 * allocation and a type to register.
 *
 * tsl_read_job_start() consults the caches in one place before any byte
 * is read: a range of a file read before goes through its chunk index, an
 * unchanged file read whole before is loaded from the state cache, any
 * other read of a regular file records an index; a range of a file
 * replaced or cut short since this process read it fails there.
 * tsl_read_job_end()
 * checks the file is still the one that was read: a read that ended on a
 * file that changed meanwhile fails (it shrank, was rewritten, or its
 * index no longer fits) or warns (it grew: what was read is a whole
 * prefix of it), and never passes a mixture of two versions off as the
 * file.
 */
#pragma once

#include "tsl-chunk-index.h"
#include "tsl-read-stream.h"

G_BEGIN_DECLS

/* The next feed, filled by the read loop and, while a format's reading
 * thread would wait for its other thread, by the reader's idle work
 * (tsl_read_feed_attach()). */
typedef struct {
  GInputStream *stream;
  GCancellable *cancellable;
  guint8       *buf;
  gsize         n;
  gboolean      done;     /* a short read, an error or a cancellation */
  GError       *error;
  guint64       left;     /* what may still be read: a range read's run of chunks */
  guint8       *bufs;     /* two feeds: one with the reader, the next being read */
} TslReadFeed;

typedef enum {
  TSL_READ_WHOLE,         /* parse the stream, recording an index if keyed */
  TSL_READ_INDEXED,       /* a time range of a file read before, through its index */
  TSL_READ_CACHED,        /* the state cache filled the trace: nothing to read */
} TslReadPlan;

typedef struct {
  /* Set by the caller. */
  TslTrace         *trace;
  GInputStream     *stream;
  const char       *display_name;
  guint64           bytes_total;     /* 0: unknown */
  TslReaderThreads  threads;
  TslReadProgress   progress;
  TslReadFollow     follow;
  gpointer          user_data;
  GCancellable     *cancellable;
  gboolean          must_parse;      /* no state cache: the read makes an index */

  /* Set by tsl_read_job_start(). */
  TslReadPlan       plan;
  gboolean          regular;         /* a regular file read from its start: key is its identity */
  gboolean          keyed;           /* and indexes are on: the index is found or recorded */
  TslFileKey        key;
  TslChunkIndex    *index;           /* INDEXED: the file's; WHOLE: being recorded, or NULL */
  TslReadFeed       feed;
} TslReadJob;

/* Decides job->plan (see above); loads the trace from the state cache for
 * TSL_READ_CACHED. FALSE when a range is asked of a file that was
 * replaced or cut short since this process last read it whole (a warning
 * when it was modified in place at the same size). */
gboolean          tsl_read_job_start            (TslReadJob       *job,
                                                 GError          **error);
/* Records `key` as what this process read of the job's file (whole reads;
 * a followed file read again after a truncation). */
void              tsl_read_job_remember         (TslReadJob       *job,
                                                 const TslFileKey *key);
/* After the reader finished: FALSE when the file changed in a way that
 * can mix two versions of it; a warning on the trace when it only grew.
 * `bytes_read` is what a whole read consumed of the file; `followed`, it
 * waited at the end for the file to grow. */
gboolean          tsl_read_job_end              (TslReadJob       *job,
                                                 guint64           bytes_read,
                                                 gboolean          followed,
                                                 GError          **error);
void              tsl_read_job_clear            (TslReadJob       *job);
void              tsl_read_job_progress         (TslReadJob       *job,
                                                 guint64           done,
                                                 guint64           total);
/* An I/O error gets the file's name in front (a reader's has it already). */
void              tsl_read_job_prefix_error     (TslReadJob       *job,
                                                 GError          **error);

/* The whole-read loop (tsl-read-stream.c) and the indexed one
 * (tsl-read-range.c), for a started job. */
gboolean          tsl_read_job_run_whole        (TslReadJob       *job,
                                                 GError          **error);
gboolean          tsl_read_job_run_indexed      (TslReadJob       *job,
                                                 GError          **error);

/* Two feeds of TSL_READ_FEED_BYTES. */
void              tsl_read_feed_init            (TslReadFeed      *feed,
                                                 GInputStream     *stream,
                                                 GCancellable     *cancellable);
/* `reader` reads ahead into the next feed while its format waits, on a
 * regular file only (a read there does not wait for a writer while the
 * trace is locked). */
void              tsl_read_feed_attach          (TslReadFeed      *feed,
                                                 TslReader        *reader);
void              tsl_read_feed_clear           (TslReadFeed      *feed);
/* The feed in full: up to TSL_READ_FEED_BYTES, fewer at the (current) end. */
gboolean          tsl_read_feed_fill            (TslReadFeed      *feed,
                                                 GError          **error);
/* Hands the filled buffer over (*n bytes) and makes the other one the next. */
const guint8     *tsl_read_feed_take            (TslReadFeed      *feed,
                                                 gsize            *n);

G_END_DECLS
