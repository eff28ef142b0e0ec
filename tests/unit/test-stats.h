/* test-stats.h: chi-square goodness of fit for the statistical tests
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <math.h>

#include <glib.h>

#include "tsl-rng.h"

/* A standard normal draw (Box–Muller, one of the pair). */
static inline double
normal (TslRng *rng)
{
  double u = 1 - tsl_rng_double (rng), v = tsl_rng_double (rng);

  return sqrt (-2 * log (u)) * cos (2 * G_PI * v);
}

/* Regularized upper incomplete gamma Q(a, x) (series / Lentz continued
 * fraction, as in Numerical Recipes §6.2): the chi-square p-value is
 * Q(df / 2, stat / 2). */
static inline double
gamma_q (double a,
         double x)
{
  double lead;

  if (x <= 0)
    return 1.0;

  lead = exp (-x + a * log (x) - lgamma (a));
  if (x < a + 1)
    {
      double ap = a, term = 1.0 / a, sum = term;

      for (int n = 0; n < 10000 && fabs (term) > fabs (sum) * 1e-16; n++)
        {
          ap += 1;
          term *= x / ap;
          sum += term;
        }
      return 1.0 - sum * lead;
    }
  else
    {
      double b = x + 1 - a, c = 1e300, d = 1 / b, h = d;

      for (int i = 1; i < 10000; i++)
        {
          double an = -i * (i - a), del;

          b += 2;
          d = an * d + b;
          if (fabs (d) < 1e-300)
            d = 1e-300;
          c = b + an / c;
          if (fabs (c) < 1e-300)
            c = 1e-300;
          d = 1 / d;
          del = d * c;
          h *= del;
          if (fabs (del - 1) < 1e-16)
            break;
        }
      return lead * h;
    }
}

/* p-value of a chi-square goodness-of-fit test against equal cells. */
static inline double
chi_square_uniform (const guint64 *observed,
                    guint          n_cells,
                    double        *stat_out)
{
  guint64 total = 0;
  double expected, stat = 0;

  for (guint i = 0; i < n_cells; i++)
    total += observed[i];
  expected = (double) total / n_cells;
  for (guint i = 0; i < n_cells; i++)
    stat += (observed[i] - expected) * (observed[i] - expected) / expected;

  *stat_out = stat;
  return gamma_q ((n_cells - 1) / 2.0, stat / 2);
}
