/* tsl-chrome-parallel.c: the Chrome reader's scans on read/tsl-scan-pool.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A segment's result is its TslChromeSegment; each scanner thread has its
 * own shape cache (the caller passes its own to get()).
 */
#define G_LOG_DOMAIN "tsl-reader"

#include "config.h"

#include "tsl-chrome-parallel.h"
#include "tsl-scan-pool.h"

struct _TslChromeScanners
{
  TslScanPool *pool;
};

static void
scan_segment (gpointer        data,
              TslScanSegment *seg,
              gpointer        scratch)
{
  TslChromeSegment *out = seg->result;
  gboolean need = seg->need_in;

  out->start = seg->start;
  out->end = seg->end;
  out->need_in = seg->need_in;
  g_array_set_size (out->events, 0);
  out->stop = tsl_chrome_run_events (seg->start, seg->end, out->events, scratch, &need);
  out->need_out = need;
}

static gpointer
shape_new (gpointer data)
{
  return g_new0 (TslChromeShape, 1);
}

static gpointer
segment_new (gpointer data)
{
  TslChromeSegment *seg = g_new0 (TslChromeSegment, 1);

  seg->events = g_array_new (FALSE, FALSE, sizeof (TslChromeEvent));
  return seg;
}

static void
segment_free (gpointer result)
{
  TslChromeSegment *seg = result;

  g_array_unref (seg->events);
  g_free (seg);
}

static const TslScanFuncs chrome_funcs = {
  .scan = scan_segment,
  .scratch_new = shape_new,
  .scratch_free = g_free,
  .result_new = segment_new,
  .result_free = segment_free,
};

TslChromeScanners *
tsl_chrome_scanners_new (guint      n_threads,
                         gboolean (*idle) (gpointer data),
                         gpointer   idle_data)
{
  TslChromeScanners *self = g_new0 (TslChromeScanners, 1);

  self->pool = tsl_scan_pool_new (n_threads, &chrome_funcs, NULL, idle, idle_data);
  return self;
}

void
tsl_chrome_scanners_free (TslChromeScanners *self)
{
  if (self == NULL)
    return;

  tsl_scan_pool_free (self->pool);
  g_free (self);
}

void
tsl_chrome_scanners_start (TslChromeScanners *self,
                           const char *const *cuts,
                           guint              n_cuts,
                           const char        *end,
                           gboolean           need_first)
{
  tsl_scan_pool_start (self->pool, cuts, n_cuts, end, need_first);
}

const TslChromeSegment *
tsl_chrome_scanners_get (TslChromeScanners *self,
                         guint              i,
                         TslChromeShape    *shape)
{
  return tsl_scan_pool_get (self->pool, i, shape)->result;
}

void
tsl_chrome_scanners_finish (TslChromeScanners *self)
{
  tsl_scan_pool_finish (self->pool);
}

guint64
tsl_chrome_scanners_get_by_caller (TslChromeScanners *self)
{
  return tsl_scan_pool_get_by_caller (self->pool);
}
