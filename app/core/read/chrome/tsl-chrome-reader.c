/* tsl-chrome-reader.c: the Chrome Trace Event Format, streamed
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The array form and the {"traceEvents": [...]} object form are read one
 * event at a time with our own tokenizer (tsl-json-scan.h): each event is
 * scanned once for the members that route it (ph, pid, tid, ts, dur, name,
 * cat, id), everything else is skipped unparsed, and payloads (stacks, args)
 * are only looked at when the sampler keeps the event. Spans become samples
 * of their thread's track, labelled with the stack of spans open on that
 * thread, root first; a B span is offered when its E arrives so that it can
 * carry its duration. Per-thread state is the stack of open spans, nothing
 * per event.
 *
 * This file reads the event lists, on one thread, two (tsl-chrome-pipe.c)
 * or every core (tsl-chrome-parallel.c), and the chunk index's hooks; the
 * rest of the document is tsl-chrome-document.c's.
 */
#define G_LOG_DOMAIN "tsl-reader"

#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "tsl-chunk-index.h"
#include "tsl-chrome-reader-types.h"

/* Events scanned inline before the model moves to its own thread: small
 * traces never start one. */
#define PIPE_AFTER_BYTES (4 * 1024 * 1024)
/* When both threads spend this share of split calls waiting for each other
 * (another process has one of the cores), CONTENDED_CALLS times in a row,
 * the next PAUSE_BYTES are read on one thread: spinning for a descheduled
 * partner made a loaded machine 1.5x slower than one thread. */
#define CONTENDED_SHARE  0.4
#define CONTENDED_CALLS  4
#define PAUSE_BYTES      (32 * 1024 * 1024)
/* Buffers this big are scanned by both threads (we go on from a guessed
 * event boundary, see tsl_chrome_guess_event_start()).
 * TSL_READER_THREADS=eager splits every buffer, for the tests. */
#define SPLIT_MIN_BYTES    (128 * 1024)
/* Fewer bytes than this are modelled on the reading thread. */
#define PIPE_MIN_BYTES     (16 * 1024)
/* A regular file's buffers are scanned on every core in segments of about
 * TSL_SCAN_SEGMENT_BYTES (see parallel_events()), cut at guessed event
 * starts by the shared TslScanCutter; TSL_READER_SPLIT_SEED=S (tests) cuts
 * every buffer from the first event at random places instead. */

static int
chrome_sniff (const guint8 *head,
              gsize         len,
              gboolean      at_eof)
{
  const char *s = (const char *) head;
  const char *end = s + len;
  const char *p = tsl_json_skip_ws (s, end);

  if (p >= end)
    return 0;
  if (*p == '[')
    {
      p = tsl_json_skip_ws (p + 1, end);
      if (p < end && *p != '{' && *p != ']')
        return 0;
      /* Certain: the reader need not wait for more of a slow pipe. */
      return p < end && tsl_sniff_contains (s, len, "\"ph\"") ? 100 : 40;
    }
  if (*p != '{')
    return 0;
  /* speedscope's own format is an object too; leave it to that reader. */
  if (tsl_sniff_contains (s, len, "speedscope") &&
      (tsl_sniff_contains (s, len, "\"profiles\"") || tsl_sniff_contains (s, len, "\"$schema\"")))
    return 10;
  if (tsl_sniff_contains (s, len, "\"traceEvents\""))
    return 100;
  if (tsl_sniff_contains (s, len, "\"ph\""))
    return 70;
  /* Some other JSON object; the Chrome reader is the best guess, and its
   * object form may start with a large "metadata" member. */
  return 30;
}

static gpointer
chrome_create (TslTrace         *trace,
               TslReaderContext *ctx)
{
  TslChrome *self = g_new0 (TslChrome, 1);

  tsl_chrome_model_init (&self->model, trace);
  self->model.ctx = ctx;
  self->ctx = ctx;
  self->state = ST_START;
  self->split_share = 0.2;
  /* TSL_READER_THREADS=pipe: the two-thread reader a pipe gets, for the
   * benchmarks. */
  self->cutter = tsl_scan_cutter_new (ctx, tsl_chrome_guess_event_start, NULL);
  /* Decompressed ahead, its two ways are within about 10 % of each other
   * (a Perfetto trace's are not: the pool loses there). */
  tsl_reader_context_set_close_ways (ctx);
  return self;
}

static void
chrome_destroy (gpointer state)
{
  TslChrome *self = state;

  g_clear_pointer (&self->pipe, tsl_chrome_pipe_free);
  if (self->n_segments > 0)
    g_debug ("%s: %" G_GUINT64_FORMAT " segments scanned on %u threads (%" G_GUINT64_FORMAT
             " by the modelling one), %" G_GUINT64_FORMAT " of them cut at a wrong guess",
             tsl_reader_context_get_name (self->ctx), self->n_segments,
             tsl_reader_context_get_n_threads (self->ctx),
             tsl_chrome_scanners_get_by_caller (self->scanners), self->n_wrong);
  g_clear_pointer (&self->scanners, tsl_chrome_scanners_free);
  g_clear_pointer (&self->cutter, tsl_scan_cutter_free);
  g_clear_pointer (&self->rescan, g_array_unref);
  tsl_chrome_model_clear (&self->model);
  g_clear_pointer (&self->held_samples, g_byte_array_unref);
  g_free (self);
}


static gboolean
want_pipe (TslChrome *self)
{
  switch (tsl_reader_context_get_threads (self->ctx))
    {
    case TSL_READER_THREADS_EAGER:
      return TRUE;
    case TSL_READER_THREADS_AUTO:
      return self->event_bytes >= PIPE_AFTER_BYTES;
    case TSL_READER_THREADS_NEVER:
    default:
      return FALSE;
    }
}




/* Moves the split towards where neither thread waits for the other: the
 * worker's idle time says it could scan more, ours that it should scan
 * less. When we read ahead (a regular file), the worker's idle time
 * between two calls counts too: we then read and count lines alone, and a
 * bigger share for the worker leaves us time to do that inside the call
 * (see tsl_reader_context_idle()). From a pipe, that time is mostly spent
 * waiting for the writer, and a bigger share only takes CPU from it
 * (1 GB through `cat |`: 0.86 -> 1.1 s). Contention is judged on the call
 * alone. */
static void
balance (TslChrome *self,
         gint64     call_us)
{
  gint64 now = g_get_monotonic_time ();
  gint64 cycle_us = self->balanced_at != 0 ? now - self->balanced_at : call_us;
  gint64 idle_us, idle_all_us, wait_us;

  tsl_chrome_pipe_take_waits (self->pipe, &idle_us, &idle_all_us, &wait_us);
  self->idle_all_us += idle_all_us;
  if (call_us <= 0)
    return;   /* the call starts: only its own waits count for contention */
  idle_all_us = tsl_reader_context_reads_ahead (self->ctx) ? self->idle_all_us : idle_us;
  self->idle_all_us = 0;
  self->balanced_at = now;
  if (cycle_us <= 0)
    return;
  self->split_share += 0.5 * (double) (idle_all_us - wait_us) / cycle_us;
  self->split_share = CLAMP (self->split_share, 0.02, 0.45);

  if (idle_us + wait_us > CONTENDED_SHARE * call_us)
    self->contended++;
  else
    self->contended = 0;
  if (self->contended >= CONTENDED_CALLS)
    {
      self->contended = 0;
      self->pipe_resume_at = self->event_bytes + PAUSE_BYTES;
    }
}

static gboolean
context_idle (gpointer ctx)
{
  return tsl_reader_context_idle (ctx);
}

static void
drain (TslChrome *self)
{
  if (self->pipe != NULL)
    tsl_chrome_pipe_drain (self->pipe);
}

/* After a split: on with the worker's events counted, or, after a wrong
 * guess, from where the worker's scan stopped. */
static const char *
resolve_split (TslChrome  *self,
               const char *p,
               guint64     n_before_split)
{
  const char *stop;
  gboolean need_separator;
  guint n;

  if (tsl_chrome_pipe_resolve (self->pipe, &n, &stop, &need_separator) == TSL_CHROME_SPLIT_VALID)
    {
      self->n_events += n;
      return p;
    }
  self->n_events = n_before_split + n;
  self->need_separator = need_separator;
  return stop;
}

static void
model_events (TslChrome    *self,
              const GArray *events)
{
  for (guint i = 0; i < events->len; i++)
    {
      if (self->list_is_samples)
        tsl_chrome_model_sample (&self->model, &g_array_index (events, TslChromeEvent, i));
      else
        tsl_chrome_model_event (&self->model, &g_array_index (events, TslChromeEvent, i));
    }
  self->n_events += events->len;
}

/* A regular file's buffer of events scanned on every core, modelled here in
 * order: a segment is used only if it starts exactly where the scan before
 * it stopped, with no ',' due (after the first), which makes its scan the
 * one-thread scan's. After a wrong guess this thread rescans from where it
 * is to the next cut. Stops at what is not an event or a ',' (the list's
 * end, an error, a non-object, an event cut by the buffer's end), for the
 * one-thread loop to deal with. Returns where it stopped. */
static const char *
parallel_events (TslChrome  *self,
                 const char *p,
                 const char *end)
{
  const char *const *cuts;
  gboolean need = self->need_separator;
  guint n;

  if (self->scanners == NULL)
    {
      self->scanners = tsl_chrome_scanners_new (tsl_reader_context_get_n_threads (self->ctx),
                                                context_idle, self->ctx);
      self->rescan = g_array_new (FALSE, FALSE, sizeof (TslChromeEvent));
    }
  cuts = tsl_scan_cutter_cut (self->cutter, p, end, &n);
  if (n < 2)
    return p;
  tsl_chrome_scanners_start (self->scanners, cuts, n, end, need);
  self->n_segments += n;

  for (guint i = 0; i < n; i++)
    {
      const char *target = i + 1 < n ? cuts[i + 1] : end;
      const char *from = p;
      gboolean need_before = need;

      if (cuts[i] == p && (i == 0 || !need))
        {
          const TslChromeSegment *seg = tsl_chrome_scanners_get (self->scanners, i, &self->shape);

          model_events (self, seg->events);
          p = seg->stop;
          need = seg->need_out;
          continue;
        }
      self->n_wrong++;
      g_array_set_size (self->rescan, 0);
      p = tsl_chrome_run_events (p, target, self->rescan, &self->shape, &need);
      model_events (self, self->rescan);
      if (p == from && need == need_before)
        break;
    }

  tsl_chrome_scanners_finish (self->scanners);
  self->need_separator = need;
  return p;
}

/* The elements of traceEvents (or of the top-level array, or of samples).
 * Consumes whole events; leaves *pp at the first byte not consumed. */
static Step
parse_events (TslChrome   *self,
              const char  *buf,
              const char **pp,
              const char  *end,
              gboolean     at_eof,
              gboolean    *list_done,
              GError     **error)
{
  const char *p = *pp;
  TslChromePipe *pipe;
  gboolean split = FALSE;
  gboolean splitting = FALSE;   /* until resolved */
  guint64 n_before_split = 0;
  gint64 start_us = 0;
  gboolean eager;
  gboolean scanned = FALSE;
  Step step = STEP_NEED_MORE;

  *list_done = FALSE;
  if (self->pipe == NULL && want_pipe (self))
    {
      self->pipe = tsl_chrome_pipe_new (&self->model);
      tsl_chrome_pipe_set_idle (self->pipe, context_idle, self->ctx);
    }
  /* The pipe sits idle while paused (see balance()), and for a few events
   * (the one a feed boundary cut, say), where waking the worker and
   * waiting for it costs more than modelling them here. */
  eager = tsl_reader_context_get_threads (self->ctx) == TSL_READER_THREADS_EAGER;
  /* A regular file's big buffer (or gzip's and zstd's, up to 1 MiB): on
   * every core, or here when the governor says one thread reads faster
   * now. What is left of it (an event its end cut, say) is modelled here;
   * smaller buffers (follow mode's) go through the pipe. Compressed input
   * is on two threads from the start (its decompression thread): its
   * first PIPE_AFTER_BYTES read on one left the other core to the
   * decompressor alone, which the ring soon stops. */
  if (self->cutter != NULL &&
      (tsl_scan_cutter_is_random (self->cutter) ||
       ((self->event_bytes >= PIPE_AFTER_BYTES || tsl_reader_context_decompresses_ahead (self->ctx)) &&
        end - p >= 2 * TSL_SCAN_SEGMENT_BYTES)))
    {
      p = parallel_events (self, p, end);
      scanned = TRUE;
    }
  pipe = !scanned && self->event_bytes >= self->pipe_resume_at && (eager || end - p >= PIPE_MIN_BYTES)
         ? self->pipe : NULL;

  /* A big buffer of events: the worker takes its head, we go on from a
   * guessed event boundary. */
  if (pipe != NULL && !self->list_is_samples && end - p >= (eager ? 2 : SPLIT_MIN_BYTES))
    {
      const char *guess = tsl_chrome_guess_event_start (p + (gsize) ((end - p) * self->split_share), end);

      start_us = g_get_monotonic_time ();
      balance (self, 0);
      if (guess != NULL)
        {
          tsl_chrome_pipe_split (pipe, p, guess, self->need_separator, tsl_chrome_run_events);
          split = splitting = TRUE;
          n_before_split = self->n_events;
          p = guess;
          self->need_separator = FALSE;
        }
    }

  for (;;)
    {
      TslChromeEvent local;
      TslChromeEvent *ev = &local;
      TslJsonError jerr = { NULL, NULL };
      TslJsonStatus status;
      const char *after = NULL;

      /* Anything but an event or a ',' may come of a wrong guess. */
#define RESOLVE_FIRST() \
      if (splitting) { p = resolve_split (self, p, n_before_split); splitting = FALSE; continue; }

      p = tsl_json_skip_ws (p, end);
      if (G_UNLIKELY (splitting) && tsl_chrome_pipe_get_split (pipe) != TSL_CHROME_SPLIT_PENDING)
        {
          RESOLVE_FIRST ();
        }
      if (p >= end)
        {
          RESOLVE_FIRST ();
          break;
        }
      if (*p == ']')
        {
          RESOLVE_FIRST ();
          p++;
          *list_done = TRUE;
          step = STEP_CONTINUE;
          break;
        }
      if (*p == ',')
        {
          if (!self->need_separator)
            {
              RESOLVE_FIRST ();
              tsl_reader_context_set_error (self->ctx, error, p - buf,
                                            _("expected an event object or ']'"));
              step = STEP_ERROR;
              break;
            }
          self->need_separator = FALSE;
          p++;
          continue;
        }
      if (self->need_separator && *p == '}')
        {
          g_autofree char *where = NULL;

          /* A '}' too many after an event (a writer that closed its args
           * twice) damages nothing read: skip it, keep going, and say so.
           * The scans stop at it, so this loop sees it on any path. */
          RESOLVE_FIRST ();
          where = tsl_reader_context_position (self->ctx, p - buf);
          drain (self);
          tsl_trace_add_warning (self->model.trace, _("%s: ignored a '}' after an event"), where);
          p++;
          continue;
        }
      if (self->need_separator)
        {
          RESOLVE_FIRST ();
          tsl_reader_context_set_error (self->ctx, error, p - buf,
                                        _("expected ',' or ']' after an event"));
          step = STEP_ERROR;
          break;
        }

      if (*p == '{')
        {
          if (pipe != NULL && (ev = tsl_chrome_pipe_slot (pipe)) == NULL)
            {
              RESOLVE_FIRST ();
              g_assert_not_reached ();
            }
          status = tsl_chrome_scan_event (p, end, ev, &self->shape, &after, &jerr);
        }
      else
        {
          TslJsonValue value;

          RESOLVE_FIRST ();
          status = tsl_json_scan_value (p, end, &value, &after, &jerr);
          if (status == TSL_JSON_OK)
            {
              self->n_events++;
              self->need_separator = TRUE;
              drain (self);
              tsl_trace_add_warning (self->model.trace,
                                     _("ignored an entry of the event array that is not an object"));
              p = after;
              continue;
            }
        }

      if (status != TSL_JSON_OK)
        RESOLVE_FIRST ();
#undef RESOLVE_FIRST
      if (status == TSL_JSON_INCOMPLETE)
        {
          if (at_eof)
            {
              g_autofree char *where = tsl_reader_context_position (self->ctx, p - buf);

              drain (self);
              tsl_trace_add_warning (self->model.trace,
                                     _("%s: the trace ends inside an event; that event was dropped"),
                                     where);
              p = end;
            }
          break;
        }
      if (status == TSL_JSON_ERROR)
        {
          tsl_reader_context_set_error (self->ctx, error, jerr.pos - buf, "%s", _(jerr.message));
          step = STEP_ERROR;
          break;
        }

      self->n_events++;
      self->need_separator = TRUE;
      if (pipe != NULL)
        tsl_chrome_pipe_commit (pipe, self->list_is_samples);
      else if (self->list_is_samples)
        tsl_chrome_model_sample (&self->model, ev);
      else
        tsl_chrome_model_event (&self->model, ev);
      p = after;
    }

  /* The events slice this buffer, which is the caller's again once we return. */
  drain (self);
  if (split)
    balance (self, g_get_monotonic_time () - start_us);
  self->event_bytes += p - *pp;

  *pp = p;
  return step;
}


static gssize
chrome_parse (gpointer      state,
              const guint8 *data,
              gsize         len,
              gboolean      at_eof,
              GError      **error)
{
  TslChrome *self = state;
  const char *buf = (const char *) data;
  const char *end = buf + len;
  const char *p = buf;
  Step step = STEP_CONTINUE;

  /* No worker runs between parse calls, so this is safe to set. */
  self->model.offset_base = tsl_reader_context_get_input_offset (self->ctx);
  self->model.offset_buf = buf;
  self->model.want_offsets = self->model.offset_base >= 0 &&
                             tsl_trace_wants_offsets (self->model.trace);
  self->model.want_cpu = tsl_trace_wants_cpu (self->model.trace);

  while (step == STEP_CONTINUE)
    {
      const char *after = NULL;
      gboolean list_done;

      switch (self->state)
        {
        case ST_START:
          p = tsl_json_skip_ws (p, end);
          if (p >= end)
            {
              if (at_eof)
                {
                  tsl_reader_context_set_error (self->ctx, error, p - buf,
                                                _("expected '[' or '{' at the start of a Chrome trace"));
                  step = STEP_ERROR;
                }
              else
                step = STEP_NEED_MORE;
            }
          else if (*p == '[')
            {
              self->state = ST_EVENTS;
              self->list_is_samples = FALSE;
              self->saw_events = TRUE;
              p++;
            }
          else if (*p == '{')
            {
              self->state = ST_OBJECT;
              self->object_form = TRUE;
              p++;
            }
          else
            {
              tsl_reader_context_set_error (self->ctx, error, p - buf,
                                            _("expected '[' or '{' at the start of a Chrome trace"));
              step = STEP_ERROR;
            }
          break;

        case ST_OBJECT:
          step = _tsl_chrome_parse_member (self, buf, &p, end, error);
          break;

        case ST_OBJECT_NEXT:
          p = tsl_json_skip_ws (p, end);
          if (p >= end)
            step = STEP_NEED_MORE;
          else if (*p == ',')
            {
              self->state = ST_OBJECT;
              p++;
            }
          else if (*p == '}')
            {
              self->state = ST_DONE;
              p++;
            }
          else
            {
              tsl_reader_context_set_error (self->ctx, error, p - buf,
                                            _("expected ',' or '}' after a top-level member"));
              step = STEP_ERROR;
            }
          break;

        case ST_EVENTS:
          step = parse_events (self, buf, &p, end, at_eof, &list_done, error);
          if (list_done)
            self->state = self->object_form ? ST_OBJECT_NEXT : ST_DONE;
          break;

        case ST_FRAMES:
          step = _tsl_chrome_parse_frames (self, buf, &p, end, at_eof, error);
          if (step == STEP_CONTINUE && self->held_samples != NULL)
            _tsl_chrome_flush_held_samples (self);
          break;

        case ST_SKIP:
        case ST_HOLD_SAMPLES:
          {
            gboolean done = tsl_json_skip_feed (&self->skip, p, end, at_eof, &after);

            if (self->state == ST_HOLD_SAMPLES)
              g_byte_array_append (self->held_samples, (const guint8 *) p, after - p);
            p = after;
            if (done)
              self->state = ST_OBJECT_NEXT;
            else
              step = STEP_NEED_MORE;
          }
          break;

        case ST_DONE:
        default:
          p = tsl_json_skip_ws (p, end);
          if (p < end && !self->warned_trailing)
            {
              g_autofree char *where = tsl_reader_context_position (self->ctx, p - buf);

              tsl_trace_add_warning (self->model.trace,
                                     _("%s: ignored data after the end of the JSON document"), where);
              self->warned_trailing = TRUE;
            }
          p = end;
          step = STEP_NEED_MORE;
          break;
        }
    }

  if (self->n_events > 0)
    {
      tsl_trace_add_events (self->model.trace, self->n_events);
      self->n_events = 0;
    }
  if (step == STEP_ERROR)
    return -1;
  if (at_eof)
    {
      _tsl_chrome_finish (self);
      if (self->n_events > 0)
        {
          tsl_trace_add_events (self->model.trace, self->n_events);
          self->n_events = 0;
        }
      return len;
    }
  return p - buf;
}


static inline gboolean
is_ws (guint8 c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Inside the event array, right after an event (the ',' and blanks after
 * it are stepped back over), with the open spans saved. A "samples" list
 * names threads by tid alone, from what earlier events said: no index. */
static TslCheckpoint
chrome_checkpoint (gpointer      state,
                   const guint8 *buf,
                   gsize         consumed,
                   gsize        *back,
                   GByteArray   *saved)
{
  TslChrome *self = state;
  gsize at = consumed;

  if (self->had_samples || self->held_samples != NULL)
    return TSL_CHECKPOINT_NEVER;
  if (self->state != ST_EVENTS || self->list_is_samples)
    return TSL_CHECKPOINT_NOT_HERE;
  if (!self->need_separator)
    {
      while (at > 0 && is_ws (buf[at - 1]))
        at--;
      if (at == 0 || buf[at - 1] != ',')
        return TSL_CHECKPOINT_NOT_HERE;
      at--;
      while (at > 0 && is_ws (buf[at - 1]))
        at--;
      if (at == 0 || buf[at - 1] != '}')
        return TSL_CHECKPOINT_NOT_HERE;
    }
  if (!tsl_chrome_model_save (&self->model, saved, TSL_CHUNK_STATE_MAX))
    return TSL_CHECKPOINT_NOT_HERE;
  *back = consumed - at;
  return TSL_CHECKPOINT_HERE;
}

static gboolean
chrome_restore (gpointer      state,
                const guint8 *saved,
                gsize         len)
{
  TslChrome *self = state;

  /* Both ends of a jump are right after an event: a ',' comes next. */
  if (self->state != ST_EVENTS || self->list_is_samples || !self->need_separator)
    return FALSE;
  return tsl_chrome_model_restore (&self->model, saved, len);
}

const TslFormat tsl_format_chrome_json = {
  .name = "chrome-json",
  .sniff = chrome_sniff,
  .create = chrome_create,
  .parse = chrome_parse,
  .destroy = chrome_destroy,
  .checkpoint = chrome_checkpoint,
  .restore = chrome_restore,
  .records = TRUE,
};
