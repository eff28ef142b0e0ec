/* tsl-cache-entry.c: reading an entry of the on-disk caches
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "tsl-cache-entry"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <glib/gstdio.h>

#include "tsl-cache-entry.h"

gboolean
tsl_cache_entry_read (const char  *path,
                      char       **data,
                      gsize       *len)
{
  g_autofree char *buf = NULL;
  struct stat st;
  gsize got = 0;
  int fd;

  g_return_val_if_fail (path != NULL && data != NULL && len != NULL, FALSE);

  /* O_NONBLOCK: opening a FIFO for reading waits for a writer otherwise.
   * fstat, not a stat before the open, so the file checked is the one read. */
  fd = g_open (path, O_RDONLY | O_NONBLOCK | O_CLOEXEC, 0);
  if (fd < 0)
    return FALSE;
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode) || (guint64) st.st_size >= G_MAXSIZE)
    {
      g_debug ("%s: not a regular file; ignored", path);
      close (fd);
      return FALSE;
    }

  /* A file cut short since the fstat gives what it holds: every entry
   * checks its own length and checksum. */
  buf = g_malloc ((gsize) st.st_size + 1);
  while (got < (gsize) st.st_size)
    {
      gssize n = read (fd, buf + got, (gsize) st.st_size - got);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          close (fd);
          return FALSE;
        }
      if (n == 0)
        break;
      got += (gsize) n;
    }
  close (fd);

  buf[got] = '\0';
  *data = g_steal_pointer (&buf);
  *len = got;
  return TRUE;
}
