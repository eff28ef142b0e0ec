/* test-labels.c: labels of evicted samples are collected (bounded memory)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <math.h>

#include "tsl-trace.h"

static void
check_labels (TslTrace *trace,
              guint     n_tracks)
{
  for (guint t = 0; t < n_tracks; t++)
    {
      guint n = 0;
      const TslSample *samples = tsl_sampler_peek_samples (tsl_trace_track_get_sampler (trace, t), &n);

      g_assert_cmpuint (n, >, 0);
      for (guint i = 0; i < n; i++)
        {
          g_autofree char *expected = g_strdup_printf ("main;work;stack-%u-%" G_GUINT64_FORMAT, t, samples[i].index);

          /* Every held sample still reads its own stack after collections. */
          g_assert_cmpstr (tsl_trace_lookup (trace, samples[i].label), ==, expected);
        }
    }
}

static void
test_bounded (gconstpointer data)
{
  TslSamplerMode mode = GPOINTER_TO_INT (data);
  g_autoptr(TslTrace) trace = tsl_trace_new (mode, 16, 42);
  const guint n_tracks = 3, n_events = 200000;
  guint peak = 0;

  for (guint t = 0; t < n_tracks; t++)
    tsl_trace_ensure_track (trace, TSL_TRACK_THREAD, 1, t + 1, NULL);

  /* Every event has its own stack: the worst case for a string table. */
  for (guint i = 0; i < n_events; i++)
    for (guint t = 0; t < n_tracks; t++)
      if (tsl_trace_offer (trace, t, (gint64) i * 1000, NAN))
        {
          g_autofree char *label = g_strdup_printf ("main;work;stack-%u-%u", t, i);

          tsl_trace_set_label (trace, t, label);
          peak = MAX (peak, tsl_trace_get_n_labels (trace));
        }

  /* A collection starts 4096 labels (or a quarter) past what the last one
   * kept, which is at most tracks × (2K + 1). */
  g_assert_cmpuint (peak, <=, n_tracks * 33 + 4096 + 1);
  check_labels (trace, n_tracks);
}

static void
test_names_untouched (void)
{
  g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_COUNT, 2, 1);
  guint track = tsl_trace_ensure_track (trace, TSL_TRACK_ASYNC, 1, 0, "requests");
  guint32 name = tsl_trace_intern (trace, "GET /index");

  /* Name ids (not collected) and label ids live side by side. */
  for (guint i = 0; i < 20000; i++)
    if (tsl_trace_offer (trace, track, i, NAN))
      {
        if (i % 2)
          tsl_trace_set_label_id (trace, track, name);
        else
          {
            g_autofree char *label = g_strdup_printf ("stack %u", i);
            tsl_trace_set_label (trace, track, label);
          }
      }

  g_assert_cmpstr (tsl_trace_lookup (trace, name), ==, "GET /index");
  {
    guint n = 0;
    const TslSample *samples = tsl_sampler_peek_samples (tsl_trace_track_get_sampler (trace, track), &n);

    for (guint i = 0; i < n; i++)
      {
        const char *label = tsl_trace_lookup (trace, samples[i].label);

        g_assert_nonnull (label);
        if (samples[i].index % 2)
          g_assert_cmpstr (label, ==, "GET /index");
        else
          g_assert_true (g_str_has_prefix (label, "stack "));
      }
  }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_data_func ("/labels/bounded/count", GINT_TO_POINTER (TSL_SAMPLER_COUNT), test_bounded);
  g_test_add_data_func ("/labels/bounded/time", GINT_TO_POINTER (TSL_SAMPLER_TIME), test_bounded);
  g_test_add_func ("/labels/names-untouched", test_names_untouched);
  return g_test_run ();
}
