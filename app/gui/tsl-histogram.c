/* tsl-histogram.c: the bootstrap distribution of the selected compare row
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A row with resamples (or a block test's t distribution) shows them; one
 * with only an interval (exact count tests) shows the interval; one with
 * neither says why in a label, never a blank box.
 */
#define G_LOG_DOMAIN "tsl-histogram"

#include "config.h"

#include <math.h>

#include <adwaita.h>
#include <glib/gi18n.h>

#include "tsl-histogram.h"
#include "tsl-render-histogram.h"

struct _TslHistogram
{
  GtkWidget       parent_instance;
  TslCompareItem *item;
  GtkWidget      *message;   /* why there is nothing to draw */
};

G_DEFINE_FINAL_TYPE (TslHistogram, tsl_histogram, GTK_TYPE_WIDGET)

/* An interval with no distribution: the band, 0 % and the observed change
 * on the histogram's axis. */
static void
draw_interval (cairo_t                *cr,
               const TslHistogramData *d,
               double                  width,
               double                  height)
{
  double fg = d->dark ? 0.92 : 0.15;
  /* An unbounded end (Fieller's interval, A not told from 0) is drawn to
   * the edge and does not set the scale. */
  double lo = MIN (0, isfinite (d->ci_low) ? d->ci_low : 0), hi = MAX (0, isfinite (d->ci_high) ? d->ci_high : 0);
  double plot_w = width - 24, y = height / 2, ci_low, ci_high;
  g_autofree char *title = g_strdup_printf ("%s (%s)", d->series ? d->series : "", d->stat ? d->stat : "");
  char buf[64];

#define X_OF(v) (12 + ((v) - lo) / (hi - lo) * plot_w)
  if (isfinite (d->change))
    {
      lo = MIN (lo, d->change);
      hi = MAX (hi, d->change);
    }
  if (hi - lo < 1e-9)
    {
      lo -= 0.01;
      hi += 0.01;
    }
  lo -= (hi - lo) * 0.05;
  hi += (hi - lo) * 0.05;
  ci_low = isinf (d->ci_low) ? lo : d->ci_low;
  ci_high = isinf (d->ci_high) ? hi : d->ci_high;

  cairo_select_font_face (cr, "Cantarell", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
  cairo_set_font_size (cr, 10.5);
  cairo_set_source_rgba (cr, fg, fg, fg, 1);
  cairo_move_to (cr, 12, 14);
  cairo_show_text (cr, title);
  cairo_select_font_face (cr, "Cantarell", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_source_rgba (cr, fg, fg, fg, 0.7);
  cairo_move_to (cr, 12, 30);
  /* Translators: caption of an interval drawn without a distribution */
  cairo_show_text (cr, _("Interval of the test, no resampled distribution; orange = observed"));

  if (d->significant)
    cairo_set_source_rgba (cr, 0.208, 0.518, 0.894, 0.5);
  else
    cairo_set_source_rgba (cr, fg, fg, fg, 0.25);
  cairo_rectangle (cr, X_OF (ci_low), y - 10, MAX (X_OF (ci_high) - X_OF (ci_low), 2), 20);
  cairo_fill (cr);

  cairo_set_line_width (cr, 1.5);
  cairo_set_source_rgba (cr, fg, fg, fg, 0.85);
  cairo_move_to (cr, floor (X_OF (0)) + 0.5, y - 22);
  cairo_line_to (cr, floor (X_OF (0)) + 0.5, y + 22);
  cairo_stroke (cr);
  cairo_move_to (cr, X_OF (0) - 8, y - 26);
  cairo_show_text (cr, "0 %");
  if (isfinite (d->change))
    {
      cairo_set_source_rgb (cr, 1.0, 0.471, 0.0);
      cairo_move_to (cr, floor (X_OF (d->change)) + 0.5, y - 16);
      cairo_line_to (cr, floor (X_OF (d->change)) + 0.5, y + 16);
      cairo_stroke (cr);
    }
  cairo_set_source_rgba (cr, fg, fg, fg, 0.8);
  if (isinf (d->ci_low))
    g_strlcpy (buf, "−∞", sizeof buf);
  else
    g_snprintf (buf, sizeof buf, "%+.1f %%", d->ci_low * 100);
  cairo_move_to (cr, X_OF (ci_low), y + 34);
  cairo_show_text (cr, buf);
  if (isinf (d->ci_high))
    g_strlcpy (buf, "+∞", sizeof buf);
  else
    g_snprintf (buf, sizeof buf, "%+.1f %%", d->ci_high * 100);
  cairo_move_to (cr, MIN (X_OF (ci_high), width - 30), y + 48);
  cairo_show_text (cr, buf);
#undef X_OF
}

/* (transfer full) (nullable): why the row has nothing to draw. */
static char *
dup_message (TslCompareItem *item)
{
  const TslCompareRow *row = tsl_compare_item_get_row (item);
  g_autofree char *untested = tsl_compare_item_dup_untested (item);

  if (untested != NULL)
    /* Translators: %s says why, e.g. "too few calls (1 vs 1)" */
    return g_strdup_printf (_("Not tested: %s"), untested);
  if (row->presence == TSL_COMPARE_NEW_IN_B)
    return g_strdup (_("New in B: nothing in A to compare with"));
  if (row->presence == TSL_COMPARE_GONE_IN_B)
    return g_strdup (_("Gone in B: nothing in B to compare with"));
  return g_strdup (_("No interval for this row: too little data to test"));
}

static gboolean
has_interval (const TslHistogramData *data)
{
  return isfinite (data->ci_low) && isfinite (data->ci_high);
}

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

  if (gtk_widget_get_visible (self->message))
    {
      gtk_widget_snapshot_child (widget, self->message, snapshot);
      return;
    }

  tsl_histogram_data_from_row (&data, tsl_compare_item_get_row (self->item), &quantiles);
  data.dark = adw_style_manager_get_dark (adw_style_manager_get_default ());

  cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, width, height));
  if (data.n_effects < 2)
    draw_interval (cr, &data, width, height);
  else
    tsl_render_histogram (cr, &data, width, height);
  cairo_destroy (cr);
}

static void
tsl_histogram_size_allocate (GtkWidget *widget,
                             int        width,
                             int        height,
                             int        baseline)
{
  TslHistogram *self = TSL_HISTOGRAM (widget);

  gtk_widget_allocate (self->message, width, height, baseline, NULL);
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
  *natural = orientation == GTK_ORIENTATION_HORIZONTAL ? 260 : 220;
}

static void
tsl_histogram_dispose (GObject *object)
{
  TslHistogram *self = TSL_HISTOGRAM (object);

  g_clear_object (&self->item);
  g_clear_pointer (&self->message, gtk_widget_unparent);

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
  widget_class->size_allocate = tsl_histogram_size_allocate;

  gtk_widget_class_set_css_name (widget_class, "histogram");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
tsl_histogram_init (TslHistogram *self)
{
  self->message = gtk_label_new (NULL);
  gtk_label_set_wrap (GTK_LABEL (self->message), TRUE);
  gtk_label_set_justify (GTK_LABEL (self->message), GTK_JUSTIFY_CENTER);
  gtk_widget_add_css_class (self->message, "dim-label");
  gtk_widget_set_visible (self->message, FALSE);
  gtk_widget_set_parent (self->message, GTK_WIDGET (self));
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
    {
      TslHistogramData data = { 0 };
      g_autofree double *quantiles = NULL;
      g_autofree char *message = NULL;

      if (item != NULL)
        {
          tsl_histogram_data_from_row (&data, tsl_compare_item_get_row (item), &quantiles);
          if (data.n_effects < 2 && !has_interval (&data))
            message = dup_message (item);
        }
      gtk_label_set_label (GTK_LABEL (self->message), message);
      gtk_widget_set_visible (self->message, message != NULL);
      gtk_widget_queue_draw (GTK_WIDGET (self));
    }
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
