/* tsl-chrome-frames.c: stackFrames, "sf" and "stack" labels of Chrome traces
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The stackFrames table maps an id to {name, parent}; a sampled stack is
 * named by walking parents to the root. Labels are built only for samples the
 * sampler keeps, and cached per id.
 */
#define G_LOG_DOMAIN "tsl-chrome"

#include <string.h>

#include "tsl-chrome-private.h"
#include "tsl-frames.h"

#define MAX_FRAMES 1024   /* longest stackFrames chain we follow */

typedef struct {
  guint32  name;
  char    *parent;
} Frame;

void
tsl_chrome_frame_free (gpointer data)
{
  Frame *frame = data;

  g_free (frame->parent);
  g_free (frame);
}

static const Frame *
lookup_frame (TslChromeModel     *self,
              const TslJsonValue *id)
{
  g_string_truncate (self->key, 0);
  if (id->type == TSL_JSON_STRING || id->type == TSL_JSON_NUMBER)
    g_string_append_len (self->key, id->p, id->len);
  else
    return NULL;
  return g_hash_table_lookup (self->frames, self->key->str);
}

/* The stack of a stackFrames id, root first; 0 when it cannot be named yet. */
static guint32
frame_label (TslChromeModel     *self,
             const TslJsonValue *sf)
{
  const Frame *frame;
  g_autofree char *id = NULL;
  guint32 names[MAX_FRAMES];
  guint n = 0;
  gpointer cached;
  guint32 label;

  if (!self->frames_done)
    return 0;
  frame = lookup_frame (self, sf);
  if (frame == NULL)
    return 0;
  if (g_hash_table_lookup_extended (self->frame_labels, self->key->str, NULL, &cached))
    return GPOINTER_TO_UINT (cached);

  id = g_strdup (self->key->str);
  while (frame != NULL && n < MAX_FRAMES)
    {
      names[n++] = frame->name;
      frame = frame->parent != NULL ? g_hash_table_lookup (self->frames, frame->parent) : NULL;
    }
  g_string_truncate (self->label, 0);
  while (n > 0)
    {
      tsl_frames_append (self->label, tsl_trace_lookup (self->trace, names[--n]), -1);
      if (n > 0)
        g_string_append_c (self->label, ';');
    }
  label = tsl_trace_intern (self->trace, self->label->str);
  g_hash_table_insert (self->frame_labels, g_steal_pointer (&id), GUINT_TO_POINTER (label));
  return label;
}

/* A sampled stack: stackFrames id, else a "stack" array, else the name. */
guint32
tsl_chrome_model_sample_label (TslChromeModel       *self,
                               const TslChromeEvent *ev)
{
  if (ev->sf.type != TSL_JSON_NONE)
    {
      guint32 label = frame_label (self, &ev->sf);

      if (label != 0)
        return label;
    }
  if (ev->stack.type == TSL_JSON_ARRAY)
    {
      TslJsonIter iter;
      TslJsonValue frame;
      TslJsonError error;
      g_autoptr(GString) joined = g_string_new (NULL);

      tsl_json_iter_init (&iter, ev->stack.p, ev->stack.p + ev->stack.len);
      while (tsl_json_iter_next_element (&iter, &frame, &error) == TSL_JSON_OK)
        {
          gsize len;
          const char *s;

          if (frame.type != TSL_JSON_STRING && frame.type != TSL_JSON_NUMBER)
            continue;
          s = frame.type == TSL_JSON_STRING
            ? tsl_json_value_get_string (&frame, self->scratch, &len)
            : (len = frame.len, frame.p);
          if (joined->len > 0)
            g_string_append_c (joined, ';');
          tsl_frames_append (joined, s, (gssize) len);
        }
      if (joined->len > 0)
        return tsl_trace_intern (self->trace, joined->str);
    }
  return tsl_chrome_model_intern (self, &ev->name);
}

void
tsl_chrome_model_add_frame (TslChromeModel     *self,
                            const TslJsonValue *id,
                            const TslJsonValue *value)
{
  TslJsonValue member;
  Frame *frame;

  if (value->type != TSL_JSON_OBJECT)
    return;
  frame = g_new0 (Frame, 1);
  frame->name = tsl_json_find_member (value, "name", &member)
    ? tsl_chrome_model_intern (self, &member)
    : self->unnamed;
  if (tsl_json_find_member (value, "parent", &member) &&
      (member.type == TSL_JSON_STRING || member.type == TSL_JSON_NUMBER))
    frame->parent = g_strndup (member.p, member.len);
  g_hash_table_replace (self->frames, g_strndup (id->p, id->len), frame);
}

void
tsl_chrome_model_frames_done (TslChromeModel *self)
{
  self->frames_done = TRUE;
  g_hash_table_remove_all (self->frame_labels);
}

gboolean
tsl_chrome_model_has_frames (TslChromeModel *self)
{
  return self->frames_done;
}

