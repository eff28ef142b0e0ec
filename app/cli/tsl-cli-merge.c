/* tsl-cli-merge.c: `timeslice merge`, sampler states into one
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "tsl-cli-merge"

#include "config.h"

#include "tsl-cli-private.h"
#include "tsl-trace-state.h"

/* "runs/before.tss" → "before". */
static char *
group_name (const char *path)
{
  g_autofree char *base = g_path_get_basename (path);

  if (g_str_has_suffix (base, ".tss") && strlen (base) > 4)
    base[strlen (base) - 4] = '\0';
  return g_steal_pointer (&base);
}

int
tsl_cli_merge (int    argc,
               char **argv)
{
  g_autoptr(GOutputStream) out = NULL;
  g_autoptr(TslTrace) all = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *output = NULL;
  gboolean separate = FALSE;
  const GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
      "Write the merged state to OUT (“-” for standard output)", "OUT" },
    { "separate", 0, 0, G_OPTION_ARG_NONE, &separate,
      "The states are of different sources: keep each one’s tracks as a group named after its file", NULL },
    { NULL }
  };

  if (!tsl_cli_parse_options ("merge", "STATE…",
                              "Merges sampler states (from “timeslice sample --state”) into one.\n"
                              "By default they are consecutive parts of one stream, in order, and\n"
                              "the result is what one read of the whole stream would have kept.",
                              entries, &argc, &argv))
    return TSL_EXIT_USAGE;

  if (argc < 2)
    return tsl_cli_fail (TSL_EXIT_USAGE, "merge: expected at least one STATE (see “timeslice merge --help”)");
  if (output == NULL)
    return tsl_cli_fail (TSL_EXIT_USAGE, "merge: expected -o OUT");

  for (int i = 1; i < argc; i++)
    {
      g_autoptr(TslTrace) part = tsl_trace_new_from_state_file (argv[i], &error);
      g_autofree char *group = separate ? group_name (argv[i]) : NULL;

      if (part == NULL)
        return tsl_cli_fail (TSL_EXIT_INPUT, "%s", error->message);
      if (all == NULL && !separate)
        {
          all = g_steal_pointer (&part);
          continue;
        }
      if (all == NULL)
        all = tsl_trace_new (tsl_trace_get_mode (part), tsl_trace_get_k (part), tsl_trace_get_seed (part));
      if (!tsl_trace_merge (all, part, group, separate ? (guint) i - 1 : 0, &error))
        return tsl_cli_fail (TSL_EXIT_INPUT, "merge: %s: %s", argv[i], error->message);
    }

  out = tsl_cli_open_output (output, &error);
  if (out == NULL)
    return tsl_cli_fail (TSL_EXIT_INPUT, "%s", error->message);
  bytes = tsl_trace_save_state (all);
  if (!g_output_stream_write_all (out, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes),
                                  NULL, NULL, &error) ||
      !g_output_stream_close (out, NULL, &error))
    return tsl_cli_fail (TSL_EXIT_INPUT, "%s", error->message);
  return TSL_EXIT_OK;
}
