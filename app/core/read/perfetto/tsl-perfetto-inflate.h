/* tsl-perfetto-inflate.h: a compressed bundle of packets, inflated (tsl-perfetto-inflate.c)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "tsl-perfetto-model-types.h"

G_BEGIN_DECLS

/* Inflates data (zstd, else deflate with a zlib or gzip header) into out,
 * at most MAX_INFLATED bytes; FALSE if it was damaged or too large, with
 * out holding what inflated before. */
gboolean _tsl_perfetto_inflate (TslPerfettoModel *self,
                                GByteArray       *out,
                                const guint8     *data,
                                gsize             len,
                                gboolean          zstd);

G_END_DECLS
