/* tsl-csv-reader.c: CSV/TSV metric files
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A header row names the columns; the separator is ',', ';' or a tab, taken
 * from the header. The time column is named time/timestamp/ts/date, else it is
 * the first; times are seconds or ISO 8601 (UTC unless a zone is given).
 *
 * Wide form: every other numeric column is a TSL_TRACK_METRIC series. Long
 * form: a column named series/metric/name holds the series name. sysstat's
 * `sadf -d` is read too: its headers are '#' lines that repeat per section, an
 * all-caps column (CPU, IFACE, DEV) keys the rows, so series are named like
 * "%usr{CPU=0}", and a header column ending in "[...]" means rows may be longer.
 *
 * Rows are split by tsl-csv-scan.c. A regular file's big buffers are cut at
 * guessed row starts and split on every core, numbers and times parsed
 * too; this thread models the rows in order, using a segment only if it
 * starts where the rows before it ended (see csv_drive_funcs).
 */
#define G_LOG_DOMAIN "tsl-csv-reader"

#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "tsl-csv-private.h"
#include "tsl-format-private.h"
#include "tsl-scan-pool.h"
#include "tsl-text-private.h"

/* A regular file's buffers are split on every core in segments of about
 * TSL_SCAN_SEGMENT_BYTES, cut after a newline by the shared TslScanCutter
 * (TSL_READER_SPLIT_SEED=S, tests: at random places instead, most of them
 * no row start). */

typedef enum {
  COL_TEXT,   /* ignored */
  COL_TIME,
  COL_VALUE,
  COL_KEY,    /* names the series of the row's values */
  COL_SERIES, /* long form: the series name itself */
} ColumnKind;

typedef enum {
  TIME_UNKNOWN,
  TIME_ISO,
  TIME_SECONDS,
  TIME_ORDINAL,
} TimeMode;

typedef TslCsvField Field;

typedef struct {
  guint64  count;
  char    *first;   /* "FILE:LINE:COLUMN" of the first occurrence */
} Tally;

typedef struct {
  TslTrace         *trace;
  TslReaderContext *ctx;

  char              sep;
  gboolean          hash_header;     /* headers are '#' lines (sysstat) */
  gboolean          variable_rows;   /* a header column ends in "[...]" */
  gboolean          kinds_known;
  gboolean          keyed;
  guint             n_value_cols;
  GPtrArray        *names;           /* column names */
  GArray           *kinds;           /* ColumnKind per column */
  GArray           *col_tracks;      /* guint per column, unkeyed form */
  int               time_col;
  int               value_col;       /* long form: the one value column, or -1 */
  TimeMode          time_mode;

  GHashTable       *tracks;          /* series name → track + 1 */
  GString          *name_buf;
  GArray           *fields;          /* Field of the current row */
  TslCsvSplitter    splitter;

  /* Splitting on every core (a regular file). */
  TslScanDriver    *driver;          /* NULL: one thread */
  TslCsvPlan        plan;

  guint64           n_rows;
  Tally             ragged;
  Tally             bad_time;
  Tally             bad_value;
  Tally             restarts;
  Tally             unterminated;
} CsvState;

static gboolean
name_is (const char *name,
         const char *const *choices)
{
  for (guint i = 0; choices[i] != NULL; i++)
    if (g_ascii_strcasecmp (name, choices[i]) == 0)
      return TRUE;
  return FALSE;
}

/* sysstat's per-device key columns: CPU, IFACE, DEV, INTR, FILESYSTEM, … */
static gboolean
is_key_name (const char *name)
{
  guint letters = 0;

  for (const char *p = name; *p; p++)
    {
      if (g_ascii_isupper (*p))
        letters++;
      else if (!g_ascii_isdigit (*p) && *p != '_')
        return FALSE;
    }
  return letters >= 2;
}

static void
tally (CsvState *self,
       Tally    *t,
       gsize     offset)
{
  if (t->count++ == 0)
    t->first = tsl_reader_context_position (self->ctx, offset);
}

static void
tally_report (CsvState   *self,
              Tally      *t,
              const char *what)
{
  if (t->count == 0)
    return;
  /* Translators: position, count, what the tally counts */
  tsl_trace_add_warning (self->trace, _("%s: %llu %s (the first here)"),
                         t->first, (unsigned long long) t->count, _(what));
}

static const TslScanDriveFuncs csv_drive_funcs;

static gpointer
csv_create (TslTrace         *trace,
            TslReaderContext *ctx)
{
  CsvState *self = g_new0 (CsvState, 1);

  self->trace = trace;
  self->ctx = ctx;
  self->names = g_ptr_array_new_with_free_func (g_free);
  self->kinds = g_array_new (FALSE, TRUE, sizeof (ColumnKind));
  self->col_tracks = g_array_new (FALSE, TRUE, sizeof (guint));
  self->tracks = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->name_buf = g_string_sized_new (64);
  self->fields = g_array_new (FALSE, FALSE, sizeof (Field));
  tsl_csv_splitter_init (&self->splitter);
  /* As the Chrome reader: TSL_READER_THREADS=pipe is one thread here. */
  self->driver = tsl_scan_driver_new (ctx, tsl_scan_find_line_start, NULL, &tsl_csv_scan_funcs,
                                      &self->plan, &csv_drive_funcs, self, &self->splitter);
  return self;
}

static void
csv_destroy (gpointer data)
{
  CsvState *self = data;

  g_ptr_array_unref (self->names);
  g_array_unref (self->kinds);
  g_array_unref (self->col_tracks);
  g_hash_table_unref (self->tracks);
  g_string_free (self->name_buf, TRUE);
  g_array_unref (self->fields);
  tsl_csv_splitter_clear (&self->splitter);
  /* Logs in the reader's log domain, as the Chrome reader (test-parallel.py). */
  tsl_scan_driver_free (self->driver);
  g_clear_pointer (&self->plan.value_cols, g_array_unref);
  g_free (self->ragged.first);
  g_free (self->bad_time.first);
  g_free (self->bad_value.first);
  g_free (self->restarts.first);
  g_free (self->unterminated.first);
  g_free (self);
}

/* The row at p into self->fields (see tsl_csv_split_row()); a quoted field
 * the input's end cuts is counted at the row's offset. */
static gsize
split_row (CsvState   *self,
           const char *p,
           const char *end,
           gboolean    at_eof,
           gsize       base_offset)
{
  gboolean unterminated, quoted;
  gsize used;

  g_array_set_size (self->fields, 0);
  /* The common row inline; the rest again from the start. */
  used = tsl_csv_split_plain_row (self->sep, p, end, self->fields);
  if (G_LIKELY (used != 0))
    return used;
  used = tsl_csv_split_row (&self->splitter, self->sep, p, end, at_eof, self->fields,
                            &unterminated, &quoted);
  if (unterminated)
    tally (self, &self->unterminated, base_offset);
  return used;
}

static void
set_header (CsvState *self)
{
  static const char *const time_names[] = { "time", "timestamp", "ts", "date", NULL };
  static const char *const series_names[] = { "series", "metric", "name", NULL };

  g_ptr_array_set_size (self->names, 0);
  self->time_col = -1;
  self->kinds_known = FALSE;
  self->variable_rows = FALSE;

  for (guint i = 0; i < self->fields->len; i++)
    {
      const Field *f = &g_array_index (self->fields, Field, i);
      const char *s = f->p;
      gsize len = f->len;

      while (len > 0 && tsl_text_is_space (*s))
        s++, len--;
      while (len > 0 && tsl_text_is_space (s[len - 1]))
        len--;
      if (len >= 5 && memcmp (s + len - 5, "[...]", 5) == 0)
        {
          len -= 5;
          self->variable_rows = TRUE;
        }
      g_ptr_array_add (self->names, g_strndup (s, len));
    }

  g_array_set_size (self->kinds, self->names->len);
  for (guint i = 0; i < self->names->len; i++)
    {
      const char *name = g_ptr_array_index (self->names, i);
      ColumnKind kind = COL_VALUE;

      if (self->time_col < 0 && name_is (name, time_names))
        {
          self->time_col = i;
          kind = COL_TIME;
        }
      else if (name_is (name, series_names))
        kind = COL_SERIES;
      else if (!self->variable_rows && is_key_name (name))
        kind = COL_KEY;
      g_array_index (self->kinds, ColumnKind, i) = kind;
    }
  if (self->time_col < 0 && self->names->len > 0)
    {
      self->time_col = 0;
      g_array_index (self->kinds, ColumnKind, 0) = COL_TIME;
    }
}

/* The first data row of a section decides which columns hold numbers. */
static void
learn_kinds (CsvState    *self,
             const Field *fields,
             guint        n_fields)
{
  guint n = MIN (n_fields, self->names->len);
  gboolean long_form = FALSE;
  int named_value = -1;

  self->keyed = FALSE;
  self->n_value_cols = 0;
  self->value_col = -1;

  for (guint i = 0; i < n; i++)
    {
      ColumnKind *kind = &g_array_index (self->kinds, ColumnKind, i);
      const Field *f = &fields[i];
      double v;

      if (*kind == COL_VALUE && f->len > 0 && !tsl_text_parse_double (f->p, f->len, &v))
        *kind = COL_TEXT;
      if (*kind == COL_KEY || *kind == COL_SERIES)
        self->keyed = TRUE;
      if (*kind == COL_SERIES)
        long_form = TRUE;
      if (*kind == COL_VALUE)
        {
          self->n_value_cols++;
          if (g_ascii_strcasecmp (g_ptr_array_index (self->names, i), "value") == 0)
            named_value = i;
        }
    }

  /* Long form with a column called "value": that one is the value. */
  if (long_form && named_value >= 0)
    {
      self->value_col = named_value;
      self->n_value_cols = 1;
    }

  if (self->time_mode == TIME_UNKNOWN && self->time_col < (int) n)
    {
      const Field *f = &fields[self->time_col];
      gint64 ns;

      if (f->len >= 10 && f->p[4] == '-' && tsl_text_parse_iso8601_ns (f->p, f->len, &ns))
        self->time_mode = TIME_ISO;
      else if (tsl_csv_parse_time (f->p, f->len, &ns))
        self->time_mode = TIME_SECONDS;
      else
        {
          self->time_mode = TIME_ORDINAL;
          tsl_trace_set_has_time (self->trace, FALSE);
          tsl_trace_add_warning (self->trace,
                                 _("%s: column “%s” holds no times; rows are shown in file order"),
                                 tsl_reader_context_get_name (self->ctx),
                                 (const char *) g_ptr_array_index (self->names, self->time_col));
        }
    }

  g_array_set_size (self->col_tracks, n);
  for (guint i = 0; i < n && !self->keyed; i++)
    if (g_array_index (self->kinds, ColumnKind, i) == COL_VALUE)
      g_array_index (self->col_tracks, guint, i) =
        tsl_trace_ensure_track (self->trace, TSL_TRACK_METRIC, 0, 0, g_ptr_array_index (self->names, i));

  self->kinds_known = TRUE;
}

static guint
keyed_track (CsvState    *self,
             const Field *fields,
             guint        col)
{
  GString *name = self->name_buf;
  gboolean braces = FALSE;
  gpointer hit;
  guint track;

  g_string_truncate (name, 0);
  for (guint i = 0; i < self->names->len; i++)
    {
      if (g_array_index (self->kinds, ColumnKind, i) == COL_SERIES)
        {
          const Field *f = &fields[i];

          if (name->len > 0)
            g_string_append_c (name, '/');
          g_string_append_len (name, f->p, f->len);
        }
    }
  if (name->len == 0 || self->n_value_cols > 1)
    {
      if (name->len > 0)
        g_string_append_c (name, '/');
      g_string_append (name, g_ptr_array_index (self->names, col));
    }
  for (guint i = 0; i < self->names->len; i++)
    {
      if (g_array_index (self->kinds, ColumnKind, i) == COL_KEY)
        {
          const Field *f = &fields[i];

          g_string_append_c (name, braces ? ',' : '{');
          braces = TRUE;
          g_string_append_printf (name, "%s=", (const char *) g_ptr_array_index (self->names, i));
          g_string_append_len (name, f->p, f->len);
        }
    }
  if (braces)
    g_string_append_c (name, '}');

  hit = g_hash_table_lookup (self->tracks, name->str);
  if (hit != NULL)
    return GPOINTER_TO_UINT (hit) - 1;

  track = tsl_trace_ensure_track (self->trace, TSL_TRACK_METRIC, 0, 0, name->str);
  /* Series folded by the memory budget are not remembered one by one. */
  if (!tsl_trace_track_is_folded (self->trace, track))
    g_hash_table_insert (self->tracks, g_strdup (name->str), GUINT_TO_POINTER (track + 1));
  return track;
}

static gboolean
is_restart_marker (const Field *fields,
                   guint        n_fields)
{
  for (guint i = 0; i < n_fields; i++)
    {
      const Field *f = &fields[i];

      if (f->len >= 13 && memcmp (f->p, "LINUX-RESTART", 13) == 0)
        return TRUE;
    }
  return FALSE;
}

/* A data row: its fields, and when a scanner thread split it, its row and
 * the cells it parsed (else NULL). Inlined in both loops, so that the
 * one-thread one has no test of `row` or `cells`. */
static G_ALWAYS_INLINE inline void
process_row (CsvState        *self,
             gsize            offset,
             const Field     *fields,
             guint            n_fields,
             const TslCsvRow *row,
             const TslCsvCell *cells)
{
  guint n_cols = self->names->len;
  gint64 t;

  if (n_fields != n_cols && !(self->variable_rows && n_fields > n_cols))
    {
      if (is_restart_marker (fields, n_fields))
        {
          tally (self, &self->restarts, offset);
          return;
        }
      self->n_rows++;
      tally (self, &self->ragged, offset);
      return;
    }

  self->n_rows++;
  if (!self->kinds_known)
    learn_kinds (self, fields, n_fields);

  if (self->time_mode == TIME_ORDINAL)
    t = (gint64) self->n_rows - 1;
  else if (row != NULL && row->time_col == self->time_col)
    {
      if (!row->time_ok)
        {
          tally (self, &self->bad_time, offset);
          return;
        }
      t = row->time_ns;
    }
  else if (!tsl_csv_parse_time (fields[self->time_col].p, fields[self->time_col].len, &t))
    {
      tally (self, &self->bad_time, offset);
      return;
    }

  for (guint i = 0; i < n_cols; i++)
    {
      double v;
      guint track;

      if (g_array_index (self->kinds, ColumnKind, i) != COL_VALUE ||
          (self->value_col >= 0 && (int) i != self->value_col) ||
          fields[i].len == 0)
        continue;

      if (cells != NULL && cells[i].state != TSL_CSV_UNPARSED)
        {
          if (cells[i].state == TSL_CSV_NOT_NUMBER)
            {
              tally (self, &self->bad_value, offset);
              continue;
            }
          v = cells[i].v;
        }
      else if (!tsl_text_parse_double (fields[i].p, fields[i].len, &v))
        {
          tally (self, &self->bad_value, offset);
          continue;
        }

      track = self->keyed ? keyed_track (self, fields, i) : g_array_index (self->col_tracks, guint, i);
      tsl_trace_offer (self->trace, track, t, v);
    }
}

/* The one-thread loop: the records that start in [p, limit) (a record may
 * run on to the buffer's end): the whole buffer, or from where a segment's
 * scan stopped (a '#' line, a '\r' line) and over a segment that does not
 * start where this thread is (the guess was inside a quoted field, or the
 * row before ran past it). *blocked when one needs more input. Returns
 * where it stopped. */
static const char *
parse_rows (gpointer             data,
            const TslScanBuffer *buf,
            const char          *p,
            const char          *limit,
            gboolean            *blocked)
{
  CsvState *self = data;
  const char *base = buf->base;
  const char *end = buf->end;
  gboolean at_eof = buf->at_eof;

  *blocked = FALSE;
  while (p < limit)
    {
      gsize row_len;

      /* Blank lines, comments and ('#'-prefixed) headers. */
      if (*p == '\n' || *p == '\r' || *p == '#' || self->names->len == 0)
        {
          const char *nl = memchr (p, '\n', end - p);
          const char *eol = nl ? nl : end;
          const char *s = p;

          if (nl == NULL && !at_eof)
            {
              *blocked = TRUE;
              break;
            }
          if (*s == '#')
            {
              s++;
              while (s < eol && *s == ' ')
                s++;
            }
          if (eol > s && !(eol - s == 1 && *s == '\r') &&
              (*p != '#' || ((self->names->len == 0 || self->hash_header) &&
                             memchr (s, self->sep, eol - s) != NULL)))
            {
              /* A quoted header may span lines: go on after what it used. */
              gsize used = split_row (self, s, end, at_eof, s - base);

              if (used == 0)
                {
                  *blocked = TRUE;
                  break;
                }
              self->hash_header = *p == '#';
              set_header (self);
              p = s + used;
              continue;
            }
          p = nl ? nl + 1 : end;
          continue;
        }

      row_len = split_row (self, p, end, at_eof, p - base);
      if (row_len == 0)
        {
          *blocked = TRUE;
          break;
        }
      process_row (self, p - base, (const Field *) (gpointer) self->fields->data, self->fields->len,
                   NULL, NULL);
      p += row_len;
    }
  return p;
}

/* What the scanner threads parse, as of now: a column's numbers where they
 * are values so far, the time column's times. A guess only: a row's cells
 * are used for the columns that turn out to be values and its time for
 * the column that is the time column when it is modelled (a header may
 * come in between). */
static void
make_plan (CsvState   *self,
           const char *end,
           gboolean    at_eof)
{
  TslCsvPlan *plan = &self->plan;

  if (plan->value_cols == NULL)
    plan->value_cols = g_array_new (FALSE, FALSE, sizeof (guint8));
  plan->sep = self->sep;
  plan->at_eof = at_eof;
  plan->end = end;
  plan->time_col = self->time_mode != TIME_ORDINAL ? self->time_col : -1;
  g_array_set_size (plan->value_cols, self->names->len);
  for (guint i = 0; i < self->names->len; i++)
    g_array_index (plan->value_cols, guint8, i) =
      g_array_index (self->kinds, ColumnKind, i) == COL_VALUE &&
      (self->value_col < 0 || (int) i == self->value_col);
}

static void
drive_plan (gpointer             data,
            const TslScanBuffer *buf)
{
  make_plan (data, buf->end, buf->at_eof);
}

/* Before a header every line is a header: no segment is used then. */
static gboolean
drive_usable (gpointer data)
{
  CsvState *self = data;

  return self->names->len != 0;
}

/* A segment's rows are the rows the one-thread loop would split where it
 * starts, as splitting depends on the bytes and the separator only. */
static const char *
drive_apply (gpointer              data,
             const TslScanBuffer  *buf,
             const TslScanSegment *scanned)
{
  CsvState *self = data;
  const TslCsvSegment *seg = scanned->result;
  const char *base = buf->base;

  for (guint j = 0; j < seg->rows->len; j++)
    {
      const TslCsvRow *row = &g_array_index (seg->rows, TslCsvRow, j);
      gsize offset = row->start - base;

      if (row->unterminated)
        tally (self, &self->unterminated, offset);
      process_row (self, offset, &g_array_index (seg->fields, Field, row->first), row->n_fields,
                   row, &g_array_index (seg->cells, TslCsvCell, row->first));
    }
  return seg->stop;
}

/* A regular file's buffer split on every core and modelled on this thread
 * in order (tsl_scan_driver_run()). */
static const TslScanDriveFuncs csv_drive_funcs = {
  .plan = drive_plan,
  .usable = drive_usable,
  .apply = drive_apply,
  .serial = parse_rows,
};

static gssize
csv_parse (gpointer       data,
           const guint8  *buf,
           gsize          len,
           gboolean       at_eof,
           GError       **error)
{
  CsvState *self = data;
  const char *base = (const char *) buf;
  TslScanBuffer scan = { base, base + len, at_eof, NULL };
  guint64 rows_before = self->n_rows;
  const char *p;

  if (self->sep == 0)
    {
      guint n_fields;
      gboolean need_more;

      if (memchr (base, '\n', len) == NULL && !at_eof)
        return 0;
      self->sep = tsl_csv_guess_separator (base, len, at_eof, &n_fields, &need_more);
      if (need_more)
        return 0;
      if (self->sep == 0)
        self->sep = ',';
    }

  /* A big buffer after the header: on every core (the tests cut every
   * buffer, the header's too). */
  p = tsl_scan_driver_parse (self->driver, &csv_drive_funcs, self, &scan,
                             self->driver != NULL &&
                             (tsl_scan_driver_is_random (self->driver) ||
                              (self->names->len > 0 && tsl_scan_driver_worth (self->driver, len))));

  tsl_trace_add_events (self->trace, self->n_rows - rows_before);

  if (at_eof)
    {
      tally_report (self, &self->ragged,
                    N_("rows have a different number of fields than their header and were skipped"));
      tally_report (self, &self->bad_time, N_("rows have a time that cannot be read and were skipped"));
      tally_report (self, &self->bad_value, N_("cells are not numbers and were skipped"));
      tally_report (self, &self->restarts, N_("LINUX-RESTART marker rows were skipped"));
      tally_report (self, &self->unterminated, N_("quoted field is not closed at the end of the file"));
      if (self->names->len == 0)
        tsl_trace_add_warning (self->trace, _("%s: no header row found"),
                               tsl_reader_context_get_name (self->ctx));
      else if (self->n_rows == 0)
        tsl_trace_add_warning (self->trace, _("%s: the header has no data rows"),
                               tsl_reader_context_get_name (self->ctx));
      else if (tsl_trace_get_n_tracks (self->trace) == 0)
        {
          /* Rows, but not one number to draw. */
          tsl_trace_add_warning (self->trace, _("%s: no column holds numbers"),
                                 tsl_reader_context_get_name (self->ctx));
          tsl_reader_context_set_nothing_to_show (self->ctx, error, p - base);
          return -1;
        }
    }

  return p - base;
}

static int
csv_sniff (const guint8 *head,
           gsize         len,
           gboolean      at_eof)
{
  static const char *const time_names[] = { "time", "timestamp", "ts", "date", NULL };
  const char *p = (const char *) head;
  const char *end = p + len;
  const char *nl;
  guint n_fields = 0;
  gboolean need_more;
  char sep;
  int score = 0;

  if (len == 0 || p[0] == '{' || p[0] == '[')
    return 0;
  nl = memchr (p, '\n', len);
  if (nl == NULL && !at_eof)
    return 0;

  /* The head is all the sniffer gets: guess from it even if it ends inside a record. */
  sep = tsl_csv_guess_separator (p, len, TRUE, &n_fields, &need_more);
  if (sep == 0)
    return 0;

  /* Every non-comment record of the head should split into the header's
   * count (sysstat rows may be longer; a last partial record is ignored). */
  for (guint lines = 0; p < end && lines < 50; lines++)
    {
      const char *next;
      guint count;

      if (*p == '#')
        {
          nl = memchr (p, '\n', end - p);
          if (nl != NULL && memchr (p, sep, nl - p) != NULL)
            score = MAX (score, 30);
          p = nl ? nl + 1 : end;
          continue;
        }

      next = tsl_csv_count_record (p, end, sep, &count);
      if (next == NULL && !at_eof)
        break;
      if (!(*p == '\n' || *p == '\r'))
        {
          if (count == 0)
            return 0;
          score = count + 1 == n_fields ? MAX (score, 60) : MAX (score, 30);
        }
      p = next ? next : end;
    }

  /* A header naming a time column makes it likely. */
  {
    const char *h = (const char *) head;
    g_autofree char *line = NULL;
    g_auto(GStrv) names = NULL;

    while (h < end && (*h == '#' || *h == ' '))
      h++;
    nl = memchr (h, '\n', end - h);
    line = g_strndup (h, (nl ? nl : end) - h);
    names = g_strsplit (line, (char[]) { sep, 0 }, -1);
    for (guint i = 0; names[i] != NULL; i++)
      if (name_is (g_strstrip (names[i]), time_names))
        score += 20;
  }

  return MIN (score, 80);
}

/* Any row boundary once the header and the column kinds are known: the
 * first chunk, always read again, holds them. sysstat's repeated '#'
 * headers and row-number times depend on what came before: no index. */
static TslCheckpoint
csv_checkpoint (gpointer      state,
                const guint8 *buf,
                gsize         consumed,
                gsize        *back,
                GByteArray   *saved)
{
  CsvState *self = state;

  if (self->hash_header || self->time_mode == TIME_ORDINAL)
    return TSL_CHECKPOINT_NEVER;
  if (self->names->len == 0 || !self->kinds_known || consumed == 0 || buf[consumed - 1] != '\n')
    return TSL_CHECKPOINT_NOT_HERE;
  *back = 0;
  return TSL_CHECKPOINT_HERE;
}

const TslFormat tsl_format_csv = {
  .name = "csv",
  .sniff = csv_sniff,
  .create = csv_create,
  .parse = csv_parse,
  .destroy = csv_destroy,
  .checkpoint = csv_checkpoint,
};
