/* tsl-perfetto-parallel.h: TracePackets decoded on every core, modelled in order
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A regular file's parse buffer is framed on the modelling thread (a
 * packet's key and length say exactly where the next one starts, so there
 * is nothing to guess), cut into segments of whole packets, and decoded on
 * read/tsl-scan-pool.c's threads into packed records
 * (tsl_perfetto_decode(), no model state); the modelling thread then
 * applies the records in the order of the packets. The result is the
 * one-thread result by construction: the same records reach the same
 * function in the same order.
 */
#pragma once

#include "tsl-perfetto-scan.h"

G_BEGIN_DECLS

typedef struct _TslReaderContext TslReaderContext;
typedef struct _TslPerfettoScan TslPerfettoScan;

typedef struct _TslPerfettoModel TslPerfettoModel;

/* NULL when the read stays on one thread (!tsl_scan_pool_wanted():
 * a regular file read ahead, TSL_READER_THREADS automatic or a number
 * above 1). The records go to the model itself, not through a callback:
 * the modelling thread bounds a read on two cores, and the call was 3 %
 * of its instructions; malformed(data, …) hears of a record it refused. */
TslPerfettoScan *tsl_perfetto_scan_new  (TslReaderContext         *ctx,
                                         TslPerfettoModel         *model,
                                         TslPerfettoMalformedFunc  malformed,
                                         gpointer                  data);
/* Logs the segments (in the "tsl-reader" log domain) and frees. NULL-safe. */
void             tsl_perfetto_scan_free (TslPerfettoScan          *self);
/* Decodes and applies the whole, well-framed packets of [p, end), where
 * buf (at input offset `offset`) holds p; a record's pos is its key byte's
 * offset. Stops before anything the one-thread loop must judge (a key that
 * is not a length-delimited field, a varint too long, a packet too large
 * or cut by `end`), or returns p when the packets are too few to be worth
 * cutting. Adds the TracePackets (field 1) it decoded to *n_packets. No
 * thread but the caller's touches the buffer after it returns. With
 * offsets, the model is told each packet's offset before it applies it
 * (tsl_perfetto_model_set_offset()). */
const guint8    *tsl_perfetto_scan_run  (TslPerfettoScan          *self,
                                         const guint8             *buf,
                                         guint64                   offset,
                                         const guint8             *p,
                                         const guint8             *end,
                                         gboolean                  offsets,
                                         guint64                  *n_packets);

G_END_DECLS
