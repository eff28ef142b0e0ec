/* tsl-snapshot.c: an immutable copy of a trace's samples, for drawing
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "tsl-snapshot"

#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tsl-flow-match.h"
#include "tsl-hash.h"
#include "tsl-snapshot-private.h"
#include "tsl-time-math.h"


static void
grow_frame_slots (TslSnapshot *self)
{
  guint mask = self->frame_mask * 2 + 1;
  guint64 *slots = g_new0 (guint64, (gsize) mask + 1);

  for (guint i = 0; i <= self->frame_mask; i++)
    if (self->frame_slots[i] != 0)
      {
        guint j = (guint) (self->frame_slots[i] >> 32) & mask;

        while (slots[j] != 0)
          j = (j + 1) & mask;
        slots[j] = self->frame_slots[i];
      }
  g_free (self->frame_slots);
  self->frame_slots = slots;
  self->frame_mask = mask;
}

/* The frame's slot for `name`, or the empty slot where it would go. The
 * slots keep 32 bits of the hash: names of other lengths collide ("" and
 * "v\u01cc'" do), so the length is compared before the bytes. */
static guint64 *
find_frame_slot (TslSnapshot *self,
                 const char  *name,
                 gsize        len,
                 guint32      hash)
{
  guint i;

  for (i = hash & self->frame_mask; self->frame_slots[i] != 0; i = (i + 1) & self->frame_mask)
    if ((guint32) (self->frame_slots[i] >> 32) == hash)
      {
        guint32 id = (guint32) self->frame_slots[i] - 1;

        if (g_array_index (self->frame_lens, guint32, id) == len &&
            memcmp (g_ptr_array_index (self->frame_names, id), name, len) == 0)
          break;
      }
  return &self->frame_slots[i];
}

/* Every frame of every sample comes here, and almost all were seen: one
 * hash of the name's bytes in place, no copy to look it up. */
guint32
_tsl_snapshot_intern_frame (TslSnapshot *self,
                            const char  *name,
                            gsize        len)
{
  guint32 hash = (guint32) tsl_hash_bytes (name, len);
  guint64 *slot = find_frame_slot (self, name, len, hash);
  guint32 id, len32 = (guint32) len;

  if (*slot != 0)
    return (guint32) *slot - 1;

  /* Names come from C strings: no NUL within `len`, so strlen agrees. */
  g_assert (len <= G_MAXUINT32 && memchr (name, '\0', len) == NULL);
  id = self->frame_names->len;
  g_ptr_array_add (self->frame_names, g_strndup (name, len));
  g_array_append_val (self->frame_lens, len32);
  *slot = (guint64) hash << 32 | (id + 1);
  /* At most half full. */
  if (2 * self->frame_names->len > self->frame_mask)
    grow_frame_slots (self);
  return id;
}

/* Splits "root;child;leaf" into frame ids appended to self->frames (sized
 * once per stack, written in place). */
static guint
split_stack (TslSnapshot *self,
             const char  *label)
{
  const char *p = label;
  guint n = 1, at;

  if (label == NULL || *label == '\0')
    return 0;

  for (const char *q = strchr (label, ';'); q != NULL; q = strchr (q + 1, ';'))
    n++;
  at = self->frames->len;
  g_array_set_size (self->frames, at + n);
  for (guint f = 0; f < n; f++)
    {
      const char *semi = f + 1 < n ? strchr (p, ';') : NULL;
      gsize len = semi ? (gsize) (semi - p) : strlen (p);

      g_array_index (self->frames, guint32, at + f) = _tsl_snapshot_intern_frame (self, p, len);
      if (semi != NULL)
        p = semi + 1;
    }

  return n;
}

static int
compare_tracks (gconstpointer a,
                gconstpointer b)
{
  const TslSnapshotTrack *ta = a;
  const TslSnapshotTrack *tb = b;

  if (ta->process_sort != tb->process_sort)
    return ta->process_sort < tb->process_sort ? -1 : 1;
  if (ta->pid != tb->pid)
    return ta->pid < tb->pid ? -1 : 1;
  if (ta->kind != tb->kind)
    return ta->kind < tb->kind ? -1 : 1;
  if (ta->sort != tb->sort)
    return ta->sort < tb->sort ? -1 : 1;
  if (ta->kind == TSL_TRACK_THREAD && ta->tid != tb->tid)
    return ta->tid < tb->tid ? -1 : 1;
  return g_utf8_collate (ta->name, tb->name);
}

static int
compare_slices (gconstpointer a,
                gconstpointer b)
{
  const TslSnapshotSlice *sa = a, *sb = b;

  if (sa->start_ns != sb->start_ns)
    return sa->start_ns < sb->start_ns ? -1 : 1;
  if (sa->depth != sb->depth)
    return sa->depth < sb->depth ? -1 : 1;
  return sa->end_ns > sb->end_ns ? -1 : sa->end_ns < sb->end_ns;
}

/* Each distinct stack once: its leaf's frame id and depth. */
typedef struct {
  guint32 frame;
  guint32 depth;
} LeafOf;

typedef struct {
  TslSnapshotSlice slice;
  gint64           cpu;
} SliceCpu;

/* A thread's slices begun before the trace (open_start) hold everything of
 * the thread before their ends, but what came before an end was labelled
 * without them: the reader learns of such a slice only at its end. Each
 * other slice goes under those still open at its start, the depth it had. */
static void
nest_under_open_starts (TslSnapshotTrack *out)
{
  g_autoptr(GArray) ends = NULL;

  if (out->kind != TSL_TRACK_THREAD)
    return;
  for (guint i = 0; i < out->n_slices; i++)
    if (out->slices[i].open_start)
      {
        if (ends == NULL)
          ends = g_array_new (FALSE, FALSE, sizeof (gint64));
        g_array_append_val (ends, out->slices[i].end_ns);
      }
  if (ends == NULL)
    return;

  for (guint i = 0; i < out->n_slices; i++)
    {
      TslSnapshotSlice *s = &out->slices[i];
      guint under = 0;

      if (s->open_start)
        continue;
      for (guint j = 0; j < ends->len; j++)
        under += s->start_ns < g_array_index (ends, gint64, j);
      s->depth += under;
      out->max_depth = MAX (out->max_depth, (guint) s->depth + 1);
    }
}

/* Flow ends bound to a slice by its depth follow it under the slices
 * begun before the trace (nest_under_open_starts()). */
static void
nest_flow_ends (TslSnapshot  *self,
                const guint  *track_of,
                TslExactFlow *ends,
                guint         n_ends)
{
  g_autofree GArray **open_starts = g_new0 (GArray *, MAX (self->n_tracks, 1));
  gboolean any = FALSE;

  for (guint i = 0; i < self->n_tracks; i++)
    {
      const TslSnapshotTrack *t = &self->tracks[i];

      if (t->kind != TSL_TRACK_THREAD || !t->exact)
        continue;
      for (guint j = 0; j < t->n_slices; j++)
        if (t->slices[j].open_start)
          {
            if (open_starts[i] == NULL)
              open_starts[i] = g_array_new (FALSE, FALSE, sizeof (gint64));
            g_array_append_val (open_starts[i], t->slices[j].end_ns);
            any = TRUE;
          }
    }

  for (guint i = 0; any && i < n_ends; i++)
    {
      GArray *pre;
      gint64 at;

      if (ends[i].bind != TSL_FLOW_BIND_SLICE || ends[i].track >= self->n_tracks)
        continue;
      pre = open_starts[track_of[ends[i].track]];
      if (pre == NULL)
        continue;
      at = tsl_time_sub (ends[i].time_ns, self->start_ns);
      for (guint j = 0; j < pre->len; j++)
        if (at < g_array_index (pre, gint64, j) && ends[i].depth < G_MAXUINT16)
          ends[i].depth++;
    }

  for (guint i = 0; i < self->n_tracks; i++)
    g_clear_pointer (&open_starts[i], g_array_unref);
}

static void
copy_slices (TslSnapshot      *self,
             TslTrace         *trace,
             guint             track,
             TslSnapshotTrack *out,
             GArray           *leaves)
{
  TslExact *exact = tsl_trace_get_exact_recorder (trace);
  const TslExactSlice *slices;
  const gint64 *cpu;
  guint n = 0, n_cpu = 0;

  slices = tsl_exact_get_slices (exact, track, &n);
  out->exact = TRUE;
  out->n_slices = n;
  out->slices = g_new (TslSnapshotSlice, MAX (n, 1));

  for (guint i = 0; i < n; i++)
    {
      TslSnapshotSlice *s = &out->slices[i];
      guint32 label = slices[i].label;

      if (label >= leaves->len)
        g_array_set_size (leaves, label + 1);
      if (g_array_index (leaves, LeafOf, label).frame == 0)
        {
          const char *text = tsl_exact_lookup (exact, label);
          const char *leaf = strrchr (text, ';');
          guint depth = 0;

          for (const char *p = text; *p; p++)
            depth += *p == ';';
          leaf = leaf ? leaf + 1 : text;
          g_array_index (leaves, LeafOf, label) =
            (LeafOf) { _tsl_snapshot_intern_frame (self, leaf, strlen (leaf)), depth };
        }

      s->start_ns = tsl_time_sub (slices[i].start_ns, self->start_ns);
      s->end_ns = tsl_time_sub (slices[i].end_ns, self->start_ns);
      s->offset = slices[i].offset;
      s->frame = g_array_index (leaves, LeafOf, label).frame;
      s->depth = g_array_index (leaves, LeafOf, label).depth;
      s->open = (slices[i].flags & TSL_EXACT_OPEN) != 0;
      s->open_start = (slices[i].flags & TSL_EXACT_OPEN_START) != 0;
      out->max_depth = MAX (out->max_depth, (guint) s->depth + 1);
    }
  nest_under_open_starts (out);

  cpu = tsl_exact_get_cpu (exact, track, &n_cpu);
  if (cpu == NULL)
    {
      qsort (out->slices, n, sizeof (TslSnapshotSlice), compare_slices);
      return;
    }

  /* Sorted together: the slice leads, so compare_slices() serves. */
  {
    g_autofree SliceCpu *both = g_new (SliceCpu, MAX (n, 1));

    for (guint i = 0; i < n; i++)
      both[i] = (SliceCpu) { out->slices[i], i < n_cpu ? cpu[i] : -1 };
    qsort (both, n, sizeof (SliceCpu), compare_slices);
    out->slice_cpu = g_new (gint64, MAX (n, 1));
    for (guint i = 0; i < n; i++)
      {
        out->slices[i] = both[i].slice;
        out->slice_cpu[i] = both[i].cpu;
      }
  }
}

static void
copy_track (TslSnapshot      *self,
            TslTrace         *trace,
            guint             track,
            TslSnapshotTrack *out,
            GArray           *frame_offsets)
{
  TslSampler *sampler = tsl_trace_track_get_sampler (trace, track);
  TslTimeGrid *grid = tsl_trace_get_time_grid (trace);
  const TslSample *samples;
  const char *process;
  gint64 width, origin = 0;
  guint n = 0;
  guint first;

  samples = tsl_sampler_peek_samples (sampler, &n);
  width = tsl_sampler_get_slice_size (sampler);
  if (grid != NULL)
    origin = tsl_time_grid_get_origin (grid);

  out->name = g_strdup (tsl_trace_track_get_name (trace, track));
  out->kind = tsl_trace_track_get_kind (trace, track);
  out->pid = tsl_trace_track_get_pid (trace, track);
  out->tid = tsl_trace_track_get_tid (trace, track);
  process = tsl_trace_get_process_name (trace, out->pid);
  out->process = g_strdup (process);
  out->unit = g_strdup (tsl_trace_track_get_unit (trace, track));
  out->sort = tsl_trace_track_get_sort_index (trace, track);
  out->process_sort = tsl_trace_get_process_sort_index (trace, out->pid);
  out->events = tsl_sampler_get_events (sampler);
  out->sampled = tsl_trace_track_get_sampled (trace, track);
  out->n_samples = n;
  out->samples = g_new0 (TslSnapshotSample, n);
  first = frame_offsets->len;
  g_array_set_size (frame_offsets, first + n);
  out->value_min = NAN;
  out->value_max = NAN;

  for (guint i = 0; i < n; i++)
    {
      TslSnapshotSample *s = &out->samples[i];
      guint offset = self->frames->len;

      s->time_ns = tsl_time_sub (samples[i].time_ns, self->start_ns);
      s->value = samples[i].value;
      s->summary = samples[i].summary;
      s->index = samples[i].index;

      if (grid != NULL)
        {
          s->start_ns = tsl_time_sub (tsl_time_add (origin, tsl_time_mul (samples[i].slice, width)),
                                      self->start_ns);
          s->end_ns = tsl_time_add (s->start_ns, width);
        }
      else
        {
          /* Count mode: a slice spans from the previous sample's time to this one's. */
          s->start_ns = i > 0 ? tsl_time_sub (samples[i - 1].time_ns, self->start_ns) : s->time_ns;
          s->end_ns = s->time_ns;
        }

      if (out->kind == TSL_TRACK_THREAD || out->kind == TSL_TRACK_ASYNC)
        s->n_frames = split_stack (self, tsl_trace_lookup (trace, samples[i].label));
      g_array_index (frame_offsets, guint, first + i) = offset;
      out->max_depth = MAX (out->max_depth, s->n_frames);

      if (!isnan (s->summary.min))
        out->value_min = isnan (out->value_min) ? s->summary.min : MIN (out->value_min, s->summary.min);
      if (!isnan (s->summary.max))
        out->value_max = isnan (out->value_max) ? s->summary.max : MAX (out->value_max, s->summary.max);
    }
}

/* Two threads of a process with one name ("java", "ThreadPoolForegroundWorker")
 * are told apart by their tids. */
static void
name_collisions (TslSnapshot *self)
{
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  for (guint i = 0; i < self->n_tracks; i++)
    {
      TslSnapshotTrack *t = &self->tracks[i];
      char *key;

      if (t->kind != TSL_TRACK_THREAD)
        continue;
      key = g_strdup_printf ("%" G_GINT64_FORMAT "\x1f%s", t->pid, t->name);
      g_hash_table_replace (seen, key, GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (seen, key)) + 1));
    }

  for (guint i = 0; i < self->n_tracks; i++)
    {
      TslSnapshotTrack *t = &self->tracks[i];
      g_autofree char *key = NULL;

      if (t->kind != TSL_TRACK_THREAD)
        continue;
      key = g_strdup_printf ("%" G_GINT64_FORMAT "\x1f%s", t->pid, t->name);
      if (GPOINTER_TO_UINT (g_hash_table_lookup (seen, key)) > 1)
        {
          char *named = g_strdup_printf ("%s (tid %" G_GINT64_FORMAT ")", t->name, t->tid);

          g_free (t->name);
          t->name = named;
        }
    }
}

TslSnapshot *
_tsl_snapshot_alloc (void)
{
  TslSnapshot *self = g_atomic_rc_box_new0 (TslSnapshot);

  self->frame_names = g_ptr_array_new_with_free_func (g_free);
  self->frame_lens = g_array_new (FALSE, FALSE, sizeof (guint32));
  self->frame_mask = 255;
  self->frame_slots = g_new0 (guint64, self->frame_mask + 1);
  /* Reserved so that data is never NULL: samples without frames still point into it. */
  self->frames = g_array_sized_new (FALSE, FALSE, sizeof (guint32), 16);
  _tsl_snapshot_intern_frame (self, "", 0);
  return self;
}

TslSnapshot *
tsl_snapshot_new (TslTrace *trace)
{
  TslSnapshot *self;
  g_autoptr(GArray) frame_offsets = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autofree TslExactFlow *ends_copy = NULL;
  guint n_ends = 0;
  gint64 start = 0, end = 0;

  g_return_val_if_fail (TSL_IS_TRACE (trace), NULL);

  self = _tsl_snapshot_alloc ();

  tsl_trace_lock (trace);

  if (tsl_trace_get_span (trace, &start, &end))
    {
      self->start_ns = start;
      self->span_ns = MAX (tsl_time_sub (end, start), 1);
    }
  self->events = tsl_trace_get_events (trace);
  self->k = tsl_trace_get_k (trace);
  self->has_time = tsl_trace_get_has_time (trace);
  self->has_cpu = tsl_trace_get_has_cpu (trace);
  self->format = g_strdup (tsl_trace_get_format (trace));
  self->n_tracks = tsl_trace_get_n_tracks (trace);
  self->tracks = g_new0 (TslSnapshotTrack, self->n_tracks);

  for (guint i = 0; i < self->n_tracks; i++)
    {
      copy_track (self, trace, i, &self->tracks[i], frame_offsets);
      self->tracks[i].trace_index = i;
    }

  if (tsl_trace_get_exact (trace, &self->exact_start, &self->exact_end))
    {
      g_autoptr(GArray) leaves = g_array_new (FALSE, TRUE, sizeof (LeafOf));

      /* Exact when every stack track is a span track (perf's samples are
       * not recorded: see tsl_trace_record_exact()). */
      self->exact = TRUE;
      self->exact_start = tsl_time_sub (self->exact_start, self->start_ns);
      self->exact_end = tsl_time_sub (self->exact_end, self->start_ns);
      for (guint i = 0; i < self->n_tracks; i++)
        if (self->tracks[i].kind == TSL_TRACK_THREAD || self->tracks[i].kind == TSL_TRACK_ASYNC)
          {
            if (g_strcmp0 (self->tracks[i].unit, "ns") == 0)
              copy_slices (self, trace, i, &self->tracks[i], leaves);
            else
              self->exact = FALSE;
          }
    }

  if (self->exact)
    {
      TslExact *exact = tsl_trace_get_exact_recorder (trace);
      const TslExactFlow *ends = exact != NULL ? tsl_exact_get_flows (exact, &n_ends) : NULL;

      if (n_ends > 0)
        ends_copy = g_memdup2 (ends, (gsize) n_ends * sizeof *ends);
    }

  tsl_trace_unlock (trace);

  /* Frame arrays are stable only once self->frames stops growing. */
  for (guint i = 0, j = 0; i < self->n_tracks; i++)
    for (guint s = 0; s < self->tracks[i].n_samples; s++, j++)
      self->tracks[i].samples[s].frames =
        &g_array_index (self->frames, guint32, g_array_index (frame_offsets, guint, j));

  if (self->n_tracks > 1)
    qsort (self->tracks, self->n_tracks, sizeof (TslSnapshotTrack), compare_tracks);
  name_collisions (self);

  if (ends_copy != NULL)
    {
      g_autofree guint *track_of = g_new (guint, MAX (self->n_tracks, 1));

      for (guint i = 0; i < self->n_tracks; i++)
        track_of[self->tracks[i].trace_index] = i;
      nest_flow_ends (self, track_of, ends_copy, n_ends);
      self->flows = tsl_flow_match (self->tracks, track_of, self->n_tracks, ends_copy, n_ends,
                                    self->start_ns, &self->n_flows);
    }

  return self;
}

static void
snapshot_clear (gpointer data)
{
  TslSnapshot *self = data;

  for (guint i = 0; i < self->n_tracks; i++)
    {
      g_free (self->tracks[i].name);
      g_free (self->tracks[i].process);
      g_free (self->tracks[i].unit);
      g_free (self->tracks[i].samples);
      g_free (self->tracks[i].slices);
      g_free (self->tracks[i].slice_cpu);
    }
  g_free (self->tracks);
  g_free (self->flows);
  g_free (self->format);
  for (guint i = 0; i < self->n_parts; i++)
    g_free (self->parts[i].name);
  g_free (self->parts);
  g_clear_pointer (&self->frame_slots, g_free);
  g_clear_pointer (&self->frame_names, g_ptr_array_unref);
  g_clear_pointer (&self->frame_lens, g_array_unref);
  g_clear_pointer (&self->frames, g_array_unref);
}

TslSnapshot *
tsl_snapshot_ref (TslSnapshot *self)
{
  return g_atomic_rc_box_acquire (self);
}

void
tsl_snapshot_unref (TslSnapshot *self)
{
  g_atomic_rc_box_release_full (self, snapshot_clear);
}

guint
tsl_snapshot_get_n_tracks (TslSnapshot *self)
{
  return self->n_tracks;
}

const TslSnapshotTrack *
tsl_snapshot_get_track (TslSnapshot *self,
                        guint        i)
{
  g_return_val_if_fail (i < self->n_tracks, NULL);

  return &self->tracks[i];
}

const char *
tsl_snapshot_get_frame_name (TslSnapshot *self,
                             guint32      id)
{
  g_return_val_if_fail (id < self->frame_names->len, "");

  return g_ptr_array_index (self->frame_names, id);
}

guint32
tsl_snapshot_find_frame (TslSnapshot *self,
                         const char  *name)
{
  gsize len = strlen (name);
  guint64 slot = *find_frame_slot (self, name, len, (guint32) tsl_hash_bytes (name, len));

  /* Not there: 0, the "" frame's id, as before. */
  return slot != 0 ? (guint32) slot - 1 : 0;
}

gint64
tsl_snapshot_get_span (TslSnapshot *self)
{
  return self->span_ns;
}

gint64
tsl_snapshot_get_start (TslSnapshot *self)
{
  return self->start_ns;
}

guint64
tsl_snapshot_get_events (TslSnapshot *self)
{
  return self->events;
}

guint
tsl_snapshot_get_k (TslSnapshot *self)
{
  return self->k;
}

gboolean
tsl_snapshot_get_has_time (TslSnapshot *self)
{
  return self->has_time;
}

gboolean
tsl_snapshot_get_has_cpu (TslSnapshot *self)
{
  g_return_val_if_fail (self != NULL, FALSE);

  return self->has_cpu;
}

const char *
tsl_snapshot_get_format (TslSnapshot *self)
{
  return self->format;
}

gboolean
tsl_snapshot_get_exact (TslSnapshot *self,
                        gint64      *start_ns,
                        gint64      *end_ns)
{
  if (start_ns)
    *start_ns = self->exact_start;
  if (end_ns)
    *end_ns = self->exact_end;
  return self->exact;
}

gint64
tsl_snapshot_slice_self_time (const TslSnapshotTrack *track,
                              guint                   index)
{
  const TslSnapshotSlice *s;
  gint64 self;

  g_return_val_if_fail (index < track->n_slices, 0);

  s = &track->slices[index];
  self = s->end_ns - s->start_ns;
  /* By start, then depth: its children follow it, until a slice starts at
   * or after its end. */
  for (guint i = index + 1; i < track->n_slices && track->slices[i].start_ns < s->end_ns; i++)
    if (track->slices[i].depth == s->depth + 1)
      self -= MIN (track->slices[i].end_ns, s->end_ns) - track->slices[i].start_ns;
  return MAX (self, 0);
}

gint64
tsl_snapshot_slice_cpu (const TslSnapshotTrack *track,
                        guint                   index)
{
  g_return_val_if_fail (index < track->n_slices, -1);

  return track->slice_cpu != NULL ? track->slice_cpu[index] : -1;
}

gint64
tsl_snapshot_slice_self_cpu (const TslSnapshotTrack *track,
                             guint                   index)
{
  const TslSnapshotSlice *s;
  gint64 self;

  g_return_val_if_fail (index < track->n_slices, -1);

  self = tsl_snapshot_slice_cpu (track, index);
  if (self < 0)
    return -1;
  s = &track->slices[index];
  for (guint i = index + 1; i < track->n_slices && track->slices[i].start_ns < s->end_ns; i++)
    if (track->slices[i].depth == s->depth + 1)
      {
        if (track->slice_cpu[i] < 0)
          return -1;
        self -= track->slice_cpu[i];
      }
  return MAX (self, 0);
}

guint
tsl_snapshot_slice_parent (const TslSnapshotTrack *track,
                           guint                   index)
{
  const TslSnapshotSlice *s;

  g_return_val_if_fail (index < track->n_slices, G_MAXUINT);

  s = &track->slices[index];
  if (s->depth == 0)
    return G_MAXUINT;
  for (guint i = index; i-- > 0;)
    if (track->slices[i].depth + 1 == s->depth &&
        track->slices[i].start_ns <= s->start_ns && track->slices[i].end_ns >= s->end_ns)
      return i;
  return G_MAXUINT;
}

const TslSnapshotFlow *
tsl_snapshot_get_flows (TslSnapshot *self,
                        guint       *n)
{
  g_return_val_if_fail (self != NULL, NULL);

  *n = self->n_flows;
  return self->flows;
}
