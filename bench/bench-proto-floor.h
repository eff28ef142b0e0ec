/* bench-proto-floor.h: what bench-proto-floor's rungs share
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The field and packet walks are static inline, so that each rung (the
 * state rung in bench-proto-floor-state.c, the others in
 * bench-proto-floor.c) gets them inlined as when it was one file.
 */
#pragma once

#include <string.h>

#include <glib.h>

#include "tsl-proto.h"

#define K     2000

typedef struct {
  guint64 packets;
  guint64 events;
  guint64 sum;
} Acc;

/* Skips one field whose key is read; FALSE if it runs past the end. */
static inline gboolean
skip_value (const guint8 **p, const guint8 *end, guint64 key, guint64 *value)
{
  guint64 n;

  switch (key & 7)
    {
    case TSL_PROTO_VARINT:
      return tsl_proto_varint (p, end, value) == TSL_PROTO_OK;
    case TSL_PROTO_I64:
      if (end - *p < 8)
        return FALSE;
      memcpy (value, *p, 8);
      *p += 8;
      return TRUE;
    case TSL_PROTO_I32:
      if (end - *p < 4)
        return FALSE;
      *value = (guint64) (*p)[0] | (guint64) (*p)[1] << 8 | (guint64) (*p)[2] << 16 | (guint64) (*p)[3] << 24;
      *p += 4;
      return TRUE;
    case TSL_PROTO_LEN:
      if (tsl_proto_varint (p, end, &n) != TSL_PROTO_OK || n > (guint64) (end - *p))
        return FALSE;
      *value = n;
      *p += n;
      return TRUE;
    default:
      return FALSE;
    }
}

/* The next field: its key and its value (a LEN field's length, its bytes
 * skipped). Most fields of these traces are a one-byte key and a one-byte
 * varint or length: read as such with one test. */
static inline gboolean
next_field (const guint8 **pp, const guint8 *end, guint64 *key, guint64 *value)
{
  const guint8 *p = *pp;

  if (G_LIKELY (end - p >= 2 && ((p[0] | p[1]) & 0x80) == 0))
    {
      *key = p[0];
      *value = p[1];
      if ((p[0] & 7) == TSL_PROTO_VARINT)
        {
          *pp = p + 2;
          return TRUE;
        }
      if ((p[0] & 7) == TSL_PROTO_LEN)
        {
          if (p[1] > end - p - 2)
            return FALSE;
          *pp = p + 2 + p[1];
          return TRUE;
        }
    }
  return tsl_proto_varint (pp, end, key) == TSL_PROTO_OK && skip_value (pp, end, *key, value);
}

/* ── the packets of a Trace ─────────────────────────────────────────────
 *
 * Each rung consumes the whole packets of [p, p + n) and returns how many
 * bytes that was (a stream keeps the rest for its next read). A field of
 * the Trace that is not a packet is skipped; a malformed packet counts in
 * `bad` and is skipped. */

extern guint64 bad;  /* malformed packets, skipped */

typedef void (*PacketFunc) (const guint8 *p, const guint8 *end, Acc *a);

static inline gsize
walk_packets (const guint8 *start, gsize n, Acc *a, PacketFunc func)
{
  const guint8 *p = start, *end = start + n;

  while (p < end)
    {
      const guint8 *q = p;
      guint64 key, len;

      if (tsl_proto_varint (&q, end, &key) != TSL_PROTO_OK)
        break;
      if (key == (1 << 3 | TSL_PROTO_LEN))
        {
          if (tsl_proto_varint (&q, end, &len) != TSL_PROTO_OK || len > (guint64) (end - q))
            break;
          a->packets++;
          if (func != NULL)
            func (q, q + len, a);
          else
            a->sum += len;
          q += len;
        }
      else if (!skip_value (&q, end, key, &len))
        break;
      p = q;
    }
  return p - start;
}

/* Rung 4 (bench-proto-floor-state.c): decode and the least state. */
void    state_init  (void);
guint64 state_clear (void);
gsize   rung_state  (const guint8 *p, gsize n, gboolean eof, Acc *a);
/* The state's span, tracks, names and time slice, after a run. */
void    state_print (void);
