/* tsl-flame-view.h: flame graph of a range, or of A against B
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "tsl-flame.h"
#include "tsl-render-flame.h"

G_BEGIN_DECLS

typedef enum {
  TSL_FLAME_MODE_WHOLE,   /* the whole trace */
  TSL_FLAME_MODE_A,       /* range A */
  TSL_FLAME_MODE_B,       /* range B */
  TSL_FLAME_MODE_DIFF,    /* A against B, coloured by significance */
} TslFlameMode;

#define TSL_TYPE_FLAME_MODE (tsl_flame_mode_get_type ())
GType             tsl_flame_mode_get_type            (void) G_GNUC_CONST;

#define TSL_TYPE_FLAME_VIEW (tsl_flame_view_get_type ())
G_DECLARE_FINAL_TYPE (TslFlameView, tsl_flame_view, TSL, FLAME_VIEW, GtkWidget)

GtkWidget        *tsl_flame_view_new                 (void);
void              tsl_flame_view_set_snapshot        (TslFlameView       *self,
                                                      TslSnapshot        *snapshot);
/* The file the snapshot comes from and its first pass: a range's tree (and
 * the differential) then holds every event of the range, re-read from the
 * file (tsl_flame_new_exact), as `export --flamegraph` does; without one,
 * or for the whole trace, it is drawn from the snapshot's samples. */
void              tsl_flame_view_set_source          (TslFlameView       *self,
                                                      GFile              *file,
                                                      TslTrace           *trace,
                                                      guint               k);
/* Ranges in ns from the trace start, as the timeline's ranges A and B. */
void              tsl_flame_view_set_ranges          (TslFlameView       *self,
                                                      gboolean            has_a,
                                                      gint64              a_start_ns,
                                                      gint64              a_end_ns,
                                                      gboolean            has_b,
                                                      gint64              b_start_ns,
                                                      gint64              b_end_ns);
void              tsl_flame_view_set_mode            (TslFlameView       *self,
                                                      TslFlameMode        mode);
TslFlameMode      tsl_flame_view_get_mode            (TslFlameView       *self);
/* Track indices of the snapshot; NULL or none: every thread track. */
void              tsl_flame_view_set_tracks          (TslFlameView       *self,
                                                      const guint        *tracks,
                                                      guint               n_tracks);
void              tsl_flame_view_set_merge_threads   (TslFlameView       *self,
                                                      gboolean            merge);
gboolean          tsl_flame_view_get_merge_threads   (TslFlameView       *self);
void              tsl_flame_view_set_icicle          (TslFlameView       *self,
                                                      gboolean            icicle);
gboolean          tsl_flame_view_get_icicle          (TslFlameView       *self);
/* Frames weigh the spans' thread (CPU) time instead of wall time; every
 * tree is then exact, re-read from the file, the whole trace too. */
void              tsl_flame_view_set_cpu             (TslFlameView       *self,
                                                      gboolean            cpu);
gboolean          tsl_flame_view_get_cpu             (TslFlameView       *self);
/* The trace has thread time and its file can be re-read. */
gboolean          tsl_flame_view_get_cpu_available   (TslFlameView       *self);
void              tsl_flame_view_set_highlight       (TslFlameView       *self,
                                                      const char         *text);
/* The differential test's rounds and confidence (the compare settings). */
void              tsl_flame_view_set_test_settings   (TslFlameView       *self,
                                                      guint               rounds,
                                                      double              confidence);
/* (transfer none) (nullable): the tree shown, NULL while a differential
 * tree is being computed or without a snapshot. */
TslFlame         *tsl_flame_view_get_flame           (TslFlameView       *self);
gboolean          tsl_flame_view_get_busy            (TslFlameView       *self);
/* NULL zooms out to the root. */
void              tsl_flame_view_zoom_to             (TslFlameView       *self,
                                                      const TslFlameNode *node);
void              tsl_flame_view_zoom_out            (TslFlameView       *self);
/* (transfer none) (nullable): the zoomed frame, NULL at the root. */
const TslFlameNode *tsl_flame_view_get_zoom          (TslFlameView       *self);
/* What a click at (x, y) does: zoom into the frame there (or out to an
 * ancestor drawn full width). TRUE if it hit a frame. */
gboolean          tsl_flame_view_click               (TslFlameView       *self,
                                                      double              x,
                                                      double              y);
/* Fills `options` with what the view shows, for export "as shown". */
void              tsl_flame_view_get_render_options  (TslFlameView          *self,
                                                      TslFlameRenderOptions *options);

G_END_DECLS
