/* tsl-trace-state-merge.c: traces of parts of one stream, or of separate sources, merged
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A merge appends a later part's new tracks, as one read would have made
 * them; count mode needs every part to start where the one before ended.
 */
#define G_LOG_DOMAIN "tsl-trace-state"

#include <string.h>
#include <gio/gio.h>
#include <glib/gi18n-lib.h>

#include "tsl-time-math.h"
#include "tsl-trace-private.h"
#include "tsl-trace-state.h"
#include "tsl-trace-state-private.h"

static char *
key_string (TslTrace       *trace,
            const TrackKey *key)
{
  const char *name = tsl_trace_lookup (trace, key->name);

  return g_strdup_printf ("%d\x1f%" G_GINT64_FORMAT "\x1f%" G_GINT64_FORMAT "\x1f%s",
                          key->kind, key->pid, key->tid, name != NULL ? name : "");
}

guint64
_tsl_trace_first_index (TslTrace       *self,
                        const TrackKey *key)
{
  g_autofree char *str = NULL;
  const guint64 *n;

  if (self->first_indices == NULL)
    return 0;
  str = key_string (self, key);
  n = g_hash_table_lookup (self->first_indices, str);
  return n != NULL ? *n : 0;
}

void
tsl_trace_count_after (TslTrace *self,
                       TslTrace *earlier)
{
  g_return_if_fail (TSL_IS_TRACE (self));
  g_return_if_fail (TSL_IS_TRACE (earlier));

  if (self->first_indices == NULL)
    self->first_indices = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  for (guint i = 0; i < earlier->tracks->len; i++)
    {
      Track *t = g_ptr_array_index (earlier->tracks, i);
      g_autofree char *str = key_string (earlier, &t->key);
      guint64 *n = g_hash_table_lookup (self->first_indices, str);

      if (n == NULL)
        {
          n = g_new0 (guint64, 1);
          g_hash_table_insert (self->first_indices, g_steal_pointer (&str), n);
        }
      *n += tsl_sampler_get_events (t->sampler);
    }
}

static int
compare_pids (gconstpointer a,
              gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return x < y ? -1 : x > y;
}

static void
add_pid (GHashTable *set,
         gint64      pid)
{
  g_hash_table_add (set, g_memdup2 (&pid, sizeof pid));
}

/* Separate sources: each pid of `other` becomes one no earlier source
 * uses, pid + index × 2^40 when that is free (readable), else the next
 * free value, so a pid of 2^40 or below 0 in one source never lands on
 * another's. Sorted first: the same inputs give the same pids. */
static GHashTable *
source_pids (TslTrace *self,
             TslTrace *other,
             guint     group_index)
{
  g_autoptr(GHashTable) used = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  g_autoptr(GArray) pids = g_array_new (FALSE, FALSE, sizeof (gint64));
  GHashTable *map = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  GHashTableIter iter;
  gpointer k;

  for (guint i = 0; i < self->tracks->len; i++)
    add_pid (used, ((Track *) g_ptr_array_index (self->tracks, i))->key.pid);
  g_hash_table_iter_init (&iter, self->processes);
  while (g_hash_table_iter_next (&iter, &k, NULL))
    add_pid (used, *(gint64 *) k);
  g_hash_table_iter_init (&iter, self->threads);
  while (g_hash_table_iter_next (&iter, &k, NULL))
    add_pid (used, ((TrackKey *) k)->pid);

  for (guint i = 0; i < other->tracks->len; i++)
    g_array_append_val (pids, ((Track *) g_ptr_array_index (other->tracks, i))->key.pid);
  g_hash_table_iter_init (&iter, other->processes);
  while (g_hash_table_iter_next (&iter, &k, NULL))
    g_array_append_val (pids, *(gint64 *) k);
  g_hash_table_iter_init (&iter, other->threads);
  while (g_hash_table_iter_next (&iter, &k, NULL))
    g_array_append_val (pids, ((TrackKey *) k)->pid);
  g_array_sort (pids, compare_pids);

  for (guint i = 0; i < pids->len; i++)
    {
      gint64 pid = g_array_index (pids, gint64, i);
      guint64 moved = (guint64) pid + ((guint64) group_index << 40);

      if (g_hash_table_contains (map, &pid))
        continue;
      while (g_hash_table_contains (used, &(gint64) { (gint64) moved }))
        moved++;
      add_pid (used, (gint64) moved);
      g_hash_table_insert (map, g_memdup2 (&pid, sizeof pid), g_memdup2 (&moved, sizeof moved));
    }
  return map;
}

static gint64
move_pid (GHashTable *pids,
          gint64      pid)
{
  const gint64 *moved = pids != NULL ? g_hash_table_lookup (pids, &pid) : NULL;

  return moved != NULL ? *moved : pid;
}

/* `other`'s key in `self`'s terms. */
static TrackKey
translate_key (TslTrace       *self,
               TslTrace       *other,
               const TrackKey *key,
               GHashTable     *pids)
{
  TrackKey out = *key;

  out.name = tsl_trace_intern (self, tsl_trace_lookup (other, key->name));
  out.pid = move_pid (pids, key->pid);
  return out;
}

/* A copy of `other`'s sampler, its labels in `self`'s store, on `other`'s grid. */
static TslSampler *
copy_sampler (TslTrace   *self,
              TslTrace   *other,
              TslSampler *src,
              GError    **error)
{
  g_autofree TslSample *samples = NULL;
  const TslSample *held;
  TslSamplerState st;
  guint n;

  tsl_sampler_get_state (src, &st);
  held = tsl_sampler_peek_samples (src, &n);
  samples = g_memdup2 (held, MAX (n, 1) * sizeof *samples);
  for (guint i = 0; i < n; i++)
    {
      const char *label = samples[i].label != 0 ? tsl_trace_lookup (other, samples[i].label) : NULL;

      samples[i].label = label != NULL ? tsl_label_store_intern_len (self->labels, label, strlen (label)) : 0;
    }
  return tsl_sampler_new_from_state (&st, other->grid, samples, n, error);
}

static gboolean
merge_error (GError    **error,
             const char *format,
             ...) G_GNUC_PRINTF (2, 3);

static gboolean
merge_error (GError    **error,
             const char *format,
             ...)
{
  va_list args;
  g_autofree char *message = NULL;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error_literal (error, TSL_STATE_ERROR, TSL_STATE_ERROR_MERGE, message);
  return FALSE;
}

/* The track of `self` that `other`'s track `i` goes to, or -1 for a new one. */
static gint
find_track (TslTrace       *self,
            TslTrace       *other,
            guint           i,
            const TrackKey *key)
{
  gpointer found;

  if (tsl_trace_track_is_folded (other, i))
    {
      guint kind = MIN ((guint) key->kind, TSL_TRACE_N_KINDS - 1);

      return self->fold_tracks[kind] != 0 ? (gint) self->fold_tracks[kind] - 1 : -1;
    }
  found = g_hash_table_lookup (self->track_ids, key);
  return found != NULL ? (gint) GPOINTER_TO_UINT (found) - 1 : -1;
}

/* Count mode: every track of `other` must start where `self`'s ends. */
static gboolean
check_contiguous (TslTrace *self,
                  TslTrace *other,
                  GError  **error)
{
  for (guint i = 0; i < other->tracks->len; i++)
    {
      Track *t = g_ptr_array_index (other->tracks, i);
      TrackKey key = translate_key (self, other, &t->key, NULL);
      gint mine = find_track (self, other, i, &key);
      guint64 expected = 0;

      if (mine >= 0)
        expected = tsl_sampler_get_first_index (tsl_trace_track_get_sampler (self, mine)) +
                   tsl_sampler_get_events (tsl_trace_track_get_sampler (self, mine));
      if (tsl_sampler_get_first_index (t->sampler) != expected)
        return merge_error (error,
                            _("count-mode states merge only when each part numbers its events after the "
                              "earlier parts’: track “%s” starts at event %llu, not %llu "
                              "(sample the part with --after EARLIER.tss…, or in time mode)"),
                            tsl_trace_track_get_name (other, i),
                            (unsigned long long) tsl_sampler_get_first_index (t->sampler),
                            (unsigned long long) expected);
    }
  return TRUE;
}

static void
merge_meta (TslTrace   *self,
            TslTrace   *other,
            Meta       *into,
            const Meta *from)
{
  if (from->name != 0)
    into->name = tsl_trace_intern (self, tsl_trace_lookup (other, from->name));
  if (from->has_sort_index)
    {
      into->has_sort_index = TRUE;
      into->sort_index = from->sort_index;
    }
}

static void
merge_processes (TslTrace   *self,
                 TslTrace   *other,
                 GHashTable *pids)
{
  GHashTableIter iter;
  gpointer k, v;

  g_hash_table_iter_init (&iter, other->processes);
  while (g_hash_table_iter_next (&iter, &k, &v))
    {
      gint64 pid = move_pid (pids, *(gint64 *) k);
      Meta *meta = g_hash_table_lookup (self->processes, &pid);

      if (meta == NULL)
        {
          meta = g_new0 (Meta, 1);
          g_hash_table_insert (self->processes, g_memdup2 (&pid, sizeof pid), meta);
        }
      merge_meta (self, other, meta, v);
    }

  g_hash_table_iter_init (&iter, other->threads);
  while (g_hash_table_iter_next (&iter, &k, &v))
    {
      TrackKey key = *(TrackKey *) k;
      Meta *meta;

      key.pid = move_pid (pids, key.pid);
      meta = g_hash_table_lookup (self->threads, &key);
      if (meta == NULL)
        {
          meta = g_new0 (Meta, 1);
          g_hash_table_insert (self->threads, g_memdup2 (&key, sizeof key), meta);
        }
      merge_meta (self, other, meta, v);
    }
}

/* Every process of a group is named after it, so its tracks show together. */
static void
name_group (TslTrace   *self,
            TslTrace   *other,
            const char *group,
            GHashTable *moved_pids)
{
  g_autoptr(GHashTable) pids = g_hash_table_new (g_int64_hash, g_int64_equal);

  for (guint i = 0; i < other->tracks->len; i++)
    {
      Track *t = g_ptr_array_index (other->tracks, i);

      g_hash_table_add (pids, &t->key.pid);
    }
  {
    GHashTableIter iter;
    gpointer k;

    g_hash_table_iter_init (&iter, other->processes);
    while (g_hash_table_iter_next (&iter, &k, NULL))
      g_hash_table_add (pids, k);
    g_hash_table_iter_init (&iter, pids);
    while (g_hash_table_iter_next (&iter, &k, NULL))
      {
        gint64 pid = *(gint64 *) k;
        const char *name = tsl_trace_get_process_name (other, pid);
        g_autofree char *named = name != NULL ? g_strdup_printf ("%s: %s", group, name) : g_strdup (group);
        gint64 moved = move_pid (moved_pids, pid);
        Meta *meta = g_hash_table_lookup (self->processes, &moved);

        if (meta == NULL)
          {
            meta = g_new0 (Meta, 1);
            g_hash_table_insert (self->processes, g_memdup2 (&moved, sizeof moved), meta);
          }
        meta->name = tsl_trace_intern (self, named);
      }
  }
}

gboolean
tsl_trace_merge (TslTrace    *self,
                 TslTrace    *other,
                 const char  *group,
                 guint        group_index,
                 GError     **error)
{
  g_autofree TslSampler **copies = NULL;
  g_autoptr(GHashTable) pids = NULL;
  gboolean was_empty;

  g_return_val_if_fail (TSL_IS_TRACE (self), FALSE);
  g_return_val_if_fail (TSL_IS_TRACE (other), FALSE);
  g_return_val_if_fail (self != other, FALSE);

  if (self->mode != other->mode || self->k != other->k || self->seed != other->seed)
    return merge_error (error, _("cannot merge a state of %s mode, K = %u, seed %llu "
                                 "with one of %s mode, K = %u, seed %llu"),
                        self->mode == TSL_SAMPLER_TIME ? "time" : "count", self->k,
                        (unsigned long long) self->seed,
                        other->mode == TSL_SAMPLER_TIME ? "time" : "count", other->k,
                        (unsigned long long) other->seed);
  if (group == NULL && self->format != NULL && other->format != NULL &&
      !g_str_equal (self->format, other->format))
    return merge_error (error, _("cannot merge parts of one stream read as %s and as %s "
                                 "(merge them as separate sources instead)"),
                        self->format, other->format);
  if (group == NULL && self->mode == TSL_SAMPLER_COUNT && !check_contiguous (self, other, error))
    return FALSE;

  if (group != NULL)
    pids = source_pids (self, other, group_index);
  /* A track's events must stay countable: slice counts add up to them. */
  for (guint i = 0; i < other->tracks->len; i++)
    {
      Track *t = g_ptr_array_index (other->tracks, i);
      TrackKey key = translate_key (self, other, &t->key, pids);
      gint mine = find_track (self, other, i, &key);
      TslSampler *into = mine >= 0 ? tsl_trace_track_get_sampler (self, mine) : NULL;

      if (into != NULL &&
          tsl_sampler_get_events (t->sampler) > G_MAXUINT64 - tsl_sampler_get_first_index (into) -
                                                tsl_sampler_get_events (into))
        return merge_error (error, _("cannot merge: track “%s” would count more than "
                                     "18,446,744,073,709,551,615 events"),
                            tsl_trace_track_get_name (other, i));
    }

  /* Every copy first, so that an error leaves `self` as it was. */
  copies = g_new0 (TslSampler *, MAX (other->tracks->len, 1));
  for (guint i = 0; i < other->tracks->len; i++)
    {
      Track *t = g_ptr_array_index (other->tracks, i);

      copies[i] = copy_sampler (self, other, t->sampler, error);
      if (copies[i] == NULL)
        {
          for (guint j = 0; j < i; j++)
            tsl_sampler_free (copies[j]);
          return FALSE;
        }
    }

  was_empty = self->tracks->len == 0 && self->format == NULL && self->events == 0;
  if (self->mode == TSL_SAMPLER_TIME)
    tsl_time_grid_merge (self->grid, other->grid);

  for (guint i = 0; i < other->tracks->len; i++)
    {
      Track *t = g_ptr_array_index (other->tracks, i);
      TrackKey key = translate_key (self, other, &t->key, pids);
      gint mine = find_track (self, other, i, &key);
      TslSampler *copy = g_steal_pointer (&copies[i]);
      Track *into;

      if (mine < 0)
        {
          TslSampler *sampler = copy;

          if (self->mode == TSL_SAMPLER_TIME)
            {
              /* Lifted onto self's grid by a merge into an empty sampler. */
              sampler = tsl_sampler_new_time (self->grid, self->seed);
              tsl_sampler_merge (sampler, copy, NULL);
              tsl_sampler_free (copy);
            }
          mine = _tsl_trace_add_track (self, &key, sampler, tsl_trace_track_is_folded (other, i));
          into = g_ptr_array_index (self->tracks, mine);
          into->unit = tsl_trace_intern (self, tsl_trace_lookup (other, t->unit));
          into->sampled = t->sampled;
          into->title = tsl_trace_intern (self, tsl_trace_lookup (other, t->title));
          continue;
        }

      into = g_ptr_array_index (self->tracks, mine);
      /* Checked above (count mode) or always possible (time mode). */
      if (!tsl_sampler_merge (into->sampler, copy, NULL))
        g_warn_if_reached ();
      tsl_sampler_free (copy);
      if (t->unit != 0)
        into->unit = tsl_trace_intern (self, tsl_trace_lookup (other, t->unit));
      into->sampled = into->sampled || t->sampled;
      /* The earlier part's title: the first slice in the file named it. */
      if (into->title == 0 && t->title != 0)
        into->title = tsl_trace_intern (self, tsl_trace_lookup (other, t->title));
    }

  merge_processes (self, other, pids);
  if (group != NULL)
    name_group (self, other, group, pids);

  /* What only informs saturates; a wrapped count would read as fewer. */
  self->events = tsl_sat_add_u64 (self->events, other->events);
  for (guint i = 0; i < 3; i++)
    self->flows[i] = tsl_sat_add_u64 (self->flows[i], other->flows[i]);
  self->dropped_meta = tsl_sat_add_u64 (self->dropped_meta, other->dropped_meta);
  if (other->has_span)
    {
      self->span_start = self->has_span ? MIN (self->span_start, other->span_start) : other->span_start;
      self->span_end = self->has_span ? MAX (self->span_end, other->span_end) : other->span_end;
      self->has_span = TRUE;
    }
  self->has_cpu = self->has_cpu || other->has_cpu;
  if (was_empty)
    self->has_time = other->has_time;
  else if (group != NULL)
    self->has_time = self->has_time || other->has_time;
  if (self->format == NULL)
    tsl_trace_set_format (self, other->format);
  else if (group != NULL && other->format != NULL && strstr (self->format, other->format) == NULL)
    {
      g_autofree char *both = g_strdup_printf ("%s+%s", self->format, other->format);

      tsl_trace_set_format (self, both);
    }

  for (guint i = 0; i < tsl_warnings_get_n (other->warnings); i++)
    {
      guint64 count;
      TslWarningKind kind;
      const char *message = tsl_warnings_get_nth (other->warnings, i, &count, &kind);
      g_autofree char *prefixed = NULL;

      /* A tally is shown count first ("63,278 … not shown"): its source
       * goes last, "63,278 … not shown (a)", not between the two. */
      if (group != NULL)
        prefixed = kind == TSL_WARNING_TALLY ? g_strdup_printf ("%s (%s)", message, group)
                                             : g_strdup_printf ("%s: %s", group, message);

      tsl_warnings_add_counted (self->warnings, prefixed != NULL ? prefixed : message, count, kind);
    }
  tsl_warnings_add_dropped (self->warnings, tsl_warnings_get_dropped (other->warnings));
  self->changes++;

  _tsl_trace_collect_labels (self);
  return TRUE;
}
