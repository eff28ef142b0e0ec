/* tsl-scan-governor.c: whether a buffer goes on the scanner threads, measured
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A cycle is: a probe the way the last stretch went, a probe the other
 * way, then a stretch the faster way. A buffer's time is from its
 * decide() to the next one, so it includes what the read does between
 * buffers (the next read, small pieces), the same for both ways. The
 * first probe's worth is read on every core and not timed: a read's
 * first megabytes cost more a byte (new tracks and names, samplers
 * growing, the scanners' first records faulted in), and the first probe
 * paid for them, so the second won: a gigabyte of Perfetto on 2 idle
 * cores read its first stretch, 128 MiB, on one thread, at 0.82 of one
 * thread's time against 0.78 on every core.
 *
 * With a wait clock (a compressed Chrome trace), no probes: each stretch of
 * TSL_SCAN_GOVERNOR_WAIT_BYTES keeps its way or changes it by how long the
 * modelling thread waited for a core. There the two ways differ by about
 * 10 % and the probes could not tell them apart: a read's cost per byte
 * falls as it goes on (the sampler folds), and the decompression ring
 * the way before left full or empty carries over into the next probe.
 */
#define G_LOG_DOMAIN "tsl-reader"

#include "config.h"

#include "tsl-scan-governor.h"

typedef enum {
  PHASE_WARM_UP,
  PHASE_PROBE_FIRST,
  PHASE_PROBE_SECOND,
  PHASE_RUN,
} Phase;

struct _TslScanGovernor
{
  TslScanGovernorClock clock;
  gpointer             clock_data;
  guint64              probe_bytes;
  guint                ratio;

  Phase                phase;
  gboolean             parallel;      /* the way of the current buffer */
  gboolean             timing;        /* a buffer decided and not yet timed */
  gsize                timing_len;
  gint64               last_ns;
  guint64              phase_bytes;   /* timed in this phase */
  gint64               phase_ns;
  double               first_rate;    /* ns per byte of the first probe */

  guint64              bytes[2];      /* [serial, parallel] */
  guint                switches;

  /* Waiting for a core: the clock, and where the stretch began. */
  TslScanGovernorClock wait;
  gpointer             wait_data;
  guint64              stretch_bytes;
  gint64               stretch_ns;
  gint64               stretch_wait;
};

static gint64
monotonic_ns (gpointer data)
{
  return g_get_monotonic_time () * 1000;
}

TslScanGovernor *
tsl_scan_governor_new (TslScanGovernorClock  clock,
                       gpointer              clock_data,
                       guint64               probe_bytes,
                       guint                 ratio)
{
  TslScanGovernor *self = g_new0 (TslScanGovernor, 1);

  self->clock = clock != NULL ? clock : monotonic_ns;
  self->clock_data = clock_data;
  self->probe_bytes = probe_bytes > 0 ? probe_bytes : TSL_SCAN_GOVERNOR_PROBE_BYTES;
  self->ratio = ratio > 0 ? ratio : TSL_SCAN_GOVERNOR_RATIO;
  self->phase = PHASE_WARM_UP;
  self->parallel = TRUE;
  return self;
}

void
tsl_scan_governor_free (TslScanGovernor *self)
{
  g_free (self);
}

static void
set_way (TslScanGovernor *self,
         gboolean         parallel)
{
  if (self->parallel != parallel)
    self->switches++;
  self->parallel = parallel;
}

/* The phase's bytes are in: on to the next phase. */
static void
next_phase (TslScanGovernor *self)
{
  double rate = (double) self->phase_ns / (double) MAX (self->phase_bytes, 1);

  switch (self->phase)
    {
    case PHASE_WARM_UP:
      self->phase = PHASE_PROBE_FIRST;
      break;
    case PHASE_PROBE_FIRST:
      self->first_rate = rate;
      self->phase = PHASE_PROBE_SECOND;
      set_way (self, !self->parallel);
      break;
    case PHASE_PROBE_SECOND:
      /* A tie keeps the second way: it is the one now running. */
      self->phase = PHASE_RUN;
      if (self->first_rate < rate)
        set_way (self, !self->parallel);
      break;
    case PHASE_RUN:
    default:
      self->phase = PHASE_PROBE_FIRST;
      break;
    }
  self->phase_bytes = 0;
  self->phase_ns = 0;
}

void
tsl_scan_governor_set_wait_clock (TslScanGovernor      *self,
                                  TslScanGovernorClock  wait,
                                  gpointer              wait_data)
{
  g_return_if_fail (self->bytes[FALSE] + self->bytes[TRUE] == 0);

  self->wait = wait;
  self->wait_data = wait_data;
}

gboolean
tsl_scan_governor_uses_wait (TslScanGovernor *self)
{
  return self->wait != NULL;
}

/* The stretch's share of wall time the modelling thread spent waiting
 * for a core: on 2 idle cores about 0.25 on every core (the read's own
 * threads outnumber the cores) and 0.02 on one thread; with the other
 * core busy, 0.5 and 0.35. Above the first bound every core loses, below
 * the second they are free again. */
static gboolean
decide_by_wait (TslScanGovernor *self,
                gsize            len)
{
  /* The clocks are read at a stretch's ends only (a file read each). */
  if (self->stretch_bytes == 0 || self->stretch_bytes >= TSL_SCAN_GOVERNOR_WAIT_BYTES)
    {
      gint64 now = self->clock (self->clock_data);
      gint64 waited = self->wait (self->wait_data);

      if (self->stretch_bytes > 0)
        {
          double share = (double) (waited - self->stretch_wait) / (double) MAX (now - self->stretch_ns, 1);

          if (self->parallel ? share > TSL_SCAN_GOVERNOR_WAIT_PARALLEL : share < TSL_SCAN_GOVERNOR_WAIT_SERIAL)
            set_way (self, !self->parallel);
          self->stretch_bytes = 0;
        }
      self->stretch_ns = now;
      self->stretch_wait = waited;
    }
  self->stretch_bytes += len;
  self->bytes[self->parallel] += len;
  return self->parallel;
}

gboolean
tsl_scan_governor_decide (TslScanGovernor *self,
                          gsize            len)
{
  gint64 now;

  if (self->wait != NULL)
    return decide_by_wait (self, len);
  now = self->clock (self->clock_data);

  if (self->timing)
    {
      guint64 want = self->phase == PHASE_RUN ? self->probe_bytes * self->ratio : self->probe_bytes;

      self->phase_bytes += self->timing_len;
      self->phase_ns += MAX (now - self->last_ns, 0);
      if (self->phase_bytes >= want)
        next_phase (self);
    }
  self->timing = TRUE;
  self->timing_len = len;
  self->last_ns = now;
  self->bytes[self->parallel] += len;
  return self->parallel;
}

void
tsl_scan_governor_get_counts (TslScanGovernor *self,
                              guint64         *parallel_bytes,
                              guint64         *serial_bytes,
                              guint           *switches)
{
  *parallel_bytes = self->bytes[TRUE];
  *serial_bytes = self->bytes[FALSE];
  *switches = self->switches;
}
