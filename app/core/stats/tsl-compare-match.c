/* tsl-compare-match.c: which track of range B is which track of range A
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Two ranges of one file pair their tracks by identity (kind, pid, tid,
 * name). Two files are two runs: pids and tids differ, so tracks pair by
 * name. A name that repeats within a file (two processes each with a
 * "main" thread) is qualified by the process's name, and where that is
 * not enough by its rank within the file ("#2", in order of kind, pid and
 * tid), the same way on both sides so that the names still meet; a track
 * left without a partner is a series new or gone in B.
 */
#define G_LOG_DOMAIN "tsl-compare"

#include "config.h"

#include <string.h>

#include "tsl-compare-private.h"
#include "tsl-track-names.h"

static void
pair_free (gpointer data)
{
  TslTrackPair *pair = data;

  g_free (pair->name);
  g_free (pair);
}

static char *
identity_key (const TslRangeTrack *t)
{
  return g_strdup_printf ("%d\x1f%" G_GINT64_FORMAT "\x1f%" G_GINT64_FORMAT "\x1f%s",
                          (int) t->kind, t->pid, t->tid, t->name);
}

/* One file's tracks (non-NULL ones), in the stats' order. */
static GPtrArray *
list_tracks (TslRangeStats *stats)
{
  GPtrArray *tracks = g_ptr_array_new ();

  for (guint i = 0; stats != NULL && i < tsl_range_stats_get_n_tracks (stats); i++)
    {
      const TslRangeTrack *t = tsl_range_stats_get_track (stats, i);

      if (t != NULL)
        g_ptr_array_add (tracks, (gpointer) t);
    }
  return tracks;
}

/* Adds t to side s of the pair under key, or a new pair. */
static void
add_to_pair (GHashTable          *index,
             GPtrArray           *pairs,
             char                *key,
             guint                s,
             const TslRangeTrack *t,
             char                *name)
{
  TslTrackPair *pair = g_hash_table_lookup (index, key);

  if (pair == NULL || pair->t[s] != NULL)
    {
      pair = g_new0 (TslTrackPair, 1);
      pair->name = name;
      g_ptr_array_add (pairs, pair);
      g_hash_table_insert (index, key, pair);
    }
  else
    {
      g_free (key);
      g_free (name);
    }
  pair->t[s] = t;
}

/* Two ranges of one file: the single-file table's names, "name (tid T)"
 * where threads of a process share a name, "name [pid]" where tracks of
 * several do. */
static GPtrArray *
match_identity (GPtrArray *tracks[2])
{
  GPtrArray *pairs = g_ptr_array_new_with_free_func (pair_free);
  g_autoptr(GHashTable) index = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(TslTrackNames) names = _tsl_track_names_new ();

  for (guint s = 0; s < 2; s++)
    for (guint i = 0; i < tracks[s]->len; i++)
      {
        const TslRangeTrack *t = g_ptr_array_index (tracks[s], i);

        _tsl_track_names_add (names, t->kind, t->pid, t->tid, t->name);
      }

  for (guint s = 0; s < 2; s++)
    for (guint i = 0; i < tracks[s]->len; i++)
      {
        const TslRangeTrack *t = g_ptr_array_index (tracks[s], i);
        char *name = _tsl_track_names_get (names, t->kind, t->pid, t->tid, t->name);

        add_to_pair (index, pairs, identity_key (t), s, t, name);
      }

  return pairs;
}

static char *
process_key (const TslRangeTrack *t)
{
  return g_strdup_printf ("%s\x1f%s", t->name, t->process != NULL ? t->process : "");
}

static int
compare_rank (gconstpointer a,
              gconstpointer b)
{
  const TslRangeTrack *ta = *(const TslRangeTrack * const *) a;
  const TslRangeTrack *tb = *(const TslRangeTrack * const *) b;

  if (ta->kind != tb->kind)
    return ta->kind < tb->kind ? -1 : 1;
  if (ta->pid != tb->pid)
    return ta->pid < tb->pid ? -1 : 1;
  if (ta->tid != tb->tid)
    return ta->tid < tb->tid ? -1 : 1;
  return 0;
}

/* Two files: by name, qualified as the file comment says. */
static GPtrArray *
match_names (GPtrArray *tracks[2])
{
  GPtrArray *pairs = g_ptr_array_new_with_free_func (pair_free);
  g_autoptr(GHashTable) index = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GHashTable) by_name = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GHashTable) by_process = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                            (GDestroyNotify) g_ptr_array_unref);
  g_autoptr(GHashTable) name_repeats = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GHashTable) process_repeats = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GHashTable) rank = g_hash_table_new (NULL, NULL);   /* track → 1 + its rank */

  for (guint s = 0; s < 2; s++)
    {
      g_hash_table_remove_all (by_name);
      g_hash_table_remove_all (by_process);
      for (guint i = 0; i < tracks[s]->len; i++)
        {
          const TslRangeTrack *t = g_ptr_array_index (tracks[s], i);
          char *pk = process_key (t);
          GPtrArray *group = g_hash_table_lookup (by_process, pk);

          if (!g_hash_table_add (by_name, g_strdup (t->name)))
            g_hash_table_add (name_repeats, t->name);
          if (group == NULL)
            {
              group = g_ptr_array_new ();
              g_hash_table_insert (by_process, g_strdup (pk), group);
            }
          else
            g_hash_table_add (process_repeats, g_strdup (pk));
          g_ptr_array_add (group, (gpointer) t);
          g_free (pk);
        }

      /* Ranks within each (name, process) group of this file. */
      {
        GHashTableIter iter;
        gpointer value;

        g_hash_table_iter_init (&iter, by_process);
        while (g_hash_table_iter_next (&iter, NULL, &value))
          {
            GPtrArray *group = value;

            g_ptr_array_sort (group, compare_rank);
            for (guint r = 0; r < group->len; r++)
              g_hash_table_insert (rank, g_ptr_array_index (group, r), GUINT_TO_POINTER (r + 1));
          }
      }
    }

  for (guint s = 0; s < 2; s++)
    for (guint i = 0; i < tracks[s]->len; i++)
      {
        const TslRangeTrack *t = g_ptr_array_index (tracks[s], i);
        g_autofree char *pk = process_key (t);
        GString *name = g_string_new (t->name);
        char *key;

        if (g_hash_table_contains (name_repeats, t->name) && t->process != NULL && t->process[0] != '\0')
          g_string_append_printf (name, " [%s]", t->process);
        if (g_hash_table_contains (process_repeats, pk))
          g_string_append_printf (name, " #%u", GPOINTER_TO_UINT (g_hash_table_lookup (rank, t)));

        /* The key before the name is handed on: argument order is unspecified. */
        key = g_strdup_printf ("%d\x1f%s", (int) t->kind, name->str);
        add_to_pair (index, pairs, key, s, t, g_string_free (name, FALSE));
      }

  return pairs;
}

GPtrArray *
_tsl_compare_match_tracks (TslRangeStats *stats_a,
                           TslRangeStats *stats_b,
                           gboolean       two_files)
{
  g_autoptr(GPtrArray) a = list_tracks (stats_a);
  g_autoptr(GPtrArray) b = list_tracks (stats_b);
  GPtrArray *tracks[2] = { a, b };

  return two_files ? match_names (tracks) : match_identity (tracks);
}
