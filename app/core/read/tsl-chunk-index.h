/* tsl-chunk-index.h: where in a file each stretch of time is, for range reads
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The first read of a regular, uncompressed file records a checkpoint every
 * few MiB at an event boundary the format accepts: its byte offset, the
 * format's state there (Chrome: the spans open on each thread) and, for
 * the chunk it closes, the earliest and latest time the chunk's events
 * offered. A chunk whose reading changed more than samples (a new track, a
 * name, a warning) is marked to be read always. A later read of the same
 * file with a time filter reads the first chunk (the header), every marked
 * chunk and every chunk whose [min, max] overlaps the filter (traces are
 * not sorted: the bounds, not the position, decide), and gets the same
 * samples as a full read.
 *
 * gzip and zstd input is indexed in its decompressed text: a checkpoint
 * comes just after an access point of the decompressor (tsl-inflate.h),
 * saved with the chunk, so a range read resumes decompressing there.
 *
 * Indexes are kept in memory for the process and in a cache on disk, keyed
 * by the file's device, inode, size and modification time (and, on disk, a
 * hash of its first and last 64 KiB); a changed file finds none. Pipes,
 * UTF-16 and a UTF-8 BOM get no index; a single-frame zstd file gets one
 * chunk (no random access inside a frame). TSL_NO_INDEX=1 neither records
 * nor uses one; TSL_INDEX_CHUNK_BYTES=N sets the bytes between checkpoints
 * (for tests).
 */
#pragma once

#include <gio/gio.h>

#include "tsl-chunk-records.h"
#include "tsl-reader.h"
#include "tsl-trace.h"

G_BEGIN_DECLS

/* Bytes between checkpoints at least; the index doubles it (merging
 * neighbours) when it would hold more than TSL_CHUNK_INDEX_MAX chunks or
 * TSL_CHUNK_INDEX_BYTES of saved state and access points. */
#define TSL_CHUNK_BYTES      (1024 * 1024)
/* The first chunk (always read) ends as soon as the sniffer's head is
 * passed and this much was read. */
#define TSL_CHUNK_FIRST_BYTES (64 * 1024)
#define TSL_CHUNK_INDEX_MAX  1024
#define TSL_CHUNK_INDEX_BYTES (1536 * 1024)
/* A checkpoint's format state at most; a boundary needing more is passed. */
#define TSL_CHUNK_STATE_MAX  (8 * 1024)

typedef struct {
  guint64  offset;      /* of the chunk's first byte */
  gint64   min_ns;      /* offered times; min > max when none */
  gint64   max_ns;
  gboolean must_read;
  guint64  line;        /* 1-based line and column of offset, for messages */
  guint64  column;
  GBytes  *state;       /* the format's state at offset; NULL for none */
  GBytes  *point;       /* compressed input: the decompressor's access point
                         * at or before offset (tsl-inflate.h); NULL for none */
  TslChunkRecords *records;  /* the index's records (tsl-chunk-records.h), or NULL */
} TslChunk;

/* What the format's restore() gets at the chunk's start: its state, with
 * the records part of that checkpoint. (transfer full) (nullable) */
GBytes           *tsl_chunk_get_state           (const TslChunk   *chunk);

typedef struct _TslChunkIndex TslChunkIndex;

/* Identity of an open file: FALSE for anything but a regular file. */
typedef struct {
  guint64 dev;
  guint64 inode;
  guint64 size;
  guint64 mtime_us;
} TslFileKey;

gboolean          tsl_file_key_query            (GFileInputStream *stream,
                                                 TslFileKey       *key);
/* SHA-256 of the file's first and last 64 KiB (what the caches check besides
 * the key); the stream is left where it was. */
gboolean          tsl_file_hash_ends            (GFileInputStream *stream,
                                                 guint64           size,
                                                 guint8            digest[32]);

/* The on-disk caches ($XDG_CACHE_HOME/timeslice/: indexes and whole-trace
 * states), on by default; off, nothing is read from or written to them
 * (--no-cache, the "use-cache" setting). Thread-safe. */
void              tsl_cache_set_enabled         (gboolean          enabled);
gboolean          tsl_cache_get_enabled         (void);
/* (transfer full) */
char             *tsl_cache_get_dir             (void);
/* What a cache entry must have been written by: the version, and the
 * running program's size and mtime. */
const char       *tsl_cache_get_program_id      (void);

TslChunkIndex    *tsl_chunk_index_new           (void);
TslChunkIndex    *tsl_chunk_index_ref           (TslChunkIndex    *self);
void              tsl_chunk_index_unref         (TslChunkIndex    *self);

/* Recording, by TslReader: a checkpoint at `offset` (decoded bytes) with
 * the format's state, closing the chunk before it with the trace's window.
 * The first call (offset 0) opens the first chunk. */
void              tsl_chunk_index_add           (TslChunkIndex    *self,
                                                 TslTrace         *trace,
                                                 guint64           offset,
                                                 guint64           line,
                                                 guint64           column,
                                                 const guint8     *state,
                                                 gsize             state_len,
                                                 const guint8     *point,
                                                 gsize             point_len);
/* The format saves records (tsl-chunk-records.h): before its first
 * checkpoint. */
void              tsl_chunk_index_use_records   (TslChunkIndex    *self);
/* A checkpoint() the reader did not take (state too large, no access point
 * yet): its records still count from `offset` on. */
void              tsl_chunk_index_note_records  (TslChunkIndex    *self,
                                                 guint64           offset,
                                                 const guint8     *state,
                                                 gsize             state_len);
/* End of input at `size` bytes of text: closes the last chunk (always read)
 * and keeps where each metric series ends (tsl-series-ends.h), which the
 * trace recorded from the first checkpoint on, for range reads. */
void              tsl_chunk_index_close         (TslChunkIndex    *self,
                                                 TslTrace         *trace,
                                                 guint64           size);
/* Follow mode: a closed copy of an index still being recorded, for the text
 * read so far (`size` bytes, the trace's span and format then); its last
 * chunk, from the last checkpoint on, is read always. NULL if there is no
 * valid index yet. (transfer full) (nullable) */
TslChunkIndex    *tsl_chunk_index_snapshot      (TslChunkIndex    *self,
                                                 guint64           size,
                                                 gint64            start_ns,
                                                 gint64            end_ns,
                                                 const char       *format,
                                                 TslSeriesEnds    *ends);
/* The format cannot resume inside this file: no index. */
void              tsl_chunk_index_invalidate    (TslChunkIndex    *self);
gboolean          tsl_chunk_index_is_valid      (TslChunkIndex    *self);
guint64           tsl_chunk_index_get_last_offset (TslChunkIndex  *self);
guint64           tsl_chunk_index_get_stride    (TslChunkIndex    *self);
/* Whether offsets are in the decompressed text of gzip or zstd input. */
gboolean          tsl_chunk_index_is_compressed (TslChunkIndex    *self);
void              tsl_chunk_index_set_compressed (TslChunkIndex   *self,
                                                 gboolean          compressed);
/* Bytes of saved state, records and points the index holds. */
gsize             tsl_chunk_index_get_state_bytes (TslChunkIndex  *self);
/* Whether a checkpoint at `offset` would be a chunk away from the last. */
gboolean          tsl_chunk_index_due           (TslChunkIndex    *self,
                                                 guint64           offset);

guint             tsl_chunk_index_get_n_chunks  (TslChunkIndex    *self);
const TslChunk   *tsl_chunk_index_get_chunk     (TslChunkIndex    *self,
                                                 guint             i);
/* The end of chunk i (the next one's offset, or the file size). */
guint64           tsl_chunk_index_get_chunk_end (TslChunkIndex    *self,
                                                 guint             i);
/* Whether chunk i is read for times in [lo, hi). */
gboolean          tsl_chunk_index_wants         (TslChunkIndex    *self,
                                                 guint             i,
                                                 gint64            lo,
                                                 gint64            hi);
/* The span of the whole file's first read. */
void              tsl_chunk_index_get_span      (TslChunkIndex    *self,
                                                 gint64           *start_ns,
                                                 gint64           *end_ns);
void              tsl_chunk_index_set_span      (TslChunkIndex    *self,
                                                 gint64            start_ns,
                                                 gint64            end_ns);
const char       *tsl_chunk_index_get_format    (TslChunkIndex    *self);
/* Where each metric series of the whole file ends, for a range read's
 * stats (tsl_trace_set_file_series_ends()). (transfer none) (nullable) */
TslSeriesEnds    *tsl_chunk_index_get_series_ends (TslChunkIndex  *self);
void              tsl_chunk_index_set_format    (TslChunkIndex    *self,
                                                 const char       *format);

/* The process's indexes, by file identity. Thread-safe. */
void              tsl_chunk_index_remember      (const TslFileKey *key,
                                                 TslChunkIndex    *index);
/* (transfer full) (nullable) */
TslChunkIndex    *tsl_chunk_index_lookup        (const TslFileKey *key);
/* The index of an open file: this process's, else the on-disk cache's
 * ($XDG_CACHE_HOME/timeslice/), checked against the file's identity and a
 * hash of its first and last 64 KiB. (transfer full) (nullable) */
TslChunkIndex    *tsl_chunk_index_find          (GFileInputStream *stream,
                                                 const TslFileKey *key);
/* Remembers a complete index and writes it to the cache (errors ignored:
 * the file is then simply read again next time). */
void              tsl_chunk_index_store         (GFileInputStream *stream,
                                                 const TslFileKey *key,
                                                 TslChunkIndex    *index);
/* The span of `path`'s whole read, if an index of it is known: what a
 * range's percentages are taken of, without reading the file. */
gboolean          tsl_chunk_index_get_file_span (const char       *path,
                                                 gint64           *start_ns,
                                                 gint64           *end_ns);
/* Whether TSL_NO_INDEX, or tsl_chunk_index_set_unwanted(), turns indexes off. */
gboolean          tsl_chunk_index_disabled      (void);
/* For a process that reads no range of a file again and keeps no cache:
 * its reads make no index (no checkpoints: 2 % of a Perfetto read). */
void              tsl_chunk_index_set_unwanted  (gboolean          unwanted);
/* Bytes read by range reads through an index since the process started
 * (for tests and benchmarks). Thread-safe. */
guint64           tsl_chunk_index_get_bytes_read (void);
void              tsl_chunk_index_count_read    (guint64           bytes);

/* Records an index of what `self` reads into `index` (before the first
 * feed). It is valid after tsl_reader_finish() unless the input or format
 * allows none. */
void              tsl_reader_set_index          (TslReader        *self,
                                                 TslChunkIndex    *index);
/* Before feeding the chunk that starts at a checkpoint other than where the
 * reader is: puts the format in the state saved there, and the reader at
 * the chunk's offset, line and column (event offsets, messages). FALSE when
 * the reader is not at a record boundary or the state cannot be restored:
 * the caller then reads the whole file instead. */
gboolean          tsl_reader_restore            (TslReader        *self,
                                                 const TslChunk   *chunk);
/* A part of a file (tsl_read_path_part()): the counts the format keeps
 * until the end of the document become the trace's tallies (keep) or are
 * dropped (the head read for the part's header), and restart. */
void              tsl_reader_flush_counts       (TslReader        *self,
                                                 gboolean          keep);
/* Follow mode, at the current end of a plain (not compressed) file whose
 * format is decided: the index of what was read so far
 * (tsl_chunk_index_snapshot()). (transfer full) (nullable) */
TslChunkIndex    *tsl_reader_snapshot_index     (TslReader        *self);
/* Whether the input is gzip or zstd (known after the first bytes). */
gboolean          tsl_reader_is_compressed      (TslReader        *self);
/* Compressed input: puts the decompressor at a chunk's access point and
 * drops its output before `text_offset` (the chunk's); the caller then
 * feeds the file from *in_offset. FALSE if the point does not fit. */
gboolean          tsl_reader_resume_input       (TslReader        *self,
                                                 const guint8     *point,
                                                 gsize             len,
                                                 guint64           text_offset,
                                                 guint64          *in_offset);
/* Compressed input: text from `text_end` on is dropped and the input after
 * it ignored (G_MAXUINT64: none), until the next resume. */
void              tsl_reader_set_text_end       (TslReader        *self,
                                                 guint64           text_end);
gboolean          tsl_reader_reached_text_end   (TslReader        *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TslChunkIndex, tsl_chunk_index_unref)

G_END_DECLS
