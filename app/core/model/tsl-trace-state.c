/* tsl-trace-state.c: sampler state files — saving, loading and merging traces
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The layout is docs/state-format.md. Writing is canonical: strings are
 * numbered in the order the body first uses them, processes and threads are
 * sorted by id, tracks keep the order they were made in (a merge appends a
 * later part's new tracks, as one read would have made them), priorities
 * are left out (they are recomputed from the seed). Reading checks every
 * field against what a sampler could hold, so a damaged file never makes a
 * trace that misbehaves later.
 */
#define G_LOG_DOMAIN "tsl-trace-state"

#include <string.h>
#include <gio/gio.h>
#include <glib/gi18n-lib.h>

#include "tsl-trace-private.h"
#include "tsl-trace-state.h"

G_DEFINE_QUARK (tsl-state-error-quark, tsl_state_error)

static const guint8 magic[TSL_STATE_MAGIC_LEN] = { 0x89, 'T', 'S', 'S', '\r', '\n', 0x1A, '\n' };

/* A file's size at most (a state holds tracks × 2K samples of 80 bytes). */
#define MAX_STATE_BYTES (G_GUINT64_CONSTANT (1) << 36)

enum {
  TRACE_HAS_TIME = 1 << 0,
  TRACE_HAS_SPAN = 1 << 1,
};

enum {
  TRACK_SAMPLED = 1 << 0,
  TRACK_FOLDED = 1 << 1,
};

gboolean
tsl_state_sniff (const guint8 *data,
                 gsize         len)
{
  return data != NULL && len >= TSL_STATE_MAGIC_LEN && memcmp (data, magic, sizeof magic) == 0;
}

gboolean
tsl_state_file_test (const char *path)
{
  g_autoptr(GFile) file = NULL;
  g_autoptr(GFileInputStream) in = NULL;
  guint8 head[TSL_STATE_MAGIC_LEN];
  gsize got = 0;

  if (path == NULL || g_str_equal (path, "-"))
    return FALSE;
  file = g_file_new_for_path (path);
  in = g_file_read (file, NULL, NULL);
  return in != NULL &&
         g_input_stream_read_all (G_INPUT_STREAM (in), head, sizeof head, &got, NULL, NULL) &&
         tsl_state_sniff (head, got);
}

/* Writing
 *
 * The strings come first but are numbered by the body's first uses, so the
 * body is walked twice: once only counting (its length, the strings), then
 * written through a 64 KiB buffer to a stream or into an array of the exact
 * size. A state is never held twice. */

#define WRITE_BUFFER (64 * 1024)

typedef struct {
  GByteArray    *out;       /* written into this, or */
  GOutputStream *stream;    /* through buf into this; neither: counted */
  guint8        *buf;
  gsize          fill;
  GChecksum     *sum;       /* of what reaches `stream` */
  GCancellable  *cancellable;
  GError        *error;     /* the stream's first error: the rest is dropped */
  guint64        len;       /* bytes put */
  GHashTable    *ids;       /* string (owned by `order`) → id */
  GPtrArray     *order;     /* id - 1 → string */
} Writer;

static void
flush (Writer *w)
{
  if (w->fill > 0 && w->error == NULL)
    {
      g_checksum_update (w->sum, w->buf, w->fill);
      g_output_stream_write_all (w->stream, w->buf, w->fill, NULL, w->cancellable, &w->error);
    }
  w->fill = 0;
}

static void
put (Writer     *w,
     const void *data,
     gsize       len)
{
  w->len += len;
  if (w->out != NULL)
    g_byte_array_append (w->out, data, len);
  else if (w->stream != NULL)
    {
      if (w->fill + len > WRITE_BUFFER)
        flush (w);
      if (len > WRITE_BUFFER)
        {
          if (w->error == NULL)
            {
              g_checksum_update (w->sum, data, len);
              g_output_stream_write_all (w->stream, data, len, NULL, w->cancellable, &w->error);
            }
          return;
        }
      memcpy (w->buf + w->fill, data, len);
      w->fill += len;
    }
}

static void
put_u32 (Writer  *w,
         guint32  v)
{
  guint32 le = GUINT32_TO_LE (v);

  put (w, &le, 4);
}

static void
put_u64 (Writer  *w,
         guint64  v)
{
  guint64 le = GUINT64_TO_LE (v);

  put (w, &le, 8);
}

static void
put_i64 (Writer *w,
         gint64  v)
{
  put_u64 (w, (guint64) v);
}

static void
put_f64 (Writer *w,
         double  v)
{
  guint64 bits;

  memcpy (&bits, &v, 8);
  put_u64 (w, bits);
}

static void
put_str (Writer     *w,
         const char *str)
{
  gpointer id;

  if (str == NULL)
    {
      put_u32 (w, 0);
      return;
    }
  if (!g_hash_table_lookup_extended (w->ids, str, NULL, &id))
    {
      char *copy = g_strdup (str);

      g_ptr_array_add (w->order, copy);
      id = GUINT_TO_POINTER (w->order->len);
      g_hash_table_insert (w->ids, copy, id);
    }
  put_u32 (w, GPOINTER_TO_UINT (id));
}

static gint
compare_pids (gconstpointer a,
              gconstpointer b)
{
  gint64 pa = **(const gint64 **) a, pb = **(const gint64 **) b;

  return pa < pb ? -1 : pa > pb;
}

static gint
compare_thread_keys (gconstpointer a,
                     gconstpointer b)
{
  const TrackKey *ka = *(const TrackKey **) a, *kb = *(const TrackKey **) b;

  if (ka->pid != kb->pid)
    return ka->pid < kb->pid ? -1 : 1;
  return ka->tid < kb->tid ? -1 : ka->tid > kb->tid;
}

static void
put_meta (Writer        *w,
          TslTrace      *trace,
          const Meta    *meta)
{
  put_str (w, tsl_trace_lookup (trace, meta->name));
  put_u32 (w, meta->has_sort_index ? 1 : 0);
  put_u32 (w, (guint32) meta->sort_index);
}

/* (GLib 2.74 has no g_hash_table_get_keys_as_ptr_array ().) */
static GPtrArray *
keys_of (GHashTable *table)
{
  GPtrArray *keys = g_ptr_array_sized_new (g_hash_table_size (table));
  GHashTableIter iter;
  gpointer key;

  g_hash_table_iter_init (&iter, table);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    g_ptr_array_add (keys, key);
  return keys;
}

static void
put_body (Writer   *w,
          TslTrace *self)
{
  g_autoptr(GPtrArray) pids = keys_of (self->processes);
  g_autoptr(GPtrArray) threads = keys_of (self->threads);
  guint32 flags = (self->has_time ? TRACE_HAS_TIME : 0) | (self->has_span ? TRACE_HAS_SPAN : 0);

  put_u32 (w, self->mode == TSL_SAMPLER_TIME ? 1 : 0);
  put_u32 (w, self->k);
  put_u64 (w, self->seed);
  put_str (w, self->format);
  put_u32 (w, flags);
  put_i64 (w, self->has_span ? self->span_start : 0);
  put_i64 (w, self->has_span ? self->span_end : 0);
  put_u64 (w, self->events);
  for (guint i = 0; i < 3; i++)
    put_u64 (w, self->flows[i]);
  put_u64 (w, self->dropped_meta);

  if (self->mode == TSL_SAMPLER_TIME)
    {
      TslTimeGridState grid;

      tsl_time_grid_get_state (self->grid, &grid);
      put_u32 (w, grid.level);
      put_u32 (w, grid.has_time ? 1 : 0);
      put_i64 (w, grid.min_slice);
      put_i64 (w, grid.max_slice);
    }

  g_ptr_array_sort (pids, compare_pids);
  put_u32 (w, pids->len);
  for (guint i = 0; i < pids->len; i++)
    {
      const gint64 *pid = g_ptr_array_index (pids, i);

      put_i64 (w, *pid);
      put_meta (w, self, g_hash_table_lookup (self->processes, pid));
    }

  g_ptr_array_sort (threads, compare_thread_keys);
  put_u32 (w, threads->len);
  for (guint i = 0; i < threads->len; i++)
    {
      const TrackKey *key = g_ptr_array_index (threads, i);

      put_i64 (w, key->pid);
      put_i64 (w, key->tid);
      put_meta (w, self, g_hash_table_lookup (self->threads, key));
    }

  put_u32 (w, self->tracks->len);
  for (guint i = 0; i < self->tracks->len; i++)
    {
      Track *t = g_ptr_array_index (self->tracks, i);
      TslSamplerState st;
      const TslSample *samples;
      guint n;

      put_u32 (w, t->key.kind);
      put_i64 (w, t->key.pid);
      put_i64 (w, t->key.tid);
      put_str (w, tsl_trace_lookup (self, t->key.name));
      put_str (w, tsl_trace_lookup (self, t->unit));
      put_u32 (w, (t->sampled ? TRACK_SAMPLED : 0) | (tsl_trace_track_is_folded (self, i) ? TRACK_FOLDED : 0));

      tsl_sampler_get_state (t->sampler, &st);
      samples = tsl_sampler_peek_samples (t->sampler, &n);
      put_u32 (w, st.k);
      put_u32 (w, st.k_asked);
      put_u32 (w, st.level);
      put_u32 (w, st.shift);
      put_u64 (w, st.first_index);
      put_u64 (w, st.n_events);
      put_u32 (w, n);
      for (guint j = 0; j < n; j++)
        {
          const TslSample *s = &samples[j];

          put_i64 (w, s->slice);
          put_u64 (w, s->index);
          put_i64 (w, s->time_ns);
          put_f64 (w, s->value);
          put_str (w, s->label != 0 ? tsl_trace_lookup (self, s->label) : NULL);
          put_u64 (w, s->summary.count);
          put_f64 (w, s->summary.sum);
          put_f64 (w, s->summary.sum_lo);
          put_f64 (w, s->summary.min);
          put_f64 (w, s->summary.max);
        }
    }

  put_u32 (w, tsl_warnings_get_n (self->warnings));
  for (guint i = 0; i < tsl_warnings_get_n (self->warnings); i++)
    {
      guint64 count;
      TslWarningKind kind;
      const char *message = tsl_warnings_get_nth (self->warnings, i, &count, &kind);

      put_str (w, message);
      put_u64 (w, count);
      put_u32 (w, kind);
    }
  put_u64 (w, tsl_warnings_get_dropped (self->warnings));
}

struct _TslStateWriter
{
  TslTrace  *trace;
  GHashTable *ids;
  GPtrArray  *order;
  guint64     strings_len;
  guint64     body_len;     /* the rest of the body, after the strings */
};

/**
 * tsl_state_writer_new:
 *
 * Walks the trace once to number its strings and size its state; the trace
 * must not change (keep it locked) until the writer is written and freed.
 */
TslStateWriter *
tsl_state_writer_new (TslTrace *trace)
{
  TslStateWriter *self;
  Writer w = { 0 };

  g_return_val_if_fail (TSL_IS_TRACE (trace), NULL);

  self = g_new0 (TslStateWriter, 1);
  self->trace = g_object_ref (trace);
  self->ids = g_hash_table_new (g_str_hash, g_str_equal);
  self->order = g_ptr_array_new_with_free_func (g_free);
  w.ids = self->ids;
  w.order = self->order;
  put_body (&w, trace);
  self->body_len = w.len;
  self->strings_len = 4;
  for (guint i = 0; i < self->order->len; i++)
    self->strings_len += 4 + strlen (g_ptr_array_index (self->order, i));
  return self;
}

void
tsl_state_writer_free (TslStateWriter *self)
{
  if (self == NULL)
    return;
  g_object_unref (self->trace);
  g_hash_table_unref (self->ids);
  g_ptr_array_unref (self->order);
  g_free (self);
}

/* The whole state file's size, header and checksum included. */
guint64
tsl_state_writer_get_size (TslStateWriter *self)
{
  return TSL_STATE_HEADER_LEN + self->strings_len + self->body_len + TSL_STATE_CHECKSUM_LEN;
}

/* Everything but the checksum; FALSE if it was not what the counting walk
 * measured (the trace changed in between). */
static gboolean
put_state (TslStateWriter *self,
           Writer         *w)
{
  w->ids = self->ids;
  w->order = self->order;
  put (w, magic, sizeof magic);
  put_u32 (w, TSL_STATE_VERSION);
  put_u32 (w, 0);
  put_u64 (w, self->strings_len + self->body_len);
  put_u32 (w, self->order->len);
  for (guint i = 0; i < self->order->len; i++)
    {
      const char *str = g_ptr_array_index (self->order, i);

      put_u32 (w, strlen (str));
      put (w, str, strlen (str));
    }
  put_body (w, self->trace);
  return w->len == TSL_STATE_HEADER_LEN + self->strings_len + self->body_len;
}

/**
 * tsl_state_writer_write:
 *
 * Writes the state file to @out (not closed), in 64 KiB pieces.
 */
gboolean
tsl_state_writer_write (TslStateWriter *self,
                        GOutputStream  *out,
                        GCancellable   *cancellable,
                        GError        **error)
{
  g_autoptr(GChecksum) sum = g_checksum_new (G_CHECKSUM_SHA256);
  g_autofree guint8 *buf = g_malloc (WRITE_BUFFER);
  guint8 digest[TSL_STATE_CHECKSUM_LEN];
  gsize digest_len = sizeof digest;
  Writer w = { 0 };

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (G_IS_OUTPUT_STREAM (out), FALSE);

  w.stream = out;
  w.buf = buf;
  w.sum = sum;
  w.cancellable = cancellable;
  if (!put_state (self, &w) && w.error == NULL)
    w.error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_FAILED, "the trace changed while its state was written");
  flush (&w);
  if (w.error == NULL)
    {
      g_checksum_get_digest (sum, digest, &digest_len);
      g_output_stream_write_all (out, digest, sizeof digest, NULL, cancellable, &w.error);
    }
  if (w.error != NULL)
    {
      g_propagate_error (error, w.error);
      return FALSE;
    }
  return TRUE;
}

/**
 * tsl_trace_save_state:
 *
 * Returns: (transfer full): the trace's state, ready to be written.
 */
GBytes *
tsl_trace_save_state (TslTrace *self)
{
  g_autoptr(TslStateWriter) writer = NULL;
  g_autoptr(GChecksum) sum = g_checksum_new (G_CHECKSUM_SHA256);
  g_autoptr(GByteArray) file = NULL;
  guint8 digest[TSL_STATE_CHECKSUM_LEN];
  gsize digest_len = sizeof digest;
  Writer w = { 0 };

  g_return_val_if_fail (TSL_IS_TRACE (self), NULL);

  writer = tsl_state_writer_new (self);
  file = g_byte_array_sized_new (tsl_state_writer_get_size (writer));
  w.out = file;
  if (!put_state (writer, &w))
    g_warn_if_reached ();
  g_checksum_update (sum, file->data, file->len);
  g_checksum_get_digest (sum, digest, &digest_len);
  g_byte_array_append (file, digest, sizeof digest);
  return g_byte_array_free_to_bytes (g_steal_pointer (&file));
}

/* Reading */

typedef struct {
  const guint8 *data;
  gsize         len;      /* up to the checksum */
  gsize         pos;
  const char   *name;
  GPtrArray    *strings;  /* id - 1 → string, borrowed from `data` copies */
  GError      **error;
  gboolean      failed;
} Reader;

static gboolean
fail (Reader     *r,
      gsize       at,
      const char *what)
{
  if (!r->failed)
    g_set_error (r->error, TSL_STATE_ERROR, TSL_STATE_ERROR_CORRUPT,
                 _("%s: byte %llu: %s: the sampler state is damaged"),
                 r->name, (unsigned long long) at, what);
  r->failed = TRUE;
  return FALSE;
}

static gboolean
take (Reader     *r,
      gsize       n,
      const void **out)
{
  if (r->failed)
    return FALSE;
  if (n > r->len - r->pos)
    return fail (r, r->pos, "the body ends inside a field");
  *out = r->data + r->pos;
  r->pos += n;
  return TRUE;
}

static guint32
get_u32 (Reader *r)
{
  const void *p;
  guint32 v;

  if (!take (r, 4, &p))
    return 0;
  memcpy (&v, p, 4);
  return GUINT32_FROM_LE (v);
}

static guint64
get_u64 (Reader *r)
{
  const void *p;
  guint64 v;

  if (!take (r, 8, &p))
    return 0;
  memcpy (&v, p, 8);
  return GUINT64_FROM_LE (v);
}

static gint64
get_i64 (Reader *r)
{
  return (gint64) get_u64 (r);
}

static double
get_f64 (Reader *r)
{
  guint64 bits = get_u64 (r);
  double v;

  memcpy (&v, &bits, 8);
  return v;
}

/* A string id: NULL for 0 (and on error). */
static const char *
get_str (Reader *r)
{
  gsize at = r->pos;
  guint32 id = get_u32 (r);

  if (r->failed || id == 0)
    return NULL;
  if (id > r->strings->len)
    {
      fail (r, at, "no such string");
      return NULL;
    }
  return g_ptr_array_index (r->strings, id - 1);
}

/* A count of `size`-byte records that must fit in what is left. */
static guint32
get_count (Reader *r,
           gsize   size)
{
  gsize at = r->pos;
  guint32 n = get_u32 (r);

  if (!r->failed && (guint64) n * size > r->len - r->pos)
    {
      fail (r, at, "more records than bytes left");
      return 0;
    }
  return n;
}

static gboolean
read_strings (Reader *r)
{
  guint32 n = get_count (r, 4);

  for (guint32 i = 0; i < n && !r->failed; i++)
    {
      gsize at = r->pos;
      guint32 len = get_u32 (r);
      const void *p;

      if (!take (r, len, &p))
        return FALSE;
      if (memchr (p, '\0', len) != NULL || !g_utf8_validate (p, len, NULL))
        return fail (r, at, "a string is not UTF-8 text");
      g_ptr_array_add (r->strings, g_strndup (p, len));
    }
  return !r->failed;
}

static void
read_meta (Reader   *r,
           TslTrace *self,
           Meta     *meta)
{
  meta->name = tsl_trace_intern (self, get_str (r));
  meta->has_sort_index = get_u32 (r) != 0;
  meta->sort_index = (int) get_u32 (r);
}

static gboolean
read_track (Reader   *r,
            TslTrace *self)
{
  TrackKey key = { 0 };
  TslSamplerState st = { 0 };
  g_autofree TslSample *samples = NULL;
  g_autoptr(GError) local_error = NULL;
  TslSampler *sampler;
  gsize at = r->pos;
  const char *name, *unit;
  guint32 kind, flags, n;
  guint index;

  kind = get_u32 (r);
  key.pid = get_i64 (r);
  key.tid = get_i64 (r);
  name = get_str (r);
  unit = get_str (r);
  flags = get_u32 (r);
  if (!r->failed && (kind >= TSL_TRACE_N_KINDS || flags > (TRACK_SAMPLED | TRACK_FOLDED)))
    return fail (r, at, "unknown track kind or flags");
  /* Threads are named by their metadata; every other track by its key. */
  if (!r->failed && (name == NULL) != (kind == TSL_TRACK_THREAD && !(flags & TRACK_FOLDED)))
    return fail (r, at, "a track's name is missing or not expected");
  key.kind = kind;
  key.name = tsl_trace_intern (self, name);
  if (!r->failed &&
      (((flags & TRACK_FOLDED) && self->fold_tracks[kind] != 0) ||
       (!(flags & TRACK_FOLDED) && g_hash_table_contains (self->track_ids, &key))))
    return fail (r, at, "a track is there twice");

  st.mode = self->mode;
  st.seed = self->seed;
  st.k = get_u32 (r);
  st.k_asked = get_u32 (r);
  st.level = get_u32 (r);
  st.shift = get_u32 (r);
  st.first_index = get_u64 (r);
  st.n_events = get_u64 (r);
  at = r->pos;
  n = get_count (r, 76);
  if (r->failed)
    return FALSE;
  samples = g_new0 (TslSample, MAX (n, 1));
  for (guint32 j = 0; j < n && !r->failed; j++)
    {
      TslSample *s = &samples[j];
      const char *label;

      s->slice = get_i64 (r);
      s->index = get_u64 (r);
      s->time_ns = get_i64 (r);
      s->value = get_f64 (r);
      label = get_str (r);
      if (label != NULL)
        s->label = tsl_label_store_intern_len (self->labels, label, strlen (label));
      s->summary.count = get_u64 (r);
      s->summary.sum = get_f64 (r);
      s->summary.sum_lo = get_f64 (r);
      s->summary.min = get_f64 (r);
      s->summary.max = get_f64 (r);
    }
  if (r->failed)
    return FALSE;

  sampler = tsl_sampler_new_from_state (&st, self->grid, samples, n, &local_error);
  if (sampler == NULL)
    return fail (r, at, local_error->message);
  index = _tsl_trace_add_track (self, &key, sampler, (flags & TRACK_FOLDED) != 0);
  if (unit != NULL)
    ((Track *) g_ptr_array_index (self->tracks, index))->unit = tsl_trace_intern (self, unit);
  ((Track *) g_ptr_array_index (self->tracks, index))->sampled = (flags & TRACK_SAMPLED) != 0;
  return TRUE;
}

static gboolean
read_body (Reader   *r,
           TslTrace *self,
           gboolean  warn)
{
  gsize at;
  guint32 mode, k, flags, n;
  guint64 seed;
  const char *format;

  if (!read_strings (r))
    return FALSE;

  at = r->pos;
  mode = get_u32 (r);
  k = get_u32 (r);
  seed = get_u64 (r);
  if (!r->failed && (mode > 1 || k == 0 || k > G_MAXINT / 4))
    return fail (r, at, "unknown sampler mode or K");
  format = get_str (r);
  flags = get_u32 (r);
  self->span_start = get_i64 (r);
  self->span_end = get_i64 (r);
  self->events = get_u64 (r);
  for (guint i = 0; i < 3; i++)
    self->flows[i] = get_u64 (r);
  self->dropped_meta = get_u64 (r);
  if (r->failed)
    return FALSE;
  if (flags > (TRACE_HAS_TIME | TRACE_HAS_SPAN) ||
      ((flags & TRACE_HAS_SPAN) && self->span_start > self->span_end))
    return fail (r, at, "bad trace flags or span");

  if (warn && (mode != (self->mode == TSL_SAMPLER_TIME) || k != self->k || seed != self->seed))
    tsl_trace_add_warning (self, _("%s is a sampler state of %s mode with K = %u and seed %llu: "
                                   "it is shown as it was sampled"),
                           r->name, mode == 1 ? "time" : "count", k, (unsigned long long) seed);
  /* A state holds samples only: no exact slices to show. */
  g_clear_pointer (&self->exact, tsl_exact_free);
  self->mode = mode == 1 ? TSL_SAMPLER_TIME : TSL_SAMPLER_COUNT;
  self->k = k;
  self->seed = seed;
  tsl_trace_set_format (self, format);
  self->has_time = (flags & TRACE_HAS_TIME) != 0;
  self->has_span = (flags & TRACE_HAS_SPAN) != 0;
  g_clear_pointer (&self->grid, tsl_time_grid_unref);

  if (self->mode == TSL_SAMPLER_TIME)
    {
      TslTimeGridState grid = { .k = k };
      g_autoptr(GError) local_error = NULL;

      at = r->pos;
      grid.level = get_u32 (r);
      grid.has_time = get_u32 (r) != 0;
      grid.min_slice = get_i64 (r);
      grid.max_slice = get_i64 (r);
      if (r->failed)
        return FALSE;
      self->grid = tsl_time_grid_new_from_state (&grid, &local_error);
      if (self->grid == NULL)
        return fail (r, at, local_error->message);
    }

  n = get_count (r, 20);
  for (guint32 i = 0; i < n && !r->failed; i++)
    {
      gint64 pid;
      Meta *meta = g_new0 (Meta, 1);

      at = r->pos;
      pid = get_i64 (r);
      read_meta (r, self, meta);
      if (!r->failed && g_hash_table_contains (self->processes, &pid))
        fail (r, at, "a process is there twice");
      if (r->failed)
        {
          g_free (meta);
          return FALSE;
        }
      g_hash_table_insert (self->processes, g_memdup2 (&pid, sizeof pid), meta);
    }

  n = get_count (r, 28);
  for (guint32 i = 0; i < n && !r->failed; i++)
    {
      TrackKey key = { TSL_TRACK_THREAD, 0, 0, 0 };
      Meta *meta = g_new0 (Meta, 1);

      at = r->pos;
      key.pid = get_i64 (r);
      key.tid = get_i64 (r);
      read_meta (r, self, meta);
      if (!r->failed && g_hash_table_contains (self->threads, &key))
        fail (r, at, "a thread is there twice");
      if (r->failed)
        {
          g_free (meta);
          return FALSE;
        }
      g_hash_table_insert (self->threads, g_memdup2 (&key, sizeof key), meta);
    }

  n = get_count (r, 68);
  for (guint32 i = 0; i < n; i++)
    if (!read_track (r, self))
      return FALSE;

  n = get_count (r, 16);
  for (guint32 i = 0; i < n && !r->failed; i++)
    {
      const char *message;
      guint64 count;
      guint32 kind;

      at = r->pos;
      message = get_str (r);
      count = get_u64 (r);
      /* 0 counted, 1 a fact (once), 2 a tally */
      kind = get_u32 (r);
      if (!r->failed && (message == NULL || count == 0 || kind > TSL_WARNING_TALLY ||
                         (kind == TSL_WARNING_ONCE && count != 1)))
        return fail (r, at, "an empty warning");
      if (!r->failed)
        tsl_warnings_add_counted (self->warnings, message, count, kind);
    }
  tsl_warnings_add_dropped (self->warnings, get_u64 (r));
  if (!r->failed && r->pos != r->len)
    return fail (r, r->pos, "bytes after the last warning");
  return !r->failed;
}

/* The header, the length and the checksum; sets the body's bounds. */
static gboolean
check_frame (const guint8 *data,
             gsize         len,
             const char   *name,
             gsize        *body_end,
             GError      **error)
{
  g_autoptr(GChecksum) sum = NULL;
  guint8 digest[TSL_STATE_CHECKSUM_LEN];
  gsize digest_len = sizeof digest;
  guint32 version, flags;
  guint64 body_len;

  if (!tsl_state_sniff (data, len))
    {
      g_set_error (error, TSL_STATE_ERROR, TSL_STATE_ERROR_FOREIGN,
                   _("%s: byte 0: not a Timeslice sampler state (no “\\x89TSS” magic)"), name);
      return FALSE;
    }
  if (len < TSL_STATE_HEADER_LEN)
    {
      g_set_error (error, TSL_STATE_ERROR, TSL_STATE_ERROR_TRUNCATED,
                   _("%s: byte %llu: the sampler state is truncated inside its header"),
                   name, (unsigned long long) len);
      return FALSE;
    }
  memcpy (&version, data + 8, 4);
  memcpy (&flags, data + 12, 4);
  memcpy (&body_len, data + 16, 8);
  version = GUINT32_FROM_LE (version);
  flags = GUINT32_FROM_LE (flags);
  body_len = GUINT64_FROM_LE (body_len);
  if (version > TSL_STATE_VERSION)
    {
      g_set_error (error, TSL_STATE_ERROR, TSL_STATE_ERROR_VERSION,
                   _("%s: byte 8: sampler state version %u is newer than this Timeslice reads (%u)"),
                   name, version, TSL_STATE_VERSION);
      return FALSE;
    }
  if (version == 0 || flags != 0)
    {
      g_set_error (error, TSL_STATE_ERROR, TSL_STATE_ERROR_CORRUPT,
                   _("%s: byte 8: unknown sampler state version %u or flags 0x%x: the sampler state is damaged"),
                   name, version, flags);
      return FALSE;
    }
  if (body_len > MAX_STATE_BYTES || len - TSL_STATE_HEADER_LEN < TSL_STATE_CHECKSUM_LEN ||
      body_len > len - TSL_STATE_HEADER_LEN - TSL_STATE_CHECKSUM_LEN)
    {
      g_set_error (error, TSL_STATE_ERROR, TSL_STATE_ERROR_TRUNCATED,
                   _("%s: byte %llu: the sampler state is truncated (its header gives "
                     "%llu bytes of body and checksum)"),
                   name, (unsigned long long) len, (unsigned long long) (body_len + TSL_STATE_CHECKSUM_LEN));
      return FALSE;
    }
  if (body_len < len - TSL_STATE_HEADER_LEN - TSL_STATE_CHECKSUM_LEN)
    {
      g_set_error (error, TSL_STATE_ERROR, TSL_STATE_ERROR_CORRUPT,
                   _("%s: byte %llu: bytes after the end of the sampler state: it is damaged"),
                   name, (unsigned long long) (TSL_STATE_HEADER_LEN + body_len + TSL_STATE_CHECKSUM_LEN));
      return FALSE;
    }

  *body_end = TSL_STATE_HEADER_LEN + body_len;
  sum = g_checksum_new (G_CHECKSUM_SHA256);
  g_checksum_update (sum, data, *body_end);
  g_checksum_get_digest (sum, digest, &digest_len);
  if (memcmp (digest, data + *body_end, sizeof digest) != 0)
    {
      g_set_error (error, TSL_STATE_ERROR, TSL_STATE_ERROR_CORRUPT,
                   _("%s: byte %llu: the checksum does not match: the sampler state is damaged"),
                   name, (unsigned long long) *body_end);
      return FALSE;
    }
  return TRUE;
}

static gboolean
load_state (TslTrace    *self,
            GBytes      *state,
            const char  *display_name,
            gboolean     warn,
            GError     **error)
{
  g_autoptr(GPtrArray) strings = g_ptr_array_new_with_free_func (g_free);
  gsize len, body_end;
  const guint8 *data;
  Reader r = { 0 };

  data = g_bytes_get_data (state, &len);
  if (display_name == NULL)
    display_name = "-";
  if (!check_frame (data, len, display_name, &body_end, error))
    return FALSE;

  r.data = data;
  r.len = body_end;
  r.pos = TSL_STATE_HEADER_LEN;
  r.name = display_name;
  r.strings = strings;
  r.error = error;
  if (read_body (&r, self, warn))
    return TRUE;

  /* Nothing half-loaded stays: the trace is as empty as it came. */
  tsl_budget_give (self->budget, (gsize) self->tracks->len * TRACK_COST);
  g_hash_table_remove_all (self->track_ids);
  g_ptr_array_set_size (self->tracks, 0);
  memset (self->fold_tracks, 0, sizeof self->fold_tracks);
  g_hash_table_remove_all (self->processes);
  g_hash_table_remove_all (self->threads);
  tsl_trace_forget_counts (self);
  self->dropped_meta = 0;
  return FALSE;
}

gboolean
tsl_trace_load_state (TslTrace    *self,
                      GBytes      *state,
                      const char  *display_name,
                      GError     **error)
{
  g_return_val_if_fail (TSL_IS_TRACE (self), FALSE);
  g_return_val_if_fail (state != NULL, FALSE);
  g_return_val_if_fail (self->tracks->len == 0, FALSE);

  return load_state (self, state, display_name, TRUE, error);
}

/**
 * tsl_trace_new_from_state:
 *
 * Returns: (transfer full) (nullable): the trace, with the state's mode, K
 *   and seed, or NULL with `error` set.
 */
TslTrace *
tsl_trace_new_from_state (GBytes      *state,
                          const char  *display_name,
                          GError     **error)
{
  g_autoptr(TslTrace) trace = tsl_trace_new (TSL_SAMPLER_COUNT, 1, 0);

  g_return_val_if_fail (state != NULL, NULL);

  if (!load_state (trace, state, display_name, FALSE, error))
    return NULL;
  return g_steal_pointer (&trace);
}

TslTrace *
tsl_trace_new_from_state_file (const char  *path,
                               GError     **error)
{
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GMappedFile) mapped = NULL;
  g_autoptr(GError) local_error = NULL;

  g_return_val_if_fail (path != NULL, NULL);

  mapped = g_mapped_file_new (path, FALSE, &local_error);
  if (mapped == NULL)
    {
      g_propagate_prefixed_error (error, g_steal_pointer (&local_error), "%s: ", path);
      return NULL;
    }
  bytes = g_mapped_file_get_bytes (mapped);
  return tsl_trace_new_from_state (bytes, path, error);
}

/* Merging */

static char *
key_string (TslTrace       *trace,
            const TrackKey *key)
{
  const char *name = tsl_trace_lookup (trace, key->name);

  return g_strdup_printf ("%d\x1f%" G_GINT64_FORMAT "\x1f%" G_GINT64_FORMAT "\x1f%s",
                          key->kind, key->pid, key->tid, name != NULL ? name : "");
}

guint64
_tsl_trace_first_index (TslTrace       *self,
                        const TrackKey *key)
{
  g_autofree char *str = NULL;
  const guint64 *n;

  if (self->first_indices == NULL)
    return 0;
  str = key_string (self, key);
  n = g_hash_table_lookup (self->first_indices, str);
  return n != NULL ? *n : 0;
}

void
tsl_trace_count_after (TslTrace *self,
                       TslTrace *earlier)
{
  g_return_if_fail (TSL_IS_TRACE (self));
  g_return_if_fail (TSL_IS_TRACE (earlier));

  if (self->first_indices == NULL)
    self->first_indices = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  for (guint i = 0; i < earlier->tracks->len; i++)
    {
      Track *t = g_ptr_array_index (earlier->tracks, i);
      g_autofree char *str = key_string (earlier, &t->key);
      guint64 *n = g_hash_table_lookup (self->first_indices, str);

      if (n == NULL)
        {
          n = g_new0 (guint64, 1);
          g_hash_table_insert (self->first_indices, g_steal_pointer (&str), n);
        }
      *n += tsl_sampler_get_events (t->sampler);
    }
}

static gint64
move_pid (gint64 pid,
          guint  group_index)
{
  return (gint64) ((guint64) pid + ((guint64) group_index << 40));
}

/* `other`'s key in `self`'s terms. */
static TrackKey
translate_key (TslTrace       *self,
               TslTrace       *other,
               const TrackKey *key,
               const char     *group,
               guint           group_index)
{
  TrackKey out = *key;

  out.name = tsl_trace_intern (self, tsl_trace_lookup (other, key->name));
  if (group != NULL)
    out.pid = move_pid (key->pid, group_index);
  return out;
}

/* A copy of `other`'s sampler, its labels in `self`'s store, on `other`'s grid. */
static TslSampler *
copy_sampler (TslTrace   *self,
              TslTrace   *other,
              TslSampler *src,
              GError    **error)
{
  g_autofree TslSample *samples = NULL;
  const TslSample *held;
  TslSamplerState st;
  guint n;

  tsl_sampler_get_state (src, &st);
  held = tsl_sampler_peek_samples (src, &n);
  samples = g_memdup2 (held, MAX (n, 1) * sizeof *samples);
  for (guint i = 0; i < n; i++)
    {
      const char *label = samples[i].label != 0 ? tsl_trace_lookup (other, samples[i].label) : NULL;

      samples[i].label = label != NULL ? tsl_label_store_intern_len (self->labels, label, strlen (label)) : 0;
    }
  return tsl_sampler_new_from_state (&st, other->grid, samples, n, error);
}

static gboolean
merge_error (GError    **error,
             const char *format,
             ...) G_GNUC_PRINTF (2, 3);

static gboolean
merge_error (GError    **error,
             const char *format,
             ...)
{
  va_list args;
  g_autofree char *message = NULL;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error_literal (error, TSL_STATE_ERROR, TSL_STATE_ERROR_MERGE, message);
  return FALSE;
}

/* The track of `self` that `other`'s track `i` goes to, or -1 for a new one. */
static gint
find_track (TslTrace       *self,
            TslTrace       *other,
            guint           i,
            const TrackKey *key)
{
  gpointer found;

  if (tsl_trace_track_is_folded (other, i))
    {
      guint kind = MIN ((guint) key->kind, TSL_TRACE_N_KINDS - 1);

      return self->fold_tracks[kind] != 0 ? (gint) self->fold_tracks[kind] - 1 : -1;
    }
  found = g_hash_table_lookup (self->track_ids, key);
  return found != NULL ? (gint) GPOINTER_TO_UINT (found) - 1 : -1;
}

/* Count mode: every track of `other` must start where `self`'s ends. */
static gboolean
check_contiguous (TslTrace *self,
                  TslTrace *other,
                  GError  **error)
{
  for (guint i = 0; i < other->tracks->len; i++)
    {
      Track *t = g_ptr_array_index (other->tracks, i);
      TrackKey key = translate_key (self, other, &t->key, NULL, 0);
      gint mine = find_track (self, other, i, &key);
      guint64 expected = 0;

      if (mine >= 0)
        expected = tsl_sampler_get_first_index (tsl_trace_track_get_sampler (self, mine)) +
                   tsl_sampler_get_events (tsl_trace_track_get_sampler (self, mine));
      if (tsl_sampler_get_first_index (t->sampler) != expected)
        return merge_error (error,
                            _("count-mode states merge only when each part numbers its events after the "
                              "earlier parts’: track “%s” starts at event %llu, not %llu "
                              "(sample the part with --after EARLIER.tss…, or in time mode)"),
                            tsl_trace_track_get_name (other, i),
                            (unsigned long long) tsl_sampler_get_first_index (t->sampler),
                            (unsigned long long) expected);
    }
  return TRUE;
}

static void
merge_meta (TslTrace   *self,
            TslTrace   *other,
            Meta       *into,
            const Meta *from)
{
  if (from->name != 0)
    into->name = tsl_trace_intern (self, tsl_trace_lookup (other, from->name));
  if (from->has_sort_index)
    {
      into->has_sort_index = TRUE;
      into->sort_index = from->sort_index;
    }
}

static void
merge_processes (TslTrace   *self,
                 TslTrace   *other,
                 const char *group,
                 guint       group_index)
{
  GHashTableIter iter;
  gpointer k, v;

  g_hash_table_iter_init (&iter, other->processes);
  while (g_hash_table_iter_next (&iter, &k, &v))
    {
      gint64 pid = group != NULL ? move_pid (*(gint64 *) k, group_index) : *(gint64 *) k;
      Meta *meta = g_hash_table_lookup (self->processes, &pid);

      if (meta == NULL)
        {
          meta = g_new0 (Meta, 1);
          g_hash_table_insert (self->processes, g_memdup2 (&pid, sizeof pid), meta);
        }
      merge_meta (self, other, meta, v);
    }

  g_hash_table_iter_init (&iter, other->threads);
  while (g_hash_table_iter_next (&iter, &k, &v))
    {
      TrackKey key = *(TrackKey *) k;
      Meta *meta;

      if (group != NULL)
        key.pid = move_pid (key.pid, group_index);
      meta = g_hash_table_lookup (self->threads, &key);
      if (meta == NULL)
        {
          meta = g_new0 (Meta, 1);
          g_hash_table_insert (self->threads, g_memdup2 (&key, sizeof key), meta);
        }
      merge_meta (self, other, meta, v);
    }
}

/* Every process of a group is named after it, so its tracks show together. */
static void
name_group (TslTrace   *self,
            TslTrace   *other,
            const char *group,
            guint       group_index)
{
  g_autoptr(GHashTable) pids = g_hash_table_new (g_int64_hash, g_int64_equal);

  for (guint i = 0; i < other->tracks->len; i++)
    {
      Track *t = g_ptr_array_index (other->tracks, i);

      g_hash_table_add (pids, &t->key.pid);
    }
  {
    GHashTableIter iter;
    gpointer k;

    g_hash_table_iter_init (&iter, other->processes);
    while (g_hash_table_iter_next (&iter, &k, NULL))
      g_hash_table_add (pids, k);
    g_hash_table_iter_init (&iter, pids);
    while (g_hash_table_iter_next (&iter, &k, NULL))
      {
        gint64 pid = *(gint64 *) k;
        const char *name = tsl_trace_get_process_name (other, pid);
        g_autofree char *named = name != NULL ? g_strdup_printf ("%s: %s", group, name) : g_strdup (group);
        gint64 moved = move_pid (pid, group_index);
        Meta *meta = g_hash_table_lookup (self->processes, &moved);

        if (meta == NULL)
          {
            meta = g_new0 (Meta, 1);
            g_hash_table_insert (self->processes, g_memdup2 (&moved, sizeof moved), meta);
          }
        meta->name = tsl_trace_intern (self, named);
      }
  }
}

gboolean
tsl_trace_merge (TslTrace    *self,
                 TslTrace    *other,
                 const char  *group,
                 guint        group_index,
                 GError     **error)
{
  g_autofree TslSampler **copies = NULL;
  gboolean was_empty;

  g_return_val_if_fail (TSL_IS_TRACE (self), FALSE);
  g_return_val_if_fail (TSL_IS_TRACE (other), FALSE);
  g_return_val_if_fail (self != other, FALSE);

  if (self->mode != other->mode || self->k != other->k || self->seed != other->seed)
    return merge_error (error, _("cannot merge a state of %s mode, K = %u, seed %llu "
                                 "with one of %s mode, K = %u, seed %llu"),
                        self->mode == TSL_SAMPLER_TIME ? "time" : "count", self->k,
                        (unsigned long long) self->seed,
                        other->mode == TSL_SAMPLER_TIME ? "time" : "count", other->k,
                        (unsigned long long) other->seed);
  if (group == NULL && self->format != NULL && other->format != NULL &&
      !g_str_equal (self->format, other->format))
    return merge_error (error, _("cannot merge parts of one stream read as %s and as %s "
                                 "(merge them as separate sources instead)"),
                        self->format, other->format);
  if (group == NULL && self->mode == TSL_SAMPLER_COUNT && !check_contiguous (self, other, error))
    return FALSE;

  /* Every copy first, so that an error leaves `self` as it was. */
  copies = g_new0 (TslSampler *, MAX (other->tracks->len, 1));
  for (guint i = 0; i < other->tracks->len; i++)
    {
      Track *t = g_ptr_array_index (other->tracks, i);

      copies[i] = copy_sampler (self, other, t->sampler, error);
      if (copies[i] == NULL)
        {
          for (guint j = 0; j < i; j++)
            tsl_sampler_free (copies[j]);
          return FALSE;
        }
    }

  was_empty = self->tracks->len == 0 && self->format == NULL && self->events == 0;
  if (self->mode == TSL_SAMPLER_TIME)
    tsl_time_grid_merge (self->grid, other->grid);

  for (guint i = 0; i < other->tracks->len; i++)
    {
      Track *t = g_ptr_array_index (other->tracks, i);
      TrackKey key = translate_key (self, other, &t->key, group, group_index);
      gint mine = find_track (self, other, i, &key);
      TslSampler *copy = g_steal_pointer (&copies[i]);
      Track *into;

      if (mine < 0)
        {
          TslSampler *sampler = copy;

          if (self->mode == TSL_SAMPLER_TIME)
            {
              /* Lifted onto self's grid by a merge into an empty sampler. */
              sampler = tsl_sampler_new_time (self->grid, self->seed);
              tsl_sampler_merge (sampler, copy, NULL);
              tsl_sampler_free (copy);
            }
          mine = _tsl_trace_add_track (self, &key, sampler, tsl_trace_track_is_folded (other, i));
          into = g_ptr_array_index (self->tracks, mine);
          into->unit = tsl_trace_intern (self, tsl_trace_lookup (other, t->unit));
          into->sampled = t->sampled;
          continue;
        }

      into = g_ptr_array_index (self->tracks, mine);
      /* Checked above (count mode) or always possible (time mode). */
      if (!tsl_sampler_merge (into->sampler, copy, NULL))
        g_warn_if_reached ();
      tsl_sampler_free (copy);
      if (t->unit != 0)
        into->unit = tsl_trace_intern (self, tsl_trace_lookup (other, t->unit));
      into->sampled = into->sampled || t->sampled;
    }

  merge_processes (self, other, group, group_index);
  if (group != NULL)
    name_group (self, other, group, group_index);

  self->events += other->events;
  for (guint i = 0; i < 3; i++)
    self->flows[i] += other->flows[i];
  self->dropped_meta += other->dropped_meta;
  if (other->has_span)
    {
      self->span_start = self->has_span ? MIN (self->span_start, other->span_start) : other->span_start;
      self->span_end = self->has_span ? MAX (self->span_end, other->span_end) : other->span_end;
      self->has_span = TRUE;
    }
  if (was_empty)
    self->has_time = other->has_time;
  else if (group != NULL)
    self->has_time = self->has_time || other->has_time;
  if (self->format == NULL)
    tsl_trace_set_format (self, other->format);
  else if (group != NULL && other->format != NULL && strstr (self->format, other->format) == NULL)
    {
      g_autofree char *both = g_strdup_printf ("%s+%s", self->format, other->format);

      tsl_trace_set_format (self, both);
    }

  for (guint i = 0; i < tsl_warnings_get_n (other->warnings); i++)
    {
      guint64 count;
      TslWarningKind kind;
      const char *message = tsl_warnings_get_nth (other->warnings, i, &count, &kind);
      g_autofree char *prefixed = NULL;

      /* A tally is shown count first ("63,278 … not shown"): its source
       * goes last, "63,278 … not shown (a)", not between the two. */
      if (group != NULL)
        prefixed = kind == TSL_WARNING_TALLY ? g_strdup_printf ("%s (%s)", message, group)
                                             : g_strdup_printf ("%s: %s", group, message);

      tsl_warnings_add_counted (self->warnings, prefixed != NULL ? prefixed : message, count, kind);
    }
  tsl_warnings_add_dropped (self->warnings, tsl_warnings_get_dropped (other->warnings));
  self->changes++;

  _tsl_trace_collect_labels (self);
  return TRUE;
}
