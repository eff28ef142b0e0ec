/* test-i18n.c: the core's messages reach the user in the user's language
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The core is a static library without a textdomain() of its own: its
 * messages use GETTEXT_PACKAGE explicitly (glib/gi18n-lib.h), so they follow
 * the catalogue main() binds. Here the catalogue is the one built in po/.
 */
#include "config.h"

#include <locale.h>
#include <string.h>

#include <glib/gi18n-lib.h>
#include <gio/gio.h>

#include "tsl-range.h"
#include "tsl-read-stream.h"

static void
test_range_error (void)
{
  g_autoptr(GError) error = NULL;
  TslRangeSpec spec;

  g_assert_false (tsl_range_spec_parse ("soon", &spec, &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "n’est pas un intervalle"));
}

static void
test_reader_error (void)
{
  g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_COUNT, 10, 1);
  g_autoptr(GInputStream) stream = g_memory_input_stream_new ();
  g_autoptr(GError) error = NULL;

  g_assert_false (tsl_read_stream (trace, stream, "vide.json", 0, NULL, NULL, NULL, &error));
  g_assert_error (error, TSL_READER_ERROR, TSL_READER_ERROR_EMPTY);
  g_assert_cmpstr (error->message, ==, "vide.json:1:1\u00a0: le fichier est vide");
}

static void
test_warning (void)
{
  g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_COUNT, 10, 1);
  g_autoptr(GInputStream) stream = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) warnings = NULL;
  const char *text = "[{\"ph\":\"X\",\"ts\":1,\"dur\":2,\"name\":\"a\",\"pid\":1,\"tid\":1},"
                     "{\"ph\":\"X\",\"name\":\"b\",\"pid\":1,\"tid\":1}]";

  stream = g_memory_input_stream_new_from_data (text, -1, NULL);
  g_assert_true (tsl_read_stream (trace, stream, "t.json", 0, NULL, NULL, NULL, &error));
  g_assert_no_error (error);
  warnings = tsl_trace_dup_warnings (trace);
  g_assert_nonnull (warnings);
  g_assert_cmpstr (warnings[0], ==, "un événement sans «\u00a0ts\u00a0» a été ignoré");
}

int
main (int   argc,
      char *argv[])
{
  /* French where the system has it; otherwise LANGUAGE alone picks the
   * catalogue (glibc honours it in any locale but plain "C"). */
  g_setenv ("LANGUAGE", "fr", TRUE);
  g_unsetenv ("LC_MESSAGES");
  g_setenv ("LC_ALL", "fr_FR.UTF-8", TRUE);
  if (setlocale (LC_ALL, "") == NULL)
    {
      g_setenv ("LC_ALL", "C.UTF-8", TRUE);
      g_assert_nonnull (setlocale (LC_ALL, ""));
    }
  /* As main() does, with the catalogue of the build tree. */
  bindtextdomain (GETTEXT_PACKAGE, TSL_BUILD_LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/i18n/range-error", test_range_error);
  g_test_add_func ("/i18n/reader-error", test_reader_error);
  g_test_add_func ("/i18n/warning", test_warning);

  return g_test_run ();
}
