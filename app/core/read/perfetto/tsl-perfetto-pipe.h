/* tsl-perfetto-pipe.h: TracePackets decoded on one core, modelled on the other
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The reading thread decodes packets (tsl_perfetto_decode()) straight into
 * the slots of batches; a worker thread hands the records, in order, to a
 * function that models them. The result is the same as modelling each packet
 * inline.
 *
 * Only the worker touches the model (and the trace) between the first
 * commit and the next drain, and the reading thread drains before it returns
 * from a parse call or touches the model or trace itself: so the worker runs
 * only inside the caller's tsl_trace_lock(), and the buffer the records
 * point into stays valid.
 */
#pragma once

#include "tsl-perfetto-scan.h"

G_BEGIN_DECLS

typedef struct _TslPerfettoPipe TslPerfettoPipe;

TslPerfettoPipe   *tsl_perfetto_pipe_new      (TslPerfettoApplyFunc  apply,
                                               gpointer              data);
/* What the reading thread does before it waits for the worker: returns
 * TRUE while it finds something to do (see TslReaderIdleFunc). */
void               tsl_perfetto_pipe_set_idle (TslPerfettoPipe      *self,
                                               gboolean            (*idle) (gpointer data),
                                               gpointer              data);
/* Drains, then stops the worker. */
void               tsl_perfetto_pipe_free     (TslPerfettoPipe      *self);
/* The slot the next packet is decoded into (not cleared). */
TslPerfettoRecord *tsl_perfetto_pipe_slot     (TslPerfettoPipe      *self);
/* Queues the record decoded into the last slot. */
void               tsl_perfetto_pipe_commit   (TslPerfettoPipe      *self);
/* Returns once the worker has modelled every committed record. */
void               tsl_perfetto_pipe_drain    (TslPerfettoPipe      *self);

G_END_DECLS
