/* tsl-changes-list.c: the significant change points of a file, one row each
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A row reads "worker/parse · mean duration", then "1.20 ms → 1.81 ms
 * (+50.8 %) at 4.02 s": what changed, from what to what, and when; with
 * merged files, "after.json: worker/parse · mean duration", the time from
 * that file's start.
 */
#define G_LOG_DOMAIN "tsl-window"

#include "config.h"

#include <math.h>

#include <glib/gi18n.h>

#include "tsl-changes-list.h"
#include "tsl-duration.h"

struct _TslChangesList
{
  GtkWidget   parent_instance;

  GtkWidget  *box;
  GtkLabel   *heading;
  GtkListBox *list;
};

enum {
  CHANGE_ACTIVATED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (TslChangesList, tsl_changes_list, GTK_TYPE_WIDGET)

/* A value in the row's unit: durations as durations, shares in %. */
static char *
format_value (const TslChangeRow *row,
              double              value)
{
  if (isnan (value))
    return g_strdup ("–");
  if (g_strcmp0 (row->unit, "ns") == 0)
    return tsl_duration_format (value);
  if (g_strcmp0 (row->unit, "fraction") == 0)
    return g_strdup_printf ("%.3g %%", value * 100);
  if (g_strcmp0 (row->unit, "/s") == 0)
    /* Translators: a rate, e.g. "12.5/s" */
    return g_strdup_printf (_("%.3g/s"), value);
  return g_strdup_printf ("%.4g", value);
}

static GtkWidget *
make_row (const TslChangeRow *row,
          const char         *file)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  GtkWidget *title, *detail;
  /* Merged files: the file first, as the warnings list names it. */
  g_autofree char *name = file != NULL ? g_strdup_printf ("%s: %s · %s", file, row->series, tsl_change_stat_label (row->stat))
                                       : g_strdup_printf ("%s · %s", row->series, tsl_change_stat_label (row->stat));
  g_autofree char *before = format_value (row, row->before);
  g_autofree char *after = format_value (row, row->after);
  g_autofree char *when = tsl_duration_format (row->time_s * 1e9);
  g_autofree char *change = isnan (row->change) ? g_strdup (_("from 0"))
                                                : g_strdup_printf ("%+.1f %%", row->change * 100);
  /* Translators: value before → value after (change) at a time */
  g_autofree char *text = g_strdup_printf (_("%s → %s (%s) at %s"), before, after, change, when);

  gtk_widget_set_margin_start (box, 8);
  gtk_widget_set_margin_end (box, 8);
  gtk_widget_set_margin_top (box, 6);
  gtk_widget_set_margin_bottom (box, 6);
  title = gtk_label_new (name);
  gtk_label_set_xalign (GTK_LABEL (title), 0);
  gtk_label_set_ellipsize (GTK_LABEL (title), PANGO_ELLIPSIZE_MIDDLE);
  gtk_widget_add_css_class (title, "tsl-significant");
  detail = gtk_label_new (text);
  gtk_label_set_xalign (GTK_LABEL (detail), 0);
  gtk_widget_add_css_class (detail, "numeric");
  gtk_box_append (GTK_BOX (box), title);
  gtk_box_append (GTK_BOX (box), detail);
  gtk_widget_set_tooltip_text (box, name);
  return box;
}

void
tsl_changes_list_set_rows (TslChangesList     *self,
                           GPtrArray          *rows,
                           const char * const *files)
{
  GtkWidget *child;

  g_return_if_fail (TSL_IS_CHANGES_LIST (self));

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->list))) != NULL)
    gtk_list_box_remove (self->list, child);
  if (rows == NULL)
    return;
  for (guint i = 0; i < rows->len; i++)
    gtk_list_box_append (self->list, make_row (g_ptr_array_index (rows, i), files != NULL ? files[i] : NULL));
  gtk_widget_set_visible (gtk_widget_get_parent (GTK_WIDGET (self->list)), rows->len > 0);
}

void
tsl_changes_list_set_heading (TslChangesList *self,
                              const char     *text)
{
  g_return_if_fail (TSL_IS_CHANGES_LIST (self));

  gtk_label_set_label (self->heading, text);
}

void
tsl_changes_list_select (TslChangesList *self,
                         int             index)
{
  GtkListBoxRow *row;

  g_return_if_fail (TSL_IS_CHANGES_LIST (self));

  row = index >= 0 ? gtk_list_box_get_row_at_index (self->list, index) : NULL;
  if (row == NULL)
    gtk_list_box_unselect_all (self->list);
  else
    gtk_list_box_select_row (self->list, row);
}

static void
on_row_activated (TslChangesList *self,
                  GtkListBoxRow  *row)
{
  g_signal_emit (self, signals[CHANGE_ACTIVATED], 0, (guint) gtk_list_box_row_get_index (row));
}

static void
tsl_changes_list_dispose (GObject *object)
{
  gtk_widget_dispose_template (GTK_WIDGET (object), TSL_TYPE_CHANGES_LIST);
  G_OBJECT_CLASS (tsl_changes_list_parent_class)->dispose (object);
}

static void
tsl_changes_list_class_init (TslChangesListClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = tsl_changes_list_dispose;

  gtk_widget_class_set_template_from_resource (widget_class, "/org/timeslice/Timeslice/tsl-changes-list.ui");
  gtk_widget_class_bind_template_child (widget_class, TslChangesList, box);
  gtk_widget_class_bind_template_child (widget_class, TslChangesList, heading);
  gtk_widget_class_bind_template_child (widget_class, TslChangesList, list);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "changeslist");

  /* The chosen row's index. */
  signals[CHANGE_ACTIVATED] = g_signal_new ("change-activated", G_TYPE_FROM_CLASS (klass),
                                            G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                            G_TYPE_NONE, 1, G_TYPE_UINT);
}

static void
tsl_changes_list_init (TslChangesList *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  g_signal_connect_object (self->list, "row-activated", G_CALLBACK (on_row_activated),
                           self, G_CONNECT_SWAPPED);
}
