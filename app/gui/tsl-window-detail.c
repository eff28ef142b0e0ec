/* tsl-window-detail.c: detail grows as you zoom in
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The whole trace is K..2K samples per track; zoomed into a part of a file,
 * that part is re-read in the background with samplers that keep only its
 * events, so the view gets K..2K samples per track for the visible window
 * alone, and every slice of it while they fit the exact budget
 * (tsl-exact.h). Memory stays bounded: one extra trace of the same size
 * plus at most the budget.
 */
#define G_LOG_DOMAIN "tsl-window"

#include "config.h"

#include "tsl-time-math.h"
#include "tsl-window-private.h"

#define DETAIL_DEBOUNCE_MS 400
/* Re-sample only when the view shows less than this part of the trace. */
#define DETAIL_MAX_FRACTION 0.6

/* One detail read in flight: the window it belongs to and the part of the
 * trace it re-reads, in ns from the trace start. */
typedef struct {
  TslWindow *window;
  gint64     lo;
  gint64     hi;
} DetailRead;

static void
detail_read_free (DetailRead *read)
{
  g_clear_object (&read->window);
  g_free (read);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (DetailRead, detail_read_free)

static void
detail_loaded_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(DetailRead) read = user_data;
  TslWindow *self = read->window;
  TslDocumentLoader *loader = TSL_DOCUMENT_LOADER (object);
  g_autoptr(TslSnapshot) snapshot = NULL;
  g_autoptr(GError) error = NULL;

  if (!tsl_document_loader_load_finish (loader, result, &error) || loader != self->detail_loader)
    return;

  g_clear_object (&self->detail_cancellable);
  snapshot = tsl_snapshot_new (tsl_document_loader_get_trace (loader));
  tsl_timeline_view_set_detail (self->timeline, snapshot, read->lo, read->hi);
  _tsl_window_update_status (self);
}

static gboolean
start_detail_cb (gpointer data)
{
  TslWindow *self = data;
  TslSnapshot *base = tsl_timeline_view_get_snapshot (self->timeline);
  g_autoptr(TslTrace) trace = NULL;
  g_autofree char *path = NULL;
  DetailRead *read;
  gint64 view_start, view_end, span, width, lo, hi, origin;

  self->detail_source = 0;

  /* Merged files are drawn from their samples: a re-read reads one file. */
  if (base == NULL || self->file == NULL || self->loader == NULL || tsl_window_is_loading (self) ||
      self->parts != NULL)
    return G_SOURCE_REMOVE;

  /* Only a regular file can be read again; a pipe's samples are all there is. */
  path = g_file_get_path (self->file);
  if (path == NULL || !g_file_test (path, G_FILE_TEST_IS_REGULAR))
    return G_SOURCE_REMOVE;

  /* Every slice of the file is already there. */
  if (tsl_snapshot_get_exact (base, NULL, NULL))
    return G_SOURCE_REMOVE;

  tsl_timeline_view_get_visible_time (self->timeline, &view_start, &view_end);
  span = tsl_snapshot_get_span (base);
  width = tsl_time_sub (view_end, view_start);
  if ((double) width > DETAIL_MAX_FRACTION * (double) span)
    return G_SOURCE_REMOVE;

  /* A quarter view of margin each side, so small pans stay in the detail;
   * saturating, since a span over 2^63 ns is G_MAXINT64 (the snapshot's). */
  lo = MAX (tsl_time_sub (view_start, width / 4), 0);
  hi = MIN (tsl_time_add (view_end, width / 4), tsl_time_add (span, 1));

  if (self->detail_cancellable != NULL)
    g_cancellable_cancel (self->detail_cancellable);
  g_clear_object (&self->detail_cancellable);

  origin = tsl_snapshot_get_start (base);
  trace = tsl_trace_new (TSL_SAMPLER_TIME, tsl_snapshot_get_k (base), TSL_WINDOW_SEED);
  /* The zoomed re-read stays within the budget the whole file is read in. */
  tsl_trace_set_budget (trace, tsl_trace_get_budget (tsl_document_loader_get_trace (self->loader)));
  tsl_trace_set_time_filter (trace, tsl_time_add (origin, lo), tsl_time_add (origin, hi));
  tsl_trace_record_exact (trace, TSL_EXACT_PER_TRACK, TSL_EXACT_TOTAL);

  g_clear_object (&self->detail_loader);
  self->detail_loader = tsl_document_loader_new (self->file, trace);
  self->detail_cancellable = g_cancellable_new ();
  read = g_new0 (DetailRead, 1);
  read->window = g_object_ref (self);
  read->lo = lo;
  read->hi = hi;
  tsl_document_loader_load_async (self->detail_loader, self->detail_cancellable,
                                  detail_loaded_cb, read);

  return G_SOURCE_REMOVE;
}

void
_tsl_window_queue_detail (TslWindow *self)
{
  g_clear_handle_id (&self->detail_source, g_source_remove);
  self->detail_source = g_timeout_add (DETAIL_DEBOUNCE_MS, start_detail_cb, self);
}

void
_tsl_window_cancel_detail (TslWindow *self)
{
  g_clear_handle_id (&self->detail_source, g_source_remove);
  if (self->detail_cancellable != NULL)
    g_cancellable_cancel (self->detail_cancellable);
  g_clear_object (&self->detail_cancellable);
  g_clear_object (&self->detail_loader);
}
