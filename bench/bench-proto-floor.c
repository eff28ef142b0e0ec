/* bench-proto-floor.c: the floor of reading a Perfetto trace on this machine
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 *   bench-proto-floor [--runs N] [--only NAME] [--timeslice EXE] FILE [FILE.zst]
 *
 * A ladder of lower bounds for Perfetto ingest, each rung a strict subset of
 * what a correct reader must do, measured in one process, interleaved (rung
 * after rung in every run), median CPU time of N runs (default 3):
 *
 *   read      the bytes through memory: a sum of 64-bit words
 *   frame     the Trace's field-1 TracePackets: key and length, skipped
 *   decode    every field of every packet and of its TrackEvent: varints
 *             decoded, other length-delimited fields skipped, no state
 *   state     decode, plus the least state a correct reader keeps: per
 *             sequence interned names (an array index), clocks (incremental
 *             timestamps, snapshots), default track; per track a slice stack;
 *             per track and time slice (K = 2000) min/max/count/sum
 *
 * each on the file mapped (mmap, its page faults included) and read in
 * 1 MiB read()s, and on FILE.zst through libzstd; then, as child processes,
 * `wc -l`, `zstd -dc FILE.zst > /dev/null` and `EXE info` with
 * TSL_READER_THREADS=1 and unset (TSL_NO_INDEX=1: no cache read or written).
 * Every rung prints a checksum of what it decoded so that none of the work
 * can be optimised away, and "events" (packets with a TrackEvent) to check
 * against `timeslice info`. --only NAME runs one rung once (for callgrind).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <glib.h>
#include <zstd.h>

#include "tsl-proto.h"

#define CHUNK (1u << 20)
#define K     2000

typedef struct {
  guint64 packets;
  guint64 events;
  guint64 sum;
} Acc;

/* ── rung 1: read ───────────────────────────────────────────────────── */

static gsize
rung_read (const guint8 *p, gsize n, gboolean eof, Acc *a)
{
  gsize words = n / 8;
  guint64 s = 0;

  (void) eof;
  for (gsize i = 0; i < words; i++)
    {
      guint64 w;

      memcpy (&w, p + 8 * i, 8);
      s += w;
    }
  for (gsize i = words * 8; i < n; i++)
    s += p[i];
  a->sum += s;
  return n;
}

/* Skips one field whose key is read; FALSE if it runs past the end. */
static inline gboolean
skip_value (const guint8 **p, const guint8 *end, guint64 key, guint64 *value)
{
  guint64 n;

  switch (key & 7)
    {
    case TSL_PROTO_VARINT:
      return tsl_proto_varint (p, end, value) == TSL_PROTO_OK;
    case TSL_PROTO_I64:
      if (end - *p < 8)
        return FALSE;
      memcpy (value, *p, 8);
      *p += 8;
      return TRUE;
    case TSL_PROTO_I32:
      if (end - *p < 4)
        return FALSE;
      *value = (guint64) (*p)[0] | (guint64) (*p)[1] << 8 | (guint64) (*p)[2] << 16 | (guint64) (*p)[3] << 24;
      *p += 4;
      return TRUE;
    case TSL_PROTO_LEN:
      if (tsl_proto_varint (p, end, &n) != TSL_PROTO_OK || n > (guint64) (end - *p))
        return FALSE;
      *value = n;
      *p += n;
      return TRUE;
    default:
      return FALSE;
    }
}

/* The next field: its key and its value (a LEN field's length, its bytes
 * skipped). Most fields of these traces are a one-byte key and a one-byte
 * varint or length: read as such with one test. */
static inline gboolean
next_field (const guint8 **pp, const guint8 *end, guint64 *key, guint64 *value)
{
  const guint8 *p = *pp;

  if (G_LIKELY (end - p >= 2 && ((p[0] | p[1]) & 0x80) == 0))
    {
      *key = p[0];
      *value = p[1];
      if ((p[0] & 7) == TSL_PROTO_VARINT)
        {
          *pp = p + 2;
          return TRUE;
        }
      if ((p[0] & 7) == TSL_PROTO_LEN)
        {
          if (p[1] > end - p - 2)
            return FALSE;
          *pp = p + 2 + p[1];
          return TRUE;
        }
    }
  return tsl_proto_varint (pp, end, key) == TSL_PROTO_OK && skip_value (pp, end, *key, value);
}

/* ── rungs 2–4: the packets of a Trace ──────────────────────────────────
 *
 * Each consumes the whole packets of [p, p + n) and returns how many bytes
 * that was (a stream keeps the rest for its next read). A field of the
 * Trace that is not a packet is skipped; a malformed packet counts in
 * `bad` and is skipped. */

static guint64 bad;

typedef void (*PacketFunc) (const guint8 *p, const guint8 *end, Acc *a);

static inline gsize
walk_packets (const guint8 *start, gsize n, Acc *a, PacketFunc func)
{
  const guint8 *p = start, *end = start + n;

  while (p < end)
    {
      const guint8 *q = p;
      guint64 key, len;

      if (tsl_proto_varint (&q, end, &key) != TSL_PROTO_OK)
        break;
      if (key == (1 << 3 | TSL_PROTO_LEN))
        {
          if (tsl_proto_varint (&q, end, &len) != TSL_PROTO_OK || len > (guint64) (end - q))
            break;
          a->packets++;
          if (func != NULL)
            func (q, q + len, a);
          else
            a->sum += len;
          q += len;
        }
      else if (!skip_value (&q, end, key, &len))
        break;
      p = q;
    }
  return p - start;
}

static gsize
rung_frame (const guint8 *p, gsize n, gboolean eof, Acc *a)
{
  (void) eof;
  return walk_packets (p, n, a, NULL);
}

/* Every field of a message: varints decoded, the rest skipped. */
static inline gboolean
walk_fields (const guint8 *p, const guint8 *end, guint64 *sum)
{
  guint64 s = 0;

  while (p < end)
    {
      guint64 key, v;

      if (!next_field (&p, end, &key, &v))
        return FALSE;
      s += key ^ v;
    }
  *sum += s;
  return TRUE;
}

static void
decode_packet (const guint8 *p, const guint8 *end, Acc *a)
{
  guint64 s = 0;

  while (p < end)
    {
      guint64 key, v;

      if (!next_field (&p, end, &key, &v))
        goto bad;
      s += key ^ v;
      if (key == (11 << 3 | TSL_PROTO_LEN))
        {
          /* The TrackEvent: its body is the last v bytes before p. */
          a->events++;
          if (!walk_fields (p - v, p, &s))
            goto bad;
        }
    }
  a->sum += s;
  return;
bad:
  bad++;
  a->sum += s;
}

static gsize
rung_decode (const guint8 *p, gsize n, gboolean eof, Acc *a)
{
  (void) eof;
  return walk_packets (p, n, a, decode_packet);
}

/* ── rung 4: decode and the least state ─────────────────────────────── */

typedef struct {
  double min, max, sum;
  guint64 count;
} Stat;

typedef struct {
  guint32 name;
  gint64 ts;
} Open;

typedef struct {
  Open *stack;    /* open slices, depth of them */
  guint depth, cap;
  Stat *stats;    /* K */
} Track;

typedef struct {
  guint32 id, ref;        /* a sequence-scoped clock, and the built-in one it is tied to */
  gboolean incremental;
  gint64 value, snap_value, snap_ref, mult;
} SeqClock;

typedef struct {
  GArray *names;          /* guint32 global name id + 1, by iid */
  Track *default_track;
  guint64 default_uuid;
  guint32 clock;          /* the packets' default clock */
  SeqClock clocks[4];
  guint n_clocks;
} Seq;

static struct {
  GHashTable *names;      /* string → id + 1 */
  GPtrArray *seqs;        /* Seq, by trusted_packet_sequence_id */
  GHashTable *tracks;     /* uuid → Track */
  gint64 builtin_offset[64];  /* clock id → add to get BOOTTIME */
  gboolean have_origin;
  gint64 origin, first, last;
  guint shift;
} st;

static void
track_free (gpointer data)
{
  Track *t = data;

  g_free (t->stack);
  g_free (t->stats);
  g_free (t);
}

static void
seq_free (gpointer data)
{
  Seq *s = data;

  if (s != NULL)
    g_array_unref (s->names);
  g_free (s);
}

static void
state_init (void)
{
  st.names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  st.seqs = g_ptr_array_new_with_free_func (seq_free);
  st.tracks = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, track_free);
  memset (st.builtin_offset, 0, sizeof st.builtin_offset);
  st.have_origin = FALSE;
  st.first = G_MAXINT64;
  st.last = G_MININT64;
  st.shift = 0;
}

static guint64
state_clear (void)
{
  GHashTableIter it;
  gpointer t;
  guint64 s = 0;

  g_hash_table_iter_init (&it, st.tracks);
  while (g_hash_table_iter_next (&it, NULL, &t))
    for (guint i = 0; i < K; i++)
      {
        Stat *x = &((Track *) t)->stats[i];

        s += x->count + (guint64) x->sum + (guint64) x->min + (guint64) x->max;
      }
  g_clear_pointer (&st.names, g_hash_table_unref);
  g_clear_pointer (&st.seqs, g_ptr_array_unref);
  g_clear_pointer (&st.tracks, g_hash_table_unref);
  return s;
}

static Seq *
seq_get (guint64 id)
{
  Seq *s;

  if (id >= 1 << 16)
    id = 0;  /* a reader would hash these; none of our inputs has one */
  if (id >= st.seqs->len)
    g_ptr_array_set_size (st.seqs, id + 1);
  s = st.seqs->pdata[id];
  if (s == NULL)
    {
      s = g_new0 (Seq, 1);
      s->names = g_array_new (FALSE, TRUE, sizeof (guint32));
      st.seqs->pdata[id] = s;
    }
  return s;
}

static Track *
track_get (guint64 uuid)
{
  Track *t = g_hash_table_lookup (st.tracks, &uuid);

  if (t == NULL)
    {
      t = g_new0 (Track, 1);
      t->stats = g_new (Stat, K);
      for (guint i = 0; i < K; i++)
        t->stats[i] = (Stat) { G_MAXDOUBLE, -G_MAXDOUBLE, 0, 0 };
      g_hash_table_insert (st.tracks, g_memdup2 (&uuid, sizeof uuid), t);
    }
  return t;
}

static void
stat_merge (Stat *into, const Stat *x)
{
  into->min = MIN (into->min, x->min);
  into->max = MAX (into->max, x->max);
  into->sum += x->sum;
  into->count += x->count;
}

/* The time slice of `ts`: K slices from the first event on, twice as wide
 * (every track's slices merged in pairs) when one falls past the last. */
static inline Stat *
stat_at (Track *t, gint64 ts)
{
  guint64 i;

  if (G_UNLIKELY (!st.have_origin))
    {
      st.have_origin = TRUE;
      st.origin = ts;
    }
  st.first = MIN (st.first, ts);
  st.last = MAX (st.last, ts);
  i = ts > st.origin ? (guint64) (ts - st.origin) >> st.shift : 0;
  while (G_UNLIKELY (i >= K))
    {
      GHashTableIter it;
      gpointer v;

      g_hash_table_iter_init (&it, st.tracks);
      while (g_hash_table_iter_next (&it, NULL, &v))
        {
          Stat *s = ((Track *) v)->stats;

          for (guint j = 0; j < K / 2; j++)
            {
              s[j] = s[2 * j];
              stat_merge (&s[j], &s[2 * j + 1]);
            }
          for (guint j = K / 2; j < K; j++)
            s[j] = (Stat) { G_MAXDOUBLE, -G_MAXDOUBLE, 0, 0 };
        }
      st.shift++;
      i >>= 1;
    }
  return &t->stats[i];
}

static inline void
stat_add (Stat *s, double v)
{
  s->min = MIN (s->min, v);
  s->max = MAX (s->max, v);
  s->sum += v;
  s->count++;
}

static guint32
name_intern (const guint8 *p, gsize n)
{
  g_autofree char *key = g_strndup ((const char *) p, n);
  gpointer id = g_hash_table_lookup (st.names, key);

  if (id == NULL)
    {
      id = GUINT_TO_POINTER (g_hash_table_size (st.names) + 1);
      g_hash_table_insert (st.names, g_steal_pointer (&key), id);
    }
  return GPOINTER_TO_UINT (id) - 1;
}

/* InternedData: event_names (2) { iid 1, name 2 }; the rest skipped. */
static gboolean
apply_interned (Seq *s, const guint8 *p, const guint8 *end, guint64 *sum)
{
  while (p < end)
    {
      guint64 key, v;

      if (!next_field (&p, end, &key, &v))
        return FALSE;
      *sum += key ^ v;
      if (key == (2 << 3 | TSL_PROTO_LEN))
        {
          const guint8 *q = p - v, *e = p, *name = NULL;
          guint64 iid = 0, len = 0;

          while (q < e)
            {
              guint64 k2, v2;

              if (!next_field (&q, e, &k2, &v2))
                return FALSE;
              if (k2 == (1 << 3 | TSL_PROTO_VARINT))
                iid = v2;
              else if (k2 == (2 << 3 | TSL_PROTO_LEN))
                name = q - v2, len = v2;
            }
          if (name != NULL && iid < 1 << 20)
            {
              guint32 id = name_intern (name, len);

              if (iid >= s->names->len)
                g_array_set_size (s->names, iid + 1);
              g_array_index (s->names, guint32, iid) = id + 1;
            }
        }
    }
  return TRUE;
}

/* TracePacketDefaults: timestamp_clock_id (58), track_event_defaults (11) { track_uuid 11 }. */
static gboolean
apply_defaults (Seq *s, const guint8 *p, const guint8 *end, guint64 *sum)
{
  while (p < end)
    {
      guint64 key, v;

      if (!next_field (&p, end, &key, &v))
        return FALSE;
      *sum += key ^ v;
      if (key == (58 << 3 | TSL_PROTO_VARINT))
        s->clock = (guint32) v;
      else if (key == (11 << 3 | TSL_PROTO_LEN))
        {
          const guint8 *q = p - v;

          while (q < p)
            {
              guint64 k2, v2;

              if (!next_field (&q, p, &k2, &v2))
                return FALSE;
              if (k2 == (11 << 3 | TSL_PROTO_VARINT))
                {
                  s->default_uuid = v2;
                  s->default_track = track_get (v2);
                }
            }
        }
    }
  return TRUE;
}

/* ClockSnapshot: clocks (1) { clock_id 1, timestamp 2, is_incremental 3,
 * unit_multiplier_ns 4 }. With a BOOTTIME (6) reading, every built-in clock
 * gets its offset to BOOTTIME; a sequence-scoped clock (≥ 64) is tied to the
 * snapshot's first built-in clock. */
static gboolean
apply_snapshot (Seq *s, const guint8 *p, const guint8 *end, guint64 *sum)
{
  struct { guint64 id, ts, mult; gboolean incr; } c[16];
  guint n = 0, ref = G_MAXUINT;
  gboolean has_boot = FALSE;
  gint64 boot = 0;

  while (p < end)
    {
      guint64 key, v;

      if (!next_field (&p, end, &key, &v))
        return FALSE;
      *sum += key ^ v;
      if (key == (1 << 3 | TSL_PROTO_LEN) && n < G_N_ELEMENTS (c))
        {
          const guint8 *q = p - v;

          c[n].id = c[n].ts = 0;
          c[n].mult = 1;
          c[n].incr = FALSE;
          while (q < p)
            {
              guint64 k2, v2;

              if (!next_field (&q, p, &k2, &v2))
                return FALSE;
              switch (k2)
                {
                case 1 << 3: c[n].id = v2; break;
                case 2 << 3: c[n].ts = v2; break;
                case 3 << 3: c[n].incr = v2 != 0; break;
                case 4 << 3: c[n].mult = MAX (v2, 1); break;
                default: break;
                }
            }
          if (c[n].id == 6)
            has_boot = TRUE, boot = (gint64) c[n].ts;
          if (c[n].id < 64 && ref == G_MAXUINT)
            ref = n;
          n++;
        }
    }
  for (guint i = 0; i < n; i++)
    {
      if (c[i].id < 64 && has_boot)
        st.builtin_offset[c[i].id] = boot - (gint64) c[i].ts;
      else if (c[i].id >= 64 && ref != G_MAXUINT)
        {
          guint j;

          for (j = 0; j < s->n_clocks && s->clocks[j].id != c[i].id; j++)
            ;
          if (j == G_N_ELEMENTS (s->clocks))
            continue;
          s->n_clocks = MAX (s->n_clocks, j + 1);
          s->clocks[j] = (SeqClock) { c[i].id, c[ref].id, c[i].incr, c[i].ts, c[i].ts, c[ref].ts, c[i].mult };
        }
    }
  return TRUE;
}

/* A packet's timestamp on BOOTTIME (the trace clock when none is given). */
static inline gint64
to_boottime (Seq *s, guint32 clock, guint64 ts)
{
  SeqClock *c;
  gint64 v;

  if (clock < 64)
    return (gint64) ts + st.builtin_offset[clock];
  c = &s->clocks[0];
  if (G_UNLIKELY (s->n_clocks == 0 || c->id != clock))
    {
      guint j;

      for (j = 0; j < s->n_clocks && s->clocks[j].id != clock; j++)
        ;
      if (j == s->n_clocks)
        {
          bad++;  /* a clock never defined on this sequence */
          return (gint64) ts;
        }
      c = &s->clocks[j];
    }
  v = c->incremental ? (c->value += (gint64) ts) : (gint64) ts;
  return c->snap_ref + st.builtin_offset[c->ref] + (v - c->snap_value) * c->mult;
}

/* TrackEvent: type (9), name_iid (10), name (23), track_uuid (11),
 * counter_value (30), double_counter_value (44); every field decoded. */
static gboolean
apply_event (Seq *s, gint64 ts, const guint8 *p, const guint8 *end, guint64 *sum)
{
  guint64 type = 0, name_iid = 0, uuid = 0, sv = 0;
  gboolean has_uuid = FALSE, has_value = FALSE;
  double value = 0;
  guint32 name = G_MAXUINT32;
  Track *t;

  while (p < end)
    {
      guint64 key, v;

      if (!next_field (&p, end, &key, &v))
        return FALSE;
      sv += key ^ v;
      switch (key)
        {
        case 9 << 3: type = v; break;
        case 10 << 3: name_iid = v; break;
        case 11 << 3: uuid = v; has_uuid = TRUE; break;
        case 30 << 3: value = (double) (gint64) v; has_value = TRUE; break;
        case 44 << 3 | TSL_PROTO_I64: value = tsl_proto_double (v); has_value = TRUE; break;
        case 23 << 3 | TSL_PROTO_LEN: name = name_intern (p - v, v); break;
        default: break;
        }
    }
  *sum += sv;
  if (name == G_MAXUINT32 && name_iid != 0)
    {
      if (name_iid >= s->names->len || g_array_index (s->names, guint32, name_iid) == 0)
        return FALSE;  /* an iid never defined */
      name = g_array_index (s->names, guint32, name_iid) - 1;
    }
  if (has_uuid && uuid != s->default_uuid)
    t = track_get (uuid);
  else if ((t = s->default_track) == NULL)
    t = s->default_track = track_get (0);
  switch (type)
    {
    case 1:
      if (G_UNLIKELY (t->depth == t->cap))
        t->stack = g_renew (Open, t->stack, (t->cap = MAX (2 * t->cap, 16)));
      t->stack[t->depth++] = (Open) { name, ts };
      break;
    case 2:
      if (t->depth > 0)
        {
          Open *o = &t->stack[--t->depth];

          stat_add (stat_at (t, o->ts), (double) (ts - o->ts));
        }
      break;
    case 4:
      if (has_value)
        stat_add (stat_at (t, ts), value);
      break;
    default:
      stat_add (stat_at (t, ts), 0);
      break;
    }
  return TRUE;
}

static void
state_packet (const guint8 *p, const guint8 *end, Acc *a)
{
  const guint8 *event = NULL, *interned = NULL, *defaults = NULL, *snapshot = NULL;
  guint64 ev_len = 0, int_len = 0, def_len = 0, snap_len = 0;
  guint64 ts = 0, seq_id = 0, flags = 0, s = 0;
  gboolean cleared = FALSE, has_clock = FALSE;
  guint32 clock = 0;
  gint64 t;
  Seq *seq;

  /* The fields first: a packet's interned data and defaults apply before
   * its event, in whatever order they were written. */
  while (p < end)
    {
      guint64 key, v;

      if (!next_field (&p, end, &key, &v))
        goto bad;
      s += key ^ v;
      switch (key)
        {
        case 8 << 3: ts = v; break;
        case 10 << 3: seq_id = v; break;
        case 13 << 3: flags = v; break;
        case 41 << 3: cleared = v != 0; break;
        case 58 << 3: clock = (guint32) v; has_clock = TRUE; break;
        case 11 << 3 | TSL_PROTO_LEN: event = p - v; ev_len = v; break;
        case 12 << 3 | TSL_PROTO_LEN: interned = p - v; int_len = v; break;
        case 59 << 3 | TSL_PROTO_LEN: defaults = p - v; def_len = v; break;
        case 6 << 3 | TSL_PROTO_LEN: snapshot = p - v; snap_len = v; break;
        default: break;
        }
    }
  seq = seq_get (seq_id);
  if (cleared || (flags & 1))
    {
      g_array_set_size (seq->names, 0);
      seq->default_track = NULL;
      seq->default_uuid = 0;
      seq->clock = 0;
      seq->n_clocks = 0;
    }
  if ((defaults != NULL && !apply_defaults (seq, defaults, defaults + def_len, &s)) ||
      (interned != NULL && !apply_interned (seq, interned, interned + int_len, &s)) ||
      (snapshot != NULL && !apply_snapshot (seq, snapshot, snapshot + snap_len, &s)))
    goto bad;
  if (event == NULL)
    {
      a->sum += s;
      return;
    }
  a->events++;
  if (!has_clock)
    clock = seq->clock;
  t = to_boottime (seq, clock, ts);
  if (!apply_event (seq, t, event, event + ev_len, &s))
    goto bad;
  a->sum += s;
  return;
bad:
  bad++;
  a->sum += s;
}

static gsize
rung_state (const guint8 *p, gsize n, gboolean eof, Acc *a)
{
  (void) eof;
  return walk_packets (p, n, a, state_packet);
}

/* ── sources ────────────────────────────────────────────────────────── */

typedef gsize (*Rung) (const guint8 *p, gsize n, gboolean eof, Acc *a);

typedef struct {
  const char *name;
  Rung rung;
  int source;  /* 0 mmap, 1 read(), 2 zstd */
} Item;

static const guint8 *
map_file (const char *path, gsize *len)
{
  int fd = open (path, O_RDONLY);
  struct stat sb;
  void *m;

  if (fd < 0 || fstat (fd, &sb) < 0)
    g_error ("%s: %s", path, g_strerror (errno));
  *len = sb.st_size;
  m = mmap (NULL, MAX (*len, 1), PROT_READ, MAP_PRIVATE, fd, 0);
  if (m == MAP_FAILED)
    g_error ("%s: %s", path, g_strerror (errno));
  close (fd);
  return m;
}

/* A stream's bytes through `rung`, 1 MiB at a time: what a rung leaves
 * (a packet cut by the read) comes first in the next buffer. */
typedef struct {
  guint8 *buf;
  gsize cap, fill;
} Buf;

static void
buf_room (Buf *b, gsize want)
{
  if (b->cap - b->fill < want)
    {
      b->cap = MAX (b->cap * 2, b->fill + want);
      b->buf = g_realloc (b->buf, b->cap);
    }
}

static void
buf_feed (Buf *b, Rung rung, gboolean eof, Acc *a)
{
  gsize used = rung (b->buf, b->fill, eof, a);

  memmove (b->buf, b->buf + used, b->fill - used);
  b->fill -= used;
}

static void
run_source (const char *path, const char *zst, const Item *item, Acc *a, gsize *bytes)
{
  Buf b = { g_malloc (2 * CHUNK), 2 * CHUNK, 0 };

  *bytes = 0;
  if (item->source == 0)
    {
      gsize len;
      const guint8 *m = map_file (path, &len);

      madvise ((void *) m, len, MADV_SEQUENTIAL);
      if (item->rung (m, len, TRUE, a) != len)
        bad++;
      munmap ((void *) m, MAX (len, 1));
      *bytes = len;
    }
  else if (item->source == 1)
    {
      int fd = open (path, O_RDONLY);
      gssize n;

      if (fd < 0)
        g_error ("%s: %s", path, g_strerror (errno));
      for (;;)
        {
          buf_room (&b, CHUNK);
          if ((n = read (fd, b.buf + b.fill, CHUNK)) <= 0)
            break;
          b.fill += n;
          *bytes += n;
          buf_feed (&b, item->rung, FALSE, a);
        }
      close (fd);
    }
  else
    {
      gsize len;
      const guint8 *m = map_file (zst, &len);
      ZSTD_DCtx *dctx = ZSTD_createDCtx ();
      ZSTD_inBuffer in = { m, len, 0 };

      while (in.pos < in.size)
        {
          ZSTD_outBuffer out;
          gsize r;

          buf_room (&b, CHUNK);
          out = (ZSTD_outBuffer) { b.buf + b.fill, CHUNK, 0 };
          r = ZSTD_decompressStream (dctx, &out, &in);
          if (ZSTD_isError (r))
            g_error ("%s: %s", zst, ZSTD_getErrorName (r));
          b.fill += out.pos;
          *bytes += out.pos;
          buf_feed (&b, item->rung, FALSE, a);
        }
      ZSTD_freeDCtx (dctx);
      munmap ((void *) m, MAX (len, 1));
    }
  if (b.fill > 0)
    buf_feed (&b, item->rung, TRUE, a);
  if (b.fill > 0)
    bad++;  /* a packet cut by the end of the file */
  g_free (b.buf);
}

static double
cpu_now (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* A child's CPU time (user + system), its output to /dev/null. */
static double
run_child (char **argv, const char *threads)
{
  struct rusage ru;
  int status;
  pid_t pid = fork ();

  if (pid == 0)
    {
      int null = open ("/dev/null", O_WRONLY);

      dup2 (null, 1);
      dup2 (null, 2);
      setenv ("TSL_NO_INDEX", "1", 1);
      if (threads != NULL)
        setenv ("TSL_READER_THREADS", threads, 1);
      else
        unsetenv ("TSL_READER_THREADS");
      execvp (argv[0], argv);
      _exit (127);
    }
  if (pid < 0 || wait4 (pid, &status, 0, &ru) != pid || !WIFEXITED (status) || WEXITSTATUS (status) != 0)
    g_error ("%s failed", argv[0]);
  return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

int
main (int argc, char **argv)
{
  static const Item items[] = {
    { "read mmap",     rung_read,   0 },
    { "read 1MiB",     rung_read,   1 },
    { "frame mmap",    rung_frame,  0 },
    { "decode mmap",   rung_decode, 0 },
    { "decode 1MiB",   rung_decode, 1 },
    { "state mmap",    rung_state,  0 },
    { "state 1MiB",    rung_state,  1 },
    { "zstd read",     rung_read,   2 },
    { "zstd decode",   rung_decode, 2 },
    { "zstd state",    rung_state,  2 },
  };
  enum { N_ITEMS = G_N_ELEMENTS (items), N_CHILD = 5 };
  const char *child_names[N_CHILD] = { "wc -l", "timeslice 1 thread", "timeslice default",
                                       "zstd -dc", "timeslice .zst" };
  gint runs = 3;
  const char *only = NULL, *exe = NULL;
  GOptionEntry entries[] = {
    { "runs", 0, 0, G_OPTION_ARG_INT, &runs, "Runs (median)", "N" },
    { "only", 0, 0, G_OPTION_ARG_STRING, &only, "Run one rung once", "NAME" },
    { "timeslice", 0, 0, G_OPTION_ARG_FILENAME, &exe, "Also time EXE info", "EXE" },
    { NULL }
  };
  g_autoptr(GOptionContext) ctx = g_option_context_new ("FILE [FILE.zst]");
  g_autoptr(GError) error = NULL;
  double cpu[N_ITEMS + N_CHILD][16];
  guint64 sums[N_ITEMS] = { 0 }, packets = 0, events[N_ITEMS] = { 0 };
  gsize bytes = 0;
  const char *path, *zst;
  double load[3] = { 0 };

  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &error) || argc < 2)
    {
      g_printerr ("%s\n", error != NULL ? error->message : "FILE missing");
      return 2;
    }
  path = argv[1];
  zst = argc > 2 ? argv[2] : NULL;
  runs = CLAMP (runs, 1, 16);
  getloadavg (load, 3);

  for (gint r = 0; r < (only != NULL ? 1 : runs); r++)
    {
      for (guint i = 0; i < N_ITEMS; i++)
        {
          Acc a = { 0 };
          gsize n;
          double t0;

          if ((only != NULL && !g_str_equal (only, items[i].name)) || (items[i].source == 2 && zst == NULL))
            continue;
          state_init ();
          t0 = cpu_now ();
          run_source (path, zst, &items[i], &a, &n);
          if (only != NULL && items[i].rung == rung_state)
            g_print ("span %" G_GINT64_FORMAT " ns from %" G_GINT64_FORMAT ", %u tracks, %u names, time slice %.0f ns\n",
                     st.last - st.first, st.first, g_hash_table_size (st.tracks),
                     g_hash_table_size (st.names), ldexp (1, st.shift));
          a.sum += state_clear ();
          cpu[i][r] = cpu_now () - t0;
          if (r > 0 && (a.sum != sums[i] || a.events != events[i]))
            g_error ("%s: checksum changed between runs", items[i].name);
          sums[i] = a.sum;
          events[i] = a.events;
          if (items[i].rung == rung_frame)
            packets = a.packets;
          bytes = n;
        }
      if (only != NULL)
        break;
      {
        char *wc[] = { "wc", "-l", (char *) path, NULL };
        char *ts[] = { (char *) exe, "info", (char *) path, NULL };
        char *zd[] = { "sh", "-c", "exec zstd -q -d -c \"$1\" > /dev/null", "sh", (char *) zst, NULL };
        char *tz[] = { (char *) exe, "info", (char *) zst, NULL };

        cpu[N_ITEMS + 0][r] = run_child (wc, NULL);
        if (exe != NULL)
          {
            cpu[N_ITEMS + 1][r] = run_child (ts, "1");
            cpu[N_ITEMS + 2][r] = run_child (ts, NULL);
          }
        if (zst != NULL)
          cpu[N_ITEMS + 3][r] = run_child (zd, NULL);
        if (zst != NULL && exe != NULL)
          cpu[N_ITEMS + 4][r] = run_child (tz, NULL);
      }
    }

  if (only != NULL)
    {
      for (guint i = 0; i < N_ITEMS; i++)
        if (g_str_equal (only, items[i].name))
          g_print ("%s: %zu bytes, events %" G_GUINT64_FORMAT ", checksum %016" G_GINT64_MODIFIER "x, malformed %" G_GUINT64_FORMAT "\n",
                   only, bytes, events[i], sums[i], bad);
      return 0;
    }

  {
    double load_end[3] = { 0 };

    getloadavg (load_end, 3);
    g_print ("%s: %.1f MB, %" G_GUINT64_FORMAT " packets; %d runs, interleaved; load average %.2f at start, %.2f at end; malformed %" G_GUINT64_FORMAT "\n",
             path, bytes / 1e6, packets, runs, load[0], load_end[0], bad / runs);
  }
  g_print ("| rung | CPU s (median) | MB per CPU-s | ns/packet | events | checksum |\n|---|---:|---:|---:|---:|---|\n");
  for (guint i = 0; i < N_ITEMS + N_CHILD; i++)
    {
      const char *name = i < N_ITEMS ? items[i].name : child_names[i - N_ITEMS];
      double m;

      if ((i < N_ITEMS && items[i].source == 2 && zst == NULL) ||
          ((i == N_ITEMS + 1 || i == N_ITEMS + 2 || i == N_ITEMS + 4) && exe == NULL) ||
          ((i == N_ITEMS + 3 || i == N_ITEMS + 4) && zst == NULL))
        continue;
      qsort (cpu[i], runs, sizeof (double), cmp_double);
      m = cpu[i][runs / 2];
      if (i < N_ITEMS)
        g_print ("| %s | %.3f | %.0f | %.1f | %" G_GUINT64_FORMAT " | %016" G_GINT64_MODIFIER "x |\n",
                 name, m, bytes / 1e6 / m, m * 1e9 / MAX (packets, 1), events[i], sums[i]);
      else
        g_print ("| %s | %.3f | %.0f | %.1f | | |\n", name, m, bytes / 1e6 / m, m * 1e9 / MAX (packets, 1));
    }
  return 0;
}
