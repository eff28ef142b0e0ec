/* tsl-flow-match.h: flow endpoints to arrows between exact slices
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The exact recorder keeps flow endpoints (tsl-exact.h) as the readers meet
 * them; once the slices are sorted (tsl-snapshot.c), each endpoint is bound
 * to a slice of its track and the endpoints of one flow id, in time order,
 * become arrows: from the last endpoint that sends (OUT) to the next that
 * receives (IN). An endpoint whose slice is not held (outside the window,
 * or on a sampled track) breaks its flow there: no arrow is guessed.
 */
#pragma once

#include "tsl-exact.h"
#include "tsl-snapshot.h"

G_BEGIN_DECLS

/* `tracks` in display order; track_of[i] is the display index of the
 * trace's track i (G_MAXUINT for none); times of `ends` are absolute,
 * `start_ns` the trace start the slices' times are relative to. */
TslSnapshotFlow  *tsl_flow_match                (const TslSnapshotTrack *tracks,
                                                 const guint            *track_of,
                                                 guint                   n_trace_tracks,
                                                 const TslExactFlow     *ends,
                                                 guint                   n_ends,
                                                 gint64                  start_ns,
                                                 guint                  *n_flows);

G_END_DECLS
