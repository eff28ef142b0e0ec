/* tsl-snapshot-private.h: the snapshot's fields, for tsl-snapshot-merge.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "tsl-snapshot.h"

G_BEGIN_DECLS

typedef struct {
  char   *name;
  gint64  position;   /* where its start lies on the merged axis */
  gint64  start;      /* its own start (absolute, as its reader gave it) */
  gint64  span;
} TslSnapshotPart;

struct _TslSnapshot
{
  GPtrArray        *frame_names;  /* id → name; id 0 is "" */
  GArray           *frame_lens;   /* id → strlen of its name (guint32) */
  guint64          *frame_slots;  /* name → id: open addressing, each slot hash << 32 | (id + 1), 0 empty */
  guint             frame_mask;
  GArray           *frames;       /* guint32 frame ids of every sample's stack */
  TslSnapshotTrack *tracks;
  guint             n_tracks;
  gint64            start_ns;
  gint64            span_ns;
  guint64           events;
  guint             k;
  gboolean          has_time;
  gboolean          has_cpu;
  char             *format;
  gboolean          exact;
  gint64            exact_start;
  gint64            exact_end;
  TslSnapshotFlow  *flows;        /* exact view: its flow arrows */
  guint             n_flows;
  TslSnapshotPart  *parts;        /* a merged snapshot's files, else NULL */
  guint             n_parts;
};

/* An empty snapshot holding the "" frame, reference count 1. */
TslSnapshot      *_tsl_snapshot_alloc           (void);
guint32           _tsl_snapshot_intern_frame    (TslSnapshot *self,
                                                 const char  *name,
                                                 gsize        len);

G_END_DECLS
