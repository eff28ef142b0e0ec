/* tsl-proto.h: the protobuf wire format, decoded in place
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A message is a run of fields: a varint key (number << 3 | wire type), then
 * a varint, 8 or 4 bytes, or a varint length and that many bytes. Nothing is
 * copied: a length-delimited field is a slice of the input.
 */
#pragma once

#include <string.h>

#include <glib.h>

G_BEGIN_DECLS

enum {
  TSL_PROTO_VARINT = 0,
  TSL_PROTO_I64    = 1,
  TSL_PROTO_LEN    = 2,
  TSL_PROTO_I32    = 5,
};

typedef enum {
  TSL_PROTO_OK,
  TSL_PROTO_END,        /* no bytes left */
  TSL_PROTO_TRUNCATED,  /* a varint, fixed value or length runs past the end */
  TSL_PROTO_BAD,        /* a varint over 10 bytes, field number 0, wire type 3, 4, 6 or 7 */
} TslProtoStatus;

typedef struct {
  guint32       number;
  guint8        wire;
  guint64       value;  /* varint, I64 and I32 fields */
  const guint8 *data;   /* LEN fields */
  gsize         len;
} TslProtoField;

typedef struct {
  const guint8 *p;
  const guint8 *end;
} TslProtoCursor;

static inline void
tsl_proto_cursor_init (TslProtoCursor *c,
                       const guint8   *data,
                       gsize           len)
{
  c->p = data;
  c->end = data + len;
}

/* One varint at *p; *p moves past it. */
static inline TslProtoStatus
tsl_proto_varint (const guint8 **p,
                  const guint8  *end,
                  guint64       *out)
{
  const guint8 *q = *p;
  guint64 v = 0;

  if (G_LIKELY (q < end && *q < 0x80))
    {
      *out = *q;
      *p = q + 1;
      return TSL_PROTO_OK;
    }
  /* Room for the longest varint: no end test per byte (timestamps take
   * eight or nine). */
  if (G_LIKELY (end - q >= 10))
    {
      for (guint i = 0; i < 10; i++)
        {
          v |= (guint64) (q[i] & 0x7f) << (7 * i);
          if (q[i] < 0x80)
            {
              *out = v;
              *p = q + i + 1;
              return TSL_PROTO_OK;
            }
        }
      return TSL_PROTO_BAD;
    }
  for (guint shift = 0; shift < 70; shift += 7)
    {
      if (q >= end)
        return TSL_PROTO_TRUNCATED;
      v |= (guint64) (*q & 0x7f) << shift;
      if (*q++ < 0x80)
        {
          *out = v;
          *p = q;
          return TSL_PROTO_OK;
        }
    }
  return TSL_PROTO_BAD;
}

static inline TslProtoStatus
tsl_proto_next (TslProtoCursor *c,
                TslProtoField  *f)
{
  const guint8 *p = c->p;
  guint64 key, n;
  TslProtoStatus st;

  if (p >= c->end)
    return TSL_PROTO_END;
  if ((st = tsl_proto_varint (&p, c->end, &key)) != TSL_PROTO_OK)
    return st;
  f->number = (guint32) MIN (key >> 3, G_MAXUINT32);
  f->wire = key & 7;
  f->value = 0;
  f->data = NULL;
  f->len = 0;
  if (f->number == 0)
    return TSL_PROTO_BAD;

  switch (f->wire)
    {
    case TSL_PROTO_VARINT:
      if ((st = tsl_proto_varint (&p, c->end, &f->value)) != TSL_PROTO_OK)
        return st;
      break;
    case TSL_PROTO_I64:
      if (c->end - p < 8)
        return TSL_PROTO_TRUNCATED;
      memcpy (&f->value, p, 8);
      f->value = GUINT64_FROM_LE (f->value);
      p += 8;
      break;
    case TSL_PROTO_I32:
      {
        guint32 v;

        if (c->end - p < 4)
          return TSL_PROTO_TRUNCATED;
        memcpy (&v, p, 4);
        f->value = GUINT32_FROM_LE (v);
        p += 4;
        break;
      }
    case TSL_PROTO_LEN:
      if ((st = tsl_proto_varint (&p, c->end, &n)) != TSL_PROTO_OK)
        return st;
      if (n > (guint64) (c->end - p))
        return TSL_PROTO_TRUNCATED;
      f->data = p;
      f->len = (gsize) n;
      p += n;
      break;
    default:
      return TSL_PROTO_BAD;
    }

  c->p = p;
  return TSL_PROTO_OK;
}

/* The next value of a packed repeated scalar (a LEN field holding varints,
 * or fixed64s when `wire` is TSL_PROTO_I64); FALSE at a malformed value. */
static inline gboolean
tsl_proto_packed_next (const guint8 **p,
                       const guint8  *end,
                       guint8         wire,
                       guint64       *out)
{
  if (wire == TSL_PROTO_I64)
    {
      if (end - *p < 8)
        return FALSE;
      memcpy (out, *p, 8);
      *out = GUINT64_FROM_LE (*out);
      *p += 8;
      return TRUE;
    }
  return tsl_proto_varint (p, end, out) == TSL_PROTO_OK;
}

static inline double
tsl_proto_double (guint64 bits)
{
  double d;

  memcpy (&d, &bits, sizeof d);
  return d;
}

G_END_DECLS
