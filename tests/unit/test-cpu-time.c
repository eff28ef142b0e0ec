/* test-cpu-time.c: thread (CPU) time of Chrome JSON slices, as the file has it
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * An X event's `tdur`, a B/E pair's difference of `tts`: the exact view
 * keeps each beside its slice, with self CPU time less the direct
 * children's; slices without thread time have none.
 */
#include <math.h>
#include <string.h>
#include <json-glib/json-glib.h>

#include "tsl-reader.h"
#include "tsl-snapshot.h"

static TslSnapshot *
read_exact (const char *name,
            const char *text,
            gsize       len,
            GStrv      *warnings)
{
  g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_TIME, 500, 0x5EED);
  g_autoptr(TslReader) reader = tsl_reader_new (trace, name);
  g_autoptr(GError) error = NULL;

  tsl_trace_record_exact (trace, 100000, 1000000);
  g_assert_true (tsl_reader_feed (reader, (const guint8 *) text, len, &error));
  g_assert_true (tsl_reader_finish (reader, &error));
  g_assert_no_error (error);
  if (warnings != NULL)
    *warnings = tsl_trace_dup_warnings (trace);
  return tsl_snapshot_new (trace);
}

static const TslSnapshotTrack *
find_track (TslSnapshot *snapshot,
            gint64       tid)
{
  for (guint i = 0; i < tsl_snapshot_get_n_tracks (snapshot); i++)
    {
      const TslSnapshotTrack *t = tsl_snapshot_get_track (snapshot, i);

      if (t->kind == TSL_TRACK_THREAD && t->tid == tid)
        return t;
    }
  g_assert_not_reached ();
}

static guint
find_slice (TslSnapshot            *snapshot,
            const TslSnapshotTrack *t,
            const char             *name,
            gint64                  start_us)
{
  for (guint i = 0; i < t->n_slices; i++)
    if (t->slices[i].start_ns + tsl_snapshot_get_start (snapshot) == start_us * 1000 &&
        strcmp (tsl_snapshot_get_frame_name (snapshot, t->slices[i].frame), name) == 0)
      return i;
  g_assert_not_reached ();
}

/* X with tdur, a B/E pair with tts around it, an X without: CPU times,
 * self CPU times and "unknown" where the file says nothing. */
static void
test_synthetic (void)
{
  static const char json[] =
    "[{\"ph\":\"B\",\"name\":\"outer\",\"pid\":1,\"tid\":1,\"ts\":0,\"tts\":10},"
    "{\"ph\":\"X\",\"name\":\"inner\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":2,\"tdur\":1.5,\"tts\":11},"
    "{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":10,\"tts\":16},"
    "{\"ph\":\"X\",\"name\":\"plain\",\"pid\":1,\"tid\":1,\"ts\":20,\"dur\":5},"
    "{\"ph\":\"X\",\"name\":\"parent\",\"pid\":1,\"tid\":2,\"ts\":0,\"dur\":9,\"tdur\":8},"
    "{\"ph\":\"X\",\"name\":\"child\",\"pid\":1,\"tid\":2,\"ts\":1,\"dur\":2}]";
  g_autoptr(TslSnapshot) snapshot = read_exact ("cpu.json", json, strlen (json), NULL);
  const TslSnapshotTrack *t = find_track (snapshot, 1);
  const TslSnapshotTrack *t2 = find_track (snapshot, 2);
  guint outer = find_slice (snapshot, t, "outer", 0);
  guint inner = find_slice (snapshot, t, "inner", 1);
  guint plain = find_slice (snapshot, t, "plain", 20);
  guint parent = find_slice (snapshot, t2, "parent", 0);

  g_assert_true (t->exact);
  g_assert_cmpint (tsl_snapshot_slice_cpu (t, outer), ==, 6000);
  g_assert_cmpint (tsl_snapshot_slice_cpu (t, inner), ==, 1500);
  g_assert_cmpint (tsl_snapshot_slice_self_cpu (t, outer), ==, 4500);
  g_assert_cmpint (tsl_snapshot_slice_cpu (t, plain), ==, -1);
  g_assert_cmpint (tsl_snapshot_slice_self_cpu (t, plain), ==, -1);
  /* A child without thread time: the parent's self CPU time is unknown. */
  g_assert_cmpint (tsl_snapshot_slice_cpu (t2, parent), ==, 8000);
  g_assert_cmpint (tsl_snapshot_slice_self_cpu (t2, parent), ==, -1);
}

static void
test_bad_values (void)
{
  static const char json[] =
    "[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":2,\"tdur\":\"x\"},"
    "{\"ph\":\"B\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":5,\"tts\":30},"
    "{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":9,\"tts\":20}]";
  g_auto(GStrv) warnings = NULL;
  g_autoptr(TslSnapshot) snapshot = read_exact ("bad-cpu.json", json, strlen (json), &warnings);
  const TslSnapshotTrack *t = find_track (snapshot, 1);
  g_autofree char *all = g_strjoinv ("\n", warnings);

  g_assert_cmpint (tsl_snapshot_slice_cpu (t, find_slice (snapshot, t, "a", 0)), ==, -1);
  g_assert_cmpint (tsl_snapshot_slice_cpu (t, find_slice (snapshot, t, "b", 5)), ==, -1);
  g_assert_nonnull (strstr (all, "\"tdur\" of an 'X' event"));
  g_assert_nonnull (strstr (all, "\"tts\" went backwards"));
}

/* A real Chromium 156 recording (200 calls of CrBrowserMain): every call
 * with a tdur has that CPU time, to the nanosecond; the others none. */
static void
test_chromium (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "chrome", "chromium-cpu.json", NULL);
  g_autofree char *text = NULL;
  gsize len;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(TslSnapshot) snapshot = NULL;
  const TslSnapshotTrack *t;
  JsonArray *events;
  guint with_cpu = 0, checked = 0;

  g_assert_true (g_file_get_contents (path, &text, &len, &error));
  snapshot = read_exact ("chromium-cpu.json", text, len, NULL);
  g_assert_true (json_parser_load_from_data (parser, text, len, &error));
  g_assert_no_error (error);
  events = json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)), "traceEvents");
  t = find_track (snapshot, 14256);

  for (guint i = 0; i < t->n_slices; i++)
    with_cpu += tsl_snapshot_slice_cpu (t, i) >= 0;
  for (guint i = 0; i < json_array_get_length (events); i++)
    {
      JsonObject *e = json_array_get_object_element (events, i);
      guint s;

      if (strcmp (json_object_get_string_member (e, "ph"), "X") != 0)
        continue;
      s = find_slice (snapshot, t, json_object_get_string_member (e, "name"),
                      json_object_get_int_member (e, "ts"));
      if (json_object_has_member (e, "tdur"))
        {
          g_assert_cmpint (tsl_snapshot_slice_cpu (t, s), ==,
                           json_object_get_int_member (e, "tdur") * 1000);
          checked++;
        }
    }
  g_assert_cmpuint (checked, ==, 113);
  g_assert_cmpuint (with_cpu, ==, checked);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/cpu-time/synthetic", test_synthetic);
  g_test_add_func ("/cpu-time/bad-values", test_bad_values);
  g_test_add_func ("/cpu-time/chromium", test_chromium);

  return g_test_run ();
}
