/* tsl-column-view.c: the sortable tables of the compare panel and call tree
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "tsl-column-view"

#include "config.h"

#include <math.h>

#include <glib/gi18n.h>

#include "tsl-column-view.h"

void
tsl_column_view_add_columns (GtkColumnView        *view,
                             const char * const   *titles,
                             guint                 n_columns,
                             GCallback             setup,
                             GCallback             bind,
                             GCompareDataFunc      compare,
                             guint                 expand,
                             GtkColumnViewColumn **columns)
{
  g_return_if_fail (GTK_IS_COLUMN_VIEW (view));

  for (guint c = 0; c < n_columns; c++)
    {
      GtkListItemFactory *factory = gtk_signal_list_item_factory_new ();
      g_autoptr(GtkSorter) sorter = NULL;

      g_signal_connect (factory, "setup", setup, GUINT_TO_POINTER (c));
      g_signal_connect (factory, "bind", bind, GUINT_TO_POINTER (c));

      columns[c] = gtk_column_view_column_new (_(titles[c]), factory);
      sorter = GTK_SORTER (gtk_custom_sorter_new (compare, GUINT_TO_POINTER (c), NULL));
      gtk_column_view_column_set_sorter (columns[c], sorter);
      gtk_column_view_column_set_resizable (columns[c], TRUE);
      gtk_column_view_column_set_expand (columns[c], c == expand);
      gtk_column_view_append_column (view, columns[c]);
    }
}

int
tsl_column_view_compare_keys (double a,
                              double b)
{
  if (isnan (a) || isnan (b))
    return isnan (a) == isnan (b) ? 0 : (isnan (a) ? -1 : 1);
  return a < b ? -1 : a > b;
}

char *
tsl_column_view_format_number (double      v,
                               const char *nan_text)
{
  if (isnan (v))
    return g_strdup (nan_text);
  if (v != 0 && (fabs (v) >= 1e6 || fabs (v) < 1e-3))
    return g_strdup_printf ("%.3e", v);
  return g_strdup_printf ("%.4g", v);
}

static gboolean
on_tab (GtkEventControllerKey *controller,
        guint                  keyval,
        guint                  keycode,
        GdkModifierType        state,
        GtkWidget             *view)
{
  GtkDirectionType direction;
  GtkRoot *root = gtk_widget_get_root (view);

  if (keyval == GDK_KEY_ISO_Left_Tab)
    direction = GTK_DIR_TAB_BACKWARD;
  else if (keyval == GDK_KEY_Tab || keyval == GDK_KEY_KP_Tab)
    direction = (state & GDK_SHIFT_MASK) ? GTK_DIR_TAB_BACKWARD : GTK_DIR_TAB_FORWARD;
  else
    return FALSE;
  /* Ctrl+Tab is the standard way out of a widget that uses Tab itself. */
  if ((state & (GDK_CONTROL_MASK | GDK_ALT_MASK)) || root == NULL)
    return FALSE;
  /* The focus chain skips a widget that cannot take focus, with all it
   * holds: the move goes on from the table's place to its neighbour (or
   * wraps around the window, as Tab does). */
  gtk_widget_set_can_focus (view, FALSE);
  gtk_widget_child_focus (GTK_WIDGET (root), direction);
  gtk_widget_set_can_focus (view, TRUE);
  return TRUE;
}

void
tsl_column_view_tab_leaves (GtkColumnView *view)
{
  GtkEventController *keys;

  g_return_if_fail (GTK_IS_COLUMN_VIEW (view));

  keys = gtk_event_controller_key_new ();
  /* Before the rows' own handling of Tab. */
  gtk_event_controller_set_propagation_phase (keys, GTK_PHASE_CAPTURE);
  g_signal_connect_object (keys, "key-pressed", G_CALLBACK (on_tab), view, 0);
  gtk_widget_add_controller (GTK_WIDGET (view), keys);
}
