/* tsl-gecko-reader.c: Firefox Profiler profiles (Gecko and processed)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What Firefox's profiler (MOZ_PROFILER_SHUTDOWN), samply and other tools
 * that target profiler.firefox.com write: one JSON object with "meta",
 * "threads" and, in a Gecko profile, sub-process profiles in "processes".
 * A Gecko profile's tables are rows under a "schema" ({"schema": {...},
 * "data": [[...], ...]}) and each thread has its own "stringTable"; a
 * processed profile (meta.preprocessedProfileVersion) keeps each column
 * as an array ({"stack": [...], "time": [...], "length": N}), names
 * frames through a "funcTable", and its strings are the thread's
 * "stringArray" or "shared"."stringArray". Both are told apart by shape,
 * table by table, so any mixture reads.
 *
 * The document is walked level by level without a tree: a stack of the
 * objects and arrays it is in, each level knowing what its members mean.
 * Whatever is not read (libs, pages, marker payloads, schemas of markers)
 * is skipped, however large. A thread's samples and markers come before
 * the tables and strings that name them, so they are spooled
 * (tsl-spool.c) and placed at the thread's end (tsl-gecko-thread.c):
 * memory is bounded by the largest thread's tables, not by the samples.
 *
 * No chunk index (TSL_CHECKPOINT_NEVER) and no cutting between scanners:
 * every sample of a thread waits for that thread's tables, which come
 * after it. A Gecko table's rows are scanned on a second thread ahead of
 * the one that reads their cells instead (tsl-gecko-ahead.c).
 */
#define G_LOG_DOMAIN "tsl-gecko-reader"

#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "tsl-gecko-private.h"

static int
gecko_sniff (const guint8 *head,
             gsize         len,
             gboolean      at_eof)
{
  const char *s = (const char *) head;
  const char *p = tsl_json_skip_ws (s, s + len);

  if (p >= s + len || *p != '{')
    return 0;
  if (tsl_sniff_contains (s, len, "\"traceEvents\"") || tsl_sniff_contains (s, len, "\"$schema\""))
    return 0;
  /* Firefox writes "libs" first: with hundreds of libraries "meta" is past
   * what the sniffer sees, but their Breakpad ids are not. */
  if (!tsl_sniff_contains (s, len, "\"meta\""))
    return tsl_sniff_contains (s, len, "\"libs\"") && tsl_sniff_contains (s, len, "\"breakpadId\"")
           && tsl_sniff_contains (s, len, "\"debugName\"") ? 80 : 0;
  /* Processed: its version says so in "meta", which comes first. */
  if (tsl_sniff_contains (s, len, "\"preprocessedProfileVersion\""))
    return 100;
  /* Gecko: "meta" first (or after "libs"), and a thread's tables. */
  if (tsl_sniff_contains (s, len, "\"stackTable\"") || tsl_sniff_contains (s, len, "\"markerSchema\"")
      || (tsl_sniff_contains (s, len, "\"interval\"") && tsl_sniff_contains (s, len, "\"startTime\"")
          && tsl_sniff_contains (s, len, "\"version\"")))
    return 90;
  return 0;
}

static gpointer
gecko_create (TslTrace         *trace,
              TslReaderContext *ctx)
{
  TslGecko *self = g_new0 (TslGecko, 1);

  self->trace = trace;
  self->ctx = ctx;
  self->scratch = g_string_new (NULL);
  self->label = g_string_new (NULL);
  self->path = g_array_new (FALSE, FALSE, sizeof (gint32));
  self->pending = g_ptr_array_new_with_free_func ((GDestroyNotify) tsl_gecko_thread_free);
  self->thread_pids = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
  self->unknown_frame = tsl_trace_intern (trace, "(unknown frame)");
  self->cpu_is_time = TRUE;
  return self;
}

static void
clear_level (Level *level)
{
  g_clear_pointer (&level->counters, g_ptr_array_unref);
}

static void
gecko_destroy (gpointer state)
{
  TslGecko *self = state;

  for (guint i = 0; i < self->depth; i++)
    clear_level (&self->levels[i]);
  g_clear_pointer (&self->thread, tsl_gecko_thread_free);
  g_clear_pointer (&self->counter, tsl_gecko_counter_free);
  g_clear_pointer (&self->pending, g_ptr_array_unref);
  g_clear_pointer (&self->shared_strings, g_array_unref);
  g_clear_pointer (&self->reading_strings, g_array_unref);
  g_clear_pointer (&self->thread_pids, g_hash_table_unref);
  g_clear_pointer (&self->ahead, tsl_scan_ahead_free);
  tsl_gecko_place_drop (self);
  g_debug ("%" G_GUINT64_FORMAT " samples placed while the next thread's rows were scanned, %" G_GUINT64_FORMAT
           " popped on the second thread", self->n_placed_early, self->n_popped_ahead);
  g_array_unref (self->path);
  g_string_free (self->scratch, TRUE);
  g_string_free (self->label, TRUE);
  g_free (self);
}

gboolean
tsl_gecko_may_warn (TslGecko *self,
                    WarnKind  kind)
{
  /* A warning of the reading comes after the thread being placed. */
  if (!self->placing_now)
    tsl_gecko_settle (self);
  return ++self->warned[kind] <= TSL_GECKO_POS_WARNINGS;
}

void
tsl_gecko_warn_at (TslGecko   *self,
                   gsize       offset,
                   const char *format,
                   ...)
{
  g_autofree char *position = NULL;
  g_autofree char *message = NULL;
  va_list args;

  if (!self->placing_now)
    tsl_gecko_settle (self);
  position = tsl_reader_context_position (self->ctx, offset);
  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  tsl_trace_add_warning (self->trace, "%s: %s", position, message);
}

gint64
tsl_gecko_clamp (TslGecko *self,
                 gint64    ns)
{
  if (ns > TSL_GECKO_TIME_LIMIT || ns < -TSL_GECKO_TIME_LIMIT)
    {
      self->clamped = TRUE;
      return ns > 0 ? TSL_GECKO_TIME_LIMIT : -TSL_GECKO_TIME_LIMIT;
    }
  return ns;
}

static gsize
offset_of (TslGecko   *self,
           const char *p)
{
  return p - (const char *) self->buf;
}

Level *
tsl_gecko_profile_level (TslGecko *self)
{
  for (guint i = self->depth; i > 0; i--)
    if (self->levels[i - 1].ctx == CTX_PROFILE)
      return &self->levels[i - 1];
  return NULL;
}

static void
push_level (TslGecko *self,
            Ctx       ctx,
            gboolean  is_array,
            TableKind table,
            Column    column)
{
  Level *level = &self->levels[self->depth++];

  memset (level, 0, sizeof *level);
  level->ctx = ctx;
  level->is_array = is_array;
  level->first = TRUE;
  level->table = table;
  level->column = column;
  if (ctx == CTX_PROFILE)
    {
      level->first_thread = self->n_threads;
      level->counters = g_ptr_array_new_with_free_func ((GDestroyNotify) tsl_gecko_counter_free);
    }
}

/* An object or array begins at `item` for the member or element that asked
 * for it. FALSE: it is not what the walk expects (skipped, with a warning). */
static gboolean
descend (TslGecko  *self,
         const char *item,
         Ctx        child,
         TableKind  table,
         Column     column)
{
  gboolean want_array = child == CTX_THREADS || child == CTX_PROCESSES || child == CTX_COUNTERS
                        || child == CTX_ROWS || child == CTX_COLUMN || child == CTX_STRINGS;

  if (*item == 'n' && (child == CTX_COLUMN || child == CTX_TABLE))
    return FALSE;   /* "weight": null and the like: nothing to read */
  if (*item != (want_array ? '[' : '{') || self->depth >= TSL_GECKO_MAX_LEVELS - 1)
    {
      if (self->depth < TSL_GECKO_MAX_LEVELS - 1 && tsl_gecko_may_warn (self, WARN_VALUE))
        tsl_gecko_warn_at (self, offset_of (self, item), want_array ? _("expected an array; the value is ignored")
                                                                    : _("expected an object; the value is ignored"));
      return FALSE;
    }
  push_level (self, child, want_array, table, column);
  if (child == CTX_THREAD)
    {
      Level *profile = tsl_gecko_profile_level (self);

      self->thread = tsl_gecko_thread_new (self, profile != NULL ? profile->offset_ns : 0);
    }
  else if (child == CTX_COUNTER)
    {
      Level *profile = tsl_gecko_profile_level (self);

      self->counter = g_new0 (TslGeckoCounter, 1);
      self->counter->main_thread = -1;
      self->counter->offset_ns = profile != NULL ? profile->offset_ns : 0;
      self->counter->time_col = COL_NONE;
      memset (self->counter->schema, -1, sizeof self->counter->schema);
      self->counter->schema[COL_TIME] = 0;
      self->counter->schema[COL_COUNT] = 1;
      /* Cleared: the time and count columns may differ in length, and a
       * point has only what its columns gave it. */
      self->counter->points = g_array_new (FALSE, TRUE, sizeof (CounterPoint));
    }
  else if (child == CTX_STRINGS)
    {
      g_clear_pointer (&self->reading_strings, g_array_unref);
      self->reading_strings = g_array_new (FALSE, FALSE, sizeof (guint32));
    }
  else if (child == CTX_ROWS || child == CTX_COLUMN)
    {
      if ((table == TBL_COUNTER ? self->counter == NULL : self->thread == NULL))
        {
          self->depth--;
          return FALSE;
        }
    }
  return TRUE;
}

/* The object or array at the top ends at buf + offset (its closing byte). */
static void
ascend (TslGecko *self,
        gsize     offset)
{
  Level *level = &self->levels[self->depth - 1];

  switch (level->ctx)
    {
    case CTX_THREAD:
      if (self->thread != NULL)
        {
          TslGeckoThread *th = g_steal_pointer (&self->thread);
          Level *profile = tsl_gecko_profile_level (self);

          if (profile != NULL && th->have_pid && th->index >= profile->first_thread)
            g_hash_table_insert (self->thread_pids, GUINT_TO_POINTER (th->index),
                                 g_memdup2 (&th->pid, sizeof th->pid));
          tsl_gecko_thread_end (self, th, offset);
        }
      break;
    case CTX_COUNTER:
      if (self->counter != NULL)
        {
          Level *profile = tsl_gecko_profile_level (self);

          if (profile != NULL)
            g_ptr_array_add (profile->counters, g_steal_pointer (&self->counter));
          else
            g_clear_pointer (&self->counter, tsl_gecko_counter_free);
        }
      break;
    case CTX_STRINGS:
      if (self->depth >= 2 && self->levels[self->depth - 2].ctx == CTX_THREAD && self->thread != NULL)
        {
          g_clear_pointer (&self->thread->strings, g_array_unref);
          self->thread->strings = g_steal_pointer (&self->reading_strings);
        }
      else if (self->shared_strings == NULL)
        {
          self->shared_strings = g_steal_pointer (&self->reading_strings);
          tsl_gecko_flush_pending (self);
        }
      g_clear_pointer (&self->reading_strings, g_array_unref);
      break;
    case CTX_PROFILE:
      /* Counters name no pid in a Gecko profile: their process's main thread's. */
      for (guint i = 0; i < level->counters->len; i++)
        {
          TslGeckoCounter *c = g_ptr_array_index (level->counters, i);
          guint main = c->main_thread >= 0 ? level->first_thread + (guint) MIN (c->main_thread, G_MAXUINT / 2)
                                           : level->first_thread;
          gint64 *pid = g_hash_table_lookup (self->thread_pids, GUINT_TO_POINTER (main));

          tsl_gecko_counter_place (self, c, c->have_pid ? c->pid : pid != NULL ? *pid : 0);
        }
      break;
    default:
      break;
    }
  clear_level (level);
  self->depth--;
  if (self->depth == 0)
    {
      /* The document's end: nothing waits for a next thread. */
      tsl_gecko_settle (self);
      self->levels[0].ctx = CTX_AFTER;
    }
}

/* A string of a string table, interned. */
static void
string_element (TslGecko           *self,
                const TslJsonValue *value,
                gsize               offset)
{
  guint32 id;

  if (value->type == TSL_JSON_STRING)
    {
      gsize len;
      const char *s = tsl_json_value_get_string (value, self->scratch, &len);

      tsl_gecko_settle (self);
      id = tsl_trace_intern_len (self->trace, s, len);
    }
  else
    {
      if (tsl_gecko_may_warn (self, WARN_VALUE))
        tsl_gecko_warn_at (self, offset, _("a string table holds something that is not a string; it names "
                                           "(unknown frame)"));
      id = self->unknown_frame;
    }
  g_array_append_val (self->reading_strings, id);
}

/* A row of a Gecko table at p: its cells by position, in one pass. OK with
 * *after past its ']'; INCOMPLETE when the buffer ends inside it. */
static TslJsonStatus
read_row (TslGecko     *self,
          TableKind     table,
          const char   *p,
          const char   *end,
          const char  **after,
          TslJsonError *jerr)
{
  const gint8 *schema = tsl_gecko_schema_of (self, table);
  gint8 by_pos[TSL_GECKO_ROW_CELLS];
  TslJsonValue cells[TSL_GECKO_ROW_CELLS];
  guint32 got = 0;
  guint n_pos = 0;
  const char *q;

  if (*p != '[')
    {
      TslJsonValue value;
      TslJsonStatus status = tsl_json_scan_value (p, end, &value, after, jerr);

      /* A processed profile's markers have a "data" column of payloads. */
      if (status == TSL_JSON_OK && table != TBL_MARKERS && tsl_gecko_may_warn (self, WARN_VALUE))
        tsl_gecko_warn_at (self, offset_of (self, p), _("a table row that is not an array is ignored"));
      return status;
    }
  /* Per row, not per cell: which columns sit where, up to the last read. */
  memset (by_pos, -1, sizeof by_pos);
  for (int c = 0; c < N_COLS; c++)
    if (schema[c] >= 0)
      {
        by_pos[schema[c]] = c;
        n_pos = MAX (n_pos, (guint) schema[c] + 1);
      }
  q = p + 1;
  for (guint i = 0;; i++)
    {
      TslJsonValue value;
      TslJsonStatus status;

      q = tsl_json_skip_ws (q, end);
      if (q >= end)
        return TSL_JSON_INCOMPLETE;
      if (*q == ']' && i == 0)
        {
          q++;
          break;
        }
      if ((guchar) (*q - '0') < 10 ? !tsl_json_scan_number (q, end, &value, &q)
                                   : (status = tsl_json_scan_value (q, end, &value, &q, jerr)) != TSL_JSON_OK)
        return (guchar) (*q - '0') < 10 ? TSL_JSON_INCOMPLETE : status;
      if (i < n_pos && by_pos[i] >= 0)
        {
          cells[i] = value;
          got |= 1u << i;
        }
      q = tsl_json_skip_ws (q, end);
      if (q >= end)
        return TSL_JSON_INCOMPLETE;
      if (*q == ']')
        {
          q++;
          break;
        }
      if (*q != ',')
        {
          jerr->pos = q;
          jerr->message = N_("expected ',' or ']'");
          return TSL_JSON_ERROR;
        }
      q++;
    }
  /* Whole: now its cells count, in the schema's order of positions. */
  for (guint i = 0; i < n_pos; i++)
    if (got & (1u << i))
      tsl_gecko_cell (self, table, by_pos[i], &cells[i], offset_of (self, p));
  tsl_gecko_row_end (self, table, got, offset_of (self, p));
  *after = q;
  return TSL_JSON_OK;
}

/* The next member (objects) or element (arrays) of the top level, from
 * *pp: read, descended into or skipped; *pp moves past what was used. */
static TslJsonStatus
step (TslGecko     *self,
      const char  **pp,
      const char   *end,
      gboolean      at_eof,
      TslJsonError *jerr)
{
  Level *level = &self->levels[self->depth - 1];
  const char *p, *item, *after;
  TslJsonValue key = { 0 }, value;
  TslJsonStatus status;
  Ctx child = CTX_AFTER;
  TableKind table = TBL_NONE;
  Column column = COL_NONE;
  Action action;

  /* The hot case, once per cell of a processed profile's column: ",123"
   * or ",12.5" without blanks, straight to the cell; the rest below. */
  if (level->ctx == CTX_COLUMN && !level->first)
    {
      p = *pp;
      while (end - p >= 2 && p[0] == ',' && (guchar) (p[1] - '0') < 10 &&
             tsl_json_scan_number (p + 1, end, &value, &after))
        {
          tsl_gecko_cell (self, level->table, level->column, &value, offset_of (self, p + 1));
          p = after;
        }
      *pp = p;
    }
  p = tsl_json_skip_ws (*pp, end);
  if (p >= end)
    return TSL_JSON_INCOMPLETE;
  if (*p == (level->is_array ? ']' : '}'))
    {
      *pp = p + 1;
      ascend (self, offset_of (self, p));
      return TSL_JSON_OK;
    }
  if (!level->first)
    {
      if (*p != ',')
        {
          jerr->pos = p;
          jerr->message = level->is_array ? N_("expected ',' or ']'") : N_("expected ',' or '}'");
          return TSL_JSON_ERROR;
        }
      p = tsl_json_skip_ws (p + 1, end);
      if (p >= end)
        return TSL_JSON_INCOMPLETE;
    }
  if (level->is_array)
    {
      item = p;
      switch (level->ctx)
        {
        case CTX_THREADS:
          action = ACT_DESCEND, child = CTX_THREAD;
          break;
        case CTX_PROCESSES:
          action = ACT_DESCEND, child = CTX_PROFILE;
          break;
        case CTX_COUNTERS:
          action = ACT_DESCEND, child = CTX_COUNTER;
          break;
        case CTX_ROWS:
          status = read_row (self, level->table, item, end, &after, jerr);
          if (status != TSL_JSON_OK)
            return status;
          level->first = FALSE;
          *pp = after;
          return TSL_JSON_OK;
        default:
          action = ACT_VALUE;
          break;
        }
    }
  else
    {
      if (*p != '"')
        {
          jerr->pos = p;
          jerr->message = N_("expected a member name in double quotes");
          return TSL_JSON_ERROR;
        }
      status = tsl_json_scan_string (p, end, &key, &item);
      if (status != TSL_JSON_OK)
        return status;
      item = tsl_json_skip_ws (item, end);
      if (item < end && *item != ':')
        {
          jerr->pos = item;
          jerr->message = N_("expected ':' after a member name");
          return TSL_JSON_ERROR;
        }
      item = tsl_json_skip_ws (item + (item < end), end);
      if (item >= end)
        return TSL_JSON_INCOMPLETE;
      action = tsl_gecko_member_action (self, level, &key, &child, &table, &column);
    }

  if (action == ACT_DESCEND)
    {
      level->first = FALSE;
      if (descend (self, item, child, table, column))
        {
          *pp = item + 1;
          return TSL_JSON_OK;
        }
      action = ACT_SKIP;
    }
  if (action == ACT_SKIP)
    {
      level->first = FALSE;
      memset (&self->skip, 0, sizeof self->skip);
      self->skipping = TRUE;
      *pp = item;
      return TSL_JSON_OK;
    }
  /* A value read whole: a cell of a column, a string, a scalar member. */
  if ((guchar) (*item - '0') < 10)
    {
      if (!tsl_json_scan_number (item, end, &value, &after))
        {
          if (!at_eof)
            return TSL_JSON_INCOMPLETE;
          status = tsl_json_scan_value (item, end, &value, &after, jerr);
          if (status != TSL_JSON_OK)
            return status;
        }
    }
  else
    {
      status = tsl_json_scan_value (item, end, &value, &after, jerr);
      if (status != TSL_JSON_OK)
        return status;
    }
  level->first = FALSE;
  *pp = after;
  if (level->ctx == CTX_COLUMN)
    {
      tsl_gecko_cell (self, level->table, level->column, &value, offset_of (self, item));
      return TSL_JSON_OK;
    }
  if (level->ctx == CTX_STRINGS)
    {
      string_element (self, &value, offset_of (self, item));
      return TSL_JSON_OK;
    }
  tsl_gecko_member_value (self, level, &key, &value, offset_of (self, item));
  return TSL_JSON_OK;
}

static gssize
stream (TslGecko      *self,
        const guint8  *buf,
        gsize          len,
        gboolean       at_eof,
        GError       **error)
{
  const char *p = (const char *) buf;
  const char *end = p + len;
  TslJsonError jerr = { NULL, NULL };

  self->buf = buf;
  for (;;)
    {
      TslJsonStatus status;
      const char *after;

      if (self->skipping)
        {
          if (!tsl_json_skip_feed (&self->skip, p, end, at_eof, &after))
            return len;
          self->skipping = FALSE;
          p = after;
          continue;
        }
      if (self->depth == 0)
        {
          if (self->levels[0].ctx == CTX_AFTER)
            return len;
          p = tsl_json_skip_ws (p, end);
          if (p >= end)
            return p - (const char *) buf;
          if (*p != '{')
            {
              tsl_reader_context_set_error (self->ctx, error, p - (const char *) buf, "%s",
                                            _("expected '{' at the start of a Firefox profile"));
              return -1;
            }
          push_level (self, CTX_PROFILE, FALSE, TBL_NONE, COL_NONE);
          p++;
          continue;
        }
      if (self->levels[self->depth - 1].ctx == CTX_ROWS)
        p = tsl_gecko_rows_ahead (self, &self->levels[self->depth - 1], p, end);
      status = step (self, &p, end, at_eof, &jerr);
      if (status == TSL_JSON_ERROR)
        {
          g_autofree char *position = NULL;

          tsl_gecko_settle (self);
          position = tsl_reader_context_position (self->ctx, jerr.pos - (const char *) buf);
          tsl_trace_add_warning (self->trace, _("%s: %s; the rest of the Firefox profile is not read"),
                                 position, _(jerr.message));
          return -2;
        }
      if (status == TSL_JSON_INCOMPLETE)
        return p - (const char *) buf;
    }
}

/* After damage or a cut: what was read of the open threads and processes
 * is placed as if they had ended here. */
static void
close_all (TslGecko *self,
           gsize     offset)
{
  while (self->depth > 0)
    ascend (self, offset);
  self->levels[0].ctx = CTX_AFTER;
}

static gssize
gecko_parse (gpointer      state,
             const guint8 *buf,
             gsize         len,
             gboolean      at_eof,
             GError      **error)
{
  TslGecko *self = state;
  gssize consumed;

  if (self->depth == 0 && self->levels[0].ctx == CTX_AFTER)
    return len;
  consumed = stream (self, buf, len, at_eof, error);
  if (consumed == -1)
    return -1;
  if (consumed == -2)
    {
      close_all (self, len);
      consumed = len;
    }
  if (at_eof)
    {
      if (self->depth == 0 && self->levels[0].ctx != CTX_AFTER)
        {
          tsl_reader_context_set_error (self->ctx, error, len, "%s",
                                        _("expected '{' at the start of a Firefox profile"));
          return -1;
        }
      tsl_gecko_settle (self);
      if (self->depth > 0)
        {
          g_autofree char *position = tsl_reader_context_position (self->ctx, len);

          tsl_trace_add_warning (self->trace, _("%s: the Firefox profile is truncated; what came before the "
                                                "cut was read"), position);
          self->skipping = FALSE;
          close_all (self, len);
        }
      tsl_gecko_flush_pending (self);
      {
        const char *name = tsl_reader_context_get_name (self->ctx);
        guint64 more[N_WARN_KINDS];

        for (int k = 0; k < N_WARN_KINDS; k++)
          more[k] = self->warned[k] > TSL_GECKO_POS_WARNINGS ? self->warned[k] - TSL_GECKO_POS_WARNINGS : 0;
        if (more[WARN_PREFIX] > 0)
          tsl_trace_add_warning (self->trace, _("%s: %llu more stacks whose prefix does not come before them"),
                                 name, (unsigned long long) more[WARN_PREFIX]);
        if (more[WARN_INDEX] > 0)
          tsl_trace_add_warning (self->trace, _("%s: %llu more indices past the end of their table"),
                                 name, (unsigned long long) more[WARN_INDEX]);
        if (more[WARN_TIME] > 0)
          tsl_trace_add_warning (self->trace, _("%s: %llu more times earlier than the one before"),
                                 name, (unsigned long long) more[WARN_TIME]);
        if (more[WARN_VALUE] > 0)
          tsl_trace_add_warning (self->trace, _("%s: %llu more cells of the wrong type"),
                                 name, (unsigned long long) more[WARN_VALUE]);
        if (more[WARN_MARKER] > 0)
          tsl_trace_add_warning (self->trace, _("%s: %llu more markers that end before they start"),
                                 name, (unsigned long long) more[WARN_MARKER]);
        if (self->clamped)
          tsl_trace_add_warning (self->trace, _("%s: times more than 146 years from 0 are shown at that bound"),
                                 name);
      }
      consumed = len;
    }
  tsl_trace_add_events (self->trace, self->n_events);
  self->n_events = 0;
  return consumed;
}

const TslFormat tsl_format_gecko = {
  .name = "gecko",
  .sniff = gecko_sniff,
  .create = gecko_create,
  .parse = gecko_parse,
  .destroy = gecko_destroy,
  .checkpoint = tsl_format_checkpoint_never,
};
