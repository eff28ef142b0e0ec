/* tsl-inflate.h: gzip and zstd input, with points a later read resumes at
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The reader's first stage for compressed input: gzip through zlib (members
 * may be concatenated; bytes after the last that are not another member are
 * ignored) and zstd (frames may be concatenated; damage ends the output).
 *
 * While recording, it notes access points, at least `stride` decompressed
 * bytes apart, as zlib's examples/zran.c does: for gzip at a deflate block
 * boundary, the input's bit position and the 32 KiB window of output before
 * it (saved deflate-compressed); for zstd at the start of a frame, which
 * needs no window. A single-frame zstd file has no point after its start:
 * it has no random access. A later read of the same file resumes the
 * decompressor at a saved point (tsl_inflate_resume()) and reads on from
 * that input offset.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  TSL_INFLATE_GZIP,
  TSL_INFLATE_ZSTD,
} TslInflateKind;

typedef enum {
  TSL_INFLATE_OK,
  TSL_INFLATE_INVALID,   /* gzip: invalid data, the read fails */
  TSL_INFLATE_DAMAGED,   /* zstd: the output ends here, with a warning */
} TslInflateStatus;

typedef struct _TslInflate TslInflate;

/* Where the output goes; FALSE (with error set) stops the input. */
typedef gboolean (*TslInflateOutput)             (gpointer          user_data,
                                                  const guint8     *out,
                                                  gsize             len,
                                                  GError          **error);

TslInflate       *tsl_inflate_new               (TslInflateKind    kind);
void              tsl_inflate_free              (TslInflate       *self);
TslInflateKind    tsl_inflate_get_kind          (TslInflate       *self);

/* Decompresses the next `len` input bytes. INVALID and DAMAGED set
 * *message (transfer full) to the decompressor's reason. *ok is FALSE when
 * `output` failed (its error is set then). */
TslInflateStatus  tsl_inflate_push              (TslInflate       *self,
                                                 const guint8     *data,
                                                 gsize             len,
                                                 TslInflateOutput  output,
                                                 gpointer          user_data,
                                                 gboolean         *ok,
                                                 char            **message,
                                                 GError          **error);
/* Bytes of output so far (from the start of the decompressed text, also
 * after a resume). */
guint64           tsl_inflate_get_out           (TslInflate       *self);
/* gzip: not inside a member (or nothing started); zstd: not inside a frame. */
gboolean          tsl_inflate_is_complete       (TslInflate       *self);
/* gzip: bytes that were not another member followed the last one. */
gboolean          tsl_inflate_had_trailing_garbage (TslInflate    *self);
gboolean          tsl_inflate_has_failed        (TslInflate       *self);

/* Records access points at least `stride` output bytes apart (0: none). */
void              tsl_inflate_record_points     (TslInflate       *self,
                                                 guint64           stride);
/* The output offset of the last point noted and not yet taken. */
gboolean          tsl_inflate_peek_point        (TslInflate       *self,
                                                 guint64          *out_offset);
/* Appends that point, serialized, to `saved` and forgets it. */
void              tsl_inflate_take_point        (TslInflate       *self,
                                                 GByteArray       *saved);
/* Puts the decompressor at a saved point: the caller then feeds the input
 * from *in_offset. *out_offset is the output offset the point is at. FALSE
 * for a point that is not of this kind or is damaged. */
gboolean          tsl_inflate_resume            (TslInflate       *self,
                                                 const guint8     *point,
                                                 gsize             len,
                                                 guint64          *in_offset,
                                                 guint64          *out_offset);
/* The output offset a saved point is at; FALSE if it is not one. */
gboolean          tsl_inflate_point_out_offset  (const guint8     *point,
                                                 gsize             len,
                                                 guint64          *out_offset);

G_END_DECLS
