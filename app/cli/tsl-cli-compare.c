/* tsl-cli-compare.c: `timeslice compare`, which series changed from A to B
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "tsl-cli-compare"

#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "tsl-cli-private.h"
#include "tsl-compare.h"
#include "tsl-csv.h"

#define DEFAULT_K      2000
#define DEFAULT_ROUNDS 10000
#define DEFAULT_SEED   G_GUINT64_CONSTANT (0x5EED)
#define MAX_K          1000000
#define MAX_ROUNDS     10000000

static const char header[] =
  "series,stat,a_value,b_value,change_pct,ci_low_pct,ci_high_pct,p_value,q_value,significant\n";

static gboolean
parse_seed (const char *text,
            guint64    *seed)
{
  char *end = NULL;

  if (text == NULL || *text == '\0' || *text == '-')
    return FALSE;

  errno = 0;
  /* Base 0 accepts decimal and 0x-prefixed hexadecimal. */
  *seed = g_ascii_strtoull (text, &end, 0);
  return errno == 0 && end != text && *end == '\0';
}

static gboolean
parse_confidence (const char *text,
                  double     *confidence)
{
  char *end = NULL;

  *confidence = g_ascii_strtod (text, &end);
  return end != text && *end == '\0' && *confidence > 0 && *confidence < 1;
}

/* Infinite changes (from 0) are as undefined in a CSV cell as NAN. */
static void
append_number (GString *line,
               double   value)
{
  g_autofree char *text = tsl_csv_format_double (isfinite (value) ? value : NAN);

  g_string_append_c (line, ',');
  g_string_append (line, text);
}

static gboolean
write_table (GPtrArray      *rows,
             GOutputStream  *out,
             GError        **error)
{
  g_autoptr(GString) buf = g_string_new (header);

  for (guint i = 0; i < rows->len; i++)
    {
      const TslCompareRow *row = g_ptr_array_index (rows, i);

      tsl_csv_append_field (buf, row->series);
      g_string_append_c (buf, ',');
      tsl_csv_append_field (buf, row->stat);
      append_number (buf, row->a_value);
      append_number (buf, row->b_value);
      append_number (buf, row->change * 100);
      append_number (buf, row->ci_low * 100);
      append_number (buf, row->ci_high * 100);
      append_number (buf, row->p_value);
      append_number (buf, row->q_value);
      g_string_append (buf, row->significant ? ",true\n" : ",false\n");
    }

  return g_output_stream_write_all (out, buf->str, buf->len, NULL, NULL, error);
}

static void
print_details (GPtrArray *rows)
{
  for (guint i = 0; i < rows->len; i++)
    {
      const TslCompareRow *row = g_ptr_array_index (rows, i);

      fprintf (stderr, "timeslice: %s %s: n_a=%" G_GUINT64_FORMAT " n_b=%" G_GUINT64_FORMAT " test=%s%s\n",
               row->series, row->stat, row->n_a, row->n_b,
               tsl_compare_test_to_string (row->test), row->bca ? " interval=bca" : "");
    }
}

int
tsl_cli_compare (int    argc,
                 char **argv)
{
  g_autoptr(TslCompareRequest) request = tsl_compare_request_new ();
  g_autoptr(GOutputStream) out = NULL;
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
  int k = DEFAULT_K;
  const GOptionEntry entries[] = {
    { "a", 0, 0, G_OPTION_ARG_STRING, &range_a,
      "Range A, e.g. 1s..2s or 0%..50% (from the trace start, half-open)", "RANGE" },
    { "b", 0, 0, G_OPTION_ARG_STRING, &range_b,
      "Range B", "RANGE" },
    { "stat", 0, 0, G_OPTION_ARG_STRING, &stat,
      "sum, mean, median, p95, max or count for metrics; share or count for threads "
      "(default sum for metrics, share for threads)", "S" },
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

  if (!tsl_cli_parse_options ("compare", "FILE",
                              "Compares ranges A and B of every series with bootstrap intervals;\n"
                              "writes CSV: series,stat,a_value,b_value,change_pct,ci_low_pct,\n"
                              "ci_high_pct,p_value,q_value,significant",
                              entries, &argc, &argv))
    return TSL_EXIT_USAGE;

  if (argc != 2)
    return tsl_cli_fail (TSL_EXIT_USAGE, "compare: expected one FILE (see “timeslice compare --help”)");

  if (range_a == NULL || range_b == NULL)
    return tsl_cli_fail (TSL_EXIT_USAGE, "compare: both --a and --b are required");

  if (!tsl_range_spec_parse (range_a, &request->a, &error) ||
      !tsl_range_spec_parse (range_b, &request->b, &error))
    return tsl_cli_fail (TSL_EXIT_USAGE, "compare: %s", error->message);

  if (stat != NULL)
    {
      if (!tsl_stat_from_string (stat, &request->stat))
        return tsl_cli_fail (TSL_EXIT_USAGE,
                             "compare: --stat must be sum, mean, median, p95, max, count or share, not “%s”", stat);
      request->has_stat = TRUE;
    }

  if (method != NULL && !tsl_compare_method_from_string (method, &request->method))
    return tsl_cli_fail (TSL_EXIT_USAGE, "compare: --method must be “two-sample” or “seed”, not “%s”", method);

  if (rounds < 1 || rounds > MAX_ROUNDS)
    return tsl_cli_fail (TSL_EXIT_USAGE, "compare: --rounds must be between 1 and %d", MAX_ROUNDS);

  if (confidence != NULL && !parse_confidence (confidence, &request->confidence))
    return tsl_cli_fail (TSL_EXIT_USAGE, "compare: --confidence must be a number between 0 and 1, not “%s”",
                         confidence);

  if (seed != NULL && !parse_seed (seed, &request->seed))
    return tsl_cli_fail (TSL_EXIT_USAGE, "compare: --seed must be a non-negative integer, not “%s”", seed);

  if (k < 1 || k > MAX_K)
    return tsl_cli_fail (TSL_EXIT_USAGE, "compare: --k must be between 1 and %d", MAX_K);

  request->rounds = (guint) rounds;
  request->k = (guint) k;
  request->path = g_strdup (argv[1]);

  rows = tsl_compare_run (request, NULL, &warnings, &error);

  for (guint i = 0; warnings != NULL && warnings[i] != NULL; i++)
    tsl_cli_fail (0, "warning: %s", warnings[i]);

  if (rows == NULL)
    return tsl_cli_fail (g_error_matches (error, TSL_COMPARE_ERROR, TSL_COMPARE_ERROR_RANGE)
                         ? TSL_EXIT_USAGE : TSL_EXIT_INPUT, "%s", error->message);

  if (verbose)
    print_details (rows);

  out = tsl_cli_open_output (output, &error);
  if (out == NULL)
    return tsl_cli_fail (TSL_EXIT_INPUT, "%s", error->message);

  if (!write_table (rows, out, &error) ||
      !g_output_stream_close (out, NULL, &error))
    return tsl_cli_fail (TSL_EXIT_INPUT, "%s", error->message);

  return TSL_EXIT_OK;
}
