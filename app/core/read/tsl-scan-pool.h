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
 * Chrome reader (chrome/tsl-chrome-scanners.c), the CSV reader and the perf
 * script reader use it.
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
  gpointer  (*result_new)   (gpointer data);
  void      (*result_free)  (gpointer result);
} TslScanFuncs;

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
/* Cancels the segments no thread has started and waits for the others:
 * then no scanner thread reads the buffer. */
void                  tsl_scan_pool_finish    (TslScanPool        *self);
/* How many segments the caller scanned itself (for the debug log). */
guint64               tsl_scan_pool_get_by_caller (TslScanPool    *self);

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

/* NULL when the read stays on one thread: not a regular file read ahead
 * (tsl_reader_context_reads_ahead()), TSL_READER_THREADS not automatic
 * (or "pipe"), or one thread. `find_other` may be NULL. */
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

G_END_DECLS
