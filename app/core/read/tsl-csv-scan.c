/* tsl-csv-scan.c: CSV rows split into fields, on any thread
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Rows without quotes are split in place, sixteen bytes a step (memchr at a
 * buffer's end); a row with a quote takes the RFC 4180 path (doubled quotes,
 * newlines inside quotes) into a scratch buffer. Nothing is allocated per
 * row.
 */
#define G_LOG_DOMAIN "tsl-csv-reader"

#include "config.h"

#include <string.h>

#include "tsl-csv-private.h"
#include "tsl-text-private.h"

void
tsl_csv_splitter_init (TslCsvSplitter *self)
{
  self->unquoted = g_string_sized_new (256);
  self->offsets = g_array_new (FALSE, FALSE, sizeof (gsize));
}

void
tsl_csv_splitter_clear (TslCsvSplitter *self)
{
  g_string_free (self->unquoted, TRUE);
  g_array_unref (self->offsets);
}

static inline void
add_field (GArray     *fields,
           const char *p,
           gsize       len)
{
  TslCsvField f = { p, len };

  g_array_append_val (fields, f);
}


gsize
tsl_csv_split_row (TslCsvSplitter *self,
                   char            sep,
                   const char     *p,
                   const char     *end,
                   gboolean        at_eof,
                   GArray         *fields,
                   gboolean       *unterminated,
                   gboolean       *quoted)
{
  const char *nl;
  const char *eol;
  const char *q;
  gboolean in_quotes = FALSE;
  gsize field_start;

  *unterminated = FALSE;
  *quoted = FALSE;
  {
    gsize used = tsl_csv_split_plain_row (sep, p, end, fields);

    if (used != 0)
      return used;
  }
  nl = memchr (p, '\n', end - p);
  eol = nl ? nl : end;

  if (nl == NULL && !at_eof)
    return 0;

  if (memchr (p, '"', eol - p) == NULL)
    {
      const char *s = p;
      const char *line_end = eol;

      if (line_end > p && line_end[-1] == '\r')
        line_end--;
      for (;;)
        {
          const char *c = memchr (s, sep, line_end - s);

          if (c == NULL)
            {
              add_field (fields, s, line_end - s);
              break;
            }
          add_field (fields, s, c - s);
          s = c + 1;
        }
      return (nl ? nl + 1 : end) - p;
    }

  /* RFC 4180: fields are unquoted into a scratch buffer; pointers are fixed
   * up once the row is complete because the buffer may move while growing. */
  g_string_truncate (self->unquoted, 0);
  g_array_set_size (self->offsets, 0);
  field_start = 0;
  q = p;
  for (;;)
    {
      char c;

      if (q == end)
        {
          if (!at_eof)
            return 0;
          if (in_quotes)
            *unterminated = TRUE;
          break;
        }

      c = *q;
      if (in_quotes)
        {
          if (c == '"')
            {
              if (q + 1 == end && !at_eof)
                return 0;
              if (q + 1 < end && q[1] == '"')
                {
                  g_string_append_c (self->unquoted, '"');
                  q += 2;
                  continue;
                }
              in_quotes = FALSE;
              q++;
              continue;
            }
          g_string_append_c (self->unquoted, c);
          q++;
          continue;
        }

      if (c == sep)
        {
          gsize pair[2] = { field_start, self->unquoted->len - field_start };

          g_array_append_vals (self->offsets, pair, 2);
          field_start = self->unquoted->len;
          q++;
          continue;
        }
      if (c == '\n')
        {
          q++;
          break;
        }
      if (c == '"' && self->unquoted->len == field_start)
        in_quotes = TRUE;
      else if (!(c == '\r' && (q + 1 == end || q[1] == '\n')))
        g_string_append_c (self->unquoted, c);
      q++;
    }

  {
    gsize pair[2] = { field_start, self->unquoted->len - field_start };

    g_array_append_vals (self->offsets, pair, 2);
  }
  for (guint i = 0; i < self->offsets->len; i += 2)
    add_field (fields, self->unquoted->str + g_array_index (self->offsets, gsize, i),
               g_array_index (self->offsets, gsize, i + 1));

  *quoted = TRUE;
  return q - p;
}

gboolean
tsl_csv_parse_time (const char *p,
                    gsize       len,
                    gint64     *ns)
{
  double v;

  while (len > 0 && tsl_text_is_space (*p))
    p++, len--;

  /* (An ISO date cannot be read as seconds or a double, so which is tried
   * first depends on the text alone, not on the file's time mode.) */
  if (len >= 10 && p[4] == '-')
    {
      if (tsl_text_parse_iso8601_ns (p, len, ns))
        return TRUE;
    }
  if (tsl_text_parse_seconds_ns (p, len, ns))
    return TRUE;
  if (tsl_text_parse_double (p, len, &v) && v > -9.2e9 && v < 9.2e9)
    {
      *ns = (gint64) (v * 1e9);
      return TRUE;
    }
  return FALSE;
}

static void
scan_segment (gpointer        data,
              TslScanSegment *seg,
              gpointer        scratch)
{
  const TslCsvPlan *plan = data;
  TslCsvSegment *out = seg->result;
  TslCsvSplitter *splitter = scratch;
  const guint8 *value_cols = (const guint8 *) plan->value_cols->data;
  guint n_value_cols = plan->value_cols->len;
  const char *end = plan->end;
  const char *p = seg->start;
  gboolean any_quoted = FALSE;

  g_array_set_size (out->rows, 0);
  g_array_set_size (out->fields, 0);
  g_array_set_size (out->cells, 0);
  g_string_truncate (out->text, 0);

  while (p < seg->end)
    {
      TslCsvRow row;
      TslCsvField *fields;
      TslCsvCell *cells;
      gboolean quoted;
      gsize used;

      /* Blank lines, as the reader passes over them; any other line that
       * does not start a row is the reader's. */
      if (*p == '\n')
        {
          p++;
          continue;
        }
      if (*p == '\r' && end - p >= 2 && p[1] == '\n')
        {
          p += 2;
          continue;
        }
      if (*p == '\r' || *p == '#')
        break;

      row.first = out->fields->len;
      used = tsl_csv_split_row (splitter, plan->sep, p, end, plan->at_eof, out->fields,
                                &row.unterminated, &quoted);
      if (used == 0)
        break;
      row.start = p;
      row.len = used;
      row.n_fields = out->fields->len - row.first;
      fields = &g_array_index (out->fields, TslCsvField, row.first);

      row.time_col = plan->time_col >= 0 && (guint) plan->time_col < row.n_fields ? plan->time_col : -1;
      row.time_ok = row.time_col >= 0 &&
                    tsl_csv_parse_time (fields[row.time_col].p, fields[row.time_col].len, &row.time_ns);

      g_array_set_size (out->cells, out->fields->len);
      cells = &g_array_index (out->cells, TslCsvCell, row.first);
      for (guint i = 0; i < row.n_fields; i++)
        {
          if (i < n_value_cols && value_cols[i] && fields[i].len > 0)
            cells[i].state = tsl_text_parse_double (fields[i].p, fields[i].len, &cells[i].v)
                             ? TSL_CSV_NUMBER : TSL_CSV_NOT_NUMBER;
          else
            cells[i].state = TSL_CSV_UNPARSED;
        }

      /* The unquoted fields into the segment's own text, as offsets until
       * it stops moving. */
      row.quoted = quoted;
      if (quoted)
        {
          gsize at = out->text->len;

          g_string_append_len (out->text, splitter->unquoted->str, splitter->unquoted->len);
          for (guint i = 0; i < row.n_fields; i++)
            fields[i].p = GSIZE_TO_POINTER (at + (gsize) (fields[i].p - splitter->unquoted->str));
          any_quoted = TRUE;
        }
      g_array_append_val (out->rows, row);
      p += used;
    }

  for (guint i = 0; any_quoted && i < out->rows->len; i++)
    {
      const TslCsvRow *row = &g_array_index (out->rows, TslCsvRow, i);
      TslCsvField *fields = &g_array_index (out->fields, TslCsvField, row->first);

      for (guint j = 0; row->quoted && j < row->n_fields; j++)
        fields[j].p = out->text->str + GPOINTER_TO_SIZE (fields[j].p);
    }
  out->stop = p;
}

static gpointer
splitter_new (gpointer data)
{
  TslCsvSplitter *splitter = g_new0 (TslCsvSplitter, 1);

  tsl_csv_splitter_init (splitter);
  return splitter;
}

static void
splitter_free (gpointer scratch)
{
  tsl_csv_splitter_clear (scratch);
  g_free (scratch);
}

static gpointer
segment_new (gpointer data)
{
  TslCsvSegment *seg = g_new0 (TslCsvSegment, 1);

  seg->rows = g_array_new (FALSE, FALSE, sizeof (TslCsvRow));
  seg->fields = g_array_new (FALSE, FALSE, sizeof (TslCsvField));
  seg->cells = g_array_new (FALSE, FALSE, sizeof (TslCsvCell));
  seg->text = g_string_new (NULL);
  return seg;
}

static void
segment_free (gpointer result)
{
  TslCsvSegment *seg = result;

  g_array_unref (seg->rows);
  g_array_unref (seg->fields);
  g_array_unref (seg->cells);
  g_string_free (seg->text, TRUE);
  g_free (seg);
}

const TslScanFuncs tsl_csv_scan_funcs = {
  .scan = scan_segment,
  .scratch_new = splitter_new,
  .scratch_free = splitter_free,
  .result_new = segment_new,
  .result_free = segment_free,
};

/* Counts the separators of the record at p outside quotes (a quoted field
 * may span lines) and returns where the next record starts, or NULL when the
 * record does not end within [p, end). */
const char *
tsl_csv_count_record (const char *p,
                      const char *end,
                      char        sep,
                      guint      *count)
{
  gboolean in_quotes = FALSE;

  *count = 0;
  for (; p < end; p++)
    {
      if (*p == '"')
        in_quotes = !in_quotes;
      else if (in_quotes)
        continue;
      else if (*p == sep)
        (*count)++;
      else if (*p == '\n')
        return p + 1;
    }
  return NULL;
}

/* Picks the separator from the first line that holds any: the most frequent
 * one, ties going to tab, then ';', then ','. Returns 0 if none, and sets
 * *need_more when that line does not end in [p, p + len) before the end of
 * the input (a quoted field may span lines), so that the guess never depends
 * on where a chunk ends. */
char
tsl_csv_guess_separator (const char *p,
                         gsize       len,
                         gboolean    at_eof,
                         guint      *n_fields,
                         gboolean   *need_more)
{
  static const char seps[] = { '\t', ';', ',' };
  const char *end = p + len;

  *need_more = FALSE;
  for (guint lines = 0; p < end && lines < 20; lines++)
    {
      const char *next = NULL;
      guint best_count = 0;
      char best = 0;

      for (guint i = 0; i < G_N_ELEMENTS (seps); i++)
        {
          guint count;

          next = tsl_csv_count_record (p, end, seps[i], &count);
          if (count > best_count)
            {
              best_count = count;
              best = seps[i];
            }
        }
      if (next == NULL && !at_eof)
        {
          *need_more = TRUE;
          return 0;
        }
      if (best != 0)
        {
          *n_fields = best_count + 1;
          return best;
        }
      if (next == NULL)
        break;
      p = next;
    }

  return 0;
}
