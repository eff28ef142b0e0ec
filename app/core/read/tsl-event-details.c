/* tsl-event-details.c: one Chrome event read back from its file
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The object is delimited with our own tokenizer (reading more of the file
 * until it is whole), then parsed with json-glib: only this one event.
 */
#define G_LOG_DOMAIN "tsl-details"

#include "config.h"

#include <glib/gi18n-lib.h>
#include <json-glib/json-glib.h>

#include "tsl-event-details.h"
#include "tsl-json-scan.h"

#define FIRST_READ (16 * 1024)
/* The reader's record cap: no event it read is longer. */
#define MAX_EVENT  ((gsize) 256 * 1024 * 1024)

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

/* The bytes of the object at the stream's position, read until whole. */
static GByteArray *
read_object (GInputStream  *in,
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
      if (!g_input_stream_read_all (in, buf->data + old, want - old, &got, cancellable, error))
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

  g_return_val_if_fail (G_IS_FILE (file), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if ((in = g_file_read (file, cancellable, error)) == NULL)
    return NULL;
  /* Offsets are of the decompressed text (gzip, zstd), which would have to
   * be inflated from the start to get there. */
  if (!g_input_stream_read_all (G_INPUT_STREAM (in), magic, 4, &got, cancellable, error))
    return NULL;
  if ((got >= 2 && magic[0] == 0x1f && magic[1] == 0x8b) ||
      (got == 4 && magic[0] == 0x28 && magic[1] == 0xb5 && magic[2] == 0x2f && magic[3] == 0xfd))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   _("details are not available for compressed files"));
      return NULL;
    }
  if (offset < 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   _("the position of this event in the file is not known"));
      return NULL;
    }
  if (!g_seekable_seek (G_SEEKABLE (in), offset, G_SEEK_SET, cancellable, error))
    return NULL;
  if ((object = read_object (G_INPUT_STREAM (in), cancellable, error)) == NULL)
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
