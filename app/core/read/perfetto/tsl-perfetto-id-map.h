/* tsl-perfetto-id-map.h: the model's guint64 → guint64 map (interned ids, uuids, sequences)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* guint64 → guint64, open addressing: interned ids, uuids, sequence ids. */
typedef struct {
  guint64 *keys;
  guint64 *values;
  guint8  *used;
  gsize    mask;
  gsize    n;
} IdMap;

static inline gsize
id_slot (guint64 key,
         gsize   mask)
{
  key *= G_GUINT64_CONSTANT (0x9E3779B97F4A7C15);
  return (gsize) (key ^ (key >> 29)) & mask;
}

static inline gboolean
id_map_lookup (const IdMap *map,
               guint64      key,
               guint64     *value)
{
  if (map->n == 0)
    return FALSE;
  for (gsize i = id_slot (key, map->mask);; i = (i + 1) & map->mask)
    {
      if (!map->used[i])
        return FALSE;
      if (map->keys[i] == key)
        {
          *value = map->values[i];
          return TRUE;
        }
    }
}

void _tsl_perfetto_id_map_insert (IdMap   *map,
                                  guint64  key,
                                  guint64  value);
/* Empties it, keeping its memory. */
void _tsl_perfetto_id_map_clear  (IdMap   *map);
void _tsl_perfetto_id_map_free   (IdMap   *map);

G_END_DECLS
