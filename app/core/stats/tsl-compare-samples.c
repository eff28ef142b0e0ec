/* tsl-compare-samples.c: compare rows from the samples kept of each range
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Where a range cannot be re-read (a pipe, a sampler state) the table comes
 * from the samples one pass kept, split by time; a metric's median, p95 and
 * max come from kept values even when the rest is exact. Each sample of a
 * thread holds a stack: a function's share is the share of the side's
 * samples whose stack holds it, its durations those of the kept spans it is
 * the innermost frame of.
 */
#define G_LOG_DOMAIN "tsl-compare"

#include "config.h"

#include <math.h>
#include <string.h>

#include "tsl-compare-private.h"

/* The code below predates the shared name. */
typedef TslSampleTrack TrackData;

typedef struct {
  char   *name;
  GArray *hits[2];    /* guint32 positions of the side's samples holding it */
  guint32 last[2];    /* 1 + position of the last hit, to count a frame once per stack */
  GArray *durations[2]; /* double ns of kept spans whose innermost frame it is */
} Frame;

static void
frame_free (gpointer data)
{
  Frame *frame = data;

  g_free (frame->name);
  g_array_unref (frame->durations[0]);
  g_array_unref (frame->durations[1]);
  g_array_unref (frame->hits[0]);
  g_array_unref (frame->hits[1]);
  g_free (frame);
}

void
_tsl_compare_sample_track_free (gpointer data)
{
  TrackData *td = data;

  g_free (td->name);
  for (guint s = 0; s < 2; s++)
    {
      g_array_unref (td->values[s]);
      g_array_unref (td->sums[s]);
    }
  g_hash_table_unref (td->frame_ids);
  g_ptr_array_unref (td->frames);
  g_free (td);
}

gboolean
_tsl_compare_is_stack_kind (TslTrackKind kind)
{
  return kind == TSL_TRACK_THREAD || kind == TSL_TRACK_ASYNC;
}

static TrackData *
ensure_track (GHashTable             *by_key,
              GPtrArray              *tracks,
              const TslSnapshotTrack *t)
{
  g_autofree char *key = g_strdup_printf ("%d\x1f%" G_GINT64_FORMAT "\x1f%" G_GINT64_FORMAT "\x1f%s",
                                          (int) t->kind, t->pid, t->tid, t->name);
  TrackData *td = g_hash_table_lookup (by_key, key);

  if (td != NULL)
    return td;

  td = g_new0 (TrackData, 1);
  td->name = g_strdup (t->name);
  td->kind = t->kind;
  td->durations = g_strcmp0 (t->unit, "ns") == 0;
  td->pid = t->pid;
  td->tid = t->tid;
  for (guint s = 0; s < 2; s++)
    {
      td->values[s] = g_array_new (FALSE, FALSE, sizeof (double));
      td->sums[s] = g_array_new (FALSE, FALSE, sizeof (double));
    }
  td->frame_ids = g_hash_table_new (g_str_hash, g_str_equal);
  td->frames = g_ptr_array_new_with_free_func (frame_free);
  g_ptr_array_add (tracks, td);
  g_hash_table_insert (by_key, g_steal_pointer (&key), td);

  return td;
}

static inline void
frame_hit (Frame   *frame,
           guint    side,
           guint32  position)
{
  /* A recursive stack names a frame twice; it is one sample holding it. */
  if (frame->last[side] == position + 1)
    return;
  frame->last[side] = position + 1;
  g_array_append_val (frame->hits[side], position);
}

static Frame *
add_frame_hit (TrackData  *td,
               guint       side,
               const char *name,
               guint32     position)
{
  Frame *frame = g_hash_table_lookup (td->frame_ids, name);

  if (frame == NULL)
    {
      frame = g_new0 (Frame, 1);
      frame->name = g_strdup (name);
      for (guint s = 0; s < 2; s++)
        {
          frame->hits[s] = g_array_new (FALSE, FALSE, sizeof (guint32));
          frame->durations[s] = g_array_new (FALSE, FALSE, sizeof (double));
        }
      g_ptr_array_add (td->frames, frame);
      g_hash_table_insert (td->frame_ids, frame->name, frame);
    }

  frame_hit (frame, side, position);
  return frame;
}

/* Adds the samples of `snapshot` with a time in [lo, hi) as side `side`.
 * A track's frames are found by the snapshot's frame id, each name looked
 * up once per track rather than once per sample holding it. */
void
_tsl_compare_collect_side (GHashTable  *by_key,
                           GPtrArray   *tracks,
                           TslSnapshot *snapshot,
                           guint        side,
                           gint64       lo,
                           gint64       hi)
{
  g_autoptr(GPtrArray) by_id = g_ptr_array_new ();   /* frame id → Frame *, of the current track */
  g_autoptr(GArray) used = g_array_new (FALSE, FALSE, sizeof (guint32));

  for (guint i = 0; i < tsl_snapshot_get_n_tracks (snapshot); i++)
    {
      const TslSnapshotTrack *t = tsl_snapshot_get_track (snapshot, i);
      TrackData *td = ensure_track (by_key, tracks, t);

      for (guint j = 0; j < t->n_samples; j++)
        {
          const TslSnapshotSample *s = &t->samples[j];

          if (s->time_ns < lo || s->time_ns >= hi)
            continue;

          td->events[side] += s->summary.count;
          if (_tsl_compare_is_stack_kind (t->kind))
            {
              guint32 position = td->n_samples[side]++;
              Frame *leaf = NULL;

              for (guint f = 0; f < s->n_frames; f++)
                {
                  guint32 id = s->frames[f];

                  if (id >= by_id->len)
                    g_ptr_array_set_size (by_id, id + 1);
                  leaf = g_ptr_array_index (by_id, id);
                  if (leaf == NULL)
                    {
                      leaf = add_frame_hit (td, side, tsl_snapshot_get_frame_name (snapshot, id), position);
                      by_id->pdata[id] = leaf;
                      g_array_append_val (used, id);
                    }
                  else
                    frame_hit (leaf, side, position);
                }
              /* A kept span's value is its own duration: its innermost frame's. */
              if (td->durations && leaf != NULL && !isnan (s->value))
                g_array_append_val (leaf->durations[side], s->value);
              continue;
            }

          td->n_samples[side]++;
          if (!isnan (s->value))
            g_array_append_val (td->values[side], s->value);
          if (!isnan (s->summary.min))
            g_array_append_val (td->sums[side], s->summary.sum);
        }

      for (guint u = 0; u < used->len; u++)
        by_id->pdata[g_array_index (used, guint32, u)] = NULL;
      g_array_set_size (used, 0);
    }
}

static int
compare_frames (gconstpointer a,
                gconstpointer b)
{
  const Frame *fa = *(Frame * const *) a;
  const Frame *fb = *(Frame * const *) b;

  return strcmp (fa->name, fb->name);
}

gboolean
_tsl_compare_add_metric_rows (TslCompareTable *table,
                              const TrackData *td,
                              const char      *name)
{
  const TslCompareRequest *request = table->request;
  TslStat stat = request->has_stat && request->stat != TSL_STAT_SHARE ? request->stat : TSL_STAT_SUM;
  TslCompareSeries series = { name, stat };
  TslCompareSide *sides[2] = { &series.a, &series.b };

  for (guint s = 0; s < 2; s++)
    {
      GArray *items = stat == TSL_STAT_SUM ? td->sums[s] : td->values[s];

      *sides[s] = (TslCompareSide) {
        (const double *) items->data, items->len, table->seconds[s], td->events[s], 1.0,
      };
    }

  return _tsl_compare_add_row (table, &series);
}

/* For spans (instrumented traces) the time a function takes is what users
 * compare: a slower function has as many spans as before, so its share of
 * samples does not move. Their rows compare duration (mean by default, or
 * the --stat given) beside the share rows. */
static gboolean
add_duration_row (TslCompareTable *table,
                  const Frame     *frame,
                  const char      *name,
                  TslStat          stat)
{
  TslCompareSeries series = { name, stat };
  TslCompareSide *sides[2] = { &series.a, &series.b };

  guint before = table->rows->len;

  for (guint s = 0; s < 2; s++)
    *sides[s] = (TslCompareSide) {
      (const double *) frame->durations[s]->data, frame->durations[s]->len,
      table->seconds[s], frame->durations[s]->len, 1.0,
    };

  if (!_tsl_compare_add_row (table, &series))
    return FALSE;
  if (table->rows->len > before)
    ((TslCompareRow *) g_ptr_array_index (table->rows, before))->duration = TRUE;
  return TRUE;
}

gboolean
_tsl_compare_add_frame_rows (TslCompareTable *table,
                             const TrackData *td,
                             const char      *track_name)
{
  const TslCompareRequest *request = table->request;
  gboolean value_stat = request->has_stat &&
                        (request->stat == TSL_STAT_MEAN || request->stat == TSL_STAT_MEDIAN ||
                         request->stat == TSL_STAT_P95 || request->stat == TSL_STAT_MAX);
  TslStat stat = request->has_stat && request->stat == TSL_STAT_COUNT ? TSL_STAT_COUNT : TSL_STAT_SHARE;
  /* g_autofree on an array would free only its first element. */
  g_autofree double *items_a = g_new0 (double, MAX (td->n_samples[0], 1));
  g_autofree double *items_b = g_new0 (double, MAX (td->n_samples[1], 1));
  double *items[2] = { items_a, items_b };

  g_ptr_array_sort (td->frames, compare_frames);

  for (guint i = 0; i < td->frames->len; i++)
    {
      const Frame *frame = g_ptr_array_index (td->frames, i);
      g_autofree char *name = g_strdup_printf ("%s/%s", track_name, frame->name);
      TslCompareSeries series = { name, stat };
      TslCompareSide *sides[2] = { &series.a, &series.b };
      gboolean ok = TRUE;

      if (td->durations && (frame->durations[0]->len > 0 || frame->durations[1]->len > 0) &&
          (value_stat || !request->has_stat))
        {
          if (!add_duration_row (table, frame, name, value_stat ? request->stat : TSL_STAT_MEAN))
            return FALSE;
        }

      /* Share and count rows, unless a value statistic asked for durations only. */
      if (value_stat && td->durations)
        continue;

      for (guint s = 0; s < 2; s++)
        {
          GArray *hits = frame->hits[s];

          for (guint h = 0; h < hits->len; h++)
            items[s][g_array_index (hits, guint32, h)] = 1;
          *sides[s] = (TslCompareSide) {
            items[s], td->n_samples[s], table->seconds[s], hits->len,
            td->n_samples[s] > 0 ? (double) td->events[s] / td->n_samples[s] : 1.0,
          };
        }

      ok = _tsl_compare_add_row (table, &series);

      for (guint s = 0; s < 2; s++)
        for (guint h = 0; h < frame->hits[s]->len; h++)
          items[s][g_array_index (frame->hits[s], guint32, h)] = 0;

      if (!ok)
        return FALSE;
    }

  return TRUE;
}

static char *
range_track_key (const TslRangeTrack *t)
{
  return g_strdup_printf ("%d\x1f%" G_GINT64_FORMAT "\x1f%" G_GINT64_FORMAT "\x1f%s",
                          (int) t->kind, t->pid, t->tid, t->name);
}

static const GArray *
side_or_empty (const TrackData *td,
               guint            s,
               gboolean         sums,
               const GArray    *empty)
{
  if (td == NULL)
    return empty;
  return sums ? td->sums[s] : td->values[s];
}

/* A metric's median, p95 or max, from the kept values of each side's
 * track (by_key[s] holds side s's tracks). */
gboolean
_tsl_compare_quantile_metric_rows (TslCompareTable    *table,
                                   GHashTable         *by_key[2],
                                   const TslTrackPair *pair)
{
  g_autoptr(GArray) empty = g_array_new (FALSE, FALSE, sizeof (double));
  const TrackData *td[2] = { NULL, NULL };
  TrackData view = { 0 };

  for (guint s = 0; s < 2; s++)
    if (pair->t[s] != NULL)
      {
        g_autofree char *key = range_track_key (pair->t[s]);

        td[s] = g_hash_table_lookup (by_key[s], key);
      }
  if (td[0] == NULL && td[1] == NULL)
    return TRUE;
  for (guint s = 0; s < 2; s++)
    {
      view.values[s] = (GArray *) side_or_empty (td[s], s, FALSE, empty);
      view.sums[s] = (GArray *) side_or_empty (td[s], s, TRUE, empty);
      view.events[s] = td[s] != NULL ? td[s]->events[s] : 0;
    }
  return _tsl_compare_add_metric_rows (table, &view, pair->name);
}
