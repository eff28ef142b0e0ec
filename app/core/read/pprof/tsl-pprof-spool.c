/* tsl-pprof-spool.c: a pprof profile's Sample records held until the end
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each record as a varint of its byte position, a varint length and the
 * Sample message's bytes, in memory up to SPOOL_BYTES and past that
 * appended to an unlinked temporary file, then read back in order, twice
 * (tsl-pprof-samples.c): memory stays flat however many samples there are.
 * A record never straddles the file and memory: memory is spilled whole. A
 * temporary file that cannot be made or written keeps the rest in memory.
 * TSL_PPROF_SPOOL_BYTES=N spills past N bytes instead (tests, fuzzing).
 */
#define G_LOG_DOMAIN "tsl-pprof-reader"

#include "config.h"

#include <stdio.h>
#include <glib/gstdio.h>
#include <unistd.h>

#include "tsl-pprof-private.h"

/* Bytes in memory, and per block read back from the file. */
#define SPOOL_BYTES (4 * 1024 * 1024)

void
tsl_pprof_spool_init (TslPprofSpool *s)
{
  const char *limit = g_getenv ("TSL_PPROF_SPOOL_BYTES");

  memset (s, 0, sizeof *s);
  s->mem = g_byte_array_new ();
  s->block = g_byte_array_new ();
  s->limit = limit != NULL ? CLAMP (g_ascii_strtoull (limit, NULL, 10), 1, SPOOL_BYTES) : SPOOL_BYTES;
}

void
tsl_pprof_spool_clear (TslPprofSpool *s)
{
  g_clear_pointer (&s->mem, g_byte_array_unref);
  g_clear_pointer (&s->block, g_byte_array_unref);
  g_clear_pointer (&s->file, fclose);
}

static void
spill (TslPprofSpool *s)
{
  if (s->file == NULL)
    {
      g_autofree char *path = NULL;
      int fd = g_file_open_tmp ("timeslice-pprof-XXXXXX", &path, NULL);

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
    }
  /* A short write (a full disk): the file is read back as far as the
   * spills before, this one stays in memory. */
  if (fwrite (s->mem->data, 1, s->mem->len, s->file) != s->mem->len || fflush (s->file) != 0)
    {
      s->failed = TRUE;
      return;
    }
  s->in_file += s->mem->len;
  g_byte_array_set_size (s->mem, 0);
}

void
tsl_pprof_spool_append (TslPprofSpool *s,
                        const guint8  *head,
                        gsize          head_len,
                        const guint8  *data,
                        gsize          len)
{
  g_byte_array_append (s->mem, head, head_len);
  if (len > 0)
    g_byte_array_append (s->mem, data, len);
  if (s->mem->len >= s->limit && !s->failed)
    spill (s);
}

void
tsl_pprof_spool_rewind (TslPprofSpool *s)
{
  s->file_read = 0;
  s->mem_at = 0;
  s->block_at = 0;
  g_byte_array_set_size (s->block, 0);
  if (s->file != NULL && fseeko (s->file, 0, SEEK_SET) != 0)
    s->in_file = 0;
}

/* A record at p of the bytes to end: its position and length read, *data at
 * its message. FALSE when it does not fit (more bytes needed). */
static gboolean
parse_record (const guint8  *p,
              const guint8  *end,
              guint64       *pos,
              const guint8 **data,
              gsize         *len,
              gsize         *size)
{
  const guint8 *q = p;
  guint64 n;

  if (tsl_proto_varint (&q, end, pos) != TSL_PROTO_OK ||
      tsl_proto_varint (&q, end, &n) != TSL_PROTO_OK || n > (guint64) (end - q))
    return FALSE;
  *data = q;
  *len = (gsize) n;
  *size = (gsize) (q + n - p);
  return TRUE;
}

/* More of the file into the block, after what is left of it. FALSE at the
 * end of what the file holds. */
static gboolean
refill (TslPprofSpool *s)
{
  gsize left = s->block->len - s->block_at;
  gsize want = MIN ((guint64) MAX (SPOOL_BYTES, 2 * left), left + (s->in_file - s->file_read));
  gsize got;

  if (s->file_read >= s->in_file)
    return FALSE;
  if (left > 0)
    memmove (s->block->data, s->block->data + s->block_at, left);
  g_byte_array_set_size (s->block, want);
  s->block_at = 0;
  got = fread (s->block->data + left, 1, want - left, s->file);
  g_byte_array_set_size (s->block, left + got);
  s->file_read += got;
  if (got == 0)
    {
      /* Unreadable: what the file holds is lost, memory is still read. */
      s->file_read = s->in_file;
      return FALSE;
    }
  return TRUE;
}

gboolean
tsl_pprof_spool_next (TslPprofSpool  *s,
                      guint64        *pos,
                      const guint8  **data,
                      gsize          *len)
{
  gsize size;

  while (s->file_read < s->in_file || s->block_at < s->block->len)
    {
      if (s->block_at < s->block->len &&
          parse_record (s->block->data + s->block_at, s->block->data + s->block->len, pos, data, len, &size))
        {
          s->block_at += size;
          return TRUE;
        }
      if (!refill (s))
        {
          /* A record cut by a failed read: what the file held ends here. */
          s->block_at = s->block->len;
          break;
        }
    }
  if (s->mem_at < s->mem->len &&
      parse_record (s->mem->data + s->mem_at, s->mem->data + s->mem->len, pos, data, len, &size))
    {
      s->mem_at += size;
      return TRUE;
    }
  return FALSE;
}
