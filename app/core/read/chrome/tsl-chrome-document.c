/* tsl-chrome-document.c: the top level of a Chrome JSON document
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The object form's members (traceEvents is read by tsl-chrome-reader.c;
 * stackFrames here; samples read, or held until stackFrames has named
 * their stacks; anything else skipped unparsed), and what the end of the
 * input says about the document.
 */
#define G_LOG_DOMAIN "tsl-reader"

#include "config.h"

#include <string.h>
#include <glib/gi18n-lib.h>

#include "tsl-chrome-reader-types.h"

Step
_tsl_chrome_parse_frames (TslChrome   *self,
                          const char  *buf,
                          const char **pp,
                          const char  *end,
                          gboolean     at_eof,
                          GError     **error)
{
  const char *p = *pp;
  Step step = STEP_NEED_MORE;

  for (;;)
    {
      TslJsonValue key, value;
      TslJsonError jerr = { NULL, NULL };
      TslJsonStatus status;
      const char *after;

      p = tsl_json_skip_ws (p, end);
      if (p >= end)
        break;
      if (*p == '}')
        {
          p++;
          self->state = ST_OBJECT_NEXT;
          tsl_chrome_model_frames_done (&self->model);
          step = STEP_CONTINUE;
          break;
        }
      if (*p == ',')
        {
          p++;
          continue;
        }
      status = tsl_json_scan_value (p, end, &key, &after, &jerr);
      if (status == TSL_JSON_OK && key.type != TSL_JSON_STRING)
        {
          jerr.pos = p;
          jerr.message = N_("expected a stack frame id in double quotes");
          status = TSL_JSON_ERROR;
        }
      if (status == TSL_JSON_OK)
        {
          const char *q = tsl_json_skip_ws (after, end);

          if (q >= end)
            status = TSL_JSON_INCOMPLETE;
          else if (*q != ':')
            {
              jerr.pos = q;
              jerr.message = N_("expected ':' after a member name");
              status = TSL_JSON_ERROR;
            }
          else
            status = tsl_json_scan_value (tsl_json_skip_ws (q + 1, end), end,
                                          &value, &after, &jerr);
        }
      if (status == TSL_JSON_INCOMPLETE)
        {
          if (at_eof)
            p = end;
          break;
        }
      if (status == TSL_JSON_ERROR)
        {
          tsl_reader_context_set_error (self->ctx, error, jerr.pos - buf, "%s", _(jerr.message));
          step = STEP_ERROR;
          break;
        }
      tsl_chrome_model_add_frame (&self->model, &key, &value);
      p = after;
    }

  *pp = p;
  return step;
}

/* A samples array that arrived before stackFrames was held back so that its
 * stacks can be named; it is read now. */
void
_tsl_chrome_flush_held_samples (TslChrome *self)
{
  g_autoptr(GByteArray) held = g_steal_pointer (&self->held_samples);
  const char *start, *p, *end;
  gboolean saved_list = self->list_is_samples;
  gboolean saved_sep = self->need_separator;

  if (held == NULL)
    return;
  start = (const char *) held->data;
  end = start + held->len;
  p = tsl_json_skip_ws (start, end);
  if (p < end && *p == '[')
    {
      p++;
      self->list_is_samples = TRUE;
      self->need_separator = FALSE;
      /* Positions in this copy are not the driver's: report without one. */
      for (;;)
        {
          TslChromeEvent ev;
          TslJsonError jerr = { NULL, NULL };
          const char *after = NULL;

          p = tsl_json_skip_ws (p, end);
          if (p >= end || *p == ']')
            break;
          if (*p == ',')
            {
              p++;
              continue;
            }
          if (*p != '{' || tsl_chrome_scan_event (p, end, &ev, &self->shape, &after, &jerr) != TSL_JSON_OK)
            {
              tsl_trace_add_warning (self->model.trace,
                                     _("the top-level \"samples\" array is malformed; the rest of it was ignored"));
              break;
            }
          self->n_events++;
          tsl_chrome_model_sample (&self->model, &ev);
          p = after;
        }
    }
  self->list_is_samples = saved_list;
  self->need_separator = saved_sep;
}

/* A top-level member name, ':' and the first byte of its value; decides
 * where the value goes. */
Step
_tsl_chrome_parse_member (TslChrome   *self,
                          const char  *buf,
                          const char **pp,
                          const char  *end,
                          GError     **error)
{
  const char *p = tsl_json_skip_ws (*pp, end);
  TslJsonValue key;
  TslJsonError jerr = { NULL, NULL };
  TslJsonStatus status;
  const char *after;

  if (p >= end)
    return STEP_NEED_MORE;
  if (*p == '}')
    {
      *pp = p + 1;
      self->state = ST_DONE;
      return STEP_CONTINUE;
    }
  if (*p != '"')
    {
      tsl_reader_context_set_error (self->ctx, error, p - buf,
                                    _("expected a member name in double quotes"));
      return STEP_ERROR;
    }
  status = tsl_json_scan_value (p, end, &key, &after, &jerr);
  if (status == TSL_JSON_INCOMPLETE)
    return STEP_NEED_MORE;
  p = tsl_json_skip_ws (after, end);
  if (p >= end)
    return STEP_NEED_MORE;
  if (*p != ':')
    {
      tsl_reader_context_set_error (self->ctx, error, p - buf,
                                    _("expected ':' after a member name"));
      return STEP_ERROR;
    }
  p = tsl_json_skip_ws (p + 1, end);
  if (p >= end)
    return STEP_NEED_MORE;

  memset (&self->skip, 0, sizeof self->skip);
  if (TSL_JSON_KEY_IS (&key, "traceEvents") && *p == '[')
    {
      self->state = ST_EVENTS;
      self->list_is_samples = FALSE;
      self->need_separator = FALSE;
      self->saw_events = TRUE;
      p++;
    }
  else if (TSL_JSON_KEY_IS (&key, "samples") && *p == '[')
    {
      if (tsl_chrome_model_has_frames (&self->model))
        {
          self->state = ST_EVENTS;
          self->list_is_samples = TRUE;
          self->had_samples = TRUE;
          self->need_separator = FALSE;
          p++;
        }
      else
        {
          self->had_samples = TRUE;
          self->state = ST_HOLD_SAMPLES;
          if (self->held_samples == NULL)
            self->held_samples = g_byte_array_new ();
        }
    }
  else if (TSL_JSON_KEY_IS (&key, "stackFrames") && *p == '{')
    {
      self->state = ST_FRAMES;
      p++;
    }
  else
    /* Including displayTimeUnit: it only changes how times are displayed,
     * "ts" and "dur" are always microseconds. */
    self->state = ST_SKIP;

  *pp = p;
  return STEP_CONTINUE;
}

void
_tsl_chrome_finish (TslChrome *self)
{
  switch (self->state)
    {
    case ST_START:
    case ST_EVENTS:
    case ST_DONE:
      /* EOF inside the event array after a whole event is allowed. */
      break;
    case ST_OBJECT:
    case ST_OBJECT_NEXT:
    case ST_FRAMES:
    case ST_SKIP:
    case ST_HOLD_SAMPLES:
    default:
      tsl_trace_add_warning (self->model.trace,
                             _("the JSON document is truncated; what was read is shown"));
      break;
    }
  if (self->object_form && !self->saw_events)
    tsl_trace_add_warning (self->model.trace, _("no \"traceEvents\" array in the JSON object"));
  if (self->held_samples != NULL)
    {
      tsl_chrome_model_frames_done (&self->model);
      _tsl_chrome_flush_held_samples (self);
    }
  tsl_chrome_model_finish (&self->model);
}
