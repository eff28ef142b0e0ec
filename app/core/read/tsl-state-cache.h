/* tsl-state-cache.h: whole-trace sampler states cached beside the chunk index
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * After a whole read of a regular file, the trace's state (tsl-trace-state.h)
 * is saved under $XDG_CACHE_HOME/timeslice/, keyed as the chunk index is
 * (device, inode, size, modification time, SHA-256 of the first and last
 * 64 KiB) and by what the samples depend on (mode, K, seed, the memory
 * budget, the exact-slice limits asked); reopening the unchanged file loads
 * it instead of reading the file. Anything that does not match, to the
 * byte, is ignored and the file read again: another program version, a
 * changed file, a truncated or corrupt entry. A cache that cannot be
 * written (read-only, full) is not written. Entries take at most
 * TSL_CACHE_MAX_BYTES bytes in all (default 512 MiB; 0 turns the state
 * cache off), the oldest removed first. tsl_cache_set_enabled (FALSE) turns it off with the index cache.
 */
#pragma once

#include "tsl-chunk-index.h"

G_BEGIN_DECLS

/* Fills the empty `trace` from the cache; FALSE (trace untouched) when
 * there is no valid entry. Called with the trace unlocked. */
gboolean          tsl_state_cache_load          (TslTrace         *trace,
                                                 GFileInputStream *stream,
                                                 const TslFileKey *key,
                                                 const char       *display_name);
/* Saves the trace after a whole read (errors ignored). Only a trace left
 * with samples alone: one that still holds every exact slice is not saved
 * (a small file, read again faster than it would be loaded). */
void              tsl_state_cache_save          (TslTrace         *trace,
                                                 GFileInputStream *stream,
                                                 const TslFileKey *key);

G_END_DECLS
