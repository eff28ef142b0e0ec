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

/* Output per round. */
#define OUT_BYTES    (64 * 1024)
#define WINDOW_BYTES 32768
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
  guint64        out;         /* output so far */

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
  gboolean       has_point;
  guint64        point_in;
  guint64        point_out;
  guint8         point_bits;
  guint8         point_byte;
  guint          point_window_len;
  guint8        *point_window;
  /* Compresses saved windows; kept, as deflateInit() clears ~256 KiB. */
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
  g_free (self->point_window);
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

/* A point where the output reaches `out`, if a stride past the last. */
static gboolean
point_due (TslInflate *self,
           guint64     out)
{
  return self->stride > 0 && out >= self->last_point + self->stride;
}

static void
note_gzip_point (TslInflate *self,
                 guint64     out)
{
  uInt len = WINDOW_BYTES;

  if (self->point_window == NULL)
    self->point_window = g_malloc (WINDOW_BYTES);
  if (inflateGetDictionary (&self->z, self->point_window, &len) != Z_OK)
    return;
  self->point_window_len = len;
  self->point_in = self->in;
  self->point_out = out;
  self->point_bits = self->z.data_type & 7;
  self->point_byte = self->last_byte;
  self->has_point = TRUE;
  self->last_point = out;
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
  guint8 out[OUT_BYTES];
  gboolean output_full = FALSE;

  if (!self->z_ready)
    {
      *message = g_strdup ("out of memory");
      return TSL_INFLATE_INVALID;
    }

  /* While input remains or zlib may still hold output from a full buffer. */
  while (len > 0 || output_full)
    {
      gsize consumed, written;
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

      self->z.next_in = (Bytef *) data;
      self->z.avail_in = len;
      self->z.next_out = out;
      self->z.avail_out = sizeof out;
      /* Z_BLOCK stops at each deflate block's end, where a point can be. */
      ret = inflate (&self->z, self->stride > 0 ? Z_BLOCK : Z_NO_FLUSH);
      consumed = len - self->z.avail_in;
      written = sizeof out - self->z.avail_out;
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
      if (ret == Z_STREAM_END)
        {
          if (self->raw)
            self->trailer = GZIP_TRAILER;
          else
            self->member_done = TRUE;
        }
      else if ((self->z.data_type & 128) && !(self->z.data_type & 64) &&
               point_due (self, self->out + written))
        note_gzip_point (self, self->out + written);
      self->out += written;
      if (written > 0 && !output (user_data, out, written, error))
        {
          *ok = FALSE;
          return TSL_INFLATE_OK;
        }
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
  guint8 out[OUT_BYTES];
  ZSTD_inBuffer in = { data, len, 0 };
  gboolean output_full = FALSE;

  while (!self->failed && (in.pos < in.size || output_full))
    {
      ZSTD_outBuffer ob = { out, sizeof out, 0 };
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
      if (self->frame_done && point_due (self, self->out + ob.pos))
        {
          self->point_in = self->in;
          self->point_out = self->out + ob.pos;
          self->point_window_len = 0;
          self->has_point = TRUE;
          self->last_point = self->point_out;
        }
      self->out += ob.pos;
      if (ob.pos > 0 && !output (user_data, out, ob.pos, error))
        {
          *ok = FALSE;
          return TSL_INFLATE_OK;
        }
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
  *ok = TRUE;
  if (self->kind == TSL_INFLATE_ZSTD)
    return push_zstd (self, data, len, output, user_data, ok, message, error);
  return push_gzip (self, data, len, output, user_data, ok, message, error);
}

gboolean
tsl_inflate_peek_point (TslInflate *self,
                        guint64    *out_offset)
{
  if (!self->has_point)
    return FALSE;
  *out_offset = self->point_out;
  return TRUE;
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
tsl_inflate_take_point (TslInflate *self,
                        GByteArray *saved)
{
  guint8 tag = self->kind == TSL_INFLATE_GZIP ? POINT_GZIP : POINT_ZSTD;

  g_return_if_fail (self->has_point);

  self->has_point = FALSE;
  g_byte_array_append (saved, &tag, 1);
  put_u64 (saved, self->point_in);
  put_u64 (saved, self->point_out);
  if (self->kind == TSL_INFLATE_GZIP)
    {
      /* The window compressed (zlib format, as uncompress() reads it):
       * JSON's 32 KiB take 3–6 KiB. */
      guint base;

      if (!self->deflater_ready)
        self->deflater_ready = deflateInit (&self->deflater, 1) == Z_OK;
      else
        deflateReset (&self->deflater);
      g_byte_array_append (saved, &self->point_bits, 1);
      g_byte_array_append (saved, &self->point_byte, 1);
      put_u64 (saved, self->point_window_len);
      base = saved->len;
      g_byte_array_set_size (saved, base + compressBound (self->point_window_len));
      self->deflater.next_in = self->point_window;
      self->deflater.avail_in = self->point_window_len;
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
      if (bits > 7 || wlen > WINDOW_BYTES)
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
  self->out = *out_offset;
  self->has_point = FALSE;
  return TRUE;
}
