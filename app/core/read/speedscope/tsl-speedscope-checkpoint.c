/* tsl-speedscope-checkpoint.c: speedscope's checkpoints for the chunk index
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Between two events of a streamed evented profile: the profile's index,
 * fields and track, and its open frames, saved and restored.
 */
#define G_LOG_DOMAIN "tsl-speedscope"

#include <math.h>
#include <string.h>

#include "tsl-chunk-index.h"
#include "tsl-frames.h"
#include "tsl-format-private.h"
#include "tsl-json-scan.h"
#include "tsl-scan-pool.h"
#include "tsl-speedscope-private.h"

/* ---- Chunk index ---- */

#define STATE_MAGIC 0x53535031u  /* "SSP1" */
#define MAX_SAVED_NAME 1024

static void
put (GByteArray   *out,
     gconstpointer data,
     gsize         len)
{
  g_byte_array_append (out, data, len);
}

static gboolean
get (const guint8 **p,
     const guint8  *end,
     gpointer       out,
     gsize          len)
{
  if ((gsize) (end - *p) < len)
    return FALSE;
  memcpy (out, *p, len);
  *p += len;
  return TRUE;
}

/* Right after an event of a streamed profile (the ',' before the next one
 * not yet read), with the profile's fields and its open frames saved. A
 * held document (profiles before frames) gets no index; so does a profile
 * with malformed events, which it counts (a later read would not see the
 * ones in chunks it passes), and frames read after a streamed profile. */
TslCheckpoint
tsl_speedscope_checkpoint (gpointer      state,
                           const guint8 *buf,
                           gsize         consumed,
                           gsize        *back,
                           GByteArray   *saved)
{
  TslSpeedscope *self = state;
  const Current *c = &self->cur;
  guint32 magic = STATE_MAGIC, name_len, depth;

  if (self->stage == ST_HOLD || self->no_index)
    return TSL_CHECKPOINT_NEVER;
  if (self->stage != ST_EVENTS || self->first)
    return TSL_CHECKPOINT_NOT_HERE;
  if (c->bad > 0)
    return TSL_CHECKPOINT_NEVER;
  name_len = strlen (c->name);
  depth = self->stack->len;
  if (name_len > MAX_SAVED_NAME ||
      4 * 4 + 3 * 8 + name_len + depth * 12 > TSL_CHUNK_STATE_MAX)
    return TSL_CHECKPOINT_NOT_HERE;
  put (saved, &magic, 4);
  put (saved, &c->index, 4);
  put (saved, &c->factor, 8);
  put (saved, &c->start, 8);
  put (saved, &c->end, 8);
  put (saved, &name_len, 4);
  put (saved, c->name, name_len);
  put (saved, &depth, 4);
  for (guint i = 0; i < depth; i++)
    {
      const Open *o = &g_array_index (self->stack, Open, i);

      put (saved, &o->frame, 4);
      put (saved, &o->start_ns, 8);
    }
  *back = 0;
  return TSL_CHECKPOINT_HERE;
}

gboolean
tsl_speedscope_restore (gpointer      state,
                        const guint8 *saved,
                        gsize         len)
{
  TslSpeedscope *self = state;
  const guint8 *p = saved, *end = saved + len;
  Current c = { 0 };
  guint32 magic, name_len, depth;
  g_autofree char *name = NULL;
  g_autoptr(GArray) stack = g_array_new (FALSE, FALSE, sizeof (Open));

  /* Both ends of a jump are right after an event. */
  if (self->stage != ST_EVENTS || self->first || saved == NULL)
    return FALSE;
  if (!get (&p, end, &magic, 4) || magic != STATE_MAGIC ||
      !get (&p, end, &c.index, 4) || !get (&p, end, &c.factor, 8) ||
      !get (&p, end, &c.start, 8) || !get (&p, end, &c.end, 8) ||
      !get (&p, end, &name_len, 4) || name_len > MAX_SAVED_NAME || (gsize) (end - p) < name_len)
    return FALSE;
  name = g_strndup ((const char *) p, name_len);
  p += name_len;
  if (!get (&p, end, &depth, 4) || depth > MAX_DEPTH || (gsize) (end - p) != (gsize) depth * 12)
    return FALSE;
  for (guint i = 0; i < depth; i++)
    {
      Open o;

      get (&p, end, &o.frame, 4);
      get (&p, end, &o.start_ns, 8);
      g_array_append_val (stack, o);
    }
  /* The chunk that made the track (always read) came before. */
  if (c.index >= self->n_profiles)
    return FALSE;
  c.track = tsl_trace_ensure_track (self->trace, TSL_TRACK_THREAD, 0, c.index + 1, NULL);
  c.name = g_steal_pointer (&name);
  g_free (self->cur.name);
  self->cur = c;
  g_array_set_size (self->stack, 0);
  g_array_append_vals (self->stack, stack->data, stack->len);
  return TRUE;
}
