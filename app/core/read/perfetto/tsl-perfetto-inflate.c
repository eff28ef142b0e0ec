/* tsl-perfetto-inflate.c: a compressed bundle of packets, inflated
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * compressed_packets (deflate, with a zlib or gzip header) and
 * zstd_compressed_packets hold a Trace, which the model reads like the outer
 * one (tsl-perfetto-model.c). The decoders are kept in the model between
 * bundles.
 */
#define G_LOG_DOMAIN "tsl-perfetto"

#include "tsl-perfetto-inflate.h"

gboolean
_tsl_perfetto_inflate (TslPerfettoModel *self,
                       GByteArray       *out,
                       const guint8     *data,
                       gsize             len,
                       gboolean          zstd)
{
  gboolean ok = TRUE;

  g_byte_array_set_size (out, MAX (64 * 1024, MIN (len * 8, MAX_INFLATED)));

  if (zstd)
    {
      ZSTD_inBuffer in = { data, len, 0 };
      ZSTD_outBuffer ob = { out->data, out->len, 0 };
      gsize ret = 1;

      if (self->zstd == NULL)
        self->zstd = ZSTD_createDStream ();
      ZSTD_initDStream (self->zstd);
      while (ret != 0)
        {
          ret = ZSTD_decompressStream (self->zstd, &ob, &in);
          if (ZSTD_isError (ret) || (in.pos == in.size && ob.pos < ob.size && ret != 0))
            {
              ok = FALSE;
              break;
            }
          if (ob.pos == ob.size)
            {
              if (out->len >= MAX_INFLATED)
                {
                  ok = FALSE;
                  break;
                }
              g_byte_array_set_size (out, MIN (out->len * 2, MAX_INFLATED));
              ob.dst = out->data;
              ob.size = out->len;
            }
        }
      g_byte_array_set_size (out, ob.pos);
    }
  else
    {
      GConverterResult result = G_CONVERTER_CONVERTED;
      gsize in_pos = 0, out_pos = 0;
      GZlibCompressorFormat format = len >= 2 && data[0] == 0x1f && data[1] == 0x8b
                                     ? G_ZLIB_COMPRESSOR_FORMAT_GZIP : G_ZLIB_COMPRESSOR_FORMAT_ZLIB;

      g_clear_object (&self->inflate);
      self->inflate = G_CONVERTER (g_zlib_decompressor_new (format));
      while (result != G_CONVERTER_FINISHED)
        {
          gsize read = 0, written = 0;

          if (out_pos == out->len)
            {
              if (out->len >= MAX_INFLATED)
                {
                  ok = FALSE;
                  break;
                }
              g_byte_array_set_size (out, MIN (out->len * 2, MAX_INFLATED));
            }
          result = g_converter_convert (self->inflate, data + in_pos, len - in_pos,
                                        out->data + out_pos, out->len - out_pos,
                                        G_CONVERTER_INPUT_AT_END, &read, &written, NULL);
          if (result == G_CONVERTER_ERROR)
            {
              ok = FALSE;
              break;
            }
          in_pos += read;
          out_pos += written;
        }
      g_byte_array_set_size (out, out_pos);
    }

  return ok;
}
