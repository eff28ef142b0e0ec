/* tsl-cpuprofile-nodes.c: a V8 CPU profile's call tree and stack labels
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each node is one frame of the tree; a parent names its children
 * ("children", node's and Chrome's DevTools files) or a child its parent
 * ("parent", Chrome's ProfileChunk nodes). The tree is held: it is bounded
 * by the program's distinct stacks, not by the samples. A link that would
 * close a cycle, or give a node a second parent, is dropped with a warning
 * that names the node's position, so that every stack walk ends. Each node
 * has one parent at most, so a link from a parent to a child without one
 * closes a cycle exactly when the child is the root of the parent's tree:
 * found through `up`, ancestors with paths halved as in union-find, so
 * hostile links cost no walk of the whole tree each.
 */
#define G_LOG_DOMAIN "tsl-cpuprofile-reader"

#include <string.h>
#include <glib/gi18n-lib.h>

#include "tsl-cpuprofile-private.h"
#include "tsl-v8-frame.h"

/* Ids below this are looked up in an array (4 MiB at most). */
#define DENSE_IDS (1 << 20)

void
tsl_cpuprofile_nodes_init (TslCpuprofile *self)
{
  self->nodes = g_array_new (FALSE, TRUE, sizeof (Node));
  self->by_id = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  self->path = g_array_new (FALSE, FALSE, sizeof (guint32));
  self->dense = g_array_new (FALSE, TRUE, sizeof (guint32));
  self->unknown_name = tsl_trace_intern (self->trace, "(unknown node)");
  self->root_name = tsl_trace_intern (self->trace, "(root)");
}

void
tsl_cpuprofile_nodes_clear (TslCpuprofile *self)
{
  g_clear_pointer (&self->nodes, g_array_unref);
  g_clear_pointer (&self->by_id, g_hash_table_unref);
  g_clear_pointer (&self->path, g_array_unref);
  g_clear_pointer (&self->dense, g_array_unref);
}

/* The index of the node with this id, made (undefined) when none is known. */
static guint32
ensure_node (TslCpuprofile *self,
             gint64         id)
{
  gpointer found = g_hash_table_lookup (self->by_id, &id);
  Node node = { 0 };

  if (found != NULL)
    return GPOINTER_TO_UINT (found) - 1;
  node.id = id;
  g_array_append_val (self->nodes, node);
  g_hash_table_insert (self->by_id, g_memdup2 (&id, sizeof id), GUINT_TO_POINTER (self->nodes->len));
  return self->nodes->len - 1;
}

guint32
tsl_cpuprofile_find_node_slow (TslCpuprofile *self,
                               gint64         id)
{
  guint32 at;

  if (id >= 0 && id < DENSE_IDS)
    return 0;   /* defined ones are all in `dense` */
  at = GPOINTER_TO_UINT (g_hash_table_lookup (self->by_id, &id));
  return at != 0 && g_array_index (self->nodes, Node, at - 1).defined ? at : 0;
}

static void
warn_node (TslCpuprofile *self,
           gsize          offset,
           const char    *message)
{
  g_autofree char *position = NULL;

  if (!tsl_cpuprofile_may_warn (self, WARN_BAD_NODE))
    return;
  position = tsl_reader_context_position (self->ctx, offset);
  tsl_trace_add_warning (self->trace, "%s: %s", position, message);
}

static guint32
find_root (Node    *nodes,
           guint32  at)
{
  while (nodes[at].up != 0)
    {
      guint32 up = nodes[at].up - 1;

      if (nodes[up].up != 0)
        nodes[at].up = nodes[up].up;
      at = up;
    }
  return at;
}

/* Makes `child` a child of `parent` unless that closes a cycle or gives it
 * a second parent. */
static void
add_edge (TslCpuprofile *self,
          guint32        parent,
          guint32        child,
          gsize          offset)
{
  Node *nodes = (Node *) self->nodes->data;
  g_autofree char *message = NULL;

  if (nodes[child].parent == parent + 1)
    return;
  if (nodes[child].parent != 0)
    {
      message = g_strdup_printf (_("node %lld is a child of node %lld and of node %lld; kept under "
                                   "the first"),
                                 (long long) nodes[child].id, (long long) nodes[nodes[child].parent - 1].id,
                                 (long long) nodes[parent].id);
      warn_node (self, offset, message);
      return;
    }
  /* The child has no parent: it is the root of its own tree. */
  if (find_root (nodes, parent) == child)
    {
      message = g_strdup_printf (_("node %lld would be its own ancestor (a cycle "
                                   "in the nodes' links); that link is dropped"), (long long) nodes[child].id);
      warn_node (self, offset, message);
      return;
    }
  nodes[child].parent = parent + 1;
  nodes[child].up = parent + 1;
}

/* "functionName file:line" (tsl-v8-frame.c). */
static guint32
intern_frame (TslCpuprofile      *self,
              const TslJsonValue *call_frame)
{
  g_autoptr(GString) name = g_string_new (NULL);

  tsl_v8_frame_name (call_frame, self->scratch, name);
  return tsl_trace_intern_len (self->trace, name->str, name->len);
}

void
tsl_cpuprofile_read_node (TslCpuprofile      *self,
                          const TslJsonValue *node,
                          gsize               offset)
{
  TslJsonValue id_v = { 0 }, frame = { 0 }, children = { 0 }, parent_v = { 0 }, child, key, value;
  TslJsonIter iter;
  TslJsonError jerr;
  gint64 id, parent_id;
  guint32 index;
  Node *n;

  if (node->type != TSL_JSON_OBJECT)
    {
      warn_node (self, offset, _("a node that is not an object is ignored"));
      return;
    }
  /* One pass over the members; the first of a name counts. */
  tsl_json_iter_init (&iter, node->p, node->p + node->len);
  while (tsl_json_iter_next_member (&iter, &key, &value, &jerr) == TSL_JSON_OK)
    {
      TslJsonValue *slot = TSL_JSON_KEY_IS (&key, "id") ? &id_v
                           : TSL_JSON_KEY_IS (&key, "callFrame") ? &frame
                           : TSL_JSON_KEY_IS (&key, "children") ? &children
                           : TSL_JSON_KEY_IS (&key, "parent") ? &parent_v : NULL;

      if (slot != NULL && slot->type == TSL_JSON_NONE)
        *slot = value;
    }
  /* Type first: an absent member has no text to look at. */
  if (id_v.type != TSL_JSON_NUMBER || !tsl_json_value_get_int64 (&id_v, &id))
    {
      warn_node (self, offset, _("a node without an integer \"id\" is ignored"));
      return;
    }
  index = ensure_node (self, id);
  n = &g_array_index (self->nodes, Node, index);
  if (n->defined)
    {
      g_autofree char *message = g_strdup_printf (_("node %lld is defined twice; the "
                                                    "second is ignored"), (long long) id);

      warn_node (self, offset, message);
      return;
    }
  n->name = intern_frame (self, &frame);
  n->defined = TRUE;
  if (id >= 0 && id < DENSE_IDS)
    {
      if ((guint) id >= self->dense->len)
        g_array_set_size (self->dense, (guint) id + 1);
      g_array_index (self->dense, guint32, id) = index + 1;
    }

  if (parent_v.type == TSL_JSON_NUMBER && tsl_json_value_get_int64 (&parent_v, &parent_id))
    {
      guint32 parent = ensure_node (self, parent_id);

      add_edge (self, parent, index, offset);
    }
  if (children.type != TSL_JSON_ARRAY)
    return;
  tsl_json_iter_init (&iter, children.p, children.p + children.len);
  while (tsl_json_iter_next_element (&iter, &child, &jerr) == TSL_JSON_OK)
    {
      gint64 child_id;

      if (child.type == TSL_JSON_NUMBER && tsl_json_value_get_int64 (&child, &child_id))
        add_edge (self, index, ensure_node (self, child_id), offset);
      else
        warn_node (self, offset, _("a node's child that is not an integer id is ignored"));
    }
}

static const char *
path_name (gpointer data,
           guint    i)
{
  TslCpuprofile *self = data;
  guint32 at = g_array_index (self->path, guint32, self->path->len - 1 - i);
  const Node *n = &g_array_index (self->nodes, Node, at);

  return tsl_trace_lookup (self->trace, n->defined ? n->name : self->unknown_name);
}

void
tsl_cpuprofile_label_node (TslCpuprofile *self,
                           guint32        node)
{
  const Node *nodes = (const Node *) self->nodes->data;
  guint n = 0;

  g_array_set_size (self->path, 0);
  if (node == 0)
    {
      tsl_trace_set_label_id (self->trace, self->track, self->unknown_name);
      return;
    }
  /* Links never close a cycle (add_edge()): the walk ends at a root. */
  for (guint32 q = node; q != 0; q = nodes[q - 1].parent)
    {
      /* Written in place, not appended: once per kept sample and frame. */
      if (n == self->path->len)
        g_array_set_size (self->path, MAX (16, 2 * n));
      ((guint32 *) self->path->data)[n++] = q - 1;
    }
  g_array_set_size (self->path, n);
  /* V8's "(root)" tops every stack and says nothing. */
  if (self->path->len > 1)
    {
      const Node *top = &nodes[g_array_index (self->path, guint32, self->path->len - 1)];

      if (top->defined && top->name == self->root_name)
        g_array_set_size (self->path, self->path->len - 1);
    }
  tsl_format_set_stack_label (self->trace, self->track, self->label, self->path->len, path_name, self, NULL);
}
