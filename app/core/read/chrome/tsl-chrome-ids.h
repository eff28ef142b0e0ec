/* tsl-chrome-ids.h: names, ids and times of Chrome events (tsl-chrome-ids.c)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * tsl_chrome_model_intern() is declared with the model, in
 * tsl-chrome-private.h.
 */
#pragma once

#include "tsl-chrome-private.h"
#include "tsl-hash.h"

G_BEGIN_DECLS

/* The event's pid and tid; FALSE (with a warning) when either is neither a
 * number nor a string. */
gboolean _tsl_chrome_get_ids    (TslChromeModel       *self,
                                 const TslChromeEvent *ev,
                                 gint64               *pid,
                                 gint64               *tid);
/* The event's "ts" in ns; FALSE (with a warning) when missing or out of range. */
gboolean _tsl_chrome_get_ts     (TslChromeModel       *self,
                                 const TslChromeEvent *ev,
                                 gint64               *ts_ns);
/* One pid (is_tid FALSE) or tid (within pid) as a number. */
gboolean _tsl_chrome_resolve_id (TslChromeModel       *self,
                                 const TslJsonValue   *value,
                                 gboolean              is_tid,
                                 gint64                pid,
                                 gint64               *out);

static inline guint
bytes_hash (gconstpointer key,
            gsize         len)
{
  return (guint) tsl_hash_bytes (key, len);
}

G_END_DECLS
