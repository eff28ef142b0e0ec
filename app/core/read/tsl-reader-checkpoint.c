/* tsl-reader-checkpoint.c: the reader's side of the chunk index
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Recording checkpoints as a first read goes (tsl-chunk-index.h), and
 * putting a reader back at one for a range read: restoring the format's
 * saved state and, for gzip and zstd, the decompressor's access point.
 */
#define G_LOG_DOMAIN "tsl-reader"

#include "config.h"

#include "tsl-reader-private.h"

void
tsl_reader_set_index (TslReader     *self,
                      TslChunkIndex *index)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (self->bytes_in == 0 && self->index == NULL);

  self->index = tsl_chunk_index_ref (index);
  self->index_state = g_byte_array_new ();
  self->index_point = g_byte_array_new ();
  tsl_chunk_index_add (index, self->trace, 0, 1, 1, NULL, 0, NULL, 0);
}

gboolean
tsl_reader_restore (TslReader      *self,
                    const TslChunk *chunk)
{
  g_autoptr(GBytes) state = tsl_chunk_get_state (chunk);
  const guint8 *saved = state != NULL ? g_bytes_get_data (state, NULL) : NULL;
  gsize len = state != NULL ? g_bytes_get_size (state) : 0;

  g_return_val_if_fail (self != NULL, FALSE);

  /* Only between whole records of a plain text. */
  if (self->format == NULL || self->failed || self->pending->len > 0 || self->nul_run > 0 ||
      self->encoding != ENC_UTF8)
    return FALSE;
  if (self->format->checkpoint == NULL)
    return FALSE;
  if (self->format->restore != NULL && !self->format->restore (self->state, saved, len))
    return FALSE;
  /* Compressed input: tsl_reader_resume_input() sets the offset. */
  if (self->inflate == NULL)
    self->text_offset = chunk->offset;
  tsl_text_position_jump (&self->ctx.pos, chunk->line, chunk->column);
  return TRUE;
}

void
tsl_reader_flush_counts (TslReader *self,
                         gboolean   keep)
{
  g_return_if_fail (self != NULL);

  if (self->format != NULL && self->state != NULL && self->format->flush_counts != NULL)
    self->format->flush_counts (self->state, keep);
}

gboolean
tsl_reader_is_compressed (TslReader *self)
{
  g_return_val_if_fail (self != NULL, FALSE);

  return self->inflate != NULL;
}

gboolean
tsl_reader_resume_input (TslReader    *self,
                         const guint8 *point,
                         gsize         len,
                         guint64       text_offset,
                         guint64      *in_offset)
{
  guint64 out_offset;

  g_return_val_if_fail (self != NULL, FALSE);

  if (self->inflate == NULL || self->failed ||
      !tsl_inflate_resume (self->inflate, point, len, in_offset, &out_offset) ||
      out_offset > text_offset)
    return FALSE;
  self->skip_to = text_offset;
  self->text_offset = text_offset;
  self->inflated_out = out_offset;
  self->at_text_end = FALSE;
  return TRUE;
}

void
tsl_reader_set_text_end (TslReader *self,
                         guint64    text_end)
{
  g_return_if_fail (self != NULL);

  self->text_end = text_end;
  self->at_text_end = FALSE;
}

gboolean
tsl_reader_reached_text_end (TslReader *self)
{
  g_return_val_if_fail (self != NULL, FALSE);

  return self->at_text_end;
}

/* After each parse() call: a checkpoint once a chunk's worth was consumed.
 * Offsets are in decoded UTF-8 text (UTF-16 and a BOM get no index). Plain
 * text is resumed at any offset; compressed input only at an access point
 * of its decompressor, so a checkpoint there follows the point. */
void
_tsl_reader_note_checkpoint (TslReader    *self,
                             const guint8 *buf,
                             gsize         consumed,
                             gboolean      at_eof)
{
  TslCheckpoint answer;
  guint64 line, column;
  gsize back = 0;
  guint64 point_out = 0;

  if (!tsl_chunk_index_is_valid (self->index))
    return;
  if (self->encoding != ENC_UTF8 || self->skipped_bom || self->format->checkpoint == NULL)
    {
      tsl_chunk_index_invalidate (self->index);
      return;
    }
  if (at_eof)
    ;
  else if (self->inflate != NULL)
    {
      if (!self->has_point || self->text_offset < self->point->out ||
          self->text_offset < self->sniffed_len)
        return;
      point_out = self->point->out;
    }
  /* A later read must see as much as the sniffer did before the first jump. */
  else if (!tsl_chunk_index_due (self->index, self->text_offset) ||
           self->text_offset < self->sniffed_len)
    return;

  g_byte_array_set_size (self->index_state, 0);
  if (self->format->records)
    tsl_chunk_index_use_records (self->index);
  answer = self->format->checkpoint (self->state, buf, consumed, &back, self->index_state);
  if (answer == TSL_CHECKPOINT_NEVER)
    tsl_chunk_index_invalidate (self->index);
  /* With records, the index caps the state's own part (tsl-chunk-records.h). */
  else if (answer == TSL_CHECKPOINT_HERE && !at_eof && back <= consumed &&
           (self->format->records || self->index_state->len <= TSL_CHUNK_STATE_MAX) &&
           self->text_offset - back >= point_out)
    {
      g_byte_array_set_size (self->index_point, 0);
      if (self->inflate != NULL)
        {
          tsl_inflate_save_point (self->inflate, self->point, self->index_point);
          self->has_point = FALSE;
          if (self->index_point->len == 0)
            {
              tsl_chunk_index_note_records (self->index, self->text_offset - back,
                                            self->index_state->data, self->index_state->len);
              return;
            }
        }
      tsl_text_position_locate_back (&self->ctx.pos, back, &line, &column);
      tsl_chunk_index_add (self->index, self->trace, self->text_offset - back, line, column,
                           self->index_state->data, self->index_state->len,
                           self->index_point->data, self->index_point->len);
      /* The index may have doubled its stride: later points are taken
       * that far apart. */
      if (self->inflate != NULL)
        self->point_stride = tsl_chunk_index_get_stride (self->index);
    }
  /* Not taken: its records still chain to the next checkpoint's. */
  else if (answer == TSL_CHECKPOINT_HERE)
    tsl_chunk_index_note_records (self->index, self->text_offset - MIN (back, consumed),
                                  self->index_state->data, self->index_state->len);
}

TslChunkIndex *
tsl_reader_snapshot_index (TslReader *self)
{
  g_autoptr(TslSeriesEnds) ends = NULL;
  gint64 start = 0, end = 0;

  g_return_val_if_fail (self != NULL, NULL);

  /* Compressed text has no end to stop at until the stream's. */
  if (self->index == NULL || self->format == NULL || self->format->checkpoint == NULL ||
      self->inflate != NULL || self->encoding != ENC_UTF8 || self->skipped_bom ||
      self->bytes_in < self->sniffed_len)
    return NULL;
  tsl_trace_get_span (self->trace, &start, &end);
  ends = tsl_trace_get_series_ends (self->trace, FALSE);
  return tsl_chunk_index_snapshot (self->index, self->bytes_in, start, end, self->format->name, ends);
}
