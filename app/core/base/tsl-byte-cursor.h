/* tsl-byte-cursor.h: bounded reads of saved bytes, little-endian integers
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the caches and checkpoints write is read back from disk or from an
 * index that may be damaged: a read past the end never happens, it clears
 * `ok` and every later read fails too, so a reader checks once at the end.
 */
#pragma once

#include <string.h>

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  const guint8 *p;
  const guint8 *end;
  gboolean      ok;
} TslByteCursor;

static inline TslByteCursor
tsl_byte_cursor (const void *data,
                 gsize       len)
{
  return (TslByteCursor) { data, (const guint8 *) data + len, TRUE };
}

/* Whether `len` more bytes are there; if not, the cursor fails. */
static inline gboolean
tsl_byte_cursor_has (TslByteCursor *c,
                     gsize          len)
{
  if (!c->ok || (gsize) (c->end - c->p) < len)
    c->ok = FALSE;
  return c->ok;
}

/* The next `len` bytes, or NULL when they are not there. */
static inline const guint8 *
tsl_byte_cursor_take (TslByteCursor *c,
                      gsize          len)
{
  const guint8 *p = c->p;

  if (!tsl_byte_cursor_has (c, len))
    return NULL;
  c->p += len;
  return p;
}

static inline guint32
tsl_byte_cursor_take_u32 (TslByteCursor *c)
{
  const guint8 *p = tsl_byte_cursor_take (c, 4);
  guint32 v;

  if (p == NULL)
    return 0;
  memcpy (&v, p, 4);
  return GUINT32_FROM_LE (v);
}

static inline guint64
tsl_byte_cursor_take_u64 (TslByteCursor *c)
{
  const guint8 *p = tsl_byte_cursor_take (c, 8);
  guint64 v;

  if (p == NULL)
    return 0;
  memcpy (&v, p, 8);
  return GUINT64_FROM_LE (v);
}

static inline void
tsl_byte_put_u32 (GByteArray *out,
                  guint32     v)
{
  v = GUINT32_TO_LE (v);
  g_byte_array_append (out, (const guint8 *) &v, 4);
}

static inline void
tsl_byte_put_u64 (GByteArray *out,
                  guint64     v)
{
  v = GUINT64_TO_LE (v);
  g_byte_array_append (out, (const guint8 *) &v, 8);
}

G_END_DECLS
