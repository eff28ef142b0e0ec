/* tsl-gecko-place.c: a Firefox profile's threads and counters placed on tracks
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * At a thread's end its tables are whole: each spooled sample becomes a
 * sample of the thread's sampled track (its stack root first, weighing
 * its weight or 1; a sample with a null stack is none), its CPU delta a
 * point of the thread's CPU track (percent of one core since the sample
 * before, or the raw count when the unit is CPU cycles), and each marker
 * with a start and an end a span of the thread's marker track (an
 * interval, or an interval start paired with the next end of the same
 * name). Instant markers, and starts or ends left unpaired, are not shown.
 * A counter becomes a counter track of its process: memory counters as the
 * running sum of their counts (what the profiler draws), others as given.
 */
#define G_LOG_DOMAIN "tsl-gecko-reader"

#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "tsl-gecko-private.h"
#include "tsl-time-math.h"

/* A thread being placed; while its samples go on in slices (see
 * tsl_gecko_place_some()), where the loop is. */
struct _TslGeckoPlace {
  TslGecko       *self;
  TslGeckoThread *th;
  GArray         *strings;
  gboolean        positioned;
  gsize           offset;
  char           *position;   /* the thread end's, when placed later */
  gint64          pid, tid;

  guint           track, cpu_track;
  gint64          t, prev;        /* the running time; the last placed */
  guint64         n, n_popped;
};
typedef struct _TslGeckoPlace Place;

/* Samples placed per slice, between blocks of the next thread's rows. */
#define PLACE_SLICE 256
/* A thread with fewer samples is placed at once. */
#define PLACE_LATER_MIN 4096

/* A warning about the thread: at its end's position when it is in the
 * current buffer, else with the file's name. */
static void
warn_thread (Place      *pl,
             WarnKind    kind,
             const char *format,
             ...) G_GNUC_PRINTF (3, 4);

static void
warn_thread (Place      *pl,
             WarnKind    kind,
             const char *format,
             ...)
{
  g_autofree char *message = NULL;
  va_list args;

  if (!tsl_gecko_may_warn (pl->self, kind))
    return;
  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  if (pl->position != NULL)
    tsl_trace_add_warning (pl->self->trace, "%s: %s", pl->position, message);
  else if (pl->positioned)
    tsl_gecko_warn_at (pl->self, pl->offset, "%s", message);
  else
    tsl_trace_add_warning (pl->self->trace, "%s: %s", tsl_reader_context_get_name (pl->self->ctx), message);
}

static const char *
thread_name (TslGeckoThread *th)
{
  return th->name != NULL ? th->name : "(thread)";
}

/* The interned string `index` of the thread's strings, or 0. */
static guint32
string_id (Place  *pl,
           gint64  index)
{
  if (pl->strings == NULL || index < 0 || (guint64) index >= pl->strings->len)
    return 0;
  return g_array_index (pl->strings, guint32, index);
}

static guint32
frame_name_id (Place  *pl,
               gint32  frame)
{
  TslGeckoThread *th = pl->th;
  gint64 str = -1;
  guint32 id;

  /* Processed: frame → function → name; Gecko: the frame's location. */
  if (th->func->len > 0 || th->location->len == 0)
    {
      gint32 func = frame >= 0 && (guint) frame < th->func->len ? g_array_index (th->func, gint32, frame) : -1;

      if (func >= 0 && (guint) func < th->func_name->len)
        str = g_array_index (th->func_name, gint32, func);
      else
        {
          warn_thread (pl, WARN_INDEX, _("thread %s: frame %d names no function of its %u (or is past its %u "
                                         "frames); shown as (unknown frame)"),
                       thread_name (th), frame, th->func_name->len, th->func->len);
          return pl->self->unknown_frame;
        }
    }
  else if (frame >= 0 && (guint) frame < th->location->len)
    str = g_array_index (th->location, gint32, frame);
  else
    {
      warn_thread (pl, WARN_INDEX, _("thread %s: a stack names frame %d, past its %u frames; shown as "
                                     "(unknown frame)"), thread_name (th), frame, th->location->len);
      return pl->self->unknown_frame;
    }
  id = string_id (pl, str);
  if (id == 0)
    {
      if (pl->strings != NULL)
        warn_thread (pl, WARN_INDEX, _("thread %s: frame %d names string %lld, past its %u strings; shown as "
                                       "(unknown frame)"), thread_name (th), frame, (long long) str,
                     pl->strings->len);
      return pl->self->unknown_frame;
    }
  return id;
}

static const char *
path_name (gpointer data,
           guint    i)
{
  Place *pl = data;
  GArray *path = pl->self->path;
  gint32 frame = g_array_index (path, gint32, path->len - 1 - i);

  return tsl_trace_lookup (pl->self->trace, frame_name_id (pl, frame));
}

/* Labels the kept sample with stack `stack`'s frames, root first. */
static void
label_stack (Place  *pl,
             guint   track,
             gint64  stack)
{
  TslGeckoThread *th = pl->th;
  GArray *path = pl->self->path;
  guint n = 0;

  g_array_set_size (path, 0);
  if (stack >= th->frame->len)
    {
      warn_thread (pl, WARN_INDEX, _("thread %s: a sample names stack %lld, past its %u stacks; shown as "
                                     "(unknown frame)"), thread_name (th), (long long) stack, th->frame->len);
      tsl_trace_set_label_id (pl->self->trace, track, pl->self->unknown_frame);
      return;
    }
  /* Prefixes always come before their stack (checked as they were read):
   * the walk ends. Written in place, not appended: once per kept sample
   * and frame. */
  for (gint64 s = stack; s >= 0;
       s = (guint64) s < th->prefix->len ? g_array_index (th->prefix, gint32, s) : -1)
    {
      if (n == path->len)
        g_array_set_size (path, MAX (16, 2 * n));
      ((gint32 *) path->data)[n++] = g_array_index (th->frame, gint32, s);
    }
  g_array_set_size (path, n);
  tsl_format_set_stack_label (pl->self->trace, track, pl->self->label, path->len, path_name, pl, NULL);
}

static void
samples_begin (Place *pl)
{
  TslGecko *self = pl->self;
  TslGeckoThread *th = pl->th;

  pl->track = tsl_trace_ensure_track (self->trace, TSL_TRACK_THREAD, pl->pid, pl->tid, NULL);
  tsl_trace_track_set_sampled (self->trace, pl->track, TRUE);
  if (th->has_cpu)
    {
      g_autofree char *name = g_strdup_printf ("%s (%" G_GINT64_FORMAT ") CPU", thread_name (th), pl->tid);

      pl->cpu_track = tsl_trace_ensure_track (self->trace, TSL_TRACK_COUNTER, pl->pid, pl->tid, name);
      tsl_trace_track_set_unit (self->trace, pl->cpu_track, self->cpu_is_time ? "%" : "cycles");
    }
}

static inline gboolean
pop (Place          *pl,
     TslGeckoPlaced *s)
{
  TslGeckoThread *th = pl->th;
  gint64 delta = 0, bits;

  if (!tsl_spool_pop (&th->s_stack, &s->stack))
    return FALSE;
  tsl_spool_pop (&th->s_time, &delta);
  pl->t = tsl_time_add (pl->t, delta);
  s->at = tsl_time_add (th->offset_ns, pl->t);
  s->weight = 1;
  if (th->has_weight && tsl_spool_pop (&th->s_weight, &bits) && !isnan (tsl_gecko_bits_double (bits)))
    s->weight = tsl_gecko_bits_double (bits) * th->weight_factor;
  s->cpu_ok = th->has_cpu && tsl_spool_pop (&th->s_cpu, &s->cpu) && s->cpu != TSL_GECKO_NULL;
  s->first = pl->n_popped++ == 0;
  return TRUE;
}

static inline void
apply (Place                *pl,
       const TslGeckoPlaced *s)
{
  TslGecko *self = pl->self;
  gint64 at = tsl_gecko_clamp (self, s->at);

  if (s->stack >= 0)
    {
      tsl_trace_note_time (self->trace, at);
      if (tsl_trace_offer (self->trace, pl->track, at, s->weight))
        label_stack (pl, pl->track, s->stack);
      self->n_events++;
    }
  if (s->cpu_ok && !s->first)
    {
      double cpu = (double) s->cpu;

      /* Percent of one core over the time since the sample before. */
      if (!self->cpu_is_time || at > pl->prev)
        {
          double v = self->cpu_is_time ? 100.0 * cpu * (self->cpu_is_ns ? 1 : 1000) / (double) (at - pl->prev) : cpu;

          tsl_trace_offer (self->trace, pl->cpu_track, at, v);
          self->n_events++;
        }
    }
  pl->prev = at;
  pl->n++;
}

gboolean
tsl_gecko_place_pop (TslGeckoPlace  *pl,
                     TslGeckoPlaced *s)
{
  return pop (pl, s);
}

void
tsl_gecko_place_apply (TslGeckoPlace        *pl,
                       const TslGeckoPlaced *s)
{
  apply (pl, s);
}

guint64
tsl_gecko_place_left (TslGeckoPlace *pl)
{
  return pl->th->s_stack.n_pushed - pl->n_popped;
}

/* Up to `max` more samples; FALSE once the spools are empty. */
static gboolean
samples_run (Place   *pl,
             guint64  max)
{
  TslGeckoPlaced s;

  for (guint64 i = 0; i < max; i++)
    {
      if (!pop (pl, &s))
        return FALSE;
      apply (pl, &s);
    }
  return TRUE;
}

static void
samples_end (Place *pl)
{
  TslGeckoThread *th = pl->th;

  if (th->s_time.n_pushed != th->s_stack.n_pushed)
    warn_thread (pl, WARN_VALUE, _("thread %s: %llu samples have %llu times; a sample without one is placed "
                                   "at the time of the one before it"), thread_name (th),
                 (unsigned long long) th->s_stack.n_pushed, (unsigned long long) th->s_time.n_pushed);
}

typedef struct {
  gint64  start_ns;
  guint32 name;
} OpenMarker;

static void
offer_span (Place   *pl,
            guint   *track,
            gint64   pid,
            gint64   tid,
            guint32  name,
            gint64   start,
            gint64   end,
            guint64  index)
{
  TslGecko *self = pl->self;
  TslGeckoThread *th = pl->th;

  if (end < start)
    {
      warn_thread (pl, WARN_MARKER, _("thread %s: marker %llu ends before it starts; it is not shown"),
                   thread_name (th), (unsigned long long) index);
      return;
    }
  if (*track == G_MAXUINT)
    {
      g_autofree char *track_name = g_strdup_printf ("%s (%" G_GINT64_FORMAT ") markers", thread_name (th), tid);

      *track = tsl_trace_ensure_track (self->trace, TSL_TRACK_ASYNC, pid, tid, track_name);
    }
  start = tsl_gecko_clamp (self, tsl_time_add (th->offset_ns, start));
  end = tsl_gecko_clamp (self, tsl_time_add (th->offset_ns, end));
  tsl_trace_note_time (self->trace, start);
  tsl_trace_note_time (self->trace, end);
  if (tsl_trace_offer (self->trace, *track, start, (double) (end - start)))
    tsl_trace_set_label_id (self->trace, *track, name != 0 ? name : self->unknown_frame);
  self->n_events++;
}

static void
place_markers (Place  *pl,
               gint64  pid,
               gint64  tid)
{
  TslGeckoThread *th = pl->th;
  g_autoptr (GHashTable) open = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL,
                                                       (GDestroyNotify) g_array_unref);
  guint track = G_MAXUINT;
  gint64 name;
  guint64 index = 0;

  while (tsl_spool_pop (&th->m_name, &name))
    {
      gint64 start = TSL_GECKO_NULL, end = TSL_GECKO_NULL, phase = TSL_GECKO_NULL;
      guint32 id = string_id (pl, name);
      GArray *starts;

      tsl_spool_pop (&th->m_start, &start);
      tsl_spool_pop (&th->m_end, &end);
      if (th->has_phase)
        tsl_spool_pop (&th->m_phase, &phase);
      else
        phase = start != TSL_GECKO_NULL && end != TSL_GECKO_NULL ? 1 : 0;
      switch (phase)
        {
        case 1:   /* an interval */
          if (start != TSL_GECKO_NULL && end != TSL_GECKO_NULL)
            offer_span (pl, &track, pid, tid, id, start, end, index);
          break;
        case 2:   /* an interval's start: its end comes later, by name */
          if (start == TSL_GECKO_NULL)
            break;
          starts = g_hash_table_lookup (open, GUINT_TO_POINTER (id));
          if (starts == NULL)
            {
              starts = g_array_new (FALSE, FALSE, sizeof (gint64));
              g_hash_table_insert (open, GUINT_TO_POINTER (id), starts);
            }
          g_array_append_val (starts, start);
          break;
        case 3:   /* an interval's end: the latest start of its name */
          starts = g_hash_table_lookup (open, GUINT_TO_POINTER (id));
          if (starts != NULL && starts->len > 0 && end != TSL_GECKO_NULL)
            {
              gint64 begun = g_array_index (starts, gint64, starts->len - 1);

              g_array_set_size (starts, starts->len - 1);
              offer_span (pl, &track, pid, tid, id, begun, end, index);
            }
          break;
        default:  /* instants are not shown */
          break;
        }
      index++;
    }
}

static void
place_free (Place *pl)
{
  tsl_gecko_thread_free (pl->th);
  g_free (pl->position);
  g_free (pl);
}

/* The rest of the thread, from where its samples are. */
static void
place_finish (Place *pl)
{
  TslGeckoThread *th = pl->th;

  if (th->s_stack.n_pushed > 0)
    {
      if (!tsl_gecko_place_ahead (pl->self, pl))
        samples_run (pl, G_MAXUINT64);
      samples_end (pl);
    }
  if (th->m_name.n_pushed > 0)
    place_markers (pl, pl->pid, pl->tid);
  place_free (pl);
}

/* Names the thread and opens its tracks: what comes before its samples. */
static Place *
place_begin (TslGecko       *self,
             TslGeckoThread *th,
             gboolean        positioned,
             gsize           offset)
{
  Place *pl = g_new0 (Place, 1);

  pl->self = self;
  pl->th = th;
  pl->strings = th->strings != NULL ? th->strings : self->shared_strings;
  pl->positioned = positioned;
  pl->offset = offset;
  pl->pid = th->have_pid ? th->pid : 0;
  pl->tid = th->have_tid ? th->tid : (gint64) th->index + 1;
  if (th->name == NULL)
    th->name = g_strdup_printf ("Thread %u", th->index);
  if (th->process_name != NULL && th->have_pid)
    tsl_trace_set_process_name (self->trace, pl->pid, th->process_name);
  tsl_trace_set_thread_name (self->trace, pl->pid, pl->tid, th->name);
  if (pl->strings == NULL && (th->s_stack.n_pushed > 0 || th->m_name.n_pushed > 0))
    warn_thread (pl, WARN_INDEX, _("thread %s has no string table; its frames and markers are unnamed"),
                 th->name);
  if (th->s_stack.n_pushed > 0)
    samples_begin (pl);
  return pl;
}

gboolean
tsl_gecko_place_some (TslGecko *self)
{
  Place *pl = self->placing;

  gboolean more;

  if (pl == NULL)
    return FALSE;
  self->placing_now = TRUE;
  self->n_placed_early -= pl->n;
  more = samples_run (pl, PLACE_SLICE);
  self->n_placed_early += pl->n;
  self->placing_now = FALSE;
  /* Once the samples are placed, the rest (a few markers) when settled. */
  return more;
}

void
tsl_gecko_place_drop (TslGecko *self)
{
  g_clear_pointer (&self->placing, place_free);
}

void
tsl_gecko_settle (TslGecko *self)
{
  if (self->placing != NULL)
    place_finish (g_steal_pointer (&self->placing));
}

void
tsl_gecko_thread_end (TslGecko       *self,
                      TslGeckoThread *th,
                      gsize           offset)
{
  Place *pl;

  tsl_gecko_settle (self);
  if (th->strings == NULL && self->shared_strings == NULL)
    {
      /* A processed profile whose "shared" comes after its threads: every
       * thread waits, so none keeps its spools' buffers meanwhile. */
      TslSpool *spools[] = { &th->s_stack, &th->s_time, &th->s_cpu, &th->s_weight,
                                  &th->m_name, &th->m_start, &th->m_end, &th->m_phase };

      for (guint i = 0; i < G_N_ELEMENTS (spools); i++)
        tsl_spool_park (spools[i]);
      g_ptr_array_add (self->pending, th);
      return;
    }
  pl = place_begin (self, th, TRUE, offset);
  /* With a second thread, the samples are placed while it scans the next
   * thread's rows and this one would wait (tsl-gecko-ahead.c): the trace
   * sees the same calls in the same order, as nothing else touches it
   * before they are all made (tsl_gecko_settle()). */
  if (th->s_stack.n_pushed >= PLACE_LATER_MIN &&
      tsl_reader_context_get_threads (self->ctx) != TSL_READER_THREADS_NEVER &&
      tsl_reader_context_get_n_threads (self->ctx) >= 2)
    {
      pl->position = tsl_reader_context_position (self->ctx, offset);
      self->placing = pl;
      return;
    }
  place_finish (pl);
}

void
tsl_gecko_flush_pending (TslGecko *self)
{
  tsl_gecko_settle (self);
  /* Each freed once placed: its spools' read-back blocks do not add up. */
  for (guint i = 0; i < self->pending->len; i++)
    {
      TslGeckoThread *th = g_steal_pointer (&g_ptr_array_index (self->pending, i));

      place_finish (place_begin (self, th, FALSE, 0));
    }
  g_ptr_array_set_size (self->pending, 0);
}

void
tsl_gecko_counter_place (TslGecko        *self,
                         TslGeckoCounter *c,
                         gint64           pid)
{
  gboolean memory = c->category != NULL && g_str_equal (c->category, "Memory");
  guint track;
  double sum = 0;

  tsl_gecko_settle (self);
  if (c->points->len == 0)
    return;
  track = tsl_trace_ensure_track (self->trace, TSL_TRACK_COUNTER, pid, 0, c->name != NULL ? c->name : "counter");
  if (memory)
    tsl_trace_track_set_unit (self->trace, track, "bytes");
  for (guint i = 0; i < c->points->len; i++)
    {
      CounterPoint *point = &g_array_index (c->points, CounterPoint, i);
      gint64 at;

      /* A column longer than the other gives points with a time and no
       * count, or a count and no time: neither is a point. */
      if (!point->has_time || !point->has_count || isnan (point->count))
        continue;
      sum += point->count;
      at = tsl_gecko_clamp (self, tsl_time_add (c->offset_ns, point->time_ns));
      tsl_trace_note_time (self->trace, at);
      tsl_trace_offer (self->trace, track, at, memory ? sum : point->count);
      self->n_events++;
    }
}
