/* tsl-track-names.c: one file's track names made unique for a table
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A compare row's series is "track/function"; two tracks of one name
 * would give two rows alike, which the table, the CSV and every lookup by
 * series would confuse. The qualifier is as short as tells them apart.
 */
#define G_LOG_DOMAIN "tsl-compare"

#include "config.h"

#include "tsl-track-names.h"

typedef struct {
  int      kind;
  gint64   pid;
  gint64   tid;
  gboolean repeated;   /* another track bears the same key */
} Seen;

typedef struct {
  int     kind;
  gint64  pid;
  gint64  tid;
  char   *name;
} Track;

struct _TslTrackNames {
  GArray     *tracks;       /* Track, as added */
  GHashTable *identities;   /* "kind\x1fpid\x1ftid\x1fname": the distinct tracks */
  GHashTable *by_process;   /* "pid\x1fname" → Seen */
  GHashTable *by_name;      /* the name qualified by tid where needed → Seen, made on the first get */
};

static void
track_clear (gpointer data)
{
  g_free (((Track *) data)->name);
}

TslTrackNames *
_tsl_track_names_new (void)
{
  TslTrackNames *self = g_new0 (TslTrackNames, 1);

  self->tracks = g_array_new (FALSE, FALSE, sizeof (Track));
  g_array_set_clear_func (self->tracks, track_clear);
  self->identities = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->by_process = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  return self;
}

void
_tsl_track_names_free (TslTrackNames *self)
{
  if (self == NULL)
    return;
  g_array_unref (self->tracks);
  g_hash_table_unref (self->identities);
  g_hash_table_unref (self->by_process);
  g_clear_pointer (&self->by_name, g_hash_table_unref);
  g_free (self);
}

static void
note (GHashTable *table,
      char       *key,
      int         kind,
      gint64      pid,
      gint64      tid)
{
  Seen *seen = g_hash_table_lookup (table, key);

  if (seen == NULL)
    {
      seen = g_new0 (Seen, 1);
      *seen = (Seen) { kind, pid, tid, FALSE };
      g_hash_table_insert (table, key, seen);
      return;
    }
  if (seen->kind != kind || seen->pid != pid || seen->tid != tid)
    seen->repeated = TRUE;
  g_free (key);
}

static char *
process_key (gint64      pid,
             const char *name)
{
  return g_strdup_printf ("%" G_GINT64_FORMAT "\x1f%s", pid, name);
}

void
_tsl_track_names_add (TslTrackNames *self,
                      int            kind,
                      gint64         pid,
                      gint64         tid,
                      const char    *name)
{
  Track track = { kind, pid, tid, NULL };

  g_return_if_fail (self != NULL && name != NULL && self->by_name == NULL);

  if (!g_hash_table_add (self->identities,
                         g_strdup_printf ("%d\x1f%" G_GINT64_FORMAT "\x1f%" G_GINT64_FORMAT "\x1f%s",
                                          kind, pid, tid, name)))
    return;
  track.name = g_strdup (name);
  g_array_append_val (self->tracks, track);
  note (self->by_process, process_key (pid, name), kind, pid, tid);
}

/* Threads of one process sharing a name get their tids, as the window's
 * snapshot names them ("pool (tid 12)"). */
static char *
within_process (TslTrackNames *self,
                gint64         pid,
                gint64         tid,
                const char    *name)
{
  g_autofree char *key = process_key (pid, name);
  const Seen *seen = g_hash_table_lookup (self->by_process, key);

  if (seen != NULL && seen->repeated)
    return g_strdup_printf ("%s (tid %" G_GINT64_FORMAT ")", name, tid);
  return g_strdup (name);
}

guint
_tsl_track_names_get_n (TslTrackNames *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->tracks->len;
}

char *
_tsl_track_names_get (TslTrackNames *self,
                      int            kind,
                      gint64         pid,
                      gint64         tid,
                      const char    *name)
{
  g_autofree char *named = NULL;
  const Seen *seen;

  g_return_val_if_fail (self != NULL && name != NULL, NULL);

  if (self->by_name == NULL)
    {
      self->by_name = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
      for (guint i = 0; i < self->tracks->len; i++)
        {
          const Track *t = &g_array_index (self->tracks, Track, i);

          note (self->by_name, within_process (self, t->pid, t->tid, t->name), t->kind, t->pid, t->tid);
        }
    }
  named = within_process (self, pid, tid, name);
  seen = g_hash_table_lookup (self->by_name, named);
  if (seen != NULL && seen->repeated)
    return g_strdup_printf ("%s [%" G_GINT64_FORMAT "]", named, pid);
  return g_steal_pointer (&named);
}
