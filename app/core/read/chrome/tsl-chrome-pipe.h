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
/* What the reading thread does before it waits for the worker: returns
 * TRUE while it finds something to do (see TslReaderIdleFunc). */
void              tsl_chrome_pipe_set_idle      (TslChromePipe    *self,
                                                 gboolean        (*idle) (gpointer data),
                                                 gpointer          data);
/* Drains, then stops the worker. */
void              tsl_chrome_pipe_free          (TslChromePipe    *self);
/* The slot the next event is scanned into (not cleared), or NULL after a
 * wrong split guess: resolve it first. */
TslChromeEvent   *tsl_chrome_pipe_slot          (TslChromePipe    *self);
/* Queues the event scanned into the last slot (an entry of "samples" when
 * `sample`, else of traceEvents). */
void              tsl_chrome_pipe_commit        (TslChromePipe    *self,
                                                 gboolean          sample);
/* Returns once the worker has modelled every committed event. */
void              tsl_chrome_pipe_drain         (TslChromePipe    *self);

/* Scans the traceEvents entries from p (*need_separator: a ',' is due)
 * into `events` without touching anything else; stops where the one-thread
 * loop would do something other than scan an event or eat a ',' (the
 * buffer's end, ']', an error, a non-object), and returns that position and
 * whether a ',' is due there. */
typedef const char *(*TslChromeRunFunc)          (const char       *p,
                                                 const char       *end,
                                                 GArray           *events,
                                                 TslChromeShape   *shape,
                                                 gboolean         *need_separator);

typedef enum {
  TSL_CHROME_SPLIT_NONE,
  TSL_CHROME_SPLIT_PENDING,
  TSL_CHROME_SPLIT_VALID,
  TSL_CHROME_SPLIT_INVALID,
} TslChromeSplit;

/* Splits a parse call's scan between the threads, drained, before any
 * commit: the worker scans [start, guess) with `run` and models what it
 * found, while this thread scans from `guess` (a likely event start) and
 * commits as usual. The guess was right if the worker's scan ends exactly
 * there with no ',' due (TSL_CHROME_SPLIT_VALID). This thread must call
 * tsl_chrome_pipe_resolve() before it acts on anything but an event or a
 * ',' (an error may only be a wrong guess), and before draining. */
void              tsl_chrome_pipe_split         (TslChromePipe    *self,
                                                 const char       *start,
                                                 const char       *guess,
                                                 gboolean          need_separator,
                                                 TslChromeRunFunc  run);
/* Without waiting: PENDING until the worker has checked the guess. */
TslChromeSplit    tsl_chrome_pipe_get_split     (TslChromePipe    *self);
/* Waits for the check and returns VALID or INVALID, with how many events
 * the worker modelled, where its scan stopped and whether a ',' was due
 * there. After a wrong guess this thread's commits since the split are
 * dropped (drained) and it must go on from *stop. */
TslChromeSplit    tsl_chrome_pipe_resolve       (TslChromePipe    *self,
                                                 guint            *n_events,
                                                 const char      **stop,
                                                 gboolean         *need_separator);
/* Microseconds the worker waited for work (since the last call; and also
 * counting waits that began before it), and this thread for the worker,
 * since the last call: heuristics for balancing a split. */
void              tsl_chrome_pipe_take_waits    (TslChromePipe    *self,
                                                 gint64           *worker_idle_us,
                                                 gint64           *worker_idle_all_us,
                                                 gint64           *producer_wait_us);

G_END_DECLS
