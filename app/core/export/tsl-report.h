/* tsl-report.h: one document to send — header, timeline, what changed, how
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A report states only what one compare run computed: its rows are the
 * run's TslCompareRow, and every number in the table is written as the
 * compare CSV writes it (tsl_csv_format_double), so the two match exactly.
 */
#pragma once

#include <gio/gio.h>

#include "tsl-changes.h"
#include "tsl-compare.h"
#include "tsl-flame.h"
#include "tsl-render.h"

G_BEGIN_DECLS

typedef enum {
  TSL_REPORT_PDF,    /* multi-page cairo PDF, text as text */
  TSL_REPORT_HTML,   /* one file, inline SVG, no scripts, no external resources */
} TslReportFormat;

#define TSL_REPORT_DEFAULT_TOP 20

typedef struct {
  const char              *path;        /* the input as the user named it */
  guint64                  size;        /* bytes */
  const char              *sha256;      /* hex digest of the input */
  TslTrace                *trace;       /* format, events, tracks, span */
  TslSnapshot             *snapshot;    /* the timeline as shown … */
  const TslRenderOptions  *timeline;    /* … with its view and ranges A and B */
  const TslCompareRequest *request;     /* K, seed, rounds, confidence, method */
  const TslCompareRow * const *rows;    /* the run's table */
  guint                    n_rows;
  const char * const      *warnings;    /* (nullable) of the read and the compare */
  guint                    top;         /* rows in the table; 0 is the default */
  TslFlame                *flame;       /* (nullable) differential flame graph A → B */
  GDateTime               *date;        /* (nullable) now */
  /* Where A and B came from, said on page one: */
  gboolean                 ranges_found; /* not given: chosen around `chosen` … */
  const TslChangeRow      *chosen;       /* … (nullable: no change point, the halves) */
  gboolean                 searched;     /* given: the change points inside them were searched … */
  const TslChangeRow * const *changes;   /* … and these significant ones found */
  guint                    n_changes;
} TslReport;

/* .pdf or .html (any case); FALSE with an error naming them otherwise. */
gboolean          tsl_report_format_from_name   (const char       *name,
                                                 TslReportFormat  *format,
                                                 GError          **error);
/* (transfer full): the SHA-256 of `file` in hex, its size in `size`. */
char             *tsl_report_digest_file        (GFile            *file,
                                                 guint64          *size,
                                                 GCancellable     *cancellable,
                                                 GError          **error);
/* The page in points: Letter where LC_PAPER says so, else A4. */
void              tsl_report_paper_size         (double           *width,
                                                 double           *height);
/* Writes the report atomically, like every export. */
gboolean          tsl_report_write              (const TslReport  *report,
                                                 TslReportFormat   format,
                                                 GFile            *file,
                                                 GCancellable     *cancellable,
                                                 GError          **error);

G_END_DECLS
