/* tsl-cli.c: subcommand dispatch
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "tsl-cli"

#include "config.h"

#include <string.h>

#include "tsl-cli-private.h"

/* Add a command here when it exists; --help lists exactly these. */
static const TslCliCommand commands[] = {
  { "info", "Describe a trace: format, span, events, tracks, warnings", tsl_cli_info },
  { "sample", "Write the kept samples of every track as CSV, or the sampler state", tsl_cli_sample },
  { "merge", "Merge sampler states of parts of a stream, or of several sources", tsl_cli_merge },
  { "compare", "Compare ranges A and B of every series with bootstrap CIs", tsl_cli_compare },
  { "changes", "Find when each series and function changed, ranked by effect", tsl_cli_changes },
  { "export", "Draw the timeline or a flame graph as PNG/SVG/PDF, or write CSV or .folded", tsl_cli_export },
  { NULL }
};

static const TslCliCommand *
find_command (const char *name)
{
  if (name == NULL)
    return NULL;

  for (guint i = 0; commands[i].name != NULL; i++)
    {
      if (strcmp (commands[i].name, name) == 0)
        return &commands[i];
    }

  return NULL;
}

gboolean
tsl_cli_is_command (const char *name)
{
  return find_command (name) != NULL;
}

gboolean
tsl_cli_claims_argument (const char *arg)
{
  if (arg == NULL)
    return FALSE;
  if (tsl_cli_is_command (arg))
    return TRUE;

  /* A file name usually has a dot or a slash; a word that is not a file
   * here is a mistyped command. */
  if (!g_ascii_islower (arg[0]))
    return FALSE;
  for (const char *p = arg; *p != '\0'; p++)
    if (!g_ascii_islower (*p) && !g_ascii_isdigit (*p) && *p != '-' && *p != '_')
      return FALSE;

  return !g_file_test (arg, G_FILE_TEST_EXISTS);
}

char *
tsl_cli_describe_commands (void)
{
  GString *str = g_string_new ("Commands (run headless, no display needed):\n");

  for (guint i = 0; commands[i].name != NULL; i++)
    g_string_append_printf (str, "  %-9s %s\n", commands[i].name, commands[i].synopsis);

  g_string_append (str, "\nRun “timeslice COMMAND --help” for a command’s options.");
  return g_string_free (str, FALSE);
}

int
tsl_cli_run (int    argc,
             char **argv)
{
  const TslCliCommand *command;

  g_return_val_if_fail (argc >= 2, TSL_EXIT_USAGE);

  command = find_command (argv[1]);
  if (command == NULL)
    return tsl_cli_fail (TSL_EXIT_USAGE, "unknown command “%s” (see “timeslice --help”)", argv[1]);

  return command->run (argc - 1, argv + 1);
}
