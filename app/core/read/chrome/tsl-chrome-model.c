/* tsl-chrome-model.c: Chrome trace events into a TslTrace
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Thread tracks: one per (pid, tid). B/E spans nest per thread in file order;
 * X spans nest by time containment (an open X is dropped once an event on
 * its thread starts at or after its end). Counters: one track per args key.
 * Async spans (b/e, S/F): one track per (pid, category). Everything kept is
 * bounded by open spans and distinct names, never by the number of events.
 *
 * Its parts, which never call back into it: names, ids and times
 * (tsl-chrome-ids.c), flow arrows (tsl-chrome-flows.c), sampled stacks'
 * frames (tsl-chrome-frames.c) and checkpoints (tsl-chrome-checkpoint.c).
 */
#define G_LOG_DOMAIN "tsl-chrome"

#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "tsl-chrome-flows.h"
#include "tsl-chrome-ids.h"
#include "tsl-chrome-model-types.h"
#include "tsl-chrome-profile.h"
#include "tsl-format-private.h"
#include "tsl-hash.h"

typedef struct {
  gint64  pid;
  guint32 name;
  guint32 id;
  guint32 key;
  guint32 several;
} CounterKey;

typedef struct {
  gint64  pid;
  guint32 group;
  guint32 pad;
} AsyncKey;

static guint
thread_hash (gconstpointer key)
{
  const gint64 *k = key;
  guint64 h = (guint64) k[0] * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15) ^ (guint64) k[1];

  return (guint) (h ^ (h >> 32));
}

static gboolean
thread_equal (gconstpointer a,
              gconstpointer b)
{
  const gint64 *x = a, *y = b;

  return x[0] == y[0] && x[1] == y[1];
}

static guint
counter_hash (gconstpointer key)
{
  return bytes_hash (key, sizeof (CounterKey));
}

static gboolean
counter_equal (gconstpointer a,
               gconstpointer b)
{
  return memcmp (a, b, sizeof (CounterKey)) == 0;
}

static guint
async_hash (gconstpointer key)
{
  return bytes_hash (key, sizeof (AsyncKey));
}

static gboolean
async_equal (gconstpointer a,
             gconstpointer b)
{
  return memcmp (a, b, sizeof (AsyncKey)) == 0;
}

static void
thread_free (gpointer data)
{
  Thread *th = data;

  g_free (th->open);
  g_free (th);
}

void
tsl_chrome_model_init (TslChromeModel *self,
                       TslTrace       *trace)
{
  memset (self, 0, sizeof *self);
  self->trace = trace;
  self->threads = g_hash_table_new_full (thread_hash, thread_equal, NULL, thread_free);
  self->tid_pids = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  self->string_ids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->counters = g_hash_table_new_full (counter_hash, counter_equal, g_free, NULL);
  self->async_tracks = g_hash_table_new_full (async_hash, async_equal, g_free, NULL);
  self->async_open = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->async_ends = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->async_gone = g_array_new (FALSE, FALSE, sizeof (guint64));
  self->async_new = g_ptr_array_new ();
  self->frames = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, tsl_chrome_frame_free);
  self->frame_labels = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->unnamed = tsl_trace_intern (trace, "(unnamed)");
  self->names = g_new0 (TslChromeName, TSL_CHROME_NAME_CACHE);
  self->scratch = g_string_new (NULL);
  self->label = g_string_new (NULL);
  self->key = g_string_new (NULL);
}

void
tsl_chrome_model_clear (TslChromeModel *self)
{
  g_clear_pointer (&self->threads, g_hash_table_unref);
  g_clear_pointer (&self->folded_thread, thread_free);
  g_clear_pointer (&self->tid_pids, g_hash_table_unref);
  g_clear_pointer (&self->string_ids, g_hash_table_unref);
  g_clear_pointer (&self->counters, g_hash_table_unref);
  g_clear_pointer (&self->async_tracks, g_hash_table_unref);
  if (self->async_new != NULL)
    tsl_chrome_async_drop_new (self);
  g_clear_pointer (&self->async_new, g_ptr_array_unref);
  g_clear_pointer (&self->async_open, g_hash_table_unref);
  g_clear_pointer (&self->async_ends, g_hash_table_unref);
  g_clear_pointer (&self->async_gone, g_array_unref);
  g_clear_pointer (&self->frames, g_hash_table_unref);
  g_clear_pointer (&self->frame_labels, g_hash_table_unref);
  _tsl_chrome_profiles_free (self);
  g_clear_pointer (&self->names, g_free);
  g_clear_pointer (&self->pending_flows, g_array_unref);
  if (self->scratch != NULL)
    g_string_free (self->scratch, TRUE);
  if (self->label != NULL)
    g_string_free (self->label, TRUE);
  if (self->key != NULL)
    g_string_free (self->key, TRUE);
  self->scratch = self->label = self->key = NULL;
}

static Thread *
get_thread (TslChromeModel *self,
            gint64          pid,
            gint64          tid)
{
  Thread *th = self->last_thread;
  gint64 key[2] = { pid, tid };

  if (th != NULL && th->pid == pid && th->tid == tid)
    return th;
  th = g_hash_table_lookup (self->threads, key);
  if (th == NULL)
    {
      guint track = tsl_trace_ensure_track (self->trace, TSL_TRACK_THREAD, pid, tid, NULL);

      /* Past the memory budget, nothing is kept per thread: the folded ones
       * share one Thread (their spans nest as if on one thread), which
       * takes the ids of the last one so a run of its events skips this. */
      if (tsl_trace_track_is_folded (self->trace, track))
        {
          if (self->folded_thread == NULL)
            {
              self->folded_thread = g_new0 (Thread, 1);
              ((Thread *) self->folded_thread)->track = track;
              tsl_trace_track_set_unit (self->trace, track, "ns");
            }
          th = self->folded_thread;
          th->pid = pid;
          th->tid = tid;
          self->last_thread = th;
          return th;
        }

      th = g_new0 (Thread, 1);
      th->pid = pid;
      th->tid = tid;
      th->track = track;
      /* Span values are durations: the timeline draws them to scale. */
      tsl_trace_track_set_unit (self->trace, th->track, "ns");
      g_hash_table_insert (self->threads, th, th);
      if (!g_hash_table_contains (self->tid_pids, &tid))
        g_hash_table_insert (self->tid_pids, g_memdup2 (&tid, sizeof tid),
                             g_memdup2 (&pid, sizeof pid));
    }
  self->last_thread = th;
  return th;
}

/* X spans that ended before `ts` (or start after it: the file is not sorted)
 * no longer contain what comes next. */
static void
pop_ended (Thread *th,
           gint64  ts)
{
  while (th->n_open > 0)
    {
      const OpenSpan *top = &th->open[th->n_open - 1];

      if (top->end_ns == SPAN_OPEN || (top->end_ns > ts && ts >= top->start_ns))
        break;
      th->n_open--;
    }
}

typedef struct {
  TslTrace *trace;
  Thread   *th;
} OpenSpans;

static const char *
open_span_name (gpointer data,
                guint    i)
{
  OpenSpans *open = data;

  return tsl_trace_lookup (open->trace, open->th->open[i].name);
}

/* The stack to an observer that takes it as name ids. TRUE when the label
 * is still needed. */
static gboolean
set_names (TslChromeModel *self,
           Thread         *th,
           guint           depth,
           guint32         leaf)
{
  guint32 names[128];
  guint n = depth + (leaf != 0);

  if (n > G_N_ELEMENTS (names))
    return TRUE;
  for (guint i = 0; i < depth; i++)
    names[i] = th->open[i].name;
  if (leaf != 0)
    names[depth] = leaf;
  return tsl_trace_set_label_names (self->trace, th->track, names, n);
}

/* The label of a kept sample: open span names, root first, then `leaf`. */
static void
set_stack_label (TslChromeModel *self,
                 Thread         *th,
                 guint           depth,
                 guint32         leaf)
{
  OpenSpans open = { self->trace, th };

  if (G_UNLIKELY (tsl_trace_wants_names (self->trace)) && !set_names (self, th, depth, leaf))
    return;

  tsl_format_set_stack_label (self->trace, th->track, self->label, depth, open_span_name, &open,
                              leaf != 0 ? tsl_trace_lookup (self->trace, leaf) : NULL);
}

/* Where the event sits in the input, or -1: what a slice's details are
 * read from (tsl-event-details.h). */
static inline gint64
event_offset (TslChromeModel       *self,
              const TslChromeEvent *ev)
{
  return G_UNLIKELY (self->want_offsets) ? self->offset_base + (ev->start - self->offset_buf) : -1;
}

/* A thread clock: a 'B' span's always (a checkpoint saves it), an 'X'
 * event's `tdur` only while someone wants CPU time (an exact view, a range
 * read), so the hot path of a plain read mostly just routes the members. */
static gint64
thread_clock (const TslChromeEvent *ev)
{
  gint64 ns;

  if (ev->tts.type == TSL_JSON_NONE || !tsl_json_value_get_us_as_ns (&ev->tts, &ns))
    return NO_TTS;
  return ns;
}

static void
complete_cpu (TslChromeModel       *self,
              const TslChromeEvent *ev)
{
  gint64 ns;

  if (!tsl_json_value_get_us_as_ns (&ev->tdur, &ns) || ns < 0)
    {
      tsl_trace_add_warning (self->trace,
                             _("ignored the \"tdur\" of an 'X' event: not a number in range"));
      return;
    }
  tsl_trace_set_event_cpu (self->trace, (double) ns);
}

/* A B/E pair's CPU time: the difference of their thread clocks. */
static void
pair_cpu (TslChromeModel *self,
          gint64          begin,
          gint64          end)
{
  gint64 ns;

  if (begin == NO_TTS || end == NO_TTS)
    return;
  if (__builtin_sub_overflow (end, begin, &ns) || ns < 0)
    {
      tsl_trace_add_warning (self->trace,
                             _("ignored the thread time of a 'B'/'E' pair: its \"tts\" went backwards"));
      return;
    }
  tsl_trace_set_event_cpu (self->trace, (double) ns);
}

static void
thread_event (TslChromeModel       *self,
              const TslChromeEvent *ev,
              char                  ph)
{
  gint64 pid, tid, ts;
  Thread *th;

  if (!_tsl_chrome_get_ts (self, ev, &ts) || !_tsl_chrome_get_ids (self, ev, &pid, &tid))
    return;
  th = get_thread (self, pid, tid);
  /* B and E are offered with the B's offset, when the E arrives. */
  if (G_UNLIKELY (self->want_offsets) && ph != 'E' && ph != 'B')
    tsl_trace_set_event_offset (self->trace, event_offset (self, ev));

  switch (ph)
    {
    case 'B':
      {
        guint32 name = tsl_chrome_model_intern (self, &ev->name);

        pop_ended (th, ts);
        tsl_trace_note_time (self->trace, ts);
        if (G_UNLIKELY (ev->bind_id.type != TSL_JSON_NONE))
          _tsl_chrome_slice_flow (self, ev, th, ts, th->n_open);
        /* Its thread clock even when no CPU time is wanted: a checkpoint
         * saves it, and a range read starting there gives the span the
         * CPU time a whole read gives it. */
        if (!_tsl_chrome_push_span (th, ts, SPAN_OPEN, event_offset (self, ev), thread_clock (ev), name))
          {
            th->overflow++;
            tsl_trace_add_warning (self->trace, _("spans nested deeper than %d levels were shown flat"),
                                   MAX_DEPTH);
            if (G_UNLIKELY (self->want_offsets))
              tsl_trace_set_event_offset (self->trace, event_offset (self, ev));
            if (tsl_trace_offer (self->trace, th->track, ts, NAN))
              set_stack_label (self, th, th->n_open, name);
          }
        break;
      }

    case 'E':
      {
        guint i = th->n_open;
        gint64 dur;

        tsl_trace_note_time (self->trace, ts);
        if (th->overflow > 0)
          {
            th->overflow--;
            break;
          }
        while (i > 0 && th->open[i - 1].end_ns != SPAN_OPEN)
          i--;
        if (i == 0)
          {
            tsl_trace_add_warning (self->trace, _("ignored an 'E' event without a matching 'B'"));
            break;
          }
        /* Offered now, at the span's start, so it carries its duration.
         * One longer than a gint64 holds (±9.2e9 s ends) has none. */
        if (__builtin_sub_overflow (ts, th->open[i - 1].start_ns, &dur))
          {
            tsl_trace_add_warning (self->trace,
                                   _("ignored the duration of a 'B'/'E' pair: longer than 292 years"));
            dur = -1;
          }
        if (G_UNLIKELY (self->want_offsets))
          tsl_trace_set_event_offset (self->trace, th->open[i - 1].offset);
        if (G_UNLIKELY (self->want_cpu))
          pair_cpu (self, th->open[i - 1].tts, thread_clock (ev));
        if (tsl_trace_offer (self->trace, th->track, th->open[i - 1].start_ns,
                             dur >= 0 ? (double) dur : NAN))
          set_stack_label (self, th, i, 0);
        th->n_open = i - 1;
        break;
      }

    case 'X':
      {
        guint32 name = tsl_chrome_model_intern (self, &ev->name);
        gint64 dur = -1;
        gboolean pushed = FALSE;

        if (ev->dur.type != TSL_JSON_NONE &&
            (!tsl_json_value_get_us_as_ns (&ev->dur, &dur) || dur < 0 || ts > G_MAXINT64 - dur))
          {
            tsl_trace_add_warning (self->trace,
                                   _("ignored the \"dur\" of an 'X' event: not a number in range"));
            dur = -1;
          }
        pop_ended (th, ts);
        if (G_UNLIKELY (ev->bind_id.type != TSL_JSON_NONE))
          _tsl_chrome_slice_flow (self, ev, th, ts, th->n_open);
        if (dur > 0)
          pushed = _tsl_chrome_push_span (th, ts, ts + dur, -1, NO_TTS, name);
        if (G_UNLIKELY (self->want_cpu) && ev->tdur.type != TSL_JSON_NONE)
          complete_cpu (self, ev);
        if (tsl_trace_offer (self->trace, th->track, ts, dur >= 0 ? (double) dur : NAN))
          set_stack_label (self, th, th->n_open, pushed ? 0 : name);
        if (dur > 0)
          tsl_trace_note_time (self->trace, ts + dur);
        break;
      }

    case 'P':
      if (tsl_trace_offer (self->trace, th->track, ts, NAN))
        tsl_trace_set_label_id (self->trace, th->track, tsl_chrome_model_sample_label (self, ev));
      break;

    default: /* instants: i, I, R */
      pop_ended (th, ts);
      if (tsl_trace_offer (self->trace, th->track, ts, NAN))
        set_stack_label (self, th, th->n_open, tsl_chrome_model_intern (self, &ev->name));
      break;
    }
}

static guint
counter_track (TslChromeModel     *self,
               gint64              pid,
               guint32             name,
               guint32             id,
               const TslJsonValue *arg,
               gboolean            several)
{
  CounterKey key = { pid, name, id, 0, several };
  gpointer found;
  guint track;

  key.key = several ? tsl_chrome_model_intern (self, arg) : 0;
  found = g_hash_table_lookup (self->counters, &key);
  if (found != NULL)
    return GPOINTER_TO_UINT (found) - 1;

  g_string_assign (self->label, tsl_trace_lookup (self->trace, name));
  if (id != 0)
    g_string_append_printf (self->label, "[%s]", tsl_trace_lookup (self->trace, id));
  if (several)
    {
      g_string_append_c (self->label, '.');
      g_string_append (self->label, tsl_trace_lookup (self->trace, key.key));
    }
  track = tsl_trace_ensure_track (self->trace, TSL_TRACK_COUNTER, pid, 0, self->label->str);
  if (!tsl_trace_track_is_folded (self->trace, track))
    g_hash_table_insert (self->counters, g_memdup2 (&key, sizeof key), GUINT_TO_POINTER (track + 1));
  return track;
}

/* Each numeric member of args is a series: "NAME", or "NAME.key" when the
 * event has several. Scanned without a DOM: counters need every value. */
static void
counter_event (TslChromeModel       *self,
               const TslChromeEvent *ev)
{
  TslJsonIter iter;
  TslJsonValue key, value;
  TslJsonError error;
  gint64 pid, tid, ts;
  guint32 name, id = 0;
  guint n_numeric = 0;
  double v;

  if (!_tsl_chrome_get_ts (self, ev, &ts) || !_tsl_chrome_get_ids (self, ev, &pid, &tid))
    return;
  if (ev->args.type != TSL_JSON_OBJECT)
    {
      tsl_trace_add_warning (self->trace, _("ignored a 'C' event without an \"args\" object"));
      return;
    }
  tsl_json_iter_init (&iter, ev->args.p, ev->args.p + ev->args.len);
  while (tsl_json_iter_next_member (&iter, &key, &value, &error) == TSL_JSON_OK)
    if (tsl_json_value_get_double (&value, &v))
      n_numeric++;
  if (n_numeric == 0)
    {
      tsl_trace_add_warning (self->trace, _("ignored a 'C' event without numeric values"));
      return;
    }

  name = tsl_chrome_model_intern (self, &ev->name);
  if (ev->id.type == TSL_JSON_STRING || ev->id.type == TSL_JSON_NUMBER)
    id = tsl_chrome_model_intern (self, &ev->id);
  tsl_trace_note_time (self->trace, ts);
  tsl_json_iter_init (&iter, ev->args.p, ev->args.p + ev->args.len);
  while (tsl_json_iter_next_member (&iter, &key, &value, &error) == TSL_JSON_OK)
    {
      guint track;

      if (!tsl_json_value_get_double (&value, &v))
        {
          tsl_trace_add_warning (self->trace, _("ignored a non-numeric counter value"));
          continue;
        }
      track = counter_track (self, pid, name, id, &key, n_numeric > 1);
      tsl_trace_offer (self->trace, track, ts, v);
    }
}

static void
metadata_event (TslChromeModel       *self,
                const TslChromeEvent *ev)
{
  TslJsonValue value;
  gint64 pid, tid, index;
  gboolean is_process;

  if (ev->name.type != TSL_JSON_STRING || !_tsl_chrome_get_ids (self, ev, &pid, &tid))
    return;
  is_process = ev->name.len > 8 && memcmp (ev->name.p, "process_", 8) == 0;

  if (TSL_JSON_KEY_IS (&ev->name, "process_name") || TSL_JSON_KEY_IS (&ev->name, "thread_name"))
    {
      g_autofree char *name = NULL;
      const char *s;
      gsize len;

      if (!tsl_json_find_member (&ev->args, "name", &value) || value.type != TSL_JSON_STRING)
        return;
      s = tsl_json_value_get_string (&value, self->scratch, &len);
      name = g_strndup (s, len);
      if (is_process)
        tsl_trace_set_process_name (self->trace, pid, name);
      else
        tsl_trace_set_thread_name (self->trace, pid, tid, name);
    }
  else if (TSL_JSON_KEY_IS (&ev->name, "process_sort_index") ||
           TSL_JSON_KEY_IS (&ev->name, "thread_sort_index"))
    {
      if (!tsl_json_find_member (&ev->args, "sort_index", &value) ||
          !tsl_json_value_get_int64 (&value, &index) || index < G_MININT || index > G_MAXINT)
        return;
      if (is_process)
        tsl_trace_set_process_sort_index (self->trace, pid, (int) index);
      else
        tsl_trace_set_thread_sort_index (self->trace, pid, tid, (int) index);
    }
}

static guint
async_track (TslChromeModel *self,
             gint64          pid,
             guint32         group)
{
  AsyncKey key = { pid, group, 0 };
  gpointer found = g_hash_table_lookup (self->async_tracks, &key);
  guint track;

  if (found != NULL)
    return GPOINTER_TO_UINT (found) - 1;
  track = tsl_trace_ensure_track (self->trace, TSL_TRACK_ASYNC, pid, 0,
                                  tsl_trace_lookup (self->trace, group));
  tsl_trace_track_set_unit (self->trace, track, "ns");
  if (!tsl_trace_track_is_folded (self->trace, track))
    g_hash_table_insert (self->async_tracks, g_memdup2 (&key, sizeof key),
                         GUINT_TO_POINTER (track + 1));
  return track;
}

/* b/e (nestable) and S/T/F (legacy) pair by (category, name, id); a span is
 * offered at its end, at its start time, with its duration. */
static void
async_event (TslChromeModel       *self,
             const TslChromeEvent *ev,
             char                  ph)
{
  const TslJsonValue *id = ev->id.type != TSL_JSON_NONE ? &ev->id : &ev->id2;
  gint64 pid, tid, ts;
  guint32 name, group;
  guint track;
  TslChromeAsync *open;

  if (!_tsl_chrome_get_ts (self, ev, &ts) || !_tsl_chrome_get_ids (self, ev, &pid, &tid))
    return;
  name = tsl_chrome_model_intern (self, &ev->name);
  group = ev->cat.type == TSL_JSON_STRING && ev->cat.len > 0
    ? tsl_chrome_model_intern (self, &ev->cat)
    : name;
  track = async_track (self, pid, group);
  tsl_trace_note_time (self->trace, ts);

  if (ph == 'n' || ph == 'T' || ph == 'p')
    {
      if (tsl_trace_offer (self->trace, track, ts, NAN))
        tsl_trace_set_label_id (self->trace, track, name);
      return;
    }

  /* Ids are global unless id2 says "local": a begin in one process may end
   * in another. */
  g_string_printf (self->key, "%u:%u:", group, name);
  if (id == &ev->id2 && id->type == TSL_JSON_OBJECT &&
      g_strstr_len (id->p, id->len, "\"local\"") != NULL)
    g_string_append_printf (self->key, "%" G_GINT64_FORMAT ":", pid);
  if (id->type != TSL_JSON_NONE)
    g_string_append_len (self->key, id->p, id->len);
  if (ph == 'b' || ph == 'S')
    {
      /* The file is not sorted: its end may have come first. */
      open = g_hash_table_lookup (self->async_ends, self->key->str);
      if (open != NULL && open->start_ns >= ts)
        {
          if (tsl_trace_offer (self->trace, track, ts, (double) (open->start_ns - ts)))
            tsl_trace_set_label_id (self->trace, track, name);
          tsl_chrome_async_forget (self, self->async_ends, self->key->str);
          return;
        }
      tsl_chrome_async_remember (self, self->async_open, self->key->str, ts, track, name);
      return;
    }

  open = g_hash_table_lookup (self->async_open, self->key->str);
  if (open == NULL)
    {
      tsl_chrome_async_remember (self, self->async_ends, self->key->str, ts, track, name);
      return;
    }
  if (tsl_trace_offer (self->trace, open->track, open->start_ns,
                       ts >= open->start_ns ? (double) (ts - open->start_ns) : NAN))
    tsl_trace_set_label_id (self->trace, open->track, name);
  tsl_chrome_async_forget (self, self->async_open, self->key->str);
}

void
tsl_chrome_model_event (TslChromeModel       *self,
                        const TslChromeEvent *ev)
{
  char ph;

  if (ev->ph.type != TSL_JSON_STRING || ev->ph.len != 1)
    {
      if (ev->ph.type == TSL_JSON_NONE)
        tsl_trace_add_warning (self->trace, _("ignored an event without \"ph\""));
      else
        tsl_trace_add_warning (self->trace, _("unknown phase '%.*s'"),
                               (int) MIN (ev->ph.len, 16), ev->ph.p);
      return;
    }

  switch ((ph = ev->ph.p[0]))
    {
    case 'P':
      /* Embedded V8 CPU profiles; any other 'P' is a sample of its own. */
      if (!_tsl_chrome_profile_event (self, ev))
        thread_event (self, ev, ph);
      break;
    case 'B': case 'E': case 'X': case 'i': case 'I': case 'R':
      thread_event (self, ev, ph);
      break;
    case 'C':
      counter_event (self, ev);
      break;
    case 'M':
      metadata_event (self, ev);
      break;
    case 'b': case 'e': case 'n': case 'S': case 'T': case 'p': case 'F':
      async_event (self, ev, ph);
      break;
    case 's': case 't': case 'f':
      _tsl_chrome_flow_event (self, ev, ph);
      break;
    /* Objects, memory dumps, clock syncs, contexts: counted only. */
    case 'N': case 'O': case 'D':
    case 'V': case 'v': case 'c': case '(': case ')':
      break;
    default:
      if (g_ascii_isprint (ph))
        tsl_trace_add_warning (self->trace, _("unknown phase '%c'"), ph);
      else
        tsl_trace_add_warning (self->trace, _("unknown phase '\\x%02x'"), (guchar) ph);
      break;
    }
}

void
tsl_chrome_model_sample (TslChromeModel       *self,
                         const TslChromeEvent *ev)
{
  gint64 pid = 0, tid, ts;
  Thread *th;

  if (!_tsl_chrome_get_ts (self, ev, &ts) || !_tsl_chrome_resolve_id (self, &ev->tid, TRUE, 0, &tid))
    return;
  if (ev->pid.type != TSL_JSON_NONE)
    {
      if (!_tsl_chrome_get_ids (self, ev, &pid, &tid))
        return;
    }
  else
    {
      gint64 *known = g_hash_table_lookup (self->tid_pids, &tid);

      pid = known != NULL ? *known : 0;
    }
  th = get_thread (self, pid, tid);
  if (tsl_trace_offer (self->trace, th->track, ts, NAN))
    tsl_trace_set_label_id (self->trace, th->track, tsl_chrome_model_sample_label (self, ev));
}

/* Offers the B spans still open at the end, lasting to the trace's end;
 * returns how many. */
static guint
close_spans (TslChromeModel *self,
             Thread         *th)
{
  guint unclosed = 0;

  while (th->n_open > 0)
    {
      const OpenSpan *top = &th->open[th->n_open - 1];

      if (top->end_ns == SPAN_OPEN)
        {
          unclosed++;
          if (G_UNLIKELY (self->want_offsets))
            tsl_trace_set_event_offset (self->trace, top->offset);
          if (tsl_trace_offer_open (self->trace, th->track, top->start_ns))
            set_stack_label (self, th, th->n_open, 0);
        }
      th->n_open--;
    }
  return unclosed;
}

void
tsl_chrome_model_finish (TslChromeModel *self)
{
  GHashTableIter iter;
  gpointer value;
  guint unclosed = 0;
  guint async_unclosed = 0;
  guint async_unopened;

  _tsl_chrome_profiles_finish (self);
  g_hash_table_iter_init (&iter, self->threads);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    unclosed += close_spans (self, value);
  if (self->folded_thread != NULL)
    unclosed += close_spans (self, self->folded_thread);
  _tsl_chrome_record_pending_flows (self);

  /* By serial: a range read restores them in another hash order. */
  {
    g_autoptr(GPtrArray) opens = tsl_chrome_async_sorted (self->async_open);

    for (guint i = 0; i < opens->len; i++)
      {
        const TslChromeAsync *open = g_ptr_array_index (opens, i);

        async_unclosed++;
        if (tsl_trace_offer_open (self->trace, open->track, open->start_ns))
          tsl_trace_set_label_id (self->trace, open->track, open->name);
      }
  }
  tsl_chrome_async_drop_new (self);
  g_hash_table_remove_all (self->async_open);
  async_unopened = g_hash_table_size (self->async_ends);
  g_hash_table_remove_all (self->async_ends);

  if (unclosed > 0)
    tsl_trace_add_warning (self->trace,
                           g_dngettext (GETTEXT_PACKAGE,
                                        "%u 'B' span had no 'E' and was closed at the end of the trace",
                                        "%u 'B' spans had no 'E' and were closed at the end of the trace",
                                        unclosed),
                           unclosed);
  if (async_unclosed > 0)
    tsl_trace_add_warning (self->trace,
                           g_dngettext (GETTEXT_PACKAGE,
                                        "%u async span had no end and was closed at the end of the trace",
                                        "%u async spans had no end and were closed at the end of the trace",
                                        async_unclosed),
                           async_unclosed);
  if (async_unopened > 0)
    tsl_trace_add_warning (self->trace,
                           g_dngettext (GETTEXT_PACKAGE, "ignored %u async end event without a begin",
                                        "ignored %u async end events without a begin", async_unopened),
                           async_unopened);
}
