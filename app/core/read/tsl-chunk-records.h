/* tsl-chunk-records.h: state open across many checkpoints, kept once
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A checkpoint saves what the format needs to resume there. Some of it
 * lives long (Chrome's async spans that a trace leaves open: thousands by
 * the end of a long recording); saved again at every checkpoint it made
 * the index size (open spans × checkpoints), and past the index's budget
 * the chunks merged down to one. A format that sets TslFormat.records
 * saves such state as records instead: each once, with the offsets of the
 * first checkpoint it is part of and of the first it is no longer part of,
 * so the index grows with records + checkpoints.
 *
 * What such a format's checkpoint() appends (little-endian, no padding):
 *   u32 own length, own bytes (the per-checkpoint state),
 *   u32 n gone, n × u64 serial (records part of the previous checkpoint,
 *   no longer),
 *   u32 n new, n × (u64 serial, u32 length, bytes), serials rising, above
 *   every earlier one.
 * Every checkpoint() that answered TSL_CHECKPOINT_HERE must reach the
 * index (tsl_chunk_index_add(), or tsl_chunk_index_note_records() when the
 * reader does not take it), so that the deltas chain.
 *
 * What its restore() gets back: u32 own length, own bytes, u32 n,
 * n × (u64 serial, u32 length, bytes), serials rising: every record part
 * of that checkpoint.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Records past this many bytes: the index takes no more checkpoints (the
 * rest of the file is its last chunk, read always). */
#define TSL_CHUNK_RECORD_BYTES (32 * 1024 * 1024)

typedef struct _TslChunkRecords TslChunkRecords;

TslChunkRecords  *tsl_chunk_records_new         (void);
void              tsl_chunk_records_free        (TslChunkRecords  *self);
/* (transfer full): for a follow-mode snapshot. */
TslChunkRecords  *tsl_chunk_records_copy        (TslChunkRecords  *self);
/* Takes the deltas of a checkpoint() at `offset`: sets *own and *own_len
 * to its own part. FALSE if the state is malformed. */
gboolean          tsl_chunk_records_apply       (TslChunkRecords  *self,
                                                 guint64           offset,
                                                 const guint8     *state,
                                                 gsize             len,
                                                 const guint8    **own,
                                                 gsize            *own_len);
/* (transfer full): what restore() gets at the checkpoint at `offset`. */
GBytes           *tsl_chunk_records_state_at    (TslChunkRecords  *self,
                                                 guint64           offset,
                                                 GBytes           *own);
/* Drops records part of no checkpoint left (`offsets`, n, rising). */
void              tsl_chunk_records_prune       (TslChunkRecords  *self,
                                                 const guint64    *offsets,
                                                 guint             n);
gsize             tsl_chunk_records_get_bytes   (TslChunkRecords  *self);
guint             tsl_chunk_records_get_n       (TslChunkRecords  *self);

/* The on-disk cache: appended to `out`, handed to `flush` each time it
 * holds 64 KiB (which empties it; FALSE stops), and read back from
 * [*p, end) (advancing *p); NULL if malformed. */
typedef gboolean (*TslChunkRecordsFlush)        (GByteArray       *out,
                                                 gpointer          data);
gboolean          tsl_chunk_records_save        (TslChunkRecords  *self,
                                                 GByteArray       *out,
                                                 TslChunkRecordsFlush flush,
                                                 gpointer          data);
TslChunkRecords  *tsl_chunk_records_load        (const guint8    **p,
                                                 const guint8     *end);

G_END_DECLS
