/* main.c: `timeslice-gui`, the window (started by `timeslice` without a command)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "tsl-gui"

#include "config.h"

#include <glib/gi18n.h>

#include "tsl-application.h"
#include "tsl-cli.h"

int
main (int   argc,
      char *argv[])
{
  g_autoptr(TslApplication) app = NULL;

  tsl_cli_init_process ();

  g_set_application_name (_("Timeslice"));
  app = tsl_application_new ();
  return g_application_run (G_APPLICATION (app), argc, argv);
}
