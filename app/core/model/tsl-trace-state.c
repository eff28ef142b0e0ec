/* tsl-trace-state.c: sampler state files — telling one, and writing one
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The layout is docs/state-format.md. Writing is canonical: strings are
 * numbered in the order the body first uses them, processes and threads are
 * sorted by id, tracks keep the order they were made in (a merge appends a
 * later part's new tracks, as one read would have made them), priorities
 * are left out (they are recomputed from the seed). Reading checks every
 * field against what a sampler could hold, so a damaged file never makes a
 * trace that misbehaves later (tsl-trace-state-read.c); merging is
 * tsl-trace-state-merge.c.
 */
#define G_LOG_DOMAIN "tsl-trace-state"

#include <string.h>
#include <gio/gio.h>
#include <glib/gi18n-lib.h>

#include "tsl-trace-private.h"
#include "tsl-trace-state.h"
#include "tsl-trace-state-private.h"

G_DEFINE_QUARK (tsl-state-error-quark, tsl_state_error)

const guint8 _tsl_state_magic[TSL_STATE_MAGIC_LEN] = { 0x89, 'T', 'S', 'S', '\r', '\n', 0x1A, '\n' };

gboolean
tsl_state_sniff (const guint8 *data,
                 gsize         len)
{
  return data != NULL && len >= TSL_STATE_MAGIC_LEN &&
         memcmp (data, _tsl_state_magic, sizeof _tsl_state_magic) == 0;
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
  guint32 flags = (self->has_time ? TSL_STATE_TRACE_HAS_TIME : 0) | (self->has_span ? TSL_STATE_TRACE_HAS_SPAN : 0) |
                  (self->has_cpu ? TSL_STATE_TRACE_HAS_CPU : 0);

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
      put_u32 (w, (t->sampled ? TSL_STATE_TRACK_SAMPLED : 0) | (tsl_trace_track_is_folded (self, i) ? TSL_STATE_TRACK_FOLDED : 0) |
               (t->title != 0 ? TSL_STATE_TRACK_TITLED : 0));
      if (t->title != 0)
        put_str (w, tsl_trace_lookup (self, t->title));

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
  put (w, _tsl_state_magic, sizeof _tsl_state_magic);
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
