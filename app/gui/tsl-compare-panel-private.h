/* tsl-compare-panel-private.h: the compare panel's fields, for its parts
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

#include "tsl-compare-panel.h"
#include "tsl-compare-table.h"
#include "tsl-histogram.h"
#include "tsl-snapshot.h"

G_BEGIN_DECLS

struct _TslComparePanel
{
  GtkWidget           parent_instance;

  /* Template widgets */
  GtkWidget          *box;
  GtkWidget          *toolbar;
  GtkSearchEntry     *filter_entry;
  GtkSpinner         *spinner;
  GtkLabel           *progress_label;
  GtkDropDown        *stat_dropdown;
  GtkDropDown        *method_dropdown;
  GtkSpinButton      *confidence_spin;
  GtkSpinButton      *rounds_spin;
  GtkStack           *stack;
  GtkLabel           *summary_label;
  GtkColumnView      *column_view;
  TslHistogram       *histogram;
  AdwStatusPage      *error_page;
  TslSummaryView     *summary_view;

  /* Owned references */
  GListStore         *store;
  GtkFilterListModel *filtered;
  GtkSortListModel   *sorted;
  GtkSingleSelection *selection;
  GtkStringFilter    *filter;
  GFile              *file;
  TslTrace           *trace;
  GPtrArray          *part_files;  /* merged files (GFile), else NULL */
  TslSnapshot        *merged;      /* their positions on the axis */
  int                 range_part[2]; /* the file each range was selected in, -1: by time */
  GCancellable       *cancellable;
  TslCompareRequest  *request;     /* the last one started: the rows' once done */
  GtkColumnViewColumn *columns[N_COLUMNS];
  GStrv               track_names; /* as series start: "name" and "name [pid]" */
  gboolean            has_cpu;     /* the Statistic list holds the CPU statistics */
  gboolean            no_tracks;   /* a loaded file with no track: nothing to compare */

  guint               debounce;
  gint64              queued_at;  /* monotonic µs of the change being computed */
  GPtrArray          *pending;    /* rows after the first screen, added once it is drawn */
  gboolean            series_deferred; /* series-selected waits for those rows */
  GdkFrameClock      *fill_clock;
  gulong              fill_painted;
  guint               fill_timeout;
  guint               k;
  gboolean            has_a;
  gboolean            has_b;
  gint64              a[2];
  gint64              b[2];
};

const char *_tsl_compare_panel_empty_page (TslComparePanel *self);
void     _tsl_compare_panel_set_busy     (TslComparePanel   *self,
                                          gboolean           busy);
/* A compare after the debounce, of the ranges and sources as they are then. */
void     _tsl_compare_panel_queue        (TslComparePanel   *self);
/* The request's inputs and ranges (tsl-compare-panel-sources.c); FALSE when
 * a range lies in none of the merged files. */
gboolean _tsl_compare_panel_fill_sources (TslComparePanel   *self,
                                          TslCompareRequest *request,
                                          gboolean           with_b);

G_END_DECLS
