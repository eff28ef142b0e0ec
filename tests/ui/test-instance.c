/* test-instance.c: a second `timeslice` hands its command line to the first
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * This process is the primary instance, registered on the session bus under
 * the application id; the built `timeslice` binary is then run as a second
 * instance, from another working directory and with a relative file name and
 * --follow. It must exit 0 at once, and this process must open that file in
 * a window that follows it.
 */
#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "tsl-application.h"
#include "tsl-window-private.h"
#include "test-ui-util.h"

static TslApplication *app;

typedef struct {
  GSubprocess *process;
  gboolean     exited;
  const char  *basename;
} Wait;

static void
on_second_exited (GObject      *source,
                  GAsyncResult *result,
                  gpointer      data)
{
  Wait *wait = data;

  g_assert_true (g_subprocess_wait_check_finish (wait->process, result, NULL));
  wait->exited = TRUE;
}

static TslWindow *
find_window (const char *basename)
{
  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (app)); l != NULL; l = l->next)
    {
      TslWindow *window = l->data;
      g_autofree char *name = NULL;

      if (!TSL_IS_WINDOW (window) || window->file == NULL)
        continue;
      name = g_file_get_basename (window->file);
      if (g_str_equal (name, basename))
        return window;
    }
  return NULL;
}

static gboolean
opened (gpointer data)
{
  Wait *wait = data;

  return wait->exited && find_window (wait->basename) != NULL;
}

/* Runs `timeslice [--follow] BASENAME` as a second instance in a new
 * directory holding that file; returns the window it opened here. */
static TslWindow *
open_from_second_instance (const char  *basename,
                           gboolean     follow,
                           char       **dir_out,
                           char       **path_out)
{
  const char *timeslice = g_getenv ("TSL_TIMESLICE");
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("timeslice-instance-XXXXXX", &error);
  g_autofree char *path = NULL;
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  Wait wait = { NULL, FALSE, basename };
  TslWindow *window;

  g_assert_no_error (error);
  g_assert_nonnull (timeslice);
  path = g_build_filename (dir, wait.basename, NULL);
  g_assert_true (g_file_set_contents (path, "[{\"ph\":\"i\",\"ts\":1,\"pid\":1,\"tid\":1,\"name\":\"a\"},\n",
                                      -1, &error));

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_NONE);
  g_subprocess_launcher_set_cwd (launcher, dir);
  wait.process = follow
    ? g_subprocess_launcher_spawn (launcher, &error, timeslice, "--follow", wait.basename, NULL)
    : g_subprocess_launcher_spawn (launcher, &error, timeslice, wait.basename, NULL);
  g_assert_no_error (error);
  g_subprocess_wait_check_async (wait.process, NULL, on_second_exited, &wait);

  iterate_until (opened, &wait, 60000);
  window = find_window (wait.basename);
  g_clear_object (&wait.process);
  *dir_out = g_steal_pointer (&dir);
  *path_out = g_steal_pointer (&path);
  return window;
}

static void
test_follow_from_second_instance (void)
{
  g_autofree char *dir = NULL;
  g_autofree char *path = NULL;
  TslWindow *window = open_from_second_instance ("growing.json", TRUE, &dir, &path);

  g_assert_true (gtk_toggle_button_get_active (window->follow_button));

  gtk_window_destroy (GTK_WINDOW (window));
  g_unlink (path);
  g_rmdir (dir);
}

/* A colon does not make a file name a URI: GIO read this one as a URI of
 * scheme "trace-2024-01-01t12", a file with no path that could not be read. */
static void
test_name_with_colon (void)
{
  g_autofree char *dir = NULL;
  g_autofree char *path = NULL;
  TslWindow *window = open_from_second_instance ("trace-2024-01-01T12:30:00.json", FALSE, &dir, &path);
  g_autofree char *opened_path = g_file_get_path (window->file);

  g_assert_cmpstr (opened_path, ==, path);

  gtk_window_destroy (GTK_WINDOW (window));
  g_unlink (path);
  g_rmdir (dir);
}

static gboolean
merged_window_opened (gpointer data)
{
  Wait *wait = data;
  TslWindow *window = find_window (wait->basename);

  return wait->exited && window != NULL && tsl_window_get_n_files (window) == 2;
}

static gboolean
has_exited (gpointer process)
{
  return g_subprocess_get_identifier (process) == NULL;
}

static int
run_second (const char         *dir,
            const char * const *args)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDERR_SILENCE);
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GError) error = NULL;

  g_ptr_array_add (argv, (gpointer) g_getenv ("TSL_TIMESLICE"));
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  g_subprocess_launcher_set_cwd (launcher, dir);
  process = g_subprocess_launcher_spawnv (launcher, (const char * const *) argv->pdata, &error);
  g_assert_no_error (error);
  /* This process answers its command line: keep the main loop running. */
  g_subprocess_wait_async (process, NULL, NULL, NULL);
  iterate_until (has_exited, process, 60000);
  return g_subprocess_get_exit_status (process);
}

/* `timeslice --merge --offset b.json=1.5s a.json b.json` from a second
 * instance: one window holding both files, b moved by 1.5 s; a bad offset
 * or --offset without --merge is a usage error (exit 2) and opens nothing. */
static void
test_merge_from_second_instance (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("timeslice-merge-XXXXXX", &error);
  g_autofree char *a = g_build_filename (dir, "a.json", NULL);
  g_autofree char *b = g_build_filename (dir, "b.json", NULL);
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_NONE);
  const char *bad[][6] = {
    { "--merge", "--offset", "b.json=soon", "a.json", "b.json", NULL },
    { "--merge", "--offset", "c.json=1s", "a.json", "b.json", NULL },
    { "--offset", "b.json=1s", "a.json", "b.json", NULL },
  };
  Wait wait = { NULL, FALSE, "a.json" };
  guint windows = g_list_length (gtk_application_get_windows (GTK_APPLICATION (app)));
  TslWindow *window;

  g_assert_no_error (error);
  g_assert_true (g_file_set_contents (a, "[{\"ph\":\"X\",\"ts\":1,\"dur\":5,\"pid\":1,\"tid\":1,\"name\":\"a\"}]\n", -1, NULL));
  g_assert_true (g_file_set_contents (b, "[{\"ph\":\"X\",\"ts\":9000000,\"dur\":5,\"pid\":1,\"tid\":1,\"name\":\"a\"}]\n", -1, NULL));

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    g_assert_cmpint (run_second (dir, bad[i]), ==, 2);
  g_assert_cmpuint (g_list_length (gtk_application_get_windows (GTK_APPLICATION (app))), ==, windows);

  g_subprocess_launcher_set_cwd (launcher, dir);
  wait.process = g_subprocess_launcher_spawn (launcher, &error, g_getenv ("TSL_TIMESLICE"), "--merge",
                                              "--offset", "b.json=1.5s", "a.json", "b.json", NULL);
  g_assert_no_error (error);
  g_subprocess_wait_check_async (wait.process, NULL, on_second_exited, &wait);
  iterate_until (merged_window_opened, &wait, 60000);
  window = find_window ("a.json");
  g_assert_cmpint (tsl_window_get_file_offset (window, 0), ==, 0);
  g_assert_cmpint (tsl_window_get_file_offset (window, 1), ==, 1500000000);
  g_clear_object (&wait.process);

  gtk_window_destroy (GTK_WINDOW (window));
  g_unlink (a);
  g_unlink (b);
  g_rmdir (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GError) error = NULL;
  int ret;

  g_test_init (&argc, &argv, NULL);

  if (!ui_test_init ())
    return 77;

  /* Unique, unlike the other ui tests: this process must be the primary. */
  app = tsl_application_new ();
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, &error));
  g_assert_no_error (error);
  g_assert_false (g_application_get_is_remote (G_APPLICATION (app)));
  /* Kept alive while no window is open, as g_application_run() would. */
  g_application_hold (G_APPLICATION (app));

  g_test_add_func ("/instance/follow-from-second-instance", test_follow_from_second_instance);
  g_test_add_func ("/instance/name-with-colon", test_name_with_colon);
  g_test_add_func ("/instance/merge-from-second-instance", test_merge_from_second_instance);

  ret = g_test_run ();
  g_application_release (G_APPLICATION (app));
  g_clear_object (&app);
  return ret;
}
