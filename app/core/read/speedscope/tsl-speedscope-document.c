/* tsl-speedscope-document.c: the speedscope document, held or streamed
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Positions and errors in a held value or document, the repair of a
 * document cut short, reading a whole held document, and the pieces the
 * streaming driver (tsl-speedscope-reader.c) reads with: the next item of
 * a container, values collected across buffers, the shared frame table
 * and a profile's head (its fields before "events").
 */
#define G_LOG_DOMAIN "tsl-speedscope"

#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "tsl-chunk-index.h"
#include "tsl-frames.h"
#include "tsl-format-private.h"
#include "tsl-json-scan.h"
#include "tsl-scan-pool.h"
#include "tsl-speedscope-private.h"

/* "FILE:LINE:COLUMN" of pos. The driver's positions only cover its current
 * buffer; a held value or document is counted from its start (columns in
 * bytes, as the driver). */
static char *
doc_position (TslSpeedscope *self,
              const char    *doc,
              const char    *pos)
{
  guint64 line = 1;
  guint64 column = 1;

  if (self->held->len > 0 && doc == (const char *) self->held->data)
    {
      line = self->held_line;
      column = self->held_column;
    }
  for (const char *p = doc; p < pos; p++)
    {
      if (*p == '\n')
        {
          line++;
          column = 1;
        }
      else
        column++;
    }
  return g_strdup_printf ("%s:%" G_GUINT64_FORMAT ":%" G_GUINT64_FORMAT,
                          tsl_reader_context_get_name (self->ctx), line, column);
}

static void
set_doc_error (TslSpeedscope  *self,
               GError        **error,
               const DocError *err)
{
  g_autofree char *position = NULL;

  if (err->buf != NULL)
    {
      tsl_reader_context_set_error (self->ctx, error, err->pos - err->buf, "%s", _(err->message));
      return;
    }
  position = doc_position (self, err->doc, err->pos);
  g_set_error (error, TSL_READER_ERROR, TSL_READER_ERROR_SYNTAX, "%s: %s",
               position, _(err->message));
}

/* A document cut short (a copy interrupted, a crashed writer): finds the
 * last point where everything before is whole — after an opening bracket,
 * before a comma, after a closing bracket — and the brackets open there,
 * innermost last. FALSE when the top-level value is complete (or broken in
 * a way the parse reports). */
gboolean
tsl_speedscope_find_truncation (const char *doc,
                                gsize       len,
                                gsize      *cut,
                                GByteArray *open)
{
  g_autoptr(GByteArray) stack = g_byte_array_new ();
  gboolean in_string = FALSE;
  gsize safe = 0;
  guint safe_depth = 0;

  for (gsize i = 0; i < len; i++)
    {
      char c = doc[i];
      guint8 closer;

      if (in_string)
        {
          if (c == '\\')
            i++;
          else if (c == '"')
            in_string = FALSE;
          continue;
        }
      switch (c)
        {
        case '"':
          in_string = TRUE;
          break;
        case '{':
        case '[':
          closer = c == '{' ? '}' : ']';
          g_byte_array_append (stack, &closer, 1);
          safe = i + 1;
          safe_depth = stack->len;
          break;
        case '}':
        case ']':
          if (stack->len <= 1)
            return FALSE;
          g_byte_array_set_size (stack, stack->len - 1);
          safe = i + 1;
          safe_depth = stack->len;
          break;
        case ',':
          safe = i;
          safe_depth = stack->len;
          break;
        default:
          break;
        }
    }
  if (stack->len == 0)
    return FALSE;

  *cut = safe;
  g_byte_array_set_size (open, 0);
  for (guint i = safe_depth; i > 0; i--)
    g_byte_array_append (open, &stack->data[i - 1], 1);
  return TRUE;
}

/* Keeps what a truncated document held: cut at its last whole value and
 * close the brackets still open. */
void
tsl_speedscope_repair_truncation (TslSpeedscope *self)
{
  g_autoptr(GByteArray) closers = g_byte_array_new ();
  g_autofree char *position = NULL;
  const char *doc = (const char *) self->doc->data;
  gsize cut;

  if (self->doc->len == 0 || !tsl_speedscope_find_truncation (doc, self->doc->len, &cut, closers))
    return;
  position = doc_position (self, doc, doc + self->doc->len);
  tsl_trace_add_warning (self->trace, _("%s: the speedscope file is truncated; the frames and "
                                       "events before the cut were read"), position);
  g_byte_array_set_size (self->doc, cut);
  g_byte_array_append (self->doc, closers->data, closers->len);
}

/* The whole held document (ST_HOLD). */
gboolean
tsl_speedscope_read_document (TslSpeedscope  *self,
                              GError        **error)
{
  /* An empty GByteArray has no data pointer at all. */
  const char *doc = self->doc->len > 0 ? (const char *) self->doc->data : "";
  const char *end = doc + self->doc->len;
  const char *p = tsl_json_skip_ws (doc, end);
  TslJsonIter iter;
  TslJsonValue key, value, profiles = { 0 }, profile;
  TslJsonError jerr = { NULL, NULL };
  TslJsonStatus status;
  DocError err = { doc, NULL, NULL, NULL };
  guint64 n_events = 0;
  guint index = 0;

  if (p >= end || *p != '{')
    {
      err.pos = p;
      err.message = N_("expected '{' at the start of a speedscope file");
      set_doc_error (self, error, &err);
      return FALSE;
    }
  tsl_json_iter_init (&iter, p, end);
  while ((status = tsl_json_iter_next_member (&iter, &key, &value, &jerr)) == TSL_JSON_OK)
    {
      if (TSL_JSON_KEY_IS (&key, "shared") && value.type == TSL_JSON_OBJECT)
        {
          if (!tsl_speedscope_read_frames (self, &value, &err))
            {
              set_doc_error (self, error, &err);
              return FALSE;
            }
        }
      else if (TSL_JSON_KEY_IS (&key, "profiles") && value.type == TSL_JSON_ARRAY)
        profiles = value;
    }
  if (status != TSL_JSON_DONE)
    {
      err.pos = status == TSL_JSON_ERROR ? jerr.pos : end;
      err.message = status == TSL_JSON_ERROR ? jerr.message : N_("unexpected end of input");
      set_doc_error (self, error, &err);
      return FALSE;
    }
  if (profiles.type != TSL_JSON_ARRAY)
    {
      tsl_trace_add_warning (self->trace, _("no \"profiles\" array in the speedscope file"));
      return TRUE;
    }

  tsl_json_iter_init (&iter, profiles.p, profiles.p + profiles.len);
  while ((status = tsl_json_iter_next_element (&iter, &profile, &jerr)) == TSL_JSON_OK)
    {
      gboolean ok = tsl_speedscope_read_profile (self, index++, &profile, &n_events, &err);

      tsl_trace_add_events (self->trace, n_events);
      n_events = 0;
      if (!ok)
        {
          set_doc_error (self, error, &err);
          return FALSE;
        }
    }
  if (status == TSL_JSON_ERROR)
    {
      err.pos = jerr.pos;
      err.message = jerr.message;
      set_doc_error (self, error, &err);
      return FALSE;
    }
  return TRUE;
}

/* ---- Streaming ---- */

/* The next item of a container whose opening bracket (first) or last item
 * ends at p: OK with *item at its first byte (in the buffer), DONE with
 * *item just past the closing bracket, INCOMPLETE or ERROR. For an object,
 * *key is the member's name and *item its value. */
TslJsonStatus
tsl_speedscope_next_item (const char    *p,
                          const char    *end,
                          gboolean       first,
                          char           open,
                          char           close,
                          TslJsonValue  *key,
                          const char   **item,
                          TslJsonError  *jerr)
{
  const char *after;
  TslJsonStatus status;

  p = tsl_json_skip_ws (p, end);
  if (p >= end)
    return TSL_JSON_INCOMPLETE;
  if (first)
    {
      if (*p != open)
        {
          jerr->pos = p;
          jerr->message = open == '{' ? N_("expected '{'") : N_("expected '['");
          return TSL_JSON_ERROR;
        }
      p = tsl_json_skip_ws (p + 1, end);
      if (p >= end)
        return TSL_JSON_INCOMPLETE;
      if (*p == close)
        {
          *item = p + 1;
          return TSL_JSON_DONE;
        }
    }
  else
    {
      if (*p == close)
        {
          *item = p + 1;
          return TSL_JSON_DONE;
        }
      if (*p != ',')
        {
          jerr->pos = p;
          jerr->message = close == '}' ? N_("expected ',' or '}'") : N_("expected ',' or ']'");
          return TSL_JSON_ERROR;
        }
      p = tsl_json_skip_ws (p + 1, end);
      if (p >= end)
        return TSL_JSON_INCOMPLETE;
    }
  if (open == '{')
    {
      if (*p != '"')
        {
          jerr->pos = p;
          jerr->message = N_("expected a member name in double quotes");
          return TSL_JSON_ERROR;
        }
      if ((status = tsl_json_scan_value (p, end, key, &after, jerr)) != TSL_JSON_OK)
        return status;
      p = tsl_json_skip_ws (after, end);
      if (p >= end)
        return TSL_JSON_INCOMPLETE;
      if (*p != ':')
        {
          jerr->pos = p;
          jerr->message = N_("expected ':' after a member name");
          return TSL_JSON_ERROR;
        }
      p = tsl_json_skip_ws (p + 1, end);
      if (p >= end)
        return TSL_JSON_INCOMPLETE;
    }
  *item = p;
  return TSL_JSON_OK;
}

/* Starts collecting (or skipping) the value at p. */
void
tsl_speedscope_begin_value (TslSpeedscope *self,
                            Stage          stage,
                            Stage          after_skip)
{
  memset (&self->skip, 0, sizeof self->skip);
  g_byte_array_set_size (self->held, 0);
  self->stage = stage;
  self->after_skip = after_skip;
}

/* Feeds the value being collected from p. TRUE when it is whole: *value
 * spans it (in the buffer, or held when it began in an earlier one) and
 * *after is past it. */
gboolean
tsl_speedscope_collect_value (TslSpeedscope *self,
                              const guint8  *buf,
                              const char    *p,
                              const char    *end,
                              gboolean       at_eof,
                              gboolean       keep,
                              TslJsonValue  *value,
                              const char   **after)
{
  gboolean done = tsl_json_skip_feed (&self->skip, p, end, at_eof, after);

  if (!keep)
    return done;
  if (!done || self->held->len > 0)
    {
      if (self->held->len == 0)
        {
          g_autofree char *position = tsl_reader_context_position (self->ctx, p - (const char *) buf);
          const char *colon = strrchr (position, ':');

          /* "FILE:LINE:COLUMN": FILE may hold colons, the last two are ours. */
          self->held_column = g_ascii_strtoull (colon + 1, NULL, 10);
          while (colon > position && colon[-1] != ':')
            colon--;
          self->held_line = g_ascii_strtoull (colon, NULL, 10);
        }
      g_byte_array_append (self->held, (const guint8 *) p, (done ? *after : end) - p);
    }
  if (done)
    {
      value->p = self->held->len > 0 ? (const char *) self->held->data : p;
      value->len = self->held->len > 0 ? self->held->len : *after - p;
      value->type = value->p[0] == '{' ? TSL_JSON_OBJECT : value->p[0] == '[' ? TSL_JSON_ARRAY : TSL_JSON_NONE;
      value->escaped = 0;
    }
  return done;
}

/* A profile held or in the buffer, read whole. */
gboolean
tsl_speedscope_read_whole_profile (TslSpeedscope      *self,
                                   const guint8       *buf,
                                   const TslJsonValue *value,
                                   GError            **error)
{
  gboolean held = self->held->len > 0 && value->p == (const char *) self->held->data;
  DocError err = { value->p, NULL, NULL, held ? NULL : (const char *) buf };

  if (!tsl_speedscope_read_profile (self, self->n_profiles++, value, &self->n_events, &err))
    {
      set_doc_error (self, error, &err);
      return FALSE;
    }
  tsl_speedscope_flush_events (self);
  return TRUE;
}

gboolean
tsl_speedscope_read_shared (TslSpeedscope      *self,
                            const guint8       *buf,
                            const TslJsonValue *value,
                            GError            **error)
{
  gboolean held = self->held->len > 0 && value->p == (const char *) self->held->data;
  DocError err = { value->p, NULL, NULL, held ? NULL : (const char *) buf };

  /* Frames a profile already streamed could not see: read, but no index. */
  if (self->streamed)
    self->no_index = TRUE;
  if (!tsl_speedscope_read_frames (self, value, &err))
    {
      set_doc_error (self, error, &err);
      return FALSE;
    }
  self->frames_read = TRUE;
  return TRUE;
}

#define MAX_HEAD (1024 * 1024)

/* TSL_SPEEDSCOPE_HOLD_SAMPLED=1 holds sampled profiles whole, as before
 * they streamed: for tests that compare the two. */
static gboolean
hold_sampled (void)
{
  static int hold = -1;

  if (hold < 0)
    hold = g_strcmp0 (g_getenv ("TSL_SPEEDSCOPE_HOLD_SAMPLED"), "1") == 0;
  return hold;
}

HeadResult
tsl_speedscope_scan_head (TslSpeedscope  *self,
                          const char     *p,
                          const char     *end,
                          Header         *h,
                          const char    **at,
                          TslJsonError   *jerr)
{
  const char *q = p;
  gboolean first = TRUE;

  for (;;)
    {
      TslJsonValue key, value;
      const char *item, *after;
      TslJsonStatus status = tsl_speedscope_next_item (q, end, first, '{', '}', &key, &item, jerr);

      if (status == TSL_JSON_DONE)
        {
          *at = item;
          return HEAD_WHOLE;
        }
      if (status == TSL_JSON_OK && *item == '[' &&
          (TSL_JSON_KEY_IS (&key, "events") || TSL_JSON_KEY_IS (&key, "samples") ||
           TSL_JSON_KEY_IS (&key, "weights")))
        {
          /* Streamed only when nothing the events need can come after them. */
          if (TSL_JSON_KEY_IS (&key, "events") && g_strcmp0 (h->type, "evented") == 0 &&
              h->name != NULL && h->unit != NULL)
            {
              *at = item;
              return HEAD_STREAM;
            }
          /* A type still unknown is sampled, as for a held profile (austin
           * writes "type" last). */
          if (TSL_JSON_KEY_IS (&key, "samples") && (h->type == NULL || g_strcmp0 (h->type, "sampled") == 0) &&
              h->name != NULL && h->unit != NULL && h->has_start && !hold_sampled ())
            {
              *at = item;
              return HEAD_SAMPLES;
            }
          return HEAD_HOLD;
        }
      if (status == TSL_JSON_OK)
        status = tsl_json_scan_value (item, end, &value, &after, jerr);
      if (status == TSL_JSON_ERROR)
        return HEAD_ERROR;
      if (status == TSL_JSON_INCOMPLETE)
        return end - p > MAX_HEAD ? HEAD_HOLD : HEAD_MORE;
      tsl_speedscope_header_member (self, h, &key, &value);
      q = after;
      first = FALSE;
    }
}
