/* tsl-hash.h: a fast hash of short byte strings
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <string.h>

#include <glib.h>

G_BEGIN_DECLS

/* Eight bytes a step: a good enough spread for names, stack strings and
 * small keys, several times faster than a byte loop (FNV, g_str_hash),
 * whose multiply per byte cost 5% of a Chrome ingest in name lookups. */
static inline guint64
tsl_hash_bytes (gconstpointer data,
                gsize         len)
{
  const char *s = data;
  guint64 h = G_GUINT64_CONSTANT (0x9e3779b97f4a7c15) ^ len;
  guint64 w = 0;

  if (len > 8)
    {
      for (; len > 8; s += 8, len -= 8)
        {
          memcpy (&w, s, 8);
          h = (h ^ w) * G_GUINT64_CONSTANT (0xff51afd7ed558ccd);
          h ^= h >> 32;
        }
      /* The last eight bytes, overlapping what came before. */
      memcpy (&w, s + len - 8, 8);
    }
  else if (len >= 4)
    {
      guint32 lo, hi;

      memcpy (&lo, s, 4);
      memcpy (&hi, s + len - 4, 4);
      w = lo | (guint64) hi << 32;
    }
  else if (len > 0)
    w = (guint8) s[0] | (guint64) (guint8) s[len / 2] << 8 | (guint64) (guint8) s[len - 1] << 16;
  h = (h ^ w) * G_GUINT64_CONSTANT (0xc4ceb9fe1a85ec53);
  return h ^ (h >> 29);
}

G_END_DECLS
