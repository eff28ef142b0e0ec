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

/* Merged files: the file a range lies in (where it was selected, else
 * the one it overlaps most), -1 for none. */
static int
range_part (TslWindow  *self,
            TslRangeId  range,
            gint64      start,
            gint64      end)
{
  TslSnapshot *snapshot = tsl_timeline_view_get_snapshot (self->timeline);
  gint64 group = tsl_timeline_view_get_range_group (self->timeline, range);
  guint part;

  if (self->parts == NULL || snapshot == NULL || tsl_snapshot_get_n_parts (snapshot) == 0)
    return -1;
  part = group > 0 && group <= tsl_snapshot_get_n_parts (snapshot)
         ? (guint) (group - 1) : tsl_snapshot_find_part (snapshot, start, end);
  return part == G_MAXUINT ? -1 : (int) part;
}

void
_tsl_window_update_ranges (TslWindow *self)
{
  gint64 a0 = 0, a1 = 0, b0 = 0, b1 = 0;
  gboolean has_a = tsl_timeline_view_get_range (self->timeline, TSL_RANGE_A, &a0, &a1);
  gboolean has_b = tsl_timeline_view_get_range (self->timeline, TSL_RANGE_B, &b0, &b1);
  int part_a = has_a ? range_part (self, TSL_RANGE_A, a0, a1) : -1;
  int part_b = has_b ? range_part (self, TSL_RANGE_B, b0, b1) : -1;
  const char *file_a = NULL, *file_b = NULL;
  g_autofree char *a = NULL;
  g_autofree char *b = NULL;
  g_autofree char *label = NULL;

  if (part_a >= 0)
    tsl_snapshot_get_part (tsl_timeline_view_get_snapshot (self->timeline), (guint) part_a, &file_a, NULL, NULL);
  if (part_b >= 0)
    tsl_snapshot_get_part (tsl_timeline_view_get_snapshot (self->timeline), (guint) part_b, &file_b, NULL, NULL);
  {
    /* Translators: a range's name and the merged file it lies in */
    g_autofree char *name_a = file_a ? g_strdup_printf (_("A of %s"), file_a) : g_strdup ("A");
    g_autofree char *name_b = file_b ? g_strdup_printf (_("B of %s"), file_b) : g_strdup ("B");

    a = has_a ? describe_range (name_a, a0, a1) : NULL;
    b = has_b ? describe_range (name_b, b0, b1) : NULL;
  }

  set_entry_time (self->a_start_entry, has_a, a0);
  set_entry_time (self->a_end_entry, has_a, a1);
  set_entry_time (self->b_start_entry, has_b, b0);
  set_entry_time (self->b_end_entry, has_b, b1);

  if (a && b)
    label = g_strdup_printf ("%s · %s", a, b);
  else if (a || b)
    label = g_strdup (a ? a : b);
  else if (self->no_tracks && self->file != NULL)
    {
      g_autofree char *name = g_file_get_basename (self->file);

      /* Translators: the file opened has nothing to draw, so nothing to select */
      label = g_strdup_printf (_("No tracks in %s"), name);
    }
  else
    label = g_strdup (_("No ranges: drag to select A"));

  gtk_menu_button_set_label (self->ranges_button, label);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.clear-ranges", has_a || has_b);

  tsl_compare_panel_set_range_parts (self->compare_panel, part_a, part_b);
  tsl_compare_panel_set_ranges (self->compare_panel, has_a, a0, a1, has_b, b0, b1);
  /* A released drag, a typed time or a shortcut is final: no pause. */
  if (!tsl_timeline_view_get_selecting (self->timeline))
    tsl_compare_panel_flush (self->compare_panel);
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

void
_tsl_window_restore_ranges_action (GtkWidget  *widget,
                                   const char *action_name,
                                   GVariant   *param)
{
  tsl_timeline_view_restore_ranges (TSL_WINDOW (widget)->timeline);
}
