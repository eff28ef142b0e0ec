/* tsl-scan-governor.h: whether a buffer goes on the scanner threads, measured
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * On idle cores a buffer scanned on every core reads faster than on one
 * thread; with the other cores busy (a build, another test) the scanners
 * and the modelling thread share a core and it reads slower. Neither the
 * load average nor the thread count tells in advance, so the governor
 * measures: it reads a probe of a few MiB each way, takes the wall time
 * per byte of each, and reads the next stretch (RATIO probes' worth) the
 * faster way, then probes again. The result is the same either way (every
 * parallel path gives the one-thread result by construction); only the
 * time differs. A probe costs at most its own bytes at the slower speed,
 * about 1/RATIO of the read.
 *
 * Called by the modelling thread only, at the start of each buffer worth
 * cutting.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Bytes of each probe, and how many probes' worth the winner then reads. */
#define TSL_SCAN_GOVERNOR_PROBE_BYTES ((guint64) 4 * 1024 * 1024)
#define TSL_SCAN_GOVERNOR_RATIO       32
/* A stretch decided by the time waited for a core, and its bounds. */
#define TSL_SCAN_GOVERNOR_WAIT_BYTES    ((guint64) 8 * 1024 * 1024)
#define TSL_SCAN_GOVERNOR_WAIT_PARALLEL 0.4
#define TSL_SCAN_GOVERNOR_WAIT_SERIAL   0.15

typedef struct _TslScanGovernor TslScanGovernor;

/* Monotonic time in ns (g_get_monotonic_time() by default; tests give a
 * simulated clock). */
typedef gint64 (*TslScanGovernorClock) (gpointer data);

/* A governor that measures with `clock` (NULL: the monotonic clock),
 * probes of `probe_bytes` (0: the default) and stretches of `ratio`
 * probes (0: the default). */
TslScanGovernor  *tsl_scan_governor_new         (TslScanGovernorClock  clock,
                                                 gpointer              clock_data,
                                                 guint64               probe_bytes,
                                                 guint                 ratio);
void              tsl_scan_governor_free        (TslScanGovernor      *self);
/* A buffer of `len` bytes starts: TRUE to scan it on the pool, FALSE on
 * the modelling thread alone. The time until the next call is the
 * buffer's. */
gboolean          tsl_scan_governor_decide      (TslScanGovernor      *self,
                                                 gsize                 len);
/* Before the first decide(): decide from `wait` (the time in ns the
 * modelling thread has waited for a core so far) instead of probing. Each
 * stretch of WAIT_BYTES, from every core at first, changes to one thread
 * when that thread waited more than WAIT_PARALLEL of its wall time, and
 * back when less than WAIT_SERIAL: a second core is busy, then free. For
 * input whose two ways are too close for the probes (compressed input:
 * tsl-scan-governor.c). */
void              tsl_scan_governor_set_wait_clock (TslScanGovernor      *self,
                                                    TslScanGovernorClock  wait,
                                                    gpointer              wait_data);
gboolean          tsl_scan_governor_uses_wait   (TslScanGovernor      *self);
/* Bytes read each way so far, and how many times the way changed (for
 * the debug log and the tests). */
void              tsl_scan_governor_get_counts  (TslScanGovernor      *self,
                                                 guint64              *parallel_bytes,
                                                 guint64              *serial_bytes,
                                                 guint                *switches);

G_END_DECLS
