/* tsl-trace.c: the streaming trace model
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Nothing here locks by itself: callers hold tsl_trace_lock() (the reader per
 * chunk, the viewer while it copies), so the per-event path costs no atomics.
 */
#define G_LOG_DOMAIN "tsl-trace"

#include <stdio.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "tsl-time-math.h"
#include "tsl-trace-private.h"

static const char *const fold_names[] = {
  [TSL_TRACK_THREAD] = "other threads",
  [TSL_TRACK_COUNTER] = "other counters",
  [TSL_TRACK_METRIC] = "other series",
  [TSL_TRACK_ASYNC] = "other async spans",
};

G_DEFINE_FINAL_TYPE (TslTrace, tsl_trace, G_TYPE_OBJECT)

const char *
tsl_track_kind_to_string (TslTrackKind kind)
{
  static const char *names[] = { "thread", "counter", "metric", "async" };

  return (guint) kind < G_N_ELEMENTS (names) ? names[kind] : "unknown";
}

static guint
track_key_hash (gconstpointer data)
{
  const TrackKey *key = data;
  guint64 h = ((guint64) key->kind << 32) ^ key->name;

  h = h * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15) ^ (guint64) key->pid;
  h = h * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15) ^ (guint64) key->tid;
  h *= G_GUINT64_CONSTANT (0xBF58476D1CE4E5B9);
  return (guint) (h >> 32);
}

static gboolean
track_key_equal (gconstpointer a,
                 gconstpointer b)
{
  const TrackKey *ka = a, *kb = b;

  return ka->kind == kb->kind && ka->pid == kb->pid &&
         ka->tid == kb->tid && ka->name == kb->name;
}

static void
track_free (gpointer data)
{
  Track *track = data;

  g_clear_pointer (&track->sampler, tsl_sampler_free);
  g_free (track);
}

static void
tsl_trace_finalize (GObject *object)
{
  TslTrace *self = (TslTrace *)object;

  g_clear_pointer (&self->track_ids, g_hash_table_unref);
  if (self->tracks != NULL)
    tsl_budget_give (self->budget, (gsize) self->tracks->len * TRACK_COST);
  g_clear_pointer (&self->tracks, g_ptr_array_unref);
  g_clear_pointer (&self->budget, tsl_budget_unref);
  g_clear_pointer (&self->processes, g_hash_table_unref);
  g_clear_pointer (&self->threads, g_hash_table_unref);
  g_clear_pointer (&self->string_ids, g_hash_table_unref);
  g_clear_pointer (&self->strings, g_ptr_array_unref);
  g_clear_pointer (&self->chunk, g_string_chunk_free);
  g_clear_pointer (&self->labels, tsl_label_store_free);
  g_clear_pointer (&self->warnings, tsl_warnings_free);
  g_clear_pointer (&self->grid, tsl_time_grid_unref);
  g_clear_pointer (&self->format, g_free);
  g_clear_pointer (&self->exact, tsl_exact_free);
  g_clear_pointer (&self->first_indices, g_hash_table_unref);
  g_mutex_clear (&self->mutex);

  G_OBJECT_CLASS (tsl_trace_parent_class)->finalize (object);
}

static void
tsl_trace_class_init (TslTraceClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = tsl_trace_finalize;
}

static void
tsl_trace_init (TslTrace *self)
{
  g_mutex_init (&self->mutex);
  self->has_time = TRUE;
  self->window_min = G_MAXINT64;
  self->window_max = G_MININT64;

  self->chunk = g_string_chunk_new (64 * 1024);
  self->string_ids = g_hash_table_new (g_str_hash, g_str_equal);
  self->strings = g_ptr_array_new ();
  g_ptr_array_add (self->strings, NULL);
  self->labels = tsl_label_store_new ();
  self->next_label_collect = 4096;

  self->tracks = g_ptr_array_new_with_free_func (track_free);
  self->track_ids = g_hash_table_new (track_key_hash, track_key_equal);
  self->processes = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  self->threads = g_hash_table_new_full (track_key_hash, track_key_equal, g_free, g_free);

  self->warnings = tsl_warnings_new ();
}

/**
 * tsl_trace_new:
 * @mode: how every track's sampler cuts slices
 * @k: slices per track are kept between @k and 2×@k
 * @seed: shared by all tracks, so tracks that tick together keep the same
 *   indices (count mode) or instants (time mode)
 *
 * Returns: (transfer full): an empty trace.
 */
TslTrace *
tsl_trace_new (TslSamplerMode mode,
               guint          k,
               guint64        seed)
{
  TslTrace *self;

  g_return_val_if_fail (k > 0 && k <= G_MAXINT / 4, NULL);

  self = g_object_new (TSL_TYPE_TRACE, NULL);
  self->mode = mode;
  self->k = k;
  self->seed = seed;
  if (mode == TSL_SAMPLER_TIME)
    self->grid = tsl_time_grid_new (k);
  self->budget = tsl_budget_new_for_process (TSL_BUDGET_DEFAULT_PROCESS);

  return self;
}

/**
 * tsl_trace_set_budget:
 * @budget: shared with the other traces of the process (the window's zoomed
 *   re-read, compare's range reads), so together they stay within it
 *
 * Before the first track. Past the budget, samplers of growing tracks keep
 * fewer samples (K lowered) and new tracks fold into one "other" track per
 * kind; tsl_trace_dup_warnings() says so.
 */
void
tsl_trace_set_budget (TslTrace  *self,
                      TslBudget *budget)
{
  g_return_if_fail (TSL_IS_TRACE (self));
  g_return_if_fail (budget != NULL);
  g_return_if_fail (self->tracks->len == 0);

  tsl_budget_ref (budget);
  tsl_budget_unref (self->budget);
  self->budget = budget;
}

/**
 * tsl_trace_get_budget:
 *
 * Returns: (transfer none): the budget its tracks take from.
 */
TslBudget *
tsl_trace_get_budget (TslTrace *self)
{
  g_return_val_if_fail (TSL_IS_TRACE (self), NULL);

  return self->budget;
}

void
tsl_trace_lock (TslTrace *self)
{
  g_return_if_fail (TSL_IS_TRACE (self));

  g_mutex_lock (&self->mutex);
}

void
tsl_trace_unlock (TslTrace *self)
{
  g_return_if_fail (TSL_IS_TRACE (self));

  g_mutex_unlock (&self->mutex);
}

TslSamplerMode
tsl_trace_get_mode (TslTrace *self)
{
  g_return_val_if_fail (TSL_IS_TRACE (self), TSL_SAMPLER_COUNT);

  return self->mode;
}

guint
tsl_trace_get_k (TslTrace *self)
{
  g_return_val_if_fail (TSL_IS_TRACE (self), 0);

  return self->k;
}

guint64
tsl_trace_get_seed (TslTrace *self)
{
  g_return_val_if_fail (TSL_IS_TRACE (self), 0);

  return self->seed;
}

/**
 * tsl_trace_get_time_grid:
 *
 * Returns: (transfer none) (nullable): the grid all tracks share in time mode,
 *   NULL in count mode.
 */
TslTimeGrid *
tsl_trace_get_time_grid (TslTrace *self)
{
  g_return_val_if_fail (TSL_IS_TRACE (self), NULL);

  return self->grid;
}

void
tsl_trace_set_format (TslTrace   *self,
                      const char *format)
{
  g_return_if_fail (TSL_IS_TRACE (self));

  if (g_strcmp0 (self->format, format) != 0)
    {
      g_free (self->format);
      self->format = g_strdup (format);
    }
}

/**
 * tsl_trace_get_format:
 *
 * Returns: (transfer none) (nullable): the sniffed format name.
 */
const char *
tsl_trace_get_format (TslTrace *self)
{
  g_return_val_if_fail (TSL_IS_TRACE (self), NULL);

  return self->format;
}

/* Longer parts of a name or of a stack label (between ';') keep this many
 * bytes and "…": one 50 MB event name was copied into every stack label
 * holding it and laid out glyph by glyph (27× its size in an SVG export).
 * Real names, C++ templates included, stay far below. */
#define NAME_MAX_BYTES 16384

/* `str` with every ';'-separated part longer than NAME_MAX_BYTES cut at a
 * character boundary, with a warning; NULL when none is that long. */
static char *
cut_long_parts (TslTrace   *self,
                const char *str,
                gsize       len)
{
  const char *p = str;
  const char *end = str + len;
  GString *out = NULL;

  if (G_LIKELY (len <= NAME_MAX_BYTES))
    return NULL;

  while (p < end)
    {
      const char *semi = memchr (p, ';', end - p);
      const char *part_end = semi ? semi : end;

      if ((gsize) (part_end - p) > NAME_MAX_BYTES)
        {
          /* With the "…", the part is NAME_MAX_BYTES long: cut once. */
          const char *cut = p + NAME_MAX_BYTES - strlen ("…");

          /* Not inside a UTF-8 sequence. */
          while (cut > p && ((guchar) *cut & 0xC0) == 0x80)
            cut--;
          if (out == NULL)
            out = g_string_new_len (str, p - str);
          g_string_append_len (out, p, cut - p);
          g_string_append (out, "…");
        }
      else if (out != NULL)
        g_string_append_len (out, p, part_end - p);
      if (semi != NULL && out != NULL)
        g_string_append_c (out, ';');
      p = semi ? semi + 1 : end;
    }
  if (out == NULL)
    return NULL;
  tsl_trace_add_warning_once (self, _("names longer than %u bytes were cut to their first %u bytes and “…”"),
                         NAME_MAX_BYTES, NAME_MAX_BYTES - (guint) strlen ("…"));
  return g_string_free (out, FALSE);
}

guint32
tsl_trace_intern (TslTrace   *self,
                  const char *str)
{
  g_autofree char *cut = NULL;
  gpointer id;
  const char *copy;

  g_return_val_if_fail (TSL_IS_TRACE (self), 0);

  if (str == NULL)
    return 0;

  if (g_hash_table_lookup_extended (self->string_ids, str, NULL, &id))
    return GPOINTER_TO_UINT (id);

  if ((cut = cut_long_parts (self, str, strlen (str))) != NULL)
    return tsl_trace_intern (self, cut);

  /* Every string leaves as UTF-8 (painter, JSON, CSV): damaged text from a
   * trace is repaired once here, with U+FFFD for the bad bytes. */
  if (!g_utf8_validate (str, -1, NULL))
    {
      g_autofree char *valid = g_utf8_make_valid (str, -1);

      tsl_trace_add_warning_once (self, _("names that are not valid UTF-8 were read; "
                             "their bad bytes are shown as U+FFFD"));
      return tsl_trace_intern (self, valid);
    }

  copy = g_string_chunk_insert (self->chunk, str);
  g_ptr_array_add (self->strings, (gpointer) copy);
  g_hash_table_insert (self->string_ids, (gpointer) copy,
                       GUINT_TO_POINTER (self->strings->len - 1));
  return self->strings->len - 1;
}

/* A copy of `str` with each NUL byte as U+FFFD, or NULL if it has none:
 * names are C strings from here on, and a NUL would cut one short
 * while its length and hash still counted what came after. */
static char *
replace_nuls (TslTrace   *self,
              const char *str,
              gsize       len)
{
  GString *out;
  const char *p = str, *end = str + len, *nul;

  if (G_LIKELY (memchr (str, '\0', len) == NULL))
    return NULL;
  out = g_string_sized_new (len + 16);
  while ((nul = memchr (p, '\0', end - p)) != NULL)
    {
      g_string_append_len (out, p, nul - p);
      g_string_append (out, "\xef\xbf\xbd");
      p = nul + 1;
    }
  g_string_append_len (out, p, end - p);
  tsl_trace_add_warning_once (self, _("names holding NUL bytes were read; each NUL is shown as U+FFFD"));
  return g_string_free (out, FALSE);
}

/* `len` < 0 means NUL-terminated; otherwise `str` need not be. */
guint32
tsl_trace_intern_len (TslTrace   *self,
                      const char *str,
                      gssize      len)
{
  char stack[256];
  g_autofree char *heap = NULL;
  g_autofree char *no_nuls = NULL;
  char *buf;

  g_return_val_if_fail (TSL_IS_TRACE (self), 0);

  if (str == NULL)
    return 0;
  if (len < 0)
    return tsl_trace_intern (self, str);
  if (G_UNLIKELY ((no_nuls = replace_nuls (self, str, len)) != NULL))
    {
      str = no_nuls;
      len = strlen (no_nuls);
    }
  /* Cut before the copy: a 200 MB name is not copied whole. */
  if (G_UNLIKELY ((gsize) len > NAME_MAX_BYTES))
    {
      g_autofree char *cut = cut_long_parts (self, str, len);

      if (cut != NULL)
        return tsl_trace_intern (self, cut);
    }

  /* Readers intern slices of their input buffer; copy only to NUL-terminate. */
  buf = (gsize) len < sizeof stack ? stack : (heap = g_malloc (len + 1));
  memcpy (buf, str, len);
  buf[len] = '\0';
  return tsl_trace_intern (self, buf);
}

/**
 * tsl_trace_lookup:
 *
 * Returns: (transfer none) (nullable): the string, NULL for id 0 or unknown ids.
 */
const char *
tsl_trace_lookup (TslTrace *self,
                  guint32   id)
{
  g_return_val_if_fail (TSL_IS_TRACE (self), NULL);

  if (id & TSL_LABEL_TAG)
    return tsl_label_store_lookup (self->labels, id);

  if (id >= self->strings->len)
    return NULL;

  return g_ptr_array_index (self->strings, id);
}

static TslSampler *
new_sampler (TslTrace       *self,
             const TrackKey *key)
{
  TslSampler *sampler;

  if (self->mode == TSL_SAMPLER_TIME)
    sampler = tsl_sampler_new_time (self->grid, self->seed);
  else
    sampler = tsl_sampler_new_count (self->k, self->seed, _tsl_trace_first_index (self, key));
  tsl_sampler_set_budget (sampler, self->budget);
  return sampler;
}

static guint
add_track (TslTrace       *self,
           const TrackKey *key)
{
  Track *track = g_new0 (Track, 1);

  track->key = *key;
  track->sampler = new_sampler (self, key);
  g_ptr_array_add (self->tracks, track);
  return self->tracks->len - 1;
}

guint
_tsl_trace_add_track (TslTrace       *self,
                      const TrackKey *key,
                      TslSampler     *sampler,
                      gboolean        folded)
{
  Track *track = g_new0 (Track, 1);

  track->key = *key;
  track->sampler = sampler;
  tsl_budget_take (self->budget, TRACK_COST);
  g_ptr_array_add (self->tracks, track);
  if (folded)
    self->fold_tracks[MIN ((guint) key->kind, TSL_TRACE_N_KINDS - 1)] = self->tracks->len;
  else
    g_hash_table_insert (self->track_ids, &track->key, GUINT_TO_POINTER (self->tracks->len));
  return self->tracks->len - 1;
}

const char *
_tsl_trace_fold_name (TslTrackKind kind)
{
  return fold_names[MIN ((guint) kind, G_N_ELEMENTS (fold_names) - 1)];
}

/* The track everything of `kind` goes to once the budget is spent; made
 * whatever the budget (one per kind at most), outside track_ids. */
static guint
fold_track (TslTrace     *self,
            TslTrackKind  kind)
{
  TrackKey key = { kind, FOLD_PID, 0, 0 };
  g_autoptr(TslBudget) reserve = NULL;
  guint track;

  if ((guint) kind >= G_N_ELEMENTS (fold_names))
    kind = TSL_TRACK_THREAD;
  if (self->fold_tracks[kind] != 0)
    return self->fold_tracks[kind] - 1;

  tsl_budget_take (self->budget, TRACK_COST);
  key.name = tsl_trace_intern (self, fold_names[kind]);
  track = add_track (self, &key);
  /* The budget is spent by now: a reserve of its own, enough for K..2K
   * samples unless K is huge, so what folds is still drawn evenly. */
  reserve = tsl_budget_new (tsl_budget_get_limit (self->budget) / 16);
  tsl_sampler_set_budget (((Track *) g_ptr_array_index (self->tracks, track))->sampler, reserve);
  self->fold_tracks[kind] = track + 1;
  if (tsl_trace_get_process_name (self, FOLD_PID) == NULL)
    {
      tsl_trace_set_process_name (self, FOLD_PID, "folded (memory budget)");
      tsl_trace_set_process_sort_index (self, FOLD_PID, G_MAXINT);
    }
  return track;
}

/* The id of `str` if it was interned, without interning it. */
static gboolean
lookup_string (TslTrace   *self,
               const char *str,
               guint32    *id)
{
  gpointer found;

  if (!g_hash_table_lookup_extended (self->string_ids, str, NULL, &found))
    return FALSE;
  *id = GPOINTER_TO_UINT (found);
  return TRUE;
}

/* Thread tracks are keyed by (pid, tid); counters and async tracks by
 * (pid, name); metrics by name alone. Returns the track's index. */
guint
tsl_trace_ensure_track (TslTrace     *self,
                        TslTrackKind  kind,
                        gint64        pid,
                        gint64        tid,
                        const char   *name)
{
  TrackKey key = { kind, pid, tid, 0 };
  gpointer found;
  Track *track;

  g_return_val_if_fail (TSL_IS_TRACE (self), 0);

  switch (kind)
    {
    case TSL_TRACK_THREAD:
      break;
    case TSL_TRACK_METRIC:
      key.pid = 0;
      G_GNUC_FALLTHROUGH;
    case TSL_TRACK_COUNTER:
    case TSL_TRACK_ASYNC:
    default:
      key.tid = 0;
      if (name == NULL)
        name = "";
      /* A folded series' name is not kept: a name never seen has no track. */
      if (self->folding && !lookup_string (self, name, &key.name))
        return fold_track (self, kind);
      key.name = tsl_trace_intern (self, name);
      break;
    }

  found = g_hash_table_lookup (self->track_ids, &key);
  if (found != NULL)
    return GPOINTER_TO_UINT (found) - 1;

  self->changes++;

  /* Tracks take at most half the budget, so there is room left for the
   * samples of those that grow. */
  if (self->folding ||
      !tsl_budget_try_take_below (self->budget, TRACK_COST, tsl_budget_get_limit (self->budget) / 2))
    {
      self->folding = TRUE;
      return fold_track (self, kind);
    }

  add_track (self, &key);
  track = g_ptr_array_index (self->tracks, self->tracks->len - 1);
  g_hash_table_insert (self->track_ids, &track->key, GUINT_TO_POINTER (self->tracks->len));
  return self->tracks->len - 1;
}

/* TRUE for the "other …" tracks that hold what the budget folded: readers
 * do not remember per-thread or per-series state for what maps there. */
gboolean
tsl_trace_track_is_folded (TslTrace *self,
                           guint     track)
{
  g_return_val_if_fail (TSL_IS_TRACE (self), FALSE);

  for (guint i = 0; i < G_N_ELEMENTS (self->fold_tracks); i++)
    if (self->fold_tracks[i] == track + 1)
      return TRUE;
  return FALSE;
}

guint
tsl_trace_get_n_tracks (TslTrace *self)
{
  g_return_val_if_fail (TSL_IS_TRACE (self), 0);

  return self->tracks->len;
}

static inline Track *
get_track (TslTrace *self,
           guint     track)
{
  return g_ptr_array_index (self->tracks, track);
}

#define CHECK_TRACK(self, track, val) \
  G_STMT_START { \
    g_return_val_if_fail (TSL_IS_TRACE (self), val); \
    g_return_val_if_fail (track < self->tracks->len, val); \
  } G_STMT_END

TslTrackKind
tsl_trace_track_get_kind (TslTrace *self,
                          guint     track)
{
  CHECK_TRACK (self, track, TSL_TRACK_THREAD);

  return get_track (self, track)->key.kind;
}

/**
 * tsl_trace_track_get_name:
 *
 * Returns: (transfer none): the thread name from metadata, else the track's
 *   name, else "Thread TID"; valid as long as the trace.
 */
const char *
tsl_trace_track_get_name (TslTrace *self,
                          guint     track)
{
  Track *t;
  Meta *meta;

  CHECK_TRACK (self, track, NULL);

  t = get_track (self, track);
  if (t->title != 0)
    return tsl_trace_lookup (self, t->title);
  /* Thread keys have no name but the fold track's. */
  if (t->key.kind != TSL_TRACK_THREAD || t->key.name != 0)
    return tsl_trace_lookup (self, t->key.name);

  meta = _tsl_trace_lookup_thread (self, t->key.pid, t->key.tid);
  if (meta != NULL && meta->name != 0)
    return tsl_trace_lookup (self, meta->name);

  if (t->display == 0)
    {
      char buf[64];

      g_snprintf (buf, sizeof buf, "Thread %" G_GINT64_FORMAT, t->key.tid);
      t->display = tsl_trace_intern (self, buf);
    }

  return tsl_trace_lookup (self, t->display);
}

gint64
tsl_trace_track_get_pid (TslTrace *self,
                         guint     track)
{
  CHECK_TRACK (self, track, 0);

  return get_track (self, track)->key.pid;
}

gint64
tsl_trace_track_get_tid (TslTrace *self,
                         guint     track)
{
  CHECK_TRACK (self, track, 0);

  return get_track (self, track)->key.tid;
}

/**
 * tsl_trace_track_get_unit:
 *
 * Returns: (transfer none) (nullable): the unit of the track's values.
 */
const char *
tsl_trace_track_get_unit (TslTrace *self,
                          guint     track)
{
  CHECK_TRACK (self, track, NULL);

  return tsl_trace_lookup (self, get_track (self, track)->unit);
}

void
tsl_trace_track_set_unit (TslTrace   *self,
                          guint       track,
                          const char *unit)
{
  Track *t;

  g_return_if_fail (TSL_IS_TRACE (self));
  self->changes++;
  g_return_if_fail (track < self->tracks->len);

  t = get_track (self, track);
  t->unit = tsl_trace_intern (self, unit);
  t->spans = (t->key.kind == TSL_TRACK_THREAD || t->key.kind == TSL_TRACK_ASYNC) &&
             g_strcmp0 (unit, "ns") == 0;
}

void
tsl_trace_track_set_sampled (TslTrace *self,
                             guint     track,
                             gboolean  sampled)
{
  g_return_if_fail (TSL_IS_TRACE (self));
  g_return_if_fail (track < self->tracks->len);

  get_track (self, track)->sampled = sampled;
}

gboolean
tsl_trace_track_get_sampled (TslTrace *self,
                             guint     track)
{
  CHECK_TRACK (self, track, FALSE);

  return get_track (self, track)->sampled;
}

/* Threads: their thread_sort_index, else 0 (order by process first, see
 * tsl_trace_get_process_sort_index()). Other tracks: 0. */
int
tsl_trace_track_get_sort_index (TslTrace *self,
                                guint     track)
{
  Track *t;
  Meta *meta;

  CHECK_TRACK (self, track, 0);

  t = get_track (self, track);
  if (t->key.kind != TSL_TRACK_THREAD)
    return 0;

  meta = _tsl_trace_lookup_thread (self, t->key.pid, t->key.tid);
  return meta != NULL && meta->has_sort_index ? meta->sort_index : 0;
}

/**
 * tsl_trace_track_get_sampler:
 *
 * Returns: (transfer none): the track's sampler; use it with the trace locked.
 */
TslSampler *
tsl_trace_track_get_sampler (TslTrace *self,
                             guint     track)
{
  CHECK_TRACK (self, track, NULL);

  return get_track (self, track)->sampler;
}

static inline void
note_time (TslTrace *self,
           gint64    time_ns)
{
  if (G_UNLIKELY (!self->has_span))
    {
      self->has_span = TRUE;
      self->span_start = self->span_end = time_ns;
    }
  else if (time_ns < self->span_start)
    self->span_start = time_ns;
  else if (time_ns > self->span_end)
    self->span_end = time_ns;
}

static void
deliver_pending (TslTrace   *self,
                 const char *label)
{
  if (!self->has_pending)
    return;
  self->has_pending = FALSE;
  self->event_func (self->pending_track, self->pending_time, self->pending_value,
                    label, TRUE, self->event_data);
}

static gboolean
offer_observed (TslTrace *self,
                guint     track,
                gint64    time_ns,
                double    value)
{
  Track *t;

  /* The previous event got no label (metric rows, unlabelled instants). */
  deliver_pending (self, NULL);

  if (self->has_filter && (time_ns < self->filter_start || time_ns >= self->filter_end))
    {
      self->event_func (track, time_ns, value, NULL, FALSE, self->event_data);
      return FALSE;
    }

  t = get_track (self, track);
  self->pending_kept = self->observe_metrics_only && t->key.kind != TSL_TRACK_COUNTER &&
                                                     t->key.kind != TSL_TRACK_METRIC
                         ? FALSE
                         : tsl_sampler_offer (t->sampler, time_ns, value);
  self->has_pending = TRUE;
  self->pending_track = track;
  self->pending_time = time_ns;
  self->pending_value = value;
  return TRUE;
}

/* FALSE when the label is for an event its sampler did not keep. */
static gboolean
observe_label (TslTrace   *self,
               guint       track,
               const char *label)
{
  if (G_LIKELY (self->event_func == NULL))
    return TRUE;
  if (!self->has_pending || self->pending_track != track)
    return TRUE;

  deliver_pending (self, label);
  return self->pending_kept;
}

void
tsl_trace_set_event_func (TslTrace          *self,
                          TslTraceEventFunc  func,
                          gpointer           user_data)
{
  g_return_if_fail (TSL_IS_TRACE (self));

  self->event_func = func;
  self->event_data = user_data;
  self->has_pending = FALSE;
}

void
tsl_trace_set_observe_metrics_only (TslTrace *self,
                                    gboolean  only)
{
  g_return_if_fail (TSL_IS_TRACE (self));

  self->observe_metrics_only = !!only;
}

void
tsl_trace_flush_events (TslTrace *self)
{
  g_return_if_fail (TSL_IS_TRACE (self));

  if (self->event_func != NULL)
    deliver_pending (self, NULL);
}
static gboolean offer_exact (TslTrace *self, guint track, gint64 time_ns, double value);

gboolean
tsl_trace_offer (TslTrace *self,
                 guint     track,
                 gint64    time_ns,
                 double    value)
{
  /* Per event: no type check, one bounds check. */
  if (G_UNLIKELY (track >= self->tracks->len))
    {
      g_critical ("%s: no track %u", G_STRFUNC, track);
      return FALSE;
    }

  note_time (self, time_ns);
  if (time_ns < self->window_min)
    self->window_min = time_ns;
  if (time_ns > self->window_max)
    self->window_max = time_ns;
  /* A span reaches its end: a view it overlaps needs the chunk it is in. */
  if (get_track (self, track)->spans && value > 0 && value < 9.0e18)
    {
      gint64 end = time_ns <= G_MAXINT64 - (gint64) value ? time_ns + (gint64) value : G_MAXINT64;

      if (end > self->window_max)
        self->window_max = end;
    }
  if (G_UNLIKELY (self->event_func != NULL))
    return offer_observed (self, track, time_ns, value);
  if (G_UNLIKELY (self->exact != NULL))
    return offer_exact (self, track, time_ns, value);
  if (G_UNLIKELY (self->has_filter) &&
      (time_ns < self->filter_start || time_ns >= self->filter_end))
    return FALSE;

  return tsl_sampler_offer (get_track (self, track)->sampler, time_ns, value);
}

void
tsl_trace_record_exact (TslTrace *self,
                        guint     per_track,
                        guint     total)
{
  gint64 start = self->has_filter ? self->filter_start : G_MININT64;
  gint64 end = self->has_filter ? self->filter_end : G_MAXINT64;

  g_return_if_fail (TSL_IS_TRACE (self));

  g_clear_pointer (&self->exact, tsl_exact_free);
  self->exact = tsl_exact_new (start, end, per_track, total);
  self->exact_per_track = per_track;
  self->exact_total = total;
  self->event_offset = -1;
}

gboolean
tsl_trace_get_exact_request (TslTrace *self,
                             guint    *per_track,
                             guint    *total)
{
  g_return_val_if_fail (TSL_IS_TRACE (self), FALSE);

  *per_track = self->exact_per_track;
  *total = self->exact_total;
  return self->exact_per_track != 0 || self->exact_total != 0;
}

void
tsl_trace_set_event_offset (TslTrace *self,
                            gint64    offset)
{
  self->event_offset = offset;
}

gboolean
tsl_trace_wants_offsets (TslTrace *self)
{
  return self->exact != NULL;
}

/* Recording every slice of a window as well as sampling: the payload is
 * parsed when either wants it, and the label goes where it is wanted. */
static gboolean
offer_exact (TslTrace *self,
             guint     track,
             gint64    time_ns,
             double    value)
{
  Track *t = get_track (self, track);

  self->label_sampler = !(self->has_filter &&
                          (time_ns < self->filter_start || time_ns >= self->filter_end)) &&
                        tsl_sampler_offer (t->sampler, time_ns, value);
  self->label_exact = FALSE;

  /* Span tracks only (their values are durations, unit "ns"): a sampled
   * profile's instants are better drawn as the samples' slices. */
  if ((t->key.kind == TSL_TRACK_THREAD || t->key.kind == TSL_TRACK_ASYNC) &&
      t->unit != 0 && g_str_equal (tsl_trace_lookup (self, t->unit), "ns"))
    {
      gint64 end = time_ns;

      if (value > 0 && value < 9.0e18 && time_ns <= G_MAXINT64 - (gint64) value)
        end = time_ns + (gint64) value;
      self->label_exact = tsl_exact_record (self->exact, track, time_ns, end, self->event_offset,
                                            self->event_open ? TSL_EXACT_OPEN : 0);
      if (!tsl_exact_is_complete (self->exact))
        g_clear_pointer (&self->exact, tsl_exact_free);
    }
  self->event_offset = -1;

  return self->label_sampler || self->label_exact;
}

gboolean
tsl_trace_offer_open (TslTrace *self,
                      guint     track,
                      gint64    start_ns)
{
  gint64 end = start_ns;
  gboolean kept;

  g_return_val_if_fail (TSL_IS_TRACE (self), FALSE);

  /* The span's real extent: a view, a range read or an aggregate past its
   * start sees it, where an instant at its start was seen by none. */
  if (self->has_span && self->span_end > start_ns)
    end = self->span_end;
  self->event_open = TRUE;
  /* In a double: from near INT64_MIN to near INT64_MAX does not fit a
   * gint64, and the value's readers take one that large as no extent. */
  kept = tsl_trace_offer (self, track, start_ns, tsl_time_ns_between (start_ns, end));
  self->event_open = FALSE;
  return kept;
}

gboolean
tsl_trace_get_exact (TslTrace *self,
                     gint64   *start_ns,
                     gint64   *end_ns)
{
  g_return_val_if_fail (TSL_IS_TRACE (self), FALSE);

  if (self->exact == NULL)
    return FALSE;
  tsl_exact_get_window (self->exact, start_ns, end_ns);
  return TRUE;
}

const TslExactSlice *
tsl_trace_get_exact_slices (TslTrace *self,
                            guint     track,
                            guint    *n)
{
  g_return_val_if_fail (TSL_IS_TRACE (self), NULL);

  *n = 0;
  return self->exact ? tsl_exact_get_slices (self->exact, track, n) : NULL;
}

const char *
tsl_trace_lookup_exact_label (TslTrace *self,
                              guint32   label)
{
  return self->exact ? tsl_exact_lookup (self->exact, label) : "";
}

void
tsl_trace_set_time_filter (TslTrace *self,
                           gint64    start_ns,
                           gint64    end_ns)
{
  g_return_if_fail (TSL_IS_TRACE (self));

  self->has_filter = TRUE;
  self->filter_start = start_ns;
  self->filter_end = end_ns;
}

void
tsl_trace_clear_time_filter (TslTrace *self)
{
  g_return_if_fail (TSL_IS_TRACE (self));

  self->has_filter = FALSE;
}

void
tsl_trace_forget_counts (TslTrace *self)
{
  g_return_if_fail (TSL_IS_TRACE (self));

  self->events = 0;
  memset (self->flows, 0, sizeof self->flows);
  self->has_span = FALSE;
  self->span_start = self->span_end = 0;
  tsl_warnings_free (self->warnings);
  self->warnings = tsl_warnings_new ();
}

gboolean
tsl_trace_get_time_filter (TslTrace *self,
                           gint64   *start_ns,
                           gint64   *end_ns)
{
  g_return_val_if_fail (TSL_IS_TRACE (self), FALSE);

  *start_ns = self->filter_start;
  *end_ns = self->filter_end;
  return self->has_filter;
}

gboolean
tsl_trace_take_window (TslTrace *self,
                       gint64   *min_ns,
                       gint64   *max_ns,
                       guint64  *changes)
{
  gboolean any;

  g_return_val_if_fail (TSL_IS_TRACE (self), FALSE);

  any = self->window_min <= self->window_max;
  *min_ns = self->window_min;
  *max_ns = self->window_max;
  *changes = self->changes;
  self->window_min = G_MAXINT64;
  self->window_max = G_MININT64;
  return any;
}

void
tsl_trace_note_change (TslTrace *self)
{
  g_return_if_fail (TSL_IS_TRACE (self));

  self->changes++;
}

/* Collects the labels no sampler holds any more once a quarter more than
 * the last collection kept (at least 4096) have come in: amortised O(1) per
 * label, and the store never much larger than what the samplers hold, so
 * peak memory does not grow with the input. */
void
_tsl_trace_collect_labels (TslTrace *self)
{
  g_autofree TslSampler **samplers = NULL;
  guint live;

  samplers = g_new (TslSampler *, MAX (self->tracks->len, 1));
  for (guint i = 0; i < self->tracks->len; i++)
    samplers[i] = get_track (self, i)->sampler;
  tsl_label_store_collect (self->labels, samplers, self->tracks->len);

  live = tsl_label_store_get_size (self->labels);
  self->next_label_collect = live + MAX (4096, live / 4);
}

static void
maybe_collect_labels (TslTrace *self)
{
  if (tsl_label_store_get_size (self->labels) > self->next_label_collect)
    _tsl_trace_collect_labels (self);
}

void
tsl_trace_set_label (TslTrace   *self,
                     guint       track,
                     const char *label)
{
  g_autofree char *valid = NULL;
  g_autofree char *cut = NULL;

  g_return_if_fail (TSL_IS_TRACE (self));
  g_return_if_fail (track < self->tracks->len);

  if (label == NULL)
    {
      if (observe_label (self, track, NULL) &&
          (self->event_func != NULL || self->exact == NULL || self->label_sampler))
        tsl_sampler_set_label (get_track (self, track)->sampler, 0);
      return;
    }

  /* As for names: damaged text is repaired once, here. */
  if (!g_utf8_validate (label, -1, NULL))
    {
      valid = g_utf8_make_valid (label, -1);
      tsl_trace_add_warning_once (self, _("names that are not valid UTF-8 were read; "
                             "their bad bytes are shown as U+FFFD"));
      label = valid;
    }
  if ((cut = cut_long_parts (self, label, strlen (label))) != NULL)
    label = cut;

  tsl_trace_set_label_joined (self, track, label, strlen (label));
}

void
tsl_trace_set_label_joined (TslTrace   *self,
                            guint       track,
                            const char *label,
                            gsize       len)
{
  g_return_if_fail (TSL_IS_TRACE (self));
  g_return_if_fail (track < self->tracks->len);
  g_return_if_fail (label != NULL && label[len] == '\0');

  if (!observe_label (self, track, label))
    return;
  if (G_UNLIKELY (self->exact != NULL && self->event_func == NULL))
    {
      if (self->label_exact)
        tsl_exact_set_label (self->exact, label, len);
      if (!self->label_sampler)
        return;
    }
  tsl_sampler_set_label (get_track (self, track)->sampler,
                         tsl_label_store_intern_len (self->labels, label, len));
  maybe_collect_labels (self);
}

guint
tsl_trace_get_n_labels (TslTrace *self)
{
  g_return_val_if_fail (TSL_IS_TRACE (self), 0);

  return tsl_label_store_get_size (self->labels);
}

void
tsl_trace_set_label_len (TslTrace   *self,
                         guint       track,
                         const char *label,
                         gsize       len)
{
  char stack[256];
  g_autofree char *heap = NULL;
  g_autofree char *no_nuls = replace_nuls (self, label, len);
  char *buf;

  if (G_UNLIKELY (no_nuls != NULL))
    {
      tsl_trace_set_label (self, track, no_nuls);
      return;
    }
  buf = len < sizeof stack ? stack : (heap = g_malloc (len + 1));
  memcpy (buf, label, len);
  buf[len] = '\0';
  tsl_trace_set_label (self, track, buf);
}

void
tsl_trace_set_label_id (TslTrace *self,
                        guint     track,
                        guint32   label)
{
  g_return_if_fail (TSL_IS_TRACE (self));
  g_return_if_fail (track < self->tracks->len);

  if (!observe_label (self, track, label != 0 ? tsl_trace_lookup (self, label) : NULL))
    return;
  if (G_UNLIKELY (self->exact != NULL && self->event_func == NULL))
    {
      const char *text = tsl_trace_lookup (self, label);

      if (self->label_exact && text != NULL)
        tsl_exact_set_label (self->exact, text, strlen (text));
      if (!self->label_sampler)
        return;
    }
  tsl_sampler_set_label (get_track (self, track)->sampler, label);
}

void
tsl_trace_add_events (TslTrace *self,
                      guint64   n)
{
  g_return_if_fail (TSL_IS_TRACE (self));

  self->events += n;
}

void
tsl_trace_count_flow (TslTrace     *self,
                      TslFlowCount  kind,
                      guint64       n)
{
  g_return_if_fail (TSL_IS_TRACE (self));
  g_return_if_fail (kind < TSL_FLOW_COUNT_N);

  self->flows[kind] += n;
}

guint64
tsl_trace_get_flow_count (TslTrace     *self,
                          TslFlowCount  kind)
{
  g_return_val_if_fail (TSL_IS_TRACE (self), 0);
  g_return_val_if_fail (kind < TSL_FLOW_COUNT_N, 0);

  return self->flows[kind];
}

gboolean
tsl_trace_wants_flows (TslTrace *self)
{
  return self->exact != NULL && self->event_func == NULL;
}

void
tsl_trace_record_flow (TslTrace    *self,
                       guint        track,
                       guint64      key,
                       gint64       time_ns,
                       guint        depth,
                       TslFlowBind  bind,
                       guint        dir)
{
  g_return_if_fail (TSL_IS_TRACE (self));

  if (self->exact == NULL || self->event_func != NULL)
    return;
  if (!tsl_exact_record_flow (self->exact, track, key, time_ns, depth, bind, dir) &&
      tsl_exact_get_flows_dropped (self->exact) == 1)
    tsl_trace_add_warning (self, _("flow arrows past %u endpoints in the view are not drawn"),
                           (guint) TSL_EXACT_FLOWS);
}

const TslExactFlow *
tsl_trace_get_exact_flows (TslTrace *self,
                           guint    *n)
{
  g_return_val_if_fail (TSL_IS_TRACE (self), NULL);

  *n = 0;
  return self->exact ? tsl_exact_get_flows (self->exact, n) : NULL;
}

guint64
tsl_trace_get_events (TslTrace *self)
{
  g_return_val_if_fail (TSL_IS_TRACE (self), 0);

  return self->events;
}

gboolean
tsl_trace_get_span (TslTrace *self,
                    gint64   *start_ns,
                    gint64   *end_ns)
{
  g_return_val_if_fail (TSL_IS_TRACE (self), FALSE);

  if (start_ns != NULL)
    *start_ns = self->has_span ? self->span_start : 0;
  if (end_ns != NULL)
    *end_ns = self->has_span ? self->span_end : 0;

  return self->has_span;
}

void
tsl_trace_note_time (TslTrace *self,
                     gint64    time_ns)
{
  g_return_if_fail (TSL_IS_TRACE (self));

  note_time (self, time_ns);
}

void
tsl_trace_set_has_time (TslTrace *self,
                        gboolean  has_time)
{
  g_return_if_fail (TSL_IS_TRACE (self));
  self->changes++;

  self->has_time = !!has_time;
}

gboolean
tsl_trace_get_has_time (TslTrace *self)
{
  g_return_val_if_fail (TSL_IS_TRACE (self), FALSE);

  return self->has_time;
}
