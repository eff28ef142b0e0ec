/* tsl-perfetto-details.c: a TrackEvent's category and debug annotations
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * tsl_slice_details_read() (tsl-event-details.c) comes here for a packet's
 * key byte. A Perfetto TrackEvent names its category, its name and its debug
 * annotations' names by interned ids, defined by earlier packets of its
 * sequence since the sequence's last incremental-state reset: the file is
 * scanned from its start to the packet (only packet headers and the
 * sequence's InternedData are decoded; compressed bundles are inflated) so
 * that every id means what it meant there. An id no earlier packet of the
 * sequence defined is shown as such, never guessed.
 */
#define G_LOG_DOMAIN "tsl-details"

#include "config.h"

#include <string.h>
#include <glib/gi18n-lib.h>
#include <zstd.h>

#include "tsl-event-details.h"
#include "tsl-perfetto-private.h"
#include "tsl-proto.h"

#define READ_SIZE     (1024 * 1024)
#define MAX_INFLATED  ((gsize) 256 * 1024 * 1024)
#define MAX_NESTING   4

/* TracePacket fields: tsl-perfetto-scan.h. */
enum {
  SEQ_INCREMENTAL_STATE_CLEARED = 1,
};

enum {
  KIND_CATEGORY,     /* InternedData.event_categories = 1 */
  KIND_NAME,         /* event_names = 2 */
  KIND_ANNOTATION,   /* debug_annotation_names = 3 */
  KIND_STRING,       /* debug_annotation_string_values = 29 */
  N_KINDS,
};

typedef struct {
  guint32     seq;           /* the sequence whose state is followed */
  GHashTable *names[N_KINDS];  /* iid → name */
  guint       n_unreadable;  /* bundles that would not inflate */
} State;

static void
state_clear (State *state)
{
  for (guint k = 0; k < N_KINDS; k++)
    g_hash_table_remove_all (state->names[k]);
}

static void
field_free (gpointer data)
{
  TslEventField *field = data;

  g_free (field->key);
  g_free (field->value);
  g_free (field);
}

static void
add_field (GPtrArray  *fields,
           const char *key,
           char       *value)
{
  TslEventField *field = g_new (TslEventField, 1);

  field->key = g_strdup (key);
  field->value = value;
  g_ptr_array_add (fields, field);
}

/* An entry {iid = 1, name = 2} of InternedData. */
static void
intern_entry (State        *state,
              guint         kind,
              const guint8 *data,
              gsize         len)
{
  guint64 iid;
  const guint8 *name;
  gsize name_len;

  tsl_perfetto_interned_entry (data, len, &iid, &name, &name_len);
  if (name != NULL)
    g_hash_table_insert (state->names[kind], g_memdup2 (&iid, sizeof iid),
                         g_utf8_make_valid ((const char *) name, (gssize) name_len));
}

static void
interned_data (State        *state,
               const guint8 *data,
               gsize         len)
{
  TslProtoCursor c;
  TslProtoField f;

  tsl_proto_cursor_init (&c, data, len);
  while (tsl_proto_next (&c, &f) == TSL_PROTO_OK)
    {
      if (f.wire != TSL_PROTO_LEN)
        continue;
      switch (f.number)
        {
        case 1: intern_entry (state, KIND_CATEGORY, f.data, f.len); break;
        case 2: intern_entry (state, KIND_NAME, f.data, f.len); break;
        case 3: intern_entry (state, KIND_ANNOTATION, f.data, f.len); break;
        case 29: intern_entry (state, KIND_STRING, f.data, f.len); break;
        default: break;
        }
    }
}

static gboolean inflate_bundle (const guint8 *data, gsize len, gboolean zstd, GByteArray *out);
static void scan_packets (State *state, const guint8 *data, gsize len, guint nesting);

/* One packet before the slice's: what it does to the followed sequence. */
static void
scan_packet (State        *state,
             const guint8 *data,
             gsize         len,
             guint         nesting)
{
  TslProtoCursor c;
  TslProtoField f;
  guint32 seq = 0, flags = 0;
  gboolean cleared = FALSE;
  const guint8 *interned = NULL;
  gsize interned_len = 0;

  tsl_proto_cursor_init (&c, data, len);
  while (tsl_proto_next (&c, &f) == TSL_PROTO_OK)
    switch (f.number)
      {
      case PKT_SEQUENCE_ID: seq = (guint32) f.value; break;
      case PKT_SEQUENCE_FLAGS: flags = (guint32) f.value; break;
      case PKT_INCREMENTAL_STATE_CLEARED: cleared = f.value != 0; break;
      case PKT_INTERNED_DATA:
        if (f.wire == TSL_PROTO_LEN)
          {
            interned = f.data;
            interned_len = f.len;
          }
        break;
      case PKT_COMPRESSED_PACKETS:
      case PKT_ZSTD_COMPRESSED_PACKETS:
        if (f.wire == TSL_PROTO_LEN && nesting < MAX_NESTING)
          {
            g_autoptr(GByteArray) out = g_byte_array_new ();

            if (!inflate_bundle (f.data, f.len, f.number == PKT_ZSTD_COMPRESSED_PACKETS, out))
              state->n_unreadable++;
            scan_packets (state, out->data, out->len, nesting + 1);
          }
        break;
      default:
        break;
      }
  if (seq != state->seq)
    return;
  if (cleared || (flags & SEQ_INCREMENTAL_STATE_CLEARED))
    state_clear (state);
  if (interned != NULL)
    interned_data (state, interned, interned_len);
}

/* A run of field-1 TracePackets (a bundle's contents). */
static void
scan_packets (State        *state,
              const guint8 *data,
              gsize         len,
              guint         nesting)
{
  TslProtoCursor c;
  TslProtoField f;

  tsl_proto_cursor_init (&c, data, len);
  while (tsl_proto_next (&c, &f) == TSL_PROTO_OK)
    if (f.number == 1 && f.wire == TSL_PROTO_LEN)
      scan_packet (state, f.data, f.len, nesting);
}

static gboolean
inflate_bundle (const guint8 *data,
                gsize         len,
                gboolean      zstd,
                GByteArray   *out)
{
  if (zstd)
    {
      ZSTD_DStream *ds = ZSTD_createDStream ();
      ZSTD_inBuffer in = { data, len, 0 };
      gsize ret = 1;
      gboolean ok = TRUE;

      ZSTD_initDStream (ds);
      while (ret != 0 && ok)
        {
          gsize have = out->len;
          ZSTD_outBuffer ob;

          if (have >= MAX_INFLATED)
            ok = FALSE;
          else
            {
              g_byte_array_set_size (out, MIN (MAX (have * 2, 64 * 1024), MAX_INFLATED));
              ob = (ZSTD_outBuffer) { out->data, out->len, have };
              ret = ZSTD_decompressStream (ds, &ob, &in);
              g_byte_array_set_size (out, ob.pos);
              if (ZSTD_isError (ret) || (in.pos == in.size && ob.pos < ob.size && ret != 0))
                ok = FALSE;
            }
        }
      ZSTD_freeDStream (ds);
      return ok;
    }
  else
    {
      GZlibCompressorFormat format = len >= 2 && data[0] == 0x1f && data[1] == 0x8b
                                     ? G_ZLIB_COMPRESSOR_FORMAT_GZIP : G_ZLIB_COMPRESSOR_FORMAT_ZLIB;
      g_autoptr(GConverter) conv = G_CONVERTER (g_zlib_decompressor_new (format));
      gsize in_pos = 0;

      for (;;)
        {
          gsize read = 0, written = 0, have = out->len;
          GConverterResult result;

          if (have >= MAX_INFLATED)
            return FALSE;
          g_byte_array_set_size (out, MIN (have + 64 * 1024, MAX_INFLATED));
          result = g_converter_convert (conv, data + in_pos, len - in_pos, out->data + have,
                                        out->len - have, G_CONVERTER_INPUT_AT_END, &read,
                                        &written, NULL);
          g_byte_array_set_size (out, have + written);
          in_pos += read;
          if (result == G_CONVERTER_FINISHED)
            return TRUE;
          if (result == G_CONVERTER_ERROR)
            return FALSE;
        }
    }
}

/* Every packet of the file before `offset`, in order. */
static gboolean
scan_to (State         *state,
         GInputStream  *in,
         gint64         offset,
         GCancellable  *cancellable,
         GError       **error)
{
  g_autoptr(GByteArray) buf = g_byte_array_new ();
  gint64 pos = 0;   /* of buf->data[0] */

  while (pos < offset)
    {
      gsize old = buf->len, got = 0, used = 0;
      gsize want = (gsize) MIN ((gint64) READ_SIZE, offset - pos - (gint64) old);

      if (want > 0)
        {
          g_byte_array_set_size (buf, old + want);
          if (!g_input_stream_read_all (in, buf->data + old, want, &got, cancellable, error))
            return FALSE;
          g_byte_array_set_size (buf, old + got);
        }
      for (;;)
        {
          const guint8 *p = buf->data + used, *end = buf->data + buf->len;
          guint64 key, n;

          if (tsl_proto_varint (&p, end, &key) != TSL_PROTO_OK ||
              tsl_proto_varint (&p, end, &n) != TSL_PROTO_OK || n > (guint64) (end - p))
            {
              if (want > 0 && got == 0)
                goto damaged;
              break;
            }
          if (key == (1 << 3 | TSL_PROTO_LEN))
            scan_packet (state, p, (gsize) n, 0);
          used = (p - buf->data) + (gsize) n;
          if (pos + (gint64) used >= offset)
            break;
        }
      g_byte_array_remove_range (buf, 0, (guint) used);
      pos += (gint64) used;
      if (used == 0 && (want == 0 || got == 0))
        goto damaged;
      if (used == 0 && buf->len > TSL_PERFETTO_MAX_PACKET)
        goto damaged;
    }
  if (pos == offset)
    return TRUE;

damaged:
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
               _("the packets before this one do not end where it starts (was the file changed?)"));
  return FALSE;
}

static char *
lookup (State   *state,
        guint    kind,
        guint64  iid)
{
  const char *name = g_hash_table_lookup (state->names[kind], &iid);

  if (name != NULL)
    return g_strdup (name);
  {
    g_autofree char *id = g_strdup_printf ("%" G_GUINT64_FORMAT, iid);

    return g_strdup_printf (_("(interned id %s, not defined on this sequence before this packet)"), id);
  }
}

static char *
double_text (guint64 bits)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  double v;

  memcpy (&v, &bits, sizeof v);
  return g_strdup (g_ascii_dtostr (buf, sizeof buf, v));
}

/* One DebugAnnotation as "args.NAME" (dictionaries as "args.NAME.KEY"). */
static void
annotation (State        *state,
            GPtrArray    *fields,
            const char   *prefix,
            const guint8 *data,
            gsize         len,
            guint         depth)
{
  TslProtoCursor c;
  TslProtoField f;
  g_autofree char *name = NULL;
  g_autofree char *key = NULL;
  g_autoptr(GString) array = NULL;
  char *value = NULL;
  gboolean dict = FALSE;

  tsl_proto_cursor_init (&c, data, len);
  while (tsl_proto_next (&c, &f) == TSL_PROTO_OK)
    {
      if (f.number == 1 && f.wire == TSL_PROTO_VARINT)
        {
          g_free (name);
          name = lookup (state, KIND_ANNOTATION, f.value);
        }
      else if (f.number == 10 && f.wire == TSL_PROTO_LEN)
        {
          g_free (name);
          name = g_utf8_make_valid ((const char *) f.data, (gssize) f.len);
        }
    }
  key = g_strdup_printf ("%s.%s", prefix, name ? name : "?");

  tsl_proto_cursor_init (&c, data, len);
  while (tsl_proto_next (&c, &f) == TSL_PROTO_OK)
    {
      char *v = NULL;

      switch (f.number)
        {
        case 2: v = g_strdup (f.value ? "true" : "false"); break;
        case 3: v = g_strdup_printf ("%" G_GUINT64_FORMAT, f.value); break;
        case 4: v = g_strdup_printf ("%" G_GINT64_FORMAT, (gint64) f.value); break;
        case 5: if (f.wire == TSL_PROTO_I64) v = double_text (f.value); break;
        case 7: v = g_strdup_printf ("0x%" G_GINT64_MODIFIER "x", f.value); break;
        case 6: case 9:
          if (f.wire == TSL_PROTO_LEN)
            v = g_utf8_make_valid ((const char *) f.data, (gssize) f.len);
          break;
        case 17: v = lookup (state, KIND_STRING, f.value); break;
        case 8: v = g_strdup (_("(nested value)")); break;
        case 14:
          if (f.wire == TSL_PROTO_LEN)
            v = g_strdup_printf (_("(%u bytes of a typed proto)"), (guint) MIN (f.len, G_MAXUINT));
          break;
        case 11:
          if (f.wire == TSL_PROTO_LEN && depth < 8)
            {
              dict = TRUE;
              annotation (state, fields, key, f.data, f.len, depth + 1);
            }
          break;
        case 12:
          if (f.wire == TSL_PROTO_LEN && depth < 8)
            {
              g_autoptr(GPtrArray) items = g_ptr_array_new_with_free_func (field_free);

              annotation (state, items, "", f.data, f.len, depth + 1);
              if (array == NULL)
                array = g_string_new ("[");
              else
                g_string_append (array, ", ");
              for (guint i = 0; i < items->len; i++)
                g_string_append_printf (array, "%s%s", i > 0 ? ", " : "",
                                        ((TslEventField *) g_ptr_array_index (items, i))->value);
            }
          break;
        default:
          break;
        }
      if (v != NULL)
        {
          g_free (value);
          value = v;
        }
    }
  if (array != NULL)
    {
      g_string_append_c (array, ']');
      g_free (value);
      value = g_string_free (g_steal_pointer (&array), FALSE);
    }
  if (value != NULL)
    add_field (fields, key, value);
  else if (!dict)
    add_field (fields, key, g_strdup (""));
}

static const char *
type_name (guint64 type)
{
  switch (type)
    {
    case 1: return "slice begin";
    case 2: return "slice end";
    case 3: return "instant";
    case 4: return "counter";
    default: return "unspecified";
    }
}

/* The TrackEvent of the packet, with the followed sequence's state. */
static GPtrArray *
event_fields (State        *state,
              const guint8 *data,
              gsize         len)
{
  g_autoptr(GPtrArray) fields = g_ptr_array_new_with_free_func (field_free);
  g_autoptr(GString) cats = g_string_new (NULL);
  TslProtoCursor c;
  TslProtoField f;
  char *name = NULL;
  guint64 type = 0;
  gboolean has_type = FALSE;

  tsl_proto_cursor_init (&c, data, len);
  while (tsl_proto_next (&c, &f) == TSL_PROTO_OK)
    {
      switch (f.number)
        {
        case 23:
          if (f.wire == TSL_PROTO_LEN)
            {
              g_free (name);
              name = g_utf8_make_valid ((const char *) f.data, (gssize) f.len);
            }
          break;
        case 10:
          if (f.wire == TSL_PROTO_VARINT)
            {
              g_free (name);
              name = lookup (state, KIND_NAME, f.value);
            }
          break;
        case 22:
          if (f.wire == TSL_PROTO_LEN)
            {
              g_autofree char *cat = g_utf8_make_valid ((const char *) f.data, (gssize) f.len);

              g_string_append_printf (cats, "%s%s", cats->len ? "," : "", cat);
            }
          break;
        case 3:
          {
            const guint8 *p = f.data, *end = f.data + f.len;
            guint64 iid;

            if (f.wire == TSL_PROTO_VARINT)
              {
                g_autofree char *cat = lookup (state, KIND_CATEGORY, f.value);

                g_string_append_printf (cats, "%s%s", cats->len ? "," : "", cat);
              }
            else if (f.wire == TSL_PROTO_LEN)
              while (p < end && tsl_proto_packed_next (&p, end, TSL_PROTO_VARINT, &iid))
                {
                  g_autofree char *cat = lookup (state, KIND_CATEGORY, iid);

                  g_string_append_printf (cats, "%s%s", cats->len ? "," : "", cat);
                }
            break;
          }
        case 9:
          if (f.wire == TSL_PROTO_VARINT)
            {
              has_type = TRUE;
              type = f.value;
            }
          break;
        default:
          break;
        }
    }

  if (name != NULL)
    add_field (fields, "name", name);
  if (cats->len > 0)
    add_field (fields, "cat", g_strdup (cats->str));
  if (has_type)
    add_field (fields, "ph", g_strdup (type_name (type)));

  tsl_proto_cursor_init (&c, data, len);
  while (tsl_proto_next (&c, &f) == TSL_PROTO_OK)
    if (f.number == 4 && f.wire == TSL_PROTO_LEN)
      annotation (state, fields, "args", f.data, f.len, 0);
  return g_steal_pointer (&fields);
}

GPtrArray *
tsl_perfetto_details_read (GInputStream  *in,
                           gint64         offset,
                           GCancellable  *cancellable,
                           GError       **error)
{
  State state = { 0, };
  g_autoptr(GByteArray) packet = g_byte_array_new ();
  guint8 head[20];
  gsize got = 0;
  const guint8 *p = head;
  guint64 key, n;
  const guint8 *event = NULL;
  gsize event_len = 0;
  GPtrArray *fields = NULL;
  TslProtoCursor c;
  TslProtoField f;

  if (!g_seekable_seek (G_SEEKABLE (in), offset, G_SEEK_SET, cancellable, error) ||
      !g_input_stream_read_all (in, head, sizeof head, &got, cancellable, error))
    return NULL;
  if (tsl_proto_varint (&p, head + got, &key) != TSL_PROTO_OK || key != (1 << 3 | TSL_PROTO_LEN) ||
      tsl_proto_varint (&p, head + got, &n) != TSL_PROTO_OK || n > TSL_PERFETTO_MAX_PACKET)
    goto no_packet;
  g_byte_array_set_size (packet, (guint) n);
  if (!g_seekable_seek (G_SEEKABLE (in), offset + (p - head), G_SEEK_SET, cancellable, error) ||
      !g_input_stream_read_all (in, packet->data, packet->len, &got, cancellable, error))
    return NULL;
  if (got != packet->len)
    goto no_packet;

  tsl_proto_cursor_init (&c, packet->data, packet->len);
  while (tsl_proto_next (&c, &f) == TSL_PROTO_OK)
    if (f.number == PKT_SEQUENCE_ID)
      state.seq = (guint32) f.value;
    else if (f.number == PKT_TRACK_EVENT && f.wire == TSL_PROTO_LEN)
      {
        event = f.data;
        event_len = f.len;
      }
  if (event == NULL)
    goto no_packet;

  for (guint k = 0; k < N_KINDS; k++)
    state.names[k] = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  if (g_seekable_seek (G_SEEKABLE (in), 0, G_SEEK_SET, cancellable, error) &&
      scan_to (&state, in, offset, cancellable, error))
    {
      /* The packet's own interned data and reset count too. */
      scan_packet (&state, packet->data, packet->len, MAX_NESTING);
      fields = event_fields (&state, event, event_len);
      if (state.n_unreadable > 0)
        add_field (fields, "note", g_strdup_printf (_("%u compressed bundles before this packet "
                                                      "did not inflate: names they define are not known"),
                                                    state.n_unreadable));
    }
  for (guint k = 0; k < N_KINDS; k++)
    g_hash_table_unref (state.names[k]);
  return fields;

no_packet:
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
               _("no TracePacket with a TrackEvent at this position of the file (was it changed?)"));
  return NULL;
}
