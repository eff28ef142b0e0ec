/* test-labels.c: labels of evicted samples are collected (bounded memory)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <math.h>

#include "tsl-label-store.h"
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

/* tsl_trace_join_later(): a path's text made when read reads as the path
 * interned at once would, through nested joins, names holding ';', the
 * length bound and the label store's collections. */
static void
test_joins (void)
{
  g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_COUNT, 4, 7);
  guint track = tsl_trace_ensure_track (trace, TSL_TRACK_THREAD, 1, 1, NULL);
  guint32 main_id = tsl_trace_intern (trace, "main");
  guint32 semi = tsl_trace_intern (trace, "a;b");
  guint32 leaf = tsl_trace_intern (trace, "leaf");
  guint32 j1 = tsl_trace_join_later (trace, main_id, semi, 512);
  guint32 j2 = tsl_trace_join_later (trace, j1, leaf, 512);
  guint32 same = tsl_trace_join_later (trace, main_id, semi, 512);
  guint32 interned = tsl_trace_intern_joined (trace, main_id, semi, 512);
  guint32 kept[3];

  g_assert_true (j1 & TSL_JOIN_TAG);
  g_assert_false (j1 & TSL_LABEL_TAG);
  g_assert_cmpuint (j1, !=, same);
  /* Nested joins read back head first; the same text from two joins. */
  g_assert_cmpstr (tsl_trace_lookup (trace, j2), ==, "main;a;b;leaf");
  g_assert_cmpstr (tsl_trace_lookup (trace, j1), ==, "main;a;b");
  g_assert_cmpstr (tsl_trace_lookup (trace, same), ==, tsl_trace_lookup (trace, interned));
  /* Read twice: made once. */
  g_assert_true (tsl_trace_lookup (trace, j2) == tsl_trace_lookup (trace, j2));

  /* The length bound counts the joined text ("main;a;b;leaf" is 13). */
  g_assert_cmpuint (tsl_trace_join_later (trace, j1, leaf, 12), ==, 0);
  g_assert_cmpuint (tsl_trace_join_later (trace, j1, leaf, 13), !=, 0);
  /* Unknown ids, a join as tail, ids of the label store. */
  g_assert_cmpuint (tsl_trace_join_later (trace, 0, leaf, 512), ==, 0);
  g_assert_cmpuint (tsl_trace_join_later (trace, main_id, 99999, 512), ==, 0);
  g_assert_cmpuint (tsl_trace_join_later (trace, main_id, j1, 512), ==, 0);
  g_assert_cmpuint (tsl_trace_join_later (trace, TSL_JOIN_TAG | 12345, leaf, 512), ==, 0);
  g_assert_cmpuint (tsl_trace_join_later (trace, TSL_LABEL_TAG | 1, leaf, 512), ==, 0);
  g_assert_null (tsl_trace_lookup (trace, TSL_JOIN_TAG | 12345));

  /* Held by samples among labels of the store, through its collections
   * (which renumber only the store's ids). */
  kept[0] = j1;
  kept[1] = j2;
  kept[2] = tsl_trace_join_later (trace, j2, main_id, 512);
  for (guint i = 0; i < 40000; i++)
    if (tsl_trace_offer (trace, track, i, NAN))
      {
        if (i % 2)
          tsl_trace_set_label_id (trace, track, kept[i % 3]);
        else
          {
            g_autofree char *label = g_strdup_printf ("stack %u", i);
            tsl_trace_set_label (trace, track, label);
          }
      }
  {
    guint n = 0;
    const TslSample *samples = tsl_sampler_peek_samples (tsl_trace_track_get_sampler (trace, track), &n);
    const char *texts[] = { "main;a;b", "main;a;b;leaf", "main;a;b;leaf;main" };

    g_assert_cmpuint (n, >, 0);
    for (guint i = 0; i < n; i++)
      if (samples[i].index % 2)
        g_assert_cmpstr (tsl_trace_lookup (trace, samples[i].label), ==, texts[samples[i].index % 3]);
      else
        g_assert_true (g_str_has_prefix (tsl_trace_lookup (trace, samples[i].label), "stack "));
  }
}

typedef struct {
  TslTrace *trace;
  guint32   first;
  guint     n;
  gboolean  ok;
} JoinReader;

static gpointer
read_joins (gpointer data)
{
  JoinReader *r = data;

  r->ok = TRUE;
  for (guint i = 0; i < r->n; i++)
    {
      g_autofree char *expected = g_strdup_printf ("root;n%u;n%u", i, i);
      const char *text = tsl_trace_lookup (r->trace, (r->first + 2 * i) | TSL_JOIN_TAG);

      r->ok = r->ok && g_strcmp0 (text, expected) == 0;
    }
  return NULL;
}

/* A trace no one feeds is read by threads without its lock (tsl-trace.h):
 * the joins they read at once are each made once, whole. */
static void
test_joins_threads (void)
{
  g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_COUNT, 4, 7);
  guint32 root = tsl_trace_intern (trace, "root");
  guint32 first = 0;
  const guint n = 2000;
  JoinReader readers[4];
  GThread *threads[4];

  for (guint i = 0; i < n; i++)
    {
      g_autofree char *name = g_strdup_printf ("n%u", i);
      guint32 id = tsl_trace_intern (trace, name);
      guint32 head = tsl_trace_join_later (trace, root, id, 512);
      guint32 path = tsl_trace_join_later (trace, head, id, 512);

      if (i == 0)
        first = head & ~TSL_JOIN_TAG;
      g_assert_cmpuint (path & ~TSL_JOIN_TAG, ==, first + 2 * i + 1);
    }
  for (guint t = 0; t < G_N_ELEMENTS (readers); t++)
    {
      readers[t] = (JoinReader) { trace, first + 1, n, FALSE };
      threads[t] = g_thread_new ("joins", read_joins, &readers[t]);
    }
  for (guint t = 0; t < G_N_ELEMENTS (readers); t++)
    {
      g_thread_join (threads[t]);
      g_assert_true (readers[t].ok);
    }
}

/* tsl_trace_offer_labelled() keeps what tsl_trace_offer() and
 * tsl_trace_set_label_id() keep, in both modes. */
static void
test_offer_labelled (gconstpointer data)
{
  TslSamplerMode mode = GPOINTER_TO_INT (data);
  g_autoptr(TslTrace) a = tsl_trace_new (mode, 8, 3);
  g_autoptr(TslTrace) b = tsl_trace_new (mode, 8, 3);
  guint ta = tsl_trace_ensure_track (a, TSL_TRACK_THREAD, 1, 1, NULL);
  guint tb = tsl_trace_ensure_track (b, TSL_TRACK_THREAD, 1, 1, NULL);
  guint32 names_a[5], names_b[5];
  guint na = 0, nb = 0;
  const TslSample *sa, *sb;

  for (guint i = 0; i < 5; i++)
    {
      g_autofree char *name = g_strdup_printf ("f%u", i);

      names_a[i] = tsl_trace_intern (a, name);
      names_b[i] = tsl_trace_intern (b, name);
    }
  for (guint i = 0; i < 30000; i++)
    {
      gint64 t = (gint64) i * 1000 + (i * 7919) % 1000;
      double dur = (double) ((i * 104729) % 5000);

      if (tsl_trace_offer (a, ta, t, dur))
        tsl_trace_set_label_id (a, ta, names_a[i % 5]);
      tsl_trace_offer_labelled (b, tb, t, dur, names_b[i % 5]);
    }
  sa = tsl_sampler_peek_samples (tsl_trace_track_get_sampler (a, ta), &na);
  sb = tsl_sampler_peek_samples (tsl_trace_track_get_sampler (b, tb), &nb);
  g_assert_cmpuint (na, ==, nb);
  g_assert_cmpuint (na, >, 0);
  for (guint i = 0; i < na; i++)
    {
      g_assert_cmpuint (sa[i].index, ==, sb[i].index);
      g_assert_cmpint (sa[i].time_ns, ==, sb[i].time_ns);
      g_assert_cmpstr (tsl_trace_lookup (a, sa[i].label), ==, tsl_trace_lookup (b, sb[i].label));
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
  g_test_add_func ("/labels/joins", test_joins);
  g_test_add_func ("/labels/joins-threads", test_joins_threads);
  g_test_add_data_func ("/labels/offer-labelled/count", GINT_TO_POINTER (TSL_SAMPLER_COUNT), test_offer_labelled);
  g_test_add_data_func ("/labels/offer-labelled/time", GINT_TO_POINTER (TSL_SAMPLER_TIME), test_offer_labelled);
  return g_test_run ();
}
