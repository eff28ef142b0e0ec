/* tsl-perfetto-details.h: one slice's details read back from its file
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The exact view keeps where each slice's event sits in the input: a Chrome
 * event's '{' or a Perfetto TracePacket's key byte. Its details are read
 * again from there when asked for (tsl-event-details.h for Chrome JSON).
 * A Perfetto TrackEvent names its category, its name and its debug
 * annotations' names by interned ids, defined by earlier packets of its
 * sequence since the sequence's last incremental-state reset: the file is
 * scanned from its start to the packet (only packet headers and the
 * sequence's InternedData are decoded; compressed bundles are inflated) so
 * that every id means what it meant there. An id no earlier packet of the
 * sequence defined is shown as such, never guessed.
 */
#pragma once

#include "tsl-event-details.h"

G_BEGIN_DECLS

/* Chrome JSON or Perfetto, by the byte at `offset`: the fields of
 * tsl_event_details_read(), for Perfetto "name", "cat", "ph" (the
 * TrackEvent's type) and "args.NAME" per debug annotation (nested
 * dictionaries as "args.NAME.KEY"). Blocking I/O: call it from a worker. */
GPtrArray        *tsl_slice_details_read        (GFile          *file,
                                                 gint64          offset,
                                                 GCancellable   *cancellable,
                                                 GError        **error);

G_END_DECLS
