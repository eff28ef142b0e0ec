/* tsl-gecko-thread.c: a Firefox profile's thread, from its tables to tracks
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Cells arrive one at a time, from Gecko rows or processed columns alike,
 * and go where the thread keeps them: samples and markers to spools (they
 * come before the tables that name them), stacks, frames and functions to
 * arrays, until the thread's end places them (tsl-gecko-place.c).
 *
 * A stack's prefix must come before it (Firefox writes them so); one that
 * does not is made a root, with a warning, so a chain of prefixes always
 * ends: no cycle can be followed.
 */
#define G_LOG_DOMAIN "tsl-gecko-reader"

#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "tsl-gecko-private.h"
#include "tsl-time-math.h"

/* A spool's bytes in memory, and per block read back from its file. */
#define SPOOL_BYTES (1024 * 1024)

/* Samples and markers as zigzag varints (tsl-spool.c), one spool a column.
 * TSL_GECKO_SPOOL_BYTES=N spills past N bytes instead (tests, fuzzing). */
static void
spool_init (TslSpool *s)
{
  tsl_spool_init (s, "gecko", SPOOL_BYTES, "TSL_GECKO_SPOOL_BYTES");
}

TslGeckoThread *
tsl_gecko_thread_new (TslGecko *self,
                      gint64    offset_ns)
{
  TslGeckoThread *th = g_new0 (TslGeckoThread, 1);

  th->index = self->n_threads++;
  th->offset_ns = offset_ns;
  th->weight_factor = 1;
  memset (th->schema, -1, sizeof th->schema);
  /* Gecko's positions when a table has no "schema" of its own. */
  th->schema[TBL_SAMPLES][COL_STACK] = 0;
  th->schema[TBL_SAMPLES][COL_TIME] = 1;
  th->schema[TBL_MARKERS][COL_NAME] = 0;
  th->schema[TBL_MARKERS][COL_START] = 1;
  th->schema[TBL_MARKERS][COL_END] = 2;
  th->schema[TBL_MARKERS][COL_PHASE] = 3;
  th->schema[TBL_STACKS][COL_PREFIX] = 0;
  th->schema[TBL_STACKS][COL_FRAME] = 1;
  th->schema[TBL_FRAMES][COL_LOCATION] = 0;
  for (int t = 0; t < N_TABLES; t++)
    th->time_col[t] = COL_NONE;
  spool_init (&th->s_stack);
  spool_init (&th->s_time);
  spool_init (&th->s_cpu);
  spool_init (&th->s_weight);
  spool_init (&th->m_name);
  spool_init (&th->m_start);
  spool_init (&th->m_end);
  spool_init (&th->m_phase);
  th->prefix = g_array_new (FALSE, FALSE, sizeof (gint32));
  th->frame = g_array_new (FALSE, FALSE, sizeof (gint32));
  th->location = g_array_new (FALSE, FALSE, sizeof (gint32));
  th->func = g_array_new (FALSE, FALSE, sizeof (gint32));
  th->func_name = g_array_new (FALSE, FALSE, sizeof (gint32));
  return th;
}

void
tsl_gecko_thread_free (TslGeckoThread *th)
{
  if (th == NULL)
    return;
  tsl_spool_clear (&th->s_stack);
  tsl_spool_clear (&th->s_time);
  tsl_spool_clear (&th->s_cpu);
  tsl_spool_clear (&th->s_weight);
  tsl_spool_clear (&th->m_name);
  tsl_spool_clear (&th->m_start);
  tsl_spool_clear (&th->m_end);
  tsl_spool_clear (&th->m_phase);
  g_array_unref (th->prefix);
  g_array_unref (th->frame);
  g_array_unref (th->location);
  g_array_unref (th->func);
  g_array_unref (th->func_name);
  g_clear_pointer (&th->strings, g_array_unref);
  g_free (th->name);
  g_free (th->process_name);
  g_free (th);
}

void
tsl_gecko_counter_free (TslGeckoCounter *c)
{
  g_array_unref (c->points);
  g_free (c->name);
  g_free (c->category);
  g_free (c);
}

Column
tsl_gecko_column_for (TableKind           table,
                      const TslJsonValue *name)
{
  switch (table)
    {
    case TBL_SAMPLES:
      if (TSL_JSON_KEY_IS (name, "stack"))
        return COL_STACK;
      if (TSL_JSON_KEY_IS (name, "time"))
        return COL_TIME;
      if (TSL_JSON_KEY_IS (name, "timeDeltas"))
        return COL_TIME_DELTA;
      if (TSL_JSON_KEY_IS (name, "weight"))
        return COL_WEIGHT;
      if (TSL_JSON_KEY_IS (name, "threadCPUDelta"))
        return COL_CPU;
      break;
    case TBL_MARKERS:
      if (TSL_JSON_KEY_IS (name, "name"))
        return COL_NAME;
      if (TSL_JSON_KEY_IS (name, "startTime"))
        return COL_START;
      if (TSL_JSON_KEY_IS (name, "endTime"))
        return COL_END;
      if (TSL_JSON_KEY_IS (name, "phase"))
        return COL_PHASE;
      break;
    case TBL_STACKS:
      if (TSL_JSON_KEY_IS (name, "prefix"))
        return COL_PREFIX;
      if (TSL_JSON_KEY_IS (name, "frame"))
        return COL_FRAME;
      break;
    case TBL_FRAMES:
      if (TSL_JSON_KEY_IS (name, "location"))
        return COL_LOCATION;
      if (TSL_JSON_KEY_IS (name, "func"))
        return COL_FUNC;
      break;
    case TBL_FUNCS:
      if (TSL_JSON_KEY_IS (name, "name"))
        return COL_NAME;
      break;
    case TBL_COUNTER:
      if (TSL_JSON_KEY_IS (name, "time"))
        return COL_TIME;
      if (TSL_JSON_KEY_IS (name, "timeDeltas"))
        return COL_TIME_DELTA;
      if (TSL_JSON_KEY_IS (name, "count"))
        return COL_COUNT;
      break;
    default:
      break;
    }
  return COL_NONE;
}

void
tsl_gecko_set_schema (gint8              *schema,
                      TableKind           table,
                      const TslJsonValue *value)
{
  TslJsonIter iter;
  TslJsonValue key, pos;
  TslJsonError jerr;

  memset (schema, -1, N_COLS);
  tsl_json_iter_init (&iter, value->p, value->p + value->len);
  while (tsl_json_iter_next_member (&iter, &key, &pos, &jerr) == TSL_JSON_OK)
    {
      Column c = tsl_gecko_column_for (table, &key);
      gint64 at;

      if (c != COL_NONE && tsl_json_value_get_int64 (&pos, &at) && at >= 0 && at < TSL_GECKO_ROW_CELLS)
        schema[c] = (gint8) at;
    }
}

/* A cell as an integer; null (or absent) is TSL_GECKO_NULL, anything else
 * warned about and null too. */
static gint64
cell_int (TslGecko           *self,
          const TslJsonValue *value,
          gsize               offset)
{
  gint64 v;

  if (value->type == TSL_JSON_NULL || value->type == TSL_JSON_NONE)
    return TSL_GECKO_NULL;
  if (tsl_gecko_small_int (value, &v))
    return v;
  if (value->type == TSL_JSON_NUMBER && tsl_json_value_get_int64 (value, &v) && v != TSL_GECKO_NULL)
    return v;
  if (tsl_gecko_may_warn (self, WARN_VALUE))
    tsl_gecko_warn_at (self, offset, _("expected an integer index or null; read as null"));
  return TSL_GECKO_NULL;
}

/* A time in ms as ns; null is TSL_GECKO_NULL. */
static gint64
cell_time (TslGecko           *self,
           const TslJsonValue *value,
           gsize               offset)
{
  double ms;
  gint64 ns;

  if (value->type == TSL_JSON_NULL || value->type == TSL_JSON_NONE)
    return TSL_GECKO_NULL;
  if (tsl_gecko_fast_ms (value, &ns))
    return tsl_gecko_clamp (self, ns);
  if (value->type == TSL_JSON_NUMBER && tsl_json_value_get_double (value, &ms) && isfinite (ms))
    {
      double ns = ms * 1e6;

      return tsl_gecko_clamp (self, fabs (ns) < 9e18 ? (gint64) llround (ns) : ns > 0 ? G_MAXINT64 : -G_MAXINT64);
    }
  if (tsl_gecko_may_warn (self, WARN_VALUE))
    tsl_gecko_warn_at (self, offset, _("expected a time in milliseconds or null; read as null"));
  return TSL_GECKO_NULL;
}

static double
cell_double (const TslJsonValue *value)
{
  double v;

  return value->type == TSL_JSON_NUMBER && tsl_json_value_get_double (value, &v) && isfinite (v) ? v : NAN;
}

/* A time cell of a sample (or a counter's) as the delta from the one before. */
static gint64
time_delta_ns (TslGecko           *self,
               Column              column,
               Column             *first,
               gint64             *last,
               guint64             index,
               gint64              ns,
               gsize               offset,
               gboolean           *use)
{
  gint64 delta;

  /* A table with both "time" and "timeDeltas": the first one counts. */
  if (*first == COL_NONE)
    *first = column;
  *use = *first == column;
  if (!*use || ns == TSL_GECKO_NULL)
    return 0;
  delta = column == COL_TIME ? tsl_time_sub (ns, *last) : ns;
  if (column == COL_TIME && index == 0)
    delta = ns;
  *last = column == COL_TIME ? ns : tsl_time_add (*last, ns);
  if (index > 0 && delta < 0 && tsl_gecko_may_warn (self, WARN_TIME))
    tsl_gecko_warn_at (self, offset, _("sample %llu is earlier than the one before it; it is placed at its time"),
                       (unsigned long long) index);
  return delta;
}

static gint64
time_delta (TslGecko           *self,
            Column              column,
            Column             *first,
            gint64             *last,
            guint64             index,
            const TslJsonValue *value,
            gsize               offset,
            gboolean           *use)
{
  return time_delta_ns (self, column, first, last, index, cell_time (self, value, offset), offset, use);
}

/* Counters are small (a point per sampling interval of a process): their
 * points are held until their process ends and names their pid. */
static void
counter_cell (TslGecko           *self,
              Column              column,
              const TslJsonValue *value,
              gsize               offset)
{
  TslGeckoCounter *c = self->counter;
  CounterPoint *point;
  gboolean use;

  if (column == COL_TIME || column == COL_TIME_DELTA)
    {
      time_delta (self, column, &c->time_col, &c->last_time, c->n_time, value, offset, &use);
      if (!use)
        return;
      if (c->points->len < c->n_time + 1)
        g_array_set_size (c->points, c->n_time + 1);
      point = &g_array_index (c->points, CounterPoint, c->n_time);
      point->time_ns = c->last_time;
      point->has_time = cell_time (self, value, offset) != TSL_GECKO_NULL;
      c->n_time++;
    }
  else if (column == COL_COUNT)
    {
      if (c->points->len < c->n_count + 1)
        g_array_set_size (c->points, c->n_count + 1);
      point = &g_array_index (c->points, CounterPoint, c->n_count);
      point->count = cell_double (value);
      point->has_count = TRUE;
      c->n_count++;
    }
}

void
tsl_gecko_sample_time (TslGecko *self,
                       Column    column,
                       gint64    ns,
                       gsize     offset)
{
  TslGeckoThread *th = self->thread;
  guint64 index = th->n_col[TBL_SAMPLES][column]++;
  gboolean use;
  gint64 v = time_delta_ns (self, column, &th->time_col[TBL_SAMPLES], &th->last_time[TBL_SAMPLES], index, ns,
                            offset, &use);

  if (use)
    tsl_spool_push (&th->s_time, v);
}

void
tsl_gecko_cell (TslGecko           *self,
                TableKind           table,
                Column              column,
                const TslJsonValue *value,
                gsize               offset)
{
  TslGeckoThread *th = self->thread;
  guint64 index;
  gint64 v;

  if (table == TBL_COUNTER)
    {
      if (self->counter != NULL)
        counter_cell (self, column, value, offset);
      return;
    }
  if (th == NULL)
    return;
  if (table == TBL_SAMPLES && (column == COL_TIME || column == COL_TIME_DELTA))
    {
      tsl_gecko_sample_time (self, column, cell_time (self, value, offset), offset);
      return;
    }
  index = th->n_col[table][column]++;
  switch (table)
    {
    case TBL_SAMPLES:
      switch (column)
        {
        case COL_STACK:
          tsl_spool_push (&th->s_stack, tsl_gecko_stack_value (cell_int (self, value, offset)));
          break;
        /* Time cells went to tsl_gecko_sample_time() above. */
        case COL_CPU:
          {
            /* Whole ns, µs or cycles in practice: an integer takes 1–5
             * bytes of spool where a double's bits take 9–10. */
            double cpu;

            th->has_cpu = TRUE;
            if (tsl_gecko_small_int (value, &v) ||
                (value->type == TSL_JSON_NUMBER && tsl_json_value_get_int64 (value, &v) && v != TSL_GECKO_NULL))
              {
                tsl_spool_push (&th->s_cpu, v);
                break;
              }
            cpu = cell_double (value);
            tsl_spool_push (&th->s_cpu, isnan (cpu) || fabs (cpu) > 1e18 ? TSL_GECKO_NULL : (gint64) llround (cpu));
          }
          break;
        case COL_WEIGHT:
          th->has_weight = TRUE;
          tsl_spool_push (&th->s_weight, tsl_gecko_double_bits (cell_double (value)));
          break;
        default:
          break;
        }
      break;
    case TBL_MARKERS:
      switch (column)
        {
        case COL_NAME:
          tsl_spool_push (&th->m_name, cell_int (self, value, offset));
          break;
        case COL_START:
          tsl_spool_push (&th->m_start, cell_time (self, value, offset));
          break;
        case COL_END:
          tsl_spool_push (&th->m_end, cell_time (self, value, offset));
          break;
        case COL_PHASE:
          th->has_phase = TRUE;
          tsl_spool_push (&th->m_phase, cell_int (self, value, offset));
          break;
        default:
          break;
        }
      break;
    case TBL_STACKS:
      v = cell_int (self, value, offset);
      if (column == COL_PREFIX && v != TSL_GECKO_NULL && (v < 0 || (guint64) v >= index))
        {
          if (tsl_gecko_may_warn (self, WARN_PREFIX))
            tsl_gecko_warn_at (self, offset, _("stack %llu names prefix %lld, which does not come before it; "
                                               "it is made a root"), (unsigned long long) index, (long long) v);
          v = TSL_GECKO_NULL;
        }
      if (v == TSL_GECKO_NULL || v > G_MAXINT32 || v < 0)
        v = -1;
      {
        gint32 i32 = (gint32) v;

        g_array_append_val (column == COL_PREFIX ? th->prefix : th->frame, i32);
      }
      break;
    case TBL_FRAMES:
    case TBL_FUNCS:
      v = cell_int (self, value, offset);
      if (v == TSL_GECKO_NULL || v > G_MAXINT32 || v < 0)
        v = -1;
      {
        gint32 i32 = (gint32) v;

        if (table == TBL_FUNCS)
          g_array_append_val (th->func_name, i32);
        else
          g_array_append_val (column == COL_FUNC ? th->func : th->location, i32);
      }
      break;
    default:
      break;
    }
}

void
tsl_gecko_row_end (TslGecko     *self,
                   TableKind     table,
                   guint32       got,
                   gsize         offset)
{
  static const TslJsonValue null_value = { NULL, 0, TSL_JSON_NULL, 0 };
  const gint8 *schema = table == TBL_COUNTER ? self->counter->schema : self->thread->schema[table];

  /* Gecko leaves trailing nulls out of a row: they still count. */
  for (int c = 0; c < N_COLS; c++)
    if (schema[c] >= 0 && !(got & (1u << schema[c])))
      tsl_gecko_cell (self, table, c, &null_value, offset);
}
