/* tsl-exact.c: every slice of a time window, up to a budget
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "tsl-exact"

#include "config.h"

#include <string.h>

#include "tsl-exact.h"

/* A label table slot: 0 is empty, else the label's id and (part of) its
 * hash. */
typedef struct {
  guint32 id;
  guint32 hash;
} LabelSlot;

struct _TslExact
{
  gint64        start_ns;
  gint64        end_ns;
  guint         per_track;
  guint         total;
  guint         n_total;
  gboolean      complete;
  GPtrArray    *tracks;     /* GArray of TslExactSlice per track, NULL until used */
  GPtrArray    *cpu;        /* GArray of gint64 per track, NULL until a slice has CPU time */
  TslExactSlice *last;      /* the slice tsl_exact_set_label() names */
  GStringChunk *chunk;
  LabelSlot    *slots;      /* label → id, open addressing; n_slots a power of 2 */
  guint         n_slots;
  GPtrArray    *labels;     /* id → label; [0] = "" */
  GArray       *flows;      /* TslExactFlow, at most max_flows */
  guint         max_flows;
  guint64       flows_dropped;
};

static void
slices_free (gpointer data)
{
  if (data != NULL)
    g_array_unref (data);
}

TslExact *
tsl_exact_new (gint64 start_ns,
               gint64 end_ns,
               guint  per_track,
               guint  total)
{
  TslExact *self = g_new0 (TslExact, 1);

  self->start_ns = start_ns;
  self->end_ns = end_ns;
  self->per_track = per_track;
  self->total = total;
  self->complete = TRUE;
  self->tracks = g_ptr_array_new_with_free_func (slices_free);
  self->cpu = g_ptr_array_new_with_free_func (slices_free);
  self->chunk = g_string_chunk_new (4096);
  self->n_slots = 1024;
  self->slots = g_new0 (LabelSlot, self->n_slots);
  self->labels = g_ptr_array_new ();
  g_ptr_array_add (self->labels, (gpointer) "");
  self->flows = g_array_new (FALSE, FALSE, sizeof (TslExactFlow));
  self->max_flows = TSL_EXACT_FLOWS;
  return self;
}

static void
drop_all (TslExact *self)
{
  self->complete = FALSE;
  self->last = NULL;
  g_ptr_array_set_size (self->tracks, 0);
  g_ptr_array_set_size (self->cpu, 0);
  memset (self->slots, 0, self->n_slots * sizeof (LabelSlot));
  g_ptr_array_set_size (self->labels, 1);
  g_string_chunk_clear (self->chunk);
  g_array_set_size (self->flows, 0);
}

void
tsl_exact_free (TslExact *self)
{
  if (self == NULL)
    return;
  g_ptr_array_unref (self->tracks);
  g_free (self->slots);
  g_ptr_array_unref (self->labels);
  g_string_chunk_free (self->chunk);
  g_ptr_array_unref (self->cpu);
  g_array_unref (self->flows);
  g_free (self);
}

gboolean
tsl_exact_record (TslExact *self,
                  guint     track,
                  gint64    start_ns,
                  gint64    end_ns,
                  gint64    offset,
                  guint32   flags)
{
  GArray *slices;
  TslExactSlice slice = { start_ns, end_ns, offset, 0, flags };

  self->last = NULL;
  if (!self->complete)
    return FALSE;
  /* Half-open window; an instant counts where it is. */
  if (start_ns >= self->end_ns || end_ns < self->start_ns ||
      (end_ns == self->start_ns && start_ns != end_ns))
    return FALSE;

  if (++self->n_total > self->total)
    {
      drop_all (self);
      return FALSE;
    }
  if (track >= self->tracks->len)
    g_ptr_array_set_size (self->tracks, track + 1);
  slices = g_ptr_array_index (self->tracks, track);
  if (slices == NULL)
    {
      slices = g_array_new (FALSE, FALSE, sizeof (TslExactSlice));
      g_ptr_array_index (self->tracks, track) = slices;
    }
  if (slices->len >= self->per_track)
    {
      drop_all (self);
      return FALSE;
    }

  g_array_append_val (slices, slice);
  self->last = &g_array_index (slices, TslExactSlice, slices->len - 1);
  return TRUE;
}

void
tsl_exact_set_cpu (TslExact *self,
                   guint     track,
                   gint64    cpu_ns)
{
  GArray *slices, *cpu;
  gint64 unknown = -1;

  if (!self->complete || self->last == NULL || track >= self->tracks->len)
    return;
  slices = g_ptr_array_index (self->tracks, track);
  if (track >= self->cpu->len)
    g_ptr_array_set_size (self->cpu, track + 1);
  cpu = g_ptr_array_index (self->cpu, track);
  if (cpu == NULL)
    {
      cpu = g_array_new (FALSE, FALSE, sizeof (gint64));
      g_ptr_array_index (self->cpu, track) = cpu;
    }
  while (cpu->len + 1 < slices->len)
    g_array_append_val (cpu, unknown);
  g_array_set_size (cpu, slices->len);
  g_array_index (cpu, gint64, slices->len - 1) = cpu_ns;
}

const gint64 *
tsl_exact_get_cpu (TslExact *self,
                   guint     track,
                   guint    *n)
{
  GArray *cpu = track < self->cpu->len ? g_ptr_array_index (self->cpu, track) : NULL;

  *n = cpu != NULL ? cpu->len : 0;
  return cpu != NULL ? (const gint64 *) cpu->data : NULL;
}

/* Every kept slice names its stack, and most stacks of a view are new:
 * one hash of the bytes, read 8 at a time, serves the lookup and the
 * insertion (no copy of the label to look it up). */
static guint32
label_hash (const char *s,
            gsize       len)
{
  guint64 h = 0x9e3779b97f4a7c15 ^ len;

  for (; len >= 8; s += 8, len -= 8)
    {
      guint64 w;

      memcpy (&w, s, 8);
      h = (h ^ w) * 0xff51afd7ed558ccd;
      h ^= h >> 32;
    }
  if (len > 0)
    {
      guint64 w = 0;

      memcpy (&w, s, len);
      h = (h ^ w) * 0xc4ceb9fe1a85ec53;
    }
  h ^= h >> 29;
  return (guint32) h;
}

static void
grow_slots (TslExact *self)
{
  guint n = self->n_slots * 2;
  LabelSlot *slots = g_new0 (LabelSlot, n);

  for (guint i = 0; i < self->n_slots; i++)
    if (self->slots[i].id != 0)
      {
        guint j = self->slots[i].hash & (n - 1);

        while (slots[j].id != 0)
          j = (j + 1) & (n - 1);
        slots[j] = self->slots[i];
      }
  g_free (self->slots);
  self->slots = slots;
  self->n_slots = n;
}

void
tsl_exact_set_label (TslExact   *self,
                     const char *label,
                     gsize       len)
{
  guint32 hash, id;
  guint i;

  if (self->last == NULL)
    return;
  hash = label_hash (label, len);
  for (i = hash & (self->n_slots - 1); self->slots[i].id != 0; i = (i + 1) & (self->n_slots - 1))
    {
      const char *stored = g_ptr_array_index (self->labels, self->slots[i].id);

      /* strncmp stops at a shorter label's end. */
      if (self->slots[i].hash == hash && strncmp (stored, label, len) == 0 && stored[len] == '\0')
        {
          self->last->label = self->slots[i].id;
          self->last = NULL;
          return;
        }
    }
  id = self->labels->len;
  g_ptr_array_add (self->labels, g_string_chunk_insert_len (self->chunk, label, len));
  self->slots[i] = (LabelSlot) { id, hash };
  /* At most half full. */
  if (2 * (self->labels->len - 1) > self->n_slots)
    grow_slots (self);
  self->last->label = id;
  self->last = NULL;
}

gboolean
tsl_exact_is_complete (TslExact *self)
{
  return self->complete;
}

void
tsl_exact_get_window (TslExact *self,
                      gint64   *start_ns,
                      gint64   *end_ns)
{
  *start_ns = self->start_ns;
  *end_ns = self->end_ns;
}

const TslExactSlice *
tsl_exact_get_slices (TslExact *self,
                      guint     track,
                      guint    *n)
{
  GArray *slices = track < self->tracks->len ? g_ptr_array_index (self->tracks, track) : NULL;

  *n = slices ? slices->len : 0;
  return slices ? (const TslExactSlice *) (gpointer) slices->data : NULL;
}

const char *
tsl_exact_lookup (TslExact *self,
                  guint32   label)
{
  return label < self->labels->len ? g_ptr_array_index (self->labels, label) : "";
}

guint
tsl_exact_get_n_labels (TslExact *self)
{
  return self->labels->len;
}

gboolean
tsl_exact_record_flow (TslExact    *self,
                       guint        track,
                       guint64      key,
                       gint64       time_ns,
                       guint        depth,
                       TslFlowBind  bind,
                       guint        dir)
{
  TslExactFlow flow = { 0, };

  if (!self->complete || time_ns < self->start_ns || time_ns >= self->end_ns)
    return TRUE;
  if (self->flows->len >= self->max_flows)
    {
      self->flows_dropped++;
      return FALSE;
    }
  flow.key = key;
  flow.time_ns = time_ns;
  flow.track = track;
  flow.seq = self->flows->len;
  flow.depth = (guint16) MIN (depth, G_MAXUINT16);
  flow.bind = (guint8) bind;
  flow.dir = (guint8) dir;
  g_array_append_val (self->flows, flow);
  return TRUE;
}

const TslExactFlow *
tsl_exact_get_flows (TslExact *self,
                     guint    *n)
{
  *n = self->flows->len;
  return (const TslExactFlow *) (gpointer) self->flows->data;
}

guint64
tsl_exact_get_flows_dropped (TslExact *self)
{
  return self->flows_dropped;
}
