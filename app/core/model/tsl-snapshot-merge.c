/* tsl-snapshot-merge.c: several files' snapshots on one time axis
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each file keeps its own trace and sampler (so memory stays O(files ×
 * tracks × K)); what the window draws is a copy of their snapshots with
 * every time moved by the file's position on the merged axis, and every
 * track of one file in one group, named after the file. Moving a file is
 * a new merge of the same snapshots: nothing is read again.
 */
#define G_LOG_DOMAIN "tsl-snapshot"

#include "config.h"

#include <string.h>

#include "tsl-snapshot-private.h"
#include "tsl-time-math.h"

/* Absolute times from here on are wall-clock time since the epoch
 * (2001-09-09), as the ruler reads them (TSL_RENDER_EPOCH_MIN_NS). */
#define EPOCH_MIN_NS G_GINT64_CONSTANT (1000000000000000000)

gboolean
tsl_snapshot_align (const gint64 *starts,
                    const gint64 *spans,
                    guint         n,
                    gint64       *positions)
{
  gboolean wall = TRUE, overlap = TRUE;
  gint64 lo = G_MAXINT64;

  for (guint i = 0; i < n; i++)
    {
      wall &= starts[i] >= EPOCH_MIN_NS;
      lo = MIN (lo, starts[i]);
    }

  /* Clocks that are not wall clocks (a host's monotonic or boot time)
   * are taken as shared only when the files' time ranges overlap: two runs
   * recorded one after the other are compared from their starts. */
  for (guint i = 0; !wall && overlap && i < n; i++)
    {
      gboolean meets = n == 1;

      for (guint j = 0; j < n; j++)
        if (j != i && starts[i] <= tsl_time_add (starts[j], spans[j]) &&
            starts[j] <= tsl_time_add (starts[i], spans[i]))
          meets = TRUE;
      overlap &= meets;
    }

  for (guint i = 0; i < n; i++)
    positions[i] = wall || overlap ? tsl_time_sub (starts[i], lo) : 0;
  return wall || overlap;
}

/* "worker" where only one process of the file has a thread of that name,
 * "worker [renderer]" where several have: the names compare rows give. */
static char *
merged_track_name (TslSnapshot            *part,
                   const TslSnapshotTrack *t)
{
  if (t->kind != TSL_TRACK_THREAD || t->process == NULL)
    return g_strdup (t->name);

  for (guint i = 0; i < tsl_snapshot_get_n_tracks (part); i++)
    {
      const TslSnapshotTrack *o = tsl_snapshot_get_track (part, i);

      if (o->kind == TSL_TRACK_THREAD && o->pid != t->pid && g_str_equal (o->name, t->name))
        return g_strdup_printf ("%s [%s]", t->name, t->process);
    }
  return g_strdup (t->name);
}

static void
copy_part_track (TslSnapshot            *self,
                 TslSnapshot            *part,
                 const TslSnapshotTrack *t,
                 guint                   index,
                 gint64                  shift,
                 const guint32          *remap,
                 GArray                 *frame_offsets,
                 TslSnapshotTrack       *out)
{
  *out = *t;
  out->name = merged_track_name (part, t);
  out->process = g_strdup (self->parts[index].name);
  out->unit = g_strdup (t->unit);
  /* One group per file, in the order given. */
  out->pid = index + 1;
  out->process_sort = index;
  out->samples = g_new (TslSnapshotSample, MAX (t->n_samples, 1));
  out->slices = g_new (TslSnapshotSlice, MAX (t->n_slices, 1));
  out->slice_cpu = t->slice_cpu != NULL ? g_memdup2 (t->slice_cpu, MAX (t->n_slices, 1) * sizeof (gint64))
                                        : NULL;

  for (guint s = 0; s < t->n_samples; s++)
    {
      TslSnapshotSample *d = &out->samples[s];
      guint offset = self->frames->len;

      *d = t->samples[s];
      d->start_ns = tsl_time_add (d->start_ns, shift);
      d->end_ns = tsl_time_add (d->end_ns, shift);
      d->time_ns = tsl_time_add (d->time_ns, shift);
      for (guint f = 0; f < d->n_frames; f++)
        g_array_append_val (self->frames, remap[t->samples[s].frames[f]]);
      d->frames = NULL;
      g_array_append_val (frame_offsets, offset);
    }

  for (guint s = 0; s < t->n_slices; s++)
    {
      TslSnapshotSlice *d = &out->slices[s];

      *d = t->slices[s];
      d->start_ns = tsl_time_add (d->start_ns, shift);
      d->end_ns = tsl_time_add (d->end_ns, shift);
      d->frame = remap[d->frame];
    }
}

TslSnapshot *
tsl_snapshot_new_merged (TslSnapshot * const *parts,
                         const char * const  *names,
                         const gint64        *positions,
                         guint                n_parts)
{
  TslSnapshot *self;
  g_autoptr(GArray) frame_offsets = g_array_new (FALSE, FALSE, sizeof (guint));
  gint64 lo = G_MAXINT64, end = 0;
  guint n_tracks = 0, next = 0;
  gboolean same_format = TRUE;

  g_return_val_if_fail (n_parts > 0, NULL);

  for (guint i = 0; i < n_parts; i++)
    {
      lo = MIN (lo, positions[i]);
      n_tracks += parts[i]->n_tracks;
      same_format &= g_strcmp0 (parts[i]->format, parts[0]->format) == 0;
    }

  self = _tsl_snapshot_alloc ();
  self->n_parts = n_parts;
  self->parts = g_new0 (TslSnapshotPart, n_parts);
  self->n_tracks = n_tracks;
  self->tracks = g_new0 (TslSnapshotTrack, MAX (n_tracks, 1));
  self->k = parts[0]->k;
  self->format = g_strdup (same_format ? parts[0]->format : "mixed");
  self->exact = TRUE;
  self->exact_start = G_MAXINT64;
  self->exact_end = G_MININT64;

  for (guint i = 0; i < n_parts; i++)
    {
      TslSnapshot *part = parts[i];
      gint64 shift = tsl_time_sub (positions[i], lo);
      g_autofree guint32 *remap = g_new (guint32, part->frame_names->len);

      self->parts[i] = (TslSnapshotPart) { g_strdup (names[i]), shift, part->start_ns, part->span_ns };
      for (guint f = 0; f < part->frame_names->len; f++)
        {
          const char *name = g_ptr_array_index (part->frame_names, f);

          remap[f] = _tsl_snapshot_intern_frame (self, name, strlen (name));
        }

      for (guint t = 0; t < part->n_tracks; t++)
        copy_part_track (self, part, &part->tracks[t], i, shift, remap, frame_offsets,
                         &self->tracks[next++]);

      end = MAX (end, tsl_time_add (shift, part->span_ns));
      self->events += part->events;
      self->has_time |= part->has_time;
      self->has_cpu |= part->has_cpu;
      self->exact &= part->exact;
      self->exact_start = MIN (self->exact_start, tsl_time_add (part->exact_start, shift));
      self->exact_end = MAX (self->exact_end, tsl_time_add (part->exact_end, shift));
    }

  /* The wall clock at 0 is the first file's, moved by its position. */
  self->start_ns = tsl_time_sub (parts[0]->start_ns, self->parts[0].position);
  self->span_ns = MAX (end, 1);

  /* Frame arrays are stable only once self->frames stops growing. */
  for (guint i = 0, j = 0; i < self->n_tracks; i++)
    for (guint s = 0; s < self->tracks[i].n_samples; s++, j++)
      self->tracks[i].samples[s].frames =
        &g_array_index (self->frames, guint32, g_array_index (frame_offsets, guint, j));

  return self;
}

guint
tsl_snapshot_get_n_parts (TslSnapshot *self)
{
  return self->n_parts;
}

gboolean
tsl_snapshot_get_part (TslSnapshot  *self,
                       guint         i,
                       const char  **name,
                       gint64       *position,
                       gint64       *span)
{
  if (i >= self->n_parts)
    return FALSE;
  if (name != NULL)
    *name = self->parts[i].name;
  if (position != NULL)
    *position = self->parts[i].position;
  if (span != NULL)
    *span = self->parts[i].span;
  return TRUE;
}

guint
tsl_snapshot_find_part (TslSnapshot *self,
                        gint64       start_ns,
                        gint64       end_ns)
{
  guint best = G_MAXUINT;
  gint64 best_overlap = -1;

  for (guint i = 0; i < self->n_parts; i++)
    {
      gint64 lo = MAX (start_ns, self->parts[i].position);
      gint64 hi = MIN (end_ns, tsl_time_add (self->parts[i].position, self->parts[i].span));
      gint64 overlap = tsl_time_sub (hi, lo);

      if (hi > lo && overlap > best_overlap)
        {
          best = i;
          best_overlap = overlap;
        }
    }
  return best;
}
