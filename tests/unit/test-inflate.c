/* test-inflate.c: gzip and zstd decompression resumed at access points
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A text is compressed as two gzip members (then garbage) and as zstd in
 * several frames. Decompressed once while recording access points, it must
 * give the text; resumed at each point and fed the input from the point's
 * offset in random pieces, it must give the text from the point's output
 * offset on, byte for byte. A single-frame zstd file has no point; a
 * damaged point is refused. Damaged zstd gives the same output and status
 * whether it comes whole, in random pieces or a byte at a time.
 */
#include <string.h>

#include <zlib.h>
#include <zstd.h>

#include "tsl-inflate.h"

/* JSON-like lines: compressible, with a random part, so deflate makes
 * blocks of varied lengths and bit positions. */
static GByteArray *
make_text (gsize    size,
           guint32  seed)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (seed);
  GByteArray *text = g_byte_array_new ();

  while (text->len < size)
    {
      g_autofree char *line = g_strdup_printf ("{\"ph\": \"X\", \"ts\": %u, \"dur\": %u, \"name\": \"f%u\", \"tid\": %u},\n",
                                               g_rand_int (rand), g_rand_int_range (rand, 0, 1000),
                                               g_rand_int_range (rand, 0, 64), g_rand_int_range (rand, 1, 9));

      g_byte_array_append (text, (const guint8 *) line, strlen (line));
    }
  g_byte_array_set_size (text, size);
  return text;
}

static void
gzip_member (GByteArray   *out,
             const guint8 *data,
             gsize         len)
{
  z_stream z = { 0 };
  gsize base = out->len;

  g_assert_cmpint (deflateInit2 (&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), ==, Z_OK);
  g_byte_array_set_size (out, base + deflateBound (&z, len) + 64);
  z.next_in = (Bytef *) data;
  z.avail_in = len;
  z.next_out = out->data + base;
  z.avail_out = out->len - base;
  g_assert_cmpint (deflate (&z, Z_FINISH), ==, Z_STREAM_END);
  g_byte_array_set_size (out, base + z.total_out);
  deflateEnd (&z);
}

static void
zstd_frame (GByteArray   *out,
            const guint8 *data,
            gsize         len)
{
  gsize base = out->len, n;

  g_byte_array_set_size (out, base + ZSTD_compressBound (len));
  n = ZSTD_compress (out->data + base, out->len - base, data, len, 3);
  g_assert_false (ZSTD_isError (n));
  g_byte_array_set_size (out, base + n);
}

typedef struct {
  GByteArray *out;
  GPtrArray  *points;   /* GByteArray each, taken as soon as noted */
  TslInflate *inflate;
} Sink;

static gboolean
collect (gpointer               user_data,
         const guint8          *out,
         gsize                  len,
         const TslInflatePoint *point,
         GError               **error)
{
  Sink *sink = user_data;

  g_assert_cmpuint (len, <=, TSL_INFLATE_BUFFER_BYTES);
  g_byte_array_append (sink->out, out, len);
  /* A point ends the output it comes with. */
  if (sink->points != NULL && point != NULL)
    {
      GByteArray *saved = g_byte_array_new ();

      g_assert_cmpuint (point->out, ==, sink->out->len);
      tsl_inflate_save_point (sink->inflate, point, saved);
      g_ptr_array_add (sink->points, saved);
    }
  return TRUE;
}

/* Feeds `input` from `from` in random pieces of 1 B to 200 KiB. */
static void
feed (Sink         *sink,
      GByteArray   *input,
      gsize         from,
      GRand        *rand)
{
  while (from < input->len)
    {
      gsize want = g_rand_int_range (rand, 1, 200 * 1024);
      gsize piece = MIN (input->len - from, want);
      g_autofree char *message = NULL;
      gboolean ok;

      TslInflateStatus status = tsl_inflate_push (sink->inflate, input->data + from, piece, collect, sink,
                                                  &ok, &message, NULL);

      if (status != TSL_INFLATE_OK)
        g_error ("at input byte %" G_GSIZE_FORMAT ": %s", from, message);
      g_assert_true (ok);
      from += piece;
    }
}

static void
check_resumes (TslInflateKind  kind,
               GByteArray     *text,
               GByteArray     *input,
               guint           min_points)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (19);
  g_autoptr(GPtrArray) points = g_ptr_array_new_with_free_func ((GDestroyNotify) g_byte_array_unref);
  g_autoptr(GByteArray) whole = g_byte_array_new ();
  Sink sink = { whole, points, tsl_inflate_new (kind) };

  tsl_inflate_record_points (sink.inflate, 64 * 1024);
  feed (&sink, input, 0, rand);
  g_assert_cmpmem (whole->data, whole->len, text->data, text->len);
  g_assert_true (tsl_inflate_is_complete (sink.inflate));
  tsl_inflate_free (sink.inflate);
  g_assert_cmpuint (points->len, >=, min_points);

  for (guint i = 0; i < points->len; i++)
    {
      GByteArray *point = g_ptr_array_index (points, i);
      g_autoptr(GByteArray) part = g_byte_array_new ();
      Sink resumed = { part, NULL, tsl_inflate_new (kind) };
      guint64 in_offset, out_offset, peeked;

      g_assert_true (tsl_inflate_point_out_offset (point->data, point->len, &peeked));
      g_assert_true (tsl_inflate_resume (resumed.inflate, point->data, point->len, &in_offset, &out_offset));
      g_assert_cmpuint (peeked, ==, out_offset);
      if (out_offset == text->len)
        {
          /* zstd: the last frame's end; no checkpoint comes after it. */
          g_assert_cmpuint (in_offset, ==, input->len);
          tsl_inflate_free (resumed.inflate);
          continue;
        }
      g_assert_cmpuint (in_offset, <, input->len);
      g_assert_cmpuint (out_offset, <, text->len);
      feed (&resumed, input, in_offset, rand);
      g_assert_cmpmem (part->data, part->len, text->data + out_offset, text->len - out_offset);
      g_assert_cmpuint (tsl_inflate_get_out (resumed.inflate), ==, text->len);
      g_assert_true (tsl_inflate_is_complete (resumed.inflate));

      /* Damaged: cut short, or of the other kind. */
      g_assert_false (tsl_inflate_resume (resumed.inflate, point->data, point->len / 2, &in_offset, &out_offset));
      point->data[0] ^= 0x20;
      g_assert_false (tsl_inflate_resume (resumed.inflate, point->data, point->len, &in_offset, &out_offset));
      point->data[0] ^= 0x20;
      tsl_inflate_free (resumed.inflate);
    }
}

static void
test_gzip (void)
{
  g_autoptr(GByteArray) text = make_text (3 * 1024 * 1024 + 777, 1);
  g_autoptr(GByteArray) input = g_byte_array_new ();
  gsize cut = text->len / 3;

  /* Two members, then zero padding (ignored, as gzip(1) does). */
  gzip_member (input, text->data, cut);
  gzip_member (input, text->data + cut, text->len - cut);
  g_byte_array_set_size (input, input->len + 100);
  memset (input->data + input->len - 100, 0, 100);
  check_resumes (TSL_INFLATE_GZIP, text, input, 10);
}

static void
test_zstd_frames (void)
{
  g_autoptr(GByteArray) text = make_text (2 * 1024 * 1024 + 5, 2);
  g_autoptr(GByteArray) input = g_byte_array_new ();
  gsize frame = 100 * 1024;

  for (gsize at = 0; at < text->len; at += frame)
    zstd_frame (input, text->data + at, MIN (frame, text->len - at));
  /* A point at each frame start a stride (64 KiB) past the last. */
  check_resumes (TSL_INFLATE_ZSTD, text, input, text->len / frame - 1);
}

static void
test_zstd_one_frame (void)
{
  g_autoptr(GByteArray) text = make_text (1024 * 1024, 3);
  g_autoptr(GByteArray) input = g_byte_array_new ();
  g_autoptr(GPtrArray) points = g_ptr_array_new_with_free_func ((GDestroyNotify) g_byte_array_unref);
  g_autoptr(GByteArray) whole = g_byte_array_new ();
  g_autoptr(GRand) rand = g_rand_new_with_seed (3);
  Sink sink = { whole, points, tsl_inflate_new (TSL_INFLATE_ZSTD) };

  zstd_frame (input, text->data, text->len);
  tsl_inflate_record_points (sink.inflate, 4096);
  feed (&sink, input, 0, rand);
  g_assert_cmpmem (whole->data, whole->len, text->data, text->len);
  /* The end of the only frame is the end of the file: nothing to resume. */
  g_assert_cmpuint (points->len, <=, 1);
  for (guint i = 0; i < points->len; i++)
    {
      guint64 out;

      g_assert_true (tsl_inflate_point_out_offset (((GByteArray *) points->pdata[i])->data,
                                                   ((GByteArray *) points->pdata[i])->len, &out));
      g_assert_cmpuint (out, ==, text->len);
    }
  tsl_inflate_free (sink.inflate);
}

/* Everything `input` decompresses to when pushed in pieces of at most
 * `max_piece` bytes (random lengths from `rand`, or all of it), and whether
 * zstd called it damaged. */
static GByteArray *
decompress_cut (GByteArray *input,
                gsize       max_piece,
                GRand      *rand,
                gboolean   *damaged)
{
  GByteArray *out = g_byte_array_new ();
  Sink sink = { out, NULL, tsl_inflate_new (TSL_INFLATE_ZSTD) };
  gsize from = 0;

  *damaged = FALSE;
  while (from < input->len && !*damaged)
    {
      /* Drawn once: MIN() evaluates its arguments twice. */
      gsize draw = rand != NULL ? (gsize) g_rand_int_range (rand, 1, max_piece + 1) : max_piece;
      gsize piece = MIN (input->len - from, draw);
      g_autofree char *message = NULL;
      gboolean ok;

      *damaged = tsl_inflate_push (sink.inflate, input->data + from, piece, collect, &sink,
                                   &ok, &message, NULL) == TSL_INFLATE_DAMAGED;
      g_assert_true (ok);
      from += piece;
    }
  tsl_inflate_free (sink.inflate);
  return out;
}

/* Frames with checksums, raw, RLE and compressed blocks, and a skippable
 * frame, each damaged in turn: whole, in pieces or a byte at a time, the
 * same bytes come out and the same damage is found. */
static void
test_zstd_damage_cuts (void)
{
  g_autoptr(GByteArray) text = make_text (300 * 1024, 4);
  g_autoptr(GByteArray) input = g_byte_array_new ();
  g_autoptr(GRand) noise = g_rand_new_with_seed (4);
  g_autoptr(GRand) rand = g_rand_new_with_seed (5);
  ZSTD_CCtx *cctx = ZSTD_createCCtx ();
  static const guint8 skippable[12] = { 0x53, 0x2a, 0x4d, 0x18, 4, 0, 0, 0, 't', 's', 'l', '!' };
  gsize n;

  /* Incompressible stretches become raw blocks, runs RLE blocks. */
  for (gsize i = 0; i < 40 * 1024; i++)
    text->data[100 * 1024 + i] = g_rand_int (noise);
  memset (text->data + 200 * 1024, 'x', 20 * 1024);
  ZSTD_CCtx_setParameter (cctx, ZSTD_c_checksumFlag, 1);
  for (gsize at = 0; at < text->len; at += 150 * 1024)
    {
      gsize base = input->len, len = MIN (150 * 1024, text->len - at);

      g_byte_array_set_size (input, base + ZSTD_compressBound (len));
      n = ZSTD_compress2 (cctx, input->data + base, input->len - base, text->data + at, len);
      g_assert_false (ZSTD_isError (n));
      g_byte_array_set_size (input, base + n);
      if (at == 0)
        g_byte_array_append (input, skippable, sizeof skippable);
    }
  ZSTD_freeCCtx (cctx);

  for (guint trial = 0; trial < 48; trial++)
    {
      g_autoptr(GByteArray) damaged_input = g_byte_array_new ();
      g_autoptr(GByteArray) whole = NULL;
      gsize at = trial == 0 ? 0 : g_rand_int_range (rand, 0, input->len);
      gboolean damaged_whole, damaged_cut;

      g_byte_array_append (damaged_input, input->data, input->len);
      if (trial > 0)
        damaged_input->data[at] ^= 1u << g_rand_int_range (rand, 0, 8);
      whole = decompress_cut (damaged_input, damaged_input->len, NULL, &damaged_whole);
      if (trial == 0)
        {
          g_assert_false (damaged_whole);
          g_assert_cmpmem (whole->data, whole->len, text->data, text->len);
        }
      for (guint cut = 0; cut < (trial % 8 == 0 ? 3 : 2); cut++)
        {
          g_autoptr(GByteArray) part = NULL;

          if (cut == 2)
            part = decompress_cut (damaged_input, 1, NULL, &damaged_cut);
          else
            part = decompress_cut (damaged_input, cut == 0 ? 7 : 70000, rand, &damaged_cut);
          g_assert_cmpint (damaged_cut, ==, damaged_whole);
          g_assert_cmpmem (part->data, part->len, whole->data, whole->len);
        }
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/inflate/gzip", test_gzip);
  g_test_add_func ("/inflate/zstd-frames", test_zstd_frames);
  g_test_add_func ("/inflate/zstd-one-frame", test_zstd_one_frame);
  g_test_add_func ("/inflate/zstd-damage-cuts", test_zstd_damage_cuts);
  return g_test_run ();
}
