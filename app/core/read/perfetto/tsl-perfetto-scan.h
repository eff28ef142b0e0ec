/* tsl-perfetto-scan.h: a TracePacket's fields, decoded without the model
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What a packet says that needs no state to read: its TracePacket fields
 * (timestamp, clock, sequence, flags, where its interned data, defaults and
 * payload are) and, for a TrackEvent, the event's fields. Pure functions of
 * the bytes, so the reading thread can decode while the model thread
 * models (tsl-perfetto-pipe.h); slices point into the packet.
 */
#pragma once

#include "tsl-proto.h"

G_BEGIN_DECLS

#define MAX_EXTRA       8         /* extra counter values per event */

/* TracePacket */
enum {
  PKT_FTRACE_EVENTS = 1,
  PKT_PROCESS_TREE = 2,
  PKT_TRUSTED_UID = 3,
  PKT_CLOCK_SNAPSHOT = 6,
  PKT_TIMESTAMP = 8,
  PKT_SEQUENCE_ID = 10,
  PKT_TRACK_EVENT = 11,
  PKT_INTERNED_DATA = 12,
  PKT_SEQUENCE_FLAGS = 13,
  PKT_INCREMENTAL_STATE_CLEARED = 41,
  PKT_PREVIOUS_PACKET_DROPPED = 42,
  PKT_PROCESS_DESCRIPTOR = 43,
  PKT_THREAD_DESCRIPTOR = 44,
  PKT_COMPRESSED_PACKETS = 50,
  PKT_STREAMING_PROFILE = 54,
  PKT_TIMESTAMP_CLOCK_ID = 58,
  PKT_DEFAULTS = 59,
  PKT_TRACK_DESCRIPTOR = 60,
  PKT_PERF_SAMPLE = 66,
  PKT_TRUSTED_PID = 79,
  PKT_FIRST_PACKET_ON_SEQUENCE = 87,
  PKT_MACHINE_ID = 98,
  PKT_ZSTD_COMPRESSED_PACKETS = 133,
};

enum {
  TYPE_UNSPECIFIED = 0,
  TYPE_SLICE_BEGIN = 1,
  TYPE_SLICE_END = 2,
  TYPE_INSTANT = 3,
  TYPE_COUNTER = 4,
  TYPE_COMPLETE = 100,  /* a legacy 'X' event with its duration */
};

/* Fields are ordered so that what every packet sets shares few cache
 * lines: records are written on one core and read on another. */
typedef struct {
  guint64       timestamp;
  guint32       clock_id;
  guint32       seq_id;
  guint32       flags;
  guint32       kind;       /* field number of the payload, 0 for none */
  guint8        has_time;
  guint8        has_clock;
  guint8        cleared;
  guint8        dropped;
  guint32       interned_len;   /* a packet is at most TSL_PERFETTO_MAX_PACKET */
  const guint8 *interned;
  const guint8 *defaults;
  guint32       defaults_len;
} TslPerfettoPacket;

typedef struct {
  /* Set for every event (event_init()). */
  int           type;
  guint8        has_track;
  guint8        has_name_iid;
  guint8        has_counter;
  guint8        has_delta_us;
  guint8        has_absolute_us;
  guint8        has_pid_override;
  guint8        has_tid_override;
  guint8        has_extra_uuids;
  guint8        has_extra_double_uuids;
  guint8        has_flows;                  /* flows_seen is not zero */
  guint         n_extra_uuids;
  guint         n_extra_values;
  guint         n_extra_double_uuids;
  guint         n_extra_double_values;
  guint         n_flow_ids;
  guint         n_term_flow_ids;
  const guint8 *name;
  gsize         name_len;
  /* Set where their flag says. */
  guint64       track;
  guint64       name_iid;
  double        counter;
  gint64        delta_us;
  /* Rare: read only where their flag (or type, for duration_us) says, and
   * left out of a packed record without them (tsl-perfetto-parallel.c). */
  gint64        absolute_us;
  gint64        pid_override;
  gint64        tid_override;
  gint64        duration_us;                /* set for every event */
  guint64       flows_seen[2];              /* set for every event; both, past MAX_EXTRA too */
  /* Read up to their counts. */
  guint64       extra_uuids[MAX_EXTRA];
  gint64        extra_values[MAX_EXTRA];
  guint64       extra_double_uuids[MAX_EXTRA];
  double        extra_double_values[MAX_EXTRA];
  guint64       flow_ids[MAX_EXTRA];        /* flow_ids, then terminating */
  guint64       term_flow_ids[MAX_EXTRA];
} TslPerfettoEvent;

/* One decoded packet. A TrackEvent's payload is decoded into ev and read
 * no further, so the two share their room: a record's usual prefix is
 * what crosses between cores in a parallel read. */
typedef struct {
  const char        *what;
  guint64            pos;       /* of its key byte, for positions in messages */
  guint8             ok;        /* a well-formed TracePacket; else `what` says why */
  guint8             event_ok;  /* kind is PKT_TRACK_EVENT: the event is well formed */
  guint32            packed;    /* set by the parallel decoding: its prefix's bytes */
  TslPerfettoPacket  pk;
  union {
    TslProtoField    payload;   /* kind is not PKT_TRACK_EVENT */
    TslPerfettoEvent ev;        /* kind is PKT_TRACK_EVENT and event_ok */
  };
} TslPerfettoRecord;

static inline void
tsl_perfetto_uuid_list (const TslProtoField *f,
                        guint64             *out,
                        guint               *n)
{
  if (f->wire == TSL_PROTO_VARINT)
    {
      if (*n < MAX_EXTRA)
        out[(*n)++] = f->value;
    }
  else if (f->wire == TSL_PROTO_LEN)
    {
      const guint8 *p = f->data, *end = f->data + f->len;
      guint64 v;

      while (p < end && *n < MAX_EXTRA && tsl_proto_packed_next (&p, end, TSL_PROTO_VARINT, &v))
        out[(*n)++] = v;
    }
}

/* Where decoded records go, in packet order: the model's side of the
 * pipe (tsl-perfetto-pipe.h) and of the parallel decoding
 * (tsl-perfetto-scan.h). */
typedef void (*TslPerfettoApplyFunc) (gpointer                 data,
                                      const TslPerfettoRecord *rec);
/* A record the model refused (tsl_perfetto_model_apply()), at pos. */
typedef void (*TslPerfettoMalformedFunc) (gpointer    data,
                                          guint64     pos,
                                          const char *what);

void tsl_perfetto_decode (TslPerfettoRecord *rec,
                          const guint8      *data,
                          gsize              len);

G_END_DECLS
