/* tsl-label-store.c: the payload strings of kept samples, collected when evicted
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * An open-addressing table of its own rather than a GHashTable: every entry
 * keeps its hash, so a collection re-inserts the survivors without hashing
 * their (often long) stack strings again — with g_str_hash that re-hashing
 * was 11% of a whole Chrome ingest.
 */
#define G_LOG_DOMAIN "tsl-label-store"

#include "config.h"

#include <string.h>

#include "tsl-hash.h"
#include "tsl-label-store.h"

typedef struct {
  guint64 hash;
  gsize   len;
  char    str[];
} Label;

struct _TslLabelStore
{
  GPtrArray *labels;   /* index → owned Label *; [0] unused */
  guint32   *slots;    /* 0 = empty, else an index into labels */
  gsize      mask;     /* n_slots - 1; the table is at most half full */
};

static void
place (guint32 *slots,
       gsize    mask,
       guint64  hash,
       guint32  index)
{
  gsize i = hash & mask;

  while (slots[i] != 0)
    i = (i + 1) & mask;
  slots[i] = index;
}

static void
grow (TslLabelStore *self)
{
  gsize n_slots = (self->mask + 1) * 2;

  g_free (self->slots);
  self->slots = g_new0 (guint32, n_slots);
  self->mask = n_slots - 1;
  for (guint i = 1; i < self->labels->len; i++)
    place (self->slots, self->mask, ((Label *) g_ptr_array_index (self->labels, i))->hash, i);
}

TslLabelStore *
tsl_label_store_new (void)
{
  TslLabelStore *self = g_new0 (TslLabelStore, 1);

  self->labels = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (self->labels, NULL);
  self->mask = 1023;
  self->slots = g_new0 (guint32, self->mask + 1);
  return self;
}

void
tsl_label_store_free (TslLabelStore *self)
{
  if (self == NULL)
    return;

  g_ptr_array_unref (self->labels);
  g_free (self->slots);
  g_free (self);
}

guint32
tsl_label_store_intern_len (TslLabelStore *self,
                            const char    *str,
                            gsize          len)
{
  guint64 hash = tsl_hash_bytes (str, len);
  Label *label;
  gsize i;

  for (i = hash & self->mask; self->slots[i] != 0; i = (i + 1) & self->mask)
    {
      label = g_ptr_array_index (self->labels, self->slots[i]);
      if (label->hash == hash && label->len == len && memcmp (label->str, str, len) == 0)
        return self->slots[i] | TSL_LABEL_TAG;
    }

  label = g_malloc (sizeof (Label) + len + 1);
  label->hash = hash;
  label->len = len;
  memcpy (label->str, str, len + 1);
  g_ptr_array_add (self->labels, label);
  self->slots[i] = self->labels->len - 1;
  if (self->labels->len * 2 > self->mask + 1)
    grow (self);
  return (self->labels->len - 1) | TSL_LABEL_TAG;
}

const char *
tsl_label_store_lookup (TslLabelStore *self,
                        guint32        id)
{
  guint index = id & ~TSL_LABEL_TAG;
  Label *label;

  if (!(id & TSL_LABEL_TAG) || index == 0 || index >= self->labels->len)
    return NULL;

  label = g_ptr_array_index (self->labels, index);
  return label != NULL ? label->str : NULL;
}

guint
tsl_label_store_get_size (TslLabelStore *self)
{
  return self->labels->len - 1;
}

typedef struct {
  TslLabelStore *old;
  guint32       *map;      /* old index → new index, 0 while unmoved */
  GPtrArray     *labels;
} Collect;

static guint32
move_label (guint32  id,
            gpointer data)
{
  Collect *c = data;
  guint index = id & ~TSL_LABEL_TAG;

  if (!(id & TSL_LABEL_TAG))
    return id;
  if (index == 0 || index >= c->old->labels->len)
    return 0;

  if (c->map[index] == 0)
    {
      /* First holder: the label moves to the new array. */
      g_ptr_array_add (c->labels, g_ptr_array_index (c->old->labels, index));
      g_ptr_array_index (c->old->labels, index) = NULL;
      c->map[index] = c->labels->len - 1;
    }

  return c->map[index] | TSL_LABEL_TAG;
}

void
tsl_label_store_collect (TslLabelStore  *self,
                         TslSampler    **samplers,
                         guint           n_samplers)
{
  g_autofree guint32 *map = g_new0 (guint32, self->labels->len);
  Collect c = { self, map, g_ptr_array_new_with_free_func (g_free) };
  gsize n_slots = 1024;

  g_ptr_array_add (c.labels, NULL);

  for (guint i = 0; i < n_samplers; i++)
    tsl_sampler_remap_labels (samplers[i], move_label, &c);

  g_ptr_array_unref (self->labels);   /* frees the labels nobody holds */
  self->labels = c.labels;

  while (n_slots < (gsize) self->labels->len * 4)
    n_slots *= 2;
  self->mask = n_slots / 2 - 1;       /* grow() doubles it and re-places */
  grow (self);
}
