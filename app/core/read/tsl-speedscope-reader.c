/* tsl-speedscope-reader.c: speedscope's JSON file format
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * https://www.speedscope.app/file-format-schema.json. The shared frame table
 * may come after the profiles, so the document is held until the end of the
 * input (speedscope files are small: the app itself cannot open big ones),
 * then read with the same non-allocating tokenizer as Chrome traces. Each
 * profile is one thread track named after the profile. A document cut short
 * is read up to its last whole value, with a warning.
 */
#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "tsl-frames.h"
#include "tsl-format-private.h"
#include "tsl-json-scan.h"

#define MAX_DEPTH 4096

typedef struct {
  TslTrace         *trace;
  TslReaderContext *ctx;
  GByteArray       *doc;
  GArray           *frames;   /* frame index → interned name */
  GArray           *stack;    /* Open, while reading an evented profile */
  GString          *scratch;
  GString          *label;
  guint32           unnamed;
  gboolean          unknown_frames;  /* a frame index past the shared table */
} TslSpeedscope;

typedef struct {
  guint32 frame;
  gint64  start_ns;
} Open;

/* A syntax error somewhere in the held document. */
typedef struct {
  const char *doc;
  const char *pos;
  const char *message;
} DocError;

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
  g_free (self);
}

/* "FILE:LINE:COLUMN" of pos. The driver's positions only cover its current
 * buffer; the document was held here, so count from its start (columns in
 * bytes, as the driver). */
static char *
doc_position (TslSpeedscope *self,
              const char    *doc,
              const char    *pos)
{
  guint line = 1;
  guint column = 1;

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
  return g_strdup_printf ("%s:%u:%u", tsl_reader_context_get_name (self->ctx), line, column);
}

static void
set_doc_error (TslSpeedscope  *self,
               GError        **error,
               const DocError *err)
{
  g_autofree char *position = doc_position (self, err->doc, err->pos);

  g_set_error (error, TSL_READER_ERROR, TSL_READER_ERROR_SYNTAX, "%s: %s",
               position, _(err->message));
}

/* A document cut short (a copy interrupted, a crashed writer): finds the
 * last point where everything before is whole — after an opening bracket,
 * before a comma, after a closing bracket — and the brackets open there,
 * innermost last. FALSE when the top-level value is complete (or broken in
 * a way the parse reports). */
static gboolean
find_truncation (const char *doc,
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
static void
repair_truncation (TslSpeedscope *self)
{
  g_autoptr(GByteArray) closers = g_byte_array_new ();
  g_autofree char *position = NULL;
  const char *doc = (const char *) self->doc->data;
  gsize cut;

  if (self->doc->len == 0 || !find_truncation (doc, self->doc->len, &cut, closers))
    return;
  position = doc_position (self, doc, doc + self->doc->len);
  tsl_trace_add_warning (self->trace, _("%s: the speedscope file is truncated; the frames and "
                                       "events before the cut were read"), position);
  g_byte_array_set_size (self->doc, cut);
  g_byte_array_append (self->doc, closers->data, closers->len);
}

static guint32
intern_string (TslSpeedscope      *self,
               const TslJsonValue *value)
{
  const char *s;
  gsize len;

  if (value->type != TSL_JSON_STRING)
    return self->unnamed;
  s = tsl_json_value_get_string (value, self->scratch, &len);
  return len > 0 ? tsl_trace_intern_len (self->trace, s, len) : self->unnamed;
}

static gboolean
read_frames (TslSpeedscope      *self,
             const TslJsonValue *shared,
             DocError           *err)
{
  TslJsonIter iter, fiter;
  TslJsonValue key, value, frame, fkey, fvalue;
  TslJsonError jerr;
  TslJsonStatus status;

  tsl_json_iter_init (&iter, shared->p, shared->p + shared->len);
  while ((status = tsl_json_iter_next_member (&iter, &key, &value, &jerr)) == TSL_JSON_OK)
    {
      if (!TSL_JSON_KEY_IS (&key, "frames") || value.type != TSL_JSON_ARRAY)
        continue;
      tsl_json_iter_init (&fiter, value.p, value.p + value.len);
      while ((status = tsl_json_iter_next_element (&fiter, &frame, &jerr)) == TSL_JSON_OK)
        {
          TslJsonIter miter;
          guint32 name = self->unnamed;

          if (frame.type == TSL_JSON_OBJECT)
            {
              tsl_json_iter_init (&miter, frame.p, frame.p + frame.len);
              while ((status = tsl_json_iter_next_member (&miter, &fkey, &fvalue, &jerr)) == TSL_JSON_OK)
                if (TSL_JSON_KEY_IS (&fkey, "name"))
                  name = intern_string (self, &fvalue);
              if (status != TSL_JSON_DONE)
                goto fail;
            }
          g_array_append_val (self->frames, name);
        }
      if (status != TSL_JSON_DONE)
        goto fail;
    }
  if (status == TSL_JSON_DONE)
    return TRUE;

fail:
  err->pos = status == TSL_JSON_ERROR ? jerr.pos : shared->p + shared->len;
  err->message = status == TSL_JSON_ERROR ? jerr.message : N_("unexpected end of input");
  return FALSE;
}

static double
unit_to_ns (TslSpeedscope *self,
            const char    *profile,
            const char    *unit)
{
  static const struct { const char *name; double ns; } units[] = {
    { "nanoseconds", 1 }, { "microseconds", 1e3 }, { "milliseconds", 1e6 }, { "seconds", 1e9 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (units); i++)
    if (g_strcmp0 (unit, units[i].name) == 0)
      return units[i].ns;
  tsl_trace_add_warning (self->trace,
                         _("profile \"%s\" has unit \"%s\", not a time: its values are shown as nanoseconds"),
                         profile, unit != NULL ? unit : "");
  return 1;
}

static gboolean
to_ns (double  value,
       double  factor,
       gint64 *out)
{
  double ns = round (value * factor);

  if (!(fabs (ns) < 9.2e18))
    return FALSE;
  *out = (gint64) ns;
  return TRUE;
}

static const char *
frame_name (TslSpeedscope *self,
            gint64         index)
{
  if (index < 0 || index >= (gint64) self->frames->len)
    {
      self->unknown_frames = TRUE;
      return "(unknown frame)";
    }
  return tsl_trace_lookup (self->trace, g_array_index (self->frames, guint32, index));
}

static const char *
open_frame_name (gpointer data,
                 guint    i)
{
  TslSpeedscope *self = data;

  return frame_name (self, g_array_index (self->stack, Open, i).frame);
}

/* The open frames 0..depth-1, root first. */
static void
set_stack_label (TslSpeedscope *self,
                 guint          track,
                 guint          depth)
{
  tsl_format_set_stack_label (self->trace, track, self->label, depth, open_frame_name, self, NULL);
}

/* Closes the open frame at `index` and everything above it at `at`. */
static void
close_frames (TslSpeedscope *self,
              guint          track,
              guint          index,
              gint64         at,
              gboolean       known_end)
{
  while (self->stack->len > index)
    {
      const Open *top = &g_array_index (self->stack, Open, self->stack->len - 1);
      gint64 dur = at - top->start_ns;

      if (tsl_trace_offer (self->trace, track, top->start_ns,
                           known_end && dur >= 0 ? (double) dur : NAN))
        set_stack_label (self, track, self->stack->len);
      g_array_set_size (self->stack, self->stack->len - 1);
    }
}

static guint64
read_evented (TslSpeedscope      *self,
              guint               track,
              const char         *profile,
              const TslJsonValue *events,
              double              factor,
              gint64              end_ns)
{
  TslJsonIter iter, miter;
  TslJsonValue event, key, value;
  TslJsonError jerr;
  guint64 n = 0;
  guint bad = 0;

  g_array_set_size (self->stack, 0);
  tsl_json_iter_init (&iter, events->p, events->p + events->len);
  while (tsl_json_iter_next_element (&iter, &event, &jerr) == TSL_JSON_OK)
    {
      char type = 0;
      double at = NAN;
      gint64 frame = -1;
      gint64 at_ns;

      n++;
      if (event.type != TSL_JSON_OBJECT)
        {
          bad++;
          continue;
        }
      tsl_json_iter_init (&miter, event.p, event.p + event.len);
      while (tsl_json_iter_next_member (&miter, &key, &value, &jerr) == TSL_JSON_OK)
        {
          if (TSL_JSON_KEY_IS (&key, "type") && value.type == TSL_JSON_STRING && value.len == 1)
            type = value.p[0];
          else if (TSL_JSON_KEY_IS (&key, "at"))
            tsl_json_value_get_double (&value, &at);
          else if (TSL_JSON_KEY_IS (&key, "frame"))
            tsl_json_value_get_int64 (&value, &frame);
        }
      if ((type != 'O' && type != 'C') || !to_ns (at, factor, &at_ns) || frame < 0)
        {
          bad++;
          continue;
        }
      tsl_trace_note_time (self->trace, at_ns);

      if (type == 'O')
        {
          Open open = { (guint32) frame, at_ns };

          if (self->stack->len >= MAX_DEPTH)
            {
              bad++;
              continue;
            }
          g_array_append_val (self->stack, open);
        }
      else
        {
          guint i = self->stack->len;

          /* A close that is not the innermost frame closes those above it. */
          while (i > 0 && g_array_index (self->stack, Open, i - 1).frame != (guint32) frame)
            i--;
          if (i == 0)
            {
              tsl_trace_add_warning (self->trace,
                                     _("profile \"%s\": ignored a close event for a frame that is not open"),
                                     profile);
              continue;
            }
          close_frames (self, track, i - 1, at_ns, TRUE);
        }
    }

  if (self->stack->len > 0)
    {
      tsl_trace_add_warning (self->trace,
                             _("profile \"%s\": %u frames were still open at its end"),
                             profile, self->stack->len);
      close_frames (self, track, 0, end_ns, TRUE);
    }
  if (bad > 0)
    tsl_trace_add_warning (self->trace, _("profile \"%s\": ignored %u malformed events"), profile, bad);
  return n;
}

static guint64
read_sampled (TslSpeedscope      *self,
              guint               track,
              const TslJsonValue *samples,
              const TslJsonValue *weights,
              double              factor,
              gint64              start_ns)
{
  TslJsonIter siter, witer, fiter;
  TslJsonValue sample, weight, frame;
  TslJsonError jerr;
  gboolean have_weights = weights->type == TSL_JSON_ARRAY;
  double t = 0;
  guint64 n = 0;

  /* Weighted samples of whole stacks, not spans: per-range figures count them. */
  tsl_trace_track_set_sampled (self->trace, track, TRUE);

  tsl_json_iter_init (&siter, samples->p, samples->p + samples->len);
  if (have_weights)
    tsl_json_iter_init (&witer, weights->p, weights->p + weights->len);
  while (tsl_json_iter_next_element (&siter, &sample, &jerr) == TSL_JSON_OK)
    {
      double w = 1;
      gint64 at_ns;

      n++;
      if (have_weights && tsl_json_iter_next_element (&witer, &weight, &jerr) == TSL_JSON_OK)
        tsl_json_value_get_double (&weight, &w);
      /* A sample covers [start + weights so far, + its weight). */
      if (to_ns (t, factor, &at_ns) && start_ns <= G_MAXINT64 / 2)
        {
          at_ns += start_ns;
          if (tsl_trace_offer (self->trace, track, at_ns, w * factor) &&
              sample.type == TSL_JSON_ARRAY)
            {
              g_string_truncate (self->label, 0);
              tsl_json_iter_init (&fiter, sample.p, sample.p + sample.len);
              while (tsl_json_iter_next_element (&fiter, &frame, &jerr) == TSL_JSON_OK)
                {
                  gint64 index = -1;

                  tsl_json_value_get_int64 (&frame, &index);
                  if (self->label->len > 0)
                    g_string_append_c (self->label, ';');
                  tsl_frames_append (self->label, frame_name (self, index), -1);
                }
              tsl_trace_set_label_joined (self->trace, track, self->label->str, self->label->len);
            }
        }
      t += w;
    }
  if (n > 0)
    {
      gint64 end_ns;

      if (to_ns (t, factor, &end_ns) && start_ns <= G_MAXINT64 / 2)
        tsl_trace_note_time (self->trace, start_ns + end_ns);
    }
  return n;
}

static gboolean
read_profile (TslSpeedscope      *self,
              guint               index,
              const TslJsonValue *profile,
              guint64            *n_events,
              DocError           *err)
{
  TslJsonIter iter;
  TslJsonValue key, value;
  TslJsonValue events = { 0 }, samples = { 0 }, weights = { 0 };
  TslJsonError jerr;
  TslJsonStatus status;
  g_autofree char *type = NULL;
  g_autofree char *name = NULL;
  g_autofree char *unit = NULL;
  double start = 0, end = NAN, factor;
  gint64 start_ns = 0, end_ns = 0;
  guint track;

  if (profile->type != TSL_JSON_OBJECT)
    {
      tsl_trace_add_warning (self->trace, _("ignored a profile that is not an object"));
      return TRUE;
    }
  tsl_json_iter_init (&iter, profile->p, profile->p + profile->len);
  while ((status = tsl_json_iter_next_member (&iter, &key, &value, &jerr)) == TSL_JSON_OK)
    {
      const char *s;
      gsize len;

      if (value.type == TSL_JSON_STRING &&
          (TSL_JSON_KEY_IS (&key, "type") || TSL_JSON_KEY_IS (&key, "name") ||
           TSL_JSON_KEY_IS (&key, "unit")))
        {
          char **slot = key.p[0] == 't' ? &type : key.p[0] == 'n' ? &name : &unit;

          s = tsl_json_value_get_string (&value, self->scratch, &len);
          g_free (*slot);
          *slot = g_strndup (s, len);
        }
      else if (TSL_JSON_KEY_IS (&key, "startValue"))
        tsl_json_value_get_double (&value, &start);
      else if (TSL_JSON_KEY_IS (&key, "endValue"))
        tsl_json_value_get_double (&value, &end);
      else if (TSL_JSON_KEY_IS (&key, "events"))
        events = value;
      else if (TSL_JSON_KEY_IS (&key, "samples"))
        samples = value;
      else if (TSL_JSON_KEY_IS (&key, "weights"))
        weights = value;
    }
  if (status != TSL_JSON_DONE)
    {
      err->pos = status == TSL_JSON_ERROR ? jerr.pos : profile->p + profile->len;
      err->message = status == TSL_JSON_ERROR ? jerr.message : N_("unexpected end of input");
      return FALSE;
    }

  if (name == NULL)
    name = g_strdup_printf ("Profile %u", index + 1);
  /* Some writers put "type" last, where a truncated file loses it. */
  if (type == NULL && samples.type == TSL_JSON_ARRAY)
    type = g_strdup ("sampled");
  else if (type == NULL && events.type == TSL_JSON_ARRAY)
    type = g_strdup ("evented");
  factor = unit_to_ns (self, name, unit);
  if (!to_ns (start, factor, &start_ns))
    start_ns = 0;
  if (isnan (end) || !to_ns (end, factor, &end_ns))
    end_ns = start_ns;

  /* One thread track per profile, named by the profile. */
  tsl_trace_set_thread_name (self->trace, 0, index + 1, name);
  track = tsl_trace_ensure_track (self->trace, TSL_TRACK_THREAD, 0, index + 1, NULL);
  /* Values are span and sample durations: the timeline draws them to scale. */
  tsl_trace_track_set_unit (self->trace, track, "ns");
  tsl_trace_note_time (self->trace, start_ns);
  if (!isnan (end))
    tsl_trace_note_time (self->trace, end_ns);

  if (g_strcmp0 (type, "evented") == 0 && events.type == TSL_JSON_ARRAY)
    *n_events += read_evented (self, track, name, &events, factor, end_ns);
  else if (g_strcmp0 (type, "sampled") == 0 && samples.type == TSL_JSON_ARRAY)
    *n_events += read_sampled (self, track, &samples, &weights, factor, start_ns);
  else if (g_strcmp0 (type, "evented") == 0 || g_strcmp0 (type, "sampled") == 0)
    tsl_trace_add_warning (self->trace, _("profile \"%s\": no \"%s\" array; ignored"),
                           name, type[0] == 'e' ? "events" : "samples");
  else
    tsl_trace_add_warning (self->trace, _("profile \"%s\": unknown type \"%s\" ignored"),
                           name, type != NULL ? type : "");
  return TRUE;
}

static gboolean
read_document (TslSpeedscope  *self,
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
  DocError err = { doc, NULL, NULL };
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
          if (!read_frames (self, &value, &err))
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
      gboolean ok = read_profile (self, index++, &profile, &n_events, &err);

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

static gssize
speedscope_parse (gpointer      state,
                  const guint8 *buf,
                  gsize         len,
                  gboolean      at_eof,
                  GError      **error)
{
  TslSpeedscope *self = state;

  g_byte_array_append (self->doc, buf, len);
  if (!at_eof)
    return len;

  repair_truncation (self);
  if (!read_document (self, error))
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
};
