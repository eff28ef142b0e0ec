/* tsl-compare-panel.c: the table of what changed between ranges A and B
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Recomputes on a short debounce whenever the ranges or the controls change:
 * the old computation is cancelled and its late result dropped, so the table
 * never shows numbers for ranges that are no longer selected (TE's
 * editor-document-statistics pattern, through GTask).
 */
#define G_LOG_DOMAIN "tsl-compare-panel"

#include "config.h"

#include <math.h>
#include <string.h>

#include <adwaita.h>
#include <glib/gi18n.h>

#include "tsl-column-view.h"
#include "tsl-compare-panel-private.h"
#include "tsl-compare-table.h"
#include "tsl-duration.h"
#include "tsl-histogram.h"
#include "tsl-range.h"
#include "tsl-range-summary.h"
#include "tsl-snapshot.h"

#define DEBOUNCE_MS 300
#define COMPARE_SEED G_GUINT64_CONSTANT (0x5EED)
/* The Statistic list's CPU entries, after "Default" and the TslStats. */
#define CPU_SHARE_POSITION (TSL_N_STATS + 1)
#define CPU_MEAN_POSITION  (TSL_N_STATS + 2)


enum {
  SERIES_SELECTED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (TslComparePanel, tsl_compare_panel, GTK_TYPE_WIDGET)

/* An untested row (too few, too dependent) is never significant. */
static gboolean
is_significant (const TslCompareRow *row)
{
  return _tsl_compare_row_is_significant (row);
}

static void
add_columns (TslComparePanel *self)
{
  _tsl_compare_table_add_columns (self->column_view, self->columns);
}

static void
update_summary (TslComparePanel *self)
{
  guint shown = g_list_model_get_n_items (G_LIST_MODEL (self->store));
  guint n = shown + (self->pending != NULL ? self->pending->len : 0);
  guint significant = 0, dependent = 0;
  g_autofree char *text = NULL;

  /* The rows still to be added count too (fill_rest()). */
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(TslCompareItem) item = i < shown ? g_list_model_get_item (G_LIST_MODEL (self->store), i)
                                                 : g_object_ref (g_ptr_array_index (self->pending, i - shown));
      const TslCompareRow *row = tsl_compare_item_get_row (item);

      significant += is_significant (row);
      dependent += row->test == TSL_COMPARE_TEST_TOO_DEPENDENT;
    }

  if (n == 0)
    text = g_strdup (_("No series has data in both ranges."));
  else if (significant == 0)
    text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                         "Nothing changed significantly: the %u series compared differs no more than noise would.",
                                         "Nothing changed significantly: the %u series compared differ no more than noise would.",
                                         n), n);
  else
    text = g_strdup_printf (_("%u of %u series changed significantly (false-discovery rate controlled across all rows)."),
                            significant, n);
  if (dependent > 0)
    {
      g_autofree char *more = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                                            "%u row was too dependent to test at this length: its series moves more slowly than the ranges are long.",
                                                            "%u rows were too dependent to test at this length: their series move more slowly than the ranges are long.",
                                                            dependent), dependent);
      char *both = g_strconcat (text, " ", more, NULL);

      g_free (text);
      text = both;
    }

  gtk_label_set_label (self->summary_label, text);
}

/* The page shown while there is no table: a file with no track has
 * nothing to compare whatever is selected. */
const char *
_tsl_compare_panel_empty_page (TslComparePanel *self)
{
  if (self->no_tracks)
    return "no-tracks";
  return self->has_a || self->has_b ? "one-range" : "no-ranges";
}

void
_tsl_compare_panel_set_busy (TslComparePanel *self,
                             gboolean         busy)
{
  gtk_spinner_set_spinning (self->spinner, busy);
  gtk_label_set_label (self->progress_label, busy ? _("Comparing…") : "");
}

/* The table's first screen is added at once and drawn; the rest of its
 * rows after that frame (GTK 4.8's column view binds its first 200 rows
 * inside the splice: 0.15–0.3 s for a full table), or after FILL_LATEST_MS
 * if no frame comes. */
#define FIRST_ROWS     40
#define FILL_LATEST_MS 250

static void
stop_watching_paint (TslComparePanel *self)
{
  /* A clock disposed with its window has dropped its handlers already. */
  if (self->fill_clock != NULL && self->fill_painted != 0 &&
      g_signal_handler_is_connected (self->fill_clock, self->fill_painted))
    g_signal_handler_disconnect (self->fill_clock, self->fill_painted);
  self->fill_painted = 0;
  g_clear_object (&self->fill_clock);
}

static void
cancel_fill (TslComparePanel *self)
{
  stop_watching_paint (self);
  g_clear_handle_id (&self->fill_timeout, g_source_remove);
  g_clear_pointer (&self->pending, g_ptr_array_unref);
}

static void on_selection_changed (TslComparePanel *self);

static void
fill_rest (TslComparePanel *self)
{
  g_autoptr(GPtrArray) rest = g_steal_pointer (&self->pending);

  g_clear_handle_id (&self->fill_timeout, g_source_remove);
  if (rest == NULL)
    return;
  g_list_store_splice (self->store, g_list_model_get_n_items (G_LIST_MODEL (self->store)), 0,
                       rest->pdata, rest->len);
  _tsl_compare_panel_set_busy (self, FALSE);
  update_summary (self);
  if (self->series_deferred)
    {
      self->series_deferred = FALSE;
      on_selection_changed (self);
    }
  g_debug ("compare: the other %u rows, %.1f ms from the last change", rest->len,
           (g_get_monotonic_time () - self->queued_at) / 1000.0);
}

static void
on_first_rows_painted (GdkFrameClock   *clock,
                       TslComparePanel *self)
{
  /* bench/window-compare.py reads this: the results are on screen (all of
   * them, when the frame came after FILL_LATEST_MS). */
  g_debug ("compare: the first rows drawn, %.1f ms from the last change",
           (g_get_monotonic_time () - self->queued_at) / 1000.0);
  stop_watching_paint (self);
  fill_rest (self);
}

/* No frame yet: the rest goes in now, and the paint is still logged. */
static gboolean
fill_timeout_cb (gpointer data)
{
  TslComparePanel *self = data;

  self->fill_timeout = 0;
  fill_rest (self);
  return G_SOURCE_REMOVE;
}

static int
compare_by_sorter (gconstpointer a,
                   gconstpointer b,
                   gpointer      sorter)
{
  return gtk_sorter_compare (sorter, *(gpointer *) a, *(gpointer *) b);
}

/* The longest track name the series starts with, then '/' or its end, as
 * the window's highlight finds it: names may hold '/'. */
static void
set_thread_length (TslComparePanel *self,
                   TslCompareItem  *item)
{
  const char *series = tsl_compare_item_get_series (item);
  gsize best = 0;

  for (guint i = 0; self->track_names != NULL && self->track_names[i] != NULL; i++)
    {
      gsize len = strlen (self->track_names[i]);

      if (len > best && strncmp (series, self->track_names[i], len) == 0 &&
          (series[len] == '/' || series[len] == '\0'))
        best = len;
    }
  if (best > 0)
    tsl_compare_item_set_thread_length (item, best);
}

static void
compare_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(TslComparePanel) self = user_data;
  g_autoptr(GPtrArray) rows = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) warnings = NULL;
  g_autoptr(GPtrArray) items = NULL;
  GCancellable *cancellable = g_task_get_cancellable (G_TASK (result));
  GtkAdjustment *vadjustment;
  gboolean detach;
  gint64 computed_at;

  rows = tsl_compare_run_finish (result, &warnings, &error);
  computed_at = g_get_monotonic_time ();

  /* A newer request replaced this one: its numbers are stale. */
  if (cancellable != self->cancellable)
    return;

  g_clear_object (&self->cancellable);
  cancel_fill (self);
  self->series_deferred = FALSE;
  _tsl_compare_panel_set_busy (self, FALSE);

  if (rows == NULL)
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        return;
      adw_status_page_set_description (self->error_page, error->message);
      gtk_stack_set_visible_child_name (self->stack, "error");
      return;
    }

  items = g_ptr_array_new_full (rows->len, g_object_unref);
  for (guint i = 0; i < rows->len; i++)
    {
      TslCompareItem *item = tsl_compare_item_new (g_ptr_array_index (rows, i), i);

      set_thread_length (self, item);
      if (self->request != NULL)
        tsl_compare_item_set_confidence (item, self->request->confidence);
      g_ptr_array_add (items, item);
      g_ptr_array_index (rows, i) = NULL;
    }
  /* A new table starts at its top row. GTK 4.8's list views keep their
   * scroll anchor and have no scroll_to, so a table scrolled down is
   * detached while refilled; one at its top is refilled in one change with
   * the view attached, which rebinds the row widgets it has (detaching makes
   * it build its ~200 rows of cells anew: 0.2–0.4 s of a compare). */
  vadjustment = gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (self->column_view));
  detach = vadjustment != NULL && gtk_adjustment_get_value (vadjustment) > gtk_adjustment_get_lower (vadjustment);
  if (detach)
    gtk_column_view_set_model (self->column_view, NULL);
  /* The rows in the table's order (a stable sort), so that those added
   * later sort after the first screen. */
  else if (items->len > FIRST_ROWS)
    {
      GtkSorter *sorter = gtk_sort_list_model_get_sorter (self->sorted);
      /* The panel's: the table may be on a page not shown yet. */
      GdkFrameClock *clock = gtk_widget_get_frame_clock (GTK_WIDGET (self));

      if (sorter != NULL)
        g_ptr_array_sort_with_data (items, compare_by_sorter, sorter);
      if (clock != NULL)
        {
          self->pending = g_ptr_array_new_full (items->len - FIRST_ROWS, g_object_unref);
          for (guint i = FIRST_ROWS; i < items->len; i++)
            g_ptr_array_add (self->pending, g_object_ref (g_ptr_array_index (items, i)));
          g_ptr_array_set_size (items, FIRST_ROWS);
          self->fill_clock = g_object_ref (clock);
          self->fill_painted = g_signal_connect (clock, "after-paint", G_CALLBACK (on_first_rows_painted), self);
          self->fill_timeout = g_timeout_add (FILL_LATEST_MS, fill_timeout_cb, self);
          _tsl_compare_panel_set_busy (self, TRUE);
        }
    }
  g_list_store_splice (self->store, 0, g_list_model_get_n_items (G_LIST_MODEL (self->store)),
                       items->pdata, items->len);
  if (detach)
    gtk_column_view_set_model (self->column_view, GTK_SELECTION_MODEL (self->selection));
  update_summary (self);
  gtk_stack_set_visible_child_name (self->stack, "results");
  gtk_single_selection_set_selected (self->selection, 0);
  /* bench/window-compare.py reads this (G_MESSAGES_DEBUG=tsl-compare-panel). */
  g_debug ("compare: %u rows, %.1f ms from the last change to the table (computed in %.1f ms)",
           rows->len, (g_get_monotonic_time () - self->queued_at) / 1000.0,
           (computed_at - self->queued_at) / 1000.0);
}

static void
summary_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(TslComparePanel) self = user_data;
  g_autoptr(GPtrArray) rows = NULL;
  g_autoptr(GError) error = NULL;
  GCancellable *cancellable = g_task_get_cancellable (G_TASK (result));

  rows = tsl_range_summary_run_finish (result, &error);
  if (cancellable != self->cancellable)
    return;

  g_clear_object (&self->cancellable);
  _tsl_compare_panel_set_busy (self, FALSE);
  if (rows == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        gtk_stack_set_visible_child_name (self->stack, "one-range");
      return;
    }

  tsl_summary_view_set_rows (self->summary_view, rows, self->a[1] - self->a[0]);
  gtk_stack_set_visible_child_name (self->stack, "summary");
}

/* Range A alone: its exact summary, when there is a file to re-read. */
static void
start_summary (TslComparePanel *self)
{
  g_autoptr(TslCompareRequest) request = tsl_compare_request_new ();

  if (!_tsl_compare_panel_fill_sources (self, request, FALSE))
    {
      _tsl_compare_panel_set_busy (self, FALSE);
      gtk_stack_set_visible_child_name (self->stack, "one-range");
      return;
    }
  request->seed = COMPARE_SEED;

  self->cancellable = g_cancellable_new ();
  _tsl_compare_panel_set_busy (self, TRUE);
  tsl_range_summary_run_async (request, self->cancellable, summary_cb, g_object_ref (self));
}

static void
start_compare (TslComparePanel *self)
{
  g_autoptr(TslCompareRequest) request = tsl_compare_request_new ();
  guint stat = gtk_drop_down_get_selected (self->stat_dropdown);

  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  cancel_fill (self);

  if (self->no_tracks)
    {
      _tsl_compare_panel_set_busy (self, FALSE);
      gtk_stack_set_visible_child_name (self->stack, _tsl_compare_panel_empty_page (self));
      return;
    }

  if (self->has_a && !self->has_b && self->file != NULL)
    {
      start_summary (self);
      return;
    }

  if (!self->has_a || !self->has_b || (self->file == NULL && self->trace == NULL))
    {
      _tsl_compare_panel_set_busy (self, FALSE);
      gtk_stack_set_visible_child_name (self->stack, _tsl_compare_panel_empty_page (self));
      return;
    }

  if (!_tsl_compare_panel_fill_sources (self, request, TRUE))
    {
      _tsl_compare_panel_set_busy (self, FALSE);
      gtk_stack_set_visible_child_name (self->stack, "one-range");
      return;
    }
  /* Position 0 is "Default"; the others are the TslStat values in order
   * (their labels are translated, so they are not parsed), then, where the
   * trace has thread time, CPU share and mean CPU time. */
  request->has_stat = stat > 0 && stat != GTK_INVALID_LIST_POSITION && stat <= CPU_MEAN_POSITION;
  if (request->has_stat && stat <= TSL_N_STATS)
    request->stat = (TslStat) (stat - 1);
  else if (request->has_stat)
    {
      request->cpu_stat = TRUE;
      request->stat = stat == CPU_SHARE_POSITION ? TSL_STAT_SHARE : TSL_STAT_MEAN;
    }
  request->method = gtk_drop_down_get_selected (self->method_dropdown) == 1 ? TSL_COMPARE_SEED : TSL_COMPARE_TWO_SAMPLE;
  request->rounds = (guint) gtk_spin_button_get_value (self->rounds_spin);
  request->confidence = gtk_spin_button_get_value (self->confidence_spin);
  request->seed = COMPARE_SEED;
  request->k = self->k;
  request->keep_effects = TRUE;

  g_clear_pointer (&self->request, tsl_compare_request_free);
  self->request = tsl_compare_request_copy (request);
  self->cancellable = g_cancellable_new ();
  _tsl_compare_panel_set_busy (self, TRUE);
  tsl_compare_run_async (request, self->cancellable, compare_cb, g_object_ref (self));
}

void
tsl_compare_panel_flush (TslComparePanel *self)
{
  g_return_if_fail (TSL_IS_COMPARE_PANEL (self));

  if (self->debounce == 0)
    return;
  g_clear_handle_id (&self->debounce, g_source_remove);
  start_compare (self);
}

static gboolean
debounce_cb (gpointer data)
{
  TslComparePanel *self = data;

  self->debounce = 0;
  start_compare (self);
  return G_SOURCE_REMOVE;
}

void
_tsl_compare_panel_queue (TslComparePanel *self)
{
  self->queued_at = g_get_monotonic_time ();
  g_clear_handle_id (&self->debounce, g_source_remove);
  self->debounce = g_timeout_add (DEBOUNCE_MS, debounce_cb, self);
}

static void
on_control_changed (TslComparePanel *self)
{
  _tsl_compare_panel_queue (self);
}

static void
on_filter_changed (TslComparePanel *self,
                   GtkSearchEntry  *entry)
{
  gtk_string_filter_set_search (self->filter, gtk_editable_get_text (GTK_EDITABLE (entry)));
}

static void
on_selection_changed (TslComparePanel *self)
{
  TslCompareItem *item = tsl_compare_panel_get_selected (self);

  /* The store empties while the panel is disposed. */
  if (self->histogram == NULL)
    return;

  tsl_histogram_set_item (self->histogram, item);
  /* The first row of a new table is selected while its first screen waits
   * to be drawn: the window's highlight of it repaints the timeline's
   * tracks (0.1–0.17 s on 1 GB), so it follows once the rows are shown. */
  if (self->pending != NULL)
    {
      self->series_deferred = TRUE;
      return;
    }
  g_signal_emit (self, signals[SERIES_SELECTED], 0, item ? tsl_compare_item_get_series (item) : NULL);
}

static void
tsl_compare_panel_dispose (GObject *object)
{
  TslComparePanel *self = TSL_COMPARE_PANEL (object);

  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_handle_id (&self->debounce, g_source_remove);
  cancel_fill (self);
  if (self->selection != NULL)
    g_signal_handlers_disconnect_by_data (self->selection, self);

  g_clear_pointer (&self->request, tsl_compare_request_free);
  gtk_widget_dispose_template (GTK_WIDGET (self), TSL_TYPE_COMPARE_PANEL);

  g_clear_object (&self->cancellable);
  g_clear_object (&self->selection);
  g_clear_object (&self->sorted);
  g_clear_object (&self->filtered);
  g_clear_object (&self->filter);
  g_clear_object (&self->store);
  g_clear_object (&self->file);
  g_clear_object (&self->trace);
  g_clear_pointer (&self->part_files, g_ptr_array_unref);
  g_clear_pointer (&self->merged, tsl_snapshot_unref);
  g_clear_pointer (&self->track_names, g_strfreev);

  G_OBJECT_CLASS (tsl_compare_panel_parent_class)->dispose (object);
}

static void
tsl_compare_panel_class_init (TslComparePanelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = tsl_compare_panel_dispose;

  /**
   * TslComparePanel::series-selected:
   * @series: (nullable): the selected row's series, e.g. "worker-1/parse"
   */
  signals[SERIES_SELECTED] = g_signal_new ("series-selected", G_TYPE_FROM_CLASS (klass),
                                           G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                           G_TYPE_NONE, 1, G_TYPE_STRING);

  gtk_widget_class_set_template_from_resource (widget_class, "/org/timeslice/Timeslice/tsl-compare-panel.ui");
  gtk_widget_class_bind_template_child (widget_class, TslComparePanel, box);
  gtk_widget_class_bind_template_child (widget_class, TslComparePanel, filter_entry);
  gtk_widget_class_bind_template_child (widget_class, TslComparePanel, spinner);
  gtk_widget_class_bind_template_child (widget_class, TslComparePanel, progress_label);
  gtk_widget_class_bind_template_child (widget_class, TslComparePanel, stat_dropdown);
  gtk_widget_class_bind_template_child (widget_class, TslComparePanel, method_dropdown);
  gtk_widget_class_bind_template_child (widget_class, TslComparePanel, confidence_spin);
  gtk_widget_class_bind_template_child (widget_class, TslComparePanel, rounds_spin);
  gtk_widget_class_bind_template_child (widget_class, TslComparePanel, stack);
  gtk_widget_class_bind_template_child (widget_class, TslComparePanel, toolbar);
  gtk_widget_class_bind_template_child (widget_class, TslComparePanel, summary_label);
  gtk_widget_class_bind_template_child (widget_class, TslComparePanel, column_view);
  gtk_widget_class_bind_template_child (widget_class, TslComparePanel, histogram);
  gtk_widget_class_bind_template_child (widget_class, TslComparePanel, error_page);
  gtk_widget_class_bind_template_child (widget_class, TslComparePanel, summary_view);
  gtk_widget_class_bind_template_callback (widget_class, on_control_changed);
  gtk_widget_class_bind_template_callback (widget_class, on_filter_changed);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "comparepanel");
}

static void
tsl_compare_panel_init (TslComparePanel *self)
{
  GtkExpression *series;

  g_type_ensure (TSL_TYPE_HISTOGRAM);
  g_type_ensure (TSL_TYPE_SUMMARY_VIEW);
  gtk_widget_init_template (GTK_WIDGET (self));

  self->k = 2000;
  self->range_part[0] = self->range_part[1] = -1;
  self->store = g_list_store_new (TSL_TYPE_COMPARE_ITEM);
  series = gtk_property_expression_new (TSL_TYPE_COMPARE_ITEM, NULL, "series");
  self->filter = gtk_string_filter_new (series);
  gtk_string_filter_set_match_mode (self->filter, GTK_STRING_FILTER_MATCH_MODE_SUBSTRING);
  gtk_string_filter_set_ignore_case (self->filter, TRUE);
  self->filtered = gtk_filter_list_model_new (g_object_ref (G_LIST_MODEL (self->store)),
                                              g_object_ref (GTK_FILTER (self->filter)));

  add_columns (self);

  self->sorted = gtk_sort_list_model_new (g_object_ref (G_LIST_MODEL (self->filtered)),
                                          g_object_ref (gtk_column_view_get_sorter (self->column_view)));
  self->selection = gtk_single_selection_new (G_LIST_MODEL (g_object_ref (self->sorted)));
  gtk_single_selection_set_autoselect (self->selection, TRUE);
  gtk_column_view_set_model (self->column_view, GTK_SELECTION_MODEL (self->selection));
  /* The core's order by impact: what costs the most time first. */
  gtk_column_view_sort_by_column (self->column_view, self->columns[COL_IMPACT], GTK_SORT_DESCENDING);

  g_signal_connect_object (self->selection, "notify::selected-item",
                           G_CALLBACK (on_selection_changed), self, G_CONNECT_SWAPPED);
}

GtkWidget *
tsl_compare_panel_new (void)
{
  return g_object_new (TSL_TYPE_COMPARE_PANEL, NULL);
}

/* The CPU statistics are offered where the trace has thread time. */
static void
set_has_cpu (TslComparePanel *self,
             gboolean         has_cpu)
{
  GtkStringList *list = GTK_STRING_LIST (gtk_drop_down_get_model (self->stat_dropdown));

  if (has_cpu == self->has_cpu)
    return;
  self->has_cpu = has_cpu;
  if (has_cpu)
    {
      /* Translators: compare statistics, the thread (CPU) time's share of
       * the range and per call */
      const char * const items[] = { _("CPU share"), _("Mean CPU time"), NULL };

      gtk_string_list_splice (list, CPU_SHARE_POSITION, 0, items);
      return;
    }
  if (gtk_drop_down_get_selected (self->stat_dropdown) >= CPU_SHARE_POSITION)
    gtk_drop_down_set_selected (self->stat_dropdown, 0);
  gtk_string_list_splice (list, CPU_SHARE_POSITION, 2, NULL);
}

void
tsl_compare_panel_set_tracks (TslComparePanel *self,
                              TslSnapshot     *snapshot)
{
  g_autoptr(GStrvBuilder) names = g_strv_builder_new ();

  g_return_if_fail (TSL_IS_COMPARE_PANEL (self));

  for (guint i = 0; snapshot != NULL && i < tsl_snapshot_get_n_tracks (snapshot); i++)
    {
      const TslSnapshotTrack *track = tsl_snapshot_get_track (snapshot, i);
      g_autofree char *with_pid = g_strdup_printf ("%s [%" G_GINT64_FORMAT "]", track->name, track->pid);

      g_strv_builder_add (names, track->name);
      g_strv_builder_add (names, with_pid);
    }
  g_clear_pointer (&self->track_names, g_strfreev);
  self->track_names = g_strv_builder_end (names);
  set_has_cpu (self, snapshot != NULL && tsl_snapshot_get_has_cpu (snapshot));
}

static gboolean
get_uint_as_double (GValue   *value,
                    GVariant *variant,
                    gpointer  data)
{
  g_value_set_double (value, g_variant_get_uint32 (variant));
  return TRUE;
}

static GVariant *
set_double_as_uint (const GValue       *value,
                    const GVariantType *type,
                    gpointer            data)
{
  return g_variant_new_uint32 ((guint32) g_value_get_double (value));
}

void
tsl_compare_panel_bind_settings (TslComparePanel *self,
                                 GSettings       *settings)
{
  g_return_if_fail (TSL_IS_COMPARE_PANEL (self));
  g_return_if_fail (G_IS_SETTINGS (settings));

  g_settings_bind (settings, "confidence",
                   gtk_spin_button_get_adjustment (self->confidence_spin), "value",
                   G_SETTINGS_BIND_DEFAULT);
  g_settings_bind_with_mapping (settings, "bootstrap-rounds",
                                gtk_spin_button_get_adjustment (self->rounds_spin), "value",
                                G_SETTINGS_BIND_DEFAULT,
                                get_uint_as_double, set_double_as_uint, NULL, NULL);
}

void
tsl_compare_panel_set_k (TslComparePanel *self,
                         guint            k)
{
  g_return_if_fail (TSL_IS_COMPARE_PANEL (self));

  self->k = MAX (k, 1);
}

/* A loaded file with no track (an empty Chrome trace, a CSV header alone):
 * the panel says there is nothing to compare and its controls rest. */
void
tsl_compare_panel_set_no_tracks (TslComparePanel *self,
                                 gboolean         no_tracks)
{
  g_return_if_fail (TSL_IS_COMPARE_PANEL (self));

  no_tracks = !!no_tracks;
  if (self->no_tracks == no_tracks)
    return;
  self->no_tracks = no_tracks;
  gtk_widget_set_sensitive (self->toolbar, !no_tracks);
  if (no_tracks)
    {
      if (self->cancellable != NULL)
        g_cancellable_cancel (self->cancellable);
      g_clear_object (&self->cancellable);
      g_clear_handle_id (&self->debounce, g_source_remove);
      cancel_fill (self);
      _tsl_compare_panel_set_busy (self, FALSE);
      gtk_stack_set_visible_child_name (self->stack, _tsl_compare_panel_empty_page (self));
    }
  else
    _tsl_compare_panel_queue (self);
}

/* The name of the page shown: "no-ranges", "one-range", "no-tracks",
 * "summary", "results" or "error". */
const char *
tsl_compare_panel_get_page (TslComparePanel *self)
{
  g_return_val_if_fail (TSL_IS_COMPARE_PANEL (self), NULL);

  return gtk_stack_get_visible_child_name (self->stack);
}

gboolean
tsl_compare_panel_is_busy (TslComparePanel *self)
{
  g_return_val_if_fail (TSL_IS_COMPARE_PANEL (self), FALSE);

  return self->cancellable != NULL || self->debounce != 0 || self->pending != NULL;
}

/**
 * tsl_compare_panel_get_model:
 *
 * Returns: (transfer none): the rows as shown, filtered and sorted
 */
GListModel *
tsl_compare_panel_get_model (TslComparePanel *self)
{
  g_return_val_if_fail (TSL_IS_COMPARE_PANEL (self), NULL);

  return G_LIST_MODEL (self->selection);
}

/**
 * tsl_compare_panel_get_column_view:
 *
 * Returns: (transfer none): the table
 */
GtkColumnView *
tsl_compare_panel_get_column_view (TslComparePanel *self)
{
  g_return_val_if_fail (TSL_IS_COMPARE_PANEL (self), NULL);

  return self->column_view;
}

void
tsl_compare_panel_set_filter (TslComparePanel *self,
                              const char      *text)
{
  g_return_if_fail (TSL_IS_COMPARE_PANEL (self));

  gtk_editable_set_text (GTK_EDITABLE (self->filter_entry), text ? text : "");
  gtk_string_filter_set_search (self->filter, text);
}

TslCompareItem *
tsl_compare_panel_get_selected (TslComparePanel *self)
{
  g_return_val_if_fail (TSL_IS_COMPARE_PANEL (self), NULL);

  return gtk_single_selection_get_selected_item (self->selection);
}

const TslCompareRequest *
tsl_compare_panel_get_request (TslComparePanel *self)
{
  g_return_val_if_fail (TSL_IS_COMPARE_PANEL (self), NULL);

  return self->request;
}

/* (transfer none): the table shown while only range A is selected. */
TslSummaryView *
tsl_compare_panel_get_summary_view (TslComparePanel *self)
{
  g_return_val_if_fail (TSL_IS_COMPARE_PANEL (self), NULL);
  return self->summary_view;
}
