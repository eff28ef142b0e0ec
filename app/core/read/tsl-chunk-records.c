/* tsl-chunk-records.c: state open across many checkpoints, kept once
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "tsl-chunk-index"

#include "config.h"

#include <string.h>

#include "tsl-byte-cursor.h"
#include "tsl-chunk-records.h"

/* Caps a cache entry can claim before its bytes are checked. */
#define RECORD_MAX_LEN  (1024 * 1024)

typedef struct {
  guint64 serial;
  guint64 first;   /* offset of the first checkpoint it is part of */
  guint64 end;     /* of the first it is not part of again; G_MAXUINT64: open */
  gsize   at;      /* its bytes in `data` */
  guint32 len;
} Record;

struct _TslChunkRecords
{
  GArray     *records;   /* Record, serials rising */
  GByteArray *data;
  guint64     last_offset;
};

TslChunkRecords *
tsl_chunk_records_new (void)
{
  TslChunkRecords *self = g_new0 (TslChunkRecords, 1);

  self->records = g_array_new (FALSE, FALSE, sizeof (Record));
  self->data = g_byte_array_new ();
  return self;
}

void
tsl_chunk_records_free (TslChunkRecords *self)
{
  if (self == NULL)
    return;
  g_array_unref (self->records);
  g_byte_array_unref (self->data);
  g_free (self);
}

TslChunkRecords *
tsl_chunk_records_copy (TslChunkRecords *self)
{
  TslChunkRecords *copy = tsl_chunk_records_new ();

  g_array_append_vals (copy->records, self->records->data, self->records->len);
  g_byte_array_append (copy->data, self->data->data, self->data->len);
  copy->last_offset = self->last_offset;
  return copy;
}

static Record *
find (TslChunkRecords *self,
      guint64          serial)
{
  guint lo = 0, hi = self->records->len;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      Record *r = &g_array_index (self->records, Record, mid);

      if (r->serial == serial)
        return r;
      if (r->serial < serial)
        lo = mid + 1;
      else
        hi = mid;
    }
  return NULL;
}

gboolean
tsl_chunk_records_apply (TslChunkRecords  *self,
                         guint64           offset,
                         const guint8     *state,
                         gsize             len,
                         const guint8    **own,
                         gsize            *own_len)
{
  TslByteCursor c = tsl_byte_cursor (state, len);
  guint32 n;

  *own_len = tsl_byte_cursor_take_u32 (&c);
  *own = tsl_byte_cursor_take (&c, *own_len);
  if (!c.ok || (self->records->len > 0 && offset < self->last_offset))
    return FALSE;
  self->last_offset = offset;

  n = tsl_byte_cursor_take_u32 (&c);
  for (guint32 i = 0; c.ok && i < n; i++)
    {
      Record *r = find (self, tsl_byte_cursor_take_u64 (&c));

      if (r == NULL || r->end != G_MAXUINT64)
        return FALSE;
      r->end = offset;
    }
  n = tsl_byte_cursor_take_u32 (&c);
  for (guint32 i = 0; c.ok && i < n; i++)
    {
      Record r = { 0, offset, G_MAXUINT64, self->data->len, 0 };
      const guint8 *bytes;

      r.serial = tsl_byte_cursor_take_u64 (&c);
      r.len = tsl_byte_cursor_take_u32 (&c);
      bytes = tsl_byte_cursor_take (&c, r.len);

      if (bytes == NULL || (self->records->len > 0 &&
                            r.serial <= g_array_index (self->records, Record, self->records->len - 1).serial))
        return FALSE;
      g_byte_array_append (self->data, bytes, r.len);
      g_array_append_val (self->records, r);
    }
  return c.ok && c.p == c.end;
}

GBytes *
tsl_chunk_records_state_at (TslChunkRecords *self,
                            guint64          offset,
                            GBytes          *own)
{
  GByteArray *out = g_byte_array_new ();
  gsize own_len = own != NULL ? g_bytes_get_size (own) : 0;
  guint n = 0;
  guint n_at;

  tsl_byte_put_u32 (out, own_len);
  if (own_len > 0)
    g_byte_array_append (out, g_bytes_get_data (own, NULL), own_len);
  n_at = out->len;
  tsl_byte_put_u32 (out, 0);
  for (guint i = 0; i < self->records->len; i++)
    {
      const Record *r = &g_array_index (self->records, Record, i);

      if (r->first > offset || r->end <= offset)
        continue;
      tsl_byte_put_u64 (out, r->serial);
      tsl_byte_put_u32 (out, r->len);
      g_byte_array_append (out, self->data->data + r->at, r->len);
      n++;
    }
  n = GUINT32_TO_LE (n);
  memcpy (out->data + n_at, &n, 4);
  return g_byte_array_free_to_bytes (out);
}

/* Whether a checkpoint of `offsets` lies in [first, end). */
static gboolean
spans_a_checkpoint (const guint64 *offsets,
                    guint          n,
                    guint64        first,
                    guint64        end)
{
  guint lo = 0, hi = n;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (offsets[mid] < first)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo < n && offsets[lo] < end;
}

void
tsl_chunk_records_prune (TslChunkRecords *self,
                         const guint64   *offsets,
                         guint            n)
{
  GByteArray *data = g_byte_array_new ();
  guint kept = 0;

  for (guint i = 0; i < self->records->len; i++)
    {
      Record r = g_array_index (self->records, Record, i);

      if (!spans_a_checkpoint (offsets, n, r.first, r.end))
        continue;
      g_byte_array_append (data, self->data->data + r.at, r.len);
      r.at = data->len - r.len;
      g_array_index (self->records, Record, kept++) = r;
    }
  g_array_set_size (self->records, kept);
  g_byte_array_unref (self->data);
  self->data = data;
}

gsize
tsl_chunk_records_get_bytes (TslChunkRecords *self)
{
  return self->data->len + self->records->len * sizeof (Record);
}

guint
tsl_chunk_records_get_n (TslChunkRecords *self)
{
  return self->records->len;
}

gboolean
tsl_chunk_records_save (TslChunkRecords      *self,
                        GByteArray           *out,
                        TslChunkRecordsFlush  flush,
                        gpointer              data)
{
  tsl_byte_put_u64 (out, self->records->len);
  for (guint i = 0; i < self->records->len; i++)
    {
      const Record *r = &g_array_index (self->records, Record, i);

      tsl_byte_put_u64 (out, r->serial);
      tsl_byte_put_u64 (out, r->first);
      tsl_byte_put_u64 (out, r->end);
      tsl_byte_put_u32 (out, r->len);
      g_byte_array_append (out, self->data->data + r->at, r->len);
      /* Written in pieces, never held whole beside the records. */
      if (out->len >= 64 * 1024 && !flush (out, data))
        return FALSE;
    }
  return TRUE;
}

TslChunkRecords *
tsl_chunk_records_load (const guint8 **p,
                        const guint8  *end)
{
  TslByteCursor c = { *p, end, TRUE };
  TslChunkRecords *self;
  guint64 n = tsl_byte_cursor_take_u64 (&c);

  /* Each record takes at least 28 bytes. */
  if (!c.ok || n > (guint64) (c.end - c.p) / 28)
    return NULL;
  self = tsl_chunk_records_new ();
  for (guint64 i = 0; i < n; i++)
    {
      Record r = { 0, 0, 0, self->data->len, 0 };
      const guint8 *bytes;

      r.serial = tsl_byte_cursor_take_u64 (&c);
      r.first = tsl_byte_cursor_take_u64 (&c);
      r.end = tsl_byte_cursor_take_u64 (&c);
      r.len = tsl_byte_cursor_take_u32 (&c);
      bytes = r.len <= RECORD_MAX_LEN ? tsl_byte_cursor_take (&c, r.len) : NULL;
      if (bytes == NULL ||
          (i > 0 && r.serial <= g_array_index (self->records, Record, self->records->len - 1).serial))
        {
          tsl_chunk_records_free (self);
          return NULL;
        }
      g_byte_array_append (self->data, bytes, r.len);
      g_array_append_val (self->records, r);
    }
  *p = c.p;
  return self;
}
