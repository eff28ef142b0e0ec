/* tsl-inflate.c: gzip and zstd input, with points a later read resumes at
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "tsl-inflate"

#include "config.h"

#include <string.h>

#include <zlib.h>
#include <zstd.h>

#include "tsl-inflate.h"
#include "tsl-zstd-units.h"

/* Output per round: damage loses the same bytes whatever the buffer. */
#define OUT_BYTES    (64 * 1024)
#define GZIP_TRAILER 8

/* Serialized points: a tag, then little-endian fields. */
#define POINT_GZIP   'G'
#define POINT_ZSTD   'Z'
/* tag, in, out */
#define POINT_HEAD   (1 + 8 + 8)

struct _TslInflate
{
  TslInflateKind kind;
  guint64        in;          /* input offset of the next byte pushed */
  guint64        pos;         /* output decompressed so far */
  guint64        out;         /* output handed on so far */

  /* The output buffer: len bytes of cap waiting, handed on at limit. */
  guint8        *buf;
  gsize          cap;
  gsize          len;
  gsize          limit;
  guint8        *own_buf;

  /* gzip */
  z_stream       z;
  gboolean       z_ready;
  gboolean       raw;         /* resumed inside a member: no header, trailer skipped */
  guint          trailer;     /* trailer bytes still to skip (raw) */
  gboolean       member_done;
  gboolean       garbage;
  guint8         last_byte;   /* the last input byte inflate consumed */

  /* zstd */
  ZSTD_DStream  *zstd;
  TslZstdUnits   units;
  gboolean       frame_done;
  gboolean       failed;

  /* Access points */
  guint64        stride;      /* 0: not recording */
  guint64        last_point;
  TslInflatePoint *point;     /* the one being handed on */
  /* Compresses saved windows; kept, as deflateInit() clears ~256 KiB.
   * Only tsl_inflate_save_point() touches it. */
  z_stream       deflater;
  gboolean       deflater_ready;
};

TslInflate *
tsl_inflate_new (TslInflateKind kind)
{
  TslInflate *self = g_new0 (TslInflate, 1);

  self->kind = kind;
  self->member_done = FALSE;
  self->frame_done = TRUE;
  if (kind == TSL_INFLATE_GZIP)
    self->z_ready = inflateInit2 (&self->z, 15 + 16) == Z_OK;
  else
    {
      self->zstd = ZSTD_createDStream ();
      ZSTD_initDStream (self->zstd);
      tsl_zstd_units_init (&self->units);
      self->frame_done = FALSE;
    }
  /* Its own buffer is made at the first push that writes there (not
   * when a decompression thread gives it the ring's). */
  self->cap = self->limit = TSL_INFLATE_BUFFER_BYTES;
  return self;
}

void
tsl_inflate_free (TslInflate *self)
{
  if (self == NULL)
    return;
  if (self->z_ready)
    inflateEnd (&self->z);
  if (self->zstd != NULL)
    ZSTD_freeDStream (self->zstd);
  if (self->deflater_ready)
    deflateEnd (&self->deflater);
  g_free (self->point);
  g_free (self->own_buf);
  g_free (self);
}

TslInflateKind
tsl_inflate_get_kind (TslInflate *self)
{
  return self->kind;
}

guint64
tsl_inflate_get_out (TslInflate *self)
{
  return self->out;
}

gboolean
tsl_inflate_is_complete (TslInflate *self)
{
  if (self->kind == TSL_INFLATE_ZSTD)
    return self->frame_done;
  return self->member_done;
}

gboolean
tsl_inflate_had_trailing_garbage (TslInflate *self)
{
  return self->garbage;
}

gboolean
tsl_inflate_has_failed (TslInflate *self)
{
  return self->failed;
}

void
tsl_inflate_record_points (TslInflate *self,
                           guint64     stride)
{
  self->stride = stride;
}

void
tsl_inflate_set_buffer (TslInflate *self,
                        guint8     *buf,
                        gsize       cap)
{
  g_return_if_fail ((buf == NULL || cap >= OUT_BYTES) && self->len == 0);

  self->buf = buf != NULL ? buf : self->own_buf;
  self->cap = buf != NULL ? cap : TSL_INFLATE_BUFFER_BYTES;
  self->limit = MIN (self->limit, self->cap);
}

/* Hands the buffer on, ending at `point` if not NULL. */
static gboolean
flush (TslInflate             *self,
       const TslInflatePoint  *point,
       TslInflateOutput        output,
       gpointer                user_data,
       gboolean               *ok,
       GError                **error)
{
  gsize len = self->len;

  if (len == 0 && point == NULL)
    return TRUE;
  self->len = 0;
  self->out += len;
  /* After a point, one round: the checkpoint that follows it comes as
   * soon after it as with 64 KiB buffers, and a range read resuming at
   * the point drops no more than that. */
  self->limit = point != NULL ? OUT_BYTES : self->cap;
  if (!output (user_data, self->buf, len, point, error))
    {
      *ok = FALSE;
      return FALSE;
    }
  return TRUE;
}

/* A point where the output reaches `pos`, if a stride past the last. */
static gboolean
point_due (TslInflate *self)
{
  return self->stride > 0 && self->pos >= self->last_point + self->stride;
}

static TslInflatePoint *
new_point (TslInflate *self)
{
  if (self->point == NULL)
    self->point = g_new0 (TslInflatePoint, 1);
  self->point->in = self->in;
  self->point->out = self->pos;
  self->point->window_len = 0;
  self->last_point = self->pos;
  return self->point;
}

/* The room for one round's output. */
static gsize
round_room (TslInflate *self)
{
  return MIN (self->limit - self->len, OUT_BYTES);
}

static TslInflateStatus
push_gzip (TslInflate       *self,
           const guint8     *data,
           gsize             len,
           TslInflateOutput  output,
           gpointer          user_data,
           gboolean         *ok,
           char            **message,
           GError          **error)
{
  gboolean output_full = FALSE;

  if (!self->z_ready)
    {
      *message = g_strdup ("out of memory");
      return TSL_INFLATE_INVALID;
    }

  /* While input remains or zlib may still hold output from a full round. */
  while (len > 0 || output_full)
    {
      gsize consumed, written, room;
      int ret;

      if (self->trailer > 0)
        {
          gsize n = MIN (self->trailer, len);

          self->trailer -= n;
          data += n;
          len -= n;
          self->in += n;
          if (self->trailer == 0)
            self->member_done = TRUE;
          continue;
        }
      if (self->member_done)
        {
          if (len == 0)
            break;
          /* Another member must start with the magic; anything else (often
           * zero padding) is ignored, as gzip(1) does. */
          if (self->garbage || data[0] != 0x1f || (len > 1 && data[1] != 0x8b))
            {
              self->garbage = TRUE;
              self->in += len;
              return TSL_INFLATE_OK;
            }
          inflateReset2 (&self->z, 15 + 16);
          self->member_done = FALSE;
          self->raw = FALSE;
        }

      room = round_room (self);
      self->z.next_in = (Bytef *) data;
      self->z.avail_in = len;
      self->z.next_out = self->buf + self->len;
      self->z.avail_out = room;
      /* Z_BLOCK stops at each deflate block's end, where a point can be. */
      ret = inflate (&self->z, self->stride > 0 ? Z_BLOCK : Z_NO_FLUSH);
      consumed = len - self->z.avail_in;
      written = room - self->z.avail_out;
      if (ret != Z_OK && ret != Z_STREAM_END && ret != Z_BUF_ERROR)
        {
          *message = g_strdup (self->z.msg != NULL ? self->z.msg : "invalid compressed data");
          return TSL_INFLATE_INVALID;
        }
      if (consumed > 0)
        self->last_byte = data[consumed - 1];
      data += consumed;
      len -= consumed;
      self->in += consumed;
      output_full = self->z.avail_out == 0;
      self->len += written;
      self->pos += written;
      if (ret == Z_STREAM_END)
        {
          if (self->raw)
            self->trailer = GZIP_TRAILER;
          else
            self->member_done = TRUE;
        }
      else if ((self->z.data_type & 128) && !(self->z.data_type & 64) && point_due (self))
        {
          TslInflatePoint *point = new_point (self);
          uInt wlen = TSL_INFLATE_WINDOW_BYTES;

          if (inflateGetDictionary (&self->z, point->window, &wlen) == Z_OK)
            {
              point->window_len = wlen;
              point->bits = self->z.data_type & 7;
              point->byte = self->last_byte;
              if (!flush (self, point, output, user_data, ok, error))
                return TSL_INFLATE_OK;
            }
        }
      if (self->len >= self->limit && !flush (self, NULL, output, user_data, ok, error))
        return TSL_INFLATE_OK;
      if (consumed == 0 && written == 0 && ret != Z_STREAM_END)
        break;
    }

  return TSL_INFLATE_OK;
}

/* One call of the decompressor gets bytes of one unit only
 * (tsl-zstd-units.h): damage then loses the same output however the input
 * was cut. */
static TslInflateStatus
push_zstd_unit (TslInflate       *self,
                const guint8     *data,
                gsize             len,
                TslInflateOutput  output,
                gpointer          user_data,
                gboolean         *ok,
                char            **message,
                GError          **error)
{
  ZSTD_inBuffer in = { data, len, 0 };
  gboolean output_full = FALSE;

  while (!self->failed && (in.pos < in.size || output_full))
    {
      ZSTD_outBuffer ob = { self->buf + self->len, round_room (self), 0 };
      gsize before = in.pos;
      gsize ret = ZSTD_decompressStream (self->zstd, &ob, &in);

      self->in += in.pos - before;
      if (ZSTD_isError (ret))
        {
          *message = g_strdup (ZSTD_getErrorName (ret));
          self->failed = TRUE;
          self->frame_done = TRUE;
          return TSL_INFLATE_DAMAGED;
        }
      /* 0: a frame ended (the next starts at the next input byte). */
      self->frame_done = ret == 0;
      output_full = ob.pos == ob.size;
      self->len += ob.pos;
      self->pos += ob.pos;
      if (self->frame_done && point_due (self) &&
          !flush (self, new_point (self), output, user_data, ok, error))
        return TSL_INFLATE_OK;
      if (self->len >= self->limit && !flush (self, NULL, output, user_data, ok, error))
        return TSL_INFLATE_OK;
      if (ob.pos == 0 && in.pos == in.size)
        break;
    }

  return TSL_INFLATE_OK;
}

static TslInflateStatus
push_zstd (TslInflate       *self,
           const guint8     *data,
           gsize             len,
           TslInflateOutput  output,
           gpointer          user_data,
           gboolean         *ok,
           char            **message,
           GError          **error)
{
  while (len > 0 && !self->failed)
    {
      gsize n = tsl_zstd_units_take (&self->units, data, len);
      TslInflateStatus status = push_zstd_unit (self, data, n, output, user_data, ok, message, error);

      if (status != TSL_INFLATE_OK || !*ok)
        return status;
      data += n;
      len -= n;
    }

  return TSL_INFLATE_OK;
}

TslInflateStatus
tsl_inflate_push (TslInflate       *self,
                  const guint8     *data,
                  gsize             len,
                  TslInflateOutput  output,
                  gpointer          user_data,
                  gboolean         *ok,
                  char            **message,
                  GError          **error)
{
  TslInflateStatus status;

  *ok = TRUE;
  if (self->buf == NULL)
    self->buf = self->own_buf = g_malloc (TSL_INFLATE_BUFFER_BYTES);
  if (self->kind == TSL_INFLATE_ZSTD)
    status = push_zstd (self, data, len, output, user_data, ok, message, error);
  else
    status = push_gzip (self, data, len, output, user_data, ok, message, error);
  /* What came before the end of this input, or before damage. */
  if (*ok)
    flush (self, NULL, output, user_data, ok, error);
  return status;
}

static void
put_u64 (GByteArray *a,
         guint64     v)
{
  guint64 le = GUINT64_TO_LE (v);

  g_byte_array_append (a, (const guint8 *) &le, 8);
}

static guint64
get_u64 (const guint8 *p)
{
  guint64 v;

  memcpy (&v, p, 8);
  return GUINT64_FROM_LE (v);
}

void
tsl_inflate_save_point (TslInflate            *self,
                        const TslInflatePoint *point,
                        GByteArray            *saved)
{
  guint8 tag = self->kind == TSL_INFLATE_GZIP ? POINT_GZIP : POINT_ZSTD;

  g_byte_array_append (saved, &tag, 1);
  put_u64 (saved, point->in);
  put_u64 (saved, point->out);
  if (self->kind == TSL_INFLATE_GZIP)
    {
      /* The window compressed (zlib format, as uncompress() reads it):
       * JSON's 32 KiB take 3–6 KiB. */
      guint base;

      if (!self->deflater_ready)
        self->deflater_ready = deflateInit (&self->deflater, 1) == Z_OK;
      else
        deflateReset (&self->deflater);
      g_byte_array_append (saved, &point->bits, 1);
      g_byte_array_append (saved, &point->byte, 1);
      put_u64 (saved, point->window_len);
      base = saved->len;
      g_byte_array_set_size (saved, base + compressBound (point->window_len));
      self->deflater.next_in = (Bytef *) point->window;
      self->deflater.avail_in = point->window_len;
      self->deflater.next_out = saved->data + base;
      self->deflater.avail_out = saved->len - base;
      if (!self->deflater_ready || deflate (&self->deflater, Z_FINISH) != Z_STREAM_END)
        {
          /* Cannot happen within compressBound(); no point then. */
          g_byte_array_set_size (saved, base - 8 - 2 - POINT_HEAD);
          return;
        }
      g_byte_array_set_size (saved, base + self->deflater.total_out);
    }
}

gboolean
tsl_inflate_point_out_offset (const guint8 *point,
                              gsize         len,
                              guint64      *out_offset)
{
  if (point == NULL || len < POINT_HEAD || (point[0] != POINT_GZIP && point[0] != POINT_ZSTD))
    return FALSE;
  *out_offset = get_u64 (point + 9);
  return TRUE;
}

gboolean
tsl_inflate_resume (TslInflate   *self,
                    const guint8 *point,
                    gsize         len,
                    guint64      *in_offset,
                    guint64      *out_offset)
{
  guint8 tag = self->kind == TSL_INFLATE_GZIP ? POINT_GZIP : POINT_ZSTD;

  if (point == NULL || len < POINT_HEAD || point[0] != tag)
    return FALSE;
  *in_offset = get_u64 (point + 1);
  *out_offset = get_u64 (point + 9);

  if (self->kind == TSL_INFLATE_ZSTD)
    {
      if (len != POINT_HEAD)
        return FALSE;
      ZSTD_DCtx_reset (self->zstd, ZSTD_reset_session_only);
      tsl_zstd_units_init (&self->units);
      self->failed = FALSE;
      self->frame_done = TRUE;
    }
  else
    {
      g_autofree guint8 *window = NULL;
      uLongf wlen;
      guint bits;

      if (!self->z_ready || len < POINT_HEAD + 2 + 8)
        return FALSE;
      bits = point[POINT_HEAD];
      wlen = get_u64 (point + POINT_HEAD + 2);
      if (bits > 7 || wlen > TSL_INFLATE_WINDOW_BYTES)
        return FALSE;
      window = g_malloc (MAX (wlen, 1));
      if (uncompress (window, &wlen, point + POINT_HEAD + 10, len - POINT_HEAD - 10) != Z_OK ||
          wlen != get_u64 (point + POINT_HEAD + 2))
        return FALSE;
      /* Raw deflate from the block boundary, as zran.c resumes. */
      if (inflateReset2 (&self->z, -15) != Z_OK ||
          (bits > 0 && inflatePrime (&self->z, bits, point[POINT_HEAD + 1] >> (8 - bits)) != Z_OK) ||
          inflateSetDictionary (&self->z, window, wlen) != Z_OK)
        return FALSE;
      self->raw = TRUE;
      self->trailer = 0;
      self->member_done = FALSE;
      self->garbage = FALSE;
    }
  self->in = *in_offset;
  self->out = self->pos = *out_offset;
  self->len = 0;
  return TRUE;
}
