/* tsl-perfetto-id-map.c: the model's guint64 → guint64 map (interned ids, uuids, sequences)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "tsl-perfetto"

#include <string.h>

#include "tsl-perfetto-id-map.h"

static void
id_map_grow (IdMap *map)
{
  IdMap old = *map;
  gsize cap = old.keys != NULL ? (old.mask + 1) * 2 : 16;

  map->keys = g_new (guint64, cap);
  map->values = g_new (guint64, cap);
  map->used = g_new0 (guint8, cap);
  map->mask = cap - 1;
  map->n = 0;
  for (gsize i = 0; old.keys != NULL && i <= old.mask; i++)
    if (old.used[i])
      _tsl_perfetto_id_map_insert (map, old.keys[i], old.values[i]);
  g_free (old.keys);
  g_free (old.values);
  g_free (old.used);
}

void
_tsl_perfetto_id_map_insert (IdMap   *map,
                             guint64  key,
                             guint64  value)
{
  gsize i;

  if (map->keys == NULL || (map->n + 1) * 4 > (map->mask + 1) * 3)
    id_map_grow (map);
  for (i = id_slot (key, map->mask); map->used[i]; i = (i + 1) & map->mask)
    if (map->keys[i] == key)
      {
        map->values[i] = value;
        return;
      }
  map->used[i] = 1;
  map->keys[i] = key;
  map->values[i] = value;
  map->n++;
}

void
_tsl_perfetto_id_map_clear (IdMap *map)
{
  if (map->n > 0)
    memset (map->used, 0, map->mask + 1);
  map->n = 0;
}

void
_tsl_perfetto_id_map_free (IdMap *map)
{
  g_clear_pointer (&map->keys, g_free);
  g_clear_pointer (&map->values, g_free);
  g_clear_pointer (&map->used, g_free);
  map->n = 0;
}
