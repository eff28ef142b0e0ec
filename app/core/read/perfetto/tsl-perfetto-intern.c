/* tsl-perfetto-intern.c: packet sequences and their incremental state: interned data, defaults
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Interned ids resolve through open-addressing maps of the packet's sequence
 * (tsl-perfetto-id-map.h); event names with small ids through a direct
 * table. A reset of the sequence's incremental state clears them.
 */
#define G_LOG_DOMAIN "tsl-perfetto"

#include <string.h>

#include "tsl-perfetto-intern.h"
#include "tsl-proto.h"

void
_tsl_perfetto_sequence_free (Sequence *seq)
{
  for (guint i = 0; i < N_MAPS; i++)
    _tsl_perfetto_id_map_free (&seq->maps[i]);
  g_clear_pointer (&seq->stack_frames, g_array_unref);
  g_free (seq->clocks);
  g_free (seq->spare_clocks);
  g_free (seq);
}

Sequence *
_tsl_perfetto_find_sequence (TslPerfettoModel *self,
                             guint32           id)
{
  Sequence *seq = self->last_seq;
  guint64 found;

  if (seq != NULL && seq->id == id)
    return seq;
  if (id_map_lookup (&self->sequences, id, &found))
    seq = GSIZE_TO_POINTER (found);
  else
    {
      seq = g_new0 (Sequence, 1);
      seq->id = id;
      seq->stack_frames = g_array_new (FALSE, FALSE, sizeof (guint64));
      _tsl_perfetto_id_map_insert (&self->sequences, id, GPOINTER_TO_SIZE (seq));
    }
  self->last_seq = seq;
  return seq;
}

/* TRUE if it held interned stacks, which checkpoints do not save. */
gboolean
_tsl_perfetto_clear_incremental_state (Sequence *seq)
{
  gboolean held = seq->stack_frames->len > 0 || seq->maps[MAP_FRAMES].n > 0 ||
                  seq->maps[MAP_CALLSTACKS].n > 0 || seq->maps[MAP_STACK_LABELS].n > 0;

  for (guint i = 0; i < N_MAPS; i++)
    _tsl_perfetto_id_map_clear (&seq->maps[i]);
  g_array_set_size (seq->stack_frames, 0);
  seq->clock_id = 0;
  seq->has_track = FALSE;
  seq->default_track = NULL;
  memset (seq->names, 0, sizeof seq->names);
  seq->n_extra_uuids = 0;
  seq->n_extra_double_uuids = 0;
  /* Chrome resets its sequences often: the clocks' room is kept, cleared
   * where it was used (a new 3 KiB of zeros each time showed in profiles). */
  if (seq->clocks != NULL && seq->spare_clocks == NULL)
    {
      for (guint i = 0; i < 64; i++)
        if (seq->clocks_used & (G_GUINT64_CONSTANT (1) << i))
          memset (&seq->clocks[i], 0, sizeof (Clock));
      seq->spare_clocks = g_steal_pointer (&seq->clocks);
    }
  g_clear_pointer (&seq->clocks, g_free);
  seq->cache_epoch = 0;
  seq->valid = TRUE;
  seq->was_cleared = TRUE;
  return held;
}

/* Into `map`, and into `direct` (N_DIRECT_NAMES entries, with `seen`
 * their ids before resets) if not NULL. */
static void
intern_string_entries (TslPerfettoModel *self,
                       IdMap            *map,
                       guint32          *direct,
                       guint32          *seen,
                       const guint8     *data,
                       gsize             len)
{
  guint64 iid;
  const guint8 *str;
  gsize str_len;
  guint32 id;

  tsl_perfetto_interned_entry (data, len, &iid, &str, &str_len);
  if (str == NULL || str_len == 0)
    id = self->unnamed;
  else
    {
      const char *before = direct != NULL && iid < N_DIRECT_NAMES && seen[iid] != 0
                           ? tsl_trace_lookup (self->trace, seen[iid] - 1) : NULL;

      /* The bytes of an interned (repaired) name are that name's. */
      if (before != NULL && strlen (before) == str_len && memcmp (before, str, str_len) == 0)
        id = seen[iid] - 1;
      else
        id = tsl_trace_intern_len (self->trace, (const char *) str, str_len);
    }
  _tsl_perfetto_id_map_insert (map, iid, id);
  if (direct != NULL && iid < N_DIRECT_NAMES)
    direct[iid] = seen[iid] = id + 1;
}

static void
intern_frame (TslPerfettoModel *self,
              Sequence         *seq,
              const guint8     *data,
              gsize             len)
{
  TslProtoCursor c;
  TslProtoField f;
  guint64 iid = 0, function = 0, old;

  tsl_proto_cursor_init (&c, data, len);
  while (tsl_proto_next (&c, &f) == TSL_PROTO_OK)
    if (f.wire == TSL_PROTO_VARINT && f.number == 1)
      iid = f.value;
    else if (f.wire == TSL_PROTO_VARINT && f.number == 2)
      function = f.value;
  if (id_map_lookup (&seq->maps[MAP_FRAMES], iid, &old) && old == function)
    return;
  note_change (self);
  _tsl_perfetto_id_map_insert (&seq->maps[MAP_FRAMES], iid, function);
}

static void
intern_callstack (TslPerfettoModel *self,
                  Sequence         *seq,
                  const guint8     *data,
                  gsize             len)
{
  TslProtoCursor c;
  TslProtoField f;
  guint64 iid = 0;
  guint start = seq->stack_frames->len;
  guint64 count = 0;

  g_array_append_val (seq->stack_frames, count);
  tsl_proto_cursor_init (&c, data, len);
  while (tsl_proto_next (&c, &f) == TSL_PROTO_OK)
    {
      if (f.number == 1 && f.wire == TSL_PROTO_VARINT)
        iid = f.value;
      else if (f.number == 2 && f.wire == TSL_PROTO_VARINT)
        {
          g_array_append_val (seq->stack_frames, f.value);
          count++;
        }
      else if (f.number == 2 && f.wire == TSL_PROTO_LEN)
        {
          const guint8 *p = f.data, *end = f.data + f.len;
          guint64 v;

          while (p < end && tsl_proto_packed_next (&p, end, TSL_PROTO_VARINT, &v))
            {
              g_array_append_val (seq->stack_frames, v);
              count++;
            }
        }
    }
  g_array_index (seq->stack_frames, guint64, start) = count;
  note_change (self);
  _tsl_perfetto_id_map_insert (&seq->maps[MAP_CALLSTACKS], iid, start);
  _tsl_perfetto_id_map_insert (&seq->maps[MAP_STACK_LABELS], iid, 0);
}

void
_tsl_perfetto_interned_data (TslPerfettoModel *self,
                             Sequence         *seq,
                             const guint8     *data,
                             gsize             len)
{
  TslProtoCursor c;
  TslProtoField f;

  tsl_proto_cursor_init (&c, data, len);
  while (tsl_proto_next (&c, &f) == TSL_PROTO_OK)
    {
      if (f.wire != TSL_PROTO_LEN)
        continue;
      switch (f.number)
        {
        case 2:   /* event_names */
          intern_string_entries (self, &seq->maps[MAP_NAMES], seq->names, seq->seen_names, f.data, f.len);
          break;
        case 5:   /* function_names */
          intern_string_entries (self, &seq->maps[MAP_FUNCTIONS], NULL, NULL, f.data, f.len);
          break;
        case 6:   /* frames */
          intern_frame (self, seq, f.data, f.len);
          break;
        case 7:   /* callstacks */
          intern_callstack (self, seq, f.data, f.len);
          break;
        default:  /* categories, annotation names, source locations, ...: unused */
          break;
        }
    }
}

void
_tsl_perfetto_packet_defaults (Sequence     *seq,
                               const guint8 *data,
                               gsize         len)
{
  TslProtoCursor c, cc;
  TslProtoField f, g;

  tsl_proto_cursor_init (&c, data, len);
  while (tsl_proto_next (&c, &f) == TSL_PROTO_OK)
    {
      if (f.number == 58 && f.wire == TSL_PROTO_VARINT)
        seq->clock_id = (guint32) MIN (f.value, G_MAXUINT32);
      else if (f.number == 11 && f.wire == TSL_PROTO_LEN)
        {
          seq->n_extra_uuids = 0;
          seq->n_extra_double_uuids = 0;
          tsl_proto_cursor_init (&cc, f.data, f.len);
          while (tsl_proto_next (&cc, &g) == TSL_PROTO_OK)
            {
              if (g.number == 11 && g.wire == TSL_PROTO_VARINT)
                {
                  seq->has_track = TRUE;
                  seq->track = g.value;
                  seq->default_track = NULL;
                }
              else if (g.number == 31)
                tsl_perfetto_uuid_list (&g, seq->extra_uuids, &seq->n_extra_uuids);
              else if (g.number == 45)
                tsl_perfetto_uuid_list (&g, seq->extra_double_uuids, &seq->n_extra_double_uuids);
            }
        }
    }
}
