/* tsl-cpuprofile-reader.c: V8 CPU profiles (.cpuprofile)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What `node --cpu-prof`, Chrome DevTools' "Save profile" and Puppeteer
 * write: one JSON object with "nodes" (the call tree: id, callFrame,
 * children), "startTime" and "endTime" (µs), "samples" (a node id per
 * sample) and "timeDeltas" (µs since the sample before). It becomes one
 * sampled thread track; a sample is its node's stack, root first, at
 * startTime + Σ timeDeltas. The document streams: the tree is held
 * (tsl-cpuprofile-nodes.c), the samples and deltas are read element by
 * element and paired through a spool (tsl-cpuprofile-samples.c), so memory
 * is bounded by the tree and the sampler, not by the samples.
 *
 * Damage is read around, never fatal once the object has begun: a link
 * that closes a cycle is dropped, a sample of an unknown node is kept as
 * "(unknown node)", a negative delta places its sample earlier, arrays of
 * different lengths are paired as far as they go, and a syntax error or a
 * cut ends the reading with what came before it kept; each warning names
 * its position (the first few of a kind, then a count).
 *
 * No chunk index (TSL_CHECKPOINT_NEVER): a sample's time is the sum of
 * every delta before it, and the samples' array comes before the deltas'
 * (the pairing spans both arrays, far apart in the file), so no offset
 * past the tree can be resumed without reading the file from its start.
 * Not cut between scanners either, for the same reason: each element's
 * meaning depends on every one before it; the elements are decoded on a
 * second thread ahead of the one that models them instead
 * (tsl-cpuprofile-ahead.c).
 */
#define G_LOG_DOMAIN "tsl-cpuprofile-reader"

#include <string.h>
#include <glib/gi18n-lib.h>

#include "tsl-cpuprofile-private.h"
#include "tsl-time-math.h"

static gboolean
starts_with (const char *p,
             const char *end,
             const char *literal)
{
  gsize n = strlen (literal);

  return (gsize) (end - p) >= n && memcmp (p, literal, n) == 0;
}

static int
cpuprofile_sniff (const guint8 *head,
                  gsize         len,
                  gboolean      at_eof)
{
  const char *s = (const char *) head;
  const char *p = tsl_json_skip_ws (s, s + len);

  if (p >= s + len || *p != '{')
    return 0;
  /* A Chrome trace embeds the same nodes in its events; speedscope has profiles. */
  if (tsl_sniff_contains (s, len, "\"traceEvents\"") || tsl_sniff_contains (s, len, "\"profiles\""))
    return 0;
  if (tsl_sniff_contains (s, len, "\"nodes\"") && tsl_sniff_contains (s, len, "\"callFrame\""))
    return tsl_sniff_contains (s, len, "\"functionName\"") ? 100 : 90;
  if (tsl_sniff_contains (s, len, "\"nodes\"") && tsl_sniff_contains (s, len, "\"timeDeltas\""))
    return 90;
  /* A file that puts the tree last: its first member is one of the arrays. */
  p = tsl_json_skip_ws (p + 1, s + len);
  if (starts_with (p, s + len, "\"samples\":[") || starts_with (p, s + len, "\"timeDeltas\":["))
    return 60;
  return 0;
}

static gpointer
cpuprofile_create (TslTrace         *trace,
                   TslReaderContext *ctx)
{
  TslCpuprofile *self = g_new0 (TslCpuprofile, 1);

  self->trace = trace;
  self->ctx = ctx;
  self->scratch = g_string_new (NULL);
  self->label = g_string_new (NULL);
  tsl_cpuprofile_nodes_init (self);
  tsl_cpuprofile_samples_init (self);
  /* One isolate's JavaScript thread; the file names no process. */
  tsl_trace_set_thread_name (trace, 0, 1, "V8 CPU profile");
  self->track = tsl_trace_ensure_track (trace, TSL_TRACK_THREAD, 0, 1, NULL);
  /* Samples of whole stacks, not spans: per-range figures count them. */
  tsl_trace_track_set_sampled (trace, self->track, TRUE);
  return self;
}

static void
cpuprofile_destroy (gpointer state)
{
  TslCpuprofile *self = state;

  tsl_cpuprofile_ahead_clear (self);
  tsl_cpuprofile_nodes_clear (self);
  tsl_cpuprofile_samples_clear (self);
  g_string_free (self->scratch, TRUE);
  g_string_free (self->label, TRUE);
  g_free (self);
}

gboolean
tsl_cpuprofile_may_warn (TslCpuprofile *self,
                         WarnKind       kind)
{
  return ++self->warned[kind] <= TSL_CPUPROFILE_POS_WARNINGS;
}

/* The next member of the top-level object from p (after '{' when first,
 * else after a member): OK with the key and *item at its value, DONE with
 * *item past the '}'. */
static TslJsonStatus
next_member (const char    *p,
             const char    *end,
             gboolean       first,
             TslJsonValue  *key,
             const char   **item,
             TslJsonError  *jerr)
{
  TslJsonStatus status;

  p = tsl_json_skip_ws (p, end);
  if (p >= end)
    return TSL_JSON_INCOMPLETE;
  if (*p == '}')
    {
      *item = p + 1;
      return TSL_JSON_DONE;
    }
  if (!first)
    {
      if (*p != ',')
        {
          jerr->pos = p;
          jerr->message = N_("expected ',' or '}'");
          return TSL_JSON_ERROR;
        }
      p = tsl_json_skip_ws (p + 1, end);
      if (p >= end)
        return TSL_JSON_INCOMPLETE;
    }
  if (*p != '"')
    {
      jerr->pos = p;
      jerr->message = N_("expected a member name in double quotes");
      return TSL_JSON_ERROR;
    }
  status = tsl_json_scan_string (p, end, key, &p);
  if (status != TSL_JSON_OK)
    return status;
  p = tsl_json_skip_ws (p, end);
  if (p < end && *p != ':')
    {
      jerr->pos = p;
      jerr->message = N_("expected ':' after a member name");
      return TSL_JSON_ERROR;
    }
  p = tsl_json_skip_ws (p + (p < end), end);
  if (p >= end)
    return TSL_JSON_INCOMPLETE;
  *item = p;
  return TSL_JSON_OK;
}

static void
warn_at (TslCpuprofile *self,
         gsize          offset,
         const char    *message)
{
  g_autofree char *position = tsl_reader_context_position (self->ctx, offset);

  tsl_trace_add_warning (self->trace, "%s: %s", position, message);
}

/* A member's value that is not read: skipped, however large. */
static void
begin_skip (TslCpuprofile *self)
{
  memset (&self->skip, 0, sizeof self->skip);
  self->stage = ST_SKIP;
}

/* An element of "samples" or "timeDeltas" at q: an integer (the hot path,
 * without a TslJsonValue) or anything else, warned about. */
static TslJsonStatus
integer_element (TslCpuprofile *self,
                 const guint8  *buf,
                 const char    *q,
                 const char    *end,
                 const char   **after,
                 TslJsonError  *jerr)
{
  const char *d = q + (*q == '-');
  guint64 acc = 0;
  guint n = 0;
  gint64 v;
  TslJsonValue value;
  TslJsonStatus status;
  gboolean ok;

  while (d < end && (guchar) (*d - '0') < 10 && n < 18)
    {
      acc = acc * 10 + (guint64) (*d - '0');
      d++;
      n++;
    }
  if (n > 0 && d < end && tsl_json_delimiter[(guchar) *d])
    {
      v = *q == '-' ? -(gint64) acc : (gint64) acc;
      if (self->stage == ST_SAMPLES)
        tsl_cpuprofile_push_sample (self, v, q - (const char *) buf);
      else
        tsl_cpuprofile_push_delta (self, tsl_time_mul (v, 1000), q - (const char *) buf);
      *after = d;
      return TSL_JSON_OK;
    }
  status = tsl_json_scan_value (q, end, &value, after, jerr);
  if (status != TSL_JSON_OK)
    return status;
  /* 2^63 - 1 and fractions of a µs are numbers still; the rest is not. */
  if (self->stage == ST_SAMPLES)
    ok = value.type == TSL_JSON_NUMBER && tsl_json_value_get_int64 (&value, &v);
  else
    ok = value.type == TSL_JSON_NUMBER && tsl_json_value_get_us_as_ns (&value, &v);
  if (!ok)
    {
      if (tsl_cpuprofile_may_warn (self, WARN_NOT_INTEGER))
        warn_at (self, q - (const char *) buf,
                 self->stage == ST_SAMPLES ? _("a sample that is not an integer node id is shown as (unknown node)")
                                           : _("a time delta that is not a number of microseconds the timeline can hold counts as 0"));
      v = self->stage == ST_SAMPLES ? TSL_CPUPROFILE_NOT_AN_ID : 0;
    }
  if (self->stage == ST_SAMPLES)
    tsl_cpuprofile_push_sample (self, v, q - (const char *) buf);
  else
    tsl_cpuprofile_push_delta (self, v, q - (const char *) buf);
  return TSL_JSON_OK;
}

/* The elements after the first of "samples" or "timeDeltas" as V8 writes
 * them, ",123" without blanks: 1 to 7 digits read eight bytes at a time
 * (SWAR), up to the first element that is not one (on a second thread
 * first when it pays: tsl-cpuprofile-ahead.c). Returns where reading
 * goes on. Once per sample, so the per-element path above is the rare one. */
static const char *
fast_integers (TslCpuprofile *self,
               const guint8  *buf,
               const char    *p,
               const char    *end)
{
  gboolean samples = self->stage == ST_SAMPLES;

  while (end - p >= 9)
    {
      guint64 v;
      guint len = tsl_cpuprofile_swar (p, &v);

      if (len == 0)
        break;
      if (samples)
        tsl_cpuprofile_push_sample (self, (gint64) v, p + 1 - (const char *) buf);
      else
        tsl_cpuprofile_push_delta (self, (gint64) v * 1000, p + 1 - (const char *) buf);
      p += 1 + len;
    }
  return p;
}

/* The end of the array the stage reads. */
static void
end_array (TslCpuprofile *self)
{
  if (self->stage == ST_NODES)
    self->nodes_done = TRUE;
  else if (self->stage == ST_SAMPLES)
    self->samples_done = TRUE;
  else
    self->deltas_done = TRUE;
  self->stage = ST_TOP;
  self->first = FALSE;
  tsl_cpuprofile_drain (self);
}

/* Elements of the array the stage reads, from p (after its '[' or an
 * element): up to its end or the buffer's. */
static TslJsonStatus
read_array (TslCpuprofile  *self,
            const guint8   *buf,
            const char    **pp,
            const char     *end,
            TslJsonError   *jerr)
{
  const char *p = *pp;
  TslJsonStatus status = TSL_JSON_OK;

  for (;;)
    {
      const char *q, *after;
      TslJsonValue value;

      if (self->stage != ST_NODES && !self->first)
        p = fast_integers (self, buf, tsl_cpuprofile_ahead (self, buf, p, end), end);
      q = tsl_json_skip_ws (p, end);
      if (q >= end)
        {
          status = TSL_JSON_INCOMPLETE;
          break;
        }
      if (*q == ']')
        {
          p = q + 1;
          end_array (self);
          break;
        }
      if (!self->first)
        {
          if (*q != ',')
            {
              jerr->pos = q;
              jerr->message = N_("expected ',' or ']'");
              status = TSL_JSON_ERROR;
              break;
            }
          q = tsl_json_skip_ws (q + 1, end);
          if (q >= end)
            {
              status = TSL_JSON_INCOMPLETE;
              break;
            }
        }
      if (self->stage == ST_NODES)
        {
          status = tsl_json_scan_value (q, end, &value, &after, jerr);
          if (status == TSL_JSON_OK)
            tsl_cpuprofile_read_node (self, &value, q - (const char *) buf);
        }
      else
        status = integer_element (self, buf, q, end, &after, jerr);
      if (status != TSL_JSON_OK)
        break;
      p = after;
      self->first = FALSE;
    }
  *pp = p;
  return status;
}

/* A top-level member at item (its key read): what it starts, with *after
 * where reading goes on. INCOMPLETE when its scalar value needs more input
 * (nothing changed: the member is read again from its start). */
static TslJsonStatus
begin_member (TslCpuprofile      *self,
              const guint8       *buf,
              const TslJsonValue *key,
              const char         *item,
              const char         *end,
              const char        **after,
              TslJsonError       *jerr)
{
  gboolean *seen = NULL;
  Stage stage = ST_SKIP;
  TslJsonValue value;
  TslJsonStatus status;

  if (TSL_JSON_KEY_IS (key, "nodes"))
    seen = &self->saw_nodes, stage = ST_NODES;
  else if (TSL_JSON_KEY_IS (key, "samples"))
    seen = &self->saw_samples, stage = ST_SAMPLES;
  else if (TSL_JSON_KEY_IS (key, "timeDeltas"))
    seen = &self->saw_deltas, stage = ST_DELTAS;
  else if (TSL_JSON_KEY_IS (key, "startTime") || TSL_JSON_KEY_IS (key, "endTime"))
    {
      gint64 ns;

      status = tsl_json_scan_value (item, end, &value, after, jerr);
      if (status != TSL_JSON_OK)
        return status;
      if (value.type != TSL_JSON_NUMBER || !tsl_json_value_get_us_as_ns (&value, &ns))
        {
          warn_at (self, item - (const char *) buf, _("a time that is not a number of microseconds the timeline can hold is ignored"));
          return TSL_JSON_OK;
        }
      ns = tsl_cpuprofile_clamp_time (ns, &self->clamped);
      tsl_trace_note_time (self->trace, ns);
      if (key->p[0] == 's' && !self->have_start)
        {
          self->have_start = TRUE;
          self->start_ns = ns;
          tsl_cpuprofile_drain (self);
        }
      return TSL_JSON_OK;
    }

  *after = item;
  if (seen == NULL || *item != '[' || *seen)
    {
      if (seen != NULL)
        warn_at (self, item - (const char *) buf,
                 *seen ? _("a second array of the same name is ignored") : _("a member that should be an array is ignored"));
      begin_skip (self);
      return TSL_JSON_OK;
    }
  *seen = TRUE;
  if (stage == ST_SAMPLES)
    self->samples_checked = self->nodes_done;
  self->stage = stage;
  self->first = TRUE;
  *after = item + 1;
  return TSL_JSON_OK;
}

/* Reads what the buffer holds; returns how many bytes were used, or -1. */
static gssize
stream (TslCpuprofile *self,
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
      TslJsonValue key;
      TslJsonStatus status = TSL_JSON_OK;
      const char *item = NULL, *after = NULL;

      switch (self->stage)
        {
        case ST_START:
          p = tsl_json_skip_ws (p, end);
          if (p >= end)
            return p - (const char *) buf;
          if (*p != '{')
            {
              tsl_reader_context_set_error (self->ctx, error, p - (const char *) buf, "%s",
                                            _("expected '{' at the start of a V8 CPU profile"));
              return -1;
            }
          p++;
          self->stage = ST_TOP;
          self->first = TRUE;
          break;

        case ST_TOP:
          status = next_member (p, end, self->first, &key, &item, &jerr);
          if (status == TSL_JSON_DONE)
            {
              p = item;
              self->stage = ST_AFTER;
              break;
            }
          if (status != TSL_JSON_OK)
            break;
          {
            gboolean was_first = self->first;

            /* An array it begins sets first again. */
            self->first = FALSE;
            status = begin_member (self, buf, &key, item, end, &after, &jerr);
            if (status != TSL_JSON_OK)
              {
                /* Read again from p, the member's start, when more comes. */
                self->first = was_first;
                break;
              }
            p = after;
          }
          break;

        case ST_SKIP:
          if (!tsl_json_skip_feed (&self->skip, p, end, at_eof, &after))
            return len;
          p = after;
          self->stage = ST_TOP;
          break;

        case ST_NODES:
        case ST_SAMPLES:
        case ST_DELTAS:
          status = read_array (self, buf, &p, end, &jerr);
          break;

        case ST_AFTER:
        default:
          return len;
        }

      if (status == TSL_JSON_ERROR)
        {
          g_autofree char *position = tsl_reader_context_position (self->ctx, jerr.pos - (const char *) buf);

          tsl_trace_add_warning (self->trace, _("%s: %s; the rest of the V8 CPU profile is not read"),
                                 position, _(jerr.message));
          self->stage = ST_AFTER;
          return len;
        }
      if (status == TSL_JSON_INCOMPLETE)
        return p - (const char *) buf;
    }
}

static gssize
cpuprofile_parse (gpointer      state,
                  const guint8 *buf,
                  gsize         len,
                  gboolean      at_eof,
                  GError      **error)
{
  TslCpuprofile *self = state;
  gssize consumed = stream (self, buf, len, at_eof, error);

  if (consumed < 0)
    return -1;
  if (at_eof)
    {
      if (self->stage == ST_START)
        {
          tsl_reader_context_set_error (self->ctx, error, len, "%s",
                                        _("expected '{' at the start of a V8 CPU profile"));
          return -1;
        }
      if (self->stage != ST_AFTER)
        {
          g_autofree char *position = tsl_reader_context_position (self->ctx, len);

          tsl_trace_add_warning (self->trace, _("%s: the V8 CPU profile is truncated; what came before the "
                                                "cut was read"), position);
        }
      tsl_cpuprofile_finish (self);
      consumed = len;
    }
  tsl_trace_add_events (self->trace, self->n_events);
  self->n_events = 0;
  return consumed;
}

const TslFormat tsl_format_cpuprofile = {
  .name = "cpuprofile",
  .sniff = cpuprofile_sniff,
  .create = cpuprofile_create,
  .parse = cpuprofile_parse,
  .destroy = cpuprofile_destroy,
  .checkpoint = tsl_format_checkpoint_never,
};
