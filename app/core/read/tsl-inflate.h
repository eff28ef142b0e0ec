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

/* Output comes in buffers of up to TSL_INFLATE_BUFFER_BYTES, decompressed
 * 64 KiB a round as always (so damage stops at the same byte however big
 * the buffer), and is handed on when the buffer is full, at an access
 * point (the buffer after it is one round), at the end of each push() and
 * before a push() reports damage.
 * The same input pushed the same way gives the same buffers, on any
 * thread (tsl-inflate-ahead.h). */
#define TSL_INFLATE_BUFFER_BYTES (1024 * 1024)
#define TSL_INFLATE_WINDOW_BYTES 32768

/* An access point (see above), as noted: where the output before it ends. */
typedef struct {
  guint64 in;          /* the input offset to resume at */
  guint64 out;         /* the output offset it is at */
  guint8  bits;        /* gzip: bits of the byte before `in` still to read */
  guint8  byte;
  guint   window_len;  /* gzip: the output before it, for the dictionary */
  guint8  window[TSL_INFLATE_WINDOW_BYTES];
} TslInflatePoint;

/* Where the output goes, `point` (or NULL) the access point where it ends;
 * FALSE (with error set, or none to stop quietly) stops the input. */
typedef gboolean (*TslInflateOutput)             (gpointer               user_data,
                                                  const guint8          *out,
                                                  gsize                  len,
                                                  const TslInflatePoint *point,
                                                  GError               **error);

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

/* Notes access points at least `stride` output bytes apart (0: none),
 * each at the end of an output buffer. */
void              tsl_inflate_record_points     (TslInflate       *self,
                                                 guint64           stride);
/* The buffer the output goes to from now on (`cap` at least 64 KiB; NULL:
 * the inflater's own, the default). An output callback that keeps the buffer it
 * was given sets another before it returns. */
void              tsl_inflate_set_buffer        (TslInflate       *self,
                                                 guint8           *buf,
                                                 gsize             cap);
/* Appends `point` of this kind of input, serialized, to `saved`. Touches
 * nothing push() does: another thread may call it while one pushes. */
void              tsl_inflate_save_point        (TslInflate            *self,
                                                 const TslInflatePoint *point,
                                                 GByteArray            *saved);
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
