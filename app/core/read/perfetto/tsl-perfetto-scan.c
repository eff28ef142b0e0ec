/* tsl-perfetto-scan.c: a TracePacket's fields, decoded without the model
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Field numbers are those of the public perfetto_trace.proto. The fields
 * nearly every packet and event carry are read by their one-byte keys, the
 * rest through TslProtoField; nothing is allocated.
 */
#define G_LOG_DOMAIN "tsl-perfetto"

#include "config.h"

#include "tsl-perfetto-scan.h"

typedef TslPerfettoEvent Event;
typedef TslPerfettoPacket Packet;


/* Field by field: a memset of the whole struct (its arrays are only read up
 * to their counts) took a third of the time of a small packet. */
static inline void
event_init (Event *ev)
{
  ev->type = TYPE_UNSPECIFIED;
  ev->has_track = FALSE;
  ev->has_name_iid = FALSE;
  ev->name = NULL;
  ev->name_len = 0;
  ev->has_counter = FALSE;
  ev->has_delta_us = FALSE;
  ev->has_absolute_us = FALSE;
  ev->duration_us = 0;
  ev->has_pid_override = FALSE;
  ev->has_tid_override = FALSE;
  ev->n_extra_uuids = 0;
  ev->has_extra_uuids = FALSE;
  ev->n_extra_values = 0;
  ev->n_extra_double_uuids = 0;
  ev->has_extra_double_uuids = FALSE;
  ev->n_extra_double_values = 0;
  ev->n_flow_ids = 0;
  ev->n_term_flow_ids = 0;
  ev->flows_seen[0] = ev->flows_seen[1] = 0;
}

/* flow_ids (fixed64, field 47) and terminating_flow_ids (48), or their
 * deprecated varint forms (36, 42); packed or not. */
static void
read_flow_ids (const TslProtoField *f,
               guint8               wire,
               guint64             *out,
               guint               *n,
               guint64             *seen)
{
  if (f->wire == wire)
    {
      (*seen)++;
      if (*n < MAX_EXTRA)
        out[(*n)++] = f->value;
    }
  else if (f->wire == TSL_PROTO_LEN)
    {
      const guint8 *p = f->data, *end = f->data + f->len;
      guint64 v;

      while (p < end && tsl_proto_packed_next (&p, end, wire, &v))
        {
          (*seen)++;
          if (*n < MAX_EXTRA)
            out[(*n)++] = v;
        }
    }
}

static gboolean
legacy_event (Event        *ev,
              const guint8 *data,
              gsize         len)
{
  TslProtoCursor c;
  TslProtoField f;
  int phase = 0;

  tsl_proto_cursor_init (&c, data, len);
  while (tsl_proto_next (&c, &f) == TSL_PROTO_OK)
    {
      if (f.wire != TSL_PROTO_VARINT)
        continue;
      switch (f.number)
        {
        case 1:
          if (!ev->has_name_iid && ev->name == NULL)
            {
              ev->has_name_iid = TRUE;
              ev->name_iid = f.value;
            }
          break;
        case 2: phase = (int) (gint32) f.value; break;
        case 3: ev->duration_us = (gint64) f.value; break;
        case 18: ev->has_pid_override = TRUE; ev->pid_override = (gint32) f.value; break;
        case 19: ev->has_tid_override = TRUE; ev->tid_override = (gint32) f.value; break;
        default: break;
        }
    }
  if (ev->type != TYPE_UNSPECIFIED)
    return TRUE;
  switch (phase)
    {
    case 'B': ev->type = TYPE_SLICE_BEGIN; break;
    case 'E': ev->type = TYPE_SLICE_END; break;
    case 'X': ev->type = TYPE_COMPLETE; break;
    default: ev->type = TYPE_INSTANT; break;
    }
  return TRUE;
}

/* One field of a TrackEvent, any but the common ones decode_event() reads
 * itself. */
static void
event_field (Event               *ev,
             const TslProtoField *f)
{
  switch (f->number)
    {
    case 9:
      if (f->wire == TSL_PROTO_VARINT)
        ev->type = (int) MIN (f->value, 99);
      break;
    case 11:
      if (f->wire == TSL_PROTO_VARINT)
        {
          ev->has_track = TRUE;
          ev->track = f->value;
        }
      break;
    case 10:
      if (f->wire == TSL_PROTO_VARINT)
        {
          ev->has_name_iid = TRUE;
          ev->name_iid = f->value;
          ev->name = NULL;
        }
      break;
    case 23:
      if (f->wire == TSL_PROTO_LEN)
        {
          ev->name = f->data;
          ev->name_len = f->len;
          ev->has_name_iid = FALSE;
        }
      break;
    case 30:
      if (f->wire == TSL_PROTO_VARINT)
        {
          ev->has_counter = TRUE;
          ev->counter = (double) (gint64) f->value;
        }
      break;
    case 44:
      if (f->wire == TSL_PROTO_I64)
        {
          ev->has_counter = TRUE;
          ev->counter = tsl_proto_double (f->value);
        }
      break;
    case 1:
      if (f->wire == TSL_PROTO_VARINT)
        {
          ev->has_delta_us = TRUE;
          ev->delta_us = (gint64) f->value;
        }
      break;
    case 16:
      if (f->wire == TSL_PROTO_VARINT)
        {
          ev->has_absolute_us = TRUE;
          ev->absolute_us = (gint64) f->value;
        }
      break;
    case 31:
      ev->has_extra_uuids = TRUE;
      tsl_perfetto_uuid_list (f, ev->extra_uuids, &ev->n_extra_uuids);
      break;
    case 45:
      ev->has_extra_double_uuids = TRUE;
      tsl_perfetto_uuid_list (f, ev->extra_double_uuids, &ev->n_extra_double_uuids);
      break;
    case 12:
      {
        guint64 v[MAX_EXTRA];
        guint n = 0;

        tsl_perfetto_uuid_list (f, v, &n);
        for (guint i = 0; i < n && ev->n_extra_values < MAX_EXTRA; i++)
          ev->extra_values[ev->n_extra_values++] = (gint64) v[i];
        break;
      }
    case 46:
      if (f->wire == TSL_PROTO_I64 && ev->n_extra_double_values < MAX_EXTRA)
        ev->extra_double_values[ev->n_extra_double_values++] = tsl_proto_double (f->value);
      else if (f->wire == TSL_PROTO_LEN)
        {
          const guint8 *p = f->data, *end = f->data + f->len;
          guint64 v;

          while (p < end && ev->n_extra_double_values < MAX_EXTRA &&
                 tsl_proto_packed_next (&p, end, TSL_PROTO_I64, &v))
            ev->extra_double_values[ev->n_extra_double_values++] = tsl_proto_double (v);
        }
      break;
    case 6:
      if (f->wire == TSL_PROTO_LEN)
        legacy_event (ev, f->data, f->len);
      break;
    case 47:
      read_flow_ids (f, TSL_PROTO_I64, ev->flow_ids, &ev->n_flow_ids, &ev->flows_seen[0]);
      break;
    case 36:
      read_flow_ids (f, TSL_PROTO_VARINT, ev->flow_ids, &ev->n_flow_ids, &ev->flows_seen[0]);
      break;
    case 48:
      read_flow_ids (f, TSL_PROTO_I64, ev->term_flow_ids, &ev->n_term_flow_ids,
                     &ev->flows_seen[1]);
      break;
    case 42:
      read_flow_ids (f, TSL_PROTO_VARINT, ev->term_flow_ids, &ev->n_term_flow_ids,
                     &ev->flows_seen[1]);
      break;
    default:  /* categories, annotations, typed arguments: read for details only */
      break;
    }
}

/* The keys (number << 3 | wire type) of the fields most events carry, read
 * without going through a TslProtoField: with the dispatch on the whole key
 * byte the wire type needs no test of its own. */
enum {
  KEY_DELTA_US = 1 << 3 | TSL_PROTO_VARINT,
  KEY_TYPE = 9 << 3 | TSL_PROTO_VARINT,
  KEY_NAME_IID = 10 << 3 | TSL_PROTO_VARINT,
  KEY_TRACK_UUID = 11 << 3 | TSL_PROTO_VARINT,
  KEY_EXTRA_VALUE = 12 << 3 | TSL_PROTO_VARINT,
  KEY_CATEGORY_IID = 3 << 3 | TSL_PROTO_VARINT,
  KEY_LEGACY_EVENT = 6 << 3 | TSL_PROTO_LEN,
  KEY_EXTRA_VALUES = 12 << 3 | TSL_PROTO_LEN,
};

/* A varint field with one-byte key `key` next, read; FALSE (nothing read)
 * if the next field is another or not whole. */
static inline gboolean
take_varint (TslProtoCursor *c,
             guint8          key,
             guint64        *v)
{
  const guint8 *q = c->p + 1;

  if (c->p < c->end && *c->p == key && tsl_proto_varint (&q, c->end, v) == TSL_PROTO_OK)
    {
      c->p = q;
      return TRUE;
    }
  return FALSE;
}

/* FALSE when the event is not well-formed. */
static gboolean
decode_event (Event        *ev,
              const guint8 *data,
              gsize         len)
{
  TslProtoCursor c;
  TslProtoField f;
  TslProtoStatus st;

  tsl_proto_cursor_init (&c, data, len);
  /* The orders most events come in, straight through, as in
   * decode_packet(): Chrome's (type, extra counter value, category, name)
   * and the SDK's (type, name, category). */
  {
    guint64 v;

    if (take_varint (&c, KEY_TYPE, &v))
      ev->type = (int) MIN (v, 99);
    if (take_varint (&c, KEY_EXTRA_VALUE, &v))
      ev->extra_values[ev->n_extra_values++] = (gint64) v;  /* the first: room */
    if (take_varint (&c, KEY_NAME_IID, &v))
      {
        ev->has_name_iid = TRUE;
        ev->name_iid = v;
        ev->name = NULL;
      }
    take_varint (&c, KEY_CATEGORY_IID, &v);
    if (take_varint (&c, KEY_NAME_IID, &v))
      {
        ev->has_name_iid = TRUE;
        ev->name_iid = v;
        ev->name = NULL;
      }
  }
  for (;;)
    {
      const guint8 *q = c.p + 1;
      guint8 key;
      guint64 v;

      if (G_UNLIKELY (c.p >= c.end))
        return TRUE;
      key = *c.p;
      /* One-byte keys of fields 1..15 with a varint, or a length that fits. */
      if (key >= 0x08 && key < 0x80 && (key & 7) == TSL_PROTO_VARINT &&
          tsl_proto_varint (&q, c.end, &v) == TSL_PROTO_OK)
        {
          c.p = q;
          switch (key)
            {
            case KEY_TYPE:
              ev->type = (int) MIN (v, 99);
              break;
            case KEY_NAME_IID:
              ev->has_name_iid = TRUE;
              ev->name_iid = v;
              ev->name = NULL;
              break;
            case KEY_TRACK_UUID:
              ev->has_track = TRUE;
              ev->track = v;
              break;
            case KEY_DELTA_US:
              ev->has_delta_us = TRUE;
              ev->delta_us = (gint64) v;
              break;
            case KEY_EXTRA_VALUE:
              if (ev->n_extra_values < MAX_EXTRA)
                ev->extra_values[ev->n_extra_values++] = (gint64) v;
              break;
            default:  /* categories, ...: unused */
              break;
            }
          continue;
        }
      if (key >= 0x08 && key < 0x80 && (key & 7) == TSL_PROTO_LEN &&
          key != KEY_LEGACY_EVENT && key != KEY_EXTRA_VALUES &&
          tsl_proto_varint (&q, c.end, &v) == TSL_PROTO_OK && v <= (guint64) (c.end - q))
        {
          /* Annotations, source locations, ...: read for details only. */
          c.p = q + v;
          continue;
        }
      if ((st = tsl_proto_next (&c, &f)) != TSL_PROTO_OK)
        return st == TSL_PROTO_END;
      event_field (ev, &f);
    }
}

static gboolean
decode_packet (Packet        *pk,
               TslProtoField *payload,
               const guint8  *data,
               gsize          len,
               const char   **what)
{
  TslProtoCursor c;
  TslProtoField f;
  TslProtoStatus st;

  pk->has_time = FALSE;
  pk->has_clock = FALSE;
  pk->seq_id = 0;
  pk->flags = 0;
  pk->cleared = FALSE;
  pk->dropped = FALSE;
  pk->kind = 0;
  pk->timestamp = 0;
  pk->clock_id = 0;
  pk->interned = NULL;
  pk->interned_len = 0;
  pk->defaults = NULL;
  pk->defaults_len = 0;
  payload->wire = TSL_PROTO_VARINT;
  payload->data = NULL;
  payload->len = 0;
  tsl_proto_cursor_init (&c, data, len);
  /* The orders most packets come in, straight through, before the loop:
   * Chrome's (timestamp, flags, event, uid, sequence) and the SDK's
   * (timestamp, sequence, flags, event). A predicted key costs a compare,
   * the loop's dispatch a jump table and a branch back. */
  {
    const guint8 *q;
    guint64 v;

    if (take_varint (&c, PKT_TIMESTAMP << 3 | TSL_PROTO_VARINT, &v))
      {
        pk->has_time = TRUE;
        pk->timestamp = v;
      }
    if (take_varint (&c, PKT_SEQUENCE_ID << 3 | TSL_PROTO_VARINT, &v))
      pk->seq_id = (guint32) v;
    if (take_varint (&c, PKT_SEQUENCE_FLAGS << 3 | TSL_PROTO_VARINT, &v))
      pk->flags = (guint32) v;
    q = c.p + 1;
    if (c.p < c.end && *c.p == (PKT_TRACK_EVENT << 3 | TSL_PROTO_LEN) &&
        tsl_proto_varint (&q, c.end, &v) == TSL_PROTO_OK && v <= (guint64) (c.end - q))
      {
        pk->kind = PKT_TRACK_EVENT;
        payload->wire = TSL_PROTO_LEN;
        payload->data = q;
        payload->len = (gsize) v;
        c.p = q + v;
      }
    take_varint (&c, PKT_TRUSTED_UID << 3 | TSL_PROTO_VARINT, &v);
    if (take_varint (&c, PKT_SEQUENCE_ID << 3 | TSL_PROTO_VARINT, &v))
      pk->seq_id = (guint32) v;
  }
  for (;;)
    {
      const guint8 *q = c.p + 1;
      guint64 v;

      if (G_UNLIKELY (c.p >= c.end))
        {
          st = TSL_PROTO_END;
          break;
        }
      /* The fields of most packets, by their one-byte keys (as in
       * decode_event()); then any field through the general path. */
      switch (*c.p)
        {
        case PKT_TIMESTAMP << 3 | TSL_PROTO_VARINT:
          if (tsl_proto_varint (&q, c.end, &v) != TSL_PROTO_OK)
            break;
          pk->has_time = TRUE;
          pk->timestamp = v;
          c.p = q;
          continue;
        case PKT_SEQUENCE_ID << 3 | TSL_PROTO_VARINT:
          if (tsl_proto_varint (&q, c.end, &v) != TSL_PROTO_OK)
            break;
          pk->seq_id = (guint32) v;
          c.p = q;
          continue;
        case PKT_SEQUENCE_FLAGS << 3 | TSL_PROTO_VARINT:
          if (tsl_proto_varint (&q, c.end, &v) != TSL_PROTO_OK)
            break;
          pk->flags = (guint32) v;
          c.p = q;
          continue;
        case PKT_TRUSTED_UID << 3 | TSL_PROTO_VARINT:
          if (tsl_proto_varint (&q, c.end, &v) != TSL_PROTO_OK)
            break;
          c.p = q;
          continue;
        case PKT_TRACK_EVENT << 3 | TSL_PROTO_LEN:
          if (tsl_proto_varint (&q, c.end, &v) != TSL_PROTO_OK || v > (guint64) (c.end - q))
            break;
          pk->kind = PKT_TRACK_EVENT;
          payload->wire = TSL_PROTO_LEN;
          payload->data = q;
          payload->len = (gsize) v;
          c.p = q + v;
          continue;
        default:
          break;
        }
      if ((st = tsl_proto_next (&c, &f)) != TSL_PROTO_OK)
        break;
      switch (f.number)
        {
        case PKT_TIMESTAMP:
          pk->has_time = TRUE;
          pk->timestamp = f.value;
          break;
        case PKT_TIMESTAMP_CLOCK_ID:
          pk->has_clock = TRUE;
          pk->clock_id = (guint32) MIN (f.value, G_MAXUINT32);
          break;
        case PKT_SEQUENCE_ID:
          pk->seq_id = (guint32) f.value;
          break;
        case PKT_SEQUENCE_FLAGS:
          pk->flags = (guint32) f.value;
          break;
        case PKT_INCREMENTAL_STATE_CLEARED:
          pk->cleared = f.value != 0;
          break;
        case PKT_PREVIOUS_PACKET_DROPPED:
          pk->dropped = f.value != 0;
          break;
        case PKT_INTERNED_DATA:
          if (f.wire != TSL_PROTO_LEN)
            goto wrong_wire;
          pk->interned = f.data;
          pk->interned_len = (guint32) f.len;
          continue;
        case PKT_DEFAULTS:
          if (f.wire != TSL_PROTO_LEN)
            goto wrong_wire;
          pk->defaults = f.data;
          pk->defaults_len = (guint32) f.len;
          continue;
        case PKT_TRUSTED_UID:
        case PKT_TRUSTED_PID:
        case PKT_FIRST_PACKET_ON_SEQUENCE:
        case PKT_MACHINE_ID:
          break;
        default:
          pk->kind = f.number;
          *payload = f;
          continue;
        }
      if (f.wire != TSL_PROTO_VARINT)
        goto wrong_wire;
    }
  if (st != TSL_PROTO_END)
    {
      *what = st == TSL_PROTO_TRUNCATED
              ? "a field runs past the end of its TracePacket"
              : "a field of the TracePacket has no valid key (number 0, wire type 3, 4, 6 or 7, "
                "or a varint longer than 10 bytes)";
      return FALSE;
    }

  /* Payloads this reader decodes must be messages (a track event read by
   * its one-byte key is). */
  if (pk->kind == PKT_TRACK_EVENT && payload->wire == TSL_PROTO_LEN)
    return TRUE;
  switch (pk->kind)
    {
    case PKT_TRACK_EVENT: case PKT_TRACK_DESCRIPTOR: case PKT_CLOCK_SNAPSHOT:
    case PKT_PROCESS_DESCRIPTOR: case PKT_THREAD_DESCRIPTOR: case PKT_PROCESS_TREE:
    case PKT_STREAMING_PROFILE: case PKT_PERF_SAMPLE: case PKT_COMPRESSED_PACKETS:
    case PKT_ZSTD_COMPRESSED_PACKETS:
      if (payload->wire != TSL_PROTO_LEN)
        goto wrong_wire;
      break;
    default:
      break;
    }
  return TRUE;

wrong_wire:
  *what = "a field of the TracePacket has the wrong wire type";
  return FALSE;
}

void
tsl_perfetto_decode (TslPerfettoRecord *rec,
                     const guint8      *data,
                     gsize              len)
{
  TslProtoField payload;

  rec->ok = decode_packet (&rec->pk, &payload, data, len, &rec->what);
  rec->event_ok = FALSE;
  if (rec->ok && rec->pk.kind == PKT_TRACK_EVENT)
    {
      event_init (&rec->ev);
      rec->event_ok = decode_event (&rec->ev, payload.data, payload.len);
      rec->ev.has_flows = (rec->ev.flows_seen[0] | rec->ev.flows_seen[1]) != 0;
    }
  else if (rec->ok)
    rec->payload = payload;
}
