/* tsl-window-ranges.c: ranges A and B shown and edited exactly
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "tsl-window"

#include "config.h"

#include <math.h>

#include <glib/gi18n.h>

#include "tsl-range.h"
#include "tsl-window-private.h"

static void
set_entry_time (GtkEntry *entry,
                gboolean  has,
                gint64    ns)
{
  g_autofree char *text = has ? tsl_duration_format ((double) ns) : NULL;

  gtk_editable_set_text (GTK_EDITABLE (entry), text ? text : "");
  gtk_widget_remove_css_class (GTK_WIDGET (entry), "error");
}

static char *
describe_range (const char *name,
                gint64      start,
                gint64      end)
{
  g_autofree char *span = tsl_duration_format_range (start, end);
  g_autofree char *d = tsl_duration_format ((double) (end - start));

  /* Translators: range name, "start – end", duration */
  return g_strdup_printf (_("%s: %s (%s)"), name, span, d);
}

void
_tsl_window_update_ranges (TslWindow *self)
{
  gint64 a0 = 0, a1 = 0, b0 = 0, b1 = 0;
  gboolean has_a = tsl_timeline_view_get_range (self->timeline, TSL_RANGE_A, &a0, &a1);
  gboolean has_b = tsl_timeline_view_get_range (self->timeline, TSL_RANGE_B, &b0, &b1);
  g_autofree char *a = has_a ? describe_range ("A", a0, a1) : NULL;
  g_autofree char *b = has_b ? describe_range ("B", b0, b1) : NULL;
  g_autofree char *label = NULL;

  set_entry_time (self->a_start_entry, has_a, a0);
  set_entry_time (self->a_end_entry, has_a, a1);
  set_entry_time (self->b_start_entry, has_b, b0);
  set_entry_time (self->b_end_entry, has_b, b1);

  if (a && b)
    label = g_strdup_printf ("%s · %s", a, b);
  else if (a || b)
    label = g_strdup (a ? a : b);
  else
    label = g_strdup (_("No ranges: drag to select A"));

  gtk_menu_button_set_label (self->ranges_button, label);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.clear-ranges", has_a || has_b);

  tsl_compare_panel_set_ranges (self->compare_panel, has_a, a0, a1, has_b, b0, b1);
  _tsl_window_flame_set_ranges (self, has_a, a0, a1, has_b, b0, b1);
}

static gboolean
parse_entry (GtkEntry *entry,
             gint64   *ns)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (entry));
  double value;

  if (!tsl_duration_parse (text, &value, NULL))
    {
      gtk_widget_add_css_class (GTK_WIDGET (entry), "error");
      return FALSE;
    }

  gtk_widget_remove_css_class (GTK_WIDGET (entry), "error");
  *ns = (gint64) llround (value);
  return TRUE;
}

void
_tsl_window_range_entry_activate (TslWindow *self,
                                  GtkEntry  *entry)
{
  gboolean is_a = entry == self->a_start_entry || entry == self->a_end_entry;
  GtkEntry *start_entry = is_a ? self->a_start_entry : self->b_start_entry;
  GtkEntry *end_entry = is_a ? self->a_end_entry : self->b_end_entry;
  gint64 start, end;

  if (!parse_entry (start_entry, &start) | !parse_entry (end_entry, &end))
    return;

  if (end <= start)
    {
      gtk_widget_add_css_class (GTK_WIDGET (end_entry), "error");
      return;
    }

  tsl_timeline_view_set_range (self->timeline, is_a ? TSL_RANGE_A : TSL_RANGE_B, start, end);
}

void
_tsl_window_clear_ranges_action (GtkWidget  *widget,
                                 const char *action_name,
                                 GVariant   *param)
{
  tsl_timeline_view_clear_ranges (TSL_WINDOW (widget)->timeline);
}
