/* tsl-cli-compare.c: `timeslice compare`, which series changed from A to B
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "tsl-cli-compare"

#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tsl-block-test.h"
#include "tsl-cli-private.h"
#include "tsl-compare.h"
#include "tsl-range-summary.h"

#define DEFAULT_ROUNDS 10000
#define MAX_ROUNDS     10000000

static gboolean
parse_confidence (const char *text,
                  double     *confidence)
{
  char *end = NULL;

  *confidence = g_ascii_strtod (text, &end);
  return end != text && *end == '\0' && *confidence > 0 && *confidence < 1;
}

/* Why a too-few row was not tested, naming the rule that applied, e.g.
 * "too few calls (1 vs 1)" (as the window says, untranslated). */
static char *
too_few_text (const TslCompareRow *row)
{
  const char *unit = row->unit != NULL ? row->unit : "";
  const char *what = row->duration || g_str_has_prefix (unit, "ns") || strcmp (unit, "fraction") == 0
                     ? "calls" : "points";

  if (row->min_units == 0 && MIN (row->n_a, row->n_b) < TSL_BLOCK_MIN_OBSERVATIONS)
    return g_strdup_printf ("too few %s (%" G_GUINT64_FORMAT " vs %" G_GUINT64_FORMAT ")",
                            what, row->n_a, row->n_b);
  if (row->min_units == 0)
    return g_strdup_printf ("no variation to test (%" G_GUINT64_FORMAT " vs %" G_GUINT64_FORMAT " %s)",
                            row->n_a, row->n_b, what);
  return g_strdup_printf ("too few independent %s (%" G_GUINT64_FORMAT " vs %" G_GUINT64_FORMAT
                          ", in %u vs %u time blocks; at least %u a side)",
                          what, row->n_a, row->n_b, row->units_a, row->units_b, row->min_units);
}

static void
print_details (GPtrArray *rows)
{
  for (guint i = 0; i < rows->len; i++)
    {
      const TslCompareRow *row = g_ptr_array_index (rows, i);
      g_autofree char *why = row->test == TSL_COMPARE_TEST_TOO_FEW ? too_few_text (row)
                             : row->test == TSL_COMPARE_TEST_TOO_DEPENDENT
                             ? g_strdup ("too dependent to test at this length") : NULL;
      /* A series is named after the trace's names: no raw escapes on a terminal. */
      g_autofree char *series = tsl_cli_printable (row->series);

      fprintf (stderr, "timeslice: %s %s: n_a=%" G_GUINT64_FORMAT " n_b=%" G_GUINT64_FORMAT " test=%s%s%s%s\n",
               series, row->stat, row->n_a, row->n_b,
               tsl_compare_test_to_string (row->test), row->bca ? " interval=bca" : "",
               why != NULL ? ": " : "", why != NULL ? why : "");
    }
}

/* Rows said but not tested: how many, and the first as an example. */
static void
print_too_few (GPtrArray *rows)
{
  const TslCompareRow *first = NULL;
  guint n = 0;
  g_autofree char *why = NULL;
  g_autofree char *series = NULL;

  for (guint i = 0; i < rows->len; i++)
    {
      const TslCompareRow *row = g_ptr_array_index (rows, i);

      if (row->test != TSL_COMPARE_TEST_TOO_FEW)
        continue;
      first = first != NULL ? first : row;
      n++;
    }
  if (n == 0)
    return;
  why = too_few_text (first);
  series = tsl_cli_printable (first->series);
  fprintf (stderr, "timeslice: %u row%s not tested (method too-few: fewer than %d calls or points a side, "
           "or time blocks holding them (%d for calls in bursts), or no variation), e.g. %s %s: %s\n",
           n, n == 1 ? "" : "s", TSL_BLOCK_MIN_OBSERVATIONS, TSL_COMPARE_MIN_BURSTY_UNITS, series, first->stat, why);
}

/* Rows whose dependence outlasts the ranges (long memory): how many, and
 * the first as an example. */
static void
print_too_dependent (GPtrArray *rows)
{
  const TslCompareRow *first = NULL;
  g_autofree char *series = NULL;
  guint n = 0;

  for (guint i = 0; i < rows->len; i++)
    {
      const TslCompareRow *row = g_ptr_array_index (rows, i);

      if (row->test != TSL_COMPARE_TEST_TOO_DEPENDENT)
        continue;
      first = first != NULL ? first : row;
      n++;
    }
  if (n == 0)
    return;
  series = tsl_cli_printable (first->series);
  fprintf (stderr, "timeslice: %u row%s not tested (method too-dependent: too dependent to test at this "
           "length, the series moving more slowly than the ranges are long), e.g. %s %s\n",
           n, n == 1 ? "" : "s", series, first->stat);
}

static int
write_csv (const char *output,
           const char *csv)
{
  g_autoptr(GOutputStream) out = NULL;
  g_autoptr(GError) error = NULL;

  out = tsl_cli_open_output (output, &error);
  if (out == NULL)
    return tsl_cli_fail (TSL_EXIT_INPUT, "%s", error->message);

  if (!g_output_stream_write_all (out, csv, strlen (csv), NULL, NULL, &error) ||
      !g_output_stream_close (out, NULL, &error))
    return tsl_cli_fail (TSL_EXIT_INPUT, "%s", error->message);

  return TSL_EXIT_OK;
}

/* --a alone: the range's exact summary instead of a table of changes. */
static int
summarize (const TslCompareRequest *request,
           const char              *output)
{
  g_autoptr(GPtrArray) rows = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *csv = NULL;

  rows = tsl_range_summary_run (request, NULL, NULL, &error);
  if (rows == NULL)
    return tsl_cli_fail (g_error_matches (error, TSL_COMPARE_ERROR, TSL_COMPARE_ERROR_RANGE) ||
                         g_error_matches (error, TSL_COMPARE_ERROR, TSL_COMPARE_ERROR_NO_INPUT)
                         ? TSL_EXIT_USAGE : TSL_EXIT_INPUT, "%s", error->message);

  csv = tsl_range_summary_format_csv ((const TslSummaryRow * const *) rows->pdata, rows->len);
  return write_csv (output, csv);
}

int
tsl_cli_compare (int    argc,
                 char **argv)
{
  g_autofree char *csv = NULL;
  g_autoptr(TslCompareRequest) request = tsl_compare_request_new ();
  g_autoptr(GPtrArray) rows = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) warnings = NULL;
  g_autofree char *range_a = NULL;
  g_autofree char *range_b = NULL;
  g_autofree char *stat = NULL;
  g_autofree char *method = NULL;
  g_autofree char *confidence = NULL;
  g_autofree char *seed = NULL;
  g_autofree char *output = NULL;
  gboolean verbose = FALSE;
  int rounds = DEFAULT_ROUNDS;
  int k = TSL_CLI_DEFAULT_K;
  const GOptionEntry entries[] = {
    { "a", 0, 0, G_OPTION_ARG_STRING, &range_a,
      "Range A, e.g. 1s..2s or 0%..50% (from the trace start, half-open; of BEFORE "
      "with two files, default all of it)", "RANGE" },
    { "b", 0, 0, G_OPTION_ARG_STRING, &range_b,
      "Range B; without it, a summary of A alone (track,name,calls,total_s,self_s,"
      "mean_s,share,samples,n,mean,min,max); of AFTER with two files, default all", "RANGE" },
    { "stat", 0, 0, G_OPTION_ARG_STRING, &stat,
      "sum, mean, median, p95, max or count for metrics; share, count, sum, or a duration's mean, "
      "median, p95 or max for functions (default: a gauge's time-weighted mean, a counter's rate, "
      "a function's share of its thread plus its mean duration, and the same two of its "
      "thread (CPU) time where the trace has it: cpu_share, cpu_mean)", "S" },
    { "method", 0, 0, G_OPTION_ARG_STRING, &method,
      "two-sample (default) or seed (the seed’s one-sample test, for comparison)", "M" },
    { "rounds", 0, 0, G_OPTION_ARG_INT, &rounds,
      "Bootstrap rounds (default 10000)", "R" },
    { "confidence", 0, 0, G_OPTION_ARG_STRING, &confidence,
      "Confidence level (default 0.95)", "C" },
    { "seed", 0, 0, G_OPTION_ARG_STRING, &seed,
      "Seed of the resampling and sampling (default 0x5EED)", "S" },
    { "k", 0, 0, G_OPTION_ARG_INT, &k,
      "Keep K to 2K points per track and range (default 2000)", "N" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
      "Write the CSV to OUT instead of standard output", "OUT" },
    { "verbose", 'v', 0, G_OPTION_ARG_NONE, &verbose,
      "Print each row’s points per side and test on standard error", NULL },
    { NULL }
  };

  if (!tsl_cli_parse_options ("compare", "FILE | BEFORE AFTER",
                              "Compares ranges A and B of every series: exact values, intervals\n"
                              "from time blocks; writes CSV: series,stat,a_value,b_value,\n"
                              "change_pct,ci_low_pct,ci_high_pct,p_value,q_value,significant,\n"
                              "a_n,b_n,method,unit,note (\"waiting\": wall time grew, CPU\n"
                              "time did not)\n"
                              "\n"
                              "With two files, A is read from BEFORE and B from AFTER, each range\n"
                              "from its own file’s start (default: the whole of each file), and\n"
                              "series are matched by name (thread and function, metric)",
                              entries, &argc, &argv))
    return TSL_EXIT_USAGE;

  if (argc != 2 && argc != 3)
    return tsl_cli_fail (TSL_EXIT_USAGE, "compare: expected FILE, or BEFORE and AFTER (see “timeslice compare --help”)");

  if (argc == 3)
    {
      /* Two runs: each range defaults to its whole file. */
      if (range_a == NULL)
        range_a = g_strdup ("0%..100%");
      if (range_b == NULL)
        range_b = g_strdup ("0%..100%");
      if (g_str_equal (argv[1], "-") || g_str_equal (argv[2], "-"))
        return tsl_cli_fail (TSL_EXIT_USAGE,
                             "compare: with two files, neither can be standard input: each range is re-read");
      request->path_b = g_strdup (argv[2]);
    }

  if (range_a == NULL)
    return tsl_cli_fail (TSL_EXIT_USAGE, "compare: --a is required");

  if (!tsl_range_spec_parse (range_a, &request->a, &error) ||
      (range_b != NULL && !tsl_range_spec_parse (range_b, &request->b, &error)))
    return tsl_cli_fail (TSL_EXIT_USAGE, "compare: %s", error->message);

  if (stat != NULL)
    {
      /* Thread (CPU) time: the share and the mean of it, where the trace has it. */
      request->cpu_stat = g_str_has_prefix (stat, "cpu_");
      if (request->cpu_stat ? !tsl_stat_from_string (stat + 4, &request->stat) ||
                              (request->stat != TSL_STAT_SHARE && request->stat != TSL_STAT_MEAN)
                            : !tsl_stat_from_string (stat, &request->stat))
        return tsl_cli_fail (TSL_EXIT_USAGE,
                             "compare: --stat must be sum, mean, median, p95, max, count, share, "
                             "cpu_share or cpu_mean, not “%s”", stat);
      request->has_stat = TRUE;
    }

  if (method != NULL && !tsl_compare_method_from_string (method, &request->method))
    return tsl_cli_fail (TSL_EXIT_USAGE, "compare: --method must be “two-sample” or “seed”, not “%s”", method);

  if (rounds < 1 || rounds > MAX_ROUNDS)
    return tsl_cli_fail (TSL_EXIT_USAGE, "compare: --rounds must be between 1 and %d", MAX_ROUNDS);

  if (confidence != NULL && !parse_confidence (confidence, &request->confidence))
    return tsl_cli_fail (TSL_EXIT_USAGE, "compare: --confidence must be a number between 0 and 1, not “%s”",
                         confidence);

  if (seed != NULL && !tsl_cli_parse_seed (seed, &request->seed))
    return tsl_cli_fail (TSL_EXIT_USAGE, "compare: --seed must be a non-negative integer, not “%s”", seed);

  if (!tsl_cli_check_k ("compare", k))
    return TSL_EXIT_USAGE;

  request->rounds = (guint) rounds;
  request->k = (guint) k;
  request->path = g_strdup (argv[1]);
  request->budget = tsl_budget_ref (tsl_cli_get_budget ());

  if (range_b == NULL)
    return summarize (request, output);

  rows = tsl_compare_run (request, NULL, &warnings, &error);

  for (guint i = 0; warnings != NULL && warnings[i] != NULL; i++)
    tsl_cli_fail (0, "warning: %s", warnings[i]);

  if (rows == NULL)
    return tsl_cli_fail (g_error_matches (error, TSL_COMPARE_ERROR, TSL_COMPARE_ERROR_RANGE)
                         ? TSL_EXIT_USAGE : TSL_EXIT_INPUT, "%s", error->message);

  if (verbose)
    print_details (rows);
  else
    {
      print_too_few (rows);
      print_too_dependent (rows);
    }

  csv = tsl_compare_format_csv ((const TslCompareRow * const *) rows->pdata, rows->len);
  return write_csv (output, csv);
}
