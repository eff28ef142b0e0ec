/* test-busy.c: the union of overlapping spans against a brute-force one
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Random spans on a small grid (so that many touch and nest), added in a
 * random order, against a per-nanosecond bitmap; the spread over blocks
 * against the bitmap's count per block; and the folded union past the
 * stretch bound between the exact union and the hull.
 */
#include "tsl-busy.h"
#include "tsl-rng.h"

#define GRID 4000

static void
add_random (TslBusy  *busy,
            TslRng   *rng,
            guint8   *bits,
            guint     n,
            guint     longest)
{
  for (guint i = 0; i < n; i++)
    {
      gint64 s = (gint64) tsl_rng_bounded (rng, GRID - longest);
      gint64 e = s + (gint64) tsl_rng_bounded (rng, longest + 1);   /* empty ones too */

      tsl_busy_add (busy, s, e);
      for (gint64 t = s; t < e; t++)
        bits[t] = 1;
    }
}

static void
test_busy_exact (void)
{
  TslRng rng;

  tsl_rng_init (&rng, 0x5EED, 0);
  for (guint round = 0; round < 200; round++)
    {
      g_autoptr(TslBusy) busy = tsl_busy_new (G_MAXUINT);
      guint8 bits[GRID] = { 0 };
      gint64 edges[9];
      double out[8] = { 0 }, total;
      guint longest = 1 + (guint) tsl_rng_bounded (&rng, 300);

      add_random (busy, &rng, bits, 1 + (guint) tsl_rng_bounded (&rng, 60), longest);
      /* Blocks of uneven widths, not covering the whole grid. */
      edges[0] = (gint64) tsl_rng_bounded (&rng, 200);
      for (guint j = 1; j <= 8; j++)
        edges[j] = edges[j - 1] + 1 + (gint64) tsl_rng_bounded (&rng, 700);
      total = tsl_busy_spread (busy, edges, 8, out);

      {
        double want_total = 0;

        for (guint j = 0; j < 8; j++)
          {
            double want = 0;

            for (gint64 t = edges[j]; t < edges[j + 1] && t < GRID; t++)
              want += bits[t];
            g_assert_cmpfloat (out[j], ==, want);
            want_total += want;
          }
        g_assert_cmpfloat (total, ==, want_total);
      }
      g_assert_false (tsl_busy_get_folded (busy));
    }
}

/* Past the bound, gaps become busy: never less than the union, never more
 * than the stretch from the first start to the last end. */
static void
test_busy_folded (void)
{
  TslRng rng;

  tsl_rng_init (&rng, 0x5EED, 1);
  for (guint round = 0; round < 50; round++)
    {
      g_autoptr(TslBusy) busy = tsl_busy_new (16);
      guint8 bits[GRID] = { 0 };
      gint64 edges[2] = { 0, GRID };
      double out[1] = { 0 }, exact = 0, first = GRID, last = 0;

      add_random (busy, &rng, bits, 400, 5);
      for (guint t = 0; t < GRID; t++)
        if (bits[t])
          {
            exact++;
            first = MIN (first, t);
            last = t + 1;
          }
      g_assert_cmpuint (tsl_busy_get_n (busy), <=, 16);
      g_assert_true (tsl_busy_get_folded (busy));
      tsl_busy_spread (busy, edges, 1, out);
      g_assert_cmpfloat (out[0], >=, exact);
      g_assert_cmpfloat (out[0], <=, last - first);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/busy/exact", test_busy_exact);
  g_test_add_func ("/busy/folded", test_busy_folded);
  return g_test_run ();
}
