/* tsl-perfetto-checkpoint.c: a Perfetto model's checkpoints, saved and restored
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "tsl-perfetto"

#include <string.h>

#include "tsl-byte-cursor.h"
#include "tsl-perfetto-clocks.h"
#include "tsl-perfetto-intern.h"
#include "tsl-proto.h"

/* Checkpoints (the chunk index's, tsl-chunk-index.h)
 *
 * A checkpoint saves what a read resuming there needs and packets change
 * often: every sequence's incremental state (the interned event and function
 * names since its last reset, TracePacketDefaults, its clocks, whether it is
 * valid), the trace's clocks, the open slices of each track and the ends
 * no begin paired yet, incremental counters' last values and legacy delta
 * timestamps. Chrome resets each
 * sequence's state about twice a second, so these change in every chunk;
 * saved whole (strings once, packed) they take a few KiB. What changes
 * rarely — tracks and their descriptors, legacy thread descriptors,
 * interned frames and callstacks — is not saved: the chunk that changes it
 * is read always (note_change()), so a resuming read has it as the whole
 * read had it there. */

#define SAVE_MAGIC   0x54                /* version 5 (4 was deflated, 3 kept no early ends, 2 no thread times, 1 no sequences) */
#define SAVE_DEFLATED 0x53               /* version 4, still read (checkpoints in the cache) */
#define SAVE_RAW_MAX (4 * 1024 * 1024)   /* before packing */

typedef struct {
  GByteArray *out;
  IdMap       strings;   /* trace string → index in the saved table */
  GArray     *names;     /* guint32 trace strings, in saved order */
} Saver;

/* What a checkpoint writes, field by field: appended inline (through
 * g_byte_array_append() it took a third of the time of a save). */
typedef struct {
  guint8 *data;
  gsize   len;
  gsize   cap;
} SaveBuf;

static G_GNUC_NO_INLINE void
save_buf_grow (SaveBuf *b,
               gsize    more)
{
  b->cap = MAX (MAX (b->cap * 2, b->len + more), 256);
  b->data = g_realloc (b->data, b->cap);
}

static inline void
put (SaveBuf    *out,
     const void *data,
     gsize       len)
{
  if (G_UNLIKELY (out->cap - out->len < len))
    save_buf_grow (out, len);
  if (len > 0)
    memcpy (out->data + out->len, data, len);
  out->len += len;
}

static inline void
put_u8 (SaveBuf    *out,
        guint8      v)
{
  put (out, &v, 1);
}

/* Integers as varints: most are small, and zstd does the rest. */
static inline void
put_u64 (SaveBuf    *out,
         guint64     v)
{
  guint8 tmp[10];
  guint n = 0;

  while (v >= 0x80)
    {
      tmp[n++] = (guint8) (v | 0x80);
      v >>= 7;
    }
  tmp[n++] = (guint8) v;
  put (out, tmp, n);
}

static inline void
put_u32 (SaveBuf    *out,
         guint32     v)
{
  put_u64 (out, v);
}

static guint32
saved_string (Saver   *sv,
              guint32  id)
{
  guint64 index;

  if (id_map_lookup (&sv->strings, id, &index))
    return (guint32) index;
  index = sv->names->len;
  g_array_append_val (sv->names, id);
  _tsl_perfetto_id_map_insert (&sv->strings, id, index);
  return (guint32) index;
}

static gboolean
clock_is_set (const Clock *c)
{
  return c->offset != 0 || c->mult != 0 || c->last != 0 || c->link != 0 || c->link_offset != 0 ||
         c->known || c->has_link || c->incremental;
}

static void
put_clock (SaveBuf     *out,
           guint32      id,
           const Clock *c)
{
  put_u32 (out, id);
  put_u64 (out, (guint64) c->offset);
  put_u64 (out, c->mult);
  put_u64 (out, c->last);
  put_u32 (out, c->link);
  put_u64 (out, (guint64) c->link_offset);
  put_u8 (out, c->known);
  put_u8 (out, c->has_link);
  put_u8 (out, c->incremental);
}

/* The (iid, name) entries of a string map. */
static void
put_names (Saver       *sv,
           SaveBuf     *out,
           const IdMap *map)
{
  put_u32 (out, (guint32) map->n);
  for (gsize i = 0; map->n > 0 && i <= map->mask; i++)
    if (map->used[i])
      {
        put_u64 (out, map->keys[i]);
        put_u32 (out, saved_string (sv, (guint32) map->values[i]));
      }
}

static void
put_sequence (Saver          *sv,
              SaveBuf        *out,
              const Sequence *seq)
{
  guint n_clocks = 0;

  put_u32 (out, seq->id);
  put_u8 (out, seq->valid);
  put_u32 (out, seq->clock_id);
  put_u8 (out, seq->has_track);
  put_u64 (out, seq->track);
  put_u32 (out, seq->n_extra_uuids);
  put (out, seq->extra_uuids, seq->n_extra_uuids * sizeof (guint64));
  put_u32 (out, seq->n_extra_double_uuids);
  put (out, seq->extra_double_uuids, seq->n_extra_double_uuids * sizeof (guint64));
  for (guint i = 0; seq->clocks != NULL && i < 64; i++)
    n_clocks += clock_is_set (&seq->clocks[i]);
  put_u8 (out, seq->clocks != NULL);
  put_u32 (out, n_clocks);
  for (guint i = 0; seq->clocks != NULL && i < 64; i++)
    if (clock_is_set (&seq->clocks[i]))
      put_clock (out, 64 + i, &seq->clocks[i]);
  put_names (sv, out, &seq->maps[MAP_NAMES]);
  put_names (sv, out, &seq->maps[MAP_FUNCTIONS]);
  put_u8 (out, seq->has_thread);
  put_u64 (out, (guint64) seq->ts_us);
  put_u64 (out, (guint64) seq->profile_ts_us);
}

static inline gboolean
counter_is_incremental (const Track *track)
{
  /* Thread-time counters too: their running value gives the slices of a
   * range read their CPU time (tsl-perfetto-model.c). */
  return track->kind == TRACK_COUNTER && track->incremental;
}

/* Appends the magic byte, the raw length and the raw bytes packed by zstd
 * at its fastest level: deflate's fastest took twice the instructions (and
 * its reset cleared 128 KiB each time) for a slightly larger result. */
static gboolean
save_packed (TslPerfettoModel *self,
             GByteArray       *saved,
             const guint8     *raw,
             gsize             len)
{
  guint8 magic = SAVE_MAGIC;
  guint32 raw_len = (guint32) len;
  gsize at = saved->len, bound = ZSTD_compressBound (len), packed_len;

  if (self->packer == NULL && (self->packer = ZSTD_createCCtx ()) == NULL)
    return FALSE;
  g_byte_array_append (saved, &magic, 1);
  g_byte_array_append (saved, (const guint8 *) &raw_len, sizeof raw_len);
  g_byte_array_set_size (saved, at + 5 + bound);
  packed_len = ZSTD_compressCCtx (self->packer, saved->data + at + 5, bound, raw, len, 1);
  if (ZSTD_isError (packed_len))
    {
      g_byte_array_set_size (saved, at);
      return FALSE;
    }
  g_byte_array_set_size (saved, at + 5 + packed_len);
  return TRUE;
}

gboolean
tsl_perfetto_model_save (TslPerfettoModel *self,
                         GByteArray       *saved,
                         gsize             max_len)
{
  SaveBuf body_buf = { NULL, 0, 0 }, raw_buf = { NULL, 0, 0 };
  SaveBuf *body = &body_buf, *raw = &raw_buf;
  gboolean ok;
  g_autoptr(GArray) names = g_array_new (FALSE, FALSE, sizeof (guint32));
  Saver sv = { NULL, { 0 }, names };
  guint n = 0;

  /* Clocks */
  put_u8 (body, self->clock_used);
  put_u32 (body, self->trace_clock);
  for (guint i = 0; i < 64; i++)
    n += clock_is_set (&self->builtin[i]);
  put_u32 (body, n);
  for (guint i = 0; i < 64; i++)
    if (clock_is_set (&self->builtin[i]))
      put_clock (body, i, &self->builtin[i]);
  put_u32 (body, (guint32) self->user_clocks.n);
  for (gsize i = 0; self->user_clocks.n > 0 && i <= self->user_clocks.mask; i++)
    if (self->user_clocks.used[i])
      put_clock (body, (guint32) self->user_clocks.keys[i],
                 &g_array_index (self->user_clock_list, Clock, self->user_clocks.values[i]));

  /* Sequences */
  put_u32 (body, (guint32) self->sequences.n);
  for (gsize i = 0; self->sequences.n > 0 && i <= self->sequences.mask; i++)
    if (self->sequences.used[i])
      put_sequence (&sv, body, GSIZE_TO_POINTER (self->sequences.values[i]));

  /* Tracks: open slices, incremental counters */
  n = 0;
  for (gsize i = 0; self->tracks.n > 0 && i <= self->tracks.mask; i++)
    if (self->tracks.used[i])
      {
        const Track *track = GSIZE_TO_POINTER (self->tracks.values[i]);

        n += track->n_open > 0 || track->overflow > 0 || track->n_early > 0 ||
             counter_is_incremental (track);
      }
  put_u32 (body, n);
  for (gsize i = 0; self->tracks.n > 0 && i <= self->tracks.mask; i++)
    {
      const Track *track;

      if (!self->tracks.used[i])
        continue;
      track = GSIZE_TO_POINTER (self->tracks.values[i]);
      if (track->n_open == 0 && track->overflow == 0 && track->n_early == 0 &&
          !counter_is_incremental (track))
        continue;
      put_u64 (body, track->uuid);
      put (body, &track->last_value, sizeof track->last_value);
      put_u32 (body, track->n_open);
      put_u32 (body, track->overflow);
      for (guint j = 0; j < track->n_open; j++)
        {
          put_u64 (body, (guint64) track->open[j].start_ns);
          put_u64 (body, (guint64) track->open[j].offset);
          put_u32 (body, saved_string (&sv, track->open[j].name));
          put_u64 (body, (guint64) track->open[j].thread_ns);
        }
      put_u32 (body, track->n_early);
      for (guint j = 0; j < track->n_early; j++)
        {
          put_u64 (body, (guint64) track->early[j].end_ns);
          put_u64 (body, (guint64) track->early[j].offset);
          put_u8 (body, track->early[j].before_begin);
        }
      if (body->len > SAVE_RAW_MAX)
        break;
    }
  _tsl_perfetto_id_map_free (&sv.strings);

  /* The strings first, then the body; packed. */
  put_u32 (raw, names->len);
  for (guint i = 0; i < names->len && raw->len <= SAVE_RAW_MAX; i++)
    {
      const char *name = tsl_trace_lookup (self->trace, g_array_index (names, guint32, i));
      guint32 len = name != NULL ? strlen (name) : 0;

      put_u32 (raw, len);
      put (raw, name, len);
    }
  put (raw, body->data, body->len);
  g_free (body->data);
  ok = raw->len <= SAVE_RAW_MAX && save_packed (self, saved, raw->data, raw->len);
  g_free (raw->data);
  return ok && saved->len <= max_len;
}

/* Integers are varints here, not the cursor's fixed little-endian ones. */
typedef TslByteCursor Taker;

static gboolean
take (Taker *tk,
      void  *out,
      gsize  len)
{
  if (!tsl_byte_cursor_has (tk, len))
    return FALSE;
  if (out != NULL)
    memcpy (out, tk->p, len);
  tk->p += len;
  return TRUE;
}

static guint8
take_u8 (Taker *tk)
{
  guint8 v = 0;

  take (tk, &v, 1);
  return v;
}

static guint64
take_u64 (Taker *tk)
{
  guint64 v = 0;

  if (!tk->ok || tsl_proto_varint (&tk->p, tk->end, &v) != TSL_PROTO_OK)
    {
      tk->ok = FALSE;
      return 0;
    }
  return v;
}

static guint32
take_u32 (Taker *tk)
{
  guint64 v = take_u64 (tk);

  if (v > G_MAXUINT32)
    tk->ok = FALSE;
  return (guint32) v;
}

static void
take_clock (Taker   *tk,
            guint32 *id,
            Clock   *c)
{
  *id = take_u32 (tk);
  c->offset = (gint64) take_u64 (tk);
  c->mult = take_u64 (tk);
  c->last = take_u64 (tk);
  c->link = take_u32 (tk);
  c->link_offset = (gint64) take_u64 (tk);
  c->known = take_u8 (tk) != 0;
  c->has_link = take_u8 (tk) != 0;
  c->incremental = take_u8 (tk) != 0;
}

static void
take_names (Taker     *tk,
            GPtrArray *strings,
            IdMap     *map,
            guint32   *direct)
{
  guint32 n = take_u32 (tk);

  for (guint32 i = 0; i < n && tk->ok; i++)
    {
      guint64 iid = take_u64 (tk);
      guint32 index = take_u32 (tk);
      guint32 id;

      if (!tk->ok || index >= strings->len)
        {
          tk->ok = FALSE;
          return;
        }
      id = GPOINTER_TO_UINT (g_ptr_array_index (strings, index));
      if (map != NULL)
        {
          _tsl_perfetto_id_map_insert (map, iid, id);
          if (direct != NULL && iid < N_DIRECT_NAMES)
            direct[iid] = id + 1;
        }
    }
}

static void
reset_sequence (Sequence *seq)
{
  _tsl_perfetto_id_map_clear (&seq->maps[MAP_NAMES]);
  _tsl_perfetto_id_map_clear (&seq->maps[MAP_FUNCTIONS]);
  memset (seq->names, 0, sizeof seq->names);
  seq->valid = FALSE;
  seq->clock_id = 0;
  seq->has_track = FALSE;
  seq->track = 0;
  seq->default_track = NULL;
  seq->n_extra_uuids = 0;
  seq->n_extra_double_uuids = 0;
  g_clear_pointer (&seq->clocks, g_free);
  seq->cache_epoch = 0;
}

/* Reads `raw` against the model (pass 0) before changing anything (pass
 * 1): a state that does not fit leaves the model as it was. */
static gboolean
restore_pass (TslPerfettoModel *self,
              const guint8     *raw,
              gsize             len,
              guint             pass,
              GPtrArray        *strings)
{
  Taker tk = tsl_byte_cursor (raw, len);
  gboolean apply = pass == 1;
  guint32 n, trace_clock;
  guint8 clock_used;

  n = take_u32 (&tk);
  for (guint32 i = 0; i < n && tk.ok; i++)
    {
      guint32 slen = take_u32 (&tk);
      const guint8 *s = tk.p;

      if (take (&tk, NULL, slen) && !apply)
        g_ptr_array_add (strings, GUINT_TO_POINTER (slen > 0 ? tsl_trace_intern_len (self->trace, (const char *) s, slen)
                                                             : self->unnamed));
    }

  /* Clocks */
  clock_used = take_u8 (&tk);
  trace_clock = take_u32 (&tk);
  if (!tk.ok || trace_clock == 0 || trace_clock >= 64 || clock_used > 1)
    return FALSE;
  if (apply)
    {
      self->clock_used = clock_used;
      self->trace_clock = trace_clock;
      self->clock_epoch++;
      memset (self->builtin, 0, sizeof self->builtin);
      _tsl_perfetto_id_map_clear (&self->user_clocks);
      g_array_set_size (self->user_clock_list, 0);
    }
  n = take_u32 (&tk);
  for (guint32 i = 0; i < n && tk.ok; i++)
    {
      Clock c;
      guint32 id;

      take_clock (&tk, &id, &c);
      if (id >= 64)
        return FALSE;
      if (apply)
        self->builtin[id] = c;
    }
  n = take_u32 (&tk);
  for (guint32 i = 0; i < n && tk.ok; i++)
    {
      Clock c;
      guint32 id;

      take_clock (&tk, &id, &c);
      if (id < 128)
        return FALSE;
      if (apply)
        *_tsl_perfetto_get_clock (self, NULL, id, TRUE) = c;
    }

  /* Sequences: those not saved were not there, or are as new. */
  if (apply)
    for (gsize i = 0; self->sequences.n > 0 && i <= self->sequences.mask; i++)
      if (self->sequences.used[i])
        reset_sequence (GSIZE_TO_POINTER (self->sequences.values[i]));
  n = take_u32 (&tk);
  for (guint32 i = 0; i < n && tk.ok; i++)
    {
      guint32 id = take_u32 (&tk), n_extra, n_clocks;
      Sequence *seq = NULL;
      guint64 found;
      gboolean has_clocks, has_thread, valid, has_track;
      guint32 clock_id;
      guint64 track, ts_us, profile_ts_us;

      if (apply)
        seq = get_sequence (self, id);
      else if (id_map_lookup (&self->sequences, id, &found))
        seq = GSIZE_TO_POINTER (found);
      valid = take_u8 (&tk) != 0;
      clock_id = take_u32 (&tk);
      has_track = take_u8 (&tk) != 0;
      track = take_u64 (&tk);
      if (apply)
        {
          seq->valid = valid;
          seq->clock_id = clock_id;
          seq->has_track = has_track;
          seq->track = track;
        }
      n_extra = take_u32 (&tk);
      if (n_extra > MAX_EXTRA)
        return FALSE;
      take (&tk, apply ? seq->extra_uuids : NULL, n_extra * sizeof (guint64));
      if (apply)
        seq->n_extra_uuids = n_extra;
      n_extra = take_u32 (&tk);
      if (n_extra > MAX_EXTRA)
        return FALSE;
      take (&tk, apply ? seq->extra_double_uuids : NULL, n_extra * sizeof (guint64));
      if (apply)
        seq->n_extra_double_uuids = n_extra;
      has_clocks = take_u8 (&tk) != 0;
      if (apply && has_clocks)
        {
          seq->clocks = g_new0 (Clock, 64);
          seq->clocks_used = G_MAXUINT64;
        }
      n_clocks = take_u32 (&tk);
      for (guint32 j = 0; j < n_clocks && tk.ok; j++)
        {
          Clock c;
          guint32 cid;

          take_clock (&tk, &cid, &c);
          if (!has_clocks || cid < 64 || cid >= 128)
            return FALSE;
          if (apply)
            seq->clocks[cid - 64] = c;
        }
      take_names (&tk, strings, apply ? &seq->maps[MAP_NAMES] : NULL, apply ? seq->names : NULL);
      take_names (&tk, strings, apply ? &seq->maps[MAP_FUNCTIONS] : NULL, NULL);
      /* Legacy thread descriptors are not saved: they are read always. */
      has_thread = take_u8 (&tk) != 0;
      if (!apply && has_thread != (seq != NULL && seq->has_thread))
        return FALSE;
      ts_us = take_u64 (&tk);
      profile_ts_us = take_u64 (&tk);
      if (apply)
        {
          seq->ts_us = (gint64) ts_us;
          seq->profile_ts_us = (gint64) profile_ts_us;
        }
    }

  /* Tracks */
  if (apply)
    for (gsize i = 0; self->tracks.n > 0 && i <= self->tracks.mask; i++)
      if (self->tracks.used[i])
        {
          Track *track = GSIZE_TO_POINTER (self->tracks.values[i]);

          track->n_open = 0;
          track->overflow = 0;
          track->n_early = 0;
          if (counter_is_incremental (track))
            track->last_value = 0;
        }
  n = take_u32 (&tk);
  for (guint32 i = 0; i < n && tk.ok; i++)
    {
      guint64 uuid = take_u64 (&tk), found;
      double last_value = 0;
      guint32 n_open, overflow, n_early;
      Track *track;

      take (&tk, &last_value, sizeof last_value);
      n_open = take_u32 (&tk);
      overflow = take_u32 (&tk);
      if (!tk.ok || n_open > MAX_DEPTH || !id_map_lookup (&self->tracks, uuid, &found))
        return FALSE;
      track = GSIZE_TO_POINTER (found);
      if (apply)
        {
          track->overflow = overflow;
          if (counter_is_incremental (track))
            track->last_value = last_value;
          if (track->n_alloc < n_open)
            {
              track->n_alloc = MAX (8, n_open);
              track->open = g_renew (OpenSlice, track->open, track->n_alloc);
            }
        }
      for (guint32 j = 0; j < n_open && tk.ok; j++)
        {
          gint64 start_ns = (gint64) take_u64 (&tk);
          gint64 offset = (gint64) take_u64 (&tk);
          guint32 name = take_u32 (&tk);
          gint64 thread_ns = (gint64) take_u64 (&tk);

          if (!tk.ok || name >= strings->len)
            return FALSE;
          if (apply)
            track->open[j] = (OpenSlice) { start_ns, offset,
                                           GPOINTER_TO_UINT (g_ptr_array_index (strings, name)), 0,
                                           thread_ns };
        }
      if (apply)
        track->n_open = n_open;
      n_early = take_u32 (&tk);
      if (!tk.ok || n_early > MAX_EARLY)
        return FALSE;
      if (apply && n_early > 0 && track->early == NULL)
        track->early = g_new (EarlyEnd, MAX_EARLY);
      for (guint32 j = 0; j < n_early && tk.ok; j++)
        {
          gint64 end_ns = (gint64) take_u64 (&tk);
          gint64 offset = (gint64) take_u64 (&tk);
          guint8 before_begin = take_u8 (&tk);

          if (!tk.ok || before_begin > 1)
            return FALSE;
          if (apply)
            {
              track->early[j] = (EarlyEnd) { end_ns, offset, before_begin };
              if (j == 0 || end_ns > track->early_max)
                track->early_max = end_ns;
            }
        }
      if (apply)
        track->n_early = n_early;
    }
  return tk.ok && tk.p == tk.end;
}

gboolean
tsl_perfetto_model_restore (TslPerfettoModel *self,
                            const guint8     *saved,
                            gsize             len)
{
  g_autoptr(GPtrArray) strings = g_ptr_array_new ();
  g_autofree guint8 *raw = NULL;
  guint32 raw_len;
  uLongf got;

  if (len < 5 || (saved[0] != SAVE_MAGIC && saved[0] != SAVE_DEFLATED))
    return FALSE;
  memcpy (&raw_len, saved + 1, sizeof raw_len);
  if (raw_len > SAVE_RAW_MAX)
    return FALSE;
  raw = g_malloc (MAX (raw_len, 1));
  got = raw_len;
  if (saved[0] == SAVE_DEFLATED
      ? uncompress (raw, &got, saved + 5, len - 5) != Z_OK || got != raw_len
      : ZSTD_decompress (raw, raw_len, saved + 5, len - 5) != raw_len)
    return FALSE;
  self->last_seq = NULL;
  return restore_pass (self, raw, raw_len, 0, strings) &&
         restore_pass (self, raw, raw_len, 1, strings);
}
