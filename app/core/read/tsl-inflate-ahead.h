/* tsl-inflate-ahead.h: gzip and zstd decompressed on a thread of their own
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Decompression on the reading thread left the second core idle while the
 * parser waited for it, and the parser's scanners idle while it
 * decompressed. Here a thread runs the TslInflate ahead of the parser:
 * the reading thread queues copies of the compressed input and takes the
 * output buffers in order from a bounded ring (back-pressure: the thread
 * waits for a free buffer, so at most RING buffers of output wait). The
 * buffers are the ones the TslInflate makes on the reading thread
 * (tsl-inflate.h: cut at the same places for the same input pushes), with
 * the same access points, and damage comes as a last buffer with its
 * status, so the parser sees the same bytes in the same parse calls and
 * reports the same errors at the same positions.
 *
 * The reading thread owns the TslInflate again once the ahead is freed.
 */
#pragma once

#include "tsl-inflate.h"

G_BEGIN_DECLS

/* Output buffers in the ring. */
#define TSL_INFLATE_AHEAD_RING 4

typedef struct _TslInflateAhead TslInflateAhead;

/* One output buffer, in order. A last one has a status other than OK
 * (and its message), or `end` set after the input's end. */
typedef struct {
  const guint8          *data;
  gsize                  len;
  const TslInflatePoint *point;     /* where the buffer ends, or NULL */
  TslInflateStatus       status;
  const char            *message;
  gboolean               end;
} TslInflateAheadOut;

/* Starts the thread, which uses `inflate` until freed. */
TslInflateAhead          *tsl_inflate_ahead_new       (TslInflate         *inflate);
/* Stops the thread, dropping what it had not handed on. */
void                      tsl_inflate_ahead_free      (TslInflateAhead    *self);
/* Queues a copy of `len` input bytes (as one push() of the inflater). */
void                      tsl_inflate_ahead_push      (TslInflateAhead    *self,
                                                       const guint8       *data,
                                                       gsize               len);
/* No more input: an `end` buffer comes last. */
void                      tsl_inflate_ahead_close     (TslInflateAhead    *self);
/* The next buffer, or NULL when none is ready and at most `queued`
 * inputs are still being decompressed (then without waiting; otherwise it
 * waits for one or the other). Valid until tsl_inflate_ahead_release(). */
const TslInflateAheadOut *tsl_inflate_ahead_next      (TslInflateAhead    *self,
                                                       guint               queued,
                                                       gboolean            wait);
/* Gives the buffer next() returned back to the thread. */
void                      tsl_inflate_ahead_release   (TslInflateAhead    *self);
/* Whether every input pushed was taken by the thread (and the end is not
 * queued): it starves once it is done with the one it has, unless the
 * reading thread pushes the next soon. */
gboolean                  tsl_inflate_ahead_wants_input (TslInflateAhead *self);
/* How many times the thread waited for a free buffer (for the tests). */
guint64                   tsl_inflate_ahead_get_full_waits (TslInflateAhead *self);
/* How many times it waited for input after the first and before the end:
 * time the second core lost (for the tests and the debug log). */
guint64                   tsl_inflate_ahead_get_input_waits (TslInflateAhead *self);

G_END_DECLS
