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

struct _TslSearchScan
{
  TslTrace   *trace;
  char       *text;
  guint       max;
  guint64     found;
  GArray     *matches;   /* TslSearchMatch, absolute times until finish */
  GHashTable *sampled;   /* trace indices of sampled profiles */
  GHashTable *names;     /* leaf (interned by the trace's label) → hit, by content */
};

static void
on_scan_event (guint       track,
               gint64      time_ns,
               double      value,
               const char *label,
               gboolean    in_range,
               gpointer    user_data)
{
  TslSearchScan *self = user_data;
  TslTrackKind kind;
  const char *leaf;
  gpointer known;
  guint depth = 0;

  if (!in_range || label == NULL || *label == '\0')
    return;
  kind = tsl_trace_track_get_kind (self->trace, track);
  if (kind != TSL_TRACK_THREAD && kind != TSL_TRACK_ASYNC)
    return;
  /* A profile's samples are not calls: the snapshot's runs stand for them. */
  if (tsl_trace_track_get_sampled (self->trace, track))
    {
      g_hash_table_add (self->sampled, GUINT_TO_POINTER (track));
      return;
    }
  leaf = strrchr (label, ';');
  leaf = leaf != NULL ? leaf + 1 : label;
  /* Few distinct names, millions of events: match each name once. */
  if (!g_hash_table_lookup_extended (self->names, leaf, NULL, &known))
    {
      known = GINT_TO_POINTER (tsl_search_matches (self->text, leaf));
      g_hash_table_insert (self->names, g_strdup (leaf), known);
    }
  if (!GPOINTER_TO_INT (known))
    return;
  self->found++;
  if (self->matches->len >= self->max)
    return;
  for (const char *p = label; p < leaf; p++)
    depth += *p == ';';
  {
    /* A span's value is its duration; an instant's is none. */
    gint64 end = time_ns;
    TslSearchMatch m;

    if (isfinite (value) && value > 0 && value < 9.0e18 && time_ns <= G_MAXINT64 - (gint64) value)
      end = time_ns + (gint64) value;
    m = (TslSearchMatch) { track, depth, time_ns, end };
    g_array_append_val (self->matches, m);
  }
}

TslSearchScan *
tsl_search_scan_new (TslTrace   *trace,
                     const char *text,
                     guint       max)
{
  TslSearchScan *self;

  g_return_val_if_fail (TSL_IS_TRACE (trace), NULL);
  g_return_val_if_fail (text != NULL, NULL);

  self = g_new0 (TslSearchScan, 1);
  self->trace = g_object_ref (trace);
  self->text = g_strdup (text);
  self->max = max;
  self->matches = g_array_new (FALSE, FALSE, sizeof (TslSearchMatch));
  self->sampled = g_hash_table_new (NULL, NULL);
  self->names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  tsl_trace_set_event_func (trace, on_scan_event, self);
  /* A whole read of a file read before loads its cached state and sees
   * no event (tsl-state-cache.h); a read of a time range reads them all. */
  tsl_trace_set_time_filter (trace, G_MININT64, G_MAXINT64);
  return self;
}

GArray *
tsl_search_scan_finish (TslSearchScan  *self,
                        guint64        *n_found,
                        GArray        **sampled)
{
  gint64 start = 0, end = 0;
  GHashTableIter iter;
  gpointer key;

  g_return_val_if_fail (self != NULL, NULL);

  tsl_trace_flush_events (self->trace);
  tsl_trace_set_event_func (self->trace, NULL, NULL);
  tsl_trace_get_span (self->trace, &start, &end);
  for (guint i = 0; i < self->matches->len; i++)
    {
      TslSearchMatch *m = &g_array_index (self->matches, TslSearchMatch, i);

      m->start_ns -= start;
      m->end_ns -= start;
    }
  g_array_sort (self->matches, compare_matches);
  if (n_found != NULL)
    *n_found = self->found;
  if (sampled != NULL)
    {
      *sampled = g_array_new (FALSE, FALSE, sizeof (guint));
      g_hash_table_iter_init (&iter, self->sampled);
      while (g_hash_table_iter_next (&iter, &key, NULL))
        {
          guint t = GPOINTER_TO_UINT (key);

          g_array_append_val (*sampled, t);
        }
    }
  return g_array_ref (self->matches);
}

void
tsl_search_scan_free (TslSearchScan *self)
{
  if (self == NULL)
    return;
  /* A read cancelled before finish leaves the trace pointing here. */
  tsl_trace_set_event_func (self->trace, NULL, NULL);
  g_object_unref (self->trace);
  g_free (self->text);
  g_array_unref (self->matches);
  g_hash_table_unref (self->sampled);
  g_hash_table_unref (self->names);
  g_free (self);
}
