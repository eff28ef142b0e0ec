/* test-first-view.c: the view a file opens on holds its activity
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Issue 32 item 6: 12 events at 9.6 s of a recording whose activity ends
 * at 1.8 s left 85 % of the first view blank.
 */
#include <string.h>

#include "tsl-first-view.h"
#include "tsl-reader.h"
#include "tsl-snapshot.h"

/* 20,000 calls over 0–1.8 s on two threads, then `late` at 9.6 s. */
static TslSnapshot *
read_trace (guint    late,
            gboolean exact)
{
  g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_TIME, 500, 0x5EED);
  g_autoptr(TslReader) reader = tsl_reader_new (trace, "late.json");
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) s = g_string_new ("[");

  if (exact)
    tsl_trace_record_exact (trace, 100000, 1000000);
  for (guint i = 0; i < 20000; i++)
    g_string_append_printf (s, "%s{\"ph\":\"X\",\"name\":\"work\",\"pid\":1,\"tid\":%u,\"ts\":%u,\"dur\":100}",
                            i == 0 ? "" : ",", 1 + i % 2, i * 90);
  for (guint i = 0; i < late; i++)
    g_string_append_printf (s, ",{\"ph\":\"X\",\"name\":\"late\",\"pid\":1,\"tid\":3,\"ts\":%u,\"dur\":10}",
                            9600000 + i * 100);
  g_string_append (s, "]");
  g_assert_true (tsl_reader_feed (reader, (const guint8 *) s->str, s->len, &error));
  g_assert_true (tsl_reader_finish (reader, &error));
  g_assert_no_error (error);
  return tsl_snapshot_new (trace);
}

static void
check_late (gboolean exact)
{
  g_autoptr(TslSnapshot) snapshot = read_trace (12, exact);
  gint64 start = -1, end = -1;
  guint64 outside = 0;

  g_assert_cmpint (tsl_snapshot_get_exact (snapshot, NULL, NULL), ==, exact);
  g_assert_true (tsl_first_view_find (snapshot, TSL_FIRST_VIEW_FRACTION, &start, &end, &outside));
  /* The activity, 0–1.8 s, with a little room; not the late events. */
  g_assert_cmpint (start, ==, 0);
  g_assert_cmpint (end, >=, G_GINT64_CONSTANT (1800000000) - 200000);
  g_assert_cmpint (end, <, G_GINT64_CONSTANT (2000000000));
  g_assert_cmpuint (outside, ==, 12);
}

static void
test_late_events_sampled (void)
{
  check_late (FALSE);
}

static void
test_late_events_exact (void)
{
  check_late (TRUE);
}

/* Activity over the whole span: the first view is all of it. */
static void
test_even_activity (void)
{
  g_autoptr(TslSnapshot) snapshot = read_trace (0, FALSE);
  gint64 start, end;
  guint64 outside;

  g_assert_false (tsl_first_view_find (snapshot, TSL_FIRST_VIEW_FRACTION, &start, &end, &outside));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/first-view/late-events-sampled", test_late_events_sampled);
  g_test_add_func ("/first-view/late-events-exact", test_late_events_exact);
  g_test_add_func ("/first-view/even-activity", test_even_activity);

  return g_test_run ();
}
