/* tsl-exact.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "tsl-exact"

#include "config.h"

#include "tsl-exact.h"

struct _TslExact
{
  gint64        start_ns;
  gint64        end_ns;
  guint         per_track;
  guint         total;
  guint         n_total;
  gboolean      complete;
  GPtrArray    *tracks;     /* GArray of TslExactSlice per track, NULL until used */
  TslExactSlice *last;      /* the slice tsl_exact_set_label() names */
  GStringChunk *chunk;
  GHashTable   *label_ids;  /* label (in chunk) → id */
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
  self->chunk = g_string_chunk_new (4096);
  self->label_ids = g_hash_table_new (g_str_hash, g_str_equal);
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
  g_hash_table_remove_all (self->label_ids);
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
  g_hash_table_unref (self->label_ids);
  g_ptr_array_unref (self->labels);
  g_string_chunk_free (self->chunk);
  g_array_unref (self->flows);
  g_free (self);
}

gboolean
tsl_exact_record (TslExact *self,
                  guint     track,
                  gint64    start_ns,
                  gint64    end_ns,
                  gint64    offset)
{
  GArray *slices;
  TslExactSlice slice = { start_ns, end_ns, offset, 0, 0 };

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
tsl_exact_set_label (TslExact   *self,
                     const char *label,
                     gsize       len)
{
  g_autofree char *key = NULL;
  gpointer id;

  if (self->last == NULL)
    return;
  key = g_strndup (label, len);
  if (!g_hash_table_lookup_extended (self->label_ids, key, NULL, &id))
    {
      char *stored = g_string_chunk_insert_len (self->chunk, label, len);

      id = GUINT_TO_POINTER (self->labels->len);
      g_ptr_array_add (self->labels, stored);
      g_hash_table_insert (self->label_ids, stored, id);
    }
  self->last->label = GPOINTER_TO_UINT (id);
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
