/* tsl-time-math.h: arithmetic on nanosecond times that never overflows
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Traces may hold any 64-bit time (±9.2e9 s); the difference of two such
 * times does not fit in a gint64, and signed overflow is undefined. These
 * saturate rather than wrap: a wrapped span once read "-446744073.7 s".
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

static inline gint64
tsl_time_add (gint64 a,
              gint64 b)
{
  gint64 r;

  if (__builtin_add_overflow (a, b, &r))
    return b > 0 ? G_MAXINT64 : G_MININT64;
  return r;
}

static inline gint64
tsl_time_sub (gint64 a,
              gint64 b)
{
  gint64 r;

  if (__builtin_sub_overflow (a, b, &r))
    return b < 0 ? G_MAXINT64 : G_MININT64;
  return r;
}

static inline gint64
tsl_time_mul (gint64 a,
              gint64 b)
{
  gint64 r;

  if (__builtin_mul_overflow (a, b, &r))
    return (a < 0) != (b < 0) ? G_MININT64 : G_MAXINT64;
  return r;
}

/* b − a in ns as a double (for display): never wraps, exact while the
 * difference fits in a gint64. */
static inline double
tsl_time_ns_between (gint64 a,
                     gint64 b)
{
  gint64 r;

  if (__builtin_sub_overflow (b, a, &r))
    return (double) b - (double) a;
  return (double) r;
}

/* b − a in seconds: exact while the difference fits in a gint64, within a
 * double's precision beyond. */
static inline double
tsl_time_seconds_between (gint64 a,
                          gint64 b)
{
  gint64 r;

  if (__builtin_sub_overflow (b, a, &r))
    return ((double) b - (double) a) / 1e9;
  return (double) r / 1e9;
}

/* Counts (events, warnings, flows) added up across merged states: a
 * wrapped count reads as fewer, or as 0, which a state may not hold. */
static inline guint64
tsl_sat_add_u64 (guint64 a,
                 guint64 b)
{
  guint64 r;

  return __builtin_add_overflow (a, b, &r) ? G_MAXUINT64 : r;
}

G_END_DECLS
