/* test-range.c: RANGE and duration parsing
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <math.h>
#include <string.h>

#include "tsl-range.h"

static void
test_units (void)
{
  static const struct { const char *text; double ns; } cases[] = {
    { "1", 1e9 }, { "1.5s", 1.5e9 }, { "250ms", 250e6 }, { "3us", 3e3 },
    { "7ns", 7 }, { "2min", 120e9 }, { "0.5 ms", 0.5e6 }, { "1h", 3600e9 },
    { "1,5 s", 1.5e9 }, { "2 min 5 s", 125e9 }, { "3 d", 3 * 86400e9 }, { "1.5µs", 1.5e3 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      double ns = -1;

      g_assert_true (tsl_duration_parse (cases[i].text, &ns, &error));
      g_assert_no_error (error);
      g_assert_cmpfloat_with_epsilon (ns, cases[i].ns, 1e-6);
    }
}

static void
test_ranges (void)
{
  g_autoptr(GError) error = NULL;
  TslRangeSpec spec;
  gint64 start, end;

  g_assert_true (tsl_range_spec_parse ("1s..2500ms", &spec, &error));
  g_assert_no_error (error);
  g_assert_false (spec.is_fraction);
  tsl_range_spec_resolve (&spec, 10 * G_GINT64_CONSTANT (1000000000), &start, &end);
  g_assert_cmpint (start, ==, 1000000000);
  g_assert_cmpint (end, ==, 2500000000);

  g_assert_true (tsl_range_spec_parse ("25%..50%", &spec, &error));
  g_assert_true (spec.is_fraction);
  tsl_range_spec_resolve (&spec, 4000, &start, &end);
  g_assert_cmpint (start, ==, 1000);
  g_assert_cmpint (end, ==, 2000);
}

/* Ends beyond a gint64 saturate: "1e10..1e11" (seconds) once came back
 * negative from llround() and passed for a range inside the trace. */
static void
test_fit (void)
{
  static const struct {
    const char *text;
    gint64      span, start, end;
    TslRangeFit fit;
  } cases[] = {
    { "1e10..1e11", 3000, G_MAXINT64, G_MAXINT64, TSL_RANGE_OUTSIDE },
    { "1e9..1e10", G_MAXINT64, G_GINT64_CONSTANT (1000000000000000000), G_MAXINT64, TSL_RANGE_INSIDE },
    { "2us..1s", 3000, 2000, 3001, TSL_RANGE_CLIPPED },
    { "0..1s", G_MAXINT64, 0, 1000000000, TSL_RANGE_INSIDE },
    { "0%..100%", G_MAXINT64, 0, G_MAXINT64, TSL_RANGE_INSIDE },
    { "50%..100%", 3000, 1500, 3001, TSL_RANGE_INSIDE },
    { "1us..3us", 3000, 1000, 3000, TSL_RANGE_INSIDE },
    { "3us..4us", 3000, 3000, 3001, TSL_RANGE_CLIPPED },
    /* Past the end by 1 % of its length or less: the usual "..end". */
    { "0..100.5us", 100000, 0, 100500, TSL_RANGE_INSIDE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      TslRangeSpec spec;
      gint64 start = -1, end = -1;

      g_test_message ("%s in a span of %" G_GINT64_FORMAT " ns", cases[i].text, cases[i].span);
      g_assert_true (tsl_range_spec_parse (cases[i].text, &spec, &error));
      g_assert_no_error (error);
      g_assert_cmpint (tsl_range_spec_fit (&spec, cases[i].span, &start, &end), ==, cases[i].fit);
      g_assert_cmpint (start, ==, cases[i].start);
      g_assert_cmpint (end, ==, cases[i].end);
    }
}

static void
test_bad_ranges (void)
{
  static const char *bad[] = {
    "", "1s", "2s..1s", "1s..1s", "1..2..3", "x..2", "1parsec..2", "10%..2s",
    "-1..2", "50%..150%", "nan..1", "1..inf",
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;
      TslRangeSpec spec;

      g_assert_false (tsl_range_spec_parse (bad[i], &spec, &error));
      g_assert_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE);
      /* The message names what the user typed. */
      g_assert_nonnull (strstr (error->message, bad[i]));
    }
}

static void
test_format_reads_back (void)
{
  const double values[] = { 12, 1500, 2.5e6, 3.25e9, 125e9, 7200e9, 3 * 86400e9 };

  /* Whatever the locale's decimal separator, what is shown parses back. */
  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    {
      g_autofree char *text = tsl_duration_format (values[i]);
      double ns = 0;

      g_assert_true (tsl_duration_parse (text, &ns, NULL));
      g_assert_cmpfloat_with_epsilon (ns / values[i], 1.0, 1e-3);
    }
}

static void
test_format (void)
{
  static const struct { double ns; const char *text; } cases[] = {
    { 12, "12 ns" }, { 1500, "1.5 µs" }, { 2.5e6, "2.5 ms" }, { 3e9, "3 s" },
    { 125e9, "2 min 5 s" }, { 7200e9, "2 h" }, { 36 * 3600e9, "36 h" }, { 3 * 86400e9, "3 d" },
    /* Ruler ticks: whole units, no "0 s" and no decimal hours. */
    { 600e9, "10 min" }, { 4200e9, "1 h 10 min" }, { 119.7e9, "2 min" }, { 3725e9, "1 h 2 min 5 s" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = tsl_duration_format (cases[i].ns);
      g_assert_cmpstr (text, ==, cases[i].text);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/range/units", test_units);
  g_test_add_func ("/range/ranges", test_ranges);
  g_test_add_func ("/range/fit", test_fit);
  g_test_add_func ("/range/bad", test_bad_ranges);
  g_test_add_func ("/range/format", test_format);
  g_test_add_func ("/range/format-reads-back", test_format_reads_back);
  return g_test_run ();
}
