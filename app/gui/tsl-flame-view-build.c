/* tsl-flame-view-build.c: which tree the flame view shows, and building it
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A range's tree from the snapshot's samples on the main thread; a range of
 * a file that can be re-read exact, and the sampled differential, by a GTask
 * that a newer request cancels. The setters of tsl-flame-view.c queue a
 * rebuild; several in a row make one.
 */
#define G_LOG_DOMAIN "tsl-flame-view"

#include "config.h"

#include "tsl-flame-view-private.h"

#define FLAME_SEED G_GUINT64_CONSTANT (0x5EED)   /* the compare panel's */

gboolean
_tsl_flame_view_can_reread (TslFlameView *self)
{
  return self->path != NULL && g_file_test (self->path, G_FILE_TEST_IS_REGULAR);
}

static void
set_flame (TslFlameView *self,
           TslFlame     *flame)
{
  const TslFlameNode *zoom = NULL;

  if (flame != NULL)
    tsl_flame_ref (flame);
  g_clear_pointer (&self->flame, tsl_flame_unref);
  self->flame = flame;

  /* Back to the same call path, or as deep along it as the new tree goes. */
  if (flame != NULL && self->zoom_path != NULL)
    for (guint n = g_strv_length (self->zoom_path); n > 0 && zoom == NULL; n--)
      zoom = tsl_flame_find (flame, (const char * const *) self->zoom_path, n);
  self->zoom = zoom != NULL && zoom->parent != NULL ? zoom : NULL;

  gtk_widget_queue_resize (GTK_WIDGET (self));
  _tsl_flame_view_notify (self, PROP_FLAME);
}

static void
selection_init (TslFlameView      *self,
                TslFlameSelection *selection)
{
  selection->tracks = (const guint *) (gpointer) self->tracks->data;
  selection->n_tracks = self->tracks->len;
  selection->merge_threads = self->merge_threads;
  selection->weight = self->cpu ? TSL_FLAME_WEIGHT_CPU : TSL_FLAME_WEIGHT_AUTO;
}

/* The sampled differential, or a range's exact tree. */
static void
flame_cb (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  g_autoptr(TslFlameView) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(TslFlame) flame = g_async_result_is_tagged (result, tsl_flame_new_exact_async)
                              ? tsl_flame_new_exact_finish (result, NULL, &error)
                              : tsl_flame_new_diff_finish (result, &error);

  /* A newer request replaced this one. */
  if (g_task_get_cancellable (G_TASK (result)) != self->cancellable)
    return;

  g_clear_object (&self->cancellable);
  if (flame == NULL)
    g_warning ("Flame graph: %s", error->message);
  set_flame (self, flame);
  _tsl_flame_view_notify (self, PROP_BUSY);
}

/* A range of a file that can be re-read: every event of it, off the main
 * thread, as `export --flamegraph` computes it. */
static gboolean
start_exact (TslFlameView      *self,
             TslFlameSelection *selection)
{
  g_autoptr(TslCompareRequest) request = NULL;
  g_autoptr(GPtrArray) names = g_ptr_array_new ();
  gboolean whole = self->mode == TSL_FLAME_MODE_WHOLE;
  gboolean has[2] = { self->mode != TSL_FLAME_MODE_B, self->mode != TSL_FLAME_MODE_A && !whole };

  if (!_tsl_flame_view_can_reread (self))
    return FALSE;

  request = tsl_compare_request_new ();
  request->path = g_strdup (self->path);
  request->trace = self->trace != NULL ? g_object_ref (self->trace) : NULL;
  request->k = self->k > 0 ? self->k : request->k;
  request->seed = FLAME_SEED;
  request->confidence = self->confidence;
  for (guint r = 0; r < 2; r++)
    *(r == 0 ? &request->a : &request->b) =
      (TslRangeSpec) { (double) self->range_start[r], (double) self->range_end[r], FALSE };
  /* The whole trace as one range (CPU time only): 0 %..100 %, its last event included. */
  if (whole)
    request->a = (TslRangeSpec) { 0, 1, TRUE };

  /* The re-reads have their own track numbers: threads go by name. */
  for (guint i = 0; i < selection->n_tracks; i++)
    if (selection->tracks[i] < tsl_snapshot_get_n_tracks (self->snapshot))
      g_ptr_array_add (names, (gpointer) tsl_snapshot_get_track (self->snapshot, selection->tracks[i])->name);
  g_ptr_array_add (names, NULL);
  selection->thread_names = names->len > 1 ? (const char * const *) names->pdata : NULL;

  self->cancellable = g_cancellable_new ();
  set_flame (self, NULL);
  tsl_flame_new_exact_async (request, has[0], has[1], selection, self->cancellable,
                             flame_cb, g_object_ref (self));
  return TRUE;
}

void
_tsl_flame_view_rebuild (TslFlameView *self)
{
  TslFlameSelection selection;
  gboolean was_busy = self->cancellable != NULL;

  g_clear_handle_id (&self->rebuild_id, g_source_remove);
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  selection_init (self, &selection);

  if (self->snapshot == NULL || _tsl_flame_view_empty_text (self) != NULL)
    set_flame (self, NULL);
  else if ((self->mode != TSL_FLAME_MODE_WHOLE || self->cpu) && start_exact (self, &selection))
    ;
  else if (self->mode == TSL_FLAME_MODE_DIFF)
    {
      g_autoptr(TslCompareRequest) request = tsl_compare_request_new ();

      request->rounds = self->rounds;
      request->confidence = self->confidence;
      request->seed = FLAME_SEED;
      self->cancellable = g_cancellable_new ();
      set_flame (self, NULL);
      tsl_flame_new_diff_async (self->snapshot, self->range_start[0], self->range_end[0],
                                self->snapshot, self->range_start[1], self->range_end[1],
                                &selection, request, self->cancellable, flame_cb, g_object_ref (self));
    }
  else
    {
      guint r = self->mode == TSL_FLAME_MODE_B ? 1 : 0;
      gboolean whole = self->mode == TSL_FLAME_MODE_WHOLE;
      g_autoptr(TslFlame) flame = tsl_flame_new (self->snapshot, &selection,
                                                 whole ? G_MININT64 : self->range_start[r],
                                                 whole ? G_MAXINT64 : self->range_end[r]);

      set_flame (self, flame);
    }

  if (was_busy != (self->cancellable != NULL))
    _tsl_flame_view_notify (self, PROP_BUSY);
}

static gboolean
rebuild_idle (gpointer data)
{
  TslFlameView *self = data;

  self->rebuild_id = 0;
  _tsl_flame_view_rebuild (self);
  return G_SOURCE_REMOVE;
}

/* Coalesces the several setters a window calls in a row into one build. */
void
_tsl_flame_view_queue_rebuild (TslFlameView *self)
{
  if (self->rebuild_id == 0)
    self->rebuild_id = g_idle_add_full (G_PRIORITY_DEFAULT_IDLE, rebuild_idle, self, NULL);
}
