/* tsl-pprof-private.h: the pprof reader's shared state
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The reader's state (TslPprof) and what the files of this folder call of
 * each other: tsl-pprof-reader.c (the format, the sniffer and the stream of
 * top-level fields into tables, the Sample records spooled until the end)
 * and tsl-pprof-samples.c (at the end: the weight and count
 * chosen, the samples placed and labelled).
 */
#pragma once

#include <stdio.h>

#include "tsl-format-private.h"
#include "tsl-proto.h"
#include "tsl-spool.h"

G_BEGIN_DECLS

/* A top-level field longer than this is damage, not data (a Go profile's
 * largest, the string table, is a few hundred bytes per string). */
#define TSL_PPROF_MAX_FIELD (64u * 1024 * 1024)

/* Times are kept within ±2^62 ns (±146 years), as the other readers do. */
#define TSL_PPROF_TIME_LIMIT (G_MAXINT64 / 2)

/* Warnings that name a position, per kind; past these only a count. */
#define TSL_PPROF_POS_WARNINGS 10

typedef enum {
  WARN_BAD_FIELD,        /* a known field of the wrong wire type, a damaged message */
  WARN_MISSING_FUNCTION,
  WARN_MISSING_LOCATION,
  WARN_BAD_STRING,       /* a string index out of range */
  WARN_BAD_VALUE,        /* negative, missing or too large sample values */
  N_WARN_KINDS,
} WarnKind;

typedef struct {
  guint64 id;
  gint64  name;          /* string table indices */
  gint64  system_name;
  guint64 pos;           /* byte of the decoded input, for warnings */
} Function;

typedef struct {
  guint64 function_id;
} Line;

typedef struct {
  guint64 id;
  guint64 mapping_id;
  guint64 address;
  guint   first_line;    /* in lines */
  guint   n_lines;
  guint   first_frame;   /* in frames, once the tables are known */
  guint   n_frames;
  guint64 pos;
} Location;

typedef struct {
  guint64 id;
  gint64  filename;
  guint64 memory_start;
} Mapping;

/* id → index + 1 in a table: ids are small and dense in what Go writes
 * (an array), anything else goes to a hash table. */
typedef struct {
  GArray     *dense;     /* guint32 */
  GHashTable *sparse;    /* guint64 * → index + 1 */
} TslPprofIds;

typedef struct {
  TslTrace         *trace;
  TslReaderContext *ctx;
  GString          *scratch;

  gboolean          stopped;      /* damage: nothing more is read */

  /* The tables, in file order. */
  GPtrArray        *strings;      /* char *, string_table */
  GArray           *sample_types; /* gint64 pairs: type, unit (string indices) */
  GArray           *functions;    /* Function */
  GArray           *locations;    /* Location */
  GArray           *lines;        /* Line */
  GArray           *mappings;     /* Mapping */
  TslPprofIds       function_ids;
  TslPprofIds       location_ids;
  TslPprofIds       mapping_ids;

  /* The Sample records, read when the tables are known. */
  TslSpool          samples;
  guint64           n_records;
  /* A record's count past this is cut to it (TSL_PPROF_MAX_COUNT): each
   * counted sample is one event to place. */
  gint64            max_count;

  gboolean          have_time;
  gboolean          have_duration;
  gboolean          have_period;
  gboolean          have_default_type;
  gint64            time_nanos;
  gint64            duration_nanos;
  gint64            period;
  gint64            period_type[2];
  gint64            default_type;

  /* tsl-pprof-samples.c: the last few thread labels' tracks, and whether
   * the last label key named a thread. */
  struct {
    const char *thread;
    guint       track;
    gboolean    valid;
  }                 recent[8];
  guint             n_recent;
  gint64            last_key;
  gboolean          last_key_is_thread;

  guint64           warned[N_WARN_KINDS];
} TslPprof;

/* tsl-pprof-reader.c */

/* TRUE for the first TSL_PPROF_POS_WARNINGS of a kind: the caller warns
 * with a position; the rest are counted and said at the end. */
gboolean     tsl_pprof_may_warn   (TslPprof   *self,
                                   WarnKind    kind);
/* "FILE:BYTE: message" for a byte of the decoded input. */
void         tsl_pprof_warn_at    (TslPprof   *self,
                                   guint64     pos,
                                   const char *message);
guint32      tsl_pprof_ids_find   (TslPprofIds *ids,
                                   guint64      id);
/* The string at a string table index, NULL when out of range. */
const char  *tsl_pprof_string     (TslPprof   *self,
                                   gint64      index);

/* tsl-pprof-samples.c */

/* The end of the input: every sample placed, the notes said. */
void         tsl_pprof_finish     (TslPprof   *self);

G_END_DECLS
