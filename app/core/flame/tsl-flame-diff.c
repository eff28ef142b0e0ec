/* tsl-flame-diff.c: which call paths' shares changed between A and B
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every call path is a row of the compare engine (tsl-compare.c), with its
 * seed rule (seed, path, ranges, "share"), two-sample bootstrap, BCa or
 * percentile interval, and Benjamini–Hochberg q-values across the tested
 * paths; significant when q < 1 − confidence and the interval excludes 0.
 *
 * A share is a ratio of weighted sums, R = Σ wᵢyᵢ / Σ wᵢdᵢ (yᵢ: sample i
 * counts for the path; dᵢ: it counts for the root). Each side's items are
 * its linearised (delta-method) values zᵢ = R + n·wᵢ(yᵢ − R·dᵢ) / Σ wᵢdᵢ:
 * their mean is R exactly, and the engine's share bootstrap of them is the
 * linearised bootstrap of the ratio. With equal weights and every dᵢ = 1
 * (count-mode samples), zᵢ = yᵢ: the compare panel's 0/1 vector exactly.
 *
 * In TIME weight a span's sample counts for its own path only (its time
 * holds its callees'), and for the root when it is a top-level span.
 *
 * Cost: one row is rounds × (n_A + n_B) draws, so only paths holding at
 * least MIN_TEST_SHARE of either side are tested, the MAX_TESTED largest;
 * the others keep NAN p/q and are never significant (filtering on the
 * pooled share does not bias the test of those kept).
 */
#define G_LOG_DOMAIN "tsl-flame"

#include "config.h"

#include <math.h>
#include <stdlib.h>

#include "tsl-compare-private.h"
#include "tsl-flame-private.h"

#define MIN_TEST_SHARE 0.005
#define MAX_TESTED     256

static int
compare_items (const void *pa,
               const void *pb)
{
  const TslFlameItem *a = pa, *b = pb;

  return (a->time_ns > b->time_ns) - (a->time_ns < b->time_ns);
}

static double
node_test_share (TslFlame *self,
                 Node     *node,
                 guint     side)
{
  double root = self->root->total_side[side];
  double part = self->weight == TSL_FLAME_WEIGHT_TIME && !node->pub.is_thread
                ? node->sum[side] : node->total_side[side];

  return root > 0 ? part / root : 0;
}

static int
compare_candidates (const void *pa,
                    const void *pb)
{
  const double *a = pa, *b = pb;   /* { share, index } pairs */

  return (a[0] < b[0]) - (a[0] > b[0]);
}

typedef struct {
  const TslFlameItem *items;
  gsize               n;
  gboolean           *top;       /* dᵢ */
  double              root;      /* Σ wᵢdᵢ */
  double             *z;
} Side;

/* The linearised items of `node` on one side. */
static void
fill_items (TslFlame   *self,
            Node       *node,
            Side       *side)
{
  gboolean time = self->weight == TSL_FLAME_WEIGHT_TIME && !node->pub.is_thread;
  double num = 0, r;

  for (gsize i = 0; i < side->n; i++)
    {
      const Node *leaf = side->items[i].leaf;
      gboolean y = time ? leaf == node
                        : (leaf->pre >= node->pre && leaf->pre < node->post &&
                           (self->weight != TSL_FLAME_WEIGHT_TIME || side->top[i]));

      side->z[i] = y ? 1 : 0;
      num += y ? side->items[i].weight : 0;
    }

  r = side->root > 0 ? num / side->root : 0;
  for (gsize i = 0; i < side->n; i++)
    {
      double w = side->items[i].weight;

      side->z[i] = r + (double) side->n * w * (side->z[i] - (side->top[i] ? r : 0)) /
                   MAX (side->root, 1e-300);
    }
}

static void
init_side (TslFlame *self,
           guint     s,
           Side     *side)
{
  GArray *items = self->items[s];

  /* Time order, for the engine's autocorrelation check (merged threads).
   * An empty side's array has no data, and qsort (NULL, 0) is undefined. */
  if (items->len > 1)
    qsort (items->data, items->len, sizeof (TslFlameItem), compare_items);
  side->items = (const TslFlameItem *) (gpointer) items->data;
  side->n = items->len;
  side->top = g_new (gboolean, MAX (side->n, 1));
  side->z = g_new (double, MAX (side->n, 1));
  side->root = 0;
  for (gsize i = 0; i < side->n; i++)
    {
      side->top[i] = self->weight != TSL_FLAME_WEIGHT_TIME ||
                     side->items[i].leaf->pub.depth == self->top_depth;
      side->root += side->top[i] ? side->items[i].weight : 0;
    }
}

static gboolean
run_tests (TslFlame                *self,
           const TslCompareRequest *request,
           const char              *range_key,
           const double            *seconds,
           GCancellable            *cancellable,
           GError                 **error)
{
  g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func ((GDestroyNotify) tsl_compare_row_free);
  g_autoptr(GPtrArray) tested = g_ptr_array_new ();
  g_autofree double *candidates = g_new (double, 2 * MAX (self->nodes->len, 1));
  g_autoptr(TslCompareRequest) req = tsl_compare_request_copy (request);
  Side sides[2];
  guint n_candidates = 0;
  gboolean ok = TRUE;

  req->keep_effects = FALSE;

  for (guint i = 0; i < self->nodes->len; i++)
    {
      Node *node = g_ptr_array_index (self->nodes, i);
      double a = node_test_share (self, node, 0), b = node_test_share (self, node, 1);

      node->pub.diff = g_new0 (TslFlameDiff, 1);
      *node->pub.diff = (TslFlameDiff) {
        a, b, tsl_relative_change (a, b), NAN, NAN, NAN, NAN, FALSE, FALSE,
      };
      if (node != self->root && MAX (a, b) >= MIN_TEST_SHARE)
        {
          candidates[2 * n_candidates] = MAX (a, b);
          candidates[2 * n_candidates + 1] = i;
          n_candidates++;
        }
    }

  if (n_candidates > 1)
    qsort (candidates, n_candidates, 2 * sizeof (double), compare_candidates);
  n_candidates = MIN (n_candidates, MAX_TESTED);

  for (guint s = 0; s < 2; s++)
    init_side (self, s, &sides[s]);

  for (guint c = 0; c < n_candidates && ok; c++)
    {
      Node *node = g_ptr_array_index (self->nodes, (guint) candidates[2 * c + 1]);
      g_autofree char *path = tsl_flame_node_get_path (&node->pub, ";");
      TslCompareSeries series = { path, TSL_STAT_SHARE };
      TslCompareRow *row;

      fill_items (self, node, &sides[0]);
      fill_items (self, node, &sides[1]);
      series.a = (TslCompareSide) { sides[0].z, sides[0].n, seconds[0], sides[0].n, 1.0 };
      series.b = (TslCompareSide) { sides[1].z, sides[1].n, seconds[1], sides[1].n, 1.0 };

      row = _tsl_compare_row_new (&series, req, range_key, cancellable, error);
      if (row == NULL)
        ok = FALSE;
      else
        {
          g_ptr_array_add (rows, row);
          g_ptr_array_add (tested, node);
        }
    }

  for (guint s = 0; s < 2; s++)
    {
      g_free (sides[s].top);
      g_free (sides[s].z);
    }
  if (!ok)
    return FALSE;

  _tsl_compare_finish_table (rows, req);

  for (guint i = 0; i < rows->len; i++)
    {
      const TslCompareRow *row = g_ptr_array_index (rows, i);
      TslFlameDiff *d = ((Node *) g_ptr_array_index (tested, i))->pub.diff;

      d->a_share = row->a_value;
      d->b_share = row->b_value;
      d->change = row->change;
      d->ci_low = row->ci_low;
      d->ci_high = row->ci_high;
      d->p_value = row->p_value;
      d->q_value = row->q_value;
      d->tested = !isnan (row->p_value);
      d->significant = row->significant;
    }

  return TRUE;
}

TslFlame *
tsl_flame_new_diff (TslSnapshot             *snapshot_a,
                    gint64                   a_start_ns,
                    gint64                   a_end_ns,
                    TslSnapshot             *snapshot_b,
                    gint64                   b_start_ns,
                    gint64                   b_end_ns,
                    const TslFlameSelection *selection,
                    const TslCompareRequest *request,
                    GCancellable            *cancellable,
                    GError                 **error)
{
  g_autoptr(GPtrArray) tracks_a = NULL;
  g_autoptr(TslTrackNames) names = NULL;
  g_autoptr(GPtrArray) tracks_b = NULL;
  g_autoptr(TslFlame) self = NULL;
  g_autofree char *range_key = NULL;
  double seconds[2];
  TslFlameWeight weight;

  g_return_val_if_fail (snapshot_a != NULL && snapshot_b != NULL, NULL);
  g_return_val_if_fail (request != NULL, NULL);

  if (selection != NULL && selection->weight == TSL_FLAME_WEIGHT_CPU)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                           "a flame graph by CPU time needs every event of the ranges: kept samples carry no thread time");
      return NULL;
    }

  tracks_a = _tsl_flame_select_tracks (snapshot_a, snapshot_a, selection);
  tracks_b = _tsl_flame_select_tracks (snapshot_a, snapshot_b, selection);
  weight = _tsl_flame_resolve_weight (selection ? selection->weight : TSL_FLAME_WEIGHT_AUTO, snapshot_b, tracks_b);
  if (weight == TSL_FLAME_WEIGHT_TIME && selection != NULL && selection->weight == TSL_FLAME_WEIGHT_AUTO &&
      _tsl_flame_resolve_weight (TSL_FLAME_WEIGHT_AUTO, snapshot_a, tracks_a) != weight)
    weight = TSL_FLAME_WEIGHT_SAMPLES;

  self = _tsl_flame_new_empty (weight, TRUE);
  self->confidence = request->confidence;
  names = _tsl_flame_thread_names (selection, tracks_a, tracks_b, _tsl_flame_snapshot_track_key);
  _tsl_flame_add_side (self, 0, snapshot_a, selection,
                       (const TslSnapshotTrack *const *) tracks_a->pdata, tracks_a->len,
                       a_start_ns, a_end_ns, names);
  _tsl_flame_add_side (self, 1, snapshot_b, selection,
                       (const TslSnapshotTrack *const *) tracks_b->pdata, tracks_b->len,
                       b_start_ns, b_end_ns, names);
  _tsl_flame_finish (self, 1);

  /* The compare engine's range key, so a path's seed follows its rule. */
  range_key = g_strdup_printf ("%" G_GINT64_FORMAT "..%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT "..%" G_GINT64_FORMAT,
                               a_start_ns, a_end_ns, b_start_ns, b_end_ns);
  seconds[0] = (double) MAX (a_end_ns - a_start_ns, 1) / 1e9;
  seconds[1] = (double) MAX (b_end_ns - b_start_ns, 1) / 1e9;

  if (!run_tests (self, request, range_key, seconds, cancellable, error))
    return NULL;
  _tsl_flame_set_widths (self);

  /* The items served the test only. */
  for (guint s = 0; s < 2; s++)
    g_array_set_size (self->items[s], 0);

  return g_steal_pointer (&self);
}

typedef struct {
  TslSnapshot       *snapshot[2];
  gint64             start[2];
  gint64             end[2];
  TslFlameSelection  selection;
  guint             *tracks;
  TslCompareRequest *request;
} DiffTask;

static void
diff_task_free (gpointer data)
{
  DiffTask *task = data;

  for (guint s = 0; s < 2; s++)
    tsl_snapshot_unref (task->snapshot[s]);
  g_free (task->tracks);
  tsl_compare_request_free (task->request);
  g_free (task);
}

static void
diff_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  DiffTask *d = task_data;
  GError *error = NULL;
  TslFlame *flame;

  flame = tsl_flame_new_diff (d->snapshot[0], d->start[0], d->end[0],
                              d->snapshot[1], d->start[1], d->end[1],
                              &d->selection, d->request, cancellable, &error);
  if (flame == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, flame, (GDestroyNotify) tsl_flame_unref);
}

void
tsl_flame_new_diff_async (TslSnapshot             *snapshot_a,
                          gint64                   a_start_ns,
                          gint64                   a_end_ns,
                          TslSnapshot             *snapshot_b,
                          gint64                   b_start_ns,
                          gint64                   b_end_ns,
                          const TslFlameSelection *selection,
                          const TslCompareRequest *request,
                          GCancellable            *cancellable,
                          GAsyncReadyCallback      callback,
                          gpointer                 user_data)
{
  g_autoptr(GTask) task = NULL;
  DiffTask *d;

  g_return_if_fail (snapshot_a != NULL && snapshot_b != NULL);
  g_return_if_fail (request != NULL);

  d = g_new0 (DiffTask, 1);
  d->snapshot[0] = tsl_snapshot_ref (snapshot_a);
  d->snapshot[1] = tsl_snapshot_ref (snapshot_b);
  d->start[0] = a_start_ns;
  d->end[0] = a_end_ns;
  d->start[1] = b_start_ns;
  d->end[1] = b_end_ns;
  d->selection.merge_threads = TRUE;
  if (selection != NULL)
    {
      d->selection = *selection;
      d->tracks = selection->tracks ? g_memdup2 (selection->tracks, selection->n_tracks * sizeof (guint)) : NULL;
      d->selection.tracks = d->tracks;
    }
  d->request = tsl_compare_request_copy (request);

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, tsl_flame_new_diff_async);
  g_task_set_task_data (task, d, diff_task_free);
  g_task_run_in_thread (task, diff_thread);
}

TslFlame *
tsl_flame_new_diff_finish (GAsyncResult  *result,
                           GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == tsl_flame_new_diff_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
