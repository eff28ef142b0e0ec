/* tsl-atomic-output-stream.h: a file that appears whole or not at all
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define TSL_TYPE_ATOMIC_OUTPUT_STREAM (tsl_atomic_output_stream_get_type ())
G_DECLARE_FINAL_TYPE (TslAtomicOutputStream, tsl_atomic_output_stream, TSL, ATOMIC_OUTPUT_STREAM, GFilterOutputStream)

/* A regular file (or a new one) is written to a temporary file beside it,
 * symlinks followed; g_output_stream_close() renames it over the file, with
 * the old file's mode and owner. Dropping the last reference without closing
 * discards it, so an error path can never publish a partial file. Anything
 * else that exists (a device, FIFO or socket) is written through, never
 * replaced. Errors name `file`, never the temporary. */
GOutputStream    *tsl_atomic_output_stream_new  (GFile         *file,
                                                 GCancellable  *cancellable,
                                                 GError       **error);
/* Unlinks the temporary files of every open stream; async-signal-safe. */
void              tsl_atomic_output_stream_remove_temporaries (void);
/* Installs handlers for SIGINT, SIGTERM and SIGHUP (where they are not
 * ignored or caught already) that remove the temporaries, then die of the
 * signal. */
void              tsl_atomic_output_stream_remove_temporaries_on_signals (void);

G_END_DECLS
