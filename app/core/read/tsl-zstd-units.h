/* tsl-zstd-units.h: where a zstd stream's independently decoded units end
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * ZSTD_decompressStream() returns no output from a call that fails, so
 * data that decodes well and then turns damaged gave nothing when it came
 * in one piece and a prefix when a pipe cut it before the damage. Fed one
 * unit at a time (a frame header, a block, a checksum, a skippable frame;
 * RFC 8878), every call decodes at most one block, and what is read from
 * damaged input no longer depends on how its bytes were cut.
 *
 * Only the framing is parsed: block headers and frame header sizes. zstd
 * itself judges the content; once it fails, no unit matters any more.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  guint8  stage;
  guint8  last_block;
  guint8  has_checksum;
  guint8  n_head;
  guint8  head[8];    /* the bytes that size the current unit */
  guint64 left;       /* bytes of the current unit after its head */
} TslZstdUnits;

/* At the start of a frame (a new stream, or a resume at a frame start). */
void              tsl_zstd_units_init           (TslZstdUnits       *self);
/* How many of the next `len` bytes (> 0) belong to the current unit (at
 * least 1), consuming them; a call must not give zstd bytes of two units. */
gsize             tsl_zstd_units_take           (TslZstdUnits       *self,
                                                 const guint8       *data,
                                                 gsize               len);

G_END_DECLS
