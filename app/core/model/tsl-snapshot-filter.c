/* tsl-snapshot-filter.c: a snapshot of some of another's tracks
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * `export --view --tracks PATTERN` draws only the tracks whose name
 * matches: the painter then lays out, groups and scales those alone, as it
 * would a file that held nothing else. Flow arrows between two kept tracks
 * stay, their track indices renumbered.
 */
#define G_LOG_DOMAIN "tsl-snapshot"

#include "config.h"

#include <string.h>

#include "tsl-snapshot-private.h"

TslSnapshot *
tsl_snapshot_new_filtered (TslSnapshot *source,
                           const char  *pattern)
{
  g_autoptr(GPatternSpec) spec = g_pattern_spec_new (pattern);
  g_autofree guint *remap = g_new (guint, MAX (source->n_tracks, 1));
  TslSnapshot *self;
  guint next = 0;

  g_return_val_if_fail (source != NULL, NULL);
  g_return_val_if_fail (pattern != NULL, NULL);

  self = _tsl_snapshot_alloc ();
  /* Interned in the same order, every frame keeps its id. */
  for (guint f = 1; f < source->frame_names->len; f++)
    {
      const char *name = g_ptr_array_index (source->frame_names, f);

      _tsl_snapshot_intern_frame (self, name, strlen (name));
    }
  g_array_append_vals (self->frames, source->frames->data, source->frames->len);

  self->tracks = g_new0 (TslSnapshotTrack, MAX (source->n_tracks, 1));
  for (guint i = 0; i < source->n_tracks; i++)
    {
      const TslSnapshotTrack *t = &source->tracks[i];
      TslSnapshotTrack *out = &self->tracks[next];

      remap[i] = G_MAXUINT;
      if (!g_pattern_spec_match_string (spec, t->name))
        continue;
      remap[i] = next++;
      *out = *t;
      out->name = g_strdup (t->name);
      out->process = g_strdup (t->process);
      out->unit = g_strdup (t->unit);
      out->samples = g_memdup2 (t->samples, MAX (t->n_samples, 1) * sizeof (TslSnapshotSample));
      out->slices = g_memdup2 (t->slices, MAX (t->n_slices, 1) * sizeof (TslSnapshotSlice));
      out->slice_cpu = t->slice_cpu != NULL ? g_memdup2 (t->slice_cpu, MAX (t->n_slices, 1) * sizeof (gint64))
                                            : NULL;
      for (guint s = 0; s < t->n_samples; s++)
        out->samples[s].frames = &g_array_index (self->frames, guint32,
                                                 t->samples[s].frames - (const guint32 *) (gconstpointer) source->frames->data);
    }
  self->n_tracks = next;

  self->flows = g_new (TslSnapshotFlow, MAX (source->n_flows, 1));
  for (guint i = 0; i < source->n_flows; i++)
    {
      TslSnapshotFlow f = source->flows[i];

      if (remap[f.from_track] == G_MAXUINT || remap[f.to_track] == G_MAXUINT)
        continue;
      f.from_track = remap[f.from_track];
      f.to_track = remap[f.to_track];
      self->flows[self->n_flows++] = f;
    }

  self->start_ns = source->start_ns;
  self->span_ns = source->span_ns;
  self->events = source->events;
  self->k = source->k;
  self->has_time = source->has_time;
  self->has_cpu = source->has_cpu;
  self->format = g_strdup (source->format);
  self->exact = source->exact;
  self->exact_start = source->exact_start;
  self->exact_end = source->exact_end;
  self->n_parts = source->n_parts;
  self->parts = g_new0 (TslSnapshotPart, MAX (source->n_parts, 1));
  for (guint i = 0; i < source->n_parts; i++)
    {
      self->parts[i] = source->parts[i];
      self->parts[i].name = g_strdup (source->parts[i].name);
    }
  return self;
}
