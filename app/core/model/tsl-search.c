/* tsl-search.c: the timeline's search, by name, with next and previous
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "tsl-search"

#include "config.h"

#include <math.h>
#include <string.h>

#include "tsl-search.h"

gboolean
tsl_search_is_pattern (const char *text)
{
  return text != NULL && strpbrk (text, "*?") != NULL;
}

gboolean
tsl_search_matches (const char *text,
                    const char *name)
{
  if (text == NULL || *text == '\0' || name == NULL)
    return FALSE;
  return tsl_search_is_pattern (text) ? g_pattern_match_simple (text, name)
                                      : strcmp (text, name) == 0;
}

static int
compare_matches (gconstpointer a,
                 gconstpointer b)
{
  const TslSearchMatch *x = a, *y = b;

  if (x->start_ns != y->start_ns)
    return x->start_ns < y->start_ns ? -1 : 1;
  if (x->track != y->track)
    return x->track < y->track ? -1 : 1;
  return (x->depth > y->depth) - (x->depth < y->depth);
}

/* Sampled: a run of adjacent samples holding the name at one level is one
 * match, as the painter draws it as one bar. */
static void
find_sampled (TslSnapshot            *snapshot,
              const TslSnapshotTrack *track,
              guint                   t,
              const char             *text,
              GArray                 *matches)
{
  g_autoptr(GHashTable) names = g_hash_table_new (NULL, NULL);   /* frame id → matches */
  /* The open run at each depth, as an index into matches, or -1. */
  g_autoptr(GArray) open = g_array_new (FALSE, FALSE, sizeof (int));

  for (guint i = 0; i < track->n_samples; i++)
    {
      const TslSnapshotSample *s = &track->samples[i];
      /* A span's sample is drawn to its real length: so is its match. */
      gint64 start = MIN (s->start_ns, s->time_ns);
      gint64 end = s->end_ns;

      if (s->n_frames > 0 && isfinite (s->value) && s->value > 0 && s->value < 9.0e18 &&
          s->time_ns <= G_MAXINT64 - (gint64) s->value)
        end = MAX (end, s->time_ns + (gint64) s->value);

      if (open->len < s->n_frames)
        {
          guint old = open->len;

          g_array_set_size (open, s->n_frames);
          for (guint d = old; d < open->len; d++)
            g_array_index (open, int, d) = -1;
        }
      for (guint d = 0; d < open->len; d++)
        {
          int *run = &g_array_index (open, int, d);
          gpointer known;
          gboolean hit = FALSE;

          if (d < s->n_frames)
            {
              if (!g_hash_table_lookup_extended (names, GUINT_TO_POINTER (s->frames[d]), NULL, &known))
                {
                  known = GINT_TO_POINTER (tsl_search_matches (text, tsl_snapshot_get_frame_name (snapshot, s->frames[d])));
                  g_hash_table_insert (names, GUINT_TO_POINTER (s->frames[d]), known);
                }
              hit = GPOINTER_TO_INT (known);
            }
          if (!hit)
            *run = -1;
          else if (*run >= 0 && g_array_index (matches, TslSearchMatch, *run).end_ns >= start)
            g_array_index (matches, TslSearchMatch, *run).end_ns =
              MAX (g_array_index (matches, TslSearchMatch, *run).end_ns, end);
          else
            {
              TslSearchMatch m = { t, d, start, end };

              g_array_append_val (matches, m);
              *run = matches->len - 1;
            }
        }
    }
}

GArray *
tsl_search_find (TslSnapshot *snapshot,
                 const char  *text)
{
  GArray *matches = g_array_new (FALSE, FALSE, sizeof (TslSearchMatch));

  g_return_val_if_fail (snapshot != NULL, matches);

  if (text == NULL || *text == '\0')
    return matches;
  for (guint t = 0; t < tsl_snapshot_get_n_tracks (snapshot); t++)
    {
      const TslSnapshotTrack *track = tsl_snapshot_get_track (snapshot, t);

      if (track->kind != TSL_TRACK_THREAD && track->kind != TSL_TRACK_ASYNC)
        continue;
      if (!track->exact)
        {
          find_sampled (snapshot, track, t, text, matches);
          continue;
        }
      for (guint i = 0; i < track->n_slices; i++)
        {
          const TslSnapshotSlice *s = &track->slices[i];

          if (tsl_search_matches (text, tsl_snapshot_get_frame_name (snapshot, s->frame)))
            {
              TslSearchMatch m = { t, s->depth, s->start_ns, s->end_ns };

              g_array_append_val (matches, m);
            }
        }
    }
  g_array_sort (matches, compare_matches);
  return matches;
}

int
tsl_search_first_from (GArray *matches,
                       gint64  time_ns)
{
  g_return_val_if_fail (matches != NULL, -1);

  if (matches->len == 0)
    return -1;
  for (guint i = 0; i < matches->len; i++)
    if (g_array_index (matches, TslSearchMatch, i).start_ns >= time_ns)
      return i;
  return 0;
}
