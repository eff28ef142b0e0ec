/* tsl-perf-reader.c: `perf script` text
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A record is a header line
 *
 *   comm [pid/]tid [cpu] time: [period] event: [ip sym (dso)]
 *
 * followed by indented frame lines "ip sym+off (dso)", leaf first, and ends at
 * a blank line, at the next header or at the end of the input. comm may hold
 * spaces (and digits), so the header is anchored on the time token, or, in old
 * perf output without times, on the event token. The sampler decides from the
 * header alone; frame lines of events it will not keep are only stepped over.
 * Lines are tokenised in tsl-perf-scan.c.
 *
 * A regular file's big buffers are cut after blank lines (which always end a
 * record) into segments whose records are found and whose headers are
 * parsed on every core (read/tsl-scan-pool.c); this thread models them in
 * order, using a segment only if it starts where it is (see
 * perf_drive_funcs).
 */
#define G_LOG_DOMAIN "tsl-perf-reader"

#include "config.h"

#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "tsl-frames.h"
#include "tsl-format-private.h"
#include "tsl-perf-private.h"
#include "tsl-scan-pool.h"
#include "tsl-text-private.h"

#define MAX_POS_WARNINGS  10
/* A regular file's buffers are scanned on every core in segments of about
 * TSL_SCAN_SEGMENT_BYTES, cut after a blank line by the shared
 * TslScanCutter (TSL_READER_SPLIT_SEED=S, tests: at random places instead,
 * some line starts, most of them no record start). */

/* A record a scanner thread found: its header line at start, its frame
 * lines [frames, frames_end). */
typedef struct {
  Header      h;
  const char *start;
  const char *frames;
  const char *frames_end;
} Record;

/* A segment's records: from its start, every record whose header starts
 * before its end; blank and '#' lines are passed over, and the scan stops
 * before any other line a record cannot start with (a frame line, a bad
 * header: they are counted or warned about) and before a record the
 * buffer's end cuts or may cut. */
/* What the scanner threads read; set before tsl_scan_pool_start() and not
 * until tsl_scan_pool_finish(). */
typedef struct {
  const char *end;
  gboolean    at_eof;
} Plan;

typedef struct {
  TslTrace         *trace;
  TslReaderContext *ctx;

  /* Scanning on every core (a regular file). */
  TslScanDriver    *driver;          /* NULL: one thread */
  Plan              plan;

  gboolean          started;
  gboolean          no_time;
  guint64           n_samples;
  gint64            last_time_ns;
  guint64           n_missing_time;
  guint64           n_bad_headers;
  guint64           n_orphan_frames;  /* stack lines before any sample header */

  gboolean          have_last;
  gint64            last_pid;
  gint64            last_tid;
  guint             last_track;
  GPtrArray        *comms;   /* track → (char *) comm last given to the trace */

  char             *first_event;
  gboolean          warned_events;

  GArray           *frames;  /* Frame, leaf first */
  GString          *label;
} PerfState;

static void
push_frame (PerfState  *self,
            const char *p,
            gsize       len)
{
  Frame f;
  Span s = _tsl_perf_frame_symbol (p, len, &f.bracket);

  f.p = s.p;
  f.len = s.len;
  g_array_append_val (self->frames, f);
}

static void
emit_label (PerfState *self,
            guint      track)
{
  g_string_truncate (self->label, 0);
  for (guint i = self->frames->len; i > 0; i--)
    {
      const Frame *f = &g_array_index (self->frames, Frame, i - 1);

      if (i < self->frames->len)
        g_string_append_c (self->label, ';');
      if (f->bracket)
        g_string_append_c (self->label, '[');
      tsl_frames_append (self->label, f->p, (gssize) f->len);
      if (f->bracket)
        g_string_append_c (self->label, ']');
    }

  tsl_trace_set_label (self->trace, track, self->label->str);
}

static guint
lookup_track (PerfState    *self,
              const Header *h)
{
  const char *known;

  if (!self->have_last || h->pid != self->last_pid || h->tid != self->last_tid)
    {
      self->last_track = tsl_trace_ensure_track (self->trace, TSL_TRACK_THREAD, h->pid, h->tid, NULL);
      /* Each event is a sample of the whole stack, as in the other profiles. */
      tsl_trace_track_set_sampled (self->trace, self->last_track, TRUE);
      self->last_pid = h->pid;
      self->last_tid = h->tid;
      self->have_last = TRUE;
      if (self->comms->len <= self->last_track)
        g_ptr_array_set_size (self->comms, self->last_track + 1);
    }

  /* A thread's comm changes on exec; the latest one names the track. */
  known = g_ptr_array_index (self->comms, self->last_track);
  if (known == NULL || strlen (known) != h->comm_len || memcmp (known, h->comm, h->comm_len) != 0)
    {
      char *comm = g_strndup (h->comm, h->comm_len);

      g_free (g_ptr_array_index (self->comms, self->last_track));
      g_ptr_array_index (self->comms, self->last_track) = comm;
      tsl_trace_set_thread_name (self->trace, h->pid, h->tid, comm);
      /* The main thread (tid == pid; 0 is the kernel's idle "swapper")
       * names its process, as perf report does. */
      if (h->pid == h->tid && h->pid >= 0)
        tsl_trace_set_process_name (self->trace, h->pid, comm);
    }

  return self->last_track;
}

/* The start of the line after the first blank line from `at`, or NULL. */
static const char *
after_blank_line (const char *at,
                  const char *end)
{
  const char *nl;

  while ((nl = memchr (at, '\n', end - at)) != NULL)
    {
      const char *next = nl + 1;

      if (next < end && next[0] == '\n')
        return next + 1 < end ? next + 1 : NULL;
      if (end - next >= 2 && next[0] == '\r' && next[1] == '\n')
        return next + 2 < end ? next + 2 : NULL;
      at = next;
    }
  return NULL;
}

static const TslScanFuncs perf_scan_funcs;
static const TslScanDriveFuncs perf_drive_funcs;

static gpointer
perf_create (TslTrace         *trace,
             TslReaderContext *ctx)
{
  PerfState *self = g_new0 (PerfState, 1);

  self->trace = trace;
  self->ctx = ctx;
  self->comms = g_ptr_array_new_with_free_func (g_free);
  self->frames = g_array_new (FALSE, FALSE, sizeof (Frame));
  self->label = g_string_sized_new (256);
  /* As the Chrome reader: TSL_READER_THREADS=pipe is one thread here. */
  self->driver = tsl_scan_driver_new (ctx, after_blank_line, tsl_scan_find_line_start, &perf_scan_funcs,
                                      &self->plan, &perf_drive_funcs, self, NULL);
  return self;
}

static void
perf_destroy (gpointer data)
{
  PerfState *self = data;

  g_ptr_array_unref (self->comms);
  g_array_unref (self->frames);
  g_free (self->first_event);
  g_string_free (self->label, TRUE);
  /* Logs in the reader's log domain, as the Chrome reader (test-parallel.py). */
  tsl_scan_driver_free (self->driver);
  g_free (self);
}

static void
warn_bad_header (PerfState *self,
                 gsize      offset)
{
  g_autofree char *position = NULL;

  if (self->n_bad_headers++ >= MAX_POS_WARNINGS)
    return;
  position = tsl_reader_context_position (self->ctx, offset);
  tsl_trace_add_warning (self->trace,
                         _("%s: not a perf script sample header "
                         "(expected “comm [pid/]tid [cpu] time: [period] event:”); skipped"),
                         position);
}

static void
process_record (PerfState  *self,
                Header     *h,
                const char *frames,
                const char *frames_end)
{
  guint track = lookup_track (self, h);
  double value = h->has_period ? (double) h->period : NAN;
  gint64 t;

  if (!self->started)
    {
      self->started = TRUE;
      self->first_event = g_strndup (h->event.p, h->event.len);
      if (!h->has_time)
        {
          self->no_time = TRUE;
          tsl_trace_set_has_time (self->trace, FALSE);
          tsl_trace_add_warning (self->trace,
                                 _("perf samples have no timestamps; shown in file order"));
        }
    }

  if (!self->warned_events &&
      (strlen (self->first_event) != h->event.len ||
       memcmp (self->first_event, h->event.p, h->event.len) != 0))
    {
      self->warned_events = TRUE;
      tsl_trace_add_warning_once (self->trace,
                                  _("several event types (%s, %.*s, …) share the thread tracks"),
                             self->first_event, (int) h->event.len, h->event.p);
    }

  if (self->no_time)
    t = (gint64) self->n_samples;
  else if (h->has_time)
    t = self->last_time_ns = h->time_ns;
  else
    {
      t = self->last_time_ns;
      self->n_missing_time++;
    }
  self->n_samples++;

  if (!tsl_trace_offer (self->trace, track, t, value))
    return;

  g_array_set_size (self->frames, 0);
  for (const char *p = frames; p < frames_end;)
    {
      const char *nl = memchr (p, '\n', frames_end - p);
      const char *eol = nl ? nl : frames_end;

      if (eol > p && !(eol - p == 1 && *p == '\r'))
        push_frame (self, p, eol - p);
      p = eol + 1;
    }
  if (self->frames->len == 0 && h->inline_frame.len > 0)
    push_frame (self, h->inline_frame.p, h->inline_frame.len);

  if (self->frames->len > 0)
    emit_label (self, track);
}

static gboolean
ends_whole (const char *p,
            const char *end)
{
  while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
    end--;
  return end > p && end[-1] == ')';
}

/* The one-thread loop: the records whose first line starts in [p, limit)
 * (a record may run on to the buffer's end), counted in buf->user: the
 * whole buffer, or from where a segment's scan stopped and over a segment
 * cut at a wrong guess. *blocked when one needs more input. Returns where
 * it stopped. */
static const char *
parse_records (gpointer             data,
               const TslScanBuffer *buf,
               const char          *p,
               const char          *limit,
               gboolean            *blocked)
{
  PerfState *self = data;
  const char *base = buf->base;
  const char *end = buf->end;
  gboolean at_eof = buf->at_eof;
  guint64 *events = buf->user;

  *blocked = FALSE;
  while (p < limit)
    {
      const char *nl = memchr (p, '\n', end - p);
      const char *eol;
      const char *q;
      const char *frames;
      Header h;
      gsize line_len;
      gboolean cut;

      if (nl == NULL && !at_eof)
        {
          *blocked = TRUE;
          break;
        }
      eol = nl ? nl : end;
      line_len = eol - p;
      if (line_len > 0 && p[line_len - 1] == '\r')
        line_len--;

      if (line_len == 0 || p[0] == '#' || _tsl_perf_is_frame_line (p, line_len))
        {
          /* Blank, comment, or a frame whose header was rejected. */
          if (line_len > 0 && p[0] != '#' && !self->started && self->n_bad_headers == 0)
            self->n_orphan_frames++;
          p = nl ? nl + 1 : end;
          continue;
        }

      if (!_tsl_perf_parse_header (p, line_len, &h))
        {
          warn_bad_header (self, p - base);
          p = nl ? nl + 1 : end;
          continue;
        }

      /* Find the end of the record: a blank line, a header, or the end. */
      frames = q = nl ? nl + 1 : end;
      cut = FALSE;
      for (;;)
        {
          const char *fnl;

          if (q == end)
            {
              if (!at_eof)
                goto incomplete;
              break;
            }
          fnl = memchr (q, '\n', end - q);
          if (fnl == NULL && !at_eof)
            goto incomplete;
          if (!_tsl_perf_is_frame_line (q, (fnl ? fnl : end) - q))
            break;
          /* A stack line cut short at the end (whole ones end with the
           * ")" of their DSO, newline or not): this sample may have lost
           * frames. */
          cut = fnl == NULL && !ends_whole (q, end);
          q = fnl ? fnl + 1 : end;
        }

      if (cut)
        {
          g_autofree char *position = tsl_reader_context_position (self->ctx, p - base);

          tsl_trace_add_warning (self->trace, _("%s: the file ends inside this sample; it was dropped"),
                                 position);
          p = q;
          continue;
        }
      process_record (self, &h, frames, q);
      (*events)++;
      p = q;
      continue;

incomplete:
      *blocked = TRUE;
      break;
    }


  return p;
}

/* The end of the record whose frame lines start at q: the first line that
 * is not one, or NULL when the buffer's end may still cut it. *cut when the
 * input ends inside a frame line that does not look whole. */
static const char *
record_end (const char *q,
            const char *end,
            gboolean    at_eof,
            gboolean   *cut)
{
  *cut = FALSE;
  for (;;)
    {
      const char *fnl;

      if (q == end)
        return at_eof ? q : NULL;
      fnl = memchr (q, '\n', end - q);
      if (fnl == NULL && !at_eof)
        return NULL;
      if (!_tsl_perf_is_frame_line (q, (fnl ? fnl : end) - q))
        return q;
      *cut = fnl == NULL && !ends_whole (q, end);
      q = fnl ? fnl + 1 : end;
    }
}

static void
scan_segment (gpointer        data,
              TslScanSegment *seg,
              gpointer        scratch)
{
  const Plan *plan = data;
  TslScanItems *out = seg->result;   /* Record */
  const char *end = plan->end;
  const char *p = seg->start;

  g_array_set_size (out->items, 0);
  while (p < seg->end)
    {
      const char *nl = memchr (p, '\n', end - p);
      gsize line_len;
      Record r;
      gboolean cut;

      if (nl == NULL)
        break;   /* the reader's: at the end, or a cut line */
      line_len = nl - p;
      if (line_len > 0 && p[line_len - 1] == '\r')
        line_len--;
      if (line_len == 0 || p[0] == '#')
        {
          p = nl + 1;
          continue;
        }
      if (_tsl_perf_is_frame_line (p, line_len) || !_tsl_perf_parse_header (p, line_len, &r.h))
        break;
      r.start = p;
      r.frames = nl + 1;
      r.frames_end = record_end (r.frames, end, plan->at_eof, &cut);
      if (r.frames_end == NULL || cut)
        break;
      g_array_append_val (out->items, r);
      p = r.frames_end;
    }
  out->stop = p;
}

static const TslScanFuncs perf_scan_funcs = {
  .scan = scan_segment,
  .item_size = sizeof (Record),
};

static void
drive_plan (gpointer             data,
            const TslScanBuffer *buf)
{
  PerfState *self = data;

  self->plan.end = buf->end;
  self->plan.at_eof = buf->at_eof;
}

/* A segment's records are the ones the one-thread loop would find where it
 * starts, as finding them and parsing their headers depends on the bytes
 * alone. buf->user counts the events. */
static const char *
drive_apply (gpointer              data,
             const TslScanBuffer  *buf,
             const TslScanSegment *seg)
{
  const TslScanItems *records = seg->result;

  for (guint j = 0; j < records->items->len; j++)
    {
      Record *r = &g_array_index (records->items, Record, j);

      process_record (data, &r->h, r->frames, r->frames_end);
    }
  *(guint64 *) buf->user += records->items->len;
  return records->stop;
}

/* A regular file's buffer scanned on every core and modelled on this
 * thread in order (tsl_scan_driver_run()). */
static const TslScanDriveFuncs perf_drive_funcs = {
  .plan = drive_plan,
  .apply = drive_apply,
  .serial = parse_records,
};

static gssize
perf_parse (gpointer       data,
            const guint8  *buf,
            gsize          len,
            gboolean       at_eof,
            GError       **error)
{
  PerfState *self = data;
  const char *base = (const char *) buf;
  guint64 events = 0;
  TslScanBuffer scan = { base, base + len, at_eof, &events };
  const char *p;

  p = tsl_scan_driver_parse (self->driver, &perf_drive_funcs, self, &scan,
                             tsl_scan_driver_worth (self->driver, len));

  tsl_trace_add_events (self->trace, events);

  if (at_eof)
    {
      if (self->n_bad_headers > MAX_POS_WARNINGS)
        tsl_trace_add_warning (self->trace, _("%s: %llu lines were not perf script "
                                                 "sample headers and were skipped"),
                               tsl_reader_context_get_name (self->ctx),
                               (unsigned long long) self->n_bad_headers);
      if (self->n_orphan_frames > 0)
        tsl_trace_add_warning (self->trace, _("%s: %llu stack lines before the "
                                                 "first sample header were skipped"),
                               tsl_reader_context_get_name (self->ctx),
                               (unsigned long long) self->n_orphan_frames);
      if (self->n_missing_time > 0)
        tsl_trace_add_warning (self->trace, _("%s: %llu samples have no timestamp; "
                                                 "they were placed at the previous sample's time"),
                               tsl_reader_context_get_name (self->ctx),
                               (unsigned long long) self->n_missing_time);
      if (self->n_samples == 0)
        tsl_trace_add_warning (self->trace, _("%s: no samples in the perf script output"),
                               tsl_reader_context_get_name (self->ctx));
    }

  return p - base;
}

static gboolean
line_starts (const char *p,
             gsize       len,
             const char *prefix)
{
  gsize n = strlen (prefix);

  return len >= n && memcmp (p, prefix, n) == 0;
}

static int
perf_sniff (const guint8 *head,
            gsize         len,
            gboolean      at_eof)
{
  const char *p = (const char *) head;
  const char *end = p + len;
  guint headers = 0;
  guint frames = 0;
  guint other = 0;
  gboolean perf_header = FALSE;

  /* Comment lines (`perf script --header`) do not count against the limit. */
  for (guint lines = 0; p < end && lines < 200;)
    {
      const char *nl = memchr (p, '\n', end - p);
      gsize line_len;
      Header h;

      if (nl == NULL && !at_eof)
        break;
      line_len = (nl ? nl : end) - p;
      if (line_len > 0 && p[line_len - 1] == '\r')
        line_len--;
      if (line_len > 0 && p[0] != '#')
        lines++;

      if (line_len == 0)
        ;
      else if (p[0] == '#')
        perf_header |= line_starts (p, line_len, "# perf version") ||
                       line_starts (p, line_len, "# captured on") ||
                       line_starts (p, line_len, "# cmdline");
      else if (_tsl_perf_is_frame_line (p, line_len))
        frames++;
      else if (_tsl_perf_parse_header (p, line_len, &h))
        headers++;
      else
        other++;

      p = nl ? nl + 1 : end;
    }

  /* perf's own header and nothing else: perf script output without
   * samples, which the reader reports as such. */
  if (headers == 0 && other == 0 && frames == 0 && perf_header && (at_eof || p >= end))
    return 75;
  if (headers == 0 || other > headers)
    return 0;
  if (frames > 0 && other == 0)
    return 90;
  return other == 0 ? 70 : 40;
}

/* After a blank line: the record before it ends there when read again. A
 * sample without a time takes the previous one's, which a later read may
 * not have read: then no index. */
static TslCheckpoint
perf_checkpoint (gpointer      state,
                 const guint8 *buf,
                 gsize         consumed,
                 gsize        *back,
                 GByteArray   *saved)
{
  PerfState *self = state;

  if (self->no_time || self->n_missing_time > 0)
    return TSL_CHECKPOINT_NEVER;
  if (!self->started || consumed < 2 || buf[consumed - 1] != '\n' ||
      !(buf[consumed - 2] == '\n' || (consumed >= 3 && buf[consumed - 2] == '\r' && buf[consumed - 3] == '\n')))
    return TSL_CHECKPOINT_NOT_HERE;
  *back = 0;
  return TSL_CHECKPOINT_HERE;
}

const TslFormat tsl_format_perf_script = {
  .name = "perf-script",
  .sniff = perf_sniff,
  .create = perf_create,
  .parse = perf_parse,
  .destroy = perf_destroy,
  .checkpoint = perf_checkpoint,
};
