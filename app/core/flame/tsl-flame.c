/* tsl-flame.c: merging sampled stacks by call path
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One pass over the kept samples of a range: each stack walks down from the
 * root, creating nodes found through one (parent, name) hash table, and its
 * weight lands on the node where it ends. Totals, order and layout follow
 * in one recursive pass (stacks are at most a few hundred frames deep).
 */
#define G_LOG_DOMAIN "tsl-flame"

#include "config.h"

#include <math.h>
#include <string.h>

#include "tsl-csv-writer.h"
#include "tsl-flame-private.h"
#include "tsl-track-names.h"

G_DEFINE_BOXED_TYPE (TslFlame, tsl_flame, tsl_flame_ref, tsl_flame_unref)

static guint
node_hash (gconstpointer data)
{
  const Node *node = data;
  guint64 h = GPOINTER_TO_SIZE (node->pub.parent) * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15)
              ^ GPOINTER_TO_SIZE (node->pub.name);

  return (guint) (h ^ (h >> 29));
}

static gboolean
node_equal (gconstpointer a,
            gconstpointer b)
{
  const Node *x = a, *y = b;

  /* Names are interned: equal names are the same pointer. */
  return x->pub.parent == y->pub.parent && x->pub.name == y->pub.name;
}

static const char *
intern (TslFlame   *self,
        const char *name)
{
  char *interned = g_hash_table_lookup (self->names, name);

  if (interned == NULL)
    {
      interned = g_strdup (name);
      g_hash_table_add (self->names, interned);
    }
  return interned;
}

static Node *
node_new (TslFlame   *self,
          Node       *parent,
          const char *name)
{
  Node *node = g_new0 (Node, 1);

  node->pub.name = name;
  node->pub.parent = (TslFlameNode *) parent;
  node->pub.depth = parent ? parent->pub.depth + 1 : 0;
  node->kids = g_ptr_array_new ();
  g_ptr_array_add (self->nodes, node);
  if (parent != NULL)
    g_ptr_array_add (parent->kids, node);
  self->max_depth = MAX (self->max_depth, node->pub.depth);
  return node;
}

static void
node_free (gpointer data)
{
  Node *node = data;

  g_clear_pointer (&node->kids, g_ptr_array_unref);
  g_free (node->pub.children);
  g_free (node->pub.diff);
  g_free (node->blocks[0]);
  g_free (node->blocks[1]);
  g_free (node);
}

Node *
_tsl_flame_child (TslFlame   *self,
                  Node       *parent,
                  const char *name)
{
  Node probe = { .pub = { .parent = (TslFlameNode *) parent, .name = intern (self, name) } };
  Node *node = g_hash_table_lookup (self->index, &probe);

  if (node == NULL)
    {
      node = node_new (self, parent, probe.pub.name);
      g_hash_table_add (self->index, node);
    }
  return node;
}

void
_tsl_flame_set_widths (TslFlame *self)
{
  for (guint i = 0; i < self->nodes->len; i++)
    {
      Node *node = g_ptr_array_index (self->nodes, i);

      if (node->pub.diff == NULL)
        continue;
      for (guint s = 0; s < 2; s++)
        {
          double root = self->root->total_side[s];
          double width = root > 0 ? node->total_side[s] / root : 0;

          if (s == 0)
            node->pub.diff->a_width = width;
          else
            node->pub.diff->b_width = width;
        }
    }
}

TslFlame *
_tsl_flame_new_empty (TslFlameWeight weight,
                      gboolean       diff)
{
  TslFlame *self = g_new0 (TslFlame, 1);

  g_atomic_ref_count_init (&self->ref_count);
  self->weight = weight;
  self->diff = diff;
  self->nodes = g_ptr_array_new_with_free_func (node_free);
  self->names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->index = g_hash_table_new (node_hash, node_equal);
  self->root = node_new (self, NULL, intern (self, "all"));
  self->top_depth = 1;
  for (guint s = 0; s < 2; s++)
    self->items[s] = g_array_new (FALSE, FALSE, sizeof (TslFlameItem));

  return self;
}

static gboolean
is_stack_track (const TslSnapshotTrack *track)
{
  return track->kind == TSL_TRACK_THREAD || track->kind == TSL_TRACK_ASYNC;
}

static gboolean
same_track (const TslSnapshotTrack *a,
            const TslSnapshotTrack *b)
{
  return a->kind == b->kind && a->pid == b->pid && a->tid == b->tid &&
         g_strcmp0 (a->name, b->name) == 0;
}

GPtrArray *
_tsl_flame_select_tracks (TslSnapshot             *reference,
                          TslSnapshot             *snapshot,
                          const TslFlameSelection *selection)
{
  GPtrArray *tracks = g_ptr_array_new ();
  guint n = tsl_snapshot_get_n_tracks (snapshot);

  if (selection == NULL || selection->tracks == NULL || selection->n_tracks == 0)
    {
      for (guint i = 0; i < n; i++)
        if (tsl_snapshot_get_track (snapshot, i)->kind == TSL_TRACK_THREAD)
          g_ptr_array_add (tracks, (gpointer) tsl_snapshot_get_track (snapshot, i));
      return tracks;
    }

  for (guint i = 0; i < selection->n_tracks; i++)
    {
      const TslSnapshotTrack *want;

      if (selection->tracks[i] >= tsl_snapshot_get_n_tracks (reference))
        continue;
      want = tsl_snapshot_get_track (reference, selection->tracks[i]);
      if (!is_stack_track (want))
        continue;
      if (snapshot == reference)
        {
          g_ptr_array_add (tracks, (gpointer) want);
          continue;
        }
      for (guint j = 0; j < n; j++)
        if (same_track (want, tsl_snapshot_get_track (snapshot, j)))
          {
            g_ptr_array_add (tracks, (gpointer) tsl_snapshot_get_track (snapshot, j));
            break;
          }
    }

  return tracks;
}

/* AUTO is TIME only for Chrome traces, whose thread events are all spans
 * nesting in their parents: speedscope's "ns" tracks may hold samples, for
 * which a frame's time is its own plus its callees' (SAMPLES semantics). */
TslFlameWeight
_tsl_flame_resolve_weight (TslFlameWeight  weight,
                           TslSnapshot    *snapshot,
                           GPtrArray      *tracks)
{
  if (weight != TSL_FLAME_WEIGHT_AUTO)
    return weight;
  if (tracks->len == 0 || g_strcmp0 (tsl_snapshot_get_format (snapshot), "chrome-json") != 0)
    return TSL_FLAME_WEIGHT_SAMPLES;

  for (guint i = 0; i < tracks->len; i++)
    if (g_strcmp0 (((const TslSnapshotTrack *) g_ptr_array_index (tracks, i))->unit, "ns") != 0)
      return TSL_FLAME_WEIGHT_SAMPLES;
  return TSL_FLAME_WEIGHT_TIME;
}

/* Threads' top frames, when threads are not merged and more than one is
 * selected on either side: named as the compare names their rows (the
 * snapshot gives threads of a process sharing a name their tids already;
 * "[pid]" where processes share one), over both sides' tracks so that a
 * thread's frame in A meets its frame in B. The sides hold snapshot or
 * range tracks; `key` reads one. NULL: no thread frames. */
TslTrackNames *
_tsl_flame_thread_names (const TslFlameSelection *selection,
                         GPtrArray               *tracks_a,
                         GPtrArray               *tracks_b,
                         TslFlameTrackKey         key)
{
  g_autoptr(TslTrackNames) names = NULL;
  GPtrArray *sides[2] = { tracks_a, tracks_b };

  if (selection == NULL || selection->merge_threads)
    return NULL;
  names = _tsl_track_names_new ();
  for (guint s = 0; s < 2; s++)
    for (guint i = 0; sides[s] != NULL && i < sides[s]->len; i++)
      {
        TslTrackKind kind;
        gint64 pid, tid;
        const char *name;

        key (g_ptr_array_index (sides[s], i), &kind, &pid, &tid, &name);
        _tsl_track_names_add (names, kind, pid, tid, name ? name : "?");
      }
  return _tsl_track_names_get_n (names) > 1 ? g_steal_pointer (&names) : NULL;
}

void
_tsl_flame_snapshot_track_key (gconstpointer  track,
                               TslTrackKind  *kind,
                               gint64        *pid,
                               gint64        *tid,
                               const char   **name)
{
  const TslSnapshotTrack *t = track;

  *kind = t->kind;
  *pid = t->pid;
  *tid = t->tid;
  *name = t->name;
}

void
_tsl_flame_add_side (TslFlame                      *self,
                     guint                          side,
                     TslSnapshot                   *snapshot,
                     const TslFlameSelection       *selection,
                     const TslSnapshotTrack *const *tracks,
                     guint                          n_tracks,
                     gint64                         start_ns,
                     gint64                         end_ns,
                     TslTrackNames                 *names)
{
  gboolean thread_frames = names != NULL;
  gboolean time = self->weight == TSL_FLAME_WEIGHT_TIME;
  /* A collapsed line is one event whose value is the line's count. */
  gboolean counted = g_strcmp0 (tsl_snapshot_get_format (snapshot), "collapsed") == 0;

  if (thread_frames)
    self->top_depth = 2;

  for (guint t = 0; t < n_tracks; t++)
    {
      const TslSnapshotTrack *track = tracks[t];
      Node *top = self->root;

      if (thread_frames)
        {
          g_autofree char *name = _tsl_track_names_get (names, track->kind, track->pid, track->tid,
                                                        track->name ? track->name : "?");

          top = _tsl_flame_child (self, self->root, name);
          top->pub.is_thread = TRUE;
        }

      for (guint i = 0; i < track->n_samples; i++)
        {
          const TslSnapshotSample *s = &track->samples[i];
          TslFlameItem item;
          Node *node = top;
          guint64 events = s->summary.count;

          if (s->time_ns < start_ns || s->time_ns >= end_ns || s->n_frames == 0)
            continue;

          for (guint f = 0; f < s->n_frames; f++)
            node = _tsl_flame_child (self, node, tsl_snapshot_get_frame_name (snapshot, s->frames[f]));

          if (counted && s->value >= 1)
            events = _tsl_flame_events_mul (events, s->value);

          item.time_ns = s->time_ns;
          item.leaf = node;
          item.weight = (double) events;
          /* A kept span stands for `count` spans of about its duration. */
          if (time)
            item.weight *= isnan (s->value) || s->value < 0 ? 0 : s->value;

          node->sum[side] += item.weight;
          node->events_side[side] = _tsl_flame_events_add (node->events_side[side], events);
          if (side == 1)
            {
              node->pub.self_events = _tsl_flame_events_add (node->pub.self_events, events);
              node->pub.n_samples++;
              self->n_samples++;
              self->events = _tsl_flame_events_add (self->events, events);
            }
          if (self->diff)
            g_array_append_val (self->items[side], item);
        }
    }
}

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  const Node *x = *(Node * const *) a;
  const Node *y = *(Node * const *) b;

  return strcmp (x->pub.name, y->pub.name);
}

/* Totals bottom-up, then the children array in layout order. */
static void
finish_node (TslFlame *self,
             Node     *node,
             guint32  *counter)
{
  gboolean time = _tsl_flame_weight_is_span (self->weight);

  node->pre = (*counter)++;
  g_ptr_array_sort (node->kids, compare_names);
  node->pub.n_children = node->kids->len;
  node->pub.children = (TslFlameNode **) g_ptr_array_free (g_steal_pointer (&node->kids), FALSE);

  for (guint s = 0; s < 2; s++)
    {
      double below = 0;
      guint64 events = 0;

      for (guint i = 0; i < node->pub.n_children; i++)
        {
          Node *kid = (Node *) node->pub.children[i];

          if (s == 0)
            finish_node (self, kid, counter);
          below += kid->total_side[s];
          events = _tsl_flame_events_add (events, kid->events_side[s]);
        }

      node->events_side[s] = _tsl_flame_events_add (node->events_side[s], events);
      /* Time: a span's duration holds its callees'; when the sampled callees
       * outweigh it (noise), the parent is drawn as wide as they are. */
      if (time)
        node->total_side[s] = MAX (node->sum[s], below);
      else
        node->total_side[s] = node->sum[s] + below;
    }

  for (guint i = 0; i < node->pub.n_children; i++)
    node->pub.n_samples += node->pub.children[i]->n_samples;
  node->post = *counter;
}

static void
layout (TslFlameNode *node,
        double        unit)
{
  double below = 0, x = node->x;

  for (guint i = 0; i < node->n_children; i++)
    below += node->children[i]->total;
  if (below > node->total && below > 0)
    unit = node->width / below;

  for (guint i = 0; i < node->n_children; i++)
    {
      TslFlameNode *kid = node->children[i];

      kid->x = x;
      kid->width = kid->total * unit;
      x += kid->width;
      layout (kid, unit);
    }
}

void
_tsl_flame_finish (TslFlame *self,
                   guint     layout_side)
{
  guint32 counter = 0;

  finish_node (self, self->root, &counter);

  for (guint i = 0; i < self->nodes->len; i++)
    {
      Node *node = g_ptr_array_index (self->nodes, i);
      double below = 0;

      node->pub.total = node->total_side[layout_side];
      for (guint c = 0; c < node->pub.n_children; c++)
        below += ((Node *) node->pub.children[c])->total_side[layout_side];
      node->pub.self = MAX (node->pub.total - below, 0);
      node->pub.events = node->events_side[layout_side];
      if (self->diff && node->total_side[1] <= 0 && node->total_side[0] > 0)
        self->n_only_a++;
    }

  self->root->pub.x = 0;
  self->root->pub.width = self->root->pub.total > 0 ? 1 : 0;
  layout (&self->root->pub, self->root->pub.total > 0 ? 1 / self->root->pub.total : 0);
}

TslFlame *
tsl_flame_new (TslSnapshot             *snapshot,
               const TslFlameSelection *selection,
               gint64                   start_ns,
               gint64                   end_ns)
{
  g_autoptr(GPtrArray) tracks = NULL;
  g_autoptr(TslTrackNames) names = NULL;
  TslFlame *self;

  g_return_val_if_fail (snapshot != NULL, NULL);
  g_return_val_if_fail (selection == NULL || selection->weight != TSL_FLAME_WEIGHT_CPU, NULL);

  tracks = _tsl_flame_select_tracks (snapshot, snapshot, selection);
  names = _tsl_flame_thread_names (selection, tracks, NULL, _tsl_flame_snapshot_track_key);
  self = _tsl_flame_new_empty (_tsl_flame_resolve_weight (selection ? selection->weight : TSL_FLAME_WEIGHT_AUTO,
                                                          snapshot, tracks),
                               FALSE);
  _tsl_flame_add_side (self, 1, snapshot, selection,
                       (const TslSnapshotTrack *const *) tracks->pdata, tracks->len,
                       start_ns, end_ns, names);
  _tsl_flame_finish (self, 1);
  return self;
}

TslFlame *
tsl_flame_ref (TslFlame *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

void
tsl_flame_unref (TslFlame *self)
{
  g_return_if_fail (self != NULL);

  if (!g_atomic_ref_count_dec (&self->ref_count))
    return;

  g_hash_table_unref (self->index);
  g_ptr_array_unref (self->nodes);
  g_hash_table_unref (self->names);
  for (guint s = 0; s < 2; s++)
    g_array_unref (self->items[s]);
  g_free (self);
}

const TslFlameNode *
tsl_flame_get_root (TslFlame *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return &self->root->pub;
}

gboolean
tsl_flame_is_exact (TslFlame *self)
{
  g_return_val_if_fail (self != NULL, FALSE);

  return self->exact;
}

gboolean
tsl_flame_is_diff (TslFlame *self)
{
  g_return_val_if_fail (self != NULL, FALSE);

  return self->diff;
}

TslFlameWeight
tsl_flame_get_weight (TslFlame *self)
{
  g_return_val_if_fail (self != NULL, TSL_FLAME_WEIGHT_SAMPLES);

  return self->weight;
}

guint
tsl_flame_get_max_depth (TslFlame *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->max_depth;
}

guint
tsl_flame_get_n_nodes (TslFlame *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->nodes->len;
}

guint
tsl_flame_get_n_only_a (TslFlame *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->n_only_a;
}

double
tsl_flame_get_confidence (TslFlame *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->confidence;
}

guint64
tsl_flame_get_n_samples (TslFlame *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->n_samples;
}

guint64
tsl_flame_get_events (TslFlame *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->events;
}

const TslFlameNode *
tsl_flame_find (TslFlame           *self,
                const char * const *path,
                guint               n_path)
{
  const TslFlameNode *node;

  g_return_val_if_fail (self != NULL, NULL);

  node = &self->root->pub;
  for (guint i = 0; i < n_path && node != NULL; i++)
    {
      const char *name = g_hash_table_lookup (self->names, path[i]);
      Node probe = { .pub = { .parent = (TslFlameNode *) node, .name = name } };

      node = name ? g_hash_table_lookup (self->index, &probe) : NULL;
    }

  return node;
}

double
tsl_flame_node_share (const TslFlameNode *node)
{
  const TslFlameNode *root = node;

  g_return_val_if_fail (node != NULL, 0);

  while (root->parent != NULL)
    root = root->parent;
  return root->total > 0 ? node->total / root->total : 0;
}

char *
tsl_flame_node_get_path (const TslFlameNode *node,
                         const char         *separator)
{
  g_autoptr(GPtrArray) names = g_ptr_array_new ();
  GString *path = g_string_new (NULL);

  g_return_val_if_fail (node != NULL, NULL);

  for (; node != NULL && node->parent != NULL; node = node->parent)
    g_ptr_array_add (names, (gpointer) node->name);
  for (guint i = names->len; i > 0; i--)
    {
      if (i != names->len)
        g_string_append (path, separator);
      g_string_append (path, g_ptr_array_index (names, i - 1));
    }

  return g_string_free (path, FALSE);
}

gboolean
tsl_flame_node_is_ancestor (const TslFlameNode *ancestor,
                            const TslFlameNode *node)
{
  for (; node != NULL; node = node->parent)
    if (node == ancestor)
      return TRUE;
  return FALSE;
}

gboolean
tsl_flame_name_matches (const char *name,
                        const char *needle)
{
  gsize n;

  if (name == NULL || needle == NULL || *needle == '\0')
    return FALSE;

  n = strlen (needle);
  for (const char *p = name; *p != '\0'; p++)
    if (g_ascii_strncasecmp (p, needle, n) == 0)
      return TRUE;
  return FALSE;
}

static double
matched_weight (const TslFlameNode *node,
                const char         *needle)
{
  double sum = 0;

  /* A match covers its subtree: nested matches are not counted again. */
  if (node->parent != NULL && tsl_flame_name_matches (node->name, needle))
    return node->total;
  for (guint i = 0; i < node->n_children; i++)
    sum += matched_weight (node->children[i], needle);
  return node->parent == NULL ? sum : MIN (sum, node->total);
}

double
tsl_flame_search_share (TslFlame   *self,
                        const char *needle)
{
  g_return_val_if_fail (self != NULL, 0);

  if (needle == NULL || *needle == '\0' || self->root->pub.total <= 0)
    return 0;
  return matched_weight (&self->root->pub, needle) / self->root->pub.total;
}

/* ---- writers ---- */

static gboolean
flush (GString       *buf,
       GOutputStream *out,
       gboolean       force,
       GCancellable  *cancellable,
       GError       **error)
{
  if (!force && buf->len < 64 * 1024)
    return TRUE;
  if (!g_output_stream_write_all (out, buf->str, buf->len, NULL, cancellable, error))
    return FALSE;
  g_string_truncate (buf, 0);
  return TRUE;
}

/* Folded lines cannot hold a newline, and ';' is their separator: the
 * readers stored a ';' inside a name as ':' (tsl-frames.h). */
static void
append_frame (GString    *buf,
              const char *name)
{
  for (const char *p = name; *p != '\0'; p++)
    g_string_append_c (buf, *p == '\n' || *p == '\r' ? ' ' : *p);
}

static gboolean
write_folded (const TslFlameNode *node,
              gboolean            cpu,
              GString            *prefix,
              GString            *buf,
              GOutputStream      *out,
              GCancellable       *cancellable,
              GError            **error)
{
  gsize len = prefix->len;
  guint64 count;

  if (node->parent != NULL)
    {
      if (node->parent->parent != NULL)
        g_string_append_c (prefix, ';');
      append_frame (prefix, node->name);
    }

  /* By CPU time the stacks weigh what the graph draws: their own CPU time
   * in whole ns (flamegraph.pl --countname=ns), not their calls. */
  count = cpu ? (guint64) llround (MAX (node->self, 0)) : node->self_events;
  if (count > 0 && node->parent != NULL)
    {
      g_string_append_len (buf, prefix->str, prefix->len);
      g_string_append_printf (buf, " %" G_GUINT64_FORMAT "\n", count);
      if (!flush (buf, out, FALSE, cancellable, error))
        return FALSE;
    }

  for (guint i = 0; i < node->n_children; i++)
    if (!write_folded (node->children[i], cpu, prefix, buf, out, cancellable, error))
      return FALSE;

  g_string_truncate (prefix, len);
  return TRUE;
}

gboolean
tsl_flame_write_folded (TslFlame      *self,
                        GOutputStream *out,
                        GCancellable  *cancellable,
                        GError       **error)
{
  g_autoptr(GString) prefix = g_string_new (NULL);
  g_autoptr(GString) buf = g_string_new (NULL);

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (G_IS_OUTPUT_STREAM (out), FALSE);

  return write_folded (&self->root->pub, self->weight == TSL_FLAME_WEIGHT_CPU, prefix, buf, out,
                       cancellable, error) &&
         flush (buf, out, TRUE, cancellable, error);
}

static gboolean
write_tree (TslFlame           *self,
            const TslFlameNode *node,
            GString            *buf,
            GOutputStream      *out,
            GCancellable       *cancellable,
            GError            **error)
{
  double root = self->root->pub.total;

  if (node->parent != NULL)
    {
      g_autofree char *path = tsl_flame_node_get_path (node, ";");

      tsl_csv_append_field (buf, path);
      tsl_csv_append_number (buf, root > 0 ? node->self / root : NAN);
      tsl_csv_append_number (buf, root > 0 ? node->total / root : NAN);
      tsl_csv_append_number (buf, node->self);
      tsl_csv_append_number (buf, node->total);
      if (self->diff)
        {
          const TslFlameDiff *d = node->diff;

          tsl_csv_append_change (buf, d->a_share, d->b_share, d->change, d->ci_low, d->ci_high,
                                 d->p_value, d->q_value, d->significant);
        }
      g_string_append_c (buf, '\n');
      if (!flush (buf, out, FALSE, cancellable, error))
        return FALSE;
    }

  for (guint i = 0; i < node->n_children; i++)
    if (!write_tree (self, node->children[i], buf, out, cancellable, error))
      return FALSE;
  return TRUE;
}

gboolean
tsl_flame_write_tree_csv (TslFlame      *self,
                          GOutputStream *out,
                          GCancellable  *cancellable,
                          GError       **error)
{
  g_autoptr(GString) buf = g_string_new ("call_path,self_share,total_share,self_weight,total_weight");

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (G_IS_OUTPUT_STREAM (out), FALSE);

  if (self->diff)
    g_string_append (buf, ",a_share,b_share,change_pct,ci_low_pct,ci_high_pct,p_value,q_value,significant");
  g_string_append_c (buf, '\n');

  return write_tree (self, &self->root->pub, buf, out, cancellable, error) &&
         flush (buf, out, TRUE, cancellable, error);
}
