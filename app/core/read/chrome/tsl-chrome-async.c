/* tsl-chrome-async.c: pending async spans, and how checkpoints save them
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A long recording leaves async spans open by the thousand (a copy of a
 * catapult trace leaves 33). A checkpoint used to refuse to be made while
 * any was pending, so such a file's index had one chunk; saving them all at
 * every checkpoint would grow as spans × checkpoints. Each pending entry
 * (a begin waiting for its end, or an end seen before its begin) has a
 * rising serial instead, and a checkpoint saves only the entries new since
 * the last one and the serials of those gone since: the chunk index keeps
 * each entry once (tsl-chunk-records.h).
 */
#define G_LOG_DOMAIN "tsl-chrome"

#include <stdio.h>
#include <string.h>

#include "tsl-chrome-profile.h"

void
tsl_chrome_async_remember (TslChromeModel *self,
                           GHashTable     *table,
                           const char     *key,
                           gint64          ts,
                           guint           track,
                           guint32         name)
{
  TslChromeAsync *open = g_hash_table_lookup (table, key);

  if (open == NULL)
    {
      char *stored = g_strdup (key);

      open = g_new0 (TslChromeAsync, 1);
      open->key = stored;
      open->ends = table == self->async_ends;
      g_hash_table_insert (table, stored, open);
      if (self->async_listing)
        g_ptr_array_add (self->async_new, open);
    }
  else if (open->serial <= self->async_saved)
    {
      /* Replaced: what a checkpoint saved is gone, and this is new. */
      g_array_append_val (self->async_gone, open->serial);
      if (self->async_listing)
        g_ptr_array_add (self->async_new, open);
    }
  open->start_ns = ts;
  open->track = track;
  open->name = name;
  open->serial = ++self->async_serial;
}

void
tsl_chrome_async_forget (TslChromeModel *self,
                         GHashTable     *table,
                         const char     *key)
{
  TslChromeAsync *open = g_hash_table_lookup (table, key);

  if (open == NULL)
    return;
  if (open->serial <= self->async_saved || !self->async_listing)
    {
      if (open->serial <= self->async_saved)
        g_array_append_val (self->async_gone, open->serial);
      g_hash_table_remove (table, key);
      return;
    }
  /* Listed in async_new, which frees it (and its key) later: no search. */
  g_hash_table_steal (table, key);
  open->dead = TRUE;
}

void
tsl_chrome_async_drop_new (TslChromeModel *self)
{
  for (guint i = 0; i < self->async_new->len; i++)
    {
      TslChromeAsync *open = g_ptr_array_index (self->async_new, i);

      if (open->dead)
        {
          g_free ((char *) open->key);
          g_free (open);
        }
    }
  g_ptr_array_set_size (self->async_new, 0);
}

static gint
by_serial (gconstpointer a,
           gconstpointer b)
{
  const TslChromeAsync *x = *(TslChromeAsync * const *) a;
  const TslChromeAsync *y = *(TslChromeAsync * const *) b;

  return x->serial < y->serial ? -1 : x->serial > y->serial;
}

GPtrArray *
tsl_chrome_async_sorted (GHashTable *table)
{
  GPtrArray *all = g_ptr_array_sized_new (g_hash_table_size (table));
  GHashTableIter iter;
  gpointer value;

  g_hash_table_iter_init (&iter, table);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    g_ptr_array_add (all, value);
  g_ptr_array_sort (all, by_serial);
  return all;
}

static void
put_u32 (GByteArray *out,
         guint32     v)
{
  v = GUINT32_TO_LE (v);
  g_byte_array_append (out, (const guint8 *) &v, 4);
}

static void
put_u64 (GByteArray *out,
         guint64     v)
{
  v = GUINT64_TO_LE (v);
  g_byte_array_append (out, (const guint8 *) &v, 8);
}

static void
put_text (GByteArray *out,
          const char *s,
          gsize       len)
{
  put_u32 (out, len);
  g_byte_array_append (out, (const guint8 *) s, len);
}

/* A key is "GROUP:NAME:[PID:]ID" with the group and name as this read's
 * string ids; a record holds their text, which a later read interns in its
 * own order. */
static gboolean
put_record (TslChromeModel       *self,
            GByteArray           *out,
            const TslChromeAsync *open)
{
  guint group, name;
  int used = 0;
  const char *group_text, *name_text;
  guint at = out->len;
  guint8 table = open->ends;
  guint32 len;

  if (sscanf (open->key, "%u:%u:%n", &group, &name, &used) != 2 || used == 0)
    return FALSE;
  group_text = tsl_trace_lookup (self->trace, group);
  name_text = tsl_trace_lookup (self->trace, name);
  if (group_text == NULL || name_text == NULL)
    return FALSE;
  put_u64 (out, open->serial);
  put_u32 (out, 0);   /* the length, below */
  g_byte_array_append (out, &table, 1);
  put_u64 (out, (guint64) open->start_ns);
  put_u32 (out, open->track);
  put_text (out, group_text, strlen (group_text));
  put_text (out, name_text, strlen (name_text));
  put_text (out, open->key + used, strlen (open->key + used));
  len = GUINT32_TO_LE (out->len - at - 12);
  memcpy (out->data + at + 8, &len, 4);
  return TRUE;
}

gboolean
tsl_chrome_async_save (TslChromeModel *self,
                       GByteArray     *saved)
{
  guint n_at, n = 0;

  /* The first checkpoint lists what is pending; from then on, entries are
   * listed as they come (a read that makes none keeps no list). */
  if (!self->async_listing)
    {
      GHashTable *tables[2] = { self->async_open, self->async_ends };

      for (guint t = 0; t < 2; t++)
        {
          GHashTableIter iter;
          gpointer value;

          g_hash_table_iter_init (&iter, tables[t]);
          while (g_hash_table_iter_next (&iter, NULL, &value))
            if (((TslChromeAsync *) value)->serial > self->async_saved)
              g_ptr_array_add (self->async_new, value);
        }
      self->async_listing = TRUE;
    }
  put_u32 (saved, self->async_gone->len);
  for (guint g = 0; g < self->async_gone->len; g++)
    put_u64 (saved, g_array_index (self->async_gone, guint64, g));
  n_at = saved->len;
  put_u32 (saved, 0);
  /* Only what is new since the last checkpoint; an entry replaced since
   * was listed before its new serial. */
  g_ptr_array_sort (self->async_new, by_serial);
  for (guint i = 0; i < self->async_new->len; i++)
    {
      const TslChromeAsync *open = g_ptr_array_index (self->async_new, i);

      if (open->dead)
        continue;
      if (!put_record (self, saved, open))
        return FALSE;
      n++;
    }
  /* Embedded V8 CPU profiles' nodes made or changed since the last
   * checkpoint: one record above every entry's serial. */
  {
    g_autoptr(GByteArray) nodes = g_byte_array_new ();
    guint8 table = TSL_CHROME_PROFILE_RECORD;

    _tsl_chrome_profiles_nodes (self, nodes);
    if (nodes->len > 0)
      {
        put_u64 (saved, ++self->async_serial);
        put_u32 (saved, nodes->len + 1);
        g_byte_array_append (saved, &table, 1);
        g_byte_array_append (saved, nodes->data, nodes->len);
        n++;
      }
  }
  n = GUINT32_TO_LE (n);
  memcpy (saved->data + n_at, &n, 4);
  tsl_chrome_async_drop_new (self);
  g_array_set_size (self->async_gone, 0);
  self->async_saved = self->async_serial;
  return TRUE;
}

typedef struct {
  const guint8 *p;
  const guint8 *end;
} Cursor;

static gboolean
take (Cursor *c,
      void   *out,
      gsize   len)
{
  if ((gsize) (c->end - c->p) < len)
    return FALSE;
  memcpy (out, c->p, len);
  c->p += len;
  return TRUE;
}

static gboolean
take_text (Cursor      *c,
           const char **s,
           guint32     *len)
{
  if (!take (c, len, 4))
    return FALSE;
  *len = GUINT32_FROM_LE (*len);
  if ((gsize) (c->end - c->p) < *len)
    return FALSE;
  *s = (const char *) c->p;
  c->p += *len;
  return TRUE;
}

gboolean
tsl_chrome_async_restore (TslChromeModel *self,
                          const guint8   *p,
                          gsize           len)
{
  Cursor c = { p, p + len };
  guint32 n = 0;
  guint64 last = 0;

  tsl_chrome_async_drop_new (self);
  g_hash_table_remove_all (self->async_open);
  g_hash_table_remove_all (self->async_ends);
  g_array_set_size (self->async_gone, 0);
  if (len > 0 && !take (&c, &n, 4))
    return FALSE;
  n = GUINT32_FROM_LE (n);
  for (guint32 i = 0; i < n; i++)
    {
      guint64 serial, start;
      guint32 rec_len, track;
      guint8 table;
      const char *group, *name, *rest;
      guint32 group_len, name_len, rest_len;
      g_autofree char *key = NULL;
      TslChromeAsync *open;

      const guint8 *record;

      if (!take (&c, &serial, 8) || !take (&c, &rec_len, 4))
        return FALSE;
      record = c.p;
      rec_len = GUINT32_FROM_LE (rec_len);
      if (!take (&c, &table, 1))
        return FALSE;
      if (table == TSL_CHROME_PROFILE_RECORD)
        {
          serial = GUINT64_FROM_LE (serial);
          if (rec_len < 1 || (gsize) (c.end - record) < rec_len || serial <= last ||
              !_tsl_chrome_profiles_replay (self, c.p, rec_len - 1))
            return FALSE;
          c.p = record + rec_len;
          last = serial;
          continue;
        }
      if (!take (&c, &start, 8) || !take (&c, &track, 4) ||
          !take_text (&c, &group, &group_len) || !take_text (&c, &name, &name_len) ||
          !take_text (&c, &rest, &rest_len) || (gsize) (c.p - record) != rec_len)
        return FALSE;
      serial = GUINT64_FROM_LE (serial);
      track = GUINT32_FROM_LE (track);
      /* Its track was made in a chunk every range read reads. */
      if (table > 1 || serial <= last || track >= tsl_trace_get_n_tracks (self->trace))
        return FALSE;
      last = serial;
      key = g_strdup_printf ("%u:%u:%.*s", tsl_trace_intern_len (self->trace, group, group_len),
                             tsl_trace_intern_len (self->trace, name, name_len), (int) rest_len, rest);
      open = g_new0 (TslChromeAsync, 1);
      *open = (TslChromeAsync) { (gint64) GUINT64_FROM_LE (start), track,
                                 tsl_trace_intern_len (self->trace, name, name_len), serial, key, table == 1,
                                 FALSE };
      g_hash_table_insert (table == 0 ? self->async_open : self->async_ends, g_steal_pointer (&key), open);
    }
  /* New entries come after every restored one, as in the whole read. */
  self->async_serial = last;
  self->async_saved = last;
  return c.p == c.end;
}
