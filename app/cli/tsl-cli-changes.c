/* tsl-cli-changes.c: `timeslice changes`, when each series changed
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "tsl-cli-changes"

#include "config.h"

#include <string.h>

#include "tsl-changes-cache.h"
#include "tsl-changes.h"
#include "tsl-cli-private.h"

#define MAX_TOP 1000000

/* --a and --b bound the search together: from the earlier start to the
 * later end, so "before A … after B" is searched as one stretch. */
static gboolean
search_range (const char    *range_a,
              const char    *range_b,
              TslRangeSpec  *out,
              GError       **error)
{
  TslRangeSpec b;

  if (range_a == NULL && range_b == NULL)
    {
      *out = (TslRangeSpec) { 0, 1, TRUE };
      return TRUE;
    }
  if (range_a != NULL && !tsl_range_spec_parse (range_a, out, error))
    {
      g_prefix_error (error, "--a: ");
      return FALSE;
    }
  if (range_b == NULL)
    return TRUE;
  if (!tsl_range_spec_parse (range_b, &b, error))
    {
      g_prefix_error (error, "--b: ");
      return FALSE;
    }
  if (range_a == NULL)
    {
      *out = b;
      return TRUE;
    }
  if (out->is_fraction != b.is_fraction)
    {
      g_set_error_literal (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                           "--a and --b must both be times or both percentages");
      return FALSE;
    }
  out->start = MIN (out->start, b.start);
  out->end = MAX (out->end, b.end);
  return TRUE;
}

/* BEFORE and AFTER: the series that differ between two runs, as the
 * two-file compare finds them (each range its whole file unless --a, --b
 * say otherwise), the significant rows of its table in its order. */
static int
two_runs (char       **argv,
          const char  *range_a,
          const char  *range_b,
          int          k,
          int          top,
          const char  *output)
{
  g_autoptr(TslCompareRequest) request = tsl_compare_request_new ();
  g_autoptr(GPtrArray) rows = NULL;
  g_autoptr(GPtrArray) differ = g_ptr_array_new ();
  g_autoptr(GOutputStream) out = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) warnings = NULL;
  g_autofree char *csv = NULL;

  if (g_str_equal (argv[1], "-") || g_str_equal (argv[2], "-"))
    return tsl_cli_fail (TSL_EXIT_USAGE,
                         "changes: with two files, neither can be standard input: each is re-read");
  if (!tsl_range_spec_parse (range_a != NULL ? range_a : "0%..100%", &request->a, &error) ||
      !tsl_range_spec_parse (range_b != NULL ? range_b : "0%..100%", &request->b, &error))
    return tsl_cli_fail (TSL_EXIT_USAGE, "changes: %s", error->message);
  request->k = (guint) k;
  request->path = g_strdup (argv[1]);
  request->path_b = g_strdup (argv[2]);
  request->budget = tsl_budget_ref (tsl_cli_get_budget ());

  rows = tsl_compare_run (request, NULL, &warnings, &error);
  for (guint i = 0; warnings != NULL && warnings[i] != NULL; i++)
    tsl_cli_fail (0, "warning: %s", warnings[i]);
  if (rows == NULL)
    return tsl_cli_fail (g_error_matches (error, TSL_COMPARE_ERROR, TSL_COMPARE_ERROR_RANGE)
                         ? TSL_EXIT_USAGE : TSL_EXIT_INPUT, "%s", error->message);
  for (guint i = 0; i < rows->len && (top == 0 || differ->len < (guint) top); i++)
    if (((TslCompareRow *) g_ptr_array_index (rows, i))->significant)
      g_ptr_array_add (differ, g_ptr_array_index (rows, i));

  csv = tsl_compare_format_csv ((const TslCompareRow * const *) differ->pdata, differ->len);
  out = tsl_cli_open_output (output, &error);
  if (out == NULL)
    return tsl_cli_fail (TSL_EXIT_INPUT, "%s", error->message);
  if (!g_output_stream_write_all (out, csv, strlen (csv), NULL, NULL, &error) ||
      !g_output_stream_close (out, NULL, &error))
    return tsl_cli_fail (TSL_EXIT_INPUT, "%s", error->message);
  return TSL_EXIT_OK;
}

int
tsl_cli_changes (int    argc,
                 char **argv)
{
  g_autoptr(TslCompareRequest) request = tsl_compare_request_new ();
  g_autoptr(GPtrArray) rows = NULL;
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GOutputStream) out = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *csv = NULL;
  g_autofree char *range_a = NULL;
  g_autofree char *range_b = NULL;
  g_autofree char *output = NULL;
  TslChangesSource before, after;
  gboolean keyed;
  int top = 0;
  int k = TSL_CLI_DEFAULT_K;
  const GOptionEntry entries[] = {
    { "top", 0, 0, G_OPTION_ARG_INT, &top,
      "Write only the N most important rows (default all)", "N" },
    { "a", 0, 0, G_OPTION_ARG_STRING, &range_a,
      "Search only this range, e.g. 1s..2s or 0%..50% (from the trace start); with two files, BEFORE's range", "RANGE" },
    { "b", 0, 0, G_OPTION_ARG_STRING, &range_b,
      "With --a: search from the earlier start to the later end of A and B; with two files, AFTER's range", "RANGE" },
    { "k", 0, 0, G_OPTION_ARG_INT, &k,
      "Keep K to 2K points per track (default 2000)", "N" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
      "Write the CSV to OUT instead of standard output", "OUT" },
    { NULL }
  };

  if (!tsl_cli_parse_options ("changes", "FILE | BEFORE AFTER",
                              "Finds when each series changed: a metric’s level, a counter’s rate,\n"
                              "and per thread each function’s share of time, mean duration and\n"
                              "calls per second (functions with 100 calls or more). Writes CSV:\n"
                              "series,stat,time_s,before,after,change_pct,p_value,q_value,\n"
                              "significant,unit — significant rows first, by the size of the\n"
                              "change times how long it lasts; q-values over every row tested.\n"
                              "With BEFORE and AFTER: the series that differ between the two runs,\n"
                              "the significant rows of “timeslice compare BEFORE AFTER”",
                              entries, &argc, &argv))
    return TSL_EXIT_USAGE;

  if (argc != 2 && argc != 3)
    return tsl_cli_fail (TSL_EXIT_USAGE, "changes: expected FILE, or BEFORE and AFTER (see “timeslice changes --help”)");
  if (top < 0 || top > MAX_TOP)
    return tsl_cli_fail (TSL_EXIT_USAGE, "changes: --top must be between 0 (all rows) and %d", MAX_TOP);
  if (!tsl_cli_check_k ("changes", k))
    return TSL_EXIT_USAGE;
  if (argc == 3)
    return two_runs (argv, range_a, range_b, k, top, output);
  if (!search_range (range_a, range_b, &request->a, &error))
    return tsl_cli_fail (TSL_EXIT_USAGE, "changes: %s", error->message);

  request->k = (guint) k;
  request->path = g_strdup (argv[1]);
  request->budget = tsl_budget_ref (tsl_cli_get_budget ());

  /* An unchanged file with the same options: the table written before. */
  keyed = tsl_changes_source_query (request->path, &before);
  if (keyed)
    csv = tsl_changes_cache_lookup (&before, request, (guint) top);

  if (csv == NULL)
    {
      rows = tsl_changes_run (request, warnings, NULL, &error);
      for (guint i = 0; i < warnings->len; i++)
        tsl_cli_fail (0, "warning: %s", (const char *) g_ptr_array_index (warnings, i));
      if (rows == NULL)
        return tsl_cli_fail (g_error_matches (error, TSL_COMPARE_ERROR, TSL_COMPARE_ERROR_RANGE)
                             ? TSL_EXIT_USAGE : TSL_EXIT_INPUT, "%s", error->message);

      csv = tsl_changes_format_csv ((const TslChangeRow * const *) rows->pdata, rows->len, (guint) top);
      /* Kept only if the file did not change while it was read, and
       * without warnings, which a cached table would not repeat. */
      if (keyed && warnings->len == 0 && tsl_changes_source_query (request->path, &after) &&
          memcmp (&before, &after, sizeof before) == 0)
        tsl_changes_cache_save (&before, request, (guint) top, csv);
    }

  out = tsl_cli_open_output (output, &error);
  if (out == NULL)
    return tsl_cli_fail (TSL_EXIT_INPUT, "%s", error->message);
  if (!g_output_stream_write_all (out, csv, strlen (csv), NULL, NULL, &error) ||
      !g_output_stream_close (out, NULL, &error))
    return tsl_cli_fail (TSL_EXIT_INPUT, "%s", error->message);
  return TSL_EXIT_OK;
}
