/* tsl-series-ends.c: where each metric series of a whole file ends
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "tsl-trace"

#include "config.h"

#include <math.h>
#include <stdlib.h>

#include "tsl-series-ends.h"
#include "tsl-time-math.h"

/* A step past the latest time, while fewer than the bound are kept. */
void
_tsl_series_recorder_add_gap (TslSeriesRecorder *self,
                              gint64             time_ns)
{
  double gap = (double) tsl_time_sub (time_ns, self->last_ns);

  if (self->gaps == NULL)
    self->gaps = g_array_new (FALSE, FALSE, sizeof (double));
  g_array_append_val (self->gaps, gap);
}

static int
compare_doubles (const void *pa,
                 const void *pb)
{
  double a = *(const double *) pa, b = *(const double *) pb;

  return (a > b) - (a < b);
}

void
tsl_series_recorder_finish (TslSeriesRecorder *self,
                            TslSeriesEnd      *end)
{
  guint n = self->gaps != NULL ? self->gaps->len : 0;

  *end = (TslSeriesEnd) { self->has_last, self->last_ns, n, 0 };
  if (n == 0)
    return;
  qsort (self->gaps->data, n, sizeof (double), compare_doubles);
  {
    const double *v = (const double *) self->gaps->data;

    /* The documented rule: of an even count, the mean of the two middle
     * ones (not the upper one, which put a range's data end one gap step
     * late). */
    end->median_gap_ns = n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  }
}

void
tsl_series_recorder_clear (TslSeriesRecorder *self)
{
  g_clear_pointer (&self->gaps, g_array_unref);
  self->offered = FALSE;
  self->has_last = FALSE;
  self->last_ns = 0;
}

typedef struct {
  guint        kind;
  gint64       pid;
  gint64       tid;
  char        *name;
  TslSeriesEnd end;
} Entry;

struct _TslSeriesEnds {
  gint        ref_count;
  GPtrArray  *entries;   /* Entry *, in the order added */
  GHashTable *ids;       /* identity string → Entry * */
};

static void
entry_free (gpointer data)
{
  Entry *e = data;

  g_free (e->name);
  g_free (e);
}

static char *
identity (guint       kind,
          gint64       pid,
          gint64       tid,
          const char  *name)
{
  return g_strdup_printf ("%d\x1f%" G_GINT64_FORMAT "\x1f%" G_GINT64_FORMAT "\x1f%s",
                          (int) kind, pid, tid, name != NULL ? name : "");
}

TslSeriesEnds *
tsl_series_ends_new (void)
{
  TslSeriesEnds *self = g_new0 (TslSeriesEnds, 1);

  self->ref_count = 1;
  self->entries = g_ptr_array_new_with_free_func (entry_free);
  self->ids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  return self;
}

TslSeriesEnds *
tsl_series_ends_ref (TslSeriesEnds *self)
{
  g_atomic_int_inc (&self->ref_count);
  return self;
}

void
tsl_series_ends_unref (TslSeriesEnds *self)
{
  if (self == NULL || !g_atomic_int_dec_and_test (&self->ref_count))
    return;
  g_hash_table_unref (self->ids);
  g_ptr_array_unref (self->entries);
  g_free (self);
}

void
tsl_series_ends_add (TslSeriesEnds      *self,
                     guint               kind,
                     gint64              pid,
                     gint64              tid,
                     const char         *name,
                     const TslSeriesEnd *end)
{
  char *id = identity (kind, pid, tid, name);
  Entry *e = g_hash_table_lookup (self->ids, id);

  if (e != NULL)
    {
      e->end = *end;
      g_free (id);
      return;
    }
  e = g_new0 (Entry, 1);
  *e = (Entry) { kind, pid, tid, g_strdup (name != NULL ? name : ""), *end };
  g_ptr_array_add (self->entries, e);
  g_hash_table_insert (self->ids, id, e);
}

const TslSeriesEnd *
tsl_series_ends_lookup (TslSeriesEnds *self,
                        guint          kind,
                        gint64         pid,
                        gint64         tid,
                        const char    *name)
{
  g_autofree char *id = identity (kind, pid, tid, name);
  Entry *e = g_hash_table_lookup (self->ids, id);

  return e != NULL ? &e->end : NULL;
}

guint
tsl_series_ends_get_n (TslSeriesEnds *self)
{
  return self->entries->len;
}

const TslSeriesEnd *
tsl_series_ends_get (TslSeriesEnds  *self,
                     guint           i,
                     guint          *kind,
                     gint64         *pid,
                     gint64         *tid,
                     const char    **name)
{
  Entry *e;

  g_return_val_if_fail (i < self->entries->len, NULL);

  e = g_ptr_array_index (self->entries, i);
  *kind = e->kind;
  *pid = e->pid;
  *tid = e->tid;
  *name = e->name;
  return &e->end;
}
