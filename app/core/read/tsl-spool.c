/* tsl-spool.c: bytes held until a file's end, in memory then a temporary file
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Readers of formats whose samples come before what names them (cpuprofile,
 * pprof, gecko) hold them here. Memory is spilled whole, so a record the
 * caller commits never straddles the file and memory; a short write (a
 * full disk) keeps that spill and all after it in memory, and the file is
 * read back as far as the spills before.
 */
#define G_LOG_DOMAIN "tsl-spool"

#include "config.h"

#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "tsl-spool.h"

void
tsl_spool_init (TslSpool   *s,
                const char *name,
                gsize       max_bytes,
                const char *env)
{
  const char *limit = env != NULL ? g_getenv (env) : NULL;

  memset (s, 0, sizeof *s);
  s->name = name;
  s->max_bytes = max_bytes;
  s->limit = limit != NULL ? CLAMP (g_ascii_strtoull (limit, NULL, 10), 1, max_bytes) : max_bytes;
}

void
tsl_spool_clear (TslSpool *s)
{
  g_clear_pointer (&s->mem, g_free);
  g_clear_pointer (&s->file, fclose);
  g_clear_pointer (&s->block, g_free);
}

/* The bytes in memory go to the end of the file (made the first time);
 * when it cannot be made or written they stay in memory from then on. */
static void
spill (TslSpool *s)
{
  if (s->file == NULL)
    {
      g_autofree char *tmpl = g_strdup_printf ("timeslice-%s-XXXXXX", s->name);
      g_autofree char *path = NULL;
      int fd = g_file_open_tmp (tmpl, &path, NULL);

      if (fd < 0)
        {
          s->failed = TRUE;
          return;
        }
      /* Nothing left behind, even by a crash. */
      g_unlink (path);
      s->file = fdopen (fd, "w+b");
      if (s->file == NULL)
        {
          close (fd);
          s->failed = TRUE;
          return;
        }
      /* Whole blocks are written and read: stdio's buffer would copy them. */
      setvbuf (s->file, NULL, _IONBF, 0);
    }
  if (fwrite (s->mem, 1, s->mem_len, s->file) != s->mem_len)
    {
      s->failed = TRUE;
      return;
    }
  s->in_file += s->mem_len;
  s->mem_len = 0;
}

static void
grow (TslSpool *s,
      gsize     len)
{
  s->mem_size = MAX (MAX (s->mem_size * 2, 4096), s->mem_len + len);
  s->mem = g_realloc (s->mem, s->mem_size);
}

guint8 *
tsl_spool_reserve (TslSpool *s,
                   gsize     len)
{
  if (G_UNLIKELY (s->mem_len + len > s->mem_size))
    grow (s, len);
  return s->mem + s->mem_len;
}

void
tsl_spool_commit (TslSpool *s,
                  gsize     len)
{
  s->mem_len += len;
  if (!s->failed && s->mem_len >= s->limit)
    spill (s);
}

void
tsl_spool_append (TslSpool     *s,
                  const guint8 *data,
                  gsize         len)
{
  memcpy (tsl_spool_reserve (s, len), data, len);
  tsl_spool_commit (s, len);
}

void
tsl_spool_park (TslSpool *s)
{
  if (s->file == NULL || s->failed || s->reading)
    return;
  if (s->mem_len > 0)
    spill (s);
  if (s->mem_len == 0)
    {
      g_clear_pointer (&s->mem, g_free);
      s->mem_size = 0;
    }
}

void
tsl_spool_rewind (TslSpool *s)
{
  s->reading = TRUE;
  s->file_read = 0;
  s->block_len = 0;
  s->block_at = 0;
  s->mem_at = 0;
  s->n_popped = 0;
  if (s->file != NULL && fseeko (s->file, 0, SEEK_SET) != 0)
    s->in_file = 0;   /* unreadable: what memory holds is all there is */
}

/* More of the file into the block, after what is left of it, up to need
 * bytes or a block's worth. */
static void
refill (TslSpool *s,
        gsize     need)
{
  gsize kept = s->block_len - s->block_at;
  gsize want = (gsize) MIN ((guint64) MAX (s->max_bytes, need), kept + (s->in_file - s->file_read));
  gsize got;

  if (want > s->block_size)
    {
      s->block_size = want;
      s->block = g_realloc (s->block, s->block_size);
    }
  if (kept > 0)
    memmove (s->block, s->block + s->block_at, kept);
  got = fread (s->block + kept, 1, want - kept, s->file);
  s->file_read += got;
  if (got < want - kept)
    s->in_file = s->file_read;   /* unreadable: the rest of the file is lost */
  s->block_len = kept + got;
  s->block_at = 0;
}

gsize
tsl_spool_peek (TslSpool      *s,
                gsize          need,
                const guint8 **data)
{
  if (!s->reading)
    tsl_spool_rewind (s);
  if (s->block_at < s->block_len || s->file_read < s->in_file)
    {
      if (s->block_len - s->block_at < need && s->file_read < s->in_file)
        refill (s, need);
      if (s->block_at < s->block_len)
        {
          *data = s->block + s->block_at;
          return s->block_len - s->block_at;
        }
    }
  if (s->mem == NULL)
    return 0;
  *data = s->mem + s->mem_at;
  return s->mem_len - s->mem_at;
}

void
tsl_spool_skip (TslSpool *s,
                gsize     len)
{
  if (s->block_at < s->block_len)
    s->block_at += len;
  else
    s->mem_at += len;
}

void
tsl_spool_push_slow (TslSpool *s,
                     gint64    v)
{
  guint64 z = ((guint64) v << 1) ^ (guint64) (v >> 63);
  guint8 *p;

  /* Written in place: this runs once per sample. */
  if (G_UNLIKELY (s->mem_len + TSL_SPOOL_VARINT_MAX > s->mem_size))
    grow (s, TSL_SPOOL_VARINT_MAX);
  p = s->mem + s->mem_len;
  while (z >= 0x80)
    {
      *p++ = (guint8) (z | 0x80);
      z >>= 7;
    }
  *p++ = (guint8) z;
  s->mem_len = p - s->mem;
  s->n_pushed++;
  if (!s->failed && s->mem_len >= s->limit)
    spill (s);
}

/* A varint of p..end (the writer's, so whole unless the file failed). */
static inline gboolean
decode (const guint8 *p,
        const guint8 *end,
        gint64       *v,
        gsize        *used)
{
  guint64 z = 0;

  /* A node, a stack or a delta mostly takes one to three bytes. */
  if (G_LIKELY (end - p >= 3))
    {
      if (p[0] < 0x80)
        z = p[0], *used = 1;
      else if (p[1] < 0x80)
        z = (guint64) (p[0] & 0x7f) | (guint64) p[1] << 7, *used = 2;
      else if (p[2] < 0x80)
        z = (guint64) (p[0] & 0x7f) | (guint64) (p[1] & 0x7f) << 7 | (guint64) p[2] << 14, *used = 3;
      else
        goto longer;
      *v = (gint64) (z >> 1) ^ -(gint64) (z & 1);
      return TRUE;
    }
longer:
  for (guint i = 0; i < TSL_SPOOL_VARINT_MAX && p + i < end; i++)
    {
      z |= (guint64) (p[i] & 0x7f) << (7 * i);
      if (p[i] < 0x80)
        {
          *v = (gint64) (z >> 1) ^ -(gint64) (z & 1);
          *used = i + 1;
          return TRUE;
        }
    }
  return FALSE;
}

gboolean
tsl_spool_pop_slow (TslSpool *s,
                    gint64   *v)
{
  const guint8 *p;
  gsize avail, used;

  if (s->n_popped == s->n_pushed)
    return FALSE;
  /* Once per sample: a varint whole in the block, or in memory once the
   * file is read, is taken without a peek. */
  if (G_LIKELY (s->reading))
    {
      if (s->block_len - s->block_at >= TSL_SPOOL_VARINT_MAX &&
          decode (s->block + s->block_at, s->block + s->block_len, v, &used))
        {
          s->block_at += used;
          s->n_popped++;
          return TRUE;
        }
      if (s->block_at == s->block_len && s->file_read == s->in_file && s->mem != NULL &&
          decode (s->mem + s->mem_at, s->mem + s->mem_len, v, &used))
        {
          s->mem_at += used;
          s->n_popped++;
          return TRUE;
        }
    }
  while ((avail = tsl_spool_peek (s, TSL_SPOOL_VARINT_MAX, &p)) > 0)
    {
      if (decode (p, p + avail, v, &used))
        {
          tsl_spool_skip (s, used);
          s->n_popped++;
          return TRUE;
        }
      /* Cut by a failed read: what is at hand ends there. */
      tsl_spool_skip (s, avail);
    }
  s->n_popped = s->n_pushed;
  return FALSE;
}
