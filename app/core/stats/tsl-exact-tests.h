/* tsl-exact-tests.h: exact tests where the bootstrap is the wrong tool
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Exact two-sided binomial test of k successes in n with probability p,
 * summing every outcome no more likely than k (scipy.stats.binomtest). */
double            tsl_binomial_test             (guint64              k,
                                                 guint64              n,
                                                 double               p);
/* Poisson rates: n_a events over exposure e_a against n_b over e_b; given
 * n_a + n_b, n_b ~ Binomial (n_a + n_b, e_b / (e_a + e_b)) under H0. */
double            tsl_rate_test                 (guint64              n_a,
                                                 double               e_a,
                                                 guint64              n_b,
                                                 double               e_b);
/* Exact permutation test of max(B) − max(A) (two-sided, |d| ≥ |d_obs|) over
 * every split of the pooled items into groups of n_a and n_b: only the rank
 * of each group's largest item matters, so the distribution is a sum of
 * O(n_a + n_b) terms after one sort. NAN when a group is empty. */
double            tsl_permutation_test_max      (const double        *a,
                                                 gsize                n_a,
                                                 const double        *b,
                                                 gsize                n_b);
/* Block bootstrap support. */
double            tsl_lag1_autocorrelation      (const double        *x,
                                                 gsize                n);
/* Politis & White (2004) automatic block length for the circular block
 * bootstrap, with the Patton, Politis & White (2009) correction; ≥ 1. */
double            tsl_block_length              (const double        *x,
                                                 gsize                n);

/* Standard normal distribution and its inverse. */
double            tsl_ndtr                      (double               x);
double            tsl_ndtri                     (double               p);

G_END_DECLS
