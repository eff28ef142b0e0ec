/* tsl-chrome-model-types.h: a Chrome thread's open spans, shared by the model and its checkpoints
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "tsl-chrome-private.h"

G_BEGIN_DECLS

#define SPAN_OPEN  G_MAXINT64   /* end of a B span until its E arrives */
#define MAX_DEPTH  512          /* deeper spans are offered flat */

typedef struct {
  gint64  start_ns;
  gint64  end_ns;
  gint64  offset;  /* of its 'B' event, when the trace wants offsets */
  guint32 name;
} OpenSpan;

typedef struct {
  gint64    pid;  /* key: pid and tid first */
  gint64    tid;
  guint     track;
  guint     n_open;
  guint     n_alloc;
  guint     overflow;
  OpenSpan *open;
} Thread;

static inline gboolean
_tsl_chrome_push_span (Thread  *th,
           gint64   start_ns,
           gint64   end_ns,
           gint64   offset,
           guint32  name)
{
  if (th->n_open >= MAX_DEPTH)
    return FALSE;
  if (th->n_open == th->n_alloc)
    {
      th->n_alloc = MAX (8, th->n_alloc * 2);
      th->open = g_renew (OpenSpan, th->open, th->n_alloc);
    }
  th->open[th->n_open++] = (OpenSpan) { start_ns, end_ns, offset, name };
  return TRUE;
}

G_END_DECLS
