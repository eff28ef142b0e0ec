/* tsl-changes-cache.h: change-point tables kept beside the chunk index
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * `timeslice changes` on an unchanged file with the same options writes
 * what it wrote before: the table is saved under $XDG_CACHE_HOME/timeslice/,
 * keyed as the chunk index and the state cache are (device, inode, size,
 * modification time, SHA-256 of the first and last 64 KiB) and by every
 * option the rows depend on, and served without reading the file. One entry
 * per file and options, replaced when the file changes; anything that does
 * not match to the byte is ignored. Off with the other caches
 * (tsl_cache_set_enabled (FALSE), --no-cache) and when TSL_CACHE_MAX_BYTES
 * is 0.
 */
#pragma once

#include "tsl-chunk-index.h"
#include "tsl-compare.h"

G_BEGIN_DECLS

/* What a file is, for the cache: its key and the hash of its ends. */
typedef struct {
  TslFileKey key;
  guint8     ends[32];
} TslChangesSource;

/* FALSE when `path` is no regular file, cannot be read, or the cache is off. */
gboolean          tsl_changes_source_query      (const char              *path,
                                                 TslChangesSource        *out);
/* (nullable) (transfer full): the saved output for this source, request
 * (range, K, seed, budget, confidence) and `top`. */
char             *tsl_changes_cache_lookup      (const TslChangesSource  *source,
                                                 const TslCompareRequest *request,
                                                 guint                    top);
/* Saves `csv` for the source as it was before the read (errors ignored). */
void              tsl_changes_cache_save        (const TslChangesSource  *source,
                                                 const TslCompareRequest *request,
                                                 guint                    top,
                                                 const char              *csv);

G_END_DECLS
