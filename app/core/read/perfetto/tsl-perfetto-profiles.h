/* tsl-perfetto-profiles.h: sampled stacks (tsl-perfetto-profiles.c)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "tsl-perfetto-model-types.h"

G_BEGIN_DECLS

/* A StreamingProfilePacket's payload: timestamps from the sequence's
 * ThreadDescriptor. */
void _tsl_perfetto_streaming_profile (TslPerfettoModel *self,
                                      Sequence         *seq,
                                      const guint8     *data,
                                      gsize             len);
/* A PerfSample's payload, at trace time ts. */
void _tsl_perfetto_perf_sample       (TslPerfettoModel *self,
                                      Sequence         *seq,
                                      gint64            ts,
                                      const guint8     *data,
                                      gsize             len);

G_END_DECLS
