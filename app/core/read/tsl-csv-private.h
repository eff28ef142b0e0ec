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

#ifdef __SSE2__
#include <emmintrin.h>
#endif

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

#ifdef __SSE2__
/* Fields a row may have for tsl_csv_split_plain_row(); wider rows go the
 * memchr way. */
#define TSL_CSV_PLAIN_FIELDS 64

/* The common row, without quotes and followed by its newline: one pass over
 * 16-byte blocks finds the separators, the newline and any quote, where
 * memchr() per field and an append per field took a third of the time of a
 * metric file. Appends them to `out`. Inline, for the one-thread loop as
 * much as for the scanners. Returns the bytes the row spans, or 0 when
 * tsl_csv_split_row() must take it (a quote, the buffer's end, a very wide
 * row). */
static inline gsize
tsl_csv_split_plain_row (char        sep_char,
                         const char *p,
                         const char *end,
                         GArray     *out)
{
  const __m128i sep = _mm_set1_epi8 (sep_char);
  const __m128i newline = _mm_set1_epi8 ('\n');
  const __m128i quote = _mm_set1_epi8 ('"');
  TslCsvField fields[TSL_CSV_PLAIN_FIELDS];
  guint n = 0;
  const char *s = p;   /* the current field's start */

  for (const char *q = p; end - q >= 16; q += 16)
    {
      __m128i v = _mm_loadu_si128 ((const __m128i *) q);
      guint nl = _mm_movemask_epi8 (_mm_cmpeq_epi8 (v, newline));
      guint quotes = _mm_movemask_epi8 (_mm_cmpeq_epi8 (v, quote));
      guint seps = _mm_movemask_epi8 (_mm_cmpeq_epi8 (v, sep));
      guint before = nl != 0 ? (nl & -nl) - 1 : 0xffff;   /* the bytes before the newline */

      if ((quotes & before) != 0)
        return 0;
      for (seps &= before; seps != 0; seps &= seps - 1)
        {
          const char *c = q + __builtin_ctz (seps);

          if (n == TSL_CSV_PLAIN_FIELDS - 1)
            return 0;
          fields[n++] = (TslCsvField) { s, c - s };
          s = c + 1;
        }
      if (nl != 0)
        {
          const char *eol = q + __builtin_ctz (nl);
          const char *line_end = eol > s && eol[-1] == '\r' ? eol - 1 : eol;

          fields[n++] = (TslCsvField) { s, line_end - s };
          g_array_append_vals (out, fields, n);
          return eol + 1 - p;
        }
    }
  return 0;
}
#else
static inline gsize
tsl_csv_split_plain_row (char        sep_char,
                         const char *p,
                         const char *end,
                         GArray     *out)
{
  return 0;
}
#endif

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

/* Counts the separators of the record at p outside quotes (a quoted field
 * may span lines) and returns where the next record starts, or NULL when
 * the record does not end within [p, end). */
const char *tsl_csv_count_record     (const char     *p,
                                      const char     *end,
                                      char            sep,
                                      guint          *count);
/* Picks the separator from the first line that holds any: the most
 * frequent one, ties going to tab, then ';', then ','. Returns 0 if none,
 * and sets *need_more when that line does not end in [p, p + len) before
 * the end of the input (a quoted field may span lines), so that the guess
 * never depends on where a chunk ends. */
char        tsl_csv_guess_separator  (const char     *p,
                                      gsize           len,
                                      gboolean        at_eof,
                                      guint          *n_fields,
                                      gboolean       *need_more);

/* The pool's functions (results are TslCsvSegment, scratch a
 * TslCsvSplitter); its data is a TslCsvPlan. */
extern const TslScanFuncs tsl_csv_scan_funcs;

G_END_DECLS
