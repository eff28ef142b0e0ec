/* tsl-chrome-parallel.h: one buffer's events tokenized on every core
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The buffer of a parse call is cut into segments at guessed event starts;
 * a pool of scanner threads and the caller tokenize the segments into
 * arrays of TslChromeEvent (pure scanning: tsl_chrome_run_events(), no
 * model state), and the caller models them in order, checking that each
 * segment starts where the scan of the ones before it ended (see
 * tsl-chrome-reader.c). The result is the one-thread result by
 * construction, in either sampler mode.
 *
 * Scanner threads touch only the segments and the buffer, and only between
 * tsl_chrome_scanners_start() and tsl_chrome_scanners_finish(), which the
 * caller calls before its parse call returns. The threads are the format-
 * neutral pool of read/tsl-scan-pool.c.
 */
#pragma once

#include "tsl-chrome-private.h"

G_BEGIN_DECLS

typedef struct {
  const char *start;       /* the guessed event start (or the buffer's) */
  const char *end;
  gboolean    need_in;     /* a ',' is due at start */
  /* The scan's result. */
  GArray     *events;      /* TslChromeEvent */
  const char *stop;
  gboolean    need_out;
} TslChromeSegment;

typedef struct _TslChromeScanners TslChromeScanners;

/* n_threads - 1 scanner threads: the caller is the n-th. `idle` is the
 * caller's work while it waits (see TslReaderIdleFunc). */
TslChromeScanners *tsl_chrome_scanners_new      (guint              n_threads,
                                                 gboolean         (*idle) (gpointer data),
                                                 gpointer           idle_data);
void               tsl_chrome_scanners_free     (TslChromeScanners *self);
/* Scans the segments cut at cuts[0] < cuts[1] < … < cuts[n_cuts - 1] < end
 * (cuts[0] is where the caller is, with a ',' due when `need_first`). */
void               tsl_chrome_scanners_start    (TslChromeScanners *self,
                                                 const char *const *cuts,
                                                 guint              n_cuts,
                                                 const char        *end,
                                                 gboolean           need_first);
/* Segment i once scanned; the caller scans unclaimed segments itself with
 * `shape` while it waits. */
const TslChromeSegment *tsl_chrome_scanners_get (TslChromeScanners *self,
                                                 guint              i,
                                                 TslChromeShape    *shape);
/* Cancels the segments no thread has started and waits for the others:
 * then no scanner thread reads the buffer. */
void               tsl_chrome_scanners_finish   (TslChromeScanners *self);
/* How many segments the caller scanned itself (for the debug log). */
guint64            tsl_chrome_scanners_get_by_caller (TslChromeScanners *self);

G_END_DECLS
