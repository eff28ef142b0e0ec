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

G_END_DECLS
