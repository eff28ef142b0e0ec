/* tsl-busy.c: the union of overlapping spans, as busy time
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Stretches are kept sorted and disjoint (touching ones merged), so a new
 * span finds its place by binary search and swallows the stretches it
 * overlaps. Spans usually arrive near the end (in time order, or at their
 * end), so the move after an insertion is short.
 */
#define G_LOG_DOMAIN "tsl-busy"

#include "config.h"

#include <stdlib.h>

#include "tsl-busy.h"
#include "tsl-time-math.h"

typedef struct {
  gint64 start;
  gint64 end;
} Stretch;

struct _TslBusy {
  GArray  *stretches;   /* Stretch, sorted, disjoint, not touching */
  guint    max;
  gboolean folded;
};

TslBusy *
tsl_busy_new (guint max_stretches)
{
  TslBusy *self = g_new0 (TslBusy, 1);

  self->stretches = g_array_new (FALSE, FALSE, sizeof (Stretch));
  self->max = MAX (max_stretches, 2);
  return self;
}

void
tsl_busy_free (TslBusy *self)
{
  if (self == NULL)
    return;
  g_array_unref (self->stretches);
  g_free (self);
}

static int
compare_gaps (gconstpointer a,
              gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return x < y ? -1 : x > y;
}

/* Halves the stretches: every gap up to the median gap becomes busy. */
static void
fold (TslBusy *self)
{
  Stretch *s = (Stretch *) (gpointer) self->stretches->data;
  guint n = self->stretches->len, out = 0;
  g_autofree gint64 *gaps = g_new (gint64, n - 1);
  gint64 median;

  for (guint i = 0; i + 1 < n; i++)
    gaps[i] = tsl_time_sub (s[i + 1].start, s[i].end);
  qsort (gaps, n - 1, sizeof *gaps, compare_gaps);
  median = gaps[(n - 1) / 2];
  for (guint i = 1; i < n; i++)
    {
      if (tsl_time_sub (s[i].start, s[out].end) <= median)
        s[out].end = s[i].end;
      else
        s[++out] = s[i];
    }
  g_array_set_size (self->stretches, out + 1);
  self->folded = TRUE;
}

void
tsl_busy_add (TslBusy *self,
              gint64   start,
              gint64   end)
{
  Stretch *s;
  guint lo = 0, hi, first, last;

  g_return_if_fail (self != NULL);
  if (end <= start)
    return;
  s = (Stretch *) (gpointer) self->stretches->data;
  hi = self->stretches->len;
  /* The first stretch that ends at or after `start`: it may touch. */
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (s[mid].end < start)
        lo = mid + 1;
      else
        hi = mid;
    }
  first = last = lo;
  while (last < self->stretches->len && s[last].start <= end)
    last++;
  if (first == last)
    {
      Stretch new = { start, end };

      g_array_insert_val (self->stretches, first, new);
      if (self->stretches->len > self->max)
        fold (self);
      return;
    }
  s[first].start = MIN (s[first].start, start);
  s[first].end = MAX (s[last - 1].end, end);
  if (last - first > 1)
    g_array_remove_range (self->stretches, first + 1, last - first - 1);
}

guint
tsl_busy_get_n (TslBusy *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->stretches->len;
}

gboolean
tsl_busy_get_folded (TslBusy *self)
{
  g_return_val_if_fail (self != NULL, FALSE);
  return self->folded;
}

double
tsl_busy_spread (TslBusy      *self,
                 const gint64 *edges,
                 guint         n,
                 double       *out)
{
  const Stretch *s;
  double total = 0;
  guint j = 0;

  g_return_val_if_fail (self != NULL, 0);
  if (n == 0)
    return 0;
  s = (const Stretch *) (gconstpointer) self->stretches->data;
  for (guint i = 0; i < self->stretches->len; i++)
    {
      gint64 a = MAX (s[i].start, edges[0]), b = MIN (s[i].end, edges[n]);

      if (b <= a)
        continue;
      while (j + 1 < n && edges[j + 1] <= a)
        j++;
      /* A stretch may cross several blocks. */
      for (guint k = j; k < n && edges[k] < b; k++)
        {
          gint64 x = MAX (a, edges[k]), y = MIN (b, edges[k + 1]);

          if (y > x)
            {
              double ns = (double) tsl_time_sub (y, x);

              out[k] += ns;
              total += ns;
            }
        }
    }
  return total;
}
