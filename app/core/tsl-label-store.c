/* tsl-label-store.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "tsl-label-store.h"

struct _TslLabelStore
{
  GHashTable *ids;      /* char * (in strings) → index */
  GPtrArray  *strings;  /* index → owned char *; [0] unused */
};

TslLabelStore *
tsl_label_store_new (void)
{
  TslLabelStore *self = g_new0 (TslLabelStore, 1);

  self->ids = g_hash_table_new (g_str_hash, g_str_equal);
  self->strings = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (self->strings, NULL);
  return self;
}

void
tsl_label_store_free (TslLabelStore *self)
{
  if (self == NULL)
    return;

  g_hash_table_unref (self->ids);
  g_ptr_array_unref (self->strings);
  g_free (self);
}

guint32
tsl_label_store_intern (TslLabelStore *self,
                        const char    *str)
{
  gpointer index;
  char *copy;

  if (g_hash_table_lookup_extended (self->ids, str, NULL, &index))
    return GPOINTER_TO_UINT (index) | TSL_LABEL_TAG;

  copy = g_strdup (str);
  g_ptr_array_add (self->strings, copy);
  g_hash_table_insert (self->ids, copy, GUINT_TO_POINTER (self->strings->len - 1));
  return (self->strings->len - 1) | TSL_LABEL_TAG;
}

const char *
tsl_label_store_lookup (TslLabelStore *self,
                        guint32        id)
{
  guint index = id & ~TSL_LABEL_TAG;

  if (!(id & TSL_LABEL_TAG) || index == 0 || index >= self->strings->len)
    return NULL;

  return g_ptr_array_index (self->strings, index);
}

guint
tsl_label_store_get_size (TslLabelStore *self)
{
  return self->strings->len - 1;
}

typedef struct {
  TslLabelStore *old;
  guint32       *map;      /* old index → new index, 0 while unmoved */
  GHashTable    *ids;
  GPtrArray     *strings;
} Collect;

static guint32
move_label (guint32  label,
            gpointer data)
{
  Collect *c = data;
  guint index = label & ~TSL_LABEL_TAG;
  char *str;

  if (!(label & TSL_LABEL_TAG))
    return label;
  if (index == 0 || index >= c->old->strings->len)
    return 0;

  if (c->map[index] == 0)
    {
      /* First holder: the string moves to the new table. */
      str = g_ptr_array_index (c->old->strings, index);
      g_ptr_array_index (c->old->strings, index) = NULL;
      g_ptr_array_add (c->strings, str);
      c->map[index] = c->strings->len - 1;
      g_hash_table_insert (c->ids, str, GUINT_TO_POINTER (c->map[index]));
    }

  return c->map[index] | TSL_LABEL_TAG;
}

void
tsl_label_store_collect (TslLabelStore  *self,
                         TslSampler    **samplers,
                         guint           n_samplers)
{
  g_autofree guint32 *map = g_new0 (guint32, self->strings->len);
  Collect c = { self, map, g_hash_table_new (g_str_hash, g_str_equal),
                g_ptr_array_new_with_free_func (g_free) };

  g_ptr_array_add (c.strings, NULL);

  for (guint i = 0; i < n_samplers; i++)
    tsl_sampler_remap_labels (samplers[i], move_label, &c);

  g_hash_table_unref (self->ids);
  g_ptr_array_unref (self->strings);   /* frees the labels nobody holds */
  self->ids = c.ids;
  self->strings = c.strings;
}
