/* main.c: headless subcommands, or the window
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <locale.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <glib/gi18n.h>

#include "tsl-application.h"
#include "tsl-atomic-output-stream.h"
#include "tsl-cli.h"

int
main (int   argc,
      char *argv[])
{
  g_autoptr(TslApplication) app = NULL;

#ifdef __GLIBC__
  /* One heap for every thread. The Chrome reader's model thread would get
   * an arena of its own, and stack labels freed by one thread are not
   * reused by the other: peak RSS of info on 1 GB of Chrome JSON, 27.2
   * MiB with per-thread arenas, 24.5 MiB with one. */
  mallopt (M_ARENA_MAX, 1);
#endif

  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  /* An interrupted export leaves no hidden temporary file behind. */
  tsl_atomic_output_stream_remove_temporaries_on_signals ();

  /* Subcommands never touch GTK, so they run without a display. */
  if (argc > 1 && tsl_cli_claims_argument (argv[1]))
    return tsl_cli_run (argc, argv);

  g_set_application_name (_("Timeslice"));
  app = tsl_application_new ();
  return g_application_run (G_APPLICATION (app), argc, argv);
}
