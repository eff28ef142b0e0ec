/* tsl-changes-load.c: a file's change points from the cache, else found and kept
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "tsl-changes"

#include "config.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "tsl-changes-cache.h"
#include "tsl-changes-load.h"

#define N_COLUMNS 10

/* The row's stat and unit point at static strings: the parsed ones map to
 * the same names tsl-changes.c uses. */
static const char *const stats[] = { "time_mean", "rate_per_s", "share", "mean", "calls_per_s" };
static const char *const units[] = { "", "/s", "fraction", "ns" };

static const char *
intern_static (const char        *text,
               const char *const *names,
               guint              n_names)
{
  for (guint i = 0; i < n_names; i++)
    if (strcmp (text, names[i]) == 0)
      return names[i];
  return NULL;
}

/* Splits one CSV line (RFC 4180 quoting, as tsl-csv-writer writes it) into
 * `cells`; FALSE when a quote is left open. */
static gboolean
split_line (const char *line,
            GPtrArray  *cells)
{
  const char *p = line;

  for (;;)
    {
      GString *cell = g_string_new (NULL);

      if (*p == '"')
        {
          for (p++;; p++)
            {
              if (*p == '\0')
                {
                  g_string_free (cell, TRUE);
                  return FALSE;
                }
              if (*p == '"')
                {
                  if (p[1] != '"')
                    {
                      p++;
                      break;
                    }
                  p++;
                }
              g_string_append_c (cell, *p);
            }
        }
      else
        while (*p != '\0' && *p != ',')
          g_string_append_c (cell, *p++);
      g_ptr_array_add (cells, g_string_free (cell, FALSE));
      if (*p != ',')
        return *p == '\0';
      p++;
    }
}

static gboolean
parse_number (const char *text,
              double     *out)
{
  char *end = NULL;

  if (text[0] == '\0')
    {
      *out = NAN;
      return TRUE;
    }
  errno = 0;
  *out = g_ascii_strtod (text, &end);
  return end != text && *end == '\0' && errno == 0;
}

/* Lines of a CSV text: a quoted cell may hold a newline, so lines are
 * joined until their quotes balance. */
static char *
next_record (const char **cursor)
{
  const char *p = *cursor;
  gboolean quoted = FALSE;
  const char *start = p;

  if (*p == '\0')
    return NULL;
  while (*p != '\0' && (quoted || *p != '\n'))
    {
      if (*p == '"')
        quoted = !quoted;
      p++;
    }
  *cursor = *p == '\n' ? p + 1 : p;
  return g_strndup (start, (gsize) (p - start));
}

GPtrArray *
tsl_changes_parse_csv (const char  *csv,
                       GError     **error)
{
  g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func ((GDestroyNotify) tsl_change_row_free);
  g_autofree char *header = NULL;
  const char *cursor = csv;
  guint line = 1;
  char *record;

  g_return_val_if_fail (csv != NULL, NULL);

  header = next_record (&cursor);
  if (header == NULL || !g_str_has_prefix (header, "series,stat,time_s,before,after,change_pct,"))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "change table, line 1: expected the header series,stat,time_s,…");
      return NULL;
    }
  while ((record = next_record (&cursor)) != NULL)
    {
      g_autofree char *text = record;
      g_autoptr(GPtrArray) cells = g_ptr_array_new_with_free_func (g_free);
      g_autoptr(TslChangeRow) row = NULL;
      const char *series, *significant;
      double change_pct;

      line++;
      if (text[0] == '\0')
        continue;
      row = g_new0 (TslChangeRow, 1);
      if (!split_line (text, cells) || cells->len != N_COLUMNS)
        goto bad;
      series = g_ptr_array_index (cells, 0);
      /* The writer puts a ' before a name a spreadsheet would run. */
      row->series = g_strdup (series[0] == '\'' ? series + 1 : series);
      row->stat = intern_static (g_ptr_array_index (cells, 1), stats, G_N_ELEMENTS (stats));
      row->unit = intern_static (g_ptr_array_index (cells, 9), units, G_N_ELEMENTS (units));
      significant = g_ptr_array_index (cells, 8);
      if (row->stat == NULL || row->unit == NULL ||
          !parse_number (g_ptr_array_index (cells, 2), &row->time_s) ||
          !parse_number (g_ptr_array_index (cells, 3), &row->before) ||
          !parse_number (g_ptr_array_index (cells, 4), &row->after) ||
          !parse_number (g_ptr_array_index (cells, 5), &change_pct) ||
          !parse_number (g_ptr_array_index (cells, 6), &row->p_value) ||
          !parse_number (g_ptr_array_index (cells, 7), &row->q_value) ||
          (strcmp (significant, "true") != 0 && strcmp (significant, "false") != 0) ||
          isnan (row->time_s))
        goto bad;
      row->change = change_pct / 100;
      row->significant = strcmp (significant, "true") == 0;
      row->effect = NAN;
      g_ptr_array_add (rows, g_steal_pointer (&row));
      continue;

    bad:
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "change table, line %u: expected 10 cells: a series, a known stat, "
                   "7 numbers and true or false, and a known unit", line);
      return NULL;
    }
  return g_steal_pointer (&rows);
}

GPtrArray *
tsl_changes_load (const TslCompareRequest *request,
                  GPtrArray               *warnings,
                  gboolean                *from_cache,
                  GCancellable            *cancellable,
                  GError                 **error)
{
  g_autoptr(GPtrArray) rows = NULL;
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *csv = NULL;
  TslChangesSource before, after;
  gboolean keyed;

  g_return_val_if_fail (request != NULL && request->path != NULL, NULL);

  if (from_cache != NULL)
    *from_cache = FALSE;
  keyed = tsl_changes_source_query (request->path, &before);
  if (keyed && (csv = tsl_changes_cache_lookup (&before, request, 0)) != NULL)
    {
      g_autoptr(GError) local = NULL;

      rows = tsl_changes_parse_csv (csv, &local);
      /* A table this version cannot read is found again, not an error. */
      if (rows != NULL)
        {
          if (from_cache != NULL)
            *from_cache = TRUE;
          return g_steal_pointer (&rows);
        }
      g_debug ("cached change table ignored: %s", local->message);
      g_clear_pointer (&csv, g_free);
    }

  rows = tsl_changes_run (request, notes, cancellable, error);
  if (warnings != NULL)
    for (guint i = 0; i < notes->len; i++)
      g_ptr_array_add (warnings, g_strdup (g_ptr_array_index (notes, i)));
  if (rows == NULL)
    return NULL;
  /* Kept as the command keeps it: only if the file did not change while it
   * was read, and without warnings, which a cached table would not repeat. */
  if (keyed && notes->len == 0 && tsl_changes_source_query (request->path, &after) &&
      memcmp (&before, &after, sizeof before) == 0)
    {
      csv = tsl_changes_format_csv ((const TslChangeRow * const *) rows->pdata, rows->len, 0);
      tsl_changes_cache_save (&before, request, 0, csv);
    }
  return g_steal_pointer (&rows);
}

gboolean
tsl_changes_stretches (GPtrArray *rows,
                       guint      index,
                       double     start_s,
                       double     end_s,
                       double    *before_s,
                       double    *after_s)
{
  const TslChangeRow *row;

  g_return_val_if_fail (rows != NULL && index < rows->len, FALSE);

  row = g_ptr_array_index (rows, index);
  *before_s = start_s;
  *after_s = end_s;
  for (guint i = 0; i < rows->len; i++)
    {
      const TslChangeRow *other = g_ptr_array_index (rows, i);

      if (i == index || !(other->p_value < TSL_CHANGES_SPLIT_P) || g_strcmp0 (other->series, row->series) != 0 ||
          g_strcmp0 (other->stat, row->stat) != 0)
        continue;
      if (other->time_s < row->time_s)
        *before_s = MAX (*before_s, other->time_s);
      else if (other->time_s > row->time_s)
        *after_s = MIN (*after_s, other->time_s);
    }
  return *before_s < row->time_s && row->time_s < *after_s;
}
