/* tsl-spool.h: bytes held until a file's end, in memory then a temporary file
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <stdio.h>
#include <glib.h>

G_BEGIN_DECLS

/* Bytes appended whole, then read back in order (again after a rewind):
 * in memory up to a limit, past it appended to an unlinked temporary file,
 * so memory stays flat however much a profile holds until its end. A
 * temporary file that cannot be made or written keeps the rest in memory.
 * Values (zigzag varints) or records of the caller's own shape. */
typedef struct {
  const char *name;      /* of the temporary file: "timeslice-NAME-XXXXXX" */
  gsize       max_bytes; /* the limit's default, and a block read back */
  guint8     *mem;       /* the bytes after those in the file */
  gsize       mem_len;
  gsize       mem_size;  /* allocated */
  gsize       limit;     /* bytes of mem that go to the file */
  gsize       mem_at;    /* reading back: the next byte of mem */
  FILE       *file;      /* NULL: none (or it failed: the rest stays in memory) */
  guint64     in_file;   /* bytes written to the file */
  guint64     file_read; /* reading back: bytes of it read into block */
  guint8     *block;     /* reading back: bytes of the file */
  gsize       block_size;
  gsize       block_len;
  gsize       block_at;
  guint64     n_pushed;  /* values */
  guint64     n_popped;
  gboolean    reading;
  gboolean    failed;
} TslSpool;

/* The longest varint of 64 bits. */
#define TSL_SPOOL_VARINT_MAX 10

/* ENV, when set, spills past that many bytes instead of max_bytes (tests
 * and the fuzz harness, whose inputs are small). */
void     tsl_spool_init   (TslSpool     *s,
                           const char   *name,
                           gsize         max_bytes,
                           const char   *env);
void     tsl_spool_clear  (TslSpool     *s);

/* Room for len bytes at the end, then how many of them were written:
 * nothing is spilled between the two. */
guint8  *tsl_spool_reserve (TslSpool    *s,
                            gsize        len);
void     tsl_spool_commit (TslSpool     *s,
                           gsize         len);
void     tsl_spool_append (TslSpool     *s,
                           const guint8 *data,
                           gsize         len);
/* A spool that waits long keeps nothing in memory once it has a file. */
void     tsl_spool_park   (TslSpool     *s);

/* Reading back from the start (and again). */
void     tsl_spool_rewind (TslSpool     *s);
/* The unread bytes at hand, at least need of them while any are left
 * (fewer only at the end of what the file or memory holds); 0 at the end.
 * A record that does not fit in them asks again with a larger need; one
 * that never fits is cut off by skipping all that is at hand. */
gsize    tsl_spool_peek   (TslSpool     *s,
                           gsize         need,
                           const guint8 **data);
void     tsl_spool_skip   (TslSpool     *s,
                           gsize         len);

/* Values as zigzag varints (a node or a delta takes 1–3 bytes, not 8).
 * Once per sample: the common case inline, the rest in tsl-spool.c. */
void     tsl_spool_push_slow (TslSpool  *s,
                              gint64     v);
gboolean tsl_spool_pop_slow  (TslSpool  *s,
                              gint64    *v);

static inline void
tsl_spool_push (TslSpool *s,
                gint64    v)
{
  guint64 z = ((guint64) v << 1) ^ (guint64) (v >> 63);
  guint8 *p;

  /* Room, and still below the limit after it: no growing, no spill. */
  if (G_UNLIKELY (s->mem_len + TSL_SPOOL_VARINT_MAX > s->mem_size ||
                  (!s->failed && s->mem_len + TSL_SPOOL_VARINT_MAX >= s->limit)))
    {
      tsl_spool_push_slow (s, v);
      return;
    }
  p = s->mem + s->mem_len;
  while (z >= 0x80)
    {
      *p++ = (guint8) (z | 0x80);
      z >>= 7;
    }
  *p++ = (guint8) z;
  s->mem_len = p - s->mem;
  s->n_pushed++;
}

/* The next value in the order pushed; FALSE when none is left. */
static inline gboolean
tsl_spool_pop (TslSpool *s,
               gint64   *v)
{
  const guint8 *p = NULL;
  gsize *at = NULL;
  guint64 z;

  if (G_LIKELY (s->reading && s->n_popped < s->n_pushed))
    {
      if (s->block_len - s->block_at >= 3)
        p = s->block + s->block_at, at = &s->block_at;
      else if (s->block_at == s->block_len && s->file_read == s->in_file && s->mem != NULL &&
               s->mem_len - s->mem_at >= 3)
        p = s->mem + s->mem_at, at = &s->mem_at;
    }
  /* One to three bytes whole at hand; anything else the slow way. */
  if (p == NULL || (p[0] >= 0x80 && p[1] >= 0x80 && p[2] >= 0x80))
    return tsl_spool_pop_slow (s, v);
  if (p[0] < 0x80)
    z = p[0], *at += 1;
  else if (p[1] < 0x80)
    z = (guint64) (p[0] & 0x7f) | (guint64) p[1] << 7, *at += 2;
  else
    z = (guint64) (p[0] & 0x7f) | (guint64) (p[1] & 0x7f) << 7 | (guint64) p[2] << 14, *at += 3;
  *v = (gint64) (z >> 1) ^ -(gint64) (z & 1);
  s->n_popped++;
  return TRUE;
}

G_END_DECLS
