/* test-changes-load.c: change tables read back from their CSV, and the cache
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The window reads `timeslice changes`'s cached table back into rows:
 * every field must come back as written (names a spreadsheet would run,
 * commas, quotes and newlines included, NaN cells), and a damaged table is
 * an error naming its line, never rows made up.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "tsl-changes-load.h"

static TslChangeRow *
row_new (const char *series,
         const char *stat,
         const char *unit,
         double      time_s,
         double      before,
         double      after,
         double      p,
         gboolean    significant)
{
  TslChangeRow *row = g_new0 (TslChangeRow, 1);

  row->series = g_strdup (series);
  row->stat = stat;
  row->unit = unit;
  row->time_s = time_s;
  row->before = before;
  row->after = after;
  row->change = before != 0 ? after / before - 1 : NAN;
  row->p_value = p;
  row->q_value = p * 3;
  row->significant = significant;
  return row;
}

static void
test_round_trip (void)
{
  g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func ((GDestroyNotify) tsl_change_row_free);
  g_autoptr(GPtrArray) back = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *csv = NULL;

  g_ptr_array_add (rows, row_new ("worker-1/parse", "mean", "ns", 4.0215, 1.2e6, 1.81e6, 1e-9, TRUE));
  g_ptr_array_add (rows, row_new ("=cmd|' /C calc'!A0", "share", "fraction", 0.1, 0.25, 0.5, 0.003, TRUE));
  g_ptr_array_add (rows, row_new ("a,b \"quoted\"\nnext", "calls_per_s", "/s", 1e-7, 3, 2.5, 0.2, FALSE));
  g_ptr_array_add (rows, row_new ("'already", "time_mean", "", 299.50000000050017, 0, 0.93, 0.5, FALSE));
  g_ptr_array_add (rows, row_new ("bytes", "rate_per_s", "/s", 12, 1.5e9, 2e9, NAN, FALSE));

  csv = tsl_changes_format_csv ((const TslChangeRow * const *) rows->pdata, rows->len, 0);
  back = tsl_changes_parse_csv (csv, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (back->len, ==, rows->len);
  for (guint i = 0; i < rows->len; i++)
    {
      const TslChangeRow *a = g_ptr_array_index (rows, i), *b = g_ptr_array_index (back, i);

      g_assert_cmpstr (a->series, ==, b->series);
      /* The same static strings, not copies. */
      g_assert_true (a->stat == b->stat || g_str_equal (a->stat, b->stat));
      g_assert_cmpstr (a->unit, ==, b->unit);
      g_assert_cmpfloat (a->time_s, ==, b->time_s);
      g_assert_cmpfloat (a->before, ==, b->before);
      g_assert_cmpfloat (a->after, ==, b->after);
      if (isnan (a->change))
        g_assert_true (isnan (b->change));
      else
        g_assert_cmpfloat_with_epsilon (a->change, b->change, 1e-12 * MAX (1, fabs (a->change)));
      if (isnan (a->p_value))
        g_assert_true (isnan (b->p_value) && isnan (b->q_value));
      else
        {
          g_assert_cmpfloat (a->p_value, ==, b->p_value);
          g_assert_cmpfloat (a->q_value, ==, b->q_value);
        }
      g_assert_cmpint (a->significant, ==, b->significant);
    }
}

static void
test_damaged (void)
{
  static const struct { const char *csv; const char *message; } cases[] = {
    { "", "line 1: expected the header" },
    { "series,stat\n", "line 1: expected the header" },
    { "series,stat,time_s,before,after,change_pct,p_value,q_value,significant,unit\n"
      "cpu,time_mean,1,2,3,50,0.01,0.02,true,\n"
      "cpu,time_mean,1,2,3,50,0.01,0.02,maybe,\n", "line 3: expected 10 cells" },
    { "series,stat,time_s,before,after,change_pct,p_value,q_value,significant,unit\n"
      "cpu,median,1,2,3,50,0.01,0.02,true,\n", "line 2: expected 10 cells" },
    { "series,stat,time_s,before,after,change_pct,p_value,q_value,significant,unit\n"
      "cpu,time_mean,1x,2,3,50,0.01,0.02,true,\n", "line 2:" },
    { "series,stat,time_s,before,after,change_pct,p_value,q_value,significant,unit\n"
      "\"cpu,time_mean,1,2,3,50,0.01,0.02,true,\n", "line 2:" },
    { "series,stat,time_s,before,after,change_pct,p_value,q_value,significant,unit\n"
      "cpu,time_mean,1,2,3,50,0.01,0.02,true\n", "line 2:" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GPtrArray) rows = tsl_changes_parse_csv (cases[i].csv, &error);

      g_assert_null (rows);
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
      g_assert_nonnull (strstr (error->message, cases[i].message));
    }
}

/* Up to the same series' and statistic's neighbouring change points that
 * split the search (p < TSL_CHANGES_SPLIT_P, significant or not): another
 * series, another statistic or a change the search stopped at does not
 * bound them. */
static void
test_stretches (void)
{
  g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func ((GDestroyNotify) tsl_change_row_free);
  double before, after;

  g_ptr_array_add (rows, row_new ("cpu", "time_mean", "", 30, 1, 2, 1e-9, TRUE));
  g_ptr_array_add (rows, row_new ("cpu", "time_mean", "", 10, 1, 2, 1e-9, TRUE));
  g_ptr_array_add (rows, row_new ("cpu", "time_mean", "", 50, 1, 2, 1e-9, TRUE));
  g_ptr_array_add (rows, row_new ("mem", "time_mean", "", 25, 1, 2, 1e-9, TRUE));
  g_ptr_array_add (rows, row_new ("cpu", "rate_per_s", "/s", 35, 1, 2, 1e-9, TRUE));
  g_ptr_array_add (rows, row_new ("cpu", "time_mean", "", 40, 1, 2, 0.3, FALSE));

  g_assert_true (tsl_changes_stretches (rows, 0, 0, 60, &before, &after));
  g_assert_cmpfloat (before, ==, 10);
  g_assert_cmpfloat (after, ==, 50);
  g_assert_true (tsl_changes_stretches (rows, 1, 0, 60, &before, &after));
  g_assert_cmpfloat (before, ==, 0);
  g_assert_cmpfloat (after, ==, 30);
  g_assert_true (tsl_changes_stretches (rows, 3, 0, 60, &before, &after));
  g_assert_cmpfloat (before, ==, 0);
  g_assert_cmpfloat (after, ==, 60);
  /* Not significant after the correction, but it split the search. */
  g_ptr_array_add (rows, row_new ("cpu", "time_mean", "", 20, 1, 2, 0.01, FALSE));
  g_assert_true (tsl_changes_stretches (rows, 0, 0, 60, &before, &after));
  g_assert_cmpfloat (before, ==, 20);
  g_assert_cmpfloat (after, ==, 50);
  /* A change at the range's start leaves nothing before it. */
  g_assert_false (tsl_changes_stretches (rows, 1, 10, 60, &before, &after));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/changes-load/round-trip", test_round_trip);
  g_test_add_func ("/changes-load/damaged", test_damaged);
  g_test_add_func ("/changes-load/stretches", test_stretches);

  return g_test_run ();
}
