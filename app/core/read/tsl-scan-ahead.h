/* tsl-scan-ahead.h: records decoded on a second thread, applied in order
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * For formats whose every element depends on the ones before it (a V8
 * profile's samples and deltas, a Firefox profile's rows): they cannot be
 * cut between scanners, but their text can be decoded ahead of the thread
 * that applies them to the trace. A thread of its own runs the caller's
 * fill function, which decodes into blocks of fixed-size records of the
 * caller's shape; the calling thread takes the blocks in order from a
 * bounded ring (the fill waits for a free block), so memory stays flat.
 * A hand-over costs no lock or system call unless a side waits.
 * The fill must not touch the trace: only the calling thread does, in the
 * order one thread would. The thread is made once and waits between jobs.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Blocks in the ring of tsl_scan_ahead_new(). */
#define TSL_SCAN_AHEAD_RING 4
/* Bytes of a buffer worth a job: a job costs a few microseconds of
 * hand-over. */
#define TSL_SCAN_AHEAD_MIN_BYTES (64 * 1024)

typedef struct _TslScanAhead TslScanAhead;

/* Decodes up to `max` records into `records`; returns how many, and sets
 * *done when nothing follows them (the job's end). Runs on the thread. */
typedef guint (*TslScanAheadFill) (gpointer  data,
                                   gpointer  records,
                                   guint     max,
                                   gboolean *done);

/* The bytes left in a buffer that make a job worth it: at least
 * TSL_SCAN_AHEAD_MIN_BYTES, or TSL_SCAN_AHEAD_BYTES (tests, whose inputs
 * are small). */
gsize         tsl_scan_ahead_min_bytes (void);

TslScanAhead *tsl_scan_ahead_new   (gsize             record_size,
                                    guint             block_records);
/* The same with `ring` blocks: a side that waits sleeps until half of
 * them are free (the thread) or a quarter ready (the caller), so more
 * blocks mean fewer sleeps. */
TslScanAhead *tsl_scan_ahead_new_ring (gsize          record_size,
                                       guint          block_records,
                                       guint          ring);
/* Stops and joins the thread (a job under way is abandoned); says in the
 * debug log how many jobs and records it decoded. */
void          tsl_scan_ahead_free  (TslScanAhead     *self);
/* Starts a job; the previous one must have been taken to its end. */
void          tsl_scan_ahead_start (TslScanAhead     *self,
                                    TslScanAheadFill  fill,
                                    gpointer          data);
/* Some of the caller's work while it would wait (reading its next input,
 * tsl_reader_context_idle()); FALSE when there is none. */
typedef gboolean (*TslScanAheadIdle) (gpointer data);

/* The next block of the job, in order: its first record, and how many it
 * holds. The block taken before is given back. While none is ready, `idle`
 * (if not NULL) is called until it has nothing more to do. 0 at the job's
 * end, after which the fill's data is the caller's again. */
guint         tsl_scan_ahead_next  (TslScanAhead     *self,
                                    gpointer         *records,
                                    TslScanAheadIdle  idle,
                                    gpointer          idle_data);

/* How often each side slept on the mutex so far (tests, the debug log):
 * the thread waiting for a free block or a job, the caller for a block. */
void          tsl_scan_ahead_get_sleeps (TslScanAhead  *self,
                                         guint64       *thread_sleeps,
                                         guint64       *caller_sleeps);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TslScanAhead, tsl_scan_ahead_free)

G_END_DECLS
