/* tsl-flame-exact.c: flame graphs from every event of the range reads
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The range reads of the compare table (tsl-compare-run.c) also keep every
 * call path of the selected threads with its exact weight, over the same
 * TSL_RANGE_BLOCKS time blocks (tsl-range-stats.c). A frame's share is
 * Σ blocks of its weight over Σ blocks of the root's, and the change of a
 * share between A and B is tested as the compare table tests a function's
 * share: the blocks' t test for time, the conditional Poisson test for
 * counts of samples unless the blocks are overdispersed; Benjamini–Hochberg
 * across frames. So the window and `export --flamegraph` agree, and agree
 * with the table's method.
 *
 * In TIME weight a span's duration holds its callees', so a frame's test
 * weight is its own path's time, and a thread frame's (or the root's) the
 * sum of its top-level frames'. CPU weight is the same with each span's
 * thread time for its duration (0 without one). In SAMPLES weight a
 * frame's weight is every event whose stack starts with its path.
 */
#define G_LOG_DOMAIN "tsl-flame"

#include "config.h"

#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "tsl-block-test.h"
#include "tsl-compare-private.h"
#include "tsl-flame-private.h"
#include "tsl-track-names.h"

#define B TSL_RANGE_BLOCKS

static gboolean
selected (const TslRangeTrack     *t,
          const TslFlameSelection *selection)
{
  if (t == NULL || t->kind != TSL_TRACK_THREAD || t->paths == NULL || t->paths->len == 0)
    return FALSE;
  if (selection == NULL || selection->thread_names == NULL || selection->thread_names[0] == NULL)
    return TRUE;
  for (guint i = 0; selection->thread_names[i] != NULL; i++)
    if (g_strcmp0 (selection->thread_names[i], t->name) == 0)
      return TRUE;
  return FALSE;
}

static GPtrArray *
select_tracks (TslRangeStats           *stats,
               const TslFlameSelection *selection)
{
  GPtrArray *tracks = g_ptr_array_new ();

  for (guint i = 0; stats != NULL && i < tsl_range_stats_get_n_tracks (stats); i++)
    if (selected (tsl_range_stats_get_track (stats, i), selection))
      g_ptr_array_add (tracks, (gpointer) tsl_range_stats_get_track (stats, i));
  return tracks;
}

/* AUTO: time when every selected thread is made of spans. */
static TslFlameWeight
resolve_weight (TslFlameWeight  weight,
                GPtrArray      *tracks[2])
{
  guint n = 0;

  if (weight != TSL_FLAME_WEIGHT_AUTO)
    return weight;
  for (guint s = 0; s < 2; s++)
    for (guint i = 0; i < tracks[s]->len; i++, n++)
      if (!((const TslRangeTrack *) g_ptr_array_index (tracks[s], i))->spans)
        return TSL_FLAME_WEIGHT_SAMPLES;
  return n > 0 ? TSL_FLAME_WEIGHT_TIME : TSL_FLAME_WEIGHT_SAMPLES;
}

static void
range_track_key (gconstpointer  track,
                 TslTrackKind  *kind,
                 gint64        *pid,
                 gint64        *tid,
                 const char   **name)
{
  const TslRangeTrack *t = track;

  *kind = t->kind;
  *pid = t->pid;
  *tid = t->tid;
  *name = t->name;
}

static void
add_paths (TslFlame                *self,
           guint                    side,
           GPtrArray               *tracks,
           TslTrackNames           *names)
{
  gboolean thread_frames = names != NULL;
  gboolean time = self->weight == TSL_FLAME_WEIGHT_TIME;
  gboolean cpu = self->weight == TSL_FLAME_WEIGHT_CPU;

  if (thread_frames)
    self->top_depth = 2;

  for (guint t = 0; t < tracks->len; t++)
    {
      const TslRangeTrack *track = g_ptr_array_index (tracks, t);
      Node *top = self->root;

      if (thread_frames)
        {
          g_autofree char *name = _tsl_track_names_get (names, track->kind, track->pid, track->tid,
                                                        track->name ? track->name : "?");

          top = _tsl_flame_child (self, self->root, name);
          top->pub.is_thread = TRUE;
        }

      for (guint i = 0; i < track->paths->len; i++)
        {
          const TslRangePath *p = g_ptr_array_index (track->paths, i);
          g_auto(GStrv) frames = g_strsplit (p->path, ";", -1);
          const double *blocks = cpu ? p->block_cpu : time ? p->block_time : p->block_weight;
          guint64 events = _tsl_flame_events_mul (1, p->weight);
          Node *node = top;

          for (guint f = 0; frames[f] != NULL; f++)
            node = _tsl_flame_child (self, node, frames[f]);

          node->sum[side] += cpu ? p->cpu_ns : time ? p->time_ns : p->weight;
          node->events_side[side] = _tsl_flame_events_add (node->events_side[side], events);
          if (node->blocks[side] == NULL)
            node->blocks[side] = g_new0 (double, B);
          for (guint j = 0; j < B; j++)
            node->blocks[side][j] += blocks[j];
          if (side == 1)
            {
              node->pub.self_events = _tsl_flame_events_add (node->pub.self_events, events);
              node->pub.n_samples = _tsl_flame_events_add (node->pub.n_samples, events);
              self->n_samples = _tsl_flame_events_add (self->n_samples, events);
              self->events = _tsl_flame_events_add (self->events, events);
            }
        }
    }
}

/* Each node's test weight per block (see the top of the file), in place of
 * its own; nodes come parents first, so children are summed in reverse. */
static void
test_blocks (TslFlame *self,
             guint     side)
{
  gboolean time = _tsl_flame_weight_is_span (self->weight);

  for (guint i = 0; i < self->nodes->len; i++)
    {
      Node *node = g_ptr_array_index (self->nodes, i);

      if (node->blocks[side] == NULL)
        node->blocks[side] = g_new0 (double, B);
    }

  for (guint i = self->nodes->len; i-- > 1;)
    {
      Node *node = g_ptr_array_index (self->nodes, i);
      Node *parent = (Node *) node->pub.parent;

      if (time && parent != self->root && !parent->pub.is_thread)
        continue;
      for (guint j = 0; j < B; j++)
        parent->blocks[side][j] += node->blocks[side][j];
    }
}

static gboolean
run_tests (TslFlame                *self,
           const TslCompareRequest *request,
           const TslExactReads     *reads,
           GCancellable            *cancellable,
           GError                 **error)
{
  g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func ((GDestroyNotify) tsl_compare_row_free);
  g_autoptr(GPtrArray) tested = g_ptr_array_new ();
  gboolean time = _tsl_flame_weight_is_span (self->weight);
  TslCompareTable table = { request, "", { reads->seconds[0], reads->seconds[1] }, rows, cancellable, error };
  double root_events[2] = { 0, 0 };

  for (guint s = 0; s < 2; s++)
    {
      test_blocks (self, s);
      for (guint j = 0; j < B; j++)
        root_events[s] += self->root->blocks[s][j];
    }

  for (guint i = 1; i < self->nodes->len; i++)
    {
      Node *node = g_ptr_array_index (self->nodes, i);
      g_autofree char *path = tsl_flame_node_get_path (&node->pub, ";");
      TslBlockSide sides[2];
      guint before = rows->len;
      gboolean ok;

      for (guint s = 0; s < 2; s++)
        {
          sides[s] = (TslBlockSide) { .scale = 1 };
          memcpy (sides[s].y, node->blocks[s], sizeof sides[s].y);
          memcpy (sides[s].x, self->root->blocks[s], sizeof sides[s].x);
          /* The events (spans or samples) at or under the path. */
          sides[s].n = node->events_side[s];
        }

      ok = time ? _tsl_compare_block_row (&table, path, "share", TSL_STAT_SHARE, "fraction", sides)
                : _tsl_compare_count_row (&table, path, "share", TSL_STAT_SHARE, "fraction", sides,
                                          root_events, TRUE);
      if (!ok)
        return FALSE;
      if (rows->len > before)
        g_ptr_array_add (tested, node);
    }

  _tsl_compare_finish_table (rows, request);

  for (guint i = 0; i < self->nodes->len; i++)
    {
      Node *node = g_ptr_array_index (self->nodes, i);

      node->pub.diff = g_new0 (TslFlameDiff, 1);
      *node->pub.diff = (TslFlameDiff) { 0, 0, NAN, NAN, NAN, NAN, NAN, FALSE, FALSE };
    }
  self->root->pub.diff->a_share = self->root->pub.diff->b_share = 1;
  self->root->pub.diff->change = 0;

  for (guint i = 0; i < rows->len; i++)
    {
      const TslCompareRow *row = g_ptr_array_index (rows, i);
      TslFlameDiff *d = ((Node *) g_ptr_array_index (tested, i))->pub.diff;

      d->a_share = isnan (row->a_value) ? 0 : row->a_value;
      d->b_share = isnan (row->b_value) ? 0 : row->b_value;
      /* One side empty: ±inf for the colours, "new"/"gone" in the table. */
      d->change = row->presence == TSL_COMPARE_IN_BOTH ? row->change
                                                       : tsl_relative_change (d->a_share, d->b_share);
      d->ci_low = row->ci_low;
      d->ci_high = row->ci_high;
      d->p_value = row->p_value;
      d->q_value = row->q_value;
      d->tested = !isnan (row->p_value);
      d->significant = row->significant;
    }

  return TRUE;
}

static void
fold_warning (GPtrArray     *warnings,
              const char    *which,
              TslRangeStats *stats)
{
  guint64 n_paths = 0, folded = stats != NULL ? tsl_range_stats_get_folded (stats, &n_paths) : 0;

  if (folded > 0 && warnings != NULL)
    g_ptr_array_add (warnings,
                     g_strdup_printf ("range %s has more than %u distinct call paths: %" G_GUINT64_FORMAT
                                      " events of %s%" G_GUINT64_FORMAT " more are counted under “%s”",
                                      which, TSL_FLAME_MAX_PATHS, folded,
                                      n_paths >= 100000 ? "at least " : "", n_paths, TSL_RANGE_OTHER_PATH));
}

/* Whether a span of the selected tracks had a thread time. */
static gboolean
has_cpu (GPtrArray *tracks[2])
{
  for (guint s = 0; s < 2; s++)
    for (guint i = 0; i < tracks[s]->len; i++)
      {
        const TslRangeTrack *t = g_ptr_array_index (tracks[s], i);

        for (guint j = 0; j < t->paths->len; j++)
          if (((const TslRangePath *) g_ptr_array_index (t->paths, j))->cpu_spans > 0)
            return TRUE;
      }
  return FALSE;
}

/* The flame graph of reads made with max_paths (`req` has keep_effects off). */
static TslFlame *
build_from_reads (const TslCompareRequest *req,
                  const gboolean           has[2],
                  TslExactReads           *reads,
                  const TslFlameSelection *selection,
                  GPtrArray               *warnings,
                  GCancellable            *cancellable,
                  GError                 **error)
{
  g_autoptr(TslFlame) self = NULL;
  g_autoptr(GPtrArray) tracks_a = select_tracks (reads->stats[0], selection);
  g_autoptr(GPtrArray) tracks_b = select_tracks (reads->stats[1], selection);
  gboolean diff = has[0] && has[1];
  GPtrArray *tracks[2] = { tracks_a, tracks_b };
  g_autoptr(TslTrackNames) names = NULL;

  if (selection != NULL && selection->weight == TSL_FLAME_WEIGHT_CPU && !has_cpu (tracks))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   _("%s: no span of the selected threads in the range has a thread (CPU) time: "
                     "a flame graph by CPU time needs Chrome's “tdur” or “tts”, or Perfetto's "
                     "thread-time counters"),
                   req->path);
      return NULL;
    }

  self = _tsl_flame_new_empty (resolve_weight (selection ? selection->weight : TSL_FLAME_WEIGHT_AUTO, tracks),
                               diff);
  self->exact = TRUE;
  self->confidence = diff ? req->confidence : 0;
  /* A single range is laid out as side 1, like tsl_flame_new(). */
  {
    GPtrArray *laid[2] = { diff ? tracks_a : NULL, has[1] ? tracks_b : tracks_a };

    names = _tsl_flame_thread_names (selection, laid[0], laid[1], range_track_key);
    if (diff)
      add_paths (self, 0, tracks_a, names);
    add_paths (self, 1, laid[1], names);
  }
  fold_warning (warnings, "A", reads->stats[0]);
  fold_warning (warnings, "B", reads->stats[1]);
  _tsl_flame_finish (self, 1);

  if (diff && !run_tests (self, req, reads, cancellable, error))
    return NULL;
  if (diff)
    _tsl_flame_set_widths (self);
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;

  return g_steal_pointer (&self);
}

static TslFlame *
build (const TslCompareRequest *request,
       gboolean                 has_a,
       gboolean                 has_b,
       const TslFlameSelection *selection,
       GPtrArray               *warnings,
       GCancellable            *cancellable,
       GError                 **error)
{
  g_autoptr(TslCompareRequest) req = tsl_compare_request_copy (request);
  const gboolean has[2] = { has_a, has_b };
  TslExactReads reads;
  TslFlame *flame;

  g_return_val_if_fail (has_a || has_b, NULL);

  req->max_paths = TSL_FLAME_MAX_PATHS;
  req->keep_effects = FALSE;
  if (!_tsl_compare_read_exact (req, has, &reads, warnings, cancellable, error))
    return NULL;
  flame = build_from_reads (req, has, &reads, selection, warnings, cancellable, error);
  _tsl_exact_reads_clear (&reads);
  return flame;
}

GPtrArray *
tsl_flame_compare_run (const TslCompareRequest *request,
                       const TslFlameSelection *selection,
                       TslFlame               **flame,
                       GStrv                   *warnings,
                       GCancellable            *cancellable,
                       GError                 **error)
{
  g_autoptr(TslCompareRequest) req = tsl_compare_request_copy (request);
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  const gboolean both[2] = { TRUE, TRUE };
  TslExactReads reads;
  GPtrArray *rows;

  g_return_val_if_fail (request != NULL, NULL);
  g_return_val_if_fail (flame != NULL, NULL);

  *flame = NULL;
  req->max_paths = TSL_FLAME_MAX_PATHS;
  rows = _tsl_compare_run_keeping_reads (req, &reads, cancellable, notes, error);
  if (rows != NULL && reads.stats[0] != NULL && reads.stats[1] != NULL)
    {
      req->keep_effects = FALSE;
      *flame = build_from_reads (req, both, &reads, selection, notes, cancellable, error);
      if (*flame == NULL)
        g_clear_pointer (&rows, g_ptr_array_unref);
    }
  _tsl_exact_reads_clear (&reads);

  if (warnings != NULL)
    {
      g_ptr_array_add (notes, NULL);
      *warnings = (GStrv) g_ptr_array_steal (notes, NULL);
    }
  return rows;
}

TslFlame *
tsl_flame_new_exact (const TslCompareRequest *request,
                     gboolean                 has_a,
                     gboolean                 has_b,
                     const TslFlameSelection *selection,
                     GStrv                   *warnings,
                     GCancellable            *cancellable,
                     GError                 **error)
{
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  TslFlame *flame;

  g_return_val_if_fail (request != NULL, NULL);
  g_return_val_if_fail (has_a || has_b, NULL);

  flame = build (request, has_a, has_b, selection, notes, cancellable, error);
  if (warnings != NULL)
    {
      g_ptr_array_add (notes, NULL);
      *warnings = (GStrv) g_ptr_array_steal (notes, NULL);
    }
  return flame;
}

typedef struct {
  TslCompareRequest *request;
  gboolean           has[2];
  TslFlameSelection  selection;
  GStrv              names;
  GStrv              warnings;
} ExactTask;

static void
exact_task_free (gpointer data)
{
  ExactTask *task = data;

  tsl_compare_request_free (task->request);
  g_strfreev (task->names);
  g_strfreev (task->warnings);
  g_free (task);
}

static void
exact_thread (GTask        *task,
              gpointer      source_object,
              gpointer      task_data,
              GCancellable *cancellable)
{
  ExactTask *d = task_data;
  GError *error = NULL;
  TslFlame *flame;

  flame = tsl_flame_new_exact (d->request, d->has[0], d->has[1], &d->selection, &d->warnings,
                               cancellable, &error);
  if (flame == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, flame, (GDestroyNotify) tsl_flame_unref);
}

void
tsl_flame_new_exact_async (const TslCompareRequest *request,
                           gboolean                 has_a,
                           gboolean                 has_b,
                           const TslFlameSelection *selection,
                           GCancellable            *cancellable,
                           GAsyncReadyCallback      callback,
                           gpointer                 user_data)
{
  g_autoptr(GTask) task = NULL;
  ExactTask *d;

  g_return_if_fail (request != NULL);
  g_return_if_fail (has_a || has_b);

  d = g_new0 (ExactTask, 1);
  d->request = tsl_compare_request_copy (request);
  d->has[0] = has_a;
  d->has[1] = has_b;
  d->selection.merge_threads = TRUE;
  if (selection != NULL)
    {
      d->selection = *selection;
      d->names = g_strdupv ((char **) selection->thread_names);
      d->selection.thread_names = (const char * const *) d->names;
    }
  /* Snapshot track indices mean nothing to the re-reads. */
  d->selection.tracks = NULL;
  d->selection.n_tracks = 0;

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, tsl_flame_new_exact_async);
  g_task_set_task_data (task, d, exact_task_free);
  g_task_run_in_thread (task, exact_thread);
}

TslFlame *
tsl_flame_new_exact_finish (GAsyncResult  *result,
                            GStrv         *warnings,
                            GError       **error)
{
  ExactTask *d;

  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == tsl_flame_new_exact_async, NULL);

  d = g_task_get_task_data (G_TASK (result));
  if (warnings != NULL)
    *warnings = g_strdupv (d->warnings);
  return g_task_propagate_pointer (G_TASK (result), error);
}
