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

#include "tsl-format-private.h"
#include "tsl-json-scan.h"
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
  TslSpool            spool_samples;
  TslSpool            spool_deltas;

  guint64             warned[N_WARN_KINDS];
} TslCpuprofile;

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
void     tsl_cpuprofile_push_delta    (TslCpuprofile     *self,
                                       gint64             delta_ns,
                                       gsize              offset);
/* After anything that may let spooled samples go: the end of an array, of
 * "nodes", a "startTime". */
void     tsl_cpuprofile_drain         (TslCpuprofile     *self);
/* The end of the input: every array and the tree are as complete as they
 * will be; what is spooled goes, and mismatches are said. */
void     tsl_cpuprofile_finish        (TslCpuprofile     *self);

/* tsl-cpuprofile-reader.c */

/* TRUE for the first TSL_CPUPROFILE_POS_WARNINGS of a kind: the caller
 * warns with a position; the rest are counted and said at the end. */
gboolean tsl_cpuprofile_may_warn      (TslCpuprofile     *self,
                                       WarnKind           kind);

G_END_DECLS
