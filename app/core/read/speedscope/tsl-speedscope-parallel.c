/* tsl-speedscope-parallel.c: a streamed evented profile's events on every core
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Where a buffer of events is cut (after an event), what a scanner thread
 * parses of each event (tsl_speedscope_parse_event(), from its bytes
 * alone), and the callbacks by which TslScanDriver (tsl-scan-pool.h) has
 * the model apply scanned segments in order or read on one thread.
 */
#define G_LOG_DOMAIN "tsl-speedscope"

#include <math.h>
#include <string.h>

#include "tsl-chunk-index.h"
#include "tsl-frames.h"
#include "tsl-format-private.h"
#include "tsl-json-scan.h"
#include "tsl-scan-pool.h"
#include "tsl-speedscope-private.h"

/* Where the scanner threads' segments start: right after an event's '}'
 * that a ',' and the next '{' follow (a guess: the model checks it). */
const char *
tsl_speedscope_after_event (const char *at,
                            const char *end)
{
  for (const char *q = at; q < end; q++)
    {
      const char *r;

      q = memchr (q, '}', end - q);
      if (q == NULL)
        return NULL;
      r = tsl_json_skip_ws (q + 1, end);
      if (r < end && *r == ',')
        {
          r = tsl_json_skip_ws (r + 1, end);
          if (r < end && *r == '{')
            return q + 1;
        }
    }
  return NULL;
}

/* ---- Events on every core ---- */

/* The events from seg->start (right after an event, or at the '[' when
 * need_in) that start before seg->end, parsed: what the one-thread loop
 * would parse there, from the bytes alone. */
static void
scan_events (gpointer        data,
             TslScanSegment *seg,
             gpointer        scratch)
{
  TslSpeedscope *self = data;
  TslScanItems *out = seg->result;   /* Event; stop: after the last one */
  TslJsonIter iter = { seg->start, self->plan_end, seg->need_in };
  TslJsonValue value;
  TslJsonError jerr;

  g_array_set_size (out->items, 0);
  out->stop = seg->start;
  while (iter.p < seg->end && tsl_json_iter_next_element (&iter, &value, &jerr) == TSL_JSON_OK)
    {
      Event e;

      tsl_speedscope_parse_event (&value, &e);
      g_array_append_val (out->items, e);
      out->stop = iter.p;
    }
}

const TslScanFuncs tsl_speedscope_scan_funcs = {
  .scan = scan_events,
  .item_size = sizeof (Event),
};

/* The one-thread loop over the streamed profile's events from p while p is
 * before `limit`; *blocked at anything but a whole event (the array's end,
 * an event the buffer cuts, bad syntax), which the caller's loop reads. */
static const char *
events_loop (TslSpeedscope *self,
             const char    *p,
             const char    *end,
             const char    *limit,
             gboolean      *blocked)
{
  TslJsonIter iter = { p, end, self->first };
  TslJsonValue value;
  TslJsonError jerr;
  Current *c = &self->cur;

  while (iter.p < limit)
    {
      if (tsl_json_iter_next_element (&iter, &value, &jerr) != TSL_JSON_OK)
        {
          *blocked = TRUE;
          break;
        }
      self->n_events++;
      tsl_speedscope_process_event (self, c->track, c->name, &value, c->factor, &c->bad);
      self->first = FALSE;
      p = iter.p;
    }
  return p;
}

static void
drive_plan (gpointer             data,
            const TslScanBuffer *buf)
{
  TslSpeedscope *self = data;

  self->plan_end = buf->end;
}

/* A segment's events are the ones the one-thread loop would parse where
 * it starts. */
static const char *
drive_apply (gpointer              data,
             const TslScanBuffer  *buf,
             const TslScanSegment *seg)
{
  TslSpeedscope *self = data;
  const TslScanItems *events = seg->result;
  Current *c = &self->cur;

  for (guint j = 0; j < events->items->len; j++)
    {
      self->n_events++;
      tsl_speedscope_model_event (self, c->track, c->name, &g_array_index (events->items, Event, j),
                   c->factor, &c->bad);
    }
  if (events->items->len > 0)
    self->first = FALSE;
  return events->stop;
}

/* From where a segment's scan stopped, and over a segment that does not
 * start where this thread is. */
static const char *
drive_serial (gpointer             data,
              const TslScanBuffer *buf,
              const char          *p,
              const char          *limit,
              gboolean            *blocked)
{
  return events_loop (data, p, buf->end, limit, blocked);
}

/* The events of a regular file's buffer scanned on every core and modelled
 * on this thread in order (tsl_scan_driver_run()). */
const TslScanDriveFuncs tsl_speedscope_drive_funcs = {
  .plan = drive_plan,
  .apply = drive_apply,
  .serial = drive_serial,
};
