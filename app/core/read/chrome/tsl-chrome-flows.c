/* tsl-chrome-flows.c: flow arrows of Chrome events, v1 (s/t/f) and v2 (bind_id)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Counted always; kept only while the trace wants flows (its exact view).
 */
#define G_LOG_DOMAIN "tsl-chrome"

#include <glib/gi18n-lib.h>

#include "tsl-chrome-flows.h"
#include "tsl-chrome-ids.h"
#include "tsl-hash.h"

typedef struct {
  gint64  pid;
  gint64  tid;
  gint64  time_ns;
  guint64 key;
  guint8  bind;
  guint8  dir;
} PendingFlow;

/* A member that routing does not scan (flow_in, flow_out, bp): looked up in
 * the event's own bytes, for the rare events that may have one. */
static gboolean
event_member (const TslChromeEvent *ev,
              const char           *name,
              TslJsonValue         *out)
{
  TslJsonValue whole = { 0, };

  if (ev->start == NULL || ev->stop == NULL || ev->stop <= ev->start)
    return FALSE;
  whole.type = TSL_JSON_OBJECT;
  whole.p = ev->start;
  whole.len = (guint32) MIN ((gsize) (ev->stop - ev->start), G_MAXUINT32);
  return tsl_json_find_member (&whole, name, out);
}

/* An id as text: a string's contents, a number as written, so that "7" and
 * 7 are one id. */
static void
append_id (TslChromeModel     *self,
           const TslJsonValue *id)
{
  if (id->type == TSL_JSON_STRING)
    {
      gsize len;
      const char *text = tsl_json_value_get_string (id, self->scratch, &len);

      g_string_append_len (self->key, text, len);
    }
  else if (id->type != TSL_JSON_NONE)
    g_string_append_len (self->key, id->p, id->len);
}

/* Flow v1 ids are scoped by category and name (as Perfetto's importer
 * does), an id2 "local" also by process. */
static guint64
v1_flow_key (TslChromeModel       *self,
             const TslChromeEvent *ev,
             gint64                pid)
{
  TslJsonValue inner;

  g_string_assign (self->key, "v1\x1f");
  append_id (self, &ev->cat);
  g_string_append_c (self->key, '\x1f');
  append_id (self, &ev->name);
  g_string_append_c (self->key, '\x1f');
  if (ev->id.type != TSL_JSON_NONE)
    append_id (self, &ev->id);
  else if (ev->id2.type == TSL_JSON_OBJECT && tsl_json_find_member (&ev->id2, "local", &inner))
    {
      g_string_append_printf (self->key, "%" G_GINT64_FORMAT "\x1f", pid);
      append_id (self, &inner);
    }
  else if (ev->id2.type == TSL_JSON_OBJECT && tsl_json_find_member (&ev->id2, "global", &inner))
    append_id (self, &inner);
  else
    append_id (self, &ev->id2);
  return tsl_hash_bytes (self->key->str, self->key->len);
}

static gboolean
value_is_true (const TslJsonValue *v)
{
  return v->type == TSL_JSON_TRUE ||
         (v->type == TSL_JSON_NUMBER && !(v->len == 1 && v->p[0] == '0'));
}

/* 's', 't', 'f': counted, and while the trace wants flows kept until the
 * end, when every thread that has slices has its track. 's' and 't' bind
 * to the enclosing slice, 'f' to the next slice to begin unless "bp": "e"
 * (Trace Event Format; Perfetto's and catapult's importers). */
void
_tsl_chrome_flow_event (TslChromeModel       *self,
                        const TslChromeEvent *ev,
                        char                  ph)
{
  PendingFlow flow = { 0, };
  gint64 start, end;
  TslJsonValue bp;

  tsl_trace_count_flow (self->trace, ph == 's' ? TSL_FLOW_COUNT_START
                                     : ph == 't' ? TSL_FLOW_COUNT_STEP : TSL_FLOW_COUNT_END, 1);
  if (G_LIKELY (!tsl_trace_wants_flows (self->trace)))
    return;
  if (!_tsl_chrome_get_ts (self, ev, &flow.time_ns) || !_tsl_chrome_get_ids (self, ev, &flow.pid, &flow.tid))
    return;
  if (!tsl_trace_get_exact (self->trace, &start, &end) || flow.time_ns < start || flow.time_ns >= end)
    return;
  flow.key = v1_flow_key (self, ev, flow.pid);
  flow.dir = ph == 's' ? TSL_FLOW_OUT : ph == 't' ? TSL_FLOW_IN | TSL_FLOW_OUT : TSL_FLOW_IN;
  flow.bind = TSL_FLOW_BIND_ENCLOSING;
  if (ph == 'f' && !(event_member (ev, "bp", &bp) && bp.type == TSL_JSON_STRING &&
                     bp.len == 1 && bp.p[0] == 'e'))
    flow.bind = TSL_FLOW_BIND_NEXT;

  if (self->pending_flows == NULL)
    self->pending_flows = g_array_new (FALSE, FALSE, sizeof (PendingFlow));
  if (self->pending_flows->len >= TSL_EXACT_FLOWS)
    {
      if (self->flows_dropped++ == 0)
        tsl_trace_add_warning (self->trace, _("flow arrows past %u endpoints in the view are not drawn"),
                               (guint) TSL_EXACT_FLOWS);
      return;
    }
  g_array_append_val (self->pending_flows, flow);
}

/* Flow v2: "bind_id" on the slice itself, "flow_in" ending (or passing)
 * a flow there, "flow_out" starting one. */
void
_tsl_chrome_slice_flow (TslChromeModel       *self,
                        const TslChromeEvent *ev,
                        Thread               *th,
                        gint64                ts,
                        guint                 depth)
{
  TslJsonValue v;
  guint dir = 0;

  tsl_trace_count_flow (self->trace, TSL_FLOW_COUNT_BIND_ID, 1);
  if (event_member (ev, "flow_in", &v) && value_is_true (&v))
    {
      dir |= TSL_FLOW_IN;
      tsl_trace_count_flow (self->trace, TSL_FLOW_COUNT_FLOW_IN, 1);
    }
  if (event_member (ev, "flow_out", &v) && value_is_true (&v))
    {
      dir |= TSL_FLOW_OUT;
      tsl_trace_count_flow (self->trace, TSL_FLOW_COUNT_FLOW_OUT, 1);
    }
  if (dir == 0 || !tsl_trace_wants_flows (self->trace))
    return;
  g_string_assign (self->key, "v2\x1f");
  append_id (self, &ev->bind_id);
  tsl_trace_record_flow (self->trace, th->track, tsl_hash_bytes (self->key->str, self->key->len),
                         ts, depth, TSL_FLOW_BIND_SLICE, dir);
}

/* End of input: the pending endpoints of threads that have a track. */
void
_tsl_chrome_record_pending_flows (TslChromeModel *self)
{
  if (self->pending_flows == NULL)
    return;
  for (guint i = 0; i < self->pending_flows->len; i++)
    {
      const PendingFlow *flow = &g_array_index (self->pending_flows, PendingFlow, i);
      gint64 key[2] = { flow->pid, flow->tid };
      Thread *th = g_hash_table_lookup (self->threads, key);

      if (th != NULL)
        tsl_trace_record_flow (self->trace, th->track, flow->key, flow->time_ns, 0,
                               flow->bind, flow->dir);
    }
  g_array_set_size (self->pending_flows, 0);
}
