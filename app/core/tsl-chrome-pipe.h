/* tsl-chrome-pipe.h: Chrome events tokenized on one core, modelled on the other
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The reader's thread scans events straight into batches; a worker thread
 * hands them, in order, to the TslChromeModel (stacks, interning, samplers).
 * The result is the same as calling the model inline, event by event.
 *
 * Only the worker touches the model between the first commit and the next
 * drain, and the reader's thread drains before it returns from a parse call
 * or touches the model or trace itself: so the worker runs only inside the
 * caller's tsl_trace_lock(), and the buffer the events slice stays valid.
 */
#pragma once

#include "tsl-chrome-private.h"

G_BEGIN_DECLS

typedef struct _TslChromePipe TslChromePipe;

TslChromePipe    *tsl_chrome_pipe_new           (TslChromeModel   *model);
/* Drains, then stops the worker. */
void              tsl_chrome_pipe_free          (TslChromePipe    *self);
/* The slot the next event is scanned into (not cleared). */
TslChromeEvent   *tsl_chrome_pipe_slot          (TslChromePipe    *self);
/* Queues the event scanned into the last slot (an entry of "samples" when
 * `sample`, else of traceEvents). */
void              tsl_chrome_pipe_commit        (TslChromePipe    *self,
                                                 gboolean          sample);
/* Returns once the worker has modelled every committed event. */
void              tsl_chrome_pipe_drain         (TslChromePipe    *self);

G_END_DECLS
