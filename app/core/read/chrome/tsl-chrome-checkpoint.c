/* tsl-chrome-checkpoint.c: where a chunk index may resume a Chrome trace
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Only inside the event array, between two events; what is saved is the
 * model's open spans (tsl_chrome_model_save()).
 */
#define G_LOG_DOMAIN "tsl-reader"

#include "config.h"

#include "tsl-chunk-index.h"
#include "tsl-chrome-reader-private.h"

static inline gboolean
is_ws (guint8 c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Inside the event array, right after an event (the ',' and blanks after
 * it are stepped back over), with the open spans saved. A "samples" list
 * names threads by tid alone, from what earlier events said: no index. */
TslCheckpoint
_tsl_chrome_checkpoint (gpointer      state,
                        const guint8 *buf,
                        gsize         consumed,
                        gsize        *back,
                        GByteArray   *saved)
{
  TslChrome *self = state;
  gsize at = consumed;

  if (self->had_samples || self->held_samples != NULL)
    return TSL_CHECKPOINT_NEVER;
  if (self->state != ST_EVENTS || self->list_is_samples)
    return TSL_CHECKPOINT_NOT_HERE;
  if (!self->need_separator)
    {
      while (at > 0 && is_ws (buf[at - 1]))
        at--;
      if (at == 0 || buf[at - 1] != ',')
        return TSL_CHECKPOINT_NOT_HERE;
      at--;
      while (at > 0 && is_ws (buf[at - 1]))
        at--;
      if (at == 0 || buf[at - 1] != '}')
        return TSL_CHECKPOINT_NOT_HERE;
    }
  if (!tsl_chrome_model_save (&self->model, saved, TSL_CHUNK_STATE_MAX))
    return TSL_CHECKPOINT_NOT_HERE;
  *back = consumed - at;
  return TSL_CHECKPOINT_HERE;
}

gboolean
_tsl_chrome_restore (gpointer      state,
                     const guint8 *saved,
                     gsize         len)
{
  TslChrome *self = state;

  /* Both ends of a jump are right after an event: a ',' comes next. */
  if (self->state != ST_EVENTS || self->list_is_samples || !self->need_separator)
    return FALSE;
  return tsl_chrome_model_restore (&self->model, saved, len);
}
