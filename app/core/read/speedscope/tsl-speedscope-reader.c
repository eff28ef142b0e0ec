/* tsl-speedscope-reader.c: speedscope's JSON file format
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * https://www.speedscope.app/file-format-schema.json. Each profile is one
 * thread track named after the profile. The file is read as it streams when
 * its shared frame table comes before the profiles (as every writer we know
 * puts it): an evented profile whose type, name and unit come before its
 * events streams them one by one, and a chunk index may start a later read
 * between two of them (the open frames, the profile's fields and its track
 * saved). A sampled profile whose name, unit and start (and type, if
 * any yet) come before its samples streams too: its samples are spooled until their weights
 * come (tsl-speedscope-sampled.c). Other profiles (fields after their
 * arrays, weights before samples) are held whole and read at their end. When the
 * profiles come before the frame table, the whole document is held until
 * the end of the input, then read, and the file gets no index. A document
 * cut short is read up to its last whole value, with a warning.
 *
 * This file holds the format (sniff, create, destroy) and the streaming
 * driver: the stages of the document as it streams in and the ends of a
 * cut input. The other parts are in this folder (tsl-speedscope-private.h).
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

static int
speedscope_sniff (const guint8 *head,
                  gsize         len,
                  gboolean      at_eof)
{
  const char *s = (const char *) head;
  const char *p = tsl_json_skip_ws (s, s + len);

  if (p >= s + len || *p != '{')
    return 0;
  if (tsl_sniff_contains (s, len, "speedscope.app/file-format-schema") ||
      (tsl_sniff_contains (s, len, "\"$schema\"") && tsl_sniff_contains (s, len, "speedscope")))
    return 100;
  if (tsl_sniff_contains (s, len, "\"profiles\"") && tsl_sniff_contains (s, len, "\"shared\"") &&
      !tsl_sniff_contains (s, len, "\"traceEvents\""))
    return 90;
  return 0;
}

static gpointer
speedscope_create (TslTrace         *trace,
                   TslReaderContext *ctx)
{
  TslSpeedscope *self = g_new0 (TslSpeedscope, 1);

  self->trace = trace;
  self->ctx = ctx;
  self->doc = g_byte_array_new ();
  self->frames = g_array_new (FALSE, FALSE, sizeof (guint32));
  self->stack = g_array_new (FALSE, FALSE, sizeof (Open));
  self->scratch = g_string_new (NULL);
  self->label = g_string_new (NULL);
  self->unnamed = tsl_trace_intern (trace, "(unnamed)");
  self->held = g_byte_array_new ();
  self->driver = tsl_scan_driver_new (ctx, tsl_speedscope_after_event, NULL, &tsl_speedscope_scan_funcs, self,
                                      &tsl_speedscope_drive_funcs, self, NULL);
  return self;
}

static void
speedscope_destroy (gpointer state)
{
  TslSpeedscope *self = state;

  g_byte_array_unref (self->doc);
  g_array_unref (self->frames);
  g_array_unref (self->stack);
  g_string_free (self->scratch, TRUE);
  g_string_free (self->label, TRUE);
  g_byte_array_unref (self->held);
  tsl_speedscope_sampled_clear (self);
  /* Logs in the reader's log domain, as the other readers (test-parallel.py). */
  tsl_scan_driver_free (self->driver);
  g_free (self->cur.name);
  g_free (self);
}

/* Reads what `len` bytes hold; returns how many were used. */
/* A streamed profile's startValue or endValue after its arrays: the
 * current bounds, and the trace's span to its end. */
static void
tail_member (TslSpeedscope      *self,
             const TslJsonValue *key,
             const TslJsonValue *value)
{
  Header h = { NULL, NULL, NULL, self->cur.start, self->cur.end, TRUE };

  tsl_speedscope_header_member (self, &h, key, value);
  if (TSL_JSON_KEY_IS (key, "endValue") && !isnan (h.end))
    tsl_trace_note_time (self->trace, tsl_speedscope_end_ns_of (h.start, h.end, self->cur.factor));
  self->cur.start = h.start;
  self->cur.end = h.end;
}

static gssize
stream (TslSpeedscope *self,
        const guint8  *buf,
        gsize          len,
        gboolean       at_eof,
        GError       **error)
{
  const char *p = (const char *) buf;
  const char *end = p + len;
  TslJsonError jerr = { NULL, NULL };

  for (;;)
    {
      TslJsonValue key, value;
      TslJsonStatus status = TSL_JSON_OK;
      const char *item = NULL, *after;

      switch (self->stage)
        {
        case ST_START:
          p = tsl_json_skip_ws (p, end);
          if (p >= end)
            return p - (const char *) buf;
          if (*p != '{')
            {
              tsl_reader_context_set_error (self->ctx, error, p - (const char *) buf, "%s",
                                            _("expected '{' at the start of a speedscope file"));
              return -1;
            }
          self->stage = ST_TOP;
          self->first = TRUE;
          break;

        case ST_TOP:
          status = tsl_speedscope_next_item (p, end, self->first, '{', '}', &key, &item, &jerr);
          if (status == TSL_JSON_DONE)
            {
              p = item;
              self->stage = ST_AFTER;
              if (!self->saw_profiles)
                tsl_trace_add_warning (self->trace, _("no \"profiles\" array in the speedscope file"));
              break;
            }
          if (status != TSL_JSON_OK)
            break;
          self->first = FALSE;
          p = item;
          if (TSL_JSON_KEY_IS (&key, "profiles") && *item == '[')
            {
              if (!self->frames_read)
                {
                  self->stage = ST_HOLD;
                  return -2;
                }
              self->saw_profiles = TRUE;
              self->stage = ST_PROFILES;
              self->first = TRUE;
            }
          else if (TSL_JSON_KEY_IS (&key, "shared") && *item == '{')
            tsl_speedscope_begin_value (self, ST_SHARED, ST_TOP);
          else
            tsl_speedscope_begin_value (self, ST_SKIP, ST_TOP);
          break;

        case ST_SHARED:
          if (!tsl_speedscope_collect_value (self, buf, p, end, at_eof, TRUE, &value, &after))
            return len;
          if (!tsl_speedscope_read_shared (self, buf, &value, error))
            return -1;
          p = after;
          self->stage = ST_TOP;
          break;

        case ST_SKIP:
          if (!tsl_speedscope_collect_value (self, buf, p, end, at_eof, FALSE, &value, &after))
            return len;
          p = after;
          self->stage = self->after_skip;
          if (self->skip_warns)
            {
              self->skip_warns = FALSE;
              self->n_profiles++;
              tsl_trace_add_warning (self->trace, _("ignored a profile that is not an object"));
            }
          break;

        case ST_PROFILES:
          status = tsl_speedscope_next_item (p, end, self->first, '[', ']', &key, &item, &jerr);
          if (status == TSL_JSON_DONE)
            {
              p = item;
              self->stage = ST_TOP;
              self->first = FALSE;
              break;
            }
          if (status != TSL_JSON_OK)
            break;
          self->first = FALSE;
          p = item;
          if (*item == '{')
            self->stage = ST_PROFILE;
          else
            {
              tsl_speedscope_begin_value (self, ST_SKIP, ST_PROFILES);
              self->skip_warns = TRUE;
            }
          break;

        case ST_PROFILE:
          {
            Header h = { NULL, NULL, NULL, 0, NAN };
            HeadResult r = tsl_speedscope_scan_head (self, p, end, &h, &item, &jerr);

            if (r == HEAD_MORE && !at_eof)
              {
                tsl_speedscope_header_clear (&h);
                return p - (const char *) buf;
              }
            if (r == HEAD_ERROR)
              {
                tsl_speedscope_header_clear (&h);
                status = TSL_JSON_ERROR;
                break;
              }
            if (r == HEAD_WHOLE)
              {
                value.p = p;
                value.len = item - p;
                value.type = TSL_JSON_OBJECT;
                value.escaped = 0;
                g_byte_array_set_size (self->held, 0);
                tsl_speedscope_header_clear (&h);
                if (!tsl_speedscope_read_whole_profile (self, buf, &value, error))
                  return -1;
                p = item;
                self->stage = ST_PROFILES;
                break;
              }
            if (r == HEAD_SAMPLES)
              {
                tsl_speedscope_begin_sampled (self, &h);
                tsl_speedscope_header_clear (&h);
                p = item;
                self->stage = ST_SAMPLES;
                self->first = TRUE;
                break;
              }
            if (r == HEAD_STREAM)
              {
                tsl_speedscope_begin_stream (self, &h);
                tsl_speedscope_header_clear (&h);
                p = item;
                self->stage = ST_EVENTS;
                self->first = TRUE;
                break;
              }
            /* HEAD_HOLD, or cut short at the end: collected whole. */
            tsl_speedscope_header_clear (&h);
            tsl_speedscope_begin_value (self, ST_HELD, ST_PROFILES);
          }
          break;

        case ST_HELD:
          if (!tsl_speedscope_collect_value (self, buf, p, end, at_eof, TRUE, &value, &after))
            return len;
          if (!tsl_speedscope_read_whole_profile (self, buf, &value, error))
            return -1;
          p = after;
          self->stage = ST_PROFILES;
          break;

        case ST_EVENTS:
          {
            TslJsonIter iter;
            Current *c = &self->cur;

            if (tsl_scan_driver_worth (self->driver, end - p))
              {
                TslScanBuffer scan = { (const char *) buf, end, at_eof, NULL };
                gboolean blocked = FALSE;

                /* Stops where the loop below goes on. */
                p = tsl_scan_driver_run (self->driver, &scan, p, self->first, &blocked);
              }
            tsl_json_iter_init (&iter, p, end);
            iter.first = self->first;

            while ((status = tsl_json_iter_next_element (&iter, &value, &jerr)) == TSL_JSON_OK)
              {
                self->n_events++;
                tsl_speedscope_process_event (self, c->track, c->name, &value, c->factor, &c->bad);
                self->first = FALSE;
                p = iter.p;
              }
            if (status == TSL_JSON_DONE)
              {
                p = iter.p;
                self->stage = ST_TAIL;
                self->first = FALSE;
              }
          }
          break;

        case ST_SAMPLES:
        case ST_WEIGHTS:
          {
            TslJsonIter iter;

            tsl_json_iter_init (&iter, p, end);
            iter.first = self->first;
            while ((status = tsl_json_iter_next_element (&iter, &value, &jerr)) == TSL_JSON_OK)
              {
                if (self->stage == ST_SAMPLES)
                  tsl_speedscope_push_sample (self, &value);
                else
                  tsl_speedscope_push_weight (self, &value);
                self->first = FALSE;
                p = iter.p;
              }
            if (status == TSL_JSON_DONE)
              {
                p = iter.p;
                self->stage = ST_STAIL;
                self->first = FALSE;
              }
          }
          break;

        case ST_STAIL:
          status = tsl_speedscope_next_item (p, end, self->first, '{', '}', &key, &item, &jerr);
          if (status == TSL_JSON_DONE)
            {
              p = item;
              tsl_speedscope_end_sampled_stream (self);
              self->stage = ST_PROFILES;
              self->first = FALSE;
              break;
            }
          if (status != TSL_JSON_OK)
            break;
          if (TSL_JSON_KEY_IS (&key, "weights") && *item == '[' && !self->reading_back)
            {
              p = item;
              self->stage = ST_WEIGHTS;
              self->first = TRUE;
            }
          else if (TSL_JSON_KEY_IS (&key, "type"))
            {
              Header h = { NULL, NULL, NULL, 0, NAN, FALSE };

              status = tsl_json_scan_value (item, end, &value, &after, &jerr);
              if (status != TSL_JSON_OK)
                break;
              tsl_speedscope_header_member (self, &h, &key, &value);
              /* Too late to read it as another type: said, not hidden. */
              if (g_strcmp0 (h.type, "sampled") != 0)
                tsl_trace_add_warning (self->trace, _("profile \"%s\": its type \"%s\" comes after its "
                                                      "samples; read as sampled"),
                                       self->cur.name, h.type != NULL ? h.type : "");
              tsl_speedscope_header_clear (&h);
              p = after;
            }
          else if (TSL_JSON_KEY_IS (&key, "endValue"))
            {
              status = tsl_json_scan_value (item, end, &value, &after, &jerr);
              if (status != TSL_JSON_OK)
                break;
              tail_member (self, &key, &value);
              p = after;
            }
          else
            {
              /* Other fields come too late to change the samples read. */
              p = item;
              tsl_speedscope_begin_value (self, ST_SKIP, ST_STAIL);
            }
          break;

        case ST_TAIL:
          status = tsl_speedscope_next_item (p, end, self->first, '{', '}', &key, &item, &jerr);
          if (status == TSL_JSON_DONE)
            {
              p = item;
              tsl_speedscope_end_stream (self);
              self->stage = ST_PROFILES;
              self->first = FALSE;
              break;
            }
          if (status != TSL_JSON_OK)
            break;
          if (TSL_JSON_KEY_IS (&key, "startValue") || TSL_JSON_KEY_IS (&key, "endValue"))
            {
              status = tsl_json_scan_value (item, end, &value, &after, &jerr);
              if (status != TSL_JSON_OK)
                break;
              tail_member (self, &key, &value);
              p = after;
            }
          else
            {
              /* Other fields come too late to change the events read. */
              p = item;
              tsl_speedscope_begin_value (self, ST_SKIP, ST_TAIL);
            }
          break;

        case ST_AFTER:
          return len;

        case ST_HOLD:
        default:
          g_assert_not_reached ();
        }

      if (status == TSL_JSON_ERROR)
        {
          tsl_reader_context_set_error (self->ctx, error, jerr.pos - (const char *) buf, "%s",
                                        _(jerr.message));
          return -1;
        }
      if (status == TSL_JSON_INCOMPLETE)
        return p - (const char *) buf;
    }
}

/* The element of the current array the end of the input cut (at p, after
 * a '[' or ','), read up to its last whole member as a whole document cut
 * there would be, into `part`; FALSE if there is none (or it does not open
 * with `open`, or '[' when open is 0). */
static gboolean
close_cut_element (TslSpeedscope *self,
                   const char    *p,
                   const char    *end,
                   char           open,
                   GByteArray    *part,
                   TslJsonValue  *value)
{
  g_autoptr(GByteArray) closers = g_byte_array_new ();
  TslJsonError jerr;
  const char *after;
  gsize cut;

  p = tsl_json_skip_ws (p, end);
  if (p < end && *p == (self->first ? '[' : ','))
    p = tsl_json_skip_ws (p + 1, end);
  if (p >= end || (*p != '[' && *p != open) || !tsl_speedscope_find_truncation (p, end - p, &cut, closers))
    return FALSE;
  g_byte_array_append (part, (const guint8 *) p, cut);
  g_byte_array_append (part, closers->data, closers->len);
  g_byte_array_append (part, (const guint8 *) " ", 1);
  return tsl_json_scan_value ((const char *) part->data, (const char *) part->data + part->len,
                              value, &after, &jerr) == TSL_JSON_OK;
}

/* An event cut short (a member cut off makes it a malformed event). */
static void
end_cut_event (TslSpeedscope *self,
               const char    *p,
               const char    *end)
{
  g_autoptr(GByteArray) part = g_byte_array_new ();
  TslJsonValue event;

  if (!close_cut_element (self, p, end, '{', part, &event))
    return;
  self->n_events++;
  tsl_speedscope_process_event (self, self->cur.track, self->cur.name, &event, self->cur.factor, &self->cur.bad);
}

/* A sample cut short: its stack up to its last whole frame, as in a held
 * profile cut there. */
static void
end_cut_sample (TslSpeedscope *self,
                const char    *p,
                const char    *end)
{
  g_autoptr(GByteArray) part = g_byte_array_new ();
  TslJsonValue sample;

  if (close_cut_element (self, p, end, 0, part, &sample))
    tsl_speedscope_push_sample (self, &sample);
}

/* At the end of the input inside the document: what was read stays, the
 * value cut short is read up to its last whole part. */
static gboolean
end_truncated (TslSpeedscope *self,
               const guint8  *buf,
               gsize          len,
               gsize          consumed,
               GError       **error)
{
  g_autofree char *position = tsl_reader_context_position (self->ctx, len);
  g_autoptr(GByteArray) closers = g_byte_array_new ();
  g_autoptr(GByteArray) part = g_byte_array_new ();
  TslJsonValue value = { 0 };
  DocError err = { NULL, NULL, NULL, NULL };
  gboolean ok = TRUE;
  gsize cut;

  tsl_trace_add_warning (self->trace, _("%s: the speedscope file is truncated; the frames and "
                                       "events before the cut were read"), position);
  /* A value cut short: what was held, or the rest of the buffer. */
  if (self->stage == ST_SHARED || self->stage == ST_HELD)
    g_byte_array_append (part, self->held->data, self->held->len);
  else if (self->stage == ST_PROFILE)
    g_byte_array_append (part, buf + consumed, len - consumed);
  if ((self->stage == ST_SHARED || self->stage == ST_HELD || self->stage == ST_PROFILE) &&
      tsl_speedscope_find_truncation ((const char *) part->data, part->len, &cut, closers))
    {
      g_byte_array_set_size (part, cut);
      g_byte_array_append (part, closers->data, closers->len);
      value.p = (const char *) part->data;
      value.len = part->len;
      value.type = TSL_JSON_OBJECT;
      err.doc = value.p;
      /* Positions in it: from where it began. */
      g_byte_array_set_size (self->held, 0);
      if (self->stage == ST_SHARED)
        ok = tsl_speedscope_read_frames (self, &value, &err);
      else
        {
          ok = tsl_speedscope_read_profile (self, self->n_profiles++, &value, &self->n_events, &err);
          tsl_speedscope_flush_events (self);
        }
      if (!ok)
        {
          g_autofree char *at = tsl_reader_context_position (self->ctx, len);

          g_set_error (error, TSL_READER_ERROR, TSL_READER_ERROR_SYNTAX, "%s: %s", at, _(err.message));
        }
    }
  else if (self->stage == ST_EVENTS || self->stage == ST_TAIL ||
           (self->stage == ST_SKIP && self->after_skip == ST_TAIL))
    {
      if (self->stage == ST_EVENTS)
        end_cut_event (self, (const char *) buf + consumed, (const char *) buf + len);
      tsl_speedscope_end_stream (self);
    }
  else if (self->stage == ST_SAMPLES || self->stage == ST_WEIGHTS || self->stage == ST_STAIL ||
           (self->stage == ST_SKIP && self->after_skip == ST_STAIL))
    {
      if (self->stage == ST_SAMPLES)
        end_cut_sample (self, (const char *) buf + consumed, (const char *) buf + len);
      tsl_speedscope_end_sampled_stream (self);
    }
  if (ok && !self->saw_profiles)
    tsl_trace_add_warning (self->trace, _("no \"profiles\" array in the speedscope file"));
  self->stage = ST_AFTER;
  return ok;
}

static gssize
speedscope_parse (gpointer      state,
                  const guint8 *buf,
                  gsize         len,
                  gboolean      at_eof,
                  GError      **error)
{
  TslSpeedscope *self = state;
  gboolean copying = self->stage != ST_HOLD && !self->frames_read;
  gssize consumed = 0;

  if (self->stage != ST_HOLD)
    consumed = stream (self, buf, len, at_eof, error);
  if (consumed == -1)
    return -1;
  if (consumed == -2)
    {
      /* The profiles come first: the document is held, as it came. */
      g_byte_array_append (self->doc, buf, len);
      consumed = len;
    }
  else if (self->stage == ST_HOLD)
    {
      g_byte_array_append (self->doc, buf, len);
      consumed = len;
    }
  else
    {
      if (copying && !self->frames_read)
        g_byte_array_append (self->doc, buf, consumed);
      else if (self->frames_read && self->doc->len > 0)
        g_byte_array_set_size (self->doc, 0);
      tsl_speedscope_flush_events (self);
    }
  if (!at_eof)
    return consumed;

  if (self->stage == ST_HOLD)
    {
      tsl_speedscope_repair_truncation (self);
      if (!tsl_speedscope_read_document (self, error))
        return -1;
    }
  else if (self->stage == ST_START)
    {
      tsl_reader_context_set_error (self->ctx, error, len, "%s",
                                    _("expected '{' at the start of a speedscope file"));
      return -1;
    }
  else if (self->stage != ST_AFTER && !end_truncated (self, buf, len, consumed, error))
    return -1;
  if (self->unknown_frames)
    tsl_trace_add_warning (self->trace, _("%s: samples or events refer to frames that are not in "
                                          "the shared frame table (%u frames); shown as “(unknown frame)”"),
                           tsl_reader_context_get_name (self->ctx), self->frames->len);
  return len;
}

const TslFormat tsl_format_speedscope = {
  .name = "speedscope",
  .sniff = speedscope_sniff,
  .create = speedscope_create,
  .parse = speedscope_parse,
  .destroy = speedscope_destroy,
  .checkpoint = tsl_speedscope_checkpoint,
  .restore = tsl_speedscope_restore,
};
