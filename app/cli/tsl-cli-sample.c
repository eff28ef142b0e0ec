/* tsl-cli-sample.c: `timeslice sample`, the kept samples of every track as CSV
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "tsl-cli-sample"

#include "config.h"


#include "tsl-cli-private.h"
#include "tsl-export.h"
#include "tsl-read-stream.h"
#include "tsl-trace-state.h"

/* Reads `path` into a trace for a state: count mode numbers each track's
 * events after those of the `after` states (earlier parts of the stream). */
static TslTrace *
load_for_state (const char  *path,
                TslSamplerMode mode,
                guint        k,
                guint64      seed,
                char       **after,
                guint        part,
                guint        n_parts,
                GError     **error)
{
  g_autoptr(TslTrace) trace = tsl_trace_new (mode, k, seed);

  tsl_trace_set_budget (trace, tsl_cli_get_budget ());
  for (guint i = 0; after != NULL && after[i] != NULL; i++)
    {
      g_autoptr(TslTrace) earlier = tsl_trace_new_from_state_file (after[i], error);

      if (earlier == NULL)
        return NULL;
      tsl_trace_count_after (trace, earlier);
    }
  if (n_parts > 0 ? !tsl_read_path_part (trace, path, part, n_parts, error)
                  : !tsl_read_path (trace, path, NULL, NULL, NULL, error))
    return NULL;
  return g_steal_pointer (&trace);
}

/* The most parts: far more than a chunk index has event boundaries to start
 * them at, so a finer split would only add empty parts. */
#define TSL_CLI_MAX_PARTS G_MAXUINT16

/* "I/N" with 1 <= I <= N <= TSL_CLI_MAX_PARTS. */
static gboolean
parse_part (const char *text,
            guint      *part,
            guint      *n_parts)
{
  g_auto(GStrv) halves = g_strsplit (text, "/", -1);
  guint64 i, n;

  if (g_strv_length (halves) != 2 ||
      !g_ascii_string_to_unsigned (halves[0], 10, 1, TSL_CLI_MAX_PARTS, &i, NULL) ||
      !g_ascii_string_to_unsigned (halves[1], 10, 1, TSL_CLI_MAX_PARTS, &n, NULL) || i > n)
    return FALSE;
  *part = (guint) i;
  *n_parts = (guint) n;
  return TRUE;
}

int
tsl_cli_sample (int    argc,
                char **argv)
{
  g_autoptr(GOutputStream) out = NULL;
  g_autoptr(TslTrace) trace = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *mode_str = NULL;
  g_autofree char *seed_str = NULL;
  g_autofree char *output = NULL;
  g_auto(GStrv) after = NULL;
  g_autofree char *part_str = NULL;
  guint part = 0, n_parts = 0;
  gboolean state = FALSE;
  TslSamplerMode mode = TSL_SAMPLER_COUNT;
  guint64 seed = TSL_CLI_DEFAULT_SEED;
  int k = TSL_CLI_DEFAULT_K;
  const GOptionEntry entries[] = {
    { "k", 0, 0, G_OPTION_ARG_INT, &k,
      "Keep K to 2K samples per track (default 2000)", "N" },
    { "mode", 0, 0, G_OPTION_ARG_STRING, &mode_str,
      "Slices of equal event count or equal duration (default count)", "count|time" },
    { "seed", 0, 0, G_OPTION_ARG_STRING, &seed_str,
      "Seed of the sampler’s choices (default 0x5EED)", "S" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
      "Write the CSV to OUT instead of standard output", "OUT" },
    { "state", 0, 0, G_OPTION_ARG_NONE, &state,
      "Write the sampler state (a .tss file, see “timeslice merge”) instead of CSV", NULL },
    { "after", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &after,
      "Count mode: FILE is the part of a stream after the parts whose states are given (repeat for each)", "STATE" },
    { "part", 0, 0, G_OPTION_ARG_STRING, &part_str,
      "With --state: read only the I-th of N equal byte ranges of FILE (for merge)", "I/N" },
    { NULL }
  };

  if (!tsl_cli_parse_options ("sample", "FILE",
                              "Writes the kept samples of every track as CSV:\n"
                              "track,index,time_s,weight,value,label\n"
                              "or, with --state, the sampler state of the whole read.",
                              entries, &argc, &argv))
    return TSL_EXIT_USAGE;

  if (argc != 2)
    return tsl_cli_fail (TSL_EXIT_USAGE, "sample: expected one FILE (see “timeslice sample --help”)");

  if (!tsl_cli_check_k ("sample", k))
    return TSL_EXIT_USAGE;

  if (mode_str == NULL || g_str_equal (mode_str, "count"))
    mode = TSL_SAMPLER_COUNT;
  else if (g_str_equal (mode_str, "time"))
    mode = TSL_SAMPLER_TIME;
  else
    return tsl_cli_fail (TSL_EXIT_USAGE, "sample: --mode must be “count” or “time”, not “%s”", mode_str);

  if (seed_str != NULL && !tsl_cli_parse_seed (seed_str, &seed))
    return tsl_cli_fail (TSL_EXIT_USAGE, "sample: --seed must be a non-negative integer, not “%s”", seed_str);

  if (after != NULL && !state)
    return tsl_cli_fail (TSL_EXIT_USAGE, "sample: --after needs --state");
  if (part_str != NULL && !parse_part (part_str, &part, &n_parts))
    return tsl_cli_fail (TSL_EXIT_USAGE, "sample: --part must be I/N with 1 ≤ I ≤ N ≤ %u, not “%s”",
                         (guint) TSL_CLI_MAX_PARTS, part_str);
  if (part_str != NULL && !state)
    return tsl_cli_fail (TSL_EXIT_USAGE, "sample: --part needs --state");
  if (part > 1 && mode == TSL_SAMPLER_COUNT && after == NULL)
    return tsl_cli_fail (TSL_EXIT_USAGE, "sample: in count mode, --part %u/%u needs --after the states of "
                         "parts 1 to %u (any mode: their event counts number this part's events), "
                         "or --mode time", part, n_parts, part - 1);

  trace = load_for_state (argv[1], mode, (guint) k, seed, after, part, n_parts, &error);
  if (trace == NULL)
    return tsl_cli_fail (TSL_EXIT_INPUT, "%s", error->message);

  out = tsl_cli_open_output (output, &error);
  if (out == NULL)
    return tsl_cli_fail (TSL_EXIT_INPUT, "%s", error->message);

  if (state)
    {
      g_autoptr(GBytes) bytes = tsl_trace_save_state (trace);

      if (!g_output_stream_write_all (out, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes),
                                      NULL, NULL, &error) ||
          !g_output_stream_close (out, NULL, &error))
        return tsl_cli_fail (TSL_EXIT_INPUT, "%s", error->message);
      return TSL_EXIT_OK;
    }

  if (!tsl_export_write_samples (trace, out, NULL, &error) ||
      !g_output_stream_close (out, NULL, &error))
    return tsl_cli_fail (TSL_EXIT_INPUT, "%s", error->message);

  return TSL_EXIT_OK;
}
