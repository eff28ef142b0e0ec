/* tsl-chrome-profile.c: V8 CPU profiles embedded as Profile/ProfileChunk events
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * With the disabled-by-default-v8.cpu_profiler category, Chrome writes a
 * "Profile" event on the sampled thread (its args.data.startTime) and then
 * "ProfileChunk" events from the profiler's thread, paired with it by the
 * event's "id" within the process: each chunk adds nodes to the profile's
 * call tree (cpuProfile.nodes, a child naming its parent) and samples
 * (cpuProfile.samples, node ids) with their "timeDeltas", in µs from the
 * sample before, the first from startTime. The samples go to a track of
 * their own beside the thread's spans ("THREAD (V8 CPU profile)"), a
 * sampled stack track, labelled like a .cpuprofile's.
 *
 * Streaming: a chunk's samples are placed as it is read; the tree is held
 * (bounded by the program's distinct stacks, not by the samples). Chunks
 * read before their Profile event (a trace is written per thread buffer,
 * not in time order) hold their samples in a spool (tsl-spool.c) until it
 * comes; chunks whose Profile never comes are placed from their first
 * chunk's time, on the chunk's thread, with a warning. Links that would
 * close a cycle or give a node a second parent are dropped, so every stack
 * walk ends.
 */
#define G_LOG_DOMAIN "tsl-chrome"

#include <string.h>
#include <glib/gi18n-lib.h>

#include "tsl-chrome-ids.h"
#include "tsl-chrome-profile-private.h"
#include "tsl-format-private.h"
#include "tsl-spool.h"
#include "tsl-time-math.h"
#include "tsl-v8-frame.h"

/* Bytes of held samples in memory per profile before its spool spills. */
#define HELD_BYTES (1024 * 1024)
/* Positioned warnings per kind; past these only a count at the end. */
#define POS_WARNINGS 10
/* Times are kept within ±2^62 ns: sums of hostile deltas must not reach
 * the sampler's arithmetic at G_MININT64. */
#define TIME_LIMIT (G_MAXINT64 / 2)


static void
profile_free (gpointer data)
{
  Profile *pr = data;

  g_free (pr->key);
  g_array_unref (pr->nodes);
  g_hash_table_unref (pr->by_id);
  g_array_unref (pr->changed);
  tsl_spool_clear (&pr->held);
  g_free (pr);
}

TslChromeProfiles *
_tsl_chrome_profiles_ensure (TslChromeModel *self)
{
  TslChromeProfiles *ps = self->profiles;

  if (ps != NULL)
    return ps;
  ps = g_new0 (TslChromeProfiles, 1);
  ps->by_key = g_hash_table_new (g_str_hash, g_str_equal);
  ps->order = g_ptr_array_new_with_free_func (profile_free);
  ps->root_name = tsl_trace_intern (self->trace, "(root)");
  ps->unknown_name = tsl_trace_intern (self->trace, "(unknown node)");
  ps->label = g_string_new (NULL);
  ps->name = g_string_new (NULL);
  ps->path = g_array_new (FALSE, FALSE, sizeof (guint32));
  self->profiles = ps;
  return ps;
}

void
_tsl_chrome_profiles_free (TslChromeModel *self)
{
  TslChromeProfiles *ps = self->profiles;

  if (ps == NULL)
    return;
  g_hash_table_unref (ps->by_key);
  g_ptr_array_unref (ps->order);
  g_string_free (ps->label, TRUE);
  g_string_free (ps->name, TRUE);
  g_array_unref (ps->path);
  g_free (ps);
  self->profiles = NULL;
}

Profile *
_tsl_chrome_profile_ensure (TslChromeModel *self,
                            gint64          pid,
                            const char     *id,
                            gsize           id_len)
{
  TslChromeProfiles *ps = _tsl_chrome_profiles_ensure (self);
  g_autofree char *key = g_strdup_printf ("%" G_GINT64_FORMAT ":%.*s", pid, (int) id_len, id);
  Profile *pr = g_hash_table_lookup (ps->by_key, key);

  if (pr != NULL)
    return pr;
  pr = g_new0 (Profile, 1);
  pr->key = g_steal_pointer (&key);
  pr->pid = pid;
  pr->nodes = g_array_new (FALSE, TRUE, sizeof (PNode));
  pr->by_id = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  pr->changed = g_array_new (FALSE, FALSE, sizeof (guint32));
  tsl_spool_init (&pr->held, "chrome-profile", HELD_BYTES, "TSL_CHROME_PROFILE_SPOOL_BYTES");
  g_hash_table_insert (ps->by_key, pr->key, pr);
  g_ptr_array_add (ps->order, pr);
  return pr;
}

/* Past the first few of a kind, counted; the count is part of a
 * checkpoint, and a chunk that adds to it is read always, so a range read
 * ends with the whole read's "N more". */
static gboolean
may_warn (TslChromeModel *self,
          WarnKind        kind)
{
  if (++self->profiles->warned[kind] <= POS_WARNINGS)
    return TRUE;
  tsl_trace_note_change (self->trace);
  return FALSE;
}

/* "FILE:LINE:COLUMN: MESSAGE" at the event's '{'. */
static void
warn_at (TslChromeModel       *self,
         const TslChromeEvent *ev,
         WarnKind              kind,
         const char           *message)
{
  g_autofree char *position = NULL;

  if (!may_warn (self, kind))
    return;
  if (self->ctx != NULL && ev != NULL && self->offset_buf != NULL)
    position = tsl_reader_context_position (self->ctx, ev->start - self->offset_buf);
  tsl_trace_add_warning (self->trace, "%s: %s", position != NULL ? position : "ProfileChunk", message);
}

/* Nodes */

guint32
_tsl_chrome_profile_node (Profile *pr,
                          gint64   id)
{
  gpointer found = g_hash_table_lookup (pr->by_id, &id);
  PNode node = { 0 };

  if (found != NULL)
    return GPOINTER_TO_UINT (found) - 1;
  node.id = id;
  g_array_append_val (pr->nodes, node);
  g_hash_table_insert (pr->by_id, g_memdup2 (&id, sizeof id), GUINT_TO_POINTER (pr->nodes->len));
  return pr->nodes->len - 1;
}

static void
note_change (TslChromeModel *self,
             Profile        *pr,
             guint32         at)
{
  if (self->profiles->listing && at < pr->n_listed)
    g_array_append_val (pr->changed, at);
}

static guint32
find_root (PNode   *nodes,
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
 * a second parent; the message says which (NULL: linked, or already). */
char *
_tsl_chrome_profile_link (TslChromeModel *self,
                          Profile        *pr,
                          guint32         parent,
                          guint32         child)
{
  PNode *nodes = (PNode *) pr->nodes->data;

  if (nodes[child].parent == parent + 1)
    return NULL;
  if (nodes[child].parent != 0)
    return g_strdup_printf (_("node %lld of a V8 CPU profile is a child of node %lld and of node %lld; "
                              "kept under the first"),
                            (long long) nodes[child].id, (long long) nodes[nodes[child].parent - 1].id,
                            (long long) nodes[parent].id);
  /* The child has no parent: it is the root of its own tree. */
  if (find_root (nodes, parent) == child)
    return g_strdup_printf (_("node %lld of a V8 CPU profile would be its own ancestor (a cycle in "
                              "the nodes' links); that link is dropped"), (long long) nodes[child].id);
  nodes[child].parent = parent + 1;
  nodes[child].up = parent + 1;
  note_change (self, pr, child);
  return NULL;
}

/* "functionName file:line", as the .cpuprofile reader names a frame. */
static guint32
intern_frame (TslChromeModel     *self,
              const TslJsonValue *call_frame)
{
  GString *name = self->profiles->name;

  tsl_v8_frame_name (call_frame, self->scratch, name);
  return tsl_trace_intern_len (self->trace, name->str, name->len);
}

static void
read_node (TslChromeModel       *self,
           const TslChromeEvent *ev,
           Profile              *pr,
           const TslJsonValue   *node)
{
  TslJsonValue id_v = { 0 }, frame = { 0 }, children = { 0 }, parent_v = { 0 }, child, key, value;
  TslJsonIter iter;
  TslJsonError jerr;
  gint64 id, parent_id;
  guint32 index;
  PNode *n;
  g_autofree char *message = NULL;

  if (node->type != TSL_JSON_OBJECT)
    {
      warn_at (self, ev, WARN_NODE, _("a node of a V8 CPU profile that is not an object is ignored"));
      return;
    }
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
  if (id_v.type != TSL_JSON_NUMBER || !tsl_json_value_get_int64 (&id_v, &id))
    {
      warn_at (self, ev, WARN_NODE, _("a node of a V8 CPU profile without an integer \"id\" is ignored"));
      return;
    }
  index = _tsl_chrome_profile_node (pr, id);
  n = &g_array_index (pr->nodes, PNode, index);
  if (n->defined)
    {
      message = g_strdup_printf (_("node %lld of a V8 CPU profile is defined twice; the second is "
                                   "ignored"), (long long) id);
      warn_at (self, ev, WARN_NODE, message);
      return;
    }
  n->name = intern_frame (self, &frame);
  n->defined = TRUE;
  note_change (self, pr, index);
  if (parent_v.type == TSL_JSON_NUMBER && tsl_json_value_get_int64 (&parent_v, &parent_id))
    message = _tsl_chrome_profile_link (self, pr, _tsl_chrome_profile_node (pr, parent_id), index);
  else if (parent_v.type != TSL_JSON_NONE)
    message = g_strdup (_("a node's \"parent\" that is not an integer id is ignored"));
  if (message != NULL)
    warn_at (self, ev, WARN_NODE, message);
  if (children.type != TSL_JSON_ARRAY)
    return;
  tsl_json_iter_init (&iter, children.p, children.p + children.len);
  while (tsl_json_iter_next_element (&iter, &child, &jerr) == TSL_JSON_OK)
    {
      gint64 child_id;

      g_clear_pointer (&message, g_free);
      if (child.type == TSL_JSON_NUMBER && tsl_json_value_get_int64 (&child, &child_id))
        message = _tsl_chrome_profile_link (self, pr, index, _tsl_chrome_profile_node (pr, child_id));
      else
        message = g_strdup (_("a node's child that is not an integer id is ignored"));
      if (message != NULL)
        warn_at (self, ev, WARN_NODE, message);
    }
}

/* Samples */

static const char *
path_name (gpointer data,
           guint    i)
{
  TslChromeModel *self = ((gpointer *) data)[0];
  Profile *pr = ((gpointer *) data)[1];
  TslChromeProfiles *ps = self->profiles;
  guint32 at = g_array_index (ps->path, guint32, ps->path->len - 1 - i);
  const PNode *n = &g_array_index (pr->nodes, PNode, at);

  return tsl_trace_lookup (self->trace, n->defined ? n->name : ps->unknown_name);
}

/* Labels the kept sample with the stack of `node` (index + 1, 0: none),
 * root first, without V8's "(root)", which tops every stack. */
static void
label_node (TslChromeModel *self,
            Profile        *pr,
            guint32         node)
{
  TslChromeProfiles *ps = self->profiles;
  const PNode *nodes = (const PNode *) pr->nodes->data;
  gpointer data[2] = { self, pr };

  g_array_set_size (ps->path, 0);
  if (node == 0)
    {
      tsl_trace_set_label_id (self->trace, pr->track, ps->unknown_name);
      return;
    }
  for (guint32 q = node; q != 0; q = nodes[q - 1].parent)
    {
      guint32 at = q - 1;

      g_array_append_val (ps->path, at);
    }
  if (ps->path->len > 1)
    {
      const PNode *top = &nodes[g_array_index (ps->path, guint32, ps->path->len - 1)];

      if (top->defined && top->name == ps->root_name)
        g_array_set_size (ps->path, ps->path->len - 1);
    }
  tsl_format_set_stack_label (self->trace, pr->track, ps->label, ps->path->len, path_name, data, NULL);
}

static void
place_sample (TslChromeModel *self,
              Profile        *pr,
              guint32         node,
              gint64          delta_ns)
{
  gint64 at;

  pr->t_ns = tsl_time_add (pr->t_ns, delta_ns);
  at = tsl_time_add (pr->start_ns, pr->t_ns);
  if (at > TIME_LIMIT || at < -TIME_LIMIT)
    {
      self->profiles->clamped = TRUE;
      at = at > 0 ? TIME_LIMIT : -TIME_LIMIT;
    }
  if (tsl_trace_offer (self->trace, pr->track, at, 1))
    label_node (self, pr, node);
}

/* The profile's track: the thread's part "(V8 CPU profile)". */
static void
start_profile (TslChromeModel *self,
               Profile        *pr,
               gint64          tid,
               gint64          start_ns)
{
  gint64 node, delta;

  pr->started = TRUE;
  pr->tid = tid;
  pr->start_ns = start_ns;
  pr->track = tsl_trace_ensure_thread_part (self->trace, pr->pid, tid, "(V8 CPU profile)");
  tsl_trace_track_set_sampled (self->trace, pr->track, TRUE);
  if (pr->n_held == 0)
    return;
  while (tsl_spool_pop (&pr->held, &node) && tsl_spool_pop (&pr->held, &delta))
    place_sample (self, pr, (guint32) node, delta);
  tsl_spool_clear (&pr->held);
  tsl_spool_init (&pr->held, "chrome-profile", HELD_BYTES, "TSL_CHROME_PROFILE_SPOOL_BYTES");
  pr->n_held = 0;
}

static guint32
find_node (Profile *pr,
           gint64   id)
{
  guint32 at = GPOINTER_TO_UINT (g_hash_table_lookup (pr->by_id, &id));

  return at != 0 && g_array_index (pr->nodes, PNode, at - 1).defined ? at : 0;
}

/* samples[i] with timeDeltas[i]: a sample without a delta is at the time
 * of the one before, a delta without a sample is ignored (as in a
 * .cpuprofile). */
static void
read_samples (TslChromeModel       *self,
              const TslChromeEvent *ev,
              Profile              *pr,
              const TslJsonValue   *samples,
              const TslJsonValue   *deltas)
{
  TslJsonIter s_iter, d_iter;
  TslJsonValue s, d;
  TslJsonError jerr;
  gboolean more_deltas = deltas->type == TSL_JSON_ARRAY;
  guint64 n_samples = 0, n_deltas = 0;

  if (samples->type != TSL_JSON_ARRAY)
    {
      if (samples->type != TSL_JSON_NONE)
        warn_at (self, ev, WARN_CHUNK, _("a ProfileChunk's \"samples\" is not an array; ignored"));
      return;
    }
  tsl_json_iter_init (&s_iter, samples->p, samples->p + samples->len);
  if (more_deltas)
    tsl_json_iter_init (&d_iter, deltas->p, deltas->p + deltas->len);
  while (tsl_json_iter_next_element (&s_iter, &s, &jerr) == TSL_JSON_OK)
    {
      gint64 id, delta = 0;
      guint32 node = 0;

      n_samples++;
      if (more_deltas && tsl_json_iter_next_element (&d_iter, &d, &jerr) == TSL_JSON_OK)
        {
          n_deltas++;
          if (!tsl_json_value_get_us_as_ns (&d, &delta))
            {
              warn_at (self, ev, WARN_DELTA, _("a ProfileChunk's time delta is not a number; taken as 0"));
              delta = 0;
            }
          else if (delta < 0)
            warn_at (self, ev, WARN_DELTA, _("a ProfileChunk's time delta is negative; its sample is placed "
                                             "before the one ahead of it"));
        }
      else
        more_deltas = FALSE;
      if (s.type == TSL_JSON_NUMBER && tsl_json_value_get_int64 (&s, &id))
        {
          node = find_node (pr, id);
          if (node == 0 && self->profiles->warned[WARN_SAMPLE] >= POS_WARNINGS)
            may_warn (self, WARN_SAMPLE);
          else if (node == 0)
            {
              g_autofree char *message = g_strdup_printf (_("a sample names node %lld, which no "
                                                            "ProfileChunk of its profile defines; shown "
                                                            "as (unknown node)"), (long long) id);

              warn_at (self, ev, WARN_SAMPLE, message);
            }
        }
      else
        warn_at (self, ev, WARN_SAMPLE, _("a ProfileChunk's sample is not an integer node id; shown as "
                                          "(unknown node)"));
      if (pr->started)
        place_sample (self, pr, node, delta);
      else
        {
          tsl_spool_push (&pr->held, node);
          tsl_spool_push (&pr->held, delta);
          pr->n_held++;
        }
    }
  while (more_deltas && tsl_json_iter_next_element (&d_iter, &d, &jerr) == TSL_JSON_OK)
    n_deltas++;
  if (n_deltas != n_samples)
    {
      g_autofree char *message = g_strdup_printf (_("a ProfileChunk's \"samples\" and \"timeDeltas\" "
                                                    "differ in length (%llu and %llu)"),
                                                  (unsigned long long) n_samples,
                                                  (unsigned long long) n_deltas);

      warn_at (self, ev, WARN_CHUNK, message);
    }
}

static gboolean
member (const TslJsonValue *object,
        const char         *name,
        TslJsonValue       *out)
{
  memset (out, 0, sizeof *out);
  return object->type == TSL_JSON_OBJECT && tsl_json_find_member (object, name, out);
}

gboolean
_tsl_chrome_profile_event (TslChromeModel       *self,
                           const TslChromeEvent *ev)
{
  gboolean chunk;
  TslJsonValue data, value, profile, nodes, samples, deltas, node;
  const char *id = "";
  gsize id_len = 0;
  gint64 pid, tid, ts;
  Profile *pr;

  if (ev->name.type != TSL_JSON_STRING)
    return FALSE;
  if (TSL_JSON_KEY_IS (&ev->name, "ProfileChunk"))
    chunk = TRUE;
  else if (TSL_JSON_KEY_IS (&ev->name, "Profile"))
    chunk = FALSE;
  else
    return FALSE;
  if (!_tsl_chrome_get_ts (self, ev, &ts) || !_tsl_chrome_get_ids (self, ev, &pid, &tid))
    return TRUE;
  if (ev->id.type == TSL_JSON_STRING || ev->id.type == TSL_JSON_NUMBER)
    {
      id = ev->id.p;
      id_len = ev->id.len;
    }
  pr = _tsl_chrome_profile_ensure (self, pid, id, id_len);
  member (&ev->args, "data", &data);

  if (!chunk)
    {
      gint64 start_ns = ts;

      if (pr->started)
        {
          warn_at (self, ev, WARN_CHUNK, _("a second Profile event with the same id in a process is "
                                           "ignored"));
          return TRUE;
        }
      if (member (&data, "startTime", &value) && !tsl_json_value_get_us_as_ns (&value, &start_ns))
        {
          warn_at (self, ev, WARN_CHUNK, _("a Profile event's \"startTime\" is not a number; its "
                                           "\"ts\" is taken"));
          start_ns = ts;
        }
      start_profile (self, pr, tid, start_ns);
      return TRUE;
    }

  if (!pr->started && pr->n_held == 0 && pr->nodes->len == 0)
    {
      pr->chunk_ns = ts;
      pr->chunk_tid = tid;
    }
  if (!member (&data, "cpuProfile", &profile) && !member (&data, "timeDeltas", &value))
    {
      warn_at (self, ev, WARN_CHUNK, _("a ProfileChunk without \"cpuProfile\" is ignored"));
      return TRUE;
    }
  if (member (&profile, "nodes", &nodes))
    {
      TslJsonIter iter;
      TslJsonError jerr;

      if (nodes.type == TSL_JSON_ARRAY)
        {
          tsl_json_iter_init (&iter, nodes.p, nodes.p + nodes.len);
          while (tsl_json_iter_next_element (&iter, &node, &jerr) == TSL_JSON_OK)
            read_node (self, ev, pr, &node);
        }
      else
        warn_at (self, ev, WARN_CHUNK, _("a ProfileChunk's \"nodes\" is not an array; ignored"));
    }
  member (&profile, "samples", &samples);
  if (!member (&data, "timeDeltas", &deltas))
    member (&profile, "timeDeltas", &deltas);
  read_samples (self, ev, pr, &samples, &deltas);
  return TRUE;
}

void
_tsl_chrome_profiles_finish (TslChromeModel *self)
{
  TslChromeProfiles *ps = self->profiles;
  guint64 more[N_WARN];

  if (ps == NULL)
    return;
  for (guint i = 0; i < ps->order->len; i++)
    {
      Profile *pr = g_ptr_array_index (ps->order, i);
      guint64 n = pr->n_held;

      if (pr->started || n == 0)
        continue;
      tsl_trace_add_warning (self->trace,
                             g_dngettext (GETTEXT_PACKAGE,
                                          "%llu sample of V8 CPU profile %s (process:id) has no Profile "
                                          "event; it is placed from its first ProfileChunk's time",
                                          "%llu samples of V8 CPU profile %s (process:id) have no Profile "
                                          "event; they are placed from their first ProfileChunk's time",
                                          n),
                             (unsigned long long) n, pr->key);
      start_profile (self, pr, pr->chunk_tid, pr->chunk_ns);
    }
  if (ps->clamped)
    tsl_trace_add_warning (self->trace, _("times of V8 CPU profile samples more than 146 years from 0 are "
                                          "shown at that bound"));
  for (guint k = 0; k < N_WARN; k++)
    more[k] = ps->warned[k] > POS_WARNINGS ? ps->warned[k] - POS_WARNINGS : 0;
  if (more[WARN_NODE] > 0)
    tsl_trace_add_warning (self->trace, _("%llu more damaged nodes or links in V8 CPU profiles"),
                           (unsigned long long) more[WARN_NODE]);
  if (more[WARN_SAMPLE] > 0)
    tsl_trace_add_warning (self->trace, _("%llu more samples of V8 CPU profiles that name no node"),
                           (unsigned long long) more[WARN_SAMPLE]);
  if (more[WARN_DELTA] > 0)
    tsl_trace_add_warning (self->trace, _("%llu more damaged time deltas in V8 CPU profiles"),
                           (unsigned long long) more[WARN_DELTA]);
  if (more[WARN_CHUNK] > 0)
    tsl_trace_add_warning (self->trace, _("%llu more damaged ProfileChunk events"),
                           (unsigned long long) more[WARN_CHUNK]);
}
