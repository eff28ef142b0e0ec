/* tsl-pprof-samples.c: a pprof profile's samples placed and labelled
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * At the end of the input, with every table known. A Sample record stands
 * for `count` samples of one stack (Go writes [samples, cpu nanoseconds]
 * per distinct stack): each becomes one event of a sampled thread track, so
 * flame graphs and compares count samples. Its value is the record's weight
 * per sample: cpu time when the profile has it ("cpu"/"nanoseconds"), else
 * the default sample type, else the last; Go's cpu time is samples × period,
 * so sample counts and cpu time give the same shares.
 *
 * pprof has no time per sample: the samples are spread evenly over
 * [time_nanos, time_nanos + duration_nanos) in file order, which a warning
 * says. A label whose key names a thread or goroutine splits the samples
 * into one track per value; without one the profile is one track.
 *
 * A location's lines are its inlined frames, the caller last; a sample's
 * locations are its stack, the leaf first: both are reversed here, root
 * first.
 */
#define G_LOG_DOMAIN "tsl-pprof-reader"

#include "config.h"

#include <glib/gi18n-lib.h>

#include "tsl-duration.h"
#include "tsl-pprof-private.h"

/* When no duration is known and the period is not in nanoseconds. */
#define DEFAULT_SPACING_NS 1000000

/* A growing array of 64-bit values: GArray's set_size and append per
 * value were a fifth of a large profile's reading. */
typedef struct {
  guint64 *v;
  guint    len;
  guint    size;
} Values;

typedef struct {
  Values      locs;      /* location ids, the leaf first */
  Values      values;    /* as gint64 */
  const char *thread;    /* a thread label's value, NULL: none */
  char        num[32];   /* a numeric one, formatted */
} Sample;

/* Label keys that name where a sample ran. */
static gboolean
is_thread_key (const char *key)
{
  static const char *const keys[] = {
    "thread", "thread_name", "threadname", "thread_id", "tid", "goroutine",
  };

  for (guint i = 0; key != NULL && i < G_N_ELEMENTS (keys); i++)
    if (g_ascii_strcasecmp (key, keys[i]) == 0)
      return TRUE;
  return FALSE;
}

/* Varints, packed (LEN) or one per field: written in place, not appended
 * one by one (this is most of a large profile's reading). */
static guint64 *
values_reserve (Values *out,
                gsize   more)
{
  /* Bounded by a field's length, itself at most TSL_PPROF_MAX_FIELD. */
  if (out->len + more > out->size)
    {
      out->size = MAX (out->len + more, 2 * out->size);
      out->v = g_renew (guint64, out->v, out->size);
    }
  return out->v + out->len;
}

static gboolean
append_varints (const TslProtoField *f,
                Values              *out)
{
  const guint8 *p, *end;
  guint64 *v;

  if (f->wire == TSL_PROTO_VARINT)
    {
      *values_reserve (out, 1) = f->value;
      out->len++;
      return TRUE;
    }
  if (f->wire != TSL_PROTO_LEN)
    return FALSE;
  /* Only a LEN field has data (an empty one may not). */
  if (f->len == 0)
    return TRUE;
  p = f->data;
  end = f->data + f->len;
  /* At most one value a byte; a long field is counted first, so that a
   * damaged 64 MiB one does not ask for eight times that. */
  if (f->len <= 4096)
    v = values_reserve (out, f->len);
  else
    {
      gsize n = 1;

      for (p = f->data; p < end; p++)
        n += *p < 0x80;
      p = f->data;
      v = values_reserve (out, n);
    }
  while (p < end)
    {
      if (G_LIKELY (*p < 0x80))
        *v++ = *p++;
      else if (tsl_proto_varint (&p, end, v++) != TSL_PROTO_OK)
        return FALSE;
    }
  out->len = v - out->v;
  return TRUE;
}

static gboolean
decode_label (TslPprof     *self,
              const guint8 *data,
              gsize         len,
              Sample       *s)
{
  TslProtoCursor c;
  TslProtoField f;
  TslProtoStatus st;
  gint64 key = 0, str = 0, num = 0;
  gboolean has_num = FALSE;

  tsl_proto_cursor_init (&c, data, len);
  while ((st = tsl_proto_next (&c, &f)) == TSL_PROTO_OK)
    if (f.wire == TSL_PROTO_VARINT)
      {
        if (f.number == 1)
          key = (gint64) f.value;
        else if (f.number == 2)
          str = (gint64) f.value;
        else if (f.number == 3)
          num = (gint64) f.value, has_num = TRUE;
      }
  if (st != TSL_PROTO_END)
    return FALSE;
  /* Go writes the same key string in every record: asked once. */
  if (key != self->last_key)
    {
      self->last_key = key;
      self->last_key_is_thread = is_thread_key (tsl_pprof_string (self, key));
    }
  if (s->thread == NULL && self->last_key_is_thread)
    {
      const char *value = str != 0 ? tsl_pprof_string (self, str) : NULL;

      if (value != NULL && *value != '\0')
        s->thread = value;
      else if (has_num)
        {
          g_snprintf (s->num, sizeof s->num, "%" G_GINT64_FORMAT, num);
          s->thread = s->num;
        }
    }
  return TRUE;
}

static gboolean
decode_sample (TslPprof     *self,
               const guint8 *data,
               gsize         len,
               Sample       *s)
{
  TslProtoCursor c;
  TslProtoField f;
  TslProtoStatus st;

  s->locs.len = 0;
  s->values.len = 0;
  s->thread = NULL;
  tsl_proto_cursor_init (&c, data, len);
  while ((st = tsl_proto_next (&c, &f)) == TSL_PROTO_OK)
    {
      if ((f.number == 1 && !append_varints (&f, &s->locs)) ||
          (f.number == 2 && !append_varints (&f, &s->values)) ||
          (f.number == 3 && (f.wire != TSL_PROTO_LEN || !decode_label (self, f.data, f.len, s))))
        return FALSE;
    }
  return st == TSL_PROTO_END;
}

static gboolean
type_is (TslPprof   *self,
         guint       i,
         const char *type,
         const char *unit)
{
  const gint64 *t = (const gint64 *) self->sample_types->data;

  return (type == NULL || g_strcmp0 (tsl_pprof_string (self, t[2 * i]), type) == 0) &&
         (unit == NULL || g_strcmp0 (tsl_pprof_string (self, t[2 * i + 1]), unit) == 0);
}

static const char *
type_name (TslPprof *self,
           int       i,
           guint     part)
{
  const char *s = i >= 0 ? tsl_pprof_string (self, g_array_index (self->sample_types, gint64, 2 * i + part)) : NULL;

  return s != NULL && *s != '\0' ? s : "?";
}

/* Which value weighs a sample (see the file's comment), which counts it. */
static void
choose_types (TslPprof *self,
              int      *weight,
              int      *count)
{
  guint n = self->sample_types->len / 2;

  *weight = *count = -1;
  for (guint i = 0; i < n && *weight < 0; i++)
    if (type_is (self, i, "cpu", "nanoseconds"))
      *weight = i;
  for (guint i = 0; i < n && *weight < 0 && self->have_default_type; i++)
    if (g_array_index (self->sample_types, gint64, 2 * i) == self->default_type)
      *weight = i;
  if (*weight < 0 && n > 0)
    *weight = n - 1;
  for (guint i = 0; i < n && *count < 0; i++)
    if (type_is (self, i, "samples", "count"))
      *count = i;
  for (guint i = 0; i < n && *count < 0; i++)
    if (type_is (self, i, NULL, "count"))
      *count = i;
}

static guint32
intern_function (TslPprof *self,
                 guint64   function_id,
                 guint64   pos)
{
  guint32 at = tsl_pprof_ids_find (&self->function_ids, function_id);
  const Function *fn;
  const char *name;

  if (at == 0)
    {
      if (tsl_pprof_may_warn (self, WARN_MISSING_FUNCTION))
        {
          g_autofree char *message = g_strdup_printf (_("a location names function %llu, which is not in "
                                                        "the profile; shown as (unknown function)"),
                                                      (unsigned long long) function_id);

          tsl_pprof_warn_at (self, pos, message);
        }
      return tsl_trace_intern (self->trace, "(unknown function)");
    }
  fn = &g_array_index (self->functions, Function, at - 1);
  name = tsl_pprof_string (self, fn->name);
  if (name == NULL || *name == '\0')
    {
      const char *system_name = tsl_pprof_string (self, fn->system_name);

      if ((name == NULL || system_name == NULL) && tsl_pprof_may_warn (self, WARN_BAD_STRING))
        tsl_pprof_warn_at (self, fn->pos, _("a function's name is not in the string table; shown as "
                                            "(unnamed function)"));
      name = system_name;
    }
  return tsl_trace_intern (self->trace, name != NULL && *name != '\0' ? name : "(unnamed function)");
}

/* Each location's frames, root first, as interned names. */
static GArray *
location_frames (TslPprof *self)
{
  GArray *frames = g_array_new (FALSE, FALSE, sizeof (guint32));

  for (guint i = 0; i < self->locations->len; i++)
    {
      Location *loc = &g_array_index (self->locations, Location, i);

      loc->first_frame = frames->len;
      if (loc->n_lines == 0)
        {
          /* Not symbolized: the address, in its mapping's file when known. */
          guint32 m = tsl_pprof_ids_find (&self->mapping_ids, loc->mapping_id);
          const Mapping *map = m != 0 ? &g_array_index (self->mappings, Mapping, m - 1) : NULL;
          const char *file = map != NULL ? tsl_pprof_string (self, map->filename) : NULL;
          g_autofree char *base = file != NULL && *file != '\0' ? g_path_get_basename (file) : NULL;
          g_autofree char *name = NULL;
          guint32 id;

          if (base != NULL && loc->address >= map->memory_start)
            name = g_strdup_printf ("%s+0x%" G_GINT64_MODIFIER "x", base, loc->address - map->memory_start);
          else
            name = g_strdup_printf ("0x%" G_GINT64_MODIFIER "x", loc->address);
          id = tsl_trace_intern (self->trace, name);
          g_array_append_val (frames, id);
        }
      for (guint l = loc->n_lines; l > 0; l--)
        {
          const Line *line = &g_array_index (self->lines, Line, loc->first_line + l - 1);
          guint32 id = intern_function (self, line->function_id, loc->pos);

          g_array_append_val (frames, id);
        }
      loc->n_frames = frames->len - loc->first_frame;
    }
  return frames;
}

/* The record's count of samples, 0 .. max_count; warns in the first pass. */
static gint64
count_of (TslPprof     *self,
          const Sample *s,
          int           count,
          guint64       pos,
          gboolean      warn)
{
  guint n_types = self->sample_types->len / 2;
  gint64 v;

  if (warn && s->values.len != n_types && tsl_pprof_may_warn (self, WARN_BAD_VALUE))
    {
      g_autofree char *message = g_strdup_printf (_("a sample has %u values for %u sample types; a "
                                                    "missing one counts as 0"),
                                                  s->values.len, n_types);

      tsl_pprof_warn_at (self, pos, message);
    }
  if (count < 0)
    return 1;
  v = (guint) count < s->values.len ? (gint64) s->values.v[count] : 0;
  if (v < 0 || v > self->max_count)
    {
      if (warn && tsl_pprof_may_warn (self, WARN_BAD_VALUE))
        {
          g_autofree char *message =
            v < 0 ? g_strdup_printf (_("a sample's count is negative (%lld); it is not shown"), (long long) v)
                  : g_strdup_printf (_("a sample's count (%lld) is more than %lld; that many are shown"),
                                     (long long) v, (long long) self->max_count);

          tsl_pprof_warn_at (self, pos, message);
        }
      return v < 0 ? 0 : self->max_count;
    }
  return v;
}

static guint
remember (TslPprof   *self,
          const char *thread,
          gboolean    stable,
          guint       track)
{
  guint i = self->n_recent++ % G_N_ELEMENTS (self->recent);

  self->recent[i].valid = stable;
  self->recent[i].thread = thread;
  self->recent[i].track = track;
  return track;
}

/* The track of a thread label's value (NULL: none), made on first use.
 * String labels point into the string table, so the pointers of the last
 * few answer most lookups; `stable` is FALSE for a formatted number. */
static guint
track_of (TslPprof   *self,
          GHashTable *tracks,
          const char *thread,
          gboolean    stable)
{
  gpointer found;
  guint track;
  gint64 tid = g_hash_table_size (tracks) + 1;

  if (stable)
    for (guint i = 0; i < G_N_ELEMENTS (self->recent); i++)
      if (self->recent[i].valid && self->recent[i].thread == thread)
        return self->recent[i].track;
  if (g_hash_table_lookup_extended (tracks, thread != NULL ? thread : "", NULL, &found))
    return remember (self, thread, stable, GPOINTER_TO_UINT (found));
  tsl_trace_set_thread_name (self->trace, 0, tid, thread != NULL ? thread : "pprof profile");
  track = tsl_trace_ensure_track (self->trace, TSL_TRACK_THREAD, 0, tid, NULL);
  /* Samples of whole stacks, not spans: per-range figures count them. */
  tsl_trace_track_set_sampled (self->trace, track, TRUE);
  g_hash_table_insert (tracks, g_strdup (thread != NULL ? thread : ""), GUINT_TO_POINTER (track));
  return remember (self, thread, stable, track);
}

typedef struct {
  TslPprof *self;
  GArray   *stack;     /* guint32 interned names, root first */
} Label;

static gint64
unlabelled_tid (TslPprof   *self,
                GHashTable *tracks)
{
  return tsl_trace_track_get_tid (self->trace, GPOINTER_TO_UINT (g_hash_table_lookup (tracks, "")));
}

static const char *
label_name (gpointer data,
            guint    i)
{
  Label *l = data;

  return tsl_trace_lookup (l->self->trace, g_array_index (l->stack, guint32, i));
}

/* The record's stack, root first; warns of unknown locations in the first pass. */
static void
build_stack (TslPprof     *self,
             const Sample *s,
             const GArray *frames,
             GArray       *stack,
             guint64       pos,
             gboolean      warn)
{
  g_array_set_size (stack, 0);
  for (guint i = s->locs.len; i > 0; i--)
    {
      guint64 id = s->locs.v[i - 1];
      guint32 at = tsl_pprof_ids_find (&self->location_ids, id);

      if (at == 0)
        {
          guint32 unknown = tsl_trace_intern (self->trace, "(unknown location)");

          if (warn && tsl_pprof_may_warn (self, WARN_MISSING_LOCATION))
            {
              g_autofree char *message = g_strdup_printf (_("a sample names location %llu, which is not in "
                                                            "the profile; shown as (unknown location)"),
                                                          (unsigned long long) id);

              tsl_pprof_warn_at (self, pos, message);
            }
          g_array_append_val (stack, unknown);
          continue;
        }
      {
        const Location *loc = &g_array_index (self->locations, Location, at - 1);

        g_array_append_vals (stack, &g_array_index (frames, guint32, loc->first_frame), loc->n_frames);
      }
    }
}

/* A spooled record at p of the bytes to end: its position and length
 * read, *data at its message. FALSE when it does not fit. */
static gboolean
parse_record (const guint8  *p,
              const guint8  *end,
              guint64       *pos,
              const guint8 **data,
              gsize         *len,
              gsize         *size)
{
  const guint8 *q = p;
  guint64 n;

  if (tsl_proto_varint (&q, end, pos) != TSL_PROTO_OK ||
      tsl_proto_varint (&q, end, &n) != TSL_PROTO_OK || n > (guint64) (end - q))
    return FALSE;
  *data = q;
  *len = (gsize) n;
  *size = (gsize) (q + n - p);
  return TRUE;
}

/* The next record (tsl-pprof-reader.c spools them as position, length and
 * bytes), FALSE after the last; *data is valid until the next call. */
static gboolean
next_record (TslSpool      *s,
             guint64       *pos,
             const guint8 **data,
             gsize         *len)
{
  gsize need = 2 * TSL_SPOOL_VARINT_MAX, avail, size;
  const guint8 *p;

  while ((avail = tsl_spool_peek (s, need, &p)) > 0)
    {
      if (parse_record (p, p + avail, pos, data, len, &size))
        {
          tsl_spool_skip (s, size);
          return TRUE;
        }
      if (avail < need)
        {
          /* All there is, and cut (by a failed read): it ends here. */
          tsl_spool_skip (s, avail);
          need = 2 * TSL_SPOOL_VARINT_MAX;
        }
      else
        need = 2 * avail;   /* a long record: more of the file */
    }
  return FALSE;
}

static void
say_totals (TslPprof *self)
{
  const char *name = tsl_reader_context_get_name (self->ctx);

  if (self->warned[WARN_BAD_FIELD] > TSL_PPROF_POS_WARNINGS)
    tsl_trace_add_warning (self->trace, _("%s: %llu more damaged or misplaced fields"), name,
                           (unsigned long long) (self->warned[WARN_BAD_FIELD] - TSL_PPROF_POS_WARNINGS));
  if (self->warned[WARN_MISSING_FUNCTION] > TSL_PPROF_POS_WARNINGS)
    tsl_trace_add_warning (self->trace, _("%s: %llu more locations name functions that are not in the profile"),
                           name, (unsigned long long) (self->warned[WARN_MISSING_FUNCTION] - TSL_PPROF_POS_WARNINGS));
  if (self->warned[WARN_MISSING_LOCATION] > TSL_PPROF_POS_WARNINGS)
    tsl_trace_add_warning (self->trace, _("%s: %llu more samples name locations that are not in the profile"),
                           name, (unsigned long long) (self->warned[WARN_MISSING_LOCATION] - TSL_PPROF_POS_WARNINGS));
  if (self->warned[WARN_BAD_STRING] > TSL_PPROF_POS_WARNINGS)
    tsl_trace_add_warning (self->trace, _("%s: %llu more names that are not in the string table"), name,
                           (unsigned long long) (self->warned[WARN_BAD_STRING] - TSL_PPROF_POS_WARNINGS));
  if (self->warned[WARN_BAD_VALUE] > TSL_PPROF_POS_WARNINGS)
    tsl_trace_add_warning (self->trace, _("%s: %llu more samples with missing, negative or too large values"),
                           name, (unsigned long long) (self->warned[WARN_BAD_VALUE] - TSL_PPROF_POS_WARNINGS));
}

/* The profile's start and length on the timeline, with what is assumed said. */
static void
time_base (TslPprof *self,
           guint64   n,
           gint64   *start,
           gint64   *duration)
{
  const char *name = tsl_reader_context_get_name (self->ctx);
  const char *period_unit = tsl_pprof_string (self, self->period_type[1]);

  *start = 0;
  if (self->have_time)
    *start = CLAMP (self->time_nanos, -TSL_PPROF_TIME_LIMIT, TSL_PPROF_TIME_LIMIT);
  else
    tsl_trace_add_warning (self->trace, _("%s: no time_nanos; the profile starts at 0"), name);

  if (self->have_duration && self->duration_nanos > 0)
    *duration = MIN (self->duration_nanos, TSL_PPROF_TIME_LIMIT);
  else if (self->have_period && self->period > 0 && g_strcmp0 (period_unit, "nanoseconds") == 0)
    {
      *duration = (gint64) MIN ((double) n * (double) self->period, (double) TSL_PPROF_TIME_LIMIT);
      tsl_trace_add_warning (self->trace, _("%s: no duration_nanos; the samples are placed one period apart"),
                             name);
    }
  else
    {
      *duration = (gint64) MIN ((double) n * DEFAULT_SPACING_NS, (double) TSL_PPROF_TIME_LIMIT);
      tsl_trace_add_warning (self->trace, _("%s: no duration_nanos nor a period in nanoseconds; the "
                                            "samples are placed 1 ms apart"), name);
    }
  /* Both ends within the limit, so every sample's time is too. */
  if (*start > TSL_PPROF_TIME_LIMIT - *duration)
    *start = TSL_PPROF_TIME_LIMIT - *duration;
}

void
tsl_pprof_finish (TslPprof *self)
{
  const char *name = tsl_reader_context_get_name (self->ctx);
  g_autoptr(GHashTable) tracks = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GArray) frames = location_frames (self);
  g_autoptr(GArray) stack = g_array_new (FALSE, FALSE, sizeof (guint32));
  Sample s = { { NULL } };
  Label label = { self, stack };
  const guint8 *data;
  gsize len;
  guint64 pos, n = 0, k = 0;
  gint64 start, duration;
  int weight, count;

  choose_types (self, &weight, &count);

  /* First pass: how many samples, on which tracks, and what is damaged. */
  tsl_spool_rewind (&self->samples);
  while (next_record (&self->samples, &pos, &data, &len))
    {
      if (!decode_sample (self, data, len, &s))
        {
          if (tsl_pprof_may_warn (self, WARN_BAD_FIELD))
            tsl_pprof_warn_at (self, pos, _("a damaged Sample message is ignored"));
          continue;
        }
      n += count_of (self, &s, count, pos, TRUE);
      track_of (self, tracks, s.thread, s.thread != s.num);
      for (guint i = 0; i < s.locs.len; i++)
        if (tsl_pprof_ids_find (&self->location_ids, s.locs.v[i]) == 0)
          {
            build_stack (self, &s, frames, stack, pos, TRUE);
            break;
          }
    }

  /* Beside tracks of thread labels, the rest is not "the profile". */
  if (g_hash_table_size (tracks) > 1 && g_hash_table_contains (tracks, ""))
    tsl_trace_set_thread_name (self->trace, 0, unlabelled_tid (self, tracks), "(no thread label)");

  if (n > 0)
    {
      g_autofree char *length = NULL;

      time_base (self, n, &start, &duration);
      tsl_trace_note_time (self->trace, start);
      tsl_trace_note_time (self->trace, start + duration);
      length = tsl_duration_format ((double) duration);
      tsl_trace_add_warning (self->trace, _("%s: pprof samples have no times; they are spread evenly "
                                            "over the profile's %s in file order (%llu in all)"),
                             name, length, (unsigned long long) n);
      if (count < 0 && weight >= 0)
        tsl_trace_add_warning (self->trace, _("%s: no sample type counts samples (unit \"count\"); each "
                                              "sample record is one sample, its value its \"%s\" (%s)"),
                               name, type_name (self, weight, 0), type_name (self, weight, 1));
      else if (count < 0)
        tsl_trace_add_warning (self->trace, _("%s: no sample types; each sample record is one sample"), name);
      else
        tsl_trace_add_warning (self->trace, _("%s: each sample is one of \"%s\" (%s), its value its share "
                                              "of \"%s\" (%s)"), name,
                               type_name (self, count, 0), type_name (self, count, 1),
                               type_name (self, weight, 0), type_name (self, weight, 1));
    }

  /* Second pass: each sample at its place in file order. */
  tsl_spool_rewind (&self->samples);
  while (n > 0 && next_record (&self->samples, &pos, &data, &len))
    {
      gint64 c;
      double value = 1;
      guint track;
      gboolean labelled = FALSE;

      if (!decode_sample (self, data, len, &s))
        continue;
      c = count_of (self, &s, count, pos, FALSE);
      if (c == 0)
        continue;
      track = track_of (self, tracks, s.thread, s.thread != s.num);
      if (weight >= 0 && weight != count)
        {
          gint64 w = (guint) weight < s.values.len ? (gint64) s.values.v[weight] : 0;

          value = w > 0 ? (double) w / (double) c : 0;
        }
      for (gint64 j = 0; j < c; j++, k++)
        {
          gint64 t = start + (gint64) ((__int128) duration * k / n);

          if (!tsl_trace_offer (self->trace, track, t, value))
            continue;
          if (labelled)
            {
              tsl_trace_set_label_joined (self->trace, track, self->scratch->str, self->scratch->len);
              continue;
            }
          build_stack (self, &s, frames, stack, pos, FALSE);
          if (stack->len == 0)
            {
              g_string_assign (self->scratch, "(no stack)");
              tsl_trace_set_label_joined (self->trace, track, self->scratch->str, self->scratch->len);
            }
          else
            tsl_format_set_stack_label (self->trace, track, self->scratch, stack->len, label_name, &label, NULL);
          labelled = TRUE;
        }
    }
  tsl_trace_add_events (self->trace, n);
  say_totals (self);
  g_free (s.locs.v);
  g_free (s.values.v);
}
