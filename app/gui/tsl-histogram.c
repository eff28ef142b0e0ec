/* tsl-histogram.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "tsl-histogram"

#include "config.h"

#include <adwaita.h>

#include "tsl-histogram.h"
#include "tsl-render-histogram.h"

struct _TslHistogram
{
  GtkWidget       parent_instance;
  TslCompareItem *item;
};

G_DEFINE_FINAL_TYPE (TslHistogram, tsl_histogram, GTK_TYPE_WIDGET)

static void
tsl_histogram_snapshot (GtkWidget   *widget,
                        GtkSnapshot *snapshot)
{
  TslHistogram *self = TSL_HISTOGRAM (widget);
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);
  TslHistogramData data = { 0 };
  g_autofree double *quantiles = NULL;
  cairo_t *cr;

  if (self->item == NULL || width <= 0 || height <= 0)
    return;

  tsl_histogram_data_from_row (&data, tsl_compare_item_get_row (self->item), &quantiles);
  data.dark = adw_style_manager_get_dark (adw_style_manager_get_default ());

  cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, width, height));
  tsl_render_histogram (cr, &data, width, height);
  cairo_destroy (cr);
}

static void
tsl_histogram_measure (GtkWidget      *widget,
                       GtkOrientation  orientation,
                       int             for_size,
                       int            *minimum,
                       int            *natural,
                       int            *minimum_baseline,
                       int            *natural_baseline)
{
  *minimum = orientation == GTK_ORIENTATION_HORIZONTAL ? 240 : 140;
  *natural = orientation == GTK_ORIENTATION_HORIZONTAL ? 340 : 220;
}

static void
tsl_histogram_dispose (GObject *object)
{
  TslHistogram *self = TSL_HISTOGRAM (object);

  g_clear_object (&self->item);

  G_OBJECT_CLASS (tsl_histogram_parent_class)->dispose (object);
}

static void
tsl_histogram_class_init (TslHistogramClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = tsl_histogram_dispose;
  widget_class->snapshot = tsl_histogram_snapshot;
  widget_class->measure = tsl_histogram_measure;

  gtk_widget_class_set_css_name (widget_class, "histogram");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
tsl_histogram_init (TslHistogram *self)
{
  g_signal_connect_object (adw_style_manager_get_default (), "notify::dark",
                           G_CALLBACK (gtk_widget_queue_draw), self, G_CONNECT_SWAPPED);
}

GtkWidget *
tsl_histogram_new (void)
{
  return g_object_new (TSL_TYPE_HISTOGRAM, NULL);
}

void
tsl_histogram_set_item (TslHistogram   *self,
                        TslCompareItem *item)
{
  g_return_if_fail (TSL_IS_HISTOGRAM (self));

  if (g_set_object (&self->item, item))
    gtk_widget_queue_draw (GTK_WIDGET (self));
}

/**
 * tsl_histogram_get_item:
 *
 * Returns: (transfer none) (nullable): the row shown
 */
TslCompareItem *
tsl_histogram_get_item (TslHistogram *self)
{
  g_return_val_if_fail (TSL_IS_HISTOGRAM (self), NULL);

  return self->item;
}
