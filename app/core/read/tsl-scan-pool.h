/* tsl-scan-pool.h: one buffer's records tokenized on every core
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A format cuts the buffer of a parse call into segments at guessed record
 * starts; a pool of scanner threads and the caller tokenize the segments
 * (the format's `scan`: pure scanning into the segment's result, no model
 * state), and the caller models them in order, using a segment only if it
 * starts exactly where the records before it ended and rescanning
 * otherwise. So the result is the one-thread result by construction. The
 * Chrome reader (chrome/tsl-chrome-parallel.c) uses it directly; the CSV,
 * perf script, collapsed stacks and speedscope readers through
 * TslScanDriver (at the end).
 *
 * TslScanCutter (below) makes the cuts, the same way for every format: the
 * format only says where a record likely starts.
 *
 * Scanner threads touch only the segments, their results, the buffer and
 * what `data` points to, and only between tsl_scan_pool_start() and
 * tsl_scan_pool_finish(), which the caller calls before its parse call
 * returns; whatever they read through `data` must not change in between.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  const char *start;       /* the guessed record start (or the buffer's) */
  const char *end;         /* the next cut, or the buffer's end */
  gboolean    need_in;     /* the first segment: the caller's flag */
  gpointer    result;      /* the format's, made once by result_new */
} TslScanSegment;

typedef struct {
  /* Scans seg into seg->result with a thread's own scratch. */
  void      (*scan)         (gpointer data, TslScanSegment *seg, gpointer scratch);
  /* Optional: each scanner thread's scratch (the caller passes its own to
   * tsl_scan_pool_get()). */
  gpointer  (*scratch_new)  (gpointer data);
  void      (*scratch_free) (gpointer scratch);
  /* NULL: each result is a TslScanItems of item_size items. */
  gpointer  (*result_new)   (gpointer data);
  void      (*result_free)  (gpointer result);
  gsize       item_size;
} TslScanFuncs;

/* The usual result: the records scanned, and where the scan stopped. */
typedef struct {
  GArray     *items;
  const char *stop;
} TslScanItems;

typedef struct _TslScanPool TslScanPool;

/* n_threads - 1 scanner threads: the caller is the n-th. `idle` is the
 * caller's work while it waits (see TslReaderIdleFunc); `funcs` must
 * outlive the pool. */
TslScanPool          *tsl_scan_pool_new       (guint               n_threads,
                                               const TslScanFuncs *funcs,
                                               gpointer            data,
                                               gboolean          (*idle) (gpointer data),
                                               gpointer            idle_data);
void                  tsl_scan_pool_free      (TslScanPool        *self);
/* Scans the segments cut at cuts[0] < cuts[1] < … < cuts[n_cuts - 1] < end
 * (cuts[0] is where the caller is; its need_in is `need_first`). */
void                  tsl_scan_pool_start     (TslScanPool        *self,
                                               const char *const  *cuts,
                                               guint               n_cuts,
                                               const char         *end,
                                               gboolean            need_first);
/* Segment i once scanned; the caller scans unclaimed segments itself with
 * `scratch` while it waits. */
const TslScanSegment *tsl_scan_pool_get       (TslScanPool        *self,
                                               guint               i,
                                               gpointer            scratch);
/* At most `ahead` segments from the one the caller last asked for
 * (tsl_scan_pool_get()) are scanned, or any with 0 (the default): a
 * bound on the results waiting, when they are much larger than their
 * input. Not between start() and finish(). */
void                  tsl_scan_pool_set_ahead (TslScanPool        *self,
                                               guint               ahead);
/* Cancels the segments no thread has started and waits for the others:
 * then no scanner thread reads the buffer. */
void                  tsl_scan_pool_finish    (TslScanPool        *self);
/* How many segments the caller scanned itself (for the debug log). */
guint64               tsl_scan_pool_get_by_caller (TslScanPool    *self);
/* How many times a scanner thread went to sleep for want of work. */
guint64               tsl_scan_pool_get_worker_sleeps (TslScanPool  *self);

/* Where the buffer of a parse call is cut.
 *
 * A real cut is the format's guess at the first record start after a place
 * (`find`), from places about TSL_SCAN_SEGMENT_BYTES apart. With
 * TSL_READER_SPLIT_SEED=S (the tests' random cuts) the buffer is cut
 * instead at random places up to TSL_SCAN_RANDOM_BYTES apart: of the cuts
 * 1 in 4 are find()'s and the others any byte; with `find_other` (another
 * kind of place worth cutting at, a line start say) 1 in 6 are
 * find_other()'s, 1 in 6 find()'s and the others any byte. A wrong cut
 * costs a rescan and never changes the result (see above).
 *
 * Used by the Chrome, CSV and perf script readers; other readers build on
 * it, so keep this API stable. */

/* Segments of a regular file's buffer are about this big; a buffer of
 * fewer than two is not worth cutting. */
#define TSL_SCAN_SEGMENT_BYTES (64 * 1024)
#define TSL_SCAN_RANDOM_BYTES  4096

typedef struct _TslReaderContext TslReaderContext;

/* A likely record start in (at, end), at or after at, or NULL: pure, from
 * the bytes only. */
typedef const char *(*TslScanFindFunc) (const char *at,
                                        const char *end);

typedef struct _TslScanCutter TslScanCutter;

/* Whether a read scans on a pool: a regular file read ahead
 * (tsl_reader_context_reads_ahead()), TSL_READER_THREADS automatic (not
 * "pipe"), and more than one thread. */
gboolean              tsl_scan_pool_wanted      (TslReaderContext   *ctx);

/* NULL when the read stays on one thread (!tsl_scan_pool_wanted()).
 * `find_other` may be NULL. */
TslScanCutter        *tsl_scan_cutter_new       (TslReaderContext   *ctx,
                                                 TslScanFindFunc     find,
                                                 TslScanFindFunc     find_other);
void                  tsl_scan_cutter_free      (TslScanCutter      *self);
/* Whether the cuts are the tests' random ones (TSL_READER_SPLIT_SEED): then
 * every buffer is worth cutting, however small. */
gboolean              tsl_scan_cutter_is_random (const TslScanCutter *self);
/* Cuts the buffer from p: returns cuts[0] = p < cuts[1] < … < end, *n_cuts
 * of them, for tsl_scan_pool_start(); the array is the cutter's, valid
 * until the next call. One cut (*n_cuts == 1): nothing worth scanning in
 * parallel. */
const char *const    *tsl_scan_cutter_cut       (TslScanCutter      *self,
                                                 const char         *p,
                                                 const char         *end,
                                                 guint              *n_cuts);
/* A TslScanFindFunc: the start of the line after the first '\n' at or
 * after at. */
const char           *tsl_scan_find_line_start  (const char         *at,
                                                 const char         *end);

/* The loop every line or record reader runs over a cut buffer, once.
 *
 * The driver cuts the buffer (TslScanCutter), starts the pool, and takes
 * the segments in order on the modelling thread: a segment that starts
 * exactly where the modelling thread is (and that `usable` accepts) is
 * modelled by `apply`; from where its scan stopped, and over a segment cut
 * at a wrong guess, the format's one-thread loop (`serial`) goes on to the
 * next cut. It counts the segments and the wrong guesses, and logs them
 * when freed ("N segments scanned on T threads …", which the tests read).
 *
 * The callbacks get the reader's `data` and the parse call's buffer. */
typedef struct {
  const char *base;     /* the parse call's buffer */
  const char *end;
  gboolean    at_eof;
  gpointer    user;     /* the reader's, for this call */
} TslScanBuffer;

typedef struct {
  /* Optional: sets what the scanners read (the format's plan) once the
   * buffer is cut into two or more segments, before they start. */
  void        (*plan)   (gpointer data, const TslScanBuffer *buf);
  /* Optional: FALSE where even a segment that starts at the modelling
   * thread's place cannot be used (counted as a wrong guess). */
  gboolean    (*usable) (gpointer data);
  /* Models seg, which starts where the modelling thread is; returns where
   * the modelling thread is then. */
  const char *(*apply)  (gpointer data, const TslScanBuffer *buf, const TslScanSegment *seg);
  /* The one-thread loop over the records starting in [p, limit); sets
   * *blocked where it cannot go on in this buffer. Returns where it
   * stopped. */
  const char *(*serial) (gpointer data, const TslScanBuffer *buf, const char *p,
                         const char *limit, gboolean *blocked);
} TslScanDriveFuncs;

typedef struct _TslScanDriver TslScanDriver;

/* NULL when the read stays on one thread (as tsl_scan_cutter_new()).
 * `scan` and `scan_data` make the pool (when first needed); `drive` is
 * called with `data`; `scratch` is the modelling thread's for
 * tsl_scan_pool_get(). `scan` and `drive` must outlive the driver. */
TslScanDriver        *tsl_scan_driver_new       (TslReaderContext        *ctx,
                                                 TslScanFindFunc          find,
                                                 TslScanFindFunc          find_other,
                                                 const TslScanFuncs      *scan,
                                                 gpointer                 scan_data,
                                                 const TslScanDriveFuncs *drive,
                                                 gpointer                 data,
                                                 gpointer                 scratch);
/* Logs the segments and wrong guesses, if any (in the "tsl-reader" log
 * domain), and frees. NULL-safe. */
void                  tsl_scan_driver_free      (TslScanDriver           *self);
/* Whether the cuts are the tests' random ones (tsl_scan_cutter_is_random()). */
gboolean              tsl_scan_driver_is_random (const TslScanDriver     *self);
/* Whether a buffer of `len` bytes is worth cutting: random cuts, or two
 * segments' worth. FALSE for a NULL driver. */
gboolean              tsl_scan_driver_worth     (const TslScanDriver     *self,
                                                 gsize                    len);
/* Runs [p, buf->end) as above (need_first: the first segment's need_in).
 * Returns where the modelling thread stopped: p when there was nothing to
 * cut, else where `serial` set *blocked or the last segment ended. The
 * pool is finished when it returns. */
const char           *tsl_scan_driver_run       (TslScanDriver           *self,
                                                 const TslScanBuffer     *buf,
                                                 const char              *p,
                                                 gboolean                 need_first,
                                                 gboolean                *blocked);
/* The parse() of a format driven by a TslScanDriver: the buffer on every
 * core when `cut` (the format's tsl_scan_driver_worth() and more), then
 * drive->serial from where that stopped to the buffer's end. Returns where
 * parsing stopped. `self` may be NULL (one thread) when `cut` is FALSE. */
const char           *tsl_scan_driver_parse     (TslScanDriver           *self,
                                                 const TslScanDriveFuncs *drive,
                                                 gpointer                 data,
                                                 const TslScanBuffer     *buf,
                                                 gboolean                 cut);

G_END_DECLS
