/* tsl-report-private.h: the report's content, shared by its PDF and HTML writers
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "tsl-render-flame.h"
#include "tsl-report.h"

G_BEGIN_DECLS

/* Columns of the table: the compare CSV's numbers as a person reads them,
 * with units and 3–4 significant digits (the CSV keeps full precision). */
enum {
  TSL_REPORT_COL_SERIES,
  TSL_REPORT_COL_STAT,
  TSL_REPORT_COL_A,
  TSL_REPORT_COL_B,
  TSL_REPORT_COL_CHANGE,
  TSL_REPORT_COL_CI,
  TSL_REPORT_COL_Q,
  TSL_REPORT_COL_CALLS,
  TSL_REPORT_N_COLS,
};

typedef struct {
  char *label;
  char *value;
} TslReportFact;

typedef struct {
  const TslCompareRow *row;
  char                *cells[TSL_REPORT_N_COLS];
  char                *sentence;   /* significant rows: in plain language */
  char                *n_a;        /* calls or points a side */
  char                *n_b;
} TslReportLine;

typedef struct {
  char       *title;
  GPtrArray  *facts;      /* (element-type TslReportFact) */
  const char *headings[TSL_REPORT_N_COLS];
  GPtrArray  *lines;      /* (element-type TslReportLine): significant first, each
                           * part in the order given (the core's impact order) */
  guint       n_significant_shown;
  guint       n_first;    /* the first lines to name on page one: the largest
                           * significant changes */
  char       *summary;    /* one line for the whole table */
  char       *ranges_note; /* (nullable) how A and B were chosen, or what the
                            * search inside them found */
  GPtrArray  *changes;    /* (element-type utf8): the change points inside A and B */
} TslReportContent;

/* The flame graph's painter options at `width`, its height natural but for
 * a cap; FALSE when the report has no flame graph (a trace without stacks). */
gboolean          _tsl_report_flame_options     (const TslReport        *report,
                                                 double                  width,
                                                 TslFlameRenderOptions  *options);

/* (transfer full): a value in its row's unit, 3–4 significant digits. */
char             *_tsl_report_format_value      (const TslCompareRow *row,
                                                 double               value);
/* (transfer full): a relative change as "+12.3 %". */
char             *_tsl_report_format_change     (double               change);

typedef enum {
  TSL_REPORT_PLOT_DISTRIBUTION,   /* resampled effects or the t reference */
  TSL_REPORT_PLOT_INTERVAL,       /* the interval only */
  TSL_REPORT_PLOT_NONE,           /* no interval: a sentence says why */
} TslReportPlot;

TslReportPlot     _tsl_report_plot_kind         (const TslCompareRow *row);
/* (transfer full): what a row without an interval shows instead. */
char             *_tsl_report_plot_sentence     (const TslCompareRow *row);
/* The row's distribution or interval in width × height (not for PLOT_NONE). */
void              _tsl_report_paint_plot        (cairo_t             *cr,
                                                 const TslCompareRow *row,
                                                 double               width,
                                                 double               height);

TslReportContent *_tsl_report_content_new       (const TslReport  *report);
void              _tsl_report_content_free      (TslReportContent *content);

/* (transfer full): the PDF and HTML documents. */
gboolean          _tsl_report_write_pdf         (const TslReport        *report,
                                                 const TslReportContent *content,
                                                 GFile                  *file,
                                                 GCancellable           *cancellable,
                                                 GError                **error);
gboolean          _tsl_report_write_html        (const TslReport        *report,
                                                 const TslReportContent *content,
                                                 GFile                  *file,
                                                 GCancellable           *cancellable,
                                                 GError                **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TslReportContent, _tsl_report_content_free)

G_END_DECLS
