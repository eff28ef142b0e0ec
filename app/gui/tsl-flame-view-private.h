/* tsl-flame-view-private.h: TslFlameView's insides, for its own files
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * tsl-flame-view.c (properties, zoom, drawing, input) and
 * tsl-flame-view-build.c (which tree, and building it) share these.
 */
#pragma once

#include <gtk/gtk.h>

#include "tsl-flame-view.h"

G_BEGIN_DECLS

struct _TslFlameView
{
  GtkWidget     parent_instance;

  TslSnapshot  *snapshot;
  char         *path;         /* the file to re-read per range (nullable) */
  TslTrace     *trace;        /* its first pass (nullable) */
  guint         k;
  TslFlame     *flame;
  GCancellable *cancellable;
  GArray       *tracks;       /* guint */
  char         *highlight;
  GStrv         zoom_path;    /* frames of the zoomed node, root first */
  const TslFlameNode *zoom;   /* in `flame`, or NULL for the root */

  TslFlameMode  mode;
  gboolean      has_range[2];
  gint64        range_start[2];
  gint64        range_end[2];
  gboolean      merge_threads;
  gboolean      icicle;
  gboolean      cpu;          /* frames weigh thread time, not wall time */
  gboolean      cpu_available;   /* as last notified */
  guint         rounds;
  double        confidence;
  guint         rebuild_id;
  GtkAdjustment *vadjustment; /* of the scrolled window around it, while rooted */
  gulong        vadjustment_changed_id;
  guint         anchor_id;
};

typedef enum {
  PROP_0,
  PROP_MODE,
  PROP_MERGE_THREADS,
  PROP_ICICLE,
  PROP_CPU,
  PROP_CPU_AVAILABLE,
  PROP_BUSY,
  PROP_FLAME,
  N_PROPS
} TslFlameViewProp;

void        _tsl_flame_view_notify         (TslFlameView     *self,
                                            TslFlameViewProp  prop);
/* What the view says instead of a graph (no trace, no range, busy …), or NULL. */
const char *_tsl_flame_view_empty_text     (TslFlameView     *self);
/* The path can be re-read for every event of a range. */
gboolean    _tsl_flame_view_can_reread     (TslFlameView     *self);
/* Builds the tree now, cancelling one being built. */
void        _tsl_flame_view_rebuild        (TslFlameView     *self);
/* Coalesces the several setters a window calls in a row into one build. */
void        _tsl_flame_view_queue_rebuild  (TslFlameView     *self);

G_END_DECLS
