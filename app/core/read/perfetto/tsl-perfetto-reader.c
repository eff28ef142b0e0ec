/* tsl-perfetto-reader.c: Perfetto protobuf traces
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A Trace is a run of field-1 length-delimited TracePackets (key byte 0x0A,
 * a varint length, the packet). This file cuts the stream into packets —
 * each handed to the model in place, only a packet split by a chunk boundary
 * is held back by TslReader — and reports damage by byte offset, as
 * "FILE:BYTE: message" (there are no lines). A trace cut short keeps what
 * came before and warns.
 *
 * With TSL_READER_THREADS=eager this thread only frames and decodes
 * packets, and a worker models them (tsl-perfetto-pipe.h); every parse call
 * drains the worker before it returns or touches the trace itself. Not by
 * default: on the two shared cores it was measured on, handing each record
 * (a few cache lines) to the other core cost more CPU than the split saved,
 * and the wall clock did not gain either (README, Perfetto ingest).
 */
#define G_LOG_DOMAIN "tsl-perfetto-reader"

#include "config.h"

#include "tsl-chunk-index.h"
#include "tsl-format-private.h"
#include "tsl-perfetto-pipe.h"
#include "tsl-perfetto-private.h"
#include "tsl-perfetto-parallel.h"
#include "tsl-proto.h"

#define MAX_POS_WARNINGS 10

typedef struct {
  TslTrace         *trace;
  TslReaderContext *ctx;
  TslPerfettoModel *model;
  TslPerfettoPipe  *pipe;
  TslPerfettoScan  *scan;         /* NULL: one thread */
  guint64           offset;       /* of the current buffer in the decoded stream */
  gboolean          offsets;      /* the trace wants each slice's packet offset */
  guint64           n_malformed;  /* the modelling thread's */
  guint64           n_packets;
  TslPerfettoRecord local;        /* the packet read on this thread */
} PerfettoState;

static void
perfetto_destroy (gpointer state)
{
  PerfettoState *self = state;

  g_clear_pointer (&self->pipe, tsl_perfetto_pipe_free);
  tsl_perfetto_scan_free (self->scan);
  tsl_perfetto_model_free (self->model);
  g_free (self);
}

static void
set_error (PerfettoState  *self,
           GError        **error,
           guint64         byte,
           const char     *message)
{
  g_set_error (error, TSL_READER_ERROR, TSL_READER_ERROR_SYNTAX, "%s:%" G_GUINT64_FORMAT ": %s",
               tsl_reader_context_get_name (self->ctx), byte, message);
}

/* An error at `byte`, once the worker has modelled what came before. */
static gssize
fail (PerfettoState    *self,
      TslPerfettoPipe  *pipe,
      GError          **error,
      guint64           byte,
      const char       *message)
{
  if (pipe != NULL)
    tsl_perfetto_pipe_drain (pipe);
  set_error (self, error, byte, message);
  return -1;
}

static void
finish (PerfettoState *self)
{
  tsl_trace_add_events (self->trace, tsl_perfetto_model_take_events (self->model));
  tsl_perfetto_model_finish (self->model);
  if (self->n_malformed > MAX_POS_WARNINGS)
    tsl_trace_add_warning (self->trace, "%s: %" G_GUINT64_FORMAT " malformed TracePackets were "
                           "skipped in all", tsl_reader_context_get_name (self->ctx),
                           self->n_malformed);
  if (self->n_packets == 0)
    tsl_trace_add_warning (self->trace, "%s: no TracePackets found",
                           tsl_reader_context_get_name (self->ctx));
}

static G_GNUC_NO_INLINE void
malformed (gpointer    state,
           guint64     pos,
           const char *what)
{
  PerfettoState *self = state;

  if (++self->n_malformed <= MAX_POS_WARNINGS)
    tsl_trace_add_warning (self->trace, "%s:%" G_GUINT64_FORMAT ": skipped a "
                           "malformed TracePacket: %s",
                           tsl_reader_context_get_name (self->ctx), pos, what);
}

/* One decoded packet into the model: on the worker's thread, or this one. */
static void
apply_record (gpointer                 state,
              const TslPerfettoRecord *rec)
{
  PerfettoState *self = state;
  const char *what;

  if (G_UNLIKELY (self->offsets))
    tsl_perfetto_model_set_offset (self->model, (gint64) rec->pos);
  if (!tsl_perfetto_model_apply (self->model, rec, &what))
    malformed (self, rec->pos, what);
}

static gpointer
perfetto_create (TslTrace         *trace,
                 TslReaderContext *ctx)
{
  PerfettoState *self = g_new0 (PerfettoState, 1);

  self->trace = trace;
  self->ctx = ctx;
  self->model = tsl_perfetto_model_new (trace);
  self->scan = tsl_perfetto_scan_new (ctx, self->model, malformed, self);
  return self;
}

static gboolean
context_idle (gpointer ctx)
{
  return tsl_reader_context_idle (ctx);
}

static TslPerfettoPipe *
want_pipe (PerfettoState *self)
{
  if (tsl_reader_context_get_threads (self->ctx) != TSL_READER_THREADS_EAGER)
    return NULL;
  if (self->pipe == NULL)
    {
      self->pipe = tsl_perfetto_pipe_new (apply_record, self);
      tsl_perfetto_pipe_set_idle (self->pipe, context_idle, self->ctx);
    }
  return self->pipe;
}

static gssize
perfetto_parse (gpointer       state,
                const guint8  *buf,
                gsize          len,
                gboolean       at_eof,
                GError       **error)
{
  PerfettoState *self = state;
  const guint8 *p = buf;
  const guint8 *end = buf + len;
  TslPerfettoPipe *pipe = want_pipe (self);

  /* The worker is idle between calls: this is not a race. */
  self->offsets = tsl_trace_wants_offsets (self->trace);
  /* A range read jumps between checkpoints: the reader knows where. */
  self->offset = (guint64) MAX (tsl_reader_context_get_input_offset (self->ctx), 0);
  /* A regular file: the whole packets on every core, the rest (a packet
   * cut by the buffer's end, damage) below. */
  if (self->scan != NULL && pipe == NULL)
    p = tsl_perfetto_scan_run (self->scan, buf, self->offset, p, end, self->offsets,
                               &self->n_packets);

  while (p < end)
    {
      const guint8 *start = p;
      TslProtoStatus st;
      guint64 key, n;

      /* Most packets: key 0x0A, a one-byte length, whole in the buffer. */
      if (G_LIKELY (end - p >= 2 && p[0] == 0x0A && p[1] < 0x80 && p[1] <= end - p - 2))
        {
          key = p[0];
          n = p[1];
          p += 2;
          goto whole;
        }
      st = tsl_proto_varint (&p, end, &key);
      if (st == TSL_PROTO_OK && (key & 7) == TSL_PROTO_LEN)
        st = tsl_proto_varint (&p, end, &n);
      else if (st == TSL_PROTO_OK)
        {
          g_autofree char *message =
            g_strdup_printf ("expected a TracePacket (field 1, length-delimited: byte 0x0A), "
                             "found field %" G_GUINT64_FORMAT " with wire type %u",
                             key >> 3, (guint) (key & 7));

          return fail (self, pipe, error, self->offset + (start - buf), message);
        }
      if (st == TSL_PROTO_BAD)
        return fail (self, pipe, error, self->offset + (start - buf),
                     "expected a TracePacket key and length, found a varint longer than 10 bytes");
      if (st == TSL_PROTO_OK && n > TSL_PERFETTO_MAX_PACKET)
        {
          g_autofree char *message =
            g_strdup_printf ("a TracePacket claims %" G_GUINT64_FORMAT " bytes; packets over "
                             "%" G_GSIZE_FORMAT " MiB are refused", n,
                             TSL_PERFETTO_MAX_PACKET / (1024 * 1024));

          return fail (self, pipe, error, self->offset + (start - buf), message);
        }
      if (st != TSL_PROTO_OK || n > (guint64) (end - p))
        {
          if (!at_eof)
            {
              p = start;
              break;
            }
          if (pipe != NULL)
            tsl_perfetto_pipe_drain (pipe);
          tsl_trace_add_warning (self->trace, "%s:%" G_GUINT64_FORMAT ": the trace ends inside a "
                                 "TracePacket (%" G_GSIZE_FORMAT " bytes of it present); what "
                                 "came before was read", tsl_reader_context_get_name (self->ctx),
                                 self->offset + (start - buf), (gsize) (end - start));
          p = end;
          break;
        }

    whole:
      if (key >> 3 == 1 && pipe != NULL)
        {
          TslPerfettoRecord *rec = tsl_perfetto_pipe_slot (pipe);

          self->n_packets++;
          tsl_perfetto_decode (rec, p, (gsize) n);
          rec->pos = self->offset + (start - buf);
          tsl_perfetto_pipe_commit (pipe);
        }
      else if (key >> 3 == 1)
        {
          /* On this thread: the position only for a message or an offset. */
          const char *what;

          self->n_packets++;
          tsl_perfetto_decode (&self->local, p, (gsize) n);
          if (G_UNLIKELY (self->offsets))
            tsl_perfetto_model_set_offset (self->model, (gint64) (self->offset + (start - buf)));
          if (G_UNLIKELY (!tsl_perfetto_model_apply (self->model, &self->local, &what)))
            malformed (self, self->offset + (start - buf), what);
        }
      p += n;
    }

  if (pipe != NULL)
    tsl_perfetto_pipe_drain (pipe);
  tsl_trace_add_events (self->trace, tsl_perfetto_model_take_events (self->model));
  if (at_eof)
    finish (self);
  return p - buf;
}

/* A Trace starts with TracePackets whose fields are well formed. Text
 * starting with a newline (0x0A) also looks like a packet key, so the
 * packets of the head must parse and, for the fields that say what a packet
 * is, have the wire type Perfetto gives them. A damaged packet further on
 * does not veto what came before (the reader reports it). */
static int
perfetto_sniff (const guint8 *head,
                gsize         len,
                gboolean      at_eof)
{
  const guint8 *p = head, *end = head + len;
  guint packets = 0, known = 0;

  while (p < end && packets < 64)
    {
      TslProtoCursor c;
      TslProtoField f;
      TslProtoStatus st;
      gboolean partial, bad = FALSE;
      guint known_here = 0;
      guint64 n;

      if (*p != 0x0A)
        break;
      p++;
      st = tsl_proto_varint (&p, end, &n);
      if (st != TSL_PROTO_OK || n > TSL_PERFETTO_MAX_PACKET)
        break;
      /* A packet longer than the head is judged on what is there. */
      partial = n > (guint64) (end - p);
      tsl_proto_cursor_init (&c, p, partial ? (gsize) (end - p) : (gsize) n);
      while (!bad && (st = tsl_proto_next (&c, &f)) == TSL_PROTO_OK)
        {
          gboolean varint = f.number == 8 || f.number == 10 || f.number == 13 ||
                            f.number == 58 || f.number == 3 || f.number == 41;
          gboolean message = f.number == 11 || f.number == 12 || f.number == 59 ||
                             f.number == 60 || f.number == 6 || f.number == 50 ||
                             f.number == 33 || f.number == 35 || f.number == 1;

          bad = (varint && f.wire != TSL_PROTO_VARINT) || (message && f.wire != TSL_PROTO_LEN) ||
                f.number > 10000;
          if (varint || message)
            known_here++;
        }
      if (bad || (st != TSL_PROTO_END && !(partial && st == TSL_PROTO_TRUNCATED)))
        break;
      packets++;
      known += known_here;
      if (partial)
        break;
      p += n;
    }

  if (packets == 0 || known == 0)
    return 0;
  /* Several packets, or all of a small input. */
  return packets >= 2 || p == end ? 100 : 90;
}

/* Between packets (a parse call consumes whole ones), with what events
 * changed saved; what else a later packet needs was made by chunks the
 * index reads always (note_change(), tsl-perfetto-model-types.h). */
static TslCheckpoint
perfetto_checkpoint (gpointer      state,
                     const guint8 *buf,
                     gsize         consumed,
                     gsize        *back,
                     GByteArray   *saved)
{
  PerfettoState *self = state;

  *back = 0;
  if (!tsl_perfetto_model_save (self->model, saved, TSL_CHUNK_STATE_MAX))
    return TSL_CHECKPOINT_NOT_HERE;
  return TSL_CHECKPOINT_HERE;
}

static gboolean
perfetto_restore (gpointer      state,
                  const guint8 *saved,
                  gsize         len)
{
  PerfettoState *self = state;

  return tsl_perfetto_model_restore (self->model, saved, len);
}

static void
perfetto_flush_counts (gpointer state,
                       gboolean keep)
{
  PerfettoState *self = state;

  /* The counts are the modelling thread's. */
  if (self->pipe != NULL)
    tsl_perfetto_pipe_drain (self->pipe);
  tsl_perfetto_model_flush_counts (self->model, keep);
}

const TslFormat tsl_format_perfetto_proto = {
  .name = "perfetto-proto",
  .sniff = perfetto_sniff,
  .create = perfetto_create,
  .parse = perfetto_parse,
  .destroy = perfetto_destroy,
  .binary = TRUE,
  .checkpoint = perfetto_checkpoint,
  .restore = perfetto_restore,
  .flush_counts = perfetto_flush_counts,
};
