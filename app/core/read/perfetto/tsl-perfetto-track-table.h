/* tsl-perfetto-track-table.h: the model's tracks and the trace track each becomes (tsl-perfetto-track-table.c)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "tsl-perfetto-model-types.h"

G_BEGIN_DECLS

/* The track of that uuid; made if new and `create`, else NULL. */
Track *_tsl_perfetto_lookup_track   (TslPerfettoModel *self,
                                     guint64           uuid,
                                     gboolean          create);
/* A legacy thread's track (no descriptor but a pid and tid), made if new. */
Track *_tsl_perfetto_thread_track   (TslPerfettoModel *self,
                                     gint64            pid,
                                     gint64            tid);
/* The TslTrace track for it, named and made on first use. */
guint  _tsl_perfetto_make_ts_track  (TslPerfettoModel *self,
                                     Track            *track);

/* Inline: every event asks, mostly for one of the two tracks asked last. */
static inline Track *
lookup_track (TslPerfettoModel *self,
              guint64           uuid,
              gboolean          create)
{
  if (self->last_track[0] != NULL && self->last_track[0]->uuid == uuid)
    return self->last_track[0];
  return _tsl_perfetto_lookup_track (self, uuid, create);
}

static inline guint
ts_track (TslPerfettoModel *self,
          Track            *track)
{
  if (G_LIKELY (track->has_ts_track))
    return track->ts_track;
  return _tsl_perfetto_make_ts_track (self, track);
}

G_END_DECLS
