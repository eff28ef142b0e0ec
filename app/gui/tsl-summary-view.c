/* tsl-summary-view.c: range A on its own, per function and thread and per series
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Function rows fill Calls to Share, series rows Points, Mean, Min and Max:
 * one table, so a click on a column header sorts both kinds together.
 */
#define G_LOG_DOMAIN "tsl-summary-view"

#include "config.h"

#include <math.h>

#include <glib/gi18n.h>

#include "tsl-column-view.h"
#include "tsl-duration.h"
#include "tsl-summary-item.h"
#include "tsl-summary-view.h"

typedef enum {
  COL_TRACK,
  COL_NAME,
  COL_COUNT,
  COL_TOTAL,
  COL_SELF,
  COL_MEAN,
  COL_SHARE,
  COL_MIN,
  COL_MAX,
  N_COLUMNS
} Column;

struct _TslSummaryView
{
  GtkWidget            parent_instance;

  GtkWidget           *box;
  GtkLabel            *heading;
  GtkColumnView       *column_view;

  GListStore          *store;
  GtkSortListModel    *sorted;
  GtkNoSelection      *selection;
  GtkColumnViewColumn *columns[N_COLUMNS];
};

G_DEFINE_FINAL_TYPE (TslSummaryView, tsl_summary_view, GTK_TYPE_WIDGET)

static char *
format_ns (double v)
{
  return isnan (v) ? g_strdup ("") : tsl_duration_format (v);
}

static double
sort_key (const TslSummaryRow *row,
          Column               column)
{
  gboolean func = row->name != NULL;

  switch (column)
    {
    case COL_COUNT: return (double) (func ? row->calls : row->n);
    case COL_TOTAL: return func ? row->total_ns : NAN;
    case COL_SELF: return func ? row->self_ns : NAN;
    case COL_MEAN: return func ? row->mean_ns : row->mean;
    case COL_SHARE: return func ? row->share : NAN;
    case COL_MIN: return row->min;
    case COL_MAX: return row->max;
    case COL_TRACK:
    case COL_NAME:
    case N_COLUMNS:
    default: return NAN;
    }
}

static char *
cell_text (const TslSummaryRow *row,
           Column               column)
{
  gboolean func = row->name != NULL;

  switch (column)
    {
    case COL_TRACK: return g_strdup (row->track);
    case COL_NAME: return g_strdup (func ? row->name : "");
    case COL_COUNT: return g_strdup_printf ("%" G_GUINT64_FORMAT, func ? row->calls : row->n);
    case COL_TOTAL:
    case COL_SELF: return func ? format_ns (sort_key (row, column)) : g_strdup ("");
    case COL_MEAN: return func ? format_ns (row->mean_ns) : tsl_column_view_format_number (row->mean, "");
    case COL_SHARE:
      return func && !isnan (row->share) ? g_strdup_printf ("%.2f %%", row->share * 100) : g_strdup ("");
    case COL_MIN:
    case COL_MAX: return tsl_column_view_format_number (sort_key (row, column), "");
    case N_COLUMNS:
    default: return g_strdup ("");
    }
}

static void
setup_cell (GtkSignalListItemFactory *factory,
            GtkListItem              *item,
            gpointer                  data)
{
  Column column = GPOINTER_TO_INT (data);
  GtkWidget *label = gtk_label_new (NULL);

  if (column == COL_TRACK || column == COL_NAME)
    {
      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_MIDDLE);
    }
  else
    {
      gtk_label_set_xalign (GTK_LABEL (label), 1);
      gtk_widget_add_css_class (label, "numeric");
    }
  gtk_list_item_set_child (item, label);
}

static void
bind_cell (GtkSignalListItemFactory *factory,
           GtkListItem              *item,
           gpointer                  data)
{
  const TslSummaryRow *row = tsl_summary_item_get_row (gtk_list_item_get_item (item));
  g_autofree char *text = cell_text (row, GPOINTER_TO_INT (data));

  gtk_label_set_label (GTK_LABEL (gtk_list_item_get_child (item)), text);
}

static int
compare_rows (gconstpointer a,
              gconstpointer b,
              gpointer      data)
{
  Column column = GPOINTER_TO_INT (data);
  const TslSummaryRow *ra = tsl_summary_item_get_row ((TslSummaryItem *) a);
  const TslSummaryRow *rb = tsl_summary_item_get_row ((TslSummaryItem *) b);
  int c;

  if (column == COL_TRACK || column == COL_NAME)
    {
      c = g_utf8_collate (column == COL_TRACK ? ra->track : (ra->name ? ra->name : ""),
                          column == COL_TRACK ? rb->track : (rb->name ? rb->name : ""));
      return c != 0 ? c : g_strcmp0 (ra->name, rb->name);
    }
  return tsl_column_view_compare_keys (sort_key (ra, column), sort_key (rb, column));
}

static void
tsl_summary_view_dispose (GObject *object)
{
  TslSummaryView *self = TSL_SUMMARY_VIEW (object);

  gtk_widget_dispose_template (GTK_WIDGET (self), TSL_TYPE_SUMMARY_VIEW);
  g_clear_object (&self->selection);
  g_clear_object (&self->sorted);
  g_clear_object (&self->store);

  G_OBJECT_CLASS (tsl_summary_view_parent_class)->dispose (object);
}

static void
tsl_summary_view_class_init (TslSummaryViewClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  G_OBJECT_CLASS (klass)->dispose = tsl_summary_view_dispose;

  gtk_widget_class_set_template_from_resource (widget_class, "/org/timeslice/Timeslice/tsl-summary-view.ui");
  gtk_widget_class_bind_template_child (widget_class, TslSummaryView, box);
  gtk_widget_class_bind_template_child (widget_class, TslSummaryView, heading);
  gtk_widget_class_bind_template_child (widget_class, TslSummaryView, column_view);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

static void
tsl_summary_view_init (TslSummaryView *self)
{
  static const char * const titles[N_COLUMNS] = {
    N_("Track"), N_("Function"), N_("Calls / Points"), N_("Total"), N_("Self"),
    N_("Mean"), N_("Share"), N_("Min"), N_("Max"),
  };

  gtk_widget_init_template (GTK_WIDGET (self));

  self->store = g_list_store_new (TSL_TYPE_SUMMARY_ITEM);
  tsl_column_view_add_columns (self->column_view, titles, N_COLUMNS,
                               G_CALLBACK (setup_cell), G_CALLBACK (bind_cell), compare_rows,
                               COL_NAME, self->columns);
  self->sorted = gtk_sort_list_model_new (g_object_ref (G_LIST_MODEL (self->store)),
                                          g_object_ref (gtk_column_view_get_sorter (self->column_view)));
  self->selection = gtk_no_selection_new (g_object_ref (G_LIST_MODEL (self->sorted)));
  gtk_column_view_set_model (self->column_view, GTK_SELECTION_MODEL (self->selection));
  /* One stop of the Tab chain, however many rows (tsl-column-view.h). */
  tsl_column_view_tab_leaves (self->column_view);
  gtk_column_view_sort_by_column (self->column_view, self->columns[COL_TOTAL], GTK_SORT_DESCENDING);
}

void
tsl_summary_view_set_rows (TslSummaryView *self,
                           GPtrArray      *rows,
                           gint64          length_ns)
{
  g_autofree char *length = tsl_duration_format ((double) length_ns);
  g_autofree char *text = NULL;

  g_return_if_fail (TSL_IS_SUMMARY_VIEW (self));

  /* Detached while refilled, so the new table starts at its top row. */
  gtk_column_view_set_model (self->column_view, NULL);
  g_list_store_remove_all (self->store);
  for (guint i = 0; i < rows->len; i++)
    {
      g_autoptr(TslSummaryItem) item = tsl_summary_item_new (g_ptr_array_index (rows, i));

      g_ptr_array_index (rows, i) = NULL;
      g_list_store_append (self->store, item);
    }
  gtk_column_view_set_model (self->column_view, GTK_SELECTION_MODEL (self->selection));

  /* Translators: %s is a duration such as "1.5 s" */
  text = g_strdup_printf (_("Range A alone (%s), exact over every event in it. Select range B to compare."), length);
  gtk_label_set_label (self->heading, text);
}

GListModel *
tsl_summary_view_get_model (TslSummaryView *self)
{
  g_return_val_if_fail (TSL_IS_SUMMARY_VIEW (self), NULL);
  return G_LIST_MODEL (self->sorted);
}

GtkColumnView *
tsl_summary_view_get_column_view (TslSummaryView *self)
{
  g_return_val_if_fail (TSL_IS_SUMMARY_VIEW (self), NULL);
  return self->column_view;
}
