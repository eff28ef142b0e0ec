/* tsl-speedscope-profile.c: speedscope's profiles into the trace
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The model: the shared frame table interned, a profile's fields and unit,
 * an evented profile's open/close events onto a stack of open frames (the
 * spans and their labels), a sampled profile's samples and weights, and
 * the start and end of a streamed evented profile.
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

gboolean
tsl_speedscope_read_frames (TslSpeedscope      *self,
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

void
tsl_speedscope_model_event (TslSpeedscope *self,
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

void
tsl_speedscope_process_event (TslSpeedscope      *self,
                              guint               track,
                              const char         *profile,
                              const TslJsonValue *event,
                              double              factor,
                              guint              *bad)
{
  Event e;

  tsl_speedscope_parse_event (event, &e);
  tsl_speedscope_model_event (self, track, profile, &e, factor, bad);
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
      tsl_speedscope_process_event (self, track, profile, &event, factor, &bad);
    }
  end_evented (self, track, profile, end_ns, bad);
  return n;
}
/* One sample of a sampled profile, weighing w: it covers [start + *t,
 * + w); *t moves past it. */
void
tsl_speedscope_emit_sample (TslSpeedscope      *self,
                            guint               track,
                            const TslJsonValue *sample,
                            double              w,
                            double              factor,
                            gint64              start_ns,
                            double             *t)
{
  TslJsonIter fiter;
  TslJsonValue frame;
  TslJsonError jerr;
  gint64 at_ns;

  if (to_ns (*t, factor, &at_ns) && start_ns <= G_MAXINT64 / 2)
    {
      at_ns += start_ns;
      if (tsl_trace_offer (self->trace, track, at_ns, w * factor) &&
          sample->type == TSL_JSON_ARRAY)
        {
          g_string_truncate (self->label, 0);
          tsl_json_iter_init (&fiter, sample->p, sample->p + sample->len);
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
  *t += w;
}

/* The end of a sampled profile of n samples that weighed t in all. */
void
tsl_speedscope_end_sampled (TslSpeedscope *self,
                            guint64        n,
                            double         t,
                            double         factor,
                            gint64         start_ns)
{
  gint64 end_ns;

  if (n > 0 && to_ns (t, factor, &end_ns) && start_ns <= G_MAXINT64 / 2)
    tsl_trace_note_time (self->trace, start_ns + end_ns);
}

static guint64
read_sampled (TslSpeedscope      *self,
              guint               track,
              const TslJsonValue *samples,
              const TslJsonValue *weights,
              double              factor,
              gint64              start_ns)
{
  TslJsonIter siter, witer;
  TslJsonValue sample, weight;
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

      n++;
      if (have_weights && tsl_json_iter_next_element (&witer, &weight, &jerr) == TSL_JSON_OK)
        tsl_json_value_get_double (&weight, &w);
      tsl_speedscope_emit_sample (self, track, &sample, w, factor, start_ns, &t);
    }
  tsl_speedscope_end_sampled (self, n, t, factor, start_ns);
  return n;
}

void
tsl_speedscope_header_clear (Header *h)
{
  g_clear_pointer (&h->type, g_free);
  g_clear_pointer (&h->name, g_free);
  g_clear_pointer (&h->unit, g_free);
  h->start = 0;
  h->has_start = FALSE;
  h->end = NAN;
}

/* TRUE when key is one of the fields a Header holds. */
gboolean
tsl_speedscope_header_member (TslSpeedscope      *self,
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
      h->has_start = TRUE;
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
guint
tsl_speedscope_start_profile (TslSpeedscope *self,
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

gint64
tsl_speedscope_end_ns_of (double start,
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
gboolean
tsl_speedscope_read_profile (TslSpeedscope      *self,
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
      if (tsl_speedscope_header_member (self, &h, &key, &value))
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
      tsl_speedscope_header_clear (&h);
      return FALSE;
    }

  /* Some writers put "type" last, where a truncated file loses it. */
  if (h.type == NULL && samples.type == TSL_JSON_ARRAY)
    h.type = g_strdup ("sampled");
  else if (h.type == NULL && events.type == TSL_JSON_ARRAY)
    h.type = g_strdup ("evented");
  track = tsl_speedscope_start_profile (self, index, &h, &factor);
  if (!to_ns (h.start, factor, &start_ns))
    start_ns = 0;

  if (g_strcmp0 (h.type, "evented") == 0 && events.type == TSL_JSON_ARRAY)
    *n_events += read_evented (self, track, h.name, &events, factor, tsl_speedscope_end_ns_of (h.start, h.end, factor));
  else if (g_strcmp0 (h.type, "sampled") == 0 && samples.type == TSL_JSON_ARRAY)
    *n_events += read_sampled (self, track, &samples, &weights, factor, start_ns);
  else if (g_strcmp0 (h.type, "evented") == 0 || g_strcmp0 (h.type, "sampled") == 0)
    tsl_trace_add_warning (self->trace, _("profile \"%s\": no \"%s\" array; ignored"),
                           h.name, h.type[0] == 'e' ? "events" : "samples");
  else
    tsl_trace_add_warning (self->trace, _("profile \"%s\": unknown type \"%s\" ignored"),
                           h.name, h.type != NULL ? h.type : "");
  tsl_speedscope_header_clear (&h);
  return TRUE;
}

void
tsl_speedscope_flush_events (TslSpeedscope *self)
{
  tsl_trace_add_events (self->trace, self->n_events);
  self->n_events = 0;
}

/* The next profile, streamed from here (its events or its samples): its
 * track and fields become the current ones. */
void
tsl_speedscope_begin_current (TslSpeedscope *self,
                              Header        *h)
{
  Current *c = &self->cur;

  g_free (c->name);
  c->index = self->n_profiles++;
  c->track = tsl_speedscope_start_profile (self, c->index, h, &c->factor);
  c->name = g_steal_pointer (&h->name);
  c->start = h->start;
  c->end = h->end;
  c->bad = 0;
  self->streamed = TRUE;
}

/* The profile's events are streamed from here. */
void
tsl_speedscope_begin_stream (TslSpeedscope *self,
                             Header        *h)
{
  tsl_speedscope_begin_current (self, h);
  g_array_set_size (self->stack, 0);
}

void
tsl_speedscope_end_stream (TslSpeedscope *self)
{
  Current *c = &self->cur;
  gint64 end_ns = tsl_speedscope_end_ns_of (c->start, c->end, c->factor);

  end_evented (self, c->track, c->name, end_ns, c->bad);
  tsl_speedscope_flush_events (self);
}
