/* tsl-chrome-flows.h: flow arrows of Chrome events (tsl-chrome-flows.c)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "tsl-chrome-model-types.h"

G_BEGIN_DECLS

/* 's', 't' or 'f' (ph): counted, and kept until the end while the trace
 * wants flows. */
void _tsl_chrome_flow_event           (TslChromeModel       *self,
                                       const TslChromeEvent *ev,
                                       char                  ph);
/* A slice's bind_id, flow_in and flow_out, at ts and depth on th. */
void _tsl_chrome_slice_flow           (TslChromeModel       *self,
                                       const TslChromeEvent *ev,
                                       Thread               *th,
                                       gint64                ts,
                                       guint                 depth);
/* End of input: the pending endpoints of threads that have a track. */
void _tsl_chrome_record_pending_flows (TslChromeModel       *self);

G_END_DECLS
