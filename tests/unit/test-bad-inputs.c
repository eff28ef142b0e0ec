/* test-bad-inputs.c: every file of tests/data/bad/ through the reader API
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * tests/data/bad/EXPECTED says, per file, whether it is refused (an error
 * "FILE:LINE:COLUMN: ..." containing the message) or read (a warning
 * containing it). Each file is read whole and in small random chunks, and
 * both must give the same outcome. Huge and deeply nested inputs are made
 * here rather than committed.
 */
#include <stdlib.h>
#include <string.h>

#include <gio/gio.h>

#include "tsl-reader.h"
#include "tsl-snapshot.h"

typedef struct {
  char *name;
  int   status;
  char *message;  /* NULL for "-" */
} Expectation;

static void
expectation_free (gpointer data)
{
  Expectation *e = data;

  g_free (e->name);
  g_free (e->message);
  g_free (e);
}

static TslTrace *
read_bytes (const char   *name,
            const guint8 *data,
            gsize         len,
            guint         seed,
            GError      **error)
{
  g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_COUNT, 64, 1);
  g_autoptr(TslReader) reader = tsl_reader_new (trace, name);
  g_autoptr(GRand) rand = g_rand_new_with_seed (seed);
  gsize off = 0;

  while (off < len)
    {
      gsize r = g_rand_int_range (rand, 1, 4000);
      gsize n = seed == 0 ? len - off : MIN (len - off, r);

      if (!tsl_reader_feed (reader, data + off, n, error))
        return NULL;
      off += n;
    }
  if (!tsl_reader_finish (reader, error))
    return NULL;

  /* What was read must also be drawable. */
  tsl_snapshot_unref (tsl_snapshot_new (trace));
  return g_steal_pointer (&trace);
}

static gboolean
has_position (const char *message,
              const char *name)
{
  const char *p;

  if (!g_str_has_prefix (message, name) || message[strlen (name)] != ':')
    return FALSE;
  p = message + strlen (name) + 1;
  for (int part = 0; part < 2; part++)
    {
      if (!g_ascii_isdigit (*p))
        return FALSE;
      while (g_ascii_isdigit (*p))
        p++;
      if (*p++ != ':')
        return FALSE;
    }
  return *p == ' ';
}

static void
check_outcome (const char   *name,
               const guint8 *data,
               gsize         len,
               int           status,
               const char   *message)
{
  for (guint seed = 0; seed < 3; seed++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(TslTrace) trace = read_bytes (name, data, len, seed, &error);

      if (status == 1)
        {
          g_assert_null (trace);
          g_assert_nonnull (error);
          if (!has_position (error->message, name))
            g_error ("%s: “%s” lacks FILE:LINE:COLUMN", name, error->message);
          if (message != NULL && strstr (error->message, message) == NULL)
            g_error ("%s: “%s” does not say “%s”", name, error->message, message);
        }
      else
        {
          g_auto(GStrv) warnings = NULL;
          gboolean found = message == NULL;

          if (error != NULL)
            g_error ("%s: expected to be read, got “%s” (chunking %u)", name, error->message, seed);
          warnings = tsl_trace_dup_warnings (trace);
          for (guint i = 0; warnings[i] != NULL && !found; i++)
            found = strstr (warnings[i], message) != NULL;
          if (!found)
            g_error ("%s: no warning says “%s”", name, message);
        }
    }
}

static void
test_manifest (gconstpointer data)
{
  const Expectation *e = data;
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "bad", e->name, NULL);
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;
  gsize len;

  g_file_get_contents (path, &contents, &len, &error);
  g_assert_no_error (error);
  check_outcome (e->name, (const guint8 *) contents, len, e->status, e->message);
}

static void
test_deep_nesting (void)
{
  const guint depth = 100000;
  const char *head = "[{\"ph\":\"X\",\"ts\":1,\"dur\":2,\"name\":\"a\",\"pid\":1,\"tid\":1,\"args\":{\"a\":";
  const char *tail = "}},{\"ph\":\"X\",\"ts\":5,\"dur\":2,\"name\":\"b\",\"pid\":1,\"tid\":1}]";
  g_autoptr(GString) s = g_string_new (head);
  g_autoptr(GString) obj = g_string_new (head);
  g_autoptr(GString) ss = g_string_new ("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
                                        "\"shared\":{\"frames\":[{\"name\":\"a\",\"x\":");

  for (guint i = 0; i < depth; i++)
    {
      g_string_append_c (s, '[');
      g_string_append (obj, "{\"a\":");
      g_string_append_c (ss, '[');
    }
  /* Unclosed: truncated at the deepest point, inside the only event. */
  check_outcome ("deep-unclosed.json", (const guint8 *) s->str, s->len, 1, "ends inside an event");

  for (guint i = 0; i < depth; i++)
    {
      g_string_append_c (s, ']');
      g_string_append_c (obj, '}');
      g_string_append_c (ss, ']');
    }
  g_string_append (s, tail);
  g_string_append (obj, tail);
  g_string_append (ss, "}]},\"profiles\":[]}");
  check_outcome ("deep-array.json", (const guint8 *) s->str, s->len, 0, NULL);
  check_outcome ("deep-object.json", (const guint8 *) obj->str, obj->len, 0, NULL);
  /* No profile: read, but nothing to show. */
  check_outcome ("deep.speedscope.json", (const guint8 *) ss->str, ss->len, 1, "nothing to show");
}

static void
test_huge_line (void)
{
  g_autoptr(GString) s = g_string_sized_new (21 * 1024 * 1024);
  g_autoptr(TslTrace) trace = NULL;
  g_autoptr(GError) error = NULL;
  guint n = 0;

  /* A 20 MB trace on one line, as some exporters write it. */
  g_string_append_c (s, '[');
  while (s->len < 20 * 1024 * 1024)
    g_string_append_printf (s, "%s{\"ph\":\"X\",\"ts\":%u,\"dur\":2,\"name\":\"n%u\",\"pid\":1,\"tid\":%u}",
                            n > 0 ? "," : "", n, n % 997, n % 4), n++;
  g_string_append_c (s, ']');
  trace = read_bytes ("huge-line.json", (const guint8 *) s->str, s->len, 1, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (tsl_trace_get_events (trace), ==, n);
  g_clear_object (&trace);

  /* One 20 MB name. */
  g_string_assign (s, "[{\"ph\":\"X\",\"ts\":1,\"dur\":2,\"pid\":1,\"tid\":1,\"name\":\"");
  while (s->len < 20 * 1024 * 1024)
    g_string_append (s, "abcdefghijklmnopqrstuvwxyz");
  g_string_append (s, "\"}]");
  check_outcome ("huge-name.json", (const guint8 *) s->str, s->len, 0,
                 "names longer than 16384 bytes were cut");
}

/* `perf script --header` output whose comments pass the sniffer's 64 KiB:
 * still perf script (it was CSV split on the comments' commas), in any
 * chunking. */
static void
test_perf_long_header (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "bad", "perf-long-header.txt", NULL);
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;
  gsize len;

  g_file_get_contents (path, &contents, &len, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (len, >, 64 * 1024);
  for (guint seed = 0; seed < 3; seed++)
    {
      g_autoptr(TslTrace) trace = read_bytes ("perf-long-header.txt", (const guint8 *) contents,
                                              len, seed, &error);

      g_assert_no_error (error);
      g_assert_cmpstr (tsl_trace_get_format (trace), ==, "perf-script");
      g_assert_cmpuint (tsl_trace_get_events (trace), ==, 3);
    }
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(GPtrArray) expectations = g_ptr_array_new_with_free_func (expectation_free);
  g_autofree char *manifest = NULL;
  g_autofree char *contents = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GError) error = NULL;

  g_test_init (&argc, &argv, NULL);

  manifest = g_test_build_filename (G_TEST_DIST, "data", "bad", "EXPECTED", NULL);
  g_file_get_contents (manifest, &contents, NULL, &error);
  g_assert_no_error (error);
  lines = g_strsplit (contents, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto(GStrv) parts = NULL;
      Expectation *e;
      g_autofree char *test_name = NULL;

      if (lines[i][0] == '#' || lines[i][0] == '\0')
        continue;
      parts = g_strsplit (lines[i], " ", 3);
      g_assert_cmpuint (g_strv_length (parts), ==, 3);
      e = g_new0 (Expectation, 1);
      e->name = g_strdup (parts[0]);
      e->status = atoi (parts[1]);
      e->message = g_str_equal (parts[2], "-") ? NULL : g_strdup (parts[2]);
      g_ptr_array_add (expectations, e);
      test_name = g_strdup_printf ("/bad-inputs/%s", e->name);
      g_test_add_data_func (test_name, e, test_manifest);
    }
  g_assert_cmpuint (expectations->len, >=, 40);

  g_test_add_func ("/bad-inputs/deep-nesting", test_deep_nesting);
  g_test_add_func ("/bad-inputs/huge-line", test_huge_line);
  g_test_add_func ("/bad-inputs/perf-long-header", test_perf_long_header);

  return g_test_run ();
}
