/* tsl-perfetto-parallel.c: TracePackets decoded on every core, modelled in order
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A decoded record is a few hundred bytes where its packet may be 17, so a
 * segment's records are packed: a record keeps only the prefix the model
 * reads (no event for a packet that is not a TrackEvent, no extra arrays
 * for an event without any), and the modelling thread applies it in
 * place. Each segment's buffer keeps a whole record's room past its end,
 * so every record lies inside its allocation. The scanners decode at most
 * a few segments per thread ahead of the modelling thread
 * (tsl_scan_pool_set_ahead()): their work is the smaller share, and
 * running through the whole buffer ahead, they would leave its records
 * (10–15 times its bytes) to fall out of the caches before they are read.
 */
#define G_LOG_DOMAIN "tsl-reader"

#include "config.h"

#include <stddef.h>
#include <string.h>

#include "tsl-format-private.h"
#include "tsl-perfetto-private.h"
#include "tsl-perfetto-parallel.h"
#include "tsl-scan-pool.h"

/* About 1,000 small packets: tens of microseconds of decoding a claim. */
#define SEGMENT_BYTES      (16 * 1024)
#define AHEAD_PER_THREAD   4
/* A buffer of fewer segments stays on one thread: the wake-ups cost more
 * than its decoding saves (gzip's and zstd's 64 KiB pieces, when they were
 * that small, cut: a 100 MB zstd trace took 1.08 and 1.44 times as long as
 * on one thread; their buffers are now up to 1 MiB). */
#define MIN_SEGMENTS       8
/* Records are prefetched a few records ahead, for writing and reading:
 * each record's lines were last in another core's cache. On a 100 MB
 * synthetic trace on 2 cores the median wall time of 8 runs fell from
 * 0.94 to 0.78 s with it; on Chromium's, no change beyond the noise. */
#define PREFETCH_BYTES     1024

typedef struct {
  guint8 *data;
  gsize   len;
  gsize   cap;
  guint   n_records;   /* one per TracePacket */
} Packed;

struct _TslPerfettoScan
{
  TslReaderContext         *ctx;
  TslPerfettoModel         *model;
  TslPerfettoMalformedFunc  malformed;
  gpointer                  data;
  TslScanPool              *pool;     /* made at the first buffer worth cutting */
  GPtrArray                *cuts;
  GRand                    *rand;     /* TSL_READER_SPLIT_SEED */
  guint                     ahead;    /* segments decoded ahead of the model */
  Packed                   *ring;     /* `ahead` of them: segment i's records in i % ring_n */
  guint                     n_made;   /* slots made: each knows its index */
  guint64                   n_segments;
  /* What the scanners read, set before the pool starts. */
  const guint8             *buf;
  guint64                   offset;
  guint                     ring_n;
};

G_STATIC_ASSERT (offsetof (TslPerfettoRecord, ev) % 8 == 0);
G_STATIC_ASSERT (offsetof (TslPerfettoRecord, ev.absolute_us) % 8 == 0);
G_STATIC_ASSERT (offsetof (TslPerfettoRecord, ev.extra_uuids) % 8 == 0);
G_STATIC_ASSERT (sizeof (TslPerfettoRecord) % 8 == 0);

/* The prefix of rec that tsl_perfetto_model_apply() reads: a usual
 * event's stops before its rare fields: 168 bytes (256 before the
 * payload shared its room with the event and the rare fields moved). */
static inline gsize
packed_size (const TslPerfettoRecord *rec)
{
  const TslPerfettoEvent *ev = &rec->ev;

  if (!rec->ok)
    return offsetof (TslPerfettoRecord, ev);
  if (rec->pk.kind != PKT_TRACK_EVENT)
    return offsetof (TslPerfettoRecord, payload) + sizeof (TslProtoField);
  if (!rec->event_ok)
    return offsetof (TslPerfettoRecord, ev);
  if ((ev->n_extra_uuids | ev->n_extra_values | ev->n_extra_double_uuids |
       ev->n_extra_double_values | ev->n_flow_ids | ev->n_term_flow_ids) != 0)
    return sizeof (TslPerfettoRecord);
  if ((ev->has_absolute_us | ev->has_pid_override | ev->has_tid_override | ev->has_flows) != 0 ||
      ev->type == TYPE_COMPLETE)
    return offsetof (TslPerfettoRecord, ev.extra_uuids);
  return offsetof (TslPerfettoRecord, ev.absolute_us);
}

/* The four cache lines of an event's record (offsetof (ev.extra_uuids)),
 * for reading (rw 0) or writing (1). A hint: it may point past the data. */
#define prefetch(at, rw) \
  G_STMT_START { \
    for (guint l_ = 0; l_ < 4; l_++) \
      __builtin_prefetch ((at) + 64 * l_, (rw)); \
  } G_STMT_END

/* The room for one more record at the end of out. */
static inline TslPerfettoRecord *
next_record (Packed *out)
{
  if (G_UNLIKELY (out->len + 2 * sizeof (TslPerfettoRecord) > out->cap))
    {
      out->cap = MAX (out->cap * 2, out->len + 2 * sizeof (TslPerfettoRecord));
      out->data = g_realloc (out->data, out->cap);
    }
  return (TslPerfettoRecord *) (gpointer) (out->data + out->len);
}

/* Framed by tsl_perfetto_scan_run(): every key and length is whole. Each
 * record is decoded where it is kept (copying its prefix out of a scratch
 * record took `rep movsq` almost half as long as the decoding), then only
 * its prefix is counted. */
static void
scan_segment (gpointer        data,
              TslScanSegment *seg,
              gpointer        scratch)
{
  TslPerfettoScan *self = data;
  Packed *out = &self->ring[*(const guint *) seg->result % self->ring_n];
  const guint8 *p = (const guint8 *) seg->start;
  const guint8 *end = (const guint8 *) seg->end;
  const guint8 *buf = self->buf;
  guint64 offset = self->offset;
  gsize len = 0;
  guint n_records = 0;

  while (p < end)
    {
      const guint8 *start = p;
      guint64 key = 0, n = 0;

      tsl_proto_varint (&p, end, &key);
      tsl_proto_varint (&p, end, &n);
      if (key >> 3 == 1)
        {
          TslPerfettoRecord *rec;

          out->len = len;
          rec = next_record (out);
          prefetch ((const guint8 *) rec + PREFETCH_BYTES, 1);
          tsl_perfetto_decode (rec, p, (gsize) n);
          rec->pos = offset + (guint64) (start - buf);
          rec->packed = (guint32) packed_size (rec);
          len += rec->packed;
          n_records++;
        }
      p += n;
    }
  out->len = len;
  out->n_records = n_records;
}

/* A slot's result is its index: the slots are made in order. */
static gpointer
slot_index_new (gpointer data)
{
  TslPerfettoScan *self = data;
  guint *index = g_new (guint, 1);

  *index = self->n_made++;
  return index;
}

static const TslScanFuncs scan_funcs = {
  .scan = scan_segment,
  .result_new = slot_index_new,
  .result_free = g_free,
};

TslPerfettoScan *
tsl_perfetto_scan_new (TslReaderContext         *ctx,
                       TslPerfettoModel         *model,
                       TslPerfettoMalformedFunc  malformed,
                       gpointer                  data)
{
  TslPerfettoScan *self;
  const char *seed;

  if (!tsl_scan_pool_wanted (ctx))
    return NULL;
  self = g_new0 (TslPerfettoScan, 1);
  self->ctx = ctx;
  self->model = model;
  self->malformed = malformed;
  self->data = data;
  self->cuts = g_ptr_array_new ();
  self->ahead = AHEAD_PER_THREAD * tsl_reader_context_get_n_threads (ctx);
  self->ring = g_new0 (Packed, self->ahead);
  seed = g_getenv ("TSL_READER_SPLIT_SEED");
  if (seed != NULL)
    self->rand = g_rand_new_with_seed (g_ascii_strtoull (seed, NULL, 10));
  return self;
}

void
tsl_perfetto_scan_free (TslPerfettoScan *self)
{
  if (self == NULL)
    return;
  if (self->n_segments > 0)
    g_debug ("%s: %" G_GUINT64_FORMAT " segments of TracePackets decoded on %u threads (%"
             G_GUINT64_FORMAT " by the modelling one)",
             tsl_reader_context_get_name (self->ctx), self->n_segments,
             tsl_reader_context_get_n_threads (self->ctx),
             tsl_scan_pool_get_by_caller (self->pool));
  g_clear_pointer (&self->pool, tsl_scan_pool_free);
  g_clear_pointer (&self->rand, g_rand_free);
  g_ptr_array_unref (self->cuts);
  for (guint i = 0; i < self->ahead; i++)
    g_free (self->ring[i].data);
  g_free (self->ring);
  g_free (self);
}

/* How long a segment is at least: the tests' random cuts make segments
 * of any size down to one packet. */
static gsize
segment_bytes (TslPerfettoScan *self)
{
  return self->rand != NULL ? (gsize) g_rand_int_range (self->rand, 1, TSL_SCAN_RANDOM_BYTES)
                            : SEGMENT_BYTES;
}

/* Cuts [p, end) at packet starts into self->cuts; returns where the whole,
 * well-framed packets end. */
static const guint8 *
frame (TslPerfettoScan *self,
       const guint8    *p,
       const guint8    *end)
{
  const guint8 *seg_start = p;
  gsize want = segment_bytes (self);

  g_ptr_array_set_size (self->cuts, 0);
  g_ptr_array_add (self->cuts, (gpointer) p);
  while (p < end)
    {
      const guint8 *q;
      guint64 key, n;
      gsize left = (gsize) (end - p);

      /* Most packets: key 0x0A and a one-byte length. Short of the next
       * cut, and far enough from the end that no such packet crosses it,
       * nothing else needs a test: this walk is the modelling thread's,
       * and it bounds a read on two cores. */
      if (left > 2 + 0x7F)
        {
          gsize used = (gsize) (p - seg_start);
          const guint8 *fast_end = p + MIN (used < want ? want - used : 0, left - (2 + 0x7F));

          while (p < fast_end && p[0] == 0x0A && p[1] < 0x80)
            p += 2 + p[1];
        }
      q = p;

      /* Most packets: key 0x0A and a one-byte length. */
      if (G_LIKELY (end - p >= 2 && p[0] == 0x0A && p[1] < 0x80 && p[1] <= end - p - 2))
        {
          n = p[1];
          q = p + 2;
        }
      else if (tsl_proto_varint (&q, end, &key) != TSL_PROTO_OK || (key & 7) != TSL_PROTO_LEN ||
               tsl_proto_varint (&q, end, &n) != TSL_PROTO_OK || n > TSL_PERFETTO_MAX_PACKET ||
               n > (guint64) (end - q))
        break;
      if ((gsize) (p - seg_start) >= want)
        {
          g_ptr_array_add (self->cuts, (gpointer) p);
          seg_start = p;
          want = segment_bytes (self);
        }
      p = q + n;
    }
  return p;
}

static void
apply_segment (TslPerfettoScan *self,
               const Packed    *packed,
               gboolean         offsets)
{
  const guint8 *at = packed->data;

  for (guint i = 0; i < packed->n_records; i++)
    {
      const TslPerfettoRecord *rec = (const TslPerfettoRecord *) (gconstpointer) at;
      const char *what;

      at += rec->packed;
      prefetch (at + PREFETCH_BYTES, 0);
      if (G_UNLIKELY (offsets))
        tsl_perfetto_model_set_offset (self->model, (gint64) rec->pos);
      if (G_UNLIKELY (!tsl_perfetto_model_apply (self->model, rec, &what)))
        self->malformed (self->data, rec->pos, what);
    }
}

static gboolean
context_idle (gpointer ctx)
{
  return tsl_reader_context_idle (ctx);
}

const guint8 *
tsl_perfetto_scan_run (TslPerfettoScan *self,
                       const guint8    *buf,
                       guint64          offset,
                       const guint8    *p,
                       const guint8    *end,
                       gboolean         offsets,
                       guint64         *n_packets)
{
  const guint8 *stop;
  const char *const *cuts;
  guint n_cuts;

  /* Not framed twice where the buffer is too small anyway (zstd's pieces). */
  if (self->rand == NULL && ((gsize) (end - p) < MIN_SEGMENTS * SEGMENT_BYTES ||
                            !tsl_reader_context_scan_now (self->ctx, end - p)))
    return p;
  stop = frame (self, p, end);
  cuts = (const char *const *) self->cuts->pdata;
  n_cuts = self->cuts->len;
  if (stop == p || (self->rand == NULL && (gsize) (stop - p) < MIN_SEGMENTS * SEGMENT_BYTES))
    return p;
  if (self->pool == NULL)
    self->pool = tsl_scan_pool_new (tsl_reader_context_get_n_threads (self->ctx), &scan_funcs,
                                    self, context_idle, self->ctx);
  self->buf = buf;
  self->offset = offset;
  self->n_segments += n_cuts;

  /* Segments i .. i + ring_n - 1 are all a scanner may hold while the
   * model is at segment i: ring_n results in turn are enough. */
  self->ring_n = self->rand != NULL ? (guint) g_rand_int_range (self->rand, 1, self->ahead + 1)
                                    : self->ahead;
  tsl_scan_pool_set_ahead (self->pool, self->ring_n);
  tsl_scan_pool_start (self->pool, cuts, n_cuts, (const char *) stop, FALSE);
  for (guint i = 0; i < n_cuts; i++)
    {
      const TslScanSegment *seg = tsl_scan_pool_get (self->pool, i, NULL);
      const Packed *packed = &self->ring[*(const guint *) seg->result % self->ring_n];

      apply_segment (self, packed, offsets);
      *n_packets += packed->n_records;
    }
  tsl_scan_pool_finish (self->pool);
  return stop;
}
