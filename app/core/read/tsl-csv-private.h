/* tsl-csv-private.h: the CSV reader's rows, split on any thread
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Splitting a row into fields and parsing its numbers and its time depend
 * on nothing but the row's bytes and the separator, so a regular file's
 * buffer is cut at guessed row starts and its segments are split on every
 * core (tsl-csv-scan.c, on read/tsl-scan-pool.c) into arrays of rows; the
 * reader (tsl-csv-reader.c) models them in order, and splits anything the
 * scan left (a '#' line, a wrong guess) itself.
 */
#pragma once

#include <glib.h>

#include "tsl-scan-pool.h"

G_BEGIN_DECLS

typedef struct {
  const char *p;
  gsize       len;
} TslCsvField;

typedef enum {
  TSL_CSV_UNPARSED,   /* not a column the scan was asked to parse */
  TSL_CSV_NUMBER,
  TSL_CSV_NOT_NUMBER,
} TslCsvCellState;

/* A field's number, parsed by a scanner thread. */
typedef struct {
  double v;
  guint  state;   /* TslCsvCellState */
} TslCsvCell;

/* One thread's scratch for rows with quotes. */
typedef struct {
  GString *unquoted;
  GArray  *offsets;   /* gsize pairs */
} TslCsvSplitter;

void     tsl_csv_splitter_init  (TslCsvSplitter *self);
void     tsl_csv_splitter_clear (TslCsvSplitter *self);

/* Appends the fields of the row at p to `fields` (TslCsvField; those of a
 * row with quotes point into the splitter's scratch, until its next row).
 * Returns the bytes the row spans (with its newline), or 0 when it is not
 * complete yet. *unterminated: a quoted field runs to the end of the input. */
gsize    tsl_csv_split_row      (TslCsvSplitter *self,
                                 char            sep,
                                 const char     *p,
                                 const char     *end,
                                 gboolean        at_eof,
                                 GArray         *fields,
                                 gboolean       *unterminated,
                                 gboolean       *quoted);

/* A time cell: ISO 8601, else seconds, else any double (in nanoseconds). */
gboolean tsl_csv_parse_time     (const char     *p,
                                 gsize           len,
                                 gint64         *ns);

/* What the scanner threads are to do with one parse call's buffer; the
 * reader writes it before tsl_scan_pool_start() and not until
 * tsl_scan_pool_finish(). */
typedef struct {
  char        sep;
  gboolean    at_eof;
  const char *end;         /* the buffer's: a row may run past its segment */
  int         time_col;    /* parse this column's time, or -1 */
  GArray     *value_cols;  /* guint8 per column: parse its numbers */
} TslCsvPlan;

typedef struct {
  const char *start;
  gsize       len;          /* with its newline */
  guint       first;        /* its fields and cells */
  guint       n_fields;
  int         time_col;     /* the column whose time was parsed, or -1 */
  gboolean    time_ok;
  gboolean    unterminated;
  gboolean    quoted;       /* its fields are in the segment's text */
  gint64      time_ns;
} TslCsvRow;

/* A segment's rows: from its start, every data row that starts before its
 * end; blank lines are passed over; the scan stops before any other line
 * a row cannot start with ('#', a '\r' not before '\n') and before a row
 * the buffer's end cuts. */
typedef struct {
  GArray     *rows;      /* TslCsvRow */
  GArray     *fields;    /* TslCsvField */
  GArray     *cells;     /* TslCsvCell, one per field */
  GString    *text;      /* unquoted fields */
  const char *stop;      /* where the scan stopped */
} TslCsvSegment;

/* The pool's functions (results are TslCsvSegment, scratch a
 * TslCsvSplitter); its data is a TslCsvPlan. */
extern const TslScanFuncs tsl_csv_scan_funcs;

G_END_DECLS
