/* tsl-perfetto-tracks.c: the tracks and names Perfetto's descriptors declare
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * TrackDescriptors (thread, counter and async tracks, and the process and
 * thread they name), the legacy ProcessDescriptor and ThreadDescriptor
 * packets and ProcessTree: once per track or process, off the path of
 * every event (tsl-perfetto-model.c).
 */
#define G_LOG_DOMAIN "tsl-perfetto"

#define _GNU_SOURCE   /* memrchr */

#include "config.h"

#include <string.h>

#include "tsl-perfetto-id-map.h"
#include "tsl-perfetto-track-table.h"
#include "tsl-perfetto-tracks.h"
#include "tsl-proto.h"

static guint32
intern_field (TslPerfettoModel    *self,
              const TslProtoField *f)
{
  if (f->wire != TSL_PROTO_LEN || f->len == 0)
    return 0;
  return tsl_trace_intern_len (self->trace, (const char *) f->data, f->len);
}

/* The last path component of a command line's first word (Chrome writes
 * the whole command line as one string). */
static guint32
intern_cmdline (TslPerfettoModel    *self,
                const TslProtoField *f)
{
  const char *s = (const char *) f->data;
  gsize len = f->len;
  const char *slash, *space;

  if (f->wire != TSL_PROTO_LEN || len == 0)
    return 0;
  space = memchr (s, ' ', len);
  if (space != NULL && space > s)
    len = space - s;
  slash = memrchr (s, '/', len);
  if (slash != NULL && slash + 1 < s + len)
    {
      len -= slash + 1 - s;
      s = slash + 1;
    }
  return tsl_trace_intern_len (self->trace, s, len);
}

static void
set_process_name (TslPerfettoModel *self,
                  gint64            pid,
                  guint32           name)
{
  const char *old;

  if (name == 0)
    return;
  old = tsl_trace_get_process_name (self->trace, pid);
  if (old == NULL || strcmp (old, tsl_trace_lookup (self->trace, name)) != 0)
    tsl_trace_set_process_name (self->trace, pid, tsl_trace_lookup (self->trace, name));
}

/* A name made from the command line only names a process nobody named. */
static void
set_process_fallback_name (TslPerfettoModel *self,
                           gint64            pid,
                           guint32           name)
{
  if (tsl_trace_get_process_name (self->trace, pid) == NULL)
    set_process_name (self, pid, name);
}

/* Chrome describes a renderer again with its whole command line as
 * process_name (and what it shows as process_labels): a label of 600
 * characters that says less than "Renderer", which Perfetto's UI and
 * Chrome's JSON export show. */
static gboolean
is_command_line (const TslProtoField *name,
                 const TslProtoField *cmdline)
{
  const char *s = (const char *) name->data;

  if (name->wire != TSL_PROTO_LEN || name->len == 0)
    return FALSE;
  if (cmdline != NULL && cmdline->len == name->len && memcmp (cmdline->data, name->data, name->len) == 0)
    return TRUE;
  return s[0] == '/' && memmem (s, name->len, " --", 3) != NULL;
}

/* Descriptors are written again after every incremental-state reset: the
 * same name again is no change. */
static void
set_thread_name (TslPerfettoModel *self,
                 gint64            pid,
                 gint64            tid,
                 guint32           name)
{
  const char *old = tsl_trace_get_thread_name (self->trace, pid, tid);
  const char *now = tsl_trace_lookup (self->trace, name);

  if (old == NULL || strcmp (old, now) != 0)
    tsl_trace_set_thread_name (self->trace, pid, tid, now);
}

void
_tsl_perfetto_process_descriptor (TslPerfettoModel *self,
                                  const guint8     *data,
                                  gsize             len,
                                  gint64           *pid_out)
{
  /* Chrome's process types, named as its JSON export names them. */
  static const char *const chrome_types[] = {
    NULL, "Browser", "Renderer", "Utility", "Zygote", "SandboxHelper", "GPU Process",
    "PPAPI Plugin", "PPAPI Broker",
  };
  TslProtoCursor c;
  TslProtoField f, first_cmdline = { 0 }, process_name = { 0 };
  gint64 pid = 0;
  guint32 name = 0, cmdline = 0, type = 0;

  tsl_proto_cursor_init (&c, data, len);
  while (tsl_proto_next (&c, &f) == TSL_PROTO_OK)
    {
      if (f.number == 1 && f.wire == TSL_PROTO_VARINT)
        pid = (gint32) f.value;
      else if (f.number == 6)
        process_name = f;
      else if (f.number == 2 && cmdline == 0)
        {
          first_cmdline = f;
          cmdline = intern_cmdline (self, &f);
        }
      else if (f.number == 4 && f.wire == TSL_PROTO_VARINT && f.value < G_N_ELEMENTS (chrome_types) &&
               chrome_types[f.value] != NULL)
        type = tsl_trace_intern (self->trace, chrome_types[f.value]);
    }
  if (!is_command_line (&process_name, cmdline != 0 ? &first_cmdline : NULL))
    name = intern_field (self, &process_name);
  if (name != 0 || type != 0)
    set_process_name (self, pid, name != 0 ? name : type);
  else
    set_process_fallback_name (self, pid, cmdline);
  if (pid_out != NULL)
    *pid_out = pid;
}

static guint32
thread_descriptor (TslPerfettoModel *self,
                   const guint8     *data,
                   gsize             len,
                   gint64           *pid,
                   gint64           *tid,
                   gint64           *ref_us)
{
  TslProtoCursor c;
  TslProtoField f;
  guint32 name = 0;

  *pid = *tid = 0;
  tsl_proto_cursor_init (&c, data, len);
  while (tsl_proto_next (&c, &f) == TSL_PROTO_OK)
    {
      if (f.number == 1 && f.wire == TSL_PROTO_VARINT)
        *pid = (gint32) f.value;
      else if (f.number == 2 && f.wire == TSL_PROTO_VARINT)
        *tid = (gint64) f.value;
      else if (f.number == 5)
        name = intern_field (self, &f);
      else if (f.number == 6 && f.wire == TSL_PROTO_VARINT && ref_us != NULL)
        *ref_us = (gint64) f.value;
    }
  if (name != 0)
    set_thread_name (self, *pid, *tid, name);
  return name;
}

static void
counter_descriptor (TslPerfettoModel *self,
                    Track            *track,
                    const guint8     *data,
                    gsize             len)
{
  static const char *const units[] = { NULL, "ns", "count", "bytes" };
  TslProtoCursor c;
  TslProtoField f;

  tsl_proto_cursor_init (&c, data, len);
  while (tsl_proto_next (&c, &f) == TSL_PROTO_OK)
    {
      if (f.number == 3 && f.wire == TSL_PROTO_VARINT && f.value < G_N_ELEMENTS (units) &&
          units[f.value] != NULL)
        track->unit = tsl_trace_intern (self->trace, units[f.value]);
      else if (f.number == 6 && f.wire == TSL_PROTO_LEN)
        track->unit = intern_field (self, &f);
      else if (f.number == 4 && f.wire == TSL_PROTO_VARINT && (gint64) f.value != 0)
        track->mult = (double) (gint64) f.value;
      else if (f.number == 5 && f.wire == TSL_PROTO_VARINT)
        track->incremental = f.value != 0;
      else if (f.number == 1 && f.wire == TSL_PROTO_VARINT)
        track->thread_time = f.value == 1 || f.value == 2;
    }
}

/* What a descriptor sets (not the open slices or a counter's value). */
static gboolean
same_track (const Track *a,
            const Track *b)
{
  return a->parent == b->parent && a->has_parent == b->has_parent && a->kind == b->kind &&
         a->pid == b->pid && a->tid == b->tid && a->name == b->name &&
         a->thread_name == b->thread_name && a->process_name == b->process_name &&
         a->incremental == b->incremental && a->thread_time == b->thread_time &&
         a->mult == b->mult && a->unit == b->unit && a->has_ts_track == b->has_ts_track;
}

void
_tsl_perfetto_track_descriptor (TslPerfettoModel *self,
                                const guint8     *data,
                                gsize             len)
{
  TslProtoCursor c;
  TslProtoField f;
  Track *track;
  guint64 uuid = 0;
  const guint8 *process = NULL, *thread = NULL, *counter = NULL;
  gsize process_len = 0, thread_len = 0, counter_len = 0;
  guint32 name = 0;
  gboolean has_parent = FALSE;
  guint64 parent = 0;
  Track before;

  tsl_proto_cursor_init (&c, data, len);
  while (tsl_proto_next (&c, &f) == TSL_PROTO_OK)
    {
      switch (f.number)
        {
        case 1:
          if (f.wire == TSL_PROTO_VARINT)
            uuid = f.value;
          break;
        case 5:
          if (f.wire == TSL_PROTO_VARINT)
            {
              has_parent = TRUE;
              parent = f.value;
            }
          break;
        case 2: case 10: case 13:
          name = intern_field (self, &f);
          break;
        case 3:
          if (f.wire == TSL_PROTO_LEN)
            process = f.data, process_len = f.len;
          break;
        case 4:
          if (f.wire == TSL_PROTO_LEN)
            thread = f.data, thread_len = f.len;
          break;
        case 8:
          if (f.wire == TSL_PROTO_LEN)
            counter = f.data, counter_len = f.len;
          break;
        default:
          break;
        }
    }

  track = _tsl_perfetto_lookup_track (self, uuid, TRUE);
  before = *track;
  track->has_parent = has_parent && parent != uuid;
  track->parent = parent;
  if (name != 0)
    track->name = name;
  if (thread != NULL)
    {
      gint64 pid, tid;

      guint32 thread_name = thread_descriptor (self, thread, thread_len, &pid, &tid, NULL);

      if (thread_name != 0)
        track->thread_name = thread_name;
      else if (name != 0 && track->thread_name == 0)
        set_thread_name (self, pid, tid, name);
      /* Described again, as another thread, or only now: later events go
       * to the thread's track. */
      if (track->kind != TRACK_THREAD || track->pid != pid || track->tid != tid)
        track->has_ts_track = FALSE;
      track->kind = TRACK_THREAD;
      track->pid = pid;
      track->tid = tid;
    }
  else if (process != NULL)
    {
      track->kind = TRACK_PROCESS;
      _tsl_perfetto_process_descriptor (self, process, process_len, &track->pid);
      if (name != 0 && tsl_trace_get_process_name (self->trace, track->pid) == NULL)
        set_process_name (self, track->pid, name);
    }
  else if (counter != NULL)
    {
      if (track->kind != TRACK_COUNTER)
        track->has_ts_track = FALSE;
      track->kind = TRACK_COUNTER;
      counter_descriptor (self, track, counter, counter_len);
      if (track->has_ts_track && track->unit != 0 && track->unit != before.unit)
        tsl_trace_track_set_unit (self->trace, track->ts_track,
                                  tsl_trace_lookup (self->trace, track->unit));
    }
  else if (track->kind == TRACK_UNDESCRIBED)
    {
      track->kind = TRACK_ASYNC;
      track->has_ts_track = FALSE;
    }
  if (!same_track (&before, track))
    note_change (self);
}

/* An async track no descriptor named is called after its first named
 * event in the file, as Perfetto's trace processor names it after the event
 * that makes it: Chrome's hundreds of anonymous tracks read
 * "ThreadController active", not "Track 8019090497…". Only the title: the
 * key stays "Track UUID", so the track is the same one in every read, and
 * setting it is a change (tsl_trace_track_set_title()), so every range read
 * reads the chunk that names it and shows the whole read's name. */
void
_tsl_perfetto_title_track (TslPerfettoModel *self,
                           Track            *track,
                           guint             ts_track,
                           guint32           name)
{
  if (name == 0 || name == self->unnamed)
    return;
  track->titled = TRUE;
  if (track->is_thread || track->name != 0 || track->uuid == 0 ||
      (track->kind != TRACK_ASYNC && track->kind != TRACK_UNDESCRIBED))
    return;
  tsl_trace_track_set_title (self->trace, ts_track, tsl_trace_lookup (self->trace, name));
}

/* A legacy ThreadDescriptor packet: the sequence's thread. */
void
_tsl_perfetto_legacy_thread (TslPerfettoModel *self,
                             Sequence         *seq,
                             const guint8     *data,
                             gsize             len)
{
  guint64 key, found;
  gint64 ref_us = 0;
  Track *track;

  note_change (self);
  thread_descriptor (self, data, len, &seq->pid, &seq->tid, &ref_us);
  seq->has_thread = TRUE;
  seq->ts_us = seq->profile_ts_us = ref_us;
  key = (guint64) seq->pid << 32 ^ (guint64) seq->tid;
  if (id_map_lookup (&self->legacy_threads, key, &found))
    track = GSIZE_TO_POINTER (found);
  else
    {
      track = _tsl_perfetto_lookup_track (self, self->legacy_uuid++, TRUE);
      track->kind = TRACK_THREAD;
      track->pid = seq->pid;
      track->tid = seq->tid;
      _tsl_perfetto_id_map_insert (&self->legacy_threads, key, GPOINTER_TO_SIZE (track));
    }
  seq->thread_track = track;
}

void
_tsl_perfetto_process_tree (TslPerfettoModel *self,
                            const guint8     *data,
                            gsize             len)
{
  TslProtoCursor c, cc;
  TslProtoField f, g;

  tsl_proto_cursor_init (&c, data, len);
  while (tsl_proto_next (&c, &f) == TSL_PROTO_OK)
    {
      gint64 pid = 0, tid = 0;
      guint32 name = 0;

      if (f.wire != TSL_PROTO_LEN || (f.number != 1 && f.number != 2))
        continue;
      tsl_proto_cursor_init (&cc, f.data, f.len);
      while (tsl_proto_next (&cc, &g) == TSL_PROTO_OK)
        {
          if (f.number == 1 && g.number == 1 && g.wire == TSL_PROTO_VARINT)
            pid = (gint32) g.value;
          else if (f.number == 1 && g.number == 3 && name == 0)
            name = intern_cmdline (self, &g);
          else if (f.number == 2 && g.number == 1 && g.wire == TSL_PROTO_VARINT)
            tid = (gint32) g.value;
          else if (f.number == 2 && g.number == 3 && g.wire == TSL_PROTO_VARINT)
            pid = (gint32) g.value;
          else if (f.number == 2 && g.number == 2)
            name = intern_field (self, &g);
        }
      if (f.number == 1)
        set_process_fallback_name (self, pid, name);
      else if (name != 0)
        set_thread_name (self, pid != 0 ? pid : tid, tid, name);
    }
}
