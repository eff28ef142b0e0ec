/* tsl-atomic-output-stream.h: a file that appears whole or not at all
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define TSL_TYPE_ATOMIC_OUTPUT_STREAM (tsl_atomic_output_stream_get_type ())
G_DECLARE_FINAL_TYPE (TslAtomicOutputStream, tsl_atomic_output_stream, TSL, ATOMIC_OUTPUT_STREAM, GFilterOutputStream)

/* Writes to a temporary file beside `file`. g_output_stream_close() renames it
 * over `file`; dropping the last reference without closing discards it, so an
 * error path can never publish a partial file. */
GOutputStream    *tsl_atomic_output_stream_new  (GFile         *file,
                                                 GCancellable  *cancellable,
                                                 GError       **error);

G_END_DECLS
