/* tsl-changes.c: change points of every series of a range, ranked by effect
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One range read (the compare's, cached the same way) gives every series'
 * exact totals in time blocks: for the whole file, one read whose blocks
 * grow with the span (63 to TSL_RANGE_MAX_BLOCKS of them, so no pass
 * measures the span first); for a range, TSL_RANGE_BLOCKS cut from the
 * span a first pass (or the chunk index) gives. Each statistic's blocks go
 * to tsl_change_detect(), and every candidate it tested becomes a row, so
 * the Benjamini–Hochberg q-values count all the tests made. The statistics
 * and their blocks are the compare's defaults (tsl-compare-exact.c), plus a
 * function's call rate, so that a row here and the compare of the stretches
 * either side of it measure the same thing.
 */
#define G_LOG_DOMAIN "tsl-changes"

#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "tsl-change-detect.h"
#include "tsl-changes.h"
#include "tsl-compare-private.h"
#include "tsl-csv-writer.h"

#define B TSL_RANGE_MAX_BLOCKS
/* A metric needs this many points in the range. */
#define MIN_POINTS 50
/* The normal quantile of the near end of a change's interval, for ranking. */
#define EFFECT_Z 1.959964

typedef struct {
  guint      n;              /* blocks */
  guint      min_blocks;     /* a side of a split holds at least these */
  double     edges[B + 1];   /* block boundaries, s from the trace start */
  double     seconds[B];
  GPtrArray *rows;
} Ctx;

const char *
tsl_change_stat_label (const char *stat)
{
  static const struct { const char *stat; const char *label; } labels[] = {
    { "time_mean", N_("level") },
    { "rate_per_s", N_("rate") },
    { "share", N_("share of time") },
    { "mean", N_("mean duration") },
    { "calls_per_s", N_("calls per second") },
  };

  for (guint i = 0; i < G_N_ELEMENTS (labels); i++)
    if (g_strcmp0 (stat, labels[i].stat) == 0)
      return _(labels[i].label);
  return stat;
}

void
tsl_change_row_free (TslChangeRow *row)
{
  if (row == NULL)
    return;
  g_free (row->series);
  g_free (row);
}

static double
ratio (const double *y,
       const double *x,
       guint         from,
       guint         to)
{
  double sy = 0, sx = 0;

  for (guint j = from; j < to; j++)
    {
      sy += y[j];
      sx += x[j];
    }
  return sx != 0 ? sy / sx : NAN;
}

static void
add_rows (Ctx          *ctx,
          const char   *series,
          const char   *stat,
          const char   *unit,
          const double *y,
          const double *x,
          double        scale)
{
  g_autoptr(GArray) found = g_array_new (FALSE, FALSE, sizeof (TslChange));

  tsl_change_detect_full (y, x, ctx->n, ctx->min_blocks, TSL_CHANGES_SPLIT_P, found);
  for (guint i = 0; i < found->len; i++)
    {
      const TslChange *c = &g_array_index (found, TslChange, i);
      TslChangeRow *row = g_new0 (TslChangeRow, 1);
      guint lo = 0, hi = ctx->n;
      double larger;

      /* The detector measured a change over the segment it was searching;
       * changes found later inside that segment bound it, so that before
       * and after are the stretches to the neighbouring changes, which a
       * compare of those stretches measures too (tsl_changes_stretches()). */
      for (guint j = 0; j < found->len; j++)
        {
          const TslChange *o = &g_array_index (found, TslChange, j);

          if (j == i || !(o->p_value < TSL_CHANGES_SPLIT_P))
            continue;
          if (o->split < c->split)
            lo = MAX (lo, o->split);
          else if (o->split > c->split)
            hi = MIN (hi, o->split);
        }

      row->series = g_strdup (series);
      row->stat = stat;
      row->unit = unit;
      row->time_s = ctx->edges[c->split];
      row->before = ratio (y, x, lo, c->split) * scale;
      row->after = ratio (y, x, c->split, hi) * scale;
      row->change = row->before != 0 ? row->after / row->before - 1 : NAN;
      row->p_value = c->p_value;
      row->q_value = NAN;
      /* Relative, so that rows of any unit rank together; bounded, so that
       * a series rising from nothing does not outrank everything. The size
       * is taken at the near end of its interval (size × (1 − z₀.₉₇₅ / z)):
       * a row that is barely significant has its size overstated by being
       * chosen, and its noisy estimate outranked the change it followed
       * from (tests/unit/test-changes.py, the slowed function). */
      larger = MAX (fabs (row->before), fabs (row->after));
      row->effect = (larger > 0 ? fabs (row->after - row->before) / larger : 0) *
                    (c->z > 0 ? MAX (1 - EFFECT_Z / c->z, 0) : 0) *
                    (ctx->edges[hi] - ctx->edges[c->split]);
      g_ptr_array_add (ctx->rows, row);
    }
}

static gboolean
is_monotonic (const TslRangeTrack *t)
{
  return !t->decreased && t->increased && t->n >= 2;
}

static void
metric_rows (Ctx                 *ctx,
             const char          *name,
             const TslRangeTrack *t)
{
  double x[B];

  if (t->n < MIN_POINTS)
    return;
  if (is_monotonic (t))
    {
      for (guint j = 0; j < ctx->n; j++)
        x[j] = t->block_rise_ns[j] / 1e9;
      add_rows (ctx, name, "rate_per_s", "/s", t->block_rise, x, 1);
      return;
    }
  /* A gauge holds each value until the next, as the compare weighs it. */
  if (t->held_ns > 0)
    add_rows (ctx, name, "time_mean", "", t->block_weighted, t->block_held, 1);
  else
    add_rows (ctx, name, "time_mean", "", t->block_sum, t->block_n, 1);
}

static void
func_rows (Ctx                 *ctx,
           const char          *track_name,
           const TslRangeTrack *t,
           const TslRangeFunc  *f)
{
  g_autofree char *series = g_strdup_printf ("%s/%s", track_name, f->name);

  if (f->calls >= TSL_CHANGES_MIN_CALLS)
    {
      /* Calls belong to the block they start in, as the compare counts them. */
      add_rows (ctx, series, "share", "fraction", f->block_total, ctx->seconds, 1e-9);
      add_rows (ctx, series, "mean", "ns", f->block_duration, f->block_calls, 1);
      add_rows (ctx, series, "calls_per_s", "/s", f->block_calls, ctx->seconds, 1);
    }
  else if (f->calls == 0 && f->samples >= TSL_CHANGES_MIN_CALLS)
    add_rows (ctx, series, "share", "fraction", f->block_samples, t->block_points, 1);
}

static gboolean
is_whole (const TslRangeSpec *spec)
{
  return spec->is_fraction && spec->start <= 0 && spec->end >= 1;
}

static int
compare_p (const void *pa,
           const void *pb)
{
  double a = (*(TslChangeRow * const *) pa)->p_value, b = (*(TslChangeRow * const *) pb)->p_value;

  return a < b ? -1 : a > b;
}

static void
finish_q_values (GPtrArray *rows,
                 double     confidence)
{
  g_autofree TslChangeRow **by_p = NULL;
  guint m = 0;
  double q = 1;

  by_p = g_new (TslChangeRow *, rows->len + 1);
  for (guint i = 0; i < rows->len; i++)
    {
      TslChangeRow *row = g_ptr_array_index (rows, i);

      if (!isnan (row->p_value))
        by_p[m++] = row;
    }
  /* Equal p-values get equal q-values, so their order does not matter. */
  qsort (by_p, m, sizeof *by_p, compare_p);
  for (guint i = m; i > 0; i--)
    {
      TslChangeRow *row = by_p[i - 1];

      q = MIN (q, row->p_value * m / i);
      row->q_value = q;
      row->significant = q < 1 - confidence;
    }
}

static int
compare_rows (gconstpointer pa,
              gconstpointer pb)
{
  const TslChangeRow *a = *(const TslChangeRow * const *) pa;
  const TslChangeRow *b = *(const TslChangeRow * const *) pb;
  int c;

  if (a->significant != b->significant)
    return a->significant ? -1 : 1;
  if (a->significant && a->effect != b->effect)
    return a->effect > b->effect ? -1 : 1;
  if (!a->significant && a->p_value != b->p_value)
    {
      if (isnan (a->p_value) || isnan (b->p_value))
        return isnan (a->p_value) ? 1 : -1;
      return a->p_value < b->p_value ? -1 : 1;
    }
  if ((c = strcmp (a->series, b->series)) != 0)
    return c;
  if ((c = strcmp (a->stat, b->stat)) != 0)
    return c;
  return a->time_s < b->time_s ? -1 : a->time_s > b->time_s;
}

GPtrArray *
tsl_changes_run (const TslCompareRequest *request,
                 GPtrArray               *warnings,
                 GCancellable            *cancellable,
                 GError                 **error)
{
  return _tsl_changes_run (request, FALSE, warnings, cancellable, error);
}

GPtrArray *
_tsl_changes_run (const TslCompareRequest *request,
                  gboolean                 ignore_index,
                  GPtrArray               *warnings,
                  GCancellable            *cancellable,
                  GError                 **error)
{
  g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func ((GDestroyNotify) tsl_change_row_free);
  g_autoptr(GPtrArray) pairs = NULL;
  const gboolean has[2] = { TRUE, FALSE };
  TslExactReads reads;
  Ctx ctx = { 0, 0, { 0 }, { 0 }, rows };

  g_return_val_if_fail (request != NULL, NULL);

  if (is_whole (&request->a) && request->trace == NULL
      ? !_tsl_compare_read_whole (request, ignore_index, &reads, cancellable, error)
      : !_tsl_compare_read_exact (request, has, &reads, warnings, cancellable, error))
    return NULL;

  ctx.n = tsl_range_stats_get_n_blocks (reads.stats[0]);
  /* The same share of the range as 6 of 64 blocks. */
  ctx.min_blocks = MAX (TSL_CHANGE_MIN_BLOCKS, (TSL_CHANGE_MIN_BLOCKS * ctx.n + TSL_RANGE_BLOCKS / 2) / TSL_RANGE_BLOCKS);
  ctx.edges[0] = (double) (reads.lo[0] - reads.start) / 1e9;
  for (guint j = 0; j < ctx.n; j++)
    {
      ctx.seconds[j] = tsl_range_stats_block_ns (reads.stats[0], j, reads.end[0]) / 1e9;
      ctx.edges[j + 1] = ctx.edges[j] + ctx.seconds[j];
    }

  pairs = _tsl_compare_match_tracks (reads.stats[0], reads.stats[0], FALSE);
  for (guint i = 0; i < pairs->len; i++)
    {
      const TslTrackPair *pair = g_ptr_array_index (pairs, i);
      const TslRangeTrack *t = pair->t[0];

      if (t == NULL)
        continue;
      if (t->kind == TSL_TRACK_COUNTER || t->kind == TSL_TRACK_METRIC)
        metric_rows (&ctx, pair->name, t);
      else
        for (guint k = 0; k < t->funcs->len; k++)
          func_rows (&ctx, pair->name, t, g_ptr_array_index (t->funcs, k));
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        {
          _tsl_exact_reads_clear (&reads);
          return NULL;
        }
    }
  _tsl_exact_reads_clear (&reads);

  finish_q_values (rows, request->confidence);
  g_ptr_array_sort (rows, compare_rows);
  return g_steal_pointer (&rows);
}

char *
tsl_changes_format_csv (const TslChangeRow * const *rows,
                        guint                       n_rows,
                        guint                       top)
{
  GString *buf = g_string_new ("series,stat,time_s,before,after,change_pct,p_value,q_value,significant,unit\n");

  if (top > 0)
    n_rows = MIN (n_rows, top);
  for (guint i = 0; i < n_rows; i++)
    {
      const TslChangeRow *row = rows[i];

      tsl_csv_append_field (buf, row->series);
      g_string_append_c (buf, ',');
      tsl_csv_append_field (buf, row->stat);
      tsl_csv_append_number (buf, row->time_s);
      tsl_csv_append_number (buf, row->before);
      tsl_csv_append_number (buf, row->after);
      tsl_csv_append_number (buf, row->change * 100);
      tsl_csv_append_number (buf, row->p_value);
      tsl_csv_append_number (buf, row->q_value);
      g_string_append (buf, row->significant ? ",true," : ",false,");
      tsl_csv_append_field (buf, row->unit);
      g_string_append_c (buf, '\n');
    }
  return g_string_free (buf, FALSE);
}
