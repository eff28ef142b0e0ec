/* tsl-gecko-members.c: what each member of a Firefox profile means to the walk
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Per kind of object (a profile, its meta, a thread, a table, a counter):
 * which members are walked into, read whole or skipped, and what the
 * scalar ones set. Anything not named here is skipped unread.
 */
#define G_LOG_DOMAIN "tsl-gecko-reader"

#include <math.h>
#include <string.h>

#include "tsl-gecko-private.h"

/* meta: the first profile's start is the time base; a sub-process's start
 * is where its times begin after it. */
static void
read_meta_member (TslGecko           *self,
                  const TslJsonValue *key,
                  const TslJsonValue *value,
                  gsize               offset)
{
  Level *profile = tsl_gecko_profile_level (self);
  double ms;

  if (TSL_JSON_KEY_IS (key, "startTime") && tsl_json_value_get_double (value, &ms) && isfinite (ms))
    {
      if (!self->have_root_start)
        {
          self->have_root_start = TRUE;
          self->root_start_ms = ms;
        }
      else if (profile != NULL)
        {
          double ns = (ms - self->root_start_ms) * 1e6;

          profile->offset_ns = tsl_gecko_clamp (self, fabs (ns) < 9e18 ? (gint64) llround (ns)
                                                : ns > 0 ? G_MAXINT64 : -G_MAXINT64);
        }
    }
  else if (TSL_JSON_KEY_IS (key, "sampleUnits") && value->type == TSL_JSON_OBJECT)
    {
      TslJsonValue unit;

      if (tsl_json_find_member (value, "threadCPUDelta", &unit) && unit.type == TSL_JSON_STRING)
        {
          self->cpu_is_ns = unit.len == 2 && memcmp (unit.p, "ns", 2) == 0;
          /* "µs", "ns", or "variable CPU cycles" (a count, not a time). */
          self->cpu_is_time = self->cpu_is_ns || (unit.len == 3 && memcmp (unit.p, "\xc2\xb5s", 3) == 0)
                              || (unit.len == 2 && memcmp (unit.p, "us", 2) == 0);
        }
    }
  (void) offset;
}

static char *
dup_string (TslGecko           *self,
            const TslJsonValue *value)
{
  gsize len;
  const char *s = tsl_json_value_get_string (value, self->scratch, &len);

  return g_strndup (s, len);
}

static gboolean
value_int (const TslJsonValue *value,
           gint64             *out)
{
  if (value->type == TSL_JSON_NUMBER)
    return tsl_json_value_get_int64 (value, out);
  /* Processed profiles write pids (and sometimes tids) as strings. */
  if (value->type == TSL_JSON_STRING && value->len > 0 && value->len < 20 && !value->escaped)
    {
      char text[24];
      char *end;

      memcpy (text, value->p, value->len);
      text[value->len] = '\0';
      *out = g_ascii_strtoll (text, &end, 10);
      return *end == '\0';
    }
  return FALSE;
}

static void
read_thread_member (TslGecko           *self,
                    const TslJsonValue *key,
                    const TslJsonValue *value)
{
  TslGeckoThread *th = self->thread;

  if (TSL_JSON_KEY_IS (key, "name") && value->type == TSL_JSON_STRING)
    {
      g_free (th->name);
      th->name = dup_string (self, value);
    }
  else if ((TSL_JSON_KEY_IS (key, "processName") || (TSL_JSON_KEY_IS (key, "processType") && th->process_name == NULL))
           && value->type == TSL_JSON_STRING)
    {
      g_free (th->process_name);
      th->process_name = dup_string (self, value);
    }
  else if (TSL_JSON_KEY_IS (key, "pid"))
    th->have_pid = value_int (value, &th->pid);
  else if (TSL_JSON_KEY_IS (key, "tid"))
    th->have_tid = value_int (value, &th->tid);
}

static void
read_counter_member (TslGecko           *self,
                     const TslJsonValue *key,
                     const TslJsonValue *value)
{
  TslGeckoCounter *c = self->counter;

  if (TSL_JSON_KEY_IS (key, "name") && value->type == TSL_JSON_STRING)
    {
      g_free (c->name);
      c->name = dup_string (self, value);
    }
  else if (TSL_JSON_KEY_IS (key, "category") && value->type == TSL_JSON_STRING)
    {
      g_free (c->category);
      c->category = dup_string (self, value);
    }
  else if (TSL_JSON_KEY_IS (key, "pid"))
    c->have_pid = value_int (value, &c->pid);
  else if (TSL_JSON_KEY_IS (key, "mainThreadIndex"))
    {
      if (!value_int (value, &c->main_thread))
        c->main_thread = -1;
    }
}

/* What the member `key` of an object at `level` is to the walk. */
Action
tsl_gecko_member_action (TslGecko           *self,
                         Level              *level,
                         const TslJsonValue *key,
                         Ctx                *child,
                         TableKind          *table,
                         Column             *column)
{
  *table = TBL_NONE;
  *column = COL_NONE;
  switch (level->ctx)
    {
    case CTX_PROFILE:
      if (TSL_JSON_KEY_IS (key, "meta"))
        return *child = CTX_META, ACT_DESCEND;
      if (TSL_JSON_KEY_IS (key, "threads"))
        return *child = CTX_THREADS, ACT_DESCEND;
      if (TSL_JSON_KEY_IS (key, "processes"))
        return *child = CTX_PROCESSES, ACT_DESCEND;
      if (TSL_JSON_KEY_IS (key, "counters"))
        return *child = CTX_COUNTERS, ACT_DESCEND;
      if (TSL_JSON_KEY_IS (key, "shared") && self->depth == 1)
        return *child = CTX_SHARED, ACT_DESCEND;
      return ACT_SKIP;
    case CTX_META:
      if (TSL_JSON_KEY_IS (key, "startTime") || TSL_JSON_KEY_IS (key, "sampleUnits"))
        return ACT_VALUE;
      return ACT_SKIP;
    case CTX_SHARED:
      if (TSL_JSON_KEY_IS (key, "stringArray"))
        return *child = CTX_STRINGS, ACT_DESCEND;
      return ACT_SKIP;
    case CTX_THREAD:
      if (TSL_JSON_KEY_IS (key, "samples"))
        return *child = CTX_TABLE, *table = TBL_SAMPLES, ACT_DESCEND;
      if (TSL_JSON_KEY_IS (key, "markers"))
        return *child = CTX_TABLE, *table = TBL_MARKERS, ACT_DESCEND;
      if (TSL_JSON_KEY_IS (key, "stackTable"))
        return *child = CTX_TABLE, *table = TBL_STACKS, ACT_DESCEND;
      if (TSL_JSON_KEY_IS (key, "frameTable"))
        return *child = CTX_TABLE, *table = TBL_FRAMES, ACT_DESCEND;
      if (TSL_JSON_KEY_IS (key, "funcTable"))
        return *child = CTX_TABLE, *table = TBL_FUNCS, ACT_DESCEND;
      if (TSL_JSON_KEY_IS (key, "stringTable") || TSL_JSON_KEY_IS (key, "stringArray"))
        return *child = CTX_STRINGS, ACT_DESCEND;
      if (TSL_JSON_KEY_IS (key, "name") || TSL_JSON_KEY_IS (key, "processName")
          || TSL_JSON_KEY_IS (key, "processType") || TSL_JSON_KEY_IS (key, "pid")
          || TSL_JSON_KEY_IS (key, "tid"))
        return ACT_VALUE;
      return ACT_SKIP;
    case CTX_COUNTER:
      if (TSL_JSON_KEY_IS (key, "samples"))
        return *child = CTX_TABLE, *table = TBL_COUNTER, ACT_DESCEND;
      if (TSL_JSON_KEY_IS (key, "name") || TSL_JSON_KEY_IS (key, "category")
          || TSL_JSON_KEY_IS (key, "pid") || TSL_JSON_KEY_IS (key, "mainThreadIndex"))
        return ACT_VALUE;
      return ACT_SKIP;
    case CTX_TABLE:
      if (TSL_JSON_KEY_IS (key, "schema"))
        return ACT_VALUE;
      if (TSL_JSON_KEY_IS (key, "data"))
        return *child = CTX_ROWS, *table = level->table, ACT_DESCEND;
      if (level->table == TBL_SAMPLES && TSL_JSON_KEY_IS (key, "weightType"))
        return ACT_VALUE;
      *column = tsl_gecko_column_for (level->table, key);
      if (*column != COL_NONE)
        return *child = CTX_COLUMN, *table = level->table, ACT_DESCEND;
      return ACT_SKIP;
    default:
      return ACT_SKIP;
    }
}

gint8 *
tsl_gecko_schema_of (TslGecko  *self,
                     TableKind  table)
{
  if (table == TBL_COUNTER)
    return self->counter != NULL ? self->counter->schema : NULL;
  return self->thread != NULL ? self->thread->schema[table] : NULL;
}

/* A scalar member of the object at `level`. */
void
tsl_gecko_member_value (TslGecko           *self,
                        Level              *level,
                        const TslJsonValue *key,
                        const TslJsonValue *value,
                        gsize               offset)
{
  switch (level->ctx)
    {
    case CTX_META:
      read_meta_member (self, key, value, offset);
      break;
    case CTX_THREAD:
      read_thread_member (self, key, value);
      break;
    case CTX_COUNTER:
      read_counter_member (self, key, value);
      break;
    case CTX_TABLE:
      if (TSL_JSON_KEY_IS (key, "schema"))
        {
          gint8 *schema = tsl_gecko_schema_of (self, level->table);

          if (schema != NULL && value->type == TSL_JSON_OBJECT)
            tsl_gecko_set_schema (schema, level->table, value);
        }
      else if (TSL_JSON_KEY_IS (key, "weightType") && self->thread != NULL && value->type == TSL_JSON_STRING)
        /* Weights in ms of tracing become ns; sample counts and bytes stay. */
        self->thread->weight_factor = value->len == 10 && memcmp (value->p, "tracing-ms", 10) == 0 ? 1e6 : 1;
      break;
    default:
      break;
    }
}
