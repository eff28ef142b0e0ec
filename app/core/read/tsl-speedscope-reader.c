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
 * saved). Other profiles (sampled ones: their samples and weights are two
 * arrays read together) are held whole and read at their end. When the
 * profiles come before the frame table, the whole document is held until
 * the end of the input, then read, and the file gets no index. A document
 * cut short is read up to its last whole value, with a warning.
 */
#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "tsl-chunk-index.h"
#include "tsl-frames.h"
#include "tsl-format-private.h"
#include "tsl-json-scan.h"
#include "tsl-scan-pool.h"

#define MAX_DEPTH 4096

typedef enum {
  ST_START,     /* before the top-level '{' */
  ST_TOP,       /* in the top-level object, before a member or after one */
  ST_SHARED,    /* collecting "shared" */
  ST_PROFILES,  /* in "profiles", before an element or after one */
  ST_PROFILE,   /* at a profile's '{', its fields not yet all seen */
  ST_HELD,      /* collecting a whole profile */
  ST_EVENTS,    /* in a streamed profile's "events" */
  ST_TAIL,      /* in a streamed profile, after its "events" */
  ST_SKIP,      /* passing over a value, then back to `after_skip` */
  ST_AFTER,     /* after the top-level value */
  ST_HOLD,      /* the frames come after the profiles: all held in doc */
} Stage;

typedef struct {
  guint32 frame;
  gint64  start_ns;
} Open;

/* The fields of a profile besides its arrays. */
typedef struct {
  char   *type;
  char   *name;
  char   *unit;
  double  start;
  double  end;    /* NAN when absent */
} Header;

/* The profile being streamed. */
typedef struct {
  guint   index;
  guint   track;
  char   *name;
  double  factor;
  double  start;
  double  end;
  guint   bad;    /* malformed events so far */
} Current;

typedef struct {
  TslTrace         *trace;
  TslReaderContext *ctx;
  GByteArray       *doc;      /* ST_HOLD: the document; before the frames: the text so far */
  GArray           *frames;   /* frame index → interned name */
  GArray           *stack;    /* Open, while reading an evented profile */
  GString          *scratch;
  GString          *label;
  guint32           unnamed;
  gboolean          unknown_frames;  /* a frame index past the shared table */

  Stage             stage;
  Stage             after_skip;
  gboolean          first;           /* of the container the stage is in */
  gboolean          frames_read;
  gboolean          saw_profiles;
  gboolean          streamed;        /* a profile was streamed: no going back to ST_HOLD */
  gboolean          no_index;
  gboolean          skip_warns;      /* the value skipped is a profile that is not an object */
  guint             n_profiles;
  guint64           n_events;        /* not yet added to the trace */
  TslJsonSkip       skip;
  GByteArray       *held;            /* a value collected across buffers */
  guint64           held_line;       /* and the position of its first byte */
  guint64           held_column;
  Current           cur;

  /* A regular file's events scanned on every core (NULL: one thread). */
  TslScanDriver    *driver;
  const char       *plan_end;        /* what the scanners read up to */
} TslSpeedscope;

/* A syntax error in a value: one in the current parse buffer `buf`, one
 * held (self->held, from held_line:held_column) or the held document. */
typedef struct {
  const char *doc;
  const char *pos;
  const char *message;
  const char *buf;
} DocError;

/* Where the scanner threads' segments start: right after an event's '}'
 * that a ',' and the next '{' follow (a guess: the model checks it). */
static const char *
after_event (const char *at,
             const char *end)
{
  for (const char *q = at; q < end; q++)
    {
      const char *r;

      q = memchr (q, '}', end - q);
      if (q == NULL)
        return NULL;
      r = tsl_json_skip_ws (q + 1, end);
      if (r < end && *r == ',')
        {
          r = tsl_json_skip_ws (r + 1, end);
          if (r < end && *r == '{')
            return q + 1;
        }
    }
  return NULL;
}

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

static const TslScanFuncs speedscope_scan_funcs;
static const TslScanDriveFuncs speedscope_drive_funcs;

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
  self->driver = tsl_scan_driver_new (ctx, after_event, NULL, &speedscope_scan_funcs, self,
                                      &speedscope_drive_funcs, self, NULL);
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
  /* Logs in the reader's log domain, as the other readers (test-parallel.py). */
  tsl_scan_driver_free (self->driver);
  g_free (self->cur.name);
  g_free (self);
}

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

/* An event's fields, from its bytes alone (scanner threads make these). */
typedef struct {
  double  at;
  gint64  frame;
  char    type;    /* 0: not an object, or no one-letter type */
} Event;

static void
parse_event (const TslJsonValue *event,
             Event              *e)
{
  TslJsonIter miter;
  TslJsonValue key, value;
  TslJsonError jerr;

  e->type = 0;
  e->at = NAN;
  e->frame = -1;
  if (event->type != TSL_JSON_OBJECT)
    return;
  tsl_json_iter_init (&miter, event->p, event->p + event->len);
  while (tsl_json_iter_next_member (&miter, &key, &value, &jerr) == TSL_JSON_OK)
    {
      if (TSL_JSON_KEY_IS (&key, "type") && value.type == TSL_JSON_STRING && value.len == 1)
        e->type = value.p[0];
      else if (TSL_JSON_KEY_IS (&key, "at"))
        tsl_json_value_get_double (&value, &e->at);
      else if (TSL_JSON_KEY_IS (&key, "frame"))
        tsl_json_value_get_int64 (&value, &e->frame);
    }
}

static void
model_event (TslSpeedscope *self,
             guint          track,
             const char    *profile,
             const Event   *e,
             double         factor,
             guint         *bad)
{
  char type = e->type;
  gint64 frame = e->frame;
  gint64 at_ns;

  if ((type != 'O' && type != 'C') || !to_ns (e->at, factor, &at_ns) || frame < 0)
    {
      (*bad)++;
      return;
    }
  tsl_trace_note_time (self->trace, at_ns);

  if (type == 'O')
    {
      Open open = { (guint32) frame, at_ns };

      if (self->stack->len >= MAX_DEPTH)
        {
          (*bad)++;
          return;
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
          return;
        }
      close_frames (self, track, i - 1, at_ns, TRUE);
    }
}

static void
process_event (TslSpeedscope      *self,
               guint               track,
               const char         *profile,
               const TslJsonValue *event,
               double              factor,
               guint              *bad)
{
  Event e;

  parse_event (event, &e);
  model_event (self, track, profile, &e, factor, bad);
}

/* The frames still open at an evented profile's end, and what was ignored. */
static void
end_evented (TslSpeedscope *self,
             guint          track,
             const char    *profile,
             gint64         end_ns,
             guint          bad)
{
  if (self->stack->len > 0)
    {
      tsl_trace_add_warning (self->trace,
                             _("profile \"%s\": %u frames were still open at its end"),
                             profile, self->stack->len);
      close_frames (self, track, 0, end_ns, TRUE);
    }
  if (bad > 0)
    tsl_trace_add_warning (self->trace, _("profile \"%s\": ignored %u malformed events"), profile, bad);
}

static guint64
read_evented (TslSpeedscope      *self,
              guint               track,
              const char         *profile,
              const TslJsonValue *events,
              double              factor,
              gint64              end_ns)
{
  TslJsonIter iter;
  TslJsonValue event;
  TslJsonError jerr;
  guint64 n = 0;
  guint bad = 0;

  g_array_set_size (self->stack, 0);
  tsl_json_iter_init (&iter, events->p, events->p + events->len);
  while (tsl_json_iter_next_element (&iter, &event, &jerr) == TSL_JSON_OK)
    {
      n++;
      process_event (self, track, profile, &event, factor, &bad);
    }
  end_evented (self, track, profile, end_ns, bad);
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

static void
header_clear (Header *h)
{
  g_clear_pointer (&h->type, g_free);
  g_clear_pointer (&h->name, g_free);
  g_clear_pointer (&h->unit, g_free);
  h->start = 0;
  h->end = NAN;
}

/* TRUE when key is one of the fields a Header holds. */
static gboolean
header_member (TslSpeedscope      *self,
               Header             *h,
               const TslJsonValue *key,
               const TslJsonValue *value)
{
  const char *s;
  gsize len;

  if (value->type == TSL_JSON_STRING &&
      (TSL_JSON_KEY_IS (key, "type") || TSL_JSON_KEY_IS (key, "name") ||
       TSL_JSON_KEY_IS (key, "unit")))
    {
      char **slot = key->p[0] == 't' ? &h->type : key->p[0] == 'n' ? &h->name : &h->unit;

      s = tsl_json_value_get_string (value, self->scratch, &len);
      g_free (*slot);
      *slot = g_strndup (s, len);
      return TRUE;
    }
  if (TSL_JSON_KEY_IS (key, "startValue"))
    {
      tsl_json_value_get_double (value, &h->start);
      return TRUE;
    }
  if (TSL_JSON_KEY_IS (key, "endValue"))
    {
      tsl_json_value_get_double (value, &h->end);
      return TRUE;
    }
  return FALSE;
}

/* Names the profile's track and notes its bounds; returns the track. */
static guint
start_profile (TslSpeedscope *self,
               guint          index,
               Header        *h,
               double        *factor)
{
  gint64 start_ns = 0, end_ns = 0;
  guint track;

  if (h->name == NULL)
    h->name = g_strdup_printf ("Profile %u", index + 1);
  *factor = unit_to_ns (self, h->name, h->unit);
  if (!to_ns (h->start, *factor, &start_ns))
    start_ns = 0;
  if (isnan (h->end) || !to_ns (h->end, *factor, &end_ns))
    end_ns = start_ns;

  /* One thread track per profile, named by the profile. */
  tsl_trace_set_thread_name (self->trace, 0, index + 1, h->name);
  track = tsl_trace_ensure_track (self->trace, TSL_TRACK_THREAD, 0, index + 1, NULL);
  /* Values are span and sample durations: the timeline draws them to scale. */
  tsl_trace_track_set_unit (self->trace, track, "ns");
  tsl_trace_note_time (self->trace, start_ns);
  if (!isnan (h->end))
    tsl_trace_note_time (self->trace, end_ns);
  return track;
}

static gint64
end_ns_of (double start,
           double end,
           double factor)
{
  gint64 start_ns = 0, end_ns;

  if (!to_ns (start, factor, &start_ns))
    start_ns = 0;
  if (isnan (end) || !to_ns (end, factor, &end_ns))
    end_ns = start_ns;
  return end_ns;
}

/* A whole profile value (held, or in the buffer). */
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
  Header h = { NULL, NULL, NULL, 0, NAN };
  double factor;
  gint64 start_ns = 0;
  guint track;

  if (profile->type != TSL_JSON_OBJECT)
    {
      tsl_trace_add_warning (self->trace, _("ignored a profile that is not an object"));
      return TRUE;
    }
  tsl_json_iter_init (&iter, profile->p, profile->p + profile->len);
  while ((status = tsl_json_iter_next_member (&iter, &key, &value, &jerr)) == TSL_JSON_OK)
    {
      if (header_member (self, &h, &key, &value))
        ;
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
      header_clear (&h);
      return FALSE;
    }

  /* Some writers put "type" last, where a truncated file loses it. */
  if (h.type == NULL && samples.type == TSL_JSON_ARRAY)
    h.type = g_strdup ("sampled");
  else if (h.type == NULL && events.type == TSL_JSON_ARRAY)
    h.type = g_strdup ("evented");
  track = start_profile (self, index, &h, &factor);
  if (!to_ns (h.start, factor, &start_ns))
    start_ns = 0;

  if (g_strcmp0 (h.type, "evented") == 0 && events.type == TSL_JSON_ARRAY)
    *n_events += read_evented (self, track, h.name, &events, factor, end_ns_of (h.start, h.end, factor));
  else if (g_strcmp0 (h.type, "sampled") == 0 && samples.type == TSL_JSON_ARRAY)
    *n_events += read_sampled (self, track, &samples, &weights, factor, start_ns);
  else if (g_strcmp0 (h.type, "evented") == 0 || g_strcmp0 (h.type, "sampled") == 0)
    tsl_trace_add_warning (self->trace, _("profile \"%s\": no \"%s\" array; ignored"),
                           h.name, h.type[0] == 'e' ? "events" : "samples");
  else
    tsl_trace_add_warning (self->trace, _("profile \"%s\": unknown type \"%s\" ignored"),
                           h.name, h.type != NULL ? h.type : "");
  header_clear (&h);
  return TRUE;
}

/* The whole held document (ST_HOLD). */
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

/* ---- Streaming ---- */

/* The next item of a container whose opening bracket (first) or last item
 * ends at p: OK with *item at its first byte (in the buffer), DONE with
 * *item just past the closing bracket, INCOMPLETE or ERROR. For an object,
 * *key is the member's name and *item its value. */
static TslJsonStatus
next_item (const char    *p,
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
static void
begin_value (TslSpeedscope *self,
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
static gboolean
collect_value (TslSpeedscope *self,
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

static void
flush_events (TslSpeedscope *self)
{
  tsl_trace_add_events (self->trace, self->n_events);
  self->n_events = 0;
}

/* A profile held or in the buffer, read whole. */
static gboolean
read_whole_profile (TslSpeedscope      *self,
                    const guint8       *buf,
                    const TslJsonValue *value,
                    GError            **error)
{
  gboolean held = self->held->len > 0 && value->p == (const char *) self->held->data;
  DocError err = { value->p, NULL, NULL, held ? NULL : (const char *) buf };

  if (!read_profile (self, self->n_profiles++, value, &self->n_events, &err))
    {
      set_doc_error (self, error, &err);
      return FALSE;
    }
  flush_events (self);
  return TRUE;
}

static gboolean
read_shared (TslSpeedscope      *self,
             const guint8       *buf,
             const TslJsonValue *value,
             GError            **error)
{
  gboolean held = self->held->len > 0 && value->p == (const char *) self->held->data;
  DocError err = { value->p, NULL, NULL, held ? NULL : (const char *) buf };

  /* Frames a profile already streamed could not see: read, but no index. */
  if (self->streamed)
    self->no_index = TRUE;
  if (!read_frames (self, value, &err))
    {
      set_doc_error (self, error, &err);
      return FALSE;
    }
  self->frames_read = TRUE;
  return TRUE;
}

/* The profile at p ('{'): its fields up to its first array, read again
 * from its start until they are all in one buffer (nothing is consumed
 * until then). MORE: more input needed; WHOLE: the whole profile is in the
 * buffer, *at past it; STREAM: its events can be streamed from *at; HOLD:
 * it must be held whole (its fields may follow its arrays, it is sampled,
 * or its fields exceed MAX_HEAD). */
typedef enum { HEAD_MORE, HEAD_WHOLE, HEAD_STREAM, HEAD_HOLD, HEAD_ERROR } HeadResult;

#define MAX_HEAD (1024 * 1024)

static HeadResult
scan_head (TslSpeedscope  *self,
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
      TslJsonStatus status = next_item (q, end, first, '{', '}', &key, &item, jerr);

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
          return HEAD_HOLD;
        }
      if (status == TSL_JSON_OK)
        status = tsl_json_scan_value (item, end, &value, &after, jerr);
      if (status == TSL_JSON_ERROR)
        return HEAD_ERROR;
      if (status == TSL_JSON_INCOMPLETE)
        return end - p > MAX_HEAD ? HEAD_HOLD : HEAD_MORE;
      header_member (self, h, &key, &value);
      q = after;
      first = FALSE;
    }
}

/* The profile's events are streamed from here. */
static void
begin_stream (TslSpeedscope *self,
              Header        *h)
{
  Current *c = &self->cur;

  g_free (c->name);
  c->index = self->n_profiles++;
  c->track = start_profile (self, c->index, h, &c->factor);
  c->name = g_steal_pointer (&h->name);
  c->start = h->start;
  c->end = h->end;
  c->bad = 0;
  g_array_set_size (self->stack, 0);
  self->streamed = TRUE;
}

static void
end_stream (TslSpeedscope *self)
{
  Current *c = &self->cur;
  gint64 end_ns = end_ns_of (c->start, c->end, c->factor);

  end_evented (self, c->track, c->name, end_ns, c->bad);
  flush_events (self);
}

/* ---- Events on every core ---- */

/* The events from seg->start (right after an event, or at the '[' when
 * need_in) that start before seg->end, parsed: what the one-thread loop
 * would parse there, from the bytes alone. */
static void
scan_events (gpointer        data,
             TslScanSegment *seg,
             gpointer        scratch)
{
  TslSpeedscope *self = data;
  TslScanItems *out = seg->result;   /* Event; stop: after the last one */
  TslJsonIter iter = { seg->start, self->plan_end, seg->need_in };
  TslJsonValue value;
  TslJsonError jerr;

  g_array_set_size (out->items, 0);
  out->stop = seg->start;
  while (iter.p < seg->end && tsl_json_iter_next_element (&iter, &value, &jerr) == TSL_JSON_OK)
    {
      Event e;

      parse_event (&value, &e);
      g_array_append_val (out->items, e);
      out->stop = iter.p;
    }
}

static const TslScanFuncs speedscope_scan_funcs = {
  .scan = scan_events,
  .item_size = sizeof (Event),
};

/* The one-thread loop over the streamed profile's events from p while p is
 * before `limit`; *blocked at anything but a whole event (the array's end,
 * an event the buffer cuts, bad syntax), which the caller's loop reads. */
static const char *
events_loop (TslSpeedscope *self,
             const char    *p,
             const char    *end,
             const char    *limit,
             gboolean      *blocked)
{
  TslJsonIter iter = { p, end, self->first };
  TslJsonValue value;
  TslJsonError jerr;
  Current *c = &self->cur;

  while (iter.p < limit)
    {
      if (tsl_json_iter_next_element (&iter, &value, &jerr) != TSL_JSON_OK)
        {
          *blocked = TRUE;
          break;
        }
      self->n_events++;
      process_event (self, c->track, c->name, &value, c->factor, &c->bad);
      self->first = FALSE;
      p = iter.p;
    }
  return p;
}

static void
drive_plan (gpointer             data,
            const TslScanBuffer *buf)
{
  TslSpeedscope *self = data;

  self->plan_end = buf->end;
}

/* A segment's events are the ones the one-thread loop would parse where
 * it starts. */
static const char *
drive_apply (gpointer              data,
             const TslScanBuffer  *buf,
             const TslScanSegment *seg)
{
  TslSpeedscope *self = data;
  const TslScanItems *events = seg->result;
  Current *c = &self->cur;

  for (guint j = 0; j < events->items->len; j++)
    {
      self->n_events++;
      model_event (self, c->track, c->name, &g_array_index (events->items, Event, j),
                   c->factor, &c->bad);
    }
  if (events->items->len > 0)
    self->first = FALSE;
  return events->stop;
}

/* From where a segment's scan stopped, and over a segment that does not
 * start where this thread is. */
static const char *
drive_serial (gpointer             data,
              const TslScanBuffer *buf,
              const char          *p,
              const char          *limit,
              gboolean            *blocked)
{
  return events_loop (data, p, buf->end, limit, blocked);
}

/* The events of a regular file's buffer scanned on every core and modelled
 * on this thread in order (tsl_scan_driver_run()). */
static const TslScanDriveFuncs speedscope_drive_funcs = {
  .plan = drive_plan,
  .apply = drive_apply,
  .serial = drive_serial,
};

/* Reads what `len` bytes hold; returns how many were used. */
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
          status = next_item (p, end, self->first, '{', '}', &key, &item, &jerr);
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
            begin_value (self, ST_SHARED, ST_TOP);
          else
            begin_value (self, ST_SKIP, ST_TOP);
          break;

        case ST_SHARED:
          if (!collect_value (self, buf, p, end, at_eof, TRUE, &value, &after))
            return len;
          if (!read_shared (self, buf, &value, error))
            return -1;
          p = after;
          self->stage = ST_TOP;
          break;

        case ST_SKIP:
          if (!collect_value (self, buf, p, end, at_eof, FALSE, &value, &after))
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
          status = next_item (p, end, self->first, '[', ']', &key, &item, &jerr);
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
              begin_value (self, ST_SKIP, ST_PROFILES);
              self->skip_warns = TRUE;
            }
          break;

        case ST_PROFILE:
          {
            Header h = { NULL, NULL, NULL, 0, NAN };
            HeadResult r = scan_head (self, p, end, &h, &item, &jerr);

            if (r == HEAD_MORE && !at_eof)
              {
                header_clear (&h);
                return p - (const char *) buf;
              }
            if (r == HEAD_ERROR)
              {
                header_clear (&h);
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
                header_clear (&h);
                if (!read_whole_profile (self, buf, &value, error))
                  return -1;
                p = item;
                self->stage = ST_PROFILES;
                break;
              }
            if (r == HEAD_STREAM)
              {
                begin_stream (self, &h);
                header_clear (&h);
                p = item;
                self->stage = ST_EVENTS;
                self->first = TRUE;
                break;
              }
            /* HEAD_HOLD, or cut short at the end: collected whole. */
            header_clear (&h);
            begin_value (self, ST_HELD, ST_PROFILES);
          }
          break;

        case ST_HELD:
          if (!collect_value (self, buf, p, end, at_eof, TRUE, &value, &after))
            return len;
          if (!read_whole_profile (self, buf, &value, error))
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
                process_event (self, c->track, c->name, &value, c->factor, &c->bad);
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

        case ST_TAIL:
          status = next_item (p, end, self->first, '{', '}', &key, &item, &jerr);
          if (status == TSL_JSON_DONE)
            {
              p = item;
              end_stream (self);
              self->stage = ST_PROFILES;
              self->first = FALSE;
              break;
            }
          if (status != TSL_JSON_OK)
            break;
          if (TSL_JSON_KEY_IS (&key, "startValue") || TSL_JSON_KEY_IS (&key, "endValue"))
            {
              Header h = { NULL, NULL, NULL, self->cur.start, self->cur.end };

              status = tsl_json_scan_value (item, end, &value, &after, &jerr);
              if (status != TSL_JSON_OK)
                break;
              header_member (self, &h, &key, &value);
              if (TSL_JSON_KEY_IS (&key, "endValue") && !isnan (h.end))
                tsl_trace_note_time (self->trace, end_ns_of (h.start, h.end, self->cur.factor));
              self->cur.start = h.start;
              self->cur.end = h.end;
              p = after;
            }
          else
            {
              /* Other fields come too late to change the events read. */
              p = item;
              begin_value (self, ST_SKIP, ST_TAIL);
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

/* An event the end of the input cut: read up to its last whole member, as
 * a whole document cut there would be (a member cut off makes it a
 * malformed event). */
static void
end_cut_event (TslSpeedscope *self,
               const char    *p,
               const char    *end)
{
  g_autoptr(GByteArray) closers = g_byte_array_new ();
  g_autoptr(GByteArray) part = g_byte_array_new ();
  TslJsonValue event;
  TslJsonError jerr;
  const char *after;
  gsize cut;

  p = tsl_json_skip_ws (p, end);
  if (p < end && *p == (self->first ? '[' : ','))
    p = tsl_json_skip_ws (p + 1, end);
  if (p >= end || (*p != '{' && *p != '[') ||
      !find_truncation (p, end - p, &cut, closers))
    return;
  g_byte_array_append (part, (const guint8 *) p, cut);
  g_byte_array_append (part, closers->data, closers->len);
  g_byte_array_append (part, (const guint8 *) " ", 1);
  if (tsl_json_scan_value ((const char *) part->data, (const char *) part->data + part->len,
                           &event, &after, &jerr) != TSL_JSON_OK)
    return;
  self->n_events++;
  process_event (self, self->cur.track, self->cur.name, &event, self->cur.factor, &self->cur.bad);
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
      find_truncation ((const char *) part->data, part->len, &cut, closers))
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
        ok = read_frames (self, &value, &err);
      else
        {
          ok = read_profile (self, self->n_profiles++, &value, &self->n_events, &err);
          flush_events (self);
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
      end_stream (self);
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
      flush_events (self);
    }
  if (!at_eof)
    return consumed;

  if (self->stage == ST_HOLD)
    {
      repair_truncation (self);
      if (!read_document (self, error))
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

/* ---- Chunk index ---- */

#define STATE_MAGIC 0x53535031u  /* "SSP1" */
#define MAX_SAVED_NAME 1024

static void
put (GByteArray   *out,
     gconstpointer data,
     gsize         len)
{
  g_byte_array_append (out, data, len);
}

static gboolean
get (const guint8 **p,
     const guint8  *end,
     gpointer       out,
     gsize          len)
{
  if ((gsize) (end - *p) < len)
    return FALSE;
  memcpy (out, *p, len);
  *p += len;
  return TRUE;
}

/* Right after an event of a streamed profile (the ',' before the next one
 * not yet read), with the profile's fields and its open frames saved. A
 * held document (profiles before frames) gets no index; so does a profile
 * with malformed events, which it counts (a later read would not see the
 * ones in chunks it passes), and frames read after a streamed profile. */
static TslCheckpoint
speedscope_checkpoint (gpointer      state,
                       const guint8 *buf,
                       gsize         consumed,
                       gsize        *back,
                       GByteArray   *saved)
{
  TslSpeedscope *self = state;
  const Current *c = &self->cur;
  guint32 magic = STATE_MAGIC, name_len, depth;

  if (self->stage == ST_HOLD || self->no_index)
    return TSL_CHECKPOINT_NEVER;
  if (self->stage != ST_EVENTS || self->first)
    return TSL_CHECKPOINT_NOT_HERE;
  if (c->bad > 0)
    return TSL_CHECKPOINT_NEVER;
  name_len = strlen (c->name);
  depth = self->stack->len;
  if (name_len > MAX_SAVED_NAME ||
      4 * 4 + 3 * 8 + name_len + depth * 12 > TSL_CHUNK_STATE_MAX)
    return TSL_CHECKPOINT_NOT_HERE;
  put (saved, &magic, 4);
  put (saved, &c->index, 4);
  put (saved, &c->factor, 8);
  put (saved, &c->start, 8);
  put (saved, &c->end, 8);
  put (saved, &name_len, 4);
  put (saved, c->name, name_len);
  put (saved, &depth, 4);
  for (guint i = 0; i < depth; i++)
    {
      const Open *o = &g_array_index (self->stack, Open, i);

      put (saved, &o->frame, 4);
      put (saved, &o->start_ns, 8);
    }
  *back = 0;
  return TSL_CHECKPOINT_HERE;
}

static gboolean
speedscope_restore (gpointer      state,
                    const guint8 *saved,
                    gsize         len)
{
  TslSpeedscope *self = state;
  const guint8 *p = saved, *end = saved + len;
  Current c = { 0 };
  guint32 magic, name_len, depth;
  g_autofree char *name = NULL;
  g_autoptr(GArray) stack = g_array_new (FALSE, FALSE, sizeof (Open));

  /* Both ends of a jump are right after an event. */
  if (self->stage != ST_EVENTS || self->first || saved == NULL)
    return FALSE;
  if (!get (&p, end, &magic, 4) || magic != STATE_MAGIC ||
      !get (&p, end, &c.index, 4) || !get (&p, end, &c.factor, 8) ||
      !get (&p, end, &c.start, 8) || !get (&p, end, &c.end, 8) ||
      !get (&p, end, &name_len, 4) || name_len > MAX_SAVED_NAME || (gsize) (end - p) < name_len)
    return FALSE;
  name = g_strndup ((const char *) p, name_len);
  p += name_len;
  if (!get (&p, end, &depth, 4) || depth > MAX_DEPTH || (gsize) (end - p) != (gsize) depth * 12)
    return FALSE;
  for (guint i = 0; i < depth; i++)
    {
      Open o;

      get (&p, end, &o.frame, 4);
      get (&p, end, &o.start_ns, 8);
      g_array_append_val (stack, o);
    }
  /* The chunk that made the track (always read) came before. */
  if (c.index >= self->n_profiles)
    return FALSE;
  c.track = tsl_trace_ensure_track (self->trace, TSL_TRACK_THREAD, 0, c.index + 1, NULL);
  c.name = g_steal_pointer (&name);
  g_free (self->cur.name);
  self->cur = c;
  g_array_set_size (self->stack, 0);
  g_array_append_vals (self->stack, stack->data, stack->len);
  return TRUE;
}

const TslFormat tsl_format_speedscope = {
  .name = "speedscope",
  .sniff = speedscope_sniff,
  .create = speedscope_create,
  .parse = speedscope_parse,
  .destroy = speedscope_destroy,
  .checkpoint = speedscope_checkpoint,
  .restore = speedscope_restore,
};
