/* bench-proto-floor-state.c: bench-proto-floor's state rung, decode and the least state
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What a correct Perfetto reader must keep at the least: per sequence
 * interned names (an array index), clocks (incremental timestamps,
 * snapshots), default track; per track a slice stack; per track and time
 * slice (K) min/max/count/sum.
 */
#include <math.h>

#include "bench-proto-floor.h"

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

void
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

guint64
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

gsize
rung_state (const guint8 *p, gsize n, gboolean eof, Acc *a)
{
  (void) eof;
  return walk_packets (p, n, a, state_packet);
}

void
state_print (void)
{
  g_print ("span %" G_GINT64_FORMAT " ns from %" G_GINT64_FORMAT ", %u tracks, %u names, time slice %.0f ns\n",
           st.last - st.first, st.first, g_hash_table_size (st.tracks),
           g_hash_table_size (st.names), ldexp (1, st.shift));
}
