/* tsl-chrome-ids.c: names, ids and times of Chrome events, as the trace keeps them
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Names and ids become trace strings (small plain strings through a cache
 * of their bytes); "pid" and "tid" numbers, or strings given a synthetic id
 * and made the process or thread name; "ts" microseconds as nanoseconds.
 */
#define G_LOG_DOMAIN "tsl-chrome"

#include <string.h>
#include <glib/gi18n-lib.h>

#include "tsl-chrome-ids.h"

/* A name, category or id as an interned string; numbers keep their text. */
guint32
tsl_chrome_model_intern (TslChromeModel     *self,
                         const TslJsonValue *value)
{
  TslChromeName *cached = NULL;
  const char *s;
  gsize len;
  guint32 id;

  if (value->type == TSL_JSON_STRING && !value->escaped &&
      value->len > 0 && value->len <= TSL_CHROME_NAME_CACHE_LEN)
    {
      cached = &self->names[bytes_hash (value->p, value->len) % TSL_CHROME_NAME_CACHE];
      if (cached->id != 0 && cached->len == value->len &&
          memcmp (cached->text, value->p, value->len) == 0)
        return cached->id;
    }

  if (value->type == TSL_JSON_STRING)
    s = tsl_json_value_get_string (value, self->scratch, &len);
  else if (value->type == TSL_JSON_NUMBER)
    {
      s = value->p;
      len = value->len;
    }
  else
    return self->unnamed;
  if (len == 0)
    return self->unnamed;
  id = tsl_trace_intern_len (self->trace, s, len);
  /* Only bytes that needed no repair stand for themselves. */
  if (cached != NULL && s == value->p)
    {
      cached->id = id;
      cached->len = (guint8) len;
      memcpy (cached->text, s, len);
    }
  return id;
}

/* "7695" and 7695 are the same thread; names like "PyTorch Profiler" get a
 * synthetic id, and become the process or thread name unless metadata names
 * it. */
gboolean
_tsl_chrome_resolve_id (TslChromeModel     *self,
                        const TslJsonValue *value,
                        gboolean            is_tid,
                        gint64              pid,
                        gint64             *out)
{
  const char *s;
  gsize len;
  gint64 *known;

  if (value->type == TSL_JSON_NONE || value->type == TSL_JSON_NULL)
    {
      *out = 0;
      return TRUE;
    }
  if (tsl_json_value_get_int64 (value, out))
    return TRUE;
  if (value->type != TSL_JSON_STRING)
    return FALSE;

  s = tsl_json_value_get_string (value, self->scratch, &len);
  g_string_truncate (self->key, 0);
  if (is_tid)
    g_string_append_printf (self->key, "t%" G_GINT64_FORMAT ":", pid);
  else
    g_string_append (self->key, "p:");
  g_string_append_len (self->key, s, len);
  known = g_hash_table_lookup (self->string_ids, self->key->str);
  if (known == NULL)
    {
      g_autofree char *name = g_strndup (s, len);

      known = g_new (gint64, 1);
      *known = (G_GINT64_CONSTANT (1) << 48) + g_hash_table_size (self->string_ids);
      g_hash_table_insert (self->string_ids, g_strdup (self->key->str), known);
      if (is_tid)
        tsl_trace_set_thread_name (self->trace, pid, *known, name);
      else if (tsl_trace_get_process_name (self->trace, *known) == NULL)
        tsl_trace_set_process_name (self->trace, *known, name);
    }
  *out = *known;
  return TRUE;
}

static inline gboolean
raw_id_is (const TslChromeRawId *raw,
           const TslJsonValue   *value)
{
  if (raw->type != value->type || raw->len != value->len)
    return FALSE;
  for (guint i = 0; i < raw->len; i++)
    if (raw->text[i] != value->p[i])
      return FALSE;
  return TRUE;
}

static gboolean
raw_id_set (TslChromeRawId     *raw,
            const TslJsonValue *value)
{
  if (value->len > TSL_CHROME_RAW_ID_LEN)
    return FALSE;
  raw->type = value->type;
  raw->len = value->len;
  if (value->len > 0)
    memcpy (raw->text, value->p, value->len);
  return TRUE;
}

/* The same bytes resolve the same way (a string tid is named within its
 * pid, so both must match): the last event's pair is kept as written. */
gboolean
_tsl_chrome_get_ids (TslChromeModel       *self,
                     const TslChromeEvent *ev,
                     gint64               *pid,
                     gint64               *tid)
{
  if (self->have_last_ids &&
      raw_id_is (&self->last_pid_raw, &ev->pid) && raw_id_is (&self->last_tid_raw, &ev->tid))
    {
      *pid = self->last_pid;
      *tid = self->last_tid;
      return TRUE;
    }
  if (!_tsl_chrome_resolve_id (self, &ev->pid, FALSE, 0, pid) ||
      !_tsl_chrome_resolve_id (self, &ev->tid, TRUE, *pid, tid))
    {
      tsl_trace_add_warning (self->trace,
                             _("ignored an event whose \"pid\" or \"tid\" is not a number or a string"));
      return FALSE;
    }
  self->have_last_ids = raw_id_set (&self->last_pid_raw, &ev->pid) &&
                        raw_id_set (&self->last_tid_raw, &ev->tid);
  self->last_pid = *pid;
  self->last_tid = *tid;
  return TRUE;
}

gboolean
_tsl_chrome_get_ts (TslChromeModel       *self,
                    const TslChromeEvent *ev,
                    gint64               *ts_ns)
{
  if (ev->ts.type == TSL_JSON_NONE)
    {
      tsl_trace_add_warning (self->trace, _("ignored an event without \"ts\""));
      return FALSE;
    }
  if (!tsl_json_value_get_us_as_ns (&ev->ts, ts_ns))
    {
      tsl_trace_add_warning (self->trace, _("ignored an event whose \"ts\" is not a number in range"));
      return FALSE;
    }
  return TRUE;
}
