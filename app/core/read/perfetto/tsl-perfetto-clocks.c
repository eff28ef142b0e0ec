/* tsl-perfetto-clocks.c: every timestamp onto the trace clock, through ClockSnapshots
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every timestamp is put on the trace clock (BOOTTIME unless the first
 * ClockSnapshot names another) through the offsets that the latest
 * ClockSnapshot relating the two gave, possibly through a third clock;
 * sequence-scoped clocks (ids 64..127) and incremental (delta) clocks are
 * kept per sequence. The conversion itself, on every packet, is inline in
 * tsl-perfetto-clocks.h.
 */
#define G_LOG_DOMAIN "tsl-perfetto"

#include "tsl-perfetto-clocks.h"
#include "tsl-proto.h"

Clock *
_tsl_perfetto_get_clock (TslPerfettoModel *self,
                         Sequence         *seq,
                         guint32           id,
                         gboolean          create)
{
  guint64 index;

  if (id < 64)
    return &self->builtin[id];
  if (id < 128)
    {
      if (seq->clocks == NULL)
        {
          if (!create)
            return NULL;
          seq->clocks = seq->spare_clocks != NULL ? g_steal_pointer (&seq->spare_clocks)
                                                  : g_new0 (Clock, 64);
          seq->clocks_used = 0;
        }
      seq->clocks_used |= G_GUINT64_CONSTANT (1) << (id - 64);
      return &seq->clocks[id - 64];
    }
  if (id_map_lookup (&self->user_clocks, id, &index))
    return &g_array_index (self->user_clock_list, Clock, index);
  if (!create)
    return NULL;
  g_array_set_size (self->user_clock_list, self->user_clock_list->len + 1);
  _tsl_perfetto_id_map_insert (&self->user_clocks, id, self->user_clock_list->len - 1);
  return &g_array_index (self->user_clock_list, Clock, self->user_clock_list->len - 1);
}

static gboolean
clock_offset (TslPerfettoModel *self,
              Sequence         *seq,
              guint32           id,
              gint64           *offset)
{
  gint64 sum = 0;

  for (guint hops = 0; hops < 8; hops++)
    {
      const Clock *c;

      if (id == self->trace_clock)
        {
          *offset = sum;
          return TRUE;
        }
      c = _tsl_perfetto_get_clock (self, seq, id, FALSE);
      if (c == NULL)
        return FALSE;
      if (c->known)
        return !add_overflows (sum, c->offset, offset);
      if (!c->has_link || add_overflows (sum, c->link_offset, &sum))
        return FALSE;
      id = c->link;
    }
  return FALSE;
}

/* The clock `id` and its offset to the trace clock, into the sequence's
 * cache; FALSE (and counted) when no snapshot relates it. */
gboolean
_tsl_perfetto_cache_clock (TslPerfettoModel *self,
                           Sequence         *seq,
                           guint32           id)
{
  Clock *c = _tsl_perfetto_get_clock (self, seq, id, FALSE);
  gint64 offset;

  if (c == NULL || !clock_offset (self, seq, id, &offset))
    {
      self->counts.n_bad_clock++;
      return FALSE;
    }
  seq->cache_epoch = self->clock_epoch;
  seq->cache_id = id;
  seq->cache_clock = c;
  seq->cache_offset = offset;
  return TRUE;
}

typedef struct {
  guint32 id;
  gint64  ns;
} Reading;

gboolean
_tsl_perfetto_clock_snapshot (TslPerfettoModel *self,
                              Sequence         *seq,
                              const guint8     *data,
                              gsize             len)
{
  Reading readings[32];
  guint n = 0;

  self->clock_epoch++;
  TslProtoCursor c, cc;
  TslProtoField f, g;
  gint64 anchor = 0;
  gboolean have_anchor = FALSE;

  tsl_proto_cursor_init (&c, data, len);
  while (tsl_proto_next (&c, &f) == TSL_PROTO_OK)
    {
      guint32 id = 0;
      guint64 ts = 0, mult = 1;
      gboolean incremental = FALSE;
      Clock *clock;

      if (f.number == 2 && f.wire == TSL_PROTO_VARINT && !self->clock_used &&
          f.value > 0 && f.value < 64)
        self->trace_clock = (guint32) f.value;
      if (f.number != 1 || f.wire != TSL_PROTO_LEN)
        continue;
      tsl_proto_cursor_init (&cc, f.data, f.len);
      while (tsl_proto_next (&cc, &g) == TSL_PROTO_OK)
        {
          if (g.wire != TSL_PROTO_VARINT)
            continue;
          if (g.number == 1)
            id = (guint32) MIN (g.value, G_MAXUINT32);
          else if (g.number == 2)
            ts = g.value;
          else if (g.number == 3)
            incremental = g.value != 0;
          else if (g.number == 4)
            mult = MAX (g.value, 1);
        }
      if (id == 0 || n == G_N_ELEMENTS (readings))
        continue;
      clock = _tsl_perfetto_get_clock (self, seq, id, TRUE);
      clock->mult = mult;
      clock->incremental = incremental;
      if (incremental)
        clock->last = ts;
      if (__builtin_mul_overflow (ts, mult, &ts) || ts > G_MAXINT64)
        continue;
      readings[n++] = (Reading) { id, (gint64) ts };
    }

  /* The trace time of this instant: from the trace clock, else from any
   * clock already related to it. */
  for (guint i = 0; i < n && !have_anchor; i++)
    if (readings[i].id == self->trace_clock)
      {
        anchor = readings[i].ns;
        have_anchor = TRUE;
      }
  for (guint i = 0; i < n && !have_anchor; i++)
    {
      gint64 offset;

      if (clock_offset (self, seq, readings[i].id, &offset) &&
          !add_overflows (readings[i].ns, offset, &anchor))
        have_anchor = TRUE;
    }

  for (guint i = 0; i < n; i++)
    {
      Clock *clock = _tsl_perfetto_get_clock (self, seq, readings[i].id, TRUE);

      if (readings[i].id == self->trace_clock)
        continue;
      if (have_anchor)
        {
          clock->known = !add_overflows (anchor, -readings[i].ns, &clock->offset);
        }
      else if (i > 0 || n > 1)
        {
          /* Related to another clock of the snapshot, which a later
           * snapshot may relate to the trace clock. */
          guint j = i > 0 ? 0 : 1;

          clock->known = FALSE;
          clock->link = readings[j].id;
          clock->has_link = !add_overflows (readings[j].ns, -readings[i].ns,
                                                 &clock->link_offset);
        }
    }
  return TRUE;
}
