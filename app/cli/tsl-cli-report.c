/* tsl-cli-report.c: `timeslice export --report`, one document to send
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "tsl-cli-report"

#include "config.h"

#include <math.h>
#include <string.h>

#include "tsl-changes-load.h"
#include "tsl-cli-private.h"
#include "tsl-compare.h"
#include "tsl-report.h"
#include "tsl-snapshot.h"

/* A range the compare measures, as the timeline marks it. */
static void
resolve (const TslRangeSpec *spec,
         gint64              span_ns,
         gint64             *start_ns,
         gint64             *end_ns)
{
  if (tsl_range_spec_fit (spec, span_ns, start_ns, end_ns) == TSL_RANGE_OUTSIDE)
    *start_ns = *end_ns = span_ns;
}

static char **
merge_warnings (GStrv read,
                GStrv compare)
{
  g_autoptr(GStrvBuilder) all = g_strv_builder_new ();

  if (read != NULL)
    g_strv_builder_addv (all, (const char **) read);
  if (compare != NULL)
    g_strv_builder_addv (all, (const char **) compare);
  return g_strv_builder_end (all);
}

/* Without --a and --b: A and B either side of the file's most important
 * change point (its halves when none is significant); with them: the
 * significant change points from the start of A to the end of B, listed.
 * The search is `timeslice changes`'s, cache included. (transfer full)
 * (nullable): the rows `report` points into; NULL when the file could not
 * be searched, which the report then does not mention. */
static GPtrArray *
search_changes (const TslCliReportOptions *o,
                TslCompareRequest         *request,
                gint64                     span,
                TslReport                 *report)
{
  g_autoptr(TslCompareRequest) search = tsl_compare_request_new ();
  g_autoptr(GPtrArray) rows = NULL;
  g_autoptr(GError) error = NULL;
  gboolean given = o->range_a != NULL || o->range_b != NULL;
  double before_s, after_s;
  guint n = 0;

  search->path = g_strdup (o->path);
  search->k = o->k;
  search->seed = o->seed;
  search->confidence = o->confidence;
  search->budget = tsl_budget_ref (tsl_cli_get_budget ());
  search->a = (TslRangeSpec) { 0, 1, TRUE };
  if (given)
    {
      gint64 a0, a1, b0, b1;

      resolve (&request->a, span, &a0, &a1);
      resolve (&request->b, span, &b0, &b1);
      search->a = (TslRangeSpec) { (double) MIN (a0, b0), (double) MAX (a1, b1), FALSE };
    }
  rows = tsl_changes_load (search, NULL, NULL, NULL, &error);
  if (rows == NULL)
    {
      tsl_cli_fail (0, "warning: change points not searched: %s", error->message);
      return NULL;
    }
  while (n < rows->len && ((TslChangeRow *) g_ptr_array_index (rows, n))->significant)
    n++;

  if (given)
    {
      report->searched = TRUE;
      report->changes = (const TslChangeRow * const *) rows->pdata;
      report->n_changes = n;
    }
  else
    {
      report->ranges_found = TRUE;
      if (n > 0 && tsl_changes_stretches (rows, 0, 0, (double) span / 1e9, &before_s, &after_s))
        {
          const TslChangeRow *top = g_ptr_array_index (rows, 0);

          request->a = (TslRangeSpec) { round (before_s * 1e9), round (top->time_s * 1e9), FALSE };
          request->b = (TslRangeSpec) { round (top->time_s * 1e9), MIN (round (after_s * 1e9), (double) span), FALSE };
          report->chosen = top;
        }
    }
  return g_steal_pointer (&rows);
}

int
tsl_cli_export_report (const TslCliReportOptions *o)
{
  g_autoptr(GPtrArray) changes = NULL;
  g_autoptr(TslCompareRequest) request = tsl_compare_request_new ();
  g_autoptr(GFile) input = g_file_new_for_path (o->path);
  g_autoptr(GFile) file = g_file_new_for_path (o->output);
  g_autoptr(TslTrace) trace = NULL;
  g_autoptr(TslSnapshot) snapshot = NULL;
  g_autoptr(TslFlame) flame = NULL;
  g_autoptr(GPtrArray) rows = NULL;
  g_autoptr(GOutputStream) table = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) read_warnings = NULL;
  g_auto(GStrv) compare_warnings = NULL;
  g_auto(GStrv) warnings = NULL;
  g_autofree char *sha256 = NULL;
  g_autofree char *title = g_path_get_basename (o->path);
  TslReportFormat format;
  TslRenderOptions options;
  TslReport report = { 0 };
  TslFlameSelection selection = { NULL, 0, TRUE, TSL_FLAME_WEIGHT_AUTO };
  guint64 size = 0;
  gint64 span;

  if (!tsl_report_format_from_name (o->output, &format, &error))
    return tsl_cli_fail (TSL_EXIT_USAGE, "export: %s", error->message);
  if (g_str_equal (o->path, "-"))
    return tsl_cli_fail (TSL_EXIT_USAGE, "export: --report needs a file, not “-”: it names, hashes and re-reads it");
  if ((o->range_a != NULL && !tsl_range_spec_parse (o->range_a, &request->a, &error)) ||
      (o->range_b != NULL && !tsl_range_spec_parse (o->range_b, &request->b, &error)))
    return tsl_cli_fail (TSL_EXIT_USAGE, "export: %s", error->message);

  sha256 = tsl_report_digest_file (input, &size, NULL, &error);
  if (sha256 == NULL)
    return tsl_cli_fail (TSL_EXIT_INPUT, "%s", error->message);

  /* Time mode, as the window draws: slices line up across tracks. */
  trace = tsl_cli_load (o->path, TSL_SAMPLER_TIME, o->k, TSL_CLI_DEFAULT_SEED, &error);
  if (trace == NULL)
    return tsl_cli_fail (TSL_EXIT_INPUT, "%s", error->message);
  read_warnings = tsl_trace_dup_warnings (trace);
  snapshot = tsl_snapshot_new (trace);
  span = tsl_snapshot_get_span (snapshot);

  /* The compare exactly as `timeslice compare` runs it, so its CSV is the
   * table this report shows. */
  request->rounds = o->rounds;
  request->confidence = o->confidence;
  request->seed = o->seed;
  request->k = o->k;
  request->keep_effects = TRUE;
  request->path = g_strdup (o->path);
  request->budget = tsl_budget_ref (tsl_cli_get_budget ());
  changes = search_changes (o, request, span, &report);
  /* One pass over the ranges gives the table and its exact flame graph:
   * every thread, merged, as the window's flame page draws it. */
  rows = tsl_flame_compare_run (request, &selection, &flame, &compare_warnings, NULL, &error);
  if (rows == NULL)
    return tsl_cli_fail (g_error_matches (error, TSL_COMPARE_ERROR, TSL_COMPARE_ERROR_RANGE)
                         ? TSL_EXIT_USAGE : TSL_EXIT_INPUT, "%s", error->message);
  warnings = merge_warnings (read_warnings, compare_warnings);

  /* The table is written now but published (closed) only after the report,
   * so a report that fails leaves no table: dropping the stream discards it. */
  if (o->table != NULL)
    {
      g_autofree char *csv = tsl_compare_format_csv ((const TslCompareRow * const *) rows->pdata, rows->len);

      table = tsl_cli_open_output (o->table, &error);
      if (table == NULL || !g_output_stream_write_all (table, csv, strlen (csv), NULL, NULL, &error))
        return tsl_cli_fail (TSL_EXIT_INPUT, "%s", error->message);
    }

  tsl_render_options_init (&options, snapshot, 1000, 100);
  options.title = title;
  options.draw_note = TRUE;
  options.has_a = options.has_b = TRUE;
  resolve (&request->a, span, &options.a_start_ns, &options.a_end_ns);
  resolve (&request->b, span, &options.b_start_ns, &options.b_end_ns);

  report.path = o->path;
  report.size = size;
  report.sha256 = sha256;
  report.trace = trace;
  report.snapshot = snapshot;
  report.timeline = &options;
  report.request = request;
  report.rows = (const TslCompareRow * const *) rows->pdata;
  report.n_rows = rows->len;
  report.warnings = (const char * const *) warnings;
  report.top = o->top;

  /* A file that cannot be re-read by range: the kept samples' differential;
   * an empty tree (no stacks) leaves the page out. */
  if (flame == NULL)
    {
      flame = tsl_flame_new_diff (snapshot, options.a_start_ns, options.a_end_ns,
                                  snapshot, options.b_start_ns, options.b_end_ns,
                                  &selection, request, NULL, &error);
      if (flame == NULL)
        return tsl_cli_fail (TSL_EXIT_INPUT, "%s", error->message);
    }
  report.flame = flame;

  if (!tsl_report_write (&report, format, file, NULL, &error) ||
      (table != NULL && !g_output_stream_close (table, NULL, &error)))
    return tsl_cli_fail (TSL_EXIT_INPUT, "%s", error->message);
  return TSL_EXIT_OK;
}
