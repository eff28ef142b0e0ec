/* tsl-perfetto-profiles.c: sampled stacks: StreamingProfilePackets and PerfSamples
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each sample is offered on its thread's track, labelled with its interned
 * callstack joined bottom frame first (kept per sequence while its frames
 * do not change).
 */
#define G_LOG_DOMAIN "tsl-perfetto"

#include <math.h>

#include "tsl-perfetto-clocks.h"
#include "tsl-perfetto-profiles.h"
#include "tsl-perfetto-track-table.h"
#include "tsl-proto.h"

static guint32
stack_label (TslPerfettoModel *self,
             Sequence         *seq,
             guint64           iid)
{
  guint64 label, start, count, function, name;
  GString *s = self->label;

  if (id_map_lookup (&seq->maps[MAP_STACK_LABELS], iid, &label) && label != 0)
    return (guint32) label;
  if (!id_map_lookup (&seq->maps[MAP_CALLSTACKS], iid, &start))
    {
      self->counts.n_undefined_iid++;
      return self->unnamed;
    }
  count = g_array_index (seq->stack_frames, guint64, start);
  g_string_truncate (s, 0);
  /* Bottom (outermost) frame first, as the stack labels want. */
  for (guint64 i = 0; i < count; i++)
    {
      guint64 frame = g_array_index (seq->stack_frames, guint64, start + 1 + i);

      if (i > 0)
        g_string_append_c (s, ';');
      if (id_map_lookup (&seq->maps[MAP_FRAMES], frame, &function) &&
          id_map_lookup (&seq->maps[MAP_FUNCTIONS], function, &name))
        g_string_append (s, tsl_trace_lookup (self->trace, (guint32) name));
      else
        g_string_append (s, "(unknown)");
    }
  label = s->len > 0 ? tsl_trace_intern_len (self->trace, s->str, s->len) : self->unnamed;
  /* The label of the frames as they are now, kept while they change. */
  note_change (self);
  _tsl_perfetto_id_map_insert (&seq->maps[MAP_STACK_LABELS], iid, label);
  return (guint32) label;
}

static void
stack_sample (TslPerfettoModel *self,
              Sequence         *seq,
              Track            *track,
              gint64            ts,
              guint64           callstack)
{
  guint t = ts_track (self, track);

  if (tsl_trace_offer (self->trace, t, ts, NAN))
    tsl_trace_set_label_id (self->trace, t, stack_label (self, seq, callstack));
}

void
_tsl_perfetto_streaming_profile (TslPerfettoModel *self,
                                 Sequence         *seq,
                                 const guint8     *data,
                                 gsize             len)
{
  TslProtoCursor c, stacks, deltas;
  TslProtoField f;
  guint64 callstack, delta;

  if (!seq->has_thread)
    {
      self->counts.n_no_thread++;
      return;
    }
  /* Both are packed repeated fields of the same length: walked together. */
  tsl_proto_cursor_init (&stacks, NULL, 0);
  tsl_proto_cursor_init (&deltas, NULL, 0);
  tsl_proto_cursor_init (&c, data, len);
  while (tsl_proto_next (&c, &f) == TSL_PROTO_OK)
    if (f.wire == TSL_PROTO_LEN && f.number == 1)
      tsl_proto_cursor_init (&stacks, f.data, f.len);
    else if (f.wire == TSL_PROTO_LEN && f.number == 2)
      tsl_proto_cursor_init (&deltas, f.data, f.len);

  while (stacks.p < stacks.end && deltas.p < deltas.end &&
         tsl_proto_packed_next (&stacks.p, stacks.end, TSL_PROTO_VARINT, &callstack) &&
         tsl_proto_packed_next (&deltas.p, deltas.end, TSL_PROTO_VARINT, &delta))
    {
      gint64 us, ts;

      if (add_overflows (seq->profile_ts_us, (gint64) delta, &us))
        {
          self->counts.n_bad_time++;
          break;
        }
      seq->profile_ts_us = us;
      if (us < 0 || us > G_MAXINT64 / 1000 ||
          !to_trace_time (self, seq, BUILTIN_MONOTONIC, (guint64) us * 1000, &ts))
        continue;
      stack_sample (self, seq, seq->thread_track, ts, callstack);
    }
}

void
_tsl_perfetto_perf_sample (TslPerfettoModel *self,
                           Sequence         *seq,
                           gint64            ts,
                           const guint8     *data,
                           gsize             len)
{
  TslProtoCursor c;
  TslProtoField f;
  gint64 pid = 0, tid = 0;
  guint64 callstack = 0;

  tsl_proto_cursor_init (&c, data, len);
  while (tsl_proto_next (&c, &f) == TSL_PROTO_OK)
    {
      if (f.wire != TSL_PROTO_VARINT)
        continue;
      if (f.number == 2)
        pid = (guint32) f.value;
      else if (f.number == 3)
        tid = (guint32) f.value;
      else if (f.number == 4)
        callstack = f.value;
    }
  /* Samples without a stack report lost records or unwinding errors. */
  if (callstack != 0)
    stack_sample (self, seq, _tsl_perfetto_thread_track (self, pid, tid), ts, callstack);
}
