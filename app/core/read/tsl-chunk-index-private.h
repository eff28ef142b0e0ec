/* tsl-chunk-index-private.h: the index's fields, for its on-disk cache
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "tsl-chunk-index.h"

struct _TslChunkIndex
{
  gint     ref_count;
  gboolean valid;
  gboolean closed;
  GArray  *chunks;        /* TslChunk; the last is open until closed */
  guint64  stride;        /* bytes between checkpoints at least */
  guint64  size;          /* of the text (decompressed) */
  gboolean compressed;
  gsize    state_bytes;   /* of every chunk's state and point */
  TslChunkRecords *records;   /* state open across checkpoints, or NULL */
  guint64  changes;       /* the trace's change count at the open chunk's start */
  gint64   span_start;
  gint64   span_end;
  char    *format;
  TslSeriesEnds *ends;    /* of the whole text, once closed */
};

static inline void
_tsl_chunk_clear (gpointer data)
{
  TslChunk *chunk = data;

  g_clear_pointer (&chunk->state, g_bytes_unref);
  g_clear_pointer (&chunk->point, g_bytes_unref);
}

static inline gsize
_tsl_chunk_bytes (const TslChunk *chunk)
{
  return (chunk->state != NULL ? g_bytes_get_size (chunk->state) : 0) +
         (chunk->point != NULL ? g_bytes_get_size (chunk->point) : 0);
}
