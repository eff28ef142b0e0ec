/* tsl-compare-table.c: the compare panel's table — its cells, columns and order
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What each column shows for a row of the compare (formatted in the row's
 * unit, significance by icon, text and colour), how it sorts, and the table
 * as one stop of the Tab chain. The panel (tsl-compare-panel.c) runs the
 * compare and fills the table.
 */
#define G_LOG_DOMAIN "tsl-compare-panel"

#include "config.h"

#include <math.h>

#include <glib/gi18n.h>

#include "tsl-column-view.h"
#include "tsl-compare-item.h"
#include "tsl-compare-table.h"
#include "tsl-duration.h"

static char *
format_pct (double v)
{
  /* An interval's unbounded end (Fieller's, A not told from 0). */
  if (isinf (v))
    return g_strdup (v > 0 ? "+∞" : "−∞");
  return isnan (v) ? g_strdup ("—") : g_strdup_printf ("%+.1f %%", v * 100);
}

/* A value in its row's unit. */
static char *
format_in_unit (const TslCompareRow *row,
                double               v)
{
  g_autofree char *plain = NULL;

  if (isnan (v))
    return g_strdup ("—");
  if (row->duration)
    return tsl_duration_format (v);
  if (g_strcmp0 (row->unit, "fraction") == 0)
    return g_strdup_printf ("%.2f %%", v * 100);
  plain = tsl_column_view_format_number (v, "—");
  if (row->unit != NULL && row->unit[0] != '\0')
    return g_strdup_printf ("%s %s", plain, row->unit);
  return g_steal_pointer (&plain);
}

/* An untested row (too few, too dependent) is never significant. */
gboolean
_tsl_compare_row_is_significant (const TslCompareRow *row)
{
  return row->significant && row->test != TSL_COMPARE_TEST_TOO_FEW &&
         row->test != TSL_COMPARE_TEST_TOO_DEPENDENT;
}


/* The row's impact: time per second of range for what costs time, else the
 * change of its value (per second for totals) in the series' unit. */
static char *
format_impact (const TslCompareRow *row)
{
  g_autofree char *plain = NULL;
  const char *unit = row->unit != NULL ? row->unit : "";

  if (isnan (row->impact))
    return g_strdup ("—");
  if (row->impact_is_time)
    {
      g_autofree char *time = tsl_duration_format (row->impact * 1e9);

      /* Translators: time a row's change costs per second, e.g. "40 ms/s" */
      return g_strdup_printf (_("%s/s"), time);
    }
  plain = tsl_column_view_format_number (row->impact, "—");
  if (unit[0] == '\0')
    return g_steal_pointer (&plain);
  return g_strdup_printf (unit[0] == '/' ? "%s%s" : "%s %s", plain, unit);
}

static char *
cell_text (TslCompareItem *item,
           Column          column)
{
  const TslCompareRow *row = tsl_compare_item_get_row (item);

  switch (column)
    {
    case COL_IMPACT:
      return format_impact (row);
    case COL_THREAD:
      return tsl_compare_item_dup_thread (item);
    case COL_FUNCTION:
      return g_strdup (tsl_compare_item_get_function (item));
    case COL_STAT:
      return g_strdup (tsl_compare_row_stat_label (row));
    case COL_A:
      return format_in_unit (row, row->a_value);
    case COL_B:
      return format_in_unit (row, row->b_value);
    case COL_CHANGE:
      if (row->presence == TSL_COMPARE_NEW_IN_B)
        return g_strdup (_("new in B"));
      if (row->presence == TSL_COMPARE_GONE_IN_B)
        return g_strdup (_("gone in B"));
      return format_pct (row->change);
    case COL_CI:
      {
        g_autofree char *lo = format_pct (row->ci_low);
        g_autofree char *hi = format_pct (row->ci_high);

        if (isnan (row->ci_low) || isnan (row->ci_high))
          return g_strdup ("—");
        return g_strdup_printf ("%s … %s", lo, hi);
      }
    case COL_Q:
      return isnan (row->q_value) ? g_strdup ("—") : g_strdup_printf ("%.3g", row->q_value);
    case COL_N_A:
      return g_strdup_printf ("%" G_GUINT64_FORMAT, row->n_a);
    case COL_N_B:
      return g_strdup_printf ("%" G_GUINT64_FORMAT, row->n_b);
    case COL_TEST:
      return g_strdup_printf ("%s%s%s", tsl_compare_test_to_string (row->test), row->bca ? ", BCa" : "",
                              /* Translators: after a test's name, e.g. "blocks-t, few independent blocks" */
                              row->few_blocks ? _(", few independent blocks") : "");
    case COL_SIGNIFICANT:
    case N_COLUMNS:
    default:
      if (row->test == TSL_COMPARE_TEST_TOO_FEW || row->test == TSL_COMPARE_TEST_TOO_DEPENDENT)
        return tsl_compare_item_dup_untested (item);
      if (row->waiting)
        return tsl_compare_item_dup_waiting (item);
      return g_strdup (_tsl_compare_row_is_significant (row) ? _("Significant") : _("Noise"));
    }
}

static void
setup_cell (GtkSignalListItemFactory *factory,
            GtkListItem              *item,
            gpointer                  data)
{
  Column column = GPOINTER_TO_INT (data);
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (label),
                        column == COL_THREAD || column == COL_FUNCTION || column == COL_STAT ||
                        column == COL_TEST ? 0 : 1);
  /* A thread reads by its start and is told from its namesakes by its
   * end ("… (tid 9235)", "… [8897]"); a function ("Class::Method") reads by
   * its end. */
  if (column == COL_THREAD)
    gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_MIDDLE);
  else if (column == COL_FUNCTION)
    gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_START);
  else if (column == COL_STAT)
    gtk_widget_add_css_class (label, "dim-label");
  else
    gtk_widget_add_css_class (label, "numeric");

  if (column == COL_SIGNIFICANT)
    {
      /* Significance by icon, text and colour together, never colour alone. */
      GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);

      gtk_box_append (GTK_BOX (box), gtk_image_new ());
      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
      gtk_box_append (GTK_BOX (box), label);
      gtk_list_item_set_child (item, box);
      return;
    }

  gtk_list_item_set_child (item, label);
}

static void
bind_cell (GtkSignalListItemFactory *factory,
           GtkListItem              *item,
           gpointer                  data)
{
  Column column = GPOINTER_TO_INT (data);
  TslCompareItem *row_item = gtk_list_item_get_item (item);
  const TslCompareRow *row = tsl_compare_item_get_row (row_item);
  GtkWidget *child = gtk_list_item_get_child (item);
  g_autofree char *text = cell_text (row_item, column);

  if (column == COL_SIGNIFICANT)
    {
      GtkWidget *image = gtk_widget_get_first_child (child);
      GtkWidget *label = gtk_widget_get_last_child (child);

      gtk_image_set_from_icon_name (GTK_IMAGE (image),
                                    _tsl_compare_row_is_significant (row) ? "emblem-important-symbolic" : "list-remove-symbolic");
      gtk_label_set_label (GTK_LABEL (label), text);
      gtk_widget_set_tooltip_text (label, text);
      if (_tsl_compare_row_is_significant (row))
        {
          gtk_widget_add_css_class (child, "tsl-significant");
          gtk_widget_remove_css_class (child, "dim-label");
        }
      else
        {
          gtk_widget_remove_css_class (child, "tsl-significant");
          gtk_widget_add_css_class (child, "dim-label");
        }
      return;
    }

  gtk_label_set_label (GTK_LABEL (child), text);
  if (column == COL_THREAD || column == COL_FUNCTION)
    gtk_widget_set_tooltip_text (child, row->series);
  else if (column == COL_CI)
    {
      /* Cells are reused: a bounded interval clears the last row's tooltip. */
      g_autofree char *why = tsl_compare_item_dup_unbounded (row_item);

      gtk_widget_set_tooltip_text (child, why);
    }
}

static double
sort_key (const TslCompareRow *row,
          Column               column)
{
  switch (column)
    {
    case COL_A: return row->a_value;
    case COL_B: return row->b_value;
    case COL_CHANGE: return row->change;
    case COL_CI: return row->ci_low;
    case COL_Q: return row->q_value;
    case COL_N_A: return (double) row->n_a;
    case COL_N_B: return (double) row->n_b;
    case COL_SIGNIFICANT:
    case COL_IMPACT:
    case COL_THREAD:
    case COL_FUNCTION:
    case COL_STAT:
    case COL_TEST:
    case N_COLUMNS:
    default: return 0;
    }
}

static int
compare_rows (gconstpointer a,
              gconstpointer b,
              gpointer      data)
{
  Column column = GPOINTER_TO_INT (data);
  const TslCompareRow *ra = tsl_compare_item_get_row ((TslCompareItem *) a);
  const TslCompareRow *rb = tsl_compare_item_get_row ((TslCompareItem *) b);
  double ka, kb;
  guint rank_a, rank_b;

  switch (column)
    {
    case COL_IMPACT:
      /* The core's order (largest impact, then significance), which no
       * single key gives: descending is rank 0 first. */
      rank_a = tsl_compare_item_get_rank ((TslCompareItem *) a);
      rank_b = tsl_compare_item_get_rank ((TslCompareItem *) b);
      return rank_a < rank_b ? 1 : rank_a > rank_b ? -1 : 0;

    case COL_THREAD:
      {
        g_autofree char *ta = tsl_compare_item_dup_thread ((TslCompareItem *) a);
        g_autofree char *tb = tsl_compare_item_dup_thread ((TslCompareItem *) b);
        int c = g_utf8_collate (ta, tb);

        return c != 0 ? c : g_utf8_collate (ra->series, rb->series);
      }

    case COL_FUNCTION:
      return g_utf8_collate (tsl_compare_item_get_function ((TslCompareItem *) a),
                             tsl_compare_item_get_function ((TslCompareItem *) b));

    case COL_STAT:
      return g_utf8_collate (tsl_compare_row_stat_label (ra), tsl_compare_row_stat_label (rb));

    case COL_TEST:
      return g_strcmp0 (tsl_compare_test_to_string (ra->test), tsl_compare_test_to_string (rb->test));

    case COL_SIGNIFICANT:
      /* Significant first (descending), then the largest |change|. */
      if (_tsl_compare_row_is_significant (ra) != _tsl_compare_row_is_significant (rb))
        return _tsl_compare_row_is_significant (ra) ? 1 : -1;
      ka = tsl_compare_item_get_magnitude ((TslCompareItem *) a);
      kb = tsl_compare_item_get_magnitude ((TslCompareItem *) b);
      return ka < kb ? -1 : ka > kb;

    case COL_A:
    case COL_B:
    case COL_CHANGE:
    case COL_CI:
    case COL_Q:
    case COL_N_A:
    case COL_N_B:
    case N_COLUMNS:
    default:
      return tsl_column_view_compare_keys (sort_key (ra, column), sort_key (rb, column));
    }
}

/* Icon, its spacing and the cell's padding beside the Significance text. */
#define SIGNIFICANCE_EXTRA 40
#define SIGNIFICANCE_MIN   130
#define SIGNIFICANCE_MAX   360

/* The Significance column as wide as its common notes ("too dependent to
 * test at this length", "too few calls (3 vs 99)") in the table's font, so
 * they show whole; a longer one is cut and said in full by its tooltip. */
static void
size_significance (GtkWidget           *view,
                   GtkColumnViewColumn *column)
{
  g_auto(GStrv) notes = tsl_compare_item_dup_typical_notes ();
  int widest = 0;

  for (guint i = 0; notes[i] != NULL; i++)
    {
      g_autoptr(PangoLayout) layout = gtk_widget_create_pango_layout (view, notes[i]);
      int width;

      pango_layout_get_pixel_size (layout, &width, NULL);
      widest = MAX (widest, width);
    }
  gtk_column_view_column_set_fixed_width (column, CLAMP (widest + SIGNIFICANCE_EXTRA,
                                                         SIGNIFICANCE_MIN, SIGNIFICANCE_MAX));
  /* Once: a width the user dragged stays. */
  g_signal_handlers_disconnect_by_func (view, size_significance, column);
}

void
_tsl_compare_table_add_columns (GtkColumnView        *view,
                                GtkColumnViewColumn **columns)
{
  static const char * const titles[N_COLUMNS] = {
    N_("Significance"), N_("Impact"), N_("Thread or Track"), N_("Function"), N_("Statistic"),
    N_("A"), N_("B"), N_("Change"), N_("Confidence Interval"), N_("q-value"),
    /* Translators: column headers, how many calls (or points) each range has */
    N_("Calls A"), N_("Calls B"), N_("Test"),
  };

  tsl_column_view_add_columns (view, titles, N_COLUMNS,
                               G_CALLBACK (setup_cell), G_CALLBACK (bind_cell), compare_rows,
                               COL_FUNCTION, columns);
  /* The names take what they are given and elide the rest, so every other
   * column keeps its width; both can be dragged wider. */
  gtk_column_view_column_set_fixed_width (columns[COL_SIGNIFICANT], SIGNIFICANCE_MIN);
  g_signal_connect (view, "realize", G_CALLBACK (size_significance), columns[COL_SIGNIFICANT]);
  gtk_column_view_column_set_fixed_width (columns[COL_THREAD], 120);
  gtk_column_view_column_set_fixed_width (columns[COL_FUNCTION], 180);
  tsl_column_view_tab_leaves (view);
}
