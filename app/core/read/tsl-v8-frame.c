/* tsl-v8-frame.c: a V8 call frame's name, as every V8 profile reader gives it
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A .cpuprofile's nodes and a Chrome trace's ProfileChunk events hold the
 * same callFrame objects; one naming keeps their stacks comparable.
 */
#include "tsl-v8-frame.h"

/* Sets `name` to "functionName file:line": the function, anonymous or not,
 * and where it is (the url's last part and a 1-based line; V8 counts from
 * 0). `scratch` holds unescaped strings while they are read. */
void
tsl_v8_frame_name (const TslJsonValue *call_frame,
                   GString            *scratch,
                   GString            *name)
{
  TslJsonValue function = { 0 }, url = { 0 }, line = { 0 };
  const char *s;
  gint64 n = -1;
  gsize len;

  g_string_truncate (name, 0);
  if (call_frame->type == TSL_JSON_OBJECT)
    {
      TslJsonIter iter;
      TslJsonValue key, value;
      TslJsonError jerr;

      tsl_json_iter_init (&iter, call_frame->p, call_frame->p + call_frame->len);
      while (tsl_json_iter_next_member (&iter, &key, &value, &jerr) == TSL_JSON_OK)
        if (TSL_JSON_KEY_IS (&key, "functionName"))
          function = value;
        else if (TSL_JSON_KEY_IS (&key, "url"))
          url = value;
        else if (TSL_JSON_KEY_IS (&key, "lineNumber"))
          line = value;
    }
  if (function.type == TSL_JSON_STRING && function.len > 0)
    {
      s = tsl_json_value_get_string (&function, scratch, &len);
      g_string_append_len (name, s, len);
    }
  else
    g_string_append (name, "(anonymous)");
  if (url.type == TSL_JSON_STRING && url.len > 0)
    {
      const char *slash;

      s = tsl_json_value_get_string (&url, scratch, &len);
      for (slash = s + len; slash > s && slash[-1] != '/'; slash--)
        ;
      slash = slash > s ? slash - 1 : NULL;
      if (slash != NULL && slash + 1 < s + len)
        {
          len -= slash + 1 - s;
          s = slash + 1;
        }
      g_string_append_c (name, ' ');
      g_string_append_len (name, s, len);
      if (line.type == TSL_JSON_NUMBER && tsl_json_value_get_int64 (&line, &n) && n >= 0 && n < G_MAXINT64)
        g_string_append_printf (name, ":%" G_GINT64_FORMAT, n + 1);
    }
}
