/* tsl-chrome-profile-checkpoint.c: V8 CPU profiles' state at a chunk index checkpoint
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * For the chunk index, a checkpoint saves each profile's thread and clock
 * as its own part and the nodes made or changed since the last checkpoint
 * as a record (tsl-chunk-records.h): a range read replays those and gets
 * the whole read's tree. A checkpoint is not made while a profile holds
 * chunks waiting for their Profile event.
 */
#define G_LOG_DOMAIN "tsl-chrome"

#include <string.h>

#include "tsl-byte-cursor.h"
#include "tsl-chrome-profile-private.h"

static void
put_text (GByteArray *out,
          const char *s)
{
  gsize len = s != NULL ? strlen (s) : 0;

  tsl_byte_put_u32 (out, len);
  g_byte_array_append (out, (const guint8 *) s, len);
}

typedef TslByteCursor Cursor;

static gboolean
take (Cursor *c,
      void   *out,
      gsize   len)
{
  const guint8 *p = tsl_byte_cursor_take (c, len);

  if (p == NULL)
    return FALSE;
  memcpy (out, p, len);
  return TRUE;
}

static gboolean
take_u32 (Cursor  *c,
          guint32 *v)
{
  *v = tsl_byte_cursor_take_u32 (c);
  return c->ok;
}

static gboolean
take_u64 (Cursor  *c,
          guint64 *v)
{
  *v = tsl_byte_cursor_take_u64 (c);
  return c->ok;
}

static gboolean
take_text (Cursor      *c,
           const char **s,
           guint32     *len)
{
  if (!take_u32 (c, len))
    return FALSE;
  *s = (const char *) tsl_byte_cursor_take (c, *len);
  return *s != NULL;
}

/* Own part: the warnings' counts (u64 each) and whether a time was
 * clamped (u8), u32 n, then per profile: key, u8 started, pid, tid, start,
 * t, the first chunk's time and thread (u64 each). */
gboolean
_tsl_chrome_profiles_save (TslChromeModel *self,
                           GByteArray     *saved)
{
  TslChromeProfiles *ps = self->profiles;
  guint8 clamped = ps != NULL && ps->clamped;

  for (guint k = 0; k < N_WARN; k++)
    tsl_byte_put_u64 (saved, ps != NULL ? ps->warned[k] : 0);
  g_byte_array_append (saved, &clamped, 1);
  if (ps == NULL)
    {
      tsl_byte_put_u32 (saved, 0);
      return TRUE;
    }
  tsl_byte_put_u32 (saved, ps->order->len);
  for (guint i = 0; i < ps->order->len; i++)
    {
      Profile *pr = g_ptr_array_index (ps->order, i);
      guint8 started = pr->started;

      if (pr->n_held > 0)
        return FALSE;
      put_text (saved, pr->key);
      g_byte_array_append (saved, &started, 1);
      tsl_byte_put_u64 (saved, (guint64) pr->pid);
      tsl_byte_put_u64 (saved, (guint64) pr->tid);
      tsl_byte_put_u64 (saved, (guint64) pr->start_ns);
      tsl_byte_put_u64 (saved, (guint64) pr->t_ns);
      tsl_byte_put_u64 (saved, (guint64) pr->chunk_ns);
      tsl_byte_put_u64 (saved, (guint64) pr->chunk_tid);
    }
  return TRUE;
}

/* A node's state: id, flags (1 defined, 2 parent), parent id, name. */
static void
put_node (TslChromeModel *self,
          GByteArray     *out,
          Profile        *pr,
          guint32         at)
{
  const PNode *n = &g_array_index (pr->nodes, PNode, at);
  guint8 flags = (n->defined ? 1 : 0) | (n->parent != 0 ? 2 : 0);

  tsl_byte_put_u64 (out, (guint64) n->id);
  g_byte_array_append (out, &flags, 1);
  tsl_byte_put_u64 (out, n->parent != 0 ? (guint64) g_array_index (pr->nodes, PNode, n->parent - 1).id : 0);
  put_text (out, n->defined ? tsl_trace_lookup (self->trace, n->name) : NULL);
}

/* Record: per profile with nodes to list, its key, u32 n, n nodes. */
void
_tsl_chrome_profiles_nodes (TslChromeModel *self,
                            GByteArray     *record)
{
  TslChromeProfiles *ps = self->profiles;

  if (ps == NULL)
    return;
  ps->listing = TRUE;
  for (guint i = 0; i < ps->order->len; i++)
    {
      Profile *pr = g_ptr_array_index (ps->order, i);
      guint32 n = pr->changed->len + (pr->nodes->len - pr->n_listed);

      if (n == 0)
        continue;
      put_text (record, pr->key);
      tsl_byte_put_u32 (record, n);
      for (guint c = 0; c < pr->changed->len; c++)
        put_node (self, record, pr, g_array_index (pr->changed, guint32, c));
      for (guint32 at = pr->n_listed; at < pr->nodes->len; at++)
        put_node (self, record, pr, at);
      g_array_set_size (pr->changed, 0);
      pr->n_listed = pr->nodes->len;
    }
}

void
_tsl_chrome_profiles_reset (TslChromeModel *self)
{
  TslChromeProfiles *ps = self->profiles;

  if (ps == NULL)
    return;
  g_hash_table_remove_all (ps->by_key);
  g_ptr_array_set_size (ps->order, 0);
  memset (ps->warned, 0, sizeof ps->warned);
  ps->clamped = FALSE;
  /* A restored read lists its changes from here, as the whole read does. */
  ps->listing = TRUE;
}

static Profile *
profile_of_key (TslChromeModel *self,
                const char     *key,
                guint32         len)
{
  g_autofree char *text = g_strndup (key, len);
  const char *colon = strchr (text, ':');
  gint64 pid;
  char *end;

  if (colon == NULL)
    return NULL;
  pid = g_ascii_strtoll (text, &end, 10);
  if (end != colon)
    return NULL;
  return _tsl_chrome_profile_ensure (self, pid, colon + 1, len - (colon + 1 - text));
}

gboolean
_tsl_chrome_profiles_replay (TslChromeModel *self,
                             const guint8   *record,
                             gsize           len)
{
  Cursor c = tsl_byte_cursor (record, len);

  while (c.p < c.end)
    {
      const char *key, *name;
      guint32 key_len, name_len, n;
      Profile *pr;

      if (!take_text (&c, &key, &key_len) || !take_u32 (&c, &n))
        return FALSE;
      pr = profile_of_key (self, key, key_len);
      if (pr == NULL)
        return FALSE;
      for (guint32 i = 0; i < n; i++)
        {
          guint64 id, parent;
          guint8 flags;
          guint32 at;
          PNode *node;

          if (!take_u64 (&c, &id) || !take (&c, &flags, 1) || !take_u64 (&c, &parent) ||
              !take_text (&c, &name, &name_len))
            return FALSE;
          at = _tsl_chrome_profile_node (pr, (gint64) id);
          node = &g_array_index (pr->nodes, PNode, at);
          if (flags & 1)
            {
              node->defined = TRUE;
              node->name = tsl_trace_intern_len (self->trace, name, name_len);
            }
          if (flags & 2)
            {
              guint32 up = _tsl_chrome_profile_node (pr, (gint64) parent);
              g_autofree char *refused = _tsl_chrome_profile_link (self, pr, up, at);

              /* The whole read kept no such link: the record is damaged. */
              if (refused != NULL)
                return FALSE;
            }
        }
      pr->n_listed = pr->nodes->len;
      g_array_set_size (pr->changed, 0);
    }
  return TRUE;
}

gboolean
_tsl_chrome_profiles_restore (TslChromeModel *self,
                              const guint8   *saved,
                              gsize           len,
                              gsize          *used)
{
  Cursor c = tsl_byte_cursor (saved, len);
  guint64 warned[N_WARN];
  guint8 clamped;
  guint32 n;
  gboolean any = FALSE;

  for (guint k = 0; k < N_WARN; k++)
    {
      if (!take_u64 (&c, &warned[k]))
        return FALSE;
      any = any || warned[k] > 0;
    }
  if (!take (&c, &clamped, 1) || !take_u32 (&c, &n))
    return FALSE;
  if (n > 0 || clamped || any)
    {
      TslChromeProfiles *ps = _tsl_chrome_profiles_ensure (self);

      memcpy (ps->warned, warned, sizeof warned);
      ps->clamped = clamped;
    }
  for (guint32 i = 0; i < n; i++)
    {
      const char *key;
      guint32 key_len;
      guint8 started;
      guint64 pid, tid, start, t, chunk_ns, chunk_tid;
      Profile *pr;

      if (!take_text (&c, &key, &key_len) || !take (&c, &started, 1) || !take_u64 (&c, &pid) ||
          !take_u64 (&c, &tid) || !take_u64 (&c, &start) || !take_u64 (&c, &t) ||
          !take_u64 (&c, &chunk_ns) || !take_u64 (&c, &chunk_tid))
        return FALSE;
      pr = profile_of_key (self, key, key_len);
      if (pr == NULL || pr->pid != (gint64) pid)
        return FALSE;
      if (started)
        {
          /* Its track was made in a chunk every range read reads. */
          pr->started = TRUE;
          pr->tid = (gint64) tid;
          pr->start_ns = (gint64) start;
          pr->track = tsl_trace_ensure_thread_part (self->trace, pr->pid, pr->tid, "(V8 CPU profile)");
        }
      pr->t_ns = (gint64) t;
      pr->chunk_ns = (gint64) chunk_ns;
      pr->chunk_tid = (gint64) chunk_tid;
    }
  *used = c.p - saved;
  return TRUE;
}
