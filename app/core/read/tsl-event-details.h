/* tsl-event-details.h: one slice's event read back from its file, of any format
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The exact view remembers where each slice's event starts in the input
 * (tsl-exact.h): a Chrome event's '{' or a Perfetto TracePacket's key byte.
 * Its details (category, arguments) are not kept in memory: they are read
 * again from that byte position, one event, when asked for.
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

typedef struct {
  char *key;    /* "name", "cat", "ph", "ts", "dur", then "args.KEY" */
  char *value;  /* a string as is, anything else as compact JSON */
} TslEventField;

/* The event object starting at `offset` of `file` (its '{'): its name,
 * cat, ph, ts and dur when present, in that order, then each member of its
 * args; for gzip or zstd input `offset` is of the decompressed text (read
 * from the nearest access point of the file's chunk index, if it has one).
 * (transfer full) (element-type TslEventField). Fails with
 * G_IO_ERROR_NOT_SUPPORTED for an unknown offset, G_IO_ERROR_INVALID_DATA
 * when no event object starts there. Blocking I/O: call it from a worker thread. */
GPtrArray        *tsl_event_details_read        (GFile          *file,
                                                 gint64          offset,
                                                 GCancellable   *cancellable,
                                                 GError        **error);

/* Chrome JSON or Perfetto, by the byte at `offset`: the fields of
 * tsl_event_details_read(), for Perfetto "name", "cat", "ph" (the
 * TrackEvent's type) and "args.NAME" per debug annotation (nested
 * dictionaries as "args.NAME.KEY"). Blocking I/O: call it from a worker. */
GPtrArray        *tsl_slice_details_read        (GFile          *file,
                                                 gint64          offset,
                                                 GCancellable   *cancellable,
                                                 GError        **error);

/* The Perfetto packet whose key byte is at `offset` of `in` (seekable),
 * as tsl_slice_details_read(). Defined by the Perfetto reader
 * (tsl-perfetto-details.c) and declared here, as each format's TslFormat is
 * in tsl-format-private.h: no file above read/ includes a format's header. */
GPtrArray        *tsl_perfetto_details_read     (GInputStream   *in,
                                                 gint64          offset,
                                                 GCancellable   *cancellable,
                                                 GError        **error);

G_END_DECLS
