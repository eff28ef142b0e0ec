/* tsl-cli-process.c: what both executables do first, and the hand-over to the window
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * `timeslice` links the core only: loading GTK, libadwaita and their ~70
 * libraries costs ~18 ms before main() (a program that only links them:
 * 19.4 ms against 1.2 ms), a tenth of a cached compare. Without a command
 * it replaces itself with the window's executable, same argv and pid.
 */
#define G_LOG_DOMAIN "tsl-cli"

#include "config.h"

#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <glib/gi18n.h>

#include "tsl-cli.h"
#include "tsl-atomic-output-stream.h"

#define WINDOW_EXECUTABLE "timeslice-gui"

/* Where the catalogues are: run from a build tree (`build-aux/dev run`, the
 * ui tests), the ones `meson compile` made in BUILD/po, as the compiled-in
 * LOCALEDIR holds nothing until `meson install`. */
static char *
find_locale_dir (void)
{
  g_autofree char *self = g_file_read_link ("/proc/self/exe", NULL);
  g_autofree char *dir = NULL;
  g_autofree char *build = NULL;
  g_autofree char *private = NULL;
  g_autofree char *po = NULL;

  if (self == NULL)
    return g_strdup (LOCALEDIR);
  dir = g_path_get_dirname (self);
  /* BUILD/app/timeslice and BUILD/app/gui/timeslice-gui */
  for (guint up = 0; up < 2 && build == NULL; up++)
    {
      g_autofree char *parent = g_path_get_dirname (dir);

      private = g_build_filename (parent, "meson-private", NULL);
      po = g_build_filename (parent, "po", NULL);
      if (g_file_test (private, G_FILE_TEST_IS_DIR) && g_file_test (po, G_FILE_TEST_IS_DIR))
        build = g_steal_pointer (&po);
      g_clear_pointer (&private, g_free);
      g_clear_pointer (&po, g_free);
      g_free (dir);
      dir = g_steal_pointer (&parent);
    }
  return build != NULL ? g_steal_pointer (&build) : g_strdup (LOCALEDIR);
}

void
tsl_cli_init_process (void)
{
  g_autofree char *locale_dir = find_locale_dir ();

#ifdef __GLIBC__
  /* One heap for every thread. The Chrome reader's model thread would get
   * an arena of its own, and stack labels freed by one thread are not
   * reused by the other: peak RSS of info on 1 GB of Chrome JSON, 27.2
   * MiB with per-thread arenas, 24.5 MiB with one. */
  mallopt (M_ARENA_MAX, 1);
#endif

  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, locale_dir);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  /* An interrupted export leaves no hidden temporary file behind. */
  tsl_atomic_output_stream_remove_temporaries_on_signals ();
}

/* Beside this executable first (a build tree, or a relocated install),
 * then where `meson install` puts it. */
static char *
find_window_executable (void)
{
  g_autofree char *self = g_file_read_link ("/proc/self/exe", NULL);

  if (self != NULL)
    {
      g_autofree char *dir = g_path_get_dirname (self);
      g_autofree char *beside = g_build_filename (dir, WINDOW_EXECUTABLE, NULL);

      if (g_file_test (beside, G_FILE_TEST_IS_EXECUTABLE) &&
          !g_file_test (beside, G_FILE_TEST_IS_DIR))
        return g_steal_pointer (&beside);
    }

  return g_build_filename (LIBEXECDIR, WINDOW_EXECUTABLE, NULL);
}

int
tsl_cli_exec_window (int    argc,
                     char **argv)
{
  g_autofree char *path = find_window_executable ();

  execv (path, argv);
  fprintf (stderr, "timeslice: %s: %s (the window's executable cannot be started)\n",
           path, g_strerror (errno));
  return TSL_EXIT_INPUT;
}
