/* tsl-perfetto-tracks.h: the packets that declare tracks and names (tsl-perfetto-tracks.c)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "tsl-perfetto-model-types.h"

G_BEGIN_DECLS

void _tsl_perfetto_track_descriptor   (TslPerfettoModel *self,
                                       const guint8     *data,
                                       gsize             len);
/* *pid_out (may be NULL) gets the descriptor's pid. */
void _tsl_perfetto_process_descriptor (TslPerfettoModel *self,
                                       const guint8     *data,
                                       gsize             len,
                                       gint64           *pid_out);
void _tsl_perfetto_legacy_thread      (TslPerfettoModel *self,
                                       Sequence         *seq,
                                       const guint8     *data,
                                       gsize             len);
/* Names an async track no descriptor named after its first named event. */
void _tsl_perfetto_title_track        (TslPerfettoModel *self,
                                       Track            *track,
                                       guint             ts_track,
                                       guint32           name);
void _tsl_perfetto_process_tree       (TslPerfettoModel *self,
                                       const guint8     *data,
                                       gsize             len);

G_END_DECLS
