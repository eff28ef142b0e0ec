/* tsl-trace-state-read.c: sampler state files read back, every field checked
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Reading checks every field against what a sampler could hold, so a
 * damaged file never makes a trace that misbehaves later
 * (docs/state-format.md).
 */
#define G_LOG_DOMAIN "tsl-trace-state"

#include <string.h>
#include <gio/gio.h>
#include <glib/gi18n-lib.h>

#include "tsl-trace-private.h"
#include "tsl-trace-state.h"
#include "tsl-trace-state-private.h"

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
  const char *name, *unit, *title = NULL;
  guint32 kind, flags, n;
  guint index;

  kind = get_u32 (r);
  key.pid = get_i64 (r);
  key.tid = get_i64 (r);
  name = get_str (r);
  unit = get_str (r);
  flags = get_u32 (r);
  if (!r->failed && (kind >= TSL_TRACE_N_KINDS ||
                     flags > (TSL_STATE_TRACK_SAMPLED | TSL_STATE_TRACK_FOLDED | TSL_STATE_TRACK_TITLED)))
    return fail (r, at, "unknown track kind or flags");
  if (flags & TSL_STATE_TRACK_TITLED)
    {
      title = get_str (r);
      /* Titles name tracks whose key is an id: never threads or fold tracks. */
      if (!r->failed && (title == NULL || kind == TSL_TRACK_THREAD || (flags & TSL_STATE_TRACK_FOLDED)))
        return fail (r, at, "a track's title is empty or not expected");
    }
  /* Threads are named by their metadata (a thread's part, a profile beside
   * its spans, by its part too); every other track by its key. */
  if (!r->failed && name == NULL && (kind != TSL_TRACK_THREAD || (flags & TSL_STATE_TRACK_FOLDED)))
    return fail (r, at, "a track's name is missing or not expected");
  key.kind = kind;
  key.name = tsl_trace_intern (self, name);
  if (!r->failed &&
      (((flags & TSL_STATE_TRACK_FOLDED) && self->fold_tracks[kind] != 0) ||
       (!(flags & TSL_STATE_TRACK_FOLDED) && g_hash_table_contains (self->track_ids, &key))))
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
  index = _tsl_trace_add_track (self, &key, sampler, (flags & TSL_STATE_TRACK_FOLDED) != 0);
  if (unit != NULL)
    ((Track *) g_ptr_array_index (self->tracks, index))->unit = tsl_trace_intern (self, unit);
  ((Track *) g_ptr_array_index (self->tracks, index))->sampled = (flags & TSL_STATE_TRACK_SAMPLED) != 0;
  if (title != NULL)
    ((Track *) g_ptr_array_index (self->tracks, index))->title = tsl_trace_intern (self, title);
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
  if (flags > (TSL_STATE_TRACE_HAS_TIME | TSL_STATE_TRACE_HAS_SPAN | TSL_STATE_TRACE_HAS_CPU) ||
      ((flags & TSL_STATE_TRACE_HAS_SPAN) && self->span_start > self->span_end))
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
  self->has_time = (flags & TSL_STATE_TRACE_HAS_TIME) != 0;
  self->has_span = (flags & TSL_STATE_TRACE_HAS_SPAN) != 0;
  self->has_cpu = (flags & TSL_STATE_TRACE_HAS_CPU) != 0;
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
  if (body_len > TSL_STATE_MAX_BYTES || len - TSL_STATE_HEADER_LEN < TSL_STATE_CHECKSUM_LEN ||
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
