/* main.c: `timeslice`, the headless subcommands, or else the window
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * This executable links the core and the command line only, never GTK (a
 * test checks its libraries): a command starts in ~1 ms instead of ~19.
 * Anything that is not a command goes to the window's executable.
 */
#define G_LOG_DOMAIN "tsl-cli"

#include "config.h"

#include "tsl-cli.h"

int
main (int   argc,
      char *argv[])
{
  if (argc > 1 && tsl_cli_claims_argument (argv[1]))
    {
      tsl_cli_init_process ();
      return tsl_cli_run (argc, argv);
    }

  return tsl_cli_exec_window (argc, argv);
}
