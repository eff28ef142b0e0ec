/* tsl-cache-entry.h: reading an entry of the on-disk caches
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The whole of the cache entry at `path` into *data (transfer full) and
 * *len, as g_file_get_contents() would; FALSE, without blocking, when it is
 * missing, unreadable or not a regular file (a FIFO or device put there
 * must not hang the read that merely looks for an entry). */
gboolean          tsl_cache_entry_read          (const char  *path,
                                                 char       **data,
                                                 gsize       *len);

G_END_DECLS
