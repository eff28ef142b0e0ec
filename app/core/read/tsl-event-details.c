/* tsl-event-details.c: one slice's event read back from its file, of any format
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A Perfetto TracePacket's key byte goes to tsl-perfetto-details.c; anything
 * else is read here as a Chrome JSON event.
 * The object is delimited with our own tokenizer (reading more of the file
 * until it is whole), then parsed with json-glib: only this one event. In
 * gzip or zstd input the offset is of the decompressed text: decompression
 * resumes at the last access point of the file's chunk index before it
 * (tsl-chunk-index.h), or starts at the beginning without one.
 */
#define G_LOG_DOMAIN "tsl-details"

#include "config.h"

#include <string.h>
#include <glib/gi18n-lib.h>
#include <json-glib/json-glib.h>

#include "tsl-chunk-index.h"
#include "tsl-event-details.h"
#include "tsl-inflate.h"
#include "tsl-json-scan.h"

#define FIRST_READ (16 * 1024)
#define INPUT_READ (64 * 1024)
/* The reader's record cap: no event it read is longer. */
#define MAX_EVENT  ((gsize) 256 * 1024 * 1024)
/* Field 1 (TracePacket) of a Trace, length-delimited: tsl-proto.h's
 * 1 << 3 | TSL_PROTO_LEN. */
#define TRACE_PACKET_KEY 0x0A

static void
field_free (gpointer data)
{
  TslEventField *field = data;

  g_free (field->key);
  g_free (field->value);
  g_free (field);
}

/* The shortest form that reads back as the same double, as Python prints it. */
static char *
format_double (double v)
{
  for (int digits = 15; digits <= 17; digits++)
    {
      char *s = g_strdup_printf ("%.*g", digits, v);

      if (g_ascii_strtod (s, NULL) == v || digits == 17)
        {
          /* printf's locale may use a comma. */
          g_strdelimit (s, ",", '.');
          return s;
        }
      g_free (s);
    }
  g_assert_not_reached ();
}

static char *
node_to_text (JsonNode *node)
{
  if (JSON_NODE_HOLDS_VALUE (node))
    {
      switch (json_node_get_value_type (node))
        {
        case G_TYPE_STRING:
          return g_strdup (json_node_get_string (node));
        case G_TYPE_INT64:
          return g_strdup_printf ("%" G_GINT64_FORMAT, json_node_get_int (node));
        case G_TYPE_DOUBLE:
          return format_double (json_node_get_double (node));
        case G_TYPE_BOOLEAN:
          return g_strdup (json_node_get_boolean (node) ? "true" : "false");
        default:
          break;
        }
    }
  return json_to_string (node, FALSE);
}

static void
add_field (GPtrArray  *fields,
           const char *key,
           JsonNode   *node)
{
  TslEventField *field = g_new (TslEventField, 1);

  field->key = g_strdup (key);
  field->value = node_to_text (node);
  g_ptr_array_add (fields, field);
}

/* The text from the event on: the file from its offset, or decompressed. */
typedef struct {
  GInputStream *in;
  TslInflate   *inflate;   /* NULL: plain text */
  GByteArray   *held;      /* decompressed from the event on, not yet read */
  guint64       skip_to;   /* the event's offset in the text */
  gboolean      eof;
} Source;

static gboolean
source_output (gpointer               data,
               const guint8          *out,
               gsize                  len,
               const TslInflatePoint *point,
               GError               **error)
{
  Source *src = data;
  guint64 at = tsl_inflate_get_out (src->inflate) - len;

  if (at + len <= src->skip_to)
    return TRUE;
  if (at < src->skip_to)
    {
      out += src->skip_to - at;
      len -= src->skip_to - at;
    }
  g_byte_array_append (src->held, out, len);
  return TRUE;
}

static gboolean
source_read (Source        *src,
             guint8        *buf,
             gsize          want,
             gsize         *got,
             GCancellable  *cancellable,
             GError       **error)
{
  g_autofree guint8 *input = NULL;

  if (src->inflate == NULL)
    return g_input_stream_read_all (src->in, buf, want, got, cancellable, error);

  input = g_malloc (INPUT_READ);
  while (src->held->len < want && !src->eof)
    {
      g_autofree char *message = NULL;
      gsize n = 0;
      gboolean ok;

      if (!g_input_stream_read_all (src->in, input, INPUT_READ, &n, cancellable, error))
        return FALSE;
      /* The end, or damage: what was decompressed is all there is. */
      if (n == 0 ||
          tsl_inflate_push (src->inflate, input, n, source_output, src, &ok, &message, NULL) != TSL_INFLATE_OK)
        src->eof = TRUE;
    }
  *got = MIN (want, src->held->len);
  memcpy (buf, src->held->data, *got);
  g_byte_array_remove_range (src->held, 0, *got);
  return TRUE;
}

/* Where decompression starts for text offset `offset`: the last access
 * point before it in the file's index, else the start. */
static gboolean
source_seek_compressed (Source            *src,
                        GFileInputStream  *in,
                        TslInflateKind     kind,
                        gint64             offset,
                        GCancellable      *cancellable,
                        GError           **error)
{
  g_autoptr(TslChunkIndex) index = NULL;
  guint64 in_offset = 0;
  TslFileKey key;

  src->inflate = tsl_inflate_new (kind);
  src->held = g_byte_array_new ();
  src->skip_to = offset;
  if (tsl_file_key_query (in, &key) && (index = tsl_chunk_index_find (in, &key)) != NULL &&
      tsl_chunk_index_is_compressed (index))
    for (guint i = tsl_chunk_index_get_n_chunks (index); i-- > 1;)
      {
        const TslChunk *chunk = tsl_chunk_index_get_chunk (index, i);
        guint64 out_offset;

        if (chunk->offset <= (guint64) offset && chunk->point != NULL &&
            tsl_inflate_resume (src->inflate, g_bytes_get_data (chunk->point, NULL),
                                g_bytes_get_size (chunk->point), &in_offset, &out_offset))
          break;
      }
  return g_seekable_seek (G_SEEKABLE (in), in_offset, G_SEEK_SET, cancellable, error);
}

static void
source_clear (Source *src)
{
  g_clear_pointer (&src->inflate, tsl_inflate_free);
  g_clear_pointer (&src->held, g_byte_array_unref);
}

/* The bytes of the object at the source's position, read until whole. */
static GByteArray *
read_object (Source        *in,
             GCancellable  *cancellable,
             GError       **error)
{
  g_autoptr(GByteArray) buf = g_byte_array_new ();
  gsize want = FIRST_READ;

  for (;;)
    {
      gsize old = buf->len, got = 0;
      TslJsonValue value;
      TslJsonError jerr = { NULL, NULL };
      const char *after = NULL;
      TslJsonStatus status;

      g_byte_array_set_size (buf, want);
      if (!source_read (in, buf->data + old, want - old, &got, cancellable, error))
        return NULL;
      g_byte_array_set_size (buf, old + got);
      if (buf->len == 0 || buf->data[0] != '{')
        break;
      status = tsl_json_scan_value ((const char *) buf->data, (const char *) buf->data + buf->len,
                                    &value, &after, &jerr);
      if (status == TSL_JSON_OK)
        {
          g_byte_array_set_size (buf, value.len);
          return g_steal_pointer (&buf);
        }
      if (status != TSL_JSON_INCOMPLETE || got < want - old || want >= MAX_EVENT)
        break;
      want = MIN (want * 4, MAX_EVENT);
    }
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
               _("no event object at this position of the file (was it changed?)"));
  return NULL;
}

GPtrArray *
tsl_event_details_read (GFile         *file,
                        gint64         offset,
                        GCancellable  *cancellable,
                        GError       **error)
{
  static const char *const top[] = { "name", "cat", "ph", "ts", "dur" };
  g_autoptr(GFileInputStream) in = NULL;
  g_autoptr(GByteArray) object = NULL;
  g_autoptr(JsonParser) parser = NULL;
  g_autoptr(GPtrArray) fields = NULL;
  guint8 magic[4];
  gsize got = 0;
  JsonObject *event, *args;
  Source src = { NULL, NULL, NULL, 0, FALSE };
  gboolean compressed;

  g_return_val_if_fail (G_IS_FILE (file), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if ((in = g_file_read (file, cancellable, error)) == NULL)
    return NULL;
  if (!g_input_stream_read_all (G_INPUT_STREAM (in), magic, 4, &got, cancellable, error))
    return NULL;
  compressed = (got >= 2 && magic[0] == 0x1f && magic[1] == 0x8b) ||
               (got == 4 && magic[0] == 0x28 && magic[1] == 0xb5 && magic[2] == 0x2f && magic[3] == 0xfd);
  if (offset < 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   _("the position of this event in the file is not known"));
      return NULL;
    }
  src.in = G_INPUT_STREAM (in);
  if (compressed)
    {
      if (!source_seek_compressed (&src, in, magic[0] == 0x1f ? TSL_INFLATE_GZIP : TSL_INFLATE_ZSTD,
                                   offset, cancellable, error))
        {
          source_clear (&src);
          return NULL;
        }
    }
  else if (!g_seekable_seek (G_SEEKABLE (in), offset, G_SEEK_SET, cancellable, error))
    return NULL;
  object = read_object (&src, cancellable, error);
  source_clear (&src);
  if (object == NULL)
    return NULL;

  parser = json_parser_new ();
  if (!json_parser_load_from_data (parser, (const char *) object->data, object->len, error))
    return NULL;
  event = json_node_get_object (json_parser_get_root (parser));

  fields = g_ptr_array_new_with_free_func (field_free);
  for (guint i = 0; i < G_N_ELEMENTS (top); i++)
    if (json_object_has_member (event, top[i]))
      add_field (fields, top[i], json_object_get_member (event, top[i]));
  if (json_object_has_member (event, "args") &&
      JSON_NODE_HOLDS_OBJECT (json_object_get_member (event, "args")))
    {
      g_autoptr(GList) members = NULL;

      args = json_object_get_object_member (event, "args");
      members = json_object_get_members (args);
      for (GList *l = members; l != NULL; l = l->next)
        {
          g_autofree char *key = g_strconcat ("args.", l->data, NULL);

          add_field (fields, key, json_object_get_member (args, l->data));
        }
    }
  return g_steal_pointer (&fields);
}

GPtrArray *
tsl_slice_details_read (GFile         *file,
                        gint64         offset,
                        GCancellable  *cancellable,
                        GError       **error)
{
  g_autoptr(GFileInputStream) in = NULL;
  guint8 first = 0;
  gsize got = 0;

  g_return_val_if_fail (G_IS_FILE (file), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (offset < 0)
    return tsl_event_details_read (file, offset, cancellable, error);
  if ((in = g_file_read (file, cancellable, error)) == NULL)
    return NULL;
  if (!g_seekable_seek (G_SEEKABLE (in), offset, G_SEEK_SET, cancellable, error) ||
      !g_input_stream_read_all (G_INPUT_STREAM (in), &first, 1, &got, cancellable, error))
    return NULL;
  /* The Chrome reader's checks (compressed input, an event there) apply
   * to anything that is not a packet's key. */
  if (got == 1 && first == TRACE_PACKET_KEY)
    {
      guint8 magic[4];

      if (!g_seekable_seek (G_SEEKABLE (in), 0, G_SEEK_SET, cancellable, error) ||
          !g_input_stream_read_all (G_INPUT_STREAM (in), magic, 4, &got, cancellable, error))
        return NULL;
      if (got == 4 && ((magic[0] == 0x1f && magic[1] == 0x8b) ||
                       (magic[0] == 0x28 && magic[1] == 0xb5 && magic[2] == 0x2f && magic[3] == 0xfd)))
        return tsl_event_details_read (file, offset, cancellable, error);
      return tsl_perfetto_details_read (G_INPUT_STREAM (in), offset, cancellable, error);
    }
  return tsl_event_details_read (file, offset, cancellable, error);
}
