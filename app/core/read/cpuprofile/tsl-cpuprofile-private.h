/* tsl-cpuprofile-private.h: the V8 CPU profile reader's shared state
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The reader's state (TslCpuprofile) and what the files of this folder call
 * of each other: tsl-cpuprofile-reader.c (the format and the streaming
 * driver), tsl-cpuprofile-nodes.c (the call tree and stack labels) and
 * tsl-cpuprofile-samples.c (samples paired with their time deltas, spooled
 * while one of the two arrays is still to come).
 */
#pragma once

#include <stdio.h>
#include <string.h>

#include "tsl-format-private.h"
#include "tsl-json-scan.h"
#include "tsl-scan-ahead.h"
#include "tsl-spool.h"

G_BEGIN_DECLS

/* A sample that is no integer (warned about as such, not as an unknown node). */
#define TSL_CPUPROFILE_NOT_AN_ID G_MININT64

/* Times are kept within ±2^62 ns (±146 years): saturated sums of hostile
 * deltas must not reach the sampler's arithmetic at G_MININT64. */
#define TSL_CPUPROFILE_TIME_LIMIT (G_MAXINT64 / 2)

static inline gint64
tsl_cpuprofile_clamp_time (gint64    ns,
                           gboolean *clamped)
{
  if (ns > TSL_CPUPROFILE_TIME_LIMIT || ns < -TSL_CPUPROFILE_TIME_LIMIT)
    {
      *clamped = TRUE;
      return ns > 0 ? TSL_CPUPROFILE_TIME_LIMIT : -TSL_CPUPROFILE_TIME_LIMIT;
    }
  return ns;
}

/* Warnings that name a position, per kind; past these only a count. */
#define TSL_CPUPROFILE_POS_WARNINGS 10

typedef enum {
  ST_START,     /* before the top-level '{' */
  ST_TOP,       /* in the top-level object, before a member or after one */
  ST_NODES,     /* in "nodes" */
  ST_SAMPLES,   /* in "samples" */
  ST_DELTAS,    /* in "timeDeltas" */
  ST_SKIP,      /* passing over a member's value */
  ST_AFTER,     /* after the top-level value, or after damage: nothing more is read */
} Stage;

/* A node of the call tree, known from its definition or from a parent's
 * "children" naming it first. */
typedef struct {
  gint64   id;
  guint32  name;        /* interned frame name; 0 until defined */
  guint32  parent;      /* index + 1; 0: a root */
  guint32  up;          /* index + 1 of an ancestor, 0 at a root: the root found fast */
  gboolean defined;
} Node;

/* What a positional warning kind counts past its first few. */
typedef enum {
  WARN_UNKNOWN_NODE,
  WARN_NEGATIVE_DELTA,
  WARN_NOT_INTEGER,
  WARN_BAD_NODE,
  N_WARN_KINDS,
} WarnKind;

typedef struct {
  TslTrace           *trace;
  TslReaderContext   *ctx;
  guint               track;
  GString            *scratch;
  GString            *label;

  Stage               stage;
  gboolean            first;        /* of the container the stage is in */
  TslJsonSkip         skip;
  guint64             n_events;     /* not yet added to the trace */

  /* The call tree. */
  GArray             *nodes;        /* Node */
  GHashTable         *by_id;        /* gint64 id → index + 1, every node */
  GArray             *dense;        /* guint32 by id < DENSE_IDS: index + 1 of a defined node */
  GArray             *path;         /* scratch: a stack's node indices, leaf first */
  guint32             unknown_name;
  guint32             root_name;
  gboolean            nodes_done;
  gboolean            saw_nodes;

  /* The arrays and the time base. */
  gboolean            saw_samples;
  gboolean            saw_deltas;
  gboolean            samples_done;
  gboolean            deltas_done;
  gboolean            samples_checked; /* the tree was known when "samples" began */
  gboolean            have_start;
  gint64              start_ns;
  guint64             n_samples;    /* read from "samples" */
  guint64             n_deltas;     /* read from "timeDeltas" */
  guint64             n_emitted;    /* samples placed on the track */
  gint64              t_ns;         /* Σ deltas so far, from start_ns */
  gboolean            clamped;      /* a time past TSL_CPUPROFILE_TIME_LIMIT */
  /* The decoding thread pops the samples' spool while the reading thread
   * counts and places: a cache line apart, or every element moves one. */
  char                pad_before[64];
  TslSpool            spool_samples;
  TslSpool            spool_deltas;

  guint64             warned[N_WARN_KINDS];

  /* Elements decoded on a second thread (tsl-cpuprofile-ahead.c); the
   * job's fields are the thread's while it runs. */
  TslScanAhead       *ahead;
  const guint8       *job_buf;
  const char         *job_p;
  const char         *job_end;
  gboolean            job_place;    /* deltas that place the spooled samples */
  char                pad_after[64];
} TslCpuprofile;

/* Element `,123` at p (1 to 7 digits, then a delimiter, 9 bytes at hand):
 * its value and length, read eight bytes at a time (SWAR); 0 when p holds
 * no such element. Borrows and carries only run towards later bytes, past
 * the first non-digit. */
static inline guint
tsl_cpuprofile_swar (const char *p,
                     guint64    *value)
{
  guint64 chunk, x, non_digits, v;
  guint len;

  if (p[0] != ',')
    return 0;
  memcpy (&chunk, p + 1, 8);
  chunk = GUINT64_FROM_LE (chunk);
  /* A byte's high bit set where it is no digit: below '0' wraps, above
   * '9' reaches 0x80 with 0x76 added. */
  x = chunk - G_GUINT64_CONSTANT (0x3030303030303030);
  non_digits = (x | (x + G_GUINT64_CONSTANT (0x7676767676767676))) & G_GUINT64_CONSTANT (0x8080808080808080);
  if (non_digits == 0)
    return 0;
  len = (guint) __builtin_ctzll (non_digits) >> 3;
  if (len == 0 || !tsl_json_delimiter[(guchar) p[1 + len]])
    return 0;
  /* The digits at the top, leading zeros below: pairs, quads, eight. */
  v = (chunk << (64 - 8 * len)) & G_GUINT64_CONSTANT (0x0f0f0f0f0f0f0f0f);
  v = (v * 2561) >> 8;
  v = ((v & G_GUINT64_CONSTANT (0x00ff00ff00ff00ff)) * 6553601) >> 16;
  v = ((v & G_GUINT64_CONSTANT (0x0000ffff0000ffff)) * G_GUINT64_CONSTANT (42949672960001)) >> 32;
  *value = v;
  return len;
}

/* tsl-cpuprofile-nodes.c */

void     tsl_cpuprofile_nodes_init   (TslCpuprofile      *self);
void     tsl_cpuprofile_nodes_clear  (TslCpuprofile      *self);
/* One element of "nodes" at buf + offset. */
void     tsl_cpuprofile_read_node    (TslCpuprofile      *self,
                                      const TslJsonValue *node,
                                      gsize               offset);
/* Index + 1 of the node with this id, 0 if none is defined. V8 numbers
 * its nodes from 1: small ids are an array index, not a hash lookup. */
guint32  tsl_cpuprofile_find_node_slow (TslCpuprofile    *self,
                                        gint64            id);
static inline guint32
tsl_cpuprofile_find_node (TslCpuprofile *self,
                          gint64         id)
{
  if (id >= 0 && id < (gint64) self->dense->len)
    return g_array_index (self->dense, guint32, id);
  return tsl_cpuprofile_find_node_slow (self, id);
}
/* Labels the kept sample with the node's stack, root first. */
void     tsl_cpuprofile_label_node   (TslCpuprofile      *self,
                                      guint32             node);

/* tsl-cpuprofile-samples.c */

void     tsl_cpuprofile_samples_init  (TslCpuprofile     *self);
void     tsl_cpuprofile_samples_clear (TslCpuprofile     *self);
/* An element of "samples" / "timeDeltas"; offset in the current buffer,
 * for warnings. */
void     tsl_cpuprofile_push_sample   (TslCpuprofile     *self,
                                       gint64             id,
                                       gsize              offset);
/* The same, its node (index + 1, 0: unknown) found already when
 * samples_checked, else `value` is the id. */
void     tsl_cpuprofile_push_found    (TslCpuprofile     *self,
                                       gint64             id,
                                       gint64             value,
                                       gsize              offset);
/* Places that sample (a delta counted with n_deltas, not negative). */
void     tsl_cpuprofile_place         (TslCpuprofile     *self,
                                       guint32            node,
                                       gint64             at);
void     tsl_cpuprofile_push_delta    (TslCpuprofile     *self,
                                       gint64             delta_ns,
                                       gsize              offset);
/* After anything that may let spooled samples go: the end of an array, of
 * "nodes", a "startTime". */
void     tsl_cpuprofile_drain         (TslCpuprofile     *self);
/* The end of the input: every array and the tree are as complete as they
 * will be; what is spooled goes, and mismatches are said. */
void     tsl_cpuprofile_finish        (TslCpuprofile     *self);

/* tsl-cpuprofile-ahead.c */

/* Elements after the first of "samples" or "timeDeltas" as V8 writes them
 * from p, decoded on a second thread when the reader may use one and
 * enough of the buffer is left; returns where reading goes on (p when
 * nothing was done). */
const char *tsl_cpuprofile_ahead     (TslCpuprofile     *self,
                                      const guint8      *buf,
                                      const char        *p,
                                      const char        *end);
void        tsl_cpuprofile_ahead_clear (TslCpuprofile   *self);

/* tsl-cpuprofile-reader.c */

/* TRUE for the first TSL_CPUPROFILE_POS_WARNINGS of a kind: the caller
 * warns with a position; the rest are counted and said at the end. */
gboolean tsl_cpuprofile_may_warn      (TslCpuprofile     *self,
                                       WarnKind           kind);

G_END_DECLS
