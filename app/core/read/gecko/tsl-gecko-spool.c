/* tsl-gecko-spool.c: integers spooled as varints, to memory then a temporary file
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A thread's samples and markers come before the tables that name their
 * stacks and strings, so they wait here: zigzag varints, in memory up to
 * SPOOL_BYTES per sequence and past that in an unlinked temporary file,
 * read back in order at the thread's end. Memory stays flat however many
 * samples a thread has. A temporary file that cannot be made or written
 * keeps the rest in memory. TSL_GECKO_SPOOL_BYTES=N spills past N bytes
 * instead (tests and the fuzz harness, whose inputs are small).
 */
#define G_LOG_DOMAIN "tsl-gecko-reader"

#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "tsl-gecko-private.h"

/* Bytes in memory per spool, and per block read back from its file. */
#define SPOOL_BYTES (1024 * 1024)
/* The longest varint of 64 bits. */
#define VARINT_MAX 10

void
tsl_gecko_spool_init (TslGeckoSpool *s)
{
  const char *limit = g_getenv ("TSL_GECKO_SPOOL_BYTES");

  memset (s, 0, sizeof *s);
  s->limit = limit != NULL ? CLAMP (g_ascii_strtoull (limit, NULL, 10), 1, SPOOL_BYTES) : SPOOL_BYTES;
}

void
tsl_gecko_spool_clear (TslGeckoSpool *s)
{
  g_clear_pointer (&s->mem, g_free);
  g_clear_pointer (&s->file, fclose);
  g_clear_pointer (&s->block, g_free);
}

/* The bytes in memory go to the end of the file (made the first time);
 * when it cannot be made or written they stay in memory from then on. */
static void
spill (TslGeckoSpool *s)
{
  if (s->file == NULL)
    {
      g_autofree char *path = NULL;
      int fd = g_file_open_tmp ("timeslice-gecko-XXXXXX", &path, NULL);

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
      setvbuf (s->file, NULL, _IONBF, 0);
    }
  /* A short write (a full disk): the whole blocks before are read back
   * from the file, this one from memory. */
  if (fwrite (s->mem, 1, s->mem_len, s->file) != s->mem_len)
    {
      s->failed = TRUE;
      return;
    }
  s->in_file += s->mem_len;
  s->mem_len = 0;
}

void
tsl_gecko_spool_push (TslGeckoSpool *s,
            gint64              v)
{
  guint64 z = ((guint64) v << 1) ^ (guint64) (v >> 63);
  guint8 *p;

  /* Written in place: this runs once per sample. */
  if (G_UNLIKELY (s->mem_len + VARINT_MAX > s->mem_size))
    {
      s->mem_size = MAX (s->mem_size * 2, 4096);
      s->mem = g_realloc (s->mem, s->mem_size);
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
  if (!s->failed && s->mem_len >= s->limit)
    spill (s);
}

/* A varint of p..end (the writer's, so whole unless the file failed). */
static gboolean
decode (const guint8  *p,
        const guint8  *end,
        gint64        *v,
        gsize         *used)
{
  guint64 z = 0;

  for (guint i = 0; i < VARINT_MAX && p + i < end; i++)
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

/* The next value, in the order pushed; FALSE when none is left. */
gboolean
tsl_gecko_spool_pop (TslGeckoSpool *s,
           gint64             *v)
{
  gsize used;

  if (s->n_popped == s->n_pushed)
    return FALSE;
  if (!s->reading)
    {
      s->reading = TRUE;
      if (s->file != NULL && fseek (s->file, 0, SEEK_SET) != 0)
        s->in_file = 0;   /* unreadable: what memory holds is all there is */
    }
  if (s->block_at < s->block_len || s->file_read < s->in_file)
    {
      /* A whole varint in the block: its tail moved to the front, then more. */
      if (s->block_len - s->block_at < VARINT_MAX && s->file_read < s->in_file)
        {
          gsize kept = s->block_len - s->block_at;
          gsize want = (gsize) MIN ((guint64) SPOOL_BYTES, s->in_file - s->file_read);
          gsize got;

          if (s->block == NULL)
            s->block = g_malloc (SPOOL_BYTES + VARINT_MAX);
          memmove (s->block, s->block + s->block_at, kept);
          got = fread (s->block + kept, 1, want, s->file);
          s->file_read += got;
          if (got < want)
            s->in_file = s->file_read;   /* unreadable: the rest of the file is lost */
          s->block_len = kept + got;
          s->block_at = 0;
        }
      if (decode (s->block + s->block_at, s->block + s->block_len, v, &used))
        {
          s->block_at += used;
          s->n_popped++;
          return TRUE;
        }
      s->block_at = s->block_len;
    }
  if (s->mem == NULL || !decode (s->mem + s->mem_at, s->mem + s->mem_len, v, &used))
    {
      s->n_popped = s->n_pushed;
      return FALSE;
    }
  s->mem_at += used;
  s->n_popped++;
  return TRUE;
}

void
tsl_gecko_spool_park (TslGeckoSpool *s)
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
