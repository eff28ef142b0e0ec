/* tsl-perfetto-private.h: Perfetto TracePackets into a TslTrace
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The reader (tsl-perfetto-reader.c) cuts the byte stream into TracePackets;
 * the model (tsl-perfetto-model.c) keeps what the packets build up — per
 * sequence interned strings, defaults and clocks, the tracks their
 * descriptors declare, open slices — and feeds the trace's samplers.
 */
#pragma once

#include "tsl-perfetto-scan.h"
#include "tsl-proto.h"
#include "tsl-trace.h"

G_BEGIN_DECLS

/* Packets larger than this are refused (Perfetto writes packets of at most
 * a few MiB; compressed bundles hold at most 512 KiB). */
#define TSL_PERFETTO_MAX_PACKET ((gsize) 256 * 1024 * 1024)

/* One {iid = 1, name = 2} entry of InternedData (event names, categories,
 * debug annotation names); *name is NULL when it has none. */
static inline void
tsl_perfetto_interned_entry (const guint8  *data,
                             gsize          len,
                             guint64       *iid,
                             const guint8 **name,
                             gsize         *name_len)
{
  TslProtoCursor c;
  TslProtoField f;

  *iid = 0;
  *name = NULL;
  *name_len = 0;
  tsl_proto_cursor_init (&c, data, len);
  while (tsl_proto_next (&c, &f) == TSL_PROTO_OK)
    if (f.number == 1 && f.wire == TSL_PROTO_VARINT)
      *iid = f.value;
    else if (f.number == 2 && f.wire == TSL_PROTO_LEN)
      {
        *name = f.data;
        *name_len = f.len;
      }
}

typedef struct _TslPerfettoModel TslPerfettoModel;

TslPerfettoModel *tsl_perfetto_model_new        (TslTrace         *trace);
void              tsl_perfetto_model_free       (TslPerfettoModel *self);
/* One TracePacket (its payload). FALSE if it is not a well-formed
 * TracePacket; then *what says what was wrong. Malformed packets inside
 * compressed_packets are counted, not reported here. */
gboolean          tsl_perfetto_model_packet     (TslPerfettoModel *self,
                                                 const guint8     *data,
                                                 gsize             len,
                                                 const char      **what);
/* The same, decoded already (tsl_perfetto_decode()). */
gboolean          tsl_perfetto_model_apply      (TslPerfettoModel        *self,
                                                 const TslPerfettoRecord *rec,
                                                 const char             **what);
/* Where the next packet's key byte (0x0A) is in the input, for the exact
 * view's slice details (tsl-event-details.h); packets inside a
 * compressed bundle have no position of their own. */
void              tsl_perfetto_model_set_offset (TslPerfettoModel *self,
                                                 gint64            offset);
/* Packets that carried a TrackEvent since the last call. */
guint64           tsl_perfetto_model_take_events (TslPerfettoModel *self);
/* A checkpoint: what events change, saved (at most max_len bytes, else
 * FALSE), and put back by a read that resumes there after reading every
 * chunk that changed the rest (tsl-perfetto-checkpoint.c). FALSE
 * from restore leaves the model as it was. */
gboolean          tsl_perfetto_model_save       (TslPerfettoModel *self,
                                                 GByteArray       *saved,
                                                 gsize             max_len);
gboolean          tsl_perfetto_model_restore    (TslPerfettoModel *self,
                                                 const guint8     *saved,
                                                 gsize             len);
/* End of input: closes open slices, turns counts into warnings. */
void              tsl_perfetto_model_finish     (TslPerfettoModel *self);
/* The end of a part that does not end the trace (tsl_read_path_part()):
 * the counts so far become the trace's tallies, or with keep FALSE (the
 * head read before a part) are dropped; either way counting restarts. */
void              tsl_perfetto_model_flush_counts (TslPerfettoModel *self,
                                                 gboolean          keep);

G_END_DECLS
