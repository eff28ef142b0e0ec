/* tsl-perfetto-intern.h: packet sequences and their incremental state (tsl-perfetto-intern.c)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "tsl-perfetto-model-types.h"

G_BEGIN_DECLS

/* The sequence of that trusted_packet_sequence_id, made if new. */
Sequence *_tsl_perfetto_find_sequence           (TslPerfettoModel *self,
                                                 guint32           id);
void      _tsl_perfetto_sequence_free           (Sequence         *seq);
/* TRUE if it held interned stacks, which checkpoints do not save. */
gboolean  _tsl_perfetto_clear_incremental_state (Sequence         *seq);
/* A packet's InternedData and TracePacketDefaults. */
void      _tsl_perfetto_interned_data           (TslPerfettoModel *self,
                                                 Sequence         *seq,
                                                 const guint8     *data,
                                                 gsize             len);
void      _tsl_perfetto_packet_defaults         (Sequence         *seq,
                                                 const guint8     *data,
                                                 gsize             len);

/* Inline: every packet asks, mostly for the sequence of the packet before. */
static inline Sequence *
get_sequence (TslPerfettoModel *self,
              guint32           id)
{
  if (G_LIKELY (self->last_seq != NULL && self->last_seq->id == id))
    return self->last_seq;
  return _tsl_perfetto_find_sequence (self, id);
}

G_END_DECLS
