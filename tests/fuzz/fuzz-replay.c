/* fuzz-replay.c: runs a fuzz harness over saved inputs, without libFuzzer
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Linked with fuzz-reader.c into a plain unit test: every file in the
 * directories given on the command line (tests/fuzz/regressions/HARNESS/,
 * the inputs that once crashed that harness) goes through
 * LLVMFuzzerTestOneInput, which aborts on a failed check. Inputs that once
 * made it hang ("timeout-*", "slow-unit-*") must also finish within
 * MAX_SECONDS, even under valgrind. Prints TAP.
 */
#include <stdio.h>

#include <glib.h>

#define MAX_SECONDS 20

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);
int LLVMFuzzerInitialize (int *argc, char ***argv);

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return g_strcmp0 (*(char * const *) a, *(char * const *) b);
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);
  int status = 0;

  LLVMFuzzerInitialize (&argc, &argv);

  for (int i = 1; i < argc; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GDir) dir = g_dir_open (argv[i], 0, &error);
      const char *name;

      if (dir == NULL)
        g_error ("%s", error->message);
      while ((name = g_dir_read_name (dir)) != NULL)
        g_ptr_array_add (paths, g_build_filename (argv[i], name, NULL));
    }
  g_ptr_array_sort (paths, compare_names);
  /* An empty or misnamed regression directory would replay nothing. */
  g_assert_cmpuint (paths->len, >, 0);

  printf ("1..%u\n", paths->len);
  for (guint i = 0; i < paths->len; i++)
    {
      const char *path = g_ptr_array_index (paths, i);
      g_autoptr(GError) error = NULL;
      g_autofree char *contents = NULL;
      gsize len;
      gint64 start;
      double seconds;

      if (!g_file_get_contents (path, &contents, &len, &error))
        g_error ("%s", error->message);
      fflush (stdout);
      start = g_get_monotonic_time ();
      LLVMFuzzerTestOneInput ((const guint8 *) contents, len);
      seconds = (g_get_monotonic_time () - start) / 1e6;
      if (seconds > MAX_SECONDS)
        {
          printf ("not ok %u %s # took %.1f s\n", i + 1, path, seconds);
          status = 1;
        }
      else
        printf ("ok %u %s # %.2f s\n", i + 1, path, seconds);
    }

  return status;
}
