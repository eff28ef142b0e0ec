/* tsl-pprof-reader.c: pprof profiles (profile.proto), as Go writes them
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What Go's runtime/pprof and `go test -cpuprofile` write, usually gzipped
 * (TslReader inflates it): one Profile message whose top-level fields are
 * the sample types, the samples (location ids and values), the mappings,
 * locations (inlined frames as several lines), functions and the string
 * table, then the time, duration and period. Go interleaves the samples
 * with the locations and functions and writes the string table last, and a
 * sample has no time of its own, so the samples are held (as their encoded
 * bytes, tsl-spool.c) until the end, then placed evenly over the
 * profile's duration in file order and labelled (tsl-pprof-samples.c).
 *
 * Damage is reported by byte of the decoded (inflated) input, as
 * "FILE:BYTE: message" like the Perfetto reader; a damaged or cut
 * top-level field ends the reading with what came before it kept, a damaged
 * record inside one is skipped.
 *
 * No chunk index (TSL_CHECKPOINT_NEVER) and not parallel: a sample's place
 * on the timeline depends on how many samples the whole file holds, and
 * its stack on tables that come after it.
 */
#define G_LOG_DOMAIN "tsl-pprof-reader"

#include "config.h"

#include <string.h>
#include <glib/gi18n-lib.h>

#include "tsl-pprof-private.h"

/* Ids below this are an array index, not a hash lookup. */
#define DENSE_IDS (1u << 20)
/* Sample bytes in memory, and per block read back from the file. */
#define SPOOL_BYTES (4 * 1024 * 1024)

/* profile.proto's top-level field numbers. */
enum {
  F_SAMPLE_TYPE = 1,
  F_SAMPLE = 2,
  F_MAPPING = 3,
  F_LOCATION = 4,
  F_FUNCTION = 5,
  F_STRING = 6,
  F_DROP_FRAMES = 7,
  F_KEEP_FRAMES = 8,
  F_TIME_NANOS = 9,
  F_DURATION_NANOS = 10,
  F_PERIOD_TYPE = 11,
  F_PERIOD = 12,
  F_COMMENT = 13,
  F_DEFAULT_SAMPLE_TYPE = 14,
  F_DOC_URL = 15,
};

/* The wire type profile.proto gives a top-level field; -1: any (unknown
 * fields, and comment, which may be packed or not). */
static int
expected_wire (guint32 number)
{
  switch (number)
    {
    case F_SAMPLE_TYPE: case F_SAMPLE: case F_MAPPING: case F_LOCATION:
    case F_FUNCTION: case F_STRING: case F_PERIOD_TYPE: case F_DOC_URL:
      return TSL_PROTO_LEN;
    case F_DROP_FRAMES: case F_KEEP_FRAMES: case F_TIME_NANOS: case F_DURATION_NANOS:
    case F_PERIOD: case F_DEFAULT_SAMPLE_TYPE:
      return TSL_PROTO_VARINT;
    default:
      return -1;
    }
}

/* A ValueType: fields 1 (type) and 2 (unit), varints, nothing else. */
static gboolean
decode_value_type (const guint8 *data,
                   gsize         len,
                   gint64       *type,
                   gint64       *unit)
{
  TslProtoCursor c;
  TslProtoField f;
  TslProtoStatus st;
  guint n = 0;

  *type = *unit = 0;
  tsl_proto_cursor_init (&c, data, len);
  while ((st = tsl_proto_next (&c, &f)) == TSL_PROTO_OK)
    {
      if ((f.number != 1 && f.number != 2) || f.wire != TSL_PROTO_VARINT)
        return FALSE;
      *(f.number == 1 ? type : unit) = (gint64) f.value;
      n++;
    }
  return st == TSL_PROTO_END && n > 0;
}

/* The head must be top-level fields of profile.proto's wire types, one of
 * them a sample type (Go writes time_nanos, then the sample types). A
 * Perfetto trace also begins with field 1, but its TracePacket holds fields
 * a ValueType cannot (timestamp is field 8), and text is no run of fields. */
static int
pprof_sniff (const guint8 *head,
             gsize         len,
             gboolean      at_eof)
{
  TslProtoCursor c;
  TslProtoField f;
  TslProtoStatus st;
  guint n = 0, types = 0;
  gint64 type, unit;

  if (len < 2 || expected_wire (head[0] >> 3) != (head[0] & 7))
    return 0;
  tsl_proto_cursor_init (&c, head, len);
  while ((st = tsl_proto_next (&c, &f)) == TSL_PROTO_OK)
    {
      int wire = expected_wire (f.number);

      if (f.number > 64 || (wire >= 0 && f.wire != wire))
        return 0;
      if ((f.number == F_SAMPLE_TYPE || f.number == F_PERIOD_TYPE) &&
          !decode_value_type (f.data, f.len, &type, &unit))
        return 0;
      types += f.number == F_SAMPLE_TYPE;
      n++;
    }
  if (st == TSL_PROTO_BAD || types == 0 || n < 2)
    return 0;
  /* A field cut by the end of the head is judged on the ones before it. */
  if (st == TSL_PROTO_TRUNCATED && at_eof)
    return 60;
  return 100;
}

static void
ids_init (TslPprofIds *ids)
{
  ids->dense = g_array_new (FALSE, TRUE, sizeof (guint32));
  ids->sparse = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
}

static void
ids_clear (TslPprofIds *ids)
{
  g_array_unref (ids->dense);
  g_hash_table_unref (ids->sparse);
}

guint32
tsl_pprof_ids_find (TslPprofIds *ids,
                    guint64      id)
{
  if (id < ids->dense->len)
    return g_array_index (ids->dense, guint32, id);
  if (id < DENSE_IDS)
    return 0;
  return GPOINTER_TO_UINT (g_hash_table_lookup (ids->sparse, &id));
}

/* FALSE if the id is taken already. */
static gboolean
ids_add (TslPprofIds *ids,
         guint64      id,
         guint32      index)
{
  if (tsl_pprof_ids_find (ids, id) != 0)
    return FALSE;
  if (id < DENSE_IDS)
    {
      if (id >= ids->dense->len)
        g_array_set_size (ids->dense, MAX ((guint) id + 1, ids->dense->len * 2));
      g_array_index (ids->dense, guint32, id) = index + 1;
    }
  else
    g_hash_table_insert (ids->sparse, g_memdup2 (&id, sizeof id), GUINT_TO_POINTER (index + 1));
  return TRUE;
}

gboolean
tsl_pprof_may_warn (TslPprof *self,
                    WarnKind  kind)
{
  return ++self->warned[kind] <= TSL_PPROF_POS_WARNINGS;
}

void
tsl_pprof_warn_at (TslPprof   *self,
                   guint64     pos,
                   const char *message)
{
  tsl_trace_add_warning (self->trace, "%s:%" G_GUINT64_FORMAT ": %s",
                         tsl_reader_context_get_name (self->ctx), pos, message);
}

const char *
tsl_pprof_string (TslPprof *self,
                  gint64    index)
{
  if (index < 0 || (guint64) index >= self->strings->len)
    return NULL;
  return g_ptr_array_index (self->strings, index);
}

static gpointer
pprof_create (TslTrace         *trace,
              TslReaderContext *ctx)
{
  TslPprof *self = g_new0 (TslPprof, 1);

  self->trace = trace;
  self->ctx = ctx;
  self->scratch = g_string_new (NULL);
  self->strings = g_ptr_array_new_with_free_func (g_free);
  self->sample_types = g_array_new (FALSE, FALSE, sizeof (gint64));
  self->functions = g_array_new (FALSE, FALSE, sizeof (Function));
  self->locations = g_array_new (FALSE, FALSE, sizeof (Location));
  self->lines = g_array_new (FALSE, FALSE, sizeof (Line));
  self->mappings = g_array_new (FALSE, FALSE, sizeof (Mapping));
  ids_init (&self->function_ids);
  ids_init (&self->location_ids);
  ids_init (&self->mapping_ids);
  /* TSL_PPROF_SPOOL_BYTES=N spills past N bytes instead (tests, fuzzing). */
  tsl_spool_init (&self->samples, "pprof", SPOOL_BYTES, "TSL_PPROF_SPOOL_BYTES");
  self->max_count = 1 << 20;
  if (g_getenv ("TSL_PPROF_MAX_COUNT") != NULL)
    self->max_count = CLAMP (g_ascii_strtoll (g_getenv ("TSL_PPROF_MAX_COUNT"), NULL, 10), 1, G_MAXINT32);
  return self;
}

static void
pprof_destroy (gpointer state)
{
  TslPprof *self = state;

  g_string_free (self->scratch, TRUE);
  g_ptr_array_unref (self->strings);
  g_array_unref (self->sample_types);
  g_array_unref (self->functions);
  g_array_unref (self->locations);
  g_array_unref (self->lines);
  g_array_unref (self->mappings);
  ids_clear (&self->function_ids);
  ids_clear (&self->location_ids);
  ids_clear (&self->mapping_ids);
  tsl_spool_clear (&self->samples);
  g_free (self);
}

static void
warn_field (TslPprof   *self,
            guint64     pos,
            const char *message)
{
  if (tsl_pprof_may_warn (self, WARN_BAD_FIELD))
    tsl_pprof_warn_at (self, pos, message);
}

static void
read_function (TslPprof     *self,
               const guint8 *data,
               gsize         len,
               guint64       pos)
{
  Function fn = { .pos = pos };
  TslProtoCursor c;
  TslProtoField f;
  TslProtoStatus st;

  tsl_proto_cursor_init (&c, data, len);
  while ((st = tsl_proto_next (&c, &f)) == TSL_PROTO_OK)
    if (f.wire == TSL_PROTO_VARINT)
      {
        if (f.number == 1)
          fn.id = f.value;
        else if (f.number == 2)
          fn.name = (gint64) f.value;
        else if (f.number == 3)
          fn.system_name = (gint64) f.value;
      }
  if (st != TSL_PROTO_END)
    {
      warn_field (self, pos, _("a damaged Function message is ignored"));
      return;
    }
  if (fn.id == 0 || !ids_add (&self->function_ids, fn.id, self->functions->len))
    {
      warn_field (self, pos, fn.id == 0 ? _("a Function with id 0 is ignored")
                                        : _("a second Function with the same id is ignored"));
      return;
    }
  g_array_append_val (self->functions, fn);
}

static void
read_location (TslPprof     *self,
               const guint8 *data,
               gsize         len,
               guint64       pos)
{
  Location loc = { .pos = pos, .first_line = self->lines->len };
  TslProtoCursor c, lc;
  TslProtoField f, lf;
  TslProtoStatus st;
  gboolean bad = FALSE;

  tsl_proto_cursor_init (&c, data, len);
  while (!bad && (st = tsl_proto_next (&c, &f)) == TSL_PROTO_OK)
    {
      if (f.number == 4 && f.wire == TSL_PROTO_LEN)
        {
          Line line = { 0 };

          tsl_proto_cursor_init (&lc, f.data, f.len);
          while ((st = tsl_proto_next (&lc, &lf)) == TSL_PROTO_OK)
            if (lf.number == 1 && lf.wire == TSL_PROTO_VARINT)
              line.function_id = lf.value;
          bad = st != TSL_PROTO_END;
          g_array_append_val (self->lines, line);
          loc.n_lines++;
        }
      else if (f.wire == TSL_PROTO_VARINT && f.number == 1)
        loc.id = f.value;
      else if (f.wire == TSL_PROTO_VARINT && f.number == 2)
        loc.mapping_id = f.value;
      else if (f.wire == TSL_PROTO_VARINT && f.number == 3)
        loc.address = f.value;
    }
  if (bad || st != TSL_PROTO_END)
    {
      g_array_set_size (self->lines, loc.first_line);
      warn_field (self, pos, _("a damaged Location message is ignored"));
      return;
    }
  if (loc.id == 0 || !ids_add (&self->location_ids, loc.id, self->locations->len))
    {
      g_array_set_size (self->lines, loc.first_line);
      warn_field (self, pos, loc.id == 0 ? _("a Location with id 0 is ignored")
                                         : _("a second Location with the same id is ignored"));
      return;
    }
  g_array_append_val (self->locations, loc);
}

static void
read_mapping (TslPprof     *self,
              const guint8 *data,
              gsize         len,
              guint64       pos)
{
  Mapping map = { 0 };
  TslProtoCursor c;
  TslProtoField f;
  TslProtoStatus st;

  tsl_proto_cursor_init (&c, data, len);
  while ((st = tsl_proto_next (&c, &f)) == TSL_PROTO_OK)
    if (f.wire == TSL_PROTO_VARINT)
      {
        if (f.number == 1)
          map.id = f.value;
        else if (f.number == 2)
          map.memory_start = f.value;
        else if (f.number == 5)
          map.filename = (gint64) f.value;
      }
  if (st != TSL_PROTO_END)
    {
      warn_field (self, pos, _("a damaged Mapping message is ignored"));
      return;
    }
  /* A Mapping only names unsymbolized frames: a clash is no reason to warn twice. */
  if (map.id != 0 && ids_add (&self->mapping_ids, map.id, self->mappings->len))
    g_array_append_val (self->mappings, map);
}

static guint8 *
put_varint (guint8  *p,
            guint64  v)
{
  for (; v >= 0x80; v >>= 7)
    *p++ = (guint8) (v | 0x80);
  *p++ = (guint8) v;
  return p;
}

/* One top-level field, whole. */
static void
read_field (TslPprof           *self,
            const TslProtoField *f,
            guint64             pos)
{
  int wire = expected_wire (f->number);
  gint64 type, unit;
  guint8 head[20], *h, *to;

  if (wire >= 0 && f->wire != wire)
    {
      g_autofree char *message = g_strdup_printf (_("field %u of the Profile has the wrong wire "
                                                    "type (%u) and is ignored"),
                                                  f->number, f->wire);

      warn_field (self, pos, message);
      return;
    }

  switch (f->number)
    {
    case F_SAMPLE_TYPE:
    case F_PERIOD_TYPE:
      if (!decode_value_type (f->data, f->len, &type, &unit))
        {
          warn_field (self, pos, _("a damaged ValueType message is ignored"));
          return;
        }
      if (f->number == F_PERIOD_TYPE)
        {
          self->period_type[0] = type;
          self->period_type[1] = unit;
        }
      else
        {
          g_array_append_val (self->sample_types, type);
          g_array_append_val (self->sample_types, unit);
        }
      break;

    case F_SAMPLE:
      /* Held as position, length and bytes (see TslPprof). */
      h = put_varint (put_varint (head, pos), f->len);
      /* Committed whole: a record never straddles the file and memory. */
      to = tsl_spool_reserve (&self->samples, (h - head) + f->len);
      memcpy (to, head, h - head);
      if (f->len > 0)
        memcpy (to + (h - head), f->data, f->len);
      tsl_spool_commit (&self->samples, (h - head) + f->len);
      self->n_records++;
      break;

    case F_MAPPING:
      read_mapping (self, f->data, f->len, pos);
      break;
    case F_LOCATION:
      read_location (self, f->data, f->len, pos);
      break;
    case F_FUNCTION:
      read_function (self, f->data, f->len, pos);
      break;
    case F_STRING:
      /* Names go into labels, which are UTF-8. */
      g_ptr_array_add (self->strings, g_utf8_make_valid ((const char *) f->data, f->len));
      break;
    case F_TIME_NANOS:
      self->have_time = TRUE;
      self->time_nanos = (gint64) f->value;
      break;
    case F_DURATION_NANOS:
      self->have_duration = TRUE;
      self->duration_nanos = (gint64) f->value;
      break;
    case F_PERIOD:
      self->have_period = TRUE;
      self->period = (gint64) f->value;
      break;
    case F_DEFAULT_SAMPLE_TYPE:
      self->have_default_type = TRUE;
      self->default_type = (gint64) f->value;
      break;
    default:
      break;
    }
}

static gssize
pprof_parse (gpointer      state,
             const guint8 *buf,
             gsize         len,
             gboolean      at_eof,
             GError      **error)
{
  TslPprof *self = state;
  const guint8 *p = buf, *end = buf + len;
  guint64 base = (guint64) MAX (tsl_reader_context_get_input_offset (self->ctx), 0);

  while (!self->stopped && p < end)
    {
      TslProtoCursor c = { 0 };
      TslProtoField f = { 0 };  /* c and f: set on every path to read_field(); GCC cannot tell */
      TslProtoStatus st;
      const guint8 *q = p;
      guint64 key = 0, n = 0;
      g_autofree char *message = NULL;

      /* The key and length first: a field longer than the limit is damage,
       * however much of it has come. */
      st = tsl_proto_varint (&q, end, &key);
      if (st == TSL_PROTO_OK && (key & 7) == TSL_PROTO_LEN)
        st = tsl_proto_varint (&q, end, &n);
      if (st == TSL_PROTO_OK && (key & 7) == TSL_PROTO_LEN && n > TSL_PPROF_MAX_FIELD)
        message = g_strdup_printf (_("a field of the Profile claims %llu bytes, more than the "
                                     "%u MiB a pprof field may hold"),
                                   (unsigned long long) n, TSL_PPROF_MAX_FIELD / (1024 * 1024));
      else
        {
          tsl_proto_cursor_init (&c, p, end - p);
          st = tsl_proto_next (&c, &f);
          if (st == TSL_PROTO_BAD)
            message = g_strdup (_("expected a field of the Profile message (a key with field number "
                                  "1 or more and wire type 0, 1, 2 or 5)"));
        }
      if (message != NULL)
        {
          g_autofree char *full = g_strdup_printf (_("%s; the rest of the pprof profile is not read"),
                                                   message);

          tsl_pprof_warn_at (self, base + (p - buf), full);
          self->stopped = TRUE;
          break;
        }
      if (st == TSL_PROTO_TRUNCATED)
        {
          if (!at_eof)
            break;
          {
            g_autofree char *cut = g_strdup_printf (_("the pprof profile ends inside a field (%llu "
                                                      "bytes of it present); what came before was read"),
                                                    (unsigned long long) (end - p));

            tsl_pprof_warn_at (self, base + (p - buf), cut);
          }
          self->stopped = TRUE;
          break;
        }
      read_field (self, &f, base + (p - buf));
      p = c.p;
    }

  if (at_eof)
    {
      tsl_pprof_finish (self);
      return len;
    }
  return self->stopped ? (gssize) len : p - buf;
}

const TslFormat tsl_format_pprof = {
  .name = "pprof",
  .sniff = pprof_sniff,
  .create = pprof_create,
  .parse = pprof_parse,
  .destroy = pprof_destroy,
  .binary = TRUE,
  .checkpoint = tsl_format_checkpoint_never,
};
