/* tsl-chrome-checkpoint.c: a Chrome model's checkpoints, saved and restored
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "tsl-chrome"

#include <string.h>

#include "tsl-chrome-model-types.h"
#include "tsl-chrome-profile.h"

/* Checkpoints (tsl-chunk-index.h): the spans open on each thread, with
 * their names as text (a later read interns names in its own order).
 * Pending async spans make no checkpoint. */
typedef struct {
  gint64  pid;
  gint64  tid;
  guint32 n_open;
  guint32 overflow;
} SavedThread;

typedef struct {
  gint64  start_ns;
  gint64  end_ns;
  gint64  tts;       /* its thread clock, so a range read gives it its CPU time */
  guint32 name_len;
} SavedSpan;

gboolean
tsl_chrome_model_save (TslChromeModel *self,
                       GByteArray     *saved,
                       gsize           max_len)
{
  GHashTableIter iter;
  gpointer value;
  guint own_at = saved->len;
  guint32 own_len;

  g_byte_array_set_size (saved, own_at + 4);   /* the own part's length, below */
  /* Embedded V8 CPU profiles' clocks first (their nodes are records). */
  if (!_tsl_chrome_profiles_save (self, saved))
    return FALSE;
  g_hash_table_iter_init (&iter, self->threads);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      const Thread *th = value;
      SavedThread st = { th->pid, th->tid, th->n_open, th->overflow };

      if (th->n_open == 0 && th->overflow == 0)
        continue;
      g_byte_array_append (saved, (const guint8 *) &st, sizeof st);
      for (guint i = 0; i < th->n_open; i++)
        {
          const char *name = tsl_trace_lookup (self->trace, th->open[i].name);
          SavedSpan ss;

          /* Zeroed whole: the padding after name_len goes to the cache file. */
          memset (&ss, 0, sizeof ss);
          ss.start_ns = th->open[i].start_ns;
          ss.end_ns = th->open[i].end_ns;
          ss.tts = th->open[i].tts;
          ss.name_len = name ? strlen (name) : 0;

          g_byte_array_append (saved, (const guint8 *) &ss, sizeof ss);
          g_byte_array_append (saved, (const guint8 *) name, ss.name_len);
          if (saved->len - own_at - 4 > max_len)
            return FALSE;
        }
    }
  own_len = GUINT32_TO_LE (saved->len - own_at - 4);
  memcpy (saved->data + own_at, &own_len, 4);
  return tsl_chrome_async_save (self, saved);
}

gboolean
tsl_chrome_model_restore (TslChromeModel *self,
                          const guint8   *saved,
                          gsize           len)
{
  GHashTableIter iter;
  gpointer value;
  gsize at = 0;
  guint32 own_len = 0;

  /* No state (the first chunk's): nothing open. */
  if (len > 0)
    {
      if (len < 4)
        return FALSE;
      memcpy (&own_len, saved, 4);
      own_len = GUINT32_FROM_LE (own_len);
      if (own_len > len - 4)
        return FALSE;
      saved += 4;
      len -= 4;
    }
  _tsl_chrome_profiles_reset (self);
  if (!tsl_chrome_async_restore (self, len > 0 ? saved + own_len : NULL, len - own_len))
    return FALSE;
  len = own_len;
  if (len > 0)
    {
      gsize used = 0;

      if (!_tsl_chrome_profiles_restore (self, saved, len, &used))
        return FALSE;
      at = used;
    }

  g_hash_table_iter_init (&iter, self->threads);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      Thread *th = value;

      th->n_open = 0;
      th->overflow = 0;
    }
  self->last_thread = NULL;
  self->have_last_ids = FALSE;

  while (at < len)
    {
      SavedThread st;
      gint64 key[2];
      Thread *th;

      if (len - at < sizeof st)
        return FALSE;
      memcpy (&st, saved + at, sizeof st);
      at += sizeof st;
      key[0] = st.pid;
      key[1] = st.tid;
      /* The thread was seen in a chunk that is always read (it made a track). */
      th = g_hash_table_lookup (self->threads, key);
      if (th == NULL || st.n_open > MAX_DEPTH)
        return FALSE;
      th->overflow = st.overflow;
      for (guint i = 0; i < st.n_open; i++)
        {
          SavedSpan ss;

          if (len - at < sizeof ss)
            return FALSE;
          memcpy (&ss, saved + at, sizeof ss);
          at += sizeof ss;
          if (len - at < ss.name_len)
            return FALSE;
          /* The saved state keeps no offsets: such a span's details say
           * its position is not known. Its thread clock is kept, so its CPU
           * time is the whole read's. */
          _tsl_chrome_push_span (th, ss.start_ns, ss.end_ns, -1, ss.tts,
                     ss.name_len > 0 ? tsl_trace_intern_len (self->trace, (const char *) saved + at, ss.name_len) : 0);
          at += ss.name_len;
        }
    }
  return TRUE;
}
