/* tsl-perfetto-clocks.h: timestamps onto the trace clock (tsl-perfetto-clocks.c)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "tsl-perfetto-model-types.h"

G_BEGIN_DECLS

/* Clock `id` (sequence-scoped ones in `seq`); NULL when unknown and not `create`. */
Clock    *_tsl_perfetto_get_clock      (TslPerfettoModel *self,
                                        Sequence         *seq,
                                        guint32           id,
                                        gboolean          create);
/* The clock `id` and its offset to the trace clock, into the sequence's
 * cache; FALSE (and counted) when no snapshot relates it. */
gboolean  _tsl_perfetto_cache_clock    (TslPerfettoModel *self,
                                        Sequence         *seq,
                                        guint32           id);
/* A ClockSnapshot packet's payload. */
gboolean  _tsl_perfetto_clock_snapshot (TslPerfettoModel *self,
                                        Sequence         *seq,
                                        const guint8     *data,
                                        gsize             len);

/* GLib 2.74 has no checked signed addition. */
static inline gboolean
add_overflows (gint64  a,
               gint64  b,
               gint64 *out)
{
  return __builtin_add_overflow (a, b, out);
}

/* `value` on clock `id` as trace time in ns; FALSE (and counted) when it
 * cannot be converted or is out of range. Inline: every packet has one. */
static inline gboolean
to_trace_time (TslPerfettoModel *self,
               Sequence         *seq,
               guint32           id,
               guint64           value,
               gint64           *out)
{
  Clock *c;
  guint64 ns;

  self->clock_used = TRUE;
  if (G_LIKELY (id == self->trace_clock && id < 64 && !self->builtin[id].incremental &&
                self->builtin[id].mult <= 1))
    {
      if (value > G_MAXINT64)
        {
          self->counts.n_bad_time++;
          return FALSE;
        }
      *out = (gint64) value;
      return TRUE;
    }

  /* The sequence's last clock and its offset, until a snapshot (or a reset
   * of the sequence) changes any. */
  if (G_UNLIKELY (seq->cache_epoch != self->clock_epoch || seq->cache_id != id) &&
      !_tsl_perfetto_cache_clock (self, seq, id))
    return FALSE;
  c = seq->cache_clock;
  if (c->incremental)
    {
      c->last += value;
      value = c->last;
    }
  if (G_UNLIKELY (__builtin_mul_overflow (value, MAX (c->mult, 1), &ns) || ns > G_MAXINT64 ||
                  add_overflows ((gint64) ns, seq->cache_offset, out)))
    {
      self->counts.n_bad_time++;
      return FALSE;
    }
  return TRUE;
}

G_END_DECLS
