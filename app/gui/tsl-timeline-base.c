/* tsl-timeline-base.c: the timeline's tracks, painted once while only ranges or the crosshair change
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Painting the tracks of a 1 GB trace takes the main thread 100–170 ms. A
 * drag's release, a compare's highlight, the pointer's crosshair changed
 * only the overlay yet painted it all again, on the core a range read
 * needs. The base is kept as a texture; the overlay is drawn over it.
 */
#define G_LOG_DOMAIN "tsl-timeline-view"

#include "config.h"

#include <math.h>
#include <string.h>

#include "tsl-timeline-base.h"

struct _TslTimelineBase
{
  GdkTexture       *texture;
  TslSnapshot      *snapshot;
  int               scale;
  TslRenderOptions  options;   /* its strings and pids point into the copies below */
  char             *highlight;
  char             *highlight_track;
  char             *mark_track;
  char             *selection_track;
  char             *selection_name;
  char             *title;
  gint64           *collapsed;
  guint             n_paints;
};

TslTimelineBase *
tsl_timeline_base_new (void)
{
  return g_new0 (TslTimelineBase, 1);
}

void
tsl_timeline_base_clear (TslTimelineBase *self)
{
  g_return_if_fail (self != NULL);

  g_clear_object (&self->texture);
  g_clear_pointer (&self->snapshot, tsl_snapshot_unref);
  g_clear_pointer (&self->highlight, g_free);
  g_clear_pointer (&self->highlight_track, g_free);
  g_clear_pointer (&self->mark_track, g_free);
  g_clear_pointer (&self->selection_track, g_free);
  g_clear_pointer (&self->selection_name, g_free);
  g_clear_pointer (&self->title, g_free);
  g_clear_pointer (&self->collapsed, g_free);
}

void
tsl_timeline_base_free (TslTimelineBase *self)
{
  if (self == NULL)
    return;
  tsl_timeline_base_clear (self);
  g_free (self);
}

/* The options kept with the texture: the caller's strings may go. */
static void
keep_options (TslTimelineBase        *self,
              const TslRenderOptions *options)
{
  self->options = *options;
  self->options.highlight = self->highlight = g_strdup (options->highlight);
  self->options.highlight_track = self->highlight_track = g_strdup (options->highlight_track);
  self->options.mark_track = self->mark_track = g_strdup (options->mark_track);
  self->options.selection_track = self->selection_track = g_strdup (options->selection_track);
  self->options.selection_name = self->selection_name = g_strdup (options->selection_name);
  self->options.title = self->title = g_strdup (options->title);
  self->collapsed = options->n_collapsed > 0
    ? g_memdup2 (options->collapsed, options->n_collapsed * sizeof (gint64)) : NULL;
  self->options.collapsed = self->collapsed;
}

GdkTexture *
tsl_timeline_base_get (TslTimelineBase        *self,
                       TslSnapshot            *snapshot,
                       const TslRenderOptions *options,
                       int                     scale)
{
  int width, height;
  cairo_surface_t *surface;
  cairo_t *cr;
  g_autoptr(GBytes) bytes = NULL;
  gint64 started;

  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (options != NULL, NULL);

  scale = MAX (scale, 1);
  width = (int) ceil (options->width) * scale;
  height = (int) ceil (options->height) * scale;
  if (width <= 0 || height <= 0)
    {
      tsl_timeline_base_clear (self);
      return NULL;
    }
  if (self->texture != NULL && self->snapshot == snapshot && self->scale == scale &&
      tsl_render_options_same_base (&self->options, options))
    return self->texture;

  started = g_get_monotonic_time ();
  tsl_timeline_base_clear (self);
  surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, width, height);
  cairo_surface_set_device_scale (surface, scale, scale);
  cr = cairo_create (surface);
  tsl_render_paint_base (cr, snapshot, options);
  cairo_destroy (cr);
  cairo_surface_flush (surface);

  /* Cairo's ARGB32 is premultiplied BGRA in memory on little-endian
   * machines and ARGB on big-endian ones: GDK_MEMORY_DEFAULT either way. */
  bytes = g_bytes_new_with_free_func (cairo_image_surface_get_data (surface),
                                      (gsize) cairo_image_surface_get_stride (surface) * (gsize) height,
                                      (GDestroyNotify) cairo_surface_destroy, surface);
  self->texture = gdk_memory_texture_new (width, height, GDK_MEMORY_DEFAULT, bytes,
                                          (gsize) cairo_image_surface_get_stride (surface));
  self->snapshot = snapshot != NULL ? tsl_snapshot_ref (snapshot) : NULL;
  self->scale = scale;
  keep_options (self, options);
  self->n_paints++;
  g_debug ("timeline: tracks painted in %.1f ms", (g_get_monotonic_time () - started) / 1000.0);
  return self->texture;
}

guint
tsl_timeline_base_get_n_paints (TslTimelineBase *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->n_paints;
}
