/* tsl-trace-state.h: sampler state files — a whole read's samples, saved and merged
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A state holds what a trace keeps after a read: every track's sampler
 * (samples, slice summaries, level), names, units, process and thread
 * metadata, the time span, the format and the reader's warnings. The file
 * format (little-endian, fixed-width, versioned, SHA-256 at the end) is
 * docs/state-format.md. Saving is canonical: the same trace content gives
 * the same bytes, so "merge of parts == one pass" is checked with cmp.
 *
 * Merging: two states of consecutive parts of one stream merge into what
 * one read of both would hold (tsl_trace_merge() with no group). In time
 * mode that holds for parts read on their own; in count mode a part's
 * tracks must be numbered after the earlier parts' events
 * (tsl_trace_count_after()), since a count-mode slice is T consecutive
 * events counted from the track's first. States of different sources merge
 * as groups: each source's processes are renamed after it.
 *
 * Callers lock as for any trace use (tsl-trace.h).
 */
#pragma once

#include <gio/gio.h>

#include "tsl-trace.h"

G_BEGIN_DECLS

#define TSL_STATE_ERROR (tsl_state_error_quark ())

typedef enum {
  TSL_STATE_ERROR_FOREIGN,    /* not a sampler state */
  TSL_STATE_ERROR_TRUNCATED,
  TSL_STATE_ERROR_CORRUPT,    /* checksum, or content no sampler makes */
  TSL_STATE_ERROR_VERSION,    /* written by a newer Timeslice */
  TSL_STATE_ERROR_MERGE,      /* states that cannot be merged */
} TslStateError;

GQuark            tsl_state_error_quark         (void);

#define TSL_STATE_VERSION    3
#define TSL_STATE_MAGIC_LEN  8
/* Bytes before the body: magic, version, flags, body length. */
#define TSL_STATE_HEADER_LEN 24
#define TSL_STATE_CHECKSUM_LEN 32

/* Whether `data` starts with a state's magic (FALSE below 8 bytes). */
gboolean          tsl_state_sniff               (const guint8   *data,
                                                 gsize           len);

/* Whether the file at `path` starts with a state's magic. */
gboolean          tsl_state_file_test           (const char     *path);

/* (transfer full): the state of `trace` in the file format. */
GBytes           *tsl_trace_save_state          (TslTrace       *trace);

/* The same state written to a stream, never held whole: sized first (the
 * trace locked and unchanged until written), then written. */
typedef struct _TslStateWriter TslStateWriter;

TslStateWriter   *tsl_state_writer_new          (TslTrace       *trace);
guint64           tsl_state_writer_get_size     (TslStateWriter *writer);
gboolean          tsl_state_writer_write        (TslStateWriter *writer,
                                                 GOutputStream  *out,
                                                 GCancellable   *cancellable,
                                                 GError        **error);
void              tsl_state_writer_free         (TslStateWriter *writer);
/* Fills `trace`, which has no track yet, from `state`; its mode, K and seed
 * become the state's (with a warning if they differ). Errors name
 * `display_name` and the byte. */
gboolean          tsl_trace_load_state          (TslTrace       *trace,
                                                 GBytes         *state,
                                                 const char     *display_name,
                                                 GError        **error);
/* (transfer full) (nullable): a new trace holding `state`, with its mode,
 * K and seed. */
TslTrace         *tsl_trace_new_from_state      (GBytes         *state,
                                                 const char     *display_name,
                                                 GError        **error);
/* (transfer full) (nullable): a new trace holding the state at `path`. */
TslTrace         *tsl_trace_new_from_state_file (const char     *path,
                                                 GError        **error);

/* Adds `other` to `self`. `group` NULL: `other` is the part of the stream
 * right after `self`'s (same format, mode, K and seed). Otherwise `other`
 * is another source: its pids are moved by `group_index` << 40 and its
 * processes named "GROUP: NAME" (or GROUP), its warnings prefixed. On
 * error `self` is unchanged. */
gboolean          tsl_trace_merge               (TslTrace       *self,
                                                 TslTrace       *other,
                                                 const char     *group,
                                                 guint           group_index,
                                                 GError        **error);

/* Count mode: tracks made from now on number their events after those the
 * same track (kind, pid, tid, name) has in `earlier` (one call per earlier
 * part), so that this part's state merges after theirs. */
void              tsl_trace_count_after         (TslTrace       *self,
                                                 TslTrace       *earlier);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TslStateWriter, tsl_state_writer_free)

G_END_DECLS
