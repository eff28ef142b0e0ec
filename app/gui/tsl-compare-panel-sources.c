/* tsl-compare-panel-sources.c: what the compare panel reads: the file or merged files, and the ranges
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each change of them queues a compare (tsl-compare-panel.c); a request
 * reads one file, or for merged files the file of each range.
 */
#define G_LOG_DOMAIN "tsl-compare-panel"

#include "config.h"

#include "tsl-compare-panel-private.h"

/* Merged files: the file a range lies in (the one it overlaps most) and the
 * range from that file's start, clipped to it. FALSE when it lies in none. */
static gboolean
map_to_part (TslComparePanel *self,
             const gint64    *range,
             int              chosen,
             char           **path,
             TslRangeSpec    *spec)
{
  guint part = chosen >= 0 && (guint) chosen < tsl_snapshot_get_n_parts (self->merged)
               ? (guint) chosen : tsl_snapshot_find_part (self->merged, range[0], range[1]);
  gint64 position, span;

  if (part == G_MAXUINT || part >= self->part_files->len)
    return FALSE;
  tsl_snapshot_get_part (self->merged, part, NULL, &position, &span);
  *path = g_file_get_path (g_ptr_array_index (self->part_files, part));
  /* A range reaching the file's end holds its last event: "..100%". */
  if (range[0] <= position && range[1] >= position + span)
    *spec = (TslRangeSpec) { 0, 1, TRUE };
  else
    *spec = (TslRangeSpec) { (double) (MAX (range[0], position) - position),
                             (double) (MIN (range[1], position + span) - position), FALSE };
  return *path != NULL;
}

/* The request's inputs and ranges: one file, or for merged files the file
 * of each range (A from one, B from another: two runs, matched by name). */
gboolean
_tsl_compare_panel_fill_sources (TslComparePanel   *self,
                                 TslCompareRequest *request,
                                 gboolean           with_b)
{
  g_autofree char *path_a = NULL;
  g_autofree char *path_b = NULL;

  if (self->merged == NULL)
    {
      request->path = self->file ? g_file_get_path (self->file) : NULL;
      request->trace = self->trace ? g_object_ref (self->trace) : NULL;
      request->a = (TslRangeSpec) { (double) self->a[0], (double) self->a[1], FALSE };
      request->b = (TslRangeSpec) { (double) self->b[0], (double) self->b[1], FALSE };
      return TRUE;
    }

  if (!map_to_part (self, self->a, self->range_part[0], &path_a, &request->a) ||
      (with_b && !map_to_part (self, self->b, self->range_part[1], &path_b, &request->b)))
    return FALSE;
  request->path = g_steal_pointer (&path_a);
  if (with_b && g_strcmp0 (path_b, request->path) != 0)
    request->path_b = g_steal_pointer (&path_b);
  return TRUE;
}

void
tsl_compare_panel_set_source (TslComparePanel *self,
                              GFile           *file,
                              TslTrace        *trace)
{
  g_return_if_fail (TSL_IS_COMPARE_PANEL (self));

  g_set_object (&self->file, file);
  g_set_object (&self->trace, trace);
  g_list_store_remove_all (self->store);
  _tsl_compare_panel_queue (self);
}

void
tsl_compare_panel_set_parts (TslComparePanel *self,
                             GFile          **files,
                             guint            n_files,
                             TslSnapshot     *merged)
{
  g_return_if_fail (TSL_IS_COMPARE_PANEL (self));

  g_clear_pointer (&self->part_files, g_ptr_array_unref);
  g_clear_pointer (&self->merged, tsl_snapshot_unref);
  if (merged != NULL && n_files > 0)
    {
      self->part_files = g_ptr_array_new_with_free_func (g_object_unref);
      for (guint i = 0; i < n_files; i++)
        g_ptr_array_add (self->part_files, g_object_ref (files[i]));
      self->merged = tsl_snapshot_ref (merged);
    }
  _tsl_compare_panel_queue (self);
}

void
tsl_compare_panel_set_range_parts (TslComparePanel *self,
                                   int              part_a,
                                   int              part_b)
{
  g_return_if_fail (TSL_IS_COMPARE_PANEL (self));

  if (self->range_part[0] == part_a && self->range_part[1] == part_b)
    return;
  self->range_part[0] = part_a;
  self->range_part[1] = part_b;
  _tsl_compare_panel_queue (self);
}

void
tsl_compare_panel_set_ranges (TslComparePanel *self,
                              gboolean         has_a,
                              gint64           a_start,
                              gint64           a_end,
                              gboolean         has_b,
                              gint64           b_start,
                              gint64           b_end)
{
  g_return_if_fail (TSL_IS_COMPARE_PANEL (self));

  self->has_a = has_a;
  self->a[0] = a_start;
  self->a[1] = a_end;
  self->has_b = has_b;
  self->b[0] = b_start;
  self->b[1] = b_end;

  /* Show the right empty state at once; compute after the pause. */
  if (((!has_a || !has_b) && !(has_a && self->file != NULL)) || self->no_tracks)
    {
      if (self->cancellable != NULL)
        g_cancellable_cancel (self->cancellable);
      g_clear_object (&self->cancellable);
      g_clear_handle_id (&self->debounce, g_source_remove);
      _tsl_compare_panel_set_busy (self, FALSE);
      gtk_stack_set_visible_child_name (self->stack, _tsl_compare_panel_empty_page (self));
      return;
    }

  _tsl_compare_panel_queue (self);
}
