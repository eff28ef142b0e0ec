/* tsl-gecko-ahead.c: a Gecko table's rows scanned on a second thread
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A thread's samples cannot be cut between scanners (each waits for the
 * tables after it, and a time is the one before it plus its delta), but
 * their rows' text can be scanned ahead of the thread that reads the
 * cells. Per parse call, the rows of the table being read are scanned on
 * a thread of its own (tsl-scan-ahead.c) into their cells, as read_row()
 * finds them; the reading thread takes each row's cells in order and
 * reads them as read_row() would have (tsl_gecko_cell(), then
 * tsl_gecko_row_end()): the spools, tables, warnings and trace see the
 * same calls, so the output is the same byte for byte. The thread stops
 * before the first row that is not whole and well formed (the buffer's
 * end, damage, the table's end), and the walk goes on from there. Between
 * jobs of rows, the same thread pops a thread's spooled samples for the
 * placing (tsl_gecko_place_ahead()), and the reading thread waiting for
 * rows places those of the thread before (tsl_gecko_place_some()).
 */
#define G_LOG_DOMAIN "tsl-gecko-reader"

#include "tsl-gecko-private.h"

#define BLOCK_RECORDS   1024
/* Rows whose read cells sit further than this go on one thread. */
#define AHEAD_CELLS     8

typedef struct {
  guint32      row;      /* offset of its '[' in the buffer */
  guint32      after;    /* past its ']' */
  guint16      got;      /* positions read, as read_row()'s mask */
  guint16      decoded;  /* a sample row whose cells are in `values` */
  union {
    TslJsonValue cells[AHEAD_CELLS];
    /* As tsl_gecko_cell() reads them: a stack's cell_int(), a time's
     * cell_time() not yet clamped, a CPU delta's spooled value. */
    gint64       values[AHEAD_CELLS];
    /* Or a spooled sample to place (tsl_gecko_place_ahead()). */
    TslGeckoPlaced placed;
  };
} Record;

typedef struct {
  const char *buf;
  const char *p;
  const char *end;
  gboolean    first;
  gint8       by_pos[AHEAD_CELLS];
  guint       n_pos;
  gboolean    samples;
} Job;

/* A sample row's cells in the forms tsl_gecko_cell() reads in its hot
 * path, decoded here; FALSE (left to it) for any other. */
static gboolean
decode_sample (const Job *job,
               Record    *r)
{
  TslJsonValue cells[AHEAD_CELLS];

  memcpy (cells, r->cells, sizeof cells);
  for (guint c = 0; c < job->n_pos; c++)
    {
      const TslJsonValue *cell = &cells[c];
      gboolean null = cell->type == TSL_JSON_NULL;
      gint64 v;

      if (!(r->got & (1u << c)))
        continue;
      switch (job->by_pos[c])
        {
        case COL_STACK:
        case COL_CPU:
          if (null)
            v = TSL_GECKO_NULL;
          else if (!tsl_gecko_small_int (cell, &v))
            return FALSE;
          break;
        case COL_TIME:
        case COL_TIME_DELTA:
          if (null)
            v = TSL_GECKO_NULL;
          else if (!tsl_gecko_fast_ms (cell, &v))
            return FALSE;
          break;
        default:
          return FALSE;
        }
      r->values[c] = v;
    }
  return TRUE;
}

/* read_row()'s scan of the row at p: FALSE for anything it would not read
 * whole (left to it). */
static gboolean
scan_row (const Job   *job,
          const char  *p,
          Record      *r)
{
  const char *q = p + 1, *end = job->end;

  r->got = 0;
  for (guint i = 0;; i++)
    {
      TslJsonValue value;
      TslJsonError jerr;

      q = tsl_json_skip_ws (q, end);
      if (q >= end)
        return FALSE;
      if (*q == ']' && i == 0)
        {
          q++;
          break;
        }
      if ((guchar) (*q - '0') < 10 ? !tsl_json_scan_number (q, end, &value, &q)
                                   : tsl_json_scan_value (q, end, &value, &q, &jerr) != TSL_JSON_OK)
        return FALSE;
      if (i < job->n_pos && job->by_pos[i] >= 0)
        {
          r->cells[i] = value;
          r->got |= 1u << i;
        }
      q = tsl_json_skip_ws (q, end);
      if (q >= end)
        return FALSE;
      if (*q == ']')
        {
          q++;
          break;
        }
      if (*q != ',')
        return FALSE;
      q++;
    }
  r->row = (guint32) (p - job->buf);
  r->after = (guint32) (q - job->buf);
  return TRUE;
}

static guint
fill (gpointer  data,
      gpointer  records,
      guint     max,
      gboolean *done)
{
  Job *job = data;
  Record *r = records;
  const char *p = job->p, *end = job->end;
  guint n = 0;

  /* step()'s separators, then a row. */
  while (n < max)
    {
      const char *q = tsl_json_skip_ws (p, end);

      if (q < end && !job->first)
        q = *q == ',' ? tsl_json_skip_ws (q + 1, end) : end;
      if (q >= end || *q != '[' || !scan_row (job, q, &r[n]))
        {
          *done = TRUE;
          break;
        }
      r[n].decoded = job->samples && decode_sample (job, &r[n]);
      if (!r[n].decoded && job->samples)
        scan_row (job, q, &r[n]);   /* the cells again, over the values */
      p = job->buf + r[n].after;
      job->first = FALSE;
      n++;
    }
  job->p = p;
  return n;
}

/* While no block is ready: the next input first, then some samples of the
 * thread before (tsl_gecko_place_some()). */
static gboolean
idle (gpointer data)
{
  TslGecko *self = data;

  return tsl_reader_context_idle (self->ctx) || tsl_gecko_place_some (self);
}

const char *
tsl_gecko_rows_ahead (TslGecko   *self,
                      Level      *level,
                      const char *p,
                      const char *end)
{
  const gint8 *schema;
  Job job = { (const char *) self->buf, p, end, level->first, { 0 }, 0, level->table == TBL_SAMPLES };
  TslGeckoThread *th = self->thread;
  guint32 all = 0;
  gpointer records;
  guint n;

  if (end - p < (gssize) tsl_scan_ahead_min_bytes () || end - (const char *) self->buf >= (gssize) G_MAXUINT32 ||
      tsl_reader_context_get_threads (self->ctx) == TSL_READER_THREADS_NEVER ||
      tsl_reader_context_get_n_threads (self->ctx) < 2)
    return p;
  schema = tsl_gecko_schema_of (self, level->table);
  memset (job.by_pos, -1, sizeof job.by_pos);
  for (int c = 0; c < N_COLS; c++)
    if (schema[c] >= 0)
      {
        if (schema[c] >= AHEAD_CELLS)
          return p;
        job.by_pos[schema[c]] = c;
        job.n_pos = MAX (job.n_pos, (guint) schema[c] + 1);
        all |= 1u << schema[c];
      }
  self->rows_ahead = tsl_reader_context_scan_now (self->ctx, end - p);
  if (!self->rows_ahead)
    return p;
  if (self->ahead == NULL)
    self->ahead = tsl_scan_ahead_new (sizeof (Record), BLOCK_RECORDS);
  tsl_scan_ahead_start (self->ahead, fill, &job);
  self->in_rows = TRUE;
  while ((n = tsl_scan_ahead_next (self->ahead, &records, idle, self)) > 0)
    {
      const Record *r = records;

      for (guint i = 0; i < n; i++)
        {
          /* read_row() once its row is whole, in the same order. */
          for (guint c = 0; c < job.n_pos; c++)
            {
              Column column = job.by_pos[c];
              gint64 v = r[i].values[c];

              if (!(r[i].got & (1u << c)))
                continue;
              if (!r[i].decoded)
                tsl_gecko_cell (self, level->table, column, &r[i].cells[c], r[i].row);
              else if (column == COL_STACK)
                {
                  th->n_col[TBL_SAMPLES][COL_STACK]++;
                  tsl_spool_push (&th->s_stack, tsl_gecko_stack_value (v));
                }
              else if (column == COL_CPU)
                {
                  th->n_col[TBL_SAMPLES][COL_CPU]++;
                  th->has_cpu = TRUE;
                  tsl_spool_push (&th->s_cpu, v);
                }
              else
                tsl_gecko_sample_time (self, column, v == TSL_GECKO_NULL ? v : tsl_gecko_clamp (self, v), r[i].row);
            }
          /* Only absent columns make it call anything. */
          if ((r[i].got & all) != all)
            tsl_gecko_row_end (self, level->table, r[i].got, r[i].row);
        }
      level->first = FALSE;
    }
  self->in_rows = FALSE;
  return job.p;
}

static guint
fill_placed (gpointer  data,
             gpointer  records,
             guint     max,
             gboolean *done)
{
  Record *r = records;
  guint n = 0;

  while (n < max && tsl_gecko_place_pop (data, &r[n].placed))
    n++;
  *done = n < max;
  return n;
}

gboolean
tsl_gecko_place_ahead (TslGecko      *self,
                       TslGeckoPlace *pl)
{
  gpointer records;
  guint n;

  /* Only where the rows went ahead too (not on busy cores), and not while
   * a job of rows is under way (a warning of its rows settles). */
  if (self->ahead == NULL || self->in_rows || !self->rows_ahead ||
      tsl_gecko_place_left (pl) < tsl_scan_ahead_min_bytes () / 16)
    return FALSE;
  tsl_scan_ahead_start (self->ahead, fill_placed, pl);
  self->in_rows = TRUE;
  while ((n = tsl_scan_ahead_next (self->ahead, &records, NULL, NULL)) > 0)
    {
      const Record *r = records;

      for (guint i = 0; i < n; i++)
        tsl_gecko_place_apply (pl, &r[i].placed);
      self->n_popped_ahead += n;
    }
  self->in_rows = FALSE;
  return TRUE;
}
